/*
 * fbcon.c - the console on the linear framebuffer the boot loader set up
 * (multiboot2 framebuffer tag, arch/x86/multiboot2.c): on UEFI machines there
 * is no VGA text mode, and a laptop has no serial port, so this is where the
 * log and the shell are read. It shows what the serial console shows - every
 * byte written to the console, the same line breaks, backspaces and prompts -
 * with a fixed title row on top (the boot banner) and a scrolling area below.
 * The VGA text mirror (vga_text.c) serves BIOS boots instead; see also
 * docs/boot.md.
 *
 * Drawing: the text lives in a cell array (one byte per character cell,
 * 8x16 pixels each, irqkit's own font in font8x16.c); after each write the
 * cells that differ from what is on the screen are drawn again, so scrolling
 * rewrites only the characters that changed and nothing is ever read back
 * from the framebuffer (which is mapped uncached: reads are slow on real
 * hardware). Pixels are composed from the loader's colour field positions, so
 * any direct-colour format of 15, 16, 24 or 32 bits works.
 *
 * Until paging is on and the heap exists the framebuffer cannot be mapped
 * (it may lie above 4 GiB), so the console output of early boot is kept in a
 * small buffer and drawn when fbcon_init() maps the screen.
 *
 * Context: console sinks run under printk's lock with interrupts off
 * (kernel/console.h), which serialises every write; fbcon_init runs on the
 * boot CPU before the others start and before interrupts are enabled.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <asm/paging.h>
#include <drivers/fbcon.h>
#include <kernel/bootinfo.h>
#include <kernel/console.h>
#include <kernel/errno.h>
#include <kernel/heap.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include "font8x16.h"

/* Tunables, each with its reason. */
enum fbcon_tunables {
	FBCON_EARLY_BYTES = 16384,   /* early output kept: a PC's boot log to the heap, ~100 memory map lines */
	FBCON_MAX_CELLS = 65536,     /* 4K (3840x2160) is 480x135 cells; more is refused */
	FBCON_TAB = 8,               /* tab stops, as the serial terminal's */
	FBCON_CURSOR_ROW = 14,       /* the cursor: cell rows 14-15, below every glyph (tools/font) */
};

/* Colours as 8-bit red, green, blue. */
#define RGB(r, g, b) ((uint32_t)(r) << 16 | (uint32_t)(g) << 8 | (uint32_t)(b))
#define COLOUR_TEXT   RGB(0xAA, 0xAA, 0xAA)   /* light grey on black, the VGA text default */
#define COLOUR_PAPER  RGB(0x00, 0x00, 0x00)
#define COLOUR_TITLE  RGB(0xFF, 0xFF, 0xFF)   /* the title row: white on blue */
#define COLOUR_BANNER RGB(0x00, 0x00, 0xAA)

#define CELL_NONE 0xFF               /* shown[]: nothing known drawn there, draw it */

static struct {
	bool live;                   /* mapped and drawing */
	bool early;                  /* buffering early output */
	uint8_t *fb;                 /* the framebuffer as mapped */
	uint32_t pitch, bpp_bytes;
	const struct boot_fb *mode;
	uint32_t text, paper, title, banner;   /* pixel values in the framebuffer's format */
	unsigned int cols, rows;     /* character cells; row 0 is the title */
	unsigned int row, col;       /* the cursor, in the scrolling area (rows 1..rows-1) */
	unsigned int cursor_row, cursor_col;   /* where the cursor is drawn */
	uint8_t *cells, *shown;      /* cols * rows each */
	char early_buf[FBCON_EARLY_BYTES];
	uint32_t early_len;
	bool early_lost;
} fbc;

/* A colour in the framebuffer's pixel format. */
static uint32_t pixel_of(uint32_t rgb)
{
	const struct boot_fb *m = fbc.mode;
	uint32_t c[3] = { rgb >> 16 & 0xFF, rgb >> 8 & 0xFF, rgb & 0xFF };
	uint8_t pos[3] = { m->red_pos, m->green_pos, m->blue_pos };
	uint8_t size[3] = { m->red_size, m->green_size, m->blue_size };
	uint32_t px = 0;

	for (unsigned int i = 0; i < 3; i++)
		px |= (size[i] <= 8 ? c[i] >> (8 - size[i]) : c[i] << (size[i] - 8)) << pos[i];
	return px;
}

static void put_pixel(uint8_t *p, uint32_t px)
{
	switch (fbc.bpp_bytes) {
	case 4: *(volatile uint32_t *)p = px; break;
	case 3: p[0] = (uint8_t)px; p[1] = (uint8_t)(px >> 8); p[2] = (uint8_t)(px >> 16); break;
	default: *(volatile uint16_t *)p = (uint16_t)px; break;
	}
}

/* Draw cell (@row, @col) with its character, and the cursor under it if @cursor. */
static void draw_cell(unsigned int row, unsigned int col, bool cursor)
{
	uint8_t ch = fbc.cells[row * fbc.cols + col];
	const uint8_t *glyph = font8x16[(ch >= FONT8X16_FIRST && ch < FONT8X16_BOX ? ch : FONT8X16_BOX) - FONT8X16_FIRST];
	uint32_t ink = row == 0 ? fbc.title : fbc.text, paper = row == 0 ? fbc.banner : fbc.paper;
	uint8_t *line = fbc.fb + (row * FONT8X16_HEIGHT) * fbc.pitch + col * FONT8X16_WIDTH * fbc.bpp_bytes;

	for (unsigned int y = 0; y < FONT8X16_HEIGHT; y++, line += fbc.pitch) {
		uint8_t bits = cursor && y >= FBCON_CURSOR_ROW ? 0xFF : glyph[y];
		uint8_t *p = line;

		for (unsigned int x = 0; x < FONT8X16_WIDTH; x++, p += fbc.bpp_bytes)
			put_pixel(p, (bits & (0x80u >> x)) ? ink : paper);
	}
	fbc.shown[row * fbc.cols + col] = cursor ? CELL_NONE : ch;
}

