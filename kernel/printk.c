/*
 * printk.c - the kernel log. Each message is formatted into a local buffer
 * with a "[seconds.micros] " prefix at the start of every line, copied into
 * the log ring (the `dmesg` shell command reads it) and written to the
 * console sinks. Interrupts are disabled while one message is emitted, so
 * messages from interrupt handlers never interleave with others on this
 * uniprocessor kernel.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <asm/cpu.h>
#include <kernel/printk.h>
#include <kernel/format.h>
#include <kernel/console.h>
#include <kernel/log.h>

#define PRINTK_LINE_MAX  512          /* longest single message, bytes */
#define LOG_RING_SIZE    (64 * 1024)  /* bytes of history kept for `dmesg` */
#define NS_PER_SEC       1000000000ull
#define NS_PER_USEC      1000ull

int console_loglevel = LOG_INFO;      /* messages with level <= this reach the console */

static uint64_t (*printk_clock)(void);
static char log_ring[LOG_RING_SIZE];
static uint32_t log_head;             /* total bytes ever written; index = head % size */
static bool at_line_start = true;
static uint32_t messages_suppressed;

void printk_set_clock(uint64_t (*clock_ns)(void))
{
	printk_clock = clock_ns;
}

static void log_store(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		log_ring[(log_head + i) % LOG_RING_SIZE] = s[i];
	log_head += len;
}

/* Emit @len bytes, inserting a timestamp before each new line. */
static void emit(const char *s, size_t len, bool to_console)
{
	char stamp[24];
	size_t start = 0;

	for (size_t i = 0; i < len; i++) {
		if (at_line_start) {
			uint64_t ns = printk_clock ? printk_clock() : 0;
			int n = ksnprintf(stamp, sizeof(stamp), "[%5u.%06u] ",
					  (unsigned int)(ns / NS_PER_SEC),
					  (unsigned int)((ns % NS_PER_SEC) / NS_PER_USEC));
			log_store(stamp, (size_t)n);
			if (to_console)
				console_write(stamp, (size_t)n);
			at_line_start = false;
		}
		if (s[i] == '\n' || i == len - 1) {
			log_store(s + start, i + 1 - start);
			if (to_console)
				console_write(s + start, i + 1 - start);
			start = i + 1;
			if (s[i] == '\n')
				at_line_start = true;
		}
	}
}

int vprintk(int level, const char *fmt, va_list ap)
{
	char buf[PRINTK_LINE_MAX];
	int n = kvsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = n < 0 ? 0 : (size_t)n;
	unsigned long flags;

	if (len >= sizeof(buf)) {
		len = sizeof(buf) - 1;
		buf[len - 1] = '\n';   /* a truncated message still ends its line */
	}
	flags = irq_save_flags();
	emit(buf, len, level <= console_loglevel);
	if (level > console_loglevel)
		messages_suppressed++;
	irq_restore_flags(flags);
	return (int)len;
}

int printk(int level, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(level, fmt, ap);
	va_end(ap);
	return n;
}

int cprintf(const char *fmt, ...)
{
	char buf[PRINTK_LINE_MAX];
	va_list ap;
	int n;
	unsigned long flags;

	va_start(ap, fmt);
	n = kvsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return n;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	flags = irq_save_flags();
	console_write(buf, (size_t)n);
	if (n)
		at_line_start = buf[n - 1] == '\n';
	irq_restore_flags(flags);
	return n;
}

size_t log_read(uint32_t *pos, char *out, size_t max)
{
	unsigned long flags = irq_save_flags();
	uint32_t oldest = log_head > LOG_RING_SIZE ? log_head - LOG_RING_SIZE : 0;
	size_t n = 0;

	if (*pos < oldest)
		*pos = oldest;
	while (*pos != log_head && n < max) {
		out[n++] = log_ring[*pos % LOG_RING_SIZE];
		(*pos)++;
	}
	irq_restore_flags(flags);
	return n;
}
