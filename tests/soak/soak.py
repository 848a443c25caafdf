#!/usr/bin/env python3
"""make soak MINUTES=N [SEED=S] [SOAK_ARGS=--nvme]: a randomised fault soak of irqkit in QEMU (issue 20).

One QEMU pc machine (IOAPIC, ACPI) with an IDE disk (hda), a USB keyboard (port 1), a USB
stick (port 2, a -blockdev so it can be pulled and put back) and the e1000 at 00:03.0. A
schedule drawn from random.Random(SEED) switches every fault on and off (`inject` and
`inject off`: ata-drop, ata-mask, ata-misvector, irq-misroute:14/4, spurious-flood:14,
e1000-storm, uhci-misroute, uhci-noroute; faults that reprogram the same thing are never on
together), pulls the stick out and puts it back (QMP device_del / blockdev + device_add), and
between them runs a stream of commands: pattern writes (`blk write-pattern`) and CRC reads
(`blk crc`) of random ranges of both disks, and `uptime` typed on the USB keyboard (QMP send-key).

Every data check is the host's (tests/qemu/diskimg.py): the host keeps a model of every block
of both images (the random start, then the pattern of each write); after each write the written
blocks are read back from the image file on the host (a write that failed may have left each
block old or new, nothing else); each CRC the kernel prints is compared with the model's; at the
end both images are compared with the model block by block.

Watchdog: a command that does not finish within its time-out, and a shell that then does not
answer `uptime` within 30 s, is a hang: it is counted, the log kept, QEMU killed and the machine
booted again (the faults are all off after a boot) and the soak goes on.

The report: commands done, blocks verified on the host, faults applied, wrong blocks, commands
completed twice (a result line the kernel printed more than once for one command), hangs.

--nvme adds an NVMe disk (nvme0n1, MSI-X, 00:04.0) with its faults nvme-noirq, msi-mask,
msi-misvector. --ahci adds an ICH9 AHCI controller (QEMU's `ahci` device at 00:05.0, the one q35
has built in, here on pc) with a disk (sda, MSI) and its fault ahci-noirq; the MSI faults then
pick one of the message-interrupt devices each time. --smp N boots N CPUs under multi-threaded
TCG (the vCPUs really run in parallel) and adds affinity moves to the schedule: one of the disk
lines (ata0's IRQ 14, and the AHCI and NVMe message lines) is moved round every CPU every 1-20 ms
(`affinity IRQ 0,1,... every MS`) until the next switch puts it back on CPU 0; --move-usb adds
the UHCI's line (shared with the e1000) to the lines moved. A move the kernel refuses (a chip
with no affinity operation) is counted as refused, not as an error.
"""
import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "qemu"))

import diskimg  # noqa: E402
import irqkit_qemu  # noqa: E402
from irqkit_qemu import ROOT, Guest, GuestTimeout  # noqa: E402
from shellwait import KEY_HOLD_MS, QCODES, UPTIME_RX  # noqa: E402

SECTOR = diskimg.SECTOR
DISK_BYTES = 8 << 20
STICK_BYTES = 4 << 20
PROMPT = "irqkit> "
# (a log line may follow the CRC on the same line: the kernel's log interleaves with the shell)
CRC_RX = re.compile(r"crc32 (\w+) (\d+)\+(\d+)(?: = ([0-9a-f]{8})|: failed at LBA (\d+): (\w+))")
WRITE_RX = re.compile(r"write-pattern (\w+) (\d+)\+(\d+)(?: seed (0x[0-9a-f]+))?: (ok|failed at LBA (\d+): (\w+))")

