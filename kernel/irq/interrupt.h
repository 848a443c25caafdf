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
 *
 * Layer 0, the base: a public header; uses only irq_errno.h (docs/irq-layers.md).
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

/* What a driver's storm callback did about a storm of claimed interrupts. */
enum irq_storm_answer {
	IRQ_STORM_THROTTLE = 0,  /* nothing: the core masks the line and polls it (irq_set_storm_handler) */
	IRQ_STORM_SLOWED = 1,    /* the driver made its device interrupt less often */
};

/*
 * A storm callback: line @irq took @claimed interrupts in @window_ns, more
 * than the profile's bound (policy.h, storm_max_claimed): claimed ones, or
 * claimed ones mixed with unclaimed ones too few to be a flood.
 * @dev_id is the driver's cookie. CONTEXT: the line's interrupt, as its
 * handler (the line's runs exclude each other); quick, no sleeping, no
 * free_irq/disable_irq of this line. RETURNS what the driver did.
 */
typedef enum irq_storm_answer (*irq_storm_handler_t)(unsigned int irq, void *dev_id,
						     unsigned int claimed, uint64_t window_ns);

/* request_irq() flags. */
#define IRQF_SHARED          0x0001u  /* line may be shared with other actions */
#define IRQF_TIMER           0x0002u  /* the kernel's clock: never throttled as a storm for the CPU time it takes (its handler runs the timers, the defences' polls among them) */
#define IRQF_TRIGGER_RISING  0x0010u  /* edge, low to high */
#define IRQF_TRIGGER_FALLING 0x0020u  /* edge, high to low */
#define IRQF_TRIGGER_HIGH    0x0040u  /* level, active high */
#define IRQF_TRIGGER_LOW     0x0080u  /* level, active low */
#define IRQF_TRIGGER_MASK    0x00F0u  /* 0 = keep the line's current type */
/*
 * The device raises its next interrupt as soon as the handler takes the
 * current work (one byte per interrupt, the next loaded at once: the 8042
 * keyboard controller). A poll's find is then judged late only by the
 * line's interrupt pending *before* the handlers ran: one pending after
 * them is the next work's, not evidence that this work's interrupt was on
 * its way (kernel/irq/watch.c, docs/defences.md).
 */
#define IRQF_NEXT_ON_READ    0x0100u

struct irq_desc;    /* one per line; private to kernel/irq (internals.h) */

/*
 * struct irq_health_episode - a stretch of time during which a line or an
 * action runs on polling because its interrupts are not trustworthy
 * (kernel/irq/health.c). Private to kernel/irq; complete here because it
 * is embedded in struct irqaction.
 */
struct irq_health_episode {
	bool active;               /* an episode is under way */
	uint16_t cause;            /* IRQ_HEALTH_* of <irq/stats.h>: 6 bits today, 16 leave room */
	uint32_t episodes;         /* episodes since boot */
	uint64_t since_ns;         /* when it began */
	uint64_t last_remind_ns;   /* when it was last announced or reminded of */
	uint64_t polled_at_start;  /* completions by polling counted before it began */
};

/*
 * struct irq_cpu_mark - where the CPU a line is routed to stood when a poll
 * found work on the line, for the verdict on it, or when an expect opened,
 * for the verdict on a driver's time-out (kernel/irq/stall.c: a stalled
 * CPU is not a lost interrupt). Private; under the line's lock, but for
 * the expect's own mark, written by expect_irq (expect.c).
 */
struct irq_cpu_mark {
	uint64_t at_ns;            /* when it was taken */
	uint32_t progress;         /* irq_port_cpu_progress(cpu) then */
	uint16_t cpu;              /* the line's CPU then */
	bool here;                 /* taken on that CPU itself */
	bool late_poll;            /* by a poll timer that fired the standstill window late or more (stall.c): that CPU had not been running */
	uint32_t seen;             /* that CPU's count as the latest look saw it (__irq_cpu_stalled) */
	uint64_t seen_ns;          /* the first look that saw it so: from there on it stood still */
};

/*
 * struct irq_claim - completions of one expect token that polls found and
 * that await their verdict (kernel/irq/expect.c). More than one only while
 * the line's CPU had not yet shown that it ran since the first of them.
 * Private; under the line's lock.
 */
