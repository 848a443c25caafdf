"""The scenario matrix of issue 8: machine x firmware tables x interrupt mode x fault.

In every cell the boot completes, the disk's data is verified here on the host
(a CRC over the whole image and a seeded pattern written by the kernel, checked
sector by sector after QEMU exits), and the IRQ health state is exactly right:
the boot summary says every line delivers by interrupt (faults are switched on
by `fault=` after the devices were probed), and after the disk has worked the
`irqs` health section lists exactly the lines the fault should put on polling -
no polled line missing, no healthy line in it.

    machine   pc (PIIX3 IDE on IRQ 14), q35 (no legacy IDE: `-device piix3-ide` as
              QEMU-FACTS.md says)
    firmware  ACPI, -no-acpi (q35 then has SeaBIOS's own tables, pc only the MP table)
    mode      IOAPIC, noapic (8259)
    fault     none; ata-drop:100 (the disk raises no interrupt: line 14 on polling, cause
              lost-while-expecting); e1000-storm (the NIC holds its level line asserted;
              nothing requests that line, so nothing may be on polling)

The USB column (uhci-misroute, usb-storage CRCs, keyboard by QMP) is not here: the
UHCI driver of branch usb had not been merged when this was written.

`make test` runs SUBSET; `make test-matrix` (IRQKIT_MATRIX=full) runs every cell.
"""
import itertools
import os
import re

import pytest

import diskimg
from irqkit_qemu import EXIT_HALT

SECTOR = diskimg.SECTOR
DISK_BYTES = 2 << 20
DISK_SECTORS = DISK_BYTES // SECTOR
PATTERN_LBA, PATTERN_COUNT = 1000, 256

MACHINES = ("pc", "q35")
FIRMWARE = ("acpi", "noacpi")
MODES = ("ioapic", "noapic")
FAULTS = ("none", "ata-drop:100", "e1000-storm")
# What each fault must put on polling once the disk has worked: {line: cause word}.
EXPECTED_POLLED = {"none": {}, "ata-drop:100": {14: "lost-while-expecting"}, "e1000-storm": {}}
# One cell per machine, firmware, mode and fault value at least, for `make test`.
SUBSET = {("pc", "acpi", "ioapic", "none"), ("pc", "noacpi", "noapic", "ata-drop:100"),
          ("q35", "acpi", "noapic", "e1000-storm"), ("q35", "noacpi", "ioapic", "ata-drop:100"),
          ("pc", "acpi", "ioapic", "e1000-storm")}

FULL = os.environ.get("IRQKIT_MATRIX") == "full"
CELLS = [c for c in itertools.product(MACHINES, FIRMWARE, MODES, FAULTS) if FULL or c in SUBSET]
POLLED_RX = re.compile(r"^  line (\d+): ON POLLING \(([^)]*)\)", re.M)
CRC_RX = re.compile(r"crc32 hda (\d+)\+(\d+) = ([0-9a-f]{8}) ")


def qemu_args(machine, firmware, path):
    args = ["-nodefaults", "-device", "e1000,addr=03.0"]
    if firmware == "noacpi":
        args += ["-no-acpi"]
    if machine == "pc":
        args += ["-drive", f"file={path},format=raw,if=ide,index=0"]
    else:
        args += ["-device", "piix3-ide,id=pide", "-drive", f"file={path},format=raw,if=none,id=d0",
                 "-device", "ide-hd,drive=d0,bus=pide.0"]
    return args


@pytest.mark.parametrize("machine,firmware,mode,fault", CELLS, ids=["-".join(c) for c in CELLS])
def test_cell(guest_factory, tmp_path, machine, firmware, mode, fault):
    path = str(tmp_path / "disk.img")
    original = diskimg.make_random_image(path, DISK_BYTES, seed=len(machine + firmware + mode + fault))
    append = "debugexit" + (" noapic" if mode == "noapic" else "") + ("" if fault == "none" else f" fault={fault}")
    g = guest_factory(append=append, machine=machine, extra=qemu_args(machine, firmware, path))
    g.wait_shell(60)
    log = "\n".join(g.lines())
    assert ("interrupt mode: IO-APIC" in log) == (mode == "ioapic"), "wrong interrupt mode"
    assert re.search(r"irq health: all \d+ lines with handlers deliver by interrupt", log), log
    if fault != "none":
        assert f"fault: INJECTED {fault}" in log, log
    # the disk: whole-image CRC, then a pattern (checked on the host after exit)
    m = CRC_RX.search(g.command(f"ata crc 0 {DISK_SECTORS}", 120))
    assert m and int(m.group(3), 16) == diskimg.crc_of(path), m and m.group(0)
    seed = 0xCE11 + len(CELLS)
    out = g.command(f"ata write-pattern {seed} {PATTERN_LBA} {PATTERN_COUNT}", 120)
    assert re.search(rf"write-pattern hda {PATTERN_LBA}\+{PATTERN_COUNT} seed {seed:#010x}: ok", out), out
    # the health section: exactly the lines the fault puts on polling
    irqs = g.command("irqs")
    polled = {int(m.group(1)): m.group(2) for m in POLLED_RX.finditer(irqs)}
    expected = EXPECTED_POLLED[fault]
    assert set(polled) == set(expected), irqs
    for line, cause in expected.items():
        assert cause in polled[line].split(","), irqs
    g.command("ata flush")
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT
    assert diskimg.bad_pattern_blocks(path, seed, PATTERN_LBA, PATTERN_COUNT) == []
    assert diskimg.changed_ranges(path, original, PATTERN_LBA, PATTERN_COUNT) == []
