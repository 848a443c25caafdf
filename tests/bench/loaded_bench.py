"""bench-loaded: healthy lines under host load, per irqpolicy (issue 28; docs/benchmarks.md, "Healthy
lines under host load").

Per disk (PIO ATA on pc's IRQ 14, NVMe on q35: CPU 0's I/O queue pair) and per irqpolicy one boot,
`-smp 2` under multi-threaded TCG (each vCPU a host thread) beside busy loops (tools/loaded.sh, one
per host core unless --loops), the disk's line moved to CPU 1 (`affinity LINE 1`) while the shell,
the driver's wait and every poll stay on CPU 0. One read of the whole disk to warm up (the token
learns the device), then READS reads (every CRC checked against the image). Nothing is broken: the
device delivers every interrupt, and CPU 1 takes it when the host lets it run. Figures:

  false lost announcements  the line's "expected interrupt lost" / "timed out" announcements and
                            IRQ watching's "a poll found work its interrupt should have delivered"
                            over the whole boot (each an episode begun on a healthy line)
  polled share              of the completions of the READS reads, those the core's polls took
                            (the token's counts in `irqs`; mainline has no IRQ expecting: its
                            line's polls that found work, over its handled interrupts)

The host's load is the figure's condition, not a constant: the load average before and after is
kept with it. Run as a bench, never as a timed test (tests/qemu/test_loaded.py judges irqkit alone,
against the issue's bounds).

Usage: loaded_bench.py [--loops N] [--reads N] [--policies irqkit,tejun2010,mainline]
                       [--disks ata,nvme] [--json PATH]
"""
import argparse
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "qemu"))
import diskimg  # noqa: E402
from irqkit_qemu import Guest, GuestTimeout  # noqa: E402

MT_ACCEL = "tcg,thread=multi"
POLICIES = ("irqkit", "tejun2010", "mainline")
DISK_BYTES = 8 << 20
SECTORS = DISK_BYTES // diskimg.SECTOR
CRC_RX = re.compile(r"crc32 (\S+) (\d+)\+(\d+) = ([0-9a-f]{8}) ")
DISKS = {  # name: (machine, QEMU options, the disk's name for `blk crc`)
    "ata": ("pc", lambda p: ["-drive", f"file={p},format=raw,if=ide,index=0"], "hda"),
    "nvme": ("q35", lambda p: ["-drive", f"file={p},if=none,id=n,format=raw",
                               "-device", "nvme,serial=irqkit,drive=n,addr=04.0"], "nvme0n1"),
}


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def line_and_action(g, disk):
    if disk == "ata":
        return 14, "ata0"
    m = re.search(r"^  nvme0q1: I/O queue 1, \d+ entries, line (\d+) ", g.command("nvme"), re.M)
    if not m:
        raise RuntimeError("no nvme0q1")
    return int(m.group(1)), "nvme0q1"


def completions(g, line, action):
    """(by interrupt, by polling) of the line's action: its expect token's counts, or without one
    (mainline) its handled interrupts and the line's polls that found work."""
    out = g.command("irqs")
    m = re.search(rf"^  line {line} {re.escape(action)}: .*expect tokens [1-9]\d* .*completions (\d+) by irq / "
                  rf"(\d+) by polling", out, re.M)
    if m:
        return int(m.group(1)), int(m.group(2))
    row = next((r.split() for r in out.split("\n") if r.split()[:1] == [str(line)]), None)
    polls = re.search(rf"^  line {line}: polls \d+: (\d+) found work", out, re.M)
    return (int(row[2]) if row else 0), (int(polls.group(1)) if polls else 0)


def run(image, disk, policy, loops, reads):
    machine, attach, dev = DISKS[disk]
    want = diskimg.crc_of(image)
    g = Guest(append=f"debugexit irqpolicy={policy}", machine=machine, accel=MT_ACCEL, loaded=loops,
              extra=["-smp", "2"] + attach(image))
    try:
        g.wait_shell(180)
        line, action = line_and_action(g, disk)
        if "CPUs 0x2" not in g.command(f"affinity {line} 1"):
            raise RuntimeError(f"affinity {line} 1 refused")
        before = load_average()

        def read():
            m = CRC_RX.search(g.command(f"blk crc {dev} 0 {SECTORS}", 600))
            if not m or int(m.group(4), 16) != want:
                raise RuntimeError(f"read of {dev} wrong: {m and m.group(0)}")
        read()
        irq0, poll0 = completions(g, line, action)
        for _ in range(reads):
            read()
        irq1, poll1 = completions(g, line, action)
        announced = len(re.findall(rf'irq {line}: "{re.escape(action)}": (?:expected interrupt (?:lost|timed out)|'
                                   r"watch: a poll found work)", g.log))
        by_irq, by_poll = irq1 - irq0, poll1 - poll0
        return {"disk": disk, "policy": policy, "false_lost": announced, "by_irq": by_irq, "by_poll": by_poll,
                "share_pct": 100.0 * by_poll / (by_irq + by_poll) if by_irq + by_poll else 0.0,
                "load_before": before, "load_after": load_average()}
    except (GuestTimeout, RuntimeError) as e:
        return {"disk": disk, "policy": policy, "error": str(e).split("\n")[0][:200]}
    finally:
        g.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loops", type=int, default=0, help="busy loops beside QEMU (0: one per host core)")
    ap.add_argument("--reads", type=int, default=4)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--disks", default=",".join(DISKS))
    ap.add_argument("--json")
    args = ap.parse_args()
    loops = args.loops or os.cpu_count() or 1
    cells = []
    with tempfile.TemporaryDirectory(prefix="irqkit-loaded-") as tmp:
        image = os.path.join(tmp, "disk.img")
        diskimg.make_random_image(image, DISK_BYTES, seed=28)
        for disk in args.disks.split(","):
            for policy in args.policies.split(","):
                c = run(image, disk, policy, loops, args.reads)
                cells.append(c)
                print(f"loaded: {disk} {policy}: " + (f"not measured ({c['error']})" if "error" in c else
                      f"{c['false_lost']} false lost announcements, {c['by_poll']} of {c['by_irq'] + c['by_poll']} "
                      f"healthy completions polled ({c['share_pct']:.2f} %); load average {c['load_before']} -> "
                      f"{c['load_after']}"), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"bench": "loaded", "loops": loops, "reads": args.reads, "disk_bytes": DISK_BYTES,
                       "host_cpus": os.cpu_count(), "cells": cells}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
