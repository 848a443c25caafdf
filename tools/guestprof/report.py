#!/usr/bin/env python3
"""report.py - guest instructions per function from tools/guestprof's counts.

  report.py KERNEL.elf COUNTS [--windows A,B] [--per N] [--top K] [--vs C,D]

Maps every counted block start to the function that contains it (the
symbols of KERNEL.elf, from nm) and prints each function's instructions in
the chosen windows (default: all), divided by --per (e.g. the DRQ blocks of
a pass). With --vs, a second set of windows side by side and the
difference, largest first: where one run spends instructions that the other
does not. Under -icount every instruction is 2^shift ns of guest time.
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
    args = ap.parse_args()
    addrs, names = symbols(args.elf)
    wins = windows(args.counts)
    print(f"{len(wins)} windows: " + " ".join(f"{i}:{sum(w[0].values())}" for i, w in enumerate(wins)))
    a, ca = per_function(wins, pick(args.windows, len(wins)), addrs, names)
    na = len(pick(args.windows, len(wins)))
    if not args.vs:
        print(f"{'insns':>12} {'calls':>8}  function   (per --per, per window)")
        for name, n in a.most_common(args.top):
            print(f"{n / args.per / na:12.1f} {ca[name] / args.per / na:8.2f}  {name}")
        print(f"{sum(a.values()) / args.per / na:12.1f}  total")
        return 0
    b, cb = per_function(wins, pick(args.vs, len(wins)), addrs, names)
    nb = len(pick(args.vs, len(wins)))
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
