"""pytest glue for the QEMU tests: show the serial log of every guest of a failed test."""
import pytest

import irqkit_qemu


@pytest.fixture
def guest_factory():
    started = []

    def start(**kw):
        g = irqkit_qemu.Guest(**kw)
        started.append(g)
        return g

    yield start
    for g in started:
        g.kill()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.when == "call" and rep.failed:
        for i, g in enumerate(irqkit_qemu.live_guests):
            rep.sections.append((f"serial log of guest {i} ({' '.join(g.args[-2:])})", g.log[-20000:]))
            if g.stderr:
                rep.sections.append((f"QEMU stderr of guest {i}", g.stderr[-4000:]))
    if rep.when == "teardown":
        irqkit_qemu.live_guests.clear()
