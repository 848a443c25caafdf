/*
 * irq_sched.h - PRIVATE to kernel/irq/ (host unit tests of kernel/irq excepted):
 * the poll scheduler's services that the defences use, split out of
 * internals.h (issue 32, docs/irq-layers.md).
 * Layer 2, the defences' services' private header: may use layers 0-2.
 * What it holds today: the tick's set of lines (tick_look.c), which
 * expecting (expect.c) adds a line to and the scheduler (poll.c) asks
 * whether the tick looks. Included only by the files that use it.
 */
#ifndef IRQ_SCHED_H
#define IRQ_SCHED_H

#include "core.h"

/*
 * irq_poll_timer_fn - the line's poll timer fired (@desc): the scheduler's
 * callback, which the assembly (policy.c) gives the core in its hooks
 * (struct irq_core_hooks, core.h). Timer context. poll.c.
 */
void irq_poll_timer_fn(void *desc);

/*
 * The tick's set of lines (tick_look.c): one bit per line whose verified
 * tokens the tick looks at. irq_tick_look_on - whether the tick looks at
 * verified tokens (the profile wants it and the host ticks); their safety
 * poll then needs no timer (expect.c). __irq_tick_line_add - put @desc in
 * the set, lock-free (expect_irq; the ordering is at its definition).
 */
/*
 * struct irq_tick_hooks - what the tick's look (layer 2) asks of expecting
 * (layer 3), through pointers the assembly gives it (policy.c), not by
 * name. Both with the line's lock held, once per tick per line in the set.
 */
struct irq_tick_hooks {
	/* A verified token of @action past its safety delay at @now? Sets *keep if it expects (__irq_expect_tick_look). */
	bool (*look)(struct irq_desc *desc, struct irqaction *action, uint64_t now, bool *keep);
	/* Whether a verified token of the line expects or expected since the last look (__irq_expect_tick_keeps). */
	bool (*keeps)(struct irq_desc *desc);
};

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
/*
 * __irq_tick_reset - no tick, empty set (irq_defences_core_init); @hooks:
 * what the tick's look asks of expecting, kept for good (written at boot
 * before any tick, so a plain pointer is enough).
 */
void __irq_tick_reset(const struct irq_tick_hooks *hooks);
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
static inline void __irq_tick_reset(const struct irq_tick_hooks *hooks)
{
	(void)hooks;
}
#endif

#endif /* IRQ_SCHED_H */
