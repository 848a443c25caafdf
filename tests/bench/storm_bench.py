"""bench-storm: what an interrupt storm costs and how fast each irqpolicy contains it, in QEMU.

Per storm source and per irqpolicy (irqkit, tejun2010, mainline) one boot under
-icount (shift=ICOUNT_SHIFT, sleep=off: guest time is executed instructions, so the
figures are the same on every run), in the same run of this script:

  interrupts until contained  the segment the flood defence judged ("N of M
                              interrupts unclaimed in X ms": M)
  ms until contained          printk time of that judgement minus that of the injection
  CPU lost, before            `cpuload` (kernel/cpuload.c: a busy loop with interrupts on
                              vs off) while the storm runs with the defences off
                              (noirqdebug): what every profile pays until it decides
  CPU lost, after             `cpuload` once the line is off for flooding (re-enable tests
                              included)
  s until re-enabled          right after `inject off`, the `irqs` health section's "re-enable
                              test in N ms" (the log's "re-enabled" line is rate-limited)
  s until declared over       printk time of "flood over, line back on interrupts" minus
                              that of the switch-off (the test segment passed)

Storm sources:
  spurious-flood  edge: self-IPIs on IRQ 14's vector at 20,000/s (arch/x86/lapic_flood.c),
                  IOAPIC mode; the disk (ata0) is the line's only handler. The IPIs bypass
                  the IOAPIC, so masking the pin cannot stop them reaching the CPU: "after"
                  is the bare cost of taking and dropping them.
  e1000-storm     level: the NIC nobody drives holds IRQ 11 asserted (drivers/net/e1000_storm.c),
                  in noapic (8259 level: raw) and IOAPIC mode (QEMU throttles re-delivery after
                  10,000 EOIs); needs a driver on IRQ 11 (the UHCI with -usb), else the line
                  stays masked and the storm is invisible: then the rows say so.
  hpet-storm      claimed (issue 19): a spare HPET comparator at 200,000/s on q35 whose driver
                  claims every interrupt (arch/x86/hpet_storm.c); the claimed-storm defence
                  throttles the line (masked, polled every 1 ms). "interrupts until contained"
                  is the count of the storm window that tripped ("N interrupts in X us"); tejun2010
                  and mainline have no such defence (the rows say so). Also at 5,000, 10,000,
                  20,000, 50,000, 100,000 and 1,000,000 a second (hpet-storm/HZ): the defence
                  judges the CPU time the line's runs take (storm_cpu_pct), not the rate, and says
                  which share they took; the sweep ends with one table, a row per rate, with the
                  interrupts a second `cpuload` counted beside each CPU share (QEMU's comparator
                  under -icount delivers unclaimed duplicates beside the claimed periods). "ms
                  until contained" counts from the storm's start at its rate (the driver's "at its
                  rate from" line): QEMU 7.2's comparator gives one interrupt at once and the
                  periodic ones about 0.6 s of guest time later, which the figure before issue 28
                  (618-707 ms "until contained") counted as storm.

Also the cost of `irqpoll` on an idle, healthy system (cpuload with and without it).

Usage: storm_bench.py [--profiles irqkit,tejun2010,mainline] [--sources spurious-flood,...]
                      [--no-irqpoll] [--json PATH]
       (--json also writes the figures there for tests/bench/bench_table.py)
"""
import argparse
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "qemu"))
from irqkit_qemu import Guest, GuestTimeout  # noqa: E402

