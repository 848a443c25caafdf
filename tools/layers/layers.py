#!/usr/bin/python3
"""layers.py - kernel/irq's files stacked in layers: who includes and who uses whom, the circles,
and the uses that run back up (issue 32; docs/irq-layers.md is the design it checks).

    tools/layers/layers.py [--strict] [--dir kernel/irq] [--out build/layers] [--cc i686-linux-gnu-gcc]
                           [--json FILE] [--quiet]

What it reads, for every file of --dir (not its template/):
  - the include graph: each `#include "x.h"` (and `<irq/x.h>`) of the file;
  - the use graph: every call, and every reference to a function's or a variable's address or
    contents, from a function (or an initialised variable) defined in one file to a symbol defined
    in another. It is taken from the relocations of each object (readelf -r), the linker's own
    cross-reference, with the objects compiled so that nothing hides a use: -O0 -fno-inline,
    always_inline turned into noinline, -fkeep-inline-functions (so a header's static inline
    functions are functions of their own, attributed to the header), and -ffunction-sections
    -fdata-sections (so every relocation belongs to one function or variable). Where each symbol
    is defined (file and line) comes from the debug information (nm -l). Symbols nobody in --dir
    defines are the host's: irq_port_* (the porting header, port.h) and the compiler's (memset,
    libgcc); they are listed, and are below every layer.

What it prints:
  1. the graph, file by file: what each file includes and uses, with the number of uses;
  2. the circles (strongly connected components of includes and uses together);
  3. the best stacking there is: the order of the files, bottom up, with the fewest uses that
     run back up (exact: dynamic programming over the subsets of each circle), the number of
     levels it makes (a file's level is one above the highest file it uses, not counting the
     uses that run back up) and every use that runs back up;
  4. the check against the declared layers: each file's opening comment says its layer
     ("Layer N" at the start of a comment line, e.g. " * Layer 1, the dispatch core: ..."); a
     file without one gets the layer the split plans for it (PLANNED below, docs/irq-layers.md).
     A use or include from a file of a lower layer to a higher one is a violation, and so is any
     circle, within a layer too (a shared private header below all of them is fine, since nothing
     below uses anything above).

Exit status: with --strict (what `make layers` and `make test` run), 1 when there is a violation,
a circle, or a file without a declared layer, else 0; without it (report mode), 0 whatever it
found; 2 when the tool itself could not run (a compile error, a missing tool).
"""
import argparse
import itertools
import json
import os
import re
import subprocess
import sys

# The layer each file was planned to end up in before every file of kernel/irq declared its own
# (docs/irq-layers.md, "The layers"); a file's own "Layer N" comment overrides it, and today every
# file has one (make layers fails on a file without). Where a file of today holds parts of several layers
# (once spurious.c: note_interrupt's accounting and the flood and storm defences; internals.h:
# everything), it was placed where the split puts its bulk or its base; the uses of its other
# parts then showed as violations, which was the point.
LAYER_NAMES = {0: "base", 1: "dispatch core and the defence interface", 2: "poll scheduler and the defences' services",
               3: "defences", 4: "reports", 5: "assembly"}
PLANNED = {
    # 0: what everything may use: the porting contract, the configuration, the public
    # declarations, the private types (the split's desc.h).
    "irq_config.h": 0, "irq_errno.h": 0, "port.h": 0, "interrupt.h": 0, "irqchip.h": 0,
    "stats.h": 0, "policy.h": 0, "trace.h": 0, "internals.h": 0,
    # 0 too: the shared private header below all of them (internals.h, the descriptor) and the
    # state bits of an expect token, which stall.c and health.c read besides expecting.
    "expect_state.h": 0, "trace_filter.h": 0,
    # 1: descriptors, chips, flows, runs of the handlers, request/free, enable/disable, and the
    # interface through which the core tells the defences what happened.
    "irqdesc.c": 1, "chip.c": 1, "handle.c": 1, "manage.c": 1,
    # 2: the scheduler of polls that asks the defences, the episodes they announce, the tick's look.
    "poll.c": 2, "tick_look.c": 2,
    # Each part's private header sits in its part's layer (internals.h split, issue 32): the
    # dispatch core's, the scheduler's, the tick's set, the episodes', the stall marks'.
    "core.h": 1, "chip_ops.h": 1, "irq_sched.h": 2, "tick_set.h": 2, "episode.h": 2, "stall.h": 2,
    # 2 too: the evidence that a CPU ran (issue 28), which expecting and watching ask before "lost".
    "stall.c": 2,
    # 3: the defences.
    "expect.c": 3, "watch.c": 3, "flood.c": 3, "storm.c": 3,
    # note_interrupt() and the accounting that feeds the flood and claimed-storm defences.
    "spurious.c": 3,
    # and each defence's private header, included only by the files that use that defence.
    "expect.h": 3, "watch.h": 3, "flood.h": 3, "storm.h": 3,
    # 4: health, statistics, the trace's dump, above everything they read.
    "health.c": 4, "stats.c": 4, "trace.c": 4,
    # 5: the boot switches and irq_defences_start, which name every defence.
    "policy.c": 5,
}

