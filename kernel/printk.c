/*
 * printk.c - the kernel log. Each message is formatted into a local buffer
 * with a "[seconds.micros] " prefix at the start of every line, copied into
 * the log ring (the `dmesg` shell command reads it) and written to the
 * console sinks. One message is emitted under printk_lock with interrupts
 * off, so messages of interrupt handlers and of other CPUs never interleave.
 * The lock is one that a printk can never hang on: a printk nested on the
 * CPU that holds it (an exception or NMI inside a printk) goes ahead
 * without it, and a CPU that waits longer than PRINTK_LOCK_MAX_SPINS for it
 * (the holder died, e.g. halted by a panic elsewhere) prints anyway: a
 * garbled line beats a silent hang in the one place that reports problems.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/smp.h>
#include <asm/spinlock.h>
#include <kernel/printk.h>
#include <kernel/format.h>
#include <kernel/console.h>
#include <kernel/log.h>
#include <kernel/string.h>

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

/* The shell's line in progress (printk_input_*); written under printk_lock only. */
static struct {
	const char *prompt;           /* NULL: no line is being typed */
	const char *line;             /* the shell's buffer; [0, len) is shown */
	size_t len;
	bool shown;                   /* the prompt and line are on the console's current line */
} input;

/* Pause loops a printk waits for another CPU's message before printing anyway (~0.1-1 s). */
#define PRINTK_LOCK_MAX_SPINS 10000000u
#define PRINTK_NO_OWNER 0xFFFFFFFFu

static spinlock_t printk_lock = SPINLOCK_INIT;
/* Written only by the holder; others compare it with their own number (see irq_port.c). */
static volatile uint32_t printk_owner = PRINTK_NO_OWNER;

/* RETURNS true if the lock was taken (then printk_unlock must release it). */
static bool printk_lock_take(unsigned long *flags)
{
	uint32_t me;

	*flags = irq_save_flags();
	me = smp_processor_id();
	if (printk_owner == me)
		return false;   /* nested on this CPU */
	for (uint32_t spins = 0; spins < PRINTK_LOCK_MAX_SPINS; spins++) {
		if (spin_trylock(&printk_lock)) {
			printk_owner = me;
			return true;
		}
		cpu_relax();
	}
	return false;   /* the holder is gone: print anyway */
}

static void printk_unlock(bool taken, unsigned long flags)
{
	if (taken) {
		printk_owner = PRINTK_NO_OWNER;
		spin_unlock(&printk_lock);
	}
	irq_restore_flags(flags);
}

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

/* Before a message reaches the console: end the shown input line, so the message starts a line. */
static void input_hide(void)
{
	if (input.prompt && input.shown) {
		console_write("\n", 1);
		input.shown = false;
	}
}

/*
 * After it: the prompt and what was typed so far, where the person left them. Not at once after
 * each message (a report of several lines would repeat the line between them) but when the
 * shell next looks for input (printk_input_refresh) or echoes a keystroke.
 */
static void input_show(void)
{
	if (input.prompt && !input.shown && at_line_start) {
		console_write(input.prompt, strlen(input.prompt));
		console_write(input.line, input.len);
		input.shown = true;
	}
}

void printk_input_begin(const char *prompt, const char *line)
{
	unsigned long flags;
	bool taken = printk_lock_take(&flags);

	input.prompt = prompt;
	input.line = line;
	input.len = 0;
	console_write(prompt, strlen(prompt));
	input.shown = true;
	printk_unlock(taken, flags);
}

void printk_input_refresh(void)
{
	unsigned long flags;
	bool taken = printk_lock_take(&flags);

	input_show();
	printk_unlock(taken, flags);
}

void printk_input_echo(const char *echo, size_t n, size_t len)
{
	unsigned long flags;
	bool taken = printk_lock_take(&flags);

	input.len = len;
	if (input.shown)
		console_write(echo, n);
	else
		input_show();   /* a message hid it: showing the line again shows this keystroke too */
	printk_unlock(taken, flags);
}

void printk_input_end(const char *echo, size_t n)
{
	unsigned long flags;
	bool taken = printk_lock_take(&flags);

	input_show();
	console_write(echo, n);
	input.prompt = NULL;
	at_line_start = true;
	printk_unlock(taken, flags);
}

int vprintk(int level, const char *fmt, va_list ap)
{
	char buf[PRINTK_LINE_MAX];
	int n = kvsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = n < 0 ? 0 : (size_t)n;
	unsigned long flags;
	bool taken;

	if (len >= sizeof(buf)) {
		len = sizeof(buf) - 1;
		buf[len - 1] = '\n';   /* a truncated message still ends its line */
	}
	taken = printk_lock_take(&flags);
	if (level <= console_loglevel)
		input_hide();
	emit(buf, len, level <= console_loglevel);
	if (level > console_loglevel)
		messages_suppressed++;
	printk_unlock(taken, flags);
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

/* Each CPU's capture (cprintf_capture); written and read by that CPU only. */
static struct cprintf_capture *capture[SMP_MAX_CPUS];

void cprintf_capture(struct cprintf_capture *cap)
{
	capture[smp_processor_id() % SMP_MAX_CPUS] = cap;
}

/* Interrupts off: a handler's cprintf on this CPU meanwhile must not append into the middle. */
static void capture_append(struct cprintf_capture *cap, const char *s, size_t n)
{
	unsigned long flags = irq_save_flags();
	size_t room = cap->len < cap->size ? cap->size - cap->len : 0;
	size_t take = n < room ? n : room;

	memcpy(cap->buf + cap->len, s, take);
	cap->len += take;
	cap->dropped += (uint32_t)(n - take);
	irq_restore_flags(flags);
}

int cprintf(const char *fmt, ...)
{
	struct cprintf_capture *cap = capture[smp_processor_id() % SMP_MAX_CPUS];
	char buf[PRINTK_LINE_MAX];
	va_list ap;
	int n;
	unsigned long flags;
	bool taken;

	va_start(ap, fmt);
	n = kvsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return n;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	if (cap) {
		capture_append(cap, buf, (size_t)n);
		return n;
	}
	taken = printk_lock_take(&flags);
	input_hide();
	console_write(buf, (size_t)n);
	if (n)
		at_line_start = buf[n - 1] == '\n';
	printk_unlock(taken, flags);
	return n;
}

size_t log_read(uint32_t *pos, char *out, size_t max)
{
	unsigned long flags;
	bool taken = printk_lock_take(&flags);
	uint32_t oldest = log_head > LOG_RING_SIZE ? log_head - LOG_RING_SIZE : 0;
	size_t n = 0;

	if (*pos < oldest)
		*pos = oldest;
	while (*pos != log_head && n < max) {
		out[n++] = log_ring[*pos % LOG_RING_SIZE];
		(*pos)++;
	}
	printk_unlock(taken, flags);
	return n;
}
