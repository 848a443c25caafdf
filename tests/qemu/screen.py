"""Read the framebuffer console back from a QMP screendump, and say what it should show.

The screen is read by matching each 8x16 cell against irqkit's own font, loaded from the same art
file the kernel's table is generated from (tools/font/irqkit-8x16.txt, tools/font/font.py): a
cell's paper colour is its top-right pixel (row 0 and column 7 are never ink), every other colour
is ink, rows 14-15 (the cursor's) are ignored. A cell that matches no glyph reads as '\\0'.

What the screen should show is computed from the serial console: the kernel's output from its
banner on, laid out as drivers/video/fbcon.c lays it out (the banner as the title row, a long line
going on on the next, '\\b' moving back, scrolling), written here a second time from that
description, not by calling the kernel's code.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "font"))
import font  # noqa: E402

CELL_W, CELL_H = font.CELL_W, font.CELL_H
GLYPH_ROWS = 14          # rows 14-15 are the cursor's
TAB = 8


def read_ppm(path):
    """(width, height, bytes of RGB triples) of a binary PPM (P6, maxval 255) as QEMU writes it."""
    with open(path, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos) + 1
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    assert fields[0] == b"P6" and fields[3] == b"255", fields
    width, height = int(fields[1]), int(fields[2])
    pixels = data[pos + 1:]
    assert len(pixels) >= width * height * 3, "short PPM"
    return width, height, pixels


def glyph_table():
    """{tuple of the 14 glyph rows: character} for irqkit's font."""
    table = {}
    for code, rows in font.load().items():
        key = tuple(rows[:GLYPH_ROWS])
        assert key not in table, f"glyphs {code:#x} and {ord(table[key]):#x} look the same"
        table[key] = chr(code)
    return table


def read_screen(path, cols, rows):
    """The @rows x @cols cells of the screendump at @path as strings, trailing blanks removed."""
    width, height, px = read_ppm(path)
    assert cols * CELL_W <= width and rows * CELL_H <= height, (width, height, cols, rows)
    table = glyph_table()
    stride = width * 3

    def pixel(x, y):
        o = y * stride + x * 3
        return px[o:o + 3]

    out = []
    for r in range(rows):
        line = []
        for c in range(cols):
            x0, y0 = c * CELL_W, r * CELL_H
            paper = pixel(x0 + CELL_W - 1, y0)
            key = tuple(sum(0x80 >> x for x in range(CELL_W) if pixel(x0 + x, y0 + y) != paper)
                        for y in range(GLYPH_ROWS))
            line.append(table.get(key, "\0"))
        out.append("".join(line).rstrip(" "))
    return out


def expected_screen(text, cols, rows):
    """The screen after @text (serial output from the banner on): rows strings, the title first."""
    first = text.split("\n", 1)[0]
    title = first[first.index("irqkit "):]           # the title row: the banner without its timestamp
    body = text                                      # the scrolling area: everything, the banner too
    cells = [[" "] * cols for _ in range(rows)]
    for i, ch in enumerate(title[:cols]):
        cells[0][i] = ch
    row, col = 1, 0

    def newline():
        nonlocal row, col
        col = 0
        row += 1
        if row >= rows:
            del cells[1]
            cells.append([" "] * cols)
            row = rows - 1

    for ch in body:
        if ch == "\n":
            newline()
        elif ch == "\r":
            col = 0
        elif ch == "\b":
            col = max(col - 1, 0)
        elif ch == "\t":
            col = (col + TAB) & ~(TAB - 1)
            if col >= cols:
                newline()
        else:
            if col >= cols:
                newline()
            cells[row][col] = ch if " " <= ch <= "~" else "\x7f"
            col += 1
    return ["".join(r).rstrip(" ") for r in cells]
