/*
 * internals.h - PRIVATE to kernel/irq/: nothing outside this directory may
 * include it (host unit tests of kernel/irq excepted). Drivers use
 * <irq/interrupt.h>, controllers <irq/irqchip.h>, the shell <irq/stats.h>.
 *
 * The line descriptor, the status flags, and the functions the parts of the
 * core use to talk to each other:
 *   irqdesc.c  descriptor table, chip/flow/trigger setup, action pool
 *   manage.c   driver API: request/free/enable/disable/synchronize
 *   chip.c     flow handlers (edge, level, fasteoi) and chip-call helpers
 *   handle.c   running the handlers, replay, polls, generic_handle_irq
 *   spurious.c note_interrupt: accounting, and where the defences plug in
 *   stats.c    statistics for the shell
 *
 * Locking: each line has one lock, desc->lock, taken with interrupts
 * disabled. It protects every field of the descriptor and the action list.
 * A function named __something expects the caller to hold it. Handlers run
 * with the lock dropped; IRQS_INPROGRESS (set and cleared under the lock)
 * is what keeps a line's handlers from running twice at once, and whoever
 * set it "owns the run" until it clears it.
 */
#ifndef IRQ_INTERNALS_H
#define IRQ_INTERNALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "interrupt.h"
#include "irq_config.h"
#include "irqchip.h"
#include "port.h"
#include "stats.h"

/* Line status (desc->status), core-private. */
#define IRQS_INPROGRESS 0x0001u  /* the handlers are running (interrupt, replay or poll) */
#define IRQS_PENDING    0x0002u  /* an interrupt came while busy or disabled: replay it */
#define IRQS_DISABLED   0x0004u  /* depth > 0 (disable_irq, or no action): handlers must not run */
#define IRQS_POLLING    0x0008u  /* the current run is a poll, not an interrupt */
#define IRQS_REPLAY     0x0010u  /* a replay of the pending edge is scheduled (resend timer) */
#define IRQS_MASKED     0x0020u  /* the line is masked at its chip */
#define IRQS_KNOWN_MASK 0x003Fu  /* every bit above */

/* Per-line counters; see <irq/stats.h> for their meaning. */
struct irq_line_counters {
	uint64_t delivered;  /* under the lock, by the flow handlers */
	uint64_t handled;    /* by the run's owner (note_interrupt) */
	uint64_t unhandled;  /* by the run's owner, or under the lock when no action */
	uint64_t spurious;   /* under the lock */
	uint64_t polled;     /* by the run's owner */
};

/* One interrupt line. */
struct irq_desc {
	irq_port_lock_t lock;
	struct irq_data irq_data;        /* what the chip operations see */
	const struct irq_chip *chip;     /* NULL until irq_set_chip_and_handler */
	irq_flow_handler_t handle_irq;   /* flow handler; read and swapped atomically */
	struct irqaction *action;        /* first action; list linked by ->next */
	unsigned int nr_actions;         /* length of that list */
	unsigned int depth;              /* disable nesting; 1 while the line has no action */
	unsigned int status;             /* IRQS_* */
	unsigned int trigger;            /* IRQ_TYPE_* now programmed */
	uint64_t unbalanced_enables;     /* enable_irq at depth 0 (rate-limits the warning) */
	uint64_t bad_line_enables;       /* enable_irq on a line without action */
	/* The current run of the handlers is a poll. Set under the lock by the
	 * run's owner, read by it alone without the lock (note_interrupt). */
	bool run_is_poll;
	struct irq_line_counters stats;
	/* Replays a pending edge from timer context (after enable_irq, or when
	 * the replay loop hit IRQ_EDGE_REPLAY_LIMIT). Owned by handle.c. */
	struct irq_port_timer resend_timer;
	/* One poll timer per line for the defences (issue 4): when it fires,
	 * the line's actions run through irq_poll_line(). Arm and cancel it
	 * with irq_poll_schedule()/irq_poll_cancel(); the core never arms it. */
	struct irq_port_timer poll_timer;
};

