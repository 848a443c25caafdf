#!/usr/bin/python3
"""cross_report.py - link and measure one cross build of kernel/irq (see tests/cross/cross.mk).

    cross_report.py --arch A --prefix P --cflags F --lflags L --dir D --sizes OBJ --libc OBJ
                    --kcfg FLAGS [--bss-max BYTES] [--json OUT]

D holds four builds: D/std (irq_config.h's defaults, no -D), D/few (fewer lines), D/min
(IRQ_MINIMAL=1) and D/kcfg (the irqkit kernel's values, FLAGS), each with libirq.a
(the core and the template port), libwheel.a (the timer wheel) and the sizes object OBJ.

1. Links D/std's archives whole, with the host's string functions (OBJ given by --libc) and
   libgcc, into a freestanding image with no C library: any symbol the code needs and nobody
   supplies fails the link, and so this script (exit status 1).
   The static memory (data + bss) of libirq.a with the defaults and with the irqkit kernel's
   values; more than BYTES with the defaults fails too (exit status 1).
2. Prints size(1) of each part of the archives, the symbols the image had to take from the
   host and from libgcc, the sizes of the core's types (nm -S of the sizes object, as that
   compiler laid them out) and the memory per interrupt line: for every static object of
   libirq.a whose size differs between the two builds, the growth per line.
3. With --json, writes the same figures to OUT, for tests/cross/docs_sizes.py (the tables of
   docs/porting.md that show them).
Every figure comes from the compiled objects; nothing is computed by hand.
"""
import argparse
import json
import os
import re
import subprocess
import sys


