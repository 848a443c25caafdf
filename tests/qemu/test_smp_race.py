"""The poll-against-interrupt race on two CPUs, made to happen thousands of
times on purpose (docs/smp.md, "The race test").

The disk's line (IRQ 14) is delivered to CPU 1; every timer, and so every poll
of the line, runs on CPU 0. The fault `ata-race` (drivers/ata/ata_race.c) aims
one poll per interrupt the driver waits for at the driver's learned completion
latency, +-50 %, through kernel/irq's own poll path (irq_poll()). Single-sector
PIO (`ata set hda multiple 0`) gives one interrupt per sector. kernel/irq counts
the race where it is decided: a poll that found the handlers running
(poll_busy) and an interrupt that came while a poll held the line and was
replayed after it (poll_raced).

Checked here, against the disk image on the host and across the counters:
- every byte read matches the image (CRC), the pattern written is right sector
  by sector after QEMU exits and nothing outside it changed: no command
  completed twice (a second completion would shift the PIO data) or went
  missing (a time-out, lost=, brackets_timed_out=);
- the driver's brackets (one per interrupt waited for) = its phases serviced =
  the core's completions by interrupt + by polling for its token: each
  completed exactly once;
- the driver's handler calls = the line's runs by interrupt (handled +
  unhandled) + the polls that ran the handlers;
- the per-CPU table's counts of the line add up to its delivered count, nearly
  all on CPU 1;
- the fault's own outcome counts fit inside the core's (busy <= poll_busy);
- the race happened: poll_busy + poll_raced >= RACES_MIN;
- the health verdicts: every interrupt was delivered, so nothing times out and
  the line ends on interrupts with its token verified; a "lost" episode (two
  completions found by polls before CPU 1 took the interrupt, see below) must
  end with "verified again".

The control: the same reads with the line on CPU 0, where the handler runs
with interrupts off on the timers' CPU and the race cannot happen: both
counters must stay 0 (so they count the concurrency, not the polls).
`make test-race` (IRQKIT_RACE=full) runs the long variant: four times the data
and RACES_MIN, and the tejun2010 and mainline policies too.
"""
import os
import re
import subprocess
import sys
import time

import pytest

import diskimg
from irqkit_qemu import EXIT_HALT, KERNEL, ROOT

sys.path.insert(0, os.path.join(ROOT, "tools", "vcpuwatch"))
import stalls as vcpuwatch  # noqa: E402

PLUGIN = os.path.join(ROOT, "build", "host", "vcpuwatch.so")

MT_ACCEL = "tcg,thread=multi"
FULL = os.environ.get("IRQKIT_RACE") == "full"
DISK_BYTES = 2 << 20
SECTOR = diskimg.SECTOR
RACES_MIN = 10000 if FULL else 2000   # poll_busy + poll_raced wanted ...
# ... read for: the whole disk again until the minimum is reached. The race rate depends on how
# the host schedules the vCPU threads, so these are liveness limits only (a race that never
# happens fails), not a judgement: a read count or a host time within which the minimum must come.
READS_MAX = 48 if FULL else 32        # reads of the whole disk at most ...
READS_WAIT_S = 600 if FULL else 240   # ... and host seconds of reading at most
RACES_MIN_SMP4 = 4000 if FULL else 1000  # the -smp 4 cell (line on CPU 3) wants this many
CRC_RX = re.compile(r"crc32 hda (\d+)\+(\d+) = ([0-9a-f]{8}) ")
FAULT_RX = re.compile(r"ata-race: off, spread \d+ %: (\d+) polls aimed: (\d+) found the completion, (\d+) found "
                      r"nothing, (\d+) found the handler running, (\d+) left it to a pending interrupt, (\d+) refused")
RACE_RX = re.compile(r"line 14: poll against interrupt: (\d+) polls found the handlers running, (\d+) interrupts came")
POLLS_RX = re.compile(r"line 14: polls (\d+): (\d+) found work")
QUIET_READS_MAX = 20   # reads of `irqs` to find line 14 at rest before its counts are compared
LINE_RX = re.compile(r"^\s*14\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+IO-APIC", re.M)
PER_CPU_RX = re.compile(r"^\s+0x3e\s+irq 14\s+(.*)$", re.M)
ATA_IRQ_WAIT_MS = 250   # drivers/ata: the driver completes a phase itself after this long without its interrupt
STALL_MAX_INSNS = 5000000  # guest instructions the starved vCPUs of a host-starved 250 ms may execute (0.1-1.5 M seen)
STILL_MS = 2            # a vCPU with work that executed nothing this long: the host stopped it (see below) ...
STILL_BEFORE_MS = 20    # ... within this long before the verdict it explains
RECOVERY_VERDICT_MS = 10  # a time-out verdict this close to a driver's own completion comes from it
FINAL_READS_MAX = 4     # reads of 256 sectors after the fault, until the token is verified again
TOKEN_RX = re.compile(r"line 14 ata0: (ON POLLING: )?.*expect tokens 1 \((\d) verified\), completions (\d+) by irq / "
                      r"(\d+) by polling .* / (\d+) timed out")


