"""The scenario matrix of issue 8: machine x firmware tables x interrupt mode x fault.

In every cell the boot completes, the disk's and the USB stick's data are verified here
on the host (CRCs over the whole images, and a seeded pattern the kernel writes to the
disk, checked sector by sector after QEMU exits), a command typed on the USB keyboard
(QMP send-key) runs, and the IRQ health state is exactly right: no polled line missing,
no healthy line in it.

    machine   pc (PIIX3 IDE on IRQ 14), q35 (no legacy IDE: `-device piix3-ide` as
              QEMU-FACTS.md says)
    firmware  ACPI, -no-acpi (q35 then has SeaBIOS's own tables, pc only the MP table)
    mode      IOAPIC, noapic (8259)
    fault     none; ata-drop:100 (the disk raises no interrupt: line 14 on polling, cause
              lost-while-expecting); uhci-misroute (the PIRQ router sends the UHCI's
              interrupt to an unused IRQ: its line on polling, watch-found-lost);
              e1000-storm (the NIC no driver asked for holds the UHCI's level line
              asserted: that line off for flooding, storm)

USB: pc -usb; q35 an ich9-usb-uhci1 (-usb there puts the devices on the EHCI); keyboard on
port 1, stick on port 2; the e1000 on the UHCI's line (pc 00:03.0 and q35 00:04.0 share it).
Faults come from `fault=` at the end of boot. The boot summary must list exactly the lines
whose trouble was announced before it (e1000-storm's flood may be judged before the summary
or after); the `irqs` health section, once the fault had time to show, exactly the expected
lines (for faults that spare the disk: checked before the disk works, see test_cell).

AHCI cells (test_ahci_cell): q35 with the disk on its own AHCI controller instead, x ACPI/-no-acpi
x IOAPIC/noapic x MSI/pci=nomsi x none/ahci-noirq:100 (the AHCI's line on polling, cause
lost-while-expecting).

NVMe cells (test_nvme_cell): the same q35 machine with an NVMe namespace at 00:05.0, x ACPI/-no-acpi x
IOAPIC/noapic x MSI-X/pci=nomsi x none/nvme-noirq:100/msi-mask/msi-misvector (the last two MSI-X only):
the I/O queue's line on polling for lost-while-expecting, the NVMe image checked on the host.

`make test` runs SUBSET, AHCI_SUBSET and NVME_SUBSET; `make test-matrix` (IRQKIT_MATRIX=full) runs every cell.
"""
import itertools
import os
import re
import time

import pytest

import diskimg
from irqkit_qemu import EXIT_HALT
from shellwait import UPTIME_RX, run, type_on_usb_keyboard

SECTOR = diskimg.SECTOR
DISK_BYTES = 2 << 20
DISK_SECTORS = DISK_BYTES // SECTOR
PATTERN_LBA, PATTERN_COUNT = 1000, 256
STICK_BYTES = 1 << 20    # the USB stick

MACHINES = ("pc", "q35")
FIRMWARE = ("acpi", "noacpi")
MODES = ("ioapic", "noapic")
FAULTS = ("none", "ata-drop:100", "uhci-misroute", "e1000-storm")
USB_LINE = "usb"      # stands for the UHCI's line, read from `lsusb`
# What each fault must put on polling once it has shown: {line: cause word}.
EXPECTED_POLLED = {"none": {}, "ata-drop:100": {14: "lost-while-expecting"},
                   "uhci-misroute": {USB_LINE: "watch-found-lost"}, "e1000-storm": {USB_LINE: "storm"}}
ICOUNT_SHIFT = 3
SHOW_S = 10           # host seconds a fault gets to show in the health section
# One cell per machine, firmware, mode and fault value at least, for `make test`.
SUBSET = {("pc", "acpi", "ioapic", "none"), ("pc", "noacpi", "noapic", "ata-drop:100"),
          ("q35", "acpi", "noapic", "e1000-storm"), ("q35", "noacpi", "ioapic", "uhci-misroute"),
          ("pc", "acpi", "ioapic", "e1000-storm")}

