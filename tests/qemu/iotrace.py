"""Host evidence of when QEMU finished a disk request (issue 28): QEMU's own trace of its io_uring
backend (`aio=io_uring`), read after QEMU exited.

Under `-icount shift=N,sleep=off` guest time does not depend on the host only for what QEMU does
inside the guest's own steps. A read of the image (in the host's page cache) completes inside
io_uring_submit, during the guest's OUT or MMIO write that started it, so its interrupt is raised
before the vCPU can halt: guest time. A buffered write that must block in the host kernel (the
file's mtime update, at most once per host clock tick) is punted to io_uring's worker; QEMU's I/O
thread delivers its completion when that worker is done, meanwhile the halted guest's clock jumps
from timer to timer (icount's warp), and its completion lands at a timer deadline of the guest:
host time. The trace tells the two apart without any timing: each line carries the id of the
host thread that logged it, and a request completed inside its submit is completed by the thread
that submitted it (the vCPU's), one punted is completed by the I/O thread (QEMU 7.2,
block/io_uring.c: ioq_submit() processes the completions already there, the ring's fd handler the
rest).

A test that judges the polled share of writes judges only the writes QEMU completed in guest
time; a polled write is accepted only where this trace shows that QEMU's I/O thread completed it
after the host's worker finished (the completion did not exist while the guest ran).
"""
import os
import re

# "TID@SEC.USEC:event args" (-msg timestamp=on; the log backend's prefix)
LINE_RX = re.compile(r"^(\d+)@[\d.]+:(luring_co_submit|luring_process_completion) (.*)$")
CB_RX = re.compile(r"luringcb (0x[0-9a-f]+)")
TYPE_RX = re.compile(r" type (\d+)")
QEMU_AIO_WRITE = 2   # block/raw-aio.h


def args(tmp_path, name="iotrace.txt"):
    """QEMU's arguments for the trace; RETURNS (path, args)."""
    path = os.path.join(str(tmp_path), name)
    return path, ["-trace", "enable=luring_co_submit", "-trace", "enable=luring_process_completion",
                  "-trace", f"file={path}", "-msg", "timestamp=on"]


def requests(path):
    """Every io_uring request in submit order: dicts with 'type', 'bytes' and 'inline' (completed by
    the thread that submitted it: in the guest's own step) or 'inline' None (never completed)."""
    out, pending = [], {}
    with open(path) as f:
        for line in f:
            m = LINE_RX.match(line)
            if not m:
                continue
            tid, event, rest = m.groups()
            cb = CB_RX.search(rest)
            if not cb:
                continue
            if event == "luring_co_submit":
                t = TYPE_RX.search(rest)
                n = re.search(r"nbytes (\d+)", rest)
                req = {"type": int(t.group(1)) if t else 0, "bytes": int(n.group(1)) if n else 0,
                       "tid": tid, "inline": None}
                out.append(req)
                pending[cb.group(1)] = req
            elif cb.group(1) in pending:
                req = pending.pop(cb.group(1))
                req["inline"] = tid == req["tid"]
    return out


def writes(path):
    """The write requests in submit order (see requests())."""
    return [r for r in requests(path) if r["type"] == QEMU_AIO_WRITE]
