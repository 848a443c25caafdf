/*
 * irq_sched.h - PRIVATE to kernel/irq/ (host unit tests of kernel/irq excepted):
 * the poll scheduler's services that the defences use, split out of
 * internals.h (issue 32, docs/irq-layers.md).
 * Layer 2, the defences' services' private header: may use layers 0-2.
 * What it holds: the defence table (struct irq_defence: what the
 * scheduler asks and tells each defence, without naming it), the poll
 * timer's callback, and what the tick's look asks of expecting (struct
 * irq_tick_hooks); the tick's set of lines, which reads tick_look.c's data,
 * is tick_set.h. Included by the scheduler, the defences and the assembly.
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
 * struct irq_defence - one defence as the poll scheduler (poll.c) sees it:
 * what it is asked and told about a line, without the scheduler knowing
 * which defence it is. Each defence of layer 3 defines its own, const
 * (read-only data, nothing per line): irq_defence_flood (flood.c: the
 * line off interrupts that the flood and the claimed-storm defence share),
 * irq_defence_expect (expect.c),
 * irq_defence_watch (watch.c). The assembly (policy.c) puts the ones the
 * build has (the switches of irq_config.h) in a NULL-terminated table, in
 * the order they are called, and gives it to the scheduler
 * (__irq_sched_init); the scheduler walks the table and names none of
 * them. Every hook may be NULL (not asked, not told). All with the line's
 * lock held. All are slow paths: a poll, a timer expiry, a reschedule
 * after a defence's state moved, free_irq; none runs on a healthy
 * interrupt's path (note_interrupt() is the one direct call up there).
 */
struct irq_defence {
	const char *name;  /* "flood", "expect", "watch" */
	unsigned int why;  /* its IRQ_TRACE_WHY_* bit: the trace says which defence wanted a poll */
	/* When it next wants the line polled at @now (0: not at all); asked by every reschedule. */
	uint64_t (*next_poll)(struct irq_desc *desc, uint64_t now);
	/* The poll timer fired at @now, before any poll: do what is due by @due_by (now plus the timer's lateness). */
	void (*expired)(struct irq_desc *desc, uint64_t now, uint64_t due_by);
	/* The timer's poll of the line ran, from @poll_ns, and looked at the device (not left to a pending interrupt). */
	void (*polled)(struct irq_desc *desc, uint64_t poll_ns);
	/* After that poll, the next one was worked out (next_poll asked): state kept for that answer may age now. */
	void (*replanned)(struct irq_desc *desc);
	/* @action leaves the line (free_irq): its state in this defence ends. */
	void (*action_removed)(struct irq_desc *desc, struct irqaction *action);
	/* The line's last action left: forget the line's state (since-boot counts excepted). */
	void (*line_reset)(struct irq_desc *desc);
};

/* The most defences a table may hold (a bound for the walks; the build has at most three). */
#define IRQ_DEFENCES_MAX 8

/* Each defence's entry (layer 3), named only by the assembly (policy.c), which builds the table. */
extern const struct irq_defence irq_defence_flood, irq_defence_expect, irq_defence_watch;

/*
 * __irq_sched_init - the scheduler's table of defences, NULL-terminated, in
 * the order they are asked and told (irq_core_init, policy.c; at boot
 * before any line has an action, so a plain pointer is enough). poll.c.
 */
void __irq_sched_init(const struct irq_defence *const *table);

/* The earlier of two poll times, 0 meaning "no poll wanted" (the defences' next_poll answers). */
static inline uint64_t irq_poll_earliest(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

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
/*
 * __irq_tick_reset - no tick, empty set (irq_defences_core_init); @hooks:
 * what the tick's look asks of expecting, kept for good (written at boot
 * before any tick, so a plain pointer is enough).
 */
void __irq_tick_reset(const struct irq_tick_hooks *hooks);
#else
static inline void __irq_tick_reset(const struct irq_tick_hooks *hooks)
{
	(void)hooks;
}
#endif

/* ---- poll.c: what the scheduler gives the defences, the core's hooks and the assembly ---- */

/* IRQ_POLL_COUNT - count one of the scheduler's host-only evidence counters (struct irq_defence_line). */
#ifdef IRQ_POLL_WANT_CHECK
#define IRQ_POLL_COUNT(field) ((field)++)
#else
#define IRQ_POLL_COUNT(field) ((void)0)
#endif


/* irq_poll_timer_expired - the line's poll timer fired (irq_sched_hooks' callback). CONTEXT: timer context. */
void irq_poll_timer_expired(struct irq_desc *desc);

/*
 * __irq_poll_reschedule - (re)arm the line's poll timer for the earliest
 * time any defence wants it polled, or cancel it when none does. Lock held.
 */
void __irq_poll_reschedule(struct irq_desc *desc, uint64_t now);

/* __irq_poll_gap - the gap of the next fast poll of a broken line (adaptive or fixed). Lock held. */
uint64_t __irq_poll_gap(const struct irq_desc *desc, uint64_t base_ns);

/*
 * irq_fixup_try_others - irqfixup: an interrupt of @desc was unclaimed;
 * poll every other line with shared actions. CONTEXT: the owner of @desc's
 * run (note_interrupt), no lock held. RETURNS whether some handler claimed work.
 */
bool irq_fixup_try_others(struct irq_desc *desc);

/* Hooks of manage.c (through irq_sched_hooks): an action joined / is leaving the line. Lock held. */
void __irq_defences_action_added(struct irq_desc *desc, struct irqaction *action);
void __irq_defences_action_removed(struct irq_desc *desc, struct irqaction *action);

#endif /* IRQ_SCHED_H */
