"""Host evidence for the QEMU tests that judge time under multi-threaded TCG (issue 28).

QEMU has no -icount under multi-threaded TCG: guest time there is the host's, and a vCPU thread the
host keeps off its CPUs loses what the guest would have done meanwhile (its timer ticks merge into
one). A test that judges such a figure judges it with host evidence, never with a wider margin:
tools/vcpuwatch (a QEMU plugin) samples every millisecond of host time how many instructions each
vCPU executed, and a stretch in which a vCPU that was not halted executed nothing is time the host
took from it. HostWatch runs a guest under the plugin and judges `timecheck` (ticks counted over a
stretch of TSC time, kernel/shell_cmds.c) after QEMU exited: the ticks must be within the bound
(5 % + 2) of what the TSC time holds, less only the ticks of the time the host kept CPU 0 still
inside that stretch (one tick period each, plus one merged at its end).
"""
import os
import re
import subprocess
import sys
import time

from irqkit_qemu import KERNEL, ROOT
from shellwait import run

sys.path.insert(0, os.path.join(ROOT, "tools", "vcpuwatch"))
import stalls as vcpuwatch  # noqa: E402

PLUGIN = os.path.join(ROOT, "build", "host", "vcpuwatch.so")
TIMECHECK_RX = re.compile(r"timecheck: (\d+) ticks in (\d+) us of TSC time \(hz=(\d+)")
TICK_BOUND_PCT, TICK_BOUND_ABS = 5, 2   # the tick keeps time: within 5 % + 2 ticks (test_scenarios.timecheck_ok)


def kernel_symbol(name):
    out = subprocess.run(["nm", KERNEL], capture_output=True, text=True, check=True).stdout
    m = re.search(rf"^([0-9a-f]+) [tT] {re.escape(name)}$", out, re.M)
    assert m, f"{name} not in {KERNEL}"
    return int(m.group(1), 16)


class HostWatch:
    """QEMU's arguments for the plugin (.args) and the timechecks to judge once QEMU has exited.
    Mark 0 is cmd_timecheck's entry: where each timecheck's stretch of TSC time begins."""

    def __init__(self, tmp_path):
        assert os.path.exists(PLUGIN), f"{PLUGIN} missing: make build/host/vcpuwatch.so (make qemu-test builds it)"
        self.path = str(tmp_path / "vcpuwatch.txt")
        self.args = ["-plugin", f"{PLUGIN},out={self.path},mark={kernel_symbol('cmd_timecheck'):#x}"]
        self.checks = []

    def timecheck(self, g, ms=300):
        """Run `timecheck MS` on CPU 0 (the shell's); RETURNS its ticks. Judged by judge()."""
        out = run(g, f"timecheck {ms}", timeout=30)
        m = TIMECHECK_RX.search(out)
        assert m, out
        self.checks.append((time.monotonic_ns(), int(m.group(1)), int(m.group(2)), int(m.group(3)), out))
        return int(m.group(1))

    def judge(self, g):
        """Stop @g (the plugin's file is whole once QEMU is gone) and judge every timecheck."""
        g.kill()
        samples, marks = vcpuwatch.load(self.path)
        name = vcpuwatch.symbolizer(KERNEL)
        starts = [t for t, vcpu, idx in marks if idx == 0 and vcpu == 0]
        for done_ns, ticks, us, hz, out in self.checks:
            began = [t for t in starts if t < done_ns]
            assert began, f"no mark of cmd_timecheck before {out!r}"
            a, b = began[-1], began[-1] + us * 1000
            expected = us * hz / 1e6
            bound = expected * TICK_BOUND_PCT / 100 + TICK_BOUND_ABS
            still_ms = host_still_ms(samples, 0, a, b, name)
            # The ticks of the time the host took from CPU 0: one per tick period, and one that merges.
            taken = still_ms * hz / 1000 + 1 if still_ms else 0
            print(f"timecheck: {ticks} ticks, {expected:.0f} expected; the host kept CPU 0 still for "
                  f"{still_ms:.0f} ms of the {us / 1000:.0f} ms")
            assert ticks <= expected + bound, (out, "more ticks than the TSC time holds")
            assert ticks >= expected - bound - taken, (out, f"the tick lost time while the host kept CPU 0 "
                                                            f"still for only {still_ms:.0f} ms")


def host_still_ms(samples, cpu, a, b, name):
    """The ms in [a, b] (host ns) in which vCPU @cpu, not halted in the guest, executed nothing."""
    times = [t for t, _ in samples]
    i, j = vcpuwatch.window(samples, times, a, b)
    total = 0.0
    for x, y in vcpuwatch.stalls(samples[i:j + 1], cpu, 0):
        if not name(samples[i + x][1][cpu][3]).startswith(vcpuwatch.HALT_SYMBOLS):
            total += (samples[i + y][0] - samples[i + x][0]) / 1e6
    return total
