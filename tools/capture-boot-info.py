#!/usr/bin/env python3
"""capture-boot-info.py - dump what a multiboot2 loader and UEFI firmware hand irqkit, for the host
tests of arch/x86/multiboot2.c and arch/x86/efi.c (tests/unit/test_multiboot2.c, test_efi.c) and
the seeds of their fuzz targets.

For each configuration it boots build/irqkit.iso (GRUB's default entry: multiboot2) in QEMU, waits
for the shell, reads from the kernel's boot log where the multiboot2 information and the EFI system
table are, and saves physical memory with QMP's pmemsave (the kernel keeps its heap above itself,
so the loader's and the firmware's structures are still there):

  tests/fixtures/mb2/<config>.bin     the multiboot2 information structure (total_size bytes)
  tests/fixtures/<config>/mem-*.bin   UEFI only: the pages holding the EFI system table, its
                                      configuration table, the RSDP it names, the XSDT/RSDT and
                                      every table listed there (with the FADT's FACS and DSDT),
                                      each file named after its first byte's physical address
                                      (the format of tools/capture-fw-tables.sh, read by
                                      tests/fixtures/fixture.c)

and writes the seeds tests/fuzz/corpus/multiboot2/seed-<config> (a control byte 0 and the
structure; see tests/fuzz/fuzz_multiboot2.c).

Usage: tools/capture-boot-info.py [config ...]   (default: all). Needs `make all` first, QEMU and,
for the UEFI configurations, Debian's ovmf. About 10 s per configuration.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

from qemuio import Qmp, QmpError  # the QMP client the tests use too (tools/qemuio.py)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
ISO = os.path.join(ROOT, "build", "irqkit.iso")
OVMF_CODE = "/usr/share/OVMF/OVMF_CODE_4M.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS_4M.fd"
PAGE = 0x1000
EFI_SYSTAB_SIG = 0x5453595320494249          # "IBI SYST"
ACPI20_GUID = bytes.fromhex("71e86888f1e4d311bc220080c73c8881")
ACPI10_GUID = bytes.fromhex("302d9deb882dd3119a160090273fc14d")

# name -> (QEMU binary, arguments, UEFI?)
CONFIGS = {
    "seabios-pc": ("qemu-system-i386", ["-machine", "pc"], False),
    "ovmf-q35": ("qemu-system-x86_64", ["-machine", "q35", "-smp", "2"], True),
}
COMMON = ["-m", "128M", "-display", "none", "-monitor", "none", "-no-reboot", "-cdrom", ISO]


def pmem(qmp, tmp, addr, length):
    path = os.path.join(tmp, f"{addr:x}.bin")
    qmp.call("pmemsave", val=addr, size=length, filename=path)
    with open(path, "rb") as f:
        data = f.read()
    if len(data) != length:
        sys.exit(f"capture: short pmemsave at {addr:#x}")
    return data


def pages(addr, length):
    """The 4 KiB pages covering [addr, addr + length)."""
    return set(range(addr & ~(PAGE - 1), addr + length, PAGE))


def efi_pages(qmp, tmp, systab):
    """Pages holding the system table, its configuration table, the ACPI RSDP and tables."""
    want = pages(systab, 120)
    st = pmem(qmp, tmp, systab, 120)
    sig, _, hsize = struct.unpack_from("<QII", st, 0)
    if sig != EFI_SYSTAB_SIG:
        sys.exit(f"capture: no EFI system table at {systab:#x}")
    count, cfg = struct.unpack_from("<QQ", st, 104)
    want |= pages(cfg, count * 24)
    ct = pmem(qmp, tmp, cfg, count * 24)
    rsdp = None
    for i in range(count):
        guid, ptr = ct[i * 24:i * 24 + 16], struct.unpack_from("<Q", ct, i * 24 + 16)[0]
        if guid == ACPI20_GUID or (guid == ACPI10_GUID and rsdp is None):
            rsdp = ptr
    if rsdp is None:
        sys.exit("capture: no ACPI 2.0 entry in the EFI configuration table")
    r = pmem(qmp, tmp, rsdp, 36)
    want |= pages(rsdp, 36)
    root, entry = struct.unpack_from("<Q", r, 24)[0], 8
    if not root:
        root, entry = struct.unpack_from("<I", r, 16)[0], 4

    def table(addr):
        n = struct.unpack_from("<I", pmem(qmp, tmp, addr, 8), 4)[0]
        want.update(pages(addr, n))
        return pmem(qmp, tmp, addr, n)

    rt = table(root)
    for off in range(36, len(rt), entry):
        addr = struct.unpack_from("<I" if entry == 4 else "<Q", rt, off)[0]
        t = table(addr)
        if t[:4] == b"FACP":
            for ptr in struct.unpack_from("<II", t, 36):
                if ptr:
                    table(ptr)
    return sorted(want)


def capture(name):
    binary, args, uefi = CONFIGS[name]
    with tempfile.TemporaryDirectory() as tmp:
        qmp_path = os.path.join(tmp, "qmp")
        fw = []
        if uefi:
            vars_copy = os.path.join(tmp, "vars.fd")
            shutil.copy(OVMF_VARS, vars_copy)
            fw = ["-drive", f"if=pflash,format=raw,readonly=on,file={OVMF_CODE}",
                  "-drive", f"if=pflash,format=raw,file={vars_copy}"]
        p = subprocess.Popen([binary] + args + COMMON + fw + ["-serial", "stdio",
                             "-qmp", f"unix:{qmp_path},server=on,wait=off"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        log = b""
        deadline = time.monotonic() + 120
        while b"irqkit> " not in log:
            if time.monotonic() > deadline:
                p.kill()
                sys.exit(f"capture: {name}: no shell prompt")
            log += p.stdout.read1(4096)
        text = log.decode("utf-8", "replace")
        try:
            qmp = Qmp(qmp_path, timeout=10, alive=lambda: p.poll() is None)
            m = re.search(r"boot: multiboot2 information at (0x[0-9a-f]+), (\d+) bytes", text)
            if not m:
                sys.exit(f"capture: {name}: the kernel did not say where the multiboot2 information is")
            info = pmem(qmp, tmp, int(m.group(1), 16), int(m.group(2)))
            dumps = {}
            if uefi:
                m = re.search(r"boot: EFI 64-bit system table at (0x[0-9a-f]+)", text)
                if not m:
                    sys.exit(f"capture: {name}: no EFI system table in the boot log")
                run = []
                for pg in efi_pages(qmp, tmp, int(m.group(1), 16)) + [None]:
                    if run and (pg is None or pg != run[-1] + PAGE):
                        dumps[run[0]] = pmem(qmp, tmp, run[0], len(run) * PAGE)
                        run = []
                    if pg is not None:
                        run.append(pg)
            qmp.call("quit")
        except QmpError as e:
            sys.exit(f"capture: {name}: {e}")
        finally:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
    os.makedirs(os.path.join(ROOT, "tests", "fixtures", "mb2"), exist_ok=True)
    with open(os.path.join(ROOT, "tests", "fixtures", "mb2", name + ".bin"), "wb") as f:
        f.write(info)
    if dumps:
        out = os.path.join(ROOT, "tests", "fixtures", name)
        os.makedirs(out, exist_ok=True)
        for f in os.listdir(out):
            if f.startswith("mem-"):
                os.unlink(os.path.join(out, f))
        for addr, data in dumps.items():
            with open(os.path.join(out, f"mem-{addr:08x}.bin"), "wb") as f:
                f.write(data)
    seeds = os.path.join(ROOT, "tests", "fuzz", "corpus", "multiboot2")
    os.makedirs(seeds, exist_ok=True)
    with open(os.path.join(seeds, "seed-" + name), "wb") as f:
        f.write(b"\0" + info)
    print(f"{name:12} multiboot2 {len(info)} bytes; " +
          " ".join(f"{a:#010x}+{len(d):#x}" for a, d in sorted(dumps.items())))


def main():
    names = sys.argv[1:] or list(CONFIGS)
    for name in names:
        if name not in CONFIGS:
            sys.exit(f"capture: unknown configuration {name}; known: {' '.join(CONFIGS)}")
        capture(name)


if __name__ == "__main__":
    main()