FULL = os.environ.get("IRQKIT_MATRIX") == "full"
CELLS = [c for c in itertools.product(MACHINES, FIRMWARE, MODES, FAULTS) if FULL or c in SUBSET]
POLLED_RX = re.compile(r"^  line (\d+): ON POLLING \(([^)]*)\)", re.M)
SUMMARY_RX = re.compile(r"^irq health: line (\d+) on polling", re.M)
ANNOUNCED_RX = re.compile(r'^irq (\d+): "[^"]*"(?: and others)?: (?:flood of unclaimed|expected interrupt|watch: )',
                          re.M)
CRC_RX = re.compile(r"crc32 (\w+) (\d+)\+(\d+) = ([0-9a-f]{8}) ")


def qemu_args(machine, firmware, path, stick):
    args = ["-nodefaults", "-drive", f"if=none,id=us,file={stick},format=raw"]
    if firmware == "noacpi":
        args += ["-no-acpi"]
    if machine == "pc":
        args += ["-drive", f"file={path},format=raw,if=ide,index=0",
                 "-usb", "-device", "usb-kbd,port=1", "-device", "usb-storage,drive=us,port=2",
                 "-device", "e1000,addr=03.0"]
    else:
        args += ["-device", "piix3-ide,id=pide", "-drive", f"file={path},format=raw,if=none,id=d0",
                 "-device", "ide-hd,drive=d0,bus=pide.0",
                 "-device", "ich9-usb-uhci1,addr=1d.0,id=u1", "-device", "usb-kbd,bus=u1.0,port=1",
                 "-device", "usb-storage,bus=u1.0,port=2,drive=us",
                 "-device", "e1000,addr=04.0"]
    return args


def usb_works(g, stick):
    """The USB keyboard runs a command typed on it (QMP send-key), and the USB stick reads
    back what the host wrote to its image."""
    type_on_usb_keyboard(g, "uptime\r", UPTIME_RX)
    g.wait_for(r"usba: USB mass storage .*per command\n", 60)
    m = CRC_RX.search(run(g, f"blk crc usba 0 {STICK_BYTES // SECTOR}", timeout=120))
    assert m and int(m.group(4), 16) == diskimg.crc_of(stick), m and m.group(0)


def check_exact(g, expected):
    """The health section lists exactly @expected ({line: cause}), once the fault had SHOW_S to show."""
    deadline = time.monotonic() + SHOW_S
    while True:
        polled, irqs = polled_lines(g)
        if set(polled) == set(expected) or time.monotonic() > deadline:
            break
        time.sleep(0.25)
    assert set(polled) == set(expected), irqs
    for line, cause in expected.items():
        assert cause in polled[line].split(","), irqs


def polled_lines(g):
    irqs = run(g, "irqs")
    return {int(m.group(1)): m.group(2) for m in POLLED_RX.finditer(irqs)}, irqs


