"""Every shell session shown in the course (docs/course/) and in the pages it sends students to
(docs/*.md) is re-run on the kernel of this tree and must still have its shape.

The sessions are marked in the pages (tools/course/transcripts.py says how); they are played once
for the whole module (boots that pages share are booted once; COURSE_JOBS boots at a time, 2 in
make course-test), then judged
page by page on that one play: a boot that differs fails, showing the page's line and the
kernel's (Player.judge; a boot is never played again to get a match). When a page
fails, it no longer shows what the kernel prints, or the kernel's output depends on the host
(a defect to find: docs/course/README.md, "Numbers and a busy host"): fix the kernel, or
run `make course-transcripts`, read the diff, and fix the page's text where it says something the
new output no longer shows.
"""
import os
import re
import sys
import threading
import types

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "course"))
import transcripts  # noqa: E402

PAGES = [p for p in transcripts.all_pages() if transcripts.read_sessions(p)[1]]


@pytest.fixture(scope="module")
def played():
    _, sessions = transcripts.load(PAGES)
    said = []
    player = transcripts.Player(sessions, log=said.append)
    player.run(jobs=int(os.environ.get("COURSE_JOBS", "1")))
    bad = player.judge()
    return sessions, bad


@pytest.mark.parametrize("page", PAGES, ids=[os.path.relpath(p, ROOT) for p in PAGES])
def test_page_has_the_kernels_shape(page, played):
    sessions, bad = played
    reports = [r for (p, _), reps in sorted(bad.items()) if p == page for r in reps]
    assert not reports, "\n\n".join(reports)


def test_once_keeps_only_the_first_line_it_finds():
    """`once CMD: REGEX` (exercise 1's trace of the serial line): however many unclaimed runs the
    host's pace gives, the block keeps the first; without it a second one changes the shape."""
    dump = ["@T 0 0 1 irq_entry 4 flow=edge", "@T 2 0 3 action 4 idx=0 ret=handled run=irq",
            "@T 5 0 6 irq_entry 4 flow=edge", "@T 6 0 7 action 4 idx=0 ret=none run=irq",
            "@T 17 0 8 irq_entry 4 flow=edge", "@T 18 0 9 action 4 idx=0 ret=none run=irq",
            "@T 19 0 10 irq_exit 4 flow=edge"]
    show, once = re.compile(r"^@T [0-3] |ret=none"), re.compile("ret=none")
    assert transcripts.filtered(dump, show, None, once) == [dump[0], dump[1], "...", dump[3], "..."]
    assert transcripts.filtered(dump, show) == [dump[0], dump[1], "...", dump[3], "...", dump[5], "..."]


HELD_KEY_PAGE = """# A key held 300 ms

<!-- session
show trace dump: ^@T \\d+ \\d+ \\d+ drv 1 
claim: drv 1 name=i8042_byte kind=mark value=28
claim: drv 1 name=i8042_byte kind=mark value=240
-->
```console
$ make run
irqkit> trace start 1
(qemu) sendkey a 300
irqkit> apic
irqkit> trace stop
irqkit> trace dump
```
"""


def test_a_key_is_let_go_before_the_next_command(tmp_path):
    """Lesson 1 (fresh40, a loaded host): QEMU lets a `sendkey` go from a timer of its main loop
    (10 ms of the host's clock without -icount); the command the key began, typed ahead with the
    next ones, ran before the release, and `trace stop` came before the break code. Here the key is
    held 300 ms, so without the tool's wait for the release (Boot.await_release) the break code
    comes after `trace stop` on any host; with it, the trace holds it. The wait itself leaves the
    console alone."""
    page = tmp_path / "held.md"
    page.write_text(HELD_KEY_PAGE)
    _, sessions = transcripts.load([str(page)])
    player = transcripts.Player(sessions, log=lambda *_: None)
    player.run(jobs=1)
    got = player.results[(str(page), 0)]
    assert not transcripts.claims_broken(sessions[0], got), "\n".join(got)
    # The wait reads QEMU's counts through QMP: the console shows the page's one monitor command and
    # nothing of the tool's (fresh46: a monitor visit for `info irq` landed in the middle of the
    # report ex8-watch's key set off, and the page's line came out cut in two).
    (ev,) = player.evidence.values()
    console = transcripts.ANSI_RX.sub("", ev["log"])
    assert "info irq" not in console and console.count(transcripts.MONITOR) == 2, console


class ScriptedBoot(transcripts.Boot):
    """A Boot without QEMU: each send() appends the next reply to the console, as the kernel would
    answer what was typed."""

    def __init__(self, replies):
        self.buf, self.lock, self.replies = "", threading.Condition(), list(replies)
        self.keyed, self.ahead, self.pos = "", [], 0
        self.name = self.where = "scripted"
        self.cmd = "make run"
        self.proc = types.SimpleNamespace(poll=lambda: None)
        self.reader = types.SimpleNamespace(is_alive=lambda: True)

    def send(self, data):
        self.buf += self.replies.pop(0)


def test_a_message_before_the_enter_does_not_end_the_command():
    """A message after `inject x` was echoed and before the shell read its Enter: the prompt after
    it is the line shown again, and the command's output (a log line) comes after that
    (kernel/printk.c input_hide / input_show). The next command typed ahead tells the two apart;
    taking the first prompt for the end gives the message as the output."""
    msg = "[    1.000000] irq 11: something\n"
    injected = "[    1.000100] fault: INJECTED x\n"
    b = ScriptedBoot(["inject x\n" + msg + "irqkit> inject x\n" + injected + "irqkit> irqs\nIRQ table\nirqkit> "])
    between, out = b.type("inject x", 5, ahead=["irqs"])
    assert (between, out) == (msg, injected)
    assert b.type("irqs", 5, sent=True) == ("", "IRQ table\n")
    # The command's own output is a log line and nothing came before its Enter.
    b = ScriptedBoot(["inject x\n" + injected + "irqkit> irqs\nIRQ table\nirqkit> "])
    assert b.type("inject x", 5, ahead=["irqs"]) == ("", injected)
    assert b.type("irqs", 5, sent=True) == ("", "IRQ table\n")