# name: (argument, group); faults of one group reprogram the same thing and are never on together
FAULTS = {
    "ata-drop": ("100", None),
    "ata-mask": (None, "pin14"),
    "ata-misvector": (None, "pin14"),
    "irq-misroute": ("14/4", "pin14"),
    "spurious-flood": ("14", None),
    "e1000-storm": (None, None),
    "uhci-misroute": (None, "pirqd"),
    "uhci-noroute": (None, "pirqd"),
}
# With --nvme: the NVMe disk's faults (MSI-X on pc; msi-mask and msi-misvector both rewrite its
# vector table entry)
NVME_FAULTS = {
    "nvme-noirq": (None, None),
    "msi-mask": (None, "msix"),
    "msi-misvector": (None, "msix"),
}
NVME_BYTES = 8 << 20
NVME_BDF = "00:04.0"
# With --ahci: the AHCI disk's fault; msi-mask/msi-misvector then choose among the MSI devices
AHCI_FAULTS = {
    "ahci-noirq": ("100", None),
}
AHCI_BYTES = 8 << 20
AHCI_BDF = "00:05.0"
# Drivers whose lines --smp moves (their action names in `irqs`); uhci0 only with --move-usb
MOVE_ACTIONS = ("ata0", "ahci0", "nvme0q")
# Time-outs of one command (s): generous, since every fault at once makes the disks poll.
CMD_TIMEOUT = 240
ANSWER_TIMEOUT = 30


class Model:
    """What every block of an image must hold: ('orig',) or ('pat', seed); after a failed write
    a block may be either of two states until the host has read which."""

    def __init__(self, path, size):
        self.path = path
        self.blocks = size // SECTOR
        with open(path, "rb") as f:
            self.orig = f.read()
        self.state = [("orig",)] * self.blocks

    def content(self, lba, st):
        if st[0] == "orig":
            return self.orig[lba * SECTOR:(lba + 1) * SECTOR]
        return diskimg.pattern_block(st[1], lba)

    def crc(self, lba, count):
        c = 0
        for i in range(lba, lba + count):
            c = zlib.crc32(self.content(i, self.state[i]), c)
        return c & 0xFFFFFFFF

    def check_written(self, lba, count, seed, ok):
        """Read [lba, +count) from the image on the host. RETURNS (verified, wrong)."""
        with open(self.path, "rb") as f:
            f.seek(lba * SECTOR)
            data = f.read(count * SECTOR)
        wrong = 0
        for i in range(count):
            now = data[i * SECTOR:(i + 1) * SECTOR]
            new = ("pat", seed)
            if now == self.content(lba + i, new):
                self.state[lba + i] = new
            elif not ok and now == self.content(lba + i, self.state[lba + i]):
                pass                       # a failed write may leave a block as it was
            else:
                wrong += 1
        return count - wrong, wrong

    def final_check(self):
        with open(self.path, "rb") as f:
            data = f.read()
        return [i for i in range(self.blocks)
                if data[i * SECTOR:(i + 1) * SECTOR] != self.content(i, self.state[i])]


