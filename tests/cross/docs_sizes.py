#!/usr/bin/python3
"""docs_sizes.py - the size tables of the docs, as `make cross` measured them (tests/cross/cross.mk).

    docs_sizes.py (--check | --write) --report ARCH=JSON ... --matrix JSON FILE ...

Every table of code size or memory in FILE sits between `<!-- sizes: NAME -->` and
`<!-- /sizes -->`; NAME is one of RENDER below, and each must be there. The figures come from
the JSON that tests/cross/cross_report.py (one per CPU) and tests/cross/cross_matrix.py wrote
during `make cross`; this script only lays them out, so a table can not say what the tree does not.

--check fails (exit status 1) on a table that differs from what it renders, with the lines that
differ and the command that rewrites them (`make cross-docs-write`); --write rewrites them. Each
table opens with the line that names the compilers it was measured with: a table measured with
others (another Debian release, another GCC) is reported as not compared, since its figures are
that compiler's, but its shape (header, first column) still must be what is rendered; a missing or
changed compilers line fails as a wrong table does.
A table written by hand between `<!-- sizes-total: ROW -->` and `<!-- /sizes -->` (a row's RAM
per line, field by field) is checked, not rewritten: its parts must add up to its `total` row,
and the total must be ROW's RAM per line.
A marker-like comment that is not one of these, an unknown NAME, an unclosed block, a missing
table or a missing JSON fails either way.
"""
import argparse
import difflib
import json
import os
import re
import sys

# The CPUs of the porting tables, in their order, with the names the docs give them.
ARCHS = [("i686", "i686 (`-m32 -march=i686 -fno-pic`)"), ("cortex-m3", "Cortex-M3 (Thumb-2)"),
         ("rv64imac", "RV64IMAC"), ("aarch64", "AArch64 (`-mgeneral-regs-only`)"),
         ("x86_64", "x86_64 (`-mcmodel=kernel`)")]

# docs/porting.md's "Code size by part": the matrix rows a porter chooses between.
PARTS = [("min", "everything, with the trace"), ("notrace", "everything, no trace"),
         ("three", "three defences, terse reports"), ("expect", "expecting alone"),
         ("core", "the dispatch core alone")]


def tbl(head, rows):
    out = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def tdb(d):
    return f"{d['text']} / {d['data']} / {d['bss']}"


def switches(flags, minimal=True):
    f = [x[2:] for x in flags.split() if not (minimal and x == "-DIRQ_MINIMAL=1")]
    return "`" + " ".join(f) + "`" if f else "none"


