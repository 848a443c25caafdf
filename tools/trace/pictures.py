#!/usr/bin/env python3
"""pictures.py - the course's timelines (docs/course/pictures/*.svg), made from real traces.

    pictures.py [--out docs/course/pictures] [--icount 3]

Boots irqkit (tools/trace/scenarios.py: ata-drop:100, e1000-storm, uhci-misroute with the
trace on; smp-ata-race on a second boot with two CPUs), keeps each dump next to its picture (NAME.dump, so the picture can be redrawn with
irqtrace.py alone) and draws the part of each trace a lesson talks about with
tools/trace/irqtrace.py --svg --window. `make trace-pictures` runs it; the pictures and dumps are
committed, the README beside them says what made them.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import irqtrace  # noqa: E402
import scenarios  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))


def window_storm(model, events, line):
    """From the first unclaimed interrupt to a little after the first re-enable test."""
    first = next(e for e in events if e.name == "irq_entry" and e.line == line)
    reen = next((e for e in events if e.name == "state" and e.f["what"] == "reenable" and e.line == line), None)
    end = (reen.ts if reen else model.t1) + 3_000_000
    return first.ts - 1_000_000, end


def window_race(model, events, line, us):
    """@us microseconds from 20 us before the first poll of CPU 0 that found the handlers running on CPU 1."""
    first = next((e for e in irqtrace.merged(events) if e.name == "poll_end" and e.line == line
                  and e.f["result"] == "busy"), None) or next(e for e in events if e.name == "poll_start")
    return first.ts - 20_000, first.ts + us * 1000


def window_first(model, events, line, ms):
    first = next(e for e in events if e.name == "poll_start" and e.line == line)
    return first.ts - 1_000_000, first.ts + int(ms * 1e6)


PICTURES = [
    # (scenario, file, title, window function or None for the whole trace)
    ("ata-drop:100", "expect-ata-drop", "IRQ expecting: every disk interrupt lost (ata-drop:100), line 14", None),
    ("uhci-misroute", "watch-uhci-misroute",
     "IRQ watching: the UHCI's interrupts misrouted (uhci-misroute), line 11, first 40 ms",
     lambda m, ev: window_first(m, ev, 11, 40)),
    ("e1000-storm", "flood-e1000-storm",
     "Flood defence: the e1000 holds shared line 11 asserted (e1000-storm), to the first re-enable test",
     lambda m, ev: window_storm(m, ev, 11)),
    ("smp-ata-race", "smp-race",
     "Two CPUs: line 14 on CPU 1, polls aimed at its interrupts on CPU 0 (ata-race), 300 us",
     lambda m, ev: window_race(m, ev, 14, 300)),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "course", "pictures"))
    ap.add_argument("--icount", type=int, default=3)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    dumps, _ = scenarios.run_scenarios([p[0] for p in PICTURES], icount=args.icount)
    for name, base, title, win in PICTURES:
        dump = os.path.join(args.out, base + ".dump")
        with open(dump, "w") as f:
            f.write(dumps[name])
        header, events, tail, _ = irqtrace.parse(dumps[name], dump)
        model = irqtrace.Model(header, events, tail)
        argv = [dump, "--svg", os.path.join(args.out, base + ".svg"), "--title", title]
        if win:
            s, e = win(model, events)
            argv.append(f"--window={max(s - model.t0, 0) / 1e6:.3f}:{(e - model.t0) / 1e6:.3f}")
        rc = irqtrace.main(argv)
        if rc:
            return rc
        print("pictures: " + " ".join(["tools/trace/irqtrace.py"] + [os.path.relpath(a, ROOT) if os.path.exists(a)
                                                                      or a.endswith(".svg") else repr(a) if " " in a
                                                                      else a for a in argv]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
