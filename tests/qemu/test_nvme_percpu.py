"""NVMe I/O queue pairs per CPU, driven from two CPUs at once (docs/nvme.md, "A queue pair per
CPU"; docs/smp.md, "Thread-context work on another CPU").

q35 with `-smp 2` under multi-threaded TCG (`-accel tcg,thread=multi`: the vCPUs run in parallel
on the host's cores). `oncpu start 1 blk write-pattern ...` has CPU 1's idle loop write a seeded
pattern through CPU 1's own queue pair while CPU 0's shell writes another region through CPU 0's;
`oncpu wait 1` collects CPU 1's output. The kernel never grades itself: after QEMU exits the host
checks both regions block by block with diskimg.py's own pattern, and that every other block of
the image is as it was.

Cells: a pair per CPU (QEMU's default grants 64), each pair's MSI-X line on its CPU (the per-CPU
table of `irqs`); `max_ioqpairs=1`, where the controller grants one pair and both CPUs share it
(the queue's claim keeps their commands apart); `msix_qsize=2`, where the MSI-X table has room for
the admin queue and one pair; `pci=nomsi`, both pairs on the one INTx line
(CPU 1's completions taken by the handler on CPU 0, which wakes CPU 1). With `nvme-noirq`,
`msi-mask` or `msi-misvector` and CPU 1 writing, the health report must name CPU 1's queue line,
queue and reason, and CPU 0's line must stay on interrupts. `nvme-disable` with a write in flight
on each CPU: one reset, neither write claims success, both pairs work after it.
"""
import re

import pytest

import diskimg
from irqkit_qemu import EXIT_HALT

MT_ACCEL = "tcg,thread=multi"
SECTOR = diskimg.SECTOR
DISK_BYTES = 16 << 20
CPU1_LBA, CPU1_COUNT, CPU1_SEED = 1000, 16000, 0x5EED0C01    # ~8 MiB: CPU 1 is still writing when CPU 0 starts
CPU0_LBA, CPU0_COUNT, CPU0_SEED = 20000, 4000, 0x5EED0C00
ONCPU_RX = re.compile(r"oncpu: CPU 1: `(.*)` returned (-?\d+) \((\w+)\), ran \d+ ms \(from (\d+) us to (\d+) us since boot\)")
QUEUE_RX = re.compile(r"^  (nvme0q\d): (?:admin|I/O) queue \d+, \d+ entries, line (\d+) .*commands (\d+): (\d+) by interrupt "
                      r"or core poll, (\d+) found by the driver's wait .*?, (\d+) timed out, (\d+) failed, (\d+) stray.*"
                      r"; CPUs ([\w,]+), (\d+) claims waited", re.M)


def boot(guest_factory, tmp_path, device_opts="", append="debugexit"):
    path = str(tmp_path / "nvme.img")
    original = diskimg.make_random_image(path, DISK_BYTES, seed=41)
    g = guest_factory(append=append, machine="q35", accel=MT_ACCEL,
                      extra=["-smp", "2", "-drive", f"file={path},if=none,id=n,format=raw",
                             "-device", f"nvme,serial=irqkit,drive=n,addr=04.0{device_opts}"])
    g.wait_shell(120)
    return g, path, original


def queues(g):
    out = g.command("nvme")
    rows = {}
    for m in QUEUE_RX.finditer(out):
        name, line, commands, irq, wait, timeouts, failed, stray, cpus, claims = m.groups()
        rows[name] = dict(line=int(line), commands=int(commands), irq=int(irq), wait=int(wait),
                          timeouts=int(timeouts), failed=int(failed), stray=int(stray), cpus=cpus,
                          claims=int(claims))
    assert "nvme0q0" in rows and "nvme0q1" in rows, out
    return rows, out


def uptime_us(g):
    m = re.search(r"up (\d+)\.(\d{3}) s", g.command("uptime"))
    assert m
    return (int(m.group(1)) * 1000 + int(m.group(2))) * 1000


