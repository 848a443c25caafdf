"""gdb commands of tools/gdb/irqkit.py against a real kernel halted by the test (docs/trace.md):
the kernel's own `irqs` and `trace dump`, printed just before QEMU is stopped, are the known state;
`irqkit-trace` must print the very same dump from guest memory (byte for byte, so its hash
matches too) and `irqkit-irqs` the same counters and handlers for the disk's line.
"""
import os
import re
import shutil
import socket
import subprocess

import pytest

import diskimg
from shellwait import run

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GDB = shutil.which("gdb-multiarch")
SCRIPT = os.path.join(ROOT, "tools", "gdb", "irqkit.py")
KERNEL = os.path.join(ROOT, "build", "kernel.elf")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def gdb_batch(port, *commands):
    args = [GDB, "-nx", "-batch", "-ex", "set architecture i386", "-ex", f"file {KERNEL}",
            "-ex", f"source {SCRIPT}", "-ex", f"target remote 127.0.0.1:{port}"]
    for c in commands:
        args += ["-ex", c]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and "Python Exception" not in r.stderr, r.stderr
    return r.stdout


@pytest.mark.skipif(GDB is None, reason="gdb-multiarch is not installed (tools/deps.sh installs it)")
def test_irqkit_gdb_commands_print_the_halted_kernels_lines_and_trace(guest_factory, tmp_path):
    disk = str(tmp_path / "disk.img")
    diskimg.make_random_image(disk, 4 << 20, 8)
    port = free_port()
    g = guest_factory(append="debugexit trace=14 fault=ata-drop:100",
                      extra=["-nodefaults", "-drive", f"file={disk},format=raw,if=ide,index=0",
                             "-gdb", f"tcp:127.0.0.1:{port}"], icount=3)
    g.wait_shell(60)
    run(g, "ata crc 0 64", timeout=60)
    g.command("trace stop")
    irqs = run(g, "irqs")
    start = len(g.log)
    run(g, "trace dump", done=r"@irqkit-trace-end v\d+ .*\n", timeout=120)
    dump = [l.strip() for l in g.log[start:].split("\n") if l.strip().startswith("@")]
    g.qmp_cmd("stop")                     # halted: nothing moves while gdb reads

    out = gdb_batch(port, "irqkit-trace", "irqkit-irqs")
    got = [l.strip() for l in out.split("\n") if l.startswith("@")]
    assert len(dump) > 10 and any(" verdict 14 kind=lost " in l for l in dump), dump[:5]
    assert got == dump                    # same events, same fields, same hash

    row = next(r.split() for r in irqs.split("\n") if r.split()[:1] == ["14"])
    delivered, handled, unhandled = row[1], row[2], row[3]
    line14 = next(l for l in out.split("\n") if re.match(r"\s+14 ", l))
    f = line14.split()
    assert f[1] == "IO-APIC" and f[2] == "handle_edge_irq", line14
    assert (f[5], f[6], f[7]) == (delivered, handled, unhandled), (line14, row)
    # the distrusted token's slow polls go on between `irqs` and the stop: polled only grows
    assert int(f[9]) >= int(row[5]), (line14, row)
    assert re.search(r'action "ata0" handler ata_hw_interrupt flags 0x\w+ handled \d+ polled (\d+)', out), out
    assert re.search(r'action "serial" handler uart_\w+ ', out), out    # the ELF symbol, not an inlined inb
    polled = int(re.search(r'action "ata0" .* polled (\d+)', out).group(1))
    assert polled >= 1                    # ata-drop:100: blocks were found by polls
    assert re.search(r"expect token [0-9a-f]{8} live,\S*distrusted\S* by irq \d+ by poll [1-9]", out), out
