"""CPU exceptions: reported with the right name and registers; fatal ones halt, #BP and NMI resume."""
import re

import pytest

from irqkit_qemu import EXIT_PANIC

FATAL = {
    "de": "divide error (#DE)",
    "ud": "invalid opcode (#UD)",
    "gp": "general protection (#GP)",
    "pf": "page fault (#PF)",
}


@pytest.mark.parametrize("kind", sorted(FATAL))
def test_fatal_exception_is_reported_and_halts(guest_factory, kind):
    g = guest_factory(append=f"crash={kind} debugexit")
    assert g.wait_exit(60) == EXIT_PANIC
    log = "\n".join(g.lines())
    m = re.search(r"FATAL exception: (.*) at EIP ([0-9a-f]{8}), error code ([0-9a-f]{8})", log)
    assert m, log
    assert m.group(1) == FATAL[kind]
    for reg in ("EIP", "ESP", "EFLAGS", "EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP"):
        assert re.search(rf"\b{reg}: [0-9a-f]{{8}}", log), reg
    assert re.search(r"backtrace: [0-9a-f]{8}", log)
    assert "System halted: fatal exception" in log
    assert "shell: ready" not in log
    if kind == "pf":
        assert re.search(r"CR2: 00000abc \(page not present, read access, kernel mode\)", log), log
    if kind == "gp":
        # Selector 0x1234 = index 0x246, TI=1 (LDT), RPL 0: the error code is index << 3 | TI << 2.
        assert m.group(3) == "00001234", "a bad selector 0x1234 gives #GP(0x1234)"


def test_breakpoint_is_reported_and_resumes(guest_factory):
    g = guest_factory(append="crash=bp")
    g.wait_shell()
    log = "\n".join(g.lines())
    assert re.search(r"exception: breakpoint \(#BP\) at EIP [0-9a-f]{8}", log), log
    assert "resuming after breakpoint (#BP)" in log
    assert "crash: bp returned; execution resumed" in log


def test_real_nmi_from_qemu_is_reported_and_resumes(guest_factory):
    g = guest_factory()
    g.wait_shell()
    start = len(g.log)
    g.qmp_cmd("inject-nmi")
    g.wait_for(r"exception: non-maskable interrupt \(NMI\)", 10, start)
    g.wait_for(r"resuming after non-maskable interrupt", 10, start)
    assert re.search(r"up \d+\.\d+ s", g.command("uptime"))


def test_page_fault_in_shell_command_halts(guest_factory):
    g = guest_factory(append="debugexit")
    g.wait_shell()
    g.send("crash pf\r")
    assert g.wait_exit(30) == EXIT_PANIC
    assert "CR2: 00000abc" in g.log
