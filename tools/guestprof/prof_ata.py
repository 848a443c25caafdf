#!/usr/bin/env python3
"""prof_ata.py - where the guest's instructions go per ATA DRQ block, healthy against lost.

Boots the kernel under -icount (shift 3, sleep=on, as tests/bench/ata_bench.py)
with tools/guestprof's plugin marking every entry of bench_pass, runs
`ata bench hda 0 2048` three times healthy (the first a warm-up), then twice
after `inject ata-drop:PCT` and prints, per function, the instructions per
DRQ block of the lost passes beside the healthy ones, largest difference
first; then one more lost pass with the event trace on, cut by
tools/trace/irqtrace.py --polled into where the time of a completion found
by polling goes (the handler's run, the core's bookkeeping, the armed
delay, the host timer's lateness under sleep=on, empty polls). Under -icount an instruction is 8 ns of guest time, so the difference
is what the lost interrupts cost in guest CPU time; the rest of the
throughput gap is time spent halted (a poll placed later than the device).

Windows in the counts file: 0 boot, then one per bench_pass (write, read,
write, read, ...), each including the pattern generation and checking of
its pass, which cancel out in the difference.

With --append ARGS (default irqpolicy=irqkit) the boot line is ARGS: e.g.
`--append noirqdebug --healthy-only` counts the healthy passes with the
defences off, the baseline of issue 19's "healthy costs nothing" (then the
report is the healthy windows alone, with the poll-timer events per block
from `irqs`).

With --smp N --irq-cpu C the guest has N CPUs (single-threaded TCG: -icount
runs the vCPUs round robin, so the counts stay deterministic) and the disk's
line is moved to CPU C before the passes (`affinity 14 C`): the cost of
taking the interrupt on another CPU than the waiter's. --sleep off gives
guest time that does not depend on the host at all (halted time included).

Usage: prof_ata.py [--kernel ELF] [--drop PCT] [--top N] [--keep FILE] [--append ARGS] [--healthy-only]
                   [--smp N --irq-cpu C] [--sleep on|off]
(make prof-ata keeps the counts in build/prof/ata-counts.txt: callers.py then
says which call sites a function's calls come from)
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

SECTORS = 2048
BLOCK_SECTORS = 16            # READ/WRITE MULTIPLE blocks of the bench (one DRQ phase each)
TRACE_SECTORS = 512           # the traced lost pass: 32 blocks each way fit the trace's ring
RATE_RX = re.compile(r"(write|read): \d+ bytes in (\d+) us, ([\d.]+) MB/s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default=os.path.join(ROOT, "build", "kernel.elf"))
    ap.add_argument("--plugin", default=os.path.join(ROOT, "build", "host", "guestprof.so"))
    ap.add_argument("--drop", type=int, default=100)
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--keep", help="write the counts here (default: a temporary file)")
    ap.add_argument("--append", default="irqpolicy=irqkit", help="the kernel's boot line")
    ap.add_argument("--healthy-only", action="store_true", help="no lost passes: report the healthy ones")
    ap.add_argument("--smp", type=int, default=1, help="CPUs of the guest")
    ap.add_argument("--irq-cpu", type=int, default=0, help="the CPU the disk's line is moved to")
    ap.add_argument("--sleep", choices=("on", "off"), default="on", help="-icount sleep=")
    args = ap.parse_args()
    irqkit_qemu.KERNEL = os.path.abspath(args.kernel)
    # The PIO driver's bench_pass (drivers/ata/ata_shell.c; the AHCI shell has one of its own).
    nm = subprocess.run(["i686-linux-gnu-nm", "-l", args.kernel], check=True, capture_output=True, text=True).stdout
    marks = [line.split()[0] for line in nm.splitlines()
             if re.search(r" [tT] bench_pass(\.\S*)?\s+\S*drivers/ata/ata_shell\.c:", line)]
    if len(marks) != 1:
        print(f"prof_ata: expected one bench_pass symbol in {args.kernel}, found {len(marks)}")
        return 1
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="irqkit-prof-", dir=shm) as tmp:
        image, counts = os.path.join(tmp, "disk.img"), args.keep or os.path.join(tmp, "counts.txt")
        with open(image, "wb") as f:
            f.truncate(8 << 20)
        g = Guest(append=args.append,
                  extra=["-icount", f"shift=3,sleep={args.sleep}", "-smp", str(args.smp),
                         "-drive", f"file={image},format=raw,if=ide,index=0",
                         "-plugin", f"{args.plugin},mark=0x{marks[0]},out={counts}"])
        try:
            g.wait_shell(120)
            if args.irq_cpu:
                out = g.command(f"affinity 14 {args.irq_cpu}")
                if f"CPUs {1 << args.irq_cpu:#x}" not in out:
                    print(f"prof_ata: affinity 14 {args.irq_cpu} refused: {out}")
                    return 1
            labels = ["warm-up", "healthy", "healthy"]
            if not args.healthy_only:
                labels += [f"{args.drop} % dropped"] * 2
            for i, label in enumerate(labels):
                if i == 3 and "INJECTED" not in g.command(f"inject ata-drop:{args.drop}"):
                    print("prof_ata: inject ata-drop refused")
                    return 1
                out = g.command(f"ata bench hda 0 {SECTORS}", timeout=600)
                figs = ", ".join(f"{m.group(1)} {m.group(3)} MB/s" for m in RATE_RX.finditer(out))
                print(f"prof_ata: {label:<14} {figs}")
                if i == 2:
                    # the healthy passes' poll-timer events: polls + moves of the timer, line 14
                    print("\n".join(l for l in g.command("irqs").splitlines() if "line 14" in l))
            print("\n".join(l for l in g.command("irqs").splitlines() if "line 14" in l))
            if not args.healthy_only:
                # One more lost pass with the event trace on (after the counted windows): where the
                # time of a completion found by polling goes (tools/trace/irqtrace.py --polled).
                g.command("trace start 14")
                out = g.command(f"ata bench hda 0 {TRACE_SECTORS}", timeout=600)
                g.command("trace stop")
                dump = g.command("trace dump", timeout=120)
                figs = ", ".join(f"{m.group(1)} {m.group(3)} MB/s" for m in RATE_RX.finditer(out))
                print(f"prof_ata: traced pass    {figs} (the trace's own cost included)")
                sys.path.insert(0, os.path.join(ROOT, "tools", "trace"))
                import irqtrace  # noqa: E402
                try:
                    header, events, tail, _ = irqtrace.parse(dump, "trace dump")
                    print("\n".join(irqtrace.polled_breakdown(events, 14)))
                except irqtrace.TraceError as e:
                    print(f"prof_ata: the trace dump was not readable: {e}")
        finally:
            g.kill()
        if args.healthy_only:
            return subprocess.call([sys.executable, os.path.join(HERE, "report.py"), args.kernel, counts,
                                    "--windows", "3,4", "--per", str(SECTORS // BLOCK_SECTORS),
                                    "--top", str(args.top)])
        # Windows: 1-2 warm-up, 3-6 healthy, 7-8 the first lost pair (9 the next write; its read is not
        # closed, QEMU is killed). Figures per window (one pass), per DRQ block of it.
        return subprocess.call([sys.executable, os.path.join(HERE, "report.py"), args.kernel, counts,
                                "--windows", "7,8", "--vs", "3,4", "--per", str(SECTORS // BLOCK_SECTORS),
                                "--top", str(args.top)])


if __name__ == "__main__":
    sys.exit(main())