def run(cmd, who="cross"):
    """The standard output of @cmd; a failure ends the program (@who: the name it says it under).
    tests/cross/cross_matrix.py runs its tools through here too."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(f"{who}: failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}{p.stderr}")
        sys.exit(1)
    return p.stdout


def size_by_member(tool, archive):
    """{member: (text, data, bss)} from size(1) in Berkeley format."""
    out = {}
    for line in run([tool, archive]).splitlines()[1:]:
        f = line.split()
        # text data bss dec hex filename (filename: "member (ex archive)")
        if len(f) >= 6 and f[0].isdigit():
            out[f[5]] = tuple(int(x) for x in f[:3])
    if not out:
        sys.exit(f"cross: size printed nothing for {archive}")
    return out


def defined_objects(nm, path):
    """{(member, name): size} of every sized data/bss object (nm -S)."""
    out = {}
    for line in run([nm, "-S", "--defined-only", "-A", path]).splitlines():
        # archive:member:addr size type name   (a plain object: file:addr size type name)
        head, _, rest = line.rpartition(":")
        f = rest.split()
        if len(f) == 4 and f[2] in "bBdDrRgGsS":
            member = head.split(":")[-1]
            out[(os.path.basename(member), f[3])] = int(f[1], 16)
    return out


def symbols(nm, paths, undefined):
    flag = "-u" if undefined else "--defined-only"
    names = set()
    for line in run([nm, flag] + paths).splitlines():
        f = line.split()
        if f and not line.endswith(":"):
            names.add(f[-1])
    return names


def main():
    ap = argparse.ArgumentParser()
    for a in ("arch", "prefix", "cflags", "lflags", "dir", "sizes", "libc", "kcfg"):
        ap.add_argument("--" + a, required=True)
    ap.add_argument("--bss-max", type=int)
    ap.add_argument("--json")
    args = ap.parse_args()
    fig = {"arch": args.arch, "cflags": args.cflags}
    P, D = args.prefix, args.dir
    std, few = os.path.join(D, "std"), os.path.join(D, "few")
    libirq, libwheel = os.path.join(std, "libirq.a"), os.path.join(std, "libwheel.a")
    libc = os.path.join(std, args.libc)
    version = run([P + "gcc", "-dumpversion"]).strip()
    fig["compiler"] = run([P + "gcc", "--version"]).splitlines()[0]
    print(f"cross {args.arch}: {P}gcc {version} {args.cflags} -O2 -ffreestanding -nostdinc "
          "-Wall -Wextra -Werror")

    # 1. The link: everything of both archives, the string functions, libgcc; no libc.
    image = os.path.join(D, "image.elf")
    run([P + "gcc"] + args.lflags.split() + ["-nostdlib", "-ffreestanding", "-static",
        "-Wl,--entry=irq_core_init", "-Wl,--whole-archive", libirq, libwheel,
        "-Wl,--no-whole-archive", libc, "-lgcc", "-o", image])
    needed = symbols(P + "nm", [libirq, libwheel], True) - symbols(P + "nm", [libirq, libwheel], False)
    from_libc = sorted(needed & symbols(P + "nm", [libc], False))
    from_libgcc = sorted(needed - set(from_libc))

    # 2a. Code size per part.
    sz = size_by_member(P + "size", libirq)
    sz.update(size_by_member(P + "size", libwheel))
    tmpl = ("port_template", "irq_format")
    parts = [("kernel/irq core", lambda m: not m.startswith(tmpl) and not m.startswith("timer_wheel")),
             ("template port", lambda m: m.startswith(tmpl)),
             ("timer wheel", lambda m: m.startswith("timer_wheel"))]
    print("  code size (size of the archives)     text    data     bss")
    for label, pick in parts:
        members = [m for m in sz if pick(m.split()[0])]
        t = [sum(sz[m][i] for m in members) for i in range(3)]
        print(f"    {label:<16} ({len(members):2d} objects) {t[0]:8d} {t[1]:7d} {t[2]:7d}")
        fig[label] = {"objects": len(members), "text": t[0], "data": t[1], "bss": t[2]}
    img = size_by_member(P + "size", image)
    it = next(iter(img.values()))
    fig["image"] = dict(zip(("text", "data", "bss"), it))
    print(f"  linked freestanding image {image}: {it[0]} text, {it[1]} data, {it[2]} bss; "
          "no undefined symbol")

    # The minimal build (IRQ_MINIMAL=1), linked the same way: its own size beside the full one.
    mini = os.path.join(D, "min")
    mimage = os.path.join(D, "image-min.elf")
    run([P + "gcc"] + args.lflags.split() + ["-nostdlib", "-ffreestanding", "-static",
        "-Wl,--entry=irq_core_init", "-Wl,--whole-archive", os.path.join(mini, "libirq.a"),
        "-Wl,--no-whole-archive", os.path.join(mini, args.libc), "-lgcc", "-o", mimage])
    msz = size_by_member(P + "size", os.path.join(mini, "libirq.a"))
    mcore = [sum(msz[m][i] for m in msz if not m.startswith(tmpl)) for i in range(3)]
    mit = next(iter(size_by_member(P + "size", mimage).values()))
    mlines = next(s for (m, n), s in defined_objects(P + "nm", os.path.join(mini, args.sizes)).items()
                  if n == "cross_nr_lines")
    print(f"  minimal build (IRQ_MINIMAL=1, {mlines} lines): kernel/irq core {mcore[0]} text, {mcore[1]} data, "
          f"{mcore[2]} bss; linked image {mit[0]} text, {mit[1]} data, {mit[2]} bss; no undefined symbol")
    fig["minimal"] = {"lines": mlines, "core": dict(zip(("text", "data", "bss"), mcore)),
                      "image": dict(zip(("text", "data", "bss"), mit))}
    fig["from_libc"], fig["from_libgcc"], fig["libc"] = from_libc, from_libgcc, args.libc.replace(".o", ".c")
    print(f"    taken from the host: {' '.join(from_libc) or 'nothing'} ({args.libc.replace('.o', '.c')}); "
          f"from libgcc: {' '.join(from_libgcc) or 'nothing'}")

    # The static memory a porter gets (no -D) and the irqkit kernel's (its larger values).
    statics = {}
    for v in ("std", "min", "kcfg"):
        vsz = size_by_member(P + "size", os.path.join(D, v, "libirq.a"))
        statics[v] = (sum(x[1] for x in vsz.values()), sum(x[2] for x in vsz.values()))
    big = sorted(((sz, n) for (m, n), sz in defined_objects(P + "nm", libirq).items()), reverse=True)[:3]
    fig["static"] = {v: {"data": d, "bss": b} for v, (d, b) in statics.items()}
    fig["kcfg"] = args.kcfg
    print("  static memory of the core and the template port, data + bss: " +
          "; ".join(f"{label} {sum(statics[v])} B ({statics[v][0]} + {statics[v][1]})" for v, label in
                    (("std", "irq_config.h's defaults (no -D)"), ("min", "IRQ_MINIMAL=1"),
                     ("kcfg", f"the irqkit kernel's values ({args.kcfg})"))))
    if args.bss_max is not None:
        got = sum(statics["std"])
        if got > args.bss_max:
            sys.exit(f"cross: {args.arch}: the defaults give {got} B of static memory, more than the "
                     f"{args.bss_max} B allowed (CROSS_{args.arch}_BSS_MAX in tests/cross/cross.mk); the largest: " +
                     ", ".join(f"{n} {sz} B" for sz, n in big))
        fig["bss_max"] = args.bss_max
        print(f"    within the {args.bss_max} B the defaults may have on {args.arch} "
              f"({args.bss_max - got} B to spare; the largest: " + ", ".join(f"{n} {sz} B" for sz, n in big) + ")")

    # 2b. Types, as this compiler laid them out.
    types = {}
    for (member, name), size in defined_objects(P + "nm", os.path.join(std, args.sizes)).items():
        m = re.fullmatch(r"cross_sizeof_(\w+)", name)
        if m:
            types[m.group(1)] = size
    if "irq_desc" not in types:
        sys.exit("cross: the sizes object has no cross_sizeof_irq_desc")
    fig["types"] = types
    print("  types (nm -S of " + args.sizes.replace(".o", ".c") + "): " +
          ", ".join(f"struct {t} {types[t]} B" for t in sorted(types)))

    # 2c. Memory per line: the growth of each static table between the two builds.
    lines = {}
    for v, d in (("std", std), ("few", few)):
        objs = defined_objects(P + "nm", os.path.join(d, args.sizes))
        lines[v] = next(s for (m, n), s in objs.items() if n == "cross_nr_lines")
    a, b = defined_objects(P + "nm", libirq), defined_objects(P + "nm", os.path.join(few, "libirq.a"))
    dl = lines["std"] - lines["few"]
    per_line, total = [], 0
    for key in sorted(a):
        if key in b and a[key] != b[key]:
            grow = a[key] - b[key]
            if grow % dl and grow >= dl:
                sys.exit(f"cross: {key[1]} grows by {grow} B over {dl} lines, not a whole number per line")
            # A bitmap (the tick's set of lines: one bit per line, in 32-bit words) grows by less than
            # a byte per line: shown as such, and not part of the whole bytes per line.
            per_line.append((key[1], grow // dl if grow >= dl else grow / dl))
            total += grow // dl
    print(f"  memory per interrupt line ({lines['std']} vs {lines['few']} lines): {total} B = " +
          " + ".join(f"{n} {s} B/line" if isinstance(s, int) else f"{n} {s:.2f} B/line (a bit map)"
                     for n, s in per_line))
    fig["per_line"] = {"lines": lines["std"], "total": total, "parts": per_line}
    static = sum(a.values())
    grown = {n for n, _ in per_line}
    fixed = sorted(((s, n) for (m, n), s in a.items() if n not in grown), reverse=True)
    print(f"  static objects of libirq.a (data, bss, rodata): {static} B = {lines['std']} lines x {total} B "
          f"+ {static - lines['std'] * total} B fixed, most of it " +
          ", ".join(f"{n} {s} B" for s, n in fixed[:3]))
    if total < types["irq_desc"]:
        sys.exit(f"cross: per-line memory {total} B is less than sizeof(struct irq_desc) "
                 f"{types['irq_desc']} B: the measurement is broken")
    fig["static_objects"] = {"total": static, "fixed": static - lines["std"] * total,
                             "largest_fixed": [[n, s] for s, n in fixed[:3]]}
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(fig, fh, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
