"""The docs name files and functions of the tree; check that those names still exist.

Every `path/with/slash.ext` in backticks must be a file or directory of the tree, and every
`name()` in backticks must be defined (or declared, for macros: #define) in some C/assembly file.
Every relative Markdown link [text](target.md) must point at a file, so the course's order of
reading (docs/course/README.md) cannot lead to a page that was renamed.
"""
import os
import re
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# Every page under docs/, the course (docs/course/) included, and the README.
DOCS = sorted([os.path.join(d, f) for d, _, files in os.walk(os.path.join(ROOT, "docs"))
               for f in files if f.endswith(".md")] + [os.path.join(ROOT, "README.md")])
IDS = [os.path.relpath(d, ROOT) for d in DOCS]
SOURCE_EXT = (".c", ".h", ".S")


def _sources():
    out = []
    for top in ("arch", "kernel", "drivers", "include", "tests"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            out += [os.path.join(d, f) for f in files if f.endswith(SOURCE_EXT)]
    return out


SOURCE_TEXT = "\n".join(open(p, errors="replace").read() for p in _sources())


# Pages other branches are writing, linked from here before they are merged: the link check
# accepts them while they do not exist yet. Remove an entry once the page is on main.
PENDING_PAGES = {
    "docs/storms.md": "the e1000 storm scenario (storm branch)",
}


def _names(path):
    text = open(path).read()
    return re.findall(r"`([^`\n]+)`", text)


@pytest.mark.parametrize("doc", DOCS, ids=IDS)
def test_named_files_exist(doc):
    missing = []
    for name in _names(doc):
        m = re.fullmatch(r"((?:arch|kernel|drivers|include|tests|tools|docs|iso)/[\w./-]+)", name)
        if m and not os.path.exists(os.path.join(ROOT, m.group(1))):
            missing.append(m.group(1))
    assert not missing, f"{os.path.relpath(doc, ROOT)} names files that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=IDS)
def test_named_functions_exist(doc):
    missing = []
    for name in _names(doc):
        m = re.fullmatch(r"([A-Za-z_]\w*)\(\)", name)
        if not m:
            continue
        fn = m.group(1)
        defined = re.search(rf"\b{fn}\s*\([^;]*\)\s*\{{", SOURCE_TEXT) or \
            re.search(rf"#define\s+{fn}\b", SOURCE_TEXT) or \
            re.search(rf"^{fn}:", SOURCE_TEXT, re.M) or \
            re.search(rf"\bSELFTEST\(\w+,\s*{fn}\)", SOURCE_TEXT)
        if not defined:
            missing.append(fn)
    assert not missing, f"{os.path.relpath(doc, ROOT)} names functions nobody defines: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=IDS)
def test_relative_links_exist(doc):
    missing = []
    for target in re.findall(r"\]\(([^)\s]+)\)", open(doc).read()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = os.path.normpath(os.path.join(os.path.dirname(doc), target.split("#")[0]))
        rel = os.path.relpath(path, ROOT)
        if not os.path.exists(path) and rel not in PENDING_PAGES:
            missing.append(target)
    assert not missing, f"{os.path.relpath(doc, ROOT)} links to pages that do not exist: {missing}"