# The calls up that the rules allow by name (docs/irq-layers.md, "The layers"): (from, to) -> the
# symbols of `to` that `from` may use. Such a use is left out of the graph (no violation, no
# circle) and listed on its own. One only: note_interrupt(), the dispatch core's direct call into
# the flood and storm accounting after every run of the handlers, kept direct because it is the
# quick path of every interrupt (an indirect call there is what the healthy path must not pay).
SANCTIONED = {
    ("handle.c", "spurious.c"): {"note_interrupt"},
}

# Relocation and section prefixes that name the symbol after them (-ffunction-sections, -fdata-sections).
SECTION_PREFIXES = (".text.", ".data.rel.ro.local.", ".data.rel.ro.", ".data.rel.local.", ".data.rel.",
                    ".data.", ".rodata.", ".bss.", ".sdata.", ".sbss.", ".srodata.")
LAYER_RE = re.compile(r"^\s*(?:/\*+|\*|//)?\s*Layer (\d+)\b")


def die(msg):
    sys.stderr.write(f"layers: {msg}\n")
    sys.exit(2)


def run(cmd, cwd=None):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    except FileNotFoundError:
        die(f"{cmd[0]} not found (the kernel's cross compiler: make deps installs it)")
    if p.returncode != 0:
        die(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}{p.stderr}")
    return p.stdout


def strip_section(name):
    for pre in SECTION_PREFIXES:
        if name.startswith(pre):
            return name[len(pre):]
    return None


def opening_comment(text):
    """The file's first comment block (its opening comment), or ''."""
    m = re.match(r"\s*(/\*.*?\*/)", text, re.S)
    return m.group(1) if m else ""


def declared_layer(text):
    for line in opening_comment(text).splitlines():
        m = LAYER_RE.match(line)
        if m:
            return int(m.group(1))
    return None


class Graph:
    """Files, and uses between them: edges[(a, b)] = [why, ...], a using b."""

    def __init__(self, files):
        self.files = sorted(files)
        self.edges = {}
        self.external = {}   # symbol -> set of files using it (the host's)

    def add(self, a, b, why):
        if a != b:
            self.edges.setdefault((a, b), []).append(why)

    def succ(self, a):
        return sorted(b for (x, b) in self.edges if x == a)

    def weight(self, a, b):
        return len(self.edges.get((a, b), ()))


def read_includes(d, files, g):
    names = set(files)
    for f in files:
        with open(os.path.join(d, f)) as fh:
            for n, line in enumerate(fh, 1):
                m = re.match(r'\s*#\s*include\s*(?:"([^"]+)"|<irq/([^>]+)>)', line)
                if m:
                    inc = os.path.basename(m.group(1) or m.group(2))
                    if inc in names:
                        g.add(f, inc, f"#include \"{inc}\" (line {n})")


