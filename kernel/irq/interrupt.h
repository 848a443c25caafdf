/*
 * interrupt.h - the driver side of the portable interrupt core (kernel/irq/):
 * register a handler for an interrupt line, remove it, and switch the line
 * off and on. Include as <irq/interrupt.h>. The names and meanings follow
 * Linux's <linux/interrupt.h> so that drivers port both ways.
 *
 * Handler context rule: a handler runs with interrupts disabled on its CPU,
 * from an interrupt (generic_handle_irq), from a replay of an interrupt that
 * arrived while the line was busy or disabled, or from a poll of the line
 * (a timer). The core guarantees that one line's handlers never run twice
 * at the same time. It holds no lock while a handler runs, so a handler may
 * call enable_irq(), disable_irq_nosync() and request/free of other lines,
 * but must not call free_irq(), disable_irq() or synchronize_irq() on its
 * own line: those wait for the handler itself to finish (the core panics
 * after IRQ_SYNC_TIMEOUT_NS rather than hang silently).
 *
 * Errors are negative Linux/POSIX numbers (see irq_errno.h).
 * Interrupt-controller code uses <irq/irqchip.h>; statistics: <irq/stats.h>.
 */
#ifndef IRQ_INTERRUPT_H
#define IRQ_INTERRUPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "irq_errno.h"

/* What a handler tells the core about one interrupt. */
typedef enum irqreturn {
	IRQ_NONE = 0,     /* not my device's interrupt (or nothing to do) */
	IRQ_HANDLED = 1,  /* my device raised it and I serviced it */
} irqreturn_t;

/* A handler: @irq is the line, @dev_id the cookie given to request_irq. */
typedef irqreturn_t (*irq_handler_t)(unsigned int irq, void *dev_id);

/* request_irq() flags. */
#define IRQF_SHARED          0x0001u  /* line may be shared with other actions */
#define IRQF_TRIGGER_RISING  0x0010u  /* edge, low to high */
#define IRQF_TRIGGER_FALLING 0x0020u  /* edge, high to low */
#define IRQF_TRIGGER_HIGH    0x0040u  /* level, active high */
#define IRQF_TRIGGER_LOW     0x0080u  /* level, active low */
#define IRQF_TRIGGER_MASK    0x00F0u  /* 0 = keep the line's current type */

struct irq_expect;  /* issue 4: an expect token (kernel/irq/spurious.c) */

/*
 * struct irqaction - one registered handler. It is complete here only so
 * that a driver can give request_irq_static() storage
 * ("static struct irqaction uart_action;"); every field is private to
 * kernel/irq. Writers: request/free under the line's lock; the counters by
 * whoever runs the line's handlers (one at a time, see IRQS_INPROGRESS).
 */
struct irqaction {
	irq_handler_t handler;        /* the driver's function */
	void *dev_id;                 /* its cookie, the key for free_irq */
	const char *name;             /* for statistics and messages */
	unsigned long flags;          /* IRQF_* as requested */
	struct irqaction *next;       /* next action of the line (published with release order) */
	unsigned int irq;             /* line it is registered on */
	bool from_pool;               /* storage belongs to the core's pool */
	uint64_t handled;             /* interrupts (and replays) this action claimed */
	uint64_t polled_handled;      /* polls of the line this action claimed */
	uint64_t bad_returns;         /* returns other than IRQ_NONE/IRQ_HANDLED */
	/*
	 * Storage for the defences of issue 4 (expecting and watching), owned
	 * by kernel/irq/spurious.c: the core zeroes it at request time and
	 * never reads it.
	 */
	struct irq_expect *expects;   /* expect tokens bound to this action */
};

/*
 * request_irq - register @handler for line @irq and, if it is the line's
 * first action, set the trigger type from @flags and unmask the line.
 * The action comes from the core's static pool (IRQ_NR_ACTIONS).
 * @flags: IRQF_SHARED and at most one IRQF_TRIGGER_* bit.
 * @name: shown in statistics and messages (not copied; must stay valid).
 * @dev_id: cookie passed to the handler and to free_irq; required when shared.
 * CONTEXT: thread context; may spin briefly on the line's lock.
 * RETURNS 0; -EINVAL (no such line, the line has no interrupt controller,
 * NULL handler, unknown flags, more than one trigger kind, shared without
 * dev_id, a trigger the chip refuses); -EBUSY (the line is used
 * in an incompatible way: one side not shared, another trigger type, or
 * @dev_id already registered there); -ENOSPC (IRQ_MAX_SHARED actions on
 * the line); -ENOMEM (the pool is exhausted). Each refusal logs one message
 * naming both parties.
 */
int request_irq(unsigned int irq, irq_handler_t handler, unsigned long flags,
		const char *name, void *dev_id);

/*
 * request_irq_static - like request_irq(), but the action lives in
 * @storage, owned by the caller (static memory; no pool needed). @storage
 * must stay valid and untouched until free_irq() returned, and must not be
 * registered already. RETURNS as request_irq(), -EINVAL for NULL @storage
 * and -EBUSY when @storage is already registered on a line; never -ENOMEM.
 */
int request_irq_static(struct irqaction *storage, unsigned int irq, irq_handler_t handler,
		       unsigned long flags, const char *name, void *dev_id);

/*
 * free_irq - remove the action of line @irq registered with @dev_id; masks
 * the line when it was the last one. Does not return while that handler, or
 * a poll or replay of the line, is still running anywhere. An unknown
 * line/dev_id pair is logged and ignored.
 * CONTEXT: thread context, not from a handler of the same line.
 */
void free_irq(unsigned int irq, void *dev_id);

/*
 * disable_irq_nosync - mask line @irq at its controller (the first of
 * nested disables) and stop running its handlers; does not wait. Nests:
 * each disable needs one enable_irq. Edges that arrive while disabled are
 * remembered and replayed once by the last enable_irq.
 * CONTEXT: any, including the line's own handler.
 */
void disable_irq_nosync(unsigned int irq);

/*
 * disable_irq - disable_irq_nosync(), then wait until no handler of the
 * line runs anywhere. CONTEXT: thread context, not from the line's handler.
 */
void disable_irq(unsigned int irq);

/*
 * enable_irq - undo one disable; the last one unmasks the line and replays
 * an edge that arrived meanwhile. An enable without a disable is logged
 * (rate-limited) and ignored: the depth never underflows.
 * CONTEXT: any.
 */
void enable_irq(unsigned int irq);

/*
 * synchronize_irq - wait until no handler of line @irq (interrupt, replay
 * or poll) that started before the call is still running.
 * CONTEXT: thread context, not from the line's handler.
 */
void synchronize_irq(unsigned int irq);

/*
 * Issue 4 (the defences) adds here: init_irq_expect(), expect_irq(),
 * unexpect_irq() and watch_irq(), implemented in kernel/irq/spurious.c.
 */

#endif /* IRQ_INTERRUPT_H */