def write_from_both_cpus(g):
    """CPU 1's pattern started first, CPU 0's written meanwhile; RETURNS (CPU 1's window, CPU 0's)."""
    out = g.command(f"oncpu start 1 blk write-pattern nvme0n1 {CPU1_SEED} {CPU1_LBA} {CPU1_COUNT}")
    assert "oncpu: CPU 1: started" in out, out
    t0 = uptime_us(g)
    out = g.command(f"blk write-pattern nvme0n1 {CPU0_SEED} {CPU0_LBA} {CPU0_COUNT}", 120)
    assert re.search(rf"write-pattern nvme0n1 {CPU0_LBA}\+{CPU0_COUNT} seed {CPU0_SEED:#010x}: ok", out), out
    t1 = uptime_us(g)
    # The mechanism's errors: CPU 1's slot is taken (or was), CPU 3 does not exist, halt stays on CPU 0.
    out = g.command("oncpu start 1 uptime")
    assert "was started and not collected" in out and "EBUSY" in out, out
    out = g.command("oncpu 3 uptime")
    assert "CPU 3 is not online (2 online)" in out and "ENODEV" in out, out
    out = g.command("oncpu 1 halt")
    assert "`halt` runs on CPU 0 only" in out and "EPERM" in out, out
    out = g.command("oncpu wait 1", 150)
    assert re.search(rf"write-pattern nvme0n1 {CPU1_LBA}\+{CPU1_COUNT} seed {CPU1_SEED:#010x}: ok", out), out
    m = ONCPU_RX.search(out)
    assert m and m.group(2) == "0", out
    return (int(m.group(4)), int(m.group(5))), (t0, t1)


def per_cpu(g, line):
    out = g.command("irqs")
    row = re.search(rf"^\s+0x[0-9a-f]{{2}}\s+irq {line}\s+([\d ]+)$", out, re.M)
    assert row, f"line {line} missing from the per-CPU table:\n{out}"
    return [int(x) for x in row.group(1).split()], out


def halt_and_check(g, path, original):
    assert "flush nvme0n1: ok" in g.command("blk flush nvme0n1")
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT
    assert diskimg.bad_pattern_blocks(path, CPU1_SEED, CPU1_LBA, CPU1_COUNT) == []
    assert diskimg.bad_pattern_blocks(path, CPU0_SEED, CPU0_LBA, CPU0_COUNT) == []
    # Outside both regions nothing changed: CPU 1's region skipped, the rest may differ only in CPU 0's.
    changed = diskimg.changed_ranges(path, original, CPU1_LBA, CPU1_COUNT)
    assert all(CPU0_LBA <= lba < CPU0_LBA + CPU0_COUNT for lba in changed), changed[:10]


CELLS = {  # name: (QEMU nvme options, kernel command line, why there is one pair for both CPUs or None)
    "pair-per-cpu": ("", "debugexit", None),
    "one-pair-shared": (",max_ioqpairs=1", "debugexit", r"the controller granted fewer .*1 granted"),
    "two-msix-vectors": (",msix_qsize=2", "debugexit", r"fewer MSI-X vectors than CPUs .*2 vectors"),
    "one-vector-intx": ("", "debugexit pci=nomsi", None),
}


