"""The HPET (arch/x86/hpet.c) on QEMU's pc and q35: found through ACPI, main counter at its
stated rate, a comparator routed where the machine allows (q35: a free PCI GSI; pc: nowhere,
its only GSI is the PIT's), clockevent=/clocksource= honoured, and the fallback without ACPI.
Four boots; figures from the QEMU-FACTS: 100 MHz, 3 timers, 64-bit, legacy capable,
route capability GSI 2 on pc, 2, 8 and 16-23 on q35."""
import re

from irqkit_qemu import EXIT_PASS, parse_ktap

ICOUNT_SHIFT = 4   # guest time independent of host load, as test_time.py
CASES = {
    "hpet.main_counter_advances_at_its_stated_rate_against_the_pit",
    "hpet.a_comparator_written_behind_the_counter_is_reported_with_etime",
    "hpet.a_oneshot_comparator_interrupts_once_and_never_early",
    "hpet.a_periodic_comparator_interrupts_at_its_rate",
}
HPET_LINE = (r"HPET: at 0xfed00000, rev \d+, vendor 8086: 100\.000000 MHz \(period 10000000 fs\), "
             r"3 timers, 64-bit counter \(legacy capable\); legacy replacement off")


def _selftests(g):
    assert g.wait_exit(120) == EXIT_PASS, g.log[-3000:]
    lines = g.lines()
    results = parse_ktap(lines)
    assert CASES <= set(results), sorted(results)
    return "\n".join(lines), results


def test_q35_routes_a_comparator_to_a_free_pci_gsi_and_passes_the_selftests(guest_factory):
    # ICH9 drives GSI 16 + PIRQ for every PCI INTx whatever the ISA routes say: 00:1f.x INTA is
    # PIRQA (D31IR reset value 0x3210), the e1000e at 00:02.0 INTA PIRQG, and an e1000 added at
    # 00:03.0 INTA PIRQH (QEMU wires slot s INTx to PIRQ E-H by (s + x) mod 4). GSI 23 and 22 are
    # taken, so the comparator must land on 21.
    g = guest_factory(machine="q35", append="selftest=hpet debugexit", extra=["-device", "e1000"],
                      icount=ICOUNT_SHIFT)
    log, results = _selftests(g)
    for name in CASES:
        ok, directive, diags = results[name]
        assert ok and "SKIP" not in directive, (name, directive, diags)
    assert re.search(HPET_LINE, log), log
    m = re.search(r"HPET: timer (\d) is the clock event: GSI (\d+) edge", log)
    assert m, log
    gsi = int(m.group(2))
    # q35's capability is 2, 8, 16-23: never the PIT's 2 or the RTC's 8, no GSI a PCI function was
    # routed to, and no GSI a PCI function drives through its PIRQ.
    assert "pci 00:03.0 8086:100e Ethernet controller, INTA" in log, log
    pci_gsis = {int(x) for x in re.findall(r"pci \S+: INT[A-D] -> GSI (\d+)", log)}
    assert gsi not in pci_gsis, (gsi, pci_gsis)
    assert gsi == 21, f"GSI {gsi}: 23 (e1000, PIRQH) and 22 (e1000e, PIRQG) are PCI's; 21 is the highest free"
    assert "clocksource: hpet, 100000000 Hz, 64 bits, rating 250" in log
    # By rating the TSC stays the clock source and the LAPIC timer the tick.
    assert re.search(r"time: clock source tsc \(rating 300, best rated\); tick on lapic-timer "
                     r"\(rating 150, best rated\)", log), log
    # The rate: the kernel prints its measurement; judge it here too.
    r = re.search(r"hpet selftest: median (\d+) ticks in (\d+) PIT cycles", log)
    assert r, log
    ticks, pit = int(r.group(1)), int(r.group(2))
    expected = pit * 100e6 / 1193182
    assert abs(ticks - expected) <= 0.01 * expected, (ticks, expected)


