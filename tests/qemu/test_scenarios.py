"""Storm and misrouting scenarios end to end (docs/reference.md "Scenarios"; docs/storms.md).

Each test is one named scenario, booted once. The faults really break the
hardware path (drivers/net/e1000_storm.c writes the NIC's IMS/ICS,
arch/x86/lapic_flood.c sends self-IPIs, arch/x86/ioapic_misroute.c and
drivers/ata/ata_fault.c reprogram the IOAPIC); what the kernel did is read
from its log and from `irqs`, and every data check is done here on the host
against the image file (diskimg.py), never by the kernel grading itself.

Bounds come from docs/defences.md (irqkit profile): a flood of unclaimed
interrupts is judged in segments of at most 100 interrupts and contained within
200 interrupts, and within 10 ms of guest time when it comes at 20,000 a second
or faster (issue 19); a re-enable test comes after the back-off (100 ms
doubling to at most 10 s).
"""
import re
import time

import pytest

import diskimg
from irqkit_qemu import EXIT_HALT
from shellwait import UPTIME_RX, run, type_on_usb_keyboard

SECTOR = diskimg.SECTOR
DISK_BYTES = 4 << 20
TRIP_RX = re.compile(r"irq (\d+): (\d+) of (\d+) interrupts unclaimed in (\d+) ms")
CRC_RX = re.compile(r"crc32 (\w+) (\d+)\+(\d+) = ([0-9a-f]{8}) ")
TIMECHECK_RX = re.compile(r"timecheck: (\d+) ticks in (\d+) us of TSC time \(hz=(\d+)")
SEGMENT_MAX_INTERRUPTS = 100     # docs/defences.md: a judged segment holds at most 100 interrupts ...
SEGMENT_MAX_MS = 50              # ... and lasts at most 50 ms (it may start before the flood)
FLOOD_MAX_MS = 10                # a flood of 20,000/s or more is off within 10 ms of guest time
# printk's time stamp (seconds of guest time under icount), at a line's start or right after the
# shell's prompt: a message that comes while the shell waits for input follows "irqkit> "
STAMP_RX = r"^(?:irqkit> )?\[\s*(\d+\.\d+)\] "
ICOUNT_SHIFT = 3                 # -icount shift=3,sleep=off: 8 ns of guest time per instruction
BACKOFF_MAX_S = 10               # spr_backoff_max_ns of the irqkit profile
STICK_BYTES = 1 << 20            # the USB stick of storm-shared
E1000 = ["-device", "e1000,addr=03.0"]   # 00:03.0 INTA -> PIRQC -> IRQ 11 (QEMU-FACTS.md)
MODES = {"ioapic": "debugexit", "noapic": "debugexit noapic"}


def disk(tmp_path, seed=8):
    path = str(tmp_path / "disk.img")
    diskimg.make_random_image(path, DISK_BYTES, seed)
    return path, ["-drive", f"file={path},format=raw,if=ide,index=0"]


def boot(guest_factory, append, extra, icount=None):
    # -nodefaults: no empty CD drive on the secondary channel and no default NIC; what is
    # attached is what the scenario names. icount: the bounds are guest time, and the
    # flood's rate must not depend on the host's load.
    g = guest_factory(append=append, extra=["-nodefaults"] + extra, icount=icount)
    g.wait_shell(60)
    return g


def irqs_row(out, line):
    for row in out.split("\n"):
        f = row.split()
        if len(f) >= 9 and f[0] == str(line):
            return {"delivered": int(f[1]), "handled": int(f[2]), "unhandled": int(f[3]),
                    "polled": int(f[5]), "rest": " ".join(f[9:])}
    return None


def health_of(out, line):
    """The `irqs` health line of @line ("line N: ON POLLING (...)"), or None."""
    m = re.search(rf"^  line {line}: ON POLLING \(([^)]*)\)(.*)$", out, re.M)
    return (m.group(1), m.group(2)) if m else None


def timecheck_ok(g, ms=300):
    out = run(g, f"timecheck {ms}", timeout=30)
    m = TIMECHECK_RX.search(out)
    assert m, out
    ticks, us, hz = int(m.group(1)), int(m.group(2)), int(m.group(3))
    expected = us * hz / 1e6
    assert abs(ticks - expected) <= expected * 0.05 + 2, out   # the tick keeps time
    return ticks


