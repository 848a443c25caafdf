/*
 * desc_table.c - the dispatch core's tables: the line descriptors
 * (irq_descs, which irq_to_desc() indexes), the hooks the core was given
 * (__irq_hooks), and the per-CPU line counters (irq_cpu_stats, which
 * irq_stat_inc() writes on the dispatch path) with their fold, their sum
 * and their reset. Data and the helpers that read it, nothing more: core.h's
 * inline helpers read these tables, so the file that defines them includes
 * no header that reads them (no circle of files: docs/irq-layers.md).
 * Setting lines up is irqdesc.c's.
 *
 * Layer 1, the dispatch core's bottom: may use layer 0 only.
 */
#include "internals.h"

/* The descriptor table (core.h: irq_to_desc). */
struct irq_desc irq_descs[IRQ_NR_LINES];

/* What the core calls above itself (core.h: struct irq_core_hooks), set by __irq_descs_init (irqdesc.c). */
const struct irq_core_hooks *__irq_hooks;

/*
 * The per-CPU line counters (internals.h, irq_stat_inc, which writes them on
 * the dispatch path): the table, the fold of a 32-bit word into its 64-bit
 * sum, the sum over the CPUs, and the reset at irq_core_init. The readers
 * are stats.c's and health.c's.
 */
struct irq_cpu_counters irq_cpu_stats[IRQ_STAT_SLOTS][IRQ_NR_LINES];

void __irq_stat_fold(struct irq_desc *desc, struct irq_cpu_counters *slot, enum irq_stat which, bool lock_held)
{
#if IRQ_STAT_FOLDS
	unsigned long flags = 0;

	if (!lock_held)
		flags = irq_port_lock_irqsave(&desc->lock);
	/*
	 * Under the lock, which every reader holds: a reader sees the count
	 * in the word or in folded, never in both or neither. The slot's
	 * writes are serialised (irq_stat_inc), so nothing counts into the
	 * word between the load and the store.
	 */
	slot->folded[which] += __atomic_load_n(&slot->n[which], __ATOMIC_RELAXED);
	__atomic_store_n(&slot->n[which], 0, __ATOMIC_RELAXED);
	if (!lock_held)
		irq_port_unlock_irqrestore(&desc->lock, flags);
#else
	(void)desc;
	(void)slot;
	(void)which;
	(void)lock_held;
#endif
}

uint64_t __irq_slot_count(const struct irq_cpu_counters *slot, enum irq_stat which)
{
	uint64_t n = __atomic_load_n(&slot->n[which], __ATOMIC_RELAXED);

#if IRQ_STAT_FOLDS
	n += slot->folded[which];
#endif
	return n;
}

uint64_t __irq_stat_sum(const struct irq_desc *desc, enum irq_stat which)
{
	unsigned int cpu, irq = desc->irq_data.irq;
	uint64_t sum = 0;

	for (cpu = 0; cpu < IRQ_STAT_SLOTS; cpu++)
		sum += __irq_slot_count(&irq_cpu_stats[cpu][irq], which);
	return sum;
}

void irq_stats_reset(void)
{
	unsigned int cpu, irq;

	for (cpu = 0; cpu < IRQ_STAT_SLOTS; cpu++)
		for (irq = 0; irq < IRQ_NR_LINES; irq++)
			irq_cpu_stats[cpu][irq] = (struct irq_cpu_counters){ 0 };
}