def ata_stats(g):
    m = re.search(r"^ata0: .*?\n(?:  .*\n)*?  stats: (.*)$", g.command("ata"), re.M)
    assert m, "no ata0 stats"
    return {k: int(v) for k, v in (x.split("=") for x in m.group(1).split())}


def kernel_symbol(name, required=True):
    out = subprocess.run(["nm", KERNEL], capture_output=True, text=True, check=True).stdout
    m = re.search(rf"^([0-9a-f]+) [tT] {re.escape(name)}$", out, re.M)
    assert m or not required, f"{name} not in {KERNEL}"
    return int(m.group(1), 16) if m else None


def watched(tmp_path):
    """QEMU's arguments for the vcpuwatch plugin (tools/vcpuwatch): every vCPU's executed
    instructions and its host thread's scheduler figures, sampled each millisecond of host time,
    and three marks: each run of the disk's handler (mark 0), each phase the ATA driver had to
    complete itself after ATA_IRQ_WAIT_MS, lost or late (mark 1: ata_hw_cpu_ran(), which
    recover_lost() calls only there, to ask whether the line's CPU ran) and each lost or
    timed-out verdict of kernel/irq's expecting (mark 2: __irq_expect_bad())."""
    assert os.path.exists(PLUGIN), f"{PLUGIN} missing: make build/host/vcpuwatch.so (make qemu-test builds it)"
    out = str(tmp_path / "vcpuwatch.txt")
    # __irq_expect_bad is static in kernel/irq/expect.c: should a build inline it, the last
    # verdict's time is unknown and the whole final read is the window instead (run_race).
    bad = kernel_symbol("__irq_expect_bad", required=False)
    marks = ":".join(f"{a:#x}" for a in (kernel_symbol("ata_hw_interrupt"), kernel_symbol("ata_hw_cpu_ran"), bad) if a)
    return out, ["-plugin", f"{PLUGIN},out={out},mark={marks}"]


def race_counts(irqs):
    race = RACE_RX.search(irqs)
    return int(race.group(1)) + int(race.group(2)) if race else 0


