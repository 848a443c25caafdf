#!/usr/bin/python3
"""rv64_check.py - boot tests/cross/rv64_run.c on QEMU's RISC-V virt board and judge what it printed.

    rv64_check.py ELF

The program runs kernel/irq on an RV64 hart in machine mode through the template port's RISC-V
section (CLINT clock and one-shot alarm), with the PLIC as the irq_chip and the board's NS16550 UART
as the device (see its header); it only prints what happened. This script decides: the set-up
worked; text sent by the UART's THRE interrupt arrived whole, by interrupt, with irq_pending seeing
the request while the hart had interrupts off; a line raised while disabled ran nothing until
enable_irq(); a completion whose interrupt the PLIC never delivered (its enable bit cleared behind
the core's back) was found by the core's expect poll, within the policy's first poll, and
announced (two in a row: the second makes the first a verdict), with irq_pending answering 0 for the masked source; a flood of receive interrupts no
handler claims was stopped within one detection window (at most 1,000 interrupts), the line stayed
off while the device went on, came back after the back-off, and then delivered by interrupt again.
Guest time runs under -icount (shift=4, sleep=off), so the figures do not depend on host load.
Exit status 0 = pass; the guest's output is printed either way.
"""
import re
import subprocess
import sys

QEMU = ["qemu-system-riscv64", "-machine", "virt", "-bios", "none", "-nographic", "-monitor", "none",
        "-icount", "shift=4,sleep=off"]
TIMEOUT_S = 60
# The program's bounds (tests/cross/rv64_run.c).
DISABLED_MS = 20
# The first poll of an expect: at most the irqkit profile's expect_first_poll_max_ns (400 us since
# issue 17; the bound dates from 10 ms); the text
# needs two polls (16 bytes each), the second a quick one (1 ms); plus 4 ms of slack.
LOST_MAX_MS = 15
# The flood defence judges segments of 500 interrupts: a flood is off within two of them.
FLOOD_MAX_IRQS = 1000
# The first re-enable test comes spr_backoff_min_ns (100 ms) after the line went off.
BACKOFF_MS = 100
TEXTS = ["TX1 sent by the THRE interrupt", "TX2 held while disabled", "TX3 found by polling",
         "TX4 found by polling too", "TX5 after the flood"]


