/*
 * The kernel console: output goes to every registered sink (the 16550
 * serial port, the VGA text screen); input characters from any source (the
 * serial receive interrupt, later the USB keyboard) land in one ring that
 * the shell reads.
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

struct console_sink {
	const char *name;
	void (*write)(const char *s, size_t len);   /* must work with interrupts off */
	void (*flush)(void);                        /* optional: wait until output is out */
	struct console_sink *next;
};

void console_init(void);                         /* once, first thing in kmain */
void console_register(struct console_sink *sink);
void console_write(const char *s, size_t len);   /* CONTEXT: any; caller serialises (printk does) */
void console_flush(void);
/* console_emergency_write - polled serial only, no locks: the panic path. */
void console_emergency_write(const char *s);

/* Input side. console_input_char is safe from interrupt context (one producer at a time). */
void console_input_char(uint8_t c);
bool console_getc(uint8_t *c);                    /* non-blocking */
uint32_t console_input_dropped(void);             /* characters lost to a full ring */

#endif
