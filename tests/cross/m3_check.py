#!/usr/bin/python3
"""m3_check.py - boot tests/cross/m3_run.c on QEMU's Cortex-M3 board and judge what it printed.

    m3_check.py ELF

The program runs kernel/irq (make cross boots it twice: on the runs' small build, CROSS_RUN_FLAGS of
tests/cross/cross.mk, and on the minimal build IRQ_MINIMAL=1, which keeps the event trace) through
the template port with
real NVIC interrupts, SysTick and a CMSDK timer as the clock (see its header); it only prints
what happened. This script decides: the line set-up worked,
a raised line ran the handler once, a line raised while disabled ran nothing until
enable_irq(), and a completion whose interrupt never came was found by the core's polling,
announced, and counted as polled (two in a row, so that the first is judged lost); a flood of
interrupts nobody claims was contained (the line off, no interrupt while the device went on,
back after the back-off); a storm of interrupts the driver claims was throttled (masked, polled
once a tick, back once quiet), and the line delivered by interrupt after both. Guest time runs
under -icount (shift=2, sleep=off: 4 ns per instruction, so that a claimed interrupt costs less
guest time than the storm bound allows), so the tick counts are the same on a loaded host. Exit status 0 = pass; the guest's output is printed
either way.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "trace"))
sys.path.insert(0, HERE)
import irqtrace  # noqa: E402
# The flood bound (two of the flood defence's segments), the claimed-storm bounds (more than 1,500
# interrupts in a 10 ms window, a few of which may predate the storm), QEMU's time base, the boot
# and the matcher: the same for every run of make cross, the reasons there.
from proof_check import FLOOD_MAX_IRQS, ICOUNT, STORM_MAX_IRQS, STORM_MIN_IRQS, needer, run_qemu  # noqa: E402

QEMU = ["qemu-system-arm", "-machine", "mps2-an385", "-nographic", "-monitor", "none",
        "-semihosting-config", "enable=on,target=native"] + ICOUNT
TIMEOUT_S = 30
# The program's own bounds (tests/cross/m3_run.c): ticks a disabled line is watched, and the
# longest wait for anything.
DISABLED_TICKS = 20
WAIT_TICKS = 2000
# The first poll of a token that has measured one interrupt: at most the policy's
# expect_first_poll_max_ns (400 us) plus a tick of the template's timer slack.
LOST_MAX_TICKS = 12
# A line off for a flood or a storm is tested again after spr_backoff_min_ns (100 ms of the clock);
# the program waits 20 ticks of it before it undoes the fault. Bound: 100 ticks (SysTick runs at
# half the rate of the CMSDK timer here: 100 ticks are 200 ms of the core's clock).
BACKOFF_TICKS = 100


def main():
    rc, out, _ = run_qemu("m3", QEMU + ["-kernel", sys.argv[1]], "qemu-system-arm", TIMEOUT_S)
    print("  " + "\n  ".join(out.strip().splitlines()))
    fails = []
    trace_note = "event trace not checked"
    need = needer(out, fails, "m3")

    if rc != 0:
        fails.append(f"QEMU exit status {rc} (semihosting exit 0 expected)")
    need(r"^m3: chip 0$", "irq_set_chip_and_handler accepted the NVIC chip")
    need(r"^m3: request 0$", "request_irq succeeded")
    need(r"^m3: token yes$", "init_irq_expect gave a token")
    m = need(r"^m3: ticks (\d+) after (\d+)$", "SysTick runs")
    if m and int(m.group(1)) < 5:
        fails.append("SysTick ticked fewer than 5 times")
    need(r"^m3: interrupt: completions 1$", "a raised line ran the handler once")
    need(r"^m3: interrupt: delivered=1 handled=1 unhandled=0 polled=0$",
         "the interrupt was counted delivered and handled, not polled")
    m = need(r"^m3: disabled: completions (\d+) after (\d+) ticks$", "the disabled case ran")
    if m and (int(m.group(1)) != 1 or int(m.group(2)) < DISABLED_TICKS):
        fails.append("a line raised while disabled ran its handler")
    need(r"^m3: enabled: completions 2$", "enable_irq delivered the held interrupt")
    need(r'^<4>irq 14: "m3dev": expected interrupt lost, completion found by polling',
         "the lost interrupt was announced")
    lost = re.findall(r"^m3: lost: completions (\d+) after (\d+) ticks$", out, re.M)
    if [int(c) for c, _ in lost] != [3, 4]:
        fails.append("the two lost completions were not found")
    for c, t in lost:
        if int(t) > LOST_MAX_TICKS:
            fails.append(f"lost completion {c} was not found by polling within {LOST_MAX_TICKS} ticks")
    need(r"^m3: lost: delivered=2 handled=2 unhandled=0 polled=2$",
         "two interrupts delivered, two completions by polling")
    m = need(r"^m3: flood: line off after (\d+) ticks, (\d+) interrupts, (\d+) unhandled$", "the flood case ran")
    if m and (int(m.group(1)) >= WAIT_TICKS or int(m.group(2)) > FLOOD_MAX_IRQS or
              int(m.group(3)) < int(m.group(2)) - 2):
        fails.append(f"the flood was not stopped within {FLOOD_MAX_IRQS} unclaimed interrupts")
    need(r'^<4>irq 14: "m3dev": flood of unclaimed interrupts: line disabled', "the flood was announced")
    m = need(r"^m3: flood: (\d+) ticks more, (\d+) interrupts, pending (\d)$", "the flood went on")
    if m and (int(m.group(2)) != 0 or int(m.group(3)) != 1):
        fails.append("the line took interrupts while off for flooding, or the device was not still asking")
    m = need(r"^m3: flood over: line back after (\d+) ticks$", "the line came back after the flood")
    if m and int(m.group(1)) > BACKOFF_TICKS:
        fails.append(f"the line was not back within its {BACKOFF_TICKS}-tick back-off")
    m = need(r"^m3: storm: throttled after (\d+) ticks, (\d+) interrupts, (\d+) claimed$", "the storm case ran")
    if m and (not STORM_MIN_IRQS <= int(m.group(2)) <= STORM_MAX_IRQS or int(m.group(3)) < int(m.group(2)) - 2):
        fails.append(f"the claimed storm was not throttled after {STORM_MIN_IRQS}..{STORM_MAX_IRQS} interrupts, "
                     "nearly all claimed")
    need(r"^<4>irq 14: \d+ interrupts in \d+ us, \d+ claimed \(bound 1500 in 10 ms\)", "the claimed storm was announced")
    m = need(r"^m3: storm: (\d+) ms more, (\d+) interrupts, (\d+) polls claimed$", "the storm went on")
    if m and (int(m.group(2)) != 0 or not int(m.group(1)) // 5 <= int(m.group(3)) <= int(m.group(1)) + 1):
        fails.append("the line took interrupts while throttled, or was not polled at the storm poll rate "
                     "(storm_poll_ns, 1 ms, rounded up to the tick)")
    m = need(r"^m3: storm over: line back after (\d+) ticks$", "the line came back after the storm")
    if m and int(m.group(1)) > BACKOFF_TICKS:
        fails.append(f"the line was not back within its {BACKOFF_TICKS}-tick back-off")
    need(r'^<6>irq 14: "m3dev": claimed storm over, line back on interrupts', "the storm's end was announced")
    need(r"^m3: after: completions 5$", "after the flood and the storm the line delivered by interrupt")
    need(r"^m3: done$", "the program ran to its end")
    # The event trace, recorded on the M3 and dumped in the kernel's format: whole (count, hash),
    # each case's events there (docs/trace.md).
    # A build without the trace (the runs' small build: IRQ_TRACE_BUILD=0) must refuse
    # irq_trace_start (-IRQ_ENODEV) and print no dump; the minimal build records and dumps it.
    m = need(r"^m3: trace (-?\d+)$", "irq_trace_start answered")
    if m and m.group(1) == "-19":
        if "@irqkit-trace" in out:
            fails.append("the trace is compiled out but a dump was printed")
        trace_note = "event trace compiled out: refused"
    elif m and m.group(1) != "0":
        fails.append(f"irq_trace_start returned {m.group(1)}")
    try:
        if m and m.group(1) == "-19":
            raise StopIteration
        trace_note = "event trace"
        _, events, tail, _ = irqtrace.parse(out, "m3 output")
        names = [(e.name, e.f.get("by") or e.f.get("why") or e.f.get("ret")) for e in events if e.line == 14]  # M3_IRQ
        for want in [("expect", None), ("irq_entry", None), ("action", "handled"), ("unexpect", "irq"),
                     ("poll_start", "expect"), ("unexpect", "poll"), ("poll_end", None)]:
            if want not in names:
                fails.append(f"the trace lacks {want[0]} {want[1] or ''}".strip())
        if int(tail["dropped"]):
            fails.append(f"the trace dropped {tail['dropped']} events (ring too small)")
    except StopIteration:
        pass
    except irqtrace.TraceError as e:
        fails.append(f"the trace dump is not whole: {e}")
    if fails:
        sys.exit("m3: FAILED: " + "; ".join(fails))
    print("  m3: kernel/irq ran on the Cortex-M3: interrupt, disable/enable, lost interrupt polled, flood contained, "
          "claimed storm throttled, " + trace_note + ": pass")


if __name__ == "__main__":
    main()
