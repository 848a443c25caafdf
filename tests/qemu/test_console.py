"""The console while a person types: a kernel message that comes in the middle of a line starts a
line of its own, and the prompt with what was typed so far is shown again after it
(kernel/printk.c, printk_input_*). The message here is a real NMI from QEMU (QMP inject-nmi),
reported by the NMI handler while the shell waits for the rest of the line.

Before this, the message's timestamp landed in the middle of the echo ("irqkit> blk writ[ 0.147]
irq 35: ...") and a test waiting for the echoed command never saw it whole (CI, stop 25).

Whole lines: a line half built by one context (a shell table's row, built of several cprintf
calls) is not cut by another context's message - an interrupt or exception on the same CPU,
another CPU - on the serial console and on the framebuffer console (the last tests here).
"""
import re
import threading
import types

import pytest

from irqkit_qemu import EXIT_PASS, PROMPT, STAMP_RX, Guest, have_ovmf, typed_echo

STAMP_MID_LINE = re.compile(r"[^\n]\[\s*\d+\.\d{6}\] ")


def test_a_message_while_typing_gets_its_own_line_and_the_typed_line_is_shown_again(guest_factory):
    g = guest_factory()
    g.wait_shell()
    start = g.log.rfind(PROMPT)               # the prompt the shell waits at
    g.send("uptimexx\b")                      # typed so far: "uptimex" (one character erased)
    g.wait_for(re.escape(PROMPT + "uptimexx\b \b"), 10, start)
    g.qmp_cmd("inject-nmi")
    m = g.wait_for(r"resuming after non-maskable interrupt[^\n]*\n", 10, start)
    g.wait_for(re.escape(PROMPT + "uptimex"), 10, m.end())
    g.send("\b\r")
    g.wait_for(r"up \d+\.\d{3} s, \d+ ticks", 10, start)
    g.wait_for(re.escape(PROMPT), 10, start)
    raw = g.log[start:]
    # Every message starts its line: none follows the echo on the same line.
    assert not STAMP_MID_LINE.search(raw), repr(raw)
    # The line as shown before the NMI, the report on lines of its own, the line shown again.
    assert re.search(r"^irqkit> uptimexx\x08 \x08\n(\[\s*\d+\.\d{6}\] [^\n]*\n)+irqkit> uptimex\x08 \x08\n", raw), repr(raw)
    # With the log lines and the repeat taken out the echo reads as typed, and the command ran.
    echo = typed_echo(raw)
    assert re.search(r"^irqkit> uptimexx\x08 \x08\x08 \x08\nup \d+\.\d{3} s", echo), repr(echo)
    assert re.search(r"up \d+\.\d+ s", g.command("uptime"))


def test_a_message_at_an_empty_prompt_is_followed_by_the_prompt(guest_factory):
    g = guest_factory()
    g.wait_shell()
    start = g.log.rfind(PROMPT) + len(PROMPT)
    g.qmp_cmd("inject-nmi")
    m = g.wait_for(r"resuming after non-maskable interrupt[^\n]*\n", 10, start)
    g.wait_for(re.escape(PROMPT), 10, m.end())
    raw = g.log[start:]
    assert not STAMP_MID_LINE.search(raw), repr(raw)
    assert raw.startswith("\n["), repr(raw)
    assert typed_echo(g.log[start - len(PROMPT):]) == PROMPT, repr(g.log[start - len(PROMPT):])


def test_typed_echo_takes_out_messages_and_the_repeated_line():
    """The host-side helper the keyboard tests use, on output shaped like the kernel's."""
    msg = "[    1.000000] irq 11: something\n"
    assert typed_echo("irqkit> upt\n" + msg + "irqkit> uptime\nup 1 s\nirqkit> ") == \
        "irqkit> uptime\nup 1 s\nirqkit> "
    assert typed_echo("irqkit> ab\b \b\n" + msg + msg + "irqkit> ac\n") == "irqkit> ab\b \bc\n"
    # A message between a command's output and the next prompt is not a repeat.
    assert typed_echo("irqkit> x\nout\n" + msg + "irqkit> y\n") == "irqkit> x\nout\nirqkit> y\n"
    assert typed_echo("irqkit> \n" + msg + "irqkit> ") == "irqkit> "


class ScriptedShell(Guest):
    """A Guest without QEMU for the host-side test of Guest.command: each send() appends the next
    reply to the serial output, as the kernel would answer what was typed."""

    def __init__(self, replies):
        self.buf, self.cond, self.replies, self.sent = "", threading.Condition(), list(replies), []
        self.proc = types.SimpleNamespace(poll=lambda: None)

    def send(self, text):
        assert self.replies, f"typed {text!r} with no reply scripted"
        self.sent.append(text)
        self.buf += self.replies.pop(0)


