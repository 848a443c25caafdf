"""The USB HID boot keyboard driver (drivers/usb/usb_kbd.c) end to end in QEMU.

QEMU's usb-kbd sits on root port 1 of the PIIX3 UHCI (`-usb`); keys are
pressed with QMP `send-key` (press, hold-time, release, in QEMU's ordered
input queue) and must come out of the kernel console as the shell's echo,
in order, and run a command typed on the keyboard. One boot per delivery
mode: healthy interrupts, and `fault=uhci-misroute` (the controller's PIRQ
pointed at another ISA IRQ at the chipset), where only polling finds the
reports. The per-key latencies printed here are host-observed (send-key to
the echo read on the serial port, wall clock); guest-time figures come
from `make bench` (tests/bench/usb_bench.py).
"""
import re
import time

import pytest

from irqkit_qemu import Guest, typed_echo

HOLD_MS = 20            # each key is held this long (two 10 ms polls of QEMU's usb-kbd)
KEY_TIMEOUT = 10        # s: a key that does not echo within this is lost
LATENCY_KEYS = "qwertyuiopasdfghjklzxcvbnm"
QCODE = {" ": "spc", "-": "minus", "=": "equal", ".": "dot", ",": "comma", "/": "slash",
         ";": "semicolon", "'": "apostrophe", "[": "bracket_left", "]": "bracket_right",
         "\\": "backslash", "`": "grave_accent", "\r": "ret"}
SHIFTED = {"!": "1", "@": "2", "#": "3", "$": "4", "%": "5", "^": "6", "&": "7", "*": "8",
           "(": "9", ")": "0", "_": "minus", "+": "equal", ":": "semicolon", "\"": "apostrophe",
           "<": "comma", ">": "dot", "?": "slash", "{": "bracket_left", "}": "bracket_right",
           "|": "backslash", "~": "grave_accent"}





def keys_for(ch):
    """QMP key list (qcodes) that types @ch on a US keyboard."""
    if ch.isalpha() and ch.isupper():
        names = ["shift", ch.lower()]
    elif ch in SHIFTED:
        names = ["shift", SHIFTED[ch]]
    elif ch in QCODE:
        names = [QCODE[ch]]
    else:
        names = [ch]
    return [{"type": "qcode", "data": n} for n in names]


def press(g, keys, hold_ms=HOLD_MS):
    g.qmp_cmd("send-key", keys=keys, **{"hold-time": hold_ms})


def type_text(g, text):
    for ch in text:
        press(g, keys_for(ch))


def clear_line(g):
    """Ctrl+U: the shell erases the line (echoes backspaces)."""
    press(g, [{"type": "qcode", "data": "ctrl"}, {"type": "qcode", "data": "u"}])


BOUND_RX = (r"usb-kbd0: boot keyboard on (\w+) port 1 \(interface 0, endpoint 0x81 every "
            r"(\d+) ms\), repeat after 500 ms at 30/s\n")


def echoed(g, start):
    """What the shell echoed since @start without the kernel's log lines, which may come
    while a line is typed (a `watch` report, say)."""
    return typed_echo(g.log[start:])


def wait_echo(g, pattern, start, timeout=60):
    """Wait until the echo since @start (log lines removed) matches @pattern; return the match."""
    rx = re.compile(pattern)
    deadline = time.monotonic() + timeout
    while True:
        m = rx.search(echoed(g, start))
        if m:
            return m
        if time.monotonic() > deadline:
            raise AssertionError(f"no /{pattern}/ in the echo after {timeout} s: {echoed(g, start)!r}")
        time.sleep(0.02)


ICOUNT_SHIFT = 3       # -icount shift=3,sleep=off: guest time from instructions (see boot())


def boot(fault):
    """Under -icount sleep=off: QEMU's input queue times send-key's hold on the virtual clock, so a
    held key is held for hold-time of guest time and its repeats are the kernel's alone, whatever
    the host's load (issue 28: without icount a busy host stretched or squeezed the hold)."""
    append = "debugexit" + (f" fault={fault}" if fault else "")
    g = Guest(append=append, extra=["-usb", "-device", "usb-kbd,port=1,id=kbd"], icount=ICOUNT_SHIFT)
    g.wait_shell(90)
    return g


@pytest.fixture(scope="module", params=["healthy", "uhci-misroute"])
def kbd(request):
    fault = None if request.param == "healthy" else request.param
    g = boot(fault)
    try:
        if fault and not re.search(rf"^\s*(?:on|off|ON)\s+{fault}\b", g.command("inject"), re.M):
            pytest.fail(f"fault {fault} is not listed by `inject`: it is part of this kernel")
        g.wait_for(BOUND_RX, 30)
        if fault:
            assert fault in g.log, g.log[-3000:]
        yield request.param, g
    finally:
        g.kill()


def test_the_keyboard_is_bound_with_boot_protocol_and_its_pipe(kbd):
    mode, g = kbd
    assert re.search(BOUND_RX, g.log), g.log[-4000:]
    assert "SET_PROTOCOL(boot) failed" not in g.log and "SET_IDLE failed" not in g.log


def test_a_burst_of_keys_arrives_in_order(kbd):
    mode, g = kbd
    text = "the quick brown fox jumps over a lazy dog 1234567890-=[];',./"
    start = len(g.log)
    # all queued at once: QEMU's input queue keeps the order, the driver must too
    for ch in text:
        press(g, keys_for(ch))
    wait_echo(g, re.escape(text), start)
    clear_line(g)
    wait_echo(g, re.escape(text + "\b \b" * len(text)), start, 30)


