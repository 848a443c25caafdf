/*
 * tick_set.h - PRIVATE to kernel/irq/ (host unit tests of kernel/irq excepted):
 * the tick's set of lines (tick_look.c's data), read and added to without
 * a call: irq_tick_look_on - whether the tick looks at verified tokens (the
 * profile wants it and the host ticks), when their safety poll needs no
 * timer (expect.c); __irq_tick_line_add - put a line in the set, lock-free
 * (expect_irq; the ordering is written down in tick_look.c). Split out of
 * irq_sched.h so that tick_look.c, which defines the set, includes no
 * header that reads it (no circle of files: docs/irq-layers.md).
 *
 * Layer 2, the defences' services' private header: may use layers 0-2.
 * Included by expecting (expect.c), the one file that adds to the set.
 */
#ifndef IRQ_TICK_SET_H
#define IRQ_TICK_SET_H

#include "irq_sched.h"

#if IRQ_TICK_LOOK
extern uint32_t __irq_tick_period_ns;  /* 0: no tick (a 32-bit word: the headers read no 64-bit atomics) */
static inline bool irq_tick_look_on(const struct irq_policy *p)
{
	return (uint32_t)p->expect_tick_look && __atomic_load_n(&__irq_tick_period_ns, __ATOMIC_ACQUIRE);
}
extern uint32_t __irq_tick_lines[(IRQ_NR_LINES + 31) / 32];
/* Inline: expect_irq's verified path calls it for every command (a call cost 16 instructions of 30). */
static inline void __irq_tick_line_add(struct irq_desc *desc)
{
	unsigned int irq = desc->irq_data.irq;  /* its index in irq_descs (irq_core_init), one load */
	uint32_t *word = &__irq_tick_lines[irq / 32], bit = 1u << (irq % 32);

	/* seq_cst load, then seq_cst OR: the ordering is written down in tick_look.c. */
	if (!(__atomic_load_n(word, __ATOMIC_SEQ_CST) & bit))
		__atomic_or_fetch(word, bit, __ATOMIC_SEQ_CST);
}
#else
/* The tick's look left out (IRQ_TICK_LOOK 0): never on, an empty set (tick_look.c). */
static inline bool irq_tick_look_on(const struct irq_policy *p)
{
	(void)p;
	return false;
}
static inline void __irq_tick_line_add(struct irq_desc *desc)
{
	(void)desc;
}
#endif

#endif /* IRQ_TICK_SET_H */
