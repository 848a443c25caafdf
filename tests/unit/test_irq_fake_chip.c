/*
 * test_irq_fake_chip.c - the fake irq_chip, level-line model and fake
 * devices of the kernel/irq host unit tests (see test_irq_fake_chip.h).
 * Chip calls may come from several threads at once (different lines, or
 * the host tests' second thread), so the records sit behind one mutex.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <cmocka.h>

#include "test_irq_fake_chip.h"

/* Chip calls recorded between clears (all lines together). */
#define FAKE_TRACE_MAX 16384
/* Longest trace string of one line, bytes. */
#define FAKE_TRACE_TEXT 8192
/* Handler calls recorded for fake_call_order. */
#define FAKE_ORDER_MAX 256
/* Longest fake_call_order string, bytes. */
#define FAKE_ORDER_TEXT 2048
/* Longest error message kept, bytes. */
#define FAKE_ERROR_TEXT 256

struct fake_call {
	unsigned int irq;
	const char *op;
};

static pthread_mutex_t fake_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct fake_call trace[FAKE_TRACE_MAX];
static unsigned int trace_len;
static bool masked[IRQ_NR_LINES];
static bool asserted[IRQ_NR_LINES];
static unsigned int chip_type[IRQ_NR_LINES];
static int set_type_result;
static int pending_answer[IRQ_NR_LINES];  /* what irq_pending says per line (fake_chip_pending) */
static unsigned int errors;
static char first_error[FAKE_ERROR_TEXT];
static const char *order[FAKE_ORDER_MAX];
static unsigned int order_len;

/* Record a broken rule (fake_mutex held). */
static void __attribute__((format(printf, 1, 2))) fake_error(const char *fmt, ...)
{
	va_list ap;

	if (errors++ == 0) {
		va_start(ap, fmt);
		vsnprintf(first_error, sizeof(first_error), fmt, ap);
		va_end(ap);
	}
}

/* Record one chip call and check the context chip calls must run in. */
static void record(struct irq_data *d, const char *op)
{
	pthread_mutex_lock(&fake_mutex);
	if (d->irq >= IRQ_NR_LINES)
		fake_error("%s on line %u, which does not exist", op, d->irq);
	else if (trace_len == FAKE_TRACE_MAX)
		fake_error("more than %d chip calls recorded", FAKE_TRACE_MAX);
	else
		trace[trace_len++] = (struct fake_call){ d->irq, op };
	if (irq_host_locks_held() != 1)
		fake_error("%s on line %u with %u port locks held, not the line's lock", op, d->irq,
			   irq_host_locks_held());
	pthread_mutex_unlock(&fake_mutex);
}

/* Mask/unmask pairing: the core must never repeat a state change. */
static void change_mask(struct irq_data *d, bool to_masked, const char *op)
{
	record(d, op);
	pthread_mutex_lock(&fake_mutex);
	if (d->irq < IRQ_NR_LINES) {
		if (masked[d->irq] == to_masked)
			fake_error("%s of line %u, which is already %s", op, d->irq,
				   to_masked ? "masked" : "unmasked");
		masked[d->irq] = to_masked;
	}
	pthread_mutex_unlock(&fake_mutex);
}

static void fake_mask(struct irq_data *d) { change_mask(d, true, "mask"); }
static void fake_unmask(struct irq_data *d) { change_mask(d, false, "unmask"); }
static void fake_mask_ack(struct irq_data *d) { change_mask(d, true, "mask_ack"); }
static void fake_ack(struct irq_data *d) { record(d, "ack"); }
static void fake_eoi(struct irq_data *d) { record(d, "eoi"); }

static int fake_set_type(struct irq_data *d, unsigned int type)
{
	int result;

	record(d, "set_type");
	pthread_mutex_lock(&fake_mutex);
	result = set_type_result;
	if (result == 0 && d->irq < IRQ_NR_LINES)
		chip_type[d->irq] = type;
	pthread_mutex_unlock(&fake_mutex);
	return result;
}