struct irq_claim {
	uint32_t n;                /* completions (0: none) */
	uint32_t unhandled;        /* the line's unclaimed interrupts (__irq_unhandled_word) at the first of them */
	uint64_t elapsed_ns;       /* how long after its expect_irq the latest was found */
	struct irq_cpu_mark mark;  /* the line's CPU at the latest of them */
	bool waited;               /* a verdict found that CPU not running: late ones are "late (CPU not running)" */
	bool next_irq;             /* a completion came by interrupt while they waited (the verdict is then unsure at worst) */
	bool in_poll;              /* the latest was found in the current poll's run (its pending sample after the handlers) */
	uint16_t busy_irqs;        /* the line's interrupts left to a run in progress (irq_desc::busy_irqs) at the first */
};

/*
 * struct irq_watch - IRQ watching state of one action (kernel/irq/watch.c).
 * Private; under the line's lock.
 */
struct irq_watch {
	unsigned int flags;        /* IRQ_WAT_* (internals.h) */
	uint64_t started_ns;       /* start of the current watch period */
	uint32_t nr_samples;       /* deliveries (by interrupt or poll) this period */
	uint32_t nr_polled;        /* of those, found by a poll */
	uint64_t seen_handled;     /* the action's counters when last looked at */
	uint64_t seen_polled;
	/* Deliveries polls found, awaiting the late verdict (watch_late_window_ns): */
	uint32_t late_pending;     /* found by polls since late_from_ns, not yet judged */
	uint64_t late_from_ns;     /* when the first of them was found: the window starts */
	uint64_t late_unhandled;   /* the line's unclaimed interrupts then (plus those used up) */
	struct irq_cpu_mark late_mark; /* the line's CPU at the first of them (no verdict before it ran: stall.c) */
	uint64_t late_delivered;   /* the line's delivered interrupts then */
	uint64_t late_handled;     /* this action's interrupts handled then (its own interrupt since: watch.c) */
	bool late_waited;          /* that CPU was found not running meanwhile: late ones are "late (CPU not running)" */
	uint16_t late_busy_irqs;   /* the line's interrupts left to a run in progress then (irq_desc::busy_irqs) */
	/* Since watch_irq (for the message when watching ends): */
	uint64_t since_ns;         /* when watch_irq started this watch */
	uint32_t total_samples;    /* deliveries counted */
	uint32_t total_polled;     /* of those, found by a poll with no interrupt after it */
	uint32_t total_late;       /* found by a poll, its interrupt came within the window */
	uint64_t late_since_boot;  /* late deliveries over every watch of this action (irqs) */
	uint64_t polled_since_boot; /* deliveries counted as polled over every watch (irqs) */
	uint64_t beat_since_boot;  /* of the late ones, found while the line's interrupt was pending (irq_pending) */
	uint64_t stalled_since_boot; /* late ones found while the line's CPU was not running (not judged) */
};

/*
 * struct irq_expect - an expect token (kernel/irq/expect.c). Complete here
 * only so that a driver can give init_irq_expect_static() storage
 * ("static struct irq_expect ata_expect;"); every field is private.
 * The state word is changed atomically (expect_irq/unexpect_irq run
 * without a lock); the list link and the binding under the line's lock.
 */
