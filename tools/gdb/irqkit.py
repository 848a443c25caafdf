"""irqkit.py - gdb commands for irqkit's interrupt core, in the manner of Linux's
lx-interruptlist (scripts/gdb/linux/interrupts.py). Loaded by the command line `make debug`
prints (`-x tools/gdb/irqkit.py`); works on a running target stopped by gdb, a halted or a
crashed kernel: it only reads memory through the kernel's debug information.

  irqkit-irqs [all]   every line with a handler or a delivery (all: every line): chip, flow,
                      status, depth, counters, flood state, poll timer, each action with its
                      handler, flags, expect tokens and watch state
  irqkit-trace        the event trace's rings decoded, in the text format of `trace dump`
                      (docs/trace.md, format v2), so `tools/trace/irqtrace.py` reads it too

Only the core's own symbols are used (irq_descs, irq_trace_rings, irq_trace_tag_names and the
name tables of kernel/irq/trace.c), so the names printed are the kernel's.
"""
import gdb

FNV_OFFSET, FNV_PRIME = 2166136261, 16777619

# kernel/irq/internals.h
IRQS = [(0x1, "inprogress"), (0x2, "pending"), (0x4, "disabled"), (0x8, "polling"), (0x10, "replay"),
        (0x20, "masked")]
IRQ_EXP = [(0x1, "live"), (0x2, "expecting"), (0x4, "verified"), (0x8, "quick"), (0x10, "used"),
           (0x20, "distrusted"), (0x40, "first_poll"), (0x80, "claim")]
IRQ_WAT = [(0x1, "watching"), (0x2, "polled"), (0x4, "wary"), (0x8, "bad")]
IRQF_SHARED = 0x80


def bits(value, table):
    names = [n for b, n in table if value & b]
    return ",".join(names) if names else "-"


def cstr(ptr, limit=64):
    addr = int(ptr)
    if addr == 0:
        return None
    try:
        raw = bytes(gdb.selected_inferior().read_memory(addr, limit))
    except gdb.MemoryError:
        return f"<bad string at {addr:#x}>"
    return raw.split(b"\0", 1)[0].decode("ascii", "replace")


def symbol_of(ptr):
    """The function at @ptr (an ELF symbol, not an inlined block)."""
    addr = int(ptr)
    if addr == 0:
        return "none"
    try:
        text = gdb.execute(f"info symbol {addr:#x}", to_string=True).strip()
    except gdb.error:
        return f"{addr:#x}"
    m = text.split(" in section ")[0]
    return m.replace(" + ", "+") if m and not m.startswith("No symbol") else f"{addr:#x}"


def array_len(val):
    lo, hi = val.type.range()
    return hi - lo + 1


# The line counters in the order of kernel/irq's enum irq_stat (internals.h).
IRQ_STATS = ("delivered", "handled", "unhandled", "spurious", "polled")


def line_counts(irq):
    """Line @irq's counters summed over the CPUs' slots of irq_cpu_stats (kernel/irq keeps them per
    CPU: core.h, irq_stat_inc), with the 64-bit folded part a 32-bit build keeps."""
    table = gdb.parse_and_eval("irq_cpu_stats")
    sums = dict.fromkeys(IRQ_STATS, 0)
    for cpu in range(array_len(table)):
        slot = table[cpu][irq]
        try:
            folded = slot["folded"]  # 32-bit builds only (IRQ_STAT_FOLDS)
        except gdb.error:
            folded = None
        for i, name in enumerate(IRQ_STATS):
            sums[name] += int(slot["n"][i]) + (int(folded[i]) if folded is not None else 0)
    return sums


