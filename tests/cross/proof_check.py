#!/usr/bin/python3
"""proof_check.py - boot one device run of make cross on QEMU and judge what it printed.

    proof_check.py BOARD ELF

BOARD names a QEMU command line in BOARDS below: rv64-m (RISC-V virt, machine mode, -bios none),
rv64-s-smode and rv64-s-sstc (supervisor mode under QEMU's default OpenSBI; the alarm through the
SBI timer or Sstc's stimecmp), a64-gicv3 and a64-gicv2 (Arm virt, AArch64 at EL1, the GIC of that
version). The program (tests/cross/rv64_run.c or tests/cross/a64_run.c with tests/cross/proof.c)
runs kernel/irq through the template port with the board's interrupt controller as the irq_chip
and its UART as a real device; it only prints what happened. This script decides:

- the set-up worked (chip, request, token) and the texts the driver sent by interrupt reached the
  host whole (read from the UART's own output);
- interrupt: a text sent by the transmit interrupt, with irq_pending seeing the request while the
  CPU had interrupts off;
- disabled and enabled: a line raised while disabled ran nothing for 20 ms while its request was
  held at the controller (pending 1, irq_pending 0 for a masked source), and enable_irq()
  delivered it at once, not by polling;
- lost: two completions whose interrupt the controller never delivered (the source's enable
  cleared behind the core's back) found by the expect poll within LOST_MAX_MS each, announced as
  a lost interrupt, irq_pending 0 for the disabled source, no interrupt delivered;
- flood: interrupts nobody claims stopped within FLOOD_MAX_IRQS, announced; the line off with no
  interrupt while the device went on (its request still at the controller); back after the
  back-off; the port's per-CPU progress count (irq_port_cpu_progress) moved at least once per
  interrupt the CPU took meanwhile;
- claimed storm: interrupts the driver claims (one byte each) throttled within one storm window
  (STORM_MIN_IRQS..STORM_MAX_IRQS interrupts), announced; masked while the storm went on, no
  interrupt, polled at the storm poll rate (not more); back on interrupts, the storm over and
  announced, within its back-off and a storm window once the device was quiet;
- after: a text by interrupt again, no poll.
Guest time runs under -icount (shift=2, sleep=off: 4 ns per instruction), so the figures do not
depend on host load; shift 2 so that a claimed interrupt's path costs less guest time than the
storm bound allows (1,500 in 10 ms). tests/cross/m3_check.py boots and matches through run_qemu()
and needer() here, with the same ICOUNT and FLOOD_MAX_IRQS. Exit status 0 = pass; the guest's
output is printed either way.
"""
import os
import re
import subprocess
import sys

ICOUNT = ["-icount", "shift=2,sleep=off"]
RV = ["qemu-system-riscv64", "-machine", "virt", "-smp", "1", "-m", "128M", "-nographic", "-monitor", "none"]
A64 = ["qemu-system-aarch64", "-cpu", "cortex-a57", "-smp", "1", "-m", "128M", "-nographic", "-monitor", "none",
       "-semihosting-config", "enable=on,target=native"]
