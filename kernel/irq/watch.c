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
 *
 * A poll that found work has not proved the interrupt lost (irqkit,
 * watch_late_window_ns; the idea of expect.c's delayed verdict): a device
 * that signals on its own clock (UHCI: at the next 1 ms frame) may have
 * its interrupt on the way while the poll takes the work, and then the
 * interrupt arrives and nobody claims it. So the finds wait (late_pending)
 * until an unclaimed interrupt of the line comes - each one makes one of
 * them a delivery by interrupt ("late") - or the window, counted from the
 * first of them, is over: what is left was found by polling (counted and,
 * the first time, announced). A period is not judged while finds wait.
 * tejun2010 (window 0) counts them at once, as the 2010 patch did.
 * With a chip that can tell (irq_chip::irq_pending), a find while the
 * line's interrupt was pending is late at once, window or not (see
 * __irq_watch_count).
 *
 * The window is guest time on the poll's CPU; the interrupt goes to the
 * line's CPU, which may not be running (a descheduled virtual CPU): the
 * verdict "polled" also waits until that CPU has run since the first find
 * (__irq_cpu_ran, stall.c). Finds that waited while it was found not
 * running are, when its interrupt comes after all, "late (CPU not
 * running)": counted apart, in neither count of the period.
 *
 * When watching ends by a verdict, one info line says so with the counts
 * since watch_irq, healthy or not, so that the log shows it either way.
 *
 * A standing watch (watch_irq_keep, irqkit's addition for devices that
 * have no time-out to re-arm the watch from: a keyboard, a mouse) never
 * ends by a verdict: where watching would end - healthy, recovered, or too
 * few deliveries to judge - the next period begins at the slow rate, and
 * only a recovery is logged (the health episode's end, with its counts).
 * Wary and bad work as for any watch. So a lost interrupt of such a device
 * is found by the next watch poll however long it has been quiet.
 *
 * The scheduler asks and tells it through irq_defence_watch (struct
 * irq_defence, irq_sched.h).
 *
 * Layer 3, a defence: may use layers 0-2 (docs/irq-layers.md).
 */
#include "episode.h"
#include "irq_sched.h"
#include "stall.h"
#include "watch.h"

#if IRQ_WATCH
/* Percent, for the period's ratio. */
#define IRQ_PERCENT 100u

/* Counts of one period saturate here instead of wrapping. */
#define IRQ_WATCH_COUNT_MAX UINT32_MAX

static uint32_t irq_watch_add(uint32_t a, uint64_t b)
{
	return b >= (uint64_t)(IRQ_WATCH_COUNT_MAX - a) ? IRQ_WATCH_COUNT_MAX : a + (uint32_t)b;
}

/* Count @n deliveries of @action by interrupt (@late of them found by a poll first). Lock held. */
static void __irq_watch_add_by_irq(struct irq_watch *w, uint64_t n, uint64_t late)
{
	w->nr_samples = irq_watch_add(w->nr_samples, n);
	w->total_samples = irq_watch_add(w->total_samples, n);
	w->total_late = irq_watch_add(w->total_late, late);
	w->late_since_boot += late;
}

/* Count @n deliveries of @action that polls found and no interrupt followed; announce the first. Lock held. */
static void __irq_watch_add_by_poll(struct irq_desc *desc, struct irqaction *action, uint64_t n, uint64_t now)
{
	struct irq_watch *w = &action->watch;

	if (!n)
		return;
	w->nr_samples = irq_watch_add(w->nr_samples, n);
	w->nr_polled = irq_watch_add(w->nr_polled, n);
	w->total_samples = irq_watch_add(w->total_samples, n);
	w->total_polled = irq_watch_add(w->total_polled, n);
	w->polled_since_boot += n;
	IRQ_TRACE(IRQ_TEV_VERDICT, desc->irq_data.irq, IRQ_TVERD_WATCH_POLLED, n);
	if (!(w->flags & (IRQ_WAT_POLLED | IRQ_WAT_BAD))) {
		w->flags |= IRQ_WAT_POLLED;
		__irq_health_begin(desc, action, &action->health, IRQ_HEALTH_WATCH_BAD,
				   "watch: a poll found work its interrupt should have delivered; polled", now);
	}
}

/* Forget the finds awaiting their verdict (the flood defence polls, or watching stops). Lock held. */
static void __irq_watch_late_drop(struct irq_desc *desc, struct irq_watch *w)
{
	if (!w->late_pending)
		return;
	w->late_pending = 0;
	__atomic_sub_fetch(&desc->def.watch_late_open, 1, __ATOMIC_RELAXED);
}

/*
 * Judge the finds of @action awaiting their verdict: each unclaimed
 * interrupt of the line since the first of them makes one late (by
 * interrupt); once @window_over, the rest were found by polling. Lock held.
 */
static void __irq_watch_late_settle(struct irq_desc *desc, struct irqaction *action, bool window_over, uint64_t now)
{
	struct irq_watch *w = &action->watch;
	/* late_unhandled may run ahead: reserved for finds beaten to a pending interrupt (__irq_watch_count). */
	uint64_t unhandled = __irq_stat_sum(desc, IRQ_STAT_UNHANDLED);
	uint64_t unclaimed = unhandled > w->late_unhandled ? unhandled - w->late_unhandled : 0;
	uint64_t late = unclaimed < w->late_pending ? unclaimed : w->late_pending;
	uint32_t rest;

	if (!w->late_pending)
		return;
	if (w->late_waited && (late || __irq_stat_sum(desc, IRQ_STAT_DELIVERED) != w->late_delivered)) {
		/*
		 * The line's CPU was found not running while these waited
		 * (stall.c): an interrupt came once it ran again, the edges of
		 * every find merged into it (or the level held) - unclaimed, or
		 * claimed by work that came meanwhile. Late, not judged:
		 * counted apart, neither a delivery by interrupt nor by polling
		 * for the period's ratio.
		 */
		w->late_unhandled += late;
		w->stalled_since_boot += w->late_pending;
		IRQ_TRACE(IRQ_TEV_VERDICT, desc->irq_data.irq, IRQ_TVERD_WATCH_STALLED, w->late_pending);
		__irq_watch_late_drop(desc, w);
		return;
	}
	w->late_unhandled += late;
	if (late)
		IRQ_TRACE(IRQ_TEV_VERDICT, desc->irq_data.irq, IRQ_TVERD_WATCH_LATE, late);
	__irq_watch_add_by_irq(w, late, late);
	rest = w->late_pending - (uint32_t)late;
	if (rest && window_over && !__irq_cpu_ran(&w->late_mark)) {
		/* No verdict of "polled" before the line's CPU has run since the first find (stall.c). */
		if (__irq_cpu_stalled(&w->late_mark, now))
			w->late_waited = true;
		window_over = false;
	}
	if (rest && !window_over) {
		w->late_pending = rest;
		return;
	}
	if (rest && !(action->flags & IRQF_NEXT_ON_READ) &&
	    (action->handled != w->late_handled || desc->busy_irqs != w->late_busy_irqs)) {
		/*
		 * No unclaimed interrupt, but this action's own interrupt came
		 * since and its handler claimed work: the line delivers, and the
		 * finds' edges merged into that interrupt (an edge raised again
		 * before the CPU took the first: a PIO disk whose next block a
		 * poll's handler started while the line's CPU was slow to take
		 * the interrupt). Late: as expecting's "unsure", not "polled"
		 * (test_loaded.py: a PIO disk watched after a driver time-out,
		 * on a host at load 16). So is an interrupt the line's CPU took
		 * while a poll ran the handlers (desc->busy_irqs): left to the
		 * poll, and on a level line not replayed (the poll had cleared
		 * the device), it leaves no other trace. A device whose
		 * interrupts never come has no such interrupt. Not for
		 * IRQF_NEXT_ON_READ: there the interrupt after a poll's read is
		 * the next byte's own edge (an i8042 whose byte stuck), never a
		 * merged one.
		 */
		IRQ_TRACE(IRQ_TEV_VERDICT, desc->irq_data.irq, IRQ_TVERD_WATCH_LATE, rest);
		__irq_watch_late_drop(desc, w);
		__irq_watch_add_by_irq(w, rest, rest);
		return;
	}
	__irq_watch_late_drop(desc, w);  /* closes the batch (late_pending still counts it open) */
	__irq_watch_add_by_poll(desc, action, rest, now);
}

/* Count the deliveries of @action since the last look. Lock held, owner of the run. */
static void __irq_watch_count(struct irq_desc *desc, struct irqaction *action, const struct irq_policy *p,
			      uint64_t now)
{
	struct irq_watch *w = &action->watch;
	uint64_t by_irq = action->handled - w->seen_handled;
	uint64_t by_poll = action->polled_handled - w->seen_polled;

	w->seen_handled = action->handled;
	w->seen_polled = action->polled_handled;
	if (irq_line_flood_off(desc) || irq_line_flood_testing(desc)) {
		w->started_ns = now;  /* no verdict while the flood defence polls the line */
		__irq_watch_late_drop(desc, w);
		return;
	}
	__irq_watch_add_by_irq(w, by_irq, 0);
	if (w->late_pending)
		__irq_watch_late_settle(desc, action, now - w->late_from_ns >= p->watch_late_window_ns, now);
	if (!by_poll)
		return;
	/* An interrupt pending only after the handlers of an IRQF_NEXT_ON_READ device is its next work's. */
	if (__irq_poll_pending_counts(desc, (action->flags & IRQF_NEXT_ON_READ) ? desc->def.poll_pending_before
										 : desc->def.poll_pending)) {
		/*
		 * The line's interrupt was pending at the controller while the
		 * poll took the work (irq_chip::irq_pending): it was on its way,
		 * so the finds are late - good deliveries - at once, whatever the
		 * window. The interrupt, when the CPU takes it, finds nothing to
		 * claim; it is reserved for these finds so that it does not also
		 * settle older finds awaiting their verdict. "Not pending" proves
		 * nothing (the device may signal later, an 8259 in level mode
		 * forgets a request once the device is cleared): the window rule
		 * stays for those.
		 */
		__irq_watch_add_by_irq(w, by_poll, by_poll);
		w->beat_since_boot += by_poll;
		if (w->late_pending)
			w->late_unhandled += by_poll;
		return;
	}
	if (!p->watch_late_window_ns) {
		__irq_watch_add_by_poll(desc, action, by_poll, now);
		return;
	}
	if (!w->late_pending) {
		__atomic_add_fetch(&desc->def.watch_late_open, 1, __ATOMIC_RELAXED);
		w->late_from_ns = now;
		w->late_unhandled = __irq_stat_sum(desc, IRQ_STAT_UNHANDLED);
		/* Where the line's CPU stood: the verdict "polled" waits until it has run since (stall.c). */
		__irq_cpu_mark(desc, &w->late_mark, now);
		w->late_waited = w->late_mark.late_poll;
		w->late_delivered = __irq_stat_sum(desc, IRQ_STAT_DELIVERED);
		w->late_handled = action->handled;
		w->late_busy_irqs = irq_busy_irqs_before_find(desc);
	}
	w->late_pending = irq_watch_add(w->late_pending, by_poll);
}

void __irq_watch_unclaimed(struct irq_desc *desc, uint64_t now)
{
	struct irqaction *a = desc->action;
	unsigned int walked;

	for (walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++)
		if ((a->watch.flags & IRQ_WAT_WATCHING) && a->watch.late_pending)
			__irq_watch_late_settle(desc, a, false, now);
	/* The poll at the end of the window may not be needed any more. */
	__irq_poll_reschedule(desc, now);
}

/* Stop watching @action; @how says why (NULL: silently, the action leaves). Lock held. */
static void __irq_watch_end(struct irq_desc *desc, struct irqaction *action, const char *how, uint64_t now)
{
	struct irq_watch *w = &action->watch;

	if (!(w->flags & IRQ_WAT_WATCHING))
		return;
	w->flags &= ~IRQ_WAT_WATCHING;
	IRQ_TRACE(IRQ_TEV_STATE, desc->irq_data.irq, IRQ_TSTATE_WATCH_END, 0);
	__irq_watch_late_drop(desc, w);
	__atomic_sub_fetch(&desc->def.watching, 1, __ATOMIC_RELAXED);
	if (how && (action->health.cause & IRQ_HEALTH_WATCH_BAD))
		__irq_health_end(desc, action, &action->health, how, now);
}

/* Say that watching @action ended (@how: IRQ_TEXT("watch ended"); a standing watch: what goes on) with
 * @verdict, with its counts since watch_irq. Lock held. */
static void __irq_watch_log_end(const struct irq_desc *desc, const struct irqaction *action, const char *how,
				const char *verdict, uint64_t now)
{
	const struct irq_watch *w = &action->watch;
	unsigned int by_irq = (unsigned int)(w->total_samples - w->total_polled);

	if (!IRQ_HEALTH_TEXT)
		/* Terse: deliveries by interrupt, all deliveries, late ones, the period's seconds. */
		irq_port_log(IRQ_LOG_INFO, "irq %u: \"%.*s\": watch end %u/%u late %u after %llu s\n",
			     desc->irq_data.irq, IRQ_NAME_LOG_MAX, action->name, by_irq, (unsigned int)w->total_samples,
			     (unsigned int)w->total_late, (unsigned long long)((now - w->since_ns) / IRQ_POLICY_S));
	else if (w->total_late)
		irq_port_log(IRQ_LOG_INFO, "irq %u: \"%.*s\": %s after %llu s: %u of %u deliveries by interrupt (%u late, after a poll had found the work): %s\n",
			     desc->irq_data.irq, IRQ_NAME_LOG_MAX, action->name, how,
			     (unsigned long long)((now - w->since_ns) / IRQ_POLICY_S), by_irq,
			     (unsigned int)w->total_samples, (unsigned int)w->total_late, verdict);
	else
		irq_port_log(IRQ_LOG_INFO, "irq %u: \"%.*s\": %s after %llu s: %u of %u deliveries by interrupt: %s\n",
			     desc->irq_data.irq, IRQ_NAME_LOG_MAX, action->name, how,
			     (unsigned long long)((now - w->since_ns) / IRQ_POLICY_S), by_irq,
			     (unsigned int)w->total_samples, verdict);
}

/*
 * A standing watch's period ended where a plain one would end watching:
 * say so only if the action was on polling (it recovered), then watch on
 * from the slow rate with fresh counts. Lock held.
 */
static void __irq_watch_renew(struct irq_desc *desc, struct irqaction *action, uint64_t now)
{
	struct irq_watch *w = &action->watch;

	if (action->health.active && (action->health.cause & IRQ_HEALTH_WATCH_BAD)) {
		__irq_watch_log_end(desc, action, IRQ_TEXT("standing watch, period over"), IRQ_TEXT("recovered; watched on"), now);
		__irq_health_end(desc, action, &action->health, IRQ_TEXT("watch: deliveries by interrupt again"), now);
	}
	w->flags &= ~(IRQ_WAT_POLLED | IRQ_WAT_WARY);
	w->nr_samples = 0;
	w->nr_polled = 0;
	w->since_ns = now;
	w->total_samples = 0;
	w->total_polled = 0;
	w->total_late = 0;
}

/* The period of @action is over: judge it. Lock held. */
static void __irq_watch_judge(struct irq_desc *desc, struct irqaction *action, const struct irq_policy *p,
			      uint64_t now)
{
	struct irq_watch *w = &action->watch;
	uint64_t polled_pct = (uint64_t)w->nr_polled * IRQ_PERCENT;

	if (w->nr_samples >= p->watch_min_samples) {
		if (polled_pct <= p->watch_wary_pct * w->nr_samples && (w->flags & IRQ_WAT_KEEP)) {
			__irq_watch_renew(desc, action, now);
		} else if (polled_pct <= p->watch_wary_pct * w->nr_samples) {
			__irq_watch_log_end(desc, action, IRQ_TEXT("watch ended"), IRQ_TEXT(action->health.active ? "recovered" : "healthy"), now);
			__irq_watch_end(desc, action, IRQ_TEXT("watch: deliveries by interrupt again"), now);
		} else if (polled_pct <= p->watch_bad_pct * w->nr_samples) {
			w->flags |= IRQ_WAT_WARY;
		} else {
			w->flags |= IRQ_WAT_BAD;
			IRQ_TRACE(IRQ_TEV_STATE, desc->irq_data.irq, IRQ_TSTATE_WATCH_BAD, w->nr_polled);
			irq_port_log(IRQ_LOG_WARN, "irq %u: \"%.*s\": %u of %u deliveries came by polling: bad, polled for good\n",
				     desc->irq_data.irq, IRQ_NAME_LOG_MAX, action->name, (unsigned int)w->nr_polled,
				     (unsigned int)w->nr_samples);
		}
		w->nr_samples = 0;
		w->nr_polled = 0;
	} else if (w->flags & IRQ_WAT_KEEP) {
		/* Too few to judge: a quiet device with nothing bad seen is watched on from the
		 * slow rate; one on polling stays on polling (carried on, as below). */
		if (!(w->flags & IRQ_WAT_POLLED))
			__irq_watch_renew(desc, action, now);
	} else if (!w->nr_samples || !(w->flags & IRQ_WAT_POLLED)) {
		/* Too little to go on, and nothing bad seen: do not hold on to it. */
		__irq_watch_log_end(desc, action, IRQ_TEXT("watch ended"), IRQ_TEXT("too few to judge"), now);
		__irq_watch_end(desc, action, IRQ_TEXT("watch: ended, too few deliveries to judge"), now);
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
		__irq_watch_count(desc, a, p, now);
		if (w->flags & IRQ_WAT_BAD)
			continue;  /* watched for good: no more periods */
		period = (w->flags & IRQ_WAT_WARY) ? p->watch_wary_period_ns : p->watch_period_ns;
		/*
		 * Finds awaiting their verdict from within this period belong
		 * to it: judge it after them (those found after its end go to
		 * the next, so a device whose every poll finds work is judged).
		 */
		if (now - w->started_ns > period && (!w->late_pending || w->late_from_ns - w->started_ns > period))
			__irq_watch_judge(desc, a, p, now);
	}
}

uint64_t __irq_watch_deadline(const struct irq_desc *desc, const struct irqaction *action, uint64_t now)
{
	const struct irq_policy *p = irq_policy();
	const struct irq_watch *w = &action->watch;
	uint64_t base, gap, at;

	(void)now;
	if (!(w->flags & IRQ_WAT_WATCHING) || !p->watch_on)
		return 0;
	base = desc->def.last_poll_ns > w->started_ns ? desc->def.last_poll_ns : w->started_ns;
	if (w->flags & (IRQ_WAT_POLLED | IRQ_WAT_BAD)) {
		/* On polling: its device may have work any moment (a keyboard every 10 ms, a UHCI frame). */
		gap = __irq_poll_gap(desc, p->poll_normal_ns);
		if (p->watch_poll_max_ns && gap > p->watch_poll_max_ns)
			gap = p->watch_poll_max_ns;
		at = base + gap;
	} else {
		/* All well so far: the longer it has been watched, the slower. */
		gap = base - w->started_ns;
		if (gap < p->watch_interval_ns)
			gap = p->watch_interval_ns;
		if (gap > p->poll_slow_ns)
			gap = p->poll_slow_ns;
		at = base + gap;
	}
	/*
	 * Finds awaiting their verdict: a poll when the window is over settles
	 * them. Past the window and still waiting (the line's CPU has not run
	 * since the first find: stall.c), a look every standstill window
	 * (__irq_stall_window_ns: stall_ns, or two tick periods if longer),
	 * not at once: a look sooner could not yet call the CPU stopped, and
	 * a CPU that runs finishes an interrupt within it.
	 */
	if (w->late_pending) {
		uint64_t settle = w->late_from_ns + p->watch_late_window_ns, look_ns = __irq_stall_window_ns();

		if (look_ns && settle <= desc->def.last_poll_ns)
			settle = desc->def.last_poll_ns + look_ns;
		if (settle < at)
			at = settle;
	}
	return at;
}

void __irq_watch_stop(struct irq_desc *desc, struct irqaction *action)
{
	__irq_watch_end(desc, action, NULL, 0);
	action->watch.flags = 0;
}

/* watch_irq() and watch_irq_keep(): start (or restart) watching; @keep makes it a standing watch. */
static void __watch_irq_start(unsigned int irq, void *dev_id, bool keep, const char *caller)
{
	struct irq_desc *desc = irq_to_desc(irq);
	struct irqaction *action;
	unsigned long flags;
	uint64_t now;

	if (irq_defences_unstarted(irq, caller) || !irq_defences_active() || !irq_policy()->watch_on)
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
		w->flags |= IRQ_WAT_WATCHING | (keep ? IRQ_WAT_KEEP : 0u);
		w->started_ns = now;
		w->since_ns = now;
		w->total_samples = 0;
		w->total_polled = 0;
		w->total_late = 0;
		w->nr_samples = 0;
		w->nr_polled = 0;
		w->seen_handled = action->handled;
		w->seen_polled = action->polled_handled;
		__irq_poll_reschedule(desc, now);
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
	if (!action)
		irq_port_log(IRQ_LOG_WARN, "irq %u: %s(dev_id %p): no such action; ignored\n", irq, caller, dev_id);
}

void watch_irq(unsigned int irq, void *dev_id)
{
	__watch_irq_start(irq, dev_id, false, "watch_irq");
}

void watch_irq_keep(unsigned int irq, void *dev_id)
{
	__watch_irq_start(irq, dev_id, true, "watch_irq_keep");
}

/* Watching's answer to the scheduler: the earliest poll any watched action of the line wants. Lock held. */
static uint64_t irq_watch_next_poll(struct irq_desc *desc, uint64_t now)
{
	struct irqaction *a;
	unsigned int walked;
	uint64_t want = 0;

	/* The count of watched actions (under the lock, as every change of it): none, no walk. */
	if (!__atomic_load_n(&desc->def.watching, __ATOMIC_RELAXED))
		return 0;
	for (a = desc->action, walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++)
		if (a->watch.flags & IRQ_WAT_WATCHING)
			want = irq_poll_earliest(want, __irq_watch_deadline(desc, a, now));
	return want;
}

/* The line's last action left: no action is watched, no find awaits its verdict. Lock held. */
static void irq_watch_line_reset(struct irq_desc *desc)
{
	__atomic_store_n(&desc->def.watching, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&desc->def.watch_late_open, 0, __ATOMIC_RELAXED);
}

/* Watching as the poll scheduler sees it (irq_sched.h; the assembly lists it). */
const struct irq_defence irq_defence_watch = {
	.name = "watch",
	.why = IRQ_TRACE_WHY_WATCH,
	.next_poll = irq_watch_next_poll,
	.action_removed = __irq_watch_stop,
	.line_reset = irq_watch_line_reset,
};

#else /* !IRQ_WATCH */

/*
 * Watching left out (IRQ_WATCH 0, irq_config.h): watch_irq() and
 * watch_irq_keep() do nothing; a caller tells by irq_defences_built()
 * (policy.h), which has no IRQ_DEF_WATCH bit in such a build.
 */
void watch_irq(unsigned int irq, void *dev_id)
{
	(void)irq;
	(void)dev_id;
}

void watch_irq_keep(unsigned int irq, void *dev_id)
{
	(void)irq;
	(void)dev_id;
}

#endif /* IRQ_WATCH */