ICOUNT_SHIFT = 3                 # 8 ns of guest time per instruction
POLICIES = ("irqkit", "tejun2010", "mainline")
LOAD_MS = 500
LIVELOCK_S = 30                  # a cpuload that does not answer in this much host time: livelock
# A log line starts a line, or follows the shell's prompt when it comes while the shell waits
# for input ("irqkit> [    2.300674] irq 11: ... flood over"): anchored at the line start only,
# that "over" was never seen and make bench waited out the 900 s time-out (5 Dec 2026)
STAMP = r"^(?:irqkit> )?\[\s*(\d+\.\d+)\] "
SOURCES = {
    # name: (mode append, QEMU extra, line, inject spec, the log line that says the storm starts)
    "spurious-flood": ("", [], 14, "spurious-flood:14", r"spurious-flood: IPIs on vector"),
    "e1000-storm/noapic": ("noapic", ["-device", "e1000,addr=03.0", "-usb"], 11, "e1000-storm",
                           r"e1000-storm: writing IMS and ICS"),
    "e1000-storm/ioapic": ("", ["-device", "e1000,addr=03.0", "-usb"], 11, "e1000-storm",
                           r"e1000-storm: writing IMS and ICS"),
    # line None: read from the fault's own message (the spare comparator's GSI)
    "hpet-storm": ("", [], None, "hpet-storm", r"hpet-storm: HPET comparator \d+ periodic at \d+/s on GSI (\d+)"),
}
HPET_RATES = (5000, 10000, 20000, 50000, 100000, 1000000)  # hpet-storm/HZ: the same storm at other rates
for _hz in HPET_RATES:
    SOURCES[f"hpet-storm/{_hz}"] = ("", [], None, f"hpet-storm:{_hz}",
                                    r"hpet-storm: HPET comparator \d+ periodic at \d+/s on GSI (\d+)")
MACHINES = {name: "q35" for name in SOURCES if name.startswith("hpet-storm")}     # the others run on pc
CLAIMED = {name for name in SOURCES if name.startswith("hpet-storm")}  # claimed storms (their messages differ)
CLAIMED_RX = r"irq {line}: (\d+) interrupts in (\d+) us, \d+ claimed \(bound \d+ in \d+ ms\), their runs (\d+) % of a CPU(.*)$"
RATE_RX = r"hpet-storm: interrupts at its rate from (\d+\.\d+) s"
NOT_A_STORM_S = 20                   # host seconds a claimed storm gets to trip before it is called no storm
LOAD_RX = re.compile(r"([\d.]+) % of the CPU lost to interrupts \((\d+) delivered, (\d+)/s\)")
last_rate = {}                       # the interrupts a second of the last cpuload (every line's)


def stamp_of(g, pattern, start, timeout):
    m = g.wait_for(STAMP + pattern, timeout, start)
    return float(m.group(1)), m


def cpuload(g):
    try:
        out = g.command(f"cpuload {LOAD_MS}", LIVELOCK_S)
    except GuestTimeout:
        return None
    m = LOAD_RX.search(out)
    if not m:
        raise RuntimeError(out)
    last_rate["per_s"] = int(m.group(3))
    return float(m.group(1))


def boot(image, append, extra, machine="pc"):
    g = Guest(append=("debugexit " + append).strip(), machine=machine,
              extra=["-nodefaults", "-icount", f"shift={ICOUNT_SHIFT},sleep=off",
                     "-drive", f"file={image},format=raw,if=ide,index=0"] + extra)
    g.wait_shell(120)
    return g


def has_handler(g, line):
    for row in g.command("irqs").split("\n"):
        f = row.split()
        if len(f) >= 10 and f[0] == str(line):
            return True
    return False


