/*
 * episode.c - the episodes the defences begin and end: an episode (struct
 * irq_health_episode) is the time a line (storm, misroute) or an action
 * (lost interrupts seen by expecting or watching) runs on polling. It is
 * announced at once (which line, which driver, why), reminded of at a low
 * rate (health_remind_ns of policy.h) while it lasts, and its end is
 * announced too; with IRQ_HEALTH_TEXT 0 the announcements are numbers
 * (IRQ_TEXT, internals.h). Announcements of episodes that come and go
 * quickly are rate-limited: an episode that begins within health_remind_ns
 * of the last message about the same subject is logged only at the 1st,
 * 2nd, 4th, 8th ... time. The cause words (irq_health_cause_string) are
 * here too, for the reminders and the reports above.
 *
 * Layer 2, a service of the defences: may use layers 0-1 (docs/irq-layers.md).
 */
#include "episode.h"
#include "internals.h"
#include "policy.h"
#include "trace.h"

/*
 * An action's episodes (lost interrupts) are begun only by expecting and
 * watching: with both left out no reminder walks the actions.
 */
#define IRQ_ACTION_EPISODES (IRQ_EXPECT || IRQ_WATCH)

#if IRQ_HEALTH_TEXT
/* Names of the IRQ_HEALTH_* bits, in the order irq_health_cause_string prints them. */
static const struct {
	unsigned int bit;
	const char *name;
} irq_health_names[] = {
	{ IRQ_HEALTH_STORM, "storm" },
	{ IRQ_HEALTH_CLAIMED_STORM, "claimed-storm" },
	{ IRQ_HEALTH_LOST_EXPECT, "lost-while-expecting" },
	{ IRQ_HEALTH_WATCH_BAD, "watch-found-lost" },
	{ IRQ_HEALTH_MISROUTED, "misrouted" },
	{ IRQ_HEALTH_IRQPOLL, "irqpoll" },
};
#endif

/* The driver name a message gives for @action, or for the line's first action. */
static const char *__irq_subject_name(const struct irq_desc *desc, const struct irqaction *action)
{
	if (action)
		return action->name;
	return desc->action ? desc->action->name : "no handler";
}

/* Completions by polling of the subject so far (action, or the whole line). */
static uint64_t __irq_subject_polled(const struct irq_desc *desc, const struct irqaction *action)
{
	return action ? action->polled_handled : desc->def.polled_claims;
}

/* Whether a message about an episode change should be printed now (see the top). */
static bool irq_health_should_log(const struct irq_health_episode *ep, uint64_t now)
{
	return ep->episodes <= 1 || now - ep->last_remind_ns >= irq_policy()->health_remind_ns ||
	       irq_report_due(ep->episodes);
}

void __irq_health_begin_say(struct irq_desc *desc, struct irqaction *action, struct irq_health_episode *ep,
			    unsigned int cause, const char *why, uint64_t now)
{
	bool others = !action && desc->nr_actions > 1;

	if (ep->active) {
		ep->cause |= cause;
		return;
	}
	IRQ_TRACE(IRQ_TEV_STATE, desc->irq_data.irq, IRQ_TSTATE_HEALTH_BEGIN, cause);
	ep->active = true;
	ep->cause = cause;
	ep->since_ns = now;
	ep->polled_at_start = __irq_subject_polled(desc, action);
	ep->episodes++;
	/* Its first reminder (and a misroute's end, later still) comes no sooner: see remind_at_ns. */
	if (desc->def.remind_at_ns > now + irq_policy()->health_remind_ns)
		desc->def.remind_at_ns = now + irq_policy()->health_remind_ns;
	if (IRQ_FIXUP && desc->def.remind_at_ns > desc->def.fixup_last_ns + irq_policy()->health_misroute_window_ns &&
	    ep == &desc->def.misroute)
		desc->def.remind_at_ns = desc->def.fixup_last_ns + irq_policy()->health_misroute_window_ns;
	if (!irq_health_should_log(ep, now))
		;
	else if (!IRQ_HEALTH_TEXT)
		/* Terse: the cause bits (IRQ_HEALTH_* of stats.h), the time, the episode. */
		irq_port_log(IRQ_LOG_WARN, "irq %u: \"%.*s\": health +0x%x at %llu ms, episode %u\n", desc->irq_data.irq,
			     IRQ_NAME_LOG_MAX, __irq_subject_name(desc, action), cause, irq_log_ms(now),
			     (unsigned int)ep->episodes);
	else
		irq_port_log(IRQ_LOG_WARN, "irq %u: \"%.*s\"%s: %s (at %llu.%03llu s, episode %u)\n",
			     desc->irq_data.irq, IRQ_NAME_LOG_MAX, __irq_subject_name(desc, action),
			     others ? " and others" : "", why, irq_secs(now), irq_msecs(now), (unsigned int)ep->episodes);
	ep->last_remind_ns = now;
}

