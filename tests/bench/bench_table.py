"""bench-table: the one benchmark table of issue 8, from the figures the other benches wrote.

The last step of `make bench`. Every bench of the run writes its figures as JSON into
build/bench/ (bench-ata: ata.json, bench-usb: usb.json, bench-storm: storm.json, bench-irq:
irq.json, bench-defences: defences.json); this script reads them, checks that each is there
and from this run (newer than the stamp `make bench` touched first), and prints one table:
one row per figure, a column per irqpolicy (irqkit, tejun2010, mainline), each row with its
unit and the conditions it was measured under (machine, interrupt mode as the kernel logged
it, -icount shift and sleep=). It computes nothing but ratios and formatting: every number
is one a bench printed. The same table is written as Markdown to build/bench/table.md.

A missing, stale or unreadable input file is an error (exit status 1, naming the file): an
empty table must not pass for a result. A bench that ran but could not measure (it said
"skipped", or a policy's boot gave no figure) shows "not measured (reason)" in its cells.

Usage: bench_table.py [--dir build/bench] [--since STAMP] [--out build/bench/table.md]
"""
import argparse
import json
import os
import statistics
import sys

POLICIES = ("irqkit", "tejun2010", "mainline")
INPUTS = ("ata", "usb", "storm", "irq", "defences")   # build/bench/NAME.json, one per bench
STORM_SOURCES = {
    # storm_bench.py source: what the storm is, for the conditions column
    "e1000-storm/noapic": "e1000 holds shared level IRQ 11 (raw 8259 level storm)",
    "e1000-storm/ioapic": "e1000 holds shared level IRQ 11 (QEMU throttles re-delivery)",
    "spurious-flood": "edge self-IPIs on IRQ 14's vector, 20,000/s",
}


class InputError(Exception):
    pass


def load(directory, name, since):
    path = os.path.join(directory, f"{name}.json")
    if not os.path.exists(path):
        raise InputError(f"{path} is missing: bench-{name} did not run or did not finish")
    if since is not None and os.path.getmtime(path) < since:
        raise InputError(f"{path} is older than this `make bench` run (stale figures of an earlier run)")
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: cannot read it: {e}")
    if not isinstance(data, dict) or data.get("bench") != name:
        raise InputError(f"{path}: not the output of bench-{name}")
    return data


def nm(why):
    return f"not measured ({why})"


def modes_of(values):
    """The interrupt modes the kernel logged in these boots, as one string."""
    ms = sorted({v for v in values if v})
    return "/".join(ms) if ms else "mode unknown"


def qemu_cond(d, mode):
    return f"QEMU pc, {mode}, -icount shift={d['icount_shift']},sleep={d['sleep']}"


def ata_rows(d):
    if "skipped" in d:
        why = nm(d["skipped"])
        return [(f"ATA {op} at {p} % lost interrupts", "MB/s", "-", {q: why for q in POLICIES})
                for op in ("read", "write") for p in (0, 50, 100)]
    by = {(r["policy"], r["drop"]): r for r in d["rows"]}
    cond = (qemu_cond(d, modes_of(r.get("mode") for r in d["rows"]))
            + f", `ata bench hda 0 {d['sectors']}`, median of up to {d['reps']} runs")
    rows = []
    for op in ("read", "write"):
        for drop in (0, 50, 100):
            cells = {}
            for p in POLICIES:
                r = by.get((p, drop))
                if r is None:
                    cells[p] = nm("no figure from this policy's boot")
                    continue
                v = f"{r[op]:.2f}" + ("" if drop == 0 else f" ({r[op + '_ratio']:.2f})")
                cells[p] = v + ("" if r["verified"] else " DATA WRONG")
            unit = "MB/s guest time" + ("" if drop == 0 else " (ratio to 0 %)")
            rows.append((f"ATA {op} at {drop} % lost interrupts", unit, cond, cells))
    return rows


