"""Lines moved round the CPUs while they fire (docs/smp.md, "Affinity"; docs/msi.md, "Moving a
message line"): the UHCI's IOAPIC line under USB mass storage and keyboard traffic, and the
message-signalled lines of q35's AHCI (MSI without mask bits) and of an NVMe controller (MSI-X)
under disk traffic.

Multi-threaded TCG (`-accel tcg,thread=multi`): the vCPUs run in parallel on the host's cores,
so a handler on CPU 1 really runs at the same time as the shell's thread on CPU 0.
`affinity IRQ 0,1 every 1` moves the line to the other CPU every millisecond from a timer on CPU 0.
Every data check is the host's: the kernel prints CRC-32s of what it read, compared with zlib
over the image; the seeded pattern it wrote is checked after QEMU exits by diskimg.py's own
implementation, with every sector outside it unchanged. The line's interrupts must have been
taken on both CPUs (the per-CPU table of `irqs`): a move that does not reach the device (the
MSI chip not rewriting the message address) leaves them all on CPU 0 and fails here.
"""
import re

import diskimg
from irqkit_qemu import EXIT_HALT

MT_ACCEL = "tcg,thread=multi"
SECTOR = diskimg.SECTOR
CRC_RX = re.compile(r"crc32 (\w+) (\d+)\+(\d+) = ([0-9a-f]{8}) ")
MOVES_RX = r"affinity: irq {line} stopped moving after (\d+) moves \((\d+) refused\)"
MOVE_EVERY_MS = 1
MIN_MOVES = 200


def boot(guest_factory, machine, extra, smp=2):
    g = guest_factory(append="debugexit", machine=machine, accel=MT_ACCEL,
                      extra=["-smp", str(smp)] + list(extra))
    g.wait_shell(120)
    return g


def kernel_crc(g, cmd, timeout=120):
    out = g.command(cmd, timeout)
    m = CRC_RX.search(out)
    assert m, out
    return int(m.group(4), 16)


def start_moving(g, line, smp=2):
    cpus = ",".join(str(c) for c in range(smp))
    out = g.command(f"affinity {line} {cpus} every {MOVE_EVERY_MS}")
    assert "moves round CPUs" in out, out


def moves_so_far(g, line):
    out = g.command("affinity")
    m = re.search(rf"^irq {line}: (\d+) moves so far", out, re.M)
    assert m, out
    return int(m.group(1))


def read_while_moving(g, line, dev, sectors, want, rounds_max=40):
    """CRC reads of the whole disk, at least two, until the line has moved MIN_MOVES times."""
    for n in range(rounds_max):
        assert kernel_crc(g, f"blk crc {dev} 0 {sectors}") == want, (dev, n)
        if n >= 1 and moves_so_far(g, line) >= MIN_MOVES:
            return n + 1
    raise AssertionError(f"{dev}: irq {line} moved fewer than {MIN_MOVES} times in {rounds_max} reads")


def stop_moving(g, line):
    out = g.command(f"affinity {line} 0")
    m = re.search(MOVES_RX.format(line=line), out)
    assert m and int(m.group(1)) >= MIN_MOVES and int(m.group(2)) == 0, out


def per_cpu(g, line):
    """The line's interrupts per CPU, from the per-CPU table of `irqs`."""
    out = g.command("irqs")
    row = re.search(rf"^\s+0x[0-9a-f]{{2}}\s+irq {line}\s+([\d ]+)$", out, re.M)
    assert row, f"line {line} missing from the per-CPU table:\n{out}"
    return [int(x) for x in row.group(1).split()]


def halt(g):
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT


# ---- USB: the UHCI's line --------------------------------------------------------------------

USB_BYTES = 1 << 20
KBD_BOUND_RX = r"usb-kbd0: boot keyboard on \w+ port 1 "
LINE_RX = r"^uhci0: \S+ I/O 0x[0-9a-f]+, line (\d+),"


def test_uhci_line_moved_every_millisecond_during_usb_storage_and_keyboard_traffic(guest_factory, tmp_path):
    """The UHCI driver's lock (drivers/usb/uhci.c, top): its handler on CPU 1 while the shell's
    thread waits on CPU 0. The stick is read and written, keys are typed on the USB keyboard
    while the line moves: all CRCs right, the pattern right on the host and nothing else
    touched, every key echoed in order, no transfer timed out, the line's interrupts on both
    CPUs."""
    uhci_moves(guest_factory, tmp_path, smp=2)


def test_with_four_cpus_the_uhci_line_moved_round_all_four(guest_factory, tmp_path):
    """-smp 4: the same traffic with the line moved round CPUs 0, 1, 2 and 3 every millisecond;
    the line's interrupts must have been taken on all four (a chip that can only name CPUs 0
    and 1 fails here)."""
    uhci_moves(guest_factory, tmp_path, smp=4)


