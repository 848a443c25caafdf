/*
 * chip.c - the flow handlers: how each kind of interrupt line is
 * acknowledged at its controller around the run of its handlers, and the
 * chip-call helpers that keep the core's idea of "masked" true.
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
 * Layer 1, the dispatch core: may use layers 0-1 (docs/irq-layers.md).
 */
#include "core.h"

/*
 * The chip calls, each in two copies: @tr false is the code an untraced
 * interrupt runs (no hook at all), @tr true records the operation first
 * (trace.h: the copy a traced interrupt runs). @tr is always a constant.
 */
#define IRQ_ALWAYS_INLINE static inline __attribute__((always_inline))
#define CHIP_TRACE(tr, desc, op)                                                                   \
	do {                                                                                       \
		if (tr)                                                                            \
			irq_trace_record(IRQ_TEV_CHIP, (desc)->irq_data.irq, (op), 0);             \
	} while (0)

IRQ_ALWAYS_INLINE void chip_mask(struct irq_desc *desc, const bool tr)
{
	if (desc->status & IRQS_MASKED)
		return;
	CHIP_TRACE(tr, desc, IRQ_TCHIP_MASK);
	desc->chip->mask(&desc->irq_data);
	desc->status |= IRQS_MASKED;
}

IRQ_ALWAYS_INLINE void chip_unmask(struct irq_desc *desc, const bool tr)
{
	if (!(desc->status & IRQS_MASKED))
		return;
	CHIP_TRACE(tr, desc, IRQ_TCHIP_UNMASK);
	desc->chip->unmask(&desc->irq_data);
	desc->status &= ~IRQS_MASKED;
}

IRQ_ALWAYS_INLINE void chip_ack(struct irq_desc *desc, const bool tr)
{
	if (desc->chip->ack) {
		CHIP_TRACE(tr, desc, IRQ_TCHIP_ACK);
		desc->chip->ack(&desc->irq_data);
	}
}

IRQ_ALWAYS_INLINE void chip_mask_ack(struct irq_desc *desc, const bool tr)
{
	if (desc->status & IRQS_MASKED) {
		chip_ack(desc, tr);
		return;
	}
	if (desc->chip->mask_ack) {
		CHIP_TRACE(tr, desc, IRQ_TCHIP_MASK_ACK);
		desc->chip->mask_ack(&desc->irq_data);
		desc->status |= IRQS_MASKED;
		return;
	}
	chip_mask(desc, tr);
	chip_ack(desc, tr);
}

IRQ_ALWAYS_INLINE void chip_eoi(struct irq_desc *desc, const bool tr)
{
	if (desc->chip->eoi) {
		CHIP_TRACE(tr, desc, IRQ_TCHIP_EOI);
		desc->chip->eoi(&desc->irq_data);
	}
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

/* The two copies __irq_finish_pending (handle.c) calls at its end. */
void __irq_unmask_notrace(struct irq_desc *desc)
{
	chip_unmask(desc, false);
}

void __irq_unmask_traced(struct irq_desc *desc)
{
	chip_unmask(desc, IRQ_TRACE_BUILD);  /* the trace compiled out: the untraced copy */
}

int __irq_chip_pending(struct irq_desc *desc)
{
	int r;

	if (!desc->chip || !desc->chip->irq_pending)
		return IRQ_PENDING_UNKNOWN;
	r = desc->chip->irq_pending(&desc->irq_data);
	/* Anything but 1 or 0 is "cannot tell": a chip bug must not read as "pending". */
	return r == 1 ? IRQ_PENDING_YES : r == 0 ? IRQ_PENDING_NO : IRQ_PENDING_UNKNOWN;
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