class IrqkitIrqs(gdb.Command):
    """irqkit-irqs [all]: the interrupt lines of kernel/irq (descriptors, actions, defence state)."""

    def __init__(self):
        super().__init__("irqkit-irqs", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        show_all = arg.strip() == "all"
        descs = gdb.parse_and_eval("irq_descs")
        n = array_len(descs)
        gdb.write(f"{'line':>4} {'chip':<8} {'flow':<18} {'status':<22} {'depth':>5} {'delivered':>9} "
                  f"{'handled':>8} {'unhandled':>9} {'spurious':>8} {'polled':>7}\n")
        for irq in range(n):
            d = descs[irq]
            st = line_counts(irq)
            action = d["action"]
            if not show_all and int(action) == 0 and int(st["delivered"]) == 0:
                continue
            chip = cstr(d["chip"]["name"]) if int(d["chip"]) else "none"
            gdb.write(f"{irq:>4} {chip:<8} {symbol_of(d['handle_irq']):<18} "
                      f"{bits(int(d['status']), IRQS):<22} {int(d['depth']):>5} {int(st['delivered']):>9} "
                      f"{int(st['handled']):>8} {int(st['unhandled']):>9} {int(st['spurious']):>8} "
                      f"{int(st['polled']):>7}\n")
            df = d["def"]
            flood = ("off" if bool(df["flood_off"]) else "testing" if bool(df["flood_testing"]) else "on")
            gdb.write(f"     defences: flood {flood} (floods {int(df['floods'])}), poll timer "
                      f"{'at ' + str(int(df['poll_at_ns'])) + ' ns' if int(df['poll_at_ns']) else 'not armed'}, "
                      f"polls {int(df['polls'])}, polled claims {int(df['polled_claims'])}, "
                      f"watching {int(df['watching'])}\n")
            walked = 0
            while int(action) and walked < 64:
                a = action.dereference()
                w = a["watch"]
                gdb.write(f"     action \"{cstr(a['name'])}\" handler {symbol_of(a['handler'])} "
                          f"flags {int(a['flags']):#x}{' shared' if int(a['flags']) & IRQF_SHARED else ''} "
                          f"handled {int(a['handled'])} polled {int(a['polled_handled'])} "
                          f"watch {bits(int(w['flags']), IRQ_WAT)}\n")
                e, k = a["expects"], 0
                while int(e) and k < 64:
                    t = e.dereference()
                    gdb.write(f"       expect token {int(e) & 0xFFFFFFFF:08x} "
                              f"{bits(int(t['state']), IRQ_EXP)} by irq {int(t['completions_irq'])} "
                              f"by poll {int(t['completions_polled'])} late {int(t['completions_late'])} "
                              f"timeouts {int(t['timeouts'])}\n")
                    e, k = t["next"], k + 1
                action, walked = a["next"], walked + 1


def names(sym):
    """A C table of strings of kernel/irq/trace.c, as a Python list."""
    v = gdb.parse_and_eval(sym)
    return [cstr(v[i]) or "?" for i in range(array_len(v))]


class IrqkitTrace(gdb.Command):
    """irqkit-trace: the event trace's rings, in the text format of `trace dump` (format v2)."""

    def __init__(self):
        super().__init__("irqkit-trace", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        rings = gdb.parse_and_eval("irq_trace_rings")
        ncpu = array_len(rings)
        ring_n = array_len(rings[0]["e"])
        tags = gdb.parse_and_eval("irq_trace_tag_names")
        t = {k: names(k) for k in ("irq_trace_names", "irq_trace_flow_names", "irq_trace_ret_names",
                                   "irq_trace_chip_names", "irq_trace_why_names", "irq_trace_poll_names",
                                   "irq_trace_unexp_names", "irq_trace_verdict_names", "irq_trace_state_names",
                                   "irq_trace_drv_names")}
        name = lambda table, i: t[table][i] if 0 <= i < len(t[table]) else "?"
        used = [min(int(rings[c]["head"]), ring_n) for c in range(ncpu)]
        dropped = int(gdb.parse_and_eval("irq_trace_bad_cpu")) + sum(int(rings[c]["dropped"]) for c in range(ncpu))
        version = 2
        out = [f"@irqkit-trace v{version} cpus={ncpu} ring={ring_n} slots={sum(used)} dropped={dropped} clock=ns"]
        h, seq, unwritten = FNV_OFFSET, 0, 0
        nev = len(t["irq_trace_names"])
        for c in range(ncpu):
            for i in range(used[c]):
                e = rings[c]["e"][i]
                typ = int(e["type"])
                if typ == 0 or typ >= nev:
                    unwritten += 1
                    continue
                ev, sub, a, line = t["irq_trace_names"][typ], int(e["sub"]), int(e["arg"]), int(e["line"])
                f = self.fields(ev, sub, a, name, tags)
                text = f"@T {seq} {c} {int(e['ts_ns'])} {ev} {'-' if line == 0xFFFF else line}{f}"
                for b in text.encode() + b"\n":
                    h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFF
                out.append(text)
                seq += 1
        out.append(f"@irqkit-trace-end v{version} events={seq} dropped={dropped} unwritten={unwritten} hash={h:08x}")
        gdb.write("\n".join(out) + "\n")

    @staticmethod
    def fields(ev, sub, a, name, tags):
        if ev in ("irq_entry", "irq_exit"):
            return f" flow={name('irq_trace_flow_names', sub)}"
        if ev == "action":
            return f" idx={a & 0xFF} ret={name('irq_trace_ret_names', sub)} run={'poll' if a & 0x100 else 'irq'}"
        if ev == "chip":
            return f" op={name('irq_trace_chip_names', sub)}"
        if ev == "poll_start":
            why = [name("irq_trace_why_names", i) for i in range(8) if sub & (1 << i)]
            return f" why={'+'.join(why) if why else 'none'}"
        if ev == "poll_end":
            return f" result={name('irq_trace_poll_names', sub)}"
        if ev == "expect":
            return f" token={a:08x}"
        if ev == "unexpect":
            return f" token={a:08x} by={name('irq_trace_unexp_names', sub)}"
        if ev == "verdict":
            k = name("irq_trace_verdict_names", sub)
            return f" kind={k} " + (f"count={a}" if k in ("watch_late", "watch_polled", "watch_stalled")
                                    else f"token={a:08x}")
        if ev == "state":
            w = name("irq_trace_state_names", sub)
            return f" what={w} " + (f"token={a:08x}" if w in ("verified", "distrusted") else f"value={a}")
        if ev == "poll_arm":
            return " cancel=1" if sub else f" in_us={a}"
        if ev == "drv":
            tag = a >> 24
            tname = cstr(tags[tag]) if 0 < tag < array_len(tags) else None
            return f" name={tname or 'unknown'} kind={name('irq_trace_drv_names', sub)} value={a & 0xFFFFFF}"
        return ""


IrqkitIrqs()
IrqkitTrace()
