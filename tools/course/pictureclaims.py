#!/usr/bin/env python3
"""pictureclaims.py - what the course's text says about its pictures, checked against their dumps.

A page says what a picture shows in an HTML comment before it:

    <!-- picture expect-ata-drop
    claim: 4 expects: 0 by interrupt, 4 by poll, 0 timed out
    wait 1: 300..500 us
    -->
    ![...](pictures/expect-ata-drop.svg)

`claim: TEMPLATE` must be held by a line of the summary (tools/trace/irqtrace.py --summary) of the
events inside the picture's window (the SVG's data-t0/data-t1), with `#` for any number and
`#{LO..HI}` for one within bounds, as in tools/course/transcripts.py. `wait N: LO..HI us` bounds
the N-th wait in the window from an expect_irq() to the unexpect_irq() that ended it. So when
`make trace-pictures` draws a picture from a fresh trace that no longer shows what the text says,
pictures.py and tests/course/test_pictures.py say which sentence is wrong.

    pictureclaims.py [PAGE ...]     check (default: the course's pages); exit 1 on a broken claim
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "trace"))
sys.path.insert(0, HERE)
import irqtrace  # noqa: E402
import transcripts  # noqa: E402

PICTURES = os.path.join(ROOT, "docs", "course", "pictures")
COMMENT_RX = re.compile(r"<!--\s*picture ([\w-]+)\s*\n(.*?)-->", re.S)


def claims_of(page):
    """[(picture, [claim lines], line number)] of @page."""
    text = open(page).read()
    return [(m.group(1), [l.strip() for l in m.group(2).strip().split("\n") if l.strip()],
             text.count("\n", 0, m.start()) + 1) for m in COMMENT_RX.finditer(text)]


def window_model(name):
    """The model of the events drawn in picture @name (its SVG's window), and the summary text."""
    svg = open(os.path.join(PICTURES, name + ".svg")).read()
    t0, t1 = (int(v) for v in re.search(r'data-t0="(\d+)" data-t1="(\d+)"', svg).groups())
    dump = os.path.join(PICTURES, name + ".dump")
    header, events, tail, skipped = irqtrace.parse(open(dump).read(), dump)
    inside = [e for e in events if t0 <= e.ts <= t1]
    model = irqtrace.Model(header, inside, tail)
    return model, irqtrace.summary(model, skipped)


def waits(model):
    """The waits from expect_irq to the unexpect_irq that ended it, in ns, in order."""
    return [e - s for t, name, cat, s, e, args in model.slices if t[0] == "exp"]


def check(page):
    """RETURNS the reports of @page's broken picture claims."""
    out = []
    where = os.path.relpath(page, ROOT)
    for name, lines, line in claims_of(page):
        if not os.path.exists(os.path.join(PICTURES, name + ".svg")):
            out.append(f"{where}:{line}: no picture {name}")
            continue
        model, summ = window_model(name)
        for c in lines:
            m = re.fullmatch(r"claim: (.*)", c)
            w = re.fullmatch(r"wait (\d+): ([\d.]+)\.\.([\d.]+) us", c)
            if m:
                rx, groups = transcripts.template_rx(m.group(1))
                ok = any(all(k != "num" or b is None or transcripts.within(v, b) for v, (k, b) in zip(mm.groups(), groups))
                         for l in summ.split("\n") for mm in rx.finditer(l))
                if not ok:
                    out.append(f"{where}:{line}: {name}: the text claims `{m.group(1)}`; the picture's window "
                               f"shows:\n{summ}")
            elif w:
                n, lo, hi = int(w.group(1)), float(w.group(2)), float(w.group(3))
                ws = waits(model)
                if len(ws) < n:
                    out.append(f"{where}:{line}: {name}: wait {n} claimed, the window holds {len(ws)} waits")
                elif not lo <= ws[n - 1] / 1000 <= hi:
                    out.append(f"{where}:{line}: {name}: wait {n} is {ws[n - 1] / 1000:.0f} us, the text says "
                               f"{lo:g}..{hi:g} us")
            else:
                out.append(f"{where}:{line}: {name}: not a claim: {c!r}")
    return out


def main(argv):
    pages = argv or transcripts.course_pages()
    bad = [r for p in pages for r in check(p)]
    for r in bad:
        print(f"pictureclaims: {r}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
