"""A CPU the kernel cannot run on is told so (arch/x86/boot.S, cpu_check).

The C code is built with -march=i686: on a Pentium or a 486 the first CMOV (in kvsnprintf, at the
first message, before any IDT) used to raise #UD, then a double and a triple fault, and QEMU reset
the machine without a word. Now the entry code checks CPUID first, with instructions a 386 has, and
prints what is missing on COM1 and on the VGA text screen, then halts. The screen is read back from
guest memory (0xB8000, character and attribute bytes) with QMP pmemsave, the serial from its pipe;
the guest must still be running afterwards (-no-reboot would have ended QEMU on a reset).
"""
import os
import time

import pytest

VGA_TEXT = 0xB8000
VGA_BYTES = 80 * 25 * 2


def vga_text(g, tmp_path):
    path = str(tmp_path / "vga.bin")
    g.qmp_cmd("pmemsave", val=VGA_TEXT, size=VGA_BYTES, filename=path)
    with open(path, "rb") as f:
        cells = f.read()
    chars = bytes(cells[i] for i in range(0, VGA_BYTES, 2)).decode("latin-1")
    return [chars[r * 80:(r + 1) * 80].rstrip() for r in range(25)]


@pytest.mark.parametrize("cpu,missing", [
    ("pentium", ["CMOV"]),              # has CPUID, PSE and TSC; no CMOV
    ("486", ["TSC", "CMOV"]),           # QEMU's 486 answers CPUID, with family 4 features
])
def test_a_cpu_without_what_the_kernel_needs_is_told_what_is_missing(guest_factory, tmp_path, cpu, missing):
    g = guest_factory(extra=["-cpu", cpu])
    m = g.wait_for(r"irqkit: this CPU cannot run this kernel: CPUID\.1:EDX lacks([^\n]*)\.\n", 20)
    for feature in missing:
        assert feature in m.group(1), m.group(0)
    assert "PSE" not in m.group(1), m.group(0)
    g.wait_for(r"needs CPUID, 4 MiB pages \(PSE\),\n.*\n.*Pentium Pro, Pentium II or any later x86\. Halted\.", 10)
    time.sleep(0.5)
    assert g.proc.poll() is None, "QEMU ended: the machine reset instead of halting"
    assert "irqkit 0.1" not in g.log, "the kernel went on past the check"
    screen = vga_text(g, tmp_path)
    assert screen[0].startswith("irqkit: this CPU cannot run this kernel: CPUID.1:EDX lacks"), screen[:4]
    for feature in missing:
        assert feature in screen[0] + screen[1], screen[:4]
    assert any("Pentium Pro, Pentium II or any later x86. Halted." in row for row in screen), screen[:6]


def test_a_pentium_ii_passes_the_check_and_boots(guest_factory):
    g = guest_factory(extra=["-cpu", "pentium2"])
    g.wait_shell()
    assert "cannot run this kernel" not in g.log