/* The descriptor table (irqdesc.c). */
extern struct irq_desc irq_descs[IRQ_NR_LINES];

/* irq_to_desc - the descriptor of line @irq, or NULL when there is no such line. */
static inline struct irq_desc *irq_to_desc(unsigned int irq)
{
	return irq < IRQ_NR_LINES ? &irq_descs[irq] : NULL;
}

/* irq_desc_is_level - whether the line is level-triggered (lock held or stable). */
static inline bool irq_desc_is_level(const struct irq_desc *desc)
{
	return (desc->trigger & IRQ_TYPE_LEVEL_MASK) != 0;
}

/* irq_type_valid - @type is one edge kind (or both edges) or one level kind. */
static inline bool irq_type_valid(unsigned int type)
{
	return type == IRQ_TYPE_EDGE_RISING || type == IRQ_TYPE_EDGE_FALLING ||
	       type == IRQ_TYPE_EDGE_BOTH || type == IRQ_TYPE_LEVEL_HIGH || type == IRQ_TYPE_LEVEL_LOW;
}

/* irq_flags_to_type - the IRQ_TYPE_* that request_irq @flags ask for (0: keep). */
static inline unsigned int irq_flags_to_type(unsigned long flags)
{
	return (unsigned int)((flags & IRQF_TRIGGER_MASK) >> IRQ_TYPE_FROM_IRQF_SHIFT);
}

/* The action list is walked without the lock, so links are published in order. */
static inline struct irqaction *irq_action_load(struct irqaction *const *link)
{
	return __atomic_load_n(link, __ATOMIC_ACQUIRE);
}

static inline void irq_action_store(struct irqaction **link, struct irqaction *action)
{
	__atomic_store_n(link, action, __ATOMIC_RELEASE);
}

/*
 * irq_report_due - rate limit for repeated warnings: true for the 1st, 2nd,
 * 4th, 8th ... occurrence (@count is the number of occurrences so far,
 * including this one).
 */
static inline bool irq_report_due(uint64_t count)
{
	return count != 0 && (count & (count - 1)) == 0;
}

/* ---- irqdesc.c ---------------------------------------------------------- */

/* irq_flow_fits_chip - whether @chip has the operations @flow calls. */
bool irq_flow_fits_chip(const struct irq_chip *chip, irq_flow_handler_t flow);

/* irq_action_alloc - a zeroed action from the pool, or NULL. CONTEXT: no desc lock held. */
struct irqaction *irq_action_alloc(void);

/* irq_action_release - give a pooled action back. CONTEXT: no desc lock held. */
void irq_action_release(struct irqaction *action);

/*
 * __irq_set_type - program trigger @type at the chip (even if it is the type
 * recorded already) and record it. A chip without set_type accepts only the
 * type it has. RETURNS 0 or the chip's negative error (-EINVAL when the
 * chip cannot change the type). Logs nothing; the caller knows who asked.
 */
int __irq_set_type(struct irq_desc *desc, unsigned int type);

/* ---- chip.c ------------------------------------------------------------- */

/* Chip calls that keep IRQS_MASKED true to the hardware. Lock held. */
void __irq_mask(struct irq_desc *desc);
void __irq_unmask(struct irq_desc *desc);
void __irq_ack(struct irq_desc *desc);
void __irq_mask_ack(struct irq_desc *desc);
void __irq_eoi(struct irq_desc *desc);

/* ---- handle.c ----------------------------------------------------------- */

/*
 * __handle_irq_event - run the line's actions once: set IRQS_INPROGRESS,
 * drop the lock (restoring *@flags), call every action, call
 * note_interrupt(), retake the lock (updating *@flags), clear
 * IRQS_INPROGRESS. An interrupt run (not IRQS_POLLING) consumes
 * IRQS_PENDING. CONTEXT: lock held, IRQS_INPROGRESS clear, interrupts
 * disabled. RETURNS IRQ_HANDLED when any action claimed it.
 */
