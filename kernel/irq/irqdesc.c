/*
 * irqdesc.c - the line descriptors of the portable interrupt core: the
 * static table, attaching a controller (irq_chip) and a flow handler to a
 * line, its trigger type, and the static pool of actions that request_irq()
 * draws from. No allocator: everything is sized by irq_config.h.
 *
 * Follows the split of Linux's genirq (kernel/irq/irqdesc.c, chip.c) as
 * described in Documentation/core-api/genericirq.rst; written for irqkit.
 * See also: manage.c (the driver API), chip.c (the flow handlers).
 *
 * The tables themselves (descriptors, counters) are desc_table.c's.
 *
 * Layer 1, the dispatch core: may use layers 0-1 (docs/irq-layers.md);
 * irq_core_init() itself is the assembly's (policy.c), which also resets
 * the defences.
 */
#include "core.h"
#include "irq_codes.h"

/* The action pool of request_irq(); request_irq_static() brings its own. */
static struct irqaction irq_action_pool[IRQ_NR_ACTIONS];
static bool irq_action_in_use[IRQ_NR_ACTIONS];
static irq_port_lock_t irq_pool_lock;

/* Name-less chips and lines read as this in statistics and messages. */
static const char irq_no_name[] = "none";

/* Put one descriptor into its boot state: no chip, no action, off. */
static void irq_desc_reset(struct irq_desc *desc, unsigned int irq)
{
	irq_port_lock_init(&desc->lock);
	desc->irq_data.irq = irq;
	desc->irq_data.hwirq = 0;
	desc->irq_data.chip_data = NULL;
	desc->chip = NULL;
	desc->handle_irq = NULL;
	desc->action = NULL;
	desc->nr_actions = 0;
	desc->depth = 1;
	desc->status = IRQS_DISABLED;
	desc->trigger = IRQ_TYPE_NONE;
	desc->unbalanced_enables = 0;
	desc->bad_line_enables = 0;
	desc->run_is_poll = false;
	desc->unhandled_word = 0;
	desc->busy_irqs = 0;
	irq_desc_timers_init(desc, __irq_hooks->poll_timer_fn);
	desc->def = (struct irq_defence_line){ 0 };
}

/*
 * __irq_descs_init - the dispatch core's part of irq_core_init() (policy.c,
 * the assembly, which then resets the defences): every line without chip
 * or action, masked; the counters zero; the action pool free. @hooks: what
 * the core calls above itself (core.h), kept for good.
 */
void __irq_descs_init(const struct irq_core_hooks *hooks)
{
	unsigned int i;

	__irq_hooks = hooks;
	for (i = 0; i < IRQ_NR_LINES; i++)
		irq_desc_reset(&irq_descs[i], i);
	irq_stats_reset();
	irq_port_lock_init(&irq_pool_lock);
	for (i = 0; i < IRQ_NR_ACTIONS; i++)
		irq_action_in_use[i] = false;
}

bool irq_flow_fits_chip(const struct irq_chip *chip, irq_flow_handler_t flow)
{
	if (!chip || !flow || !chip->mask || !chip->unmask)
		return false;
	if (flow == handle_edge_irq || flow == handle_level_irq)
		return chip->ack != NULL;
	if (flow == handle_fasteoi_irq)
		return chip->eoi != NULL;
	return true;  /* a custom flow knows what it calls */
}

/* The trigger type a flow implies until the controller says otherwise. */
static unsigned int irq_default_trigger(irq_flow_handler_t flow)
{
	return flow == handle_edge_irq ? IRQ_TYPE_EDGE_RISING : IRQ_TYPE_LEVEL_HIGH;
}

