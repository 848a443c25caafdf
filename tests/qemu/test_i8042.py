"""The PS/2 keyboard and mouse (drivers/input/i8042.c) end to end in QEMU.

QEMU's pc and q35 have an 8042 with a PS/2 keyboard (IRQ 1) and mouse (IRQ 12); QMP `send-key`
types on the keyboard (no usb-kbd here: it would take the keys) and `input-send-event` moves the
mouse. Characters must come out of the kernel console as the shell's echo, in order; mouse
packets must sum to the movement sent (the `mouse` command).

One boot per machine and interrupt mode (pc and q35, IOAPIC and `noapic`), each typing a burst
with shift and Ctrl, a held key that repeats, and moving the mouse, with a different fault each
(`inject` lists them): the handler leaving a byte in the controller (`i8042-stuck`,
`i8042-aux-stuck`, at run time or every Nth byte from boot) and the lines misrouted at the IOAPIC
or masked at the 8259 (`i8042-misroute`, `i8042-aux-misroute`). In every case typing goes on and
the kernel's health report names the line, the device and why. With `noirqdebug` the stuck
keyboard really dies (so the fault is real): the byte stays in the controller for good. The
legacy-free cases (q35's FADT says no 8042; pc without one) boot and say so.

Every boot runs under -icount (shift=3, sleep=off): QEMU's input queue releases send-key's keys
on the virtual clock, so a burst never outruns the guest and overflows the keyboard's 16-byte
buffer however loaded the host is, and the 3 s watch poll passes in less host time. Nothing here
judges a duration: waits have generous time-outs, and the held key's repeats are spaced by 0.35 s
of guest time (read on the ACPI PM timer; the decoder's floor is 200 ms) after each echo.
"""
import re
import time

import pytest

from irqkit_qemu import Guest, typed_echo
from test_usb_kbd import clear_line, keys_for, press, type_text, wait_echo

KBD_RX = (r"i8042: keyboard on IRQ 1 \((?:GSI|8259 input) 1, vector 0x[0-9a-f]+\): ID ab 83, set 2, typematic 500 "
          r"ms at 30.0/s, num lock on; watched \(watch_irq_keep\)")
AUX_RX = (r"i8042: mouse on IRQ 12 \((?:GSI|8259 input) 12, vector 0x[0-9a-f]+\): IntelliMouse \(ID 3\): 4-byte packets "
          r"with the wheel, 100 samples/s; watched")
REPORT = "irq {line}: \"{name}\": watch: a poll found work its interrupt should have delivered; polled"
REPEAT_GAP_S = 0.35        # guest time between a held key's make codes (decoder floor: 200 ms, then 20 ms)
# Guest time follows instructions (-icount shift=3,sleep=off): QEMU's input queue releases each key on the
# virtual clock, so a burst never outruns the guest and overflows the keyboard's 16-byte buffer
# however loaded the host is.
ICOUNT = 3
MOUSE_RX = re.compile(r"mouse: position x (-?\d+) y (-?\d+) \(y up\), wheel (-?\d+), buttons (\w+), (\d+) presses")


PM_HZ = 3579545             # the ACPI PM timer: 24 bits at 3.579545 MHz, on QEMU's virtual clock
PM_MASK = (1 << 24) - 1


def guest_sleep(g, seconds):
    """Wait until @seconds of guest time have passed, read on the ACPI PM timer through the
    monitor (HMP `i /w PORT`). Under -icount guest time is not host time: a loaded host runs the
    guest slower, an idle guest's clock jumps ahead (sleep=off). The timer wraps every 4.7 s;
    reads 10 ms of host time apart see much less than that of guest time (the 1 kHz tick keeps
    the idle clock's jumps at 1 ms each)."""
    hmp = lambda cmd: g.qmp_cmd("human-monitor-command", **{"command-line": cmd})
    if not hasattr(g, "pm_port"):
        m = re.search(r"([0-9a-f]+)-[0-9a-f]+ \(prio \d+, i/o\): acpi-tmr", hmp("info mtree"))
        assert m, "no ACPI PM timer in `info mtree`"
        g.pm_port = int(m.group(1), 16)
    read = lambda: int(re.search(r"= (0x[0-9a-f]+)", hmp(f"i /w {g.pm_port:#x}")).group(1), 16) & PM_MASK
    last, elapsed = read(), 0.0
    while elapsed < seconds:
        time.sleep(0.01)
        now = read()
        elapsed += ((now - last) & PM_MASK) / PM_HZ
        last = now