def wait_back_on_interrupts(g, line, timeout=BACKOFF_MAX_S + 5):
    """Poll `irqs` until @line is enabled and no longer on polling for a storm (the log's
    re-enable and "flood over" lines are rate-limited when episodes repeat). RETURNS `irqs`."""
    deadline = time.monotonic() + timeout
    while True:
        out = run(g, "irqs")
        row, h = irqs_row(out, line), health_of(out, line)
        if row and "disabled" not in row["rest"] and not (h and "storm" in h[0]):
            return out
        assert time.monotonic() < deadline, f"line {line} not back on interrupts:\n{out}"
        time.sleep(0.2)


def usb_works(g, stick):
    """A command typed on the USB keyboard (QMP send-key) runs, and the USB stick reads back
    the image the host wrote."""
    type_on_usb_keyboard(g, "uptime\r", UPTIME_RX)
    assert kernel_crc(g, f"blk crc usba 0 {STICK_BYTES // SECTOR}", 120) == diskimg.crc_of(stick)


def kernel_crc(g, cmd, timeout=60):
    out = run(g, cmd, timeout=timeout)
    m = CRC_RX.search(out)
    assert m, out
    return int(m.group(4), 16)


def line_has_handler(g, line):
    row = irqs_row(g.command("irqs"), line)
    return row is not None and row["rest"] != ""


# -- the e1000 storm -----------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
def test_e1000_storm_on_a_line_nobody_requested_is_invisible_and_harmless(guest_factory, mode):
    """Scenario `storm-unrequested`: without -usb nothing requests IRQ 11; kernel/irq keeps a line
    without actions masked, so the held-asserted INTA reaches no CPU. Under -icount: `timecheck`
    judges the tick against the TSC, and without icount a host that stops QEMU loses ticks."""
    g = boot(guest_factory, MODES[mode], E1000, icount=ICOUNT_SHIFT)
    assert ("interrupt mode: IO-APIC" in g.log) == (mode == "ioapic"), "wrong interrupt mode"
    before = irqs_row(g.command("irqs"), 11)
    out = g.command("inject e1000-storm")
    assert "INJECTED e1000-storm" in out, out
    assert "INTA held asserted (PCI status INTx set)" in out, out     # the device does assert it
    assert "line 11 has no handler" in out, out
    timecheck_ok(g)
    after = irqs_row(g.command("irqs"), 11)
    assert (before or {"delivered": 0})["delivered"] == (after or {"delivered": 0})["delivered"], (before, after)
    out = g.command("inject off e1000-storm")
    assert "ICR read 0x2 (cleared); INTx released" in out, out


