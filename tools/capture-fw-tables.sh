#!/bin/sh
# capture-fw-tables.sh - dump the firmware tables SeaBIOS builds under QEMU,
# for the host tests of arch/x86/acpi.c, mptable.c and pirtable.c.
#
# For each machine configuration it boots QEMU with no boot device, lets
# SeaBIOS finish POST (the tables exist before the boot menu), and uses the
# HMP monitor's `pmemsave` to dump, into tests/fixtures/<config>/:
#   mem-00000400.bin   the BIOS data area (EBDA segment at 0x40E, base memory
#                      size at 0x413), 256 bytes
#   mem-<ebda>.bin     the first KiB of the EBDA (0x9FC00 under SeaBIOS)
#   mem-000e0000.bin   0xE0000-0xFFFFF: RSDP, MP floating pointer and config
#                      table, $PIR
#   mem-<acpi>.bin     the 4 KiB pages holding the RSDT/XSDT and every table it
#                      lists plus the FACS/DSDT the FADT names (only when an
#                      RSDP exists), found by walking the tables just dumped
# Each file is named after the physical address of its first byte.
#
# Then it (re)writes the fuzz seed corpora tests/fuzz/corpus/{acpi_madt,
# acpi_hpet,mptable,pirtable}/ from the dumps: each seed is a control byte
# (see tests/fuzz/fuzz_*.c; 0x03 = fix length and checksum) followed by one
# table cut out of a dump, named after a hash of its content; and
# tests/fuzz/corpus/fw_discovery/: the ROM page 0xF5000-0xF5FFF and the ACPI
# dump of each machine in the input format of fuzz_fw_discovery.c.
#
# Usage: tools/capture-fw-tables.sh [config ...]   (default: all of them)
#        tools/capture-fw-tables.sh --seeds        (only rewrite the seeds)
# Needs qemu-system-i386 and python3. Takes ~5 s per configuration.
set -eu
cd "$(dirname "$0")/.."
QEMU=${QEMU:-qemu-system-i386}
PYTHON=${PYTHON:-/usr/bin/python3}
export QEMU
exec "$PYTHON" - "$@" <<'EOF'
import os, socket, struct, subprocess, sys, tempfile, time

# name -> QEMU arguments. -usb adds the PIIX3/ICH9 UHCI so that the MP table
# and $PIR carry a function on INTD; -m 128M matches `make run`.
CONFIGS = {
    "pc":         ["-machine", "pc"],
    "pc-noacpi":  ["-machine", "pc", "-no-acpi"],
    "q35":        ["-machine", "q35"],
    "q35-noacpi": ["-machine", "q35", "-no-acpi"],
    "pc-smp2":    ["-machine", "pc", "-smp", "2,sockets=2"],
}
COMMON = ["-m", "128M", "-accel", "tcg", "-usb", "-display", "none",
          "-serial", "none", "-parallel", "none", "-no-reboot"]
POST_SECONDS = 3          # SeaBIOS has built its tables well before this
PAGE = 0x1000             # ACPI dump granularity
SCAN_HALF = 0x10000       # how far around the root table to look for the rest
DISCOVERY_ROM_BASE = 0xF5000  # where fuzz_fw_discovery.c maps its ROM part
DISCOVERY_ROM_LEN = 0x1000    # the page holding all of SeaBIOS's tables
BIOS_BASE, BIOS_LEN = 0xE0000, 0x20000
BDA_BASE, BDA_LEN = 0x400, 0x100
EBDA_DUMP_LEN = 0x400

class Monitor:
    def __init__(self, path):
        for _ in range(100):
            try:
                self.s = socket.socket(socket.AF_UNIX)
                self.s.connect(path)
                break
            except OSError:
                time.sleep(0.05)
        else:
            sys.exit("capture: QEMU monitor socket never appeared")
        self.read_prompt()

    def read_prompt(self):
        buf = b""
        while not buf.endswith(b"(qemu) "):
            chunk = self.s.recv(4096)
            if not chunk:
                sys.exit("capture: QEMU monitor closed")
            buf += chunk
        return buf

    def cmd(self, line):
        self.s.sendall(line.encode() + b"\n")
        return self.read_prompt()

