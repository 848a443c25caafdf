/*
 * chip.c - the dispatcher and the flow handlers: generic_handle_irq(),
 * which the arch entry code calls, and how each kind of interrupt line is
 * acknowledged at its controller around the run of its handlers (the run
 * itself is handle.c's); also the chip calls outside the flows (__irq_mask
 * and the others: disable_irq, the flood defence), which keep the core's
 * idea of "masked" true. The chip calls themselves are inline, in
 * chip_ops.h, shared with handle.c's replay.
 *
 * Follows the flow model of Linux's genirq (Documentation/core-api/
 * genericirq.rst, "high-level IRQ flow handlers"); written for irqkit, with
 * docs/porting.md giving each flow as pseudo-code. See also handle.c (what
 * runs the handlers and replays), irqdesc.c (which flow a line gets).
 *
 * Edge lines latch one event per edge: acknowledge first so the next edge
 * is latched again, and never drop an edge that comes while the handlers
 * run or while the line is disabled - mark it pending and replay it.
 * Level lines stay asserted until the device is serviced: mask them while
 * the handlers run (else the CPU is interrupted again at once), unmask
 * after; a "pending" level interrupt needs no replay, the line says it.
 * Fasteoi lines (IOAPIC level pins) are ended by a single EOI after the
 * handlers; a disabled one is masked before the EOI so it stays quiet.
 *
 * Layer 1, the dispatch core: may use layers 0-1 (docs/irq-layers.md); it
 * calls handle.c's runs, and nothing of layer 1 but irqdesc.c and manage.c
 * (which set lines up) calls it back.
 */
#include "chip_ops.h"
#include "core.h"
#include "trace_filter.h"

#define IRQ_ALWAYS_INLINE static inline __attribute__((always_inline))

/* The run and the replay, the copy @tr (a constant) asks for: the flows are compiled once per value. */
static inline __attribute__((always_inline)) irqreturn_t __handle_irq_event_tr(struct irq_desc *desc,
									       unsigned long *flags, const bool tr)
{
	return tr ? __handle_irq_event_traced(desc, flags) : __handle_irq_event(desc, flags);
}

static inline __attribute__((always_inline)) void __irq_finish_pending_tr(struct irq_desc *desc,
									  unsigned long *flags, const bool tr)
{
	if (tr)
		__irq_finish_pending_traced(desc, flags);
	else
		__irq_finish_pending(desc, flags);
}

/* Outside the flows (disable_irq, the flood defence ...): traced when tracing is on. */
void __irq_mask(struct irq_desc *desc)
{
	if (irq_trace_enabled())
		chip_mask(desc, true);
	else
		chip_mask(desc, false);
}

void __irq_unmask(struct irq_desc *desc)
{
	if (irq_trace_enabled())
		chip_unmask(desc, true);
	else
		chip_unmask(desc, false);
}

void __irq_ack(struct irq_desc *desc)
{
	chip_ack(desc, false);
}

void __irq_mask_ack(struct irq_desc *desc)
{
	chip_mask_ack(desc, false);
}

void __irq_eoi(struct irq_desc *desc)
{
	chip_eoi(desc, false);
}

/*
 * __irq_cannot_run - whether this interrupt must not run the handlers now:
 * they already run (mark it pending for the owner), there are none (count
 * it, and keep it pending for the first request_irq), or the line is
 * disabled (mark it pending for enable_irq). The caller
 * has done the chip calls that keep the line quiet.
 */
static bool __irq_cannot_run(struct irq_desc *desc)
{
	if (desc->status & IRQS_INPROGRESS) {
		/* The running side replays it when it finishes (handle.c). */
		desc->status |= IRQS_PENDING;
		desc->busy_irqs++;  /* the verdicts' trace of it (struct irq_desc) */
		return true;
	}
	if (!desc->action) {
		/* An edge a device sent before its driver came is replayed to it. */
		desc->status |= IRQS_PENDING;
		__irq_account_no_action(desc);
		return true;
	}
	if (desc->status & IRQS_DISABLED) {
		/* enable_irq replays an edge; a level line re-asserts by itself. */
		desc->status |= IRQS_PENDING;
		return true;
	}
	return false;
}

IRQ_ALWAYS_INLINE void flow_edge(struct irq_desc *desc, const bool tr)
{
	unsigned long flags = irq_port_lock_irqsave(&desc->lock);

	irq_stat_inc(desc, IRQ_STAT_DELIVERED, true);
	if (desc->status & IRQS_INPROGRESS) {
		/* Ack so the controller latches the next edge; no mask needed. */
		chip_ack(desc, tr);
		desc->status |= IRQS_PENDING;
		desc->busy_irqs++;  /* as __irq_cannot_run */
		if (desc->status & IRQS_DISABLED)
			chip_mask(desc, tr);
		goto out;
	}
	if (!desc->action || (desc->status & IRQS_DISABLED)) {
		/* Keep an unwanted line shut; the mask is a no-op if it already is. */
		chip_mask_ack(desc, tr);
		__irq_cannot_run(desc);
		goto out;
	}
	chip_ack(desc, tr);
	__handle_irq_event_tr(desc, &flags, tr);
	/* Edges that came while the handlers ran are replayed here. */
	__irq_finish_pending_tr(desc, &flags, tr);
out:
	irq_port_unlock_irqrestore(&desc->lock, flags);
}