def key_event(qcode, down):
    return {"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": qcode}}}


def boot(machine, append=""):
    g = Guest(append=("debugexit " + append).strip(), machine=machine, icount=ICOUNT)
    g.wait_shell(90)
    return g


def shell(g, cmd):
    """A command typed on the serial line, after Ctrl-U clears whatever the keyboard left there."""
    g.send("\x15")
    time.sleep(0.1)
    return g.command(cmd)


def settle_keyboard(g, keys=4):
    """Keys one at a time, each after the previous one's echo. A lost interrupt stalls the
    keyboard until a watch poll (at most 3 s, then every 2 ms once the line is on polling), and
    what is typed during a stall beyond QEMU's 16-byte keyboard buffer is lost, as on hardware:
    so a burst comes only after this has met the first stall."""
    start = len(g.log)
    for i in range(keys):
        type_text(g, "x")
        wait_echo(g, "x" * (i + 1), start, 30)
    clear_line(g)
    wait_echo(g, "x" * keys + re.escape("\b \b") * keys, start, 30)


def settle_mouse(g, moves=2):
    """The mouse's first stall the same way: one small move at a time, each seen before the next."""
    for _ in range(moves):
        x0 = mouse_state(g)[0]
        g.qmp_cmd("input-send-event", events=[{"type": "rel", "data": {"axis": "x", "value": 1}}])
        deadline = time.monotonic() + 30
        while mouse_state(g)[0] != x0 + 1:
            assert time.monotonic() < deadline, shell(g, "mouse")
            time.sleep(0.3)


def type_burst(g, text="Hello World! quick fox 1234567890-=[];',./{}:\"<>?|~_+"):
    """Letters, digits and punctuation, shifted symbols and Ctrl-U, queued at once: in order."""
    start = len(g.log)
    type_text(g, text)
    wait_echo(g, re.escape(text), start)
    clear_line(g)
    wait_echo(g, re.escape(text + "\b \b" * len(text)), start, 30)


def ctrl_c_abandons_a_line(g):
    start = len(g.log)
    type_text(g, "halt")
    wait_echo(g, "halt", start, 30)
    press(g, [{"type": "qcode", "data": "ctrl"}, {"type": "qcode", "data": "c"}])
    wait_echo(g, re.escape("halt" + "\b \b" * 4 + "^C\n" + "irqkit> "), start, 30)
    assert g.proc.poll() is None, "the abandoned `halt` ran"


def held_key_repeats(g, repeats=3):
    """A held key as a PS/2 keyboard sends it: its make code again while held (typematic), no
    break between; each repeat gives the character again. input-send-event does not wait for
    send-key's queued releases (a Ctrl still held would make it Ctrl-Z): let them pass first."""
    time.sleep(0.3)
    start = len(g.log)
    g.qmp_cmd("input-send-event", events=[key_event("z", True)])
    wait_echo(g, "z", start, 30)
    for i in range(repeats):
        guest_sleep(g, REPEAT_GAP_S)
        g.qmp_cmd("input-send-event", events=[key_event("z", True)])
        wait_echo(g, "z" * (i + 2), start, 30)
    g.qmp_cmd("input-send-event", events=[key_event("z", False)])
    clear_line(g)
    wait_echo(g, "z" * (repeats + 1) + re.escape("\b \b") * (repeats + 1), start, 30)
    m = re.search(r"keys (\d+) down / (\d+) up, (\d+) repeats", shell(g, "i8042"))
    assert m and int(m.group(3)) >= repeats, m and m.group(0)


