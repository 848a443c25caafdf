"""PCI enumeration and INTx routing (drivers/pci/) on QEMU's pc and q35 machines.

What the kernel must find is in /work/shared/QEMU-FACTS.md (QEMU 7.2, SeaBIOS 1.16.2):
pc has the PIIX3 at 00:01.x (UHCI 00:01.2 INTD with -usb, ACPI function 00:01.3 only
with ACPI) and the e1000 at 00:03.0 INTA, both routed to line 11; q35 has the ICH9 LPC at
00:1f.0, UHCI companions at 00:1d.0-2 on INTA/B/C with lines 10/10/11, and a $PIR
that names the VGA at 00:01.0 as its router, which must be refused.

pci_init/pci_route_all are called from kmain and lspci/routes are in the shell table; a change
that unwired them fails here (issue 20: these tests used to skip then, hiding the regression).
"""
import re

import pytest



BOOT_TIMEOUT = 120


def lspci_line(out, bdf):
    m = re.search(rf"^{re.escape(bdf)} .*$", out, re.M)
    assert m, f"{bdf} not listed:\n{out}"
    return m.group(0)


def boot(guest_factory, machine, append="", extra=()):
    g = guest_factory(machine=machine, append=append, extra=list(extra))
    g.wait_shell(BOOT_TIMEOUT)
    return g


# -- pc -------------------------------------------------------------------------------

@pytest.mark.parametrize("acpi", [True, False], ids=["acpi", "no-acpi"])
def test_pc_lspci_lists_the_piix3_functions_vga_and_e1000(guest_factory, acpi):
    g = boot(guest_factory, "pc", extra=["-usb"] + ([] if acpi else ["-no-acpi"]))
    out = g.command("lspci")
    assert re.match(r"00:00\.0 8086:1237 Host bridge", lspci_line(out, "00:00.0"))
    assert re.match(r"00:01\.0 8086:7000 ISA bridge", lspci_line(out, "00:01.0"))
    assert re.match(r"00:01\.1 8086:7010 IDE controller", lspci_line(out, "00:01.1"))
    assert re.match(r"00:01\.2 8086:7020 USB UHCI controller .*, INTD -> (GSI|IRQ) 11 ",
                    lspci_line(out, "00:01.2"))
    assert re.match(r"00:02\.0 1234:1111 VGA compatible controller", lspci_line(out, "00:02.0"))
    assert re.match(r"00:03\.0 8086:100e Ethernet controller .*, INTA -> (GSI|IRQ) 11 ",
                    lspci_line(out, "00:03.0"))
    # The PIIX4 power-management function (SCI) exists only with ACPI.
    has_pm = re.search(r"^00:01\.3 8086:7113 ", out, re.M) is not None
    assert has_pm == acpi, out
    # The boot log has one line per function.
    assert re.search(r"pci 00:01\.2 8086:7020 USB UHCI controller, INTD$", g.log, re.M)
    assert re.search(r"pci: \d+ functions on 1 bus via configuration mechanism #1", g.log)


def test_pc_lspci_v_shows_sized_bars(guest_factory):
    g = boot(guest_factory, "pc", extra=["-usb"])
    out = g.command("lspci -v")
    uhci = out[out.index("00:01.2 "):]
    assert re.search(r"BAR4: I/O ports at 0x[0-9a-f]+ \[size 32\]", uhci.split("\n00:")[0]), out
    e1000 = out[out.index("00:03.0 "):]
    assert re.search(r"BAR0: memory at 0x[0-9a-f]+ \(32-bit, non-prefetchable\) \[size 128K\]", e1000), out
    assert re.search(r"BAR1: I/O ports at 0x[0-9a-f]+ \[size 64\]", e1000), out
    vga = out[out.index("00:02.0 "):out.index("00:03.0 ")]
    assert re.search(r"BAR0: memory at 0x[0-9a-f]+ \(32-bit, prefetchable\) \[size 16M\]", vga), out