@pytest.mark.parametrize("cell", sorted(CELLS))
def test_two_cpus_write_through_their_queues_at_once_and_the_host_finds_both_patterns(guest_factory, tmp_path, cell):
    opts, append, why_one = CELLS[cell]
    shared = why_one is not None
    intx = "pci=nomsi" in append
    g, path, original = boot(guest_factory, tmp_path, opts, append)
    log = "\n".join(g.lines())
    if intx:
        # A pair per CPU, both on the one INTx line (CPU 1's completions taken on CPU 0, which wakes CPU 1).
        m = re.search(r"nvme0q2: I/O queue 2 for CPU 1, vector 0, line (\d+) \(shared\)", log)
        assert m and int(m.group(1)) < 32, log[-3000:]
    elif shared:
        assert re.search(r"nvme0: 1 I/O queue pair for 2 CPUs \(" + why_one, log), log[-3000:]
    else:
        assert re.search(r"nvme0q1: I/O queue 1 for CPU 0, vector 1, line \d+", log), log[-3000:]
        assert re.search(r"nvme0q2: I/O queue 2 for CPU 1, vector 2, line \d+", log), log[-3000:]
    (c1_from, c1_to), (c0_from, c0_to) = write_from_both_cpus(g)
    overlap = min(c1_to, c0_to) - max(c1_from, c0_from)
    print(f"{cell}: CPU 1 wrote {c1_from}-{c1_to} us, CPU 0 {c0_from}-{c0_to} us: overlap {overlap} us")
    # CPU 0 began (t0 is read after `oncpu start` returned) before CPU 1 was done.
    assert c0_from < c1_to, (c1_from, c1_to, c0_from, c0_to)
    rows, out = queues(g)
    for name, q in rows.items():
        assert q["timeouts"] == 0 and q["failed"] == 0 and q["stray"] == 0, out
    if shared:
        assert "nvme0q2" not in rows and rows["nvme0q1"]["cpus"] == "0,1", out
        print(f"one pair: {rows['nvme0q1']['claims']} claims waited for the other CPU")
    elif intx:
        q1, q2 = rows["nvme0q1"], rows["nvme0q2"]
        assert q1["cpus"] == "0" and q2["cpus"] == "1" and q1["line"] == q2["line"], out
        assert q2["commands"] >= CPU1_COUNT * SECTOR // 131072 and q2["wait"] == 0, out
    else:
        q1, q2 = rows["nvme0q1"], rows["nvme0q2"]
        assert q1["cpus"] == "0" and q2["cpus"] == "1", out
        # CPU 1's pattern went through CPU 1's pair, CPU 0's through CPU 0's: 128 KiB per command.
        assert q2["commands"] >= CPU1_COUNT * SECTOR // 131072, out
        assert q1["commands"] >= CPU0_COUNT * SECTOR // 131072, out
        assert q1["claims"] == 0 and q2["claims"] == 0, out
        cpu1_line, irqs = per_cpu(g, q2["line"])
        cpu0_line, _ = per_cpu(g, q1["line"])
        print(f"line {q2['line']} (CPU 1's pair) per CPU {cpu1_line}; line {q1['line']} (CPU 0's) {cpu0_line}")
        # Routing, not a share: every interrupt of CPU 1's line was taken on CPU 1. How many of the
        # pair's completions a poll took first is time under multi-threaded TCG (no icount here);
        # test_nvme.py judges a healthy queue's polled share in guest time, test_loaded.py under
        # host load with tools/vcpuwatch.
        assert cpu1_line[0] == 0 and cpu1_line[1] > 0 and q2["irq"] > 0, irqs
        assert cpu0_line[1] == 0 and cpu0_line[0] > 0, irqs
    halt_and_check(g, path, original)


