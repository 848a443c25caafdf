"""The console while a person types: a kernel message that comes in the middle of a line starts a
line of its own, and the prompt with what was typed so far is shown again after it
(kernel/printk.c, printk_input_*). The message here is a real NMI from QEMU (QMP inject-nmi),
reported by the NMI handler while the shell waits for the rest of the line.

Before this, the message's timestamp landed in the middle of the echo ("irqkit> blk writ[ 0.147]
irq 35: ...") and a test waiting for the echoed command never saw it whole (CI, stop 25).
"""
import re

from irqkit_qemu import PROMPT, typed_echo

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