IRQ_ALWAYS_INLINE void flow_level(struct irq_desc *desc, const bool tr)
{
	unsigned long flags = irq_port_lock_irqsave(&desc->lock);

	irq_stat_inc(desc, IRQ_STAT_DELIVERED, true);
	/* Mask first: the line stays asserted until a handler clears the device. */
	chip_mask_ack(desc, tr);
	if (__irq_cannot_run(desc))
		goto out;
	__handle_irq_event_tr(desc, &flags, tr);
	/* Unmasks unless disabled; if still asserted, the chip interrupts again. */
	__irq_finish_pending_tr(desc, &flags, tr);
out:
	irq_port_unlock_irqrestore(&desc->lock, flags);
}

IRQ_ALWAYS_INLINE void flow_fasteoi(struct irq_desc *desc, const bool tr)
{
	unsigned long flags = irq_port_lock_irqsave(&desc->lock);

	irq_stat_inc(desc, IRQ_STAT_DELIVERED, true);
	if (desc->status & IRQS_INPROGRESS || !desc->action || (desc->status & IRQS_DISABLED)) {
		/*
		 * Cannot run now: mask before the EOI, or a level pin would
		 * interrupt again at once. The run's owner (or enable_irq)
		 * unmasks it later.
		 */
		chip_mask(desc, tr);
		__irq_cannot_run(desc);
		chip_eoi(desc, tr);
		goto out;
	}
	__handle_irq_event_tr(desc, &flags, tr);
	__irq_finish_pending_tr(desc, &flags, tr);
	chip_eoi(desc, tr);
out:
	irq_port_unlock_irqrestore(&desc->lock, flags);
}

/* The entry points: the untraced copies, as the lines' flow handlers. */
void handle_edge_irq(struct irq_desc *desc)
{
	flow_edge(desc, false);
}

void handle_level_irq(struct irq_desc *desc)
{
	flow_level(desc, false);
}

void handle_fasteoi_irq(struct irq_desc *desc)
{
	flow_fasteoi(desc, false);
}

/*
 * irq_trace_run_flow - generic_handle_irq with tracing on: irq_entry, the
 * traced copy of the line's flow (a custom flow runs as it is, with the
 * run and chip events its code records), irq_exit.
 */
void irq_trace_run_flow(struct irq_desc *desc, irq_flow_handler_t flow)
{
	unsigned int irq = desc->irq_data.irq;
	unsigned int kind = flow == handle_edge_irq ? IRQ_TFLOW_EDGE
			    : flow == handle_level_irq ? IRQ_TFLOW_LEVEL
			    : flow == handle_fasteoi_irq ? IRQ_TFLOW_FASTEOI : IRQ_TFLOW_CUSTOM;

	/* The trace compiled out (IRQ_TRACE_BUILD 0): never called, and no traced copy of the flows. */
	if (!IRQ_TRACE_BUILD || !irq_trace_line_selected(irq)) {
		flow(desc);
		return;
	}
	irq_trace_record(IRQ_TEV_IRQ_ENTRY, irq, kind, 0);
	if (kind == IRQ_TFLOW_EDGE)
		flow_edge(desc, true);
	else if (kind == IRQ_TFLOW_LEVEL)
		flow_level(desc, true);
	else if (kind == IRQ_TFLOW_FASTEOI)
		flow_fasteoi(desc, true);
	else
		flow(desc);
	irq_trace_record(IRQ_TEV_IRQ_EXIT, irq, kind, 0);
}

/* Count of generic_handle_irq calls for lines that do not exist. */
static unsigned int irq_bad_line_calls;

int generic_handle_irq(unsigned int irq)
{
	struct irq_desc *desc = irq_to_desc(irq);
	irq_flow_handler_t flow;

	if (!desc) {
		unsigned int n = __atomic_add_fetch(&irq_bad_line_calls, 1, __ATOMIC_RELAXED);

		if (irq_report_due(n))
			irq_port_log(IRQ_LOG_WARN, "irq: interrupt for line %u, which does not exist (%u so far)\n",
				     irq, n);
		return -IRQ_EINVAL;
	}
	flow = __atomic_load_n(&desc->handle_irq, __ATOMIC_ACQUIRE);
	if (!flow) {
		unsigned long flags = irq_port_lock_irqsave(&desc->lock);

		irq_stat_inc(desc, IRQ_STAT_DELIVERED, true);
		irq_stat_inc(desc, IRQ_STAT_SPURIOUS, true);
		irq_port_unlock_irqrestore(&desc->lock, flags);
		return -IRQ_ENODEV;
	}
	/* The one trace hook of a handled interrupt (trace.h): the traced copy of the flow. */
	if (irq_trace_enabled()) {
		irq_trace_run_flow(desc, flow);
		return 0;
	}
	flow(desc);
	return 0;
}
