"""The course's pictures (docs/course/pictures/*.svg) as a reader's browser draws them.

Each SVG is rendered in headless Chromium (Debian's `chromium`, installed by tools/deps.sh); a
script in the page measures every text box as the browser laid it out and reports:
  - a text box that leaves the canvas (the SVG's viewBox),
  - two text boxes that overlap,
  - a label, the title or the footer over a mark (a bar of the timeline, a verdict, state or expect
    mark),
and the picture's own counts: every verdict and state change in it carries a label (none left to
the tooltips), and the window the footer names is the one the title names.
test_the_check_finds_broken_pictures breaks a real picture in each of these ways and sees each
reported, so the check is known to fail when a picture is broken.
"""
import glob
import json
import sys
import os
import re
import shutil
import subprocess
import tempfile

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PICTURES = sorted(glob.glob(os.path.join(ROOT, "docs", "course", "pictures", "*.svg")))
CHROMIUM = shutil.which("chromium")

MEASURE = r"""
(function () {
  function box(el) { var b = el.getBBox(); return {x: b.x, y: b.y, w: b.width, h: b.height}; }
  function overlap(a, b) {
    var w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
    var h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
    return w > 0.5 && h > 0.5;
  }
  var out = [];
  document.querySelectorAll('svg').forEach(function (svg) {
    var vb = svg.viewBox.baseVal, problems = [];
    var texts = [], marks = [];
    svg.querySelectorAll('text').forEach(function (t) {
      texts.push({el: t, b: box(t), s: t.textContent, cls: t.getAttribute('class') || ''});
    });
    svg.querySelectorAll('rect.slice, path.instant, circle.instant').forEach(function (m) { marks.push({b: box(m)}); });
    texts.forEach(function (t) {
      var b = t.b;
      if (b.x < -0.5 || b.y < -0.5 || b.x + b.w > vb.width + 0.5 || b.y + b.h > vb.height + 0.5)
        problems.push('outside the canvas: "' + t.s + '" at ' + [b.x, b.y, b.w, b.h].map(Math.round));
    });
    for (var i = 0; i < texts.length; i++)
      for (var j = i + 1; j < texts.length; j++)
        if (overlap(texts[i].b, texts[j].b))
          problems.push('texts overlap: "' + texts[i].s + '" and "' + texts[j].s + '"');
    texts.forEach(function (t) {
      // every text but the track names, the axis and the legend, which have places of their own
      if (t.el.closest('g.track, g.axis, g.legend')) return;
      for (var k = 0; k < marks.length; k++)
        if (overlap(t.b, marks[k].b)) { problems.push('over a mark: "' + t.s + '"'); break; }
    });
    var labelled = 0;
    svg.querySelectorAll('text.label').forEach(function (t) { labelled += +t.getAttribute('data-marks'); });
    var all = svg.querySelectorAll('text'), title = all[0], footer = all[all.length - 1];
    out.push({id: svg.parentNode.id, problems: problems, marks: +svg.getAttribute('data-marks'),
              labelled: labelled, left_out: +svg.getAttribute('data-labels-left-out'),
              title: title ? title.textContent : '', footer: footer ? footer.textContent : ''});
  });
  document.body.setAttribute('data-layout', JSON.stringify(out));
})();
"""


def chromium_layout(svgs):
    """{name: report} for @svgs ({name: svg text}), measured in one headless Chromium page."""
    tmp = tempfile.mkdtemp(prefix="irqkit-pictures-")
    try:
        page = os.path.join(tmp, "page.html")
        body = "".join(f'<div id="{n}">{t}</div>' for n, t in svgs.items())
        with open(page, "w") as f:
            f.write(f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>{body}"
                    f"<script>{MEASURE}</script></body></html>")
        r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                            "--disable-background-networking", "--disable-component-update", "--disable-sync",
                            f"--user-data-dir={os.path.join(tmp, 'profile')}", "--virtual-time-budget=5000",
                            "--dump-dom", "file://" + page], capture_output=True, text=True, timeout=180)
        m = re.search(r"data-layout=\"([^\"]*)\"", r.stdout)
        assert m, f"the page's script did not run: {r.stderr[-2000:]}"
        reports = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<")
                             .replace("&gt;", ">"))
        return {rep["id"]: rep for rep in reports}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


DURATION = r"(\d+(?:\.\d+)?) (ns|us|ms|s)\b"


def window_of(text):
    m = re.search(DURATION, text)
    return m and (float(m.group(1)), m.group(2))


def problems_of(rep):
    out = list(rep["problems"])
    if rep["left_out"] or rep["labelled"] != rep["marks"]:
        out.append(f"{rep['marks']} verdicts and state changes, {rep['labelled']} of them labelled")
    footer = re.search(r"window " + DURATION, rep["footer"])
    title = re.search(r", " + DURATION + r"[^,]*$", rep["title"])
    if not footer or not title or (footer.group(1), footer.group(2)) != (title.group(1), title.group(2)):
        out.append(f"the title's window ({rep['title']!r}) is not the footer's ({rep['footer']!r})")
    return out


needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed "
                                    "(tools/deps.sh installs it)")


@needs_chromium
def test_the_pictures_are_readable():
    assert PICTURES, "no pictures in docs/course/pictures"
    reps = chromium_layout({os.path.basename(p)[:-4]: open(p).read() for p in PICTURES})
    bad = {n: problems_of(r) for n, r in reps.items() if problems_of(r)}
    assert len(reps) == len(PICTURES)
    assert not bad, json.dumps(bad, indent=1)


@needs_chromium
def test_the_check_finds_broken_pictures():
    src = open(os.path.join(ROOT, "docs", "course", "pictures", "expect-ata-drop.svg")).read()
    labels = re.findall(r'<text class="label"[^>]*>[^<]*</text>', src)
    assert len(labels) >= 2
    width = float(re.search(r'viewBox="0 0 ([\d.]+)', src).group(1))
    # 1. a label pushed past the right edge
    out = src.replace(labels[0], re.sub(r' x="[\d.]+"', f' x="{width - 5}"', labels[0]), 1)
    # 2. a label put on top of another
    x, y = re.search(r' x="([\d.]+)" y="([\d.]+)"', labels[1]).groups()
    over = src.replace(labels[0], re.sub(r' x="[\d.]+" y="[\d.]+"', f' x="{x}" y="{y}"', labels[0]), 1)
    # 3. a label drawn over a bar
    bar = re.search(r'<rect class="slice [^"]*" data-count="\d+" x="([\d.]+)" y="([\d.]+)"', src).groups()
    on_bar = src.replace(labels[0], re.sub(r' x="[\d.]+" y="[\d.]+"', f' x="{bar[0]}" y="{float(bar[1]) + 10}"',
                                           labels[0]), 1)
    # 4. a state change without its label
    unlabelled = src.replace(labels[0], "", 1)
    # 5. a footer whose window is not the title's
    footer = re.sub(r"window [\d.]+ (?:ns|us|ms|s)", "window 983.119 ms", src)
    reps = chromium_layout({"edge": out, "over": over, "bar": on_bar, "unlabelled": unlabelled, "footer": footer})
    assert any("outside the canvas" in p for p in problems_of(reps["edge"])), reps["edge"]
    assert any("texts overlap" in p for p in problems_of(reps["over"])), reps["over"]
    assert any("over a mark" in p for p in problems_of(reps["bar"])), reps["bar"]
    assert any("labelled" in p for p in problems_of(reps["unlabelled"])), reps["unlabelled"]
    assert any("not the footer's" in p for p in problems_of(reps["footer"])), reps["footer"]


def test_arrows_end_on_the_track_of_the_cpu_that_ran_the_handler():
    """In a trace of two CPUs each arrow (an expect_irq to the run that ended it) ends on the track of
    the CPU whose run of the handlers called unexpect_irq(): the line's own track holds no runs."""
    sys.path.insert(0, os.path.join(ROOT, "tools", "trace"))
    import irqtrace
    dump = os.path.join(ROOT, "docs", "course", "pictures", "smp-race.dump")
    header, events, tail, _ = irqtrace.parse(open(dump).read(), dump)
    model = irqtrace.Model(header, events, tail)
    assert model.flows
    cpu_of = {}
    for e in events:
        if e.name == "action" and e.f["ret"] == "handled":
            cpu_of.setdefault((e.line, e.ts), e.cpu)
    for tok, exp, (track, ts), ue in model.flows:
        assert track == ("cpu", cpu_of[(exp.line, ts)]), (tok, track)


@needs_chromium
def test_the_html_page_of_a_two_cpu_trace_is_readable_before_zooming(tmp_path):
    """The whole smp-ata-race trace in the HTML page: its thousands of arrows wait for a zoom (none is
    shown at the first view), and the summary wraps instead of running off the page."""
    page = tmp_path / "smp.html"
    dump = os.path.join(ROOT, "docs", "course", "pictures", "smp-race.dump")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "trace", "irqtrace.py"), dump, "--html", str(page)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    profile = tmp_path / "profile"
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          "--disable-background-networking", "--disable-component-update", "--disable-sync",
                          f"--user-data-dir={profile}", "--window-size=1300,900", "--virtual-time-budget=5000",
                          "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=180).stdout
    flows = re.findall(r"<path class=\"flow\"[^>]*>", dom)
    assert len(flows) > 100, "the page should hold the arrows for a zoom"
    assert all('display="none"' in f for f in flows), "arrows shown at the whole-trace view"
    assert "white-space: pre-wrap" in dom


def test_what_the_pages_say_about_the_pictures_holds():
    """The counts and waits the lessons state about a picture (its `<!-- picture NAME` comment,
    tools/course/pictureclaims.py) hold for the events in the picture's window."""
    sys.path.insert(0, os.path.join(ROOT, "tools", "course"))
    import pictureclaims
    import transcripts
    pages = transcripts.course_pages()
    assert sum(len(pictureclaims.claims_of(p)) for p in pages) >= 1, "no picture claims in the course"
    bad = [r for p in pages for r in pictureclaims.check(p)]
    assert not bad, "\n".join(bad)