/* Bring the screen up to date with the cells: changed cells, and the cursor where it now is. */
static void refresh(void)
{
	unsigned int n = fbc.cols * fbc.rows, cur = fbc.row * fbc.cols + fbc.col;

	if (fbc.cursor_row != fbc.row || fbc.cursor_col != fbc.col)
		fbc.shown[fbc.cursor_row * fbc.cols + fbc.cursor_col] = CELL_NONE;   /* erase the old cursor */
	for (unsigned int i = 0; i < n; i++)
		if (i != cur && fbc.cells[i] != fbc.shown[i])
			draw_cell(i / fbc.cols, i % fbc.cols, false);
	draw_cell(fbc.row, fbc.col, true);
	fbc.cursor_row = fbc.row;
	fbc.cursor_col = fbc.col;
}

/* The scrolling area moves up a line; the title row stays. */
static void scroll(void)
{
	memmove(fbc.cells + fbc.cols, fbc.cells + 2 * fbc.cols, (fbc.rows - 2) * fbc.cols);
	memset(fbc.cells + (fbc.rows - 1) * fbc.cols, ' ', fbc.cols);
	fbc.row = fbc.rows - 1;
}

static void newline(void)
{
	fbc.col = 0;
	if (++fbc.row >= fbc.rows)
		scroll();
}

static void put_char(char c)
{
	switch (c) {
	case '\n': newline(); break;
	case '\r': fbc.col = 0; break;
	case '\b': if (fbc.col) fbc.col--; break;
	case '\t':
		fbc.col = (fbc.col + FBCON_TAB) & ~(FBCON_TAB - 1u);
		if (fbc.col >= fbc.cols)
			newline();
		break;
	default:
		if (fbc.col >= fbc.cols)
			newline();        /* a long line goes on on the next one, as a terminal wraps it */
		fbc.cells[fbc.row * fbc.cols + fbc.col++] = (uint8_t)c;
	}
}

static void fbcon_write(const char *s, size_t len)
{
	if (fbc.early) {
		for (size_t i = 0; i < len; i++) {
			if (fbc.early_len < FBCON_EARLY_BYTES)
				fbc.early_buf[fbc.early_len++] = s[i];
			else
				fbc.early_lost = true;
		}
		return;
	}
	if (!fbc.live)
		return;
	for (size_t i = 0; i < len; i++)
		put_char(s[i]);
	refresh();
}

static struct console_sink fbcon_sink = {
	.name = "fbcon",
	.write = fbcon_write,
};

void fbcon_early_init(void)
{
	fbc.early = true;
	console_register(&fbcon_sink);
}

int fbcon_init(const struct boot_fb *mode, const char *title)
{
	uint64_t bytes = (uint64_t)mode->pitch * mode->height;
	uintptr_t fb;
	size_t n;
	int err;

	if (!fbc.early)
		return -ENODEV;
	fbc.early = false;    /* from here on, output goes to the screen or nowhere */
	fbc.mode = mode;
	fbc.cols = mode->width / FONT8X16_WIDTH;
	fbc.rows = mode->height / FONT8X16_HEIGHT;
	if (fbc.cols < 2 || fbc.rows < 2 || fbc.cols * fbc.rows > FBCON_MAX_CELLS) {
		pr_warn("fbcon: %ux%u pixels give %ux%u cells of 8x16; no screen console\n", mode->width, mode->height,
			fbc.cols, fbc.rows);
		return -EINVAL;
	}
	err = mmio_map(mode->addr, bytes, &fb);
	if (err) {
		pr_warn("fbcon: framebuffer at %#llx cannot be mapped: %s; no screen console\n",
			(unsigned long long)mode->addr, mmio_map_error(err));
		return err;
	}
	n = (size_t)fbc.cols * fbc.rows;
	fbc.cells = kmalloc(n);
	fbc.shown = kmalloc(n);
	if (!fbc.cells || !fbc.shown) {
		pr_warn("fbcon: no memory for %ux%u cells; no screen console\n", fbc.cols, fbc.rows);
		return -ENOMEM;
	}
	fbc.fb = (uint8_t *)fb;
	fbc.pitch = mode->pitch;
	fbc.bpp_bytes = (mode->bpp + 7u) / 8u;
	fbc.text = pixel_of(COLOUR_TEXT);
	fbc.paper = pixel_of(COLOUR_PAPER);
	fbc.title = pixel_of(COLOUR_TITLE);
	fbc.banner = pixel_of(COLOUR_BANNER);
	memset(fbc.cells, ' ', n);
	memset(fbc.shown, CELL_NONE, n);
	for (unsigned int c = 0; title[c] && c < fbc.cols; c++)
		fbc.cells[c] = (uint8_t)title[c];
	fbc.row = 1;
	fbc.col = 0;
	fbc.live = true;
	/* What the serial console has shown so far, so both screens read the same. */
	for (uint32_t i = 0; i < fbc.early_len; i++)
		put_char(fbc.early_buf[i]);
	refresh();
	pr_info("fbcon: %ux%u cells of 8x16 on the %ux%u framebuffer at %#llx%s\n", fbc.cols, fbc.rows,
		mode->width, mode->height, (unsigned long long)mode->addr,
		fbc.early_lost ? " (early output past 16 KiB was lost)" : "");
	return 0;
}
