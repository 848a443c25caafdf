"""docs/porting.md against the code (issue 21): what a porter follows must be true.

- Every function the "First boot" section and its checklist name exists in kernel/irq/ (the core
  or the template port), and the checklist is a list a porter can tick.
- The printf conversions section 2 documents are exactly those the core's format strings use
  (every irq_port_log call in kernel/irq/*.c and *.h), so a port's printf can be judged from the
  list alone; the template's formatter (kernel/irq/template/irq_format.c) is checked against the
  C library for the same list by tests/unit/test_irq_format.c.
- The runs of make cross (tests/cross/m3_run.c; tests/cross/rv64_run.c and tests/cross/a64_run.c
  with tests/cross/proof.c) make the boot calls in the documented order.
- Every core name, -D switch and command-line flag the guide gives exists (defined, tested by a
  source file, used by a build file or run script), and each code block of the driver-side example
  (section 3b) compiles against the core's headers, with the blocks before it (issue 31).
"""
import os
import re
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PORTING = os.path.join(ROOT, "docs", "porting.md")
IRQ_DIR = os.path.join(ROOT, "kernel", "irq")
# printf conversion: flags, width, precision, length, conversion (C11 7.21.6.1).
CONVERSION = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?(hh|h|ll|l|z|j|t)?([diouxXcspn%])")
# The boot calls, in the order section 8 gives them.
BOOT_ORDER = ["irq_core_init", "irq_set_chip_and_handler", "irq_defences_start", "request_irq",
              "init_irq_expect"]


def _porting():
    return open(PORTING).read()


def _section(text, start, end):
    a = text.index(start)
    return text[a:text.index(end, a)]


def _irq_sources(exts=(".c", ".h"), template=True):
    out = []
    for d, _, files in os.walk(IRQ_DIR):
        if not template and "template" in d:
            continue
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(exts)]
    return out


def _defined_in_irq(name):
    for path in _irq_sources():
        text = open(path).read()
        if re.search(rf"\b{name}\s*\([^;]*\)\s*\{{", text) or re.search(rf"#define\s+{name}\b", text):
            return True
    return False


def test_first_boot_names_only_functions_the_core_and_template_define():
    boot = _section(_porting(), "## 8. First boot", "## 9.")
    names = sorted(set(re.findall(r"`([A-Za-z_]\w*)\(\)`", boot)))
    assert len(names) >= 15, f"section 8 names only {names}"
    missing = [n for n in names if not _defined_in_irq(n)]
    assert not missing, f"docs/porting.md section 8 names functions kernel/irq/ does not define: {missing}"


def test_the_checklist_can_be_ticked_and_each_function_on_it_exists():
    boot = _section(_porting(), "## 8. First boot", "## 9.")
    items = re.findall(r"^- \[ \] (.+(?:\n {6}.+)*)", boot, re.M)
    assert len(items) >= 10, f"the checklist has {len(items)} tickable items"
    for fn in BOOT_ORDER[:3] + ["generic_handle_irq", "irq_template_set_clock", "irq_health_report"]:
        assert any(f"`{fn}()`" in it for it in items), f"the checklist does not name {fn}()"
    for it in items:
        for n in re.findall(r"`([A-Za-z_]\w*)\(\)`", it):
            assert _defined_in_irq(n), f"checklist item names {n}(), which kernel/irq/ does not define: {it!r}"


def _normalise(conv):
    """One conversion as the docs write it: a constant precision is N."""
    m = CONVERSION.fullmatch(conv)
    flags, width, prec, length, c = m.groups()
    if prec is not None and prec != "*":
        prec = "N"
    return "%" + flags + (width or "") + ("." + prec if prec is not None else "") + (length or "") + c


def _log_calls(text):
    """The argument text of every irq_port_log( ... ) call, strings kept whole."""
    for m in re.finditer(r"\b(?:irq_port_log|IRQ_SAY0?)\s*\(", text):
        i, depth, in_str = m.end(), 1, False
        while depth:
            c = text[i]
            if in_str:
                if c == "\\":
                    i += 1
                elif c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            i += 1
        yield text[m.end():i - 1]


def core_conversions():
    used = set()
    for path in _irq_sources(template=False):
        text = open(path).read()
        if path.endswith("port.h"):
            continue  # the declaration, not a call
        for call in _log_calls(text):
            for lit in re.findall(r'"((?:[^"\\]|\\.)*)"', call):
                used |= {_normalise(c.group(0)) for c in CONVERSION.finditer(lit)}
    return used


