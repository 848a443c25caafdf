#!/usr/bin/env python3
"""transcripts.py - the shell sessions shown in the docs, produced by the kernel and checked.

    transcripts.py --write [--force] [PAGE ...]   run every marked session, write the real output into
                                         the page where its shape changed (--force: everywhere)
    transcripts.py --check [PAGE ...]    run them again, fail where a page no longer matches in shape
    transcripts.py --check --repeat N [--trace FILTER] PAGE   play a page's boots N times (diagnosis)
    transcripts.py --list  [PAGE ...]    the sessions and the boots they share

`make course-transcripts` is `--write` over every page; `make course-test` runs `--check`
(tests/course/test_transcripts.py). With no PAGE: the course (docs/course/*.md) and every page
of docs/ (docs/*.md).

A session is a fenced block with the info string `console`, right after an HTML comment that
starts with `session`:

    <!-- session
    boot: ex-drop
    show irqs: ^ {1,2}14 |^IRQ health|^  line 14
    vary: for # ms
    -->
    ```console
    $ make run RUN_EXTRA="$D -icount shift=3,sleep=off"
    irqkit> inject ata-drop:100
    irqkit> irqs
    ```

In the block, a line that starts with `$ ` is a command for the host's shell (bash, in the top of
the tree); `$ make run ...` boots QEMU exactly as a student would (the Makefile's `make run`, its
serial console on a pipe), and the lines that start with `irqkit> ` are typed into that kernel's
shell, one after the other, each once the prompt came back. A line that starts with `(qemu) ` is
a command for QEMU's monitor, which `make run` multiplexes on the same console: the tool presses
Ctrl-A C, types the command and Enter, waits for the monitor's prompt and presses Ctrl-A C to come
back, as a student does. Every other line of the block is output, and is what this tool writes:
the real output of each command, with the kernel's `[seconds]` stamps left out. A host shell
variable set on a page (`$ D="-drive ..."`) holds for the rest of that page.

Keys: `(qemu) sendkey KEY` presses a key on the machine's PS/2 keyboard. A key that makes a
character (a letter, a digit, `spc`, with `shift-`) puts it on the shell's line, where the kernel
echoes it; the tool waits for that echo (for as long as `timeout (qemu) sendkey KEY:` says, 10 s
by default, and goes on without it: a dead keyboard echoes nothing); once it came, it waits as
long again for QEMU to let the keys go (the keyboard line's edges, counted by `info irq`, which
the tool reads through a QMP socket it asks `make run` for, RUN_QMP, so that nothing of it reaches
the console), so that the next command sees the whole key, its break code too, as a student's would. The next `irqkit> ` line of
the page shows the shell's whole line: when it begins with the characters the keys should have
typed, the tool types only the rest (`(qemu) sendkey a`, then `irqkit> apic`: the tool types
`pic` and Enter), as the student does, and at least one character (a bare Enter's echo cannot be
told from the monitor's newlines). A key that did not arrive, or one that did where the page says
the keyboard is dead (`irqkit> i8042` after `sendkey a`: the shell gets `ai8042`), leaves the
kernel a different command, and the output shows it.

The comment says, one per line:

  boot: NAME          the sessions that name one boot share one QEMU, in page order (the docs
                      first, then ...). A session that starts with `$ make run` starts it (or, when
                      the boot is already running with the very same command, goes on in it: the
                      page then shows the command again, so a reader sees how it was booted); a
                      session without one goes on in the boot it names. Without `boot:`, a
                      `make run` boots afresh and ends with its session.
  show CMD: REGEX     of the output of the command CMD (`CMD ...`: of every command that begins
                      with CMD; `boot`: the boot log, shown only when asked for; `(qemu) CMD`: a
                      monitor command and the kernel's messages while it waits), keep the lines
                      REGEX finds; each run of cut lines is one `...` line
  hide CMD: REGEX     of the output of CMD (as for show), cut the lines REGEX finds
  once CMD: REGEX     of the lines CMD's output keeps, those REGEX finds only the first time: how
                      many such lines come may depend on the host (a trace's unclaimed runs of the
                      serial line), the first one shows what the page says
  wait CMD: REGEX     after CMD's prompt came back, wait until REGEX appears in the console (the
                      kernel's messages that come meanwhile are CMD's output)
  timeout CMD: S      how long CMD (or `boot`) may take, in seconds of the host (default 60 / 120)
  pace CMD:           type the command after CMD only once CMD's prompt came back, at a person's
                      pace, not ahead (Player.play_boot): where the typing of the next command is
                      what CMD records (`trace start 4` traces the serial line's interrupts), or
                      would be if it came early (`trace stop`: the next command's keys, typed as
                      soon as its echo came, reach the UART before the shell has run it)
  vary: TEMPLATE      numbers that differ from run to run: the template is output text with `#`
                      for each such number (decimal, 0x-hex, or a hex word such as a hash), or
                      `#{LO..HI}` for a decimal one that must lie within bounds, and `{A|B}` where
                      either text may stand (the tick on the LAPIC timer or, on a busy host, the PIT);
                      every other number of the block must come back exactly
  claim: TEMPLATE     what the page's text says about this output (a template as for vary:): some
                      line of the output must hold it, when the page is written and when it is
                      checked, so that a rewritten transcript cannot leave the prose behind it wrong

"In shape" means: the same lines, in the same order, the same words, and the same numbers except
where a `vary:` (or one of DEFAULT_VARY) allows them to differ; a `...` stands for however many
lines a `show:` cut, none included. The check names the first line
that differs and shows both.

Each boot is played once and judged on that play: a boot that differs is not played again to get
a match, since output that depends on the host's mood is a defect to find (in the kernel, or in the
page's template), not a tolerance. So that one failure is enough to find it, every boot leaves
evidence: after its last session the tool types `irqs` and `cpus` (EVIDENCE_CMDS), and a failing
session's report shows the boot's messages about lost, late and polled interrupts and stalls and
that `irqs`; the whole console log is kept in build/course/evidence/BOOT.log. `--trace FILTER`
also records the event trace from the start of each boot and keeps its dump there;
`--repeat N` plays the pages N times, judging each play alone, and counts the plays that differed
and the boots that announced an expected interrupt lost (for a diagnosis beside
`tools/loaded.sh`).
"""
import argparse
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.append(os.path.dirname(HERE))
# The console's message shapes and the QMP client, shared with the QEMU tests (tools/qemuio.py).
from qemuio import LOG_LINES_ONLY, STAMP_RX, Qmp, QmpError  # noqa: E402

