#!/usr/bin/env python3
"""irqtrace.py - read a dump of irqkit's interrupt-core event trace and draw it.

The input is the text `trace dump` prints on the serial console (format v2,
or v1 of the kernels before it: docs/trace.md), alone or inside a saved serial log: lines that do not start
with '@' (the kernel's other messages, the shell) are skipped; the LAST dump
in the input is read. It must be whole: a header line, every event line
numbered in order, an end line whose count and FNV-1a hash match. Anything
else (an empty input, a truncated or corrupted dump, another format version)
is an error that names the line, and nothing is written.

    irqtrace.py DUMP [--json OUT.json] [--html OUT.html] [--svg OUT.svg]
                     [--summary] [--title TEXT] [--lines 14,11] [--window START_MS:END_MS]

    --json     Chrome trace-event JSON (chrome://tracing, ui.perfetto.dev): a track
               per CPU and per line, instants for verdicts and state changes, flow
               arrows from each expect_irq to the run of the handlers that ended it
    --html     one self-contained page: the SVG timeline, zoom, legend, per-line summary
    --svg      the SVG timeline alone (the course's pictures, docs/course/)
    --summary  a text summary on stdout (also the default when no output is asked for)
    --polled LINE  where the time of LINE's completions found by polling goes: the
               finding poll's run, the core's bookkeeping until the timer is armed
               again, the armed delay, the timer's lateness, empty polls
               (tools/guestprof/prof_ata.py prints it for a lost ATA pass)

Standard library only; nothing is fetched at run time. Exit status: 0, 2 on
a bad input (message on stderr, no traceback), 1 when an output cannot be written.
"""
import argparse
import html
import html as html_mod
import json
import os
import re
import sys
import tempfile

FORMAT_VERSION = 2
# v2 = v1 plus the verdicts "stalled" and "watch_stalled" (a stalled CPU is not a lost interrupt):
# a v1 dump is a v2 dump that has none of them, so both are read.
FORMAT_READ = (1, 2)
V2_ONLY = {"kind": {"stalled", "watch_stalled"}}
FNV_OFFSET = 2166136261
FNV_PRIME = 16777619

# The events of format v2 and the fields each carries (docs/trace.md, "Events").
EVENTS = {
    "irq_entry": ("flow",),
    "irq_exit": ("flow",),
    "action": ("idx", "ret", "run"),
    "chip": ("op",),
    "poll_start": ("why",),
    "poll_end": ("result",),
    "expect": ("token",),
    "unexpect": ("token", "by"),
    "verdict": ("kind",),          # + token or count
    "state": ("what",),            # + token or value
    "poll_arm": (),                # in_us or cancel
    "drv": ("name", "kind", "value"),
}
VALUES = {
    "flow": {"none", "edge", "level", "fasteoi", "custom"},
    "ret": {"none", "handled", "bad"},
    "run": {"irq", "poll"},
    "op": {"mask", "unmask", "ack", "mask_ack", "eoi"},
    "result": {"none", "handled", "busy", "noaction", "disabled", "deferred", "other"},
    "by": {"irq", "poll", "timeout"},
    "kind": {"late", "unsure", "lost", "beat", "watch_late", "watch_polled", "stalled", "watch_stalled",
             "begin", "end", "mark"},
    "what": {"verified", "distrusted", "flood_off", "reenable", "flood_over", "watch_bad", "watch_end",
             "health_begin", "health_end"},
}
WHY = {"expect", "watch", "flood", "irqpoll", "fixup", "health", "hand", "caller", "none"}
HEADER_RX = re.compile(r"^@irqkit-trace v(\d+)((?: \w+=\S+)*)$")
END_RX = re.compile(r"^@irqkit-trace-end v(\d+)((?: \w+=\S+)*)$")
EVENT_RX = re.compile(r"^@T (\d+) (\d+) (\d+) ([a-z_]+) (\d+|-)((?: [a-z_]+=\S+)*)$")
KV_RX = re.compile(r" ([a-z_]+)=(\S+)")

# Colours of the timeline (SVG and HTML legend).
COLORS = {
    "irq": "#3b78c2",       # an interrupt's run (irq_entry..irq_exit)
    "unclaimed": "#c23b3b",  # ... that no handler claimed
    "poll": "#e59a1c",      # a poll (poll_start..poll_end)
    "poll_found": "#2e9e4f",  # ... that found work
    "poll_left": "#f2d49b",   # ... that left the work to the line's pending interrupt (result=deferred)
    "poll_busy": "#b08a4a",   # ... that found the handlers running on another CPU (result=busy)
    "drv": "#8c6bb1",       # a driver's command / transfer
    "expect": "#1f9aa8",    # expect_irq .. unexpect_irq
    "verdict": "#000000",   # verdicts
    "state": "#d0309a",     # state changes
    "chip": "#888888",      # chip operations
}


class TraceError(Exception):
    """A bad input: the message names the line."""


class Event:
    __slots__ = ("seq", "cpu", "ts", "name", "line", "f", "src")

    def __init__(self, seq, cpu, ts, name, line, fields, src):
        self.seq, self.cpu, self.ts, self.name, self.line, self.f, self.src = seq, cpu, ts, name, line, fields, src


def fnv1a(h, text):
    for b in text.encode("ascii", "replace") + b"\n":
        h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFF
    return h


def parse_kv(text):
    return dict(KV_RX.findall(text))


def check_fields(name, fields, where, version=FORMAT_VERSION):
    for key in EVENTS[name]:
        if key not in fields:
            raise TraceError(f"{where}: event {name} lacks its field {key}=")
    for key, value in fields.items():
        if key in VALUES and (value not in VALUES[key] or (version < 2 and value in V2_ONLY.get(key, ()))):
            raise TraceError(f"{where}: event {name}: {key}={value} is not a value format v{version} knows")
        if key in ("idx", "value", "count", "in_us") and not value.isdigit():
            raise TraceError(f"{where}: event {name}: {key}={value} is not a number")
        if key == "token" and not re.fullmatch(r"[0-9a-f]{8}", value):
            raise TraceError(f"{where}: event {name}: token={value} is not 8 hex digits")
    if name == "poll_start" and not set(fields["why"].split("+")) <= WHY:
        raise TraceError(f"{where}: event poll_start: why={fields['why']} names an unknown reason")
    if name == "verdict" and "token" not in fields and "count" not in fields:
        raise TraceError(f"{where}: event verdict lacks token= or count=")
    if name == "state" and "token" not in fields and "value" not in fields:
        raise TraceError(f"{where}: event state lacks token= or value=")
    if name == "poll_arm" and "in_us" not in fields and "cancel" not in fields:
        raise TraceError(f"{where}: event poll_arm lacks in_us= or cancel=")


