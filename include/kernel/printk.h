/*
 * printk - the kernel log. Every message gets a Linux-style timestamp
 * "[    0.001234] " (seconds since boot) and a level; it goes to the serial
 * console, the VGA text screen and the in-memory log ring (dmesg).
 *
 * CONTEXT: any, including interrupt handlers and exception handlers. Output
 * is serialised with interrupts disabled, and the console gets whole lines
 * only: a message or cprintf piece that does not end its line waits in a
 * buffer of its own CPU and context level until its line is whole, so a
 * line is never interleaved with another one (kernel/printk.c).
 */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

enum log_level {
	LOG_EMERG = 0,  /* system is unusable (panic) */
	LOG_ERR   = 3,  /* an operation failed */
	LOG_WARN  = 4,  /* something is wrong but we carry on */
	LOG_INFO  = 6,  /* normal boot and status messages */
	LOG_DEBUG = 7,  /* verbose; printed only with loglevel=8 */
};

/* printk - format and log one message at @level. RETURNS characters logged. */
int printk(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int vprintk(int level, const char *fmt, va_list ap);

/*
 * cprintf - console output without timestamp or log copy, for the shell's
 * answers to a person. CONTEXT: any.
 */
int cprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * cprintf_capture - from now on cprintf on THIS CPU appends to @cap
 * instead of writing the console (NULL: the console again). `oncpu` runs a
 * shell command on another CPU this way and prints what it wrote on CPU 0
 * (kernel/cpu_work.c). Only the CPU itself writes its capture, so no lock;
 * what does not fit is counted in @cap->dropped. printk is never captured.
 */
struct cprintf_capture {
	char *buf;
	size_t size, len;
	uint32_t dropped;             /* bytes that did not fit */
};
void cprintf_capture(struct cprintf_capture *cap);

/*
 * The shell's line in progress, so that a message which comes while a
 * person types does not split the line: the message starts on a line of
 * its own and the prompt with what was typed so far is shown again after
 * it. printk_input_begin writes @prompt and takes the shell's @line
 * buffer (both kept by pointer until printk_input_end); printk_input_echo
 * writes @echo (the keystroke's echo) and makes @line[0..@len) the line
 * now shown. The shell changes a byte of @line only at or past the shown
 * length before it echoes, so what a message shows again is always
 * whole; printk_input_end writes the newline that ends the line. A message hides the line; printk_input_refresh, called by the
 * shell whenever it looks for input, shows it again once the message is
 * whole (so a report of several lines is not cut by repeats). All write
 * under printk's lock, so another CPU's message lands between two echoes,
 * never inside one. CONTEXT: thread, one reader.
 */
void printk_input_begin(const char *prompt, const char *line);
void printk_input_echo(const char *echo, size_t n, size_t len);
void printk_input_end(const char *echo, size_t n);
void printk_input_refresh(void);

#define pr_emerg(...) printk(LOG_EMERG, __VA_ARGS__)
#define pr_err(...)   printk(LOG_ERR, __VA_ARGS__)
#define pr_warn(...)  printk(LOG_WARN, __VA_ARGS__)
#define pr_info(...)  printk(LOG_INFO, __VA_ARGS__)
#define pr_debug(...) printk(LOG_DEBUG, __VA_ARGS__)

/*
 * printk_flush_lines - write every line still being built, on every CPU and
 * context, each marked as cut. For a halt: the contexts that built them will
 * not run again. CONTEXT: any (other CPUs stopped, or about to be).
 */
void printk_flush_lines(void);

/* panic - print "Kernel panic: <msg>" with a backtrace and halt for good. */
__attribute__((noreturn, format(printf, 1, 2))) void panic(const char *fmt, ...);

#endif
