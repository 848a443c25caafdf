"""The NVMe driver (drivers/nvme) and message-signalled interrupts end to end in QEMU.

As in test_ata.py every data check is done on the host against the image file: the kernel
prints CRC-32s of what it read (compared with zlib.crc32 of the same bytes), and the seeded
pattern it writes (docs/ata.md, "The test pattern") is checked block by block after QEMU
exited with diskimg.py's own implementation, together with every block outside the range.

QEMU's NVMe (1b36:0010) has MSI-X only; `pci=nomsi` gives it its INTx pin. The faults make
completions come without an interrupt for real (nvme-noirq: the I/O CQ recreated with IEN=0,
or INTMS; msi-mask: the MSI-X entry masked behind the core's back; msi-misvector: the message
sent to a vector nobody owns); the data must stay right and `irqs` must name the line, the
queue's action and the reason.
"""
import re

import pytest

import diskimg
import iotrace
from irqkit_qemu import EXIT_HALT, wait_shell_or_skip_aio

MIB = 1 << 20
SECTOR = diskimg.SECTOR
DISK_BYTES = 4 * MIB
DISK_BLOCKS = DISK_BYTES // SECTOR
CRC_RX = re.compile(r"crc32 (\S+) (\d+)\+(\d+) = ([0-9a-f]{8}) ")
PIECE = 256                  # blocks per command: 128 KiB, the driver's largest (a PRP list)
PATTERN_LBA = 1000           # an odd place: neither 4 KiB- nor 128 KiB-aligned
PIECES = 3
ICOUNT_SHIFT = 3             # -icount shift=3,sleep=off where a healthy queue's polled share is judged
POLLED_MAX_DIV = 50          # the design's bound: at most 2 % of healthy completions polled


def nvme_drive(path, addr="04.0", aio=None):
    dev = f"nvme,serial=irqkit,drive=n,addr={addr}"
    return ["-drive", f"file={path},if=none,id=n,format=raw" + (f",aio={aio}" if aio else ""), "-device", dev]


def boot(guest_factory, machine, path, append="", extra=(), icount=None, aio=None):
    g = guest_factory(machine=machine, append=("debugexit " + append).strip(),
                      extra=nvme_drive(path, aio=aio) + list(extra), icount=icount)
    return wait_shell_or_skip_aio(g, aio)


def kernel_crc(g, dev, lba, count):
    out = g.command(f"blk crc {dev} {lba} {count}", 60)
    m = CRC_RX.search(out)
    assert m, out
    return int(m.group(4), 16)


def pattern_crc(seed, lba, count):
    import zlib
    crc = 0
    for i in range(count):
        crc = zlib.crc32(diskimg.pattern_block(seed, lba + i), crc)
    return crc


def nvme_counts(g):
    """{queue name: {commands, irq, wait, timeouts, failed, stray}} from the `nvme` command."""
    out = g.command("nvme")
    rows = {}
    for m in re.finditer(r"^  (nvme0q\d): .*commands (\d+): (\d+) by interrupt or core poll, (\d+) found by the "
                         r"driver's wait .*?, (\d+) timed out, (\d+) failed, (\d+) stray", out, re.M):
        rows[m.group(1)] = dict(zip(("commands", "irq", "wait", "timeouts", "failed", "stray"),
                                    map(int, m.groups()[1:])))
    assert {"nvme0q0", "nvme0q1"} <= set(rows), out
    return rows, out


def halt(g):
    assert "flush nvme0n1: ok" in g.command("blk flush nvme0n1")
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT


def random_disk(tmp_path, seed, size=DISK_BYTES):
    path = str(tmp_path / "nvme.img")
    return path, diskimg.make_random_image(path, size, seed)


# -- reading ---------------------------------------------------------------------------------
@pytest.mark.parametrize("machine", ["pc", "q35"])
def test_nvme_crc_of_regions_matches_the_image_including_the_last_block(guest_factory, tmp_path, machine):
    path, _ = random_disk(tmp_path, seed=17)
    g = boot(guest_factory, machine, path)
    log = "\n".join(g.lines())
    assert re.search(r"nvme0: .*interrupts: MSI-X per queue, lines 3\d/3\d", log), log
    assert re.search(rf"nvme0n1: {DISK_BLOCKS} blocks of 512 bytes", log), log
    for lba, count in [(0, 1), (1, 255), (7, 300), (DISK_BLOCKS - 1, 1), (DISK_BLOCKS - 300, 300),
                       (0, DISK_BLOCKS)]:
        assert kernel_crc(g, "nvme0n1", lba, count) == diskimg.crc_of(path, lba * SECTOR, count * SECTOR), (lba, count)
    rows, out = nvme_counts(g)
    assert rows["nvme0q1"]["wait"] == 0 and rows["nvme0q1"]["timeouts"] == 0, out


