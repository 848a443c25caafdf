"""bench-uhci: the UHCI driver in QEMU, in guest time, healthy and with its
interrupt misrouted at the chipset (fault=uhci-misroute), for each interrupt
policy of kernel/irq (irqpolicy=irqkit, tejun2010, mainline).

Per boot (a usb-kbd on root port 1): how long enumeration took (the core's
log line), how long after the fault IRQ watching announced that a poll found
work the interrupt should have delivered, and control transfers per second
over `lsusb -r ROUNDS` (two GET_DESCRIPTORs a round). Under mainline there
is no watching: a misrouted controller is simply dead, which is the point of
the comparison.

Guest time: -icount shift=3,sleep=on (8 ns per instruction; idle time passes
at host speed, as in bench-ata, so QEMU's device work is not skipped over).

Usage: uhci_bench.py [--rounds N]   (default 200)
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "qemu"))
from irqkit_qemu import Guest  # noqa: E402

ICOUNT_SHIFT = 3
POLICIES = ("irqkit", "tejun2010", "mainline")
FAULTS = ("", "uhci-misroute")
TS = r"\[\s*(\d+\.\d+)\] "


def one(policy, fault, rounds):
    append = f"irqpolicy={policy}" + (f" fault={fault}" if fault else "")
    g = Guest(append=append, extra=["-icount", f"shift={ICOUNT_SHIFT},sleep=on", "-usb",
                                    "-device", "usb-kbd,port=1"])
    try:
        g.wait_shell(120)
        m = g.wait_for(r"usb: uhci0 port 1: (full-speed device .* \(enumerated in (\d+) ms\)|device not usable)", 60)
        enum = f"{m.group(2)} ms" if m.group(2) else "failed"
        inj = re.search(TS + r"fault: INJECTED", g.log)
        found = re.search(TS + r'irq \d+: "uhci0": watch: a poll found work', g.log)
        if inj and found:
            noticed = f"{float(found.group(1)) - float(inj.group(1)):.3f} s"
        else:
            noticed = "-" if not fault else "never"
        out = g.command(f"lsusb -r {rounds}", timeout=600)
        r = re.search(r"(\d+) rounds read in (\d+) ms", out)
        rate = f"{2 * int(r.group(1)) * 1000 / max(int(r.group(2)), 1):.0f}/s" if r else "none"
        return enum, noticed, rate
    finally:
        g.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=200)
    args = ap.parse_args()
    print(f"bench-uhci: usb-kbd on uhci0, guest time (-icount shift={ICOUNT_SHIFT},sleep=on), "
          f"control transfers over lsusb -r {args.rounds}")
    print(f"  {'policy':<10} {'delivery':<14} {'enumeration':>12} {'watch noticed':>14} {'control xfers':>14}")
    for policy in POLICIES:
        for fault in FAULTS:
            enum, noticed, rate = one(policy, fault, args.rounds)
            print(f"  {policy:<10} {fault or 'healthy':<14} {enum:>12} {noticed:>14} {rate:>14}", flush=True)


if __name__ == "__main__":
    main()