int irq_set_chip_and_handler(unsigned int irq, const struct irq_chip *chip, irq_flow_handler_t flow,
			     void *chip_data, unsigned long hwirq)
{
	struct irq_desc *desc = irq_to_desc(irq);
	unsigned long flags;

	if (!desc || !irq_flow_fits_chip(chip, flow)) {
		const char *name = chip && chip->name ? chip->name : irq_no_name;

		if (!desc)
			IRQ_SAY(IRQ_E_CHIP_NO_LINE, IRQ_LOG_ERR, irq, "irq %u: chip \"%.*s\" refused: no such line\n", irq,
				IRQ_NAME_LOG_MAX, name);
		else
			IRQ_SAY(IRQ_E_CHIP_LACKS, IRQ_LOG_ERR, irq,
				"irq %u: chip \"%.*s\" refused: chip lacks mask/unmask or what the flow calls\n", irq,
				IRQ_NAME_LOG_MAX, name);
		return -IRQ_EINVAL;
	}
	flags = irq_port_lock_irqsave(&desc->lock);
	if (desc->action) {
		const char *user = desc->action->name;

		irq_port_unlock_irqrestore(&desc->lock, flags);
		IRQ_SAY(IRQ_E_CHIP_IN_USE, IRQ_LOG_ERR, irq, "irq %u: chip \"%.*s\" refused: line in use by \"%.*s\"\n", irq,
			IRQ_NAME_LOG_MAX, chip->name ? chip->name : irq_no_name, IRQ_NAME_LOG_MAX, user);
		return -IRQ_EBUSY;
	}
	desc->chip = chip;
	desc->irq_data.hwirq = hwirq;
	desc->irq_data.chip_data = chip_data;
	desc->trigger = irq_default_trigger(flow);
	__atomic_store_n(&desc->handle_irq, flow, __ATOMIC_RELEASE);
	/* The core owns the mask state from here on: start from a known one. */
	desc->status &= ~IRQS_MASKED;
	__irq_mask(desc);
	irq_port_unlock_irqrestore(&desc->lock, flags);
	return 0;
}

int irq_set_handler(unsigned int irq, irq_flow_handler_t flow)
{
	struct irq_desc *desc = irq_to_desc(irq);

	/* No lock: this is called from set_type, under the line's lock. */
	if (!desc || !irq_flow_fits_chip(desc->chip, flow)) {
		if (!desc)
			IRQ_SAY(IRQ_E_FLOW_NO_LINE, IRQ_LOG_ERR, irq, "irq %u: flow handler refused: no such line\n", irq);
		else
			IRQ_SAY(IRQ_E_FLOW_LACKS, IRQ_LOG_ERR, irq,
				"irq %u: flow handler refused: no chip, or the chip lacks what the flow calls\n", irq);
		return -IRQ_EINVAL;
	}
	__atomic_store_n(&desc->handle_irq, flow, __ATOMIC_RELEASE);
	return 0;
}

int __irq_set_type(struct irq_desc *desc, unsigned int type)
{
	int err;

	/*
	 * Always program a chip that can: the type recorded so far may be the
	 * flow's default guess, not what the hardware is set to.
	 */
	if (!desc->chip->set_type)
		return type == desc->trigger ? 0 : -IRQ_EINVAL;  /* one fixed type */
	err = desc->chip->set_type(&desc->irq_data, type);
	if (err < 0)
		return err;
	desc->trigger = type;
	return 0;
}

