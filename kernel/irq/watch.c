/*
 * watch.c - IRQ watching, for drivers that cannot tell when an interrupt is
 * due: watch_irq() has the action polled slowly for a watch period and the
 * polls show whether the interrupt delivers what the device produces. The
 * design is the one of Tejun Heo's 2010 patch set "irq: better
 * lost/spurious irq handling" (see the essay at the top of spurious.c);
 * the code is irqkit's. docs/defences.md has the state machine as a table.
 *
 *   watching  polled at watch_interval_ns, the gap growing with the time
 *             watched up to poll_slow_ns while no poll finds work
 *   polled    a poll found work the interrupt should have delivered:
 *             announced, polled at the normal rate (adaptive in irqkit)
 *   end of a period (watch_period_ns; wary: watch_wary_period_ns), with at
 *   least watch_min_samples deliveries:
 *             polled share <= watch_wary_pct: watching ends (recovered)
 *             <= watch_bad_pct: wary, another (longer) period
 *             more: bad, watched and polled for good
 *   with fewer samples: carried into the next period if a poll found
 *   work, else watching ends
 *
 * Deliveries are counted from the action's own counters (handled by
 * interrupt, polled_handled by poll) when a poll of the line runs, in
 * note_interrupt, where the counters are stable. While the line is off for
 * flooding every delivery comes by polling: that says nothing about the
 * action, so the period is held.
 */
#include "internals.h"

/* Percent, for the period's ratio. */
#define IRQ_PERCENT 100u

/* Counts of one period saturate here instead of wrapping. */
#define IRQ_WATCH_COUNT_MAX UINT32_MAX

static uint32_t irq_watch_add(uint32_t a, uint64_t b)
{
	return b >= (uint64_t)(IRQ_WATCH_COUNT_MAX - a) ? IRQ_WATCH_COUNT_MAX : a + (uint32_t)b;
}

/* Count the deliveries of @action since the last look. Lock held, owner of the run. */
static void __irq_watch_count(struct irq_desc *desc, struct irqaction *action, uint64_t now)
{
	struct irq_watch *w = &action->watch;
	uint64_t by_irq = action->handled - w->seen_handled;
	uint64_t by_poll = action->polled_handled - w->seen_polled;

	w->seen_handled = action->handled;
	w->seen_polled = action->polled_handled;
	if (desc->def.flood_off || desc->def.flood_testing) {
		w->started_ns = now;  /* no verdict while the flood defence polls the line */
		return;
	}
	w->nr_samples = irq_watch_add(w->nr_samples, by_irq + by_poll);
	w->nr_polled = irq_watch_add(w->nr_polled, by_poll);
	if (by_poll && !(w->flags & (IRQ_WAT_POLLED | IRQ_WAT_BAD))) {
		w->flags |= IRQ_WAT_POLLED;
		__irq_health_begin(desc, action, &action->health, IRQ_HEALTH_WATCH_BAD,
				   "watch: a poll found work its interrupt should have delivered; polled", now);
	}
}

/* Stop watching @action; @how says why (NULL: silently, the action leaves). Lock held. */
static void __irq_watch_end(struct irq_desc *desc, struct irqaction *action, const char *how, uint64_t now)
{
	struct irq_watch *w = &action->watch;

	if (!(w->flags & IRQ_WAT_WATCHING))
		return;
	w->flags &= ~IRQ_WAT_WATCHING;
	__atomic_sub_fetch(&desc->def.watching, 1, __ATOMIC_RELAXED);
	if (how && (action->health.cause & IRQ_HEALTH_WATCH_BAD))
		__irq_health_end(desc, action, &action->health, how, now);
}

