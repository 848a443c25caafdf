#!/usr/bin/env python3
"""stalls.py - read a vcpuwatch.so sample file (tools/vcpuwatch/vcpuwatch.c) and say, for
every stretch in which a vCPU executed no guest instruction for at least --min-ms, where its
host thread was meanwhile: on a host CPU, waiting on the run queue (descheduled by the host),
or neither (halted in the guest or blocked in QEMU), and at which guest address it stood.
With --marks, the same for the --window-ms before each mark (M line): what each vCPU did in the
time that ended at the mark.

  tools/vcpuwatch/stalls.py FILE [--elf build/kernel.elf] [--min-ms 20] [--marks] [--window-ms 300]
"""
import argparse
import bisect
import subprocess
import sys


def load(path, others=None):
    """RETURNS (samples [(t_ns, {vcpu: (insns, run_ns, wait_ns, pc)})], marks [(t_ns, vcpu, n)]);
    with @others a list, appends to it per sample (t_ns, run_ns, wait_ns) of QEMU's other threads
    (the main loop, the thread pool: the devices), summed since the plugin started."""
    samples, marks = [], []
    with open(path) as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            if p[0] == "M" and len(p) == 4:
                marks.append((int(p[1]), int(p[2]), int(p[3])))
            elif p[0] == "S":
                t, per = int(p[1]), {}
                rest = p[2:]
                if "O" in rest:
                    o = rest.index("O")
                    if others is not None:
                        others.append((t, int(rest[o + 1]), int(rest[o + 2])))
                    rest = rest[:o]
                for i in range(0, len(rest) - 4, 5):
                    per[int(rest[i])] = (int(rest[i + 1]), int(rest[i + 2]), int(rest[i + 3]), int(rest[i + 4], 16))
                samples.append((t, per))
    return samples, marks


