#!/usr/bin/env python3
"""pictures.py - the course's timelines (docs/course/pictures/*.svg), made from real traces.

    pictures.py [--out docs/course/pictures] [--icount 3] [--redraw]

Boots irqkit (tools/trace/scenarios.py: ata-drop:100, ata-recover, e1000-storm, uhci-misroute with
the trace on; smp-ata-race on a second boot with two CPUs), keeps each dump next to its picture
(NAME.dump, so the picture can be redrawn with irqtrace.py alone) and draws the part of each trace
a lesson talks about with tools/trace/irqtrace.py --svg --window. The title names that window
(its length, and from where), as the picture's footer does. `--redraw` draws the pictures again
from the dumps beside them, without booting. `make trace-pictures` runs it; the pictures and dumps
are committed, the README beside them says what made them, and tests/course/test_pictures.py
checks what the lessons say about each picture against its dump.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import irqtrace  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
US, MS = 1_000, 1_000_000


def drawn_span(model, events):
    """The whole trace, from a little before its first event drawn to its last."""
    drawn = [r[3] for r in model.slices] + [r[3] for r in model.instants if r[2] != "chip"]
    t0 = min(drawn, default=model.t0)
    t1 = max(model.t1, t0 + 1)
    return max(model.t0, t0 - (t1 - t0) // 50), t1, "the whole trace"


def window_storm(model, events, line):
    first = next(e for e in events if e.name == "irq_entry" and e.line == line)
    reen = next((e for e in events if e.name == "state" and e.f["what"] == "reenable" and e.line == line), None)
    end = (reen.ts if reen else model.t1) + 3 * MS
    return first.ts - 1 * MS, end, "from 1 ms before the first interrupt to 3 ms after the first re-enable test"


def window_race(model, events, line, us):
    first = next((e for e in irqtrace.merged(events) if e.name == "poll_end" and e.line == line
                  and e.f["result"] == "busy"), None) or next(e for e in events if e.name == "poll_start")
    return (first.ts - 20 * US, first.ts + (us - 20) * US,
            "from 20 us before the first poll that found the handler running on the other CPU")


def window_first_poll(model, events, line, ms):
    first = next(e for e in events if e.name == "poll_start" and e.line == line)
    return first.ts - 1 * MS, first.ts + (ms - 1) * MS, f"from 1 ms before line {line}'s first poll"


def window_start(model, events, us):
    first = min(e.ts for e in events)
    return first, first + us * US, "from the read's first command"


def window_verdicts(model, events, line, us):
    """@us microseconds around the first spell in which a late, an unsure and a lost verdict all fall."""
    v = [e for e in irqtrace.merged(events) if e.name == "verdict" and e.line == line]
    for a in v:
        kinds = {e.f["kind"] for e in v if a.ts <= e.ts < a.ts + (us - 60) * US}
        if {"late", "unsure", "lost"} <= kinds:
            return a.ts - 30 * US, a.ts + (us - 30) * US, "around its first verdicts of all three kinds"
    return drawn_span(model, events)


PICTURES = [
    # (scenario, file, title before the window, window function)
    ("ata-drop:100", "expect-ata-drop", "IRQ expecting: every disk interrupt lost (ata-drop:100), line 14",
     drawn_span),
    ("ata-recover", "verdicts-ata-recover",
     "Verdicts: the first read after ata-drop is switched off, line 14", lambda m, ev: window_start(m, ev, 300)),
    ("smp-ata-race", "verdicts-smp",
     "Verdicts on completions found by polling: line 14 on CPU 1, its polls on CPU 0 (ata-race)",
     lambda m, ev: window_verdicts(m, ev, 14, 250)),
    ("uhci-misroute", "watch-uhci-misroute",
     "IRQ watching: the UHCI's interrupts misrouted (uhci-misroute), line 11",
     lambda m, ev: window_first_poll(m, ev, 11, 40)),
    ("e1000-storm", "flood-e1000-storm",
     "Flood defence: the e1000 holds shared line 11 asserted (e1000-storm)",
     lambda m, ev: window_storm(m, ev, 11)),
    ("smp-ata-race", "smp-race",
     "Two CPUs: line 14 on CPU 1, polls aimed at its interrupts on CPU 0 (ata-race)",
     lambda m, ev: window_race(m, ev, 14, 300)),
]


def draw(out_dir, base, title, win, text):
    """Draw one picture from its dump text. RETURNS irqtrace's exit status."""
    dump = os.path.join(out_dir, base + ".dump")
    header, events, tail, _ = irqtrace.parse(text, dump)
    model = irqtrace.Model(header, events, tail)
    s, e, where = win(model, events)
    s = max(s, model.t0)   # a window cannot begin before the trace: the title names what is drawn
    full = f"{title}, {irqtrace.window_text(e - s)} {where}"
    argv = [dump, "--svg", os.path.join(out_dir, base + ".svg"), "--title", full,
            f"--window={max(s - model.t0, 0) / 1e6:.6f}:{(e - model.t0) / 1e6:.6f}"]
    rc = irqtrace.main(argv)
    print("pictures: tools/trace/irqtrace.py " + " ".join(
        repr(a) if " " in a else os.path.relpath(a, ROOT) if os.path.exists(a) or a.endswith(".svg") else a
        for a in argv))
    return rc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "course", "pictures"))
    ap.add_argument("--icount", type=int, default=3)
    ap.add_argument("--redraw", action="store_true", help="draw again from the dumps beside the pictures")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.redraw:
        dumps = {base: open(os.path.join(args.out, base + ".dump")).read() for _, base, *_ in PICTURES}
    else:
        import scenarios  # noqa: E402 (boots QEMU: only when asked to)
        got, _ = scenarios.run_scenarios(sorted({p[0] for p in PICTURES}), icount=args.icount)
        dumps = {base: got[name] for name, base, *_ in PICTURES}
        for base, text in dumps.items():
            irqtrace.write_whole(os.path.join(args.out, base + ".dump"), text)
    for name, base, title, win in PICTURES:
        rc = draw(args.out, base, title, win, dumps[base])
        if rc:
            return rc
    # What the lessons say about the pictures (tools/course/pictureclaims.py): still true of the new ones?
    sys.path.insert(0, os.path.join(ROOT, "tools", "course"))
    import pictureclaims  # noqa: E402
    if os.path.abspath(args.out) == os.path.abspath(pictureclaims.PICTURES) and pictureclaims.main([]):
        print("pictures: drawn, but the lessons say what these pictures no longer show (above): fix the text "
              "and its claim: lines", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
