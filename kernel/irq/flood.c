/*
 * flood.c - the flood defence: a line whose interrupts nobody claims is
 * disabled at its chip and its handlers polled instead; after a back-off
 * it is re-enabled to test whether the flood stopped, and off again for
 * longer if not (spurious.c has the design of the three defences and the
 * accounting that judges the segments; docs/defences.md the state machine;
 * policy.h the numbers).
 *
 * The line off interrupts, its re-enable test, its back-off and its episode
 * are one state per line, shared with the claimed-storm defence (storm.c),
 * which takes a line off through __irq_line_off() too; so the defence table
 * has one entry for both, irq_defence_flood (struct irq_defence,
 * irq_sched.h), built when either defence is.
 *
 * Locking: irq_flood_judge() runs as the owner of the run (note_interrupt,
 * lock not held) and takes desc->lock for what it changes; everything else
 * here is called with the lock held.
 *
 * Layer 3, a defence: may use layers 0-2 (docs/irq-layers.md).
 */
#include "episode.h"
#include "flood.h"
#include "irq_sched.h"

#if IRQ_FLOOD || IRQ_STORM
/*
 * Shift-count bound of a back-off change: 2^63 ns is 292 years, so more
 * than this many doublings cannot mean anything.
 */
#define IRQ_FLOOD_SHIFT_MAX 63

/* a << shift, saturating at IRQ_POLICY_FOREVER (which stays forever). */
static uint64_t irq_flood_grow(uint64_t a, uint64_t shift, uint64_t max)
{
	if (a == IRQ_POLICY_FOREVER || shift > IRQ_FLOOD_SHIFT_MAX || a > (max >> shift))
		return max;
	return a << shift;
}

/*
 * __irq_line_off - take the line off interrupts for a flood or (@claimed)
 * a storm of claimed interrupts: masked at its chip, polled instead, the
 * re-enable test set after the back-off, which grows for the next time.
 * Lock held. RETURNS the time off.
 */
#if IRQ_STORM
uint64_t __irq_line_off(struct irq_desc *desc, const struct irq_policy *p, bool claimed, uint64_t now)
#else
/* Without the storm defence (IRQ_STORM 0) __irq_flood_trip is the one caller: static, folded in there. */
static uint64_t __irq_line_off(struct irq_desc *desc, const struct irq_policy *p, bool claimed, uint64_t now)
#endif
{
	struct irq_defence_line *def = &desc->def;
	uint64_t off_for;

	off_for = def->flood_backoff_ns > p->spr_backoff_min_ns ? def->flood_backoff_ns : p->spr_backoff_min_ns;
	if (off_for > p->spr_backoff_max_ns)
		off_for = p->spr_backoff_max_ns;
	def->flood_backoff_ns = irq_flood_grow(off_for, p->spr_backoff_grow_shift, p->spr_backoff_max_ns);
	def->flood_off = true;
	def->off_claimed = claimed;
	def->flood_off_since_ns = now;
	def->flood_reenable_at_ns = off_for >= IRQ_POLICY_FOREVER - now ? IRQ_POLICY_FOREVER : now + off_for;
	def->poll_gap_ns = p->poll_quick_ns;
	desc->status |= IRQS_DISABLED;
	__irq_mask(desc);
	return off_for;
}

/*
 * __irq_flood_trip - a segment was a flood (or, @cpu_pct non-zero, a storm
 * window of unclaimed interrupts whose runs took that share of a CPU:
 * irq_flood_trip_by_cpu): disable the line at its chip, poll its actions
 * instead, and set the time of the re-enable test. @unhandled of @samples
 * interrupts in @took ns. Lock held.
 */