const struct irq_chip fake_chip = {
	.name = "FAKE", .mask = fake_mask, .unmask = fake_unmask, .ack = fake_ack,
	.eoi = fake_eoi, .set_type = fake_set_type,
};

/*
 * irq_pending of fake_chip_pending: the answer fake_chip_set_pending set.
 * Recorded as "pending" (the line's lock held: the sample before a poll's
 * handlers) or "pending-unlocked" (the sample after them); any other lock
 * count breaks the contract of irqchip.h.
 */
static int fake_pending(struct irq_data *d)
{
	unsigned int locks = irq_host_locks_held();
	int answer = 0;

	pthread_mutex_lock(&fake_mutex);
	if (d->irq >= IRQ_NR_LINES)
		fake_error("irq_pending on line %u, which does not exist", d->irq);
	else if (trace_len == FAKE_TRACE_MAX)
		fake_error("more than %d chip calls recorded", FAKE_TRACE_MAX);
	else
		trace[trace_len++] = (struct fake_call){ d->irq, locks ? "pending" : "pending-unlocked" };
	if (locks > 1)
		fake_error("irq_pending on line %u with %u port locks held", d->irq, locks);
	if (!irq_host_irqs_disabled())
		fake_error("irq_pending on line %u with interrupts enabled", d->irq);
	if (d->irq < IRQ_NR_LINES)
		answer = pending_answer[d->irq];
	pthread_mutex_unlock(&fake_mutex);
	return answer;
}

void fake_chip_set_pending(unsigned int irq, int answer)
{
	pthread_mutex_lock(&fake_mutex);
	if (irq < IRQ_NR_LINES)
		pending_answer[irq] = answer;
	pthread_mutex_unlock(&fake_mutex);
}

const struct irq_chip fake_chip_pending = {
	.name = "FAKE-PEND", .mask = fake_mask, .unmask = fake_unmask, .ack = fake_ack,
	.eoi = fake_eoi, .set_type = fake_set_type, .irq_pending = fake_pending,
};

const struct irq_chip fake_chip_mask_ack = {
	.name = "FAKE-MA", .mask = fake_mask, .unmask = fake_unmask, .ack = fake_ack,
	.mask_ack = fake_mask_ack, .eoi = fake_eoi, .set_type = fake_set_type,
};

const struct irq_chip fake_chip_fixed_type = {
	.name = "FAKE-FIXED", .mask = fake_mask, .unmask = fake_unmask, .ack = fake_ack,
	.eoi = fake_eoi,
};

void fake_chip_reset(void)
{
	pthread_mutex_lock(&fake_mutex);
	trace_len = 0;
	memset(masked, 0, sizeof(masked));
	memset(asserted, 0, sizeof(asserted));
	memset(chip_type, 0, sizeof(chip_type));
	set_type_result = 0;
	memset(pending_answer, 0, sizeof(pending_answer));
	errors = 0;
	first_error[0] = '\0';
	order_len = 0;
	pthread_mutex_unlock(&fake_mutex);
}

const char *fake_chip_trace(unsigned int irq)
{
	static char text[FAKE_TRACE_TEXT];
	size_t used = 0;
	unsigned int i;

	pthread_mutex_lock(&fake_mutex);
	text[0] = '\0';
	for (i = 0; i < trace_len; i++) {
		if (trace[i].irq != irq)
			continue;
		used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s", used ? " " : "", trace[i].op);
		if (used >= sizeof(text)) {
			used = sizeof(text) - 1;
			break;
		}
	}
	pthread_mutex_unlock(&fake_mutex);
	return text;
}

void fake_chip_trace_clear(void)
{
	pthread_mutex_lock(&fake_mutex);
	trace_len = 0;
	pthread_mutex_unlock(&fake_mutex);
}

unsigned int fake_chip_errors(void)
{
	unsigned int n;

	pthread_mutex_lock(&fake_mutex);
	n = errors;
	pthread_mutex_unlock(&fake_mutex);
	return n;
}