def documented_conversions():
    m = re.search(r"<!-- printf-set -->(.*?)<!-- /printf-set -->", _porting(), re.S)
    assert m, "docs/porting.md lost its <!-- printf-set --> markers"
    # The docs write a constant precision as N (%.Ns): read it as one digit for the parser.
    return {_normalise(c.replace(".N", ".1")) for c in re.findall(r"`(%[^`]+)`", m.group(1))}


def test_the_documented_printf_set_is_exactly_what_the_core_prints_with():
    used, documented = core_conversions(), documented_conversions()
    assert len(used) >= 5, f"found only {used} in kernel/irq: the scan is broken"
    assert used <= documented, f"the core uses conversions docs/porting.md does not list: {sorted(used - documented)}"
    assert documented <= used, f"docs/porting.md lists conversions the core never uses: {sorted(documented - used)}"


def _calls_in_order(text, names, after=0):
    """The offsets of the first call of each name at or after @after, in @names' order; asserts each exists."""
    at = []
    for fn in names:
        m = re.search(rf"\b{fn}\(", text[after:])
        assert m, f"never calls {fn}()"
        at.append(after + m.start())
    return at


def test_the_cross_runs_boot_in_the_documented_order():
    # The Cortex-M3 run makes every call itself.
    text = open(os.path.join(ROOT, "tests/cross/m3_run.c")).read()
    start = text.index("irq_core_init();")
    at = [start] + _calls_in_order(text, BOOT_ORDER[1:], start)
    assert at == sorted(at), f"m3_run.c calls {BOOT_ORDER} out of the documented order"
    log = min(i for i in (text.find("irq_template_set_log("), text.find("irq_template_set_console(")) if i >= 0)
    assert log < start, "m3_run.c sets the log after irq_core_init()"
    # The device runs: the board sets the log (and the CPU number) and calls irq_core_init(), then
    # proof_run() attaches the chip, starts the defences and is the driver (tests/cross/proof.c).
    for run in ("tests/cross/rv64_run.c", "tests/cross/a64_run.c"):
        text = open(os.path.join(ROOT, run)).read()
        start = text.index("irq_core_init();")
        log = min(i for i in (text.find("irq_template_set_log("), text.find("irq_template_set_console(")) if i >= 0)
        assert log < start, f"{run} sets the log after irq_core_init()"
        assert text.find("proof_run(") > start, f"{run} runs the scenario before irq_core_init()"
    text = open(os.path.join(ROOT, "tests/cross/proof.c")).read()
    body = text[text.index("void proof_run("):]
    at = _calls_in_order(body, BOOT_ORDER[1:])
    assert at == sorted(at), f"proof_run() calls {BOOT_ORDER[1:]} out of the documented order"


# ---- Every name the guide gives is real (issue 31) ---------------------------------------------

# The core's and the template's API names, as the guide writes them in backticks (with or without
# "()"): functions, macros, flags of the flows and the defences.
API_NAME = re.compile(r"(irq_\w+|IRQ_\w+|IRQF_\w+|IRQS_\w+|request_irq|free_irq|enable_irq|disable_irq(?:_nosync)?|"
                      r"synchronize_irq|expect_irq|unexpect_irq|init_irq_expect(?:_static)?|watch_irq|"
                      r"generic_handle_irq|handle_(?:edge|level|fasteoi)_irq)")
CODE_DIRS = ("kernel", "arch", "drivers", "include", "tests")
# Where the build and run flags the guide names are used.
FLAG_FILES = ["Makefile", "tools/deps.sh"] + [os.path.join(d, f) for d in ("tests/cross", "tests/unit", "tests/qemu")
                                               for f in sorted(os.listdir(os.path.join(ROOT, d)))
                                               if f.endswith((".mk", ".py"))]


def _code_text():
    out = []
    for top in CODE_DIRS:
        for d, _, files in os.walk(os.path.join(ROOT, top)):
            out += [open(os.path.join(d, f), errors="replace").read() for f in files if f.endswith((".c", ".h", ".S"))]
    return "\n".join(out)