@pytest.mark.parametrize("mode", MODES)
def test_e1000_storm_on_the_shared_usb_line_is_contained_and_the_line_comes_back(guest_factory, tmp_path,
                                                                                 mode):
    """Scenario `storm-shared`: the 2010 mail's case. With -usb the UHCI's driver requests
    IRQ 11, which the e1000 (no driver) shares; the storm must be contained within the flood
    bounds, the shell and the clock keep working, and after `inject off` the line is re-enabled
    after its back-off and delivers again. The UHCI's keyboard and stick keep working, by polling
    during the storm and by interrupt after it."""
    stick = str(tmp_path / "stick.img")
    diskimg.make_random_image(stick, STICK_BYTES, seed=11)
    usb = ["-usb", "-device", "usb-kbd,port=1", "-drive", f"if=none,id=us,file={stick},format=raw",
           "-device", "usb-storage,drive=us,port=2"]
    g = boot(guest_factory, MODES[mode], E1000 + usb, icount=ICOUNT_SHIFT)
    # which storm this is: the 8259 in level mode (raw) or QEMU's throttling IOAPIC
    assert ("interrupt mode: IO-APIC" in g.log) == (mode == "ioapic"), "wrong interrupt mode"
    if not line_has_handler(g, 11):
        pytest.fail("nothing requested IRQ 11: the UHCI driver should have (see drivers/usb/uhci.c)")
    start = len(g.log)
    assert "INJECTED e1000-storm" in g.command("inject e1000-storm")
    m = g.wait_for(STAMP_RX + r"irq 11: (\d+) of (\d+) interrupts unclaimed in (\d+) ms", 20, start)
    unclaimed, seen, ms = int(m.group(2)), int(m.group(3)), int(m.group(4))
    assert seen <= SEGMENT_MAX_INTERRUPTS and ms <= SEGMENT_MAX_MS, m.group(0)
    t_on = float(re.search(STAMP_RX + r"e1000-storm: writing IMS and ICS", g.log[start:], re.M).group(1))
    assert (float(m.group(1)) - t_on) * 1000 <= FLOOD_MAX_MS, g.log[start:]   # a storm far above 20,000/s
    assert unclaimed * 100 >= seen * 95, m.group(0)
    assert re.search(r'irq 11: "[^"]+".*: flood of unclaimed interrupts: line disabled', g.log[start:])
    # responsive while the storm goes on: the shell answers and the tick keeps time
    timecheck_ok(g, 500)
    out = run(g, "irqs")
    h = health_of(out, 11)
    assert h and "storm" in h[0], out
    # QEMU's IOAPIC re-delivers the held line: the fault must not call it "no storm" (Bochs's does not)
    assert "no storm" not in g.log[start:], g.log[start:]
    # the good devices on the storming line keep working, by polling, while it is off for
    # flooding: a command typed on the USB keyboard runs, the stick reads back its image
    g.wait_for(r"usba: USB mass storage .*per command\n", 60)
    usb_works(g, stick)
    h = health_of(run(g, "irqs"), 11)
    assert h and "storm" in h[0]                     # it was polling that delivered them
    # stop the storm: the next re-enable test passes and interrupts are delivered again
    assert "INTx released" in run(g, "inject off e1000-storm", done=r"fault: e1000-storm switched off\n")
    wait_back_on_interrupts(g, 11)
    delivered = irqs_row(run(g, "irqs"), 11)["delivered"]
    usb_works(g, stick)                              # by interrupt again
    assert irqs_row(run(g, "irqs"), 11)["delivered"] > delivered


# -- a flood of spurious edges on the disk's line ------------------------------------------------
def test_spurious_flood_on_the_busy_disk_line_is_contained_and_the_data_intact(guest_factory, tmp_path):
    """Scenario `spurious-flood`: self-IPIs on IRQ 14's vector while the disk reads and writes.
    The ATA handler returns IRQ_NONE for them, the flood defence takes the line off, the disk
    completes by polling; reads match the image and the pattern written is right on the host."""
    path, extra = disk(tmp_path)
    original = diskimg.read_at(path, 0, DISK_BYTES)
    g = boot(guest_factory, "debugexit", extra, icount=ICOUNT_SHIFT)
    start = len(g.log)
    out = g.command("inject spurious-flood:14")
    assert "IPIs on vector 0x3e (line 14" in out, out
    # 20,000 unclaimed interrupts a second from the injection: off within 10 ms of guest time
    t_on = float(re.search(STAMP_RX + r"spurious-flood: IPIs on vector", g.log[start:], re.M).group(1))
    t_off = float(g.wait_for(STAMP_RX + r"irq 14: \d+ of \d+ interrupts unclaimed", 20, start).group(1))
    assert (t_off - t_on) * 1000 <= FLOOD_MAX_MS, g.log[start:]
    assert kernel_crc(g, "ata crc 0 8192") == diskimg.crc_of(path)
    seed, lba, count = 0x5707, 1024, 1024
    out = run(g, f"ata write-pattern {seed} {lba} {count}", timeout=60)
    assert re.search(rf"write-pattern hda {lba}\+{count} seed {seed:#010x}: ok", out), out
    trips = [m for m in TRIP_RX.finditer(g.log, start) if m.group(1) == "14"]
    assert trips, g.log[start:]
    first = trips[0]
    assert int(first.group(3)) <= SEGMENT_MAX_INTERRUPTS and int(first.group(4)) <= SEGMENT_MAX_MS, first.group(0)
    ata = run(g, "ata", done=r"^ata1: (?:.*\n)*?  stats: .*\n")
    stats = dict(kv.split("=") for kv in re.search(r"^ata0: .*\n(?:  .*\n)*?  stats: (.*)$", ata, re.M)
                 .group(1).split())
    # IRQ_NONE for the spurious edges: at least the 95 % of the segment that tripped
    assert int(stats["busy"]) + int(stats["idle"]) >= SEGMENT_MAX_INTERRUPTS * 95 // 100, stats
    assert int(stats["errors"]) == 0 and int(stats["timeouts"]) == 0, stats
    timecheck_ok(g)
    out = run(g, "inject off spurious-flood", done=r"fault: spurious-flood switched off\n")
    sent = int(re.search(r"(\d+) IPIs sent", out).group(1))
    assert sent > 1000, out
    wait_back_on_interrupts(g, 14)
    assert kernel_crc(g, "ata crc 0 8192") == diskimg.crc_of(path)
    run(g, "ata flush")
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT
    assert diskimg.bad_pattern_blocks(path, seed, lba, count) == []
    assert diskimg.changed_ranges(path, original, lba, count) == []


