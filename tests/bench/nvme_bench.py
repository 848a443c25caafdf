"""bench-nvme: NVMe throughput at 0/50/100 % lost completion interrupts, in guest time.

For each interrupt policy of kernel/irq (irqpolicy=irqkit, tejun2010, mainline) boot the
kernel once on QEMU q35 under -icount with an NVMe namespace (MSI-X, one vector per queue)
and, with healthy interrupts, then after `inject nvme-noirq:50`, then `inject nvme-noirq:100`
(the controller really raises no interrupt for that share of I/O completions: at 50 % they go
through a second I/O queue pair whose CQ has IEN=0, at 100 % the I/O CQ itself is recreated
with IEN=0; docs/nvme.md), run `blk write-pattern nvme0n1 SEED 0 N` and `blk crc nvme0n1 0 N`
and take their MB/s. The pattern is verified after each phase (`blk verify-pattern`).

The time from a lost completion to its discovery: the driver records, per queue, the time from
a command's doorbell to the moment its completion was taken (by the interrupt handler, a
kernel/irq poll, or the driver's own look after NVME_IRQ_WAIT_MS). Completions that came
without an interrupt are the ones of the IEN=0 queue, so their latency is the device's own
time plus how long the loss went unnoticed (an upper bound on the latter): printed as the
average and the worst, with the healthy latency of the 0 % row to compare, beside
Linux's NVMe I/O time-out (30 s, nvme_core.io_timeout), which is what a driver without IRQ
expecting waits before it looks ("I/O N QID M timeout, completion polled").

Guest time as in ata_bench.py: -icount shift=3,sleep=on; each figure the median of --reps
runs after a warm-up run.

Usage: nvme_bench.py [--blocks N] [--reps N] [--policies ...] [--kernel ELF] [--json PATH]
"""
import argparse
import json
import os
import re
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "qemu"))
import irqkit_qemu  # noqa: E402
from irqkit_qemu import ROOT, Guest  # noqa: E402

ICOUNT_SHIFT = 3
POLICIES = ("irqkit", "tejun2010", "mainline")
LOSSES = (0, 50, 100)
REPS = 3
SLOW_RUN_S = 2            # a run slower than this (guest s) is not repeated
LINUX_NVME_TIMEOUT_S = 30
SEED = 0x4E564D45
RATE_RX = re.compile(r"\((\d+) bytes in (\d+) us, ([\d.]+) MB/s\)")
QUEUE_RX = re.compile(r"^  (nvme0q\d): .*commands (\d+): (\d+) by interrupt or core poll, (\d+) found by the "
                      r"driver's wait .*?, (\d+) timed out, (\d+) failed, (\d+) stray.*?latency avg (\d+) us "
                      r"max (\d+) us over (\d+)(?:, unseen in the CQ at most (\d+) us)?", re.M)


def wired():
    with open(os.path.join(ROOT, "kernel", "shell_cmds.c")) as f:
        return "nvme_cmd" in f.read()


def rate(out):
    m = RATE_RX.search(out)
    if not m:
        raise RuntimeError(f"no rate in:\n{out}")
    return float(m.group(3))


def queues(g):
    rows = {}
    for m in QUEUE_RX.finditer(g.command("nvme")):
        v = [int(x) if x is not None else None for x in m.groups()[1:]]
        rows[m.group(1)] = dict(zip(("commands", "irq", "wait", "timeouts", "failed", "stray",
                                     "lat_avg_us", "lat_max_us", "lat_count", "unseen_max_us"), v))
    return rows


def one_run(g, blocks):
    w = rate(g.command(f"blk write-pattern nvme0n1 {SEED} 0 {blocks}", 900))
    r = rate(g.command(f"blk crc nvme0n1 0 {blocks}", 900))
    return w, r


def measure(g, blocks, reps):
    g.command("nvme clear-stats")
    runs = [one_run(g, blocks)]
    if runs[0][0] * SLOW_RUN_S > blocks * 512 / 1e6:
        runs += [one_run(g, blocks) for _ in range(reps - 1)]
    q = queues(g)
    out = g.command(f"blk verify-pattern nvme0n1 {SEED} 0 {blocks}", 900)
    ok = re.search(rf"{blocks} right, 0 wrong", out) is not None
    return {"write": statistics.median(x[0] for x in runs), "read": statistics.median(x[1] for x in runs),
            "runs": len(runs), "queues": q, "verified": ok}


def run_policy(image, policy, blocks, reps):
    g = Guest(machine="q35", append=f"irqpolicy={policy}",
              extra=["-icount", f"shift={ICOUNT_SHIFT},sleep=on",
                     "-drive", f"file={image},if=none,id=n,format=raw", "-device", "nvme,serial=irqkit,drive=n"])
    try:
        g.wait_shell(120)
        log = "\n".join(g.lines())
        m = re.search(r"irq: defences on, profile (\w+)", log)
        profile = m.group(1) if m else "-"
        mode = re.search(r"nvme0: .*interrupts: ([\w-]+)", log)
        mode = mode.group(1) if mode else "unknown"
        one_run(g, blocks)       # warm-up
        for loss in LOSSES:
            if loss:
                out = g.command(f"inject nvme-noirq:{loss}")
                if "INJECTED" not in out:
                    raise RuntimeError(f"nvme-noirq:{loss} refused:\n{out}")
            yield loss, measure(g, blocks, reps), profile, mode
    finally:
        g.kill()


