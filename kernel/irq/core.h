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

#endif /* IRQ_CORE_H */