def cost(rep, mx):
    """docs/porting.md: what the core costs a porter, per CPU (cross_report.py's figures)."""
    archs = [a for a, _ in ARCHS]
    r = [rep[a] for a in archs]
    cell = lambda f: [f(x) for x in r]  # noqa: E731
    big = r[0]["kcfg"]
    rows = [
        ["core, defaults (64 lines, one CPU): text / data / bss"] + cell(lambda x: tdb(x["kernel/irq core"])),
        ["static memory with the defaults (core and template port: data + bss)"] +
        cell(lambda x: sum(x["static"]["std"].values())),
        ["the same against the bound `make cross` enforces"] +
        cell(lambda x: f"{x['bss_max'] - sum(x['static']['std'].values())} B under {x['bss_max']}"
             if "bss_max" in x else "no bound"),
        ["core, small kernel (`IRQ_MINIMAL=1`, 16 lines): text / data / bss"] +
        cell(lambda x: tdb(x["minimal"]["core"])),
        ["static memory, small kernel"] + cell(lambda x: sum(x["static"]["min"].values())),
        [f"static memory, large kernel (`{big}`)"] + cell(lambda x: sum(x["static"]["kcfg"].values())),
        ["template port (with its formatter): text / data / bss"] + cell(lambda x: tdb(x["template port"])),
        ["timer wheel: text"] + cell(lambda x: x["timer wheel"]["text"]),
        ["linked image, defaults: text / data / bss"] + cell(lambda x: tdb(x["image"])),
        ["linked image, small kernel: text / data / bss"] + cell(lambda x: tdb(x["minimal"]["image"])),
        ["taken from outside the core"] +
        cell(lambda x: "; ".join(p for p in (
            " ".join(f"`{s}`" for s in x["from_libc"]) and
            " ".join(f"`{s}`" for s in x["from_libc"]) + f" ({x['libc']})",
            x["from_libgcc"] and "libgcc " + " ".join(f"`{s}`" for s in x["from_libgcc"])) if p)
             or "nothing"),
        ["`struct irq_desc` / `struct irqaction` / `struct irq_expect`"] +
        cell(lambda x: f"{x['types']['irq_desc']} / {x['types']['irqaction']} / {x['types']['irq_expect']}"),
        ["memory per interrupt line, every part built"] +
        cell(lambda x: f"{x['per_line']['total']} (" + ", ".join(
            f"`{n}` {s}" if isinstance(s, int) else f"a bit of `{n}`" for n, s in x["per_line"]["parts"]) + ")"),
        ["static objects of the core, read-only ones included (defaults): lines x per line + fixed"] +
        cell(lambda x: f"{x['static_objects']['total']} = {x['per_line']['lines']} x {x['per_line']['total']}"
             f" + {x['static_objects']['fixed']}"),
    ]
    return tbl([""] + [dict(ARCHS)[a] for a in archs], rows), [x["compiler"] for x in r]


def row(mx, name):
    for r in mx["rows"]:
        if r["name"] == name:
            return r
    sys.exit(f"docs_sizes: the matrix has no row {name}")


def parts(rep, mx):
    """docs/porting.md: code size by part (cross_matrix.py's rows a porter chooses between)."""
    rows = []
    for name, label in PARTS:
        r = row(mx, name)
        rows.append([label, f"`{name}`", switches(r["flags"]), r["code"], r["ro"], r["code"] + r["ro"],
                     round(r["per_line"])])
    return tbl(["build", "row", "switches (with `IRQ_MINIMAL=1`)", "code", "read-only", "code + read-only",
                "RAM per line"], rows), [mx["compiler"]]


def switch(rep, mx):
    """docs/irq-layers.md: every row of the matrix, against the row it is compared with."""
    rows = []
    for r in mx["rows"]:
        if r["name"] == r["base"]:
            sw, vs = switches(r["flags"], minimal=False), ""
        else:
            row(mx, r["base"])  # (fails on a base the matrix does not have)
            sw = (switches(r["extra"], minimal=False) if r["base"] == "full" else
                  f"{r['base']}, {switches(r['extra'], minimal=False)}")
            vs = f"{r['base']}: " + ("not wired (the same objects)" if r.get("same") else f"{r['delta']:+d}")
        rows.append([r["name"], sw, r["code"], r["ro"], r["code"] + r["ro"], vs, round(r["per_line"])])
    return tbl(["row", "switches", "code", "read-only data", "code + ro", "against", "RAM per line"],
               rows), [mx["compiler"]]


def goals(rep, mx):
    """docs/irq-layers.md: issue 32's goals against the matrix."""
    rows = []
    for name, limit in mx["goals"]:
        r = row(mx, name)
        got = r["code"] + r["ro"]
        rows.append([f"code + read-only data of the `{name}` row", limit, got,
                     "met" if got <= limit else f"**not met**, {got - limit} over"])
    worst = max(mx["rows"], key=lambda r: r["per_line"])
    best = min(mx["rows"], key=lambda r: r["per_line"])
    ok = worst["per_line"] <= mx["line_goal"]
    rows.append(["RAM per line, every row", mx["line_goal"],
                 f"{round(best['per_line'])} (`{best['name']}`) to {round(worst['per_line'])} (`{worst['name']}`)",
                 "met" if ok else "**not met** in any row" if best["per_line"] > mx["line_goal"] else "**not met**"])
    return tbl(["goal", "at most (bytes)", "measured", "result"], rows), [mx["compiler"]]


