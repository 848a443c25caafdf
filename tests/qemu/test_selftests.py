"""In-kernel selftests: boot with selftest=all, parse KTAP, one pytest result per kernel case."""
import re

import pytest

from irqkit_qemu import EXIT_FAIL, EXIT_PASS, Guest, parse_ktap


def _listed_cases():
    """The case names the kernel itself lists (selftest=list)."""
    try:
        with Guest(append="selftest=list debugexit") as g:
            code = g.wait_exit(120)
            names = re.findall(r"selftest: (\S+\.\S+)$", g.log, re.M)
            return names if code == EXIT_PASS else []
    except Exception:          # the kernel does not build/boot: test_ktap_run reports it
        return []


CASES = _listed_cases()
# Cases this suite must contain whatever the kernel lists: a case that vanished is a failure.
REQUIRED = {
    "pic.spurious_irq7_gets_no_eoi",
    "pic.spurious_irq7_leaves_real_irq_in_service",
    "pic.spurious_irq15_gets_master_eoi_only",
    "traps.breakpoint_resumes",
    "irq.shared_handlers_on_one_line_are_both_called",
    "irq.disable_irq_stops_delivery_and_enable_irq_resumes_it",
    "irq.timer_handler_runs_at_the_configured_rate",
}
ICOUNT_SHIFT = 4   # guest time independent of host load: the timer-rate case compares timings


# Each kernel case skips where its hardware path is not in use in that boot (the 8259's cases in
# IOAPIC mode, the IOAPIC's under noapic, MSI's on pc, HPET's where the HPET does not drive a clock
# event, the several-CPU ones on one CPU). So the kernel's list runs in three boots, and each case
# must pass in at least one of them and fail in none: no case is skipped for want of a boot.
# pc in IOAPIC mode with the LAPIC timer (the default); pc with the 8259 and the PIT (noapic
# nolapic_timer); q35 with two CPUs (its default NIC is the e1000e that MSI's cases drive, its HPET
# takes the clock events with clockevent=hpet).
CONFIGS = {
    "ioapic": dict(append=""),
    "pic": dict(append="noapic nolapic_timer"),
    "q35-smp2": dict(append="", machine="q35", extra=["-smp", "2"]),
}


def _boot(cfg):
    g = Guest(append=f"selftest=all debugexit {cfg['append']}", machine=cfg.get("machine", "pc"),
              extra=cfg.get("extra", []), icount=ICOUNT_SHIFT)
    try:
        code = g.wait_exit(300)
        return code, g.log, parse_ktap(g.lines())
    finally:
        g.kill()


@pytest.fixture(scope="module", params=list(CONFIGS), ids=list(CONFIGS))
def ktap_run(request, ktap_runs):
    return ktap_runs[request.param]


@pytest.fixture(scope="module")
def ktap_runs():
    return {name: _boot(cfg) for name, cfg in CONFIGS.items()}


def test_ktap_run_completes_with_a_plan_and_an_exit_code(ktap_run):
    code, log, results = ktap_run
    lines = [re.sub(r"^\[\s*\d+\.\d+\] ", "", l) for l in log.split("\n")]
    assert "KTAP version 1" in lines, log[-3000:]
    plan = [l for l in lines if re.match(r"^1\.\.\d+$", l)]
    assert plan, log[-3000:]
    assert int(plan[0][3:]) == len(results) == len(CASES), (plan, len(results), len(CASES))
    failed = [n for n, (ok, _, _) in results.items() if not ok]
    assert code == (EXIT_FAIL if failed else EXIT_PASS)


def test_required_cases_exist():
    missing = REQUIRED - set(CASES)
    assert not missing, f"kernel does not list {sorted(missing)}"


@pytest.mark.parametrize("case", CASES)
def test_kernel_case(ktap_runs, case):
    ran = []
    for name, (code, log, results) in ktap_runs.items():
        assert case in results, f"{case} listed but no KTAP result in the {name} boot"
        ok, directive, diags = results[case]
        if directive.startswith("SKIP"):
            continue
        assert ok, f"{name} boot:\n" + "\n".join(diags)
        ran.append(name)
    skips = {n: r[2][case][1] for n, r in ktap_runs.items()}
    assert ran, f"{case} skipped in every boot: {skips}"
