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


def test_kernel_stack_overflow_is_a_reported_double_fault_not_a_triple_fault(guest_factory):
    """crash=stack recurses into the unmapped guard page under the boot stack: the page fault
    cannot push its frame, the CPU raises #DF, and the #DF task gate reports from its own stack
    with the registers the CPU saved in the boot task's TSS. Without the task gate this is a
    triple fault: QEMU resets, and -no-reboot makes it exit 0 with no report."""
    g = guest_factory(append="crash=stack debugexit")
    assert g.wait_exit(60) == EXIT_PANIC
    log = "\n".join(g.lines())
    m = re.search(r"FATAL exception: double fault \(#DF\) at EIP ([0-9a-f]{8}), error code ([0-9a-f]{8})", log)
    assert m, log
    assert m.group(2) == "00000000", "the #DF error code is always 0"
    t = re.search(r"reported by the double-fault task \(TSS 0020, stack ([0-9a-f]{8})-([0-9a-f]{8})\) "
                  r"from the state saved in TSS 0018", log)
    assert t, log
    g_m = re.search(r"kernel stack overflow: ESP ([0-9a-f]{8}) / CR2 ([0-9a-f]{8}) reached the guard page "
                    r"([0-9a-f]{8})-([0-9a-f]{8}) below the boot stack ([0-9a-f]{8})-([0-9a-f]{8})", log)
    assert g_m, log
    esp, cr2, glo, ghi, slo, shi = (int(x, 16) for x in g_m.groups())
    assert ghi - glo + 1 == 4096 and ghi + 1 == slo, "one 4 KiB guard page right under the stack"
    assert glo <= cr2 <= ghi, "the faulting access was into the guard page"
    # The faulting task's saved ESP and EIP are printed as the CPU saved them.
    regs = re.search(r"EIP: ([0-9a-f]{8})  CS: 0008  EFLAGS: [0-9a-f]{8}  ESP: ([0-9a-f]{8})  SS: 0010", log)
    assert regs and int(regs.group(2), 16) == esp and regs.group(1) == m.group(1), log
    # The report ran on the double-fault stack, not the overflowed one.
    dlo, dhi = int(t.group(1), 16), int(t.group(2), 16)
    assert not (dlo < shi and slo < dhi), "the #DF stack is separate from the boot stack"
    assert "System halted: double fault" in log
    assert "shell: ready" not in log
