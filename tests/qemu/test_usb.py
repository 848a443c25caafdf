"""The UHCI driver and USB core (drivers/usb) on QEMU: enumeration of a
usb-kbd and a usb-storage, what lsusb reports, IRQ watching of the
controller's shared line with healthy interrupts and with the interrupt
really misrouted at the chipset (PIIX3 PIRQD, ICH9 PIRQ via D29IR),
hot-unplug in the middle of control transfers and re-plug.

One boot per scenario. The class drivers (keyboard input, storage data) are
tested in test_usb_kbd.py / test_usb_storage.py.
"""
import os
import re
import tempfile
import time

import pytest

from irqkit_qemu import GuestTimeout

TS = r"\[\s*(\d+\.\d+)\] "
KBD = ["-usb", "-device", "usb-kbd,port=1,id=kbd"]
# A boot mouse no class driver binds: lsusb -p runs its interrupt pipe (the keyboard's is usb-kbd's).
MOUSE = ["-device", "usb-mouse,port=2,id=mouse"]


@pytest.fixture(scope="module")
def disk_image():
    fd, path = tempfile.mkstemp(prefix="irqkit-usb-", suffix=".img")
    os.ftruncate(fd, 1 << 20)
    os.close(fd)
    yield path
    os.unlink(path)


def enumerated(g, port, vidpid, product, timeout=20):
    return g.wait_for(TS + r"usb: uhci0 port %d: full-speed device %s '%s' address (\d+), config 1, "
                      r"1 interface \(enumerated in (\d+) ms\)" % (port, vidpid, re.escape(product)), timeout)


def watch_line(lsusb_out):
    m = re.search(r'irq (\d+) action "uhci0": watch (\w+)(.*), completions by polling (\d+)', lsusb_out)
    assert m, lsusb_out
    return int(m.group(1)), m.group(2), m.group(3), int(m.group(4))


def line_delivered(irqs_out, line):
    m = re.search(r"^\s*%d\s+(\d+)\s+(\d+)" % line, irqs_out, re.M)
    assert m, irqs_out
    return int(m.group(1))


def pirq_value(routes_out, pirq):
    m = re.search(r"PIRQ%s \(0x[0-9a-f]+\) = (0x[0-9a-f]+)" % pirq, routes_out)
    assert m, routes_out
    return int(m.group(1), 16)


def interrupt_pipe_reports(g, address, clicks):
    """lsusb -p: an interrupt-IN pipe on the mouse's endpoint; each click is a press and a release report."""
    start = len(g.log)
    g.send("lsusb -p %s %d\r" % (address, 2 * clicks))
    g.wait_for(r"waiting for %d reports" % (2 * clicks), 5, start)
    for _ in range(clicks):
        for down in (True, False):
            # back to back: QEMU's HID pointer queues each event (16 deep) and the pipe takes one
            # per poll. A pause of host time between them is seconds of guest time under
            # -icount sleep=off (an idle guest's clock jumps from timer to timer): 0.1 s
            # here came out 4.2 s apart and the kernel's 10 s wait for the reports ran out
            g.qmp_cmd("input-send-event", events=[{"type": "btn", "data": {"down": down, "button": "left"}}])
    # host seconds: polled reports of a misrouted controller came 4.7 s apart on a host with
    # load 8 (5 Dec 2026), which made 15 s fail 2 runs of 3; what is judged is the reports
    m = g.wait_for(r"lsusb: (\d+) reports(.*)\n", 60, start)
    assert int(m.group(1)) == 2 * clicks and m.group(2) == "", g.log[start:]
    return [r.split()[0] for r in re.findall(r"report \d+ at \d+ ms: ((?:[0-9a-f]{2} ?)+)", g.log[start:])]


