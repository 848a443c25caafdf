"""Issue 17's goal for IRQ expecting: every lost completion found within 1 ms; as built with
issue 19's tick look, within one tick plus the token's safety delay.

One q35 boot with an NVMe namespace (MSI-X) and an AHCI disk, under `-icount shift=3,sleep=off`
so that the figures are guest time and host load does not stretch them. After a healthy warm-up
(the expect tokens learn the devices and are verified), `nvme-noirq:50` and `:100` (the
completion queue created with IEN=0: no interrupt at all) and `ahci-noirq:50` and `:100` (the
port's interrupt enables cleared for that share of commands). The drivers measure each such
command themselves, from the doorbell (NVMe SQ tail, AHCI PxCI) to the moment its completion was
taken: the device's own time plus how long the loss went unnoticed (the figure `make bench` prints
as "latency of a lost completion"), and how long the completion sat there unseen at most: taken
minus the later of the doorbell and the last handler run (interrupt or poll) that found the
command still running. The second is the bound asserted: under sleep=off an idle guest's clock
jumps to its next timer before QEMU's I/O thread has finished, so on a loaded host the device
itself can take milliseconds of guest time; the first figure is printed beside it. The kernel only
prints them; the host judges.

The bound: a verified token's first lost completion is found by the first tick (kernel/irq/
tick_look.c) at least its safety delay (at most expect_first_poll_max_ns, 400 us) after the
doorbell, so within one tick period (read from the boot log) plus 400 us, plus the run of the tick
and of the poll it arms (TICK_RUN_US); an unverified token's
polls are at most 400 us apart. Issue 17 asked for 1 ms; with a 1 kHz tick the worst phase misses
that by up to the safety delay (docs/defences.md, "The tick"), which is what issue 19's rule (no
timer per healthy command) costs. Before the tick, the first lost completion of a verified token
waited for the 100 ms recheck of a busy line (21-73 ms), and with a 400 us recheck healthy ATA ran
at 0.85x of noirqdebug (docs/benchmarks.md).

Every read is checked against the image's CRC on the host, and the pattern written with every
completion lost is checked block by block on the host after QEMU exited.
"""
import re

import diskimg
from irqkit_qemu import EXIT_HALT

MIB = 1 << 20
SECTOR = diskimg.SECTOR
NVME_BYTES = 4 * MIB
AHCI_BYTES = 4 * MIB
ICOUNT_SHIFT = 3
SAFETY_MAX_US = 400  # kernel/irq/policy_table.h: expect_first_poll_max_ns, the safety delay's cap
# The tick's own run and the poll it arms: the timer interrupt, kernel/time's queue, irq_tick's look
# and the poll timer's expiry, 1,000-2,000 guest instructions (8-16 us at shift 3; make prof-ata),
# with room for TCG's interrupt entry. Measured: 9 us past tick + safety (1,409 us, 5 Dec 16:08).
TICK_RUN_US = 100
TICK_RX = re.compile(r"irq: the tick \(every (\d+) us\) looks at busy lines' verified expects")
CRC_RX = re.compile(r"crc32 (\S+) (\d+)\+(\d+) = ([0-9a-f]{8}) ")
NVME_LAT_RX = re.compile(r"^  (nvme0q\d): .*CQ interrupts (enabled|DISABLED \(IEN=0\)); commands (\d+).*?"
                         r"latency avg (\d+) us max (\d+) us over (\d+), unseen in the CQ at most (\d+) us", re.M)
AHCI_STATS_RX = re.compile(r"^  sda: .*\n    stats: (.*)$", re.M)
SEED = 0x1051D15C


def kernel_crc(g, cmd):
    out = g.command(cmd, 120)
    m = CRC_RX.search(out)
    assert m, out
    return int(m.group(4), 16)


def nvme_lost_latency(g):
    """(count, avg us, max us, unseen max us) over the queues whose CQ raises no interrupt (IEN=0)."""
    rows = [m.groups() for m in NVME_LAT_RX.finditer(g.command("nvme"))]
    lost = [r for r in rows if r[1].startswith("DISABLED")]
    assert lost, rows
    count = sum(int(r[5]) for r in lost)
    worst = max(int(r[4]) for r in lost)
    avg = sum(int(r[3]) * int(r[5]) for r in lost) // max(count, 1)
    return count, avg, worst, max(int(r[6]) for r in lost)


