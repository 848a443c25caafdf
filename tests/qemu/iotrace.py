"""Host evidence of when QEMU finished a disk request (issue 28): QEMU's own trace of its io_uring
backend (`aio=io_uring`), read after QEMU exited.

Under `-icount shift=N,sleep=off` guest time does not depend on the host only for what QEMU does
inside the guest's own steps. A read of the image (in the host's page cache) completes inside
io_uring_submit, during the guest's OUT or MMIO write that started it, so its interrupt is raised
before the vCPU can halt: guest time. A buffered write that must block in the host kernel (the
file's mtime update, at most once per host clock tick) is punted to io_uring's worker; QEMU's I/O
thread delivers its completion when that worker is done, meanwhile the halted guest's clock jumps
from timer to timer (icount's warp), and its completion lands at a timer deadline of the guest:
host time. The trace tells the two apart without any timing. A request is host-timed when
- its completion was logged by another host thread than its submit: the IDE and AHCI models
  submit from the vCPU's thread, inside its OUT or MMIO write, and ioq_submit() (QEMU 7.2,
  block/io_uring.c) processes the completions already there; a punted one is completed by the
  ring's fd handler in QEMU's I/O thread; or
- a timer interrupt of the guest's local APIC was delivered (apic_local_deliver: the tick, the
  poll timer) while QEMU still had it: the guest's clock reached a timer deadline meanwhile, which
  is where a poll could have found it. The NVMe model submits from QEMU's I/O thread (the doorbell
  schedules it), so there the thread alone cannot tell.
Everything else was completed before the guest's next timer deadline: guest time.

A test that judges the polled share of writes judges only the writes QEMU completed in guest
time; a polled write is accepted only where this trace shows that QEMU's I/O thread completed it
after the host's worker finished (the completion did not exist while the guest ran).
"""
import os
import re

# "TID@SEC.USEC:event args" (-msg timestamp=on; the log backend's prefix)
LINE_RX = re.compile(r"^(\d+)@[\d.]+:(luring_co_submit|luring_process_completion|apic_local_deliver) ?(.*)$")
CB_RX = re.compile(r"luringcb (0x[0-9a-f]+)")
TYPE_RX = re.compile(r" type (\d+)")
QEMU_AIO_WRITE = 2   # block/raw-aio.h


def args(tmp_path, name="iotrace.txt"):
    """QEMU's arguments for the trace; RETURNS (path, args)."""
    path = os.path.join(str(tmp_path), name)
    return path, ["-trace", "enable=luring_co_submit", "-trace", "enable=luring_process_completion",
                  "-trace", "enable=apic_local_deliver", "-trace", f"file={path}", "-msg", "timestamp=on"]


def requests(path):
    """Every io_uring request in submit order: dicts with 'type', 'bytes' and 'inline' (completed by
    the thread that submitted it, before any timer interrupt of the guest: guest time), False
    (host-timed) or None (never completed)."""
    out, pending = [], {}
    with open(path) as f:
        for line in f:
            m = LINE_RX.match(line)
            if not m:
                continue
            tid, event, rest = m.groups()
            if event == "apic_local_deliver":
                for req in pending.values():
                    req["timer"] = True
                continue
            cb = CB_RX.search(rest)
            if not cb:
                continue
            if event == "luring_co_submit":
                t = TYPE_RX.search(rest)
                n = re.search(r"nbytes (\d+)", rest)
                req = {"type": int(t.group(1)) if t else 0, "bytes": int(n.group(1)) if n else 0,
                       "tid": tid, "timer": False, "inline": None}
                out.append(req)
                pending[cb.group(1)] = req
            elif cb.group(1) in pending:
                req = pending.pop(cb.group(1))
                req["inline"] = tid == req["tid"] and not req["timer"]
    return out


def writes(path):
    """The write requests in submit order (see requests())."""
    return [r for r in requests(path) if r["type"] == QEMU_AIO_WRITE]