# -- writing, healthy and with completions that raise no interrupt ------------------------------
# name: (machine, append, fault to inject, reason the health section must give, or None if healthy)
SCENARIOS = {
    "pc-msix": ("pc", "", None, None),
    "q35-msix": ("q35", "", None, None),
    "q35-msix-nvme-noirq": ("q35", "", "nvme-noirq", r"I/O completion queue 1 was created with interrupts disabled \(IEN=0\)"),
    "q35-msix-msi-mask": ("q35", "", "msi-mask", r"PCI-MSI-X 00:04\.0 entry 1 masked at the device \(vector control\) behind the core's back"),
    "q35-msix-msi-misvector": ("q35", "", "msi-misvector", r"PCI-MSI-X 00:04\.0 entry 1 sends vector 0x[0-9a-f]{2}, which nobody owns"),
    "q35-nomsi-nvme-noirq": ("q35", "pci=nomsi", "nvme-noirq", None),
    "pc-nomsi-nvme-noirq": ("pc", "pci=nomsi", "nvme-noirq", None),
    # the 8259 delivers the pins, but messages go to the local APIC all the same
    "pc-noapic-msix-msi-mask": ("pc", "noapic", "msi-mask", r"PCI-MSI-X 00:04\.0 entry 1 masked at the device"),
}


def io_line(g):
    m = re.search(r"nvme0q1: I/O queue 1, \d+ entries, line (\d+)", g.command("nvme"))
    assert m
    return int(m.group(1))


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_nvme_pattern_is_right_on_the_host_and_lost_completions_are_named(guest_factory, tmp_path, scenario):
    machine, append, fault, reason = SCENARIOS[scenario]
    seed = 0x5EED0100 + len(scenario)
    path, original = random_disk(tmp_path, seed=len(scenario))
    g = boot(guest_factory, machine, path, append)
    line = io_line(g)
    if "nomsi" in append:
        assert line < 32, f"pci=nomsi still gave message line {line}"
    else:
        assert line >= 32
    if fault:
        assert "INJECTED" in g.command(f"inject {fault}")
    for i in range(PIECES):
        lba = PATTERN_LBA + i * PIECE
        out = g.command(f"blk write-pattern nvme0n1 {seed} {lba} {PIECE}", 60)
        assert re.search(rf"write-pattern nvme0n1 {lba}\+{PIECE} seed {seed:#010x}: ok", out), out
    for i in range(PIECES):
        lba = PATTERN_LBA + i * PIECE
        assert kernel_crc(g, "nvme0n1", lba, PIECE) == pattern_crc(seed, lba, PIECE), lba
    rows, out = nvme_counts(g)
    io = rows["nvme0q1"]
    assert io["timeouts"] == 0 and io["failed"] == 0 and io["stray"] == 0, out
    irqs = g.command("irqs")
    if fault:
        # the core's expect polls found the completions (not the driver's 100 ms look)
        assert re.search(rf"^  line {line}: ON POLLING \(lost-while-expecting\)", irqs, re.M), irqs
        assert re.search(rf"^  line {line} nvme0q1: ON POLLING: lost-while-expecting", irqs, re.M), irqs
        polled = re.search(r"nvme0q1: ON POLLING.*completions 0 by irq / (\d+) by polling", irqs)
        assert polled and int(polled.group(1)) >= 2 * PIECES, irqs
        if reason:
            assert re.search(rf"^  line {line}: its controller says: .*{reason}", irqs, re.M), irqs
        else:  # INTx: the reason is the controller's INTMS, named by the fault and `nvme`
            assert re.search(r"fault: nvme0: INTMS masks interrupt vector 0 \(INTx, line \d+\)", g.log), g.log[-3000:]
            assert re.search(r"INTMS 00000001", out), out
    else:
        assert re.search(r"every line with handlers delivers by interrupt", irqs), irqs
        assert io["wait"] == 0, out
    halt(g)
    count = PIECES * PIECE
    assert diskimg.bad_pattern_blocks(path, seed, PATTERN_LBA, count) == []
    assert diskimg.changed_ranges(path, original, PATTERN_LBA, count) == []


def test_msi_faults_with_pci_nomsi_say_there_is_nothing_to_fault(guest_factory, tmp_path):
    path, _ = random_disk(tmp_path, seed=5)
    g = boot(guest_factory, "q35", path, "pci=nomsi")
    out = g.command("inject msi-mask")
    assert "no message vectors" in out and "INJECTED" not in out, out


