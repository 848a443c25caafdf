#!/usr/bin/python3
"""cross_matrix.py - the size matrix of kernel/irq's switches (issue 32; tests/cross/cross.mk).

    cross_matrix.py --prefix P --dir D --title T --lines N --hold ROW --line-goal BYTES
                    [--goal ROW=BYTES ...] --row "NAME|BASE|FLAGS" ...

D/NAME/libirq.a is the core built with FLAGS (the row's default line count), D/NAME-lines/libirq.a
the same with N lines. Per row it prints:
  - code: the .text sections of the core's objects; ro: their read-only data (.rodata, most of
    it the messages' strings); code + ro, the figure the goals are about;
  - RAM: data + bss of the core; per line: the difference in data + bss between the row's default
    line count and N lines, divided by the difference in lines (the row's line count is read from
    its descriptor table: nm -S of irq_descs in both builds);
  - against BASE (the row it is compared with): the difference in code + ro, or, when every
    object of the row is byte for byte the one of BASE, that the row's switches changed nothing:
    they are not wired yet. No saving is printed that the objects do not show.
Then the goals (met or not, never a failure) and what holds the size in row ROW: code + ro per
file, and the largest functions and read-only objects (nm --size-sort).
With --json, the same figures (and per row, per file: code, read-only data and the largest
function) go to OUT, for tests/cross/docs_sizes.py (the tables of docs/irq-layers.md and
docs/porting.md that show them).
Every figure comes from the compiled objects.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cross_report  # noqa: E402


def run(cmd):
    return cross_report.run(cmd, "cross-matrix")


def sections(size_tool, archive):
    """{member: {"code", "ro", "data", "bss"}} from size -A of each archive member."""
    out, member = {}, None
    for line in run([size_tool, "-A", archive]).splitlines():
        if line.endswith(":") and "(ex " in line:
            member = line.split()[0]
            out[member] = {"code": 0, "ro": 0, "data": 0, "bss": 0}
            continue
        f = line.split()
        if member is None or len(f) < 2 or not f[1].isdigit():
            continue
        name, n = f[0], int(f[1])
        kind = ("code" if name.startswith(".text") else "ro" if name.startswith(".rodata") else
                "data" if name.startswith(".data") else "bss" if name.startswith((".bss", "COMMON")) else None)
        if kind:
            out[member][kind] += n
    if not out:
        sys.exit(f"cross-matrix: size -A printed no member of {archive}")
    return out


def member_hashes(ar_tool, archive, scratch):
    """{member: sha256 of its bytes}, to tell a row whose objects are the same as its base's."""
    os.makedirs(scratch, exist_ok=True)
    names = run([ar_tool, "t", archive]).split()
    subprocess.run([ar_tool, "x", os.path.abspath(archive)] + names, cwd=scratch, check=True)
    out = {}
    for n in names:
        with open(os.path.join(scratch, n), "rb") as fh:
            out[n] = hashlib.sha256(fh.read()).hexdigest()
    return out


def total(sec, key):
    return sum(m[key] for m in sec.values())


def kib(n):
    return f"{n / 1024:.1f} KiB"


