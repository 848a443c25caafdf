/*
 * stats.h - what the portable interrupt core (kernel/irq/) counts, for the
 * kernel's "irqs" shell command (in the spirit of Linux's /proc/interrupts)
 * and for tests. Include as <irq/stats.h>.
 *
 * Line counters:
 *   delivered  interrupts that came in from the controller on the line
 *   handled    runs of the handlers for an interrupt (or its replay) that
 *              some action claimed (IRQ_HANDLED)
 *   unhandled  such runs that nobody claimed, plus interrupts that found
 *              no action at all
 *   spurious   interrupts that found no action, plus those the controller
 *              reported as spurious (irq_account_spurious)
 *   polled     runs of the handlers started by a poll instead of an interrupt
 * Edges that arrive while the line is busy or disabled are merged into one
 * replay, so delivered may exceed handled + unhandled.
 *
 * The counters are written without the line's lock by whoever runs the
 * handlers; on a 32-bit SMP host a read may catch a 64-bit counter half
 * updated. On a uniprocessor (irqkit) the reader's lock excludes that.
 */
#ifndef IRQ_STATS_H
#define IRQ_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "irq_errno.h"

/* The state of one line. */
struct irq_line_stats {
	unsigned int irq;
	const char *chip_name;  /* "XT-PIC", or "none" */
	const char *trigger;    /* "edge", "level" or "none" */
	const char *flow;       /* "edge", "level", "fasteoi", "custom" or "none" */
	unsigned int depth;     /* disable nesting; 1 on a line without actions */
	unsigned int status;    /* IRQS_* bits; irq_status_string() names them */
	uint64_t delivered, handled, unhandled, spurious, polled;
	unsigned int nr_actions;
};

/* One action (registered handler) of a line. */
struct irq_action_stats {
	const char *name;
	void *dev_id;
	uint64_t handled;         /* interrupts it claimed */
	uint64_t polled_handled;  /* polls it claimed */
	unsigned long flags;      /* IRQF_* as requested */
};

/*
 * irq_get_line_stats - copy the state of line @irq to @out. Works for lines
 * without chip or action too (zeros, "none").
 * CONTEXT: any; takes the line's lock briefly.
 * RETURNS 0, or -EINVAL (no such line, NULL @out).
 */
int irq_get_line_stats(unsigned int irq, struct irq_line_stats *out);

/*
 * irq_get_action_stats - copy the @index-th action (0 = first registered)
 * of line @irq to @out. CONTEXT: any; takes the line's lock briefly.
 * RETURNS 0; -EINVAL (no such line, NULL @out); -ENOENT (past the last).
 */
int irq_get_action_stats(unsigned int irq, unsigned int index, struct irq_action_stats *out);

/*
 * irq_status_string - write the names of the IRQS_* bits in @status into
 * @buf as a comma-separated list ("disabled,masked"; "" for none; unknown
 * bits as "0x..."), truncated to fit @len bytes including the NUL.
 * CONTEXT: any. RETURNS @buf (or "" when @buf is NULL or @len is 0).
 */
const char *irq_status_string(unsigned int status, char *buf, size_t len);

#endif /* IRQ_STATS_H */