# board: (QEMU command line, Debian package, the program's line tag, the UART's line, console on stderr)
BOARDS = {
    "rv64-m": (RV + ["-bios", "none"], "qemu-system-misc", "rv", 10, False),
    # -bios default: QEMU's OpenSBI (fw_dynamic), which starts the kernel in S-mode at 0x80200000.
    "rv64-s-smode": (RV + ["-bios", "default"], "qemu-system-misc", "rvs", 10, False),
    "rv64-s-sstc": (RV + ["-bios", "default"], "qemu-system-misc", "rvs", 10, False),
    "a64-gicv3": ([A64[0], "-machine", "virt,gic-version=3"] + A64[1:], "qemu-system-arm", "a64", 33, True),
    "a64-gicv2": ([A64[0], "-machine", "virt,gic-version=2"] + A64[1:], "qemu-system-arm", "a64", 33, True),
}
TIMEOUT_S = 60
# The program's bounds (tests/cross/proof.c).
DISABLED_MS = 20
GOES_ON_MS = 50
# The first poll of an expect: at most the irqkit profile's expect_first_poll_max_ns (400 us);
# the rest of the text takes one burst; plus the alarm's slack and 4 ms to spare.
LOST_MAX_MS = 15
# The flood defence (kernel/irq/spurious.c; policy.h, irqkit profile) judges segments of
# spr_segment_samples = 100 interrupts: one with 95 % of them unclaimed is a flood, the line off at
# its last interrupt. A flood that starts inside a segment may leave that one good (the claimed
# interrupts before it), never the next: the line is off within two segments, 200 interrupts,
# "two segments bound a flood's cost" (policy.h). The runs measure 93 (RV64) and 97 (AArch64);
# tests/cross/m3_check.py takes the same bound (98 measured on the Cortex-M3). A flood not
# contained goes on for PROOF_WAIT_MS and counts thousands, or takes the CPU for good (QEMU's
# time-out): either fails.
SPR_SEGMENT_SAMPLES = 100
FLOOD_MAX_IRQS = 2 * SPR_SEGMENT_SAMPLES
# The claimed-storm defence: more than storm_max_claimed (1,500) interrupts in one storm window
# (10 ms) is a storm, throttled by the interrupt that crosses the bound: the first window over it.
# The program counts from the storm's start, the window may have begun a few interrupts earlier.
STORM_MIN_IRQS, STORM_MAX_IRQS = 1500 - 10, 2 * 1501
# While throttled the line is polled every storm_poll_ns (1 ms): at most one poll per ms of the
# 50 ms (plus one), and at least a fifth of that on a slow alarm.
STORM_POLL_MS = 1
# The first re-enable test comes spr_backoff_min_ns (100 ms) after the line went off; the back-off
# the program prints for the storm; then a storm window (10 ms) without a storm; plus 20 ms.
BACKOFF_MS = 100
STORM_WINDOW_MS = 10
TEXTS = ["TX1 sent by the transmit interrupt", "TX2 held while disabled", "TX3 found by polling",
         "TX4 found by polling too", "TX5 after the flood and the storm"]
STORM_BYTE = "s"


