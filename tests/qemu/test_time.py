"""The PIT tick runs at the configured rate, measured against the TSC (guest time under -icount)."""
import re

import pytest

ICOUNT_SHIFT = 4   # 16 ns of guest time per instruction: guest time independent of host load


@pytest.mark.parametrize("hz", [100, 250, 1000])
def test_pit_ticks_at_configured_rate_within_5_percent(guest_factory, hz):
    g = guest_factory(append=f"hz={hz}", icount=ICOUNT_SHIFT)
    g.wait_shell(120)
    out = g.command("timecheck 2000", timeout=120)
    m = re.search(r"timecheck: (\d+) ticks in (\d+) us of TSC time \(hz=(\d+)", out)
    assert m, out
    ticks, us, reported_hz = int(m.group(1)), int(m.group(2)), int(m.group(3))
    assert reported_hz == hz
    expected = hz * us / 1e6
    assert abs(ticks - expected) <= 0.05 * expected, f"{ticks} ticks, expected {expected:.1f}"


def test_uptime_advances_with_ticks(guest_factory):
    g = guest_factory(append="hz=250", icount=ICOUNT_SHIFT)
    g.wait_shell(120)
    a = re.search(r"up (\d+)\.(\d+) s, (\d+) ticks at 250 Hz", g.command("uptime"))
    g.command("timecheck 500", timeout=60)
    b = re.search(r"up (\d+)\.(\d+) s, (\d+) ticks at 250 Hz", g.command("uptime"))
    assert a and b
    assert int(b.group(3)) - int(a.group(3)) >= 0.95 * 250 * 0.5
