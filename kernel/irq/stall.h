/*
 * stall.h - PRIVATE to kernel/irq/ (host unit tests of kernel/irq excepted):
 * the stall marks (stall.c: the evidence that a CPU ran), split out of
 * internals.h (issue 32, docs/irq-layers.md). Included by stall.c, by the
 * defences that ask before they say "lost" (expect.c, watch.c) and by health.c.
 *
 * Layer 2, a private header of the defences' services: may use layers 0-2
 * (docs/irq-layers.md).
 */
#ifndef IRQ_STALL_H
#define IRQ_STALL_H

#include "internals.h"

/*
 * __irq_line_cpu - the CPU line @desc's interrupts go to: the lowest CPU of
 * its affinity mask, CPU 0 while none was set (arch/x86's chips deliver
 * to the first CPU of the mask; irqchip.h). Any context (the mask read
 * relaxed: expect_irq asks without the lock).
 */
unsigned int __irq_line_cpu(const struct irq_desc *desc);

/* __irq_cpu_mark - where the line's CPU stands at @now (a poll found work, a safety poll came due). Lock held. */
void __irq_cpu_mark(struct irq_desc *desc, struct irq_cpu_mark *m, uint64_t now);

/*
 * __irq_cpu_ran - whether the CPU of @m has run since @m enough for a lost
 * verdict: finished stall_ran_irqs interrupts (1 asked on it of a mark
 * taken on it; one more after a late poll). True in profiles without the
 * test. Lock held (the ordering: stall.c).
 */
bool __irq_cpu_ran(const struct irq_cpu_mark *m);

/*
 * __irq_cpu_stalled - whether the CPU of @m was not running: looks at it
 * since @m saw it finish no interrupt for stall_ns (from @m, or from the
 * first look after its count last moved: each call is such a look and
 * keeps what it saw in @m), or @m was taken by a poll timer that fired
 * that late. Lock held.
 */
bool __irq_cpu_stalled(struct irq_cpu_mark *m, uint64_t now);

/*
 * __irq_cpu_ran_lately - a driver's time-out, from its expect's open mark
 * @m: the CPU ran since (__irq_cpu_ran) and a look at @now does not find
 * it standing still for stall_ns (__irq_cpu_stalled; no look counts asked
 * on that CPU itself). Also a look. Lock held, by the token's driver.
 */
bool __irq_cpu_ran_lately(struct irq_cpu_mark *m, uint64_t now);

/* __irq_cpu_finished - how many interrupts the CPU of @m has finished since @m. Lock held. */
uint32_t __irq_cpu_finished(const struct irq_cpu_mark *m);

#endif /* IRQ_STALL_H */
