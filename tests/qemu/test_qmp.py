"""The QMP client the tests and the course tool share (tools/qemuio.py), against a scripted QMP
server on a unix socket: no QEMU needed. What QEMU itself answers is covered by every test that
types keys, hot-plugs or reads the monitor through Guest.qmp_cmd (test_usb_kbd, test_i8042, the
soak) and by the course's lessons that press keys."""
import json
import os
import socket
import tempfile
import threading
import time

import pytest

import irqkit_qemu  # noqa: F401  (puts tools/ on the path)
from qemuio import LOG_LINE_RX, LOG_LINES_ONLY, STAMP_RX, Qmp, QmpError

GREETING = {"QMP": {"version": {"qemu": {"major": 7, "minor": 2, "micro": 0}}, "capabilities": []}}
EVENT = {"event": "RESET", "data": {"guest": True}, "timestamp": {"seconds": 1, "microseconds": 2}}


class ScriptedQmp:
    """A QMP server that sends its greeting, then for each command received sends the next
    list of messages of @script (None: close the connection instead); it records the commands."""

    def __init__(self, script):
        self.dir = tempfile.mkdtemp(prefix="irqkit-qmp-test-")
        self.path = os.path.join(self.dir, "qmp.sock")
        self.srv = socket.socket(socket.AF_UNIX)
        self.srv.bind(self.path)
        self.srv.listen(1)
        self.script, self.received = list(script), []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        conn, _ = self.srv.accept()
        with conn, conn.makefile("rw") as f:
            f.write(json.dumps(GREETING) + "\n")
            f.flush()
            for replies in self.script:
                line = f.readline()
                if not line:
                    return
                self.received.append(json.loads(line))
                if replies is None:
                    return
                for r in replies:
                    f.write(json.dumps(r) + "\n")
                f.flush()

    def close(self):
        self.thread.join(5)
        self.srv.close()
        os.unlink(self.path)
        os.rmdir(self.dir)


def test_qmp_negotiates_capabilities_and_skips_events_before_a_reply():
    srv = ScriptedQmp([[{"return": {}}],
                       [EVENT, EVENT, {"return": "  1: 7\n"}],
                       [{"return": {}}]])
    q = Qmp(srv.path, timeout=5)
    assert q.hmp("info irq") == "  1: 7\n"
    assert q.call("send-key", keys=[{"type": "qcode", "data": "a"}]) == {}
    q.close()
    srv.close()
    assert srv.received == [
        {"execute": "qmp_capabilities"},
        {"execute": "human-monitor-command", "arguments": {"command-line": "info irq"}},
        {"execute": "send-key", "arguments": {"keys": [{"type": "qcode", "data": "a"}]}}]


def test_qmp_refusal_is_an_error_with_qemus_words():
    srv = ScriptedQmp([[{"return": {}}],
                       [{"error": {"class": "DeviceNotFound", "desc": "Device 'stick' not found"}}]])
    q = Qmp(srv.path, timeout=5)
    with pytest.raises(QmpError, match="QMP device_del: .*Device 'stick' not found"):
        q.call("device_del", id="stick")
    q.close()
    srv.close()


def test_qmp_socket_closed_before_the_reply_is_an_error_not_a_hang():
    srv = ScriptedQmp([[{"return": {}}], None])
    q = Qmp(srv.path, timeout=5)
    with pytest.raises(QmpError, match="closed its QMP socket before its reply to `quit`"):
        q.call("quit")
    q.close()
    srv.close()


def test_qmp_of_an_exited_qemu_fails_at_once_and_a_missing_socket_after_its_time():
    path = os.path.join(tempfile.gettempdir(), f"irqkit-no-such-qmp-{os.getpid()}.sock")
    t0 = time.monotonic()
    with pytest.raises(QmpError, match="QEMU exited before it opened its QMP socket"):
        Qmp(path, timeout=30, alive=lambda: False)
    assert time.monotonic() - t0 < 5
    t0 = time.monotonic()
    with pytest.raises(QmpError, match=r"no QMP socket at .* after 0.3 s"):
        Qmp(path, timeout=0.3)
    assert 0.3 <= time.monotonic() - t0 < 10


def test_console_message_shapes():
    msg = "[   12.345678] irq 14: expected interrupt lost\n"
    assert STAMP_RX.sub("", msg) == "irq 14: expected interrupt lost\n"
    assert LOG_LINE_RX.sub("", "ok\n" + msg + "irqkit> ") == "ok\nirqkit> "
    assert LOG_LINES_ONLY.fullmatch(msg + msg)
    assert not LOG_LINES_ONLY.fullmatch(msg + "irqkit> ")
    assert not STAMP_RX.match("[ 12.3456] too short a fraction\n")
