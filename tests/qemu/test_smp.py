"""Several CPUs (arch/x86/smp.c, docs/smp.md): the APs come up, each runs its own
timer, the call-function IPI reaches each, and the disk still reads right.

Every guest runs under multi-threaded TCG (`-accel tcg,thread=multi`), so the
vCPUs really run in parallel on the host's cores. Cells: pc and q35, with ACPI
(the MADT lists the CPUs) and -no-acpi (pc: SeaBIOS's MP table lists only the
boot CPU, so the kernel must find the others by a broadcast INIT-SIPI-SIPI;
q35: SeaBIOS builds a MADT of its own). The disk check is the host-verified
CRC of docs/ata.md: the kernel prints the CRC-32 of what it read, compared
here with zlib's over the image.
"""
import re
import time

import pytest

import diskimg

MT_ACCEL = "tcg,thread=multi"
TICK_WAIT_S = 20          # host seconds each CPU has to show that it ticks (a time-out, not a bound)
DISK_BYTES = 2 << 20
SECTOR = diskimg.SECTOR
ONLINE_RX = re.compile(r"smp: (\d+) CPUs? online from the (MADT|MP table|broadcast INIT-SIPI-SIPI)")
CPU_ROW_RX = re.compile(r"^(\d+)\s+(\d+)\s+yes\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)%$", re.M)
CRC_RX = re.compile(r"crc32 (\w+) (\d+)\+(\d+) = ([0-9a-f]{8}) ")
KTAP_RX = re.compile(r"^(ok|not ok) \d+ (smp\.\S+)", re.M)


def disk_args(machine, path):
    if machine == "pc":
        return ["-drive", f"file={path},format=raw,if=ide,index=0"]
    return ["-device", "piix3-ide,id=pide", "-drive", f"file={path},format=raw,if=none,id=d0",
            "-device", "ide-hd,drive=d0,bus=pide.0"]


def boot(guest_factory, machine, firmware, smp, append="debugexit", extra=()):
    args = ["-smp", str(smp)] + (["-no-acpi"] if firmware == "noacpi" else []) + list(extra)
    g = guest_factory(append=append, machine=machine, accel=MT_ACCEL, extra=args)
    g.wait_shell(120)
    return g


def cpu_rows(g):
    """{cpu: (apic_id, ticks, interrupts)} from the `cpus` command."""
    return {int(m.group(1)): (int(m.group(2)), int(m.group(3)), int(m.group(4)))
            for m in CPU_ROW_RX.finditer(g.command("cpus"))}


def online(g):
    m = ONLINE_RX.search(g.log)
    assert m, "no 'smp: N CPUs online from ...' line in the boot log"
    return int(m.group(1)), m.group(2)


def assert_every_cpu_ticks(g, n):
    first = cpu_rows(g)
    assert sorted(first) == list(range(n)), first
    assert len({apic for apic, _, _ in first.values()}) == n, f"APIC IDs not distinct: {first}"
    # Liveness, not a rate: under multi-threaded TCG the host may keep a vCPU off its CPUs for a
    # while, so each CPU gets until TICK_WAIT_S of host time to show a tick and an interrupt.
    deadline = time.monotonic() + TICK_WAIT_S
    while True:
        time.sleep(0.2)
        second = cpu_rows(g)
        if all(second[c][1] > first[c][1] and second[c][2] > first[c][2] for c in range(n)):
            break
        if time.monotonic() > deadline:
            break
    for cpu in range(n):
        assert second[cpu][1] > first[cpu][1], f"CPU {cpu}'s timer did not tick: {first} -> {second}"
        assert second[cpu][2] > first[cpu][2], f"CPU {cpu} took no interrupt: {first} -> {second}"


CELLS = [("pc", "acpi", 2, "MADT"), ("pc", "noacpi", 4, "broadcast INIT-SIPI-SIPI"),
         ("q35", "acpi", 4, "MADT"), ("q35", "noacpi", 2, "MADT")]


@pytest.mark.parametrize("machine,firmware,smp,source", CELLS,
                         ids=[f"{m}-{f}-smp{n}" for m, f, n, _ in CELLS])
def test_every_cpu_comes_up_ticks_answers_ipis_and_the_disk_reads_right(
        guest_factory, tmp_path, machine, firmware, smp, source):
    path = str(tmp_path / "disk.img")
    diskimg.make_random_image(path, DISK_BYTES, seed=smp)
    g = boot(guest_factory, machine, firmware, smp, extra=disk_args(machine, path))
    assert online(g) == (smp, source)
    assert_every_cpu_ticks(g, smp)
    results = KTAP_RX.findall(g.command("selftest smp", 60))
    assert results and all(r == "ok" for r, _ in results), results
    per_cpu = g.command("irqs")
    assert re.search(r"^per CPU: vector .*" + r"\s+".join(f"CPU{c}" for c in range(smp)), per_cpu, re.M), per_cpu
    sectors = DISK_BYTES // SECTOR
    m = CRC_RX.search(g.command(f"ata crc 0 {sectors}", 120))
    assert m and int(m.group(4), 16) == diskimg.crc_of(path), m and m.group(0)


LIMITS = [("acpi", 4, "maxcpus=2", 2, r"smp: MADT CPU APIC ID \d+ not started: 2 CPUs is the limit \(maxcpus=\)"),
          ("noacpi", 4, "maxcpus=3", 3, r"smp: 1 more CPU answered and was parked \(maxcpus=\)"),
          ("acpi", 2, "nosmp", 1, r"smp: 1 CPU online \(APIC ID 0\); other CPUs not looked for: nosmp")]


