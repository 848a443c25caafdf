/*
 * chip_ops.h - PRIVATE to kernel/irq/: the chip calls that keep the
 * core's idea of "masked" true (mask, unmask, ack, mask+ack, EOI), each in
 * two copies by a constant @tr, and the question whether the line's
 * interrupt is pending at its controller. Inline, because the flows
 * (chip.c) and the runs' replay (handle.c) call them on every interrupt;
 * they call only the chip's own functions and irq_trace_record()
 * (trace_ring.c). Shared by the flows and the runs without either calling
 * the other for them.
 *
 * Layer 1, the dispatch core's private header: may use layer 0 only.
 */
#ifndef IRQ_CHIP_OPS_H
#define IRQ_CHIP_OPS_H

#include "internals.h"
#include "trace.h"

/*
 * The chip calls, each in two copies: @tr false is the code an untraced
 * interrupt runs (no hook at all), @tr true records the operation first
 * (trace.h: the copy a traced interrupt runs). @tr is always a constant.
 */
#define IRQ_CHIP_INLINE static inline __attribute__((always_inline))
#define CHIP_TRACE(tr, desc, op)                                                                   \
	do {                                                                                       \
		if (tr)                                                                            \
			irq_trace_record(IRQ_TEV_CHIP, (desc)->irq_data.irq, (op), 0);             \
	} while (0)

IRQ_CHIP_INLINE void chip_mask(struct irq_desc *desc, const bool tr)
{
	if (desc->status & IRQS_MASKED)
		return;
	CHIP_TRACE(tr, desc, IRQ_TCHIP_MASK);
	desc->chip->mask(&desc->irq_data);
	desc->status |= IRQS_MASKED;
}

IRQ_CHIP_INLINE void chip_unmask(struct irq_desc *desc, const bool tr)
{
	if (!(desc->status & IRQS_MASKED))
		return;
	CHIP_TRACE(tr, desc, IRQ_TCHIP_UNMASK);
	desc->chip->unmask(&desc->irq_data);
	desc->status &= ~IRQS_MASKED;
}

IRQ_CHIP_INLINE void chip_ack(struct irq_desc *desc, const bool tr)
{
	if (desc->chip->ack) {
		CHIP_TRACE(tr, desc, IRQ_TCHIP_ACK);
		desc->chip->ack(&desc->irq_data);
	}
}

IRQ_CHIP_INLINE void chip_mask_ack(struct irq_desc *desc, const bool tr)
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

IRQ_CHIP_INLINE void chip_eoi(struct irq_desc *desc, const bool tr)
{
	if (desc->chip->eoi) {
		CHIP_TRACE(tr, desc, IRQ_TCHIP_EOI);
		desc->chip->eoi(&desc->irq_data);
	}
}

/*
 * __irq_chip_pending - ask the chip whether the line's interrupt is on its
 * way (internals.h's IRQ_PENDING_*). Lock held.
 */
static inline int __irq_chip_pending(struct irq_desc *desc)
{
	int r;

	if (!desc->chip || !desc->chip->irq_pending)
		return IRQ_PENDING_UNKNOWN;
	r = desc->chip->irq_pending(&desc->irq_data);
	/* Anything but 1 or 0 is "cannot tell": a chip bug must not read as "pending". */
	return r == 1 ? IRQ_PENDING_YES : r == 0 ? IRQ_PENDING_NO : IRQ_PENDING_UNKNOWN;
}

#endif /* IRQ_CHIP_OPS_H */
