"""irqkit on a PC of today: UEFI firmware (Debian's OVMF), GRUB's multiboot2, ACPI from the loader,
an NVMe disk whose BAR the firmware put above 4 GiB, the framebuffer console (docs/boot.md).

One boot per machine does everything, because an OVMF boot costs several seconds: on q35 and on pc
with two CPUs, the log must say the RSDP came from the loader, the IOAPIC mode, both CPUs from the
MADT, the HPET (q35); QEMU's NVMe BAR0 lies above 4 GiB (OVMF puts it at 0xe000000000) and is
reached through the PAE window; then, as in test_nvme.py and test_ahci.py, every data check is done
here on the host against the image files: CRCs over regions up to the last sector equal zlib's, a
seeded pattern written by the kernel is checked block by block after QEMU ended, healthy and with
ahci-noirq:100 and nvme-noirq:100 (the defences complete the commands by polling), and nothing
outside the written ranges changed. The screen is read back from a QMP screendump by matching
irqkit's own glyphs (screen.py) and must show what the serial console printed, title to prompt.

Two lighter boots: the 32-bit OVMF with the RSDP taken from the EFI system table alone
(rsdp_from=efi, the 32-bit table layout), and `nopae`, where the NVMe BAR above 4 GiB must be
refused with a reason. Skipped only when OVMF is not installed (tools/deps.sh installs it).
"""
import re
import time
import zlib

import pytest

import diskimg
import screen
from irqkit_qemu import EXIT_HALT, have_ovmf

SECTOR = diskimg.SECTOR
DISK_BYTES = 4 << 20
DISK_BLOCKS = DISK_BYTES // SECTOR
CRC_RX = re.compile(r"crc32 (\S+) (\d+)\+(\d+) = ([0-9a-f]{8}) ")
REGIONS = [(0, 1), (7, 300), (DISK_BLOCKS - 300, 300), (DISK_BLOCKS - 1, 1), (0, DISK_BLOCKS)]
PATTERN_LBA = 1000            # healthy pattern here, the one under faults right after it
PATTERN_BLOCKS = 128
FAULT_PIECES = 4              # under the faults the pattern goes in this many commands, each read back
FOUR_GIB = 1 << 32
BANNER = "irqkit 0.1: an x86 kernel whose interrupt layer survives broken hardware"
BOOT_TIMEOUT = 150            # OVMF under TCG on a loaded host

needs_ovmf = pytest.mark.skipif(not have_ovmf(), reason="OVMF not installed (tools/deps.sh installs ovmf)")


def disks(machine, ahci_path, nvme_path):
    # q35's own AHCI takes the disk on its port 0 (the CD is on port 2); pc needs an AHCI added.
    bus = "ide.0" if machine == "q35" else "ahci.0"
    extra = [] if machine == "q35" else ["-device", "ahci,id=ahci"]
    return extra + ["-drive", f"file={ahci_path},format=raw,if=none,id=d", "-device", f"ide-hd,drive=d,bus={bus}",
                    "-drive", f"file={nvme_path},format=raw,if=none,id=n", "-device", "nvme,serial=irqkit,drive=n"]


def kernel_crc(g, dev, lba, count):
    out = g.command(f"blk crc {dev} {lba} {count}", 60)
    m = CRC_RX.search(out)
    assert m, out
    return int(m.group(4), 16)


def write_pattern(g, dev, seed, lba, count=PATTERN_BLOCKS):
    out = g.command(f"blk write-pattern {dev} {seed} {lba} {count}", 120)
    assert re.search(rf"write-pattern {dev} {lba}\+{count} seed {seed:#010x}: ok", out), out


def pattern_crc(seed, lba, count):
    crc = 0
    for i in range(count):
        crc = zlib.crc32(diskimg.pattern_block(seed, lba + i), crc)
    return crc


