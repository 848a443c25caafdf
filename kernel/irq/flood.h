/*
 * flood.h - PRIVATE to kernel/irq/ (host unit tests of kernel/irq excepted):
 * what the flood defence (flood.c) gives the rest of kernel/irq, split out
 * of internals.h (issue 32, docs/irq-layers.md): the judgement of a
 * segment, for note_interrupt()'s accounting (spurious.c); the line off
 * interrupts, for the claimed-storm defence (storm.c) too; its poll times,
 * for the unit tests. Included by flood.c, spurious.c and storm.c; the poll
 * scheduler reaches the defence only through irq_defence_flood (irq_sched.h).
 *
 * Layer 3, a defence's private header: may use layers 0-2 (docs/irq-layers.md).
 */
#ifndef IRQ_FLOOD_H
#define IRQ_FLOOD_H

#include "internals.h"
#include "policy.h"

#if IRQ_STORM
/*
 * __irq_line_off - take the line off interrupts for a flood or (@claimed)
 * a storm of claimed interrupts: masked at its chip, polled instead, the
 * re-enable test set after the back-off, which grows for the next time.
 * Lock held. RETURNS the time off. (Without the storm defence flood.c's
 * own, static.)
 */
uint64_t __irq_line_off(struct irq_desc *desc, const struct irq_policy *p, bool claimed, uint64_t now);
#endif

/*
 * irq_flood_judge - the segment is complete: a flood, or a good one that
 * shrinks the back-off (and passes a re-enable test). CONTEXT: the owner
 * of the run, lock not held.
 */
void irq_flood_judge(struct irq_desc *desc, const struct irq_policy *p, uint64_t now);

#if IRQ_STORM
/*
 * irq_flood_trip_by_cpu - a storm window of @irqs interrupts, @unclaimed of
 * them unclaimed (a flood's share), whose runs took @cpu_pct of a CPU in
 * @took ns: a flood by its CPU time (storm.c's CPU-time test found it).
 * CONTEXT: the owner of the run, lock not held.
 */
void irq_flood_trip_by_cpu(struct irq_desc *desc, const struct irq_policy *p, unsigned int irqs,
			   unsigned int unclaimed, uint64_t took, unsigned int cpu_pct, uint64_t now);
#endif

/* ---- the line's re-enable and its poll times (the defence table's entry) ---- */

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

#endif /* IRQ_FLOOD_H */