def run_race(guest_factory, tmp_path, cpu, policy="irqkit", writes=True, smp=2, races_min=RACES_MIN):
    path = str(tmp_path / "disk.img")
    original = diskimg.make_random_image(path, DISK_BYTES, seed=16)
    watch, plugin = watched(tmp_path)
    g = guest_factory(append=f"debugexit irqpolicy={policy}", machine="pc", accel=MT_ACCEL,
                      extra=["-smp", str(smp), "-drive", f"file={path},format=raw,if=ide,index=0"] + plugin)
    g.wait_shell(120)
    assert "CPUs 0x%x" % (1 << cpu) in g.command(f"affinity 14 {cpu}")
    assert "READ/WRITE SECTORS" in g.command("ata set hda multiple 0")
    assert "INJECTED ata-race" in g.command("inject ata-race")
    sectors = DISK_BYTES // SECTOR
    # Read the disk until the race was hit races_min times (the rate depends on how the host
    # schedules the vCPU threads: about 1,000-3,000 a read here, fewer beside busy loops): as
    # long as it takes, within the liveness limits READS_MAX and READS_WAIT_S.
    reads_start = time.monotonic()
    for reads in range(1, READS_MAX + 1):
        m = CRC_RX.search(g.command(f"ata crc 0 {sectors}", 300))
        assert m and int(m.group(3), 16) == diskimg.crc_of(path), m and m.group(0)
        if race_counts(g.command("irqs")) >= races_min or cpu == 0:
            break
        if time.monotonic() - reads_start >= READS_WAIT_S:
            break
    seed, lba, count = 0x16AC, sectors // 2, sectors // 8
    if writes:
        out = g.command(f"ata write-pattern {seed} {lba} {count}", 300)
        assert re.search(rf"write-pattern hda {lba}\+{count} seed {seed:#010x}: ok", out), out
    fault = FAULT_RX.search(g.command("inject off ata-race"))
    assert fault, "ata-race printed no outcome counts"
    aimed, found, nothing, busy, deferred, refused = (int(x) for x in fault.groups())
    # Without the aimed polls the token must trust the line again (see the verdicts below): read
    # until it does, at most FINAL_READS_MAX times, timed on the host's clock (the plugin's).
    final_start = time.monotonic_ns()
    for _ in range(FINAL_READS_MAX):
        m = CRC_RX.search(g.command("ata crc 0 256", 120))
        assert m and int(m.group(3), 16) == diskimg.crc_of(path, 0, 256 * SECTOR), m and m.group(0)
        irqs = g.command("irqs")
        tok = TOKEN_RX.search(irqs)
        if not tok or (not tok.group(1) and tok.group(2) == "1"):
            break
    final_end = time.monotonic_ns()
    # The counts below must be one moment's: `irqs` printed while the line's handlers ran on the
    # other CPU (its state "inprogress": a late interrupt of a vCPU the host had kept off) has the
    # driver's count one ahead of the line's. So `irqs`, `ata`, `irqs` again, until the line was at
    # rest in both and did not run between them (bounded).
    for _ in range(QUIET_READS_MAX):
        stats = ata_stats(g)
        again = g.command("irqs")
        quiet = not re.search(r"^\s*14\s.*\binprogress\b", irqs + again, re.M)
        if quiet and LINE_RX.search(again).groups() == LINE_RX.search(irqs).groups():
            break
        irqs = again
    else:
        pytest.fail(f"line 14 never at rest over {QUIET_READS_MAX} reads of irqs and ata: {again}")
    g.command("ata flush")
    g.send("halt\r")
    assert g.wait_exit(60) == EXIT_HALT
    # The data, on the host: nothing completed twice or went missing.
    if writes:
        assert diskimg.bad_pattern_blocks(path, seed, lba, count) == []
        assert diskimg.changed_ranges(path, original, lba, count) == []
    assert stats["timeouts"] == 0 and stats["errors"] == 0, stats
    # What the host did to the vCPUs (docs/smp.md, "What the long variant found"): a phase the
    # driver had to complete itself after ATA_IRQ_WAIT_MS, or a token left distrusted at the end,
    # is the host's doing only if the plugin saw it stop a vCPU that had work; with both vCPUs on
    # host CPUs it is the kernel's own stall and fails.
    samples, marks = vcpuwatch.load(watch)
    name = vcpuwatch.symbolizer(KERNEL)
    # A phase the driver completed itself is "lost" when the line's CPU ran meanwhile and "late"
    # when it did not (drivers/ata/ata_core.c, recover_lost): either way the host must have kept a
    # vCPU with work off its CPU, or the kernel stalled (lost) or called a lost interrupt late.
    recoveries = [t for t, _, idx in marks if idx == 1]
    assert len(recoveries) == stats["lost"] + stats["late"], (len(recoveries), stats)
    for t in recoveries:
        starved, figures = vcpuwatch.host_starved(samples, t - ATA_IRQ_WAIT_MS * 1000000, t, name, STALL_MAX_INSNS)
        print(f"ata0 completed a phase itself after {ATA_IRQ_WAIT_MS} ms; in those ms: " + "; ".join(figures))
        assert starved, ("a phase waited for its interrupt for the driver's whole wait while the vCPUs "
                         "with work were on host CPUs, or executed millions of instructions: the kernel's "
                         "own stall", figures)
    # The last lost verdict, when the token ends distrusted: the interrupt's vCPU stood still just before.
    bad = [t for t, _, idx in marks if idx == 2]
    if kernel_symbol("__irq_expect_bad", required=False):
        host_still = vcpuwatch.longest_still(samples, cpu, bad[-1] - STILL_BEFORE_MS * 1000000, bad[-1], name) if bad else 0
    else:
        host_still = vcpuwatch.longest_still(samples, cpu, final_start, final_end, name)
    # A phase the driver completed itself ends its bracket as timed out (the token's time-out
    # verdict follows at once): judged above with its 250 ms, so the verdict is explained.
    if bad and any(abs(bad[-1] - t) <= RECOVERY_VERDICT_MS * 1000000 for t in recoveries):
        host_still = max(host_still, STILL_MS)
    timed_out_phases = stats["lost"] + stats["late"]
    assert stats["brackets_timed_out"] == timed_out_phases, stats
    assert stats["serviced"] + timed_out_phases == stats["brackets"], stats
    tok = TOKEN_RX.search(irqs)
    if policy != "mainline":  # mainline has no IRQ expecting: no token
        assert tok, irqs
        on_polling, verified, by_irq, by_poll, timed_out = tok.groups()
        assert int(by_irq) + int(by_poll) + int(timed_out) == stats["brackets"], (tok.group(0), stats)
        assert int(timed_out) == timed_out_phases, (tok.group(0), stats)
    # The line's counts.
    line = LINE_RX.search(irqs)
    assert line, irqs
    delivered, handled, unhandled, _spurious, _found = (int(x) for x in line.groups())
    polls = POLLS_RX.search(irqs)
    poll_runs = int(polls.group(1)) if polls else 0
    assert stats["handler"] == handled + unhandled + poll_runs, (stats, line.group(0), polls and polls.group(0))
    per_cpu = [int(x) for x in PER_CPU_RX.search(irqs).group(1).split()]
    assert sum(per_cpu) == delivered, (per_cpu, delivered)
    assert len(per_cpu) == smp and per_cpu[cpu] >= delivered - 10, f"line 14 not on CPU {cpu}: {per_cpu}"
    race = RACE_RX.search(irqs)
    poll_busy, poll_raced = (int(race.group(1)), int(race.group(2))) if race else (0, 0)
    # The fault's own polls within the core's counts.
    assert aimed == found + nothing + busy + deferred + refused and refused == 0, fault.group(0)
    assert busy <= poll_busy and found + nothing <= poll_runs, (fault.group(0), race and race.group(0))
    # The health verdicts: every interrupt was delivered.
    distrusted = bool(tok) and (bool(on_polling) or verified != "1")
    if distrusted:
        # Two completions found by polls with no interrupt between them are judged lost; the host
        # stopping the interrupt's vCPU for longer than a phase does exactly that. The token may
        # end distrusted (FINAL_READS_MAX reads did not win it back) only if the host stopped that
        # vCPU for STILL_MS or more in the STILL_BEFORE_MS before the last lost verdict.
        assert host_still >= STILL_MS, (f"the token stayed distrusted, and vCPU {cpu} had not stood still for "
                                        f"{STILL_MS} ms before the last lost verdict (longest {host_still:.1f} ms)",
                                        tok.group(0))
        print(f"token distrusted at the end: before the last lost verdict the host stopped vCPU {cpu} "
              f"for {host_still:.0f} ms")
    else:
        assert "every line with handlers delivers by interrupt" in irqs, irqs
    assert stats["lost"] or "timed out: polled" not in g.log
    # A completion a poll found is judged late when an unclaimed interrupt follows before the
    # token's next completion. When CPU 1 takes its interrupt later than the next aimed poll (a
    # vCPU thread off the host CPU; the edges then merge into one), two completions come by
    # polling back to back and the first is judged lost: the core cannot tell, irq_pending
    # answers "cannot tell" off the line's CPU. Such an episode must end with the token
    # verified again while the race goes on or once it stops.
    # (Announcements are rate-limited, so the last one is what is checked.)
    episodes = re.findall(r'irq 14: "ata0": (expected interrupt lost|interrupts verified again)', g.log)
    assert not episodes or episodes[-1] == "interrupts verified again" or distrusted, episodes[-3:]
    print(f"race: {reads} reads, {aimed} polls aimed; {poll_busy} found the handlers running on another CPU, "
          f"{poll_raced} interrupts replayed after a poll")
    return aimed, poll_busy, poll_raced


