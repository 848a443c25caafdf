"""Host tests of tools/layers/layers.py (make layers-test; docs/irq-layers.md).

Each case writes a small tree of C files that declare their layers in their opening comments,
runs the tool on it with --strict, and checks that a use or an include that runs up from a lower
layer, a circle, or a file without a declared layer fails it, and that a clean tree passes. Then
the tool runs on kernel/irq itself with --strict, which must pass (no circle, no use up but the
sanctioned note_interrupt(), every file's layer declared), the walk of one disk command's token
is checked to have followed the token, and a copy of kernel/irq with one call back up added (the
scheduler naming a defence) and one with an include circle added (the tables' file including the
header that reads them) must each fail it.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "layers", "layers.py")
CC = os.environ.get("CC", "i686-linux-gnu-gcc")

if shutil.which(CC) is None:
    pytest.fail(f"{CC} not found: make deps installs the kernel's cross compiler", pytrace=False)

BASE_H = """/*
 * base.h - what every layer may use.
 * Layer 0, the base.
 */
int low_fn(void);
int low_other(void);
int high_fn(void);
extern int high_counter;
static inline int base_twice(int x)
{
	return 2 * x;
}
"""
LOW_C = """/*
 * low.c - a lower file.
 * Layer 1, the lower one.
 */
#include "base.h"
int low_fn(void)
{
	return base_twice(1)%s;
}
"""
HIGH_C = """/*
 * high.c - a higher file.
 * Layer 2, the higher one.
 */
#include "base.h"
int high_counter;
int high_fn(void)
{
	return low_fn() + high_counter;
}
"""
HIGH_H = """/*
 * high.h - the higher file's own header.
 * Layer 2, the higher one.
 */
#define HIGH_ONLY 1
"""


def tree(tmp_path, low_extra="", files=None):
    d = tmp_path / "src"
    d.mkdir()
    contents = {"base.h": BASE_H, "low.c": LOW_C % low_extra, "high.c": HIGH_C, "high.h": HIGH_H}
    contents.update(files or {})
    for name, text in contents.items():
        if text is not None:
            (d / name).write_text(text)
    return d


def layers(d, tmp_path, *extra):
    cmd = [sys.executable, TOOL, "--dir", str(d), "--out", str(tmp_path / "out"), "--cc", CC,
           "--inc", str(d), "--json", str(tmp_path / "out" / "l.json")] + list(extra)
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    data = None
    if os.path.exists(tmp_path / "out" / "l.json"):
        with open(tmp_path / "out" / "l.json") as fh:
            data = json.load(fh)
    return p, data


def test_a_tree_whose_uses_all_run_down_passes_strict(tmp_path):
    p, data = layers(tree(tmp_path), tmp_path, "--strict")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "no circle, every use runs down" in p.stdout
    assert data["violations"] == [] and data["circles"] == []
    # The uses it must have seen: a call down, an inline function of a header, a variable.
    assert data["edges"]["high.c -> low.c"] == 1
    assert data["edges"]["low.c -> base.h"] == 2  # the include and the call of base_twice
    assert data["layer"] == {"base.h": 0, "high.c": 2, "high.h": 2, "low.c": 1}


def test_a_call_from_a_lower_layer_up_fails_strict_and_names_it(tmp_path):
    p, data = layers(tree(tmp_path, " + high_fn()"), tmp_path, "--strict")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "violation: low.c (layer 1) -> high.c (layer 2): low_fn -> high_fn" in p.stdout
    assert data["circles"] == [["high.c", "low.c"]]


def test_a_variable_read_up_fails_strict(tmp_path):
    p, _ = layers(tree(tmp_path, " + high_counter"), tmp_path, "--strict")
    assert p.returncode == 1
    assert "violation: low.c (layer 1) -> high.c (layer 2): low_fn -> high_counter" in p.stdout


def test_an_include_of_a_higher_header_fails_strict(tmp_path):
    low = (LOW_C % "").replace('#include "base.h"', '#include "base.h"\n#include "high.h"')
    p, _ = layers(tree(tmp_path, files={"low.c": low}), tmp_path, "--strict")
    assert p.returncode == 1
    assert 'violation: low.c (layer 1) -> high.h (layer 2): #include "high.h"' in p.stdout


def test_a_header_inline_function_that_calls_up_fails_strict(tmp_path):
    base = BASE_H.replace("return 2 * x;", "return 2 * x + low_other();")
    other = "/*\n * other.c\n * Layer 1, the lower one.\n */\n#include \"base.h\"\nint low_other(void)\n{\n\treturn 0;\n}\n"
    p, _ = layers(tree(tmp_path, files={"base.h": base, "other.c": other}), tmp_path, "--strict")
    assert p.returncode == 1
    assert "violation: base.h (layer 0) -> other.c (layer 1): base_twice -> low_other" in p.stdout


# The layer check's one sanctioned call up (SANCTIONED in layers.py): handle.c may call spurious.c's
# note_interrupt() and nothing else of it.
HANDLE_C = """/*
 * handle.c - the dispatch core's run.
 * Layer 1, the dispatch core.
 */