def typed_command_runs(g):
    start = len(g.log)
    type_text(g, "uptime\r")
    wait_echo(g, r"uptime\nup \d+\.\d{3} s, \d+ ticks at \d+ Hz.*\nirqkit> ", start, 30)


def mouse_state(g):
    m = MOUSE_RX.search(shell(g, "mouse"))
    assert m, g.log[-2000:]
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(5))


def wait_mouse(g, want, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        got = mouse_state(g)
        if got == want:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"mouse: {got} (x, y, wheel, presses), wanted {want}: {shell(g, 'mouse')}")
        time.sleep(0.3)


def mouse_moves_and_wheel_are_decoded(g):
    """Movement, wheel and a click through QEMU's PS/2 mouse (QEMU sends y down as negative PS/2 y,
    and -200 as two packets of at most 127): the packets must sum to what was sent. The click
    comes after the movement is in: QEMU reports only the buttons' state when its 16-byte queue
    has room, so a press and release made while a stalled queue is full are one state, no click."""
    x0, y0, z0, p0 = mouse_state(g)
    time.sleep(0.3)             # send-key's queued releases first (see held_key_repeats)
    g.qmp_cmd("input-send-event", events=[{"type": "rel", "data": {"axis": "x", "value": 10}},
                                          {"type": "rel", "data": {"axis": "y", "value": 5}}])
    g.qmp_cmd("input-send-event", events=[{"type": "rel", "data": {"axis": "x", "value": -3}},
                                          {"type": "rel", "data": {"axis": "y", "value": -200}}])
    for down in (True, False):
        g.qmp_cmd("input-send-event", events=[{"type": "btn", "data": {"down": down, "button": "wheel-up"}}])
    wait_mouse(g, (x0 + 7, y0 + 195, z0 - 1, p0))
    g.qmp_cmd("input-send-event", events=[{"type": "btn", "data": {"down": True, "button": "left"}}])
    deadline = time.monotonic() + 30
    while "buttons L," not in shell(g, "mouse"):
        assert time.monotonic() < deadline, shell(g, "mouse")
        time.sleep(0.3)
    g.qmp_cmd("input-send-event", events=[{"type": "btn", "data": {"down": False, "button": "left"}}])
    wait_mouse(g, (x0 + 7, y0 + 195, z0 - 1, p0 + 1))


def assert_reported(g, line, name):
    """The announcement names the line, the device's action and why; `irqs` counts the finds of
    its watch polls that no interrupt followed (the episode may be over by now: under -icount a
    60 s watch period passes in a few seconds of host time)."""
    g.wait_for(re.escape(REPORT.format(line=line, name=name)), 30)
    out = shell(g, "irqs")
    assert re.search(rf"line {line} {name}: .*watch \w+ \(finds by its polls: \d+ late, [1-9]\d* polled", out), out


# Machine, interrupt mode, boot faults, faults injected at run time after the first typing.
CASES = {
    "pc-ioapic": ("pc", "", ["i8042-stuck", "i8042-aux-stuck"]),
    "q35-ioapic": ("q35", "fault=i8042-misroute,i8042-aux-misroute", []),
    "pc-noapic": ("pc", "noapic", ["i8042-misroute", "i8042-aux-misroute"]),
    "q35-noapic": ("q35", "noapic fault=i8042-stuck:7", []),
}


@pytest.fixture(scope="module", params=list(CASES))
def ps2(request):
    machine, append, _ = CASES[request.param]
    g = boot(machine, append)
    try:
        g.wait_for(KBD_RX, 10)
        g.wait_for(AUX_RX, 10)
        mode = re.search(r"interrupt mode: (IO-APIC|8259 PIC)", "\n".join(g.lines()))
        assert mode and mode.group(1) == ("8259 PIC" if "noapic" in append else "IO-APIC"), g.log[-3000:]
        yield request.param, g
    finally:
        g.kill()


def test_keys_arrive_in_order_with_shift_ctrl_and_repeat(ps2):
    case, g = ps2
    settle_keyboard(g)
    type_burst(g)
    ctrl_c_abandons_a_line(g)
    held_key_repeats(g)
    typed_command_runs(g)


