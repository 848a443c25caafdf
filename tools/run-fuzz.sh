#!/bin/sh
# run-fuzz.sh [-j JOBS] SECONDS FUZZER... - run each libFuzzer binary for SECONDS on its
# seed corpus (tests/fuzz/corpus/NAME, copied so the tree is not written to), JOBS of them at
# once (default 1; each is one process on one core, so JOBS = the number of cores gives every
# fuzzer the same time as one at a time, in a fraction of the wall time), and end with a
# summary line "fuzz: N passed, N failed". A failed fuzzer's log tail and its crash inputs are
# printed and its work directory (corpus, inputs, log) is left in TMPDIR; a passed one's is
# removed. Reports come in the order of the arguments, whatever order the runs end in.
set -u
jobs=1
if [ "${1:-}" = "-j" ]; then
	jobs=$2
	shift 2
fi
case "$jobs" in
'' | *[!0-9]* | 0) echo "run-fuzz: -j wants a number of at least 1, not '$jobs'" >&2; exit 2 ;;
esac
secs=$1
shift
out=$(mktemp -d "${TMPDIR:-/tmp}/irqkit-fuzz-run.XXXXXX") || exit 1

# run_one INDEX BIN: one fuzzer; its report goes to $out/INDEX.txt, its status to $out/INDEX.rc.
run_one() {
	name=$(basename "$2")
	work=$(mktemp -d "${TMPDIR:-/tmp}/irqkit-fuzz-$name.XXXXXX")
	[ -d "tests/fuzz/corpus/$name" ] && cp -r "tests/fuzz/corpus/$name/." "$work/"
	{
		echo "fuzz: $name for ${secs}s"
		if "$2" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix="$work/" "$work" > "$work.log" 2>&1; then
			echo 0 > "$out/$1.rc"
			grep -E '^(stat::number_of_executed_units|#[0-9]+.*DONE)' "$work.log" | tail -2
			rm -rf "$work" "$work.log"	# kept only when it failed: its log and crash inputs
		else
			echo 1 > "$out/$1.rc"
			echo "fuzz: $name FAILED; last lines of its log ($work.log):"
			tail -40 "$work.log"
			ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* 2>/dev/null
		fi
	} > "$out/$1.txt" 2>&1
}

# JOBS lanes; lane L runs the fuzzers whose index is L modulo JOBS, one after another.
lane=0
while [ "$lane" -lt "$jobs" ]; do
	(
		i=0
		for bin in "$@"; do
			[ $((i % jobs)) -eq "$lane" ] && run_one "$i" "$bin"
			i=$((i + 1))
		done
	) &
	lane=$((lane + 1))
done
wait

passed=0
failed=0
i=0
for bin in "$@"; do
	if [ -f "$out/$i.txt" ]; then
		cat "$out/$i.txt"
	else
		echo "fuzz: $(basename "$bin") left no report"
	fi
	if [ "$(cat "$out/$i.rc" 2>/dev/null)" = 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	i=$((i + 1))
done
rm -rf "$out"
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