def run(image, source, policy):
    """One boot, one storm, one profile. RETURNS a dict of figures (or {'na': why})."""
    mode, extra, line, spec, start_rx = SOURCES[source]
    claimed = source in CLAIMED
    if claimed and policy != "irqkit":
        return {"na": "no claimed-storm defence in this profile (storm_max_claimed 0)"}
    g = boot(image, f"{mode} irqpolicy={policy}", extra, MACHINES.get(source, "pc"))
    try:
        if line is not None and not has_handler(g, line):
            return {"na": f"nothing requests line {line}: the storm stays masked (invisible)"}
        base = cpuload(g)
        start = len(g.log)
        g.send(f"inject {spec}\r")
        t_on, m_on = stamp_of(g, start_rx, start, 30)
        if line is None:
            line = int(m_on.group(2))
        if claimed:
            t_rate = float(g.wait_for(RATE_RX, 120, start).group(1))
            try:
                t_trip, m = stamp_of(g, CLAIMED_RX.format(line=line), start, NOT_A_STORM_S)
            except GuestTimeout:
                # Its runs never took storm_cpu_pct of a window (nor the rate bound): no storm by the rule.
                fig = {"mode": "IO-APIC", "base": base, "never": True, "after": cpuload(g),
                       "after_per_s": last_rate.get("per_s")}
                return fig
            irqs, rest = int(m.group(2)), m.group(5)
            t_on, share = t_rate, int(m.group(4))
        else:
            t_trip, m = stamp_of(g, rf"irq {line}: (\d+) of (\d+) interrupts unclaimed in (\d+) ms(.*)$",
                                 start, 300)
            irqs, rest = int(m.group(3)), m.group(5)
        mode_m = re.search(r"interrupt mode: (IO-APIC|8259 PIC)", g.log)
        fig = {"mode": mode_m.group(1) if mode_m else "unknown",
               "base": base, "irqs": irqs, "ms": (t_trip - t_on) * 1000,
               "forever": "off for good" in rest}
        if claimed:
            fig["share"] = share
        g.wait_for(r"irqkit> ", 30, start)
        fig["after"] = cpuload(g)
        fig["after_per_s"] = last_rate.get("per_s") if fig["after"] is not None else None
        if fig["after"] is None:
            fig["after_note"] = "livelock"
            return fig
        stop = len(g.log)
        g.send(f"inject off {spec.split(':')[0]}\r")
        t_off, _ = stamp_of(g, rf"fault: {re.escape(spec.split(':')[0])} switched off", stop, 30)
        # The health section says when the re-enable test comes (the log's "re-enabled" line is
        # rate-limited after failed tests); "flood over" comes once a test segment passed.
        health = g.command("irqs")
        m = re.search(rf"^  line {line}: .*re-enable test in (\d+) ms", health, re.M)
        if fig["forever"] or not m:
            fig["reenable"] = fig["over"] = None
        else:
            fig["reenable"] = int(m.group(1)) / 1000
            over = "claimed storm over" if claimed else "flood over"
            t_over, _ = stamp_of(g, rf"irq {line}: .*{over}, line back on interrupts", stop, 900)
            fig["over"] = t_over - t_off
        return fig
    finally:
        g.kill()


def before_share(image, source):
    """CPU lost while the storm runs unchecked (noirqdebug): the state before containment."""
    mode, extra, line, spec, _ = SOURCES[source]
    g = boot(image, f"{mode} noirqdebug", extra, MACHINES.get(source, "pc"))
    try:
        if line is not None and not has_handler(g, line):
            return None, "n/a"
        start = len(g.log)
        g.command(f"inject {spec}", LIVELOCK_S)
        if source in CLAIMED:
            g.wait_for(RATE_RX, 120, start)   # QEMU's comparator starts its periodic interrupts ~0.6 s later
        share = cpuload(g)
        if share is None:
            return None, "livelock"
        return share, f"{share:.1f} % ({last_rate['per_s']}/s)"
    except GuestTimeout:
        return None, "livelock"
    finally:
        g.kill()


def irqpoll_cost(image, policy):
    """CPU lost on an idle, healthy system without and with `irqpoll` (every shared line
    polled through its own timer: serial, UHCI, disk)."""
    shares = []
    for extra_append in ("", "irqpoll"):
        g = boot(image, f"irqpolicy={policy} {extra_append}", ["-usb", "-device", "usb-kbd,port=1"])
        try:
            shares.append(cpuload(g))
            mode_m = re.search(r"interrupt mode: (IO-APIC|8259 PIC)", g.log)
            shares.append(mode_m.group(1) if mode_m else "unknown")
        finally:
            g.kill()
    return shares[0::2] + shares[1::2]   # without, with, then the two boots' interrupt modes


def hz_of(source):
    """The comparator rate of an hpet-storm source (the bare one runs at the fault's default)."""
    return int(source.split("/")[1]) if "/" in source else 200000