def test_mouse_packets_are_decoded(ps2):
    case, g = ps2
    settle_mouse(g)
    mouse_moves_and_wheel_are_decoded(g)


def test_faults_leave_typing_working_and_name_the_line(ps2):
    """The faults of the case: those given at boot have acted during the two tests above; those
    injected now act on the next keys and packets. Typing and the mouse go on; the health report
    names line 1 / 12, the device (the action) and why."""
    case, g = ps2
    machine, append, runtime = CASES[case]
    listed = shell(g, "inject")
    for f in re.findall(r"fault=([\w,:-]+)", append)[0].split(",") if "fault=" in append else runtime:
        assert re.search(rf"^\s*\S+\s+{f.split(':')[0]}\b", listed, re.M), f"{f} not listed by inject: {listed}"
    for f in runtime:
        out = shell(g, f"inject {f}")
        assert "error" not in out.lower(), out
    settle_keyboard(g, 3)
    settle_mouse(g)
    type_burst(g, "Typing goes on: 42!")
    typed_command_runs(g)
    mouse_moves_and_wheel_are_decoded(g)
    assert_reported(g, 1, "i8042-kbd")
    if "aux" in append + " ".join(runtime):
        assert_reported(g, 12, "i8042-aux")
    out = shell(g, "i8042")
    if "stuck" in append + " ".join(runtime):
        assert re.search(r"fault i8042-stuck: [1-9]\d* bytes left in the controller", out), out
    if "misroute" in append + " ".join(runtime):
        # every keyboard byte since came by polling: none by interrupt after the misroute
        m = re.search(r"action \"i8042-kbd\": (\d+) by interrupt, (\d+) by polling", out)
        assert m and int(m.group(2)) >= 20, out
        if "noapic" not in append:
            assert re.search(r"vectors nobody owns: [1-9]", shell(g, "irqs")), "misrouted interrupts arrive nowhere"


def test_without_defences_the_stuck_keyboard_dies():
    """noirqdebug: the one interrupt is taken, its byte left; the controller raises no new edge
    and nothing polls it: no key ever arrives, even after the fault is switched off."""
    g = boot("pc", "noirqdebug fault=i8042-stuck")
    try:
        start = len(g.log)
        type_text(g, "abc")
        guest_sleep(g, 4)   # longer than the slowest watch poll (3 s) a defence would have had
        assert not re.search("[abc]", typed_echo(g.log[start:])), typed_echo(g.log[start:])
        out = shell(g, "i8042")
        assert "full: a keyboard byte waits" in out, out
        assert re.search(r"action \"i8042-kbd\": 1 by interrupt, 0 by polling; watch off", out), out
        assert "fault i8042-stuck: 1 bytes left in the controller" in out, out
        assert "; 0 characters typed" in out, out
        shell(g, "inject off i8042-stuck")
        start = len(g.log)
        type_text(g, "d")
        guest_sleep(g, 1)
        assert "d" not in typed_echo(g.log[start:]), typed_echo(g.log[start:])
        assert "full: a keyboard byte waits" in shell(g, "i8042")
    finally:
        g.kill()


@pytest.mark.parametrize("machine,want", [
    ("q35,i8042=off", r"i8042: none: the ACPI FADT \(revision 3\) IAPC_BOOT_ARCH is 0x0000, without the 8042 flag: "
                      r"legacy-free, not probed"),
    ("pc,i8042=off", r"i8042: no controller: its status port reads 0xff: nothing answers at 0x60/0x64 "
                     r"\(FADT revision 1 says nothing\)"),
])
def test_a_machine_without_an_8042_boots_and_says_so(machine, want):
    g = boot(machine)
    try:
        assert re.search(want, g.log), g.log[-3000:]
        assert "no controller" in shell(g, "i8042")
        assert "mouse: none (no 8042 controller)" in shell(g, "mouse")
        assert "irq 1:" not in g.log and "i8042-kbd" not in shell(g, "irqs")
    finally:
        g.kill()
