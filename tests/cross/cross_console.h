/*
 * cross_console.h - the console every run of `make cross` prints on
 * (tests/cross/cross_console.c): the run's own lines and the core's log
 * (irq_template_set_log), formatted by the irqkit printf (kernel/vsprintf.c)
 * the same way on every board. A board gives only the output itself,
 * cross_console_write(): the Cortex-M3's CMSDK UART (tests/cross/m3_run.c),
 * the RISC-V NS16550A polled (tests/cross/rv64_run.c), AArch64 semihosting
 * (tests/cross/a64_run.c).
 */
#ifndef CROSS_CONSOLE_H
#define CROSS_CONSOLE_H

#include <stdarg.h>

/*
 * The board's: send @n bytes of @s to its console. @s[@n] is '\0' (a
 * console that takes a string, as semihosting's SYS_WRITE0, uses it).
 * Called with interrupts on or off, from the program and from the core's
 * log in an interrupt: no lock, no allocation.
 */
void cross_console_write(const char *s, unsigned int n);

/* printf on the board's console; a line of more than 511 characters is cut. */
void cross_vprint(const char *fmt, va_list ap);
void cross_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The core's log (irq_template_set_log): its level, then its message, as a printk would. */
void cross_core_log(int level, const char *fmt, va_list ap);

#endif /* CROSS_CONSOLE_H */