def usb_rows(d):
    names = [("keystroke latency, median", "ms guest time", "median"),
             ("keystroke latency, worst", "ms guest time", "worst"),
             ("usb-storage read", "MB/s guest time", "mbs")]
    if "skipped" in d:
        return [(f"USB {n}, {dl}", u, "-", {q: nm(d["skipped"]) for q in POLICIES})
                for n, u, _ in names for dl in ("healthy", "misrouted")]
    by = {(r["policy"], r["delivery"]): r for r in d["rows"]}
    cond_base = (f"usb-kbd + usb-storage on the PIIX3 UHCI, {d['keys']} keys, "
                 "`blk crc usba 0 4096` (2 MiB)")
    rows = []
    for delivery, label in (("healthy", "healthy"), ("uhci-misroute", "misrouted (fault=uhci-misroute)")):
        rs = [by.get((p, delivery)) for p in POLICIES]
        cond = qemu_cond(d, modes_of(r.get("mode") for r in rs if r)) + ", " + cond_base
        for name, unit, key in names:
            cells = {}
            for p, r in zip(POLICIES, rs):
                if r is None:
                    cells[p] = nm("no figure from this policy's boot")
                elif "error" in r:
                    cells[p] = f"USB unusable ({r['error']})"
                elif key == "mbs":
                    cells[p] = nm("no rate printed") if r["mbs"] is None else \
                        f"{r['mbs']:.2f}" + ("" if r["crc_ok"] else " CRC WRONG")
                elif not r["upper"]:
                    cells[p] = nm(f"no key echoed, {r['lost']} lost")
                else:
                    v = max(r["upper"]) if key == "worst" else statistics.median(r["upper"])
                    cells[p] = f"{v:.2f}" + (f" ({r['lost']} keys lost)" if r["lost"] else "")
            rows.append((f"USB {name}, {label}", unit, cond, cells))
    return rows


def fmt_s(v):
    return "never" if v is None else f"{v:.2f}"


def storm_rows(d):
    rows = []
    cond0 = f"QEMU pc, -icount shift={d['icount_shift']},sleep={d['sleep']}, `cpuload {d['load_ms']}`"
    for source, s in d["sources"].items():
        figs = s["profiles"]
        mode = modes_of(f.get("mode") for f in figs.values() if "na" not in f)
        cond = f"{source}: {STORM_SOURCES.get(source, source)}; " + cond0.replace("QEMU pc,", f"QEMU pc, {mode},")
        spec = [
            ("interrupts until contained", "interrupts", lambda f: f"{f['irqs']}"),
            ("time until contained", "ms guest time", lambda f: f"{f['ms']:.0f}"),
            ("CPU share lost before containment (same storm, noirqdebug)", "% of CPU",
             lambda f: s["before"]),
            ("CPU share lost after containment", "% of CPU",
             lambda f: f.get("after_note") or f"{f['after']:.1f} %"),
            ("time until re-enabled after the storm stops", "s guest time", lambda f: fmt_s(f.get("reenable"))),
            ("time until declared over (back on interrupts)", "s guest time", lambda f: fmt_s(f.get("over"))),
        ]
        for name, unit, get in spec:
            cells = {}
            for p in POLICIES:
                f = figs.get(p)
                cells[p] = nm("not run") if f is None else nm(f["na"]) if "na" in f else get(f)
            rows.append((f"storm {source}: {name}", unit, cond, cells))
    ip = d.get("irqpoll")
    cond = f"idle, healthy, -usb -device usb-kbd; QEMU pc, {{}}, -icount shift={d['icount_shift']},sleep={d['sleep']}"
    if ip is None:
        rows.append(("irqpoll: CPU share lost, idle", "% of CPU", "-", {p: nm("run with --no-irqpoll") for p in POLICIES}))
    else:
        mode = modes_of(m for p in POLICIES if p in ip for m in ip[p]["modes"])
        for key, label in (("without", "without irqpoll"), ("with", "with irqpoll")):
            rows.append((f"CPU share lost, idle, {label}", "% of CPU", cond.format(mode),
                         {p: f"{ip[p][key]:.1f} %" if p in ip and ip[p][key] is not None else nm("no figure")
                          for p in POLICIES}))
    rows.append(("CPU share lost, idle, with irqfixup", "% of CPU", "-",
                 {p: nm("no bench measures irqfixup yet; storm_bench.py measures irqpoll only") for p in POLICIES}))
    return rows