def test_polls_aimed_at_interrupts_on_another_cpu_race_thousands_of_times_and_lose_nothing(
        guest_factory, tmp_path):
    aimed, poll_busy, poll_raced = run_race(guest_factory, tmp_path, cpu=1)
    assert poll_busy + poll_raced >= RACES_MIN, (aimed, poll_busy, poll_raced)
    assert poll_busy > 0 and poll_raced > 0, (poll_busy, poll_raced)


def test_with_four_cpus_the_interrupt_on_cpu3_races_polls_from_cpu0(guest_factory, tmp_path):
    """-smp 4: the line on CPU 3, the polls (every timer) on CPU 0, CPUs 1 and 2 idle. The same
    checks; the per-CPU table must show line 14 on CPU 3 alone (a chip that cannot name CPU 3, or
    a core that assumes the other CPU is CPU 1, fails here)."""
    aimed, poll_busy, poll_raced = run_race(guest_factory, tmp_path, cpu=3, smp=4, writes=False,
                                            races_min=RACES_MIN_SMP4)
    assert poll_busy + poll_raced >= RACES_MIN_SMP4, (aimed, poll_busy, poll_raced)
    assert poll_busy > 0 and poll_raced > 0, (poll_busy, poll_raced)


if FULL:  # the long variant only (make test-race)
    @pytest.mark.parametrize("policy", ["tejun2010", "mainline"])
    def test_the_race_under_the_other_policies(guest_factory, tmp_path, policy):
        _, poll_busy, poll_raced = run_race(guest_factory, tmp_path, cpu=1, policy=policy)
        assert poll_busy + poll_raced >= RACES_MIN, (policy, poll_busy, poll_raced)


def test_control_with_the_line_on_the_timers_cpu_the_race_cannot_happen(guest_factory, tmp_path):
    aimed, poll_busy, poll_raced = run_race(guest_factory, tmp_path, cpu=0, writes=False)
    assert aimed >= 100 and poll_busy == 0 and poll_raced == 0, (aimed, poll_busy, poll_raced)