def fmt_s(v):
    return "never" if v is None else f"{v:.2f} s"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profiles", default=",".join(POLICIES))
    ap.add_argument("--sources", default=",".join(SOURCES))
    ap.add_argument("--no-irqpoll", action="store_true", help="skip the irqpoll cost rows")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    profiles = args.profiles.split(",")
    out = {"bench": "storm", "machine": "pc (hpet-storm: q35)", "icount_shift": ICOUNT_SHIFT, "sleep": "off",
           "load_ms": LOAD_MS, "sources": {}, "irqpoll": None}
    with tempfile.TemporaryDirectory() as tmp:
        image = os.path.join(tmp, "disk.img")
        with open(image, "wb") as f:
            f.truncate(4 << 20)
        print(f"bench-storm: -icount shift={ICOUNT_SHIFT},sleep=off, `cpuload {LOAD_MS}` "
              f"(busy loop, interrupts on vs off), storm injected at the shell")
        for source in args.sources.split(","):
            share, before = before_share(image, source)
            figs = {p: run(image, source, p) for p in profiles}
            out["sources"][source] = {"before": before, "before_share": share, "profiles": figs}
            print(f"\n{source}:")
            print(f"  {'figure':42s}" + "".join(f"{p:>14s}" for p in profiles))
            if all("na" in f for f in figs.values()):
                print(f"  n/a: {figs[profiles[0]]['na']}")
                continue
            rows = [
                ("interrupts until contained", lambda f: "never" if f.get("never") else str(f["irqs"])),
                ("ms until contained" + (" (from the storm's start)" if source in CLAIMED else ""),
                 lambda f: "never" if f.get("never") else f"{f['ms']:.1f}" if source in CLAIMED else f"{f['ms']:.0f}"),
                ("CPU lost, healthy line", lambda f: f"{f['base']:.1f} %"),
                ("CPU lost before containment (noirqdebug)", lambda f: before),
            ]
            if source in CLAIMED:
                rows.append(("its runs' share of a CPU when contained", lambda f: "-" if f.get("never") else f"{f['share']} %"))
            rows += [
                ("CPU lost after containment" if source not in CLAIMED else "CPU lost after containment (or while not one)",
                 lambda f: f.get("after_note") or f"{f['after']:.1f} %"),
                ("re-enabled after the storm stops", lambda f: "-" if f.get("never") else fmt_s(f.get("reenable"))),
                ("declared over after the storm stops", lambda f: "-" if f.get("never") else fmt_s(f.get("over"))),
            ]
            for name, get in rows:
                print(f"  {name:42s}" + "".join(f"{'n/a' if 'na' in figs[p] else get(figs[p]):>14s}"
                                                for p in profiles))
            for p in profiles:
                if "na" in figs[p]:
                    print(f"  n/a for {p}: {figs[p]['na']}")
        if not args.no_irqpoll:
            cost = {p: irqpoll_cost(image, p) for p in profiles}
            out["irqpoll"] = {p: {"without": cost[p][0], "with": cost[p][1], "modes": cost[p][2:]} for p in profiles}
            print("\nirqpoll (idle, healthy; serial, UHCI and disk lines polled):")
            print(f"  {'figure':42s}" + "".join(f"{p:>14s}" for p in profiles))
            print(f"  {'CPU lost without irqpoll':42s}" + "".join(f"{cost[p][0]:>12.1f} %" for p in profiles))
            print(f"  {'CPU lost with irqpoll':42s}" + "".join(f"{cost[p][1]:>12.1f} %" for p in profiles))
        sweep = [s for s in args.sources.split(",") if s in CLAIMED and "irqkit" in profiles]
        if sweep:
            print("\nhpet-storm by comparator rate (irqkit; CPU lost with the interrupts a second cpuload counted):")
            print(f"  {'rate':>10s} {'contained after':>26s} {'its runs':>9s} {'CPU lost before':>22s} "
                  f"{'CPU lost after':>32s}")
            for source in sorted(sweep, key=hz_of):
                d = out["sources"][source]
                f = d["profiles"]["irqkit"]
                if "na" in f:
                    continue
                after = "livelock" if f.get("after") is None else (f"{f['after']:.1f} % ({f['after_per_s']}/s)" +
                                                                     (" not contained" if f.get("never") else ""))
                contained = "never" if f.get("never") else f"{f['irqs']} irqs, {f['ms']:.1f} ms"
                runs = "-" if f.get("never") else f"{f['share']} %"
                print(f"  {hz_of(source):>8,d}/s {contained:>26s} {runs:>9s} {d['before']:>22s} {after:>32s}")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
