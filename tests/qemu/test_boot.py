"""Boot, console, command line and shell: the kernel comes up and answers."""
import re

import pytest

from irqkit_qemu import EXIT_HALT, Guest


def test_iso_boots_through_grub_to_the_shell(guest_factory):
    g = guest_factory(iso=True, boot_timeout=120)
    g.wait_for(r"irqkit \d+\.\d+: an x86 kernel", 120)
    g.wait_for(r"boot: loaded by GRUB", 10)
    g.wait_shell()
    out = g.command("uptime")
    assert re.search(r"up \d+\.\d{3} s, \d+ ticks at 1000 Hz", out), out


def test_multiboot_kernel_boots_and_reports_memory_and_cmdline(guest_factory):
    g = guest_factory(append="loglevel=6")
    g.wait_shell()
    log = "\n".join(g.lines())
    assert re.search(r"boot: loaded by qemu", log, re.I), log
    # 128 MiB guest: the usable regions must add up to a bit under 128 MiB.
    m = re.search(r"boot: loaded by .*, (\d+) MiB usable RAM in (\d+) regions", log)
    assert m and 120 <= int(m.group(1)) <= 128, log
    assert "cmdline: loglevel=6" in log
    assert re.search(r"heap: \d+ KiB from 0x", log)


def test_timestamps_are_linux_style_and_increase(guest_factory):
    g = guest_factory(append="")
    g.wait_shell()
    stamps = [float(m.group(1)) for m in re.finditer(r"^\[\s*(\d+\.\d{6})\] ", g.log, re.M)]
    assert len(stamps) > 10
    assert stamps == sorted(stamps), stamps


def test_unknown_and_bad_parameters_are_reported_and_boot_continues(guest_factory):
    g = guest_factory(append="bogus=1 hz=abc loglevel=99 selftest")
    g.wait_shell()
    log = "\n".join(g.lines())
    assert re.search(r"cmdline: unknown parameter 'bogus'", log), log
    assert re.search(r"cmdline: .*hz.*abc", log), log
    assert re.search(r"cmdline: .*loglevel.*99", log), log
    assert re.search(r"cmdline: .*selftest", log), log
    # hz kept its default
    assert re.search(r"1000 Hz", g.command("uptime"))


def test_shell_help_lists_commands_and_rejects_unknown_ones(guest_factory):
    g = guest_factory()
    g.wait_shell()
    out = g.command("help")
    for name in ("help", "uptime", "irqs", "reboot", "halt", "dmesg", "timecheck"):
        assert re.search(rf"^\s+{name}\b", out, re.M), out
    assert "unknown command" in g.command("frobnicate")


@pytest.mark.parametrize("append,chip,timer_line", [
    ("noapic nolapic_timer", "XT-PIC", 0),   # the 8259, PIT on ISA IRQ 0
    ("nolapic_timer", "IO-APIC", 2),         # the IOAPIC: ISA IRQ 0 arrives at GSI 2
])
def test_shell_irqs_shows_timer_and_serial_lines(guest_factory, append, chip, timer_line):
    g = guest_factory(append=append)
    g.wait_shell()
    g.command("timecheck 100")   # keeps the (one-shot) tick running; typing raises serial interrupts
    out = g.command("irqs")
    timer = re.search(rf"^\s*{timer_line}\s+(\d+)\s+(\d+).*{chip}\s+edge.*timer", out, re.M)
    assert timer and int(timer.group(1)) > 0 and timer.group(1) == timer.group(2), out
    serial = re.search(rf"^\s*4\s+(\d+)\s+(\d+).*{chip}.*serial", out, re.M)
    assert serial and int(serial.group(2)) > 0, out


def test_halt_ends_qemu_with_the_halt_code(guest_factory):
    g = guest_factory(append="debugexit")
    g.wait_shell()
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT


def test_reboot_resets_the_machine(guest_factory):
    g = guest_factory()
    g.wait_shell()
    g.send("reboot\r")
    # -no-reboot: a guest reset makes QEMU exit with status 0.
    assert g.wait_exit(30) == 0
    assert "reboot: resetting" in g.log
