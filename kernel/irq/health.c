/*
 * health.c - the defences of kernel/irq say what they do. Answering the
 * review of the 2010 patch set ("how long will people run without
 * realizing that there are problems with their system if their devices
 * still work?"): whenever a line or an action starts running on polling it
 * is announced at once (which line, which driver, why), reminded of at a
 * low rate (health_remind_ns of policy.h) while it lasts, and its recovery
 * is announced too. irq_health_report() prints the "IRQ health" summary at
 * the end of boot, and the irqs shell command reads the same state through
 * irq_get_line_health()/irq_get_action_health() (declared in stats.h).
 *
 * The episodes themselves (begin, remind, end, and their announcements)
 * are episode.c's; this file reads the state they and the defences keep.
 *
 * Layer 4, a report: may use layers 0-3 (docs/irq-layers.md).
 */
#include "core.h"
#include "expect_state.h"
#include "stall.h"
#include "watch.h"

/*
 * Sized to the build: an action's health comes only from expecting and
 * watching (its episode, its tokens, its watch), so with both left out
 * irq_get_action_health() answers -IRQ_ENODEV, and each reader reads only
 * the state of the defences built. The terse report (IRQ_HEALTH_TEXT 0)
 * reads the few words it prints under the line's lock, not the readers'
 * full structs.
 */
#define IRQ_ACTION_HEALTH (IRQ_EXPECT || IRQ_WATCH)

/* The line's causes now, and the start and polled count of its oldest episode. Lock held. */
static unsigned int __irq_line_causes(const struct irq_desc *desc, uint64_t *since, uint64_t *polled)
{
	const struct irqaction *a;
	unsigned int walked, causes = 0;
	bool any = false;

	*since = 0;
	*polled = desc->def.polled_claims;
#if IRQ_FLOOD || IRQ_STORM
	if (desc->def.storm.active) {
		causes |= desc->def.storm.cause;
		*since = desc->def.storm.since_ns;
		*polled = desc->def.polled_claims - desc->def.storm.polled_at_start;
		any = true;
	}
#endif
#if IRQ_ACTION_HEALTH
	for (a = desc->action, walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++) {
		if (!a->health.active)
			continue;
		causes |= a->health.cause;
		if (!any || a->health.since_ns < *since) {
			*since = a->health.since_ns;
			*polled = a->polled_handled - a->health.polled_at_start;
			any = true;
		}
	}
#else
	(void)a;
	(void)walked;
#endif
	if (IRQ_FIXUP && desc->def.misroute.active) {
		causes |= IRQ_HEALTH_MISROUTED;
		if (!any || desc->def.misroute.since_ns < *since) {
			*since = desc->def.misroute.since_ns;
			*polled = desc->def.polled_claims - desc->def.misroute.polled_at_start;
		}
	}
	if (irq_poll_all_enabled() && desc->action && (desc->action->flags & IRQF_SHARED))
		causes |= IRQ_HEALTH_IRQPOLL;
	return causes;
}

int irq_get_line_health(unsigned int irq, struct irq_line_health *out)
{
	struct irq_desc *desc = irq_to_desc(irq);
	const struct irq_defence_line *def;
	unsigned long flags;

	if (!desc || !out)
		return -IRQ_EINVAL;
	def = &desc->def;
	flags = irq_port_lock_irqsave(&desc->lock);
	*out = (struct irq_line_health){
		.irq = irq,
		.next_poll_ns = def->poll_at_ns,
		.polls = def->polls,
		.poll_skips = def->poll_skips,
		.cpu = __irq_line_cpu(desc),
		.poll_runs = __irq_stat_sum(desc, IRQ_STAT_POLLED),
		.poll_found = def->polled_claims,
		.poll_beat = def->poll_beat,
		.poll_deferred = def->poll_deferred,
		.poll_busy = def->poll_busy,
		.poll_raced = def->poll_raced,
		.fixup_claims = def->fixup_claims,
		.fixup_last_ns = def->fixup_last_ns,
		.nr_actions = desc->nr_actions,
	};
	/* A left-out defence's figures stay 0 (its state is not in the build). */
#if IRQ_FLOOD || IRQ_STORM
	out->flood_off = def->flood_off;
	out->floods = def->floods;
	out->failed_tests = def->failed_tests;
	out->failed_tests_total = def->failed_tests_total;
	out->backoff_ns = def->flood_backoff_ns;
	out->reenable_at_ns = def->flood_off ? def->flood_reenable_at_ns : 0;
#endif
#if IRQ_TICK_LOOK
	out->tick_looks = def->tick_looks;
	out->tick_polls = def->tick_polls;
	out->tick_stall_waits = def->tick_stall_waits;
#endif
	out->causes = __irq_line_causes(desc, &out->since_ns, &out->polled_completions);
#if IRQ_ACTION_HEALTH
	{
		const struct irqaction *a;
		unsigned int i;

		for (a = desc->action, i = 0; a && i < IRQ_MAX_SHARED; a = a->next, i++) {
#if IRQ_WATCH
			out->stalled += a->watch.stalled_since_boot;
#endif
#if IRQ_EXPECT
			const struct irq_expect *e;
			unsigned int n;

			for (e = a->expects, n = 0; e && n < IRQ_EXPECTS_PER_ACTION; e = e->next, n++)
				out->stalled += e->completions_stalled;
#endif
		}
	}
#endif
	irq_port_unlock_irqrestore(&desc->lock, flags);
	return 0;
}