void __irq_health_end_say(struct irq_desc *desc, struct irqaction *action, struct irq_health_episode *ep,
			  const char *how, uint64_t now)
{
	if (!ep->active)
		return;
	if (!irq_health_should_log(ep, now))
		;
	else if (!IRQ_HEALTH_TEXT)
		irq_port_log(IRQ_LOG_INFO, "irq %u: \"%.*s\": health -0x%x after %llu ms, %llu polled\n", desc->irq_data.irq,
			     IRQ_NAME_LOG_MAX, __irq_subject_name(desc, action), ep->cause, irq_log_ms(now - ep->since_ns),
			     (unsigned long long)(__irq_subject_polled(desc, action) - ep->polled_at_start));
	else
		irq_port_log(IRQ_LOG_INFO, "irq %u: \"%.*s\": %s after %llu ms on polling (%llu completions by polling)\n",
			     desc->irq_data.irq, IRQ_NAME_LOG_MAX, __irq_subject_name(desc, action), how,
			     irq_log_ms(now - ep->since_ns),
			     (unsigned long long)(__irq_subject_polled(desc, action) - ep->polled_at_start));
	IRQ_TRACE(IRQ_TEV_STATE, desc->irq_data.irq, IRQ_TSTATE_HEALTH_END, ep->cause);
	ep->active = false;
	ep->cause = 0;
	ep->last_remind_ns = now;
}

/* Whether a reminder of @ep is due at @now (every @every ns while it lasts). */
static inline bool irq_health_remind_due(const struct irq_health_episode *ep, uint64_t now, uint64_t every)
{
	return ep->active && now - ep->last_remind_ns >= every;
}

/* Remind of one episode (irq_health_remind_due said so). Lock held. */
static void __irq_health_remind_one(struct irq_desc *desc, struct irqaction *action, struct irq_health_episode *ep,
				    uint64_t now)
{
	char causes[64];

	if (!IRQ_HEALTH_TEXT) {
		irq_port_log(IRQ_LOG_WARN, "irq %u: \"%.*s\": health =0x%x since %llu ms, %llu polled\n",
			     desc->irq_data.irq, IRQ_NAME_LOG_MAX, __irq_subject_name(desc, action), ep->cause,
			     irq_log_ms(ep->since_ns),
			     (unsigned long long)(__irq_subject_polled(desc, action) - ep->polled_at_start));
		ep->last_remind_ns = now;
		return;
	}
	irq_port_log(IRQ_LOG_WARN, "irq %u: \"%.*s\": still on polling (%s) since %llu.%03llu s: %llu completions by polling\n",
		     desc->irq_data.irq, IRQ_NAME_LOG_MAX, __irq_subject_name(desc, action),
		     irq_health_cause_string(ep->cause, causes, sizeof(causes)), irq_secs(ep->since_ns),
		     irq_msecs(ep->since_ns),
		     (unsigned long long)(__irq_subject_polled(desc, action) - ep->polled_at_start));
	ep->last_remind_ns = now;
}

/* The earlier of @at and when @ep is next reminded of (if it lasts). */
static uint64_t irq_health_next_remind(const struct irq_health_episode *ep, uint64_t every, uint64_t at)
{
	return ep->active && ep->last_remind_ns + every < at ? ep->last_remind_ns + every : at;
}

