/*
 * expect_state.h - PRIVATE to kernel/irq/ (host unit tests of kernel/irq excepted):
 * the state bits of an expect token (struct irq_expect::state, interrupt.h), split out
 * of internals.h (issue 32, docs/irq-layers.md). Included by expecting (expect.h), by
 * stall.c (irq_expect_cpu_ran() reads a token's state) and by health.c (its readers).
 *
 * Layer 0, a private header of the base: may use layer 0 only (docs/irq-layers.md).
 */
#ifndef IRQ_EXPECT_STATE_H
#define IRQ_EXPECT_STATE_H

/* Expect token state bits (struct irq_expect::state, changed atomically). */
#define IRQ_EXP_LIVE       0x0001u  /* bound to an action; cleared when it dies at free_irq */
#define IRQ_EXP_EXPECTING  0x0002u  /* between expect_irq and unexpect_irq */
#define IRQ_EXP_VERIFIED   0x0004u  /* deliveries by interrupt proved reliable: slow polling */
#define IRQ_EXP_QUICK      0x0008u  /* tejun2010 quick mode: poll at poll_quick_ns */
#define IRQ_EXP_USED       0x0010u  /* expected since the last poll (keeps the slow timer alive) */
#define IRQ_EXP_DISTRUSTED 0x0020u  /* lost interrupts seen and not verified since: reported */
#define IRQ_EXP_FIRST_POLL 0x0040u  /* the first poll of this expect has run */
#define IRQ_EXP_CLAIM      0x0080u  /* a completion found by polling awaits its verdict (late or lost) */

#endif /* IRQ_EXPECT_STATE_H */