#if IRQ_WATCH
/* The watch state of @w in words. */
static const char *irq_watch_state_name(const struct irq_watch *w)
{
	if (w->flags & IRQ_WAT_BAD)
		return "bad";
	if (!(w->flags & IRQ_WAT_WATCHING))
		return "off";
	if (w->flags & IRQ_WAT_POLLED)
		return "polled";
	if (w->flags & IRQ_WAT_WARY)
		return "wary";
	return "watching";
}
#endif

int irq_get_action_health(unsigned int irq, unsigned int index, struct irq_action_health *out)
{
	struct irq_desc *desc = irq_to_desc(irq);
	const struct irqaction *a;
	unsigned long flags;
	unsigned int i;

	if (!desc || !out)
		return -IRQ_EINVAL;
	if (!IRQ_ACTION_HEALTH)
		return -IRQ_ENODEV;  /* neither expecting nor watching built: an action has no health to read */
	flags = irq_port_lock_irqsave(&desc->lock);
	a = desc->action;
	for (i = 0; a && i < index && i < IRQ_MAX_SHARED; i++)
		a = a->next;
	if (a && i == index) {
		*out = (struct irq_action_health){
			.name = a->name,
			.dev_id = a->dev_id,
			.causes = a->health.active ? a->health.cause : 0,
			.since_ns = a->health.active ? a->health.since_ns : 0,
			.polled_completions = a->polled_handled - (a->health.active ? a->health.polled_at_start : 0),
			.watch = "off",
		};
#if IRQ_WATCH
		out->watch = irq_watch_state_name(&a->watch);
		out->watch_late = a->watch.late_since_boot;
		out->watch_beat = a->watch.beat_since_boot;
		out->watch_polled = a->watch.polled_since_boot;
		out->watch_pending = a->watch.late_pending;
		out->watch_stalled = a->watch.stalled_since_boot;
#endif
#if IRQ_EXPECT
		{
			const struct irq_expect *e;
			unsigned int n;

			for (e = a->expects, n = 0; e && n < IRQ_EXPECTS_PER_ACTION; e = e->next, n++) {
				out->tokens++;
				out->tokens_verified += (__atomic_load_n(&e->state, __ATOMIC_RELAXED) & IRQ_EXP_VERIFIED) != 0;
				out->completions_irq += e->completions_irq;
				out->completions_polled += e->completions_polled;
				out->timeouts += e->timeouts;
				out->completions_late += e->completions_late;
				out->completions_unsure += e->completions_unsure;
				out->completions_beat += e->completions_beat;
				out->completions_stalled += e->completions_stalled;
				out->safety_waits += e->gate_waits;
			}
		}
#endif
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
	return a && i == index ? 0 : -IRQ_ENOENT;
}

int irq_get_line_diagnosis(unsigned int irq, char *buf, size_t len)
{
	struct irq_desc *desc = irq_to_desc(irq);
	unsigned long flags;
	int r;

	if (!desc || !buf || !len)
		return -IRQ_EINVAL;
	buf[0] = '\0';
	flags = irq_port_lock_irqsave(&desc->lock);
	if (desc->chip && desc->chip->irq_diagnose)
		r = desc->chip->irq_diagnose(&desc->irq_data, buf, len);
	else
		r = -IRQ_ENODEV;
	irq_port_unlock_irqrestore(&desc->lock, flags);
	buf[len - 1] = '\0';   /* whatever the chip wrote, the caller gets a string */
	return r == 1 ? 1 : r == 0 ? 0 : (r < 0 ? r : -IRQ_ENODEV);
}

#if IRQ_HEALTH_TEXT
/* Print the summary lines of one line on polling, with its actions. */
static void irq_health_report_line(unsigned int irq, const struct irq_line_health *lh)
{
	struct irq_action_health ah;
	char causes[96], why[IRQ_DIAGNOSIS_MAX];
	unsigned int i;

	irq_port_log(IRQ_LOG_WARN, "irq health: line %u on polling (%s) since %llu.%03llu s: %llu completions by polling%s\n",
		     irq, irq_health_cause_string(lh->causes, causes, sizeof(causes)), irq_secs(lh->since_ns),
		     irq_msecs(lh->since_ns), (unsigned long long)lh->polled_completions,
		     lh->flood_off ? "; disabled at its controller" : "");
	if (IRQ_MINIMAL)
		return;  /* compact: the line only; irq_get_action_health() has the rest */
	for (i = 0; i < IRQ_MAX_SHARED && irq_get_action_health(irq, i, &ah) == 0; i++)
		irq_port_log(IRQ_LOG_WARN, "irq health:   \"%.*s\": %s%s%s, watch %s, %u expect tokens (%u verified): %llu by interrupt, %llu by polling, %llu timed out\n",
			     IRQ_NAME_LOG_MAX, ah.name, ah.causes ? "on polling (" : "interrupts fine",
			     ah.causes ? irq_health_cause_string(ah.causes, causes, sizeof(causes)) : "",
			     ah.causes ? ")" : "", ah.watch, ah.tokens, ah.tokens_verified,
			     (unsigned long long)ah.completions_irq, (unsigned long long)ah.completions_polled,
			     (unsigned long long)ah.timeouts);
	if (irq_get_line_diagnosis(irq, why, sizeof(why)) == 1)
		irq_port_log(IRQ_LOG_WARN, "irq health:   line %u: its controller says: %s\n", irq, why);
}
#endif

#if IRQ_HEALTH_TEXT
unsigned int irq_health_report(void)
{
	unsigned int irq, listed = 0, with_handlers = 0;
	struct irq_line_health lh;

	for (irq = 0; irq < IRQ_NR_LINES; irq++) {
		if (irq_get_line_health(irq, &lh) || !lh.nr_actions)
			continue;
		with_handlers++;
		if (!lh.causes)
			continue;
		listed++;
		if (lh.causes & ~IRQ_HEALTH_IRQPOLL)
			irq_health_report_line(irq, &lh);
		else
			irq_port_log(IRQ_LOG_WARN, "irq health: line %u polled every %llu ms (irqpoll on the command line)\n",
				     irq, irq_log_ms(irq_policy()->irqpoll_interval_ns));
	}
	/* Lines whose CPU was found not running: late interrupts, not judged (stall.c), said once each. */
	for (irq = 0; !IRQ_MINIMAL && irq < IRQ_NR_LINES; irq++)
		if (!irq_get_line_health(irq, &lh) && lh.nr_actions && lh.stalled)
			irq_port_log(IRQ_LOG_INFO, "irq health: line %u: %llu completions found while CPU %u was not running: late, not judged\n",
				     irq, (unsigned long long)lh.stalled, lh.cpu);
	if (!irq_defences_active())
		irq_port_log(IRQ_LOG_WARN, "irq health: defences off (noirqdebug or not started): lost or flooding interrupts go unnoticed\n");
	else if (!listed)
		irq_port_log(IRQ_LOG_INFO, "irq health: all %u lines with handlers deliver by interrupt (profile %s)\n",
			     with_handlers, irq_policy()->name);
	return listed;
}
#else
unsigned int irq_health_report(void)
{
	unsigned int irq, causes, listed = 0, with_handlers = 0;
	uint64_t since, polled;
	unsigned long flags;
	bool off;

	for (irq = 0; irq < IRQ_NR_LINES; irq++) {
		struct irq_desc *desc = irq_to_desc(irq);

		flags = irq_port_lock_irqsave(&desc->lock);
		causes = desc->nr_actions ? __irq_line_causes(desc, &since, &polled) : 0;
		with_handlers += desc->nr_actions != 0;
		off = irq_line_flood_off(desc);
		irq_port_unlock_irqrestore(&desc->lock, flags);
		if (!causes)
			continue;
		listed++;
		/* Terse: the line, its cause bits (IRQ_HEALTH_*), since (ms), completions by polling, off (1/0). */
		irq_port_log(IRQ_LOG_WARN, "irq health: %u 0x%x %llu %llu %u\n", irq, causes, irq_log_ms(since),
			     (unsigned long long)polled, (unsigned int)off);
	}
	/* Terse: lines listed, lines with handlers, whether the defences run. */
	irq_port_log(IRQ_LOG_INFO, "irq health: %u/%u %u\n", listed, with_handlers, (unsigned int)irq_defences_active());
	return listed;
}
#endif
