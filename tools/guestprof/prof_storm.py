#!/usr/bin/env python3
"""prof_storm.py - where the guest's instructions go per interrupt of `hpet-storm`.

Boots q35 under -icount shift=3,sleep=off with tools/guestprof's plugin
marking every entry of cpuload_cmd (kernel/cpuload.c), so that each `cpuload`
run is one window of counts: two idle runs, then `inject hpet-storm:HZ`, then
RUNS runs while the storm goes on (the defences' answer included: a line
throttled by then costs its polls). Under -icount every instruction is 8 ns
of guest time and `cpuload` never halts, so each window holds the same
number of instructions; what the storm's interrupts take, the busy loop
loses. Prints each run's `cpuload` line and, per function, the instructions
of the storm run chosen (--window, default the second) beside the second idle
run, divided by the interrupts delivered during it: the cost of one
interrupt, function by function, entry and exit included (x86_irq_vector,
the vector stubs, the tick's share). The answer to "what is the CPU lost
to a storm made of" (docs/storms.md, "What a claimed interrupt costs").

Usage: prof_storm.py [--hz HZ] [--append ARGS] [--runs N] [--window K] [--top N] [--keep FILE]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
import irqkit_qemu  # noqa: E402
from irqkit_qemu import Guest  # noqa: E402

LOAD_RX = re.compile(r"cpuload: .*?([\d.]+) % of the CPU lost to interrupts \((\d+) delivered")
RATE_RX = r"hpet-storm: interrupts at its rate from"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default=os.path.join(ROOT, "build", "kernel.elf"))
    ap.add_argument("--plugin", default=os.path.join(ROOT, "build", "host", "guestprof.so"))
    ap.add_argument("--hz", type=int, default=20000)
    ap.add_argument("--append", default="", help="the kernel's boot line (e.g. noirqdebug)")
    ap.add_argument("--runs", type=int, default=3, help="cpuload runs while the storm goes on")
    ap.add_argument("--window", type=int, default=2, help="which of them is reported (1: the first)")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--keep", help="write the counts here (default: a temporary file)")
    args = ap.parse_args()
    irqkit_qemu.KERNEL = os.path.abspath(args.kernel)
    nm = subprocess.run(["i686-linux-gnu-nm", args.kernel], check=True, capture_output=True, text=True).stdout
    marks = [line.split()[0] for line in nm.splitlines() if re.search(r" [tT] cpuload_cmd$", line)]
    if len(marks) != 1:
        print(f"prof_storm: expected one cpuload_cmd symbol in {args.kernel}, found {len(marks)}")
        return 1
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="irqkit-prof-", dir=shm) as tmp:
        counts = args.keep or os.path.join(tmp, "counts.txt")
        g = Guest(append=("debugexit " + args.append).strip(), machine="q35",
                  extra=["-nodefaults", "-icount", "shift=3,sleep=off",
                         "-plugin", f"{args.plugin},mark=0x{marks[0]},out={counts}"])
        delivered = []
        try:
            g.wait_shell(120)
            for _ in range(2):
                out = g.command("cpuload 500", 120)
                print(f"prof_storm: idle   {out.strip().splitlines()[-1]}")
            start = len(g.log)
            g.send(f"inject hpet-storm:{args.hz}\r")
            g.wait_for(RATE_RX, 300, start)
            g.wait_for(r"irqkit> ", 60, start)
            for i in range(args.runs):
                out = g.command("cpuload 500", 300)
                m = LOAD_RX.search(out)
                if not m:
                    print(f"prof_storm: no cpuload figure: {out}")
                    return 1
                delivered.append(int(m.group(2)))
                print(f"prof_storm: storm  {out.strip().splitlines()[-1]}")
            print("\n".join(l for l in g.command("irqs", 60).splitlines() if "hpet-storm" in l or "  line" in l))
            out = g.command("inject off hpet-storm", 60)
            print("\n".join(l for l in out.splitlines() if "stopped after" in l))
        finally:
            g.kill()
        # Windows: 0 boot, 1-2 idle runs (2 also holds the injection and the wait for the rate),
        # 3.. the storm's runs (each up to the next run's entry; the last one to QEMU's exit).
        win = 2 + args.window
        print(f"\nprof_storm: per delivered interrupt of storm run {args.window} "
              f"({delivered[args.window - 1]} delivered), A = that run, B = the first idle run")
        sys.stdout.flush()
        return subprocess.call([sys.executable, os.path.join(HERE, "report.py"), args.kernel, counts,
                                "--windows", str(win), "--vs", "1", "--per", str(delivered[args.window - 1]),
                                "--top", str(args.top)])


if __name__ == "__main__":
    sys.exit(main())