def build_objects(d, cfiles, out, cc, incs):
    gcc_inc = run([cc, "-print-file-name=include"]).strip()
    flags = ["-std=gnu11", "-O0", "-g", "-fno-inline", "-fkeep-inline-functions", "-ffunction-sections",
             "-fdata-sections", "-ffreestanding", "-fno-builtin", "-nostdinc", "-isystem", gcc_inc,
             "-fno-pic", "-fno-stack-protector", "-Dalways_inline=noinline", "-Wno-attributes"]
    if "i686" in cc or "i386" in cc:
        flags += ["-m32", "-march=i686", "-mgeneral-regs-only"]
    flags += [f"-I{i}" for i in incs]
    os.makedirs(out, exist_ok=True)
    objs = {}
    for f in cfiles:
        obj = os.path.join(out, f.replace(".c", ".o"))
        run([cc] + flags + ["-c", os.path.join(d, f), "-o", obj])
        objs[f] = obj
    return objs


def tool(cc, name):
    """binutils next to the compiler: i686-linux-gnu-gcc -> i686-linux-gnu-nm."""
    return cc[:-3] + name if cc.endswith("gcc") else name


def symbols_of(nm, obj, d):
    """{name: (file, global?)} of every defined symbol of @obj, the file from the debug info."""
    out = {}
    root = os.path.realpath(d)
    for line in run([nm, "-l", "--defined-only", obj]).splitlines():
        head, _, loc = line.partition("\t")
        f = head.split()
        if len(f) != 3:
            continue
        _, kind, name = f
        path = loc.rsplit(":", 1)[0] if loc else ""
        path = os.path.realpath(path) if path else ""
        src = os.path.relpath(path, root) if path.startswith(root + os.sep) else None
        out[name] = (src, kind.isupper())
    return out


def read_uses(d, objs, cc, g):
    nm, readelf = tool(cc, "nm"), tool(cc, "readelf")
    syms = {f: symbols_of(nm, o, d) for f, o in objs.items()}
    where = {}  # global symbol -> file
    for f, s in syms.items():
        for name, (src, glob) in s.items():
            if glob:
                where[name] = src or f
    for f, obj in objs.items():
        local = syms[f]
        section = None
        for line in run([readelf, "-rW", obj]).splitlines():
            m = re.match(r"Relocation section '\.rela?(\S+)'", line)
            if m:
                section = strip_section(m.group(1))
                continue
            if section is None or section not in local:
                continue
            cols = line.split()
            if len(cols) < 5 or not re.fullmatch(r"[0-9a-f]+", cols[0]):
                continue
            target = cols[4]
            src_file = local[section][0] or f
            if target.startswith("."):
                tname = strip_section(target)
                if tname is None or tname not in local:
                    continue   # a string literal, a section of its own
                dst_file = local[tname][0] or f
            elif target in where:
                tname, dst_file = target, where[target]
            else:
                g.external.setdefault(target, set()).add(src_file)
                continue
            if src_file != dst_file:
                g.edges.setdefault((src_file, dst_file), [])
                why = f"{section} -> {tname}"
                if why not in g.edges[(src_file, dst_file)]:
                    g.edges[(src_file, dst_file)].append(why)


