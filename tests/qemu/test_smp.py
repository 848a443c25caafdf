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
    time.sleep(0.5)
    second = cpu_rows(g)
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