#include "base.h"
int note_interrupt(int ret);
int flood_other(void);
int handle_run(void)
{
	return note_interrupt(1)%s;
}
"""
SPURIOUS_C = """/*
 * spurious.c - a defence.
 * Layer 3, a defence.
 */
#include "base.h"
int handle_run(void);
int note_interrupt(int ret)
{
	return ret;
}
int flood_other(void)
{
	return handle_run();
}
"""


def test_the_sanctioned_call_up_passes_strict_and_is_listed(tmp_path):
    p, data = layers(tree(tmp_path, files={"handle.c": HANDLE_C % "", "spurious.c": SPURIOUS_C}), tmp_path, "--strict")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "sanctioned (not a violation, tools/layers/layers.py SANCTIONED): handle.c -> spurious.c: " \
           "handle_run -> note_interrupt" in p.stdout
    assert data["sanctioned"] == [["handle.c", "spurious.c", "handle_run -> note_interrupt"]]


def test_any_other_call_up_beside_the_sanctioned_one_fails_strict(tmp_path):
    p, data = layers(tree(tmp_path, files={"handle.c": HANDLE_C % " + flood_other()", "spurious.c": SPURIOUS_C}),
                     tmp_path, "--strict")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "violation: handle.c (layer 1) -> spurious.c (layer 3): handle_run -> flood_other" in p.stdout
    assert data["circles"] == [["handle.c", "spurious.c"]]


def test_a_circle_within_one_layer_fails_strict(tmp_path):
    other = ("/*\n * other.c\n * Layer 1, the lower one.\n */\n#include \"base.h\"\n"
             "int low_other(void)\n{\n\treturn low_fn();\n}\n")
    p, data = layers(tree(tmp_path, " + low_other()", files={"other.c": other}), tmp_path, "--strict")
    assert p.returncode == 1
    assert "circle within layer 1: low.c other.c" in p.stdout
    assert data["violations"] == []


def test_a_file_without_a_declared_layer_fails_strict(tmp_path):
    p, _ = layers(tree(tmp_path, files={"high.h": "#define HIGH_ONLY 1\n"}), tmp_path, "--strict")
    assert p.returncode == 1
    assert "1 files do not declare their layer" in p.stdout


def test_report_mode_prints_the_violation_and_does_not_fail(tmp_path):
    p, _ = layers(tree(tmp_path, " + high_fn()"), tmp_path)
    assert p.returncode == 0
    assert "violation: low.c (layer 1) -> high.c (layer 2)" in p.stdout
    assert "report only, not failing" in p.stdout


def test_a_compile_error_is_the_tool_failing_not_a_report(tmp_path):
    p, _ = layers(tree(tmp_path, " + ("), tmp_path)
    assert p.returncode == 2
    assert "failed" in p.stderr


def test_the_best_stacking_puts_the_fewest_uses_back_up(tmp_path):
    # a.c uses b.c three times, b.c uses a.c once: b.c goes below a.c, one use runs back up.
    a = ("/* a.c\n * Layer 1\n */\nint b1(void);\nint b2(void);\nint b3(void);\n"
         "int a1(void)\n{\n\treturn b1() + b2() + b3();\n}\n")
    b = ("/* b.c\n * Layer 1\n */\nint a1(void);\nint b1(void)\n{\n\treturn a1();\n}\n"
         "int b2(void)\n{\n\treturn 0;\n}\nint b3(void)\n{\n\treturn 0;\n}\n")
    d = tmp_path / "src"
    d.mkdir()
    (d / "a.c").write_text(a)
    (d / "b.c").write_text(b)
    p, data = layers(d, tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert data["order"] == ["b.c", "a.c"]
    assert data["back"] == [["b.c", "a.c", 1]] and data["back_uses"] == 1
    assert data["levels"] == 2


def test_kernel_irq_passes_strict_and_the_walk_follows_the_token(tmp_path):
    out = tmp_path / "k"
    p = subprocess.run([sys.executable, TOOL, "--cc", CC, "--walk", "--out", str(out), "--quiet", "--strict",
                        "--json", str(out / "k.json")], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "layers: no circle, every use runs down or within its layer, every file declares its layer" in p.stdout
    with open(out / "k.json") as fh:
        data = json.load(fh)
    for section in ("2. Circles", "3. The best stacking", "4. Against the declared layers", "5. The walk"):
        assert section in p.stdout
    assert data["circles"] == [] and data["violations"] == [] and data["back_uses"] == 0
    assert all(src == "comment" for src in data["layer_source"].values()), data["layer_source"]
    # The one call up allowed by name, and nothing else of the pair.
    assert [(a, b) for a, b, _ in data["sanctioned"]] == [("handle.c", "spurious.c")]
    assert set(data["walks"]) == {"first", "verified", "lost"}
    for name, w in data["walks"].items():
        # The token's path starts in expect_irq and reaches the interrupt's dispatch.
        assert w["path"][0] == "expect.c", name
        assert "handle.c" in w["files"], name
    assert "tick_look.c" in data["walks"]["lost"]["files"] or "poll.c" in data["walks"]["lost"]["files"]


def kernel_irq_copy(tmp_path, edits):
    """kernel/irq (with its template port) copied under tmp_path, each (file, old, new) edit applied."""
    d = tmp_path / "kernel" / "irq"
    shutil.copytree(os.path.join(ROOT, "kernel", "irq"), d)
    for name, old, new in edits:
        text = (d / name).read_text()
        assert old in text, (name, old)
        (d / name).write_text(text.replace(old, new, 1))
    return d


def strict_on(d, tmp_path):
    return subprocess.run([sys.executable, TOOL, "--dir", str(d), "--cc", CC, "--out", str(tmp_path / "o"),
                           "--quiet", "--strict"], capture_output=True, text=True, cwd=ROOT)


def test_one_call_back_up_added_to_kernel_irq_fails_strict(tmp_path):
    # The poll scheduler (layer 2) naming a defence (layer 3) again, as it did before the defence table.
    d = kernel_irq_copy(tmp_path, [("poll.c", "void irq_poll_timer_fn(void *arg)\n",
                                    "void __irq_expect_kill_all(struct irq_desc *desc, struct irqaction *a);\n"
                                    "void __irq_layers_up(struct irq_desc *desc, struct irqaction *a);\n"
                                    "void __irq_layers_up(struct irq_desc *desc, struct irqaction *a)\n"
                                    "{\n\t__irq_expect_kill_all(desc, a);\n}\n\n"
                                    "void irq_poll_timer_fn(void *arg)\n")])
    p = strict_on(d, tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "violation: poll.c (layer 2) -> expect.c (layer 3): __irq_layers_up -> __irq_expect_kill_all" in p.stdout
    assert "layers: FAIL (--strict): 1 uses run from a lower layer to a higher one" in p.stdout


def test_a_defence_header_included_below_fails_strict(tmp_path):
    # internals.h is split: each defence's declarations are in its own private header of layer 3
    # (expect.h), so the scheduler (layer 2) including it again is an include up.
    d = kernel_irq_copy(tmp_path, [("poll.c", '#include "irq_sched.h"\n', '#include "irq_sched.h"\n#include "expect.h"\n')])
    p = strict_on(d, tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    assert 'violation: poll.c (layer 2) -> expect.h (layer 3): #include "expect.h"' in p.stdout


def test_one_include_circle_added_to_kernel_irq_fails_strict(tmp_path):
    # The tables' file including the header whose inline helpers read those tables (core.h: irq_to_desc).
    d = kernel_irq_copy(tmp_path, [("desc_table.c", '#include "internals.h"\n', '#include "core.h"\n')])
    p = strict_on(d, tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "circle within layer 1: core.h desc_table.c" in p.stdout
    assert "layers: FAIL (--strict): 1 circle(s)" in p.stdout
