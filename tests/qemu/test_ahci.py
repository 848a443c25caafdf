"""The AHCI driver (drivers/ata/ahci*.c) end to end on QEMU's q35, whose disks sit on the ICH9
AHCI at 00:1f.2 with no extra options.

As in test_ata.py every data check is done here on the host against the image file: the
kernel prints CRC-32s of what it read, compared with zlib.crc32 over the same bytes, and the
seeded pattern it wrote is checked sector by sector by diskimg.py's own implementation after
QEMU has exited, together with every sector outside the written range. Images are a few MiB.

The healthy write cases also judge the share of completions polled (at most 2 %, none announced
lost), so they run under `-icount shift=3,sleep=off` with `aio=io_uring`: the reads complete in
guest time, and QEMU's trace of its io_uring backend (iotrace.py) says which writes the host
finished later; a polled write is accepted only there.
"""
import os
import re
import zlib

import pytest

import diskimg
import iotrace
from irqkit_qemu import EXIT_HALT, ISO, wait_shell_or_skip_aio

SECTOR = diskimg.SECTOR
DISK_BYTES = 4 << 20
DISK_SECTORS = DISK_BYTES // SECTOR
CRC_RX = re.compile(r"crc32 (\w+) (\d+)\+(\d+) = ([0-9a-f]{8}) ")
HOST_RX = re.compile(r"^ahci0: pci 00:1f\.2 .*?, (INTx [^,]*|MSI) line (\d+), handler registered", re.M)
STATS_RX = re.compile(r"^  sda: .*\n    stats: (.*)$", re.M)
COMPLETIONS_RX = re.compile(r"^  line (\d+) ahci0 00:1f\.2: .*completions (\d+) by irq / (\d+) by polling", re.M)
HEALTH_RX = r"^  line {line} ahci0 00:1f\.2: ON POLLING: [^\n]*{cause}"
ICOUNT_SHIFT = 3           # -icount shift=3,sleep=off for the cases that judge a polled share
VERIFY_READS_MAX = 10      # whole-disk reads until the token is verified, before a stall case
POLLED_MAX_DIV = 50        # the design's bound: at most 2 % of healthy completions polled


def attach(path, form, aio=None):
    opt = f",aio={aio}" if aio else ""
    if form == "hda":          # QEMU's default: on q35 the first disk goes to AHCI port 0
        return ["-drive", f"file={path},format=raw,index=0,media=disk{opt}"]
    return ["-drive", f"file={path},format=raw,if=none,id=d{opt}", "-device", "ide-hd,drive=d,bus=ide.0"]


def random_disk(tmp_path, seed=1, name="disk.img", size=DISK_BYTES):
    path = str(tmp_path / name)
    return path, diskimg.make_random_image(path, size, seed)


def boot(guest_factory, extra, append="", icount=None):
    g = guest_factory(machine="q35", append=("debugexit " + append).strip(), extra=extra, icount=icount)
    return wait_shell_or_skip_aio(g, "io_uring")


def kernel_crc(g, cmd, timeout=60):
    out = g.command(cmd, timeout)
    m = CRC_RX.search(out)
    assert m, out
    return int(m.group(4), 16)


def ahci_state(g):
    out = g.command("ata")
    host, stats = HOST_RX.search(out), STATS_RX.search(out)
    assert host and stats, out
    return host.group(1), int(host.group(2)), {k: int(v) for k, v in (kv.split("=") for kv in stats.group(1).split())}


def pattern_crc(seed, lba, count):
    crc = 0
    for i in range(count):
        crc = zlib.crc32(diskimg.pattern_block(seed, lba + i), crc)
    return crc


def halt(g):
    g.command("ata flush sda")
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT


# -- found with no extra options, read right ---------------------------------------------------
@pytest.mark.parametrize("form", ["hda", "ide-hd"])
def test_q35_disk_is_found_without_options_and_its_crcs_match_the_image(guest_factory, tmp_path, form):
    path, _ = random_disk(tmp_path)
    g = boot(guest_factory, attach(path, form))
    log = "\n".join(g.lines())
    assert re.search(rf'ahci0: port 0: sda: ATA disk "QEMU HARDDISK", {DISK_SECTORS} sectors', log), log
    regions = [(0, 1), (1, 255), (200, 300), (DISK_SECTORS - 1, 1), (DISK_SECTORS - 300, 300),
               (0, DISK_SECTORS)]
    for lba, count in regions:
        want = diskimg.crc_of(path, lba * SECTOR, count * SECTOR)
        assert kernel_crc(g, f"ata crc sda {lba} {count}") == want, (lba, count)
        assert kernel_crc(g, f"blk crc sda {lba} {count}") == want, (lba, count)
    _, _, stats = ahci_state(g)
    assert stats["lost"] == 0 and stats["timeouts"] == 0 and stats["errors"] == 0, stats
    halt(g)