PROMPT = "irqkit> "
HOST = "$ "
MONITOR = "(qemu) "
MONITOR_SWITCH = b"\x01c"   # Ctrl-A C: the console's multiplexer (-serial mon:stdio) to the monitor and back
TYPE_AHEAD_MAX = 512        # bytes of commands typed in one write (the kernel's input ring holds 1024)
KEY_ECHO_TIMEOUT = 10       # seconds of the host to wait for the echo of a key's character (and its release)
KBD_LINE = 1                # the PS/2 keyboard's ISA line (i8042), whose edges QEMU's `info irq` counts
KEY_EDGES = 3               # edges a key that types a character raises, pressed and let go: its make code
                            # and the two bytes of its break code (set 2, 0xF0 and the code; irqkit turns
                            # the controller's translation off), one edge a byte the handler reads
ANSI_RX = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b[=>]")
MARKER_RX = re.compile(r"<!--\s*session\b(?P<body>.*?)-->[ \t]*\n(?P<open>```console[^\n]*)\n(?P<block>.*?)^```[ \t]*$",
                       re.S | re.M)
# A number of the output: decimal (with a fraction), 0x-hex, a hex word with a digit in it, or a hash
# of eight hex digits (the trace's %08x, which may hold no decimal digit: "adcacbee").
NUMBER = r"(?:0x[0-9a-fA-F]+|\d+\.\d+|[0-9a-f]*\d[0-9a-f]*|[0-9a-f]{8})"
BOOT_TIMEOUT = 120
CMD_TIMEOUT = 60
# Numbers that vary in every run, on any page: they depend on the host's speed and on when you type.
# Numbers that measure time, or count what happened while time passed (polls that found nothing,
# ticks, EOIs of the timer), differ from run to run on any page. The counts that say what the
# kernel did (blocks read, completions found by polling, unclaimed interrupts of a storm) do not.
DEFAULT_VARY = [
    "bytes in # us, # MB/s)",                                   # a read's duration and speed
    "(at # s, episode",                                         # when an announcement came
    "after # ms on polling (# completions by polling)",         # how long an episode lasted
    "for # ms, # completions by polling",                       # ... and still lasts
    "re-enable test in # ms",
    "polls #: # found work (# beat a pending interrupt), # found nothing; # more left the work",
    "the tick looked at its verified expects # times, # found one past its safety delay; "
    "poll-timer expiries #, # of them polled nothing",
    "(finds by its polls: # late, # polled, # awaiting, # beat a pending interrupt)",
    "(# late, # unsure, # beat a pending interrupt)",
    "EOIs # master / # slave",
    "lapic-timer #",
    "ticks in # us of TSC time (hz=#, TSC # kHz)",
    "noirq_latency_avg_us=# noirq_latency_max_us=# noirq_unseen_max_us=#",
    "stopped after # ms",
    "after # moves (# refused), # ns per move",
    "@T # # # ",                                                # a trace event's number, CPU, time
    "slots=# dropped=0 clock=ns", "; # events held, 0 dropped; # CPUs with events",
    "events=# dropped=0 unwritten=0 hash=#",
    "yes # # # #%",                                             # `cpus`: ticks, interrupts, IPIs, idle
    # The serial line counts your typing (lesson 1); line 2 (0 with noapic) counts the PIT's ticks
    # when a busy host moved the tick there (docs/course/README.md).
    " 4 # # # 0 0  {IO-APIC|XT-PIC}  edge  edge               serial(#)",
    "{0x34|0x24}    irq 4 #",
    " {2|0} # # 0 0 0  {IO-APIC|XT-PIC}  edge  edge               timer(#)",
    "{0x32|0x20}    irq {2|0} #",
    # What the line's CPU did while the host ran other work (a stalled CPU is not a lost interrupt,
    # docs/defences.md): late completions a CPU that was not running had pending.
    "/ # late while the CPU did not run",
    "its CPU # was found not running: # safety polls waited for it, # completions late while it did not run",
]
DURATIONS = os.path.join(ROOT, "build", "course", "durations.json")
QUIT = b"\x01x"   # Ctrl-A X: QEMU's monitor multiplexed on the serial console (-serial mon:stdio) quits


def course_pages():
    d = os.path.join(ROOT, "docs", "course")
    order = ["README.md"]
    order += sorted(f for f in os.listdir(d) if re.match(r"\d+-.*\.md$", f))
    order += sorted(f for f in os.listdir(d) if f.endswith(".md") and f not in order)
    return [os.path.join(d, f) for f in order]


def all_pages():
    docs = os.path.join(ROOT, "docs")
    return course_pages() + sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))


class PageError(Exception):
    pass


# ---------------------------------------------------------------------------
# Pages and sessions

class Session:
    def __init__(self, page, index, m, text):
        self.page, self.index = page, index
        self.span = m.span("block")
        self.line = text.count("\n", 0, m.start()) + 1
        self.where = f"{os.path.relpath(page, ROOT)}:{self.line}"
        self.boot = None
        self.show, self.hide, self.once, self.wait, self.timeout, self.pace = {}, {}, {}, {}, {}, {}
        self.vary, self.claims = list(DEFAULT_VARY), []
        for raw in m.group("body").strip().split("\n"):
            raw = raw.strip()
            if not raw:
                continue
            km = re.match(r"(boot|show|hide|once|wait|timeout|pace|vary|claim)(?: (.+?))?:(?: (.*))?$", raw)
            if not km:
                raise PageError(f"{self.where}: session comment line not understood: {raw!r}")
            key, arg, val = km.group(1), km.group(2), km.group(3) or ""
            if key == "boot":
                self.boot = val.strip()
            elif key == "vary":
                self.vary.append(val)
            elif key == "claim":
                self.claims.append(val)
            elif arg is None:
                raise PageError(f"{self.where}: `{key}` needs a command: `{key} CMD: ...`")
            elif key == "show":
                self.show[arg.strip()] = re.compile(val)
            elif key == "hide":
                self.hide[arg.strip()] = re.compile(val)
            elif key == "once":
                self.once[arg.strip()] = re.compile(val)
            elif key == "wait":
                self.wait[arg.strip()] = re.compile(val, re.M)
            elif key == "pace":
                self.pace[arg.strip()] = True
            else:
                self.timeout[arg.strip()] = float(val)
        self.lines = m.group("block").rstrip("\n").split("\n") if m.group("block").strip() else []
        self.inputs = [l for l in self.lines if l.startswith(HOST) or l.startswith(PROMPT) or l.startswith(MONITOR)]
        if not self.inputs:
            raise PageError(f"{self.where}: a session block with no `$ ` or `irqkit> ` line")
        self.make_run = next((l[len(HOST):] for l in self.inputs if re.match(r"\$ make run\b", l)), None)
        if self.make_run is None and any(l.startswith((PROMPT, MONITOR)) for l in self.inputs) and not self.boot:
            raise PageError(f"{self.where}: typed commands but no `$ make run` and no `boot:` to go on in")
        first_run = next((i for i, l in enumerate(self.inputs) if re.match(r"\$ make run\b", l)), None)
        if first_run is not None and any(l.startswith((PROMPT, MONITOR)) for l in self.inputs[:first_run]):
            raise PageError(f"{self.where}: `irqkit> ` or `(qemu) ` lines before the `$ make run` of the block")

    def for_cmd(self, table, cmd, default=None):
        """The entry of @table for @cmd: the key that is @cmd itself, else the longest key `PREFIX ...`
        whose PREFIX begins @cmd (as words)."""
        if cmd in table:
            return table[cmd]
        best = None
        for key in table:
            if key.endswith(" ...") and cmd.startswith(key[:-4] + " "):
                if best is None or len(key) > len(best):
                    best = key
        return table[best] if best is not None else default


