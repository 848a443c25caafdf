"""The USB mass storage driver (drivers/usb/usb_storage.c) end to end in QEMU.

QEMU's usb-storage (Bulk-Only Transport, SCSI transparent) on root port 2
of the PIIX3 UHCI, backed by a host-made random raw image. Every data
check is done here on the host against the image file: the kernel prints
CRC-32s of what it read through `blk crc usba ...`, compared with
zlib.crc32 over the same bytes; what it wrote with `blk write-pattern` is
checked after QEMU has exited by diskimg.py's own implementation of the
pattern (docs/ata.md, "The test pattern"), together with every sector
outside the written range. One boot per delivery mode: healthy interrupts
and `fault=uhci-misroute`.
"""
import re
import time

import pytest

import diskimg
from irqkit_qemu import EXIT_HALT, Guest

MIB = 1 << 20
SECTOR = diskimg.SECTOR
DISK_BYTES = 2 * MIB
DISK_SECTORS = DISK_BYTES // SECTOR
CRC_RX = re.compile(r"crc32 (\w+) (\d+)\+(\d+) = ([0-9a-f]{8}) ")
SEED = {"healthy": 0x5EED0001, "uhci-misroute": 0x5EED0002}
PATTERN_LBA, PATTERN_COUNT = 1000, 200     # spans several 64-block WRITE(10)s
RO_BYTES = 8 * MIB                         # the unplug test reads it whole: seconds
RO_SECTORS = RO_BYTES // SECTOR





@pytest.fixture(scope="module", params=["healthy", "uhci-misroute"])
def stor(request, tmp_path_factory):
    mode = request.param
    fault = None if mode == "healthy" else mode
    path = str(tmp_path_factory.mktemp("usb") / "stick.img")
    original = diskimg.make_random_image(path, DISK_BYTES, seed=7)
    append = "debugexit" + (f" fault={fault}" if fault else "")
    g = Guest(append=append, extra=["-usb", "-drive", f"if=none,id=us,file={path},format=raw",
                                    "-device", "usb-storage,drive=us,port=2"])
    try:
        g.wait_shell(90)
        if fault and not re.search(rf"^\s*(?:on|off|ON)\s+{fault}\b", g.command("inject"), re.M):
            pytest.fail(f"fault {fault} is not listed by `inject`: it is part of this kernel")
        g.wait_for(r"usba: USB mass storage .*per command\n", 60)
        yield mode, g, path, original
    finally:
        g.kill()


def kernel_crc(g, cmd, timeout=120):
    out = g.command(cmd, timeout)
    m = CRC_RX.search(out)
    assert m, out
    return int(m.group(4), 16)


def test_inquiry_and_capacity_register_usba(stor):
    mode, g, path, _ = stor
    assert re.search(rf'usba: USB mass storage "QEMU QEMU HARDDISK" rev \S+ on \w+ port 2: '
                     rf"{DISK_SECTORS} blocks of 512 bytes \(2 MiB\), 64 blocks per command", g.log), \
        g.log[-4000:]
    out = g.command("blk")
    assert "usba" in out and "USB mass storage" in out, out


def test_crc_of_regions_matches_the_image_including_the_last_sector(stor):
    mode, g, path, _ = stor
    regions = [(0, 1), (1, 64), (63, 66), (DISK_SECTORS - 1, 1), (DISK_SECTORS - 130, 130)]
    if mode == "healthy":
        regions.append((0, DISK_SECTORS))
    for lba, count in regions:
        want = diskimg.crc_of(path, lba * SECTOR, count * SECTOR)
        assert kernel_crc(g, f"blk crc usba {lba} {count}") == want, (mode, lba, count)


def test_reads_past_the_end_are_refused_by_the_block_layer(stor):
    mode, g, _, _ = stor
    out = g.command(f"blk crc usba {DISK_SECTORS - 1} 2")
    assert "outside the device" in out, out


def test_a_refused_cbw_gets_reset_recovery_and_the_next_command_works(stor):
    """usb-storage-badcbw sends one CBW with a wrong signature: the device stalls it
    (BOT 6.6.1), the driver runs reset recovery and fails that command with EIO; the
    next command must read the right bytes."""
    mode, g, path, _ = stor
    start = len(g.log)
    assert "INJECTED usb-storage-badcbw" in g.command("inject usb-storage-badcbw")
    out = g.command("blk crc usba 5 3")
    assert "failed at LBA 5: EIO" in out, out
    g.wait_for(r"usba: READ\(10\): CBW not accepted \(EPIPE\); reset recovery \(Bulk-Only Mass "
               r"Storage Reset, clear halts\)", 10, start)
    assert kernel_crc(g, "blk crc usba 5 3") == diskimg.crc_of(path, 5 * SECTOR, 3 * SECTOR)