struct irq_expect {
	uint32_t magic;               /* IRQ_EXPECT_MAGIC once initialised */
	uint32_t state;               /* IRQ_EXP_* (internals.h) */
	struct irq_expect *next;      /* next token of the same action */
	struct irq_desc *desc;        /* the line */
	struct irqaction *action;     /* the action it is bound to; NULL once dead */
	unsigned int irq;             /* line number, for messages */
	uint64_t started_ns;          /* the latest expect_irq */
	uint64_t latency_avg_ns;      /* moving average of interrupt-delivered latency (0: none yet) */
	uint64_t first_poll_ns;       /* delay of the first poll after expect_irq while not verified */
	uint64_t first_polled_ns;     /* when the first poll of the current expect ran */
	struct irq_cpu_mark open_mark; /* the line's CPU when the latest expect_irq opened (a time-out's verdict: expect.c) */
	uint32_t first_hits;          /* completions found by the first poll since it last missed (irq_expect_learn_poll) */
	uint32_t verified_poll_ns;    /* delay of the safety poll while verified (0: slow poll only) */
	/*
	 * Completions polls found, awaiting their verdict (IRQ_EXP_CLAIM set
	 * while any): claims[0] the older, whose CPU mark no later find moves,
	 * claims[1] the later ones (expect.c, "A stalled CPU").
	 */
	struct irq_claim claims[2];
	/* A verified token's safety poll waiting for the line's CPU to run (tick_look.c, stall_gate): */
	uint64_t gate_started_ns;     /* the expect_irq (its started_ns) the wait is for (0: none) */
	struct irq_cpu_mark gate;     /* the line's CPU when its safety poll came due */
	uint32_t nr_good;             /* good deliveries towards the verify goal */
	uint32_t verify_goal;         /* this token's verify goal (0: the profile's): doubled by each distrust, up to expect_verify_goal_max */
	uint32_t verified_good;       /* good deliveries since it was last verified (a spell of verify_goal halves the goal) */
	uint32_t learn_skip;          /* verified: completions since the latest one learned (expect_verified_learn_every) */
	uint32_t nr_samples;          /* polled deliveries judged for quick mode (tejun2010) */
	uint32_t nr_quick;            /* of those, found by the first poll */
	uint64_t completions_irq;     /* completions delivered by interrupt */
	uint64_t completions_polled;  /* completions delivered by a poll */
	uint64_t completions_late;    /* of those, judged late: their interrupt came after the poll */
	uint64_t completions_unsure;  /* of those, followed by one delivered by interrupt: maybe late */
	uint64_t completions_beat;    /* of the late ones, found while the line's interrupt was pending (irq_pending) */
	uint64_t completions_stalled; /* found by polling, or timed out, while the line's CPU was not running: late, not judged */
	uint64_t gate_waits;          /* safety polls that waited for the line's CPU to run */
	uint64_t timeouts;            /* unexpect_irq(..., true) */
	uint32_t misuse;              /* misuses seen (rate-limits their reports) */
	uint32_t pool_state;          /* pool bookkeeping (expect.c) */
	uint32_t dead_seq;            /* order of death, for reusing pool tokens late */
};

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
	 * Storage for the defences of issue 4 (expect.c, watch.c, health.c):
	 * the core zeroes it at request time; it is under the line's lock.
	 */
	struct irq_expect *expects;   /* expect tokens bound to this action */
	unsigned int nr_expects;      /* length of that list */
	struct irq_watch watch;       /* IRQ watching */
	struct irq_health_episode health;  /* lost interrupts seen by expecting or watching */
	irq_storm_handler_t storm_handler; /* irq_set_storm_handler (NULL: none); read without the lock */
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
 * irq_set_storm_handler - @fn is asked first when line @irq has a storm
 * of claimed interrupts (more than the profile's storm_max_claimed in
 * storm_window_ns, claimed, or mixed with unclaimed ones too few for a
 * flood): a driver that can slow its
 * device down (interrupt moderation, a longer timer period) does so and
 * answers IRQ_STORM_SLOWED, and the line stays on interrupts; if the storm
 * goes on within storm_slow_grace_ns, or nobody slowed anything, the core
 * throttles the line (masked, polled every storm_poll_ns, re-enabled after
 * a back-off). NULL @fn removes the callback. The profiles tejun2010 and
 * mainline have no claimed-storm defence (never called there).
 * CONTEXT: thread context, after request_irq(@irq, ..., @dev_id).
 * RETURNS 0; -EINVAL for no such line or no action of @dev_id on it.
 */
int irq_set_storm_handler(unsigned int irq, void *dev_id, irq_storm_handler_t fn);

/*
 * irq_poll - poll line @irq now, as the defences' poll timer does: run its
 * handlers unless they run already (an interrupt's run, on this or another
 * CPU: counted as poll_busy, -EBUSY), the line is disabled (-EAGAIN) or its
 * interrupt is pending at the chip (-EINPROGRESS); an interrupt that comes
 * while the poll runs is replayed after it (counted as poll_raced). For a
 * driver or fault that knows when its device is due (drivers/ata's
 * `ata-race` fault aims it at the moment the interrupt arrives).
 * CONTEXT: any but the line's own handler; takes the line's lock.
 * RETURNS IRQ_HANDLED or IRQ_NONE (what the handlers said); -EINVAL (no
 * such line), -ENOENT (no action), -EBUSY, -EAGAIN, -EINPROGRESS.
 */
int irq_poll(unsigned int irq);

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

/* ==========================================================================
 * Lost interrupts: IRQ expecting and IRQ watching (kernel/irq/expect.c,
 * watch.c; the design essay is at the top of kernel/irq/spurious.c).
 * Both poll the line's handlers through its poll timer, so a handler that
 * uses them must cope with being called when its device has nothing to say
 * (return IRQ_NONE), exactly like a shared handler.
 * ========================================================================== */

/*
 * init_irq_expect - an expect token for the action registered on @irq with
 * @dev_id, from the core's pool (IRQ_NR_EXPECTS tokens). An action may
 * carry up to IRQ_EXPECTS_PER_ACTION tokens, each used independently (one
 * per outstanding command slot, say). The token dies with its action at
 * free_irq(); calls on it after that are reported and ignored.
 * CONTEXT: thread context.
 * RETURNS the token; NULL (with a message) when the pool is empty, there is
 * no such line or action, or the action has its most tokens; NULL (logged
 * once) while the defences are off (noirqdebug, or before they start) or
 * the profile has no expecting (irqpolicy=mainline). The calls below accept
 * NULL and do nothing with it.
 */
