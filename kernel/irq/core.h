/*
 * core.h - PRIVATE to kernel/irq/ (host unit tests of kernel/irq excepted):
 * the dispatch core's own inline helpers, split out of internals.h so that
 * the base header names nothing of a layer above it (issue 32,
 * docs/irq-layers.md).
 * Layer 1, the dispatch core's private header: may use layers 0-1.
 * What it holds: irq_to_desc() and irq_stat_inc(), which read the tables
 * of desc_table.c (the one file of layer 1 that does not include this
 * header), and the hooks the core calls up through. Included by the files
 * that look a line up, count on it or run its handlers; the base files of
 * layer 0 (tunables.c, trace_ring.c) do not.
 */
#ifndef IRQ_CORE_H
#define IRQ_CORE_H

#include "internals.h"
#include "policy.h"
#include "trace.h"

/* ---- desc_table.c: the descriptor table and the per-CPU counters --------- */

/* The descriptor table (desc_table.c). */
extern struct irq_desc irq_descs[IRQ_NR_LINES];

/* irq_to_desc - the descriptor of line @irq, or NULL when there is no such line. */
static inline struct irq_desc *irq_to_desc(unsigned int irq)
{
	return irq < IRQ_NR_LINES ? &irq_descs[irq] : NULL;
}

/*
 * [CPU][line]: one CPU's counters of every line lie together, so two CPUs
 * counting interrupts of one line do not write the same cache lines.
 */
extern struct irq_cpu_counters irq_cpu_stats[IRQ_STAT_SLOTS][IRQ_NR_LINES];

/* __irq_stat_fold - a 32-bit slot's top bit is set: move it into its 64-bit part. desc_table.c. */
void __irq_stat_fold(struct irq_desc *desc, struct irq_cpu_counters *slot, enum irq_stat which, bool lock_held);

/*
 * irq_stat_inc - one more on counter @which of line @desc, in the slot of
 * the CPU running this (interrupts disabled: the number is stable).
 * @lock_held: whether the caller holds desc->lock (a fold takes it
 * otherwise).
 * Lock-free, and no atomic read-modify-write needed: a line's counters are
 * only ever written under its lock (delivered, spurious) or by the owner
 * of its run (handled, unhandled, polled: IRQS_INPROGRESS, set and cleared
 * under the lock), so two writes of one line's slot never overlap, even
 * from two CPUs sharing a slot (an out-of-range number), and each is ordered after
 * the one before by the lock. A relaxed load and a relaxed store of the
 * new value therefore lose nothing, and a reader on another CPU, which
 * holds no lock that orders it, sees the old or the new value, each right
 * at some instant (the counters only grow): no data race, no torn value.
 * No other ordering is promised or needed: the counters are statistics,
 * and the defences that compare them (__irq_stat_sum) do so under the lock.
 */
static inline __attribute__((always_inline)) void irq_stat_inc(struct irq_desc *desc, enum irq_stat which,
								bool lock_held)
{
	unsigned int cpu = irq_port_cpu_id();
	struct irq_cpu_counters *slot;
	irq_stat_t v;

	slot = &irq_cpu_stats[cpu & (IRQ_STAT_SLOTS - 1)][desc->irq_data.irq];
	v = __atomic_load_n(&slot->n[which], __ATOMIC_RELAXED) + 1;
	__atomic_store_n(&slot->n[which], v, __ATOMIC_RELAXED);
	if (which == IRQ_STAT_UNHANDLED)  /* a constant at every call: the test is compiled away */
		__atomic_fetch_add(&desc->unhandled_word, 1, __ATOMIC_RELAXED);  /* see struct irq_desc */
	if (IRQ_STAT_FOLDS && __builtin_expect(v >> (sizeof(irq_stat_t) * 8 - 1), 0))
		__irq_stat_fold(desc, slot, which, lock_held);
}

/*
 * struct irq_core_hooks - what the dispatch core calls above itself, only
 * through these pointers, which the assembly gives it (irq_core_init,
 * policy.c, which fills them with the scheduler's and the defences'
 * functions), so that no file of layer 1 names a function of a layer
 * above. All are slow paths: a poll timer's expiry, request_irq, free_irq,
 * and the end of a poll's run that found expected work. The one call up
 * on the quick path, note_interrupt() (handle.c -> spurious.c), stays
 * direct: it is the layer check's one sanctioned call (tools/layers/
 * layers.py, SANCTIONED; docs/irq-layers.md).
 */
struct irq_core_hooks {
	/* The line's poll timer fired (its callback, given to irq_port_timer_init). Timer context. */
	void (*poll_timer_fn)(void *desc);
	/* An action joined the line (request_irq). Lock held. */
	void (*action_added)(struct irq_desc *desc, struct irqaction *action);
	/* An action is leaving the line (free_irq): its defences' state ends. Lock held. */
	void (*action_removed)(struct irq_desc *desc, struct irqaction *action);
	/*
	 * A poll's run is over and claimed expected work (desc->def.poll_claims_open):
	 * expecting judges those claims (__irq_expect_poll_done). Lock held.
	 */
	void (*poll_claims_done)(struct irq_desc *desc, uint64_t now);
};

/*
 * __irq_hooks - the hooks the core was given (desc_table.c). Written once by
 * __irq_descs_init, at boot before any line has an action or a timer, and
 * only read afterwards; the port's locks and timer arming order that write
 * before every later read, so a plain pointer is enough.
 */
extern const struct irq_core_hooks *__irq_hooks;

