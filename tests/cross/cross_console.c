/*
 * cross_console.c - printf for the runs of `make cross` (cross_console.h
 * says what; the board supplies cross_console_write()). One line is
 * formatted on the stack, so the core's log from an interrupt and the
 * program's own line in between do not share a buffer.
 */
#include "cross_console.h"

#include <kernel/format.h>

/* Longest line, with its '\0': the core's longest message is about 250 characters. */
#define CROSS_CONSOLE_LINE 512

void cross_vprint(const char *fmt, va_list ap)
{
	char line[CROSS_CONSOLE_LINE];
	int n = kvsnprintf(line, sizeof(line), fmt, ap);

	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;  /* cut: kvsnprintf counts what did not fit */
	cross_console_write(line, (unsigned int)n);
}

void cross_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cross_vprint(fmt, ap);
	va_end(ap);
}

void cross_core_log(int level, const char *fmt, va_list ap)
{
	cross_print("<%d>", level);
	cross_vprint(fmt, ap);
}