@pytest.mark.parametrize("firmware,smp,param,want,log", LIMITS, ids=[p for _, _, p, _, _ in LIMITS])
def test_nosmp_and_maxcpus_bound_the_cpus_started(guest_factory, firmware, smp, param, want, log):
    g = boot(guest_factory, "pc", firmware, smp, append=f"debugexit {param}")
    assert re.search(log, g.log), log
    assert_every_cpu_ticks(g, want)


def test_mp_table_is_trusted_when_it_lists_every_package(guest_factory):
    """-smp 2,sockets=2: SeaBIOS's MP table lists both CPUs, and CPUID's package has one."""
    g = boot(guest_factory, "pc", "noacpi", "2,sockets=2")
    assert re.search(r"smp: CPUs from the MP table \(no MADT; the MP table lists 2 CPUs", g.log)
    assert online(g) == (2, "MP table")
    assert_every_cpu_ticks(g, 2)


def test_stack_overflow_on_an_ap_is_reported_by_that_cpus_double_fault_task(guest_factory):
    """`crash stack 1` overflows CPU 1's own stack (in its call-function IPI handler) into its
    guard page: CPU 1's #DF task (its own GDT's DF_TSS, its own stack) reports it, and the
    panic stops the other CPUs and exits QEMU. A shared TSS or GDT would triple-fault (QEMU
    exits 0 under -no-reboot, no report) or report CPU 0's boot stack."""
    from irqkit_qemu import EXIT_PANIC
    g = boot(guest_factory, "pc", "acpi", 2)
    cpu1 = re.search(r"smp: CPU 1 online, APIC ID \d+, stack (0x[0-9a-f]+)-(0x[0-9a-f]+) "
                     r"\(guard page (0x[0-9a-f]+)\)", g.log)
    assert cpu1, "CPU 1's stack is not in the boot log"
    lo, hi, guard = (int(x, 16) for x in cpu1.groups())
    g.send("crash stack 1\r")
    assert g.wait_exit(60) == EXIT_PANIC
    log = "\n".join(g.lines())
    m = re.search(r"kernel stack overflow: ESP ([0-9a-f]{8}) / CR2 ([0-9a-f]{8}) reached the guard page "
                  r"([0-9a-f]{8})-([0-9a-f]{8}) below the AP's stack ([0-9a-f]{8})-([0-9a-f]{8}) \(CPU 1\)", log)
    assert m, log
    esp, cr2, glo, ghi, slo, shi = (int(x, 16) for x in m.groups())
    assert glo == guard and ghi == guard + 0xFFF and slo == lo and shi == hi + 1, m.group(0)
    assert glo <= cr2 <= ghi, m.group(0)


AFFINITY_CELLS = [("pc", "acpi", 2), ("q35", "noacpi", 4)]
MOVES_RX = re.compile(r"affinity: irq 14 stopped moving after (\d+) moves \((\d+) refused\)")
PER_CPU_ROW_RX = r"^\s+0x3e\s+irq 14\s+(.*)$"


@pytest.mark.parametrize("machine,firmware,smp", AFFINITY_CELLS,
                         ids=[f"{m}-{f}-smp{n}" for m, f, n in AFFINITY_CELLS])
def test_disk_line_moved_every_millisecond_during_traffic_loses_and_doubles_nothing(
        guest_factory, tmp_path, machine, firmware, smp):
    """`affinity 14 0,...,N-1 every 1` moves the disk's line round every CPU (an IOAPIC
    destination write per move, from a timer on CPU 0) while the shell reads and writes the
    disk. The host checks every byte: CRCs of what was read against the image, and after QEMU
    exits the written pattern sector by sector and every sector outside it untouched. The
    driver's own accounting must show no timeout (a lost interrupt costs ATA_IRQ_WAIT_MS and
    shows there) and the per-CPU table must show the line's interrupts on every CPU."""
    from irqkit_qemu import EXIT_HALT
    path = str(tmp_path / "disk.img")
    original = diskimg.make_random_image(path, DISK_BYTES, seed=7)
    g = boot(guest_factory, machine, firmware, smp, extra=disk_args(machine, path))
    cpus = ",".join(str(c) for c in range(smp))
    assert "moves round CPUs" in g.command(f"affinity 14 {cpus} every 1")
    sectors = DISK_BYTES // SECTOR
    want = diskimg.crc_of(path)
    for _ in range(3):
        m = CRC_RX.search(g.command(f"ata crc 0 {sectors}", 120))
        assert m and int(m.group(4), 16) == want, m and m.group(0)
    seed, lba, count = 0x5EED, 1000, 1500
    out = g.command(f"ata write-pattern {seed} {lba} {count}", 120)
    assert re.search(rf"write-pattern hda {lba}\+{count} seed {seed:#010x}: ok", out), out
    stop = g.command("affinity 14 0")
    moves = MOVES_RX.search(stop)
    assert moves and int(moves.group(1)) >= 20 and int(moves.group(2)) == 0, stop
    stats = re.search(r"^ata0: .*?\n(?:  .*\n)*?  stats: (.*)$", g.command("ata"), re.M)
    assert stats, "no ata0 stats"
    kv = {k: int(v) for k, v in (x.split("=") for x in stats.group(1).split())}
    assert kv["timeouts"] == 0 and kv["errors"] == 0, kv
    row = re.search(PER_CPU_ROW_RX, g.command("irqs"), re.M)
    assert row, "line 14 missing from the per-CPU table"
    counts = [int(x) for x in row.group(1).split()]
    assert len(counts) == smp and all(c > 0 for c in counts), f"irq 14 per CPU: {counts}"
    g.command("ata flush")
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT
    assert diskimg.bad_pattern_blocks(path, seed, lba, count) == []
    assert diskimg.changed_ranges(path, original, lba, count) == []