const char *fake_chip_first_error(void) { return first_error; }

bool fake_chip_masked(unsigned int irq)
{
	bool m;

	pthread_mutex_lock(&fake_mutex);
	m = irq < IRQ_NR_LINES && masked[irq];
	pthread_mutex_unlock(&fake_mutex);
	return m;
}

unsigned int fake_chip_type(unsigned int irq)
{
	unsigned int t;

	pthread_mutex_lock(&fake_mutex);
	t = irq < IRQ_NR_LINES ? chip_type[irq] : 0;
	pthread_mutex_unlock(&fake_mutex);
	return t;
}

void fake_chip_set_type_result(int err)
{
	pthread_mutex_lock(&fake_mutex);
	set_type_result = err;
	pthread_mutex_unlock(&fake_mutex);
}

void fake_line_set_asserted(unsigned int irq, bool on)
{
	pthread_mutex_lock(&fake_mutex);
	asserted[irq] = on;
	pthread_mutex_unlock(&fake_mutex);
}

/* Whether the chip would interrupt the CPU for @irq right now. */
static bool line_signals(unsigned int irq)
{
	bool on;

	pthread_mutex_lock(&fake_mutex);
	on = asserted[irq] && !masked[irq];
	pthread_mutex_unlock(&fake_mutex);
	return on;
}

unsigned int fake_line_deliver(unsigned int irq, unsigned int max)
{
	unsigned int n;

	for (n = 0; n < max && line_signals(irq); n++)
		fake_raise(irq);
	return n;
}

int fake_raise(unsigned int irq)
{
	int ret;

	irq_host_irq_enter();
	ret = generic_handle_irq(irq);
	irq_host_irq_exit();
	return ret;
}

void fake_setup_line(unsigned int irq, const struct irq_chip *chip, irq_flow_handler_t flow)
{
	assert_int_equal(irq_set_chip_and_handler(irq, chip, flow, NULL, irq), 0);
	fake_chip_trace_clear();
}

irqreturn_t fake_dev_handler(unsigned int irq, void *dev_id)
{
	struct fake_dev *dev = dev_id;
	/* The handler runs as the owner of the run, so it may read this. */
	bool polled = irq_to_desc(irq)->run_is_poll;

	pthread_mutex_lock(&fake_mutex);
	dev->calls++;
	if (polled)
		dev->polled_calls++;
	if (order_len < FAKE_ORDER_MAX)
		order[order_len++] = dev->name;
	if (irq_host_locks_held() != 0)
		fake_error("handler \"%s\" ran with %u port locks held", dev->name, irq_host_locks_held());
	if (!irq_host_irqs_disabled())
		fake_error("handler \"%s\" ran with interrupts enabled", dev->name);
	pthread_mutex_unlock(&fake_mutex);
	if (dev->hook)
		dev->hook(dev, irq);
	return dev->answer;
}

const char *fake_call_order(void)
{
	static char text[FAKE_ORDER_TEXT];
	size_t used = 0;
	unsigned int i;

	pthread_mutex_lock(&fake_mutex);
	text[0] = '\0';
	for (i = 0; i < order_len && used < sizeof(text) - 1; i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s", used ? " " : "", order[i]);
	pthread_mutex_unlock(&fake_mutex);
	return text;
}

void fake_irq_filter_from_env(void)
{
	const char *pattern = getenv("IRQ_TEST_FILTER");

	if (pattern && *pattern)
		cmocka_set_test_filter(pattern);
}

int fake_irq_setup(void **state)
{
	(void)state;
	irq_host_reset();
	fake_chip_reset();
	irq_core_init();
	irq_host_log_clear();
	return 0;
}

int fake_irq_teardown(void **state)
{
	(void)state;
	if (fake_chip_errors())
		fail_msg("fake chip: %u broken rule(s), first: %s", fake_chip_errors(), fake_chip_first_error());
	assert_int_equal(irq_host_locks_held(), 0);
	assert_false(irq_host_irqs_disabled());
	return 0;
}
