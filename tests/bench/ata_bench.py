"""bench-ata: sequential PIO throughput of drivers/ata in QEMU, in guest time.

For each interrupt policy of kernel/irq (irqpolicy=irqkit, tejun2010,
mainline) boot the kernel once under -icount with a raw disk image and run
`ata bench hda 0 N` (write the seeded pattern over N sectors, read it back,
timing only the I/O, verify the pattern) with healthy interrupts, then after
`inject ata-drop:50`, then after `inject ata-drop:100` (the device raises no
INTRQ for that share of commands). The faults come after a healthy run, as
on a machine whose interrupts break while it works, so the expect tokens have
measured the device first. Prints MB/s with each figure's ratio to the
policy's healthy one.

Guest time: executed instructions count 2^ICOUNT_SHIFT ns each; idle time
(waiting for the disk, for a poll, for a timeout) passes at host speed
(sleep=on). With sleep=off QEMU jumps to the next timer deadline whenever
the guest idles, before the host has finished the disk I/O, and healthy
figures varied 4x from run to run; with sleep=on they vary by about 10 %.

Each figure is the median of --reps runs (one run when a run takes over
SLOW_RUN_S seconds of guest time), after one warm-up run that is not
counted: sleep=on lets host load into guest time, and one hiccup of the
host must not make a figure.

Usage: ata_bench.py [--sectors N] [--reps N] [--policies irqkit,tejun2010,mainline,noirqdebug] [--kernel ELF]
                    [--json PATH]
       (default 2048 sectors = 1 MiB, 5 runs, all four; --json also writes the figures
       there for tests/bench/bench_table.py). "noirqdebug" is a boot with the defences
       off (issue 19's baseline for "healthy costs nothing"), healthy only: with lost
       interrupts and no defence every lost phase waits for the driver's 250 ms time-out.
"""
import argparse
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "qemu"))
import irqkit_qemu  # noqa: E402
from irqkit_qemu import ROOT, Guest  # noqa: E402

ICOUNT_SHIFT = 3          # 8 ns of guest time per executed instruction
POLICIES = ("irqkit", "tejun2010", "mainline", "noirqdebug")
DROPS = (0, 50, 100)
HEALTHY_ONLY = {"noirqdebug"}   # columns measured without lost interrupts only
REPS = 5                  # runs per figure (median), unless a run is slow
SLOW_RUN_S = 2            # a run whose write takes longer than this (guest s) is not repeated
RATE_RX = re.compile(r"bench hda \d+\+\d+ (write|read): (\d+) bytes in (\d+) us, ([\d.]+) MB/s(.*)")
INTR_RX = re.compile(r"bench hda \d+\+\d+ interrupts: serviced (\d+), lost (\d+), "
                     r"dropped commands (\d+), timeouts (\d+)")


def wired():
    with open(os.path.join(ROOT, "kernel", "shell_cmds.c")) as f:
        return "ata_cmd" in f.read()


def bench(g, sectors):
    """One `ata bench hda 0 @sectors`: MB/s each way, pattern verified, interrupt counts (also fixup_bench.py)."""
    out = g.command(f"ata bench hda 0 {sectors}", timeout=900)
    rates = {m.group(1): float(m.group(4)) for m in RATE_RX.finditer(out)}
    intr = INTR_RX.search(out)
    if "write" not in rates or "read" not in rates or not intr:
        raise RuntimeError(f"no figures:\n{out}")
    return {"write": rates["write"], "read": rates["read"], "verified": "pattern verified" in out,
            "serviced": int(intr.group(1)), "lost": int(intr.group(2)), "timeouts": int(intr.group(4))}