def files(rep, mx):
    """docs/irq-layers.md: where the `three` row goes, per file, beside the dispatch core alone."""
    three, core = row(mx, "three")["files"], row(mx, "core")["files"]
    rows = []
    for f in sorted(three, key=lambda f: (-(three[f]["code"] + three[f]["ro"]), f)):
        t, c = three[f], core.get(f, {"code": 0, "ro": 0})
        big = t.get("largest")
        rows.append([f"`{f}`", t["code"] + t["ro"], c["code"] + c["ro"],
                     f"{big[0].split('.')[0]}() {big[1]}" if big else ""])
    rows.append(["all", sum(t["code"] + t["ro"] for t in three.values()),
                 sum(c["code"] + c["ro"] for c in core.values()), ""])
    return tbl(["file of `kernel/irq/`", "`three`", "`core`", "largest function in `three` (code bytes)"],
               rows), [mx["compiler"]]


RENDER = {"cost": cost, "parts": parts, "switch": switch, "goals": goals, "files": files}
OPEN = re.compile(r"<!-- sizes: ([a-z-]+) -->")
# A table written by hand (one field per row, its bytes in the last column, then `| total | N |`)
# whose total must be the RAM per line of a matrix row: checked, never rewritten.
OPEN_TOTAL = re.compile(r"<!-- sizes-total: ([a-z]+) -->")
CLOSE = "<!-- /sizes -->"
MARKERISH = re.compile(r"<!--\s*/?\s*sizes")
MEASURED = re.compile(r"Measured with: (.+) \((`make cross`; `make cross-docs-write` rewrites this table|"
                      r"written by hand; `make cross` checks its total)\)\.")


def measured(compilers, how):
    return f"Measured with: {'; '.join(sorted(set(compilers)))} ({how})."


def render(name, rep, mx):
    lines, compilers = RENDER[name](rep, mx)
    return [measured(compilers, "`make cross`; `make cross-docs-write` rewrites this table"), ""] + lines


def shape(lines):
    """The table's header and first column: what must hold whatever compiler measured it."""
    return [x.split("|")[1].strip() if x.startswith("|") else x for x in lines[1:]]


def check_total(path, at, name, block, mx):
    """A hand-written table of a row's RAM per line: its parts add up to its total, and the total is
    the row's. RETURNS the compiler its first line names (to skip it on another), or exits."""
    m = MEASURED.fullmatch(block[0]) if block else None
    if not m or m.group(2) != "written by hand; `make cross` checks its total":
        sys.exit(f"docs_sizes: {path}:{at}: the hand-written table {name} must open with "
                 f"`{measured([mx['compiler']], 'written by hand; `make cross` checks its total')}`")
    cells = [[c.strip() for c in x.strip().strip("|").split("|")] for x in block if x.startswith("|")][2:]
    parts = [int(c[-1]) for c in cells if c[0] != "total"]
    total = [int(c[-1]) for c in cells if c[0] == "total"]
    if len(total) != 1:
        sys.exit(f"docs_sizes: {path}:{at}: the hand-written table {name} needs one `| total | N |` row")
    if sum(parts) != total[0]:
        sys.exit(f"docs_sizes: {path}:{at}: the hand-written table {name}: its parts add up to {sum(parts)}, "
                 f"its total says {total[0]}")
    return m.group(1), total[0], round(row(mx, name)["per_line"])


