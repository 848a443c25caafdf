#!/bin/sh
# loaded.sh - run a command beside busy loops, to see it on a loaded host.
#
#   tools/loaded.sh [-n N] CMD [ARGS...]
#
# Starts N busy loops (default: one per core, `nproc`; or $LOADED_N), runs
# CMD with its arguments in the foreground, then kills the loops - also
# when CMD fails or this script is interrupted - and exits with CMD's
# status. A test that judges guest time must pass like this: it runs under
# -icount (guest time that does not depend on the host) or judges with
# host evidence (tools/vcpuwatch), never with a wider margin. `make
# test-loaded` runs the QEMU tests so; the loops are plain shell loops
# (no package needed), each a process of its own that the host schedules
# against QEMU's threads. The load average before and after is printed,
# so a result can name the load it met.
set -u

n="${LOADED_N:-}"
if [ "${1:-}" = "-n" ]; then
	[ $# -ge 2 ] || { echo "loaded.sh: -n needs a number" >&2; exit 2; }
	n="$2"
	shift 2
fi
[ -n "$n" ] || n="$(nproc 2>/dev/null || echo 1)"
case "$n" in
	''|*[!0-9]*) echo "loaded.sh: N must be a number, not '$n'" >&2; exit 2 ;;
esac
if [ "$n" -gt 64 ]; then
	echo "loaded.sh: $n busy loops is more than 64: refused" >&2
	exit 2
fi
[ $# -ge 1 ] || { echo "usage: tools/loaded.sh [-n N] CMD [ARGS...]" >&2; exit 2; }

pids=""
stop_loops() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	for p in $pids; do
		wait "$p" 2>/dev/null
	done
	pids=""
}
trap 'stop_loops; exit 130' INT
trap 'stop_loops; exit 143' TERM
trap 'stop_loops' EXIT

i=0
while [ "$i" -lt "$n" ]; do
	# Not on CMD's stdin/stdout: a reader of CMD's output sees its end when CMD ends.
	sh -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
echo "loaded.sh: $n busy loops beside: $*; load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" >&2

"$@"
status=$?

echo "loaded.sh: load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null); $* exited $status" >&2
stop_loops
exit "$status"
