"""bench-smp: what several CPUs change for the interrupt core (docs/smp.md, docs/benchmarks.md
"Several CPUs").

1. Interrupts a second one line can take. The source is `hpet-storm` (q35: a spare HPET
   comparator at 200,000 interrupts a second, every one claimed by its driver) with the
   defences off (`noirqdebug`, so the claimed-storm throttle does not cap it); the figure is
   the line's delivered count over about HOLD_S of guest time (`irqs` and `uptime` before and
   after). Three cells: one CPU (`nosmp`), two CPUs with the line on CPU 1 (CPU 0 keeps the
   shell and the timers), two CPUs with the line moved round both every 1 ms.
2. ATA MB/s (`ata bench hda 0 N`, written, read back, verified) with the disk's interrupt on
   CPU 1 and the poll timers on CPU 0 (`affinity 14 1`), healthy and under `ata-drop:100`
   (every interrupt lost: the expect polls on CPU 0 complete every phase), per irqpolicy.
   Both 1. and 2. need the vCPUs to run in parallel: multi-threaded TCG, which QEMU cannot
   combine with -icount, so these figures are host time and only mean something on a quiet
   machine (docs/benchmarks.md says who ran them how).
3. The cost of one affinity move: `affinity 14 0,1 every 1` on pc -smp 2 under
   -icount shift=3,sleep=off (single-threaded TCG: guest time from instructions, repeatable);
   the kernel times irq_set_affinity() around each move (the IOAPIC destination write under
   the line's lock) and prints the average.

Usage: smp_bench.py [--sectors N] [--policies irqkit,tejun2010,mainline] [--json PATH] [--skip-host-time]
"""
import argparse
import json
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "qemu"))
sys.path.insert(0, HERE)
import diskimg  # noqa: E402
from ata_bench import bench  # noqa: E402
from irqkit_qemu import Guest  # noqa: E402

MT_ACCEL = "tcg,thread=multi"
ICOUNT_SHIFT = 3
POLICIES = ("irqkit", "tejun2010", "mainline")
HOLD_S = 2.0               # host seconds between the two counts of the interrupt rate
MOVE_HOLD_S = 1.0          # host seconds of moves for the cost of a move
UPTIME_RX = re.compile(r"up (\d+\.\d+) s")
HPET_RX = re.compile(r"hpet-storm: HPET comparator \d+ periodic at \d+/s on GSI (\d+)")
MOVES_RX = re.compile(r"stopped moving after (\d+) moves \((\d+) refused\), (\d+) ns per move")
RATE_CELLS = (("1 CPU (nosmp)", "nosmp", 1, None),
              ("2 CPUs, the line on CPU 1", "", 2, "{line} 1"),
              ("2 CPUs, the line moved round both every 1 ms", "", 2, "{line} 0,1 every 1"))


def uptime_s(g):
    return float(UPTIME_RX.search(g.command("uptime")).group(1))


def delivered(g, line):
    for row in g.command("irqs").split("\n"):
        f = row.split()
        if f[:1] == [str(line)] and len(f) > 2:
            return int(f[1])
    raise RuntimeError(f"line {line} not in irqs")


def irq_rate(label, append, smp, affinity):
    g = Guest(machine="q35", append=f"noirqdebug {append}".strip(), accel=MT_ACCEL, extra=["-smp", str(smp)])
    try:
        g.wait_shell(120)
        out = g.command("inject hpet-storm")
        m = HPET_RX.search(out)
        if not m:
            return {"cell": label, "error": f"hpet-storm refused: {out.strip()[-200:]}"}
        line = int(m.group(1))
        if affinity:
            g.command("affinity " + affinity.format(line=line))
        time.sleep(0.5)
        n0, t0 = delivered(g, line), uptime_s(g)
        time.sleep(HOLD_S)
        n1, t1 = delivered(g, line), uptime_s(g)
        if affinity and "every" in affinity:
            g.command(f"affinity {line} 0")
        per_cpu = g.command("irqs")
        return {"cell": label, "line": line, "per_s": (n1 - n0) / (t1 - t0), "guest_s": t1 - t0,
                "per_cpu_row": next((r.strip() for r in per_cpu.split("\n") if f"irq {line} " in r), "")}
    finally:
        g.kill()


def ata_smp(image, policy, sectors):
    g = Guest(append=f"irqpolicy={policy}", accel=MT_ACCEL,
              extra=["-smp", "2", "-drive", f"file={image},format=raw,if=ide,index=0"])
    try:
        g.wait_shell(120)
        if "CPUs 0x2" not in g.command("affinity 14 1"):
            return {"policy": policy, "error": "affinity 14 1 refused"}
        bench(g, sectors)   # warm-up
        healthy = bench(g, sectors)
        g.command("inject ata-drop:100")
        lost = bench(g, sectors)
        row = g.command("irqs")
        per_cpu = next((r.strip() for r in row.split("\n") if "irq 14 " in r), "")
        return {"policy": policy, "healthy": healthy, "lost100": lost, "per_cpu_row": per_cpu}
    finally:
        g.kill()


def move_cost(image):
    g = Guest(append="debugexit", icount=ICOUNT_SHIFT,
              extra=["-smp", "2", "-drive", f"file={image},format=raw,if=ide,index=0"])
    try:
        g.wait_shell(120)
        g.command("affinity 14 0,1 every 1")
        g.command(f"ata crc 0 {2048}", 120)   # traffic on the line while it moves
        time.sleep(MOVE_HOLD_S)
        m = MOVES_RX.search(g.command("affinity 14 0"))
        if not m:
            raise RuntimeError("no move count")
        return {"moves": int(m.group(1)), "refused": int(m.group(2)), "ns_per_move": int(m.group(3))}
    finally:
        g.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sectors", type=int, default=2048)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--json")
    ap.add_argument("--skip-host-time", action="store_true", help="only the icount figure (the move's cost)")
    args = ap.parse_args()
    out = {"bench": "smp", "icount_shift": ICOUNT_SHIFT, "sleep": "off", "rates": [], "ata": []}
    with tempfile.TemporaryDirectory() as tmp:
        image = os.path.join(tmp, "disk.img")
        diskimg.make_random_image(image, max(args.sectors, 2048) * 512 + (1 << 20), seed=12)
        out["move"] = move_cost(image)
        print(f"bench-smp: one affinity move of IOAPIC line 14: {out['move']['ns_per_move'] / 1000:.2f} us guest time "
              f"(average of {out['move']['moves']} moves, -icount shift={ICOUNT_SHIFT},sleep=off)")
        if args.skip_host_time:
            out["skipped_host_time"] = "--skip-host-time"
        else:
            for label, append, smp, aff in RATE_CELLS:
                r = irq_rate(label, append, smp, aff)
                out["rates"].append(r)
                print(f"bench-smp: hpet-storm line, {label}: " +
                      (f"{r['per_s']:.0f} interrupts/s ({r['per_cpu_row']})" if "per_s" in r else r["error"]))
            for policy in args.policies.split(","):
                r = ata_smp(image, policy, args.sectors)
                out["ata"].append(r)
                if "error" in r:
                    print(f"bench-smp: ATA {policy}: {r['error']}")
                    continue
                for k in ("healthy", "lost100"):
                    f = r[k]
                    print(f"bench-smp: ATA {policy}, irq on CPU 1, polls on CPU 0, {k}: write {f['write']:.2f} MB/s, "
                          f"read {f['read']:.2f} MB/s, {'verified' if f['verified'] else 'DATA WRONG'}, "
                          f"lost {f['lost']}, timeouts {f['timeouts']}")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