def main():
    ap = argparse.ArgumentParser()
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    ap.add_argument("--report", action="append", default=[])
    ap.add_argument("--matrix", required=True)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    def load(path):
        if not os.path.exists(path):
            sys.exit(f"docs_sizes: {path} is missing: `make cross` writes it")
        with open(path) as fh:
            return json.load(fh)
    rep = {}
    for r in args.report:
        arch, _, path = r.partition("=")
        rep[arch] = load(path)
    if set(rep) != {a for a, _ in ARCHS}:
        sys.exit(f"docs_sizes: reports for {', '.join(sorted(rep))}; the tables want {', '.join(a for a, _ in ARCHS)}")
    mx = load(args.matrix)

    bad, tables, skipped, seen = 0, 0, 0, set()
    for path in args.files:
        text = open(path).read().split("\n")
        out, i, changed = [], 0, False
        while i < len(text):
            line = text[i].strip()
            m, t = OPEN.fullmatch(line), OPEN_TOTAL.fullmatch(line)
            out.append(text[i])
            i += 1
            if not m and not t:
                if MARKERISH.search(line):
                    sys.exit(f"docs_sizes: {path}:{i}: not a size table's marker: {line} (`<!-- sizes: NAME -->`, "
                             f"`<!-- sizes-total: ROW -->` or {CLOSE})")
                continue
            name = (m or t).group(1)
            if m and name not in RENDER:
                sys.exit(f"docs_sizes: {path}:{i}: no table named {name} (known: {', '.join(RENDER)})")
            end = i
            while end < len(text) and not MARKERISH.search(text[end]):
                end += 1
            if end == len(text) or text[end].strip() != CLOSE:
                sys.exit(f"docs_sizes: {path}:{i}: the table {name} has no {CLOSE} before the next marker")
            old = text[i:end]
            tables += 1
            if t:
                cc, total, want = check_total(path, i, name, old, mx)
                if cc != mx["compiler"]:
                    skipped += 1
                    print(f"docs_sizes: {path}:{i}: table of the {name} row not compared: written for {cc}, "
                          f"this machine has {mx['compiler']}")
                elif total != want:
                    bad += 1
                    print(f"docs_sizes: {path}:{i}: the hand-written table of the {name} row totals {total} bytes "
                          f"per line; make cross measured {want}: the table (and the prose around it) needs "
                          "writing again by hand")
                out += old
            else:
                seen.add(name)
                new = render(name, rep, mx)
                was = MEASURED.fullmatch(old[0]) if old else None
                if old == new:
                    pass
                elif args.write:
                    changed = True
                elif (was and was.group(1) != MEASURED.fullmatch(new[0]).group(1) and
                      shape(old) == shape(new)):
                    skipped += 1
                    print(f"docs_sizes: {path}:{i}: table {name} not compared: it was measured with "
                          f"{was.group(1)}, this machine has {MEASURED.fullmatch(new[0]).group(1)}")
                else:
                    bad += 1
                    print(f"docs_sizes: {path}:{i}: table {name} is not what make cross measured:")
                    for d in difflib.unified_diff(old, new, "docs", "measured", n=0, lineterm=""):
                        print("  " + d)
                if args.write:
                    text[i:end] = new
                    end = i + len(new)
                out += text[i:end]
            out.append(text[end])  # the block's CLOSE
            i = end + 1
        if changed:
            with open(path, "w") as fh:
                fh.write("\n".join(out))
            print(f"docs_sizes: rewrote the size tables of {path}")
    if seen != set(RENDER):
        sys.exit(f"docs_sizes: no table {', '.join(sorted(set(RENDER) - seen))} in {' '.join(args.files)}")
    if bad:
        sys.exit(f"docs_sizes: {bad} size table(s) differ from this tree's build: `make cross-docs-write` "
                 "rewrites the generated ones (then read the prose around them)")
    if args.check:
        print(f"docs_sizes: {tables - skipped} of the {tables} size tables of {' '.join(args.files)} are this "
              f"tree's" + (f"; {skipped} measured with other compilers, not compared (their shape is)"
                           if skipped else ""))


if __name__ == "__main__":
    main()
