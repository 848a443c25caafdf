#!/usr/bin/env python3
"""scenarios.py - boot irqkit in QEMU, play named scenarios of broken interrupt
delivery with the event trace on, and keep each scenario's `trace dump`.

    scenarios.py [--out build/trace] [--icount N] NAME [NAME ...]     (or: all)

Every named scenario runs in ONE boot (pc, IOAPIC mode, -nodefaults, an IDE
disk, a UHCI with a USB stick and keyboard, an e1000 on the UHCI's IRQ 11),
one after the other, each between `trace clear` + `trace start FILTER` and
`trace stop` + `trace dump`; the faults are real (docs/reference.md, "Scenarios") and are
switched off again before the next scenario. For each NAME it writes
OUT/NAME.dump (the dump as printed), and, through irqtrace.py, OUT/NAME.json
(Chrome trace-event / Perfetto) and OUT/NAME.html. `make trace SCENARIO=NAME`
runs it; tests/qemu/test_trace.py imports run_scenarios() and checks each
trace's sequence of events.

Scenarios:
  healthy         disk reads with working interrupts (line 14)
  ata-drop:100    every disk interrupt suppressed (nIEN): IRQ expecting polls (line 14)
  ata-recover     the first reads after `inject off ata-drop`: the token still distrusts the line,
                  its polls meet interrupts that work again (the verdicts of docs/course/4-defences.md)
  ata-mask        the disk's IOAPIC pin masked behind the core's back, two reads (line 14)
  spurious-flood  LAPIC self-IPIs on line 14's vector while the disk reads (line 14)
  e1000-storm     the NIC holds the shared level line 11 asserted; contained, then back (line 11)
  uhci-misroute   the UHCI's interrupts routed to a masked ISA IRQ: IRQ watching polls it (line 11)
  msi-mask        a second boot, q35 with an NVMe: its I/O queue's MSI-X entry masked behind the
                  core's back (the I/O queue's message line, 32 and up)
  ahci-noirq:100  the same q35 boot: the AHCI port's interrupt enables (PxIE) cleared for every
                  command, so the HBA sends nothing; IRQ expecting polls (the HBA's MSI line)
  smp-ata-race    a third boot, pc with -smp 2: the disk's line on CPU 1 (`affinity 14 1`), the
                  polls on CPU 0, single-sector reads under `ata-race` (polls aimed at the
                  interrupts' arrival, docs/smp.md): one track per CPU, the race seen (line 14)
"""
import argparse
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
sys.path.insert(0, HERE)

import diskimg  # noqa: E402
import irqtrace  # noqa: E402
from irqkit_qemu import Guest  # noqa: E402
from shellwait import run  # noqa: E402

SECTOR = diskimg.SECTOR
DISK_BYTES = 4 << 20
STICK_BYTES = 1 << 20
CRC_RX = re.compile(r"crc32 (\w+) (\d+)\+(\d+) = ([0-9a-f]{8}) ")
DUMP_END_RX = r"@irqkit-trace-end v\d+ .*\n"
# The order of one boot: uhci-misroute last (it takes the UHCI off line 11 for good).
ORDER = ("healthy", "ata-drop:100", "ata-recover", "ata-mask", "spurious-flood", "e1000-storm", "uhci-misroute", "msi-mask", "ahci-noirq:100",
         "smp-ata-race")
SMP_SECTORS = 256   # smp-ata-race: one interrupt each, a few thousand events per CPU (rings of 16,384)
NVME_BYTES = 4 << 20
AHCI_BYTES = 4 << 20
WAIT_S = 20   # longest wait for one log line of a scenario (guest under TCG on a loaded host)


class ScenarioFailed(AssertionError):
    pass


def crc(g, cmd, timeout=120):
    m = CRC_RX.search(run(g, cmd, timeout=timeout))
    if not m:
        raise ScenarioFailed(f"{cmd}: no crc line")
    return int(m.group(4), 16)


def check_crc(g, cmd, path, count):
    got = crc(g, cmd)
    want = diskimg.crc_of(path, 0, count * SECTOR)
    if got != want:
        raise ScenarioFailed(f"{cmd}: kernel crc {got:08x}, host crc of the image {want:08x}")


def irqs_line_ok(g, line):
    """Whether `irqs` shows @line enabled and not on polling for a storm."""
    out = run(g, "irqs")
    row = next((r for r in out.split("\n") if r.split()[:1] == [str(line)]), "")
    storm = re.search(rf"^  line {line}: ON POLLING \([^)]*storm", out, re.M)
    return row and "disabled" not in row and not storm


def wait_line_back(g, line, timeout=15):
    deadline = time.monotonic() + timeout
    while not irqs_line_ok(g, line):
        if time.monotonic() > deadline:
            raise ScenarioFailed(f"line {line} not back on interrupts after {timeout} s")
        time.sleep(0.3)


def sc_healthy(g, env):
    check_crc(g, "ata crc 0 64", env["disk"], 64)


