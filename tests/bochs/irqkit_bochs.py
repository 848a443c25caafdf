"""Boot irqkit in Bochs 2.7, an independently written PC, and talk to it like tests/qemu does.

A BochsGuest is one `bochs` process, configured the way QEMU-FACTS.md ("Bochs") says works on
Debian's build: no `nogui`, so the rfb display with `timeout=0` (it waits for no viewer); the
debugger is built in, so `c` is fed on standard input; `-q -unlock -f bochsrc`. COM1 is a TCP
socket server on a free localhost port; the harness connects to it at once (Bochs waits for
that connection before it runs). Bochs has no -kernel/-append: the kernel parameters go into the
grub.cfg of a CD image made for the guest (grub-mkrescue, as the Makefile's ISO). Disks are flat
raw images written through by Bochs, so after `halt` the host reads them back directly.

Keys: the rfb display forwards key events to Bochs's USB keyboard (`usb_uhci: port1=keyboard`);
RfbKeys is the smallest RFB 3.3 client that sends them (RFC 6143: version, security type 1
"None", ClientInit, KeyEvent).

The shell-side helpers (wait_for, command, wait_shell, lines) are tests/qemu's Guest's.
"""
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "qemu"))

import irqkit_qemu  # noqa: E402
from irqkit_qemu import ROOT, Guest, GuestTimeout  # noqa: E402,F401

BOCHS = os.environ.get("BOCHS", "bochs")
BIOS = "/usr/share/bochs/BIOS-bochs-latest"
VGABIOS = "/usr/share/vgabios/vgabios.bin"
KERNEL = os.path.join(ROOT, "build", "kernel.elf")
E1000_MAC = "52:54:00:12:34:56"

GRUB_CFG = """serial --unit=0 --speed=115200
terminal_input serial console
terminal_output serial console
set timeout=0
set default=0
menuentry "irqkit" {{
	multiboot /boot/irqkit.elf {params}
	boot
}}
"""


