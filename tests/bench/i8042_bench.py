"""bench-i8042: PS/2 keystroke latency (drivers/input/i8042.c) in QEMU: healthy, with the
keyboard's handler leaving every Nth byte in the controller (fault=i8042-stuck:N) and with IRQ 1
misrouted (fault=i8042-misroute), for each interrupt policy (irqpolicy=irqkit, tejun2010,
mainline), beside the USB keyboard's rows of bench-usb.

One boot per policy and delivery mode, QEMU pc, -icount shift=3,sleep=off, the PS/2 keyboard QEMU
always has (no usb-kbd: it would take the keys). i8042.c logs (debug level, kept in dmesg) the TSC
at which each character went into the console input ring; under -icount the TSC counts virtual
nanoseconds.

Guest time, independent of the host's load: one QMP send-key of N keys held together with a
hold time H. QEMU releases the first key down at once and each next one H later on its virtual
clock (ui/input.c's key queue runs on QEMU_CLOCK_VIRTUAL), so key i goes down at T0 + i*H in guest
time (to about a quarter millisecond: the queue schedules each next key on whole milliseconds of
its clock after the previous one fired). T0 itself is not known (the QMP command comes from the
host), so the figure is each key's arrival minus i*H minus the smallest such value of the burst:
the latency above the burst's fastest key. That is a lower bound, short by the fastest key's own
latency: tens of microseconds when its interrupt comes; under misrouting, where every key waits
for a poll, H = 23 ms (a multiple of no poll gap) lands the 20 keys at every phase of the polls,
so the fastest one waited a small part of a gap. Before the burst six keys are
typed one at a time, each after the last one's echo, so that a stuck byte's first stall (up to a
slow watch poll, 3 s, during which QEMU's 16-byte keyboard buffer overflows and keys are lost, as
on hardware) and a misrouted line's first find are behind it: the burst shows the steady state.

Host-observed latency: then K keys one at a time, wall clock from send-key to the echo on the
serial port. It depends on the host's load (QEMU's threads share 2 cores with other work) and is
printed as such, beside the guest-time figure.

A key not echoed within 5 s counts as lost; after 2 lost keys in a row the keyboard is taken for
dead (mainline has no IRQ watching: a stuck or misrouted keyboard never types again).

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
KEY_TIMEOUT = 5.0          # s of host time; a key not echoed by then counts as lost
DEAD_AFTER = 2             # lost keys in a row: the keyboard is dead, stop
HOLD_MS = 20
BURST_HOLD_MS = 23         # the burst's spacing: not a multiple of any poll gap, so the keys land at every phase
KEYS = "abcdefghijklmnopqrstuvwxyz"
WARM_UP = "zyxwvu"         # 12 bytes: past i8042-stuck:10's first stuck byte
CHAR_RX = re.compile(r"i8042: char 0x([0-9a-f]{2}) at tsc (\d+)")
LOG_LINE = re.compile(r"\[\s*\d+\.\d{6}\] [^\n]*\n|irqkit> ")


def echoed(g, start):
    return LOG_LINE.sub("", g.log[start:])


def wait_echo(g, text, start, timeout=KEY_TIMEOUT):
    deadline = time.monotonic() + timeout
    while text not in echoed(g, start):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return True


def send(g, chars, hold_ms=HOLD_MS):
    g.qmp_cmd("send-key", keys=[{"type": "qcode", "data": c} for c in chars], **{"hold-time": hold_ms})


def one_at_a_time(g, chars):
    """Keys one at a time, each after the last one's echo. RETURNS (host ms per key, lost, dead)."""
    host, lost, in_row = [], 0, 0
    for ch in chars:
        start = len(g.log)
        t0 = time.monotonic()
        send(g, ch)
        if wait_echo(g, ch, start):
            host.append((time.monotonic() - t0) * 1000)
            in_row = 0
        else:
            lost += 1
            in_row += 1
            if in_row >= DEAD_AFTER:
                return host, lost, True
        time.sleep(HOLD_MS / 1000 + 0.02)
    return host, lost, False


def arrivals(g, since_tsc):
    """Characters logged by i8042.c after TSC @since_tsc: [(char, tsc ns)] in order. The shell's
    line must be empty (the command is typed on the serial line)."""
    out = [(chr(int(m.group(1), 16)), int(m.group(2))) for m in CHAR_RX.finditer(g.command("dmesg", 60))]
    return [(c, t) for c, t in out if t > since_tsc]