@pytest.mark.parametrize("machine,firmware,mode,fault", CELLS, ids=["-".join(c) for c in CELLS])
def test_cell(guest_factory, tmp_path, machine, firmware, mode, fault):
    path = str(tmp_path / "disk.img")
    original = diskimg.make_random_image(path, DISK_BYTES, seed=len(machine + firmware + mode + fault))
    stick = str(tmp_path / "stick.img")
    diskimg.make_random_image(stick, STICK_BYTES, seed=len(fault))
    append = "debugexit" + (" noapic" if mode == "noapic" else "") + ("" if fault == "none" else f" fault={fault}")
    # -icount ... sleep=on: guest time is executed instructions, and idle time passes at host
    # speed; with sleep=off QEMU jumps over the idle wait for the disk straight to the poll
    # timer, so on a loaded host polls beat interrupts QEMU had not yet raised.
    g = guest_factory(append=append, machine=machine,
                      extra=qemu_args(machine, firmware, path, stick) + ["-icount", f"shift={ICOUNT_SHIFT},sleep=on"])
    g.wait_shell(60)
    log = "\n".join(g.lines())
    assert ("interrupt mode: IO-APIC" in log) == (mode == "ioapic"), "wrong interrupt mode"
    if fault != "none":
        assert f"fault: INJECTED {fault}" in log, log
    # the boot summary lists exactly the lines announced before it
    summary = re.search(r"^irq health: (all \d+ lines with handlers deliver by interrupt|line )", log, re.M)
    assert summary, log
    announced = {int(m.group(1)) for m in ANNOUNCED_RX.finditer(log[:summary.start()])}
    listed = {int(m.group(1)) for m in SUMMARY_RX.finditer(log[summary.start():log.index("boot: complete")])}
    assert listed == announced, (listed, announced, log)
    usb_line = int(re.search(r"^uhci0: .*, line (\d+),", run(g, "lsusb"), re.M).group(1))
    expected = {usb_line if k == USB_LINE else k: v for k, v in EXPECTED_POLLED[fault].items()}
    usb_works(g, stick)
    disk_fault = 14 in expected
    if not disk_fault:
        # exactly the fault's lines, once it had time to show, before the disk works
        check_exact(g, expected)
    # the disk: whole-image CRC, then a pattern (checked on the host after exit)
    m = CRC_RX.search(run(g, f"ata crc 0 {DISK_SECTORS}", timeout=120))
    assert m and int(m.group(4), 16) == diskimg.crc_of(path), m and m.group(0)
    seed = 0xCE11 + len(CELLS)
    out = run(g, f"ata write-pattern {seed} {PATTERN_LBA} {PATTERN_COUNT}", timeout=120)
    assert re.search(rf"write-pattern hda {PATTERN_LBA}\+{PATTERN_COUNT} seed {seed:#010x}: ok", out), out
    if disk_fault:
        check_exact(g, expected)
    else:
        # After the disk worked the lines are exactly the fault's too: line 14 must not be listed.
        # (A disk expect poll that finds a completion whose interrupt is still pending at the
        # controller is judged late at once through irq_chip::irq_pending, so a loaded host no
        # longer makes the healthy disk look lost-while-expecting; its figures are printed.)
        polled, irqs = polled_lines(g)
        beat = re.search(r"line 14: polls \d+: \d+ found work \((\d+) beat a pending interrupt\)", irqs)
        if beat:
            print(f"{machine}-{firmware}-{mode}-{fault}: line 14 polls that beat a pending interrupt: {beat.group(1)}")
        assert set(polled) == set(expected), irqs
    run(g, "ata flush")
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT
    assert diskimg.bad_pattern_blocks(path, seed, PATTERN_LBA, PATTERN_COUNT) == []
    assert diskimg.changed_ranges(path, original, PATTERN_LBA, PATTERN_COUNT) == []


# -- AHCI cells (issue 17) -----------------------------------------------------------------------
# q35's own disk controller: the disk on the ICH9 AHCI's port 0, its interrupt by MSI (default)
# or INTx (pci=nomsi; then it shares the UHCI's PIRQA line), in IOAPIC or 8259 mode, healthy or
# with ahci-noirq:100 (every command issued with the port's interrupt enables cleared: the AHCI's
# line on polling, cause lost-while-expecting). USB keyboard, stick and e1000 as in the q35 cells.
AHCI_IRQ = ("msi", "nomsi")
AHCI_FAULTS = ("none", "ahci-noirq:100")
AHCI_SUBSET = {("acpi", "ioapic", "msi", "ahci-noirq:100"), ("noacpi", "noapic", "nomsi", "none")}
AHCI_CELLS = [c for c in itertools.product(FIRMWARE, MODES, AHCI_IRQ, AHCI_FAULTS) if FULL or c in AHCI_SUBSET]
AHCI_LINE_RX = re.compile(r"^ahci0: pci 00:1f\.2 .*?, (MSI|INTx [^,]*) line (\d+), handler registered", re.M)