def parse(text, source="input"):
    """The last whole dump in @text: (header fields, [Event], end fields, skipped line count)."""
    if not text.strip():
        raise TraceError(f"{source}: empty input: no trace dump in it")
    lines = text.replace("\r", "").split("\n")
    starts = [i for i, l in enumerate(lines) if l.strip().startswith("@irqkit-trace v")]
    if not starts:
        if any(l.strip().startswith("@T ") for l in lines):
            first = next(i for i, l in enumerate(lines) if l.strip().startswith("@T "))
            raise TraceError(f"{source}:{first + 1}: event lines without the '@irqkit-trace v' header line "
                             "(the start of the dump is missing)")
        raise TraceError(f"{source}: no trace dump found (no '@irqkit-trace v' header line); "
                         "was `trace dump` captured?")
    start = starts[-1]
    where = f"{source}:{start + 1}"
    m = HEADER_RX.match(lines[start].strip())
    if not m:
        raise TraceError(f"{where}: malformed header line: {lines[start].strip()[:80]!r}")
    version = int(m.group(1))
    if version not in FORMAT_READ:
        raise TraceError(f"{where}: trace format v{version}; this tool reads "
                         f"{' and '.join(f'v{v}' for v in FORMAT_READ)} only "
                         "(use the tools/trace/ of the kernel that made the dump)")
    header = parse_kv(m.group(2))
    for key in ("cpus", "ring", "slots", "dropped"):
        if not header.get(key, "").isdigit():
            raise TraceError(f"{where}: header lacks {key}=N")
    events, skipped, h, end = [], 0, FNV_OFFSET, None
    for i in range(start + 1, len(lines)):
        raw = lines[i].strip()
        where = f"{source}:{i + 1}"
        if not raw.startswith("@"):
            skipped += 1
            continue
        if raw.startswith("@irqkit-trace-end"):
            end = (i, raw)
            break
        if raw.startswith("@irqkit-trace v"):
            raise TraceError(f"{where}: a new dump begins before the end line of the one at line {start + 1}")
        m = EVENT_RX.match(raw)
        if not m:
            raise TraceError(f"{where}: malformed event line (corrupted?): {raw[:80]!r}")
        seq, cpu, ts, name, line = int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4), m.group(5)
        if seq != len(events):
            raise TraceError(f"{where}: event #{seq} where #{len(events)} was due: lines are missing or repeated")
        if name not in EVENTS:
            raise TraceError(f"{where}: unknown event {name!r} (format v{FORMAT_VERSION})")
        if cpu >= int(header["cpus"]):
            raise TraceError(f"{where}: CPU {cpu} but the header says cpus={header['cpus']}")
        fields = parse_kv(m.group(6))
        check_fields(name, fields, where, version)
        h = fnv1a(h, raw)
        events.append(Event(seq, cpu, ts, name, None if line == "-" else int(line), fields, i + 1))
    if end is None:
        last = events[-1].src if events else start + 1
        raise TraceError(f"{source}:{last}: truncated: no '@irqkit-trace-end' line after {len(events)} events "
                         f"(the dump begins at line {start + 1})")
    i, raw = end
    where = f"{source}:{i + 1}"
    m = END_RX.match(raw)
    if not m:
        raise TraceError(f"{where}: malformed end line: {raw[:80]!r}")
    if int(m.group(1)) != version:
        raise TraceError(f"{where}: end line of format v{m.group(1)} closes a v{version} dump")
    tail = parse_kv(m.group(2))
    for key in ("events", "dropped", "hash"):
        if key not in tail:
            raise TraceError(f"{where}: end line lacks {key}=")
    if int(tail["events"]) != len(events):
        raise TraceError(f"{where}: the end line counts {tail['events']} events, {len(events)} were read: "
                         "lines are missing")
    if tail["hash"] != f"{h:08x}":
        raise TraceError(f"{where}: hash {tail['hash']} in the end line, {h:08x} over the event lines: "
                         "the dump is corrupted")
    return header, events, tail, skipped


# ---------------------------------------------------------------------------
# The model: slices per track, instants, flows.

def merged(events):
    """The events in time order across CPUs. The dump prints each CPU's ring whole, one CPU after
    the other (kernel/irq/trace.c), each in its own time order; merged by timestamp (the CPUs'
    clocks are one TSC), ties kept in dump order."""
    return sorted(events, key=lambda e: (e.ts, e.seq))