def sc_ata_drop(g, env):
    assert "INJECTED" in g.command("inject ata-drop:100")
    check_crc(g, "ata crc 0 64", env["disk"], 64)
    g.command("inject off ata-drop")


def sc_ata_recover(g, env):
    assert "INJECTED" in g.command("inject ata-drop:100")
    check_crc(g, "ata crc 0 64", env["disk"], 64)
    g.command("inject off ata-drop")
    g.command("trace clear")      # the trace keeps running: it holds the read after the fault only
    check_crc(g, "ata crc 0 256", env["disk"], 256)


def sc_ata_mask(g, env):
    assert "INJECTED" in g.command("inject ata-mask")
    # Two reads: a find's verdict waits until the CPU has finished an interrupt since the find
    # (kernel/irq/stall.c). When ata-recover leaves the token distrusted (the host decides how
    # often its polls beat the interrupts that work again), all of a read's polls run back to
    # back in one poll timer interrupt, and only the next read's first find judges them (lost).
    check_crc(g, "ata crc 0 64", env["disk"], 64)
    check_crc(g, "ata crc 0 64", env["disk"], 64)
    g.command("inject off ata-mask")


def sc_spurious_flood(g, env):
    start = len(g.log)
    out = g.command("inject spurious-flood:14")
    if "IPIs on vector" not in out:
        raise ScenarioFailed(f"inject spurious-flood:14: {out}")
    # Once the line is off for flooding (100 ms of guest time), the disk reads by polling.
    g.wait_for(r"irq 14: \d+ of \d+ interrupts unclaimed", WAIT_S, start)
    check_crc(g, "ata crc 0 64", env["disk"], 64)
    run(g, "inject off spurious-flood", done=r"fault: spurious-flood switched off\n")
    wait_line_back(g, 14)


def sc_e1000_storm(g, env):
    start = len(g.log)
    assert "INJECTED e1000-storm" in g.command("inject e1000-storm")
    g.wait_for(r"irq 11: \d+ of \d+ interrupts unclaimed", WAIT_S, start)
    time.sleep(0.5)
    run(g, "inject off e1000-storm", done=r"fault: e1000-storm switched off\n")
    wait_line_back(g, 11)


def sc_uhci_misroute(g, env):
    out = g.command("inject uhci-misroute")
    if "INJECTED" not in out:
        raise ScenarioFailed(f"inject uhci-misroute: {out}")
    got = crc(g, f"blk crc usba 0 {STICK_BYTES // SECTOR}")
    if got != diskimg.crc_of(env["stick"]):
        raise ScenarioFailed("blk crc usba: the stick read back wrong under uhci-misroute")


def nvme_io_line(g):
    m = re.search(r"nvme0q1: I/O queue 1, \d+ entries, line (\d+)", g.command("nvme"))
    if not m:
        raise ScenarioFailed("no NVMe I/O queue line in `nvme`")
    return m.group(1)


def sc_msi_mask(g, env):
    assert "INJECTED" in g.command("inject msi-mask")
    got = crc(g, "blk crc nvme0n1 0 512")
    if got != diskimg.crc_of(env["nvme"], 0, 512 * SECTOR):
        raise ScenarioFailed("blk crc nvme0n1: wrong data under msi-mask")
    g.command("inject off msi-mask")


def ahci_line(g):
    m = re.search(r"ahci0: pci .* line (\d+),", g.command("ata"))
    if not m:
        raise ScenarioFailed("no AHCI line in `ata`")
    return m.group(1)


def sc_ahci_noirq(g, env):
    out = g.command("inject ahci-noirq:100")
    if "INJECTED" not in out:
        raise ScenarioFailed(f"inject ahci-noirq:100: {out}")
    got = crc(g, "blk crc sda 0 512")
    if got != diskimg.crc_of(env["ahci"], 0, 512 * SECTOR):
        raise ScenarioFailed("blk crc sda: wrong data under ahci-noirq:100")
    g.command("inject off ahci-noirq")


def sc_smp_ata_race(g, env):
    if "CPUs 0x2" not in g.command("affinity 14 1"):
        raise ScenarioFailed("affinity 14 1 refused")
    g.command("ata set hda multiple 0")
    out = g.command("inject ata-race")
    if "INJECTED" not in out:
        raise ScenarioFailed(f"inject ata-race: {out}")
    check_crc(g, f"ata crc 0 {SMP_SECTORS}", env["disk"], SMP_SECTORS)
    g.command("inject off ata-race")


# name: (machine, trace filter (or a function of the guest giving it), what to do)
SCENARIOS = {
    "healthy": ("pc", "14", sc_healthy),
    "ata-drop:100": ("pc", "14", sc_ata_drop),
    "ata-recover": ("pc", "14", sc_ata_recover),
    "ata-mask": ("pc", "14", sc_ata_mask),
    "spurious-flood": ("pc", "14,irq,poll,expect,state,drv", sc_spurious_flood),
    "e1000-storm": ("pc", "11,irq,poll,expect,state,drv", sc_e1000_storm),
    "uhci-misroute": ("pc", "11", sc_uhci_misroute),
    "msi-mask": ("q35", nvme_io_line, sc_msi_mask),
    "ahci-noirq:100": ("q35", ahci_line, sc_ahci_noirq),
    "smp-ata-race": ("pc-smp", "14", sc_smp_ata_race),
}