# -- writing, healthy and with lost interrupts --------------------------------------------------
# name: (append, shell command before the writes, the line's health cause, or None when healthy)
SCENARIOS = {
    "healthy-msi": ("", None, None),
    "healthy-intx": ("pci=nomsi", None, None),
    "noirq-100-msi": ("fault=ahci-noirq:100", None, "lost-while-expecting"),
    "noirq-100-intx": ("pci=nomsi fault=ahci-noirq:100", None, "lost-while-expecting"),
    "noirq-50-msi": ("", "inject ahci-noirq:50", "lost-while-expecting"),
    "misvector-intx": ("pci=nomsi", "inject ahci-misvector", "lost-while-expecting"),
}
PATTERN_LBA, PIECE, PIECES = 1000, 40, 6


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_pattern_written_over_ahci_is_right_on_the_host_and_nothing_else_changed(guest_factory, tmp_path,
                                                                                  scenario):
    append, before, cause = SCENARIOS[scenario]
    seed = 0xA4C10000 + len(scenario)
    path, original = random_disk(tmp_path, seed=len(scenario))
    healthy = cause is None
    if healthy:
        # the polled share is judged: guest time (icount), reads completed in it (aio=io_uring:
        # iotrace says why), and QEMU's trace of when it completed each write
        trace, trace_args = iotrace.args(tmp_path)
        g = boot(guest_factory, attach(path, "hda", aio="io_uring") + trace_args, append, icount=ICOUNT_SHIFT)
    else:
        g = boot(guest_factory, attach(path, "hda"), append)
    if before:
        assert "INJECTED" in g.command(before)
    polled_per_write = []
    for i in range(PIECES):
        lba = PATTERN_LBA + i * PIECE
        polled = completions(g)[1] if healthy else 0
        out = g.command(f"ata write-pattern sda {seed} {lba} {PIECE}", 60)
        assert re.search(rf"write-pattern sda {lba}\+{PIECE} seed {seed:#010x}: ok", out), out
        if healthy:
            polled_per_write.append(completions(g)[1] - polled)
    reads_from = completions(g)
    for i in range(PIECES):
        lba = PATTERN_LBA + i * PIECE
        assert kernel_crc(g, f"ata crc sda {lba} {PIECE}") == pattern_crc(seed, lba, PIECE), lba
    if healthy:
        # and the whole disk (32 commands of 128 KiB): with the pieces' 6, at most 2 % is none polled
        assert kernel_crc(g, f"blk crc sda 0 {DISK_SECTORS}") == diskimg.crc_of(path), "whole disk"
    kind, line, stats = ahci_state(g)
    assert kind.startswith("INTx" if "nomsi" in append else "MSI"), kind
    irqs = g.command("irqs")
    comp = COMPLETIONS_RX.search(irqs)
    assert comp and int(comp.group(1)) == line, irqs
    by_irq, by_poll = int(comp.group(2)), int(comp.group(3))
    assert stats["errors"] == 0 and stats["timeouts"] == 0, stats
    if healthy:
        # every command's interrupt came: nothing lost, nothing announced
        assert stats["lost"] == 0 and by_irq + by_poll >= 2 * PIECES, irqs
        assert "expected interrupt lost" not in g.log and "ON POLLING" not in irqs, irqs
        # the reads complete in guest time: at most 2 % of them polled
        reads = (by_irq + by_poll) - sum(reads_from)
        reads_polled = by_poll - reads_from[1]
        assert reads >= DISK_SECTORS // 256 and reads_polled <= reads // POLLED_MAX_DIV, (reads, reads_polled, irqs)
    else:
        # the health report names the line, the device and the reason
        assert re.search(HEALTH_RX.format(line=line, cause=cause), irqs, re.M), irqs
        assert by_poll > 0 or stats["lost"] > 0, irqs
        if scenario.startswith("noirq"):
            assert stats["noirq"] > 0, stats
            assert re.search(r"diagnosis: ahci0 port 0 \(sda\): ahci-noirq", g.command("ata")), "no diagnosis"
            if scenario.endswith("msi"):      # the MSI line's own health report asks the driver why
                assert re.search(rf"line {line}: its controller says: ahci0 port 0 \(sda\): ahci-noirq", irqs), irqs
        if scenario.startswith("misvector"):
            assert int(re.search(r"vectors nobody owns: (\d+)", irqs).group(1)) > 0, irqs
    print(f"{scenario}: {kind} line {line}: {by_irq} completions by interrupt, {by_poll} by polling, "
          f"driver-found {stats['lost']}")
    halt(g)
    assert diskimg.bad_pattern_blocks(path, seed, PATTERN_LBA, PIECE * PIECES) == []
    assert diskimg.changed_ranges(path, original, PATTERN_LBA, PIECE * PIECES) == []
    if healthy:
        judge_polled_writes(iotrace.writes(trace), polled_per_write)


