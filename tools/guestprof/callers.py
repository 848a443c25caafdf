#!/usr/bin/env python3
"""callers.py - who calls a function, and how often, from tools/guestprof's counts.

  callers.py KERNEL.elf COUNTS FUNCTION... [--windows A,B] [--vs C,D] [--per N]

A translation block ends at every call, so the instruction after a call
starts a block of its own, executed once per return there. For every
`call FUNCTION` in KERNEL.elf (from i686-linux-gnu-objdump -d) this prints
the executions of the block at its return address, per --per, in the
chosen windows (and beside them the --vs windows): how often each call
site ran. Calls the compiler turned into jumps (tail calls) have no return
address and are not counted; the per-function "calls" of report.py count
them too, so the sum here can be lower. With make prof-ata's counts
(build/prof/ata-counts.txt): windows 7,8 a lost pass pair, 3,4 healthy,
128 DRQ blocks per pass, which are the defaults.
"""
import argparse
import bisect
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402

CALL_RX = re.compile(r"^\s*([0-9a-f]+):\s+call\s+[0-9a-f]+ <([^>+]+)>")
INSN_RX = re.compile(r"^\s*([0-9a-f]+):\s")


def call_sites(elf, wanted):
    """Per wanted function: (calling function, return address) of each call to it."""
    out = subprocess.run(["i686-linux-gnu-objdump", "-d", "--no-show-raw-insn", elf],
                         check=True, capture_output=True, text=True).stdout
    addrs, names = report.symbols(elf)
    insns = [line for line in out.splitlines() if INSN_RX.match(line)]
    sites = {name: [] for name in wanted}
    for i, line in enumerate(insns[:-1]):
        m = CALL_RX.match(line)
        if not m or m.group(2) not in sites:
            continue
        ret = int(INSN_RX.match(insns[i + 1]).group(1), 16)
        k = bisect.bisect_right(addrs, int(m.group(1), 16)) - 1
        sites[m.group(2)].append((names[k] if k >= 0 else "?", ret))
    return sites


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kernel")
    ap.add_argument("counts")
    ap.add_argument("functions", nargs="+")
    ap.add_argument("--windows", default="7,8")
    ap.add_argument("--vs", default="3,4")
    ap.add_argument("--per", type=float, default=128)
    args = ap.parse_args()
    wins = report.windows(args.counts)
    pick_a = [int(w) for w in args.windows.split(",")]
    pick_b = [int(w) for w in args.vs.split(",")] if args.vs else []
    for w in pick_a + pick_b:
        if w >= len(wins):
            print(f"callers: window {w} not in {args.counts} ({len(wins)} windows)")
            return 1

    def runs(chosen, addr):
        return sum(wins[w][1][addr] for w in chosen) / len(chosen) / args.per if chosen else 0.0

    sites = call_sites(args.kernel, args.functions)
    for name in args.functions:
        rows = [(runs(pick_a, ret), runs(pick_b, ret), caller, ret) for caller, ret in sites[name]]
        rows = sorted((r for r in rows if r[0] or r[1]), key=lambda r: -max(r[0], r[1]))
        print(f"{name}: {sum(r[0] for r in rows):.2f} calls per --per in windows {args.windows}"
              + (f", {sum(r[1] for r in rows):.2f} in {args.vs}" if pick_b else "")
              + f" ({len(sites[name])} call sites)")
        for a, b, caller, ret in rows:
            print(f"  {a:8.2f} {b:8.2f}  {caller} (returns to {ret:#x})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
