"""Host tests of tools/trace/irqtrace.py (docs/trace.md): real dumps from a boot
(tests/trace/fixtures/, made by tools/trace/scenarios.py) become JSON that passes the
trace-event format check; every kind of bad input is refused with a message naming the line,
no traceback and no output file; the HTML page really draws in a headless browser.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "..", "..", "tools", "trace", "irqtrace.py")
sys.path.insert(0, os.path.dirname(TOOL))
import irqtrace  # noqa: E402

FIX = os.path.join(HERE, "fixtures")
ATA = os.path.join(FIX, "ata-drop-100.log")
FLOOD = os.path.join(FIX, "spurious-flood.log")


def tool(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, timeout=120)


def read(path):
    with open(path) as f:
        return f.read()


# -- a good dump ----------------------------------------------------------------------------
@pytest.mark.parametrize("fixture", [ATA, FLOOD])
def test_a_real_dump_becomes_json_that_passes_the_trace_event_format_check(tmp_path, fixture):
    out = tmp_path / "t.json"
    r = tool(fixture, "--json", str(out))
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert irqtrace.check_chrome(doc) == []
    evs = doc["traceEvents"]
    names = {e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
    assert "CPU 0" in names and "line 14" in names          # a track per CPU and per line
    begins = [e for e in evs if e["ph"] == "B"]
    assert begins and all(k in e for e in begins for k in ("name", "cat", "ts", "pid", "tid"))
    assert [e for e in evs if e["ph"] == "i" and e["cat"] == "verdict"]   # instants for verdicts
    starts = {e["id"] for e in evs if e["ph"] == "s"}
    ends = {e["id"] for e in evs if e["ph"] == "f"}
    assert starts and starts == ends                         # flow arrows expect -> completion


def test_the_flow_arrows_end_in_the_poll_that_found_the_completion():
    header, events, tail, _ = irqtrace.parse(read(ATA), "ata")
    model = irqtrace.Model(header, events, tail)
    assert model.flows
    for tok, exp, (track, ts), ue in model.flows:
        assert ue.f["by"] == "poll" and track == ("line", 14) and ts > exp.ts


def test_the_format_check_finds_what_is_wrong():
    ok = {"name": "x", "ph": "B", "ts": 1.0, "pid": 1, "tid": 1}
    assert irqtrace.check_chrome({"traceEvents": [ok, dict(ok, ph="E", ts=2.0)]}) == []
    assert irqtrace.check_chrome({"traceEvents": [ok]})                              # B without E
    assert irqtrace.check_chrome({"traceEvents": [dict(ok, ph="E")]})                # E without B
    assert irqtrace.check_chrome({"traceEvents": [ok, dict(ok, ph="E", ts=0.5)]})   # time goes back
    assert irqtrace.check_chrome({"traceEvents": [{"ph": "B", "ts": 1, "pid": 1, "tid": 1}]})  # no name
    assert irqtrace.check_chrome({"traceEvents": [ok, dict(ok, name="y", ph="E", ts=2.0)]})    # crossed
    assert irqtrace.check_chrome({})


def test_the_summary_counts_the_scenario():
    r = tool(ATA, "--summary")
    assert r.returncode == 0, r.stderr
    assert re.search(r"line 14: 0 interrupts .*4 polls \(4 found work\).*verdicts lost 3", r.stdout), r.stdout


# -- bad inputs ---------------------------------------------------------------------------------
def lines_of(path):
    return read(path).split("\n")


def first_event_line(lines):
    return next(i for i, l in enumerate(lines) if l.startswith("@T "))


def mutate(kind):
    """(text, the 1-based line number the message must name, words it must say)."""
    lines = lines_of(ATA)
    ev = first_event_line(lines)
    end = next(i for i, l in enumerate(lines) if l.startswith("@irqkit-trace-end"))
    head = next(i for i, l in enumerate(lines) if l.startswith("@irqkit-trace v"))
    if kind == "empty":
        return "", None, "empty input"
    if kind == "blank":
        return "\n\n  \n", None, "empty input"
    if kind == "no-dump":
        return "irqkit> help\nsome log line\n", None, "no trace dump"
    if kind == "truncated":              # the end line never came
        return "\n".join(lines[:end]) + "\n", end, "truncated"
    if kind == "cut-mid-line":           # the log stops inside an event line
        text = "\n".join(lines[:ev + 5]) + "\n" + lines[ev + 5][:12]
        return text, ev + 6, "malformed event line"
    if kind == "missing-line":           # one event line lost on the way
        return "\n".join(lines[:ev + 3] + lines[ev + 4:]), ev + 4, "where #3 was due"
    if kind == "corrupted-digit":        # a digit changed: only the hash can tell
        bad = lines[:]
        bad[ev + 2] = re.sub(r"(@T \d+ \d+ \d+)(\d) ", lambda m: m.group(1) + str((int(m.group(2)) + 1) % 10) + " ",
                             bad[ev + 2], count=1)
        assert bad[ev + 2] != lines[ev + 2]
        return "\n".join(bad), end + 1, "corrupted"
    if kind == "garbled":                # another message written into the middle of a line
        bad = lines[:]
        bad[ev + 2] = bad[ev + 2][:20] + "irq 14: something" + bad[ev + 2][20:]
        return "\n".join(bad), ev + 3, "malformed event line"
    if kind == "unknown-event":
        bad = lines[:]
        bad[ev] = re.sub(r" (drv|expect|poll_start|chip) ", " frobnicate ", bad[ev], count=1)
        return "\n".join(bad), ev + 1, "unknown event"
    if kind == "other-version":
        bad = lines[:]
        bad[head] = bad[head].replace("@irqkit-trace v1", "@irqkit-trace v9")
        return "\n".join(bad), head + 1, "format v9"
    if kind == "no-header":
        return "\n".join(lines[:head] + lines[head + 1:]), ev, "header"
    if kind == "count-mismatch":
        bad = lines[:]
        bad[end] = re.sub(r"events=\d+", "events=999", bad[end])
        return "\n".join(bad), end + 1, "counts 999 events"
    raise ValueError(kind)


BAD = ["empty", "blank", "no-dump", "truncated", "cut-mid-line", "missing-line", "corrupted-digit", "garbled",
       "unknown-event", "other-version", "no-header", "count-mismatch"]


@pytest.mark.parametrize("kind", BAD)
def test_a_bad_dump_is_refused_naming_the_line_without_traceback_or_output(tmp_path, kind):
    text, line, words = mutate(kind)
    src = tmp_path / "in.log"
    src.write_text(text)
    outs = [tmp_path / "o.json", tmp_path / "o.html", tmp_path / "o.svg"]
    r = tool(str(src), "--json", str(outs[0]), "--html", str(outs[1]), "--svg", str(outs[2]), "--summary")
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert r.stderr.startswith("irqtrace: ") and r.stderr.count("\n") == 1, r.stderr
    assert words in r.stderr, r.stderr
    if line is not None:
        assert f"{src}:{line}:" in r.stderr, r.stderr
    assert not any(p.exists() for p in outs), "output written for a bad input"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".irqtrace-")]


def test_an_output_already_there_is_not_touched_when_the_input_is_bad(tmp_path):
    out = tmp_path / "o.json"
    out.write_text("old")
    src = tmp_path / "in.log"
    src.write_text(mutate("truncated")[0])
    assert tool(str(src), "--json", str(out)).returncode == 2
    assert out.read_text() == "old"


def test_a_missing_input_file_is_a_clear_error(tmp_path):
    r = tool(str(tmp_path / "nope.log"))
    assert r.returncode == 2 and "No such file" in r.stderr and "Traceback" not in r.stderr


# -- the HTML page in a real browser -----------------------------------------------------------------
CHROMIUM = shutil.which("chromium")


def chromium(*args):
    profile = tempfile.mkdtemp(prefix="irqkit-chromium-")
    try:
        return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                               "--disable-background-networking", "--disable-component-update", "--disable-sync",
                               f"--user-data-dir={profile}", *args], capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def png_pixels(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB/RGBA, non-interlaced PNG (chromium's)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, rows, prev, stride = zlib.decompress(idat), [], bytearray(w * bpp), w * bpp
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows


@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (tools/deps.sh installs it)")
def test_the_html_page_draws_its_tracks_in_a_headless_browser(tmp_path):
    page = tmp_path / "flood.html"
    r = tool(FLOOD, "--html", str(page))
    assert r.returncode == 0, r.stderr
    # 1. The page's own script ran and found what the SVG drew (file://, no network).
    dom = chromium("--virtual-time-budget=5000", "--dump-dom", page.as_uri()).stdout
    m = re.search(r'data-drawn="(\d+) tracks, (\d+) slices, slices box (\d+)x(\d+)"', dom)
    assert m, dom[:2000]
    tracks, slices, bw, bh = map(int, m.groups())
    assert tracks >= 3 and slices > 100 and bw > 100 and bh > 20, m.group(0)
    for name in ("CPU 0", "line 14", "line 14: expecting", "line 14: driver"):
        assert f'data-track="{name}"' in dom, name
    assert dom.count('class="line-row"') >= 1          # the per-line table the script builds
    # 2. Pixels: the screenshot shows the bars in the colours of the legend.
    shot = tmp_path / "shot.png"
    chromium("--window-size=1300,900", "--virtual-time-budget=5000", f"--screenshot={shot}", page.as_uri())
    w, h, rows = png_pixels(str(shot))
    counts = {}
    for row in rows:
        for px in row:
            counts[px] = counts.get(px, 0) + 1
    rgb = lambda c: tuple(int(c[i:i + 2], 16) for i in (1, 3, 5))
    near = lambda c: sum(n for px, n in counts.items() if max(abs(px[i] - rgb(c)[i]) for i in range(3)) <= 40)
    assert near(irqtrace.COLORS["unclaimed"]) > 200, "no unclaimed-interrupt bars on the screen"
    assert near(irqtrace.COLORS["drv"]) > 200, "no driver command bar on the screen"


# -- what the model finds in a dump -----------------------------------------------------------------
def make_dump(events, dropped=0):
    """A well-formed v1 dump of @events ("CPU TS NAME LINE FIELDS"), numbered and hashed as the kernel does."""
    lines, h = [], irqtrace.FNV_OFFSET
    for n, e in enumerate(events):
        text = f"@T {n} {e}"
        h = irqtrace.fnv1a(h, text)
        lines.append(text)
    head = f"@irqkit-trace v1 cpus=2 ring=16 slots={len(events)} dropped={dropped} clock=ns"
    end = f"@irqkit-trace-end v1 events={len(events)} dropped={dropped} unwritten=0 hash={h:08x}"
    return "\n".join([head] + lines + [end]) + "\n"


def test_time_going_back_on_a_cpu_is_reported_and_other_cpus_are_independent():
    text = make_dump(["0 100 irq_entry 4 flow=edge", "0 150 irq_exit 4 flow=edge",
                      "1 50 irq_entry 5 flow=edge", "1 60 irq_exit 5 flow=edge",   # CPU 1: its own clock order
                      "0 120 irq_entry 4 flow=edge", "0 130 irq_exit 4 flow=edge"])  # CPU 0 goes back
    model = irqtrace.Model(*irqtrace.parse(text)[:3])
    assert [(cpu, e.seq) for cpu, e, prev in model.order_errors] == [(0, 4)]
    assert "ORDER: 1 event(s) older" in irqtrace.summary(model, 0)


def test_a_run_whose_end_was_dropped_is_closed_at_the_end_of_the_trace(tmp_path):
    text = make_dump(["0 100 irq_entry 4 flow=edge", "0 110 action 4 idx=0 ret=none run=irq"], dropped=3)
    src = tmp_path / "full.log"
    src.write_text(text)
    out = tmp_path / "o.json"
    r = tool(str(src), "--json", str(out), "--summary")
    assert r.returncode == 0, r.stderr
    assert "3 dropped" in r.stdout and "the ring was full" in r.stdout
    doc = json.loads(out.read_text())
    assert irqtrace.check_chrome(doc) == []
    assert doc["otherData"]["unclosed_slices"] == 1


# -- where the time of polled completions goes (--polled) -------------------------------------
def _ev(seq, ts_us, name, **f):
    return irqtrace.Event(seq, 0, int(ts_us * 1000), name, 14, {k: str(v) for k, v in f.items()}, seq)


def test_the_polled_breakdown_cuts_each_cycle_into_its_parts():
    """Two cycles written by hand: after the first finding poll (ends at 100 us) the timer is
    armed at 103 us for 10 us, fires 4 us late (117), finds nothing until 120; armed at 121 for
    5 us, fires 2 us late (128), finds the completion, ends at 178. The second cycle: armed at
    180 for 20 us, on time, found, ends at 250."""
    evs, seq = [], 0
    def add(ts, name, **f):
        nonlocal seq
        evs.append(_ev(seq, ts, name, **f))
        seq += 1
    add(50, "poll_start", why="expect"); add(60, "unexpect", token="1", by="poll"); add(100, "poll_end", result="handled")
    add(103, "poll_arm", in_us=10); add(117, "poll_start", why="expect"); add(120, "poll_end", result="none")
    add(121, "poll_arm", in_us=5); add(128, "poll_start", why="expect"); add(130, "unexpect", token="1", by="poll")
    add(178, "poll_end", result="handled")
    add(180, "poll_arm", in_us=20); add(200, "poll_start", why="expect"); add(201, "unexpect", token="1", by="poll")
    add(250, "poll_end", result="handled")
    out = irqtrace.polled_breakdown(evs, 14)
    assert out[0].startswith("line 14: 2 completions found by polling") and "(1 polls found nothing)" in out[0]
    rows = {}
    for line in out[1:]:
        m = re.match(r"\s*([\d.]+) /\s*([\d.]+)  (.*)$", line)
        assert m, line
        rows[m.group(3)] = (float(m.group(1)), float(m.group(2)))
    def mean(prefix):
        return next(v[0] for k, v in rows.items() if k.startswith(prefix))
    assert mean("the whole cycle") == pytest.approx((78 + 72) / 2)
    assert mean("the finding poll's run") == pytest.approx((50 + 50) / 2)
    assert mean("after a poll") == pytest.approx((3 + 1 + 2) / 2)
    assert mean("the delay the timer") == pytest.approx((15 + 20) / 2)
    assert mean("the timer's lateness") == pytest.approx((6 + 0) / 2)
    assert mean("runs of polls that found nothing") == pytest.approx((3 + 0) / 2)


def test_the_polled_breakdown_of_a_real_lost_ata_dump_adds_up_and_says_when_there_is_nothing():
    r = tool(ATA, "--polled", "14")
    assert r.returncode == 0, r.stderr
    head, *rows = r.stdout.strip().splitlines()
    assert re.match(r"line 14: \d+ completions found by polling", head), r.stdout
    means = [float(row.split()[0]) for row in rows]
    cycle, parts = means[0], means[1:]
    assert cycle > 0 and sum(parts) == pytest.approx(cycle, rel=0.02)
    r = tool(FLOOD, "--polled", "3")
    assert r.returncode == 0 and "nothing to break down" in r.stdout, r.stdout


# -- format v2: the verdicts of a stalled CPU (issue 28) ---------------------------------------
def dump_of(version, events):
    """A whole dump of @events (event lines without their `@T SEQ`), as the kernel writes it."""
    lines, h = [], irqtrace.FNV_OFFSET
    for seq, ev in enumerate(events):
        text = f"@T {seq} {ev}"
        h = irqtrace.fnv1a(h, text)
        lines.append(text)
    return "\n".join([f"@irqkit-trace v{version} cpus=8 ring=16384 slots={len(events)} dropped=0 clock=ns"] + lines +
                     [f"@irqkit-trace-end v{version} events={len(events)} dropped=0 unwritten=0 hash={h:08x}"]) + "\n"


STALLED = ["0 1000 expect 14 token=001ed020", "0 2000 poll_start 14 why=expect", "0 2100 unexpect 14 token=001ed020 by=poll",
           "0 2200 poll_end 14 result=handled", "0 9000 verdict 14 kind=stalled token=001ed020",
           "0 9500 verdict 11 kind=watch_stalled count=2"]


def test_a_v2_dump_with_the_stalled_verdicts_is_read_and_counted(tmp_path):
    src = tmp_path / "in.log"
    src.write_text(dump_of(2, STALLED))
    header, events, tail, _ = irqtrace.parse(src.read_text(), str(src))
    kinds = [(e.name, e.f.get("kind"), e.f.get("count")) for e in events if e.name == "verdict"]
    assert kinds == [("verdict", "stalled", None), ("verdict", "watch_stalled", "2")]
    r = tool(str(src), "--summary")
    assert r.returncode == 0 and "stalled" in r.stdout, (r.stdout, r.stderr)


def test_a_v1_dump_may_not_hold_a_v2_verdict():
    with pytest.raises(irqtrace.TraceError, match="not a value format v1 knows"):
        irqtrace.parse(dump_of(1, STALLED), "v1.log")
    irqtrace.parse(dump_of(1, STALLED[:4]), "v1.log")   # without them, v1 is read as before