def test_pc_routes_uhci_and_e1000_share_line_11_and_the_piix3_reads_0a_0a_0b_0b(guest_factory):
    g = boot(guest_factory, "pc", extra=["-usb"])
    out = g.command("routes")
    assert re.search(r"^  00:01\.2 INTD -> (GSI|IRQ) 11 +level ", out, re.M), out
    assert re.search(r"^  00:03\.0 INTA -> (GSI|IRQ) 11 +level ", out, re.M), out
    assert "router 00:01.0 8086:7000 PIIX3" in out
    for pirq, reg, value, irq in [("A", 0x60, 0x0a, 10), ("B", 0x61, 0x0a, 10),
                                  ("C", 0x62, 0x0b, 11), ("D", 0x63, 0x0b, 11)]:
        assert f"PIRQ{pirq} ({reg:#04x}) = {value:#04x} -> IRQ {irq}" in out, out
    assert re.search(r"pci 00:01\.2: INTD -> (GSI|IRQ) 11 \(level, .*from (MP table|\$PIR PIIX3 PIRQD)", g.log)


def test_pc_noacpi_routes_from_the_mp_table_in_ioapic_mode(guest_factory):
    g = boot(guest_factory, "pc", extra=["-usb", "-no-acpi"])
    assert "routing INTx to GSIs (IOAPIC mode)" in g.log, "PCI routed in PIC mode: the IOAPIC was not used"
    assert "pci 00:01.2: INTD -> GSI 11 (level, active-high, from MP table)" in g.log
    assert "pci 00:03.0: INTA -> GSI 11 (level, active-high, from MP table)" in g.log


def test_pc_noapic_routes_isa_irqs_through_the_piix3_router(guest_factory):
    g = boot(guest_factory, "pc", append="noapic", extra=["-usb"])
    assert "pci: routing INTx to ISA IRQs (PIC mode)" in g.log
    assert "pci 00:01.2: INTD -> IRQ 11 (level, from $PIR PIIX3 PIRQD)" in g.log
    assert "pci 00:03.0: INTA -> IRQ 11 (level, from $PIR PIIX3 PIRQC)" in g.log


def test_pci_route_line_uses_the_interrupt_line_register_only(guest_factory):
    g = boot(guest_factory, "pc", append="pci_route=line", extra=["-usb"])
    assert "sources: Interrupt Line only (pci_route=line)" in g.log
    assert re.search(r"pci 00:01\.2: INTD -> (GSI|IRQ) 11 \(level, .*from Interrupt Line\)", g.log)
    out = g.command("routes")
    assert "pci_route=line:" in out


# -- q35 ------------------------------------------------------------------------------

@pytest.mark.parametrize("acpi", [True, False], ids=["acpi", "no-acpi"])
def test_q35_lists_ich9_and_routes_the_uhci_companions_to_10_10_11(guest_factory, acpi):
    g = boot(guest_factory, "q35", extra=["-usb"] + ([] if acpi else ["-no-acpi"]))
    out = g.command("lspci")
    assert re.match(r"00:1f\.0 8086:2918 ISA bridge", lspci_line(out, "00:1f.0"))
    for fn, pin, line in [(0, "INTA", 10), (1, "INTB", 10), (2, "INTC", 11)]:
        assert re.match(rf"00:1d\.{fn} 8086:293{4 + fn} USB UHCI controller .*, {pin} -> (GSI|IRQ) {line} ",
                        lspci_line(out, f"00:1d.{fn}")), out
    assert re.match(r"00:1d\.7 8086:293a USB EHCI controller", lspci_line(out, "00:1d.7"))


def test_q35_refuses_the_pir_router_that_is_really_the_vga(guest_factory):
    g = boot(guest_factory, "q35", extra=["-usb"])
    assert ("pci: $PIR not used: router 00:01.0 is not a PIRQ router: it is 1234:1111 "
            "(VGA compatible controller)") in g.log
    out = g.command("routes")
    assert "router 00:1f.0 8086:2918 ICH9" in out, out
    for pirq, reg, value in [("A", 0x60, 0x0a), ("D", 0x63, 0x0b), ("E", 0x68, 0x0a), ("H", 0x6b, 0x0b)]:
        assert f"PIRQ{pirq} ({reg:#04x}) = {value:#04x}" in out, out


def test_q35_ioapic_mode_follows_the_mp_table_pins(guest_factory):
    """SeaBIOS's MP table lists the ISA path (10/11), not GSI 16+PIRQ: we follow the table."""
    g = boot(guest_factory, "q35", extra=["-usb", "-no-acpi"])
    assert "routing INTx to GSIs (IOAPIC mode)" in g.log, "PCI routed in PIC mode: the IOAPIC was not used"
    assert "pci 00:1d.0: INTA -> GSI 10 (level, active-high, from MP table)" in g.log
    assert "pci 00:1d.2: INTC -> GSI 11 (level, active-high, from MP table)" in g.log
