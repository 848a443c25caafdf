/*
 * flood.h - PRIVATE to kernel/irq/ (host unit tests of kernel/irq excepted):
 * what the flood and claimed-storm defence (spurious.c) gives the rest of
 * kernel/irq, split out of internals.h (issue 32, docs/irq-layers.md). Included
 * by spurious.c and, for the flow a timed line really has, by stats.c; the poll
 * scheduler reaches the defence only through irq_defence_flood (irq_sched.h),
 * and the dispatch core calls note_interrupt() (core.h).
 *
 * Layer 3, a defence's private header: may use layers 0-2 (docs/irq-layers.md).
 */
#ifndef IRQ_FLOOD_H
#define IRQ_FLOOD_H

#include "internals.h"

/* ---- spurious.c: the flood defence ---------------------------------------- */

/*
 * __irq_flood_poll_due - the poll timer fired on a line at @now: re-enable
 * a line that was off for flooding when its back-off is over, end a
 * passed re-enable test. Either is due when its time is at most @due_by:
 * the timer is armed early by its measured lateness (poll.c), and an
 * expiry that came early for a re-enable it did not take would be due
 * again at once, at the same instant, for as long as the lateness lasts.
 * Lock held.
 */
void __irq_flood_poll_due(struct irq_desc *desc, uint64_t now, uint64_t due_by);

/* __irq_flood_deadline - when the flood defence wants the line polled (0: no need). Lock held. */
uint64_t __irq_flood_deadline(const struct irq_desc *desc, uint64_t now);

/* irq_storm_flow_of - @flow, or the flow it stands in for while the line's runs are timed (spurious.c). */
irq_flow_handler_t irq_storm_flow_of(const struct irq_desc *desc, irq_flow_handler_t flow);

#endif /* IRQ_FLOOD_H */