def _defined(name, code):
    """A macro, function, enum constant, variable, structure field of function type, or type."""
    return bool(re.search(rf"#\s*define\s+{name}\b", code) or
                re.search(rf"\b{name}\s*\([^;]*\)\s*\{{", code) or            # a function definition
                re.search(rf"^\s*{name}\s*(=[^=]|,)", code, re.M) or          # an enum constant
                re.search(rf"^\w[^\n;()]*\b{name}\s*(\[[^\]\n]*\]\s*)*(=|;)", code, re.M) or  # a variable
                re.search(rf"\(\s*\*\s*{name}\s*\)\s*\(", code) or           # a function pointer (field, typedef)
                re.search(rf"\b(?:struct|enum|union)\s+{name}\s*\{{", code) or
                re.search(rf"\}}\s*{name}\s*;", code) or                      # typedef struct { ... } name;
                re.search(rf"\btypedef\b[^;]*\b{name}\s*;", code))


def _backticked(text):
    return re.findall(r"`([^`\n]+)`", text)


def test_every_core_name_the_guide_gives_is_defined():
    code = _code_text()
    names = set()
    prefixes = set()
    for span in _backticked(_porting()):
        if span.endswith("_*"):
            if API_NAME.match(span):
                prefixes.add(span[:-1])  # `irq_port_lock_*`: a family of names
            continue
        m = API_NAME.fullmatch(span[:-2] if span.endswith("()") else span)
        if m:
            names.add(m.group(1))
    assert len(names) >= 60, f"found only {len(names)} API names in docs/porting.md: the scan is broken"
    missing = sorted(n for n in names if not _defined(n, code))
    missing += sorted(p + "*" for p in prefixes if not re.search(rf"\b{p}\w+\s*\(", code))
    assert not missing, f"docs/porting.md names what nothing defines: {missing}"


def test_every_define_the_guide_gives_is_tested_by_the_code():
    """`-DNAME` / `-DNAME=value`: NAME must be a switch some source file tests or defaults."""
    code = _code_text()
    flags = set()
    for span in _backticked(_porting()):
        flags |= set(re.findall(r"-D([A-Za-z_]\w*)", span))
    flags.discard("NAME")  # `-DNAME=value`: how to override any tunable
    assert len(flags) >= 5, f"found only {sorted(flags)}"
    missing = sorted(f for f in flags if not re.search(
        rf"#\s*(?:if|ifdef|ifndef|elif)\b[^\n]*\b{f}\b", code))
    assert not missing, f"docs/porting.md names -D switches no source file tests: {missing}"


def test_every_command_line_flag_the_guide_gives_is_used_by_the_build_or_the_runs():
    """Compiler, linker and QEMU flags in backticks: each is used by a Makefile, a .mk or a run script."""
    used = "\n".join(open(os.path.join(ROOT, f)).read() for f in FLAG_FILES)
    flags = set()
    for span in _backticked(_porting()):
        for tok in span.split():
            if re.fullmatch(r"-[a-z][\w.=,-]*", tok) and not tok.startswith("-D"):
                flags.add(tok.split("=")[0] if tok.startswith(("-march", "-mabi", "-mcpu", "-mcmodel", "-std")) else tok)
    assert len(flags) >= 15, f"found only {sorted(flags)}"
    missing = sorted(f for f in flags if f not in used)
    assert not missing, f"docs/porting.md names flags no build file or run script uses: {missing}"


# ---- The driver-side example compiles (issue 31) -----------------------------------------------

def driver_example_blocks():
    sec = _section(_porting(), "## 3b.", "## 4.")
    return re.findall(r"```c\n(.*?)```", sec, re.S)


def test_the_driver_example_covers_the_calls_a_driver_makes():
    code = "\n".join(driver_example_blocks())
    for call in ("request_irq(", "init_irq_expect(", "expect_irq(", "unexpect_irq(", "generic_handle_irq(",
                 "IRQ_NONE", "IRQ_HANDLED"):
        assert call in code, f"the driver-side example never uses {call}"
    assert re.search(r"unexpect_irq\([^;]*,\s*false\)", code), "no unexpect_irq(token, false) in the handler"
    submit = code[code.index("disk_submit("):]
    assert submit.index("expect_irq(") < submit.index("disk_start_command("), \
        "the example starts the command before expect_irq()"


