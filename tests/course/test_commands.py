"""Every command the course shows runs as written.

- A block of the course that holds a command (a line that starts with `$ `, `irqkit> ` or
  `make `) is a marked session (tools/course/transcripts.py): test_transcripts.py runs it, the
  host's commands in bash and each `irqkit> ` line typed into the kernel `$ make run` booted.
- Every `make run ...` the course writes in its text is run as written: make builds, QEMU boots
  with those options to the shell's prompt, and Ctrl-A X quits it. One that opens a window
  (`UI=gtk`) runs on a virtual X display (xvfb-run) when the test has none.
- Every shell command with arguments that the text names in backticks (`inject ata-drop:50`,
  `affinity 14 0,1 every 1`) is typed in some session of the course, so it was run too. A word in
  capitals (`inject off NAME`) marks a form, and a command with a subcommand's name alone
  (`ata crc`) names it: neither is a command to type.
"""
import os
import re
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "course"))
import transcripts  # noqa: E402

COURSE = transcripts.course_pages()
BLOCK_RX = re.compile(r"^```[^\n]*\n.*?^```[ \t]*$|(?:^(?: {4}|\t)[^\n]*\n?(?:^[ \t]*\n)*)+", re.S | re.M)
COMMAND_LINE = re.compile(r"^(?:\$ |irqkit> |make )", re.M)


def shell_commands():
    text = open(os.path.join(ROOT, "kernel", "shell_cmds.c")).read()
    return set(re.findall(r'^\s*\{ "([a-z-]+)", "', text, re.M))


def session_spans(text):
    return [m.span("block") for m in transcripts.MARKER_RX.finditer(text)]


def code_spans(text):
    """Inline `code` of @text outside fenced and indented blocks."""
    prose = BLOCK_RX.sub("", text)
    prose = re.sub(r"<!--.*?-->", "", prose, flags=re.S)
    return re.findall(r"`([^`\n]+)`", prose)


def is_form(span):
    """Whether @span is a form with placeholders (`inject off NAME`), not a command to run as it is.
    Variables set in it (`APPEND=`, `SMP=`) and QEMU's own capitals are not placeholders."""
    bare = re.sub(r"\b[A-Z][A-Z_]*=", "", span)
    return re.search(r"\b[A-Z]{2,}\b|\.\.\.", bare) is not None


@pytest.mark.parametrize("page", COURSE, ids=[os.path.relpath(p, ROOT) for p in COURSE])
def test_every_command_block_is_a_session(page):
    text = open(page).read()
    inside = session_spans(text)
    bad = []
    for m in BLOCK_RX.finditer(text):
        if not COMMAND_LINE.search(re.sub(r"^(?: {4}|\t)", "", m.group(0), flags=re.M)):
            continue
        if not any(a <= m.start() + 4 and m.end() - 4 <= b for a, b in inside) and \
                not any(m.start() <= a and b <= m.end() for a, b in inside):
            bad.append(f"line {text.count(chr(10), 0, m.start()) + 1}: {m.group(0).strip().splitlines()[0]}")
    assert not bad, f"{os.path.relpath(page, ROOT)}: blocks with commands that no session runs " \
                    f"(mark them, tools/course/transcripts.py):\n" + "\n".join(bad)


def test_commands_named_in_the_text_were_typed():
    cmds = shell_commands()
    typed = set()
    for p in COURSE:
        for s in transcripts.read_sessions(p)[1]:
            typed |= {l[len(transcripts.PROMPT):] for l in s.inputs if l.startswith(transcripts.PROMPT)}
    missing = []
    for p in COURSE:
        for span in code_spans(open(p).read()):
            words = span.split()
            subcommand = len(words) == 2 and words[1].isalpha()     # `ata crc`, `trace clear`: a name
            if len(words) > 1 and words[0] in cmds and not subcommand and not is_form(span) and span not in typed:
                missing.append(f"{os.path.relpath(p, ROOT)}: `{span}`")
    assert not missing, "commands the text asks for that no session types:\n" + "\n".join(sorted(set(missing)))


def make_run_lines():
    """{make run line: page} written in the course's text that no session runs already."""
    shown = set()
    lines = {}
    for p in COURSE:
        for s in transcripts.read_sessions(p)[1]:
            if s.make_run:
                shown.add(s.make_run)
    for p in COURSE:
        for span in code_spans(open(p).read()):
            if span.startswith("make run") and not is_form(span) and span not in shown:
                lines.setdefault(span, p)
    return lines


@pytest.fixture(scope="module")
def course_variables():
    """The course's host commands run once (the disk images), and each page's variables."""
    _, sessions = transcripts.load(COURSE)
    assigns = {}
    for s in sessions:
        a = assigns.setdefault(s.page, [])
        for inp in s.inputs:
            if inp.startswith(transcripts.HOST) and not re.match(r"\$ make run\b", inp):
                cmd = inp[len(transcripts.HOST):]
                if re.fullmatch(r"[A-Za-z_]\w*=.*", cmd):
                    a.append(cmd)
                else:
                    transcripts.run_host(cmd, a, 120)
    return assigns


def test_every_make_run_line_boots(course_variables):
    lines = make_run_lines()
    assert lines, "the course writes no `make run` line in its text?"

    def boot(item):
        cmd, page = item
        run = cmd
        if re.search(r"\bUI=(?!none\b)", cmd) and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            run = "xvfb-run -a " + cmd     # a window needs a display: a virtual one here (tools/deps.sh)
        try:
            b = transcripts.Boot("check", run, course_variables.get(page, []), os.path.relpath(page, ROOT), 120)
        except transcripts.PageError as e:
            return f"`{cmd}` ({os.path.relpath(page, ROOT)}): {e}"
        b.quit()
        return None

    items = sorted(lines.items())
    results = transcripts.run_boots(items, lambda it: (it[0], course_variables.get(it[1], [])), boot,
                                    int(os.environ.get("COURSE_JOBS", "1")))
    bad = [r for r in results if r]
    assert not bad, "\n\n".join(bad)