def symbolizer(elf):
    if not elf:
        return lambda a: hex(a)
    syms = []
    out = subprocess.run(["nm", "-n", elf], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "tTwW":
            syms.append((int(p[0], 16), p[2]))
    addrs = [a for a, _ in syms]

    def name(a):
        i = bisect.bisect_right(addrs, a) - 1
        return f"{syms[i][1]}+{a - syms[i][0]:#x}" if i >= 0 else hex(a)
    return name


def delta(samples, i, j, cpu):
    a, b = samples[i][1].get(cpu), samples[j][1].get(cpu)
    if not a or not b:
        return None
    return b[0] - a[0], (b[1] - a[1]) / 1e6, (b[2] - a[2]) / 1e6


def stalls(samples, cpu, min_ns):
    """Stretches [i, j] of samples over which the vCPU's instruction count did not move."""
    out, start = [], None
    for k in range(1, len(samples)):
        prev, cur = samples[k - 1][1].get(cpu), samples[k][1].get(cpu)
        if not prev or not cur:
            continue
        if cur[0] == prev[0]:
            if start is None:
                start = k - 1
        elif start is not None:
            if samples[k - 1][0] - samples[start][0] >= min_ns:
                out.append((start, k - 1))
            start = None
    return out


def gap_kind(samples, times, cpus, a, b, name):
    """host: a vCPU not halted in the guest was on a host CPU for less than half the gap (its
    thread waited on the run queue or slept inside QEMU); idle: every vCPU halted in the guest
    most of the gap; busy: every vCPU that was not halted ran on a host CPU for half the gap or
    more (so a stall there is the guest's own: a livelock or a long spin)."""
    i, j = bisect.bisect_left(times, a), min(bisect.bisect_left(times, b), len(samples) - 1)
    ms = (b - a) / 1e6
    halted, starved = 0, False
    for c in cpus:
        d = delta(samples, i, j, c)
        at = [name(samples[k][1][c][3]) for k in range(i, j + 1) if c in samples[k][1]]
        if at and sum(x.startswith(HALT_SYMBOLS) for x in at) >= len(at) / 2:
            halted += 1
        elif d and d[1] < ms / 2:
            starved = True
    if starved:
        return "host"
    return "idle" if halted == len(cpus) else "busy"


HALT_SYMBOLS = ("smp_idle_halt", "time_port_idle", "cpu_halt")


def window(samples, times, a, b):
    return bisect.bisect_left(times, a), min(bisect.bisect_left(times, b), len(samples) - 1)


def host_starved(samples, a, b, name, max_insns, others=None):
    """For a test: was a vCPU that had guest work (not halted in the guest most of [a, b]) on a host
    CPU for less than half of [a, b], while those starved vCPUs executed fewer than @max_insns
    guest instructions (a kernel that spins or loops in [a, b] on the starved CPU executes far
    more, loaded host or not)? Only the starved vCPUs' instructions count: the others run the
    test's own work, and they get more of the host exactly when it keeps the starved one off (a
    fresh clone's loaded make test saw vCPU 0 execute 5.1 M instructions in 154 ms of host CPU
    while vCPU 1, the line's, had 2 ms of 250). Returns (verdict, one line of figures per vCPU)."""
    times = [t for t, _ in samples]
    i, j = window(samples, times, a, b)
    ms = (b - a) / 1e6
    starved, lines, insns, all_halted = False, [], 0, False
    for c in sorted({c for _, per in samples[i:j + 1] for c in per}):
        d = delta(samples, i, j, c)
        if not d:
            continue
        at = [name(samples[k][1][c][3]) for k in range(i, j + 1) if c in samples[k][1]]
        halted = bool(at) and sum(x.startswith(HALT_SYMBOLS) for x in at) >= len(at) / 2
        if not halted and d[1] < ms / 2:
            starved = True
            insns += d[0]
        lines.append(f"vCPU {c}: {d[0]:,} insns, on a host CPU {d[1]:.0f} ms, on the run queue {d[2]:.0f} ms, "
                     f"asleep in QEMU {max(ms - d[1] - d[2], 0):.0f} ms of {ms:.0f} ms{' (halted in the guest)' if halted else ''}")
        all_halted = halted if len(lines) == 1 else all_halted and halted
    device = False
    if others and lines:
        k, m = bisect.bisect_left([t for t, _, _ in others], a), bisect.bisect_left([t for t, _, _ in others], b)
        m = min(m, len(others) - 1)
        if k < m:
            run, wait = (others[m][1] - others[k][1]) / 1e6, (others[m][2] - others[k][2]) / 1e6
            lines.append(f"QEMU's other threads (main loop, thread pool): on a host CPU {run:.0f} ms, "
                         f"on the run queue {wait:.0f} ms")
            # Every vCPU halted in the guest, waiting for the device: the device is these threads,
            # and the host kept them waiting for half the time or more.
            device = all_halted and wait >= ms / 2
    return (starved and insns < max_insns) or device, lines


def longest_still(samples, cpu, a, b, name):
    """The longest stretch in [a, b], in ms, in which @cpu executed no instruction while not halted."""
    times = [t for t, _ in samples]
    i, j = window(samples, times, a, b)
    best = 0.0
    for x, y in stalls(samples[i:j + 1], cpu, 0):
        if not name(samples[i + x][1][cpu][3]).startswith(HALT_SYMBOLS):
            best = max(best, (samples[i + y][0] - samples[i + x][0]) / 1e6)
    return best


def functions_sampled(samples, i, j, cpu, name):
    """{function: samples} of vCPU @cpu's guest addresses in samples[i..j]."""
    pcs = {}
    for k in range(i, j + 1):
        s = samples[k][1].get(cpu)
        if s:
            n = name(s[3]).split("+")[0]
            pcs[n] = pcs.get(n, 0) + 1
    return pcs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--elf")
    ap.add_argument("--min-ms", type=float, default=20)
    ap.add_argument("--marks", action="store_true")
    ap.add_argument("--window-ms", type=float, default=300)
    ap.add_argument("--quiet", action="store_true", help="only the summary per vCPU")
    ap.add_argument("--gaps-ms", type=float, default=0,
                    help="the gaps of at least this many ms between two runs of mark 0 (a progress mark, e.g. "
                         "the disk's handler) and what each vCPU did in them")
    args = ap.parse_args()
    samples, marks = load(args.file)
    if len(samples) < 2:
        sys.exit("no samples")
    name = symbolizer(args.elf)
    cpus = sorted({c for _, per in samples for c in per})
    t0 = samples[0][0]
    span = (samples[-1][0] - t0) / 1e9
    print(f"{len(samples)} samples over {span:.1f} s, vCPUs {cpus}, {len(marks)} marks")
    for cpu in cpus:
        first = next(k for k, (_, per) in enumerate(samples) if cpu in per)
        d = delta(samples, first, len(samples) - 1, cpu)
        st = stalls(samples, cpu, args.min_ms * 1e6)
        descheduled = [s for s in st if (delta(samples, *s, cpu)[2] >= 0.5 * (samples[s[1]][0] - samples[s[0]][0]) / 1e6)]
        print(f"vCPU {cpu}: {d[0]:,} instructions, {d[1]:.0f} ms on a host CPU, {d[2]:.0f} ms waiting for one; "
              f"{len(st)} stretches of >= {args.min_ms:g} ms without an instruction, {len(descheduled)} of them "
              f"mostly waiting on the host's run queue; longest {max(((samples[j][0] - samples[i][0]) / 1e6 for i, j in st), default=0):.0f} ms")
        if args.quiet:
            continue
        for i, j in st:
            ms = (samples[j][0] - samples[i][0]) / 1e6
            line = f"  +{(samples[i][0] - t0) / 1e9:8.3f} s  {ms:6.1f} ms at {name(samples[i][1][cpu][3])}:"
            for c in cpus:
                dd = delta(samples, i, j, c)
                if dd:
                    line += f"  vCPU {c} {dd[0]:>9,} insns run {dd[1]:5.1f} wait {dd[2]:5.1f} ms"
            print(line)
    times = [t for t, _ in samples]
    if args.gaps_ms:
        progress = [t for t, _, idx in marks if idx == 0]
        gaps = [(a, b) for a, b in zip(progress, progress[1:]) if b - a >= args.gaps_ms * 1e6]
        print(f"{len(progress)} runs of mark 0; {len(gaps)} gaps of >= {args.gaps_ms:g} ms between two")
        kinds = {"host": [], "busy": [], "idle": []}
        for a, b in gaps:
            kinds[gap_kind(samples, times, cpus, a, b, name)].append((b - a) / 1e6)
        for k, what in (("host", "a vCPU with work was on a host CPU for less than half of it"),
                        ("idle", "every vCPU halted in the guest most of it (no work)"),
                        ("busy", "every vCPU with work on a host CPU for half of it or more (the guest's own stall)")):
            v = kinds[k]
            print(f"  {len(v):5d} gaps, {sum(v):8.0f} ms, longest {max(v, default=0):5.0f} ms: {what}")
        for a, b in gaps if not args.quiet else []:
            i, j = bisect.bisect_left(times, a), min(bisect.bisect_left(times, b), len(samples) - 1)
            line = f"  +{(a - t0) / 1e9:8.3f} s {(b - a) / 1e6:6.1f} ms:"
            for c in cpus:
                dd = delta(samples, i, j, c)
                if not dd:
                    continue
                st = stalls(samples[i:j + 1], c, 1e6)
                still = sum(samples[i + y][0] - samples[i + x][0] for x, y in st) / 1e6
                pcs = functions_sampled(samples, i, j, c, name)
                top = ",".join(n for n, _ in sorted(pcs.items(), key=lambda x: -x[1])[:2])
                ms = (samples[j][0] - samples[i][0]) / 1e6
                line += (f" | vCPU {c}: {dd[0] / 1e6:5.2f} M insns, no insn {still:5.0f} ms, run {dd[1]:4.0f} "
                         f"queue {dd[2]:4.0f} asleep {max(ms - dd[1] - dd[2], 0):4.0f} ms, at {top}")
            print(line)
    if args.marks:
        for t, vcpu, _ in marks:
            j = bisect.bisect_left(times, t)
            i = bisect.bisect_left(times, t - args.window_ms * 1e6)
            j = min(j, len(samples) - 1)
            print(f"mark on vCPU {vcpu} at +{(t - t0) / 1e9:.3f} s; the {args.window_ms:g} ms before it:")
            for c in cpus:
                dd = delta(samples, i, j, c)
                if not dd:
                    continue
                st = [s for s in stalls(samples[i:j + 1], c, args.min_ms * 1e6)]
                longest = max(((samples[i + b][0] - samples[i + a][0]) / 1e6 for a, b in st), default=0)
                pcs = functions_sampled(samples, i, j, c, name)
                top = ", ".join(f"{n} {v}" for n, v in sorted(pcs.items(), key=lambda x: -x[1])[:4])
                print(f"  vCPU {c}: {dd[0]:,} insns, {dd[1]:.1f} ms on a host CPU, {dd[2]:.1f} ms on the run queue; "
                      f"longest stretch without an instruction {longest:.0f} ms; sampled at {top}")


if __name__ == "__main__":
    main()