def test_each_block_of_the_driver_example_compiles_against_the_core_headers(tmp_path):
    blocks = driver_example_blocks()
    assert len(blocks) >= 5, f"the driver-side example has {len(blocks)} code blocks"
    cc = os.environ.get("HOSTCC", "gcc")
    for i in range(len(blocks)):
        src = tmp_path / f"block{i + 1}.c"
        # Each block with the blocks before it: the example is read in order.
        src.write_text("\n".join(blocks[:i + 1]))
        p = subprocess.run([cc, "-std=gnu11", "-ffreestanding", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                            "-Wno-unused-function", "-I" + os.path.join(ROOT, "kernel"),
                            "-I" + os.path.join(ROOT, "kernel", "irq", "template"), str(src)],
                           capture_output=True, text=True)
        assert p.returncode == 0, f"block {i + 1} of the driver-side example does not compile:\n{p.stderr}"


# ---- The refusal codes (kernel/irq/irq_codes.h) -------------------------------------------------
CODES_H = os.path.join(IRQ_DIR, "irq_codes.h")
C_STRING = r'"((?:[^"\\]|\\.)*)"'


def _c_text(lit):
    """A C string literal's text as the docs show it: escapes undone, the newline dropped."""
    return lit.replace('\\"', '"').replace("\\n", "").strip()


def code_numbers():
    """{IRQ_E_NAME: number} of irq_codes.h's enum."""
    return {n: int(v) for n, v in re.findall(r"^\s*(IRQ_E_\w+)\s*=\s*(\d+)\s*,", open(CODES_H).read(), re.M)}


def code_sentences():
    """{IRQ_E_NAME: {sentence, ...}} as the sources give them: IRQ_SAY(code, level, irq, "..."),
    IRQ_SAY0(code, level, "...") and a request refusal's IRQ_WHY(code, "...")."""
    said = {}
    for path in _irq_sources(exts=(".c",), template=False):
        text = open(path).read()
        for pat in (rf"\bIRQ_SAY\(\s*(IRQ_E_\w+)\s*,\s*IRQ_LOG_\w+\s*,[^,]+,\s*{C_STRING}",
                    rf"\bIRQ_SAY0\(\s*(IRQ_E_\w+)\s*,\s*IRQ_LOG_\w+\s*,\s*{C_STRING}",
                    rf"\bIRQ_WHY\(\s*(IRQ_E_\w+)\s*,\s*{C_STRING}"):
            for name, lit in re.findall(pat, text):
                said.setdefault(name, set()).add(_c_text(lit))
    return said


def documented_codes():
    """{number: (IRQ_E_NAME, sentence)} of docs/porting.md's table of refusal codes."""
    sec = _section(_porting(), "<!-- irq-codes -->", "<!-- /irq-codes -->")
    rows = re.findall(r"^\| E(\d+) \| `(IRQ_E_\w+)` \| `(.*)` \|$", sec, re.M)
    return {int(n): (name, text) for n, name, text in rows}


def test_every_refusal_code_has_one_sentence_in_the_source():
    numbers, said = code_numbers(), code_sentences()
    assert len(numbers) >= 20, f"found only {len(numbers)} codes in irq_codes.h: the scan is broken"
    assert len(set(numbers.values())) == len(numbers), "two refusals share a code number"
    assert set(said) <= set(numbers), f"sources use codes irq_codes.h lacks: {sorted(set(said) - set(numbers))}"
    assert set(numbers) <= set(said), f"codes no source says: {sorted(set(numbers) - set(said))}"
    several = {n: s for n, s in said.items() if len(s) != 1}
    assert not several, f"a code with more than one sentence: {several}"


def test_the_table_of_refusal_codes_is_exactly_what_the_source_says():
    numbers, said, table = code_numbers(), code_sentences(), documented_codes()
    want = {numbers[n]: (n, next(iter(s))) for n, s in said.items() if n in numbers}
    assert table, "docs/porting.md has no table of refusal codes between <!-- irq-codes --> markers"
    missing = sorted(set(want) - set(table))
    extra = sorted(set(table) - set(want))
    wrong = sorted(k for k in set(want) & set(table) if want[k] != table[k])
    assert not missing and not extra and not wrong, \
        f"docs/porting.md's refusal codes drifted from the source: missing {missing}, not in the source {extra}, " \
        f"different {[(k, table[k], want[k]) for k in wrong]}"
