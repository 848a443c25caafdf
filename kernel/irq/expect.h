/*
 * expect.h - PRIVATE to kernel/irq/ (host unit tests of kernel/irq excepted):
 * what expecting (expect.c) gives the rest of kernel/irq, split out of internals.h
 * (issue 32, docs/irq-layers.md). Included by expect.c and by the assembly
 * (policy.c), which hands these to the core's and the tick's hooks; the poll
 * scheduler reaches expecting only through irq_defence_expect (irq_sched.h).
 * A build without expecting (IRQ_EXPECT 0) gets inline no-ops for the two calls
 * the assembly makes whatever the build.
 *
 * Layer 3, a defence's private header: may use layers 0-2 (docs/irq-layers.md).
 */
#ifndef IRQ_EXPECT_H
#define IRQ_EXPECT_H

#include "expect_state.h"
#include "internals.h"

#if IRQ_EXPECT
/* __irq_expect_deadline - earliest poll the expect tokens of @action want (0: none). Lock held. */
uint64_t __irq_expect_deadline(struct irq_desc *desc, struct irqaction *action, uint64_t now);

/*
 * __irq_expect_mark_polled - the poll timer polled the line from @poll_ns:
 * tokens expecting since before then had their first poll (strictly before: one that began at
 * that very instant is taken to have begun inside the poll) (those whose
 * expect_irq came during the poll, from the handler, had none). Lock held.
 */
void __irq_expect_mark_polled(struct irqaction *action, uint64_t poll_ns);

/* __irq_expect_any_verified - whether any token of the line's actions is verified. Lock held. */
bool __irq_expect_any_verified(struct irq_desc *desc);

/* __irq_expect_age - after rescheduling at a poll: tokens not expecting lose their "in use" mark. Lock held. */
void __irq_expect_age(struct irq_desc *desc, struct irqaction *action);

/*
 * __irq_expect_tick_look - the tick's look at the tokens of @action
 * (tick_look.c): sets *@keep if a verified token expected since the last
 * look or expects now (the line stays in the tick's set), ages the others
 * (__irq_expect_age), RETURNS whether a verified token has been expecting
 * for its safety delay or longer at @now. Lock held.
 */
bool __irq_expect_tick_look(struct irq_desc *desc, struct irqaction *action, uint64_t now, bool *keep);

/* __irq_expect_tick_keeps - whether a verified token of the line expects or expected since the last look. Lock held. */
bool __irq_expect_tick_keeps(struct irq_desc *desc);

/* irq_expect_pool_init - every pooled token free again (irq_core_init). */
void irq_expect_pool_init(void);

/*
 * __irq_expect_poll_done - a poll's run of the handlers is over and set
 * tokens to IRQ_EXP_CLAIM (desc->def.poll_claims_open): judge them late at
 * once if the line's interrupt was pending (desc->def.poll_pending), else
 * leave them to the delayed verdict. Lock held.
 */
void __irq_expect_poll_done(struct irq_desc *desc, uint64_t now);

/* __irq_expect_kill_all - the action leaves (free_irq): its tokens die. Lock held. */
void __irq_expect_kill_all(struct irq_desc *desc, struct irqaction *action);
#else
/* Expecting left out (IRQ_EXPECT 0): no action has tokens (expect.c). */
static inline void irq_expect_pool_init(void)
{
}
static inline void __irq_expect_poll_done(struct irq_desc *desc, uint64_t now)
{
	(void)desc;
	(void)now;
}
#endif /* IRQ_EXPECT */

#endif /* IRQ_EXPECT_H */
