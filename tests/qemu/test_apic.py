"""Interrupt-mode selection, IOAPIC/LAPIC bring-up and the ISA line layout on QEMU's machines.

Each machine configuration boots once (module-scoped guests); the test cases then read its boot
log and shell answers. What they expect is what tests/../QEMU-FACTS.md says QEMU 7.2 + SeaBIOS
1.16.2 present: one IOAPIC, ID 0, at 0xFEC00000 with 24 pins (the chip reports version 0x20;
SeaBIOS's MP table says 0x11), ISA IRQ 0 arriving at GSI 2, the LAPIC at 0xFEE00000.

The PIT tick is checked with `nolapic_timer` (otherwise the LAPIC timer takes the tick over and
line 2 goes quiet after boot); the LAPIC timer has its own cases. Guests run under -icount so
tick counts compare against guest time, whatever the host load.
"""
import re

import pytest

from irqkit_qemu import EXIT_PASS, Guest, parse_ktap

ICOUNT_SHIFT = 4          # 16 ns of guest time per instruction
TICK_WINDOW_MS = 200      # timecheck window for "the line counts"
RATE_TOLERANCE = 0.05     # tick counts within 5% of hz * time

IOAPIC_LINE = "IOAPIC[0]: id 0, version 0x20, address 0xfec00000, GSI 0-23"
IRQ0_OVERRIDE = "ISA IRQ 0 -> GSI 2 (edge, high)"

# machine, QEMU extra args, table the mode comes from, ISA IRQs the tables make level/high
MACHINES = {
    "pc": ("pc", [], "ACPI MADT", [5, 9, 10, 11]),
    "pc-noacpi": ("pc", ["-no-acpi"], "MP table", []),
    "q35": ("q35", [], "ACPI MADT", [5, 9, 10, 11]),
    # q35 keeps an RSDP without ACPI in QEMU 7.2: SeaBIOS builds its own MADT.
    "q35-noacpi": ("q35", ["-no-acpi"], "ACPI MADT", [5, 9, 10, 11]),
}


def boot(machine, extra, append):
    g = Guest(append=append, machine=machine, extra=extra, icount=ICOUNT_SHIFT)
    g.wait_shell(120)
    return g


def irqs_row(out, line):
    """The `irqs` row of @line as a dict, or None."""
    for row in out.split("\n"):
        f = row.split()
        if len(f) >= 9 and f[0] == str(line):
            return {"delivered": int(f[1]), "chip": f[6], "trig": f[7], "flow": f[8],
                    "actions": " ".join(f[9:])}
    return None


@pytest.fixture(scope="module", params=sorted(MACHINES))
def ioapic_guest(request):
    machine, extra, source, levels = MACHINES[request.param]
    g = boot(machine, extra, "nolapic_timer")
    try:
        yield request.param, g, source, levels
    finally:
        g.kill()


def test_boot_log_names_the_ioapic_as_qemu_builds_it(ioapic_guest):
    name, g, source, _ = ioapic_guest
    lines = g.lines()
    assert IOAPIC_LINE in lines, f"{name}: no '{IOAPIC_LINE}'\n" + g.log[-6000:]
    assert sum(l.startswith("IOAPIC[") and "GSI" in l for l in lines) == 1, g.log[-6000:]
    if source == "MP table":
        assert ("IOAPIC[0]: the MP table lists version 0x11; the chip reports 0x20 "
                "(the chip's is used)") in lines, g.log[-6000:]


def test_mode_is_ioapic_and_says_which_table(ioapic_guest):
    name, g, source, _ = ioapic_guest
    want = f"interrupt mode: IO-APIC (from {source}), 24 lines, 8259 masked"
    assert want in g.lines(), f"{name}: no '{want}'\n" + g.log[-6000:]


def test_lapic_line_gives_id_address_and_agreement_with_the_tables(ioapic_guest):
    name, g, source, _ = ioapic_guest
    table = "MADT" if source == "ACPI MADT" else "MP table"
    want = (f"LAPIC: id 0, version 0x14, 6 LVT entries, address 0xfee00000 "
            f"(IA32_APIC_BASE; {table} agrees)")
    assert want in g.lines(), f"{name}: no '{want}'\n" + g.log[-6000:]
    assert any(l.startswith("LAPIC: LINT0 ExtINT") and "masked: IO-APIC mode" in l and "LINT1 NMI" in l
               for l in g.lines()), g.log[-6000:]


def test_irq0_override_and_level_isa_irqs_are_logged(ioapic_guest):
    name, g, _, levels = ioapic_guest
    lines = g.lines()
    assert IRQ0_OVERRIDE in lines, f"{name}\n" + g.log[-6000:]
    for irq in levels:
        assert f"ISA IRQ {irq} -> GSI {irq} (level, high)" in lines, f"{name}: IRQ {irq}\n" + g.log[-6000:]
    overrides = [l for l in lines if re.match(r"ISA IRQ \d+ -> GSI", l)]
    assert len(overrides) == 1 + len(levels), overrides