def test_healthy_enumeration_lsusb_and_watch_ends(guest_factory, disk_image):
    # -icount with sleep=off: the 60 s watch period passes in idle guest time quickly.
    g = guest_factory(icount=4, extra=KBD + ["-device", "usb-storage,drive=d0,port=2",
                                              "-drive", f"if=none,id=d0,file={disk_image},format=raw"])
    g.wait_shell()
    assert re.search(r"uhci0: 00:01\.2 8086:7020 UHCI at I/O 0x[0-9a-f]+, GSI 11, 2 root ports", g.log)
    kbd = enumerated(g, 1, "0627:0001", "QEMU USB Keyboard")
    sto = enumerated(g, 2, "46f4:0001", "QEMU USB HARDDRIVE")
    assert kbd.group(2) != sto.group(2)                       # distinct addresses
    assert "enumeration attempt" not in g.log

    out = g.command("lsusb")
    assert re.search(r"port 1: PORTSC 0x[0-9a-f]+ connected, enabled", out)
    assert re.search(r"port 2: PORTSC 0x[0-9a-f]+ connected, enabled", out)
    assert "manufacturer 'QEMU' product 'QEMU USB Keyboard'" in out
    assert "product 'QEMU USB HARDDRIVE'" in out
    assert re.search(r"interface 0: class 03/01/01 \(HID\), driver usb-kbd", out)
    assert re.search(r"interface 0: class 08/06/50 \(mass storage\), driver usb-storage", out)
    assert "endpoint 0x81 IN interrupt, 8 bytes" in out
    assert "endpoint 0x02 OUT bulk, 64 bytes" in out
    assert "2 devices" in out
    line, state, _, polled = watch_line(out)
    assert line == 11 and state in ("watching", "off")
    irqs = g.command("irqs")
    assert re.search(r"^\s*11 .*uhci0\(\d+\)", irqs, re.M)
    assert line_delivered(irqs, 11) > 0

    # The watch period (60 s of the default profile) ends with healthy interrupts.
    deadline = time.monotonic() + 150   # host seconds; a loaded host runs the guest slower
    while True:
        out = g.command("lsusb")
        line, state, causes, polled = watch_line(out)
        if state == "off":
            break
        assert state == "watching", out
        if time.monotonic() > deadline:
            raise GuestTimeout("watching of uhci0 did not end: " + out)
        time.sleep(1)
    up = float(re.search(r"up (\d+\.\d+) s", g.command("uptime")).group(1))
    assert up >= 60
    assert causes == ""
    health = g.command("irqs")
    assert not re.search(r"line 11.*ON POLLING", health)
    assert "watch-found-lost" not in g.log
    # A watch poll may take work whose interrupt (at the next 1 ms frame) is on its way; that
    # interrupt then arrives unclaimed and the find counts as delivered by interrupt (late).
    # (the health section lists the action only when its polls found something)
    finds = re.search(r"line 11 uhci0: watch off \(finds by its polls: (\d+) late, (\d+) polled", health)
    late, by_poll = (int(finds.group(1)), int(finds.group(2))) if finds else (0, 0)
    assert by_poll == 0 and polled == late, health
    end = re.search(r'irq 11: "uhci0": watch ended after (\d+) s: (\d+) of (\d+) deliveries by interrupt'
                    r'(?: \((\d+) late[^)]*\))?: (healthy|too few to judge)', g.log)
    assert end and int(end.group(1)) >= 60 and end.group(2) == end.group(3), g.log[-3000:]
    assert int(end.group(4) or 0) == polled, end.group(0)


