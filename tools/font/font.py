"""Read tools/font/irqkit-8x16.txt (irqkit's own console font, see its header): the one source of the
glyphs, for mkfont.py (the C table in drivers/video/font8x16.c) and for the tests that read the
screen back (tests/qemu/test_uefi.py)."""
import os

ART = os.path.join(os.path.dirname(os.path.abspath(__file__)), "irqkit-8x16.txt")
FIRST, LAST = 0x20, 0x7F        # printable ASCII, then the box for everything else
ART_ROWS, ART_COLS = 12, 7
CELL_W, CELL_H = 8, 16
TOP = 2                         # cell row of the art's first row; rows 14-15 are the cursor's


def load(path=ART):
    """{code: [16 row bytes, bit 7 = leftmost pixel]} for every code FIRST..LAST; raises ValueError
    naming the line on any mistake in the file (a missing or repeated glyph, a bad row)."""
    glyphs, code, rows = {}, None, []
    with open(path) as f:
        lines = [(n + 1, l.rstrip("\n")) for n, l in enumerate(f)]
    for n, line in lines + [(len(lines) + 1, "glyph end")]:
        if not line or line == "#" or line.startswith("# "):
            continue
        if line.startswith("glyph "):
            if code is not None:
                if len(rows) != ART_ROWS:
                    raise ValueError(f"{path}:{n}: glyph {code:#x} has {len(rows)} rows, not {ART_ROWS}")
                cell = [0] * CELL_H
                for r, bits in enumerate(rows):
                    cell[TOP + r] = bits
                glyphs[code] = cell
            if line == "glyph end":
                break
            code = int(line.split()[1], 16)
            if code in glyphs or not FIRST <= code <= LAST:
                raise ValueError(f"{path}:{n}: glyph {code:#x} repeated or outside {FIRST:#x}-{LAST:#x}")
            rows = []
            continue
        if len(line) != ART_COLS or set(line) - {"#", "."}:
            raise ValueError(f"{path}:{n}: a row is {ART_COLS} of '#' and '.', not {line!r}")
        rows.append(sum(0x80 >> c for c, ch in enumerate(line) if ch == "#"))
    missing = [c for c in range(FIRST, LAST + 1) if c not in glyphs]
    if missing:
        raise ValueError(f"{path}: no glyph for {', '.join(hex(c) for c in missing)}")
    return glyphs