def hot_rows(irq, dfn):
    cond = (f"host build gcc {irq['cc']} -O2, {irq['valgrind']} callgrind, {irq['ops']} ops, "
            "host port (checking pthread mutex)")
    by = {r["mode"]: r for r in irq["rows"]}
    rows = []
    for mode, label in (("edge", "handled edge interrupt, generic_handle_irq()"),
                        ("fasteoi", "handled fasteoi interrupt"),
                        ("level", "handled level interrupt")):
        r = by.get(mode)
        v = nm(f"bench-irq printed no {mode} figure") if r is None else f"{r['ir']:.1f} ({r['locks']} lock pairs)"
        rows.append((label, "Ir per interrupt", cond,
                     {"irqkit": v, "tejun2010": nm("bench-irq runs the default profile only"),
                      "mainline": nm("bench-irq runs the default profile only")}))
    if "lockpair" in by:
        rows.append(("host port lock+unlock pair (part of the above)", "Ir", cond,
                     {p: f"{by['lockpair']['ir']:.1f}" for p in POLICIES}))
    cond = (f"host build gcc {dfn['cc']} -O2, {dfn['valgrind']} callgrind, {dfn['pairs']} pairs, "
            "token verified")
    v = dfn["verified"]
    rows.append(("expect_irq()+unexpect_irq(), verified pair", "Ir per pair (port locks, poll timer arms)", cond,
                 {p: f"{v[p]['ir']:.1f} ({v[p]['locks']:g}, {v[p]['arms']:g})" if p in v else nm("no figure")
                  for p in POLICIES}))
    return rows


def markdown(sections):
    out = []
    for title, rows in sections:
        out.append(f"**{title}**\n")
        out.append("| figure | unit | " + " | ".join(POLICIES) + " | conditions |")
        out.append("| --- | --- | " + " | ".join("---:" for _ in POLICIES) + " | --- |")
        for name, unit, cond, cells in rows:
            out.append(f"| {name} | {unit} | " + " | ".join(cells[p] for p in POLICIES) + f" | {cond} |")
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.path.join("build", "bench"))
    ap.add_argument("--since", help="a file touched when this bench run started")
    ap.add_argument("--out", help="Markdown output (default DIR/table.md)")
    args = ap.parse_args()
    since = None
    if args.since:
        if not os.path.exists(args.since):
            print(f"bench-table: {args.since} is missing: run `make bench`", file=sys.stderr)
            return 1
        since = os.path.getmtime(args.since)
    try:
        d = {n: load(args.dir, n, since) for n in INPUTS}
        sections = [("ATA (drivers/ata) under lost interrupts", ata_rows(d["ata"])),
                    ("USB class drivers, healthy vs misrouted", usb_rows(d["usb"])),
                    ("Interrupt storms and irqpoll/irqfixup", storm_rows(d["storm"])),
                    ("Hot paths, instructions on the host", hot_rows(d["irq"], d["defences"]))]
    except InputError as e:
        print(f"bench-table: {e}", file=sys.stderr)
        return 1
    except (KeyError, TypeError, ValueError) as e:
        print(f"bench-table: an input file lacks a figure it should have: {e!r}", file=sys.stderr)
        return 1
    table = markdown(sections)
    out = args.out or os.path.join(args.dir, "table.md")
    with open(out, "w") as f:
        f.write(table)
    print("bench-table: every figure of this run, one column per irqpolicy (also in " + out + ")\n")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
