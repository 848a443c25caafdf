"""Shell commands whose end is recognised by their own output, for tests that run while the
kernel logs asynchronously (a storm's re-enable tests, USB enumeration). A log line printed while
the shell echoes a command no longer splits the echo (the kernel shows the typed line again after
it, kernel/printk.c), but run() does not rely on the echo at all: it waits for a pattern of the
command's last output line."""
import re

from irqkit_qemu import PROMPT

# The last line each command prints (used when no pattern is given).
LAST_LINE = {
    "irqs": r"vectors nobody owns: \d+\n",
    "lsusb": r"^\d+ devices?\n",
    "ata crc": r"crc32 \w+ \d+\+\d+ = [0-9a-f]{8} .*\n",
    "blk crc": r"crc32 \w+ \d+\+\d+ = [0-9a-f]{8} .*\n",
    "ata write-pattern": r"write-pattern \w+ \d+\+\d+ seed 0x[0-9a-f]+: .*\n",
    "ata flush": r"flush \w+: .*\n",
    "timecheck": r"timecheck: .*\n",
    "cpuload": r"cpuload: .*\n",
}


def run(g, cmd, done=None, timeout=60):
    """Type @cmd, wait for @done (a regex; default LAST_LINE of the command) and the prompt
    after it. RETURNS the serial output from the command on (log lines included)."""
    if done is None:
        done = next(v for k, v in sorted(LAST_LINE.items(), key=lambda kv: -len(kv[0]))
                    if cmd == k or cmd.startswith(k + " "))
    start = len(g.log)
    g.send(cmd + "\r")
    m = g.wait_for(done, timeout, start)
    g.wait_for(re.escape(PROMPT), 10, m.end())
    return g.log[start:m.end()]


# QMP qcodes for what type_on_usb_keyboard() types (letters are their own qcode).
QCODES = {" ": "spc", "\r": "ret", "-": "minus"}
KEY_HOLD_MS = 20         # each key held over two 10 ms polls of QEMU's usb-kbd
UPTIME_RX = r"up \d+\.\d{3} s, \d+ ticks"


def type_on_usb_keyboard(g, text, done, timeout=30):
    """Type @text (lower-case letters, space, '-', '\\r') on the USB keyboard through QMP
    send-key, as a person would at the prompt; wait for @done (a regex) in the output.
    RETURNS the match."""
    start = len(g.log)
    for ch in text:
        key = QCODES.get(ch, ch)
        g.qmp_cmd("send-key", keys=[{"type": "qcode", "data": key}], **{"hold-time": KEY_HOLD_MS})
    m = g.wait_for(done, timeout, start)
    g.wait_for(re.escape(PROMPT), 10, m.end())
    return m