# -- large namespaces ---------------------------------------------------------------------------
def test_nvme_reads_and_writes_above_2_to_the_32_blocks_of_a_sparse_3_tib_namespace(guest_factory, tmp_path):
    size = 3 << 40
    blocks = size // SECTOR
    path = str(tmp_path / "huge.img")
    diskimg.make_sparse_image(path, size)
    high = (1 << 32) + 4321
    marker = bytes(range(256)) * (16 * SECTOR // 256)
    diskimg.write_at(path, (high + 100) * SECTOR, marker)
    g = boot(guest_factory, "q35", path)
    assert re.search(rf"nvme0n1: {blocks} blocks of 512 bytes", "\n".join(g.lines())), g.log
    assert kernel_crc(g, "nvme0n1", high + 100, 16) == diskimg.crc_of(path, (high + 100) * SECTOR, 16 * SECTOR)
    assert "ok" in g.command(f"blk write-pattern nvme0n1 32 {high} 64")
    assert "ok" in g.command(f"blk write-pattern nvme0n1 99 {blocks - 3} 3")
    halt(g)
    assert diskimg.bad_pattern_blocks(path, 32, high, 64) == []
    assert diskimg.bad_pattern_blocks(path, 99, blocks - 3, 3) == []
    assert diskimg.read_at(path, (high - 1) * SECTOR, SECTOR) == bytes(SECTOR)
    assert diskimg.read_at(path, (high + 64) * SECTOR, SECTOR) == bytes(SECTOR)
    assert diskimg.read_at(path, (high + 100) * SECTOR, 16 * SECTOR) == marker
    # a truncated 32-bit LBA would have landed here
    assert diskimg.read_at(path, 4321 * SECTOR, 64 * SECTOR) == bytes(64 * SECTOR)


# -- bad input ------------------------------------------------------------------------------------
def test_a_read_past_the_end_is_refused_by_the_controller_decoded_and_nothing_hangs(guest_factory, tmp_path):
    path, _ = random_disk(tmp_path, seed=9)
    g = boot(guest_factory, "q35", path)
    # the block layer refuses it before the driver ...
    assert "ERANGE" in g.command(f"blk crc nvme0n1 {DISK_BLOCKS - 1} 2")
    # ... and the controller refuses what the layer did not check: an aborted command, decoded
    out = g.command(f"nvme raw-read nvme0n1 {DISK_BLOCKS - 1} 2", 30)
    assert re.search(r"raw-read nvme0 \d+\+2: failed \(-34\)", out), out
    assert re.search(r"nvme0: READ failed: Generic / LBA Out of Range \(sct 0 sc 0x80", g.log), g.log[-2000:]
    out = g.command(f"nvme raw-read nvme0n1 {1 << 40} 1", 30)
    assert "failed (-34)" in out, out
    # the controller answers on: the next read is right, nothing timed out or was reset
    assert kernel_crc(g, "nvme0n1", DISK_BLOCKS - 1, 1) == diskimg.crc_of(path, (DISK_BLOCKS - 1) * SECTOR, SECTOR)
    rows, out = nvme_counts(g)
    assert rows["nvme0q1"]["failed"] == 2 and rows["nvme0q1"]["timeouts"] == 0, out
    assert "resets 0" in out and "DEAD" not in out, out


@pytest.mark.parametrize("append", ["", "pci=nomsi"], ids=["msix", "nomsi"])
def test_nvme_noirq_50_loses_half_the_completions_and_the_data_stays_right(guest_factory, tmp_path, append):
    """nvme-noirq:50: MSI-X sends the chosen half through queue pair 2 (its CQ has IEN=0, action
    nvme0q2 on the I/O line); pin mode masks the vector in INTMS around each chosen command.
    With MSI-X queue 1 stays healthy and its polled share is judged: at most 2 % of its reads
    (guest time: -icount sleep=off, aio=io_uring, see test_ata.boot_io_uring), and a polled write
    only where QEMU's trace (iotrace) shows the host finished that write later."""
    seed, pieces = 0x5EED0050, 8
    path, original = random_disk(tmp_path, seed=50)
    judged = not append
    if judged:
        trace, trace_args = iotrace.args(tmp_path)
        g = boot(guest_factory, "q35", path, append, trace_args, icount=ICOUNT_SHIFT, aio="io_uring")
    else:
        # Guest time too: on the host's time (a fresh clone beside two busy loops) the distrusted
        # token's polls took all 16 of queue 1's completions before the half whose interrupts
        # work could deliver one ("0 by irq")
        g = boot(guest_factory, "q35", path, append, icount=ICOUNT_SHIFT, aio="io_uring")
    assert "INJECTED" in g.command("inject nvme-noirq:50")
    q1_writes, q1_reads = [], []    # per piece: (completions, of them polled) of queue 1
    c0 = q1_completions(g) if judged else None
    for i in range(pieces):
        lba = PATTERN_LBA + i * PIECE
        assert "ok" in g.command(f"blk write-pattern nvme0n1 {seed} {lba} {PIECE}", 60)
        c1 = q1_completions(g) if judged else None
        assert kernel_crc(g, "nvme0n1", lba, PIECE) == pattern_crc(seed, lba, PIECE), lba
        if judged:
            c2 = q1_completions(g)
            q1_writes.append((sum(c1) - sum(c0), c1[1] - c0[1]))
            q1_reads.append((sum(c2) - sum(c1), c2[1] - c1[1]))
            c0 = c2
    rows, out = nvme_counts(g)
    irqs = g.command("irqs")
    if append:
        assert "INTMS around each chosen command" in out, out
        polled = re.search(r"nvme0q1: .*completions (\d+) by irq / (\d+) by polling", irqs)
        assert polled and int(polled.group(1)) > 0 and int(polled.group(2)) > 0, irqs
    else:
        q2 = re.search(r"^  nvme0q2: I/O queue 2, .*CQ interrupts DISABLED \(IEN=0\); commands (\d+)", out, re.M)
        q1 = rows["nvme0q1"]["commands"]
        assert q2 and 0 < int(q2.group(1)) < 2 * pieces and q1 > 0, out   # about half each way
        assert re.search(r"nvme0q2: ON POLLING: lost-while-expecting.*completions 0 by irq", irqs), irqs
        # Queue 1's interrupts work: never reported, and hardly polled (its reads complete in guest
        # time; a polled write only where the host finished it later)
        q1_irqs = re.search(r"nvme0q1: watch \w+ .*completions ([1-9]\d*) by irq / (\d+) by polling", irqs)
        assert q1_irqs, irqs
        assert not re.search(r"nvme0q1: ON POLLING", irqs) and 'nvme0q1": expected interrupt lost' not in g.log, irqs
        reads, reads_polled = sum(n for n, _ in q1_reads), sum(p for _, p in q1_reads)
        assert reads > 0 and reads_polled <= reads // POLLED_MAX_DIV, (q1_reads, irqs)
    assert "INJECTED" not in g.command("inject off nvme-noirq")
    assert "nvme0q2" not in g.command("nvme")
    halt(g)
    assert diskimg.bad_pattern_blocks(path, seed, PATTERN_LBA, pieces * PIECE) == []
    assert diskimg.changed_ranges(path, original, PATTERN_LBA, pieces * PIECE) == []
    if judged:
        judge_queue1_writes(iotrace.writes(trace), q1_writes)


def q1_completions(g):
    """Queue 1's completions (by interrupt, by polling), from `irqs`."""
    irqs = g.command("irqs")
    m = re.search(r"nvme0q1: (?:ON POLLING: \S+, )?watch \w+ .*completions (\d+) by irq / (\d+) by polling", irqs)
    assert m, irqs
    return int(m.group(1)), int(m.group(2))


def judge_queue1_writes(writes, q1_writes):
    """Each write-pattern piece is one NVMe command (128 KiB) and one write of QEMU's, in order; a
    piece queue 1 completed by polling is accepted only where the host finished its write later
    (iotrace: host-timed); of the rest at most 2 %."""
    assert len(writes) == len(q1_writes), (writes, q1_writes)
    mine = [(w["inline"], polled) for w, (n, polled) in zip(writes, q1_writes) if n]
    assert mine and all(inline is not None for inline, _ in mine), (writes, q1_writes)
    inline = [polled for il, polled in mine if il]
    host = [polled for il, polled in mine if not il]
    print(f"queue 1 writes: {len(inline)} completed in guest time ({sum(inline)} polled), {len(host)} "
          f"host-timed ({sum(host)} polled)")
    assert sum(inline) <= len(inline) // POLLED_MAX_DIV, (q1_writes, [w["inline"] for w in writes])


def test_a_controller_that_stops_answering_is_reported_and_reset(guest_factory, tmp_path):
    """nvme-disable clears CC.EN behind the driver's back: the next READ never completes. The
    driver must give up after NVME_IO_TIMEOUT_MS (5 s) with -ETIMEDOUT, say so, reset the
    controller, and read right afterwards; the abandoned command is never completed later."""
    path, _ = random_disk(tmp_path, seed=11)
    g = boot(guest_factory, "q35", path)
    assert "INJECTED" in g.command("inject nvme-disable")
    out = g.command("blk crc nvme0n1 0 16", 60)
    assert "ETIMEDOUT" in out, out
    assert re.search(r"nvme0: READ \(I/O queue 1, command 0x[0-9a-f]{4}\) not completed in 5000 ms: the controller "
                     r"stopped answering", g.log), g.log[-3000:]
    assert re.search(r"nvme0: resetting the controller \(a command timed out\), reset 1", g.log)
    assert "nvme0: controller reset and answering again" in g.log
    assert kernel_crc(g, "nvme0n1", 0, 16) == diskimg.crc_of(path, 0, 16 * SECTOR)
    rows, out = nvme_counts(g)
    assert rows["nvme0q1"]["timeouts"] == 1 and rows["nvme0q1"]["stray"] == 0, out
    assert "resets 1" in out and "DEAD" not in out, out


# -- the driver's own look while the queue's CPU does not run ------------------------------------
LATE_RX = re.compile(r"^  nvme0q1: I/O queue 1, \d+ entries, line (\d+) .*?(\d+) found by the driver's wait "
                     r"\(lost, max \d+ us\), late=(\d+) .*?, (\d+) timed out", re.M)


def q1_stats(g):
    out = g.command("nvme")
    m = LATE_RX.search(out)
    assert m, out
    line, lost, late, timeouts = map(int, m.groups())
    return dict(line=line, lost=lost, late=late, timeouts=timeouts)


def test_a_time_out_while_the_line_cpu_does_not_run_is_late_not_lost(guest_factory, tmp_path):
    """Two CPUs, the shell's I/O queue (nvme0q1) with its vector on CPU 1, its token verified by a
    read. `nvme-cpustall:400` stops CPU 1 for 400 ms (interrupts off, for real) as each command's
    expect opens: the completion's interrupt waits in CPU 1's local APIC, the verified token's
    safety poll waits for CPU 1, and the driver's own look after NVME_IRQ_WAIT_MS (100 ms) finds
    the completion first. It must say "late: its CPU did not run", count it as late=, never "lost
    interrupt" (irq_expect_cpu_ran). -icount: the stop and the wait are both guest time."""
    path = str(tmp_path / "nvme.img")
    diskimg.make_random_image(path, DISK_BYTES, seed=43)
    g = boot(guest_factory, "q35", path, extra=["-smp", "2"], icount=ICOUNT_SHIFT)
    line = q1_stats(g)["line"]
    assert "CPUs 0x2" in g.command(f"affinity {line} 1")
    with open(path, "rb") as f:
        data = f.read()
    import zlib
    # Interrupt-delivered completions verify the queue's token (expect_verify_goal: 32 or 256).
    # Read until `irqs` counts it verified: "expect tokens 1 (1 verified)", not "(0 verified)".
    # A learning token's polls run on its poll timer (CPU 0) and no gate holds them for CPU 1, so
    # one would take the stalled read's completion within its learned latency (neither late nor
    # lost); beside two busy loops the first read's completions came half by poll (16 of 32).
    for _ in range(10):
        assert kernel_crc(g, "nvme0n1", 0, DISK_BLOCKS) == zlib.crc32(data)
        irqs = g.command("irqs")
        if re.search(r"line \d+ nvme0q1: .*expect tokens \d+ \([1-9]\d* verified\)", irqs):
            break
    else:
        raise AssertionError(irqs)
    before = q1_stats(g)
    start = len(g.lines())
    assert "INJECTED" in g.command("inject nvme-cpustall:400")
    assert kernel_crc(g, "nvme0n1", 100, 16) == zlib.crc32(data[100 * SECTOR:116 * SECTOR])
    assert "CPU 1 stopped 1 times (0 did not start" in g.command("inject off nvme-cpustall")
    stats = q1_stats(g)
    log = "\n".join(g.lines(start))
    assert stats["late"] - before["late"] == 1, (before, stats, log)
    assert stats["lost"] == before["lost"] and stats["timeouts"] == before["timeouts"], (before, stats)
    assert re.search(rf"nvme0: I/O queue 1 line {line} \(\S+ vector \d+\) late: its CPU did not run in \d+ ms .*"
                     r"the driver took command 0x[0-9a-f]{4} by polling", log), log
    assert "lost interrupt" not in log and "expected interrupt lost" not in log, log
    g.kill()
