/*
 * printk.c - the kernel log. Each message is formatted into a local buffer
 * with a "[seconds.micros] " prefix at the start of every line, copied into
 * the log ring (the `dmesg` shell command reads it) and written to the
 * console sinks.
 *
 * Whole lines per context. The console only ever gets whole lines: a
 * message (printk) or a piece of a shell answer (cprintf) that does not end
 * its line waits in a line buffer of its own context until the rest comes,
 * and the whole line is then written at once under printk_lock with
 * interrupts off. So a message from another CPU, or from an interrupt on
 * this CPU, lands between two lines of a table (`irqs` builds each row of
 * several cprintf calls), never inside one. The buffers are static, one
 * per CPU and per context level (struct ctx_line, printk_ctx): the task
 * context, an interrupt handler, an interrupt nested in one, and an
 * exception or NMI (arch: cpu_data.irq_depth and .trap_depth). A context
 * is interrupted only by deeper ones, which use other buffers, so a buffer
 * is written by one context at a time and needs no lock of its own: a
 * half-built task line survives any interrupt on its CPU. The deepest
 * level is shared by an exception and one nested in it (a fault while
 * reporting a fault, which ends in panic_raw anyway). A line longer than
 * its buffer is written in pieces: each piece but the last ends in
 * PRINTK_PIECE_MARK, and the next piece gets no stamp of its own.
 *
 * The lock is one that a printk can never hang on: a printk nested on the
 * CPU that holds it (an exception or NMI inside a printk) goes ahead
 * without it - it starts its line on a new console line, so it cuts the
 * interrupted line in two but does not run into it - and a CPU that waits
 * longer than PRINTK_LOCK_MAX_SPINS for it (the holder died, e.g. halted by
 * a panic elsewhere) prints anyway: a garbled line beats a silent hang in
 * the one place that reports problems. A halt (halt_system) writes the
 * lines still being built, so that a panic loses nothing already said.
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
/* The console's cursor is at the start of a line; written under printk_lock only. */
static bool at_line_start = true;
static uint32_t messages_suppressed;

/* Whole lines per context: see the comment at the top. */
#define PRINTK_CTX_LEVELS 4           /* task, interrupt, nested interrupt, exception/NMI */
#define PRINTK_CTX_LINE   384         /* bytes of a line being built; longer ones go out in pieces */
#define PRINTK_PIECE_MARK "\\\n"      /* ends a piece of a line cut for its length */

struct ctx_line {
	char buf[PRINTK_CTX_LINE];
	size_t len;                   /* bytes of the line so far (its stamp included) */
	bool to_log, to_console;      /* where the line goes once whole */
	bool cont;                    /* the line continues a piece already written: no stamp */
};
static struct ctx_line ctx_lines[SMP_MAX_CPUS][PRINTK_CTX_LEVELS];

/* This context's line: by CPU and by how deep in interrupts and exceptions it runs. */
static struct ctx_line *printk_ctx(void)
{
	struct cpu_data *c = this_cpu();
	unsigned int level = c->trap_depth ? 3 : c->irq_depth >= 2 ? 2 : c->irq_depth;

	return &ctx_lines[c->cpu % SMP_MAX_CPUS][level];
}

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

/* Before a message reaches the console: end the shown input line, so the message starts a line. */
static void input_hide(void)
{
	if (input.prompt && input.shown) {
		console_write("\n", 1);
		input.shown = false;
		at_line_start = true;
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
		at_line_start = false;
	}
}

/* A whole line starts on the console: the shown input line and any line cut by nesting end first. */
static void line_begin(void)
{
	input_hide();
	if (!at_line_start)
		console_write("\n", 1);   /* this CPU was inside a write (an NMI or fault in printk) */
	at_line_start = false;
}

/* Log and/or show @n bytes of the line being written. */
static void put(const char *s, size_t n, bool to_log, bool to_console)
{
	if (!n)
		return;
	if (to_log)
		log_store(s, n);
	if (to_console)
		console_write(s, n);
}