def test_spurious_flood_is_refused_in_pic_mode_with_the_reason(guest_factory):
    g = boot(guest_factory, "debugexit noapic", [])
    out = g.command("inject spurious-flood:14")
    assert "needs IOAPIC mode" in out and "refused: EPERM" in out, out


# -- misrouting: irqfixup and irqpoll ------------------------------------------------------------
def test_irqfixup_finds_disk_interrupts_misrouted_to_the_serial_line(guest_factory, tmp_path):
    """Scenario `misroute-irqfixup`: IRQ 14's IOAPIC pin delivers the serial line's vector; the
    serial handler finds nothing, irqfixup tries the other shared lines and ata0 claims them."""
    path, extra = disk(tmp_path)
    g = boot(guest_factory, "debugexit irqfixup", extra)
    out = g.command("inject irq-misroute:14/4")
    assert "GSI 14 now delivers vector 0x34 (line 4's)" in out, out
    assert kernel_crc(g, "ata crc 0 2048") == diskimg.crc_of(path, 0, 2048 * SECTOR)
    assert re.search(r"irq 14: its handlers claimed an unclaimed interrupt of irq 4 \(irqfixup", g.log)
    out = g.command("irqs")
    h = health_of(out, 14)
    assert h and "misrouted" in h[0], out
    g.command("inject off irq-misroute")
    assert kernel_crc(g, "ata crc 2048 2048") == diskimg.crc_of(path, 2048 * SECTOR, 2048 * SECTOR)


def test_irqpoll_rescues_a_masked_disk_under_the_mainline_policy(guest_factory, tmp_path):
    """Scenario `misroute-irqpoll`: mainline has no IRQ expecting; with the disk's pin masked
    behind the core's back only irqpoll's periodic poll (100 ms in mainline) finds the
    completions. Few sectors: every command waits for a poll."""
    path, extra = disk(tmp_path)
    g = boot(guest_factory, "debugexit irqpolicy=mainline irqpoll", extra)
    assert "INJECTED" in g.command("inject ata-mask")
    before = irqs_row(g.command("irqs"), 14)
    assert kernel_crc(g, "ata crc 0 64", 60) == diskimg.crc_of(path, 0, 64 * SECTOR)
    out = g.command("irqs")
    after = irqs_row(out, 14)
    assert after["delivered"] == before["delivered"], (before, after)   # nothing arrived ...
    assert after["polled"] > before["polled"], (before, after)          # ... polls found it
    h = health_of(out, 14)
    assert h and "irqpoll" in h[0], out


# -- a storm of claimed interrupts: the HPET comparator at 200,000/s ------------------------------
LOAD_RX = re.compile(r"([\d.]+) % of the CPU lost to interrupts")
HPET_STORM_RX = r"hpet-storm: HPET comparator \d+ periodic at (\d+)/s on GSI (\d+)"
CLAIMED_MAX_LOST = 10.0          # % of the CPU a throttled storm may still take, re-enable tests included (issue 28)
STORM_WINDOW_MS = 10             # storm_window_ns of the irqkit profile: a window that trips is this long
CLAIMED_TRIP_MAX_MS = 20         # from the storm's start at its rate to the throttle, guest time (issue 28)