def test_misroute_is_found_by_watching_and_polling_keeps_usb_working(guest_factory):
    # Under -icount the guest timestamps are guest time that does not depend on the host's load.
    g = guest_factory(append="fault=uhci-misroute", extra=KBD + MOUSE, icount=4)
    g.wait_shell()
    inj = g.wait_for(TS + r"uhci0: uhci-misroute: PIRQD \(register 0x63, .*\) now drives ISA IRQ (\d+) "
                     r"\(no handler, masked\); tables still say line 11", 5)
    assert int(inj.group(2)) not in (9, 10, 11, 14, 15)
    assert "PIIX3 PIRQD (0x63) 0x0b -> 0x%02x" % int(inj.group(2)) in g.log
    found = g.wait_for(TS + r'irq 11: "uhci0": watch: a poll found work its interrupt should have delivered', 10)
    # Watching finds it at its first poll (watch_interval_ns, 500 ms after watch_irq in uhci_init).
    assert float(found.group(1)) - float(inj.group(1)) < 3.0
    enumerated(g, 1, "0627:0001", "QEMU USB Keyboard")
    mouse = enumerated(g, 2, "0627:0001", "QEMU USB Mouse")

    out = g.command("lsusb")
    line, state, causes, polled = watch_line(out)
    assert line == 11 and state in ("polled", "bad") and "watch-found-lost" in causes and polled > 0
    health = g.command("irqs")
    assert re.search(r"line 11: ON POLLING \(watch-found-lost\)", health)
    assert re.search(r"line 11 uhci0: ON POLLING: watch-found-lost", health)
    before = line_delivered(health, 11)
    assert pirq_value(g.command("routes"), "D") == int(inj.group(2))
    # Control transfers complete by polling; not one interrupt reaches line 11.
    assert re.search(r"lsusb: 30 rounds read in \d+ ms", g.command("lsusb -r 30"))
    assert line_delivered(g.command("irqs"), 11) == before
    # The interrupt pipe is re-armed with the right toggle by polled completions too.
    assert interrupt_pipe_reports(g, mouse.group(2), 2) == ["01", "00", "01", "00"]   # left button

    # At the end of the watch period (60 s of guest time) the verdict is "bad, polled for good".
    deadline = time.monotonic() + 150   # host seconds; a loaded host runs the guest slower
    while watch_line(g.command("lsusb"))[1] != "bad":
        if time.monotonic() > deadline:
            raise GuestTimeout("uhci0 was not judged bad")
        time.sleep(1)
    m = re.search(r'irq 11: "uhci0": (\d+) of (\d+) deliveries came by polling: bad, polled for good', g.log)
    assert m and int(m.group(1)) * 10 > int(m.group(2)), g.log[-3000:]

    # Disabling the route entirely (bit 7): still working by polling.
    g.command("inject off uhci-misroute")
    assert pirq_value(g.command("routes"), "D") == 0x0B
    g.command("inject uhci-noroute")
    assert pirq_value(g.command("routes"), "D") == 0x80
    assert re.search(r"lsusb: 10 rounds read", g.command("lsusb -r 10"))
    g.command("inject off uhci-noroute")
    assert pirq_value(g.command("routes"), "D") == 0x0B


def test_timeouts_without_defences_then_recovery(guest_factory):
    # noirqdebug: nobody polls the handler, so a misrouted controller's transfers time out. They are
    # taken off the schedule safely: once the route is back, a new device enumerates normally.
    g = guest_factory(append="noirqdebug fault=uhci-misroute", extra=KBD)
    g.wait_shell()
    g.wait_for(r"uhci0: control transfer to device 0 endpoint 0 timed out \(8 bytes moved, every TD had "
               r"completed: its interrupt was lost\); no defences \(noirqdebug\) to check IRQ 11", 10)
    g.wait_for(r"usb: uhci0 port 1: enumeration attempt 3 of 3 failed at GET_DESCRIPTOR\(device, 8\) "
               r"at address 0: ETIMEDOUT", 15)
    g.wait_for(r"usb: uhci0 port 1: device not usable \(ETIMEDOUT", 5)
    out = g.command("lsusb")
    assert "0 devices" in out and re.search(r"time-outs [1-9]", out)
    g.command("inject off uhci-misroute")
    g.qmp_cmd("device_add", driver="usb-kbd", port="2", id="kbd2")
    m = enumerated(g, 2, "0627:0001", "QEMU USB Keyboard", 10)
    assert re.search(r"lsusb: 10 rounds read", g.command("lsusb -r 10"))
    assert int(m.group(2)) >= 1


def test_pic_mode_misroute_found_by_watching(guest_factory):
    # noapic: lines are ISA IRQs; the misrouted interrupt goes to 8259 input 5, which is masked.
    g = guest_factory(append="noapic fault=uhci-misroute", extra=KBD)
    g.wait_shell()
    g.wait_for(r"uhci0: 00:01\.2 8086:7020 UHCI at I/O 0x[0-9a-f]+, IRQ 11", 5)
    g.wait_for(r"uhci-misroute: PIRQD \(register 0x63, .*\) now drives ISA IRQ 5", 5)
    g.wait_for(r'irq 11: "uhci0": watch: a poll found work its interrupt should have delivered', 10)
    enumerated(g, 1, "0627:0001", "QEMU USB Keyboard")
    assert re.search(r"lsusb: 10 rounds read", g.command("lsusb -r 10"))