def completions(g):
    """The AHCI line's completions (by interrupt, by polling), from `irqs`."""
    irqs = g.command("irqs")
    comp = COMPLETIONS_RX.search(irqs)
    assert comp, irqs
    return int(comp.group(2)), int(comp.group(3))


def judge_polled_writes(writes, polled_per_write):
    """Each write-pattern piece is one AHCI command and one write of QEMU's (in order). A write QEMU
    completed inside the guest's own step (iotrace: inline) completes in guest time, and at most
    2 % of those may be polled; a write the host finished later (its completion delivered by QEMU's
    I/O thread, or after a timer interrupt of the guest: icount's warp) is host-timed, and a poll
    that found it is the host's doing: accepted, and counted."""
    assert len(writes) == len(polled_per_write), (writes, polled_per_write)
    assert all(w["inline"] is not None for w in writes), writes
    inline = [p for w, p in zip(writes, polled_per_write) if w["inline"]]
    host = [p for w, p in zip(writes, polled_per_write) if not w["inline"]]
    print(f"writes: {len(inline)} completed in guest time ({sum(inline)} polled), {len(host)} host-timed "
          f"({sum(host)} polled)")
    assert sum(inline) <= len(inline) // POLLED_MAX_DIV, (writes, polled_per_write)


# -- bad input -------------------------------------------------------------------------------------
def test_lba_past_the_end_is_refused_clearly_and_the_disk_keeps_working(guest_factory, tmp_path):
    path, original = random_disk(tmp_path)
    g = boot(guest_factory, attach(path, "hda"))
    out = g.command(f"blk crc sda {DISK_SECTORS} 1")
    assert "outside the device" in out and "ERANGE" in out, out
    # Straight to the device: it must refuse (ABRT, task file error), the port recovers.
    for cmd in (f"ata raw sda read {DISK_SECTORS} 1", f"ata raw sda read {DISK_SECTORS - 1} 2",
                f"ata raw sda write {DISK_SECTORS} 1", "ata raw sda read 281474976710000 1"):
        out = g.command(cmd, 40)
        assert re.search(r"raw sda (read|write) \d+\+\d+: refused: E", out), out
        assert re.search(r"failed: status 0x[0-9a-f]+ \([^)]*ERR\), error 0x04 \(ABRT", out) or "ERANGE" in out, out
        # the next read is right: nothing hung, nothing was completed twice
        assert kernel_crc(g, f"ata crc sda {DISK_SECTORS - 8} 8") == \
            diskimg.crc_of(path, (DISK_SECTORS - 8) * SECTOR, 8 * SECTOR), cmd
    # COMRESET and port restart on request: the disk answers again, with the right data
    out = g.command("ata reset sda", 40)
    assert "sda: port 0 reset (COMRESET) ok" in out and "(diagnostic 0x01)" in out, out   # the device's reset reply
    assert kernel_crc(g, f"ata crc sda 0 {DISK_SECTORS}") == diskimg.crc_of(path)
    _, _, stats = ahci_state(g)
    assert stats["device_errors"] >= 3 and stats["timeouts"] == 0 and stats["comresets"] == 1, stats
    halt(g)
    assert diskimg.changed_ranges(path, original, 0, 0) == []


# -- ATAPI on an AHCI port, and both drivers on one machine ----------------------------------------
def test_cd_on_the_ahci_port_reads_the_iso(guest_factory):
    g = boot(guest_factory, ["-cdrom", ISO])
    blocks = os.path.getsize(ISO) // diskimg.CD_BLOCK
    out = g.command("ata")
    assert re.search(rf'sr0: port 2, ATAPI "QEMU DVD-ROM", {blocks} blocks of 2048 bytes', out), out
    assert kernel_crc(g, f"blk crc sr0 0 {blocks}", 120) == diskimg.crc_of(ISO)
    assert kernel_crc(g, f"ata crc sr0 {blocks - 1} 1") == \
        diskimg.crc_of(ISO, (blocks - 1) * diskimg.CD_BLOCK, diskimg.CD_BLOCK)


def test_piix3_ide_and_ahci_disks_are_both_found_on_q35(guest_factory, tmp_path):
    ide, _ = random_disk(tmp_path, seed=7, name="ide.img", size=2 << 20)
    sata, _ = random_disk(tmp_path, seed=8, name="sata.img")
    g = boot(guest_factory, ["-device", "piix3-ide,id=pide", "-drive", f"file={ide},format=raw,if=none,id=p0",
                             "-device", "ide-hd,drive=p0,bus=pide.0"] + attach(sata, "ide-hd"))
    assert kernel_crc(g, f"ata crc hda 0 {(2 << 20) // SECTOR}") == diskimg.crc_of(ide)
    assert kernel_crc(g, f"ata crc sda 0 {DISK_SECTORS}") == diskimg.crc_of(sata)
    assert kernel_crc(g, "ata crc 0 16") == diskimg.crc_of(ide, 0, 16 * SECTOR)   # the IDE disk stays the default


