/*
 * stats.c - the statistics of the portable interrupt core for the kernel's
 * "irqs" shell command and for tests (declared in stats.h, which says what
 * each counter means). In the spirit of Linux's /proc/interrupts, read
 * through functions instead of a file: one line at a time, one action at a
 * time, each copied under the line's lock. The line counters are kept per
 * CPU (internals.h, irq_stat_inc; irqdesc.c has the table, its fold and
 * its sum) and summed on read.
 *
 * Layer 4, a report: may use layers 0-3 (docs/irq-layers.md).
 */
#include "core.h"
#include "storm.h"

/* Names of the IRQS_* bits, in the order irq_status_string prints them. */
static const struct {
	unsigned int bit;
	const char *name;
} irq_status_names[] = {
	{ IRQS_DISABLED, "disabled" },
	{ IRQS_MASKED, "masked" },
	{ IRQS_INPROGRESS, "inprogress" },
	{ IRQS_PENDING, "pending" },
	{ IRQS_REPLAY, "replay" },
	{ IRQS_POLLING, "polling" },
};

/* Digits of the hexadecimal tail for unknown bits ("0x" and 8 digits). */
#define IRQ_STATUS_HEX_DIGITS 8

const char *irq_flow_name(irq_flow_handler_t flow)
{
	if (!flow)
		return "none";
	if (flow == handle_edge_irq)
		return "edge";
	if (flow == handle_level_irq)
		return "level";
	if (flow == handle_fasteoi_irq)
		return "fasteoi";
	return "custom";
}

static const char *irq_trigger_name(unsigned int trigger)
{
	if (trigger & IRQ_TYPE_LEVEL_MASK)
		return "level";
	if (trigger & IRQ_TYPE_EDGE_MASK)
		return "edge";
	return "none";
}

int irq_get_line_cpu_stats(unsigned int irq, unsigned int cpu, struct irq_line_cpu_stats *out)
{
	struct irq_desc *desc = irq_to_desc(irq);
	const struct irq_cpu_counters *slot;
	unsigned long flags;

	if (!desc || !out || cpu >= IRQ_NR_CPUS)
		return -IRQ_EINVAL;
	slot = &irq_cpu_stats[cpu][irq];
	flags = irq_port_lock_irqsave(&desc->lock);
	out->delivered = __irq_slot_count(slot, IRQ_STAT_DELIVERED);
	out->handled = __irq_slot_count(slot, IRQ_STAT_HANDLED);
	out->unhandled = __irq_slot_count(slot, IRQ_STAT_UNHANDLED);
	out->spurious = __irq_slot_count(slot, IRQ_STAT_SPURIOUS);
	out->polled = __irq_slot_count(slot, IRQ_STAT_POLLED);
	irq_port_unlock_irqrestore(&desc->lock, flags);
	return 0;
}

int irq_get_line_stats(unsigned int irq, struct irq_line_stats *out)
{
	struct irq_desc *desc = irq_to_desc(irq);
	unsigned long flags;

	if (!desc || !out)
		return -IRQ_EINVAL;
	flags = irq_port_lock_irqsave(&desc->lock);
	out->irq = irq;
	out->chip_name = desc->chip ? (desc->chip->name ? desc->chip->name : "unnamed") : "none";
	out->trigger = irq_trigger_name(desc->trigger);
	out->flow = irq_flow_name(irq_storm_flow_of(desc, desc->handle_irq));
	out->depth = desc->depth;
	out->status = desc->status;
	/* Summed over the CPUs (and the slot of out-of-range CPU numbers). */
	out->delivered = __irq_stat_sum(desc, IRQ_STAT_DELIVERED);
	out->handled = __irq_stat_sum(desc, IRQ_STAT_HANDLED);
	out->unhandled = __irq_stat_sum(desc, IRQ_STAT_UNHANDLED);
	out->spurious = __irq_stat_sum(desc, IRQ_STAT_SPURIOUS);
	out->polled = __irq_stat_sum(desc, IRQ_STAT_POLLED);
	out->nr_actions = desc->nr_actions;
	irq_port_unlock_irqrestore(&desc->lock, flags);
	return 0;
}

int irq_get_action_stats(unsigned int irq, unsigned int index, struct irq_action_stats *out)
{
	struct irq_desc *desc = irq_to_desc(irq);
	const struct irqaction *action;
	unsigned long flags;
	unsigned int i;

	if (!desc || !out)
		return -IRQ_EINVAL;
	flags = irq_port_lock_irqsave(&desc->lock);
	action = desc->action;
	for (i = 0; action && i < index && i < IRQ_MAX_SHARED; i++)
		action = action->next;
	if (action && i == index) {
		out->name = action->name;
		out->dev_id = action->dev_id;
		out->handled = action->handled;
		out->polled_handled = action->polled_handled;
		out->flags = action->flags;
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
	return action && i == index ? 0 : -IRQ_ENOENT;
}

/* Append @text to @buf (of @len, NUL-terminated at @*used); truncates. */
static void irq_buf_append(char *buf, size_t len, size_t *used, const char *text)
{
	while (*text && *used + 1 < len)
		buf[(*used)++] = *text++;
	buf[*used] = '\0';
}

/* Append "0x" and @value in hexadecimal. */
static void irq_buf_append_hex(char *buf, size_t len, size_t *used, unsigned int value)
{
	static const char digits[] = "0123456789abcdef";
	char text[2 + IRQ_STATUS_HEX_DIGITS + 1];
	size_t n = 0;
	int shift;
	bool started = false;

	text[n++] = '0';
	text[n++] = 'x';
	for (shift = (IRQ_STATUS_HEX_DIGITS - 1) * 4; shift >= 0; shift -= 4) {
		unsigned int digit = (value >> shift) & 0xFu;

		if (digit || started || shift == 0) {
			text[n++] = digits[digit];
			started = true;
		}
	}
	text[n] = '\0';
	irq_buf_append(buf, len, used, text);
}

const char *irq_status_string(unsigned int status, char *buf, size_t len)
{
	size_t used = 0, i;
	bool first = true;

	if (!buf || len == 0)
		return "";
	buf[0] = '\0';
	for (i = 0; i < sizeof(irq_status_names) / sizeof(irq_status_names[0]); i++) {
		if (!(status & irq_status_names[i].bit))
			continue;
		if (!first)
			irq_buf_append(buf, len, &used, ",");
		irq_buf_append(buf, len, &used, irq_status_names[i].name);
		first = false;
	}
	if (status & ~IRQS_KNOWN_MASK) {
		if (!first)
			irq_buf_append(buf, len, &used, ",");
		irq_buf_append_hex(buf, len, &used, status & ~IRQS_KNOWN_MASK);
	}
	return buf;
}