def test_shift_gives_upper_case_and_symbols(kbd):
    mode, g = kbd
    text = "Hello World!@#$%^&*()_+{}:\"<>?|~"
    start = len(g.log)
    type_text(g, text)
    wait_echo(g, re.escape(text), start)
    clear_line(g)
    wait_echo(g, re.escape(text + "\b \b" * len(text)), start, 30)


def test_a_command_typed_on_the_usb_keyboard_runs(kbd):
    mode, g = kbd
    start = len(g.log)
    type_text(g, "uptime\r")
    wait_echo(g, r"uptime\nup \d+\.\d{3} s, \d+ ticks at \d+ Hz.*\nirqkit> ", start, 30)


def test_ctrl_c_abandons_the_line(kbd):
    mode, g = kbd
    start = len(g.log)
    type_text(g, "halt")
    wait_echo(g, "halt", start, 30)
    press(g, [{"type": "qcode", "data": "ctrl"}, {"type": "qcode", "data": "c"}])
    wait_echo(g, re.escape("halt" + "\b \b" * 4 + "^C\n" + "irqkit> "), start, 30)
    assert g.proc.poll() is None, "the abandoned `halt` ran"


def test_a_held_key_repeats_after_the_delay_at_the_rate(kbd):
    mode, g = kbd
    hold_ms = 1500
    start = len(g.log)
    press(g, [{"type": "qcode", "data": "z"}], hold_ms)
    time.sleep(hold_ms / 1000 + 1.0)
    wait_echo(g, "z", start, 10)
    clear_line(g)
    m = wait_echo(g, r"(z+)(?:\x08 \x08)+", start, 30)
    n = len(m.group(1))
    # first 'z' at once, repeats from 500 ms every 33 ms until the release is seen; the
    # release may be seen late (a poll interval) with a misrouted interrupt
    late_ms = 0 if mode == "healthy" else 1000
    assert 1 + 3 <= n <= 1 + (hold_ms + late_ms - 500) // 33 + 2, n


def test_worst_key_latency(kbd, record_property):
    mode, g = kbd
    lat = []
    for ch in LATENCY_KEYS:
        start = len(g.log)
        t0 = time.monotonic()
        press(g, keys_for(ch))
        wait_echo(g, re.escape(ch), start, KEY_TIMEOUT)
        lat.append(time.monotonic() - t0)
        time.sleep(HOLD_MS / 1000 + 0.01)   # released before the next key, so it is not queued behind
    start = len(g.log)
    clear_line(g)
    wait_echo(g, re.escape("\b \b" * len(LATENCY_KEYS)), start, 30)
    lat.sort()
    median, worst = lat[len(lat) // 2], lat[-1]
    record_property("median_ms", round(median * 1000, 1))
    record_property("worst_ms", round(worst * 1000, 1))
    print(f"\nusb-kbd {mode}: {len(lat)} keys, host-observed send-key to echo: "
          f"median {median * 1000:.1f} ms, worst {worst * 1000:.1f} ms")
    assert worst < KEY_TIMEOUT


def irq11(g):
    """Line 11's `irqs` row (the UHCI's GSI on pc) and the IRQ health lines that name it."""
    out = g.command("irqs")
    row = next((r.split() for r in out.split("\n") if r.split()[:1] == ["11"]), None)
    assert row, out
    health = [l for l in out.split("\n") if l.strip().startswith("line 11")]
    return {"delivered": int(row[1]), "polled": int(row[5]), "actions": " ".join(row[9:])}, health


def test_keys_came_by_interrupt_when_healthy_and_by_polling_when_misrouted(kbd):
    """Runs after the typing tests: says which path delivered the reports above."""
    mode, g = kbd
    row, health = irq11(g)
    assert "uhci0" in row["actions"], row
    if mode == "healthy":
        assert row["delivered"] > 0, (row, health)
    else:
        assert row["delivered"] == 0 and row["polled"] > 0, (row, health)
        assert any("ON POLLING" in l and "uhci0" in l for l in health), health


def test_unplugged_keyboard_stops_and_a_new_one_types_again(kbd):
    """Last of the module: QMP device_del ends the pipe (disconnect logs the counters),
    device_add binds a new keyboard that types."""
    mode, g = kbd
    start = len(g.log)
    type_text(g, "x")
    wait_echo(g, "x", start, 30)
    clear_line(g)
    wait_echo(g, "x\b \b", start, 30)
    start = len(g.log)
    g.qmp_cmd("device_del", id="kbd")
    m = g.wait_for(r"usb-kbd0: disconnected \((\d+) characters, (\d+) repeats, (\d+) reports, "
                   r"(\d+) failed, (\d+) rollover\)", 30, start)
    assert int(m.group(1)) >= 2 and int(m.group(3)) >= 4, m.group(0)   # x and Ctrl-U, down and up
    start = len(g.log)
    g.qmp_cmd("device_add", driver="usb-kbd", port="1", id="kbd2")
    g.wait_for(r"usb-kbd0: boot keyboard on \w+ port 1 .*\n", 30, start)
    type_text(g, "uptime\r")
    wait_echo(g, r"uptime\nup \d+\.\d{3} s", start, 30)