def q35_disk(tmp_path):
    """q35 has no legacy IDE of its own: a PIIX3 IDE on IRQ 14 carries the disk."""
    path = str(tmp_path / "disk.img")
    diskimg.make_random_image(path, DISK_BYTES, 21)
    return path, ["-device", "piix3-ide,id=pide", "-drive", f"file={path},format=raw,if=none,id=d0",
                  "-device", "ide-hd,drive=d0,bus=pide.0"]


def cpu_lost(g):
    out = run(g, "cpuload 300", timeout=120)
    m = LOAD_RX.search(out)
    assert m, out
    return float(m.group(1))


def test_hpet_storm_of_claimed_interrupts_is_throttled_and_the_system_keeps_working(guest_factory, tmp_path):
    """Scenario `storm-claimed` (issue 19): a spare HPET comparator interrupts 200,000 times a
    second and its driver claims every interrupt: no flood (nothing is unclaimed), but most of
    the CPU goes to it. The claimed-storm defence throttles the line within a storm window
    (masked, its handler polled every 1 ms, the work still counted), announced; meanwhile the
    shell answers, the tick keeps time, the disk reads and writes right (checked on the host);
    after `inject off` the line comes back on interrupts after its back-off."""
    path, extra = q35_disk(tmp_path)
    original = diskimg.read_at(path, 0, DISK_BYTES)
    g = guest_factory(machine="q35", append="debugexit", extra=["-nodefaults"] + extra, icount=ICOUNT_SHIFT)
    g.wait_shell(60)
    healthy = cpu_lost(g)
    start = len(g.log)
    out = g.command("inject hpet-storm")
    on = re.search(HPET_STORM_RX, out)
    assert on and on.group(1) == "200000", out
    gsi = int(on.group(2))
    m = g.wait_for(STAMP_RX + rf"irq {gsi}: (\d+) interrupts in (\d+) us, (\d+) claimed \(bound (\d+) in (\d+) ms\), "
                   r"their runs (\d+) % of a CPU \(bound (\d+) %\)", 20, start)
    irqs, us, claimed, bound = int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5))
    share, share_bound = int(m.group(7)), int(m.group(8))
    # A storm by its rate (the bound) or by the CPU time its runs took (issue 28: the share's bound;
    # >= because the message truncates the share: see SHARE_PRINTED)
    assert (irqs > bound or share >= share_bound) and us <= STORM_WINDOW_MS * 1000 and 0 < claimed <= irqs, m.group(0)
    # Contained within CLAIMED_TRIP_MAX_MS of guest time from the storm's start: QEMU's comparator gives one
    # interrupt at once and its periodic ones about 0.6 s later, which its driver says ("at its rate from").
    t_rate = float(re.search(r"hpet-storm: interrupts at its rate from (\d+\.\d+) s", g.log[start:]).group(1))
    assert (float(m.group(1)) - t_rate) * 1000 <= CLAIMED_TRIP_MAX_MS, g.log[start:]
    assert re.search(rf'irq {gsi}: "hpet-storm": storm of claimed interrupts', g.log[start:]), g.log[start:]
    assert not re.search(rf"irq {gsi}: .*interrupts unclaimed", g.log[start:]), "taken for a flood"
    # responsive while the device storms: little CPU lost, the tick keeps time, the disk works
    lost = cpu_lost(g)
    assert lost <= CLAIMED_MAX_LOST, (healthy, lost)
    timecheck_ok(g)
    assert kernel_crc(g, "ata crc 0 8192") == diskimg.crc_of(path)
    seed, lba, count = 0x5708, 2048, 1024
    out = run(g, f"ata write-pattern {seed} {lba} {count}", timeout=60)
    assert re.search(rf"write-pattern hda {lba}\+{count} seed {seed:#010x}: ok", out), out
    out = run(g, "irqs")
    h = health_of(out, gsi)
    assert h and "claimed-storm" in h[0] and "throttled (claimed storm)" in h[1], out
    row = irqs_row(out, gsi)
    assert row["polled"] > 0, out                    # the throttled device's work, done by polls
    # the storm stops: re-enabled after the back-off, declared over, on interrupts again
    stop = len(g.log)
    assert "driver stays on GSI" in run(g, "inject off hpet-storm", done=r"fault: hpet-storm switched off\n")
    g.wait_for(rf'irq {gsi}: "hpet-storm": claimed storm over, line back on interrupts', BACKOFF_MAX_S + 5, stop)
    assert health_of(run(g, "irqs"), gsi) is None
    run(g, "ata flush")
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT
    assert diskimg.bad_pattern_blocks(path, seed, lba, count) == []
    assert diskimg.changed_ranges(path, original, lba, count) == []