def burst(g, chars):
    """One send-key of @chars held together: key i down at T0 + i * BURST_HOLD_MS, guest time.
    RETURNS the latencies above the fastest key (ms), and the keys that did not arrive."""
    t_before = max([t for _, t in arrivals(g, 0)] or [0])
    start = len(g.log)
    send(g, chars, BURST_HOLD_MS)
    wait_echo(g, chars, start, KEY_TIMEOUT + len(chars) * BURST_HOLD_MS * 3 / 1000)
    g.send("\x15")                       # Ctrl-U on the serial line: the shell's line is empty again
    got = {}
    for c, t in arrivals(g, t_before):
        got.setdefault(c, t)
    offsets = [(got[c] - i * BURST_HOLD_MS * 1_000_000) / 1e6 for i, c in enumerate(chars) if c in got]
    if not offsets:
        return [], len(chars)
    base = min(offsets)
    return [o - base for o in offsets], len(chars) - len(offsets)


def run(policy, mode, nkeys, stuck_every):
    fault = {"healthy": "", "stuck": f" fault=i8042-stuck:{stuck_every}", "misrouted": " fault=i8042-misroute"}[mode]
    g = Guest(append=f"irqpolicy={policy}{fault}", boot_timeout=120, icount=ICOUNT_SHIFT)
    try:
        g.wait_shell(120)
        g.wait_for(r"i8042: keyboard on IRQ 1 .*\n", 30)
        log = "\n".join(g.lines())
        m = re.search(r"irq: defences on, profile (\w+)", log)
        profile = m.group(1) if m else "-"
        r = {"profile": profile, "lost": 0, "dead": False, "guest": [], "host": []}
        warm, lost, dead = one_at_a_time(g, WARM_UP)
        r["lost"] += lost
        r["typed_before_dead"] = len(warm) if dead else None
        if not dead:
            g.send("\x15")
            r["guest"], lost = burst(g, KEYS[:nkeys])
            r["lost"] += lost
            g.send("\x15")
            r["host"], lost, dead = one_at_a_time(g, KEYS[:nkeys])
            r["lost"] += lost
            if dead:
                r["typed_before_dead"] = len(WARM_UP) + nkeys - lost + len(r["host"])
            g.send("\x15")
        r["dead"] = dead
        out = g.command("irqs")
        mode_m = re.search(r"interrupt mode: (IO-APIC|8259 PIC)", log)
        r.update(mode=mode_m.group(1) if mode_m else "unknown", polling="line 1 i8042-kbd: ON POLLING" in out,
                 reported=bool(re.search(r'irq 1: "i8042-kbd": watch: a poll found work', g.log)))
        return r
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
    nkeys = max(2, min(args.keys, 20))
    rows = []
    print(f"bench-i8042: QEMU pc, -icount shift={ICOUNT_SHIFT},sleep=off, the PS/2 keyboard; {len(WARM_UP)} warm-up "
          f"keys, then a burst of {nkeys} keys in one send-key (hold {BURST_HOLD_MS} ms: key i down at i * "
          f"{BURST_HOLD_MS} ms of guest time), then {nkeys} keys one at a time; stuck = fault=i8042-stuck:{args.stuck_every} (every "
          f"{args.stuck_every}th keyboard byte left in the controller, 2 bytes a key)")
    print(f"  {'policy':<10} {'delivery':<10} {'guest ms median':>15} {'worst':>7} {'host ms median':>14} "
          f"{'worst':>7} {'lost':>4}  profile  line 1")
    for policy in POLICIES:
        for mode in ("healthy", "stuck", "misrouted"):
            r = run(policy, mode, nkeys, args.stuck_every)
            rows.append(dict(r, policy=policy, delivery=mode))
            if "error" in r:
                print(f"  {policy:<10} {mode:<10} no figure: {r['error']}", flush=True)
                continue
            gs, hs = r["guest"], r["host"]
            if r["dead"]:
                print(f"  {policy:<10} {mode:<10} keyboard dead after {r['typed_before_dead']} keys "
                      f"({r['lost']} lost in a row){', reported' if r['reported'] else ''}", flush=True)
                continue
            print(f"  {policy:<10} {mode:<10} {fmt(statistics.median(gs) if gs else None):>15} "
                  f"{fmt(max(gs) if gs else None)} {fmt(statistics.median(hs) if hs else None):>14} "
                  f"{fmt(max(hs) if hs else None)} {r['lost']:>4}  {r['profile']:<8} "
                  f"{'dead' if r['dead'] else 'polled' if r['polling'] else 'interrupt'}"
                  f"{', reported' if r['reported'] else ''}", flush=True)
    print("  (guest ms: each burst key's arrival minus its place in the burst, above the fastest key's, virtual\n"
          "   time, independent of the host's load; host ms: wall clock from send-key to the echo, one key at a\n"
          "   time, depends on the host's load; lost: keys not echoed; line 1: how the keyboard's bytes arrived\n"
          "   at the end (dead: 2 keys lost in a row), and whether the health report named line 1 and i8042-kbd)")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump({"bench": "i8042", "machine": "pc", "icount_shift": ICOUNT_SHIFT, "sleep": "off",
                       "keys": nkeys, "warm_up": len(WARM_UP), "hold_ms": BURST_HOLD_MS, "stuck_every": args.stuck_every,
                       "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
