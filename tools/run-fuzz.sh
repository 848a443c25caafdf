#!/bin/sh
# run-fuzz.sh SECONDS FUZZER... - run each libFuzzer binary for SECONDS on its
# seed corpus (tests/fuzz/corpus/NAME, copied so the tree is not written to),
# stop at the first crash, and end with a summary line "fuzz: N passed, N failed".
set -u
secs=$1
shift
passed=0
failed=0
for bin in "$@"; do
	name=$(basename "$bin")
	work=$(mktemp -d "/tmp/irqkit-fuzz-$name.XXXXXX")
	[ -d "tests/fuzz/corpus/$name" ] && cp -r "tests/fuzz/corpus/$name/." "$work/"
	echo "fuzz: $name for ${secs}s"
	if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$work/" "$work" > "$work.log" 2>&1; then
		passed=$((passed + 1))
		grep -E '^(stat::number_of_executed_units|#[0-9]+.*DONE)' "$work.log" | tail -2
	else
		failed=$((failed + 1))
		echo "fuzz: $name FAILED; last lines of its log ($work.log):"
		tail -40 "$work.log"
		ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* 2>/dev/null
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
