/*
 * trace_filter.h - PRIVATE to kernel/irq/ (host unit tests of kernel/irq excepted):
 * the event trace's filter, split out of internals.h (issue 32,
 * docs/irq-layers.md): its state is trace_ring.c's, which the recording
 * reads; trace.c sets it and reports it; chip.c asks it before the traced
 * copy of a flow. Included by those three.
 *
 * Layer 0, a private header of the base: may use layer 0 only (docs/irq-layers.md).
 */
#ifndef IRQ_TRACE_FILTER_H
#define IRQ_TRACE_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "irq_config.h"

/* The filter's state (trace_ring.c), set by trace.c, read by the recording. */
extern uint32_t irq_trace_classes;               /* IRQ_TCLASS_* bits recorded */
extern uint8_t irq_trace_line_sel[IRQ_NR_LINES]; /* 1 = record this line's events */
extern uint32_t irq_trace_bad_cpu;               /* events from a CPU number >= IRQ_NR_CPUS */

/* irq_trace_line_selected - whether the trace's filter lets line @irq through (trace_ring.c). */
bool irq_trace_line_selected(unsigned int irq);

#endif /* IRQ_TRACE_FILTER_H */