static void __irq_flood_trip(struct irq_desc *desc, const struct irq_policy *p, unsigned int unhandled,
			     unsigned int samples, uint64_t took, unsigned int cpu_pct, uint64_t now)
{
	struct irq_defence_line *def = &desc->def;
	uint64_t off_for;

	if (def->flood_off || !desc->action)
		return;
	if (def->flood_testing && def->off_claimed) {
		/* Testing after a claimed storm, and now nobody claims: a new episode, a flood. */
		__irq_health_end(desc, NULL, &def->storm, "claimed storm over, but the line floods", now);
		def->flood_testing = false;
		def->failed_tests = 0;
	}
	off_for = __irq_line_off(desc, p, false, now);
	IRQ_TRACE(IRQ_TEV_STATE, desc->irq_data.irq, IRQ_TSTATE_FLOOD_OFF, irq_log_ms(off_for));
	if (def->flood_testing) {
		/* The re-enable test failed: the episode goes on, quietly (reminders tell). */
		def->flood_testing = false;
		def->failed_tests++;
		def->failed_tests_total++;
		if (irq_report_due(def->failed_tests))
			irq_port_log(IRQ_LOG_WARN, "irq %u: still flooding after re-enable (%u failed tests): off again for %llu ms; "
				     "this line is said again at %llu failed tests\n",
				     desc->irq_data.irq, (unsigned int)def->failed_tests, irq_log_ms(off_for),
				     (unsigned long long)irq_report_next(def->failed_tests));
	} else {
		def->floods++;              /* a new storm; its failed re-enable tests are counted apart */
		__irq_health_begin(desc, NULL, &def->storm, IRQ_HEALTH_STORM,
				   "flood of unclaimed interrupts: line disabled at its controller, handlers polled "
				   "(none claimed them: the source may be a device without a driver, not a handler named here)", now);
		if (cpu_pct && off_for == IRQ_POLICY_FOREVER)
			irq_port_log(IRQ_LOG_WARN, "irq %u: %u of %u interrupts unclaimed in %llu ms, their runs %u %% of a CPU (bound %u %%); "
				     "off for good, polled every %llu ms\n", desc->irq_data.irq, unhandled, samples, irq_log_ms(took),
				     cpu_pct, (unsigned int)p->storm_cpu_pct, irq_log_ms(p->spr_poll_ns));
		else if (cpu_pct)
			irq_port_log(IRQ_LOG_WARN, "irq %u: %u of %u interrupts unclaimed in %llu ms, their runs %u %% of a CPU (bound %u %%); "
				     "polled every %llu ms, re-enable test in %llu ms\n", desc->irq_data.irq, unhandled, samples,
				     irq_log_ms(took), cpu_pct, (unsigned int)p->storm_cpu_pct, irq_log_ms(p->spr_poll_ns),
				     irq_log_ms(off_for));
		else if (off_for == IRQ_POLICY_FOREVER)
			irq_port_log(IRQ_LOG_WARN, "irq %u: %u of %u interrupts unclaimed in %llu ms; off for good, polled every %llu ms\n",
				     desc->irq_data.irq, unhandled, samples, irq_log_ms(took), irq_log_ms(p->spr_poll_ns));
		else
			irq_port_log(IRQ_LOG_WARN, "irq %u: %u of %u interrupts unclaimed in %llu ms; polled every %llu ms, re-enable test in %llu ms\n",
				     desc->irq_data.irq, unhandled, samples, irq_log_ms(took), irq_log_ms(p->spr_poll_ns),
				     irq_log_ms(off_for));
	}
	__irq_poll_reschedule(desc, now);
}

/* __irq_flood_test_passed - a re-enabled line did not flood: the episode ends. Lock held. */
static void __irq_flood_test_passed(struct irq_desc *desc, uint64_t now)
{
	IRQ_TRACE(IRQ_TEV_STATE, desc->irq_data.irq, IRQ_TSTATE_FLOOD_OVER, 0);
	desc->def.flood_testing = false;
	desc->def.failed_tests = 0;
	__irq_health_end(desc, NULL, &desc->def.storm, desc->def.off_claimed ?
			 "claimed storm over, line back on interrupts" : "flood over, line back on interrupts", now);
}

/*
 * irq_flood_judge - the segment is complete: a flood, or a good one that
 * shrinks the back-off (and passes a re-enable test). CONTEXT: the owner
 * of the run, lock not held.
 */