def test_a_command_is_not_ended_by_a_message_before_its_enter():
    """Guest.command on output shaped like the kernel's: a message after the echo and before the
    Enter is followed by the line shown again, whose prompt does not end the command (CI, stop 38)."""
    msg = "[   60.084102] irq 12: \"i8042-aux\": 36 of 72 deliveries came by polling\n"
    out = "mouse: position x 18 y 390 (y up)\n"
    # The line shown again came with the message.
    g = ScriptedShell(["irqkit> mouse\n" + msg + "irqkit> mouse\n" + out + "irqkit> "])
    assert g.command("mouse") == out
    # Only the message had come: the probe's echo comes after the command's real end.
    g = ScriptedShell(["irqkit> mouse\n" + msg + "irqkit> mo", "use\n" + out + "irqkit>  \b \b"])
    assert g.command("mouse") == out
    assert g.sent == ["mouse\r", " \x15"]
    # A command whose output is a log line and nothing more: the probe's echo follows its prompt.
    g = ScriptedShell(["inject x\n" + msg + "irqkit> ", " \b \b"])
    assert g.command("inject x") == STAMP_RX.sub("", msg)
    # Plain output: nothing more is typed.
    g = ScriptedShell(["uptime\nup 1.000 s\nirqkit> "])
    assert g.command("uptime") == "up 1.000 s\n"
    assert g.sent == ["uptime\r"]


# Whole lines per context (kernel/printk.c): the console selftests (arch/x86/console_selftest.c) half
# build a line with cprintf, let an interrupt on this CPU, a breakpoint exception on this CPU and
# another CPU's interrupt handler print, and finish the line; and write a line longer than the line
# buffer. The kernel only checks that the other context printed; whether each line came out whole
# is judged here, from the serial console and (UEFI, framebuffer console) the screen.
WHOLE_LINES = [
    "console-selftest: task line begins, and ends after the interrupt",
    "console-selftest: task line before a breakpoint, and after it",
    "console-selftest: CPU 0's line begins, and ends after CPU 1 printed",
]
LONG_LINE = "console-selftest: long line: " + "0123456789" * 100 + " end"
PIECE_MARK = "\\"
LINE_BUFFER = 384          # PRINTK_CTX_LINE


def check_whole_lines(log):
    lines = [l.rstrip("\r") for l in log.split("\n")]
    for want in WHOLE_LINES:
        assert want in lines, f"no whole line {want!r}:\n" + "\n".join(l for l in lines if "console-selftest" in l)
    for cpu in (0, 1):
        assert re.search(rf"^\[\s*\d+\.\d{{6}}\] console-selftest: a message from an interrupt on CPU {cpu}$",
                         log, re.M), log[-3000:]
    assert lines.count("console-selftest: an interrupt's line, in two pieces") == 2, log[-3000:]
    # The long line: pieces, each but the last ending in the mark, that read the line when joined.
    i = next(i for i, l in enumerate(lines) if l.startswith("console-selftest: long line: "))
    pieces = [lines[i]]
    while pieces[-1].endswith(PIECE_MARK):
        i += 1
        pieces.append(lines[i])
    assert len(pieces) == -(-len(LONG_LINE) // LINE_BUFFER), pieces
    assert all(len(p) <= LINE_BUFFER + len(PIECE_MARK) for p in pieces), [len(p) for p in pieces]
    assert "".join(p[:-1] for p in pieces[:-1]) + pieces[-1] == LONG_LINE, pieces
    # No message starts in the middle of a line anywhere in the boot.
    assert not STAMP_MID_LINE.search(log), STAMP_MID_LINE.search(log)


def test_a_line_in_progress_is_not_cut_by_an_interrupt_an_exception_or_another_cpu(guest_factory):
    g = guest_factory(append="selftest=console debugexit", extra=["-smp", "2"], icount=4)
    assert g.wait_exit(120) == EXIT_PASS, g.log[-3000:]
    check_whole_lines(g.log)


@pytest.mark.skipif(not have_ovmf("uefi"), reason="OVMF not installed (tools/deps.sh installs ovmf)")
def test_the_framebuffer_console_shows_the_same_whole_lines(guest_factory, tmp_path):
    from test_uefi import check_screen
    g = guest_factory(firmware="uefi", machine="q35", append="selftest=console", extra=["-smp", "2"],
                      boot_timeout=180)
    g.wait_shell()
    check_whole_lines(g.log)
    check_screen(g, tmp_path)