def check_screen(g, tmp_path):
    """The screendump shows the title, the log and the prompt exactly as the serial console has them."""
    m = re.search(r"fbcon: (\d+)x(\d+) cells of 8x16 on the (\d+)x(\d+) framebuffer", g.log)
    assert m, g.log[-3000:]
    cols, rows = int(m.group(1)), int(m.group(2))
    path = str(tmp_path / "screen.ppm")
    for _ in range(5):                          # a moment without new output, so both agree
        before = g.log
        g.qmp_cmd("screendump", filename=path)
        time.sleep(0.3)
        if g.log == before:
            break
    shown = screen.read_screen(path, cols, rows)
    start = re.search(r"^\[\s*\d+\.\d{6}\] " + re.escape(BANNER), before, re.M)
    assert start, before[:3000]
    expected = screen.expected_screen(before[start.start():], cols, rows)
    assert shown[0] == BANNER, shown[:3]
    assert shown[-1] == "irqkit>", shown[-3:]
    assert shown == expected, "\n".join(f"{i:2} screen: {a!r}\n   serial: {b!r}"
                                        for i, (a, b) in enumerate(zip(shown, expected)) if a != b)


@needs_ovmf
@pytest.mark.parametrize("machine", ["q35", "pc"])
def test_uefi_finds_acpi_cpus_hpet_and_an_nvme_above_4g_and_the_data_is_right(guest_factory, tmp_path, machine):
    ahci_path, ahci_orig = str(tmp_path / "ahci.img"), None
    nvme_path = str(tmp_path / "nvme.img")
    ahci_orig = diskimg.make_random_image(ahci_path, DISK_BYTES, seed=29)
    nvme_orig = diskimg.make_random_image(nvme_path, DISK_BYTES, seed=30)
    g = guest_factory(firmware="uefi", machine=machine, append="debugexit", boot_timeout=BOOT_TIMEOUT,
                      extra=["-smp", "2"] + disks(machine, ahci_path, nvme_path))
    g.wait_shell()
    log = "\n".join(g.lines())
    assert re.search(r"boot: loaded by GRUB .* \(multiboot2\)", log), log
    assert "ACPI: RSDP from the boot loader's ACPI 2.0 tag (multiboot2)" in log, log
    assert "interrupt mode: IO-APIC (from ACPI MADT)" in log, log
    assert "smp: CPUs from the MADT (the MADT lists 2 CPUs)" in log and "smp: 2 CPUs online from the MADT" in log, log
    if machine == "q35":
        assert re.search(r"HPET: at 0xfed00000, .*100\.000000 MHz", log), log
    lspci = g.command("lspci -v")
    bar = re.search(r"1b36:0010 NVMe controller.*\n.*\n +BAR0: memory at (0x[0-9a-f]+) \(64-bit, non-prefetchable\)"
                    r" \[size 16K\], mapped at (0x[0-9a-f]+) \(PAE window\), uncached", lspci)
    assert bar and int(bar.group(1), 16) >= FOUR_GIB, lspci
    assert re.search(rf"nvme0n1: {DISK_BLOCKS} blocks of 512 bytes", log), log
    assert re.search(rf'ahci0: port 0: sda: ATA disk "QEMU HARDDISK", {DISK_BLOCKS} sectors', log), log
    assert re.search(r"nvme0: .*interrupts: MSI-X per queue", log), log

    for dev, path in (("sda", ahci_path), ("nvme0n1", nvme_path)):
        for lba, count in REGIONS:
            assert kernel_crc(g, dev, lba, count) == diskimg.crc_of(path, lba * SECTOR, count * SECTOR), (dev, lba)

    healthy, faulty = 0x0EF1A000 + len(machine), 0x0EF1B000 + len(machine)
    for dev in ("sda", "nvme0n1"):
        write_pattern(g, dev, healthy, PATTERN_LBA)
    assert "INJECTED" in g.command("inject ahci-noirq:100")
    assert "INJECTED" in g.command("inject nvme-noirq:100")
    piece = PATTERN_BLOCKS // FAULT_PIECES
    for dev in ("sda", "nvme0n1"):
        for i in range(FAULT_PIECES):
            lba = PATTERN_LBA + PATTERN_BLOCKS + i * piece
            write_pattern(g, dev, faulty, lba, piece)
            assert kernel_crc(g, dev, lba, piece) == pattern_crc(faulty, lba, piece), (dev, lba)
    irqs = g.command("irqs")
    assert re.search(r"^  line \d+ ahci0 [0-9a-f:.]+: ON POLLING: lost-while-expecting", irqs, re.M), irqs
    assert re.search(r"^  line \d+ nvme0q1: ON POLLING: lost-while-expecting", irqs, re.M), irqs

    check_screen(g, tmp_path)
    for dev in ("sda", "nvme0n1"):
        assert f"flush {dev}: ok" in g.command(f"blk flush {dev}")
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT
    for path, orig in ((ahci_path, ahci_orig), (nvme_path, nvme_orig)):
        assert diskimg.bad_pattern_blocks(path, healthy, PATTERN_LBA, PATTERN_BLOCKS) == [], path
        assert diskimg.bad_pattern_blocks(path, faulty, PATTERN_LBA + PATTERN_BLOCKS, PATTERN_BLOCKS) == [], path
        assert diskimg.changed_ranges(path, orig, PATTERN_LBA, 2 * PATTERN_BLOCKS) == [], path


