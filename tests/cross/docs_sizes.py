#!/usr/bin/python3
"""docs_sizes.py - the size tables of the docs, as `make cross` measured them (tests/cross/cross.mk).

    docs_sizes.py (--check | --write) --report ARCH=JSON ... --matrix JSON FILE ...

Every table of code size or memory in FILE sits between `<!-- sizes: NAME -->` and
`<!-- /sizes -->`; NAME is one of RENDER below. The figures come from the JSON that
tests/cross/cross_report.py (one per CPU) and tests/cross/cross_matrix.py wrote during
`make cross`; this script only lays them out, so a table can not say what the tree does not.

--check fails (exit status 1) on a table that differs from what it renders, with the lines that
differ and the command that rewrites them (`make cross-docs-write`); --write rewrites them. Each
table names the compilers it was measured with: measured with others (another Debian release,
another GCC), a table is reported as not compared, since its figures are that compiler's.
An unknown NAME, an unclosed block or a missing JSON fails either way.
"""
import argparse
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
    archs = [a for a, _ in ARCHS if a in rep]
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
        ["static objects of the core (defaults): lines x per line + fixed"] +
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
            vs = f"{r['base']}: {r['delta']:+d}"
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
CLOSE = "<!-- /sizes -->"
MEASURED = "Measured with: "


def render(name, rep, mx):
    lines, compilers = RENDER[name](rep, mx)
    return [MEASURED + "; ".join(sorted(set(compilers))) + " (`make cross`; `make cross-docs-write` "
            "rewrites this table).", ""] + lines


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
    mx = load(args.matrix)

    bad, tables, skipped = 0, 0, 0
    for path in args.files:
        text = open(path).read().split("\n")
        out, i, changed = [], 0, False
        while i < len(text):
            m = OPEN.fullmatch(text[i].strip())
            out.append(text[i])
            i += 1
            if not m:
                continue
            name = m.group(1)
            if name not in RENDER:
                sys.exit(f"docs_sizes: {path}:{i}: no table named {name} (known: {', '.join(RENDER)})")
            end = i
            while end < len(text) and text[end].strip() != CLOSE:
                if OPEN.fullmatch(text[end].strip()):
                    break
                end += 1
            if end == len(text) or text[end].strip() != CLOSE:
                sys.exit(f"docs_sizes: {path}:{i}: the table {name} has no {CLOSE}")
            old, new = text[i:end], render(name, rep, mx)
            tables += 1
            if old != new:
                was = next((x for x in old if x.startswith(MEASURED)), None)
                if args.write:
                    changed = True
                elif was is not None and was.split(" (`make")[0] != new[0].split(" (`make")[0]:
                    skipped += 1
                    print(f"docs_sizes: {path}:{i}: table {name} not compared: it was measured with "
                          f"{was[len(MEASURED):].split(' (`make')[0]}, this machine has "
                          f"{new[0][len(MEASURED):].split(' (`make')[0]}")
                else:
                    bad += 1
                    print(f"docs_sizes: {path}:{i}: table {name} is not what make cross measured:")
                    for o in old:
                        if o not in new:
                            print(f"  docs:     {o}")
                    for n in new:
                        if n not in old:
                            print(f"  measured: {n}")
            out += new if args.write else old
            i = end
        if changed:
            with open(path, "w") as fh:
                fh.write("\n".join(out))
            print(f"docs_sizes: rewrote the size tables of {path}")
    if tables == 0:
        sys.exit("docs_sizes: no size table in " + " ".join(args.files))
    if bad:
        sys.exit(f"docs_sizes: {bad} size table(s) differ from this tree's build: `make cross-docs-write` "
                 "rewrites them (then read the prose around them)")
    if args.check:
        print(f"docs_sizes: {tables - skipped} of the {tables} size tables of {' '.join(args.files)} are this "
              f"tree's" + (f"; {skipped} measured with other compilers, not compared" if skipped else ""))


if __name__ == "__main__":
    main()