int irq_set_trigger(unsigned int irq, unsigned int type)
{
	struct irq_desc *desc = irq_to_desc(irq);
	unsigned long flags;
	int err;

	if (!desc || !irq_type_valid(type)) {
		if (!desc)
			IRQ_SAY(IRQ_E_TRIGGER_NO_LINE, IRQ_LOG_ERR, irq, "irq %u: trigger type 0x%x refused: no such line\n", irq,
				type);
		else
			IRQ_SAY(IRQ_E_TRIGGER_KIND, IRQ_LOG_ERR, irq,
				"irq %u: trigger type 0x%x refused: not one edge or level kind\n", irq, type);
		return -IRQ_EINVAL;
	}
	flags = irq_port_lock_irqsave(&desc->lock);
	if (!desc->chip) {
		err = -IRQ_EINVAL;
	} else if (desc->action && type != desc->trigger) {
		err = -IRQ_EBUSY;
	} else if (!desc->chip->set_type) {
		/* The setup code tells us what the fixed hardware does. */
		desc->trigger = type;
		err = 0;
	} else {
		err = __irq_set_type(desc, type);
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
	if (err == -IRQ_EBUSY)
		IRQ_SAY(IRQ_E_TRIGGER_IN_USE, IRQ_LOG_ERR, irq,
			"irq %u: trigger type 0x%x refused (%d): line in use with another type\n", irq, type, err);
	else if (err)
		IRQ_SAY(IRQ_E_TRIGGER_REFUSED, IRQ_LOG_ERR, irq,
			"irq %u: trigger type 0x%x refused (%d): no chip, or the chip refused\n", irq, type, err);
	return err;
}

struct irqaction *irq_action_alloc(void)
{
	struct irqaction *action = NULL;
	unsigned long flags;
	unsigned int i;

	flags = irq_port_lock_irqsave(&irq_pool_lock);
	for (i = 0; i < IRQ_NR_ACTIONS; i++) {
		if (!irq_action_in_use[i]) {
			irq_action_in_use[i] = true;
			action = &irq_action_pool[i];
			break;
		}
	}
	irq_port_unlock_irqrestore(&irq_pool_lock, flags);
	if (action) {
		*action = (struct irqaction){ 0 };
		action->from_pool = true;
	}
	return action;
}

void irq_action_release(struct irqaction *action)
{
	uintptr_t base = (uintptr_t)irq_action_pool;
	uintptr_t offset = (uintptr_t)action - base;
	size_t index = offset / sizeof(*action);
	unsigned long flags;

	/* Compared as integers: a stray pointer must not be UB to detect. */
	if ((uintptr_t)action < base || index >= IRQ_NR_ACTIONS || offset % sizeof(*action) != 0)
		irq_port_panic("irq_action_release: action is not from the pool");
	flags = irq_port_lock_irqsave(&irq_pool_lock);
	if (!irq_action_in_use[index]) {
		irq_port_unlock_irqrestore(&irq_pool_lock, flags);
		irq_port_panic("irq_action_release: action released twice");
	}
	irq_action_in_use[index] = false;
	irq_port_unlock_irqrestore(&irq_pool_lock, flags);
}

/* ---- Affinity ----------------------------------------------------------------------------- */

#define IRQ_ALL_CPUS_MASK (IRQ_NR_CPUS >= 32 ? 0xFFFFFFFFu : ((1u << IRQ_NR_CPUS) - 1u))

int irq_set_affinity(unsigned int irq, irq_cpumask_t mask)
{
	struct irq_desc *desc = irq_to_desc(irq);
	unsigned long flags;
	int err;

	if (!desc || !mask || (mask & ~(irq_cpumask_t)IRQ_ALL_CPUS_MASK))
		return -IRQ_EINVAL;
	flags = irq_port_lock_irqsave(&desc->lock);
	if (!desc->chip || !desc->chip->irq_set_affinity) {
		err = -IRQ_ENODEV;
	} else {
		err = desc->chip->irq_set_affinity(&desc->irq_data, mask);
		if (err > 0)
			err = 0;
		if (!err)  /* read without the lock by expect_irq (stall.c, __irq_line_cpu) */
			__atomic_store_n(&desc->affinity, mask, __ATOMIC_RELAXED);
		else
			err = -IRQ_EINVAL;
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
	return err;
}

irq_cpumask_t irq_get_affinity(unsigned int irq)
{
	struct irq_desc *desc = irq_to_desc(irq);
	irq_cpumask_t mask;
	unsigned long flags;

	if (!desc)
		return 0;
	flags = irq_port_lock_irqsave(&desc->lock);
	mask = desc->affinity ? desc->affinity : (irq_cpumask_t)IRQ_ALL_CPUS_MASK;
	irq_port_unlock_irqrestore(&desc->lock, flags);
	return mask;
}
