#!/bin/sh
# run-unit.sh - run host unit-test binaries (cmocka) and summarise them.
#
#   tools/run-unit.sh BIN...
#
# Each binary's output is shown as it runs. Test cases are counted from
# cmocka's summary lines ("[  PASSED  ] N test(s)." and "[  FAILED  ] N
# test(s), listed below:"); a binary that exits non-zero, is killed by a
# signal, times out, or prints a sanitizer report without any failed case
# counts as one failed case, so a crash is never lost. The last line is
# exactly "unit: N passed, N failed"; the exit status is 1 if anything failed.
#
# Environment: UNIT_TIMEOUT - seconds one binary may run (default 300).

UNIT_TIMEOUT=${UNIT_TIMEOUT:-300}

total_passed=0
total_failed=0
failed_bins=""

log=$(mktemp "${TMPDIR:-/tmp}/run-unit.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT INT TERM

# sum_counts PATTERN: add up N over every "PATTERN N test(s)" in the log.
sum_counts() {
	grep -o "$1 [0-9][0-9]* test(s)" "$log" |
		sed 's/.* \([0-9][0-9]*\) test(s)/\1/' |
		awk '{ n += $1 } END { print n + 0 }'
}

for bin in "$@"; do
	echo "==> $bin"
	if [ ! -x "$bin" ]; then
		echo "run-unit: $bin: missing or not executable" >&2
		total_failed=$((total_failed + 1))
		failed_bins="$failed_bins $bin"
		continue
	fi

	# Run through a pipe to show the output live while keeping a copy.
	# The exit status travels through a file because a pipeline's status is
	# that of its last command in POSIX sh.
	status_file="$log.status"
	{
		if command -v timeout >/dev/null 2>&1; then
			timeout "$UNIT_TIMEOUT" "$bin" 2>&1
		else
			"$bin" 2>&1
		fi
		echo $? > "$status_file"
	} | tee "$log"
	status=$(cat "$status_file" 2>/dev/null || echo 1)
	rm -f "$status_file"

	passed=$(sum_counts '\[  PASSED  \]')
	failed=$(sum_counts '\[  FAILED  \]')
	sanitizer=0
	if grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' \
		-e 'runtime error:' -e 'ThreadSanitizer' "$log"; then
		sanitizer=1
	fi

	if [ "$status" -ne 0 ] || [ "$sanitizer" -ne 0 ]; then
		[ "$status" -eq 124 ] && echo "run-unit: $bin: timed out after ${UNIT_TIMEOUT}s" >&2
		[ "$sanitizer" -ne 0 ] && echo "run-unit: $bin: sanitizer report" >&2
		[ "$status" -ne 0 ] && echo "run-unit: $bin: exit status $status" >&2
		# A crash or sanitizer abort may leave no cmocka summary at all.
		[ "$failed" -eq 0 ] && failed=1
		failed_bins="$failed_bins $bin"
	elif [ "$passed" -eq 0 ] && [ "$failed" -eq 0 ]; then
		# Not a cmocka binary (or it printed no summary): count the binary.
		passed=1
	fi

	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
done

[ -n "$failed_bins" ] && echo "run-unit: failed:$failed_bins" >&2
echo "unit: $total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
