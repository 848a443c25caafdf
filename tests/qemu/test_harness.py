"""The harness's own waits (irqkit_qemu.Guest.wait_for), without QEMU: a stand-in "guest" process
whose output the harness reads as it reads QEMU's serial console.

A wait's time-out is the guest's time to answer. When the host keeps the harness itself off its
CPUs (stop 42: this machine's CPU 0 stood still for about a minute, the kernel said "workqueue
lockup ... stuck for 59s", and a healthy guest's answer to `irqs`, printed at once, was read only
after the harness's 30 s had run out), that time is not the guest's. Here the stand-in stops the
harness's whole process (SIGSTOP: both its threads) for longer than the wait's time-out while the
wait runs, lets it go on, and only then answers: the wait must see the answer. Without the
harness's rule (a look that comes more than HARNESS_LATE_S late moves the deadline) it times out.
A stand-in that answers too late while the harness runs on time still times out.
"""
import os
import subprocess
import sys
import threading

import pytest

import irqkit_qemu

TIMEOUT_S = 2.0    # the wait's time-out
STOPPED_S = 3.0    # how long the stand-in keeps the harness stopped (more than TIMEOUT_S)
ANSWER_S = 0.3     # after letting the harness go on, the stand-in answers this much later


def stand_in(script):
    """A Guest whose "serial console" is a shell running @script (the harness's pid in $H): the
    reader thread and the waits are the Guest's own; no QEMU."""
    g = irqkit_qemu.Guest.__new__(irqkit_qemu.Guest)
    g.buf, g.stderr, g.harness_kept_off_s = "", "", 0.0
    g.cond = threading.Condition()
    g.proc = subprocess.Popen(["sh", "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=dict(os.environ, H=str(os.getpid())))
    g.reader = threading.Thread(target=g._read, daemon=True)
    g.reader.start()
    g.err_reader = threading.Thread(target=g._read_err, daemon=True)
    g.err_reader.start()
    return g


@pytest.mark.skipif(sys.platform != "linux", reason="SIGSTOP of the test's own process")
def test_time_the_harness_was_stopped_is_not_the_guests():
    # "started" is read before the wait begins; 0.2 s later the stand-in stops the harness inside
    # the wait, lets it go on after STOPPED_S and answers ANSWER_S later: past the time-out in the
    # host's time, but within it in the time the harness could run.
    g = stand_in(f'read go; echo started; sleep 0.2; kill -STOP $H; sleep {STOPPED_S}; kill -CONT $H; '
                 f'sleep {ANSWER_S}; echo answer; sleep 5')
    try:
        g.send("go\n")
        g.wait_for("started", 10)
        m = g.wait_for("answer", TIMEOUT_S)
        assert m and g.harness_kept_off_s >= STOPPED_S - 0.5, g.harness_kept_off_s
    finally:
        g.proc.kill()
        g.proc.wait()


def test_a_guest_that_answers_too_late_still_times_out():
    g = stand_in(f"sleep {TIMEOUT_S + 2}; echo answer; sleep 5")
    try:
        with pytest.raises(irqkit_qemu.GuestTimeout, match="no /answer/ in the serial output after"):
            g.wait_for("answer", TIMEOUT_S)
        assert g.harness_kept_off_s < TIMEOUT_S, g.harness_kept_off_s
    finally:
        g.proc.kill()
        g.proc.wait()
