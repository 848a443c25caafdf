"""The host-evidence verdict the loaded tests lean on (tools/vcpuwatch/stalls.py host_starved()),
judged on made-up samples: no boot. A driver time-out is the host's doing only if a vCPU with
guest work was kept off the host CPUs for most of the window and did not execute the millions of
instructions a spinning kernel would; the other vCPUs' work does not count against it."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "vcpuwatch"))
import stalls  # noqa: E402

MS = 1000000
WORK, HALT = 0x1000, 0x2000


def name(pc):
    return "smp_idle_halt+0x4" if pc == HALT else "ata_rw_sectors+0x10"


def samples(per_cpu):
    """Two samples 250 ms apart; per_cpu: {cpu: (insns, ms on a host CPU, ms on the run queue, pc)}."""
    first = {c: (0, 0, 0, pc) for c, (_, _, _, pc) in per_cpu.items()}
    last = {c: (n, on * MS, rq * MS, pc) for c, (n, on, rq, pc) in per_cpu.items()}
    return [(0, first), (250 * MS, last)]


def verdict(per_cpu, max_insns=5000000):
    return stalls.host_starved(samples(per_cpu), 0, 250 * MS, name, max_insns)[0]


def test_the_line_cpu_kept_off_while_the_other_runs_the_test_is_the_host():
    # A fresh clone's loaded make test: vCPU 0 ran the aimed polls 154 ms, vCPU 1 had 2 ms.
    assert verdict({0: (5110088, 154, 38, WORK), 1: (98224, 2, 184, WORK)})


def test_a_cpu_on_the_host_most_of_the_window_is_the_kernel_own_stall():
    assert not verdict({0: (5110088, 154, 38, WORK), 1: (7000000, 200, 30, WORK)})


def test_a_starved_cpu_that_executed_millions_of_instructions_is_the_kernel_spinning():
    assert not verdict({0: (100000, 100, 10, HALT), 1: (6000000, 120, 120, WORK)})


def test_halted_cpus_are_not_starved_whatever_the_host_did():
    assert not verdict({0: (1000, 1, 240, HALT), 1: (1000, 1, 240, HALT)})


def verdict_with_others(per_cpu, run_ms, wait_ms):
    """The same, with QEMU's other threads (main loop, thread pool) on a host CPU @run_ms and on the
    run queue @wait_ms in the window."""
    others = [(0, 0, 0), (250 * MS, run_ms * MS, wait_ms * MS)]
    return stalls.host_starved(samples(per_cpu), 0, 250 * MS, name, 5000000, others)[0]


def test_every_cpu_halted_while_the_device_threads_waited_on_the_run_queue_is_the_host():
    # fresh15, load 10-12: both vCPUs halted the whole 250 ms, the disk's read came after the wait.
    assert verdict_with_others({0: (17110, 1, 0, HALT), 1: (0, 0, 0, HALT)}, 20, 180)


def test_every_cpu_halted_while_the_device_threads_ran_freely_is_not_the_host():
    assert not verdict_with_others({0: (17110, 1, 0, HALT), 1: (0, 0, 0, HALT)}, 20, 10)


def test_device_threads_waiting_do_not_excuse_a_cpu_that_had_work_and_ran():
    assert not verdict_with_others({0: (17110, 1, 0, HALT), 1: (7000000, 200, 30, WORK)}, 20, 180)