def test_q35_ich9_misroute_found_by_watching(guest_factory):
    g = guest_factory(machine="q35", append="fault=uhci-misroute",
                      extra=["-device", "ich9-usb-uhci1,addr=1d.0,id=u1", "-device", "usb-kbd,bus=u1.0,port=1"])
    g.wait_shell()
    m = g.wait_for(r"uhci0: uhci-misroute: PIRQ([A-H]) \(register (0x6[0-9a-b]), from ICH9 D29IR\) now drives "
                   r"ISA IRQ (\d+)", 5)
    g.wait_for(r'irq 10: "uhci0": watch: a poll found work its interrupt should have delivered', 10)
    enumerated(g, 1, "0627:0001", "QEMU USB Keyboard")
    assert re.search(r"lsusb: 10 rounds read", g.command("lsusb -r 10"))
    assert pirq_value(g.command("routes"), m.group(1)) == int(m.group(3))
    # noroute on ICH9 only removes the ISA path (the interrupt still reaches GSI 16 + PIRQ, unused).
    g.command("inject off uhci-misroute")
    assert pirq_value(g.command("routes"), m.group(1)) == 0x0A
    g.command("inject uhci-noroute")
    assert pirq_value(g.command("routes"), m.group(1)) == 0x80
    assert re.search(r"lsusb: 10 rounds read", g.command("lsusb -r 10"))


def test_unplug_mid_transfer_fails_cleanly_and_replug_enumerates(guest_factory):
    g = guest_factory(extra=KBD + MOUSE)
    g.wait_shell()
    first = enumerated(g, 1, "0627:0001", "QEMU USB Keyboard")
    mouse = enumerated(g, 2, "0627:0001", "QEMU USB Mouse")
    time.sleep(0.5)
    assert interrupt_pipe_reports(g, mouse.group(2), 3) == ["01", "00"] * 3
    # A STALL is EPIPE (QEMU stalls descriptor types it does not know), and ep0 works on after it;
    # a short packet in the data stage ends it with what came (18 of 64 bytes) and a STATUS stage.
    assert "GET_DESCRIPTOR(66, 0): EPIPE" in g.command("lsusb -g %s 66 0 8" % mouse.group(2))
    out = g.command("lsusb -g %s 1 0 64" % mouse.group(2))
    assert re.search(r"GET_DESCRIPTOR\(1, 0\): 18 of 64 bytes:\n  12 01 00 02 00 00 00 08 27 06 01 00", out)
    start = len(g.log)
    g.send("lsusb -r 100000\r")             # a loop of control transfers, still running ...
    g.wait_for(r"lsusb -r 100000\n", 5, start)
    time.sleep(0.5)
    g.qmp_cmd("device_del", id="kbd")       # ... when the device goes
    m = g.wait_for(r"lsusb: round (\d+): device %s \(uhci0 port 1\): ENODEV after (\d+) good rounds"
                   % first.group(2), 5, start)
    assert int(m.group(2)) > 0
    g.wait_for(r"irqkit> ", 5, m.end())
    g.wait_for(r"usb: uhci0 port 1: device 0627:0001 at address %s disconnected" % first.group(2), 5, start)
    out = g.command("lsusb")
    assert "1 device" in out and re.search(r"port 1: PORTSC 0x[0-9a-f]+ empty", out)
    assert re.search(r"cut by unplug [1-9]", out) or "ENODEV" in g.log

    g.qmp_cmd("device_add", driver="usb-kbd", port="1", id="kbd2")
    again = g.wait_for(TS + r"usb: uhci0 port 1: full-speed device 0627:0001 'QEMU USB Keyboard' address (\d+)",
                       10, start)
    assert again.group(2) not in (first.group(2), mouse.group(2))
    out = g.command("lsusb")
    assert "2 devices" in out and "QEMU USB Keyboard" in out
    assert re.search(r"lsusb: 5 rounds read", g.command("lsusb -r 5"))
