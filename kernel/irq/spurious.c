/*
 * spurious.c - what happens after every run of a line's handlers:
 * note_interrupt(), the single place where the core learns whether an
 * interrupt (or a poll) found work, and where the defences against lost,
 * misrouted and storming interrupts plug in.
 *
 * A poll is told apart by desc->run_is_poll (IRQS_POLLING in the status,
 * which other CPUs change under the lock, is not read here).
 *
 * Today it keeps the line's accounting (handled, unhandled, polled) that
 * <irq/stats.h> reports. Issue 4 adds the three defences of Tejun Heo's
 * 2010 "IRQ expecting / watching / spurious polling" design here, together
 * with the design essay that explains them; they build on three hooks of
 * the core: this function (called with IRQS_INPROGRESS owned, the lock not
 * held), the per-line poll timer (irq_poll_schedule, which runs
 * irq_poll_line in timer context) and the per-action defence storage
 * (struct irqaction::expects).
 */
#include "internals.h"

void note_interrupt(struct irq_desc *desc, irqreturn_t ret)
{
	/* desc->status may change under the lock meanwhile; this is ours. */
	if (desc->run_is_poll)
		desc->stats.polled++;
	else if (ret == IRQ_HANDLED)
		desc->stats.handled++;
	else
		desc->stats.unhandled++;
}
