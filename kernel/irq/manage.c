/*
 * manage.c - the driver API of the portable interrupt core: request_irq,
 * free_irq, enable_irq/disable_irq and synchronize_irq, with the meanings of
 * Linux's <linux/interrupt.h> (kernel/irq/manage.c there); written for
 * irqkit. Everything a caller passes in is checked, and every refusal is
 * logged once with both parties named, at the place that knows why.
 *
 * Line life cycle: a line without action is "shut down": masked, depth 1,
 * IRQS_DISABLED. The first request sets the trigger type and enables it
 * (depth 0, unmasked); disable/enable nest on top; freeing the last action
 * shuts it down again. See also handle.c (the waits and replays).
 *
 * Layer 1, the dispatch core: may use layers 0-1; request and free tell the
 * scheduler through core.h's hooks, never by name (docs/irq-layers.md).
 */
#include "core.h"
#include "irq_codes.h"

/* Actions registered without a name show this one. */
static const char irq_unnamed[] = "unnamed";

/*
 * A refusal: error number, its code (irq_codes.h) and why (IRQ_WHY: "" in a
 * terse build), and the other party (NULL when none).
 */
struct irq_refusal {
	int err;
	unsigned int code;
	const char *why;
	const char *other;
};

static int irq_refuse(unsigned int irq, const char *name, struct irq_refusal r)
{
	if (r.other)
		IRQ_SAY(r.code, IRQ_LOG_ERR, irq, "irq %u: request by \"%.*s\" refused (%d): %s \"%.*s\"\n", irq,
			IRQ_NAME_LOG_MAX, name, r.err, r.why, IRQ_NAME_LOG_MAX, r.other);
	else
		IRQ_SAY(r.code, IRQ_LOG_ERR, irq, "irq %u: request by \"%.*s\" refused (%d): %s\n", irq,
			IRQ_NAME_LOG_MAX, name, r.err, r.why);
	return r.err;
}

/* Checks that need no line: the arguments themselves. */
static int irq_check_request(unsigned int irq, irq_handler_t handler, unsigned long flags,
			     const char *name, void *dev_id)
{
	unsigned int type = irq_flags_to_type(flags);
	struct irq_refusal r = { -IRQ_EINVAL, 0, NULL, NULL };

	if (irq >= IRQ_NR_LINES)
		r = (struct irq_refusal){ -IRQ_EINVAL, IRQ_WHY(IRQ_E_REQ_NO_LINE, "no such line"), NULL };
	else if (!handler)
		r = (struct irq_refusal){ -IRQ_EINVAL, IRQ_WHY(IRQ_E_REQ_NO_HANDLER, "no handler function"), NULL };
	else if (flags & ~(unsigned long)(IRQF_SHARED | IRQF_TIMER | IRQF_TRIGGER_MASK | IRQF_NEXT_ON_READ))
		r = (struct irq_refusal){ -IRQ_EINVAL, IRQ_WHY(IRQ_E_REQ_FLAGS, "unknown IRQF_ flags"), NULL };
	else if (type && !irq_type_valid(type))
		r = (struct irq_refusal){ -IRQ_EINVAL, IRQ_WHY(IRQ_E_REQ_TRIGGERS, "more than one IRQF_TRIGGER_ kind"), NULL };
	else if ((flags & IRQF_SHARED) && !dev_id)
		r = (struct irq_refusal){ -IRQ_EINVAL,
			IRQ_WHY(IRQ_E_REQ_SHARED_NO_DEV_ID, "IRQF_SHARED needs a dev_id to tell the handlers apart"), NULL };
	if (!r.code)
		return 0;
	return irq_refuse(irq, name, r);
}

/* Can @new join the actions already on the line? Lock held. */
static struct irq_refusal __irq_check_sharing(const struct irq_desc *desc, const struct irqaction *new)
{
	const struct irqaction *first = desc->action, *a;
	unsigned int type = irq_flags_to_type(new->flags);
	unsigned int walked = 0;

	if (!(first->flags & IRQF_SHARED))
		return (struct irq_refusal){ -IRQ_EBUSY, IRQ_WHY(IRQ_E_REQ_HELD, "line is held, not shared, by"), first->name };
	if (!(new->flags & IRQF_SHARED))
		return (struct irq_refusal){ -IRQ_EBUSY,
			IRQ_WHY(IRQ_E_REQ_NOT_SHARED, "no IRQF_SHARED, but the line is shared by"), first->name };
	if (type && type != desc->trigger)
		return (struct irq_refusal){ -IRQ_EBUSY,
			IRQ_WHY(IRQ_E_REQ_OTHER_TRIGGER, "trigger type differs from the line's, set for"), first->name };
	for (a = first; a && walked < IRQ_MAX_SHARED; a = a->next, walked++)
		if (a->dev_id == new->dev_id)
			return (struct irq_refusal){ -IRQ_EBUSY, IRQ_WHY(IRQ_E_REQ_DEV_ID_TWICE, "dev_id already registered by"),
						     a->name };
	if (desc->nr_actions >= IRQ_MAX_SHARED)
		return (struct irq_refusal){ -IRQ_ENOSPC,
			IRQ_WHY(IRQ_E_REQ_FULL, "line carries IRQ_MAX_SHARED handlers, the first"), first->name };
	return (struct irq_refusal){ 0, 0, NULL, NULL };
}

