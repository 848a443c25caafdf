"""Message-signalled interrupts (drivers/pci/msi.c, arch/x86/vector.c) on QEMU's q35.

q35's default NIC, the e1000e at 00:02.0 (8086:10d3), has MSI (64-bit, no mask bits) and
MSI-X (5 entries in BAR3); irqkit has no driver for it, so the in-kernel selftests
(selftest=msi, drivers/pci/msi_selftest.c) own it: a message raised with ICS arrives on
its own line named after the device, disable_irq holds it back, the msi-mask and
msi-misvector faults silence it or send it to a vector nobody owns and are diagnosed,
and freeing gives lines and vectors back. QEMU's NVMe (MSI-X only) shows the MSI-X
capability as lspci -v reads it; pci=nomsi gives every driver its pin.
"""
import re

from irqkit_qemu import EXIT_PASS, Guest, parse_ktap

BOOT_TIMEOUT = 120
CASES = {
    "msi.message_arrives_on_its_own_line_with_the_device_name",
    "msi.disable_irq_holds_the_message_back",
    "msi.fault_msi_mask_silences_the_device_and_is_diagnosed",
    "msi.fault_msi_misvector_lands_on_a_vector_nobody_owns",
    "msi.free_gives_lines_and_vectors_back",
    "msi.affinity_moves_the_message_to_another_cpu_and_back",
    "msi.a_move_keeps_a_fault_mask_and_its_diagnosis",
}


def test_msi_selftests_pass_with_the_q35_e1000e():
    # -smp 2: the affinity cases move the message to a second CPU (they skip with one).
    with Guest(machine="q35", append="selftest=msi debugexit", extra=["-smp", "2"]) as g:
        code = g.wait_exit(BOOT_TIMEOUT)
        results = parse_ktap(g.lines())
        assert CASES <= set(results), (sorted(results), g.log[-3000:])
        failed = {n: r for n, r in results.items() if not r[0]}
        skipped = {n: r for n, r in results.items() if r[1]}
        assert not failed and not skipped, (failed, skipped, g.log[-4000:])
        assert code == EXIT_PASS


def test_lspci_shows_msi_and_msix_capabilities_as_the_devices_hold_them(tmp_path):
    img = tmp_path / "nvme.img"
    img.write_bytes(b"\0" * (1 << 20))
    extra = ["-drive", f"file={img},if=none,id=n,format=raw", "-device", "nvme,serial=irqkit,drive=n,addr=04.0"]
    with Guest(machine="q35", extra=extra) as g:
        g.wait_shell(BOOT_TIMEOUT)
        out = g.command("lspci -v")
        nic = out[out.index("00:02.0 8086:10d3"):]
        assert re.search(r"MSI: (enabled|disabled), 64-bit, no per-vector masking, 1 message capable", nic), nic[:1500]
        assert re.search(r"MSI-X: disabled, function mask off, 5 entries, table BAR3\+0x0, PBA BAR3\+0x2000", nic), nic[:1500]
        nvme = out[out.index("00:04.0 1b36:0010"):]
        assert re.search(r"MSI-X: \w+, function mask \w+, 65 entries, table BAR0\+0x2000, PBA BAR0\+0x3000", nvme), nvme[:1500]


def test_pci_nomsi_refuses_messages_and_is_shown():
    with Guest(machine="q35", append="pci=nomsi selftest=msi debugexit") as g:
        code = g.wait_exit(BOOT_TIMEOUT)
        results = parse_ktap(g.lines())
        # Every case needs messages: with pci=nomsi each one says so and skips.
        assert results and all(r[1] for r in results.values()), results
        assert code == EXIT_PASS
        assert "cmdline: pci=nomsi" in g.log