def sccs(g):
    """Tarjan's strongly connected components, each a sorted list."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = itertools.count()
    succ = {f: g.succ(f) for f in g.files}

    def visit(v):
        index[v] = low[v] = next(counter)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in g.files:
        if v not in index:
            visit(v)
    return out


def best_order(nodes, g):
    """Order @nodes bottom up with the least weight of uses that run back up (a lower file using a
    higher one): exact, over all subsets (a circle of kernel/irq is at most a few dozen files)."""
    n = len(nodes)
    if n == 1:
        return list(nodes)
    if n > 22:
        die(f"a circle of {n} files is too large for the exact stacking")
    w = [[g.weight(nodes[i], nodes[j]) for j in range(n)] for i in range(n)]
    # cost[S] = least back weight with the files of S stacked lowest; placing x above S makes the
    # uses from S to x run back up.
    INF = float("inf")
    cost = [INF] * (1 << n)
    choice = [-1] * (1 << n)
    cost[0] = 0
    into = [[0] * (1 << n) for _ in range(n)]  # into[x][S] = weight from S to x
    for x in range(n):
        col = into[x]
        for s in range(1, 1 << n):
            low = s & -s
            col[s] = col[s ^ low] + w[low.bit_length() - 1][x]
    for s in range(1 << n):
        if cost[s] == INF:
            continue
        for x in range(n):
            if s >> x & 1:
                continue
            t = s | 1 << x
            c = cost[s] + into[x][s]
            if c < cost[t] or (c == cost[t] and x < choice[t]):
                cost[t], choice[t] = c, x
    order, s = [], (1 << n) - 1
    while s:
        x = choice[s]
        order.append(nodes[x])
        s ^= 1 << x
    return order[::-1]


def stack(g, comps):
    """The whole directory bottom up: circles in the order of their condensation, each circle in its
    best order. RETURNS (order, back uses [(a, b)], level per file)."""
    comp_of = {f: i for i, c in enumerate(comps) for f in c}
    # Tarjan emits components in reverse topological order of "uses": a component comes after every
    # component it uses, so the list as it is goes bottom up.
    order = []
    for c in comps:
        order += best_order(c, g)
    pos = {f: i for i, f in enumerate(order)}
    back = sorted((a, b) for (a, b) in g.edges if pos[a] < pos[b])
    level = {}
    for f in order:
        below = [level[b] for b in g.succ(f) if pos[b] < pos[f]]
        level[f] = 1 + max(below) if below else 0
    assert all(comp_of[a] == comp_of[b] for a, b in back)
    return order, back, level


def walk(d, out, hostcc, quiet):
    """Build tools/layers/walk.c with kernel/irq instrumented (-finstrument-functions) and the host
    port, run it, and follow each recorded command through the files. RETURNS {name: figures}."""
    here = os.path.dirname(os.path.abspath(__file__))
    kdir = os.path.dirname(d.rstrip("/"))
    os.makedirs(out, exist_ok=True)
    binary = os.path.join(out, "walk")
    common = ["-std=gnu11", "-O2", "-g", "-fno-pie", "-Wall", "-Wextra", "-Werror", "-DIRQKIT_HOST=1",
              f"-I{kdir}", "-Iinclude", "-Itests/host"]
    objs = []
    for src in sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".c")):
        obj = os.path.join(out, "walk-" + os.path.basename(src).replace(".c", ".o"))
        run([hostcc] + common + ["-finstrument-functions", "-c", src, "-o", obj])
        objs.append(obj)
    for src in (os.path.join(here, "walk.c"), "tests/host/irq_port_host.c"):
        obj = os.path.join(out, "walk-main-" + os.path.basename(src).replace(".c", ".o"))
        run([hostcc] + common + ["-c", src, "-o", obj])
        objs.append(obj)
    run([hostcc, "-no-pie", "-o", binary] + objs + ["-lpthread"])
    addr = {}
    root = os.path.realpath(d)
    for line in run(["nm", "-l", "--defined-only", binary]).splitlines():
        head, _, loc = line.partition("\t")
        f = head.split()
        if len(f) == 3 and f[1] in "tTwW" and loc:
            path = os.path.realpath(loc.rsplit(":", 1)[0])
            if path.startswith(root + os.sep):
                addr[int(f[0], 16)] = (f[2], os.path.relpath(path, root))
    walks, cur, stack_, seq = {}, None, [], []
    entered = {}
    for line in run([binary]).splitlines():
        if line.startswith("walk BEGIN "):
            cur, stack_, seq, entered = line.split()[2], [], [], {}
            continue
        if line.startswith("walk END "):
            # Merge repeats: the files the token's path is in, one after the other.
            files = [f for i, f in enumerate(seq) if i == 0 or f != seq[i - 1]]
            seen, back = set(), {}
            for f in files:
                if f in seen:
                    back[f] = back.get(f, 0) + 1
                seen.add(f)
            walks[cur] = {"entries": sum(entered.values()), "functions": len(entered),
                          "files": sorted(seen), "steps": max(len(files) - 1, 0),
                          "returns": sum(back.values()), "returns_per_file": back,
                          "path": files}
            cur = None
            continue
        if cur is None:
            continue
        kind, a = line.split()
        sym = addr.get(int(a, 16))
        if kind == "E":
            stack_.append(sym[1] if sym else None)
            if sym:
                entered[sym] = entered.get(sym, 0) + 1
        elif stack_:
            stack_.pop()
        top = next((f for f in reversed(stack_) if f), None)
        if top:
            seq.append(top)
    print("\n5. The walk: one disk command's expect token through the files (tools/layers/walk.c; "
          "every function entry of kernel/irq, -finstrument-functions)")
    for name, w in walks.items():
        per = ", ".join(f"{f} {n}" for f, n in sorted(w["returns_per_file"].items(), key=lambda x: -x[1]))
        print(f"  {name}: {w['entries']} function entries ({w['functions']} functions) in {len(w['files'])} files; "
              f"{w['steps']} moves from file to file, {w['returns']} of them back to a file it had left"
              + (f" ({per})" if per else ""))
        if not quiet:
            path = " ".join(w["path"][:40]) + (" ..." if len(w["path"]) > 40 else "")
            print(f"    path: {path}")
    if not walks:
        die("the walk recorded nothing")
    return walks


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default="kernel/irq")
    ap.add_argument("--out", default="build/layers")
    ap.add_argument("--cc", default="i686-linux-gnu-gcc")
    ap.add_argument("--inc", action="append", default=None,
                    help="include directories (default: the template port and kernel/)")
    ap.add_argument("--strict", action="store_true", help="fail on a violation, a circle or an undeclared file")
    ap.add_argument("--json", help="write the figures as JSON here")
    ap.add_argument("--quiet", action="store_true", help="only the summary")
    ap.add_argument("--walk", action="store_true", help="also follow one disk command's token (tools/layers/walk.c)")
    ap.add_argument("--hostcc", default="gcc", help="the host compiler for --walk")
    args = ap.parse_args()
    d = args.dir
    incs = args.inc if args.inc is not None else [os.path.join(d, "template"), os.path.dirname(d.rstrip("/"))]
    files = sorted(f for f in os.listdir(d) if f.endswith((".c", ".h")) and os.path.isfile(os.path.join(d, f)))
    if not files:
        die(f"no .c or .h file in {d}")
    g = Graph(files)
    read_includes(d, files, g)
    objs = build_objects(d, [f for f in files if f.endswith(".c")], args.out, args.cc, incs)
    read_uses(d, objs, args.cc, g)
    stray = sorted(({a for a, _ in g.edges} | {b for _, b in g.edges}) - set(files))
    if stray:
        die(f"uses attributed to files outside {d}: {' '.join(stray)}")

    # The sanctioned calls up leave the graph (SANCTIONED above); any other use of the pair stays.
    sanctioned = []
    for (a, b), allowed in SANCTIONED.items():
        if (a, b) not in g.edges:
            continue
        keep = []
        for why in g.edges[(a, b)]:
            if " -> " in why and why.rsplit(" -> ", 1)[1] in allowed:
                sanctioned.append((a, b, why))
            else:
                keep.append(why)
        if keep:
            g.edges[(a, b)] = keep
        else:
            del g.edges[(a, b)]

    # Declared layers: the opening comment, else the plan.
    layer, source = {}, {}
    for f in files:
        with open(os.path.join(d, f)) as fh:
            decl = declared_layer(fh.read())
        if decl is not None:
            layer[f], source[f] = decl, "comment"
        elif f in PLANNED:
            layer[f], source[f] = PLANNED[f], "planned"
        else:
            layer[f], source[f] = None, "none"

    comps = sccs(g)
    circles = [c for c in comps if len(c) > 1]
    order, back, level = stack(g, comps)
    n_uses = sum(len(v) for v in g.edges.values())
    n_back = sum(g.weight(a, b) for a, b in back)
    violations = sorted((a, b) for (a, b) in g.edges
                        if layer[a] is not None and layer[b] is not None and layer[a] < layer[b])
    undeclared = [f for f in files if source[f] != "comment"]

    def uses_text(a, b, limit=None):
        whys = g.edges[(a, b)]
        shown = whys if limit is None else whys[:limit]
        more = f" (+{len(whys) - len(shown)} more)" if len(whys) > len(shown) else ""
        return "; ".join(shown) + more

    lim = 3 if args.quiet else None
    print(f"layers: {d}: {len(files)} files, {len(g.edges)} file pairs, {n_uses} uses "
          f"(includes, and calls and references from one function or variable to another's symbol)")
    if not args.quiet:
        print("\n1. The graph (file: what it uses, with the number of uses; [layer] as declared or planned)")
        for f in files:
            tag = f"[{layer[f]}]" if layer[f] is not None else "[?]"
            outs = ", ".join(f"{b} {g.weight(f, b)}" for b in g.succ(f)) or "nothing"
            print(f"  {f:14} {tag:4} -> {outs}")
        if g.external:
            print("  the host's symbols used (below every layer): " +
                  ", ".join(f"{s} ({len(u)} files)" for s, u in sorted(g.external.items())))
    print(f"\n2. Circles (includes and uses together): {len(circles)}")
    for c in circles:
        inner = sum(g.weight(a, b) for a in c for b in c if a != b)
        print(f"  {len(c)} files, {inner} uses among them: {' '.join(c)}")
    print(f"\n3. The best stacking: {max(level.values()) + 1} levels, {n_back} uses in {len(back)} file pairs "
          "run back up (the fewest any order of the files gives)")
    by_level = {}
    for f in order:
        by_level.setdefault(level[f], []).append(f)
    for lv in sorted(by_level):
        print(f"  level {lv}: {' '.join(by_level[lv])}")
    for a, b in back:
        print(f"  up: {a} (level {level[a]}) -> {b} (level {level[b]}): {uses_text(a, b, lim)}")
    n_viol = sum(g.weight(a, b) for a, b in violations)
    print(f"\n4. Against the declared layers ({sum(1 for f in files if source[f] == 'comment')} files declare "
          f"theirs in the opening comment, {sum(1 for f in files if source[f] == 'planned')} are placed by the "
          f"plan, {sum(1 for f in files if source[f] == 'none')} have none): "
          f"{n_viol} uses in {len(violations)} file pairs run from a lower layer to a higher one")
    for lv in sorted({v for v in layer.values() if v is not None}):
        print(f"  layer {lv} ({LAYER_NAMES.get(lv, '?')}): " +
              " ".join(f + ("" if source[f] == "comment" else "*") for f in files if layer[f] == lv))
    if any(source[f] == "planned" for f in files):
        print("  (* placed by the plan in tools/layers/layers.py, not by its opening comment)")
    for a, b in violations:
        print(f"  violation: {a} (layer {layer[a]}) -> {b} (layer {layer[b]}): {uses_text(a, b, lim)}")
    for a, b, why in sanctioned:
        print(f"  sanctioned (not a violation, tools/layers/layers.py SANCTIONED): {a} -> {b}: {why}")
    same_layer_circles = [c for c in circles if len({layer[f] for f in c}) == 1]
    for c in same_layer_circles:
        print(f"  circle within layer {layer[c[0]]}: {' '.join(c)}")

    walks = walk(d, os.path.join(args.out, "walk"), args.hostcc, args.quiet) if args.walk else {}

    if args.json:
        os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
        with open(args.json, "w") as fh:
            json.dump({"files": files, "edges": {f"{a} -> {b}": len(w) for (a, b), w in sorted(g.edges.items())},
                       "uses": {f"{a} -> {b}": w for (a, b), w in sorted(g.edges.items())},
                       "circles": circles, "order": order, "levels": max(level.values()) + 1,
                       "level": level, "back": [[a, b, g.weight(a, b)] for a, b in back], "back_uses": n_back,
                       "layer": layer, "layer_source": source,
                       "violations": [[a, b, g.weight(a, b)] for a, b in violations], "violation_uses": n_viol,
                       "external": {s: sorted(u) for s, u in g.external.items()}, "walks": walks,
                       "sanctioned": [[a, b, w] for a, b, w in sanctioned]}, fh, indent=1)

    failed = []
    if violations:
        failed.append(f"{n_viol} uses run from a lower layer to a higher one")
    if circles:
        failed.append(f"{len(circles)} circle(s)")
    if undeclared:
        failed.append(f"{len(undeclared)} files do not declare their layer in their opening comment")
    if not failed:
        print("\nlayers: no circle, every use runs down or within its layer, every file declares its layer")
        return 0
    if args.strict:
        print(f"\nlayers: FAIL (--strict): {'; '.join(failed)}")
        return 1
    print(f"\nlayers: report only, not failing: {'; '.join(failed)} "
          "(make layers and make test run it with --strict)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