/* Append @new to the line (lock held); the first action switches the line on. */
static void __irq_link_action(struct irq_desc *desc, struct irqaction *new)
{
	struct irqaction **link = &desc->action;
	unsigned int walked;

	for (walked = 0; *link && walked < IRQ_MAX_SHARED; walked++)
		link = &(*link)->next;
	new->next = NULL;
	irq_action_store(link, new);
	if (desc->nr_actions++ == 0) {
		desc->depth = 0;
		__irq_enable_line(desc);
	}
}

/* Register the filled-in action @new on line @irq. RETURNS 0 or -errno (logged). */
static int irq_setup_action(unsigned int irq, struct irqaction *new)
{
	struct irq_desc *desc = irq_to_desc(irq);
	struct irq_refusal r = { 0, 0, NULL, NULL };
	unsigned long flags = irq_port_lock_irqsave(&desc->lock);
	unsigned int type = irq_flags_to_type(new->flags);

	if (!desc->chip) {
		r = (struct irq_refusal){ -IRQ_EINVAL, IRQ_WHY(IRQ_E_REQ_NO_CHIP, "line has no interrupt controller (irq_chip)"),
					  NULL };
	} else if (desc->action) {
		r = __irq_check_sharing(desc, new);
	} else if (type) {
		r = (struct irq_refusal){ __irq_set_type(desc, type),
			IRQ_WHY(IRQ_E_REQ_TRIGGER_REFUSED, "the controller cannot set that trigger type:"),
			desc->chip->name ? desc->chip->name : "unnamed chip" };
	}
	if (!r.err) {
		__irq_link_action(desc, new);
		__irq_hooks->action_added(desc, new);  /* the scheduler's (core.h) */
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
	return r.err ? irq_refuse(irq, new->name, r) : 0;
}

/* Fill in an action for registration. */
static void irq_fill_action(struct irqaction *action, unsigned int irq, irq_handler_t handler,
			    unsigned long flags, const char *name, void *dev_id, bool from_pool)
{
	*action = (struct irqaction){
		.handler = handler,
		.dev_id = dev_id,
		.name = name,
		.flags = flags,
		.irq = irq,
		.from_pool = from_pool,
	};
}

int request_irq(unsigned int irq, irq_handler_t handler, unsigned long flags, const char *name, void *dev_id)
{
	struct irqaction *action;
	int err;

	if (!name)
		name = irq_unnamed;
	err = irq_check_request(irq, handler, flags, name, dev_id);
	if (err)
		return err;
	action = irq_action_alloc();
	if (!action)
		return irq_refuse(irq, name, (struct irq_refusal){ -IRQ_ENOMEM, IRQ_WHY(IRQ_E_REQ_POOL_EMPTY,
				  "all IRQ_NR_ACTIONS pooled actions are in use (request_irq_static needs none)"), NULL });
	irq_fill_action(action, irq, handler, flags, name, dev_id, true);
	err = irq_setup_action(irq, action);
	if (err)
		irq_action_release(action);
	return err;
}

/* Whether @storage is on some line's action list (each line under its lock). */
static bool irq_action_registered(const struct irqaction *storage)
{
	unsigned int irq;

	for (irq = 0; irq < IRQ_NR_LINES; irq++) {
		struct irq_desc *desc = &irq_descs[irq];
		unsigned long flags = irq_port_lock_irqsave(&desc->lock);
		const struct irqaction *a = desc->action;
		unsigned int walked;
		bool found = false;

		for (walked = 0; a && walked < IRQ_MAX_SHARED && !found; a = a->next, walked++)
			found = (a == storage);
		irq_port_unlock_irqrestore(&desc->lock, flags);
		if (found)
			return true;
	}
	return false;
}

int request_irq_static(struct irqaction *storage, unsigned int irq, irq_handler_t handler,
		       unsigned long flags, const char *name, void *dev_id)
{
	int err;

	if (!name)
		name = irq_unnamed;
	if (!storage)
		return irq_refuse(irq, name, (struct irq_refusal){ -IRQ_EINVAL,
				  IRQ_WHY(IRQ_E_REQ_NO_STORAGE, "no storage for the action"), NULL });
	err = irq_check_request(irq, handler, flags, name, dev_id);
	if (err)
		return err;
	if (irq_action_registered(storage))
		return irq_refuse(irq, name, (struct irq_refusal){ -IRQ_EBUSY,
				  IRQ_WHY(IRQ_E_REQ_STORAGE_TWICE, "its storage is registered already, as"), storage->name });
	irq_fill_action(storage, irq, handler, flags, name, dev_id, false);
	return irq_setup_action(irq, storage);
}

/* The last action went: mask the line and forget what was pending. Lock held. */
static void __irq_shutdown(struct irq_desc *desc)
{
	desc->depth = 1;
	desc->status |= IRQS_DISABLED;
	desc->status &= ~(IRQS_PENDING | IRQS_REPLAY);
	__irq_mask(desc);
	irq_port_timer_cancel(&desc->resend_timer);
}

/* Look a line up for an API call; log a bad one. */
static struct irq_desc *irq_api_desc(unsigned int irq, const char *caller)
{
	struct irq_desc *desc = irq_to_desc(irq);

	if (!desc)
		IRQ_SAY(IRQ_E_API_NO_LINE, IRQ_LOG_WARN, irq, "irq: %s(%u): no such line (0..%u); ignored\n", caller, irq,
			(unsigned int)IRQ_NR_LINES - 1);
	return desc;
}

void free_irq(unsigned int irq, void *dev_id)
{
	struct irq_desc *desc = irq_api_desc(irq, "free_irq");
	struct irqaction **link, *victim = NULL;
	unsigned long flags;
	unsigned int walked;

	if (!desc)
		return;
	flags = irq_port_lock_irqsave(&desc->lock);
	link = &desc->action;
	for (walked = 0; *link && walked < IRQ_MAX_SHARED; walked++, link = &(*link)->next) {
		if ((*link)->dev_id == dev_id) {
			victim = *link;
			break;
		}
	}
	if (victim) {
		/* victim->next stays intact: a handler run may be walking past it. */
		irq_action_store(link, victim->next);
		if (--desc->nr_actions == 0)
			__irq_shutdown(desc);
		/* Its expect tokens die, its watch ends (the scheduler's hook, poll.c). */
		__irq_hooks->action_removed(desc, victim);
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
	if (!victim) {
		IRQ_SAY(IRQ_E_FREE_NO_ACTION, IRQ_LOG_WARN, irq, "irq %u: free_irq(dev_id %p): no such action; ignored\n",
			irq, dev_id);
		return;
	}
	/* Not before the run (interrupt, replay, poll) that may use it is over. */
	irq_wait_idle(desc, "free_irq");
	if (victim->from_pool)
		irq_action_release(victim);
}

void disable_irq_nosync(unsigned int irq)
{
	struct irq_desc *desc = irq_api_desc(irq, "disable_irq");
	unsigned long flags;
	bool too_deep;

	if (!desc)
		return;
	flags = irq_port_lock_irqsave(&desc->lock);
	too_deep = desc->depth >= IRQ_DEPTH_MAX;
	if (!too_deep && desc->depth++ == 0) {
		desc->status |= IRQS_DISABLED;
		__irq_mask(desc);
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
	if (too_deep)
		IRQ_SAY(IRQ_E_DISABLE_DEEP, IRQ_LOG_WARN, irq, "irq %u: disable_irq nested deeper than %u; ignored\n", irq,
			(unsigned int)IRQ_DEPTH_MAX);
}

void disable_irq(unsigned int irq)
{
	struct irq_desc *desc = irq_to_desc(irq);

	disable_irq_nosync(irq);
	if (desc)
		irq_wait_idle(desc, "disable_irq");
}

void enable_irq(unsigned int irq)
{
	struct irq_desc *desc = irq_api_desc(irq, "enable_irq");
	uint16_t unbalanced = 0, no_action = 0;
	unsigned long flags;

	if (!desc)
		return;
	flags = irq_port_lock_irqsave(&desc->lock);
	if (desc->depth == 0) {
		unbalanced = ++desc->unbalanced_enables;
	} else if (!desc->action && desc->depth == 1) {
		no_action = ++desc->bad_line_enables;  /* it would unmask a line nobody handles */
	} else if (--desc->depth == 0) {
		__irq_enable_line(desc);
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
	if (irq_report_due(unbalanced))
		IRQ_SAY(IRQ_E_ENABLE_UNBALANCED, IRQ_LOG_WARN, irq,
			"irq %u: unbalanced enable_irq (line not disabled; %llu so far); ignored\n", irq,
			(unsigned long long)unbalanced);
	if (irq_report_due(no_action))
		IRQ_SAY(IRQ_E_ENABLE_NO_HANDLER, IRQ_LOG_WARN, irq,
			"irq %u: enable_irq on a line without handler (%llu so far); line stays off\n", irq,
			(unsigned long long)no_action);
}

void synchronize_irq(unsigned int irq)
{
	struct irq_desc *desc = irq_api_desc(irq, "synchronize_irq");

	if (desc)
		irq_wait_idle(desc, "synchronize_irq");
}