/* __irq_descs_init - the dispatch core's part of irq_core_init() (irqdesc.c), with the hooks to call up through. */
void __irq_descs_init(const struct irq_core_hooks *hooks);

/*
 * The dispatch core's own calls between its files (irqdesc.c, chip.c, handle.c),
 * and the one call up by name, note_interrupt() (spurious.c: docs/irq-layers.md,
 * "The sanctioned call"); moved here from internals.h (issue 32).
 */

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

/*
 * irq_trace_run_flow - generic_handle_irq's path when tracing is on
 * (trace.h): irq_entry, the traced copy of @flow, irq_exit. CONTEXT:
 * interrupt context, as a flow handler.
 */
void irq_trace_run_flow(struct irq_desc *desc, irq_flow_handler_t flow);



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
/* The same with trace events (the copy traced interrupts and polls run, trace.h). */
irqreturn_t __handle_irq_event_traced(struct irq_desc *desc, unsigned long *flags);

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
void __irq_finish_pending_traced(struct irq_desc *desc, unsigned long *flags);

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
 * IRQS_POLLING set); the chip is only asked irq_pending. An interrupt that
 * arrives during the poll is held pending and replayed right after it.
 * CONTEXT: interrupt or timer context (interrupts disabled), lock not held.
 * RETURNS IRQ_HANDLED or IRQ_NONE when the actions ran; -EBUSY when the
 * handlers were already running (the poll is skipped); -ENOENT when the
 * line has no action; -EAGAIN when it is disabled; -EINPROGRESS when the
 * chip says the line's interrupt is pending (irq_chip::irq_pending) and the
 * poll left the work to it, running no handler (once per delivery).
 */
int irq_poll_line(struct irq_desc *desc);

/* irq_poll_line_traced - irq_poll_line between poll_start (@why: IRQ_TRACE_WHY_*) and poll_end events. */
int irq_poll_line_traced(struct irq_desc *desc, unsigned int why);

/*
 * irq_poll_line_at - irq_poll_line_traced by a caller that has just read
 * the clock (@now_ns, nonzero): the run's clock (__irq_run_now) starts from
 * that reading instead of none, so the run's handlers read no clock for
 * what needs the time of the poll (unexpect_irq of a completion it found).
 * With @locked (not NULL) the caller holds the line's lock, its
 * irq_port_lock_irqsave flags in *@locked, and holds it again on return
 * (the run in between lets go of it as any run does): for the poll timer,
 * whose bookkeeping before and after the poll needs the lock anyway, one
 * lock round per poll instead of three.
 */
int irq_poll_line_at(struct irq_desc *desc, unsigned int why, uint64_t now_ns, unsigned long *locked);

/*
 * __irq_run_now - the time, for the owner of the line's current run the
 * run's clock: read once and shared by unexpect_irq, expect_irq and
 * note_interrupt of that run, so an interrupt that completes one command
 * and starts the next reads the clock once, not three times. It is at most the run's length old (the
 * run's handlers, with interrupts off); callers that need the time of
 * this instant (expect_irq's start) use __irq_run_now_fresh.
 *
 * Ownership without the lock: run_clock_cpu is this CPU's number + 1 only
 * while this CPU owns the run (set under the lock with IRQS_INPROGRESS,
 * cleared by the owner before it lets go), so another CPU never takes it
 * for its own: it sees 0 or the owner's number, never its own stale one,
 * since it cleared that itself after its last run. A nested interrupt on
 * the owner's CPU (ports with priority nesting) may read the clock of the
 * run it interrupted, earlier than now by at most that run's length.
 * CONTEXT: any.
 */
static inline bool __irq_run_clock_mine(const struct irq_desc *desc)
{
	return __atomic_load_n(&desc->run_clock_cpu, __ATOMIC_RELAXED) == irq_port_cpu_id() + 1;
}

static inline uint64_t __irq_run_now(struct irq_desc *desc)
{
	uint64_t now;

	if (!__irq_run_clock_mine(desc))
		return irq_port_now_ns();
	if (desc->run_clock_ns)
		return desc->run_clock_ns;
	now = irq_port_now_ns();
	desc->run_clock_ns = now;
	return now;
}

/*
 * __irq_run_clock_owner - __irq_run_now for a caller that owns the run by
 * contract (note_interrupt, the end of the run in handle.c): no ownership
 * test. CONTEXT: the owner of the run.
 */
static inline uint64_t __irq_run_clock_owner(struct irq_desc *desc)
{
	if (!desc->run_clock_ns)
		desc->run_clock_ns = irq_port_now_ns();
	return desc->run_clock_ns;
}

/* __irq_run_now_fresh - a new reading, kept as the run's clock when this CPU owns the run. CONTEXT: any. */
static inline uint64_t __irq_run_now_fresh(struct irq_desc *desc)
{
	uint64_t now = irq_port_now_ns();

	if (__irq_run_clock_mine(desc))
		desc->run_clock_ns = now;
	return now;
}

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

/*
 * irq_desc_timers_init - set up the line's resend timer and its poll timer,
 * which calls @poll_fn (the scheduler's, core.h's hooks). irq_core_init.
 */
void irq_desc_timers_init(struct irq_desc *desc, void (*poll_fn)(void *desc));

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

/* __irq_polls_allowed - whether a poll may run the handlers: enabled, or off only for flooding. Lock held. */
static inline bool __irq_polls_allowed(const struct irq_desc *desc)
{
	return !(desc->status & IRQS_DISABLED) || (irq_line_flood_off(desc) && desc->depth == 0);
}

#endif /* IRQ_CORE_H */