struct irq_expect *init_irq_expect(unsigned int irq, void *dev_id);

/*
 * init_irq_expect_static - like init_irq_expect(), in caller storage (for
 * users with static memory only). @storage must stay valid until the
 * action is freed and must not be a live token already.
 * RETURNS @storage, or NULL as init_irq_expect() (and for NULL @storage).
 */
struct irq_expect *init_irq_expect_static(struct irq_expect *storage, unsigned int irq, void *dev_id);

/*
 * expect_irq - the device is about to raise an interrupt for an operation
 * the driver started (call it before starting it). Until unexpect_irq(),
 * the line is polled if the interrupt does not come: soon (from the
 * latency this token has measured) while its interrupts are not trusted,
 * slowly (poll_slow_ns) once they are verified.
 * CONTEXT: any. Once verified and with the slow poll armed it takes no
 * lock and arms no timer. Expecting twice without unexpect_irq() is
 * reported (rate-limited) and restarts the expect.
 */
void expect_irq(struct irq_expect *exp);

/*
 * unexpect_irq - the expected event happened (@timedout false: call it
 * from the handler that found the completion, or right after it), or the
 * driver gave up waiting (@timedout true). A completion found by a poll or
 * a time-out makes the token distrust the line (poll sooner, and report
 * it); completions delivered by interrupt verify it. Without a matching
 * expect_irq() it is reported (rate-limited) and ignored; a time-out is
 * still counted.
 * CONTEXT: any; lock-free on the verified path.
 */
void unexpect_irq(struct irq_expect *exp, bool timedout);

/*
 * irq_expect_cpu_ran - ask it at a driver's own time-out, before
 * unexpect_irq(exp, true): whether the CPU the line's interrupt is routed
 * to has run since expect_irq() enough that an interrupt not taken is
 * lost (kernel/irq/stall.c: it finished stall_ran_irqs interrupts since
 * the core's mark of it). False: it did not run (a vCPU its host kept
 * off, an SMI, a CPU with interrupts off) or it is still inside the
 * line's handlers for the interrupt: the interrupt is late, not lost, and
 * the core counts the time-out so (docs/defences.md, "A stalled CPU").
 * Judged from the core's mark of that CPU as expect_irq() opened the
 * expect, whether or not a poll ran since, and from this ask's and the
 * earlier asks' looks at it: a CPU that ran early in the wait and then
 * stood still for stall_ns (2 ms) or two tick periods, whichever is longer,
 * up to now did not run lately - so a
 * driver asks now and then during a long wait too, not only at its
 * time-out. True where the core has no
 * evidence (no expect open, a NULL token, a profile without the test):
 * judged by time, as before. In every build.
 * CONTEXT: any but the line's handler; takes the line's lock briefly. The
 * token's driver only, serialized with its own expect_irq() (which writes
 * the mark without the line's lock), since each ask writes the mark's look
 * (stall.c): by program order, or by a lock the driver holds around both.
 */
bool irq_expect_cpu_ran(struct irq_expect *exp);

/*
 * watch_irq - check that the action of @irq registered with @dev_id gets
 * its interrupts, for drivers that cannot tell when to expect one: it is
 * polled slowly for a watch period; if polls find work the interrupt should
 * have delivered it is polled at the normal rate, and the period's ratio
 * decides (low: watching ends; middling: a longer wary period; high: bad,
 * watched and polled for good). Calling it again (after a driver time-out,
 * say) restarts watching. Unknown lines/actions are reported and ignored;
 * nothing happens while the defences are off.
 * CONTEXT: any (takes the line's lock briefly).
 */
void watch_irq(unsigned int irq, void *dev_id);

/*
 * watch_irq_keep - watch_irq() for good: for a device that interrupts when
 * its user acts (a keyboard, a mouse) and has no time-out to call
 * watch_irq() again from. Where a period's verdict would end watching
 * (healthy, recovered, too few deliveries to judge), the next period begins
 * at the slow rate instead; only a recovery is logged. A lost interrupt of
 * the device is then found by a watch poll (at most poll_slow_ns, 3 s,
 * after it) however long the device was quiet. watch_irq() on the action
 * later restarts the period and keeps it standing. Ends at free_irq().
 * CONTEXT: as watch_irq().
 */
void watch_irq_keep(unsigned int irq, void *dev_id);

#endif /* IRQ_INTERRUPT_H */