def pmemsave(mon, tmp, addr, length):
    path = os.path.join(tmp, "%08x.bin" % addr)
    # Quoted: HMP would otherwise read "/tmp" as a division of the length.
    reply = mon.cmd('pmemsave 0x%x 0x%x "%s"' % (addr, length, path))
    if not os.path.exists(path):
        sys.exit("capture: pmemsave 0x%x failed: %r" % (addr, reply[-200:]))
    with open(path, "rb") as f:
        data = f.read()
    if len(data) != length:
        sys.exit("capture: short pmemsave at 0x%x" % addr)
    return data

def find_rsdp(regions):
    for base, data in regions:
        for off in range(0, len(data) - 20, 16):
            if data[off:off + 8] == b"RSD PTR " and sum(data[off:off + 20]) & 0xFF == 0:
                return data[off:off + 36]
    return None

def acpi_span(mon, tmp, rsdp):
    """Page-aligned [lo, hi) covering the root table and what it points to."""
    rev = rsdp[15]
    root, entry = struct.unpack_from("<I", rsdp, 16)[0], 4
    if rev >= 2 and struct.unpack_from("<Q", rsdp, 24)[0]:
        root, entry = struct.unpack_from("<Q", rsdp, 24)[0], 8
    # SeaBIOS packs its tables within a few KiB of each other; scan 64 KiB
    # either side of the root table.
    lo = max(0, (root & ~(PAGE - 1)) - SCAN_HALF)
    window = pmemsave(mon, tmp, lo, 2 * SCAN_HALF)
    def table(addr):
        off = addr - lo
        if not 0 <= off <= len(window) - 36:
            sys.exit("capture: table 0x%x outside the scanned window" % addr)
        return window[off:off + struct.unpack_from("<I", window, off + 4)[0]]
    spans = [(root, len(table(root)))]
    rt = table(root)
    for off in range(36, len(rt), entry):
        addr = struct.unpack_from("<I" if entry == 4 else "<Q", rt, off)[0]
        t = table(addr)
        spans.append((addr, len(t)))
        if t[:4] == b"FACP":
            for ptr in struct.unpack_from("<II", t, 36):
                if ptr:
                    spans.append((ptr, len(table(ptr))))
    lo = min(a for a, _ in spans) & ~(PAGE - 1)
    hi = (max(a + n for a, n in spans) + PAGE - 1) & ~(PAGE - 1)
    return lo, hi

def capture(name, args):
    out = os.path.join("tests", "fixtures", name)
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        if f.startswith("mem-") and f.endswith(".bin"):
            os.unlink(os.path.join(out, f))
    with tempfile.TemporaryDirectory() as tmp:
        sock = os.path.join(tmp, "mon")
        qemu = subprocess.Popen([os.environ["QEMU"]] + COMMON + args +
                                ["-monitor", "unix:%s,server=on,wait=off" % sock],
                                stdout=subprocess.DEVNULL)
        try:
            mon = Monitor(sock)
            time.sleep(POST_SECONDS)
            dumps = {}
            bda = pmemsave(mon, tmp, BDA_BASE, BDA_LEN)
            dumps[BDA_BASE] = bda
            ebda = struct.unpack_from("<H", bda, 0x0E)[0] << 4
            dumps[ebda] = pmemsave(mon, tmp, ebda, EBDA_DUMP_LEN)
            dumps[BIOS_BASE] = pmemsave(mon, tmp, BIOS_BASE, BIOS_LEN)
            rsdp = find_rsdp([(ebda, dumps[ebda]), (BIOS_BASE, dumps[BIOS_BASE])])
            if rsdp:
                lo, hi = acpi_span(mon, tmp, rsdp)
                dumps[lo] = pmemsave(mon, tmp, lo, hi - lo)
            mon.s.sendall(b"quit\n")    # no prompt follows a quit
        finally:
            try:
                qemu.wait(timeout=10)
            except subprocess.TimeoutExpired:
                qemu.kill()
    for addr, data in sorted(dumps.items()):
        with open(os.path.join(out, "mem-%08x.bin" % addr), "wb") as f:
            f.write(data)
    print("%-11s %s" % (name, " ".join("0x%08x+0x%x" % (a, len(d))
                                       for a, d in sorted(dumps.items()))))

