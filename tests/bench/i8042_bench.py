"""bench-i8042: PS/2 keystroke latency (drivers/input/i8042.c) in QEMU: healthy, with the
keyboard's handler leaving every Nth byte in the controller (fault=i8042-stuck:N) and with IRQ 1
misrouted (fault=i8042-misroute), for each interrupt policy (irqpolicy=irqkit, tejun2010,
mainline), beside the USB keyboard's row of bench-usb.

One boot per policy and delivery mode, QEMU pc, the PS/2 keyboard QEMU always has (no usb-kbd:
it would take the keys).

Guest-time latency, as bench-usb measures it: under -icount shift=3,sleep=on QEMU's virtual clock
drives the guest's TSC (rdtsc returns virtual nanoseconds) and the ACPI PM timer. For each key
the harness reads the PM timer through the monitor (HMP `i /w PORT`), sends the key with QMP
send-key, and reads the PM timer again; i8042.c logs (debug level, kept in dmesg) the TSC at which
the character went into the console input ring. Latency = PM(TSC) - PM(before), an upper bound.
With sleep=on idle time passes at host speed, so this figure too moves with the host's load, by
about the QMP round trip (the `window` column: the time between the two PM reads).

Host-observed latency: wall-clock time from sending the key to seeing its echo on the serial
port. It depends on the host's load (QEMU's threads share 2 cores with other work); it is printed
beside the guest-time figure, not instead of it.

A key not echoed within 5 s counts as lost; after 2 lost keys in a row the keyboard is taken for
dead and the run stops (mainline has no IRQ watching: a stuck or misrouted keyboard never types
again). In the stuck mode every Nth keyboard byte (make or break codes: 2 per key) is left in the
controller; the first one waits for a slow watch poll (up to 3 s), the later ones for the poll
rate of an action on polling. In the misrouted mode one warm-up key is typed first (up to 10 s),
as bench-usb waits for the line to go on polling.

Usage: i8042_bench.py [--keys N] [--stuck-every N] [--json PATH]
"""
import argparse
import json
import os
import re
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "qemu"))
from irqkit_qemu import Guest, GuestTimeout  # noqa: E402

ICOUNT_SHIFT = 3
POLICIES = ("irqkit", "tejun2010", "mainline")
PM_HZ = 3579545
PM_MASK = (1 << 24) - 1
KEY_TIMEOUT = 5.0          # s of host time; a key not echoed by then counts as lost
DEAD_AFTER = 2             # lost keys in a row: the keyboard is dead, stop
HOLD_MS = 20
KEYS = "abcdefghijklmnopqrstuvwxyz"
CHAR_RX = re.compile(r"i8042: char 0x([0-9a-f]{2}) at tsc (\d+)")
LOG_LINE = re.compile(r"\[\s*\d+\.\d{6}\] [^\n]*\n")


def hmp(g, cmd):
    return g.qmp_cmd("human-monitor-command", **{"command-line": cmd})


def pm_port(g):
    m = re.search(r"([0-9a-f]+)-[0-9a-f]+ \(prio \d+, i/o\): acpi-tmr", hmp(g, "info mtree"))
    if not m:
        raise RuntimeError("no acpi-tmr in `info mtree` (machine without ACPI?)")
    return int(m.group(1), 16)


def pm_read(g, port):
    m = re.search(r"= (0x[0-9a-f]+)", hmp(g, f"i /w {port:#x}"))
    return int(m.group(1), 16) & PM_MASK


def echoed(g, start):
    return LOG_LINE.sub("", g.log[start:])


def wait_echo(g, ch, start, timeout=KEY_TIMEOUT):
    deadline = time.monotonic() + timeout
    while ch not in echoed(g, start):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return True


def send(g, ch):
    g.qmp_cmd("send-key", keys=[{"type": "qcode", "data": ch}], **{"hold-time": HOLD_MS})