def ahci_qemu_args(firmware, path, stick):
    args = qemu_args("q35", firmware, path, stick)
    i = args.index("piix3-ide,id=pide")          # the disk goes to the AHCI instead of a PIIX3 IDE
    del args[i - 1:i + 1]
    args[args.index("ide-hd,drive=d0,bus=pide.0")] = "ide-hd,drive=d0,bus=ide.0"
    return args


@pytest.mark.parametrize("firmware,mode,irq,fault", AHCI_CELLS, ids=["ahci-" + "-".join(c) for c in AHCI_CELLS])
def test_ahci_cell(guest_factory, tmp_path, firmware, mode, irq, fault):
    path = str(tmp_path / "disk.img")
    original = diskimg.make_random_image(path, DISK_BYTES, seed=len(firmware + mode + irq + fault))
    stick = str(tmp_path / "stick.img")
    diskimg.make_random_image(stick, STICK_BYTES, seed=len(fault))
    append = ("debugexit" + (" noapic" if mode == "noapic" else "") + (" pci=nomsi" if irq == "nomsi" else "")
              + ("" if fault == "none" else f" fault={fault}"))
    g = guest_factory(append=append, machine="q35",
                      extra=ahci_qemu_args(firmware, path, stick) + ["-icount", f"shift={ICOUNT_SHIFT},sleep=on"])
    g.wait_shell(60)
    log = "\n".join(g.lines())
    assert ("interrupt mode: IO-APIC" in log) == (mode == "ioapic"), "wrong interrupt mode"
    m = AHCI_LINE_RX.search(run(g, "ata", done=r"ahci0: pci .*\n"))
    assert m and m.group(1).startswith("MSI" if irq == "msi" else "INTx"), log
    ahci_line = int(m.group(2))
    expected = {ahci_line: "lost-while-expecting"} if fault != "none" else {}
    usb_works(g, stick)
    m = CRC_RX.search(run(g, f"ata crc sda 0 {DISK_SECTORS}", timeout=120))
    assert m and int(m.group(4), 16) == diskimg.crc_of(path), m and m.group(0)
    seed = 0xA4C1 + len(AHCI_CELLS)
    for lba in range(PATTERN_LBA, PATTERN_LBA + PATTERN_COUNT, 64):     # several commands
        out = run(g, f"ata write-pattern sda {seed} {lba} 64", timeout=120)
        assert re.search(rf"write-pattern sda {lba}\+64 seed {seed:#010x}: ok", out), out
    check_exact(g, expected)
    run(g, "ata flush sda")
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT
    assert diskimg.bad_pattern_blocks(path, seed, PATTERN_LBA, PATTERN_COUNT) == []
    assert diskimg.changed_ranges(path, original, PATTERN_LBA, PATTERN_COUNT) == []


# -- NVMe cells (issue 17) -----------------------------------------------------------------------
# q35 with an NVMe namespace besides the AHCI disk: MSI-X (one vector per queue, default) or its
# INTx pin (pci=nomsi: one line for both queues, shared), in IOAPIC or 8259 mode, x the faults
# that make its completions come without an interrupt: nvme-noirq:100 (MSI-X: the I/O CQ created
# with IEN=0; INTx: the vector masked in INTMS), msi-mask (the MSI-X entries masked at the device
# behind the core's back), msi-misvector (their message data sent to a vector nobody owns). In
# every faulted cell the line of the I/O queue goes on polling for lost-while-expecting, nothing
# else; the NVMe image's CRC and a pattern the kernel writes are checked on the host.
NVME_IRQ = ("msix", "nomsi")
NVME_FAULTS = ("none", "nvme-noirq:100", "msi-mask", "msi-misvector")
NVME_MSIX_ONLY = ("msi-mask", "msi-misvector")
NVME_SUBSET = {("acpi", "ioapic", "msix", "msi-misvector"), ("noacpi", "noapic", "nomsi", "nvme-noirq:100")}
NVME_CELLS = [c for c in itertools.product(FIRMWARE, MODES, NVME_IRQ, NVME_FAULTS)
              if (c[3] not in NVME_MSIX_ONLY or c[2] == "msix") and (FULL or c in NVME_SUBSET)]
