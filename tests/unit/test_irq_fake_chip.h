/*
 * test_irq_fake_chip.h - test doubles for the kernel/irq host unit tests:
 * a fake irq_chip that records every call in order and flags a mask of a
 * masked line or an unmask of an unmasked one, a model of a level line
 * that stays asserted, fake devices whose handlers record their calls and
 * the context they ran in, and the common setup/teardown of each case.
 * In the manner of KUnit's irq_test.c fake chip.
 */
#ifndef TEST_IRQ_FAKE_CHIP_H
#define TEST_IRQ_FAKE_CHIP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <irq/episode.h>
#include <irq/expect.h>
#include <irq/flood.h>
#include <irq/irq_codes.h>
#include <irq/stall.h>
#include <irq/storm.h>
#include <irq/tick_set.h>
#include <irq/watch.h>
#include <irq_port_host.h>

/*
 * fake_refused - whether the core logged refusal @code (kernel/irq/irq_codes.h)
 * of line @irq: with IRQ_HEALTH_TEXT one message containing @a and, unless
 * NULL, @b; in a terse build (IRQ_HEALTH_TEXT 0) "irq: E<code> line <irq>".
 */
static inline bool fake_refused(unsigned int code, unsigned int irq, const char *a, const char *b)
{
	char said[40];

	if (IRQ_HEALTH_TEXT)
		return b ? irq_host_log_contains_all(a, b) : irq_host_log_contains(a);
	snprintf(said, sizeof(said), "irq: E%u line %u\n", code, irq);
	return irq_host_log_contains(said);
}

/* The fakes: all operations but mask_ack; with mask_ack; without set_type. */
extern const struct irq_chip fake_chip;
extern const struct irq_chip fake_chip_mask_ack;
extern const struct irq_chip fake_chip_fixed_type;
/* The first with irq_pending too: it answers what fake_chip_set_pending said (0 after a reset). */
extern const struct irq_chip fake_chip_pending;
void fake_chip_set_pending(unsigned int irq, int answer);

/* Forget all calls and states: every line unmasked, not asserted. */
void fake_chip_reset(void);

/* The calls on line @irq since the last clear, e.g. "mask unmask ack eoi". */
const char *fake_chip_trace(unsigned int irq);
void fake_chip_trace_clear(void);

/* Broken rules seen (pairing, context); the first one in words, or "". */
unsigned int fake_chip_errors(void);
const char *fake_chip_first_error(void);

bool fake_chip_masked(unsigned int irq);
unsigned int fake_chip_type(unsigned int irq);   /* last type set_type accepted */
void fake_chip_set_type_result(int err);         /* what set_type returns from now on */

/*
 * fake_line_set_asserted / fake_line_deliver - a level line: while it is
 * asserted and unmasked at the chip, the chip keeps interrupting.
 * fake_line_deliver raises interrupts on @irq until that stops or @max
 * were raised, and RETURNS how many it raised.
 */
void fake_line_set_asserted(unsigned int irq, bool asserted);
unsigned int fake_line_deliver(unsigned int irq, unsigned int max);

/* fake_raise - one interrupt on @irq, as the arch entry code delivers it. RETURNS generic_handle_irq's result. */
int fake_raise(unsigned int irq);

/* fake_setup_line - attach a fake chip and a flow to @irq and clear the trace. */
void fake_setup_line(unsigned int irq, const struct irq_chip *chip, irq_flow_handler_t flow);

/* A fake device: its handler counts calls and returns ->answer. */
struct fake_dev {
	const char *name;          /* written to the call order */
	irqreturn_t answer;        /* what the handler returns */
	unsigned int calls;        /* handler calls */
	unsigned int polled_calls; /* of those, made by a poll of the line */
	void (*hook)(struct fake_dev *dev, unsigned int irq);  /* called inside the handler */
	void *ctx;                 /* for the hook */
};

/* The handler of fake devices; checks it runs unlocked, interrupts disabled. */
irqreturn_t fake_dev_handler(unsigned int irq, void *dev_id);

/* Names of the fake devices whose handlers ran, in order: "a b a". */
const char *fake_call_order(void);

/* Run only the cases matching $IRQ_TEST_FILTER (a cmocka glob), when set. */
void fake_irq_filter_from_env(void);

/* Per-case setup and teardown for cmocka_unit_test_setup_teardown. */
int fake_irq_setup(void **state);
int fake_irq_teardown(void **state);

#endif /* TEST_IRQ_FAKE_CHIP_H */
