"""The course's words and order (docs/course/): what a student reading it in order meets.

- Sentences a student can read: each lesson, the exercises and the README average at most
  MAX_WORDS words a sentence (prose only: code, sessions, tables and comments left out).
- Lessons numbered 1, 2, 3 ... without a gap, and every exercise after the lesson it needs.
- No issue numbers and no internal names: `tejun2010` only where the page says what it is.
- Every link into the glossary names a term the glossary defines, and every lesson links it.
- The README's times follow the text (tools/course/times.py recomputes them).
"""
import os
import re
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
COURSE = os.path.join(ROOT, "docs", "course")
sys.path.insert(0, os.path.join(ROOT, "tools", "course"))
import times  # noqa: E402

MAX_WORDS = 22
LESSONS = sorted(f for f in os.listdir(COURSE) if re.match(r"\d+-.*\.md$", f))
READ = LESSONS + ["exercises.md", "README.md"]


def prose(text):
    """@text without fenced and indented blocks, HTML comments, tables and headings."""
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"^```.*?^```[ \t]*$", "", text, flags=re.S | re.M)
    out = []
    for line in text.split("\n"):
        if line.startswith("    ") and not re.match(r"\s*(?:[-*]|\d+\.) ", line) and \
                not (out and out[-1].strip() and re.match(r"\s*(?:[-*]|\d+\.) ", out[-1])):
            # an indented block (not the continuation of a list item)
            if not out or not out[-1].strip() or out[-1].startswith("    "):
                out.append("    ")
                continue
        if line.startswith("|") or line.startswith("#") or line.startswith("!["):
            out.append("")
            continue
        out.append(line)
    return "\n".join(l for l in out if l.strip() != "")


def sentences(text):
    """The sentences of @text: split after . ! ? or a colon that ends a line; a list item ends one too."""
    text = re.sub(r"`[^`]*`", "CODE", text)                       # code spans are one word
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)           # a link is its text
    text = re.sub(r"\b(e\.g|i\.e|etc|vs|cf)\.", r"\1", text)
    text = re.sub(r"(\d)\.(\d)", r"\1\2", text)                    # 2.5, 0.4 ms
    text = re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "\n\n", text, flags=re.M)   # list items start afresh
    parts = re.split(r"(?<=[.!?])\s+|:\s*\n|\n\s*\n", text)
    out = []
    for p in parts:
        words = re.findall(r"[A-Za-z0-9][\w'/-]*", p)
        if words:
            out.append(words)
    return out


@pytest.mark.parametrize("page", READ)
def test_sentences_a_student_can_read(page):
    s = sentences(prose(open(os.path.join(COURSE, page)).read()))
    avg = sum(len(x) for x in s) / len(s)
    longest = max(s, key=len)
    assert avg <= MAX_WORDS, (f"docs/course/{page}: {avg:.1f} words a sentence on average (at most {MAX_WORDS}); "
                              f"the longest has {len(longest)}: {' '.join(longest)}")


def test_the_check_measures_long_sentences():
    """The measure is not blind: a paragraph of 35-word sentences fails it, one of 12-word ones passes."""
    long = ("The kernel polls the line from its timer when a defence asks for it and the device had "
            "work that its interrupt should have announced so the handler finds it and claims it "
            "before the driver gives up. ") * 4
    short = "The kernel polls the line from its timer. The handler finds the work and claims it. " * 4
    assert sum(map(len, sentences(long))) / len(sentences(long)) > MAX_WORDS
    assert sum(map(len, sentences(short))) / len(sentences(short)) <= MAX_WORDS


def test_lessons_are_numbered_without_gaps():
    nums = [int(f.split("-")[0]) for f in LESSONS]
    assert nums == list(range(1, len(nums) + 1)), f"lesson files {LESSONS}"
    for f in LESSONS:
        head = open(os.path.join(COURSE, f)).readline()
        assert re.match(rf"# Lesson {int(f.split('-')[0])}: ", head), f"{f} opens with {head!r}"