def ahci_stats(g):
    out = g.command("ata")
    m = AHCI_STATS_RX.search(out)
    assert m, out
    return {k: int(v) for k, v in (kv.split("=") for kv in m.group(1).split())}


def test_every_lost_completion_is_found_within_a_tick_and_the_safety_delay(guest_factory, tmp_path):
    nvme, ahci = str(tmp_path / "nvme.img"), str(tmp_path / "ahci.img")
    diskimg.make_random_image(nvme, NVME_BYTES, 31)
    diskimg.make_random_image(ahci, AHCI_BYTES, 37)
    nvme_blocks, ahci_blocks = NVME_BYTES // SECTOR, AHCI_BYTES // SECTOR
    g = guest_factory(machine="q35", append="debugexit", icount=ICOUNT_SHIFT,
                      extra=["-drive", f"file={nvme},if=none,id=n,format=raw",
                             "-device", "nvme,serial=irqkit,drive=n,addr=04.0",
                             "-drive", f"file={ahci},if=none,id=d,format=raw",
                             "-device", "ide-hd,drive=d,bus=ide.0"])
    g.wait_shell(90)
    m = TICK_RX.search(g.log)
    assert m, "no 'irq: the tick (every N us) looks at ...' line in the boot log"
    bound_us = int(m.group(1)) + SAFETY_MAX_US + TICK_RUN_US
    nvme_crc, ahci_crc = diskimg.crc_of(nvme), diskimg.crc_of(ahci)
    # Warm-up: the tokens learn the devices' latency and are verified (32 good deliveries).
    for _ in range(2):
        assert kernel_crc(g, f"blk crc nvme0n1 0 {nvme_blocks}") == nvme_crc
        assert kernel_crc(g, f"blk crc sda 0 {ahci_blocks}") == ahci_crc
    figures = []
    for loss in (50, 100):
        assert "INJECTED" in g.command(f"inject nvme-noirq:{loss}")
        g.command("nvme clear-stats")
        assert kernel_crc(g, f"blk crc nvme0n1 0 {nvme_blocks}") == nvme_crc
        count, avg, worst, unseen = nvme_lost_latency(g)
        figures.append(f"nvme-noirq:{loss}: {count} lost, doorbell to taken avg {avg} us, worst {worst} us; "
                       f"unseen at most {unseen} us")
        assert count >= 5, figures
        assert unseen < bound_us, figures
    # Writes with every completion lost: the pattern is checked on the host below.
    out = g.command(f"blk write-pattern nvme0n1 {SEED} 0 {nvme_blocks // 2}", 120)
    assert "ok" in out, out
    count, avg, worst, unseen = nvme_lost_latency(g)
    figures.append(f"nvme-noirq:100 writes: {count} lost so far, worst {worst} us, unseen at most {unseen} us")
    assert unseen < bound_us, figures
    g.command("inject off nvme-noirq")
    before = ahci_stats(g)
    for loss in (50, 100):
        assert "INJECTED" in g.command(f"inject ahci-noirq:{loss}")
        assert kernel_crc(g, f"blk crc sda 0 {ahci_blocks}") == ahci_crc
        s = ahci_stats(g)
        figures.append(f"ahci-noirq:{loss}: {s['noirq'] - before['noirq']} lost so far, avg "
                       f"{s['noirq_latency_avg_us']} us, worst {s['noirq_latency_max_us']} us; unseen at most "
                       f"{s['noirq_unseen_max_us']} us")
        assert s["noirq"] - before["noirq"] >= 5, figures
        assert s["timeouts"] == before["timeouts"] and s["errors"] == before["errors"], s
        assert s["noirq_unseen_max_us"] < bound_us, figures
    g.command("inject off ahci-noirq")
    print(f"bound {bound_us} us\n" + "\n".join(figures))
    assert "flush nvme0n1: ok" in g.command("blk flush nvme0n1")
    g.send("halt\r")
    assert g.wait_exit(30) == EXIT_HALT
    assert diskimg.bad_pattern_blocks(nvme, SEED, 0, nvme_blocks // 2) == []