def test_pit_ticks_on_line_2_through_the_ioapic(ioapic_guest):
    name, g, _, _ = ioapic_guest
    before = irqs_row(g.command("irqs"), 2)
    out = g.command(f"timecheck {TICK_WINDOW_MS}", timeout=120)
    after = irqs_row(g.command("irqs"), 2)
    m = re.search(r"timecheck: (\d+) ticks in (\d+) us of TSC time \(hz=(\d+)", out)
    assert before and after and m, out
    assert (after["chip"], after["trig"], after["flow"]) == ("IO-APIC", "edge", "edge"), after
    assert "timer" in after["actions"], after
    expected = int(m.group(3)) * int(m.group(2)) / 1e6
    got = after["delivered"] - before["delivered"]
    assert got >= (1 - RATE_TOLERANCE) * expected, f"{name}: {got} interrupts, expected {expected:.0f}"
    assert irqs_row(g.command("irqs"), 0) is None, "line 0 (GSI 0) counts interrupts: IRQ 0 not overridden"


def test_serial_line_is_ioapic_edge_and_8259_fully_masked(ioapic_guest):
    name, g, _, _ = ioapic_guest
    out = g.command("irqs")
    row = irqs_row(out, 4)
    assert row and (row["chip"], row["trig"], row["flow"]) == ("IO-APIC", "edge", "edge"), out
    assert "serial" in row["actions"], out
    assert re.search(r"^PIC: .* mask ffff$", out, re.M), f"{name}: 8259 not fully masked\n{out}"


def test_noapic_gives_xt_pic_lines(guest_factory):
    g = guest_factory(append="noapic nolapic_timer", icount=ICOUNT_SHIFT)
    g.wait_shell(120)
    lines = g.lines()
    assert "interrupt mode: 8259 PIC (noapic)" in lines, g.log[-6000:]
    assert not any(l.startswith("IOAPIC[") for l in lines), g.log[-6000:]
    assert any("LINT0 ExtINT" in l and "virtual wire to the 8259" in l for l in lines), g.log[-6000:]
    g.command(f"timecheck {TICK_WINDOW_MS}", timeout=120)
    out = g.command("irqs")
    timer, serial = irqs_row(out, 0), irqs_row(out, 4)
    assert timer and timer["chip"] == "XT-PIC" and "timer" in timer["actions"], out
    assert timer["delivered"] >= TICK_WINDOW_MS, out
    assert serial and serial["chip"] == "XT-PIC", out
    assert irqs_row(out, 2) is None, out
    assert not re.search(r"^PIC: .* mask ffff$", out, re.M), out


@pytest.mark.parametrize("append", ["hz=250", "hz=250 noapic"])
def test_lapic_timer_takes_the_tick_and_keeps_its_rate(guest_factory, append):
    g = guest_factory(append=append, icount=ICOUNT_SHIFT)
    g.wait_shell(120)
    lines = g.lines()
    cal = [l for l in lines if l.startswith("LAPIC timer: ")]
    assert cal and re.match(r"LAPIC timer: \d+\.\d{3} MHz \(bus clock /16, against PIT channel 2, "
                            r"runs within \d+ ppm\)$", cal[0]), cal or g.log[-6000:]
    assert "clockevent: lapic-timer, periodic oneshot rating 150, drives the tick "\
           "(replaces the previous device)" in lines, g.log[-6000:]
    out = g.command("timecheck 500", timeout=120)
    m = re.search(r"timecheck: (\d+) ticks in (\d+) us of TSC time \(hz=250", out)
    assert m, out
    expected = 250 * int(m.group(2)) / 1e6
    assert abs(int(m.group(1)) - expected) <= RATE_TOLERANCE * expected, out


# The level-line case drives QEMU's e1000 (8086:100e); q35's own NIC is an e1000e, so add one.
@pytest.mark.parametrize("machine,extra,append", [
    ("q35", ["-no-acpi", "-device", "e1000"], ""),
    ("pc", ["-no-acpi"], ""),
    ("pc", [], "noapic"),
])
def test_apic_selftests_pass(guest_factory, machine, extra, append):
    g = guest_factory(append=f"selftest=apic,ioapic,apic_setup,lapic_timer debugexit {append}",
                      machine=machine, extra=extra, icount=ICOUNT_SHIFT)
    code = g.wait_exit(180)
    results = parse_ktap(g.lines())
    failed = {k: v for k, v in results.items() if not v[0]}
    assert code == EXIT_PASS and not failed and len(results) >= 8, (code, failed, g.log[-6000:])
    skipped = {k for k, v in results.items() if v[1].startswith("SKIP")}
    if append == "noapic":
        assert skipped == {"ioapic.pins_without_handlers_are_masked_and_routed_to_boot_cpu",
                           "ioapic.pin_write_then_read_gives_the_entry_back",
                           "ioapic.irq_pending_cannot_tell_for_a_line_routed_to_another_cpu",
                           "apic_setup.ioapic_mode_keeps_the_8259_fully_masked"}, skipped
    else:
        assert not skipped, skipped