void irq_flood_judge(struct irq_desc *desc, const struct irq_policy *p, uint64_t now)
{
	struct irq_flood_segment seg = desc->def.seg;
	uint64_t took = now - seg.start_ns;
	/* IRQ_FLOOD 0 (irq_config.h): never a flood; the segment still shrinks a storm's back-off. */
	bool flood = IRQ_FLOOD && seg.samples >= p->spr_min_samples &&
		     (uint64_t)seg.unhandled * IRQ_POLICY_PPM >= p->spr_bad_ppm * seg.samples &&
		     (p->spr_judge_on_time || !p->spr_segment_ns || took <= p->spr_segment_ns);
	unsigned long flags;

	desc->def.seg = (struct irq_flood_segment){ .last_unhandled_ns = seg.last_unhandled_ns };
	flags = irq_port_lock_irqsave(&desc->lock);
	if (flood) {
		__irq_flood_trip(desc, p, seg.unhandled, seg.samples, took, 0, now);
	} else if (!(desc->def.off_claimed && desc->def.storm.active)) {
		/* A good segment; but in a claimed storm's episode every segment is "good". */
		if (p->spr_backoff_shrink_shift > IRQ_FLOOD_SHIFT_MAX)
			desc->def.flood_backoff_ns = 0;
		else
			desc->def.flood_backoff_ns >>= p->spr_backoff_shrink_shift;
		if (desc->def.flood_testing && !desc->def.off_claimed)
			__irq_flood_test_passed(desc, now);
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
}

#if IRQ_STORM
/*
 * irq_flood_trip_by_cpu - a storm window's interrupts, unclaimed in a
 * flood's share, took more than storm_cpu_pct of a CPU (storm.c,
 * irq_storm_cpu_look): a flood by the CPU time it takes, judged before
 * (or without) a segment of spr_min_samples. Issue 28: a bursty stream of
 * storm_cpu_after_irqs (32) or more in a window but under 100 in
 * spr_segment_ns is no flood by its segments and, unclaimed, no claimed
 * storm, yet its bursts may take any share of a CPU. The segment starts
 * over, as after any judgement. CONTEXT: the owner of the run, lock not held.
 */
void irq_flood_trip_by_cpu(struct irq_desc *desc, const struct irq_policy *p, unsigned int irqs,
			   unsigned int unclaimed, uint64_t took, unsigned int cpu_pct, uint64_t now)
{
	unsigned long flags;

	desc->def.seg = (struct irq_flood_segment){ .last_unhandled_ns = desc->def.seg.last_unhandled_ns };
	flags = irq_port_lock_irqsave(&desc->lock);
	__irq_flood_trip(desc, p, unclaimed, irqs, took, cpu_pct ? cpu_pct : 1, now);
	irq_port_unlock_irqrestore(&desc->lock, flags);
}
#endif
#endif /* IRQ_FLOOD || IRQ_STORM */

void __irq_flood_poll_due(struct irq_desc *desc, uint64_t now, uint64_t due_by)
{
#if !(IRQ_FLOOD || IRQ_STORM)
	(void)desc;
	(void)now;
	(void)due_by;  /* both left out: no line is ever taken off */
#else
	struct irq_defence_line *def = &desc->def;
	const struct irq_policy *p = irq_policy();

	if (def->flood_testing &&
	    due_by - def->flood_off_since_ns >= (def->off_claimed ? p->storm_window_ns : p->spr_segment_ns)) {
		/* Re-enabled a segment's (storm window's) time ago and no flood (storm) was judged since. */
		__irq_flood_test_passed(desc, now);
		__irq_poll_want_moved(desc);
		return;
	}
	if (!def->flood_off || due_by < def->flood_reenable_at_ns)
		return;
	__irq_poll_want_moved(desc);
	IRQ_TRACE(IRQ_TEV_STATE, desc->irq_data.irq, IRQ_TSTATE_REENABLE, def->failed_tests);
	def->flood_off = false;
	def->flood_testing = true;
	/* From here flood_off_since_ns is when the test started. */
	def->flood_off_since_ns = now;
	/* Nobody wrote the segment or the storm window while the line was off (no interrupt ran). */
	def->seg = (struct irq_flood_segment){ 0 };
	def->storm_win_start_ns = now;
	def->storm_win_irqs = 0;
	def->storm_win_claimed = 0;
	if (def->failed_tests == 0)
		irq_port_log(IRQ_LOG_INFO, "irq %u: re-enabled to test whether the %s stopped\n", desc->irq_data.irq,
			     def->off_claimed ? "claimed storm" : "flood");
	else if (irq_report_due(def->failed_tests))
		irq_port_log(IRQ_LOG_INFO, "irq %u: re-enabled to test whether the %s stopped (test %u; this line is "
			     "said again at test %llu)\n", desc->irq_data.irq, def->off_claimed ? "claimed storm" : "flood",
			     (unsigned int)def->failed_tests + 1, (unsigned long long)irq_report_next(def->failed_tests) + 1);
	if (desc->depth == 0 && desc->action)
		__irq_enable_line(desc);
#endif
}

uint64_t __irq_flood_deadline(const struct irq_desc *desc, uint64_t now)
{
#if !(IRQ_FLOOD || IRQ_STORM)
	(void)desc;
	(void)now;
	return 0;  /* both left out: no line is ever taken off */
#else
	const struct irq_defence_line *def = &desc->def;
	const struct irq_policy *p = irq_policy();
	uint64_t next, base;

	(void)now;
	if (def->flood_testing)
		return def->flood_off_since_ns + (def->off_claimed ? p->storm_window_ns : p->spr_segment_ns);
	if (!def->flood_off)
		return 0;
	base = def->last_poll_ns > def->flood_off_since_ns ? def->last_poll_ns : def->flood_off_since_ns;
	/* A throttled storm is polled at its fixed rate: each poll finds work, so no quick polls. */
	next = base + (def->off_claimed ? p->storm_poll_ns : __irq_poll_gap(desc, p->spr_poll_ns));
	return next < def->flood_reenable_at_ns ? next : def->flood_reenable_at_ns;
#endif
}

#if IRQ_FLOOD || IRQ_STORM
/* The flood defence's answer to the scheduler: only a line off or on its re-enable test wants a poll. */
static uint64_t irq_flood_next_poll(struct irq_desc *desc, uint64_t now)
{
	return desc->def.flood_off || desc->def.flood_testing ? __irq_flood_deadline(desc, now) : 0;
}

/* The poll timer fired: a re-enable or a passed test may be due (only on a line off or on test). */
static void irq_flood_expired(struct irq_desc *desc, uint64_t now, uint64_t due_by)
{
	if (desc->def.flood_off || desc->def.flood_testing)
		__irq_flood_poll_due(desc, now, due_by);
}

/* The line's last action left: the line is on again, no storm episode. Lock held. */
static void irq_flood_line_reset(struct irq_desc *desc)
{
	struct irq_defence_line *def = &desc->def;

	if (def->storm.active)
		irq_port_log(IRQ_LOG_INFO, "irq %u: last handler freed; flood defence reset\n", desc->irq_data.irq);
	/*
	 * Only what the lock protects: a run of the handler being freed may
	 * still be writing the owner's fields (seg, polled_claims ...), and
	 * since-boot counters survive the line's drivers.
	 */
	def->flood_off = false;
	def->flood_testing = false;
	def->flood_off_since_ns = 0;
	def->flood_reenable_at_ns = 0;
	def->flood_backoff_ns = 0;
	def->failed_tests = 0;
	def->off_claimed = false;
	def->storm.active = false;
	def->storm.cause = 0;
}

/* The flood and claimed-storm defence as the poll scheduler sees it (irq_sched.h; the assembly lists it). */
const struct irq_defence irq_defence_flood = {
	.name = "flood",
	.why = IRQ_TRACE_WHY_FLOOD,
	.next_poll = irq_flood_next_poll,
	.expired = irq_flood_expired,
	.line_reset = irq_flood_line_reset,
};
#endif
