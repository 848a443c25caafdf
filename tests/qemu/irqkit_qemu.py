"""Boot irqkit in QEMU, talk to it over the serial port, judge what it prints.

A Guest is one QEMU process: the kernel's serial console is QEMU's stdio
(read by a thread into a buffer), the monitor is QMP on a unix socket (for
NMIs and, later, keys and hot-plug), and QEMU's isa-debug-exit device turns
the kernel's exit codes into QEMU's exit status ((code << 1) | 1).
Every wait has a hard time-out; on time-out the serial log is part of the
error, and conftest.py prints the log of every guest of a failed test.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.append(os.path.join(ROOT, "tools"))
# The console's message shapes and the QMP client, shared with the course tool (tools/qemuio.py).
from qemuio import LOG_LINE_RX, LOG_LINES_ONLY, STAMP, STAMP_RX, Qmp  # noqa: E402
KERNEL = os.path.join(ROOT, "build", "kernel.elf")
ISO = os.path.join(ROOT, "build", "irqkit.iso")
QEMU = os.environ.get("QEMU", "qemu-system-i386")
ACCEL = os.environ.get("QEMU_ACCEL", "tcg")
LOADED = os.path.join(ROOT, "tools", "loaded.sh")
# UEFI boots: Debian's 64-bit OVMF (package ovmf) needs qemu-system-x86_64; GRUB x86_64-efi on the
# ISO starts the 32-bit kernel through multiboot2 (docs/boot.md).
QEMU_UEFI = os.environ.get("QEMU_UEFI", "qemu-system-x86_64")
# firmware name -> (QEMU, OVMF code, OVMF variable store, extra QEMU options); as the Makefile's FIRMWARE=.
# Debian's 32-bit OVMF (ovmf-ia32) is its Secure Boot build: it needs SMM and a secure flash.
UEFI = {
    "uefi": (QEMU_UEFI, "/usr/share/OVMF/OVMF_CODE_4M.fd", "/usr/share/OVMF/OVMF_VARS_4M.fd", []),
    "uefi32": (QEMU, "/usr/share/OVMF/OVMF32_CODE_4M.secboot.fd", "/usr/share/OVMF/OVMF32_VARS_4M.fd",
               ["-machine", "smm=on", "-global", "driver=cfi.pflash01,property=secure,value=on"]),
}


def have_ovmf(firmware="uefi"):
    _, code, variables, _ = UEFI[firmware]
    return os.path.exists(code) and os.path.exists(variables)


def smbios_append(append):
    """QEMU's -smbios option for kernel parameters that iso/grub.cfg passes on (OEM string type 11);
    a comma inside a QEMU option value is written twice."""
    return ["-smbios", "type=11,value=irqkit.append=" + append.replace(",", ",,")]

DEBUGEXIT_PORT = 0xF4
# Kernel exit codes (include/kernel/panic.h) as QEMU exit statuses.
EXIT_PASS = (0x10 << 1) | 1
EXIT_FAIL = (0x11 << 1) | 1
EXIT_PANIC = (0x12 << 1) | 1
EXIT_HALT = (0x13 << 1) | 1

# The waits' own clock: a wait looks again every WAIT_POLL_S; a look that comes more than
# HARNESS_LATE_S after it was due means this process (the harness, not the guest) was kept from
# running, and that time is not counted against the guest (wait_for).
WAIT_POLL_S = 0.2
HARNESS_LATE_S = 0.1

PROMPT = "irqkit> "
# A message while a line is typed: the shown line ends, the message, the prompt again (kernel/printk.c).
REDRAW = re.compile(r"\n(?:" + STAMP + r"[^\n]*\n)+" + re.escape(PROMPT))
CTRL_U = "\x15"            # the shell erases the line (echoes "\b \b" per character)


def _line_shown(typed):
    """The line a person sees after typing @typed (the shell echoes an erased character as "\\b \\b")."""
    shown = []
    i = 0
    while i < len(typed):
        if typed.startswith("\b \b", i):
            if shown:
                shown.pop()
            i += 3
        else:
            shown.append(typed[i])
            i += 1
    return "".join(shown)


def typed_echo(text):
    """@text (serial output) as the shell echoed it, without the kernel's log lines. A message that
    comes while a line is typed ends the shown line and is followed by the prompt and the line so
    far (printk_input_*): that line break and the repeated line are taken out too, so the echo
    reads as it was typed."""
    out, pos = "", 0
    while True:
        m = REDRAW.search(text, pos)
        if not m:
            break
        out += text[pos:m.start()]
        i = out.rfind(PROMPT)
        typed = out[i + len(PROMPT):] if i >= 0 else "\n"
        shown = _line_shown(typed)
        if "\n" not in typed and text.startswith(shown, m.end()):
            pos = m.end() + len(shown)          # the line shown again: the typing goes on after it
        else:
            out += "\n"                        # a message before a fresh prompt: keep the prompt
            pos = m.end() - len(PROMPT)
    return LOG_LINE_RX.sub("", out + text[pos:])


# Every Guest started in the current test, so a failing test can show their logs.
live_guests = []


class GuestTimeout(AssertionError):
    pass


class Guest:
    def __init__(self, append="", iso=False, machine="pc", memory="128M", extra=(),
                 icount=None, boot_timeout=60, accel=None, firmware="bios", loaded=None):
        """firmware="uefi" (or "uefi32"): OVMF with a fresh copy of its variable store, the ISO (GRUB,
        multiboot2), kernel parameters through an SMBIOS OEM string; otherwise SeaBIOS, -kernel
        unless @iso."""
        self.tmp = tempfile.mkdtemp(prefix="irqkit-qemu-")
        self.qmp_path = os.path.join(self.tmp, "qmp.sock")
        # accel: a full -accel option (e.g. "tcg,thread=multi" for parallel vCPUs),
        # which QEMU refuses together with -machine accel=.
        machine_arg = f"{machine},accel={ACCEL}" if accel is None else machine
        uefi = UEFI.get(firmware)
        args = [uefi[0] if uefi else QEMU, "-machine", machine_arg, "-m", memory,
                "-display", "none", "-monitor", "none", "-serial", "stdio",
                "-no-reboot", "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
                "-device", f"isa-debug-exit,iobase={DEBUGEXIT_PORT:#x},iosize=0x04"]
        if accel is not None:
            args += ["-accel", accel]
        if icount is not None:
            args += ["-icount", f"shift={icount},sleep=off"]
        if uefi:
            vars_copy = os.path.join(self.tmp, "OVMF_VARS.fd")
            shutil.copyfile(uefi[2], vars_copy)
            args += uefi[3] + ["-drive", f"if=pflash,format=raw,readonly=on,file={uefi[1]}",
                               "-drive", f"if=pflash,format=raw,file={vars_copy}", "-cdrom", ISO]
            args += smbios_append(append)
        elif iso:
            args += ["-cdrom", ISO, "-boot", "d"] + smbios_append(append)
        else:
            args += ["-kernel", KERNEL, "-append", append]
        args += list(extra)
        self.args = args
        # loaded: QEMU runs beside that many busy loops (tools/loaded.sh; 0: one per host core),
        # all in a process group of their own, which kill() ends as a whole.
        self.loaded = loaded
        if loaded is not None:
            args = [LOADED] + (["-n", str(loaded)] if loaded else []) + args
        self.append = append
        self.buf = ""
        self.harness_kept_off_s = 0.0   # time wait_for() found this process kept from running (not counted)
        self.cond = threading.Condition()
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=loaded is not None)
        self.stderr = ""
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.err_reader = threading.Thread(target=self._read_err, daemon=True)
        self.err_reader.start()
        self.boot_timeout = boot_timeout
        self.qmp = None
        live_guests.append(self)

    # -- output -------------------------------------------------------------
    def _read(self):
        while True:
            data = self.proc.stdout.read1(4096)
            if not data:
                break
            text = data.decode("utf-8", "replace").replace("\r", "")
            with self.cond:
                self.buf += text
                self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def _read_err(self):
        for line in self.proc.stderr:
            self.stderr += line.decode("utf-8", "replace")

    @property
    def log(self):
        with self.cond:
            return self.buf

    def lines(self, start=0):
        """Serial output as lines, printk timestamps removed."""
        return [STAMP_RX.sub("", l) for l in self.log[start:].split("\n")]

    def wait_for(self, pattern, timeout=30, start=0):
        """Wait until @pattern (a regex) appears after offset @start; return the match.

        @timeout is the guest's time to answer as the harness saw it: a look that came more than
        HARNESS_LATE_S after it was due (the host kept this process, and so its reader thread, off
        its CPUs: a machine whose own CPU stood still for a minute, stop 42's fresh74) moves the
        deadline by that much, since the guest's answer could not have been read meanwhile. A guest
        that is slow while the harness runs on time gets no more than @timeout."""
        rx = re.compile(pattern, re.M)
        deadline = time.monotonic() + timeout
        kept_off = 0.0
        with self.cond:
            while True:
                m = rx.search(self.buf, start)
                if m:
                    return m
                now = time.monotonic()
                left = deadline - now
                if left <= 0:
                    raise GuestTimeout(f"no /{pattern}/ in the serial output after {timeout} s" +
                                       (f" (and {kept_off:.1f} s in which the harness itself was kept from "
                                        "running, not counted)" if kept_off else ""))
                if self.proc.poll() is not None and not self.reader.is_alive():
                    raise GuestTimeout(f"QEMU exited ({self.proc.returncode}) before /{pattern}/ appeared"
                                       f"; stderr: {self.stderr.strip()}")
                step = min(left, WAIT_POLL_S)
                self.cond.wait(step)
                late = time.monotonic() - now - step
                if late > HARNESS_LATE_S:
                    deadline += late
                    kept_off += late
                    self.harness_kept_off_s += late

    def wait_shell(self, timeout=None):
        self.wait_for(r"shell: ready", timeout or self.boot_timeout)
        self.wait_for(re.escape(PROMPT), 10)

    # -- input --------------------------------------------------------------
    def send(self, text):
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def command(self, cmd, timeout=30):
        """Type @cmd at the shell, wait for the next prompt, return the output between.

        A kernel message that comes after the command is echoed but before the shell reads its
        Enter ends the shown line with a line break like the Enter's, and the prompt after the
        message is the line shown again (kernel/printk.c, input_hide/input_show), not the
        command's end: "mouse\n[ 60.08] irq 12: ...\nirqkit> mouse\n<output>irqkit> " (CI,
        stop 38: test_i8042 took the message for the output of `mouse`). When all that came
        between an echo and a prompt is log lines, a space and Ctrl-U typed after the command
        tell the two apart: their echo comes after the prompt that ends the command, and the
        line shown again (the command and its Enter) comes before it."""
        start = len(self.log)
        self.send(cmd + "\r")
        pos = start
        while True:
            m = self.wait_for(re.escape(cmd) + r"\n", timeout, pos)
            end = self.wait_for(re.escape(PROMPT), timeout, m.end())
            between = self.log[m.end():end.start()]
            if LOG_LINES_ONLY.fullmatch(between):
                if not self.log.startswith(cmd + "\n", end.end()):
                    self.send(" " + CTRL_U)
                    self.wait_for(re.escape(" \b \b"), timeout, end.end())
                if self.log.startswith(cmd + "\n", end.end()):
                    pos = end.end()            # the line shown again: its Enter is still to come
                    continue
            return "\n".join(STAMP_RX.sub("", l) for l in between.split("\n"))

    # -- QMP ----------------------------------------------------------------
    def qmp_cmd(self, name, **arguments):
        """QMP command @name with @arguments (tools/qemuio.py); RETURNS its result, raises
        qemuio.QmpError (a RuntimeError) when QEMU refuses it."""
        if self.qmp is None:
            self.qmp = Qmp(self.qmp_path, timeout=10, alive=lambda: self.proc.poll() is None)
        return self.qmp.call(name, **arguments)

    # -- end ----------------------------------------------------------------
    def wait_exit(self, timeout=60):
        try:
            rc = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise GuestTimeout(f"QEMU still running after {timeout} s")
        # QEMU's last output may still sit in the pipe: the reader thread ends at its EOF, and
        # only then is self.log whole (a test that read it at once missed the panic message).
        self.reader.join(10)
        self.err_reader.join(10)
        return rc

    def kill(self):
        if self.loaded is not None:
            # tools/loaded.sh, its busy loops and QEMU: TERM lets the script stop its loops; KILL
            # whatever is left of the group (QEMU ignores nothing, the loops may outlive a KILLed script).
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(5)
                except subprocess.TimeoutExpired:
                    pass
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        if self.qmp:
            self.qmp.close()
        self.reader.join(5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()


def wait_shell_or_skip_aio(g, aio, timeout=90):
    """Wait for the shell of a guest whose disk uses aio=@aio (io_uring: reads complete inside the
    guest's command write, so a test under -icount sees guest time). Skips only when QEMU itself
    refused that aio (this QEMU or host kernel lacks it): a real absence on the machine."""
    import pytest
    try:
        g.wait_shell(timeout)
    except GuestTimeout:
        if aio and g.proc.poll() is not None and aio in g.stderr:
            pytest.skip(f"QEMU cannot use aio={aio} here: {g.stderr.strip()}")
        raise
    return g


def parse_ktap(lines):
    """KTAP results as {name: (ok, directive, diagnostics)}."""
    results = {}
    diags = []
    for line in lines:
        s = line.strip()
        m = re.match(r"^(not ok|ok) (\d+) (\S+)(?: # (.*))?$", s)
        if m:
            results[m.group(3)] = (m.group(1) == "ok", m.group(4) or "", diags)
            diags = []
        elif s.startswith("#"):
            diags.append(s)
    return results
