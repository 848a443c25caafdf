/*
 * vga_text.c - a mirror of the console on the VGA text screen: mode 3,
 * 80x25 characters at physical 0xB8000, two bytes per cell (character,
 * attribute), hardware cursor through CRTC registers 0x0E/0x0F at I/O
 * 0x3D4/0x3D5 (IBM VGA technical reference).
 */
#include <stdint.h>
#include <stddef.h>
#include <asm/io.h>
#include <kernel/console.h>
#include <drivers/serial.h>

#define VGA_TEXT_BASE  0xB8000u   /* colour text-mode frame buffer */
#define VGA_COLS       80
#define VGA_ROWS       25
#define VGA_ATTR       0x07       /* light grey on black */
#define VGA_CRTC_INDEX 0x3D4
#define VGA_CRTC_DATA  0x3D5
#define CRTC_CURSOR_HI 0x0E
#define CRTC_CURSOR_LO 0x0F
#define VGA_TAB        8

static volatile uint16_t *const vga = (volatile uint16_t *)VGA_TEXT_BASE;
static unsigned int row, col;

static void vga_scroll(void)
{
	for (unsigned int i = 0; i < (VGA_ROWS - 1) * VGA_COLS; i++)
		vga[i] = vga[i + VGA_COLS];
	for (unsigned int i = 0; i < VGA_COLS; i++)
		vga[(VGA_ROWS - 1) * VGA_COLS + i] = (VGA_ATTR << 8) | ' ';
	row = VGA_ROWS - 1;
}

static void vga_putc(char c)
{
	switch (c) {
	case '\n': col = 0; row++; break;
	case '\r': col = 0; break;
	case '\t': col = (col + VGA_TAB) & ~(VGA_TAB - 1u); break;
	case '\b': if (col) col--; break;
	default:
		vga[row * VGA_COLS + col] = (uint16_t)((VGA_ATTR << 8) | (uint8_t)c);
		col++;
	}
	if (col >= VGA_COLS) {
		col = 0;
		row++;
	}
	if (row >= VGA_ROWS)
		vga_scroll();
}

static void vga_write(const char *s, size_t len)
{
	uint16_t pos;

	for (size_t i = 0; i < len; i++)
		vga_putc(s[i]);
	pos = (uint16_t)(row * VGA_COLS + col);
	outb(VGA_CRTC_INDEX, CRTC_CURSOR_HI);
	outb(VGA_CRTC_DATA, pos >> 8);
	outb(VGA_CRTC_INDEX, CRTC_CURSOR_LO);
	outb(VGA_CRTC_DATA, pos & 0xFF);
}

static struct console_sink vga_sink = {
	.name = "vga",
	.write = vga_write,
};

void vga_text_init(void)
{
	for (unsigned int i = 0; i < VGA_ROWS * VGA_COLS; i++)
		vga[i] = (VGA_ATTR << 8) | ' ';
	row = col = 0;
	console_register(&vga_sink);
}