/* The period of @action is over: judge it. Lock held. */
static void __irq_watch_judge(struct irq_desc *desc, struct irqaction *action, const struct irq_policy *p,
			      uint64_t now)
{
	struct irq_watch *w = &action->watch;
	uint64_t polled_pct = (uint64_t)w->nr_polled * IRQ_PERCENT;

	if (w->nr_samples >= p->watch_min_samples) {
		if (polled_pct <= p->watch_wary_pct * w->nr_samples) {
			__irq_watch_end(desc, action, "watch: deliveries by interrupt again", now);
		} else if (polled_pct <= p->watch_bad_pct * w->nr_samples) {
			w->flags |= IRQ_WAT_WARY;
		} else {
			w->flags |= IRQ_WAT_BAD;
			irq_port_log(IRQ_LOG_WARN, "irq %u: \"%.*s\": %u of %u deliveries came by polling: bad, polled for good\n",
				     desc->irq_data.irq, IRQ_NAME_LOG_MAX, action->name, (unsigned int)w->nr_polled,
				     (unsigned int)w->nr_samples);
		}
		w->nr_samples = 0;
		w->nr_polled = 0;
	} else if (!w->nr_samples || !(w->flags & IRQ_WAT_POLLED)) {
		/* Too little to go on, and nothing bad seen: do not hold on to it. */
		__irq_watch_end(desc, action, "watch: ended, too few deliveries to judge", now);
	}
	w->started_ns = now;
}

void __irq_watch_update(struct irq_desc *desc, uint64_t now)
{
	const struct irq_policy *p = irq_policy();
	struct irqaction *a = desc->action;
	unsigned int walked;

	for (walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++) {
		struct irq_watch *w = &a->watch;
		uint64_t period;

		if (!(w->flags & IRQ_WAT_WATCHING))
			continue;
		__irq_watch_count(desc, a, now);
		if (w->flags & IRQ_WAT_BAD)
			continue;  /* watched for good: no more periods */
		period = (w->flags & IRQ_WAT_WARY) ? p->watch_wary_period_ns : p->watch_period_ns;
		if (now - w->started_ns > period)
			__irq_watch_judge(desc, a, p, now);
	}
}

uint64_t __irq_watch_deadline(const struct irq_desc *desc, const struct irqaction *action, uint64_t now)
{
	const struct irq_policy *p = irq_policy();
	const struct irq_watch *w = &action->watch;
	uint64_t base, gap;

	(void)now;
	if (!(w->flags & IRQ_WAT_WATCHING) || !p->watch_on)
		return 0;
	base = desc->def.last_poll_ns > w->started_ns ? desc->def.last_poll_ns : w->started_ns;
	if (w->flags & (IRQ_WAT_POLLED | IRQ_WAT_BAD))
		return base + __irq_poll_gap(desc, p->poll_normal_ns);
	/* All well so far: the longer it has been watched, the slower. */
	gap = base - w->started_ns;
	if (gap < p->watch_interval_ns)
		gap = p->watch_interval_ns;
	if (gap > p->poll_slow_ns)
		gap = p->poll_slow_ns;
	return base + gap;
}

void __irq_watch_stop(struct irq_desc *desc, struct irqaction *action)
{
	__irq_watch_end(desc, action, NULL, 0);
	action->watch.flags = 0;
}

void watch_irq(unsigned int irq, void *dev_id)
{
	struct irq_desc *desc = irq_to_desc(irq);
	struct irqaction *action;
	unsigned long flags;
	uint64_t now;

	if (!irq_defences_active() || !irq_policy()->watch_on)
		return;
	if (!desc) {
		irq_port_log(IRQ_LOG_WARN, "irq: watch_irq(%u): no such line; ignored\n", irq);
		return;
	}
	flags = irq_port_lock_irqsave(&desc->lock);
	action = __irq_action_find(desc, dev_id);
	if (action) {
		struct irq_watch *w = &action->watch;

		now = irq_port_now_ns();
		if (!(w->flags & IRQ_WAT_WATCHING))
			__atomic_add_fetch(&desc->def.watching, 1, __ATOMIC_RELAXED);
		w->flags |= IRQ_WAT_WATCHING;
		w->started_ns = now;
		w->nr_samples = 0;
		w->nr_polled = 0;
		w->seen_handled = action->handled;
		w->seen_polled = action->polled_handled;
		__irq_poll_reschedule(desc, now);
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
	if (!action)
		irq_port_log(IRQ_LOG_WARN, "irq %u: watch_irq(dev_id %p): no such action; ignored\n", irq, dev_id);
}