def test_pc_has_no_free_line_for_a_comparator_and_says_so(guest_factory):
    g = guest_factory(machine="pc", append="clockevent=hpet selftest=hpet debugexit", icount=ICOUNT_SHIFT)
    log, results = _selftests(g)
    assert re.search(HPET_LINE, log), log
    for t in range(3):
        assert f"HPET: timer {t} can interrupt on GSI 2 (ISA IRQ 0) only" in log, log
    assert "HPET: no clock event" in log
    assert "clockevent: hpet, " not in log, "no HPET clock event registers on pc"
    assert re.search(r"clockevent=hpet asked for, but there is no such clock event device here .*"
                     r"the tick runs on lapic-timer", log), log
    assert results["hpet.main_counter_advances_at_its_stated_rate_against_the_pit"][0]
    for name in CASES - {"hpet.main_counter_advances_at_its_stated_rate_against_the_pit"}:
        ok, directive, _ = results[name]
        assert ok and "SKIP no HPET clock event" in "SKIP " + directive, (name, directive)


def test_clockevent_hpet_on_q35_drives_the_tick_and_keeps_time(guest_factory):
    hz = 250
    g = guest_factory(machine="q35", append=f"clockevent=hpet clocksource=hpet hz={hz}", icount=ICOUNT_SHIFT)
    g.wait_shell(120)
    log = "\n".join(g.lines())
    assert f"tick: oneshot at {hz} Hz on hpet" in log, log
    assert re.search(r"time: clock source hpet \(rating 250, chosen by clocksource=\); tick on hpet "
                     r"\(rating 90, chosen by clockevent=\), oneshot", log), log
    gsi = int(re.search(r"HPET: timer \d is the clock event: GSI (\d+)", log).group(1))
    assert gsi == 23, "default q35 devices use PIRQA and PIRQG only: GSI 23 is the highest free"
    row = rf"^\s*{gsi}\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+\s+IO-APIC\s+edge\s+edge\s+.*hpet\((\d+)\)"
    before = re.search(row, g.command("irqs"), re.M)
    assert before, log
    out = g.command("timecheck 2000", timeout=120)
    irqs = g.command("irqs")
    after = re.search(row, irqs, re.M)
    assert after, irqs
    m = re.search(r"timecheck: (\d+) ticks in (\d+) us of TSC time \(hz=(\d+)", out)
    assert m, out
    ticks, us = int(m.group(1)), int(m.group(2))
    expected = hz * us / 1e6
    assert abs(ticks - expected) <= 0.05 * expected, f"{ticks} ticks, expected {expected:.1f}"
    delivered, handled, unhandled = (int(after.group(i)) - int(before.group(i)) for i in (1, 2, 3))
    # Each tick of timecheck's window came from a comparator interrupt, and none went unclaimed.
    # (No upper bound: with -icount sleep=off guest time runs on while the host types the next
    # command, so the window between the two `irqs` is longer by a host-dependent amount.)
    assert handled >= ticks, (handled, ticks)
    assert unhandled == 0 and delivered == handled, irqs
    assert re.search(r"up \d+\.\d+ s, \d+ ticks at 250 Hz", g.command("uptime"))


def test_without_acpi_there_is_no_hpet_and_the_log_says_the_pit_serves(guest_factory):
    g = guest_factory(machine="pc", append="clockevent=hpet selftest=hpet debugexit", extra=["-no-acpi"],
                      icount=ICOUNT_SHIFT)
    log, results = _selftests(g)
    assert "HPET: none (no ACPI HPET table; without ACPI the HPET cannot be found): the PIT and TSC serve" in log
    assert "clocksource: hpet, " not in log
    assert re.search(r"clockevent=hpet asked for, but .* the tick runs on lapic-timer", log), log
    ok, directive, _ = results["hpet.main_counter_advances_at_its_stated_rate_against_the_pit"]
    assert ok and "no HPET in use" in directive