def boot(tmpdir, icount, factory=None, machine="pc"):
    make = factory or Guest
    if machine == "q35":
        nvme = os.path.join(tmpdir, "nvme.img")
        ahci = os.path.join(tmpdir, "ahci.img")
        diskimg.make_random_image(nvme, NVME_BYTES, 21)
        diskimg.make_random_image(ahci, AHCI_BYTES, 23)
        g = make(machine="q35", append="debugexit", icount=icount,
                 extra=["-drive", f"file={nvme},if=none,id=n,format=raw",
                        "-device", "nvme,serial=irqkit,drive=n,addr=04.0",
                        "-drive", f"file={ahci},if=none,id=d,format=raw",
                        "-device", "ide-hd,drive=d,bus=ide.0"])
        g.wait_shell(90)
        return g, {"nvme": nvme, "ahci": ahci}
    if machine == "pc-smp":
        # Two CPUs: parallel vCPUs under multi-threaded TCG; with icount QEMU runs them in turn
        # on one thread (it has no icount with multi-threaded TCG): still two CPUs, two rings.
        disk = os.path.join(tmpdir, "smp-disk.img")
        diskimg.make_random_image(disk, DISK_BYTES, 9)
        g = make(append="debugexit", icount=icount, accel=None if icount is not None else "tcg,thread=multi",
                 extra=["-nodefaults", "-smp", "2", "-drive", f"file={disk},format=raw,if=ide,index=0"])
        g.wait_shell(90)
        return g, {"disk": disk}
    disk = os.path.join(tmpdir, "disk.img")
    stick = os.path.join(tmpdir, "stick.img")
    diskimg.make_random_image(disk, DISK_BYTES, 8)
    diskimg.make_random_image(stick, STICK_BYTES, 11)
    extra = ["-nodefaults", "-drive", f"file={disk},format=raw,if=ide,index=0",
             "-device", "e1000,addr=03.0", "-usb", "-device", "usb-kbd,port=1",
             "-drive", f"if=none,id=us,file={stick},format=raw", "-device", "usb-storage,drive=us,port=2"]
    g = make(append="debugexit", extra=extra, icount=icount)
    g.wait_shell(90)
    g.wait_for(r"usba: USB mass storage .*per command\n", 60)
    return g, {"disk": disk, "stick": stick}


def run_scenarios(names, icount=None, factory=None, tmpdir=None):
    """Boot once and play @names in the order of ORDER. RETURNS ({name: dump text}, guest log)."""
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        raise ScenarioFailed(f"unknown scenario(s) {', '.join(unknown)}; known: {', '.join(ORDER)}")
    tmp = tmpdir or tempfile.mkdtemp(prefix="irqkit-trace-")
    dumps, logs = {}, []
    for machine in ("pc", "q35", "pc-smp"):   # one boot per machine the scenarios need
        todo = [n for n in ORDER if n in names and SCENARIOS[n][0] == machine]
        if not todo:
            continue
        g, env = boot(tmp, icount, factory, machine)
        try:
            for name in todo:
                _, flt, play = SCENARIOS[name]
                flt = flt(g) if callable(flt) else flt
                g.command("trace clear")
                out = g.command(f"trace start {flt}")
                if "trace: on" not in out:
                    raise ScenarioFailed(f"trace start {flt}: {out}")
                play(g, env)
                g.command("trace stop")
                start = len(g.log)
                run(g, "trace dump", done=DUMP_END_RX, timeout=300)
                dumps[name] = g.log[start:]
            logs.append(g.log)
        finally:
            if factory is None:
                g.kill()
    return dumps, "".join(logs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="+", help="scenario names, or all")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "trace"))
    ap.add_argument("--icount", type=int, default=None, help="QEMU -icount shift (guest time from instructions)")
    args = ap.parse_args()
    names = list(ORDER) if args.names == ["all"] else args.names
    os.makedirs(args.out, exist_ok=True)
    try:
        dumps, _ = run_scenarios(names, args.icount)
    except (ScenarioFailed, AssertionError) as e:
        print(f"trace: scenario failed: {e}", file=sys.stderr)
        return 1
    status = 0
    for name, text in dumps.items():
        base = os.path.join(args.out, name.replace(":", "-"))
        with open(base + ".dump", "w") as f:
            f.write(text)
        rc = irqtrace.main([base + ".dump", "--json", base + ".json", "--html", base + ".html", "--summary",
                            "--title", f"irqkit: scenario {name}"])
        status = status or rc
        print(f"trace: {name}: {base}.json {base}.html")
    return status


if __name__ == "__main__":
    sys.exit(main())