def uhci_moves(guest_factory, tmp_path, smp):
    from test_usb_kbd import type_text, wait_echo
    path = str(tmp_path / "stick.img")
    original = diskimg.make_random_image(path, USB_BYTES, seed=11)
    g = boot(guest_factory, "pc", ["-usb", "-device", "usb-kbd,port=1",
                                   "-drive", f"if=none,id=us,file={path},format=raw",
                                   "-device", "usb-storage,drive=us,port=2"], smp=smp)
    g.wait_for(r"usba: USB mass storage .*per command\n", 60)
    g.wait_for(KBD_BOUND_RX, 60)
    m = re.search(LINE_RX, g.command("lsusb"), re.M)
    assert m, g.command("lsusb")
    line = int(m.group(1))
    sectors = USB_BYTES // SECTOR
    want = diskimg.crc_of(path)
    seed, lba, count = 0x5EED0A11, 600, 300
    start_moving(g, line, smp)
    read_while_moving(g, line, "usba", sectors, want)
    start = len(g.log)
    type_text(g, "uptime\r")
    wait_echo(g, r"uptime\nup \d+\.\d{3} s, \d+ ticks at \d+ Hz.*\nirqkit> ", start, 60)
    out = g.command(f"blk write-pattern usba {seed} {lba} {count}", 120)
    assert re.search(rf"write-pattern usba {lba}\+{count} seed {seed:#010x}: ok", out), out
    stop_moving(g, line)
    stats = re.search(r"transfers (\d+), errors (\d+), time-outs (\d+)", g.command("lsusb"))
    assert stats and int(stats.group(2)) == 0 and int(stats.group(3)) == 0, stats and stats.group(0)
    counts = per_cpu(g, line)
    print(f"usba: irq {line} per CPU {counts}, {stats.group(1)} transfers")
    assert len(counts) == smp and all(c > 0 for c in counts), f"irq {line} per CPU: {counts}"
    halt(g)
    assert diskimg.bad_pattern_blocks(path, seed, lba, count) == []
    assert diskimg.changed_ranges(path, original, lba, count) == []


# ---- MSI: q35's AHCI and an NVMe controller ----------------------------------------------------

DISK_BYTES = 2 << 20


def test_ahci_msi_and_nvme_msix_lines_moved_every_millisecond_during_disk_traffic(guest_factory, tmp_path):
    """q35 with its AHCI disk (MSI, no per-vector masking: the address is rewritten live by one
    32-bit write) and an NVMe controller (MSI-X: the entry masked around the write). Each
    line is moved round both CPUs while its disk is read and written: CRCs right, pattern
    right on the host, no command timed out or taken by the driver's lost-interrupt check,
    and the line's interrupts on both CPUs."""
    ahci_path, nvme_path = str(tmp_path / "ahci.img"), str(tmp_path / "nvme.img")
    ahci_orig = diskimg.make_random_image(ahci_path, DISK_BYTES, seed=21)
    nvme_orig = diskimg.make_random_image(nvme_path, DISK_BYTES, seed=22)
    g = boot(guest_factory, "q35", ["-drive", f"file={ahci_path},format=raw,index=0,media=disk",
                                    "-drive", f"file={nvme_path},format=raw,if=none,id=n",
                                    "-device", "nvme,serial=irqkit,drive=n,addr=04.0"])
    ata = g.command("ata")
    m = re.search(r"^ahci0: pci 00:1f\.2 .*?, MSI line (\d+), handler registered", ata, re.M)
    assert m, ata
    ahci_line = int(m.group(1))
    nvme = g.command("nvme")
    m = re.search(r"nvme0q1: I/O queue 1, \d+ entries, line (\d+)", nvme)
    assert m and "MSI-X" in nvme, nvme
    nvme_line = int(m.group(1))
    sectors = DISK_BYTES // SECTOR
    plan = {"sda": (ahci_line, ahci_path, ahci_orig, 0x5EED0A1C, 1000, 1500),
            "nvme0n1": (nvme_line, nvme_path, nvme_orig, 0x5EED0E0E, 2000, 1500)}
    for dev, (line, path, _, seed, lba, count) in plan.items():
        want = diskimg.crc_of(path)
        start_moving(g, line)
        rounds = read_while_moving(g, line, dev, sectors, want)
        out = g.command(f"blk write-pattern {dev} {seed} {lba} {count}", 120)
        assert re.search(rf"write-pattern {dev} {lba}\+{count} seed {seed:#010x}: ok", out), out
        stop_moving(g, line)
        counts = per_cpu(g, line)
        print(f"{dev}: irq {line} per CPU {counts} after {rounds} whole-disk reads and a pattern write")
        assert len(counts) == 2 and all(c > 0 for c in counts), f"{dev}: irq {line} per CPU: {counts}"
    st = re.search(r"^  sda: .*\n    stats: (.*)$", g.command("ata"), re.M)
    assert st, "no sda stats"
    kv = {k: int(v) for k, v in (x.split("=") for x in st.group(1).split())}
    assert kv["timeouts"] == 0 and kv["lost"] == 0 and kv["errors"] == 0 and kv["strays"] == 0, kv
    q = re.search(r"nvme0q1: .*commands (\d+): (\d+) by interrupt or core poll, (\d+) found by the driver's "
                  r"wait.*?(\d+) timed out, (\d+) failed, (\d+) stray", g.command("nvme"))
    assert q and int(q.group(3)) == 0 and int(q.group(4)) == 0 and int(q.group(6)) == 0, q and q.group(0)
    assert "flush nvme0n1: ok" in g.command("blk flush nvme0n1")
    g.command("ata flush sda")
    # The msi selftests on q35's e1000e with a second CPU online: a moved message arrives on the
    # new CPU once, and a move keeps a mask set behind the core's back (drivers/pci/msi_selftest.c).
    ktap = g.command("selftest msi", 60)
    results = dict((name, r) for r, name in re.findall(r"^(ok|not ok) \d+ (msi\.\S+)", ktap, re.M))
    assert results and all(r == "ok" for r in results.values()), ktap
    for case in ("msi.affinity_moves_the_message_to_another_cpu_and_back",
                 "msi.a_move_keeps_a_fault_mask_and_its_diagnosis"):
        assert results.get(case) == "ok" and not re.search(rf"{re.escape(case)} # SKIP", ktap), ktap
    halt(g)
    for dev, (_, path, orig, seed, lba, count) in plan.items():
        assert diskimg.bad_pattern_blocks(path, seed, lba, count) == [], dev
        assert diskimg.changed_ranges(path, orig, lba, count) == [], dev