# -- the driver's own time-out while the line's CPU does not run ---------------------------------
def test_a_time_out_while_the_line_cpu_does_not_run_is_late_not_lost(guest_factory, tmp_path):
    """Two CPUs, the HBA's line on CPU 1, the token verified. `ata-cpustall:400` stops CPU 1 for
    400 ms (interrupts off, for real) as each command opens its bracket: the completion's interrupt
    waits, the verified token's safety poll waits for CPU 1 (stall_gate), and the driver's own
    250 ms wait ends first. It completes the command itself and must say "late" (its CPU did not
    run), count it as late=, never "lost interrupt" (irq_expect_cpu_ran). -icount: the stop and
    the wait are both guest time."""
    path, _ = random_disk(tmp_path)
    g = boot(guest_factory, ["-smp", "2"] + attach(path, "hda"), icount=ICOUNT_SHIFT)
    _, line, _ = ahci_state(g)
    assert "CPUs 0x2" in g.command(f"affinity {line} 1")
    # Interrupt-delivered completions verify the token. Under -icount the host's I/O time becomes
    # guest time while the vCPU idles, so beside load the polls take some completions and one read
    # may not be enough: read until `irqs` counts it verified (a learning token's polls, on CPU 0's
    # poll timer, are held by no gate and would take the stalled command's completion).
    for _ in range(VERIFY_READS_MAX):
        assert kernel_crc(g, "blk crc sda 0 8192") == diskimg.crc_of(path)
        irqs = g.command("irqs")
        if re.search(rf"^  line {line} ahci0 00:1f\.2: .*expect tokens \d+ \([1-9]\d* verified\)", irqs, re.M):
            break
    else:
        raise AssertionError(irqs)
    _, _, before = ahci_state(g)
    start = len(g.lines())
    assert "INJECTED" in g.command("inject ata-cpustall:400")
    assert kernel_crc(g, "blk crc sda 100 16") == diskimg.crc_of(path, 100 * SECTOR, 16 * SECTOR)
    assert "CPU 1 stopped 1 times (0 did not start" in g.command("inject off ata-cpustall")
    _, _, stats = ahci_state(g)
    log = "\n".join(g.lines(start))
    assert stats["late"] - before["late"] == 1, (before, stats)
    assert stats["lost"] == before["lost"] and stats["timeouts"] == 0, (before, stats)
    assert re.search(rf"ahci0: sda: .*\(line {line}\) late: its CPU did not run in 250 ms .*; the driver "
                     r"completed ", log), log
    assert "lost interrupt" not in log and "expected interrupt lost" not in log, log
    g.kill()


def test_a_completion_between_the_pxis_and_pxci_reads_is_neither_a_stray_nor_progress(guest_factory, tmp_path):
    """The handler reads PxIS, then PxCI. A command that completes between the two reads shows its
    slot clear while its status was not seen; the driver must read PxIS again, or the status stays
    set and the interrupt it raised finds it with no command waiting: a stray (a fresh clone's make
    test beside busy loops counted one in test_smp_moves). `ahci-isgap` makes the driver look at
    the port right after each issue and wait between the two reads until the command completes,
    so the completion lands there for real; `inject off` says how many looks it caught. Whole-disk
    reads (32 DMA commands each): CRCs right, strays=0 and progress=0 (a DMA read has no FIS
    before its completion), and at least one completion caught between the reads (else this run
    did not test it)."""
    path, orig = random_disk(tmp_path)
    # QEMU's throttle (40 MB/s past its burst) holds each 128 KiB read about 3 ms: the look finds it running.
    g = boot(guest_factory, attach(path + ",throttling.bps-total=40000000", "hda"))
    _, line, before = ahci_state(g)
    assert "INJECTED ahci-isgap" in g.command("inject ahci-isgap:5000")
    for _ in range(4):
        assert kernel_crc(g, f"ata crc sda 0 {DISK_SECTORS}") == zlib.crc32(orig)
    out = g.command("inject off ahci-isgap")
    m = re.search(r"ahci-isgap: off: (\d+) looks found their command running after reading PxIS; in (\d+) of them", out)
    assert m, out
    _, _, stats = ahci_state(g)
    caught = int(m.group(2))
    print(f"ahci-isgap: {m.group(1)} looks met a running command, {caught} caught its completion between the reads; "
          f"stats {stats}")
    assert caught >= 1, out
    assert stats["strays"] == before["strays"] and stats["progress"] == before["progress"], (caught, before, stats)
    assert stats["lost"] == 0 and stats["timeouts"] == 0 and stats["errors"] == 0, stats
    halt(g)
