#!/usr/bin/env python3
"""report.py - guest instructions per function from tools/guestprof's counts.

  report.py KERNEL.elf COUNTS [--windows A,B] [--per N] [--top K] [--vs C,D]
            [--vs-counts FILE[,FILE...]] [--counts-also FILE,...] [--minus FUNC,...]

Maps every counted block start to the function that contains it (the
symbols of KERNEL.elf, from nm) and prints each function's instructions in
the chosen windows (default: all), divided by --per (e.g. the DRQ blocks of
a pass). With --vs, a second set of windows side by side and the
difference, largest first: where one run spends instructions that the other
does not. Under -icount every instruction is 2^shift ns of guest time.

--vs-counts takes the --vs windows from other counts files of the same
kernel (e.g. a `--append noirqdebug` boot beside an irqkit one: issue 19's
"healthy costs nothing"), --counts-also adds more boots to the first side
(windows averaged over all of them), and --minus leaves functions out of
both totals (the ATA bench's pattern_fill,pattern_check,pattern_header:
the "I/O path" of docs/benchmarks.md).
"""
import argparse
import bisect
import collections
import subprocess
import sys


def symbols(elf):
    out = subprocess.run(["i686-linux-gnu-nm", "-n", "--defined-only", elf],
                         check=True, capture_output=True, text=True).stdout
    addrs, names = [], []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            addrs.append(int(parts[0], 16))
            names.append(parts[2])
    return addrs, names


def windows(path):
    """Per window: instructions per block start, and executions (calls at a function's entry)."""
    wins, cur = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("window"):
                cur, calls = collections.Counter(), collections.Counter()
                wins.append((cur, calls))
            elif cur is not None:
                a, n, e = line.split()
                cur[int(a, 16)] += int(n)
                calls[int(a, 16)] += int(e)
    return wins


def per_function(wins, chosen, addrs, names):
    """Instructions per function, and calls (executions of the block at its entry)."""
    total, calls = collections.Counter(), collections.Counter()
    for i in chosen:
        insns, execs = wins[i]
        for a, n in insns.items():
            k = bisect.bisect_right(addrs, a) - 1
            name = names[k] if k >= 0 else f"?{a:#x}"
            total[name] += n
            if k >= 0 and addrs[k] == a:
                calls[name] += execs[a]
    return total, calls


def pick(spec, n):
    if not spec:
        return list(range(n))
    return [int(x) for x in spec.split(",")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("elf")
    ap.add_argument("counts")
    ap.add_argument("--windows")
    ap.add_argument("--vs")
    ap.add_argument("--per", type=float, default=1.0)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--vs-counts", help="counts file(s) of the --vs side (default: COUNTS)")
    ap.add_argument("--counts-also", help="more counts files of the first side")
    ap.add_argument("--minus", default="", help="functions left out of both sides")
    args = ap.parse_args()
    addrs, names = symbols(args.elf)
    minus = {f for f in args.minus.split(",") if f}

    def side(files, spec):
        tot, calls, n = collections.Counter(), collections.Counter(), 0
        for path in files:
            ws = windows(path)
            print(f"{path}: {len(ws)} windows: " + " ".join(f"{i}:{sum(w[0].values())}" for i, w in enumerate(ws)))
            t, c = per_function(ws, pick(spec, len(ws)), addrs, names)
            tot.update(t)
            calls.update(c)
            n += len(pick(spec, len(ws)))
        for f in minus:
            tot.pop(f, None)
            calls.pop(f, None)
        return tot, calls, n

    a, ca, na = side([args.counts] + (args.counts_also.split(",") if args.counts_also else []), args.windows)
    if not args.vs:
        print(f"{'insns':>12} {'calls':>8}  function   (per --per, per window)")
        for name, n in a.most_common(args.top):
            print(f"{n / args.per / na:12.1f} {ca[name] / args.per / na:8.2f}  {name}")
        print(f"{sum(a.values()) / args.per / na:12.1f}  total")
        return 0
    b, cb, nb = side(args.vs_counts.split(",") if args.vs_counts else [args.counts], args.vs)
    rows = [(name, a[name] / args.per / na, b[name] / args.per / nb, ca[name] / args.per / na,
             cb[name] / args.per / nb) for name in set(a) | set(b)]
    rows.sort(key=lambda r: -abs(r[1] - r[2]))
    print(f"{'A':>12} {'B':>12} {'A-B':>12} {'calls A':>8} {'calls B':>8}  function")
    for name, x, y, cx, cy in rows[:args.top]:
        print(f"{x:12.1f} {y:12.1f} {x - y:12.1f} {cx:8.2f} {cy:8.2f}  {name}")
    print(f"{sum(a.values()) / args.per / na:12.1f} {sum(b.values()) / args.per / nb:12.1f}"
          f" {(sum(a.values()) / na - sum(b.values()) / nb) / args.per:12.1f}  total")
    return 0


if __name__ == "__main__":
    sys.exit(main())
