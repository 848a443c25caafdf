"""The event trace of kernel/irq on the real kernel (docs/trace.md): one boot plays every named
scenario of tools/trace/scenarios.py with the trace on, dumps it after each, and each dump is
read by tools/trace/irqtrace.py (which refuses a truncated or corrupted one) and checked here for
the sequence of events the scenario must produce, per-CPU timestamp order, and a JSON that passes
the trace-event format check. icount: the guest's time comes from its instructions, so the
flood bounds and back-offs do not depend on the host's load.
"""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "trace"))

import irqtrace  # noqa: E402
import scenarios  # noqa: E402

ICOUNT_SHIFT = 3


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    dumps, log = scenarios.run_scenarios(list(scenarios.ORDER), icount=ICOUNT_SHIFT,
                                         tmpdir=str(tmp_path_factory.mktemp("trace")))
    out = {}
    for name, text in dumps.items():
        header, events, tail, _ = irqtrace.parse(text, name)
        out[name] = (irqtrace.Model(header, events, tail), events, tail)
    return out


def ev(events, evname, line=None, **fields):
    """Events called @evname (on @line) whose fields include @fields."""
    return [e for e in events if e.name == evname and (line is None or e.line == line)
            and all(e.f.get(k) == v for k, v in fields.items())]


def assert_common(model, events, tail):
    assert int(tail["dropped"]) == 0, "the ring overflowed: the sequence checks need every event"
    assert model.order_errors == [], f"timestamps go back on a CPU: {model.order_errors[:3]}"
    problems = irqtrace.check_chrome(irqtrace.to_chrome(model, "t"))
    assert problems == [], problems[:5]