NVME_BYTES = 2 << 20
NVME_IO_LINE_RX = re.compile(r"^  nvme0q1: I/O queue 1, \d+ entries, line (\d+)", re.M)
NVME_MODE_RX = re.compile(r"^nvme0: .*interrupts (MSI-X|MSI|INTx)", re.M)


@pytest.mark.parametrize("firmware,mode,irq,fault", NVME_CELLS, ids=["nvme-" + "-".join(c) for c in NVME_CELLS])
def test_nvme_cell(guest_factory, tmp_path, firmware, mode, irq, fault):
    path, nvme = str(tmp_path / "disk.img"), str(tmp_path / "nvme.img")
    diskimg.make_random_image(path, DISK_BYTES, seed=len(firmware + mode))
    original = diskimg.make_random_image(nvme, NVME_BYTES, seed=len(firmware + mode + irq + fault))
    stick = str(tmp_path / "stick.img")
    diskimg.make_random_image(stick, STICK_BYTES, seed=len(fault))
    append = ("debugexit" + (" noapic" if mode == "noapic" else "") + (" pci=nomsi" if irq == "nomsi" else "")
              + ("" if fault == "none" else f" fault={fault}"))
    extra = ahci_qemu_args(firmware, path, stick) + [
        "-drive", f"file={nvme},if=none,id=n,format=raw", "-device", "nvme,serial=irqkit,drive=n,addr=05.0",
        "-icount", f"shift={ICOUNT_SHIFT},sleep=on"]
    g = guest_factory(append=append, machine="q35", extra=extra)
    g.wait_shell(60)
    log = "\n".join(g.lines())
    assert ("interrupt mode: IO-APIC" in log) == (mode == "ioapic"), "wrong interrupt mode"
    if fault != "none":
        assert f"fault: INJECTED {fault}" in log, log
    state = run(g, "nvme", done=r"nvme0n1: namespace .*\n")
    m, line = NVME_MODE_RX.search(state), NVME_IO_LINE_RX.search(state)
    assert m and m.group(1) == ("MSI-X" if irq == "msix" else "INTx") and line, state
    expected = {int(line.group(1)): "lost-while-expecting"} if fault != "none" else {}
    usb_works(g, stick)
    m = CRC_RX.search(run(g, f"blk crc nvme0n1 0 {NVME_BYTES // SECTOR}", timeout=120))
    assert m and int(m.group(4), 16) == diskimg.crc_of(nvme), m and m.group(0)
    seed = 0x4E11 + len(NVME_CELLS)
    for lba in range(PATTERN_LBA, PATTERN_LBA + PATTERN_COUNT, 64):     # several commands
        out = run(g, f"blk write-pattern nvme0n1 {seed} {lba} 64", done=r"write-pattern nvme0n1 \d+\+\d+ seed .*\n", timeout=120)
        assert re.search(rf"write-pattern nvme0n1 {lba}\+64 seed {seed:#010x}: ok", out), out
    check_exact(g, expected)
    assert "flush nvme0n1: ok" in run(g, "blk flush nvme0n1", done=r"flush nvme0n1: .*\n")
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT
    assert diskimg.bad_pattern_blocks(nvme, seed, PATTERN_LBA, PATTERN_COUNT) == []
    assert diskimg.changed_ranges(nvme, original, PATTERN_LBA, PATTERN_COUNT) == []