def discovery(r):
    """(avg, max) ms from the doorbell to the completion taken, over the commands whose completion
    raised no interrupt (the IEN=0 queue: queue pair 2 at 50 %, queue 1 at 100 %)."""
    lost = r["queues"].get("nvme0q2") if "nvme0q2" in r["queues"] else None
    if lost is None or lost["lat_count"] == 0:
        lost = r["queues"].get("nvme0q1")
    if not lost or not lost["lat_count"]:
        return None
    unseen = lost.get("unseen_max_us")
    return lost["lat_avg_us"] / 1000.0, lost["lat_max_us"] / 1000.0, None if unseen is None else unseen / 1000.0


def write_json(path, data):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=REPS)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--kernel", default=None)
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.kernel:
        irqkit_qemu.KERNEL = os.path.abspath(args.kernel)
    if not wired():
        print("bench-nvme: skipped: nvme_cmd is not in the shell table")
        if args.json:
            write_json(args.json, {"bench": "nvme", "skipped": "nvme_cmd is not in the shell table"})
        return 0
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    rows, failed = [], False
    with tempfile.TemporaryDirectory(prefix="irqkit-nvme-bench-", dir=shm) as tmp:
        image = os.path.join(tmp, "nvme.img")
        with open(image, "wb") as f:
            f.truncate(max(args.blocks * 512, 8 << 20))
        print(f"bench-nvme: `blk write-pattern` then `blk crc` over {args.blocks // 2} KiB of nvme0n1, QEMU q35, "
              f"-icount shift={ICOUNT_SHIFT},sleep=on; MB/s of guest time, median of {args.reps} runs after a "
              f"warm-up; lost = nvme-noirq:PERCENT")
        print(f"  {'policy':<10} {'lost':>4}  {'write MB/s':>10} {'ratio':>6}  {'read MB/s':>9} {'ratio':>6}"
              f"  {'latency avg / worst':>26}  {'unseen max':>11}  {'by wait':>7}  data")
        for policy in args.policies.split(","):
            base, healthy_avg = None, 0
            for loss, r, profile, mode in run_policy(image, policy, args.blocks, args.reps):
                if base is None:
                    base = r
                    healthy_avg = r["queues"].get("nvme0q1", {}).get("lat_avg_us", 0)
                wr = r["write"] / base["write"] if base["write"] else 0
                rr = r["read"] / base["read"] if base["read"] else 0
                d = discovery(r) if loss else (r["queues"]["nvme0q1"]["lat_avg_us"] / 1000.0,
                                               r["queues"]["nvme0q1"]["lat_max_us"] / 1000.0, None)
                by_wait = sum(q["wait"] for q in r["queues"].values())
                failed |= not r["verified"]
                found = f"{d[0]:8.3f} / {d[1]:8.3f} ms" if d else f"{'-':>26}"
                unseen = f"{d[2]:8.3f} ms" if d and d[2] is not None else f"{'-':>11}"
                print(f"  {policy:<10} {loss:>3}%  {r['write']:>10.2f} {wr:>6.2f}  {r['read']:>9.2f} {rr:>6.2f}"
                      f"  {found:>26}  {unseen:>11}  {by_wait:>7}  {'verified' if r['verified'] else 'WRONG'}", flush=True)
                rows.append({"policy": policy, "lost": loss, "write": r["write"], "read": r["read"],
                             "write_ratio": wr, "read_ratio": rr, "runs": r["runs"], "verified": r["verified"],
                             "latency_avg_ms": d[0] if d else None, "latency_max_ms": d[1] if d else None,
                             "unseen_max_ms": d[2] if d else None,
                             "by_wait": by_wait, "profile": profile, "mode": mode,
                             "healthy_latency_us": healthy_avg})
        print(f"  (latency: doorbell to completion taken; at 0 % of every I/O command (interrupts), at 50/100 % of\n"
              f"   the commands whose completion raised no interrupt: how long until the loss was found and served;\n"
              f"   unseen max: the longest such a completion sat in the CQ after the last look that found it empty\n"
              f"   (the design's bound: under 1 ms; the latency adds the device's own time);\n"
              f"   by wait: completions the driver took itself after NVME_IRQ_WAIT_MS, no interrupt and no core poll;\n"
              f"   Linux's NVMe driver finds a lost completion only at its I/O time-out: {LINUX_NVME_TIMEOUT_S} s)")
    if args.json:
        write_json(args.json, {"bench": "nvme", "machine": "q35", "icount_shift": ICOUNT_SHIFT, "sleep": "on",
                               "blocks": args.blocks, "reps": args.reps, "linux_timeout_s": LINUX_NVME_TIMEOUT_S,
                               "rows": rows})
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