class Soak:
    def __init__(self, args, tmp):
        self.args = args
        self.rng = random.Random(args.seed)
        self.tmp = tmp
        self.disk = os.path.join(tmp, "disk.img")
        self.stick = os.path.join(tmp, "stick.img")
        diskimg.make_random_image(self.disk, DISK_BYTES, seed=args.seed)
        diskimg.make_random_image(self.stick, STICK_BYTES, seed=args.seed + 1)
        self.models = {"hda": Model(self.disk, DISK_BYTES), "usba": Model(self.stick, STICK_BYTES)}
        self.faults = dict(FAULTS)
        if args.nvme:
            self.nvme = os.path.join(tmp, "nvme.img")
            diskimg.make_random_image(self.nvme, NVME_BYTES, seed=args.seed + 2)
            self.models["nvme0n1"] = Model(self.nvme, NVME_BYTES)
            self.faults.update(NVME_FAULTS)
        if args.ahci:
            self.ahci = os.path.join(tmp, "ahci.img")
            diskimg.make_random_image(self.ahci, AHCI_BYTES, seed=args.seed + 3)
            self.models["sda"] = Model(self.ahci, AHCI_BYTES)
            self.faults.update(AHCI_FAULTS)
            self.faults.update({k: v for k, v in NVME_FAULTS.items() if k.startswith("msi-")})
        # the devices whose message interrupts the MSI faults may hit
        self.msi_devs = ([NVME_BDF] if args.nvme else []) + ([AHCI_BDF] if args.ahci else [])
        if args.smp > 1:
            self.faults["move"] = (None, None)
        self.move_lines = []
        self.moving = None
        self.faults_on = set()
        self.stick_in = True
        self.stick_gen = 0
        self.g = None
        self.stats = {k: 0 for k in (
            "commands", "writes", "reads", "keystroke_commands", "keystroke_lost", "failed_commands",
            "blocks_written_verified_on_host", "blocks_read_verified", "wrong_blocks", "wrong_reads",
            "completed_twice", "hangs", "boots", "unplugs", "replugs", "fault_on", "fault_off",
            "moves", "moves_refused")}
        self.per_fault = {name: 0 for name in self.faults}
        self.errors = {}
        self.events = []
        self.hang_logs = []

    # -- the machine ---------------------------------------------------------------------------
    def boot(self):
        self.stats["boots"] += 1
        self.stick_gen += 1
        node = f"stick{self.stick_gen}"
        extra = ["-nodefaults", "-usb",
                 "-drive", f"file={self.disk},format=raw,if=ide,index=0",
                 "-device", "usb-kbd,port=1,id=kbd",
                 "-blockdev", f"driver=file,filename={self.stick},node-name={node}f",
                 "-blockdev", f"driver=raw,file={node}f,node-name={node}",
                 "-device", f"usb-storage,drive={node},port=2,id=stick",
                 "-device", "e1000,addr=03.0"]
        if self.args.nvme:
            extra += ["-drive", f"file={self.nvme},if=none,id=nv,format=raw",
                      "-device", "nvme,serial=irqkit,drive=nv,addr=04.0"]
        if self.args.ahci:
            extra += ["-device", "ahci,id=ahci,addr=05.0",
                      "-drive", f"file={self.ahci},if=none,id=ad,format=raw",
                      "-device", "ide-hd,drive=ad,bus=ahci.0"]
        accel = None
        if self.args.smp > 1:
            extra += ["-smp", str(self.args.smp)]
            accel = "tcg,thread=multi"
        self.g = Guest(append="", extra=extra, boot_timeout=120, accel=accel)
        self.g.wait_shell(120)
        self.g.wait_for(r"usb-kbd0: boot keyboard on .*\n", 60)
        self.g.wait_for(r"usba: USB mass storage .*per command\n", 60)
        self.faults_on.clear()
        self.moving = None
        self.stick_in = True
        self.stick_node = node
        if self.args.smp > 1:
            self.find_move_lines()

    def find_move_lines(self):
        """The lines --smp moves: those whose actions are the disks' (and the UHCI's with
        --move-usb), read from `irqs` after each boot (MSI line numbers are allocated)."""
        out = self.g.command("irqs")
        online = re.search(r"smp: (\d+) CPUs? online", self.g.log)
        if not online or int(online.group(1)) != self.args.smp:
            raise SystemExit(f"soak: asked for {self.args.smp} CPUs, the kernel says "
                             f"{online.group(0) if online else 'nothing'}")
        names = MOVE_ACTIONS + (("uhci0",) if self.args.move_usb else ())
        self.move_lines = sorted({int(m.group(1)) for m in re.finditer(r"^\s*(\d+)\s.*$", out, re.M)
                                  if any(f" {n}" in m.group(0) for n in names)})
        if not self.move_lines:
            raise SystemExit("soak: --smp but no disk line found in `irqs`")

    def run(self, cmd, done, timeout=CMD_TIMEOUT):
        """Type @cmd; wait for @done and the prompt after it. RETURNS the output, or None on a
        hang (then the machine has been booted again)."""
        g = self.g
        start = len(g.log)
        g.send(cmd + "\r")
        try:
            m = g.wait_for(done, timeout, start)
            g.wait_for(re.escape(PROMPT), 30, m.end())
        except GuestTimeout:
            return self.hang(cmd, start)
        self.stats["commands"] += 1
        out = g.log[start:]
        if len(re.findall(done, out, re.M)) > 1:
            self.stats["completed_twice"] += 1
            self.events.append((self.t(), "completed twice", cmd))
        return out

    def answers(self):
        start = len(self.g.log)
        self.g.send("uptime\r")
        try:
            self.g.wait_for(UPTIME_RX, ANSWER_TIMEOUT, start)
            return True
        except GuestTimeout:
            return False

    def hang(self, cmd, start):
        if self.g.proc.poll() is None and self.answers():
            # the shell is alive: the command itself never finished (a lost completion with
            # no defence that found it): counted as a failed command, not a hang
            self.stats["failed_commands"] += 1
            self.errors["no result"] = self.errors.get("no result", 0) + 1
            self.events.append((self.t(), "no result", cmd))
            return ""
        self.stats["hangs"] += 1
        self.events.append((self.t(), "HANG", cmd, sorted(self.faults_on)))
        self.hang_logs.append(self.g.log[-20000:])
        self.g.kill()
        self.boot()
        return None

    def t(self):
        return round(time.monotonic() - self.t0, 1)

    # -- faults ---------------------------------------------------------------------------------
    def toggle_fault(self):
        name = self.rng.choice(sorted(self.faults))
        arg, group = self.faults[name]
        if name == "move" and name in self.faults_on:
            return self.stop_move()
        if name in self.faults_on:
            out = self.run(f"inject off {name}", rf"fault: {name} switched off.*\n|fault: .*{name}.*\n")
            if out is not None and f"{name} switched off" in out:
                self.faults_on.discard(name)
                self.stats["fault_off"] += 1
            return
        if group and any(self.faults[f][1] == group for f in self.faults_on):
            return
        if name == "move":
            return self.start_move()
        if name.startswith("msi-"):
            arg = self.rng.choice(self.msi_devs)
        spec = f"{name}:{arg}" if arg else name
        out = self.run(f"inject {spec}", rf"fault: (INJECTED {name}|.*{name}.*)\n")
        if out is not None and f"INJECTED {name}" in out:
            self.faults_on.add(name)
            self.stats["fault_on"] += 1
            self.per_fault[name] += 1

    def start_move(self):
        irq = self.rng.choice(self.move_lines)
        ms = self.rng.randint(1, 20)
        cpus = ",".join(str(c) for c in range(self.args.smp))
        out = self.run(f"affinity {irq} {cpus} every {ms}", r"^affinity: .*\n")
        if out is not None and "moves round" in out:
            self.faults_on.add("move")
            self.moving = irq
            self.stats["fault_on"] += 1
            self.per_fault["move"] += 1

    def stop_move(self):
        irq = self.moving
        out = self.run(f"affinity {irq} 0", rf"^irq {irq}: CPUs .*\n|^affinity: irq {irq}: .*\n")
        if out is None:
            return
        m = re.search(r"stopped moving after (\d+) moves \((\d+) refused\)", out)
        if m:
            self.stats["moves"] += int(m.group(1))
            self.stats["moves_refused"] += int(m.group(2))
        self.faults_on.discard("move")
        self.moving = None
        self.stats["fault_off"] += 1

    def toggle_stick(self):
        g = self.g
        start = len(g.log)
        if self.stick_in:
            g.qmp_cmd("device_del", id="stick")
            try:
                g.wait_for(r"usba: disconnected", 60, start)
            except GuestTimeout:
                self.events.append((self.t(), "unplug not seen in 60 s"))
            self.stick_in = False
            self.stats["unplugs"] += 1
            return
        g.qmp_cmd("device_add", driver="usb-storage", drive=self.stick_node, port="2", id="stick")
        try:
            g.wait_for(r"usba: USB mass storage .*per command\n", 120, start)
            self.stick_in = True
            self.stats["replugs"] += 1
        except GuestTimeout:
            self.events.append((self.t(), "replug: no usba in 120 s", sorted(self.faults_on)))
            # try again next time from a clean state
            try:
                g.qmp_cmd("device_del", id="stick")
            except RuntimeError:
                pass

    # -- work -----------------------------------------------------------------------------------
    def devices(self):
        return [d for d in self.models if d != "usba" or self.stick_in]

    def write(self):
        dev = self.rng.choice(self.devices())
        m = self.models[dev]
        count = self.rng.randint(1, 64 if dev == "usba" else 128)
        lba = self.rng.randrange(0, m.blocks - count + 1)
        seed = self.rng.getrandbits(32)
        out = self.run(f"blk write-pattern {dev} {seed:#x} {lba} {count}",
                       rf"write-pattern {dev} {lba}\+{count}(?: seed 0x[0-9a-f]+)?: .*\n|blk: .*\n")
        if out is None:
            # the machine hung during the write: each block may be old or new
            verified, wrong = m.check_written(lba, count, seed, ok=False)
            self.stats["wrong_blocks"] += wrong
            return
        self.stats["writes"] += 1
        w = WRITE_RX.search(out)
        ok = bool(w) and w.group(5) == "ok"
        if not ok:
            self.stats["failed_commands"] += 1
            err = w.group(7) if w and w.group(7) else "other"
            self.errors[err] = self.errors.get(err, 0) + 1
            self.events.append((self.t(), "write failed", dev, lba, count, out[-300:], sorted(self.faults_on)))
        verified, wrong = m.check_written(lba, count, seed, ok)
        self.stats["blocks_written_verified_on_host"] += verified if ok else 0
        self.stats["wrong_blocks"] += wrong
        if wrong:
            self.events.append((self.t(), "WRONG BLOCKS after write", dev, lba, count, wrong, sorted(self.faults_on)))

    def read(self):
        dev = self.rng.choice(self.devices())
        m = self.models[dev]
        count = self.rng.randint(1, 128 if dev == "usba" else 256)
        lba = self.rng.randrange(0, m.blocks - count + 1)
        out = self.run(f"blk crc {dev} {lba} {count}", rf"crc32 {dev} {lba}\+{count}.*\n|blk: .*\n")
        if out is None:
            return
        self.stats["reads"] += 1
        c = CRC_RX.search(out)
        if not c or not c.group(4):
            self.stats["failed_commands"] += 1
            err = c.group(6) if c and c.group(6) else "other"
            self.errors[err] = self.errors.get(err, 0) + 1
            self.events.append((self.t(), "read failed", dev, lba, count, out[-300:], sorted(self.faults_on)))
            return
        if int(c.group(4), 16) == m.crc(lba, count):
            self.stats["blocks_read_verified"] += count
        else:
            self.stats["wrong_reads"] += 1
            self.events.append((self.t(), "WRONG READ", dev, lba, count, sorted(self.faults_on)))

    def keystrokes(self):
        g = self.g
        start = len(g.log)
        for ch in "uptime\r":
            g.qmp_cmd("send-key", keys=[{"type": "qcode", "data": QCODES.get(ch, ch)}],
                      **{"hold-time": KEY_HOLD_MS})
        try:
            m = g.wait_for(UPTIME_RX, 60, start)
            g.wait_for(re.escape(PROMPT), 30, m.end())
            self.stats["keystroke_commands"] += 1
        except GuestTimeout:
            self.stats["keystroke_lost"] += 1
            self.events.append((self.t(), "typed uptime not seen in 60 s", sorted(self.faults_on)))
            g.send("\x15")                 # Ctrl-U: clear whatever arrived
            if not self.answers():
                self.hang("(keystrokes)", start)

    # -- the soak -------------------------------------------------------------------------------
    def go(self):
        self.t0 = time.monotonic()
        end = self.t0 + self.args.minutes * 60
        self.boot()
        if self.args.smp > 1:
            # a line moves from the start: the schedule is drawn by host time, and the 2-minute
            # make test-soak at seed 20 once drew no move switch at all
            self.start_move()
        next_fault = time.monotonic() + self.rng.uniform(2, 10)
        next_stick = time.monotonic() + self.rng.uniform(20, 60)
        last_print = 0
        while time.monotonic() < end:
            now = time.monotonic()
            if now >= next_fault:
                self.toggle_fault()
                next_fault = time.monotonic() + self.rng.uniform(1, 6)
            elif now >= next_stick:
                self.toggle_stick()
                next_stick = time.monotonic() + self.rng.uniform(20, 90)
            else:
                r = self.rng.random()
                if r < 0.50:
                    self.write()
                elif r < 0.92:
                    self.read()
                else:
                    self.keystrokes()
            if now - last_print >= 60:
                last_print = now
                print(f"soak: {self.t():7.1f} s  {self.summary_line()}  faults on: "
                      f"{','.join(sorted(self.faults_on)) or '-'}", flush=True)
        # put everything back, check the images whole
        for name in sorted(self.faults_on):
            if name == "move":
                self.stop_move()
                continue
            self.run(f"inject off {name}", rf"fault: {name} switched off.*\n|fault: .*{name}.*\n")
        self.g.send("halt\r")
        time.sleep(1)
        self.g.kill()
        final = {dev: m.final_check() for dev, m in self.models.items()}
        self.stats["wrong_blocks_at_the_end"] = sum(len(v) for v in final.values())
        self.stats["blocks_checked_at_the_end"] = sum(m.blocks for m in self.models.values())
        return final

    def summary_line(self):
        s = self.stats
        return (f"commands {s['commands']}, written+verified {s['blocks_written_verified_on_host']}, "
                f"read+verified {s['blocks_read_verified']}, faults on/off {s['fault_on']}/{s['fault_off']}, "
                f"wrong {s['wrong_blocks']}/{s['wrong_reads']}, twice {s['completed_twice']}, "
                f"hangs {s['hangs']}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "soak"))
    ap.add_argument("--nvme", action="store_true", help="add an NVMe disk (MSI-X) and its faults")
    ap.add_argument("--ahci", action="store_true", help="add an AHCI disk (MSI) and its fault")
    ap.add_argument("--smp", type=int, default=1, help="boot N CPUs and move the disks' lines between them")
    ap.add_argument("--move-usb", action="store_true", help="with --smp: move the UHCI's line too")
    ap.add_argument("--kernel", default=irqkit_qemu.KERNEL, help="the kernel ELF to boot")
    args = ap.parse_args()
    irqkit_qemu.KERNEL = os.path.abspath(args.kernel)
    os.makedirs(args.out, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="irqkit-soak-") as tmp:
        s = Soak(args, tmp)
        print(f"soak: {args.minutes} minutes, seed {args.seed}; QEMU pc with hda ({DISK_BYTES >> 20} MiB), "
              f"usb-kbd, usb-storage ({STICK_BYTES >> 20} MiB), e1000"
              + (f", nvme0n1 ({NVME_BYTES >> 20} MiB, MSI-X)" if args.nvme else "")
              + (f", sda ({AHCI_BYTES >> 20} MiB, AHCI, MSI)" if args.ahci else "")
              + (f", {args.smp} CPUs (affinity moves)" if args.smp > 1 else ""), flush=True)
        final = s.go()
    st = s.stats
    report = {"minutes": args.minutes, "seed": args.seed, "stats": st, "faults_applied": s.per_fault,
              "wrong_at_the_end": {dev: lbas[:50] for dev, lbas in final.items()},
              "errors_reported_by_commands": s.errors, "events": s.events[-200:]}
    with open(os.path.join(args.out, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
    for i, log in enumerate(s.hang_logs):
        with open(os.path.join(args.out, f"hang-{i}.log"), "w") as f:
            f.write(log)
    print(f"soak report (seed {args.seed}, {args.minutes} min):")
    print(f"  commands done:              {st['commands']} ({st['writes']} pattern writes, {st['reads']} CRC reads, "
          f"the rest fault switches); {st['failed_commands']} ended in an error {s.errors or ''}")
    print(f"  keystroke commands:         {st['keystroke_commands']} typed on the USB keyboard ran, "
          f"{st['keystroke_lost']} not seen")
    print(f"  blocks verified on the host: {st['blocks_written_verified_on_host']} written (read back from "
          f"the image), {st['blocks_read_verified']} read (CRC against the host's model), "
          f"{st['blocks_checked_at_the_end']} compared at the end")
    print(f"  faults applied:             {st['fault_on']} on, {st['fault_off']} off: "
          + ", ".join(f"{k} {v}" for k, v in sorted(s.per_fault.items()))
          + f"; USB stick pulled {st['unplugs']}, put back {st['replugs']}"
          + (f"; lines moved {st['moves']} times ({st['moves_refused']} refused)" if args.smp > 1 else ""))
    print(f"  wrong blocks:               {st['wrong_blocks']} after writes, {st['wrong_reads']} wrong CRC reads, "
          f"{st['wrong_blocks_at_the_end']} at the end")
    print(f"  commands completed twice:   {st['completed_twice']}")
    print(f"  hangs:                      {st['hangs']} (boots {st['boots']})")
    print(f"  report: {os.path.join(args.out, 'report.json')}")
    bad = st["wrong_blocks"] + st["wrong_reads"] + st["wrong_blocks_at_the_end"] + st["completed_twice"] + st["hangs"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