FAULTS = {  # fault: (its log line about CPU 1's pair, what the health report says of CPU 1's line)
    "nvme-noirq": (r"fault: nvme0: I/O completion queue 2 recreated with IEN=0: its completions raise no interrupt on line {line}",
                   r"nvme0: I/O completion queue 2 was created with interrupts disabled \(IEN=0\)"),
    "msi-mask": (r"fault: line {line} \(PCI-MSI-X 00:04\.0 entry 2, vector 0x[0-9a-f]{{2}}\): masked at the device behind",
                 r"PCI-MSI-X 00:04\.0 entry 2 masked at the device \(vector control\) behind the core's back"),
    "msi-misvector": (r"fault: line {line} \(PCI-MSI-X 00:04\.0 entry 2, vector 0x[0-9a-f]{{2}}\): message data now carries",
                      r"PCI-MSI-X 00:04\.0 entry 2 sends vector 0x[0-9a-f]{2}, which nobody owns"),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_fault_with_cpu_1_writing_names_cpu_1s_queue_line(guest_factory, tmp_path, fault):
    """The fault on every NVMe vector (or every I/O pair), then I/O from CPU 1 only: the data is
    right, CPU 1's line goes on polling with its own queue and reason named, CPU 0's line (no I/O)
    does not."""
    logged, reason = FAULTS[fault]
    g, path, original = boot(guest_factory, tmp_path)
    rows, _ = queues(g)
    line0, line1 = rows["nvme0q1"]["line"], rows["nvme0q2"]["line"]
    out = g.command(f"inject {fault}")
    assert "INJECTED" in out, out
    assert re.search(logged.format(line=line1), g.log), g.log[-3000:]
    out = g.command(f"oncpu 1 blk write-pattern nvme0n1 {CPU1_SEED} {CPU1_LBA} {CPU1_COUNT}", 150)
    assert re.search(rf"write-pattern nvme0n1 {CPU1_LBA}\+{CPU1_COUNT} seed {CPU1_SEED:#010x}: ok", out), out
    rows, out = queues(g)
    q2 = rows["nvme0q2"]
    assert q2["timeouts"] == 0 and q2["failed"] == 0 and q2["commands"] >= CPU1_COUNT * SECTOR // 131072, out
    irqs = g.command("irqs")
    # The core's expect polls found CPU 1's completions, and the report names its line and queue.
    assert re.search(rf"^  line {line1}: ON POLLING \(lost-while-expecting\)", irqs, re.M), irqs
    assert re.search(rf"^  line {line1} nvme0q2: ON POLLING: lost-while-expecting", irqs, re.M), irqs
    assert re.search(rf"^  line {line1}: its controller says: " + reason, irqs, re.M), irqs
    # CPU 0's line had no I/O meanwhile: not on polling.
    assert not re.search(rf"^  line {line0}\b.*ON POLLING", irqs, re.M), irqs
    assert "INJECTED" not in g.command(f"inject off {fault}")
    out = g.command(f"blk write-pattern nvme0n1 {CPU0_SEED} {CPU0_LBA} {CPU0_COUNT}", 120)
    assert "ok" in out, out
    halt_and_check(g, path, original)


def test_a_controller_that_stops_answering_under_both_cpus_is_reset_once(guest_factory, tmp_path):
    """nvme-disable (CC.EN cleared behind the driver's back) with a command in flight on each CPU's
    pair: the first time-out resets the controller once, the other CPU's command is abandoned
    (-EIO, never reported written), neither write claims success; afterwards both pairs work and
    the host finds the rewritten patterns and nothing else changed."""
    g, path, original = boot(guest_factory, tmp_path)
    assert "INJECTED" in g.command("inject nvme-disable")
    out = g.command(f"oncpu start 1 blk write-pattern nvme0n1 {CPU1_SEED} {CPU1_LBA} 64")
    assert "started" in out, out
    cpu0 = g.command(f"blk write-pattern nvme0n1 {CPU0_SEED} {CPU0_LBA} 64", 60)
    # The reset may run on CPU 1 and log after CPU 0's prompt: let it finish before typing on.
    g.wait_for(r"nvme0: (controller reset and answering again|reset failed)", 60)
    cpu1 = g.command("oncpu wait 1", 60)
    for out in (cpu0, cpu1):
        assert re.search(r"write-pattern nvme0n1 \d+\+64: failed at LBA \d+: (ETIMEDOUT|EIO)", out), (cpu0, cpu1)
    assert len(re.findall(r"nvme0: resetting the controller", g.log)) == 1, g.log[-3000:]
    assert "nvme0: controller reset and answering again" in g.log and "marked dead" not in g.log, g.log[-3000:]
    out = g.command(f"oncpu 1 blk write-pattern nvme0n1 {CPU1_SEED} {CPU1_LBA} 64", 60)
    assert re.search(rf"write-pattern nvme0n1 {CPU1_LBA}\+64 seed {CPU1_SEED:#010x}: ok", out), out
    out = g.command(f"blk write-pattern nvme0n1 {CPU0_SEED} {CPU0_LBA} 64", 60)
    assert re.search(rf"write-pattern nvme0n1 {CPU0_LBA}\+64 seed {CPU0_SEED:#010x}: ok", out), out
    rows, out = queues(g)
    # One or both commands timed out (both CPUs wait 5 s from about the same moment); one reset.
    assert rows["nvme0q2"]["cpus"] == "1" and rows["nvme0q2"]["timeouts"] + rows["nvme0q1"]["timeouts"] in (1, 2), out
    assert "flush nvme0n1: ok" in g.command("blk flush nvme0n1")
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT
    assert diskimg.bad_pattern_blocks(path, CPU1_SEED, CPU1_LBA, 64) == []
    assert diskimg.bad_pattern_blocks(path, CPU0_SEED, CPU0_LBA, 64) == []
    changed = diskimg.changed_ranges(path, original, CPU1_LBA, 64)
    assert all(CPU0_LBA <= lba < CPU0_LBA + 64 for lba in changed), changed[:10]