irqreturn_t __handle_irq_event(struct irq_desc *desc, unsigned long *flags);

/*
 * __irq_finish_pending - after a run of the handlers: deal with interrupts
 * that came meanwhile (IRQS_PENDING). An edge is replayed by running the
 * handlers again (at most IRQ_EDGE_REPLAY_LIMIT times, then the resend
 * timer takes over); for a level line the pending mark is dropped, because
 * the line stays asserted and unmasking re-delivers it. Finally unmasks the
 * line if it was masked and is enabled. A disabled line keeps its pending
 * edge for enable_irq. CONTEXT: lock held, IRQS_INPROGRESS clear.
 */
void __irq_finish_pending(struct irq_desc *desc, unsigned long *flags);

/*
 * __irq_enable_line - the line's depth just reached 0 (enable_irq, or the
 * first request): clear IRQS_DISABLED, unmask, and schedule the replay of
 * an edge that came while it was off. CONTEXT: lock held, line has actions.
 */
void __irq_enable_line(struct irq_desc *desc);

/* __irq_schedule_resend - replay the pending edge soon, from timer context. Lock held. */
void __irq_schedule_resend(struct irq_desc *desc);

/*
 * __irq_account_no_action - an interrupt found no action: count it as
 * unhandled and spurious and warn (rate-limited). The caller has masked
 * the line. CONTEXT: lock held, IRQS_INPROGRESS clear.
 */
void __irq_account_no_action(struct irq_desc *desc);

/*
 * irq_poll_line - run the actions of @desc exactly as an interrupt would
 * (same exclusion, same accounting through note_interrupt, with
 * IRQS_POLLING set), without the chip being involved. An interrupt that
 * arrives during the poll is held pending and replayed right after it.
 * CONTEXT: interrupt or timer context (interrupts disabled), lock not held.
 * RETURNS IRQ_HANDLED or IRQ_NONE when the actions ran; -EBUSY when the
 * handlers were already running (the poll is skipped); -ENOENT when the
 * line has no action; -EAGAIN when it is disabled.
 */
int irq_poll_line(struct irq_desc *desc);

/* irq_poll_schedule - arm the line's poll timer to poll it at @at_ns. CONTEXT: any. */
void irq_poll_schedule(struct irq_desc *desc, uint64_t at_ns);

/* irq_poll_cancel - stop the poll timer. CONTEXT: any. RETURNS whether it was pending. */
bool irq_poll_cancel(struct irq_desc *desc);

/*
 * irq_wait_idle - wait, spinning with the lock dropped, until the line's
 * handlers do not run (IRQS_INPROGRESS clear). Panics after
 * IRQ_SYNC_TIMEOUT_NS, naming @caller. CONTEXT: thread context, lock not held.
 */
void irq_wait_idle(struct irq_desc *desc, const char *caller);

/* irq_desc_timers_init - set up the line's resend and poll timers (irq_core_init). */
void irq_desc_timers_init(struct irq_desc *desc);

/* ---- spurious.c ---------------------------------------------------------- */

/*
 * note_interrupt - called after every run of a line's handlers with their
 * combined result (IRQ_HANDLED if any action returned it): interrupts,
 * replays and polls (desc->run_is_poll) alike. Does the line's accounting;
 * the defences of issue 4 plug in here.
 * CONTEXT: the owner of the run: IRQS_INPROGRESS set by the caller, the
 * lock NOT held (take it to change the line's state), interrupts disabled.
 */
void note_interrupt(struct irq_desc *desc, irqreturn_t ret);

/* ---- stats.c ------------------------------------------------------------- */

/* irq_flow_name - "edge", "level", "fasteoi", "custom" or "none". */
const char *irq_flow_name(irq_flow_handler_t flow);

#endif /* IRQ_INTERNALS_H */