def median_bench(g, sectors, reps):
    """@reps runs (one if the first is slow: a policy without expecting at 50 % loss takes
    seconds per run); each direction's median, so one host hiccup does not make the figure."""
    runs = [bench(g, sectors)]
    if runs[0]["write"] * SLOW_RUN_S > sectors * 512 / 1e6:
        runs += [bench(g, sectors) for _ in range(reps - 1)]
    med = {}
    for key in ("write", "read", "serviced", "lost"):
        vals = sorted(r[key] for r in runs)
        med[key] = vals[len(vals) // 2]
    med["verified"] = all(r["verified"] for r in runs)
    med["runs"] = len(runs)
    return med


def run_policy(image, policy, sectors, reps):
    """One boot: the healthy figures, then 50 % and 100 % dropped. Yields (drop, figures, profile)."""
    g = Guest(append="noirqdebug" if policy == "noirqdebug" else f"irqpolicy={policy}",
              extra=["-icount", f"shift={ICOUNT_SHIFT},sleep=on",
                     "-drive", f"file={image},format=raw,if=ide,index=0"])
    try:
        g.wait_shell(120)
        log = "\n".join(g.lines())
        m = re.search(r"irq: defences on, profile (\w+)", log)
        profile = m.group(1) if m and "unknown parameter 'irqpolicy'" not in log else "-"
        expecting = "IRQ expecting on" in g.command("ata")
        mode = re.search(r"interrupt mode: (IO-APIC|8259 PIC)", log)
        mode = mode.group(1) if mode else "unknown"
        bench(g, sectors)   # warm-up, not counted: the image's first writes cost the host more
        for drop in (0,) if policy in HEALTHY_ONLY else DROPS:
            if drop:
                assert "INJECTED" in g.command(f"inject ata-drop:{drop}"), "ata-drop refused"
            yield drop, median_bench(g, sectors, reps), f"{profile}/{'on' if expecting else 'off'}", mode
    finally:
        g.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sectors", type=int, default=2048)
    ap.add_argument("--reps", type=int, default=REPS)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--kernel", default=None, help="boot this ELF instead of build/kernel.elf (A/B comparisons)")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    if args.kernel:
        irqkit_qemu.KERNEL = os.path.abspath(args.kernel)
    if not wired():
        print("bench-ata: skipped: ata_cmd is not in the shell table yet (see docs/ata.md)")
        if args.json:
            write_json(args.json, {"bench": "ata", "skipped": "ata_cmd is not in the shell table"})
        return 0
    rows = []
    # The image in RAM where there is a tmpfs: the host's disk must not be what is measured.
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="irqkit-ata-bench-", dir=shm) as tmp:
        image = os.path.join(tmp, "disk.img")
        with open(image, "wb") as f:
            f.truncate(max(args.sectors * 512, 8 << 20))
        print(f"bench-ata: `ata bench hda 0 {args.sectors}` ({args.sectors // 2} KiB written, then read "
              f"and verified), QEMU pc, -icount shift={ICOUNT_SHIFT},sleep=on; MB/s of guest time, "
              f"median of {args.reps} runs (1 when a run takes over {SLOW_RUN_S} s) after one warm-up run")
        print(f"  {'policy':<10} {'drop':>4}  {'write MB/s':>10} {'ratio':>6}  {'read MB/s':>9} {'ratio':>6}"
              f"  {'by hdl':>6} {'lost':>5} {'runs':>4}  profile/expecting  data")
        failed = False
        for policy in args.policies.split(","):
            base = None
            for drop, r, profile, mode in run_policy(image, policy, args.sectors, args.reps):
                base = base or r
                wr = r["write"] / base["write"] if base["write"] else 0
                rr = r["read"] / base["read"] if base["read"] else 0
                failed |= not r["verified"]
                print(f"  {policy:<10} {drop:>3}%  {r['write']:>10.2f} {wr:>6.2f}  {r['read']:>9.2f} {rr:>6.2f}"
                      f"  {r['serviced']:>6} {r['lost']:>5} {r['runs']:>4}  {profile:<17}"
                      f"  {'verified' if r['verified'] else 'WRONG'}", flush=True)
                rows.append(dict(r, policy=policy, drop=drop, write_ratio=wr, read_ratio=rr,
                                 profile=profile, mode=mode))
        print("  (by hdl: DRQ phases the interrupt handler completed, called by an interrupt or a kernel/irq poll;\n"
              "   lost: phases the driver completed itself after ATA_IRQ_WAIT_MS;\n   profile '-': this kernel has no irqpolicy=, so the policies differ only by noise;\n   expecting off: no expect token, a lost interrupt costs the driver's ATA_IRQ_WAIT_MS)")
    if args.json:
        write_json(args.json, {"bench": "ata", "machine": "pc", "icount_shift": ICOUNT_SHIFT, "sleep": "on",
                               "sectors": args.sectors, "reps": args.reps, "rows": rows})
    return 1 if failed else 0


def write_json(path, data):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