def test_transfers_came_by_interrupt_when_healthy_and_by_polling_when_misrouted(stor):
    mode, g, _, _ = stor
    out = g.command("irqs")
    row = next((r.split() for r in out.split("\n") if r.split()[:1] == ["11"]), None)
    assert row and "uhci0" in " ".join(row[9:]), out
    delivered, polled = int(row[1]), int(row[5])
    if mode == "healthy":
        assert delivered > 0, out
    else:
        assert delivered == 0 and polled > 0, out
        assert re.search(r"line 11 uhci0: ON POLLING", out), out


def test_a_written_pattern_is_right_on_the_host_and_nothing_else_changed(stor):
    """Last: the guest halts, so the image can be read back on the host."""
    mode, g, path, original = stor
    seed = SEED[mode]
    out = g.command(f"blk write-pattern usba {seed:#x} {PATTERN_LBA} {PATTERN_COUNT}", 120)
    assert f"write-pattern usba {PATTERN_LBA}+{PATTERN_COUNT} seed {seed:#010x}: ok" in out, out
    out = g.command(f"blk verify-pattern usba {seed:#x} {PATTERN_LBA} {PATTERN_COUNT}", 120)
    assert f"{PATTERN_COUNT} right, 0 wrong" in out, out
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT
    assert diskimg.bad_pattern_blocks(path, seed, PATTERN_LBA, PATTERN_COUNT) == []
    assert diskimg.changed_ranges(path, original, PATTERN_LBA, PATTERN_COUNT) == []


def test_write_protect_sense_unplug_mid_read_and_replug(guest_factory, tmp_path):
    """A read-only medium answers WRITE(10) with CHECK CONDITION; the driver asks REQUEST
    SENSE and reports DATA PROTECT in words with EROFS. Then the stick is pulled out
    (QMP device_del) while `blk crc` reads the whole disk: the read fails with ENODEV,
    usba disappears; plugged in again (blockdev-add + device_add) it is usba again and
    reads right."""
    path = str(tmp_path / "ro.img")
    diskimg.make_random_image(path, RO_BYTES, seed=11)
    g = guest_factory(append="debugexit", extra=[
        "-usb", "-drive", f"if=none,id=us,file={path},format=raw,readonly=on",
        "-device", "usb-storage,drive=us,port=2,id=stick"])
    g.wait_shell(90)
    g.wait_for(r"usba: USB mass storage .*per command\n", 60)
    out = g.command("blk write-pattern usba 1 10 4")
    assert "failed at LBA 10: EROFS" in out, out
    assert re.search(r"usba: WRITE\(10\) lba 10\+4 failed: DATA PROTECT: write protected "
                     r"\(asc 0x27 ascq 0x00\)", g.log), g.log[-3000:]
    assert diskimg.crc_of(path, 10 * SECTOR, 4 * SECTOR) == kernel_crc(g, "blk crc usba 10 4")

    start = len(g.log)
    g.send(f"blk crc usba 0 {RO_SECTORS}\r")
    g.wait_for(r"blk crc usba 0 \d+\n", 10, start)
    time.sleep(0.5)                     # 8 MiB at ~1 MB/s: pull the stick in the middle
    g.qmp_cmd("device_del", id="stick")
    m = g.wait_for(r"crc32 usba 0\+\d+: failed at LBA (\d+): ENODEV", 30, start)
    assert 0 < int(m.group(1)) < RO_SECTORS, m.group(0)
    g.wait_for(r"usba: disconnected", 10, start)
    assert "usba" not in g.command("blk")

    g.qmp_cmd("blockdev-add", driver="raw", **{"node-name": "us2", "read-only": True},
              file={"driver": "file", "filename": path, "read-only": True})
    start = len(g.log)
    g.qmp_cmd("device_add", driver="usb-storage", drive="us2", port="2", id="stick2")
    g.wait_for(r"usba: USB mass storage .*per command\n", 30, start)
    assert kernel_crc(g, f"blk crc usba {RO_SECTORS - 8} 8") == \
        diskimg.crc_of(path, (RO_SECTORS - 8) * SECTOR, 8 * SECTOR)