def run_qemu(name, cmd, pkg, timeout_s, console_on_stderr=False):
    """Boot @cmd and wait for the guest to exit; RETURNS (exit status, console, device output),
    carriage returns dropped. The console is QEMU's stdout, or its stderr where the program
    prints by semihosting and the device has stdout. Exits with the reason when QEMU is missing
    or the guest did not exit in @timeout_s (tests/cross/m3_check.py boots through here too)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout_s,
                           stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        sys.exit(f"{name}: {cmd[0]} not found: install the Debian package {pkg} (make deps)")
    except subprocess.TimeoutExpired as e:
        text = [s.decode(errors="replace") if isinstance(s, bytes) else (s or "") for s in (e.stdout, e.stderr)]
        # The console only: a device left storming fills its output with megabytes.
        sys.stdout.write(text[1] if console_on_stderr else text[0][-20000:])
        sys.exit(f"{name}: the guest did not exit within {timeout_s} s (a livelock: an interrupt storm "
                 "nothing stopped, or a wait that never ended)")
    console = (p.stderr if console_on_stderr else p.stdout).replace("\r", "")
    device = p.stdout.replace("\r", "")
    return p.returncode, console, device


def needer(out, fails, tag):
    """need(pattern, what): the first match of @pattern (TAG: the program's tag) in @out as a line,
    or None with @what added to @fails."""
    def need(pattern, what):
        m = re.search(pattern.replace("TAG", re.escape(tag)), out, re.M)
        if not m:
            fails.append(what)
        return m
    return need


def boot(board, elf):
    cmd, pkg, _, _, console_on_stderr = BOARDS[board]
    return run_qemu(board, cmd + ICOUNT + ["-kernel", elf], pkg, TIMEOUT_S, console_on_stderr)


def judge(board, rc, out, device):
    """The list of failures (empty: pass)."""
    _, _, tag, irq, separate = BOARDS[board]
    fails = []
    need = needer(out, fails, tag)

    def num(m, i):
        return int(m.group(i)) if m else None

    def stats(when):
        return need(rf"^TAG: {when}: delivered=(\d+) handled=(\d+) unhandled=(\d+) polled=(\d+)$", f"{when} stats")

    if rc != 0:
        fails.append(f"QEMU exit status {rc} (the program's pass, 0, expected)")
    need(r"^TAG: chip 0$", "irq_set_chip_and_handler accepted the chip")
    need(r"^TAG: request 0$", "request_irq succeeded")
    need(r"^TAG: token yes$", "init_irq_expect gave a token")
    for t in TEXTS:
        if t not in device:
            fails.append(f"the UART did not send {t!r} whole")

    m = need(r"^TAG: interrupt: completions (\d+) after (\d+) ms, irq_pending with interrupts off (-?\d+)$",
             "the interrupt case ran")
    if m and (num(m, 1) != 1 or num(m, 3) != 1):
        fails.append("the transmit interrupt did not send the text, or irq_pending missed the pending request")
    m = stats("interrupt")
    if m and (num(m, 2) < 1 or num(m, 4) != 0):
        fails.append("the text was not completed by an interrupt without polling")

    m = need(r"^TAG: disabled: completions (\d+) after (\d+) ms, controller pending (\d+), irq_pending (-?\d+)$",
             "the disabled case ran")
    if m and (num(m, 1) != 1 or num(m, 2) < DISABLED_MS or num(m, 3) != 1 or num(m, 4) != 0):
        fails.append("a line raised while disabled ran its handler, or its request was not held at the controller "
                     "(pending 1, irq_pending 0 for a masked source)")
    m = need(r"^TAG: enabled: completions (\d+) after (\d+) ms$", "the enable case ran")
    if m and (num(m, 1) != 2 or num(m, 2) > 1):
        fails.append("enable_irq did not deliver the held request at once")
    m_en = stats("enabled")
    if m_en and num(m_en, 4) != 0:
        fails.append("the held request was found by polling, not delivered on enable_irq")

    lost = re.findall(rf"^{tag}: lost: completions (\d+) after (\d+) ms, controller pending (\d+), irq_pending (-?\d+)$",
                      out, re.M)
    if [int(c) for c, _, _, _ in lost] != [3, 4]:
        fails.append("the two lost completions were not found")
    for c, ms, _, pend in lost:
        if int(ms) > LOST_MAX_MS or int(pend) != 0:
            fails.append(f"lost completion {c} was not found by polling within {LOST_MAX_MS} ms, "
                         "or irq_pending said 1 for a source disabled at the controller")
    need(rf'^<4>irq {irq}: "uart0": expected interrupt lost, completion found by polling',
         "the lost interrupt was announced")
    m = stats("lost")
    if m and m_en and (num(m, 1) != num(m_en, 1) or num(m, 4) < 2):
        fails.append("the lost case delivered an interrupt, or polls did not find both completions")

    m = need(r"^TAG: flood: line off (\d) after (\d+) ms, (\d+) pushes, (\d+) interrupts, (\d+) unhandled$",
             "the flood case ran")
    if m and (num(m, 1) != 1 or num(m, 4) > FLOOD_MAX_IRQS or num(m, 5) < num(m, 4) - 2):
        fails.append(f"the flood was not stopped within {FLOOD_MAX_IRQS} unclaimed interrupts")
    need(rf"^<4>irq {irq}: \"uart0\": flood of unclaimed interrupts: line disabled", "the flood was announced")
    # port.h's irq_port_cpu_progress: the CPU's count of finished interrupts moved at least once per
    # interrupt the line took (the alarm's add more); a port that counts only its timer falls short.
    p = need(r"^TAG: progress: CPU (\d+) finished (\d+) interrupts while the line took (\d+)$",
             "the port's progress count was read")
    if p and (num(p, 3) == 0 or num(p, 2) < num(p, 3)):
        fails.append("irq_port_cpu_progress did not count every interrupt this CPU finished "
                     "(the external interrupt's path does not call irq_template_interrupt_done)")
    m = need(r"^TAG: flood: (\d+) ms more, (\d+) pushes, (\d+) interrupts, line off (\d), controller pending (\d)$",
             "the flood went on")
    if m and (num(m, 3) != 0 or num(m, 4) != 1 or num(m, 5) != 1):
        fails.append("the line took interrupts while off for flooding, or the device was not still asking")
    m = need(r"^TAG: flood over: line back after (\d+) ms, floods (\d+)$", "the line came back")
    if m and (num(m, 2) != 1 or num(m, 1) > BACKOFF_MS):
        fails.append(f"the line was not back within its {BACKOFF_MS} ms back-off")

    m = need(r"^TAG: storm: throttled (\d) after (\d+) ms, (\d+) interrupts, (\d+) claimed$",
             "the claimed storm case ran")
    if m and (num(m, 1) != 1 or not STORM_MIN_IRQS <= num(m, 3) <= STORM_MAX_IRQS or num(m, 4) < num(m, 3) - 2):
        fails.append(f"the claimed storm was not throttled after {STORM_MIN_IRQS}..{STORM_MAX_IRQS} interrupts, "
                     "nearly all claimed")
    m_ann = need(rf"^<4>irq {irq}: (\d+) interrupts in (\d+) us, (\d+) claimed \(bound 1500 in 10 ms\)"
                 r"(?:, their runs \d+ % of a CPU \(bound \d+ %\))?; polled every (\d+) ms, re-enable test in (\d+) ms$", "the claimed storm was announced")
    backoff = num(m_ann, 5) if m_ann else BACKOFF_MS
    if backoff > 2 * BACKOFF_MS:
        fails.append(f"the claimed storm's back-off was {backoff} ms: more than the line's second episode gets "
                     f"({2 * BACKOFF_MS} ms)")
    m = need(r"^TAG: storm: (\d+) ms more, (\d+) interrupts, (\d+) polls claimed, (\d+) bytes, line off (\d)$",
             "the storm went on")
    if m:
        ms, polls = num(m, 1), num(m, 3)
        if num(m, 2) != 0 or num(m, 5) != 1:
            fails.append("the line took interrupts while throttled")
        if not ms // (5 * STORM_POLL_MS) <= polls <= ms // STORM_POLL_MS + 1:
            fails.append(f"{polls} polls claimed in {ms} ms: not the storm poll rate (one per {STORM_POLL_MS} ms)")
    m = need(r"^TAG: storm over: line back after (\d+) ms, throttled (\d)$", "the storm ended")
    if m and (num(m, 2) != 0 or num(m, 1) > backoff + STORM_WINDOW_MS + 20):
        fails.append(f"the line was not back on interrupts within its {backoff} ms back-off and a storm window")
    need(rf'^<6>irq {irq}: "uart0": claimed storm over, line back on interrupts', "the storm's end was announced")
    if separate:
        # The device's output is the host's own count of what the driver sent in the storm.
        sent = device.count(STORM_BYTE)
        m1 = re.search(rf"^{tag}: storm: throttled \d after \d+ ms, \d+ interrupts, (\d+) claimed", out, re.M)
        if m1 and sent < int(m1.group(1)):
            fails.append(f"the UART sent {sent} storm bytes, fewer than the {m1.group(1)} claimed interrupts")

    m = need(r"^TAG: after: completions (\d+) after (\d+) ms, (\d+) handled by interrupt, (\d+) polled$",
             "the after case ran")
    if m and (num(m, 1) != 5 or num(m, 3) < 1 or num(m, 4) != 0):
        fails.append("after the flood and the storm the line did not deliver by interrupt")
    need(r"^TAG: done$", "the program ran to its end")
    return fails


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in BOARDS:
        sys.exit(f"usage: {os.path.basename(sys.argv[0])} {{{'|'.join(BOARDS)}}} ELF")
    board, elf = sys.argv[1], sys.argv[2]
    print(f"cross {board}: running {elf} on {' '.join(BOARDS[board][0] + ICOUNT)}")
    rc, out, device = boot(board, elf)
    lines = out.strip().splitlines()
    # The firmware's banner (OpenSBI's, 40 lines) before the program's first line: counted, not shown.
    first = next((i for i, line in enumerate(lines) if line.startswith(BOARDS[board][2] + ": ")), 0)
    if first:
        print(f"  ({first} lines of firmware output before the program's)")
    print("  " + "\n  ".join(lines[first:]))
    fails = judge(board, rc, out, device)
    if fails:
        sys.exit(f"{board}: FAILED: " + "; ".join(fails))
    print(f"  {board}: kernel/irq with the board's controller and UART: interrupt, disable/enable, lost interrupt "
          "polled, flood contained, claimed storm throttled: pass")


if __name__ == "__main__":
    main()
