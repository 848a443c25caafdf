/*
 * storm.h - PRIVATE to kernel/irq/ (host unit tests of kernel/irq excepted):
 * what the claimed-storm defence (storm.c) gives the rest of kernel/irq:
 * its calls from note_interrupt()'s accounting (spurious.c), the state of
 * its CPU-time test (which the accounting's quick path reads), and the
 * flow a timed line really has (stats.c). Included by storm.c, spurious.c
 * and stats.c.
 *
 * Layer 3, a defence's private header: may use layers 0-2 (docs/irq-layers.md).
 */
#ifndef IRQ_STORM_H
#define IRQ_STORM_H

#include "internals.h"
#include "policy.h"

/* The CPU-time test's state in a window (def.storm_cpu_state; storm.c says how it runs). */
enum irq_storm_cpu_state {
	IRQ_STORM_CPU_IDLE = 0,   /* this window: not timed yet */
	IRQ_STORM_CPU_TIMING,     /* the stand-in is timing runs */
	IRQ_STORM_CPU_KNOWN,      /* storm_cpu_limit holds this window's answer */
};

#if IRQ_STORM
/*
 * irq_storm_account - one interrupt (not a poll) that is no part of a
 * flood: count it into the storm window; too many is a storm, offered to
 * the drivers, else throttled. CONTEXT: the owner of the run, lock not held.
 */
void irq_storm_account(struct irq_desc *desc, const struct irq_policy *p, bool claimed, uint64_t now);

/* irq_storm_cpu_window - a new storm window: the CPU-time test starts over. CONTEXT: the owner of the run. */
void irq_storm_cpu_window(struct irq_desc *desc);

/*
 * irq_storm_quick_limits - the quick path's claimed-interrupt limits
 * lowered to where the CPU-time test must look (profiles with
 * storm_max_claimed and storm_cpu_pct). CONTEXT: the owner of the run.
 */
void irq_storm_quick_limits(struct irq_desc *desc, const struct irq_policy *p);

/* irq_storm_timed_flow - the line's flow while its runs are timed (irq_storm_flow_of knows it). */
void irq_storm_timed_flow(struct irq_desc *desc);
#endif

/* irq_storm_flow_of - @flow, or the flow it stands in for while the line's runs are timed (storm.c). */
irq_flow_handler_t irq_storm_flow_of(const struct irq_desc *desc, irq_flow_handler_t flow);

#endif /* IRQ_STORM_H */