def test_each_exercise_comes_after_the_lesson_it_needs():
    text = open(os.path.join(COURSE, "exercises.md")).read()
    main = text.split("\n## Answers")[0]
    nums, needs = [], {}
    for m in re.finditer(r"^## (\d+)\. .*?(?=^## |\Z)", main, re.S | re.M):
        n = int(m.group(1))
        nums.append(n)
        after = re.search(r"\*After lessons? ([\d and]+)\.", m.group(0))
        assert after or n == 0, f"exercise {n} does not say which lesson it needs (*After lesson N.*)"
        needs[n] = max(int(d) for d in re.findall(r"\d+", after.group(1))) if after else 0
    assert nums == list(range(len(nums))), f"exercises numbered {nums}"
    assert all(needs[a] <= needs[b] for a, b in zip(nums, nums[1:])), f"exercises out of lesson order: {needs}"
    order = [r[0] for r in times.parts()]
    for n, lesson in needs.items():
        if lesson:
            assert order.index(f"lesson {lesson}") < order.index(f"exercise {n}"), (n, order)
    answers = re.findall(r"^### Exercise (\d+)$", text, re.M)
    assert [int(a) for a in answers] == nums[1:], f"answers for exercises {answers}"
    for n in nums[1:]:
        sec = re.search(rf"^## {n}\. .*?(?=^## |\Z)", main, re.S | re.M).group(0)
        assert "**How to check:**" in sec, f"exercise {n} does not say how to check the answers"


@pytest.mark.parametrize("page", sorted(f for f in os.listdir(COURSE) if f.endswith(".md")))
def test_no_issue_numbers_or_internal_names(page):
    text = open(os.path.join(COURSE, page)).read()
    prose_only = prose(text)
    assert not re.search(r"\bissues? \d+", prose_only, re.I), f"{page} names an issue number"
    if "tejun2010" in prose_only:
        assert "glossary.md#profile" in text or "2010 patch" in prose_only or page == "glossary.md", \
            f"{page} uses tejun2010 without saying what it is"


GLOSSARY = open(os.path.join(COURSE, "glossary.md")).read()
TERMS = {re.sub(r"[^a-z0-9 -]", "", t.lower()).replace(" ", "-"): t
         for t in re.findall(r"^### (.+)$", GLOSSARY, re.M)}


@pytest.mark.parametrize("page", LESSONS)
def test_lessons_link_the_glossary_and_its_terms_exist(page):
    text = open(os.path.join(COURSE, page)).read()
    links = re.findall(r"\(glossary\.md#([\w-]+)\)", text)
    assert links or "glossary.md" in text, f"{page} does not link the glossary"
    missing = [l for l in links if l not in TERMS]
    assert not missing, f"{page} links glossary terms that do not exist: {missing}"


def test_the_times_follow_the_text():
    rows, tab = times.table()
    stated = times.readme_table()
    assert stated, "docs/course/README.md has no times table"
    assert stated == tab, ("docs/course/README.md's times no longer follow the pages; "
                           "run `tools/course/times.py --write` (or make course-transcripts):\n" + tab)


# The first words of the kernel's messages and of its shell's output: a block whose lines begin so
# shows what the kernel printed, and must be a session the generator produced.
KERNEL_OUTPUT = re.compile(r"^(?:irqkit> |\[ *\d+\.\d{6}\] |irq \d+: |irq: |ata\d: |ahci\d: |nvme\d: |"
                           r"pci [0-9a-f]{2}:|pci: |crc32 |ACPI: |MP: |LAPIC|IOAPIC\[|smp: |usb: |"
                           r"interrupt mode:|IRQ health|line \d+[: ]|@irqkit-trace|@T \d|fault: |trace: |"
                           r"clocksource: |clockevent: |tick: |HPET: |rv: |<\d>irq |irq health)")
DOC_PAGES = sorted([os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md")] +
                   [os.path.join(COURSE, f) for f in os.listdir(COURSE) if f.endswith(".md")])


@pytest.mark.parametrize("page", DOC_PAGES, ids=[os.path.relpath(p, ROOT) for p in DOC_PAGES])
def test_transcripts_in_the_docs_come_from_the_kernel(page):
    """A block of kernel output in docs/ is a marked session (tools/course/transcripts.py), so that
    `make course-transcripts` writes it and `make course-test` checks it."""
    import transcripts
    text = open(page).read()
    sessions = [m.span("block") for m in transcripts.MARKER_RX.finditer(text)]
    blocks = re.finditer(r"^```[^\n]*\n(.*?)^```[ \t]*$|((?:^(?: {4}|\t)[^\n]*\n|^[ \t]*\n)+)", text, re.S | re.M)
    bad = []
    for m in blocks:
        body = m.group(1) if m.group(1) is not None else m.group(2)
        start = m.start(1) if m.group(1) is not None else m.start(2)
        if any(a <= start <= b for a, b in sessions):
            continue
        lines = [l.strip() for l in body.split("\n") if l.strip()]
        hits = [l for l in lines if KERNEL_OUTPUT.match(l)]
        if hits:
            bad.append(f"line {text.count(chr(10), 0, start) + 1}: {hits[0][:100]}")
    assert not bad, (f"{os.path.relpath(page, ROOT)} shows kernel output that no session produced "
                     f"(mark it, tools/course/transcripts.py):\n" + "\n".join(bad))