def load_dumps(name):
    out = os.path.join("tests", "fixtures", name)
    mem = {}
    for f in sorted(os.listdir(out)):
        if f.startswith("mem-") and f.endswith(".bin"):
            with open(os.path.join(out, f), "rb") as fh:
                mem[int(f[4:12], 16)] = fh.read()
    return mem

def read(mem, addr, n):
    for base, data in mem.items():
        if base <= addr and addr + n <= base + len(data):
            return data[addr - base:addr - base + n]
    return None

def scan(mem, sig):
    rom = mem.get(BIOS_BASE, b"")
    for off in range(0, len(rom), 16):
        if rom[off:off + len(sig)] == sig:
            return BIOS_BASE + off
    return None

def tables_of(mem):
    """(corpus, bytes) for every table a fuzz target takes."""
    found = []
    rsdp = scan(mem, b"RSD PTR ")
    if rsdp:
        rsdt = struct.unpack_from("<I", read(mem, rsdp, 20), 16)[0]
        n = struct.unpack_from("<I", read(mem, rsdt, 8), 4)[0]
        root = read(mem, rsdt, n)
        for off in range(36, n, 4):
            addr = struct.unpack_from("<I", root, off)[0]
            hdr = read(mem, addr, 8)
            t = read(mem, addr, struct.unpack_from("<I", hdr, 4)[0])
            if hdr[:4] == b"APIC":
                found.append(("acpi_madt", t))
            elif hdr[:4] == b"HPET":
                found.append(("acpi_hpet", t))
    mpf = scan(mem, b"_MP_")
    if mpf:
        cfg = struct.unpack_from("<I", read(mem, mpf, 16), 4)[0]
        base, = struct.unpack_from("<H", read(mem, cfg, 44), 4)
        ext, = struct.unpack_from("<H", read(mem, cfg, 44), 40)
        found.append(("mptable", read(mem, cfg, base + ext)))
    pir = scan(mem, b"$PIR")
    if pir:
        size, = struct.unpack_from("<H", read(mem, pir, 8), 6)
        found.append(("pirtable", read(mem, pir, size)))
    return found

def write_seeds():
    import hashlib
    corpora = {}
    for name in CONFIGS:
        for corpus, table in tables_of(load_dumps(name)):
            for ctrl in (b"\x00", b"\x03"):
                corpora.setdefault(corpus, set()).add(ctrl + table)
    for name in CONFIGS:
        mem = load_dumps(name)
        rom = mem[BIOS_BASE][DISCOVERY_ROM_BASE - BIOS_BASE:][:DISCOVERY_ROM_LEN]
        ram_base = max(mem)
        ram = mem[ram_base] if ram_base >= 0x100000 else b""
        corpora.setdefault("fw_discovery", set()).add(
            struct.pack("<HI", len(rom), ram_base if ram else 0) + rom + ram)
    for corpus, seeds in sorted(corpora.items()):
        d = os.path.join("tests", "fuzz", "corpus", corpus)
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            if f.startswith("seed-"):
                os.unlink(os.path.join(d, f))
        for seed in seeds:
            with open(os.path.join(d, "seed-" + hashlib.sha1(seed).hexdigest()[:16]), "wb") as fh:
                fh.write(seed)
        print("seeds %-10s %d" % (corpus, len(seeds)))

if sys.argv[1:] != ["--seeds"]:
    names = sys.argv[1:] or list(CONFIGS)
    for n in names:
        if n not in CONFIGS:
            sys.exit("capture: unknown configuration %s (have: %s)" % (n, " ".join(CONFIGS)))
        capture(n, CONFIGS[n])
write_seeds()
EOF
