"""qemuio.py - what the QEMU tests, the course tool and the capture tool share about a booted
irqkit: the shape of the kernel's messages on the serial console, and a client for QEMU's QMP
socket (`-qmp unix:PATH,server=on,wait=off`, or `make run RUN_QMP=PATH`).

Users: tests/qemu/irqkit_qemu.py (and through it the soak and the benchmarks),
tools/course/transcripts.py, tools/capture-boot-info.py.
"""
import json
import re
import socket
import time

# A kernel message on the console starts with its time stamp, "[   12.345678] " (kernel/printk.c).
STAMP = r"\[\s*\d+\.\d{6}\] "
# The time stamp at the start of a line (to strip it, or to tell a message from other output).
STAMP_RX = re.compile("^" + STAMP, re.M)
# One whole message, its newline included.
LOG_LINE_RX = re.compile(STAMP + r"[^\n]*\n")
# Nothing but messages: what came between a command's echo and its output when the kernel
# printed meanwhile (fullmatch against that stretch).
LOG_LINES_ONLY = re.compile(f"(?:{STAMP}[^\\n]*\\n)+")


class QmpError(RuntimeError):
    """QEMU refused a command, closed its socket, or never opened it."""


class Qmp:
    """A QMP connection: the greeting read and capabilities negotiated on connect; asynchronous
    events that arrive before a command's reply are skipped (nobody here waits for one)."""

    def __init__(self, path, timeout=10, alive=None):
        """Connect to the socket at @path, waiting up to @timeout seconds of the host for QEMU to
        open it. @alive: a function that says whether QEMU still runs (a QEMU that exited never
        opens it: say so at once)."""
        deadline = time.monotonic() + timeout
        while True:
            sock = socket.socket(socket.AF_UNIX)
            try:
                sock.connect(path)
                break
            except OSError as e:
                sock.close()
                if alive is not None and not alive():
                    raise QmpError(f"QEMU exited before it opened its QMP socket {path}") from e
                if time.monotonic() > deadline:
                    raise QmpError(f"no QMP socket at {path} after {timeout} s: {e}") from e
                time.sleep(0.05)
        self.file = sock.makefile("rw")
        sock.close()                  # the file holds its own reference to the connection
        self._reply("the greeting")
        self.call("qmp_capabilities")

    def _reply(self, what):
        """The next message that is not an event."""
        while True:
            line = self.file.readline()
            if not line:
                raise QmpError(f"QEMU closed its QMP socket before {what}")
            reply = json.loads(line)
            if "event" not in reply:
                return reply

    def call(self, name, **arguments):
        """Execute @name with @arguments; RETURNS its "return" value. Raises QmpError with QEMU's
        error when QEMU refuses it."""
        msg = {"execute": name}
        if arguments:
            msg["arguments"] = arguments
        self.file.write(json.dumps(msg) + "\n")
        self.file.flush()
        reply = self._reply(f"its reply to `{name}`")
        if "error" in reply:
            raise QmpError(f"QMP {name}: {reply['error']}")
        return reply.get("return")

    def hmp(self, command_line):
        """@command_line at QEMU's human monitor (none of it reaches the guest's console).
        RETURNS the monitor's output."""
        return self.call("human-monitor-command", **{"command-line": command_line})

    def close(self):
        try:
            self.file.close()
        except OSError:
            pass