def assert_each_expect_ends_once(events, line, tag="ata_cmd"):
    """Per token: expect, then exactly one unexpect, before the next expect; every command (@tag) ends once."""
    open_tokens = {}
    for e in events:
        if e.line != line:
            continue
        if e.name == "expect":
            assert not open_tokens.get(e.f["token"]), f"expect_irq twice without unexpect (input line {e.src})"
            open_tokens[e.f["token"]] = True
        elif e.name == "unexpect":
            assert open_tokens.get(e.f["token"]), f"a completion ended an expect twice (input line {e.src})"
            open_tokens[e.f["token"]] = False
    cmds = [e.f["kind"] for e in ev(events, "drv", line, name=tag)]
    assert cmds and cmds == ["begin", "end"] * (len(cmds) // 2), cmds


def poll_runs(events, line):
    """[(poll_start, [events inside], poll_end)] of @line, per CPU nesting."""
    runs, cur = [], None
    for e in events:
        if e.line != line:
            continue
        if e.name == "poll_start":
            cur = (e, [])
        elif e.name == "poll_end" and cur:
            runs.append((cur[0], cur[1], e))
            cur = None
        elif cur:
            cur[1].append(e)
    return runs


def test_healthy_disk_reads_complete_by_interrupt(traces):
    model, events, tail = traces["healthy"]
    assert_common(model, events, tail)
    assert_each_expect_ends_once(events, 14)
    assert ev(events, "unexpect", 14, by="irq")
    assert not ev(events, "unexpect", 14, by="poll") and not ev(events, "verdict", 14, kind="lost")
    # each interrupt: entry, the ack at the chip, the handler's claim, exit
    entries = ev(events, "irq_entry", 14)
    assert entries and all(e.f["flow"] == "edge" for e in entries)
    assert len(ev(events, "action", 14, ret="handled", run="irq")) == len(entries)


@pytest.mark.parametrize("name,tag", [("ata-drop:100", "ata_cmd"), ("ata-mask", "ata_cmd"), ("msi-mask", "nvme_cmd"),
                                      ("ahci-noirq:100", "ahci_cmd")])
def test_a_lost_disk_interrupt_is_expected_polled_claimed_unexpected_by_poll_then_judged_lost(traces, name, tag):
    """expect -> poll(why expect) -> the handler claims in that poll -> unexpect by poll -> verdict
    lost (given when the next completion is found by polling again); never a completion twice.
    msi-mask: the NVMe's I/O queue on its MSI-X message line (q35); the message held in the
    Pending Bit Array arrives only after `inject off`, after the last command."""
    model, events, tail = traces[name]
    line = ev(events, "expect")[0].line
    assert_common(model, events, tail)
    assert_each_expect_ends_once(events, line, tag)
    last_cmd = ev(events, "drv", line, name=tag)[-1]
    assert not [e for e in ev(events, "irq_entry", line) if e.seq < last_cmd.seq], \
        "an interrupt came while the disk's interrupts were to be lost"
    found = 0
    for start, inside, end in poll_runs(events, line):
        if end.f["result"] != "handled":
            continue
        assert "expect" in start.f["why"].split("+"), start.f
        unexp = [e for e in inside if e.name == "unexpect" and e.f["by"] == "poll"]
        claims = [e for e in inside if e.name == "action" and e.f["ret"] == "handled" and e.f["run"] == "poll"]
        assert len(unexp) == 1 and claims, [(e.name, e.f) for e in inside]
        tok = unexp[0].f["token"]
        expects = [e for e in events if e.name == "expect" and e.f["token"] == tok and e.seq < start.seq]
        assert expects, f"poll at input line {start.src} ended an expect that never began"
        found += 1
    assert found >= 2, f"{name}: {found} completions found by polling"
    lost = ev(events, "verdict", line, kind="lost")
    assert lost, "no verdict lost"
    # (the first may judge a completion of the scenario before, still awaiting its verdict)
    first_poll_unexpect = ev(events, "unexpect", line, by="poll")[0]
    assert any(v.seq > first_poll_unexpect.seq for v in lost), "no verdict lost after a completion found by poll"


def assert_storm(events, line):
    """Unclaimed interrupts -> the line disabled for flooding -> polls -> re-enabled after the back-off."""
    off = ev(events, "state", line, what="flood_off")
    assert off, "the line was never disabled for flooding"
    first_off = off[0]
    before = [e for e in events if e.seq < first_off.seq and e.line == line]
    runs = [e for e in before if e.name == "action" and e.f["run"] == "irq"]
    unclaimed = [e for e in runs if e.f["ret"] == "none"]
    # A flood segment is 100 interrupts in the irqkit profile (docs/defences.md), >= 95 % unclaimed;
    # the segment may have begun just before `trace start`, hence some margin.
    assert len(unclaimed) >= 50 and len(unclaimed) * 100 >= 90 * len(runs), \
        f"{len(unclaimed)} of {len(runs)} interrupts unclaimed before the trip"
    reen = [e for e in ev(events, "state", line, what="reenable") if e.seq > first_off.seq]
    assert reen, "never re-enabled"
    polls_between = [e for e in ev(events, "poll_start", line) if first_off.seq < e.seq < reen[0].seq]
    # (a disk's expect may want a poll of the same line sooner: those polls say why=expect)
    assert [e for e in polls_between if "flood" in e.f["why"].split("+")], [e.f for e in polls_between[:5]]
    backoff_ms = int(first_off.f["value"])
    waited_ms = (reen[0].ts - first_off.ts) / 1e6
    # The flood_off event is stamped a few us after the time the back-off counts from.
    assert waited_ms >= backoff_ms - 0.1, f"re-enabled after {waited_ms:.3f} ms, the back-off was {backoff_ms} ms"
    assert ev(events, "state", line, what="flood_over"), "the storm episode never ended"


def test_e1000_storm_is_contained_polled_and_the_line_re_enabled_after_its_back_off(traces):
    model, events, tail = traces["e1000-storm"]
    assert_common(model, events, tail)
    assert_storm(events, 11)


def test_spurious_flood_takes_the_disk_line_off_and_the_disk_completes_by_polling(traces):
    model, events, tail = traces["spurious-flood"]
    assert_common(model, events, tail)
    assert_storm(events, 14)
    off = ev(events, "state", 14, what="flood_off")[0]
    assert [e for e in ev(events, "unexpect", 14) if e.seq > off.seq] or ev(events, "poll_end", 14, result="handled")


def test_uhci_misroute_is_found_by_irq_watching_polls(traces):
    model, events, tail = traces["uhci-misroute"]
    assert_common(model, events, tail)
    assert not ev(events, "irq_entry", 11), "the UHCI's interrupts were to go elsewhere"
    found = [s for s, inside, end in poll_runs(events, 11) if end.f["result"] == "handled"]
    assert found and all("watch" in s.f["why"].split("+") for s in found[:5]), [s.f for s in found[:5]]
    assert ev(events, "verdict", 11, kind="watch_polled")
    xfers = ev(events, "drv", 11, name="uhci_xfer")
    assert xfers and [e.f["kind"] for e in xfers] == ["begin", "end"] * (len(xfers) // 2)


def test_smp_disk_line_on_cpu1_polls_on_cpu0_one_track_per_cpu_in_order(traces):
    """smp-ata-race (pc, -smp 2): the disk's line on CPU 1, every poll on CPU 0 (the timers'
    CPU), polls aimed at the interrupts by `ata-race`. Both CPUs have their track, in the
    model and in the JSON; each CPU's events are in timestamp order (assert_common); the
    interrupts are all taken on CPU 1 and the polls all run on CPU 0; the race shows: a poll
    finding the handlers running (busy), or an interrupt of CPU 1 replayed on CPU 0 after a
    poll (an action run=irq on CPU 0, which takes no interrupt of line 14); and each expect
    ends once, across the two CPUs."""
    model, events, tail = traces["smp-ata-race"]
    assert_common(model, events, tail)
    assert {("cpu", 0), ("cpu", 1)} <= set(model.tracks()), model.tracks()
    chrome = irqtrace.to_chrome(model, "t")
    names = {e["args"]["name"] for e in chrome["traceEvents"] if e.get("name") == "thread_name"}
    assert {"CPU 0", "CPU 1"} <= names, names
    entries = ev(events, "irq_entry", 14)
    assert entries and {e.cpu for e in entries} == {1}, {e.cpu for e in entries}
    polls = ev(events, "poll_start", 14)
    assert polls and {e.cpu for e in polls} == {0}, {e.cpu for e in polls}
    busy = [e for e in ev(events, "poll_end", 14, result="busy") if e.cpu == 0]
    replayed = [e for e in ev(events, "action", 14, run="irq") if e.cpu == 0]
    assert busy or replayed, "no poll met an interrupt of the other CPU"
    # The dump prints CPU 0's ring, then CPU 1's: in time order the brackets alternate.
    assert_each_expect_ends_once(irqtrace.merged(events), 14)