def measure_keys(g, nkeys):
    port = pm_port(g)
    sent, host = [], []
    lost = lost_in_row = 0
    for ch in KEYS[:nkeys]:
        start = len(g.log)
        before = pm_read(g, port)
        t0 = time.monotonic()
        send(g, ch)
        after = pm_read(g, port)
        if wait_echo(g, ch, start):
            host.append((time.monotonic() - t0) * 1000)
            sent.append((ch, before, after))
            lost_in_row = 0
        else:
            lost += 1
            lost_in_row += 1
            if lost_in_row >= DEAD_AFTER:
                lost += nkeys - len(sent) - lost   # the rest would be lost too: not typed
                break
        time.sleep(HOLD_MS / 1000 + 0.02)
    g.send("\x15")                       # Ctrl-U on the serial line: clear what was typed
    arrivals = {}
    for m in CHAR_RX.finditer(g.command("dmesg", 60)):
        arrivals.setdefault(chr(int(m.group(1), 16)), int(m.group(2)))
    upper, window = [], []
    for ch, before, after in sent:
        if ch not in arrivals:
            continue
        pm_at = (arrivals[ch] * PM_HZ // 1_000_000_000) & PM_MASK
        upper.append(((pm_at - before) & PM_MASK) / PM_HZ * 1000)
        window.append(((after - before) & PM_MASK) / PM_HZ * 1000)
    return upper, window, host, lost


def run(policy, mode, nkeys, stuck_every):
    fault = {"healthy": "", "stuck": f" fault=i8042-stuck:{stuck_every}", "misrouted": " fault=i8042-misroute"}[mode]
    g = Guest(append=f"irqpolicy={policy}{fault}", boot_timeout=120,
              extra=["-icount", f"shift={ICOUNT_SHIFT},sleep=on"])
    try:
        g.wait_shell(120)
        g.wait_for(r"i8042: keyboard on IRQ 1 .*\n", 30)
        log = "\n".join(g.lines())
        m = re.search(r"irq: defences on, profile (\w+)", log)
        profile = m.group(1) if m else "-"
        warm = True
        if mode == "misrouted":
            start = len(g.log)
            send(g, "x")
            warm = wait_echo(g, "x", start, 10)
            g.send("\x15")
        upper, window, host, lost = measure_keys(g, nkeys) if warm else ([], [], [], nkeys)
        out = g.command("irqs")
        mode_m = re.search(r"interrupt mode: (IO-APIC|8259 PIC)", log)
        return {"mode": mode_m.group(1) if mode_m else "unknown", "upper": upper, "window": window, "host": host,
                "lost": lost, "profile": profile, "polling": "line 1 i8042-kbd: ON POLLING" in out,
                "reported": bool(re.search(r'irq 1: "i8042-kbd": watch: a poll found work', g.log))}
    except GuestTimeout as e:
        return {"error": str(e).split("\n")[0]}
    finally:
        g.kill()


def fmt(v):
    return f"{v:7.2f}" if v is not None else "      -"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", type=int, default=20)
    ap.add_argument("--stuck-every", type=int, default=10, help="i8042-stuck:N, N keyboard bytes (2 per key)")
    ap.add_argument("--json", help="also write the figures there (tests/bench/bench_table.py)")
    args = ap.parse_args()
    nkeys = max(1, min(args.keys, len(KEYS)))
    rows = []
    print(f"bench-i8042: {nkeys} keys one at a time on the PS/2 keyboard (QMP send-key, hold {HOLD_MS} ms), "
          f"QEMU pc, -icount shift={ICOUNT_SHIFT},sleep=on; stuck = fault=i8042-stuck:{args.stuck_every} "
          f"(every {args.stuck_every}th keyboard byte left in the controller, 2 bytes a key)")
    print(f"  {'policy':<10} {'delivery':<10} {'key ms median':>13} {'worst':>7} {'window':>6} "
          f"{'host ms median':>14} {'worst':>7} {'lost':>4}  profile  line 1")
    for policy in POLICIES:
        for mode in ("healthy", "stuck", "misrouted"):
            r = run(policy, mode, nkeys, args.stuck_every)
            rows.append(dict(r, policy=policy, delivery=mode))
            if "error" in r:
                print(f"  {policy:<10} {mode:<10} no figure: {r['error']}", flush=True)
                continue
            up, hs = r["upper"], r["host"]
            print(f"  {policy:<10} {mode:<10} {fmt(statistics.median(up) if up else None):>13} "
                  f"{fmt(max(up) if up else None)} {statistics.median(r['window']) if r['window'] else 0:6.2f} "
                  f"{fmt(statistics.median(hs) if hs else None):>14} {fmt(max(hs) if hs else None)} {r['lost']:>4}  "
                  f"{r['profile']:<8} {'polled' if r['polling'] else 'interrupt'}"
                  f"{', reported' if r['reported'] else ''}", flush=True)
    print("  (key ms: guest time, from the PM timer read before send-key to the character entering the console\n"
          "   ring; window: median time between the PM reads around send-key; host ms: wall clock from send-key\n"
          "   to the echo on the serial port, depends on the host's load; lost: keys not echoed within 5 s, or\n"
          "   not typed after 2 lost in a row; line 1: how the keyboard's bytes arrived at the end, and whether\n"
          "   the health report named line 1 and i8042-kbd)")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump({"bench": "i8042", "machine": "pc", "icount_shift": ICOUNT_SHIFT, "sleep": "on",
                       "keys": nkeys, "stuck_every": args.stuck_every, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