/*
 * Write @l's line so far, then @tail, at once: a whole line (@tail ends in a
 * newline) or, with @piece, a piece of one that did not fit (marked). Under
 * printk_lock. The buffer is empty afterwards.
 */
static void line_write(struct ctx_line *l, const char *tail, size_t n, bool to_log, bool to_console,
		       bool piece)
{
	size_t len = l->len < sizeof(l->buf) ? l->len : sizeof(l->buf);

	to_log |= l->to_log;
	to_console |= l->to_console;
	if (to_console)
		line_begin();
	put(l->buf, len, to_log, to_console);
	put(tail, n, to_log, to_console);
	if (piece)
		put(PRINTK_PIECE_MARK, sizeof(PRINTK_PIECE_MARK) - 1, to_log, to_console);
	if (to_console)
		at_line_start = true;
	l->len = 0;
	l->to_log = l->to_console = false;
	l->cont = piece;
}

/* Keep @n bytes of an unfinished line in @l; what does not fit goes out in marked pieces. */
static void line_keep(struct ctx_line *l, const char *s, size_t n, bool to_log, bool to_console)
{
	l->to_log |= to_log;
	l->to_console |= to_console;
	while (n) {
		size_t room = sizeof(l->buf) - l->len;
		size_t take = n < room ? n : room;

		memcpy(l->buf + l->len, s, take);
		l->len += take;
		s += take;
		n -= take;
		if (n)   /* full, and more to come: this much is a piece */
			line_write(l, NULL, 0, to_log, to_console, true);
	}
}

/*
 * Feed @len bytes of output to this context's line: each line they end is
 * written whole, the unfinished rest is kept. @stamped: a printk's, whose
 * lines start with the time stamp and go to the log too.
 */
static void feed(struct ctx_line *l, const char *s, size_t len, bool stamped, bool to_console)
{
	size_t i = 0;

	while (i < len) {
		size_t seg = 0;
		bool ends;
		char stamp[24];
		int sn = 0;

		while (i + seg < len && s[i + seg] != '\n')
			seg++;
		ends = i + seg < len;
		if (ends)
			seg++;
		if (stamped && l->len == 0 && !l->cont) {
			uint64_t ns = printk_clock ? printk_clock() : 0;

			sn = ksnprintf(stamp, sizeof(stamp), "[%5u.%06u] ", (unsigned int)(ns / NS_PER_SEC),
				       (unsigned int)((ns % NS_PER_SEC) / NS_PER_USEC));
			if (sn < 0)
				sn = 0;
			line_keep(l, stamp, (size_t)sn, stamped, to_console);
		}
		if (ends)
			line_write(l, s + i, seg, stamped, to_console, false);
		else
			line_keep(l, s + i, seg, stamped, to_console);
		i += seg;
	}
}

/* This context's unfinished line goes out as it is (the shell's prompt follows it, as it did). */
static void line_flush_raw(struct ctx_line *l)
{
	if (!l->len)
		return;
	if (l->to_console) {
		input_hide();
		console_write(l->buf, l->len);
		at_line_start = false;
	}
	if (l->to_log)
		log_store(l->buf, l->len);
	l->len = 0;
	l->to_log = l->to_console = false;
	l->cont = true;
}

void printk_flush_lines(void)
{
	unsigned long flags;
	bool taken = printk_lock_take(&flags);

	for (unsigned int c = 0; c < SMP_MAX_CPUS; c++)
		for (unsigned int v = 0; v < PRINTK_CTX_LEVELS; v++)
			if (ctx_lines[c][v].len)
				line_write(&ctx_lines[c][v], NULL, 0, false, false, true);
	printk_unlock(taken, flags);
}

void printk_input_begin(const char *prompt, const char *line)
{
	unsigned long flags;
	bool taken = printk_lock_take(&flags);

	line_flush_raw(printk_ctx());
	input.prompt = prompt;
	input.line = line;
	input.len = 0;
	console_write(prompt, strlen(prompt));
	input.shown = true;
	at_line_start = false;
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
	feed(printk_ctx(), buf, len, true, level <= console_loglevel);
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
	feed(printk_ctx(), buf, (size_t)n, false, true);
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