class Model:
    def __init__(self, header, events, tail):
        self.header, self.events, self.tail = header, events, tail
        self.slices = []      # (track, name, cat, start_ns, end_ns, args)
        self.instants = []    # (track, name, cat, ts_ns, args)
        self.flows = []       # (token, expect Event, ending run: (track, ts_ns))
        self.order_errors = []  # per-CPU timestamp order broken: (cpu, Event, previous ts)
        self.unclosed = 0
        self.lines = {}       # line -> per-line counters
        self.t0 = min((e.ts for e in events), default=0)
        self.t1 = max((e.ts for e in events), default=0)
        self._build()

    def stat(self, line):
        return self.lines.setdefault(line, {
            "irqs": 0, "unclaimed": 0, "polls": 0, "polls_found": 0, "polls_left": 0, "polls_busy": 0,
            "verdicts": {}, "states": {},
            "expects": 0, "by_irq": 0, "by_poll": 0, "timeouts": 0, "chip": 0, "drv": 0})

    def _build(self):
        last_ts = {}
        open_irq = {}     # cpu -> stack of [line, start, claimed, run event]
        open_poll = {}    # cpu -> stack of [line, start, why, found]
        open_drv = {}     # (line, name) -> start event
        open_exp = {}     # token -> expect event
        pending_unexp = {}  # token -> unexpect event, awaiting the run that carries it
        # Several CPUs: one line's runs overlap (an interrupt on CPU 1 during a poll on CPU 0), so
        # they are drawn on the CPUs' tracks only, where each CPU's runs nest; the line's track
        # keeps its instants. And a slice that begins on one CPU and ends on another (an expect
        # bracket, a driver command) takes its times from two clocks read before the sequence
        # number was taken: on the shared tracks a slice starts no earlier than the previous one
        # ended (clamped), so the tracks stay well nested in sequence order.
        multi = len({e.cpu for e in self.events}) > 1
        last_end = {}     # shared track -> end of its latest slice

        def shared_slice(track, name, cat, start, end, args):
            start = max(start, last_end.get(track, start))
            end = max(end, start + 1)   # never empty: its E would sort before its B
            last_end[track] = end
            self.slices.append((track, name, cat, start, end, args))

        for e in self.events:   # each CPU's ring in dump order: its own time order
            prev = last_ts.get(e.cpu)
            if prev is not None and e.ts < prev:
                self.order_errors.append((e.cpu, e, prev))
            last_ts[e.cpu] = e.ts
        for e in merged(self.events):
            cpu_track = ("cpu", e.cpu)
            line_track = ("line", e.line)
            st = self.stat(e.line) if e.line is not None else None
            if e.name == "irq_entry":
                open_irq.setdefault(e.cpu, []).append([e.line, e.ts, False, e])
                st["irqs"] += 1
            elif e.name == "irq_exit":
                stack = open_irq.get(e.cpu)
                if stack and stack[-1][0] == e.line:
                    line, start, claimed, _ = stack.pop()
                    name = f"irq {line}" + ("" if claimed else " unclaimed")
                    cat = "irq" if claimed else "unclaimed"
                    if not claimed:
                        st["unclaimed"] += 1
                    args = {"flow": e.f["flow"], "claimed": claimed}
                    self.slices.append((cpu_track, name, cat, start, e.ts, args))
                    if not multi:
                        self.slices.append((("line", line), name, cat, start, e.ts, args))
            elif e.name == "poll_start":
                open_poll.setdefault(e.cpu, []).append([e.line, e.ts, e.f["why"], False])
                st["polls"] += 1
            elif e.name == "poll_end":
                stack = open_poll.get(e.cpu)
                if stack and stack[-1][0] == e.line:
                    line, start, why, _ = stack.pop()
                    found = e.f["result"] == "handled"
                    st["polls_found"] += found
                    st["polls_left"] += e.f["result"] == "deferred"
                    st["polls_busy"] += e.f["result"] == "busy"
                    cat = "poll_found" if found else {"deferred": "poll_left", "busy": "poll_busy"}.get(
                        e.f["result"], "poll")
                    name = f"poll {line} ({why}): {e.f['result']}"
                    args = {"why": why, "result": e.f["result"]}
                    self.slices.append((cpu_track, name, cat, start, e.ts, args))
                    if not multi:
                        self.slices.append((("line", line), name, cat, start, e.ts, args))
            elif e.name == "action":
                if e.f["ret"] == "handled":
                    if e.f["run"] == "irq" and open_irq.get(e.cpu):
                        open_irq[e.cpu][-1][2] = True
                    # The unexpect_irq its handler called ends in this run: the flow's end, on the
                    # track the run is drawn on (the line's; with several CPUs, the CPU's).
                    track = ("cpu", e.cpu) if multi else ("line", e.line)
                    for tok, (ue, exp) in list(pending_unexp.items()):
                        if ue.line == e.line and ue.cpu == e.cpu:
                            self.flows.append((tok, exp, (track, e.ts), ue))
                            del pending_unexp[tok]
                self.instants.append((line_track, f"handler {e.f['idx']}: {e.f['ret']}", "chip", e.ts, dict(e.f)))
            elif e.name == "chip":
                st["chip"] += 1
                self.instants.append((line_track, e.f["op"], "chip", e.ts, dict(e.f)))
            elif e.name == "expect":
                st["expects"] += 1
                open_exp[e.f["token"]] = e
                self.instants.append((("exp", e.line), "expect_irq", "expect", e.ts, dict(e.f)))
            elif e.name == "unexpect":
                by = e.f["by"]
                st["by_irq" if by == "irq" else "by_poll" if by == "poll" else "timeouts"] += 1
                tok = e.f["token"]
                exp = open_exp.pop(tok, None)  # the handler may expect the next one before it returns
                if exp is not None:
                    shared_slice(("exp", e.line), f"expecting ({by})", "expect", exp.ts, e.ts, dict(e.f))
                    if by != "timeout":
                        pending_unexp[tok] = (e, exp)
                self.instants.append((("exp", e.line), f"unexpect_irq by {by}", "expect", e.ts, dict(e.f)))
            elif e.name == "verdict":
                k = e.f["kind"]
                st["verdicts"][k] = st["verdicts"].get(k, 0) + 1
                self.instants.append((line_track, f"verdict {k}", "verdict", e.ts, dict(e.f)))
            elif e.name == "state":
                w = e.f["what"]
                st["states"][w] = st["states"].get(w, 0) + 1
                self.instants.append((line_track, w, "state", e.ts, dict(e.f)))
            elif e.name == "poll_arm":
                label = "poll timer cancelled" if "cancel" in e.f else f"poll timer +{int(e.f['in_us'])} us"
                self.instants.append((line_track, label, "chip", e.ts, dict(e.f)))
            elif e.name == "drv":
                key = (e.line, e.f["name"])
                st["drv"] += 1
                if e.f["kind"] == "begin":
                    open_drv[key] = e
                elif e.f["kind"] == "end" and key in open_drv:
                    b = open_drv.pop(key)
                    shared_slice(("drv", e.line), f"{e.f['name']} {int(b.f['value']):#x}", "drv", b.ts, e.ts,
                                 {"begin": int(b.f["value"]), "end": int(e.f["value"])})
                else:
                    self.instants.append((("drv", e.line), f"{e.f['name']} {e.f['kind']}", "drv", e.ts, dict(e.f)))
        # Whatever is still open ran past the end of the trace (a full ring dropped its end).
        for cpu, stack in open_irq.items():
            for line, start, claimed, _ in stack:
                self.unclosed += 1
                for tr in (("cpu", cpu),) if multi else (("cpu", cpu), ("line", line)):
                    self.slices.append((tr, f"irq {line} (end not recorded)", "irq", start, self.t1, {"open": True}))
        for cpu, stack in open_poll.items():
            for line, start, why, _ in stack:
                self.unclosed += 1
                for tr in (("cpu", cpu),) if multi else (("cpu", cpu), ("line", line)):
                    self.slices.append((tr, f"poll {line} ({why}) (end not recorded)", "poll", start, self.t1,
                                        {"open": True}))
        for (line, name), b in open_drv.items():
            self.unclosed += 1
            self.slices.append((("drv", line), f"{name} (end not recorded)", "drv", b.ts, self.t1, {"open": True}))

    def tracks(self, every=False):
        """The tracks in display order: CPUs, then per line its runs, expects and driver events. Lines
        with nothing but chip calls (the masks of boot) only when @every."""
        seen = set(t for t, *_ in self.slices) | set(t for t, n, cat, *_ in self.instants if every or cat != "chip")
        cpus = sorted(t for t in seen if t[0] == "cpu")
        lines = sorted({t[1] for t in seen if t[0] in ("line", "drv", "exp") and t[1] is not None})
        out = list(cpus)
        for l in lines:
            for kind in ("line", "exp", "drv"):
                if (kind, l) in seen:
                    out.append((kind, l))
        if ("line", None) in seen:
            out.append(("line", None))
        return out


def track_name(t):
    kind, n = t
    if kind == "cpu":
        return f"CPU {n}"
    if n is None:
        return "no line"
    return {"line": f"line {n}", "exp": f"line {n}: expecting", "drv": f"line {n}: driver"}[kind]


# ---------------------------------------------------------------------------
# Chrome trace-event JSON (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU)

PID = {"cpu": 1, "line": 2, "exp": 2, "drv": 2}