def read_sessions(page):
    text = open(page).read()
    return text, [Session(page, i, m, text) for i, m in enumerate(MARKER_RX.finditer(text))]


# ---------------------------------------------------------------------------
# Running: the host's shell and `make run`

def clean_env():
    env = dict(os.environ)
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"):
        env.pop(k, None)
    env["LC_ALL"] = "C"
    return env


def shell_prefix(assigns):
    return "".join(a + "\n" for a in assigns)


def expand(cmd, assigns):
    """@cmd with the page's variables put in (as bash would, for the simple NAME="value" the pages set)."""
    for a in reversed(assigns):
        name, val = a.split("=", 1)
        val = val[1:-1] if len(val) >= 2 and val[0] == val[-1] and val[0] in "\"'" else val
        cmd = re.sub(r"\$(?:%s\b|\{%s\})" % (name, name), lambda _: val, cmd)
    return cmd


def run_host(cmd, assigns, timeout):
    p = subprocess.run(["bash", "-c", "set -e\n" + shell_prefix(assigns) + cmd], cwd=ROOT, env=clean_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    out = p.stdout.decode("utf-8", "replace")
    if p.returncode:
        raise PageError(f"`{cmd}` failed (exit {p.returncode}):\n{out[-2000:]}")
    return out


class Boot:
    """One `make run`: QEMU with its serial console (and monitor) on our pipes."""

    def __init__(self, name, cmd, assigns, where, timeout, boot_wait=None):
        self.name, self.cmd, self.where = name, cmd, where
        # QEMU's QMP socket (make run's RUN_QMP): the tool looks at the machine there, never through
        # the console's monitor, whose output would land in the middle of the kernel's lines.
        self.tmp = tempfile.mkdtemp(prefix="irqkit-course-")
        self.qmp_path, self.qmp = os.path.join(self.tmp, "qmp.sock"), None
        env = clean_env()
        env["RUN_QMP"] = self.qmp_path
        self.proc = subprocess.Popen(["bash", "-c", shell_prefix(assigns) + "exec " + cmd], cwd=ROOT,
                                     env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.buf = ""
        self.keyed = ""     # what the PS/2 keys typed into the shell's line since its last Enter
        self.ahead = []     # commands typed ahead whose echo has not been read yet (type)
        self.lock = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        m = self.wait_for(re.escape(PROMPT), 0, timeout, "the shell's first prompt")
        start = self.buf.find("[    0.000000]")
        self.pos = m.end()
        if boot_wait is not None:   # messages of the boot that come after the prompt (USB, ...)
            w = self.wait_for(f"(?:{boot_wait.pattern})[^\n]*\n", self.pos, timeout,
                              f"/{boot_wait.pattern}/ in the boot log")
            self.pos = self.line_end(w)
        self.boot_log = self.buf[max(start, 0):self.pos]

    def _read(self):
        fd = self.proc.stdout.fileno()
        while True:
            data = os.read(fd, 65536)
            if not data:
                break
            with self.lock:
                self.buf += data.decode("utf-8", "replace").replace("\r", "")
                self.lock.notify_all()
        with self.lock:
            self.lock.notify_all()

    def wait_for(self, pattern, start, timeout, what):
        rx = re.compile(pattern, re.M)
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                m = rx.search(self.buf, start)
                if m:
                    return m
                left = deadline - time.monotonic()
                if self.proc.poll() is not None and not self.reader.is_alive():
                    raise PageError(f"{self.where}: `{self.cmd}` ended (exit {self.proc.returncode}) before "
                                    f"{what}; its last output:\n{self.buf[-3000:]}")
                if left <= 0:
                    raise PageError(f"{self.where}: no {what} after {timeout:.0f} s of `{self.cmd}`; "
                                    f"its last output:\n{self.buf[-3000:]}")
                self.lock.wait(min(left, 0.2))

    def send(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def type(self, cmd, timeout, wait=None, sent=False, ahead=None):
        """Type @cmd; RETURNS its output (the kernel's messages that came before the prompt after it,
        and until @wait was seen, included). When the keys of a `sendkey` put the start of @cmd on
        the shell's line already, only the rest is typed. @sent: typed ahead already, with an earlier
        command. @ahead: the commands to type next, in the same write as this one: they wait in the
        kernel's input ring (console.c, 1024 bytes; the shell echoes a line only when it reads it),
        and the shell takes each the moment the one before is done, so no time of the machine
        passes between them (see Player.play_boot)."""
        start = self.pos if sent else len(self.buf)
        keyed, self.keyed = self.keyed, ""
        send = cmd[len(keyed):] if keyed and cmd.startswith(keyed) else cmd
        if not send:
            # Enter alone: its echo is a bare newline, which the monitor's and the kernel's own ones
            # make ambiguous in the console; the page types at least one character after the keys.
            raise PageError(f"`{cmd}` is only what the keys typed: type at least one character after them")
        if not sent:
            self.send(send.encode() + b"\r" + b"".join(a.encode() + b"\r" for a in ahead or []))
            self.ahead = list(ahead or [])
        elif self.ahead and self.ahead[0] == cmd:
            self.ahead.pop(0)
        if send is cmd:
            echo = self.wait_for(re.escape(cmd) + r"\n", start, 20, f"the echo of `{cmd}`")
        else:
            # The line the keys began: it ends with what was typed now (the keys' echo is before @start),
            # and is no message of the kernel's.
            line0 = self.buf.rfind("\n", 0, start) + 1
            echo = self.wait_for(r"^(?!\[\s*\d+\.\d{6}\] )[^\n]*?" + re.escape(send) + r"\n", line0, 20,
                                 f"the echo of `{send}` after the keys' `{keyed}`")
        # The kernel's messages since the last prompt (the previous command's): only stamped lines,
        # not the prompt drawn again nor the echo of what was typed so far.
        between = "".join(l for l in self.buf[self.pos:echo.start()].splitlines(True) if STAMP_RX.match(l))
        done = self.wait_for(re.escape(PROMPT), echo.end(), timeout, f"the prompt after `{cmd}`")
        while LOG_LINES_ONLY.fullmatch(self.buf[echo.end():done.start()]) and self.shown_again(cmd, done, timeout):
            between += self.buf[echo.end():done.start()]   # they came before the Enter
            echo = self.wait_for(re.escape(cmd) + r"\n", done.end(), timeout, f"the echo of `{cmd}`")
            done = self.wait_for(re.escape(PROMPT), echo.end(), timeout, f"the prompt after `{cmd}`")
        out = self.buf[echo.end():done.start()]
        self.pos = done.end()
        if wait is not None:
            # The message may already be in the command's own output; else it comes after the prompt.
            w = self.wait_for(f"(?:{wait.pattern})[^\n]*\n", echo.end(), timeout, f"/{wait.pattern}/ after `{cmd}`")
            eol = self.line_end(w)
            if eol > self.pos:   # the lines up to the one that matched; what follows is the next command's
                out += "".join(l for l in self.buf[self.pos:eol].splitlines(True) if STAMP_RX.match(l))
                self.pos = eol
        return between, out

    def shown_again(self, cmd, prompt, timeout):
        """Whether @prompt, after nothing but log lines since the echo of @cmd, is the line shown
        again rather than the command's end. A message that comes after the line is echoed and
        before the shell reads its Enter ends the shown line with a line break like the Enter's,
        and the prompt after it comes with the line again and then its Enter (kernel/printk.c,
        input_hide / input_show); a command whose output is a log line ends at the same prompt with
        nothing after it but the next command typed ahead. When that one is another command, its
        echo tells them apart. Without one, only what has come decides: Guest.command (tests/qemu)
        types a space and Ctrl-U to tell them apart, but here two more bytes on the serial line
        would be in the traces of the pages that trace it (the probe tried here: docs/history.md)."""
        line = cmd + "\n"
        if self.ahead and self.ahead[0] != cmd:
            deadline = time.monotonic() + timeout
            with self.lock:
                while True:
                    after = self.buf[prompt.end():prompt.end() + len(line)]
                    if after == line or not line.startswith(after):
                        return after == line
                    if time.monotonic() > deadline or (self.proc.poll() is not None and not self.reader.is_alive()):
                        raise PageError(f"{self.where}: neither `{cmd}` again nor `{self.ahead[0]}` after the "
                                        f"prompt that followed `{cmd}`; its last output:\n{self.buf[-3000:]}")
                    self.lock.wait(0.2)
        return self.buf.startswith(line, prompt.end())

    def monitor(self, cmd, timeout, wait=None):
        """Type @cmd at QEMU's monitor: Ctrl-A C, the command, Enter, Ctrl-A C back to the kernel.
        For a `sendkey` whose key makes a character, wait up to @timeout for the kernel's echo of
        it, and remember the character: type() leaves it out of a command that begins with it.
        RETURNS (the kernel's messages since the previous command, the monitor's output and the
        kernel's messages until the echo or @wait)."""
        mark = len(self.buf)
        between = "".join(l for l in self.buf[self.pos:mark].splitlines(True) if STAMP_RX.match(l))
        self.send(MONITOR_SWITCH)
        ready = self.wait_for(re.escape(MONITOR), mark, 20, "QEMU's monitor prompt (Ctrl-A C)")
        chars = key_chars(cmd)
        if chars:
            # The keyboard line's edges so far: the keys' release is awaited from here (below).
            raised = self.irq_edges(KBD_LINE)
        at = ready.end()
        self.send(cmd.encode() + b"\r")
        # The monitor's line editor draws the line again at each character; the last drawing, then Enter.
        echo = self.wait_for(re.escape(cmd) + r"(?:\x1b\[K)?\n", at, 20, f"the monitor's echo of `{cmd}`")
        done = self.wait_for(re.escape(MONITOR), echo.end(), 20, f"the monitor's prompt after `{cmd}`")
        out = self.buf[echo.end():done.start()]
        self.send(MONITOR_SWITCH)
        pos = done.end()
        if chars:
            deadline = time.monotonic() + timeout
            with self.lock:
                while not keys_echoed(self.buf[done.end():], chars) and time.monotonic() < deadline:
                    self.lock.wait(0.1)
                echoed = keys_echoed(self.buf[done.end():], chars)
            if echoed:
                self.await_release(raised + KEY_EDGES * len(cmd.split()[1].split("-")), deadline)
            # What the keys should have typed, whether it came or not: a page line that begins with it
            # is typed without it, so a key that never arrived leaves the shell a different command.
            self.keyed += chars
            with self.lock:
                # Up to the last whole line: a message still being written is the next command's.
                pos = max(done.end(), self.buf.rfind("\n") + 1)
        if wait is not None:
            w = self.wait_for(f"(?:{wait.pattern})[^\n]*\n", done.end(), timeout, f"/{wait.pattern}/ after `{cmd}`")
            pos = max(pos, self.line_end(w))
        # The kernel's messages meanwhile (not its echo of the keys, nor the prompt it draws again).
        out += "".join(l for l in self.buf[done.end():pos].splitlines(True) if STAMP_RX.match(l))
        self.pos = pos
        return between, out

    def hmp(self, cmd):
        """@cmd at QEMU's human monitor through the QMP socket (make run's RUN_QMP): nothing of it
        reaches the console. RETURNS the monitor's output."""
        if self.qmp is None:
            try:
                self.qmp = Qmp(self.qmp_path, timeout=20, alive=lambda: self.proc.poll() is None)
            except QmpError as e:
                raise PageError(f"{self.where}: {e} (`{self.cmd}`: a page's boot that types keys must "
                                f"be `make run`, which opens RUN_QMP)") from e
        try:
            return self.qmp.hmp(cmd)
        except QmpError as e:
            raise PageError(f"{self.where}: {e}") from e

    def irq_edges(self, line):
        """The edges QEMU counted on ISA line @line (`info irq`: the most of its controllers'
        statistics; the IOAPIC's and the 8259's count the same input)."""
        counts = re.findall(rf"^ *{line}: (\d+)\s*$", self.hmp("info irq"), re.M)
        return max((int(c) for c in counts), default=0)

    def await_release(self, edges, deadline):
        """After keys whose echo came: wait (until @deadline) for QEMU to have let them go, that is
        for the keyboard line to count @edges edges. `sendkey` presses the keys and lets them go
        from a timer of QEMU's main loop, 10 ms later by the host's clock when the machine runs
        without -icount; on a busy host that came after the next commands ran (fresh40: lesson 1's
        `trace stop` before the break code, `irqs` counting 1 of the key's 3 interrupts). Once the
        release is in the controller its bytes are the machine's, taken before the next typed
        command arrives (QEMU hands typed bytes over one at a time from that same loop). The
        student, slower than 10 ms, never sees the difference. Looked at through QMP, not at the
        console's monitor: a report the key set off (ex8-watch's "a poll found work ...") is being
        written as its echo comes, and a monitor visit then lands in the middle of that line
        (fresh46)."""
        while self.irq_edges(KBD_LINE) < edges and time.monotonic() < deadline:
            time.sleep(0.02)

    def line_end(self, m):
        """The end of the line (its newline included) that match @m ends in."""
        eol = self.buf.find("\n", m.end() - 1 if m.group(0).endswith("\n") else m.end())
        return len(self.buf) if eol < 0 else eol + 1

    def leftover(self):
        return self.buf[self.pos:]

    def quit(self):
        try:
            self.send(QUIT)
            self.proc.wait(15)
        except (OSError, subprocess.TimeoutExpired):
            pass
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
        self.reader.join(5)
        if self.qmp is not None:
            self.qmp.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


# The characters of keys `sendkey` names (QEMU's key names), as irqkit's US map gives them.
KEY_NAMES = {"spc": " ", "minus": "-", "equal": "=", "dot": ".", "comma": ",", "slash": "/",
             "semicolon": ";", "apostrophe": "'", "bracket_left": "[", "bracket_right": "]",
             "backslash": "\\", "grave_accent": "`"}


def key_chars(cmd):
    """The characters the monitor command @cmd types on the shell's line: `sendkey a` gives "a",
    `sendkey shift-a` "A"; keys that make no character (Enter, Ctrl-..., arrows) give ""."""
    m = re.fullmatch(r"sendkey (\S+)(?: \d+)?", cmd.strip())
    if not m:
        return ""
    *mods, key = m.group(1).split("-")
    if any(x not in ("shift", "shift_r") for x in mods):
        return ""
    ch = KEY_NAMES.get(key, key if re.fullmatch(r"[a-z0-9]", key) else "")
    return ch.upper() if mods and ch.isalpha() else ("" if mods and not ch.isalpha() else ch)


def keys_echoed(text, chars):
    """Whether @text, the console after the monitor's prompt, holds the kernel's echo of @chars: the
    kernel's messages (whole or partly written), its prompt drawn again and terminal escapes left out."""
    t = ANSI_RX.sub("", text).replace("\r", "")
    t = re.sub(r"\[\s*\d+\.\d{6}\] [^\n]*(?:\n|$)", "", t)
    t = re.sub(r"\[[\d. ]*\]?$", "", t)
    t = t.replace(PROMPT, "\n").replace(MONITOR, "\n")
    return any(chars in line for line in t.split("\n"))


def image_files(cmd, assigns):
    """The files a `make run` command gives QEMU as drives."""
    return set(re.findall(r"file=([^,\s\"]+)", expand(cmd, assigns)))


def run_boots(items, command_of, play, jobs, alone=lambda item: False):
    """play(item) for each of @items, @jobs at a time, but never two boots on one disk image at once
    (QEMU locks a drive's file), and an item @alone says so with no other beside it. command_of(item)
    gives its (make run command, page variables). RETURNS the results in the order of @items."""
    waiting, busy, cond, results = list(enumerate(items)), set(), threading.Condition(), {}
    running = []    # the items being played

    def files(item):
        return image_files(*command_of(item))

    def can_start(item):
        if files(item) & busy:
            return False
        return not running or not (alone(item) or any(alone(r) for r in running))

    def worker():
        while True:
            with cond:
                while True:
                    if not waiting:
                        return
                    pick = next((t for t in waiting if can_start(t[1])), None)
                    if pick:
                        waiting.remove(pick)
                        busy.update(files(pick[1]))
                        running.append(pick[1])
                        break
                    cond.wait()
            try:
                results[pick[0]] = play(pick[1])
            finally:
                with cond:
                    busy.difference_update(files(pick[1]))
                    running.remove(pick[1])
                    cond.notify_all()

    with ThreadPoolExecutor(max_workers=max(jobs, 1)) as ex:
        for fut in [ex.submit(worker) for _ in range(max(jobs, 1))]:
            fut.result()
    return [results[i] for i in range(len(items))]


def console_lines(text):
    """Serial text as the page shows it: no terminal escapes, no printk stamps, no bare prompts
    (a message that came while the prompt was shown ends that line and the prompt is drawn again)."""
    text = STAMP_RX.sub("", ANSI_RX.sub("", text))
    out = [l.rstrip() for l in text.split("\n") if l.strip() != PROMPT.strip()]
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    return out


def filtered(lines, rx, hide=None, once=None):
    """@lines that @rx finds (all, without it) and @hide does not, those @once finds only the first
    time; each run of cut lines is one `...`."""
    if rx is None and hide is None and once is None:
        return lines
    out, cut, seen = [], False, False
    for l in lines:
        again = once is not None and once.search(l) is not None and seen
        if (rx is None or rx.search(l)) and not (hide is not None and hide.search(l)) and not again:
            seen = seen or (once is not None and once.search(l) is not None)
            out.append(l)
            cut = False
        elif not cut:
            out.append("...")
            cut = True
    return out


# ---------------------------------------------------------------------------
# Playing the sessions

# What a boot leaves for the diagnosis of a session that differs (Player.evidence): after its last
# session the tool types these (their output is no session's), and keeps them with the boot's
# whole console log. `irqs` has each line's health, its late and lost counts, the stalls of its CPU
# and the per-CPU rows; `cpus` each CPU's ticks and idle share.
EVIDENCE_CMDS = ["irqs", "cpus"]
EVIDENCE_DIR = os.path.join(ROOT, "build", "course", "evidence")
# Kernel messages that tell a boot's story when a session differs: shown in the report itself.
EVIDENCE_RX = re.compile(r"lost|late|not running|stall|polling|verified|storm|flood|time-?out|unreliable|error",
                         re.I)


class Player:
    def __init__(self, sessions, log=print, trace=None, tag=""):
        self.sessions = sessions
        self.tag = tag               # added to the evidence files' names (--repeat: the play's number)
        self.log = log
        self.trace = trace           # record the event trace (`trace start TRACE`) in every boot
        self.results = {}            # (page, index) -> list of block lines
        self.durations = {}          # (page, index) -> host seconds its commands took (boot included)
        self.evidence = {}           # boot key -> {"log": console, "after": EVIDENCE_CMDS' output, ...}

    def plan(self):
        """Group the sessions into boots. RETURNS [(boot key, [sessions])] in first-use order, and the
        host-only sessions."""
        groups, order, host_only, anon = {}, [], [], 0
        for s in self.sessions:
            if s.make_run is None and s.boot is None:
                host_only.append(s)
                continue
            if s.boot is None:
                key = f"#{anon}"
                anon += 1
            else:
                key = s.boot
            if key not in groups:
                if s.make_run is None:
                    raise PageError(f"{s.where}: boot `{key}` goes on here, but no session before starts it")
                groups[key] = []
                order.append(key)
            elif s.make_run is not None and s.make_run != groups[key][0].make_run:
                raise PageError(f"{s.where}: boot `{key}` was started with `{groups[key][0].make_run}`, "
                                f"this session shows `{s.make_run}`")
            groups[key].append(s)
        return [(k, groups[k]) for k in order], host_only

    def run(self, jobs=1):
        t0 = time.monotonic()
        groups, _ = self.plan()
        # The host's commands first, in page order (the disk images the boots use), with each page's
        # variables; a boot's session then only types into the kernel.
        assigns, host_out = {}, {}
        for s in self.sessions:
            a = assigns.setdefault(s.page, [])
            for inp in s.inputs:
                if not inp.startswith(HOST) or re.match(r"\$ make run\b", inp):
                    continue
                cmd = inp[len(HOST):]
                if re.fullmatch(r"[A-Za-z_]\w*=.*", cmd):
                    a.append(cmd)
                    host_out[(s.page, s.index, inp)] = []
                else:
                    host_out[(s.page, s.index, inp)] = console_lines(
                        run_host(cmd, a, s.for_cmd(s.timeout, cmd, CMD_TIMEOUT)))
            s.assigns = list(a)
        self.host_out = host_out
        # A boot without -icount (several CPUs) runs on the host's time: it is played with no other
        # boot beside it, so that the check's own QEMUs do not stall its CPUs (lesson 5's session saw
        # the disk's 250 ms time-out beside a second boot, two busy loops and the others' work).
        run_boots(groups, lambda g: (g[1][0].make_run, g[1][0].assigns), lambda g: self.play_boot(*g), jobs,
                  alone=lambda g: "-icount" not in g[1][0].make_run)
        for s in self.sessions:
            if (s.page, s.index) not in self.results:
                self.results[(s.page, s.index)] = self.render(s, None, {})
        self.log(f"transcripts: {len(self.sessions)} sessions, {len(groups)} boots, {time.monotonic() - t0:.0f} s")

    def judge(self):
        """Compare every session with what the kernel printed, on this one play: a boot is never
        played again to get a match. A session that differs on a busy host but matches on a quiet
        one is a defect of the kernel (a message cut into another, fixed by printk's whole lines)
        or of the page's template, to be found and fixed, not hidden by a second try. Each report
        shows the page's line, the kernel's and the kernel's output around it. RETURNS
        {(page, index): [reports]} of the sessions that failed."""
        out, boots, told = {}, {}, set()
        for key, ss in self.plan()[0]:
            for s in ss:
                boots[(s.page, s.index)] = key
        for s in self.sessions:
            got = self.results[(s.page, s.index)]
            rep = [r for r in [compare(s, got)] if r] + claims_broken(s, got)
            if rep:
                # What the boot said about itself, so that one failure is enough to diagnose it
                # (with the first session of the boot that differs).
                key = boots.get((s.page, s.index))
                ev = self.evidence_report(key) if key not in told else ""
                told.add(key)
                out[(s.page, s.index)] = rep + ([ev] if ev else [])
        return out

    def play_boot(self, key, sessions):
        """Play the sessions of one boot. The commands of the shell are typed ahead: a run of them
        in one write, with the first, not each when the prompt of the one before returns. Under
        -icount the machine's clock would otherwise run on while it waits for the host to type
        (with sleep=off it jumps from one timer to the next at once, ten times as fast as the
        host's clock or more), and what the next command shows would depend on how busy the host
        is: how many re-enable tests of a storm, how long a line was on polling. Typing each one
        when the echo of the one before came was not enough: on a loaded host the tool saw that
        echo late, the command before was done by then, and a storm passed one more re-enable
        test meanwhile. QEMU hands the machine typed bytes one at a time from its main loop, so
        they arrive while the first command runs. Typed ahead, the commands run back to back in
        the machine's time. A run ends at a command whose output a `wait` extends or that the page
        paces (`pace CMD:`), and at a monitor command or the keys it types: those wait for the
        host. The command a key began goes ahead with the rest of its line (exercise 8: a watch
        poll finds the stuck key, and the trace must be stopped before its polls fill the ring)."""
        t = time.monotonic()
        boot = None
        flat = [(s, inp) for s in sessions for inp in s.inputs]

        def follows(j):
            """Whether the command at flat[j] may be typed ahead, right behind the one before it."""
            if j >= len(flat) or not flat[j][1].startswith(PROMPT) or not flat[j - 1][1].startswith(PROMPT):
                return False
            ps, prev = flat[j - 1][0], flat[j - 1][1][len(PROMPT):]
            return ps.for_cmd(ps.wait, prev) is None and not ps.for_cmd(ps.pace, prev)

        sent_ahead, i = set(), -1
        try:
            for s in sessions:
                outs, began = {}, time.monotonic()
                for inp in s.inputs:
                    i += 1
                    if re.match(r"\$ make run\b", inp):
                        if boot is None:
                            boot = Boot(key, s.make_run, s.assigns, s.where,
                                        s.timeout.get("boot", BOOT_TIMEOUT), s.wait.get("boot"))
                            if self.trace:
                                # For a diagnosis only (--trace): the output of this command is
                                # no session's, the sessions' output begins after it.
                                boot.type(f"trace start {self.trace}", CMD_TIMEOUT)
                        outs[inp] = (boot, None)
                    elif inp.startswith(PROMPT):
                        cmd = inp[len(PROMPT):]
                        ahead = []
                        if i not in sent_ahead:
                            j, size = i + 1, len(cmd) + 1
                            # Within the kernel's input ring (1024 bytes), with room to spare.
                            while follows(j) and size + len(flat[j][1]) - len(PROMPT) + 1 <= TYPE_AHEAD_MAX:
                                size += len(flat[j][1]) - len(PROMPT) + 1
                                ahead.append(flat[j][1][len(PROMPT):])
                                sent_ahead.add(j)
                                j += 1
                        outs.setdefault("typed", []).append(
                            (inp, boot.type(cmd, s.for_cmd(s.timeout, cmd, CMD_TIMEOUT), s.for_cmd(s.wait, cmd),
                                            sent=i in sent_ahead, ahead=ahead)))
                    elif inp.startswith(MONITOR):
                        outs.setdefault("typed", []).append(
                            (inp, boot.monitor(inp[len(MONITOR):], s.for_cmd(s.timeout, inp, KEY_ECHO_TIMEOUT),
                                               s.for_cmd(s.wait, inp))))
                self.results[(s.page, s.index)] = self.render(s, boot, outs)
                self.durations[(s.page, s.index)] = time.monotonic() - began
        finally:
            if boot is not None:
                self.evidence[key] = self.keep_evidence(boot)
                boot.quit()
        self.log(f"transcripts: boot {key}: {len(sessions)} session(s) in {time.monotonic() - t:.0f} s")

    def keep_evidence(self, boot):
        """After a boot's sessions: what the machine says about itself (EVIDENCE_CMDS, the trace when
        recorded), with the whole console log. Never fails: a boot that hung keeps its log."""
        ev = {"after": []}
        try:
            for cmd in EVIDENCE_CMDS + (["trace stop", "trace dump"] if self.trace else []):
                _, out = boot.type(cmd, CMD_TIMEOUT if cmd != "trace dump" else 4 * CMD_TIMEOUT)
                ev["after"].append((cmd, out))
        except (PageError, OSError) as e:
            ev["after"].append(("(the kernel did not answer)", str(e)))
        with boot.lock:
            ev["log"] = boot.buf
        return ev

    def evidence_report(self, key):
        """The evidence of boot @key as text for a report, and the file that keeps all of it."""
        ev = self.evidence.get(key)
        if not ev:
            return ""
        os.makedirs(EVIDENCE_DIR, exist_ok=True)
        path = os.path.join(EVIDENCE_DIR, re.sub(r"[^\w.-]", "_", key) + self.tag + ".log")
        with open(path, "w") as f:
            f.write(ev["log"])
            for cmd, out in ev["after"]:
                f.write(f"\n### after the sessions: {cmd}\n{out}")
        msgs = [l for l in ev["log"].splitlines() if STAMP_RX.match(l) and EVIDENCE_RX.search(l)]
        irqs = next((out for cmd, out in ev["after"] if cmd == "irqs"), "")
        return (f"  boot {key}: its console log, `irqs` and `cpus` after the sessions"
                + (" and the event trace" if self.trace else "") + f" are in {os.path.relpath(path, ROOT)}\n"
                + "  its messages about lost, late or polled interrupts and stalls:\n"
                + "".join(f"      {l}\n" for l in msgs[-40:])
                + "  `irqs` after the sessions:\n"
                + "".join(f"      {l}\n" for l in irqs.rstrip("\n").splitlines()))

    def render(self, s, boot, outs):
        lines, typed, prev = [], list(outs.get("typed", [])), None
        for inp in s.inputs:
            if inp.startswith((PROMPT, MONITOR)):
                _, (between, out) = typed.pop(0)
                if prev is not None and between.strip():
                    lines += filtered(console_lines(between), s.for_cmd(s.show, prev), s.for_cmd(s.hide, prev),
                                      s.for_cmd(s.once, prev))
                lines.append(inp)
                # show/hide of a monitor command are keyed by its whole line, `(qemu) sendkey a`.
                cmd = inp[len(PROMPT):] if inp.startswith(PROMPT) else inp
                lines += filtered(console_lines(out), s.for_cmd(s.show, cmd), s.for_cmd(s.hide, cmd),
                                  s.for_cmd(s.once, cmd))
                prev = cmd
            elif re.match(r"\$ make run\b", inp):
                lines.append(inp)
                if "boot" in s.show and boot is not None:
                    lines += filtered(console_lines(boot.boot_log), s.show["boot"], s.hide.get("boot"),
                                      s.once.get("boot"))
            else:
                lines.append(inp)
                cmd = inp[len(HOST):]
                lines += filtered(self.host_out.get((s.page, s.index, inp), []), s.for_cmd(s.show, cmd),
                                  s.for_cmd(s.hide, cmd), s.for_cmd(s.once, cmd))
        return lines


# ---------------------------------------------------------------------------
# Comparing in shape

def literal_rx(text):
    """@text as a regex in which a run of spaces matches any run of spaces (table columns widen)."""
    return re.sub(r"(?:\\ )+", " +", re.escape(text))


def template_rx(t):
    """A template as a regex: `#` a number, `#{LO..HI}` a number within bounds, `{A|B}` one of the
    texts A, B. RETURNS (regex, [(kind, bounds or the alternatives' regex)] per group)."""
    parts = re.split(r"(#(?:\{-?[\d.]+\.\.-?[\d.]+\})?|\{[^{}#]*\|[^{}#]*\})", t)
    rx, groups = "", []
    for p in parts:
        if p.startswith("#"):
            rx += f"({NUMBER})"
            b = re.match(r"#\{(-?[\d.]+)\.\.(-?[\d.]+)\}", p)
            groups.append(("num", (float(b.group(1)), float(b.group(2))) if b else None))
        elif p.startswith("{") and "|" in p:
            alt = "(?:" + "|".join(literal_rx(a) for a in p[1:-1].split("|")) + ")"
            rx += f"({alt})"
            groups.append(("alt", alt))
        else:
            rx += literal_rx(p)
    return re.compile(rx), groups


def varying_spans(line, templates):
    """{(start, end): (kind, bounds or regex)} of the parts of @line that the templates let vary."""
    spans = {}
    for rx, groups in templates:
        for m in rx.finditer(line):
            for g, kind in enumerate(groups, 1):
                spans[m.span(g)] = kind
    return spans


def line_matches(want, got, templates):
    """Whether @got has @want's shape. RETURNS None if so, else the reason."""
    if want == got:
        return None
    spans = varying_spans(want, templates)
    rx, bounds, pos = "", [], 0
    for (a, b), (kind, arg) in sorted(spans.items()):
        if a < pos:
            continue
        rx += literal_rx(want[pos:a]) + (f"({NUMBER})" if kind == "num" else f"({arg})")
        bounds.append(arg if kind == "num" else None)
        pos = b
    rx += literal_rx(want[pos:])
    m = re.fullmatch(rx, got)
    if not m:
        return "differs"
    for g, bd in enumerate(bounds, 1):
        if bd is not None and not within(m.group(g), bd):
            return f"{m.group(g)} is outside {bd[0]:g}..{bd[1]:g}"
    return None


def within(text, bounds):
    """Whether the number @text lies within @bounds (a hex word never does)."""
    try:
        v = float(int(text, 16)) if text.startswith("0x") else float(text)
    except ValueError:
        return False
    return bounds[0] <= v <= bounds[1]


def compare(s, got):
    """RETURNS None if the page's block has the shape of @got, else a report."""
    templates = [template_rx(t) for t in s.vary]
    # A `...` stands for lines a `show` filter cut: however many there were this time, none included.
    want = [l for l in s.lines if l != "..."]
    got = [l for l in got if l != "..."]
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else "(no line)"
        g = got[i] if i < len(got) else "(no line)"
        why = line_matches(w, g, templates) if i < len(want) and i < len(got) else "one side ended"
        if why:
            ctx = "\n".join(f"      {l}" for l in got[max(0, i - 3):i + 4])
            return (f"{s.where}: line {i + 1} of the block {why}:\n  page:   {w}\n  kernel: {g}\n"
                    f"  the kernel's output around it:\n{ctx}")
    return None


def claims_broken(s, got):
    """The claims of @s that no line of @got holds. RETURNS a list of reports."""
    out = []
    for c in s.claims:
        rx, groups = template_rx(c)
        ok = False
        for line in got:
            for m in rx.finditer(line):
                if all(k != "num" or b is None or within(v, b) for v, (k, b) in zip(m.groups(), groups)):
                    ok = True
        if not ok:
            out.append(f"{s.where}: the page claims `{c}`, but no line of the kernel's output holds it")
    return out


def write_page(page, text, sessions, results, force=False):
    """Write the kernel's output into @page's sessions. A session whose block already has the shape
    of this run (compare()) keeps its text unless @force: regenerating after a merge then changes
    only what the kernel changed, and a run on a busy host does not rewrite every number."""
    out, pos = [], 0
    for s in sessions:
        a, b = s.span
        out.append(text[pos:a])
        block = results[(s.page, s.index)]
        if not force and compare(s, block) is None and not claims_broken(s, block):
            out.append(text[a:b])
        else:
            out.append("\n".join(block) + "\n")
        pos = b
    out.append(text[pos:])
    new = "".join(out)
    if new != text:
        with open(page + ".tmp", "w") as f:
            f.write(new)
        os.replace(page + ".tmp", page)
        return True
    return False


def load(pages):
    texts, sessions = {}, []
    for p in pages:
        texts[p], ss = read_sessions(p)
        sessions += ss
    return texts, sessions


def repeat_check(sessions, args):
    """--check --repeat N: play the sessions N times; each play is judged alone (never replayed). Says,
    per play, which boots differed and which announced an expected interrupt lost, and keeps those
    boots' evidence (build/course/evidence/BOOT-PLAY.log). RETURNS 1 if any play differed."""
    differed, lost = 0, 0
    for n in range(1, args.repeat + 1):
        player = Player(sessions, log=lambda *_: None, trace=args.trace, tag=f"-{n}")
        player.run(args.jobs)
        bad = player.judge()
        announced = [k for k, ev in player.evidence.items() if "expected interrupt lost" in ev.get("log", "")]
        for k in announced:
            player.evidence_report(k)   # writes the boot's evidence file
        differed += bool(bad)
        lost += bool(announced)
        print(f"transcripts: play {n}: {len(sessions) - len(bad)} of {len(sessions)} sessions match"
              + (f"; lost announced in boot(s) {', '.join(announced)}" if announced else ""), flush=True)
        for reps in bad.values():
            for r in reps:
                print(r, file=sys.stderr)
    print(f"transcripts: {args.repeat} plays: {differed} differed, {lost} announced an expected interrupt lost")
    return 1 if differed else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--list", action="store_true")
    ap.add_argument("--force", action="store_true",
                    help="with --write: rewrite every session, also those whose shape did not change")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="with --check: play the pages N times, each judged on its own, and count the plays "
                         "that differ and the boots that announced a lost interrupt (a diagnosis, not a check)")
    ap.add_argument("--trace", metavar="FILTER",
                    help="record the event trace in every boot (`trace start FILTER` before the sessions) "
                         "and keep its dump with the boot's evidence (build/course/evidence/)")
    ap.add_argument("-j", "--jobs", type=int, default=1,
                    help="boots run at once (default 1: the host is shared, and load changes what QEMU prints)")
    ap.add_argument("pages", nargs="*")
    args = ap.parse_args(argv)
    pages = [os.path.abspath(p) for p in args.pages] or all_pages()
    try:
        texts, sessions = load(pages)
        groups, host_only = Player(sessions).plan()
        if args.list:
            for key, ss in groups:
                print(f"boot {key}: {ss[0].make_run}")
                for s in ss:
                    print(f"    {s.where}: {len([i for i in s.inputs if i.startswith(PROMPT)])} typed")
            for s in host_only:
                print(f"host: {s.where}")
            return 0
        if args.check and args.repeat > 1:
            return repeat_check(sessions, args)
        player = Player(sessions, trace=args.trace)
        player.run(args.jobs)
    except PageError as e:
        print(f"transcripts: {e}", file=sys.stderr)
        return 2
    if args.check:
        bad = player.judge()
        for reps in bad.values():
            for r in reps:
                print(r, file=sys.stderr)
        print(f"transcripts: {len(sessions) - len(bad)} of {len(sessions)} sessions have the kernel's shape")
        return 1 if bad else 0
    # Played once, as the check plays them: output that breaks what the text says is written and
    # reported, not replaced by a second play that happened to agree.
    broken = [r for s in sessions for r in claims_broken(s, player.results[(s.page, s.index)])]
    if args.write:
        for p in pages:
            ss = [s for s in sessions if s.page == p]
            if ss and write_page(p, texts[p], ss, player.results, args.force):
                print(f"transcripts: wrote {os.path.relpath(p, ROOT)}")
        # What each session's commands took, for the course's time budget (tools/course/times.py).
        os.makedirs(os.path.join(ROOT, "build", "course"), exist_ok=True)
        with open(DURATIONS, "w") as f:
            json.dump({f"{os.path.relpath(s.page, ROOT)}:{s.line}": round(player.durations.get((s.page, s.index), 0), 1)
                       for s in sessions}, f, indent=1)
        for r in broken:
            print(r, file=sys.stderr)
        if broken:
            print("transcripts: the pages are written, but their text says what the kernel no longer "
                  "prints: fix the text and its claim: lines", file=sys.stderr)
        return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
