"""bench-ahci: AHCI DMA throughput in QEMU (q35), in guest time, with lost completions.

For each interrupt policy of kernel/irq (irqpolicy=irqkit, tejun2010, mainline) boot the
kernel once on q35 under -icount with a raw disk on the ICH9 AHCI (its interrupt by MSI, the
default) and run `ata bench sda 0 N` (write the seeded pattern over N sectors in 128 KiB
commands, read it back, timing only the I/O, verify the pattern) healthy, then after
`inject ahci-noirq:50`, then `ahci-noirq:100` (that share of commands issued with the port's
interrupt enables cleared: the HBA raises nothing). Prints MB/s with each figure's ratio to
the policy's healthy one, and the time a lost completion costs: the mean time per command at
100 % lost minus the healthy mean. That difference is the time from the command's completion
to its discovery (the device takes as long either way), beside the 30 s a Linux libata
command waits before its time-out handler looks.

Guest time as in ata_bench.py: -icount shift=3,sleep=on (executed instructions 8 ns each, idle
time at host speed), each figure the median of --reps runs (1 when a run is slow) after one
warm-up run.

Usage: ahci_bench.py [--sectors N] [--reps N] [--policies irqkit,tejun2010,mainline] [--json PATH]
"""
import argparse
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "qemu"))
from irqkit_qemu import Guest  # noqa: E402

ICOUNT_SHIFT = 3
POLICIES = ("irqkit", "tejun2010", "mainline")
LOST = (0, 50, 100)
REPS = 5
SLOW_RUN_S = 2            # a run whose write takes longer than this (guest s) is not repeated
LINUX_TIMEOUT_S = 30      # libata/SCSI default command time-out: when Linux notices a lost one
RATE_RX = re.compile(r"bench sda \d+\+\d+ (write|read): (\d+) bytes in (\d+) us, ([\d.]+) MB/s(.*)")
INTR_RX = re.compile(r"bench sda \d+\+\d+ interrupts: commands (\d+), serviced (\d+), lost (\d+), "
                     r"noirq commands (\d+), timeouts (\d+)")


def bench(g, sectors):
    out = g.command(f"ata bench sda 0 {sectors}", timeout=900)
    rates = {m.group(1): (float(m.group(4)), int(m.group(3))) for m in RATE_RX.finditer(out)}
    intr = INTR_RX.search(out)
    if "write" not in rates or "read" not in rates or not intr:
        raise RuntimeError(f"no figures:\n{out}")
    commands = int(intr.group(1))
    return {"write": rates["write"][0], "read": rates["read"][0], "verified": "pattern verified" in out,
            "us_per_cmd": (rates["write"][1] + rates["read"][1]) / max(commands, 1),
            "commands": commands, "serviced": int(intr.group(2)), "lost": int(intr.group(3)),
            "noirq": int(intr.group(4)), "timeouts": int(intr.group(5))}


def median_bench(g, sectors, reps):
    runs = [bench(g, sectors)]
    if runs[0]["write"] * SLOW_RUN_S > sectors * 512 / 1e6:
        runs += [bench(g, sectors) for _ in range(reps - 1)]
    med = {}
    for key in ("write", "read", "us_per_cmd", "serviced", "lost", "noirq"):
        vals = sorted(r[key] for r in runs)
        med[key] = vals[len(vals) // 2]
    med["verified"] = all(r["verified"] for r in runs)
    med["runs"] = len(runs)
    return med


def run_policy(image, policy, sectors, reps):
    g = Guest(machine="q35", append=f"irqpolicy={policy}",
              extra=["-icount", f"shift={ICOUNT_SHIFT},sleep=on",
                     "-drive", f"file={image},format=raw,if=none,id=d", "-device", "ide-hd,drive=d,bus=ide.0"])
    try:
        g.wait_shell(120)
        ata = g.command("ata")
        kind = re.search(r"^ahci0: .*?, (MSI|INTx [^,]*) line", ata, re.M)
        kind = kind.group(1) if kind else "unknown"
        expecting = "IRQ expecting on" in ata
        bench(g, sectors)   # warm-up, not counted
        for lost in LOST:
            if lost:
                assert "INJECTED" in g.command(f"inject ahci-noirq:{lost}"), "ahci-noirq refused"
            yield lost, median_bench(g, sectors, reps), f"{policy}/{'on' if expecting else 'off'}", kind
    finally:
        g.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sectors", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=REPS)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    rows = []
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="irqkit-ahci-bench-", dir=shm) as tmp:
        image = os.path.join(tmp, "disk.img")
        with open(image, "wb") as f:
            f.truncate(max(args.sectors * 512, 8 << 20))
        print(f"bench-ahci: `ata bench sda 0 {args.sectors}` ({args.sectors // 2} KiB written in 128 KiB DMA "
              f"commands, read back, verified), QEMU q35, disk on the ICH9 AHCI, -icount shift={ICOUNT_SHIFT},"
              f"sleep=on; MB/s of guest time, median of {args.reps} runs (1 when a run takes over {SLOW_RUN_S} s)")
        print(f"  {'policy':<10} {'lost':>4}  {'write MB/s':>10} {'ratio':>6}  {'read MB/s':>9} {'ratio':>6}"
              f"  {'us/cmd':>8} {'+us/cmd':>8}  {'noirq':>5} {'drv':>4} {'runs':>4}  irq  expecting  data")
        failed = False
        for policy in args.policies.split(","):
            base = None
            for lost, r, profile, kind in run_policy(image, policy, args.sectors, args.reps):
                base = base or r
                wr = r["write"] / base["write"] if base["write"] else 0
                rr = r["read"] / base["read"] if base["read"] else 0
                extra_us = r["us_per_cmd"] - base["us_per_cmd"]
                failed |= not r["verified"]
                print(f"  {policy:<10} {lost:>3}%  {r['write']:>10.2f} {wr:>6.2f}  {r['read']:>9.2f} {rr:>6.2f}"
                      f"  {r['us_per_cmd']:>8.0f} {extra_us:>8.0f}  {r['noirq']:>5} {r['lost']:>4} {r['runs']:>4}"
                      f"  {kind:<4} {profile:<10} {'verified' if r['verified'] else 'WRONG'}", flush=True)
                rows.append(dict(r, policy=policy, lost_percent=lost, write_ratio=wr, read_ratio=rr,
                                 extra_us_per_cmd=extra_us, profile=profile, irq=kind))
        print(f"  (+us/cmd: mean time per command minus the healthy one: the time from a lost completion to its\n"
              f"   discovery, against Linux libata's {LINUX_TIMEOUT_S} s command time-out; noirq: commands issued with\n"
              f"   PxIE cleared; drv: completions the driver found itself after AHCI_IRQ_WAIT_MS = 250 ms (mainline\n"
              f"   has no expecting, so every lost one waits for that); expecting off: no expect token)")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump({"bench": "ahci", "machine": "q35", "icount_shift": ICOUNT_SHIFT, "sleep": "on",
                       "sectors": args.sectors, "reps": args.reps, "linux_timeout_s": LINUX_TIMEOUT_S,
                       "rows": rows}, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
