"""The docs name files and functions of the tree; check that those names still exist.

Every `path/with/slash.ext` in backticks must be a file or directory of the tree, and every
`name()` in backticks must be defined (or declared, for macros: #define) in some C/assembly file.
"""
import os
import re
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOCS = sorted(os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs"))
              if f.endswith(".md"))
SOURCE_EXT = (".c", ".h", ".S")


def _sources():
    out = []
    for top in ("arch", "kernel", "drivers", "include", "tests"):
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            out += [os.path.join(d, f) for f in files if f.endswith(SOURCE_EXT)]
    return out


SOURCE_TEXT = "\n".join(open(p, errors="replace").read() for p in _sources())


def _names(path):
    text = open(path).read()
    return re.findall(r"`([^`\n]+)`", text)


@pytest.mark.parametrize("doc", DOCS, ids=[os.path.basename(d) for d in DOCS])
def test_named_files_exist(doc):
    missing = []
    for name in _names(doc):
        m = re.fullmatch(r"((?:arch|kernel|drivers|include|tests|tools|docs|iso)/[\w./-]+)", name)
        if m and not os.path.exists(os.path.join(ROOT, m.group(1))):
            missing.append(m.group(1))
    assert not missing, f"{os.path.basename(doc)} names files that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=[os.path.basename(d) for d in DOCS])
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
    assert not missing, f"{os.path.basename(doc)} names functions nobody defines: {missing}"
