"""The AHCI driver's lock on two CPUs (docs/smp.md, "Affinity"; drivers/ata/ahci.c): a command's
interrupt handled on CPU 1 at the moment the waiter on CPU 0 gives up waiting for it and completes
the command itself (the driver's lost-interrupt recovery after AHCI_IRQ_WAIT_MS). The host's lock
must let exactly one of the two complete it.

The fault `ahci-late` (drivers/ata/ahci_fault.c) issues every command with the port's interrupt
enables cleared and gives them back from a timer just before the driver's 250 ms wait ends, the
aim moved after each command towards the point where the two meet (earlier when the recovery won,
later when the interrupt did). `noirqdebug`: with the defences on, kernel/irq's expect polls find
each completion long before the driver's wait ends (and the core serialises its polls with the
handler), so the driver's own recovery would never race. q35's AHCI disk on its MSI line, moved
to CPU 1; multi-threaded TCG so that both CPUs really run at once.

Checked: every byte read matches the image on the host (CRC), each command completed exactly once
(`serviced` = `commands`: a command completed by both sides counts twice), both sides won some
(the aims straddled the meeting point: the race was run, not avoided), no time-out, error or stray,
and the line's interrupts were taken on CPU 1. Without the lock (ahci_lock() and ahci_wait() as
interrupts off only, the driver before issue 16) 5 to 9 of the 100 commands completed twice, in
four runs of four; with it, 29-40 of 100 went to the driver's recovery and the rest to the
interrupt, each once (also with four busy loops on the host: 46 and 59).
"""
import re

import diskimg
from irqkit_qemu import EXIT_HALT

MT_ACCEL = "tcg,thread=multi"
COMMANDS = 100         # each takes about the driver's 250 ms wait
SECTORS = 8            # per command (one READ DMA EXT)
LATE_RX = re.compile(r"ahci-late: off, spread \d+ us: (\d+) commands aimed: (\d+) completed by the driver's own "
                     r"recovery, (\d+) by the interrupt")
CRC_RX = re.compile(r"crc32 sda (\d+)\+(\d+) = ([0-9a-f]{8}) ")


def test_ahci_interrupt_on_cpu1_racing_the_drivers_own_recovery_completes_each_command_once(
        guest_factory, tmp_path):
    path = str(tmp_path / "ahci.img")
    diskimg.make_random_image(path, COMMANDS * SECTORS * diskimg.SECTOR, seed=23)
    g = guest_factory(append="debugexit noirqdebug", machine="q35", accel=MT_ACCEL,
                      extra=["-smp", "2", "-drive", f"file={path},format=raw,index=0,media=disk"])
    g.wait_shell(120)
    m = re.search(r"^ahci0: pci 00:1f\.2 .*?, MSI line (\d+), handler registered", g.command("ata"), re.M)
    assert m, g.command("ata")
    line = int(m.group(1))
    assert "CPUs 0x2" in g.command(f"affinity {line} 1")
    assert "INJECTED ahci-late" in g.command("inject ahci-late")
    for i in range(COMMANDS):
        lba = i * SECTORS
        out = g.command(f"blk crc sda {lba} {SECTORS}", 30)
        c = CRC_RX.search(out)
        assert c and int(c.group(3), 16) == diskimg.crc_of(path, lba * diskimg.SECTOR, SECTORS * diskimg.SECTOR), out
    late = LATE_RX.search(g.command("inject off ahci-late"))
    assert late, "ahci-late printed no outcome counts"
    aimed, by_driver, by_irq = (int(x) for x in late.groups())
    st = re.search(r"^  sda: .*\n    stats: (.*)$", g.command("ata"), re.M)
    assert st, "no sda stats"
    kv = {k: int(v) for k, v in (x.split("=") for x in st.group(1).split() if "=" in x)}
    irqs = g.command("irqs")
    row = re.search(rf"^\s+0x[0-9a-f]{{2}}\s+irq {line}\s+([\d ]+)$", irqs, re.M)
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT
    print(f"ahci-late: {aimed} commands aimed, {by_driver} completed by the driver's recovery, {by_irq} by the "
          f"interrupt on CPU 1; sda {kv}")
    assert aimed >= COMMANDS and by_driver + by_irq == aimed, late.group(0)
    assert by_driver >= 1 and by_irq >= 1, ("the aims did not straddle the meeting point", late.group(0))
    assert kv["serviced"] == kv["commands"], ("a command completed twice (or not at all)", kv)
    assert kv["lost"] == by_driver and kv["timeouts"] == 0 and kv["errors"] == 0 and kv["strays"] == 0, kv
    assert row, irqs
    per_cpu = [int(x) for x in row.group(1).split()]
    assert len(per_cpu) == 2 and per_cpu[1] >= by_irq, (per_cpu, by_irq)
