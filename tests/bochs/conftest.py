"""pytest glue for the Bochs tests: the serial log and Bochs's own output of every guest of a
failed test (the same hook as tests/qemu/conftest.py)."""
import pytest

import irqkit_bochs
import irqkit_qemu


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.when == "call" and rep.failed:
        for i, g in enumerate(irqkit_qemu.live_guests):
            rep.sections.append((f"serial log of Bochs guest {i} ({g.append!r})", g.log[-20000:]))
            if isinstance(g, irqkit_bochs.BochsGuest):
                rep.sections.append((f"Bochs log of guest {i}", g.bochs_log()[-4000:]))