void __irq_health_remind(struct irq_desc *desc, uint64_t now)
{
	const struct irq_policy *p = irq_policy();
	uint64_t every = p->health_remind_ns, at = UINT64_MAX;
	struct irqaction *a;
	unsigned int walked;

	/*
	 * Asked at every poll: the usual answer, "nothing due", is one
	 * compare (remind_at_ns, which the poll timer also makes before the
	 * call; it was the walk below, about 50 guest instructions per poll
	 * of a line on polling, make prof-ata).
	 */
	if (now < desc->def.remind_at_ns)
		return;
	if (IRQ_FIXUP && desc->def.misroute.active && now - desc->def.fixup_last_ns >= p->health_misroute_window_ns)
		__irq_health_end(desc, NULL, &desc->def.misroute,
				 "irqfixup found none of its work on other lines lately: misroute over", now);
#if IRQ_FLOOD || IRQ_STORM
	if (irq_health_remind_due(&desc->def.storm, now, every))
		__irq_health_remind_one(desc, NULL, &desc->def.storm, now);
#endif
	if (IRQ_FIXUP && irq_health_remind_due(&desc->def.misroute, now, every))
		__irq_health_remind_one(desc, NULL, &desc->def.misroute, now);
#if IRQ_ACTION_EPISODES
	for (a = desc->action, walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++)
		if (irq_health_remind_due(&a->health, now, every))
			__irq_health_remind_one(desc, a, &a->health, now);
#endif
	/* What is due next; an episode that begins meanwhile brings it forward (__irq_health_begin). */
	if (IRQ_FIXUP && desc->def.misroute.active && desc->def.fixup_last_ns + p->health_misroute_window_ns < at)
		at = desc->def.fixup_last_ns + p->health_misroute_window_ns;
#if IRQ_FLOOD || IRQ_STORM
	at = irq_health_next_remind(&desc->def.storm, every, at);
#endif
	if (IRQ_FIXUP)
		at = irq_health_next_remind(&desc->def.misroute, every, at);
#if IRQ_ACTION_EPISODES
	for (a = desc->action, walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++)
		at = irq_health_next_remind(&a->health, every, at);
#else
	(void)a;
	(void)walked;
#endif
	desc->def.remind_at_ns = at;
}


uint64_t __irq_health_deadline(const struct irq_desc *desc)
{
	uint64_t window = irq_policy()->health_misroute_window_ns;

	if (!IRQ_FIXUP || !desc->def.misroute.active)
		return 0;  /* no misroute episode: only irqfixup begins one */
	return desc->def.fixup_last_ns + window;
}

#if IRQ_HEALTH_TEXT
/* Append @text to @buf (of @len, NUL-terminated at @*used); truncates. */
static void irq_health_append(char *buf, size_t len, size_t *used, const char *text)
{
	while (*text && *used + 1 < len)
		buf[(*used)++] = *text++;
	buf[*used] = '\0';
}

const char *irq_health_cause_string(unsigned int causes, char *buf, size_t len)
{
	size_t used = 0, i;

	if (!buf || !len)
		return "";
	buf[0] = '\0';
	for (i = 0; i < sizeof(irq_health_names) / sizeof(irq_health_names[0]); i++) {
		if (!(causes & irq_health_names[i].bit))
			continue;
		if (used)
			irq_health_append(buf, len, &used, ",");
		irq_health_append(buf, len, &used, irq_health_names[i].name);
	}
	return buf;
}
#else
/* Terse: no words; the bits in hex as the terse reports print them ("0x5"; "" for none). */
const char *irq_health_cause_string(unsigned int causes, char *buf, size_t len)
{
	char tmp[11];
	size_t n = 0, used = 0;

	if (!buf || !len)
		return "";
	buf[0] = '\0';
	if (!causes)
		return buf;
	do {
		tmp[n++] = "0123456789abcdef"[causes & 0xFu];
		causes >>= 4;
	} while (causes);
	tmp[n++] = 'x';
	tmp[n++] = '0';
	while (n && used + 1 < len)
		buf[used++] = tmp[--n];
	buf[used] = '\0';
	return buf;
}
#endif