@pytest.mark.skipif(not have_ovmf("uefi32"), reason="32-bit OVMF not installed (tools/deps.sh installs ovmf-ia32)")
def test_32_bit_uefi_gives_the_rsdp_through_its_efi_system_table(guest_factory):
    g = guest_factory(firmware="uefi32", machine="q35", append="rsdp_from=efi", boot_timeout=BOOT_TIMEOUT,
                      extra=["-smp", "2"])
    g.wait_shell()
    log = "\n".join(g.lines())
    assert re.search(r"boot: EFI 32-bit system table at 0x[0-9a-f]+", log), log
    assert re.search(r"ACPI: RSDP from the EFI system table at 0x[0-9a-f]+ \(UEFI 2\.\d+, 32-bit\): configuration "
                     r"table at 0x[0-9a-f]+, \d+ entries, ACPI 2\.0 GUID", log), log
    assert "boot loader's ACPI" not in log, log
    assert "interrupt mode: IO-APIC (from ACPI MADT)" in log, log
    assert "smp: 2 CPUs online from the MADT" in log, log


@needs_ovmf
def test_without_pae_an_nvme_bar_above_4g_is_refused_with_the_reason(guest_factory, tmp_path):
    nvme_path = str(tmp_path / "nvme.img")
    diskimg.make_sparse_image(nvme_path, DISK_BYTES)
    g = guest_factory(firmware="uefi", machine="q35", append="nopae", boot_timeout=BOOT_TIMEOUT,
                      extra=["-drive", f"file={nvme_path},format=raw,if=none,id=n",
                             "-device", "nvme,serial=irqkit,drive=n"])
    g.wait_shell()
    log = "\n".join(g.lines())
    assert "paging: 32-bit paging (nopae)" in log, log
    assert re.search(r"nvme0: BAR0 at 0x[0-9a-f]{10,} is not reachable: it lies above 4 GiB and `nopae` keeps this "
                     r"kernel on 32-bit paging", log), log
    assert "nvme0n1" not in log, log
    assert re.search(r"up \d+\.\d{3} s", g.command("uptime"))


def test_the_kernels_font_table_is_generated_from_the_art_the_screen_is_read_with():
    """drivers/video/font8x16.c must be what tools/font/mkfont.py makes of tools/font/irqkit-8x16.txt,
    or the screendump would be read with other glyphs than the kernel draws."""
    import subprocess
    import sys
    from irqkit_qemu import ROOT
    r = subprocess.run([sys.executable, f"{ROOT}/tools/font/mkfont.py", "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
