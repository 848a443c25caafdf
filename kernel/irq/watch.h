/*
 * watch.h - PRIVATE to kernel/irq/ (host unit tests of kernel/irq excepted):
 * what watching (watch.c) gives the rest of kernel/irq, split out of internals.h
 * (issue 32, docs/irq-layers.md): the watch state bits (struct irq_watch::flags,
 * which health.c reads too) and the calls of note_interrupt() (spurious.c) into
 * watching, inline no-ops in a build without it (IRQ_WATCH 0). Included by watch.c,
 * spurious.c and health.c; the poll scheduler reaches watching only through
 * irq_defence_watch (irq_sched.h).
 *
 * Layer 3, a defence's private header: may use layers 0-2 (docs/irq-layers.md).
 */
#ifndef IRQ_WATCH_H
#define IRQ_WATCH_H

#include "internals.h"

/* Watch state bits (struct irq_watch::flags, under the line's lock). */
#define IRQ_WAT_WATCHING 0x0001u  /* polled (slowly) to check delivery */
#define IRQ_WAT_POLLED   0x0002u  /* a poll found work the interrupt should have delivered */
#define IRQ_WAT_WARY     0x0004u  /* a middling period: the longer wary period applies */
#define IRQ_WAT_BAD      0x0008u  /* a bad period: watched (and polled) for good */
#define IRQ_WAT_KEEP     0x0010u  /* watch_irq_keep: a period that would end watching starts the next */

#if IRQ_WATCH

/*
 * __irq_watch_update - a poll of a line with watched actions ran: count the
 * actions' deliveries since the last look, judge finished periods. Called
 * by note_interrupt (the run's owner, so the counters are stable) with the
 * lock held.
 */
void __irq_watch_update(struct irq_desc *desc, uint64_t now);

/* __irq_watch_deadline - when watching @action wants the line polled (0: none). Lock held. */
uint64_t __irq_watch_deadline(const struct irq_desc *desc, const struct irqaction *action, uint64_t now);

/* __irq_watch_stop - the action leaves: stop watching it. Lock held. */
void __irq_watch_stop(struct irq_desc *desc, struct irqaction *action);

/*
 * __irq_watch_unclaimed - an interrupt of the line was claimed by no action
 * while watched actions have poll finds awaiting their verdict
 * (desc->def.watch_late_open): the interrupt was late, not lost; those
 * deliveries count as by interrupt. Called by note_interrupt with the lock
 * held (after stats.unhandled was counted).
 */
void __irq_watch_unclaimed(struct irq_desc *desc, uint64_t now);
#else
/* Watching left out (IRQ_WATCH 0): no action is ever watched (watch.c). */
static inline void __irq_watch_update(struct irq_desc *desc, uint64_t now)
{
	(void)desc;
	(void)now;
}
static inline void __irq_watch_unclaimed(struct irq_desc *desc, uint64_t now)
{
	(void)desc;
	(void)now;
}
#endif /* IRQ_WATCH */

#endif /* IRQ_WATCH_H */
