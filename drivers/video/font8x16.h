/* irqkit's console font (font8x16.c, generated from tools/font/irqkit-8x16.txt). */
#ifndef DRIVERS_VIDEO_FONT8X16_H
#define DRIVERS_VIDEO_FONT8X16_H

#include <stdint.h>

#define FONT8X16_WIDTH  8
#define FONT8X16_HEIGHT 16
#define FONT8X16_FIRST  0x20     /* the table starts at the space */
#define FONT8X16_BOX    0x7F     /* drawn for any byte outside 0x20-0x7e */
#define FONT8X16_GLYPHS (FONT8X16_BOX - FONT8X16_FIRST + 1)

/* font8x16[c - FONT8X16_FIRST][row]: bit 7 is the leftmost pixel of the row. */
extern const uint8_t font8x16[FONT8X16_GLYPHS][FONT8X16_HEIGHT];

#endif