def main():
    try:
        p = subprocess.run(QEMU + ["-kernel", sys.argv[1]], capture_output=True, text=True,
                           timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        sys.exit("rv64: qemu-system-riscv64 not found: install the Debian package qemu-system-misc (make deps)")
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        sys.stdout.write(out)
        sys.exit(f"rv64: the guest did not exit within {TIMEOUT_S} s")
    out = p.stdout.replace("\r", "")
    print("  " + "\n  ".join(out.strip().splitlines()))
    fails = []

    def need(pattern, what):
        m = re.search(pattern, out, re.M)
        if not m:
            fails.append(what)
        return m

    def num(m, i):
        return int(m.group(i)) if m else None

    if p.returncode != 0:
        fails.append(f"QEMU exit status {p.returncode} (the test finisher's pass, 0, expected)")
    need(r"^rv: chip 0$", "irq_set_chip_and_handler accepted the PLIC chip")
    need(r"^rv: request 0$", "request_irq succeeded")
    need(r"^rv: token yes$", "init_irq_expect gave a token")
    for t in TEXTS:
        if t not in out:
            fails.append(f"the UART did not send {t!r} whole")

    m = need(r"^rv: interrupt: completions (\d+) after (\d+) ms, irq_pending with interrupts off (-?\d+)$",
             "the interrupt case ran")
    if m and (num(m, 1) != 1 or num(m, 3) != 1):
        fails.append("THRE interrupts did not send the text, or irq_pending missed the PLIC's pending request")
    m = need(r"^rv: interrupt: delivered=(\d+) handled=(\d+) unhandled=(\d+) polled=(\d+)$", "interrupt stats")
    if m and (num(m, 2) < 2 or num(m, 4) != 0):
        fails.append("the text (31 bytes, 16 per interrupt) was not sent by two interrupts without polling")

    m = need(r"^rv: disabled: completions (\d+) after (\d+) ms, PLIC pending (\d+), irq_pending (-?\d+)$",
             "the disabled case ran")
    if m and (num(m, 1) != 1 or num(m, 2) < DISABLED_MS or num(m, 3) != 1 or num(m, 4) != 0):
        fails.append("a line raised while disabled ran its handler, or its request was not held at the PLIC "
                     "(pending 1, irq_pending 0 for a masked source)")
    m = need(r"^rv: enabled: completions (\d+) after (\d+) ms$", "the enable case ran")
    if m and (num(m, 1) != 2 or num(m, 2) > 1):
        fails.append("enable_irq did not deliver the held request at once")
    m = need(r"^rv: enabled: delivered=(\d+) handled=(\d+) unhandled=(\d+) polled=(\d+)$", "enabled stats")
    if m and num(m, 4) != 0:
        fails.append("the held request was found by polling, not delivered on enable_irq")

    lost = re.findall(r"^rv: lost: completions (\d+) after (\d+) ms, PLIC pending (\d+), irq_pending (-?\d+)$",
                      out, re.M)
    if [int(c) for c, _, _, _ in lost] != [3, 4]:
        fails.append("the two lost completions were not found")
    for c, ms, _, pend in lost:
        if int(ms) > LOST_MAX_MS or int(pend) != 0:
            fails.append(f"lost completion {c} was not found by polling within {LOST_MAX_MS} ms, "
                         "or irq_pending said 1 for a source whose enable bit was cleared")
    need(r'^<4>irq 10: "uart0": expected interrupt lost, completion found by polling',
         "the lost interrupt was announced")
    m = need(r"^rv: lost: delivered=(\d+) handled=(\d+) unhandled=(\d+) polled=(\d+)$", "lost stats")
    m2 = re.search(r"^rv: enabled: delivered=(\d+) handled=(\d+) unhandled=(\d+) polled=(\d+)$", out, re.M)
    if m and m2 and (num(m, 1) != num(m2, 1) or num(m, 4) < 1):
        fails.append("the lost case delivered an interrupt, or no poll found the completion")

    m = need(r"^rv: flood: line off (\d) after (\d+) ms, (\d+) bytes, (\d+) interrupts, (\d+) unhandled$",
             "the flood case ran")
    if m and (num(m, 1) != 1 or num(m, 4) > FLOOD_MAX_IRQS or num(m, 5) < num(m, 4) - 2):
        fails.append(f"the flood was not stopped within {FLOOD_MAX_IRQS} unclaimed interrupts")
    need(r"^<4>irq 10: \"uart0\": flood of unclaimed interrupts: line disabled", "the flood was announced")
    m = need(r"^rv: flood: (\d+) ms more, (\d+) bytes, (\d+) interrupts, line off (\d)$", "the flood went on")
    if m and (num(m, 3) != 0 or num(m, 4) != 1 or num(m, 2) < 1000):
        fails.append("the line took interrupts while off for flooding, or the device did not go on")
    m = need(r"^rv: flood over: line back after (\d+) ms, floods (\d+)$", "the line came back")
    if m and (num(m, 2) != 1 or num(m, 1) > BACKOFF_MS):
        fails.append(f"the line was not back within its {BACKOFF_MS} ms back-off")
    m = need(r"^rv: after: completions (\d+) after (\d+) ms, (\d+) handled by interrupt, (\d+) polled$",
             "the after case ran")
    if m and (num(m, 1) != 5 or num(m, 3) < 1 or num(m, 4) != 0):
        fails.append("after the flood the line did not deliver by interrupt")
    need(r"^rv: done$", "the program ran to its end")
    if fails:
        sys.exit("rv64: FAILED: " + "; ".join(fails))
    print("  rv64: kernel/irq ran on RV64 with the PLIC and the UART: interrupt, disable/enable, "
          "lost interrupt polled, flood contained: pass")


if __name__ == "__main__":
    main()