# SHARE_PRINTED: the kernel trips when the window's runs pass storm_cpu_pct of the whole window
# (kernel/irq/storm.c: limit = budget / shortest run + 1), and prints their share of the time the
# window had run, truncated to a whole percent: a trip just over the bound late in the window prints
# the bound itself (fresh50: "394 interrupts in 9818 us ... their runs 25 % of a CPU (bound 25 %)",
# that is 25.x %). So the printed share is at least the bound, not above it.
@pytest.mark.parametrize("hz", [50000, 1000000])
def test_hpet_storm_at_other_rates_is_contained_by_the_cpu_time_its_runs_take(guest_factory, hz):
    """The claimed storm at 50,000 a second (under the 1,500-a-window rate bound: only the CPU time
    its runs take makes it a storm) and at 1,000,000 (a livelock without the defence): contained
    within CLAIMED_TRIP_MAX_MS of guest time from the storm's start, by the share of a CPU its runs
    took, and at most CLAIMED_MAX_LOST of the CPU lost after (issue 28)."""
    g = guest_factory(machine="q35", append="debugexit", extra=["-nodefaults"], icount=ICOUNT_SHIFT)
    g.wait_shell(60)
    start = len(g.log)
    out = g.command(f"inject hpet-storm:{hz}")
    on = re.search(HPET_STORM_RX, out)
    assert on and on.group(1) == str(hz), out
    gsi = int(on.group(2))
    m = g.wait_for(STAMP_RX + rf"irq {gsi}: (\d+) interrupts in (\d+) us, (\d+) claimed \(bound (\d+) in (\d+) ms\), "
                   r"their runs (\d+) % of a CPU \(bound (\d+) %\)", 20, start)
    share, share_bound = int(m.group(7)), int(m.group(8))
    assert share >= share_bound, m.group(0)     # SHARE_PRINTED
    t_rate = float(re.search(r"hpet-storm: interrupts at its rate from (\d+\.\d+) s", g.log[start:]).group(1))
    assert (float(m.group(1)) - t_rate) * 1000 <= CLAIMED_TRIP_MAX_MS, g.log[start:]
    lost = cpu_lost(g)
    assert lost <= CLAIMED_MAX_LOST, lost
    print(f"hpet-storm:{hz}: contained {(float(m.group(1)) - t_rate) * 1000:.1f} ms after its start, its runs "
          f"{share} % of a CPU; {lost:.1f} % of the CPU lost after")


def test_hpet_storm_driver_that_slows_its_device_keeps_its_line_on_interrupts(guest_factory):
    """Scenario `storm-claimed` with `/slow`: the driver's storm callback (irq_set_storm_handler)
    slows the comparator to 1,000/s itself, so the line is never throttled."""
    g = guest_factory(machine="q35", append="debugexit", extra=["-nodefaults"], icount=ICOUNT_SHIFT)
    g.wait_shell(60)
    start = len(g.log)
    out = g.command("inject hpet-storm:200000/slow")
    gsi = int(re.search(HPET_STORM_RX, out).group(2))
    g.wait_for(rf'irq {gsi}: "hpet-storm": \d+ interrupts in \d+ us, \d+ claimed: the driver slowed its device', 20, start)
    assert cpu_lost(g) <= CLAIMED_MAX_LOST / 2
    out = run(g, "irqs")
    assert health_of(out, gsi) is None, out
    assert not re.search(rf"irq {gsi}: .*storm of claimed interrupts: .*line masked", g.log[start:])
    assert "slowed 1 times" in run(g, "inject off hpet-storm", done=r"fault: hpet-storm switched off\n")
