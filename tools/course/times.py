#!/usr/bin/env python3
"""times.py - how long each lesson and exercise of the course takes a first-time student.

    times.py [--write]      print the table; --write puts it into docs/course/README.md

A part's time is the sum of:
  - reading: every word of its text and of the output its sessions show, at READ_WPM words a
    minute (careful reading of a technical text, with the code it names open beside it);
  - typing: every command its sessions type (host, kernel and QEMU's monitor), at TYPE_CPS
    characters a second, plus LOOK_S seconds to find each command's output on the screen;
  - thinking: QUESTION_MIN minutes per question (numbered items under "Questions:"), to answer it
    and check the answer with the command the exercise names;
  - running: the host seconds its sessions' commands took the last time `make course-transcripts`
    ran them (build/course/durations.json, written by tools/course/transcripts.py), builds and
    boots included; a boot that `make run` builds first adds BUILD_S once, in the first part.

The README's table keeps the measured run time in a column of its own, so that tests/docs can
recompute the rest from the pages alone and see that the stated times still follow the text.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import transcripts  # noqa: E402

READ_WPM = 120       # words a minute
TYPE_CPS = 3         # characters a second
LOOK_S = 10          # seconds to read a command's output for what the text points at
QUESTION_MIN = 3     # minutes per question
BUILD_S = 60         # the first `make run` of a fresh clone builds the kernel (make -j1 on 2 cores)
COURSE = os.path.join(ROOT, "docs", "course")
README = os.path.join(COURSE, "README.md")
BEGIN, END = "<!-- times: written by tools/course/times.py -->", "<!-- /times -->"


def parts():
    """[(id, title, link, text, page)] in the order of reading: each lesson followed by its exercises."""
    out = []
    ex_text = open(os.path.join(COURSE, "exercises.md")).read()
    main, _, answers = ex_text.partition("\n## Answers")
    sections = re.split(r"^## (?=\d+\. )", main, flags=re.M)[1:]
    exercises = {}
    for sec in sections:
        n = int(sec.split(".", 1)[0])
        title = sec.split("\n", 1)[0].split(". ", 1)[1].strip()
        after = re.search(r"\*After lessons? ([\d and]+)\.", sec)
        needs = max(int(d) for d in re.findall(r"\d+", after.group(1))) if after else 0
        ans = re.search(rf"^### Exercise {n}\n(.*?)(?=^### |\Z)", answers, re.S | re.M)
        anchor = re.sub(r"[^a-z0-9 -]", "", f"{n}. {title}".lower()).replace(" ", "-")
        exercises[n] = (title, f"exercises.md#{anchor}", "## " + sec + (ans.group(1) if ans else ""),
                        needs)
    lessons = sorted(f for f in os.listdir(COURSE) if re.match(r"\d+-.*\.md$", f))
    for f in lessons:
        n = int(f.split("-")[0])
        text = open(os.path.join(COURSE, f)).read()
        title = re.search(r"^# Lesson \d+: (.*)$", text, re.M).group(1)
        out.append((f"lesson {n}", title, f, text, os.path.join(COURSE, f)))
        for e in sorted(k for k, v in exercises.items() if v[3] == n or (n == 1 and v[3] == 0)):
            t, link, body, _ = exercises[e]
            out.append((f"exercise {e}", t, link, body, os.path.join(COURSE, "exercises.md")))
    return out


def measure(text):
    """(words, typed characters, commands, questions) of @text, sessions and all."""
    prose = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    words = len(re.findall(r"[A-Za-z0-9][\w'./:-]*", prose))
    # A monitor command (`(qemu) sendkey a`) is typed between two Ctrl-A C: four keys more.
    cmds = re.findall(r"^(?:\$ |irqkit> )(.*)$", prose, re.M) + \
        [c + " ^A^C" for c in re.findall(r"^\(qemu\) (.*)$", prose, re.M)]
    q = re.search(r"^Questions:\n(.*?)(?=^\*\*How to check|\Z)", text, re.S | re.M)
    questions = len(re.findall(r"^\d+\. ", q.group(1), re.M)) if q else 0
    return words, sum(len(c) + 1 for c in cmds), len(cmds), questions


def run_seconds(text, page, durations):
    """Host seconds the sessions inside @text took (their comment's line, as transcripts.py keys them)."""
    full = open(page).read()
    start = full.find(text[:200]) if text[:200] in full else 0
    total = 0.0
    for m in transcripts.MARKER_RX.finditer(text):
        line = full.count("\n", 0, start + m.start()) + 1
        total += durations.get(f"{os.path.relpath(page, ROOT)}:{line}", 0.0)
    return total


def minutes(text, run_s):
    words, chars, cmds, questions = measure(text)
    return words / READ_WPM + (chars / TYPE_CPS + cmds * LOOK_S + run_s) / 60 + questions * QUESTION_MIN


def table(durations=None):
    """The rows [(id, title, link, run seconds, minutes)] and the README's table text. With no
    @durations, the run seconds are the ones the README states now."""
    stated = stated_runs()
    rows = []
    for n, (pid, title, link, text, page) in enumerate(parts()):
        run = (run_seconds(text, page, durations) + (BUILD_S if n == 0 else 0)) if durations is not None \
            else stated.get(pid, 0)
        rows.append((pid, title, link, round(run), minutes(text, round(run))))
    lines = ["| part | what | commands run (measured) | time |", "| --- | --- | --- | --- |"]
    for pid, title, link, run, mins in rows:
        lines.append(f"| {pid} | [{title}]({link}) | {run} s | {fmt(mins)} |")
    total = sum(r[4] for r in rows)
    lines.append(f"| all | | {sum(r[3] for r in rows)} s | {fmt(total)} ({total / 60:.1f} h) |")
    return rows, "\n".join(lines)


def fmt(mins):
    return f"{max(5, int(5 * round(mins / 5)))} min"


def stated_runs():
    text = open(README).read()
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^\| ((?:lesson|exercise) \d+) \|[^|]*\| (\d+) s \|",
                                                             text, re.M)}


def readme_table():
    text = open(README).read()
    a, b = text.find(BEGIN), text.find(END)
    return text[a + len(BEGIN):b].strip() if a >= 0 and b > a else None


def main(argv):
    durations = None
    if os.path.exists(transcripts.DURATIONS):
        with open(transcripts.DURATIONS) as f:
            durations = json.load(f)
    _, tab = table(durations if "--measured" in argv or "--write" in argv else None)
    if "--write" in argv:
        text = open(README).read()
        a, b = text.find(BEGIN), text.find(END)
        if a < 0 or b < a:
            print(f"times: no {BEGIN} ... {END} in {README}", file=sys.stderr)
            return 2
        new = text[:a + len(BEGIN)] + "\n" + tab + "\n" + text[b:]
        if new != text:
            with open(README, "w") as f:
                f.write(new)
            print("times: wrote docs/course/README.md")
        return 0
    print(tab)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
