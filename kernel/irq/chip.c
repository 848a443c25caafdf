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
 */
#include "internals.h"

void __irq_mask(struct irq_desc *desc)
{
	if (desc->status & IRQS_MASKED)
		return;
	desc->chip->mask(&desc->irq_data);
	desc->status |= IRQS_MASKED;
}

void __irq_unmask(struct irq_desc *desc)
{
	if (!(desc->status & IRQS_MASKED))
		return;
	desc->chip->unmask(&desc->irq_data);
	desc->status &= ~IRQS_MASKED;
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
	if (desc->chip->ack)
		desc->chip->ack(&desc->irq_data);
}

void __irq_mask_ack(struct irq_desc *desc)
{
	if (desc->status & IRQS_MASKED) {
		__irq_ack(desc);
		return;
	}
	if (desc->chip->mask_ack) {
		desc->chip->mask_ack(&desc->irq_data);
		desc->status |= IRQS_MASKED;
		return;
	}
	__irq_mask(desc);
	__irq_ack(desc);
}

void __irq_eoi(struct irq_desc *desc)
{
	if (desc->chip->eoi)
		desc->chip->eoi(&desc->irq_data);
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

void handle_edge_irq(struct irq_desc *desc)
{
	unsigned long flags = irq_port_lock_irqsave(&desc->lock);

	desc->stats.delivered++;
	if (desc->status & IRQS_INPROGRESS) {
		/* Ack so the controller latches the next edge; no mask needed. */
		__irq_ack(desc);
		desc->status |= IRQS_PENDING;
		if (desc->status & IRQS_DISABLED)
			__irq_mask(desc);
		goto out;
	}
	if (!desc->action || (desc->status & IRQS_DISABLED)) {
		/* Keep an unwanted line shut; the mask is a no-op if it already is. */
		__irq_mask_ack(desc);
		__irq_cannot_run(desc);
		goto out;
	}
	__irq_ack(desc);
	__handle_irq_event(desc, &flags);
	/* Edges that came while the handlers ran are replayed here. */
	__irq_finish_pending(desc, &flags);
out:
	irq_port_unlock_irqrestore(&desc->lock, flags);
}

void handle_level_irq(struct irq_desc *desc)
{
	unsigned long flags = irq_port_lock_irqsave(&desc->lock);

	desc->stats.delivered++;
	/* Mask first: the line stays asserted until a handler clears the device. */
	__irq_mask_ack(desc);
	if (__irq_cannot_run(desc))
		goto out;
	__handle_irq_event(desc, &flags);
	/* Unmasks unless disabled; if still asserted, the chip interrupts again. */
	__irq_finish_pending(desc, &flags);
out:
	irq_port_unlock_irqrestore(&desc->lock, flags);
}

void handle_fasteoi_irq(struct irq_desc *desc)
{
	unsigned long flags = irq_port_lock_irqsave(&desc->lock);

	desc->stats.delivered++;
	if (desc->status & IRQS_INPROGRESS || !desc->action || (desc->status & IRQS_DISABLED)) {
		/*
		 * Cannot run now: mask before the EOI, or a level pin would
		 * interrupt again at once. The run's owner (or enable_irq)
		 * unmasks it later.
		 */
		__irq_mask(desc);
		__irq_cannot_run(desc);
		__irq_eoi(desc);
		goto out;
	}
	__handle_irq_event(desc, &flags);
	__irq_finish_pending(desc, &flags);
	__irq_eoi(desc);
out:
	irq_port_unlock_irqrestore(&desc->lock, flags);
}