def main():
    ap = argparse.ArgumentParser()
    for a in ("prefix", "dir", "title", "hold"):
        ap.add_argument("--" + a, required=True)
    ap.add_argument("--lines", type=int, required=True)
    ap.add_argument("--line-goal", type=int, required=True)
    ap.add_argument("--goal", action="append", default=[])
    ap.add_argument("--row", action="append", required=True)
    ap.add_argument("--json")
    args = ap.parse_args()
    P, D = args.prefix, args.dir
    rows = []
    for r in args.row:
        name, base, flags = r.split("|")
        rows.append((name, base, flags))
    names = [r[0] for r in rows]
    goals = {}
    for g in args.goal:
        n, _, b = g.partition("=")
        if n not in names:
            sys.exit(f"cross-matrix: goal for an unknown row {n}")
        goals[n] = int(b)

    def descs(lib_):
        for line in run([P + "nm", "-S", "--defined-only", lib_]).splitlines():
            f = line.split()
            if len(f) == 4 and f[3] == "irq_descs":
                return int(f[1], 16)
        sys.exit(f"cross-matrix: no irq_descs in {lib_}")

    sec, hashes, lines, nr = {}, {}, {}, {}
    for name, _, _ in rows:
        lib, lib2 = os.path.join(D, name, "libirq.a"), os.path.join(D, name + "-lines", "libirq.a")
        sec[name] = sections(P + "size", lib)
        sec2 = sections(P + "size", lib2)
        hashes[name] = member_hashes(P + "ar", lib, os.path.join(D, name, "members"))
        nr[name] = round(args.lines * descs(lib) / descs(lib2))
        if nr[name] == args.lines:
            sys.exit(f"cross-matrix: row {name} has {args.lines} lines by default: give --lines another count")
        ram = total(sec[name], "data") + total(sec[name], "bss")
        ram2 = total(sec2, "data") + total(sec2, "bss")
        lines[name] = (ram - ram2) / (nr[name] - args.lines)

    print(f"cross matrix: kernel/irq for {args.title}: code (.text) and read-only data (.rodata) of the "
          f"core ({len(sec[names[0]])} objects, no port), RAM (data + bss) with the row's lines, and "
          f"RAM per line (against a build with {args.lines} lines)")
    print(f"  {'row':9} {'code':>7} {'ro':>6} {'code+ro':>8} {'lines':>5} {'RAM':>7} {'/line':>6}  switches; "
          "against the row compared with")
    fig = {"title": args.title, "compiler": run([P + "gcc", "--version"]).splitlines()[0],
           "lines": args.lines, "line_goal": args.line_goal, "goals": list(goals.items()), "rows": []}
    for name, base, flags in rows:
        s = sec[name]
        code, ro = total(s, "code"), total(s, "ro")
        ram = total(s, "data") + total(s, "bss")
        extra, delta, same = "", 0, False
        if name == base:
            vs = "(the reference)"
        else:
            b = sec[base]
            same = hashes[name] == hashes[base]
            delta = code + ro - (total(b, "code") + total(b, "ro"))
            extra = " ".join(f for f in flags.split() if f not in dict((r[0], r[2]) for r in rows)[base].split())
            if same:
                vs = f"vs {base}: the same objects byte for byte: {extra or 'nothing'} not wired yet, no saving"
            else:
                changed = sorted(m for m in hashes[name] if hashes[name][m] != hashes[base].get(m))
                vs = (f"vs {base}: {extra}: {delta:+d} B code+ro ({len(changed)} objects changed: "
                      f"{' '.join(c.replace('.o', '') for c in changed)})")
        fig["rows"].append({"name": name, "base": base, "flags": flags, "extra": extra, "delta": delta, "same": same,
                            "code": code, "ro": ro, "lines": nr[name], "ram": ram, "per_line": lines[name],
                            "files": {m.replace(".o", ".c"): {"code": s[m]["code"], "ro": s[m]["ro"]} for m in s}})
        print(f"  {name:9} {code:7d} {ro:6d} {code + ro:8d} {nr[name]:5d} {ram:7d} {lines[name]:6.1f}  "
              f"{flags or '(defaults)'}")
        print(f"  {'':9} {vs}")

    print("  goals (issue 32; printed, not failed on):")
    for name, limit in goals.items():
        got = total(sec[name], "code") + total(sec[name], "ro")
        print(f"    {name}: code+ro at most {limit} B ({kib(limit)}): {got} B, "
              + ("met" if got <= limit else f"NOT met ({got - limit} B over)"))
    worst = max(lines.values())
    print(f"    RAM per line at most {args.line_goal} B in every row: " +
          ("met" if worst <= args.line_goal else f"NOT met ({worst:.1f} B per line at most)"))

    h = sec[args.hold]
    print(f"  what holds the size in row {args.hold} ({dict((r[0], r[2]) for r in rows)[args.hold]}): "
          "code + ro per file, largest first")
    for m in sorted(h, key=lambda m: -(h[m]["code"] + h[m]["ro"])):
        print(f"    {m.replace('.o', '.c'):14} {h[m]['code'] + h[m]['ro']:6d} = {h[m]['code']:6d} code + "
              f"{h[m]['ro']:5d} ro")
    syms = symbols(P, os.path.join(D, args.hold, "libirq.a"))
    print(f"  the largest functions and read-only objects of row {args.hold} (nm --size-sort; "
          "the messages' strings are in .rodata.str, counted per file above)")
    for size, name, member, kind in syms[:24]:
        print(f"    {size:6d} {kind:4} {name} ({member})")

    if args.json:
        for r in fig["rows"]:
            for size, name, member, kind in symbols(P, os.path.join(D, r["name"], "libirq.a")):
                f = r["files"].get(member)
                if f is not None and kind == "code" and size > f.get("largest", ["", 0])[1]:
                    f["largest"] = [name, size]
        with open(args.json, "w") as fh:
            json.dump(fig, fh, indent=1, sort_keys=True)


def symbols(P, lib):
    """[(size, name, file, "code" or "ro")] of the functions and read-only objects of @lib, largest first."""
    syms, member = [], None
    for line in run([P + "nm", "-S", "--size-sort", "--defined-only", lib]).splitlines():
        if line.endswith(":"):
            member = line[:-1].replace(".o", ".c")
            continue
        f = line.split()
        if len(f) == 4 and f[2] in "tTrR":
            syms.append((int(f[1], 16), f[3], member, "code" if f[2] in "tT" else "ro"))
    return sorted(syms, reverse=True)


if __name__ == "__main__":
    main()
