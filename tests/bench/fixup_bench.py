"""bench-fixup: what `irqfixup` and `irqpoll` cost and what they rescue under a misrouted line, in QEMU.

The misroute: `inject irq-misroute:14/4` (arch/x86/ioapic_misroute.c) gives IRQ 14's IOAPIC pin
the serial line's vector, so every disk interrupt arrives on line 4. The serial handler finds
nothing of its own (IRQ_NONE) unless its UART happens to have work at that instant. With
`irqfixup` (also part of `irqpoll`) the core then runs the handlers of every other shared line
(kernel/irq/poll.c, irq_fixup_try_others()): ata0 on line 14 finds its completion and claims it.
Without either switch the disk is served by whatever the profile has left: IRQ expecting's
polls (irqkit, tejun2010) or the driver's own 250 ms time-out (mainline: no expecting).

Per irqpolicy (irqkit, tejun2010, mainline) and switch (none, irqfixup, irqpoll) one boot, all in
one run, QEMU pc, IOAPIC mode, -nodefaults, a 4 MiB raw disk (in /dev/shm) on the primary master,
under -icount shift=ICOUNT_SHIFT,sleep=on, as bench-ata: the disk's MB/s are the point, and its
I/O time is real host time. Executed instructions count 8 ns each; idle time passes at host speed.
Under sleep=off QEMU jumps to the next timer deadline whenever the guest idles, before the host
has finished the disk I/O: in two trial runs of this bench under sleep=off the healthy figures
ranged 33-194 MB/s and the misrouted ones moved up to 3x between runs. The counts (claims,
handler calls) do not depend on it, and `cpuload` is a busy loop that never idles, so its share
of executed instructions repeats under sleep=on too. In each boot:

  healthy      `ata bench hda 0 SECTORS` REPS times (write, read back, verify) and `cpuload`:
               what the switch costs a machine where nothing is wrong
  misrouted    `inject irq-misroute:14/4`, a probe run of PROBE_SECTORS; if its write took
               over SLOW_RUN_S s per MiB of guest time (mainline without a switch: every DRQ
               phase waits for the driver's 250 ms time-out) the probe is the figure, else
               the same runs as healthy; then `cpuload` with the fault in force
  counters     `irqs` before and after the misrouted runs: interrupts on line 4 and how many
               its handler left unclaimed, irqfixup's claims for line 14 (the health line
               "line 14: irqfixup claims since boot N"), and every line's interrupts and poll
               runs, which give the handler calls per disk interrupt (healthy the same way)

A row with irqfixup or irqpoll whose boot counted no irqfixup claim is reported as "no rescue"
by bench_table.py: the row must not silently measure an irqfixup that did nothing.

Usage: fixup_bench.py [--sectors N] [--reps N] [--policies irqkit,...] [--switches none,...] [--json PATH]
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
from irqkit_qemu import Guest  # noqa: E402
sys.path.insert(0, HERE)
from ata_bench import bench  # noqa: E402  (one parser of `ata bench` output)

ICOUNT_SHIFT = 3            # 8 ns of guest time per executed instruction
POLICIES = ("irqkit", "tejun2010", "mainline")
SWITCHES = {                # name: boot parameters
    "none": "",             # the profile's own defences only
    "irqfixup": "irqfixup",  # an unclaimed interrupt tries every other shared line's handlers
    "irqpoll": "irqpoll",   # irqfixup, and every shared line polled by its own timer
}
SECTORS = 2048              # 1 MiB per direction and run
REPS = 3                    # runs per figure (median), unless a run is slow
SLOW_RUN_S = 2              # a misrouted probe slower than this per MiB (guest s) is the only run
PROBE_SECTORS = 128         # the misrouted probe: 16 DRQ phases, 4 s per direction at 250 ms each
LOAD_MS = 500               # `cpuload` busy loop length
MISROUTE = "irq-misroute:14/4"
DISK_LINE, SERIAL_LINE = 14, 4
LOAD_RX = re.compile(r"([\d.]+) % of the CPU lost to interrupts")
CLAIMS_RX = re.compile(r"^  line (\d+): (?:misrouted no more: )?irqfixup claims since boot (\d+)", re.M)
POLLS_RX = re.compile(r"^  line (\d+): polls (\d+): ", re.M)


def irqs_counters(g):
    """`irqs` as numbers: per line delivered/unhandled, poll runs (timer polls and irqfixup's),
    irqfixup claims."""
    out = g.command("irqs")
    lines = {}
    for row in out.split("\n"):
        f = row.split()
        if len(f) >= 9 and f[0].isdigit():
            lines[int(f[0])] = {"delivered": int(f[1]), "unhandled": int(f[3]), "polls": 0, "claims": 0}
    for m in POLLS_RX.finditer(out):
        lines.setdefault(int(m.group(1)), {"delivered": 0, "unhandled": 0, "polls": 0, "claims": 0})
        lines[int(m.group(1))]["polls"] = int(m.group(2))
    for m in CLAIMS_RX.finditer(out):
        lines.setdefault(int(m.group(1)), {"delivered": 0, "unhandled": 0, "polls": 0, "claims": 0})
        lines[int(m.group(1))]["claims"] = int(m.group(2))
    return lines


def delta(after, before, line, key):
    return after.get(line, {}).get(key, 0) - before.get(line, {}).get(key, 0)


def handler_calls(after, before):
    """Handler runs between two `irqs`: every line's interrupts (one action per line here)
    plus its poll runs (timer polls, irqfixup's tries)."""
    return sum(delta(after, before, n, "delivered") + delta(after, before, n, "polls") for n in after)


def runs_of(g, sectors, reps, probe):
    """@reps bench runs, or with @probe first a run of PROBE_SECTORS that stays the only one
    when it is slow; with their handler calls. RETURNS (medians and spreads, irqs before, after)."""
    before = irqs_counters(g)
    runs, size = [], sectors
    if probe:
        first = bench(g, PROBE_SECTORS)
        if first["write"] * SLOW_RUN_S < 1.048576:   # slower than SLOW_RUN_S s per MiB
            runs, size = [first], PROBE_SECTORS
    if not runs:
        if probe:   # the fast probe's interrupts are not in the figure's runs: start again
            before = irqs_counters(g)
        runs = [bench(g, sectors) for _ in range(reps)]
    after = irqs_counters(g)
    fig = {"runs": len(runs), "sectors": size, "verified": all(r["verified"] for r in runs)}
    for key in ("write", "read"):
        vals = [r[key] for r in runs]
        fig[key] = statistics.median(vals)
        fig[key + "_spread"] = [min(vals), max(vals)]
    for key in ("serviced", "lost", "timeouts"):
        fig[key] = sum(r[key] for r in runs)
    # One interrupt per DRQ phase the disk completed (serviced by the handler or lost).
    fig["disk_irqs"] = fig["serviced"] + fig["lost"]
    fig["handler_calls"] = handler_calls(after, before)
    return fig, before, after


def cpuload(g):
    out = g.command(f"cpuload {LOAD_MS}", 60)
    m = LOAD_RX.search(out)
    if not m:
        raise RuntimeError(out)
    return float(m.group(1))


def run(image, policy, switch, sectors, reps):
    """One boot: healthy, then misrouted. RETURNS the row of figures."""
    g = Guest(append=f"debugexit irqpolicy={policy} {SWITCHES[switch]}".strip(),
              extra=["-nodefaults", "-icount", f"shift={ICOUNT_SHIFT},sleep=on",
                     "-drive", f"file={image},format=raw,if=ide,index=0"])
    try:
        g.wait_shell(120)
        log = g.log
        mode = re.search(r"interrupt mode: (IO-APIC|8259 PIC)", log)
        sw = re.search(r"irqfixup (on|off), irqpoll (on|off)", log)
        row = {"policy": policy, "switch": switch, "mode": mode.group(1) if mode else "unknown",
               "kernel_says": f"irqfixup {sw.group(1)}, irqpoll {sw.group(2)}" if sw else "unknown"}
        bench(g, sectors)   # warm-up, not counted: the image's first writes cost the host more
        row["healthy"], _, _ = runs_of(g, sectors, reps, probe=False)
        row["cpu_healthy"] = cpuload(g)
        out = g.command(f"inject {MISROUTE}")
        if "INJECTED" not in out:
            raise RuntimeError(f"{MISROUTE} refused:\n{out}")
        fig, before, after = runs_of(g, sectors, reps, probe=True)
        fig["line4_irqs"] = delta(after, before, SERIAL_LINE, "delivered")
        fig["line4_unclaimed"] = delta(after, before, SERIAL_LINE, "unhandled")
        fig["line14_irqs"] = delta(after, before, DISK_LINE, "delivered")
        fig["fixup_claims"] = delta(after, before, DISK_LINE, "claims")
        fig["line14_polls"] = delta(after, before, DISK_LINE, "polls")
        row["misrouted"] = fig
        row["cpu_misrouted"] = cpuload(g)
        g.command(f"inject off {MISROUTE.split(':')[0]}")
        return row
    finally:
        g.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sectors", type=int, default=SECTORS)
    ap.add_argument("--reps", type=int, default=REPS)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--switches", default=",".join(SWITCHES))
    ap.add_argument("--json", help="also write the figures to this file (for bench_table.py)")
    args = ap.parse_args()
    rows, failed = [], False
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="irqkit-fixup-bench-", dir=shm) as tmp:
        image = os.path.join(tmp, "disk.img")
        with open(image, "wb") as f:
            f.truncate(max(args.sectors * 512, 4 << 20))
        print(f"bench-fixup: `inject {MISROUTE}` (disk interrupts arrive on the serial line), "
              f"`ata bench hda 0 {args.sectors}` healthy then misrouted, median of {args.reps}; "
              f"`cpuload {LOAD_MS}`; QEMU pc, -icount shift={ICOUNT_SHIFT},sleep=on")
        print(f"  {'policy':<10} {'switch':<9} {'healthy w/r MB/s':>17} {'misrouted w/r MB/s':>19} "
              f"{'calls/irq h/m':>13} {'l4 irqs':>7} {'unclaimed':>9} {'claims':>6} {'lost':>5} "
              f"{'cpu h/m %':>10}  data")
        for policy in args.policies.split(","):
            for switch in args.switches.split(","):
                r = run(image, policy, switch, args.sectors, args.reps)
                h, m = r["healthy"], r["misrouted"]
                ok = h["verified"] and m["verified"]
                failed |= not ok
                hc = h["handler_calls"] / h["disk_irqs"] if h["disk_irqs"] else 0
                mc = m["handler_calls"] / m["disk_irqs"] if m["disk_irqs"] else 0
                print(f"  {policy:<10} {switch:<9} {h['write']:>8.2f}/{h['read']:<8.2f} "
                      f"{m['write']:>9.2f}/{m['read']:<9.2f} {hc:>6.2f}/{mc:<6.2f} {m['line4_irqs']:>7} "
                      f"{m['line4_unclaimed']:>9} {m['fixup_claims']:>6} {m['lost']:>5} "
                      f"{r['cpu_healthy']:>4.1f}/{r['cpu_misrouted']:<5.1f}  {'verified' if ok else 'WRONG'}",
                      flush=True)
                if switch != "none" and m["fixup_claims"] == 0:
                    print(f"  WARNING: {policy} {switch}: irqfixup claimed nothing: no rescue measured")
                rows.append(r)
        print("  (calls/irq: handler runs - interrupts and poll runs of every line - per disk interrupt,\n"
              "   healthy / misrouted; l4 irqs: interrupts on the serial line during the misrouted runs, of\n"
              "   which unclaimed by its handler; claims: irqfixup's for line 14; lost: DRQ phases the ATA\n"
              "   driver completed after its own time-out)")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump({"bench": "fixup", "machine": "pc", "icount_shift": ICOUNT_SHIFT, "sleep": "on",
                       "sectors": args.sectors, "reps": args.reps, "load_ms": LOAD_MS, "fault": MISROUTE,
                       "rows": rows}, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