def tid_of(t):
    kind, n = t
    n = -1 if n is None else n
    return n if kind == "cpu" else n * 3 + {"line": 0, "exp": 1, "drv": 2}[kind]


def to_chrome(model, title):
    evs = [{"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "CPUs"}},
           {"name": "process_name", "ph": "M", "pid": 2, "tid": 0, "args": {"name": "interrupt lines"}}]
    for t in model.tracks(every=True):
        evs.append({"name": "thread_name", "ph": "M", "pid": PID[t[0]], "tid": tid_of(t), "args": {"name": track_name(t)}})
        evs.append({"name": "thread_sort_index", "ph": "M", "pid": PID[t[0]], "tid": tid_of(t),
                    "args": {"sort_index": tid_of(t)}})
    us = lambda ns: (ns - model.t0) / 1000.0
    timed = []
    # B/E pairs per track, sorted so that they nest: at one instant, ends before begins, longer first.
    for t, name, cat, s, e, args in model.slices:
        timed.append((s, 1, -(e - s), {"name": name, "cat": cat, "ph": "B", "ts": us(s), "pid": PID[t[0]],
                                        "tid": tid_of(t), "args": args}))
        timed.append((e, 0, (e - s), {"name": name, "cat": cat, "ph": "E", "ts": us(e), "pid": PID[t[0]],
                                       "tid": tid_of(t)}))
    for t, name, cat, ts, args in model.instants:
        timed.append((ts, 2, 0, {"name": name, "cat": cat, "ph": "i", "s": "t", "ts": us(ts), "pid": PID[t[0]],
                                  "tid": tid_of(t), "args": args}))
    for n, (tok, exp, (track, end_ts), ue) in enumerate(model.flows):
        d = ("exp", exp.line)
        timed.append((exp.ts, 3, 0, {"name": "expect_irq", "cat": "expect", "ph": "s", "id": n + 1, "ts": us(exp.ts),
                                      "pid": PID[d[0]], "tid": tid_of(d), "bp": "e"}))
        timed.append((end_ts, 3, 0, {"name": "expect_irq", "cat": "expect", "ph": "f", "id": n + 1, "ts": us(end_ts),
                                      "pid": PID[track[0]], "tid": tid_of(track), "bp": "e",
                                      "args": {"token": tok, "by": ue.f["by"]}}))
    timed.sort(key=lambda x: (x[0], x[1], x[2]))
    evs += [x[3] for x in timed]
    meta = {"title": title, "format": f"irqkit-trace v{FORMAT_VERSION}", "events": len(model.events),
            "dropped": int(model.tail["dropped"]), "unclosed_slices": model.unclosed,
            "t0_ns": model.t0}
    return {"traceEvents": evs, "displayTimeUnit": "ns", "otherData": meta}


def check_chrome(doc):
    """The checks tests/trace run on the JSON: RETURNS a list of problems (empty: fine)."""
    problems = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["no traceEvents list"]
    stacks, last = {}, {}
    for n, ev in enumerate(doc["traceEvents"]):
        for key in ("name", "ph", "pid", "tid"):
            if key not in ev:
                problems.append(f"event {n} lacks {key}")
        ph = ev.get("ph")
        if ph not in ("B", "E", "i", "s", "f", "M", "X"):
            problems.append(f"event {n}: unknown ph {ph!r}")
        if ph == "M":
            continue
        if not isinstance(ev.get("ts"), (int, float)):
            problems.append(f"event {n} lacks a numeric ts")
            continue
        track = (ev.get("pid"), ev.get("tid"))
        if ev["ts"] < last.get(track, float("-inf")):
            problems.append(f"event {n}: ts {ev['ts']} goes back on track {track}")
        last[track] = ev["ts"]
        if ph == "B":
            stacks.setdefault(track, []).append(ev.get("name"))
        elif ph == "E":
            st = stacks.get(track)
            if not st:
                problems.append(f"event {n}: E without B on track {track}")
            elif st[-1] != ev.get("name"):
                problems.append(f"event {n}: E of {ev.get('name')!r} closes {st[-1]!r} on track {track}")
                st.pop()
            else:
                st.pop()
        elif ph in ("s", "f") and "id" not in ev:
            problems.append(f"event {n}: flow event without id")
    for track, st in stacks.items():
        if st:
            problems.append(f"track {track}: {len(st)} B without E ({st[-1]!r})")
    return problems


# ---------------------------------------------------------------------------
# SVG timeline (also the HTML page's picture)

LANE_H, LABEL_W, PLOT_W, TOP, AXIS_H = 26, 190, 1000, 30, 24


def nice_step(span_ns, ticks=8):
    raw = max(span_ns / ticks, 1)
    mag = 10 ** (len(str(int(raw))) - 1)
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def fmt_ns(ns):
    if ns >= 1e9:
        return f"{ns / 1e9:g} s"
    if ns >= 1e6:
        return f"{ns / 1e6:g} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:g} us"
    return f"{ns:g} ns"


LABEL_ROW_H, RIGHT_PAD, CHAR_W, LABEL_GAP, TITLE_CHAR_W = 13, 16, 5.6, 6, 8.6
GROUP_GAP_PX = 2.0      # slices closer than this on a track cannot be told apart: drawn as one counted block
GROUP_MIN = 3           # ... when there are at least this many
LABEL_MERGE_PX = 80     # equal labels of one track within this distance become one "NAME xN"
LABEL_ROWS_MAX = 6      # label rows under a track; labels beyond them are left to the tooltips (counted)
FLOW_PX = 8             # at most one arrow per this many pixels of the plot, else arrows wait for a zoom
GROUP_NAMES = {"irq": "interrupts", "unclaimed": "unclaimed", "poll": "polls", "poll_found": "polls found work",
               "poll_left": "polls left it", "poll_busy": "polls busy", "drv": "commands", "expect": "expects"}
LEGEND = [("irq", "interrupt, claimed"), ("unclaimed", "interrupt, unclaimed"), ("poll", "poll, nothing found"),
          ("poll_found", "poll, found work"), ("poll_left", "poll, left it to the pending interrupt"),
          ("poll_busy", "poll, handlers running on another CPU"), ("drv", "driver command"),
          ("expect", "expecting (arrow: the run that ended it)"), ("verdict", "verdict"), ("state", "state change")]


def window_text(span_ns):
    return f"{fmt_ns(span_ns)}"


def label_w(text):
    return CHAR_W * len(text)


def group_slices(rows, x):
    """@rows: one track's visible slices of one category, by start. RETURNS [(first, last, n)] runs
    whose members are too close to tell apart, as one run each (n > 1 only for GROUP_MIN and more)."""
    runs, cur = [], []
    for r in rows:
        if cur and x(r[3]) - x(cur[-1][4]) < GROUP_GAP_PX:
            cur.append(r)
        else:
            if cur:
                runs.append(cur)
            cur = [r]
    if cur:
        runs.append(cur)
    out = []
    for run in runs:
        if len(run) >= GROUP_MIN:
            out.append((run[0], max(run, key=lambda r: r[4]), len(run)))
        else:
            out += [(r, r, 1) for r in run]
    return out


def place_labels(items, left, right):
    """@items: [(x, text, colour, marks)] of one track, by x. Equal texts close together are merged
    ("NAME xN"), then each label goes in the first row where it overlaps nothing, kept inside
    [left, right]. RETURNS ([(row, x, text, colour, marks)], labels left out)."""
    merged = []
    for x, text, col, marks in items:
        if merged and merged[-1][1] == text and marks and x - merged[-1][0] < LABEL_MERGE_PX:
            m = merged[-1]
            merged[-1] = (m[0], text, col, m[3] + marks)
        else:
            merged.append((x, text, col, marks))
    rows, placed, left_out = [], [], 0
    for x, text, col, marks in merged:
        shown = f"{text} x{marks}" if marks > 1 else text
        w = label_w(shown)
        lx = min(max(x - 3, left), right - w)
        for i, end in enumerate(rows):
            if end + LABEL_GAP <= lx:
                rows[i] = lx + w
                placed.append((i, lx, shown, col, marks))
                break
        else:
            if len(rows) < LABEL_ROWS_MAX:
                rows.append(lx + w)
                placed.append((len(rows) - 1, lx, shown, col, marks))
            else:
                left_out += marks
    return placed, left_out


def to_svg(model, title, window=None, html=False):
    """The timeline as SVG. Every verdict and state change in the window is a mark with a label (in
    rows under its track, never over a bar; equal ones close together share a label "xN"); slices
    too close to tell apart are one block with their count as a label; each expect's arrow ends on the
    track that ran the handler that ended it (the CPU's, with several CPUs), clipped to the plot; the
    footer names the window as the picture's title should. @html: arrows too dense to read are
    drawn hidden, for the page's script to show once zoomed in."""
    if window:
        t0, t1 = window
    else:  # from the first thing drawn (the chip calls of boot are not drawn)
        drawn = [r[3] for r in model.slices] + [r[3] for r in model.instants if r[2] != "chip"]
        t0 = min(drawn, default=model.t0)
        t1 = max(model.t1, t0 + 1)
        t0 = max(model.t0, t0 - (t1 - t0) // 50)
    span = max(t1 - t0, 1)
    tracks = model.tracks()
    width = LABEL_W + PLOT_W + RIGHT_PAD
    # A title too long for one line breaks after its last ", " that leaves the first line short enough.
    title_lines = [title]
    if TITLE_CHAR_W * len(title) > width - 16:
        cuts = [i for i in range(len(title)) if title.startswith(", ", i) and TITLE_CHAR_W * (i + 1) <= width - 16]
        if cuts:
            title_lines = [title[:cuts[-1] + 2], title[cuts[-1] + 2:]]
    top = TOP + 18 * (len(title_lines) - 1)
    right = width - 4
    x = lambda ns: LABEL_W + (ns - t0) * PLOT_W / span
    visible = lambda s, e: e >= t0 and s <= t1
    esc = html_mod.escape

    # Slices and their runs, per track.
    drawn_slices = {t: [] for t in tracks}
    cats_drawn = set()
    for t in tracks:
        by_cat = {}
        for r in sorted(model.slices, key=lambda r: (r[3], -(r[4] - r[3]))):
            if r[0] == t and visible(r[3], r[4]):
                by_cat.setdefault(r[2], []).append(r)
        for cat, rows in by_cat.items():
            drawn_slices[t] += [(cat, a, b, n) for a, b, n in group_slices(rows, x)]
            cats_drawn.add(cat)
    # Labels: verdicts and state changes (each marked), and the counts of grouped slices.
    labels, left_out, marks_total = {}, 0, 0
    for t in tracks:
        items = []
        for tr, name, cat, ts, args in model.instants:
            if tr == t and t0 <= ts <= t1 and cat in ("verdict", "state"):
                items.append((x(ts), name, COLORS[cat], 1))
                marks_total += 1
                cats_drawn.add(cat)
        for cat, a, b, n in drawn_slices[t]:
            if n > 1:
                items.append((max(x(a[3]), LABEL_W), f"{n} {GROUP_NAMES.get(cat, cat)}", COLORS[cat], 0))
        items.sort(key=lambda i: i[0])
        labels[t], lo = place_labels(items, LABEL_W, right)
        left_out += lo
    # Layout: each track's bars, then its label rows.
    ytop, y = {}, top + AXIS_H
    for t in tracks:
        ytop[t] = y
        nrows = 1 + max((r for r, *_ in labels[t]), default=-1)
        y += LANE_H + (nrows * LABEL_ROW_H + 3 if nrows else 0)
    plot_bottom = y
    mid = lambda t: ytop[t] + LANE_H / 2
    flows = []
    for tok, exp, (track, end_ts), ue in model.flows:
        d = ("exp", exp.line)
        if d in ytop and track in ytop and visible(exp.ts, end_ts):
            flows.append((tok, exp, track, end_ts, ue))
    dense = len(flows) > PLOT_W / FLOW_PX
    legend = [(c, l) for c, l in LEGEND if c in cats_drawn or (c == "expect" and flows)]
    legend_rows = (len(legend) + 3) // 4
    height = plot_bottom + 14 + legend_rows * 20 + 34
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" id="timeline" viewBox="0 0 {width} {height}" '
           f'width="{width}" height="{height}" font-family="sans-serif" font-size="11" '
           f'data-t0="{t0}" data-t1="{t1}" data-plot-x="{LABEL_W}" data-plot-w="{PLOT_W}" '
           f'data-marks="{marks_total}" data-labels-left-out="{left_out}">',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
           '<text class="title" x="8" y="18" font-size="14" font-weight="bold">' +
           "".join(f'<tspan x="8" dy="{0 if n == 0 else 18}">{esc(l)}</tspan>' for n, l in enumerate(title_lines)) +
           '</text>']
    step = nice_step(span)
    k = t0 + step  # ticks from the window's start, labelled with the time since it
    out.append('<g class="axis">')
    while k <= t1:
        out.append(f'<line x1="{x(k):.1f}" y1="{top + AXIS_H - 4}" x2="{x(k):.1f}" '
                   f'y2="{plot_bottom}" stroke="#e4e4e4"/>')
        if x(k) + label_w(f"+{fmt_ns(k - t0)}") / 2 <= right:
            out.append(f'<text x="{x(k):.1f}" y="{top + AXIS_H - 8}" text-anchor="middle" fill="#555">'
                       f'+{esc(fmt_ns(k - t0))}</text>')
        k += step
    out.append('</g>')
    for n, t in enumerate(tracks):
        h = (ytop[tracks[n + 1]] if n + 1 < len(tracks) else plot_bottom) - ytop[t]
        out.append(f'<g class="track" data-track="{esc(track_name(t))}">'
                   f'<rect x="0" y="{ytop[t]}" width="{width}" height="{h}" '
                   f'fill="{"#f6f8fb" if n % 2 else "#ffffff"}"/>'
                   f'<text x="6" y="{ytop[t] + LANE_H * 0.65:.1f}">{esc(track_name(t))}</text></g>')
    out.append('<g class="slices">')
    for t in tracks:
        for cat, a, b, n in drawn_slices[t]:
            xs, xe = max(x(a[3]), LABEL_W), min(x(b[4]), LABEL_W + PLOT_W)
            inset = 3 if cat == "expect" else 5
            what = (f"{esc(a[1])} {esc(fmt_ns(a[3] - model.t0))} +{esc(fmt_ns(a[4] - a[3]))}" if n == 1 else
                    f"{n} x {esc(a[1])}, {esc(fmt_ns(a[3] - model.t0))} to {esc(fmt_ns(b[4] - model.t0))}")
            out.append(f'<rect class="slice {cat}" data-count="{n}" x="{xs:.2f}" y="{ytop[t] + inset}" '
                       f'width="{max(xe - xs, 1.0):.2f}" height="{LANE_H - 2 * inset}" fill="{COLORS[cat]}" '
                       f'fill-opacity="{0.35 if cat == "expect" else 0.9}"><title>{what}</title></rect>')
    out.append('</g><g class="instants">')
    for t, name, cat, ts, args in model.instants:
        if t not in ytop or not (t0 <= ts <= t1) or cat == "chip":
            continue
        # Verdicts in the lane's upper half, state changes in its lower half: one of each at the
        # same moment (the verdict that distrusts a token) are two marks, not one over the other.
        cx, cy = x(ts), mid(t) + {"verdict": -5, "state": 5}.get(cat, 0)
        shape = (f'<path d="M{cx:.2f},{cy - 5:.1f} l4,5 l-4,5 l-4,-5 z"' if cat in ("verdict", "state")
                 else f'<circle cx="{cx:.2f}" cy="{cy:.1f}" r="3"')
        out.append(f'{shape} class="instant {cat}" fill="{COLORS[cat]}"><title>{esc(name)} at '
                   f'{esc(fmt_ns(ts - model.t0))}</title>{"</path>" if cat in ("verdict", "state") else "</circle>"}')
    out.append('</g><g class="labels">')
    for t in tracks:
        for row, lx, text, col, marks in labels[t]:
            ly = ytop[t] + LANE_H + 10 + row * LABEL_ROW_H
            out.append(f'<text class="label" data-marks="{marks}" x="{lx:.2f}" y="{ly:.1f}" font-size="9" '
                       f'fill="{col}">{esc(text)}</text>')
    out.append('</g><g class="flows">')
    lo, hi = LABEL_W, LABEL_W + PLOT_W
    for tok, exp, track, end_ts, ue in flows:
        x1, y1, x2, y2 = x(exp.ts), mid(("exp", exp.line)), x(end_ts), mid(track)
        head = x2 <= hi
        if x1 < lo:   # begun before the window: from where the line crosses the plot's left edge
            y1 += (y2 - y1) * (lo - x1) / (x2 - x1)
            x1 = lo
        if x2 > hi:
            y2 = y1 + (y2 - y1) * (hi - x1) / (x2 - x1)
            x2 = hi
        hidden = ' display="none"' if dense else ""
        if dense and not html:
            continue
        out.append(f'<path class="flow" data-x1="{x1:.2f}" data-x2="{x2:.2f}"{hidden} d="M{x1:.2f},{y1:.1f} '
                   f'L{x2:.2f},{y2:.1f}" stroke="{COLORS["expect"]}" stroke-width="1.2" fill="none"'
                   f'{" marker-end=" + chr(34) + "url(#arrow)" + chr(34) if head else ""}>'
                   f'<title>expect_irq {tok} ended by {ue.f["by"]}</title></path>')
    out.append('</g>')
    out.append('<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
               f'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{COLORS["expect"]}"/></marker></defs>')
    ly = plot_bottom + 24
    out.append('<g class="legend">')
    for n, (cat, label) in enumerate(legend):
        lx = 10 + (n % 4) * 290
        yy = ly + (n // 4) * 20
        out.append(f'<rect x="{lx}" y="{yy - 9}" width="14" height="10" fill="{COLORS[cat]}"/>'
                   f'<text x="{lx + 20}" y="{yy}">{esc(label)}</text>')
    out.append('</g>')
    drop = int(model.tail["dropped"])
    note = [f"window {window_text(t1 - t0)}: {fmt_ns(t0 - model.t0)} to {fmt_ns(t1 - model.t0)} after the "
            f"trace's first event", f"{len(model.events)} events, {drop} dropped"]
    if dense:
        note.append(f"{len(flows)} arrows, too dense here: zoom in" if html else
                    f"{len(flows)} arrows not drawn at this scale (--window)")
    if left_out:
        note.append(f"{left_out} labels in the tooltips only")
    out.append(f'<text class="footer" x="10" y="{height - 10}" fill="#555">{esc("; ".join(note))}</text></svg>')
    return "\n".join(out)


# ---------------------------------------------------------------------------
# Text summary

def summary(model, skipped):
    out = [f"irqkit trace v{FORMAT_VERSION}: {len(model.events)} events on "
           f"{len({e.cpu for e in model.events})} CPU(s) over {fmt_ns(model.t1 - model.t0)}, "
           f"{model.tail['dropped']} dropped, {model.tail.get('unwritten', '0')} unwritten; "
           f"{skipped} other lines skipped"]
    if int(model.tail["dropped"]):
        out.append("  the ring was full: events after it filled are missing (trace clear, a narrower FILTER)")
    if model.order_errors:
        cpu, e, prev = model.order_errors[0]
        out.append(f"  ORDER: {len(model.order_errors)} event(s) older than the one before on their CPU "
                   f"(first: CPU {cpu}, input line {e.src}: {e.ts} < {prev})")
    for line in sorted(l for l in model.lines if l is not None):
        s = model.lines[line]
        if not (s["irqs"] or s["polls"] or s["expects"] or s["verdicts"] or s["states"] or s["drv"]):
            continue
        polls = f"{s['polls_found']} found work" + (f", {s['polls_left']} left it to a pending interrupt"
                                                    if s["polls_left"] else "") + \
            (f", {s['polls_busy']} found the handlers running elsewhere" if s["polls_busy"] else "")
        bits = [f"{s['irqs']} interrupts ({s['unclaimed']} unclaimed)", f"{s['polls']} polls ({polls})"]
        if s["expects"]:
            bits.append(f"{s['expects']} expects: {s['by_irq']} by interrupt, {s['by_poll']} by poll, "
                        f"{s['timeouts']} timed out")
        if s["verdicts"]:
            bits.append("verdicts " + ", ".join(f"{k} {v}" for k, v in sorted(s["verdicts"].items())))
        if s["states"]:
            bits.append("states " + ", ".join(f"{k} {v}" for k, v in sorted(s["states"].items())))
        if s["drv"]:
            bits.append(f"{s['drv']} driver events")
        out.append(f"  line {line}: " + "; ".join(bits))
    return "\n".join(out) + "\n"


def polled_breakdown(events, line):
    """Where the time of a line's completions found by polling goes (issue 19's "lost costs little").

    Walks the line's events in time order. A poll that found a completion
    (an unexpect by=poll inside its run) closes a cycle that began at the
    end of the previous such poll, or at an expect_irq made outside a poll's
    run after it (a new command after an idle spell); the cycle is cut into: the bookkeeping
    after that poll's run until the poll timer was armed again (end -> arm),
    the delay it was armed for (requested), how much later than that the
    poll started (late: the host's timer wake-up, under -icount sleep=on),
    the runs of polls that found nothing (empty), and the finding poll's own
    run (the handler: on healthy hardware the interrupt's run does this
    work). RETURNS the lines of text, or a line saying there is nothing.
    """
    evs = sorted((e for e in events if e.line == line), key=lambda e: (e.ts, e.seq))
    parts = {"end_to_arm": [], "requested": [], "late": [], "empty": [], "run": [], "cycle": []}
    cycle_start = last_end = arm_at = arm_ts = poll_start = None
    found = False
    empties = cur_empty = 0
    cur = {"end_to_arm": 0, "requested": 0, "late": 0}
    for e in evs:
        if e.name == "poll_arm":
            if "cancel" in e.f:
                arm_at = None
                continue
            arm_ts, arm_at = e.ts, e.ts + int(e.f["in_us"]) * 1000
            if last_end is not None and arm_ts >= last_end:
                cur["end_to_arm"] += arm_ts - last_end
                last_end = None
        elif e.name == "poll_start":
            poll_start, found = e.ts, False
            if arm_at is not None:
                cur["requested"] += max(arm_at - arm_ts, 0)
                cur["late"] += max(e.ts - arm_at, 0)
                arm_at = None
        elif e.name == "unexpect" and e.f.get("by") == "poll" and poll_start is not None:
            found = True
        elif e.name == "expect" and poll_start is None and cycle_start is not None:
            # A new command outside a poll's run (the driver's thread, after an idle spell): the
            # cycle starts here, not at the poll that found the command before.
            cycle_start = last_end = e.ts
            cur_empty, arm_at = 0, None
            cur = {"end_to_arm": 0, "requested": 0, "late": 0}
        elif e.name == "poll_end" and poll_start is not None:
            if not found:
                empties += 1
                cur_empty += e.ts - poll_start
            elif cycle_start is not None:
                parts["run"].append(e.ts - poll_start)
                parts["empty"].append(cur_empty)
                parts["cycle"].append(e.ts - cycle_start)
                for k in cur:
                    parts[k].append(cur[k])
            if found:
                cycle_start, cur_empty = e.ts, 0
                cur = {"end_to_arm": 0, "requested": 0, "late": 0}
            last_end, poll_start = e.ts, None
    n = len(parts["cycle"])
    if not n:
        return [f"line {line}: no two completions found by polling in a row: nothing to break down"]
    mean = lambda xs: sum(xs) / len(xs) / 1000.0
    med = lambda xs: sorted(xs)[len(xs) // 2] / 1000.0
    out = [f"line {line}: {n} completions found by polling, each after the one before ({empties} polls found nothing); "
           f"us per completion, mean / median:"]
    names = (("cycle", "the whole cycle, poll end to poll end"),
             ("run", "the finding poll's run (the handler's work: an interrupt's run does it when healthy)"),
             ("end_to_arm", "after a poll (or the expect), until the poll timer is armed (the core's bookkeeping)"),
             ("requested", "the delay the timer was armed for"),
             ("late", "the timer's lateness after that (the host's wake-up under -icount sleep=on)"),
             ("empty", "runs of polls that found nothing"))
    for key, what in names:
        out.append(f"  {mean(parts[key]):8.1f} / {med(parts[key]):8.1f}  {what}")
    return out


# ---------------------------------------------------------------------------
# HTML page: the SVG, a legend, per-line summaries, zoom (wheel, buttons, drag).

HTML_SCRIPT = r"""
(function () {
  var svg = document.getElementById('timeline');
  var data = JSON.parse(document.getElementById('trace-data').textContent);
  var vb = svg.viewBox.baseVal, full = {x: vb.x, w: vb.width};
  function zoom(f, cx) {
    var w = Math.max(Math.min(vb.width * f, full.w), 20);
    var x = cx - (cx - vb.x) * (w / vb.width);
    vb.x = Math.max(full.x, Math.min(x, full.x + full.w - w)); vb.width = w;
    svg.setAttribute('viewBox', vb.x + ' ' + vb.y + ' ' + vb.width + ' ' + vb.height);
    document.getElementById('zoomlevel').textContent = (full.w / vb.width).toFixed(1) + 'x';
    arrows();
  }
  // Arrows only where they can be told apart: at most one per FLOW_PX pixels of what is shown.
  var flows = svg.querySelectorAll('path.flow');
  function arrows() {
    var shown = [], r = svg.getBoundingClientRect(), px = r.width / vb.width;
    flows.forEach(function (f) {
      var a = +f.getAttribute('data-x1'), b = +f.getAttribute('data-x2');
      if (b >= vb.x && a <= vb.x + vb.width) shown.push(f);
    });
    var fit = shown.length <= vb.width * px / FLOW_PX;
    flows.forEach(function (f) { f.setAttribute('display', 'none'); });
    if (fit) shown.forEach(function (f) { f.removeAttribute('display'); });
  }
  arrows();
  svg.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    var r = svg.getBoundingClientRect();
    zoom(ev.deltaY < 0 ? 0.8 : 1.25, vb.x + (ev.clientX - r.left) * vb.width / r.width);
  });
  var drag = null;
  svg.addEventListener('mousedown', function (ev) { drag = {x: ev.clientX, vx: vb.x}; });
  window.addEventListener('mouseup', function () { drag = null; });
  window.addEventListener('mousemove', function (ev) {
    if (!drag) return;
    var r = svg.getBoundingClientRect();
    vb.x = drag.vx - (ev.clientX - drag.x) * vb.width / r.width;
    vb.x = Math.max(full.x, Math.min(vb.x, full.x + full.w - vb.width));
    svg.setAttribute('viewBox', vb.x + ' ' + vb.y + ' ' + vb.width + ' ' + vb.height);
  });
  document.getElementById('zin').onclick = function () { zoom(0.5, vb.x + vb.width / 2); };
  document.getElementById('zout').onclick = function () { zoom(2, vb.x + vb.width / 2); };
  document.getElementById('zreset').onclick = function () { zoom(1e9, 0); };
  // Per-line summary table from the data.
  var tb = document.getElementById('summary-body');
  data.lines.forEach(function (l) {
    var tr = document.createElement('tr');
    tr.className = 'line-row';
    [l.line, l.irqs, l.unclaimed, l.polls, l.polls_found, l.expects, l.by_irq + ' / ' + l.by_poll + ' / ' + l.timeouts,
     l.verdicts, l.states].forEach(function (v) {
      var td = document.createElement('td'); td.textContent = v; tr.appendChild(td);
    });
    tb.appendChild(tr);
  });
  svg.addEventListener('mouseup', arrows);
  // Say what was drawn, for people and for tests/trace (a headless browser reads it).
  // (a block of slices too close to tell apart counts as the slices it stands for)
  var tracks = svg.querySelectorAll('g.track').length, slices = 0;
  svg.querySelectorAll('rect.slice').forEach(function (r) { slices += +(r.getAttribute('data-count') || 1); });
  var box = svg.querySelector('g.slices').getBBox();
  document.body.setAttribute('data-drawn', tracks + ' tracks, ' + slices + ' slices, slices box ' +
                             Math.round(box.width) + 'x' + Math.round(box.height));
  document.getElementById('status').textContent = 'drawn: ' + document.body.getAttribute('data-drawn');
})();
"""


def to_html(model, title, skipped, svg):
    lines = []
    for line in sorted(l for l in model.lines if l is not None):
        s = model.lines[line]
        if not (s["irqs"] or s["polls"] or s["expects"] or s["verdicts"] or s["states"] or s["drv"]):
            continue
        lines.append({"line": line, "irqs": s["irqs"], "unclaimed": s["unclaimed"], "polls": s["polls"],
                      "polls_found": s["polls_found"], "expects": s["expects"], "by_irq": s["by_irq"],
                      "by_poll": s["by_poll"], "timeouts": s["timeouts"],
                      "verdicts": ", ".join(f"{k} {v}" for k, v in sorted(s["verdicts"].items())) or "-",
                      "states": ", ".join(f"{k} {v}" for k, v in sorted(s["states"].items())) or "-"})
    data = json.dumps({"lines": lines, "events": len(model.events)}).replace("</", "<\\/")
    esc = html.escape
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>
<style>
body {{ font-family: sans-serif; margin: 12px; }}
#view {{ overflow-x: auto; border: 1px solid #ccc; }}
#timeline {{ cursor: grab; width: 100%; height: auto; }}
table {{ border-collapse: collapse; margin-top: 10px; }}
td, th {{ border: 1px solid #ccc; padding: 2px 6px; font-size: 12px; text-align: right; }}
pre {{ font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }}
</style></head>
<body>
<h1 style="font-size:16px">{esc(title)}</h1>
<p>Wheel or the buttons zoom, drag pans. Hover a bar for its times.
<button id="zin">zoom in</button> <button id="zout">zoom out</button> <button id="zreset">whole trace</button>
<span id="zoomlevel">1.0x</span> <span id="status">(the page's script has not run)</span></p>
<div id="view">
{svg}
</div>
<h2 style="font-size:14px">Per line</h2>
<table><thead><tr><th>line</th><th>interrupts</th><th>unclaimed</th><th>polls</th><th>found work</th>
<th>expects</th><th>ended by irq / poll / time-out</th><th>verdicts</th><th>state changes</th></tr></thead>
<tbody id="summary-body"></tbody></table>
<h2 style="font-size:14px">Summary</h2>
<pre>{esc(summary(model, skipped))}</pre>
<script type="application/json" id="trace-data">{data}</script>
<script>var FLOW_PX = {FLOW_PX};{HTML_SCRIPT}</script>
</body></html>
"""


# ---------------------------------------------------------------------------

def write_whole(path, text):
    """Write @path in one go (a temporary file renamed): never half a file under its name."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".irqtrace-")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dump", help="a `trace dump` or a serial log holding one ('-': stdin)")
    ap.add_argument("--json", help="write Chrome trace-event JSON here")
    ap.add_argument("--html", help="write the self-contained HTML page here")
    ap.add_argument("--svg", help="write the SVG timeline here")
    ap.add_argument("--summary", action="store_true", help="print the text summary")
    ap.add_argument("--title", default=None, help="title of the page and pictures")
    ap.add_argument("--lines", help="draw only these lines (comma list) besides the CPUs")
    ap.add_argument("--window", help="START_MS:END_MS after the first event, for --svg/--html")
    ap.add_argument("--polled", type=int, metavar="LINE",
                    help="break down where the time of LINE's completions found by polling goes")
    args = ap.parse_args(argv)
    try:
        if args.dump == "-":
            text, source = sys.stdin.read(), "stdin"
        else:
            with open(args.dump, encoding="utf-8", errors="replace") as f:
                text = f.read()
            source = args.dump
    except OSError as e:
        print(f"irqtrace: {args.dump}: {e.strerror}", file=sys.stderr)
        return 2
    try:
        header, events, tail, skipped = parse(text, source)
        if args.lines:
            try:
                keep = {int(x) for x in args.lines.split(",")}
            except ValueError:
                raise TraceError(f"--lines {args.lines}: not a comma list of line numbers")
            events = [e for e in events if e.line in keep or e.line is None]
        model = Model(header, events, tail)
        window = None
        if args.window:
            m = re.fullmatch(r"([0-9.]+):([0-9.]+)", args.window)
            if not m or float(m.group(1)) >= float(m.group(2)):
                raise TraceError(f"--window {args.window}: want START_MS:END_MS, START < END")
            window = (model.t0 + int(float(m.group(1)) * 1e6), model.t0 + int(float(m.group(2)) * 1e6))
    except TraceError as e:
        print(f"irqtrace: {e}", file=sys.stderr)
        return 2
    title = args.title or f"irqkit interrupt trace ({os.path.basename(source)})"
    try:
        if args.json:
            write_whole(args.json, json.dumps(to_chrome(model, title), indent=None, separators=(",", ":")))
        if args.svg:
            write_whole(args.svg, to_svg(model, title, window) + "\n")
        if args.html:
            write_whole(args.html, to_html(model, title, skipped, to_svg(model, title, window, html=True)))
    except OSError as e:
        print(f"irqtrace: cannot write: {e}", file=sys.stderr)
        return 1
    if args.polled is not None:
        sys.stdout.write("\n".join(polled_breakdown(model.events, args.polled)) + "\n")
    if args.summary or not (args.json or args.html or args.svg or args.polled is not None):
        sys.stdout.write(summary(model, skipped))
    return 0


if __name__ == "__main__":
    sys.exit(main())