def available():
    """Bochs, its BIOS and the VGA BIOS are all there (tools/deps.sh installs them)."""
    return shutil.which(BOCHS) is not None and os.path.exists(BIOS) and os.path.exists(VGABIOS)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def make_iso(tmp, params):
    """A boot CD whose GRUB passes @params to the kernel."""
    root = os.path.join(tmp, "isodir")
    os.makedirs(os.path.join(root, "boot", "grub"))
    shutil.copy(KERNEL, os.path.join(root, "boot", "irqkit.elf"))
    with open(os.path.join(root, "boot", "grub", "grub.cfg"), "w") as f:
        f.write(GRUB_CFG.format(params=params))
    iso = os.path.join(tmp, "irqkit.iso")
    r = subprocess.run(["grub-mkrescue", "-o", iso, root], capture_output=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError("grub-mkrescue failed: " + r.stderr.decode(errors="replace")[-2000:])
    return iso


class BochsGuest(Guest):
    """One Bochs: @params the kernel command line; @disk a raw image on ata0-master;
    @stick a raw image on the UHCI's port 2 (mass storage); @keyboard a USB keyboard on port 1;
    @e1000 the 82540EM (plugin, no host network); @acpi False drops the ACPI tables."""

    def __init__(self, params="", disk=None, stick=None, keyboard=True, e1000=True, acpi=True,
                 clock="none", boot_timeout=60):
        self.tmp = tempfile.mkdtemp(prefix="irqkit-bochs-")
        self.append = params
        iso = make_iso(self.tmp, params)
        self.port = free_port()
        rc = [
            "megs: 128",
            f"romimage: file={BIOS}",
            f"vgaromimage: file={VGABIOS}",
            "pci: enabled=1, chipset=i440fx" + ("" if acpi else ", advopts=noacpi"),
            'display_library: rfb, options="timeout=0"',
            # no host sound: Debian's build otherwise opens ALSA for the PC speaker, and on a
            # host without a sound card it then dies ("*** buffer overflow detected ***")
            # before COM1 is up (seen on a fresh machine here, 5 Dec 2026)
            "sound: driver=dummy",
            f"ata1-master: type=cdrom, path={iso}, status=inserted",
            "boot: cdrom",
            f"com1: enabled=1, mode=socket-server, dev=localhost:{self.port}",
            # guest time from the instruction count (ips 4 M, Bochs's default), like QEMU's
            # -icount: host load does not move it, and it is fast (`slowdown` took 25 s to the
            # prompt here, `none` 3 s); an idle guest's time then runs ahead of the host's,
            # which RfbKeys allows for
            "clock: sync=" + clock,
            f"log: {os.path.join(self.tmp, 'bochs.log')}",
            "panic: action=fatal",
            "error: action=report",
            "info: action=report",
        ]
        if disk:
            rc.append(f"ata0-master: type=disk, mode=flat, path={disk}")
        usb = []
        if keyboard:
            usb.append("port1=keyboard")
        if stick:
            usb.append(f'port2=disk, options2="path:{stick}"')
        if usb:
            rc.append("usb_uhci: enabled=1, " + ", ".join(usb))
        if e1000:
            rc += ["plugin_ctrl: e1000=1", f"e1000: enabled=1, mac={E1000_MAC}, ethmod=null"]
        self.rc_path = os.path.join(self.tmp, "bochsrc")
        with open(self.rc_path, "w") as f:
            f.write("\n".join(rc) + "\n")
        self.args = [BOCHS, "-q", "-unlock", "-f", self.rc_path]
        self.buf = ""
        self.cond = threading.Condition()
        self.stderr = ""
        self.qmp = None
        self.sock = None
        self.boot_timeout = boot_timeout
        self.out_path = os.path.join(self.tmp, "bochs.out")
        self.proc = subprocess.Popen(self.args, stdin=subprocess.PIPE, stdout=open(self.out_path, "wb"),
                                     stderr=subprocess.STDOUT, cwd=self.tmp)
        irqkit_qemu.live_guests.append(self)
        deadline = time.monotonic() + 30
        while self.sock is None:
            try:
                self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=1)
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise GuestTimeout(f"Bochs did not open COM1's socket on port {self.port}: "
                                       + self._bochs_out())
                time.sleep(0.05)
        self.sock.settimeout(None)
        self.proc.stdin.write(b"c\n")           # the built-in debugger's `continue`
        self.proc.stdin.flush()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _bochs_out(self):
        try:
            with open(self.out_path, "rb") as f:
                return f.read().decode(errors="replace")[-3000:]
        except OSError:
            return ""

    def _read(self):
        while True:
            try:
                data = self.sock.recv(4096)
            except OSError:
                break
            if not data:
                break
            text = data.decode("utf-8", "replace").replace("\r", "")
            with self.cond:
                self.buf += text
                self.cond.notify_all()
        with self.cond:
            self.stderr = self._bochs_out()
            self.cond.notify_all()

    def send(self, text):
        self.sock.sendall(text.encode())

    def bochs_log(self):
        try:
            with open(os.path.join(self.tmp, "bochs.log"), "rb") as f:
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def rfb_port(self, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = re.search(r"listening for connections on port (\d+)", self.bochs_log())
            if m:
                return int(m.group(1))
            time.sleep(0.1)
        raise GuestTimeout("Bochs's rfb display never said which port it listens on")

    def keys(self):
        return RfbKeys(self.rfb_port())

    def halt(self, timeout=30):
        """Stop the guest (`halt`) and Bochs; the images are then final on the host."""
        start = len(self.log)
        self.send("halt\r")
        self.wait_for(r"halt", timeout, start)
        time.sleep(0.5)
        self.kill()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        if self.sock:
            try:
                self.sock.close()
            except OSError:
                pass
        if hasattr(self, "reader"):
            self.reader.join(5)
        self.stderr = self._bochs_out()
        # the CD image (10 MiB) goes; bochsrc and the logs stay for a failure's report
        shutil.rmtree(os.path.join(self.tmp, "isodir"), ignore_errors=True)
        try:
            os.remove(os.path.join(self.tmp, "irqkit.iso"))
        except OSError:
            pass


# X11 keysyms (RFC 6143 7.5.4) of what the tests type.
KEYSYM = {"\r": 0xFF0D, "\n": 0xFF0D, " ": 0x20}


class RfbKeys:
    """Key events through Bochs's rfb display: the server (RFB 3.3) sends its version, the
    client answers with the same, the server names security type 1 (None), the client sends
    ClientInit (shared), the server its ServerInit; then KeyEvent messages (type 4)."""

    def __init__(self, port, timeout=10):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        version = self._recv(12)
        if not version.startswith(b"RFB "):
            raise RuntimeError(f"not an RFB server: {version!r}")
        self.sock.sendall(b"RFB 003.003\n")
        (security,) = struct.unpack(">I", self._recv(4))
        if security != 1:
            raise RuntimeError(f"RFB security type {security}, not None")
        self.sock.sendall(b"\x01")            # ClientInit: shared
        head = self._recv(24)                 # width, height, pixel format (16), name length
        (name_len,) = struct.unpack(">I", head[20:24])
        self._recv(name_len)
        self.sock.settimeout(None)
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()

    def _recv(self, n):
        out = b""
        while len(out) < n:
            d = self.sock.recv(n - len(out))
            if not d:
                raise RuntimeError("RFB server closed the connection")
            out += d
        return out

    def _drain(self):
        # The server's own messages (framebuffer updates, bell) are not wanted; read them away
        # so it never blocks on a full socket.
        try:
            while self.sock.recv(65536):
                pass
        except OSError:
            pass

    def key(self, ch):
        # Press and release in one write: with `clock: sync=none` an idle guest's time runs
        # ahead of the host's, so any host-side hold would read as a held key (auto-repeat).
        sym = KEYSYM.get(ch, ord(ch))
        self.sock.sendall(struct.pack(">BBHI", 4, 1, 0, sym) + struct.pack(">BBHI", 4, 0, 0, sym))

    def type(self, text, gap=0.08):
        for ch in text:
            self.key(ch)
            time.sleep(gap)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
