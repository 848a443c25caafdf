/*
 * storm.c - the claimed-storm defence: a line whose interrupts its handlers
 * claim, but which come faster than is useful (more than storm_max_claimed
 * in a storm window, or runs that take more than storm_cpu_pct of a CPU),
 * is offered to its drivers' storm callbacks (irq_set_storm_handler), and
 * if none slowed its device, throttled: taken off interrupts through the
 * flood defence's line off (__irq_line_off, flood.c: one line-off state and
 * re-enable test per line, whichever defence took it off) and polled every
 * storm_poll_ns. The window is counted by note_interrupt()'s accounting
 * (spurious.c), which calls irq_storm_account() on its full path and
 * irq_storm_quick_limits() when it sets its quick path's limits. policy.h
 * has the numbers and why; docs/defences.md the state machine.
 *
 * Layer 3, a defence: may use layers 0-2, and the flood defence's line off
 * (docs/irq-layers.md).
 */
#include "episode.h"
#include "flood.h"
#include "irq_sched.h"
#include "storm.h"

#if IRQ_STORM
/*
 * __irq_storm_throttle - a storm of claimed interrupts that no driver
 * slowed: take the line off interrupts (masked, polled every
 * storm_poll_ns), announced at once. Lock held.
 */
static void __irq_storm_throttle(struct irq_desc *desc, const struct irq_policy *p,
				 unsigned int irqs, unsigned int claimed, uint64_t took, uint64_t now)
{
	struct irq_defence_line *def = &desc->def;
	uint64_t off_for;

	if (def->flood_off || !desc->action)
		return;
	if (def->flood_testing && !def->off_claimed) {
		/* Testing after a flood, and now the line storms without flooding: a new episode. */
		__irq_health_end(desc, NULL, &def->storm, "flood over, but the line storms with claimed interrupts", now);
		def->flood_testing = false;
		def->failed_tests = 0;
	}
	off_for = __irq_line_off(desc, p, true, now);
	if (def->flood_testing) {
		def->flood_testing = false;
		def->failed_tests++;
		def->failed_tests_total++;
		if (irq_report_due(def->failed_tests))
			irq_port_log(IRQ_LOG_WARN, "irq %u: claimed storm goes on after re-enable (%u failed tests): throttled again for %llu ms; "
				     "this line is said again at %llu failed tests\n",
				     desc->irq_data.irq, (unsigned int)def->failed_tests, irq_log_ms(off_for),
				     (unsigned long long)irq_report_next(def->failed_tests));
	} else {
		def->claimed_storms++;      /* a new storm; its failed re-enable tests are counted apart */
		__irq_health_begin(desc, NULL, &def->storm, IRQ_HEALTH_CLAIMED_STORM,
				   "storm of claimed interrupts: the device interrupts faster than is useful; "
				   "line masked at its controller, handlers polled at a bounded rate", now);
		irq_port_log(IRQ_LOG_WARN, "irq %u: %u interrupts in %llu us, %u claimed (bound %llu in %llu ms), their runs %u %% "
			     "of a CPU (bound %u %%); polled every %llu ms, re-enable test in %llu ms\n",
			     desc->irq_data.irq, irqs, (unsigned long long)(took / IRQ_POLICY_US), claimed,
			     (unsigned long long)p->storm_max_claimed, irq_log_ms(p->storm_window_ns),
			     (unsigned int)__atomic_load_n(&def->storm_cpu_pct_seen, __ATOMIC_RELAXED),
			     (unsigned int)p->storm_cpu_pct, irq_log_ms(p->storm_poll_ns), irq_log_ms(off_for));
	}
	__irq_poll_reschedule(desc, now);
}

/*
 * irq_storm_ask_drivers - offer the storm to the line's storm callbacks
 * (irq_set_storm_handler). CONTEXT: the owner of the run, lock not held
 * (the action list is walked lock-free, as the flow handlers do).
 * RETURNS true if a driver slowed its device.
 */
static bool irq_storm_ask_drivers(struct irq_desc *desc, unsigned int irqs, unsigned int claimed, uint64_t took)
{
	struct irqaction *a = irq_action_load(&desc->action);
	unsigned int walked;
	bool slowed = false;

	for (walked = 0; a && walked < IRQ_MAX_SHARED; a = irq_action_load(&a->next), walked++) {
		/* Pairs with the release store in irq_set_storm_handler: fn and its dev_id's state. */
		irq_storm_handler_t fn = __atomic_load_n(&a->storm_handler, __ATOMIC_ACQUIRE);

		if (fn && fn(desc->irq_data.irq, a->dev_id, irqs, took) == IRQ_STORM_SLOWED) {
			slowed = true;
			irq_port_log(IRQ_LOG_WARN, "irq %u: \"%.*s\": %u interrupts in %llu us, %u claimed: "
				     "the driver slowed its device (storm callback)\n", desc->irq_data.irq,
				     IRQ_NAME_LOG_MAX, a->name, irqs, (unsigned long long)(took / IRQ_POLICY_US), claimed);
		}
	}
	return slowed;
}

/*
 * The CPU-time test of claimed storms (storm_cpu_pct; policy.h says why).
 * A window that passes storm_cpu_after_irqs interrupts has its next
 * storm_cpu_samples runs timed: irq_storm_timed_flow stands in for the
 * line's flow handler (desc->handle_irq), reads the clock around the whole
 * flow - lock, chip calls, handlers, accounting - and puts the flow back
 * after the last sample. The shortest run is the line's cost; the count at
 * which the window's interrupts times that cost pass storm_cpu_pct of the
 * window is stored (storm_cpu_limit), the quick path looks there
 * (irq_flood_quick_set), and irq_storm_account calls the window a storm,
 * or, when its interrupts are unclaimed in a flood's share, a flood
 * (irq_storm_window_floods).
 * A line that is not timed pays nothing: no test on the path of its
 * interrupts, the stand-in is reached through the flow pointer only.
 *
 * Ordering: the stand-in runs after the owner of the run let go of the
 * line (and may run on two CPUs at once on a line that moves), so what it
 * writes is atomic: storm_run_min_ns (a compare-and-swap minimum),
 * storm_timed_left (a decrement: exactly one caller sees it reach 0 and
 * finishes), then storm_cpu_limit and storm_cpu_state with release
 * stores, which the owner's acquire loads in irq_storm_cpu_look_at pair
 * with: a limit seen is one computed from the samples before it. The
 * original flow (storm_flow) is published before the stand-in replaces it
 * (release, paired with the acquire in the stand-in), and the flow comes
 * back with a compare-and-swap, so a flow a chip set meanwhile
 * (irq_set_handler) is not overwritten. A relaxed race between a stand-in
 * finishing and a new window starting costs one window's test, no more.
 */
/* The CPU-time test's states: enum irq_storm_cpu_state (storm.h). */

/* A new storm window: the CPU-time test starts over (a run still being timed finishes into it). CONTEXT: the owner of the run. */
void irq_storm_cpu_window(struct irq_desc *desc)
{
	struct irq_defence_line *def = &desc->def;
	uint32_t state = __atomic_load_n(&def->storm_cpu_state, __ATOMIC_RELAXED);

	/* Timing whose stand-in a new flow replaced (irq_set_handler) never finishes: start over too. */
	if (state == IRQ_STORM_CPU_KNOWN ||
	    (state == IRQ_STORM_CPU_TIMING && __atomic_load_n(&desc->handle_irq, __ATOMIC_RELAXED) != irq_storm_timed_flow)) {
		__atomic_store_n(&def->storm_cpu_limit, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&def->storm_cpu_state, IRQ_STORM_CPU_IDLE, __ATOMIC_RELAXED);
	}
}

/*
 * Whether the line's runs may be timed for the CPU-time test: not while
 * tracing (the stand-in would run the untraced flow), not on the kernel's
 * clock (IRQF_TIMER: its time includes every timer's, the defences' polls
 * among them), not when every driver of the line expects its interrupts
 * (IRQ expecting: the device interrupts for commands its driver gave, at
 * the pace the driver chose - a PIO disk doing its transfers in its
 * handler takes a third of a CPU under TCG at full speed, and is no
 * storm). CONTEXT: the owner of the run (the action list walked lock-free,
 * as the flows do; nr_expects, which only init_irq_expect and free_irq
 * change, read relaxed).
 */
static bool irq_storm_cpu_eligible(struct irq_desc *desc)
{
	struct irqaction *a = irq_action_load(&desc->action);
	unsigned int walked, paced = 0;

	if (irq_trace_enabled())
		return false;
	for (walked = 0; a && walked < IRQ_MAX_SHARED; a = irq_action_load(&a->next), walked++) {
		if (a->flags & IRQF_TIMER)
			return false;
		paced += __atomic_load_n(&a->nr_expects, __ATOMIC_RELAXED) != 0;
	}
	return walked && paced < walked;
}

/*
 * The window count at which the full path must look for the CPU-time test
 * (UINT32_MAX: none). @fresh: for a window yet to begin; @eligible:
 * irq_storm_cpu_eligible's answer, asked once per full accounting (a line
 * whose answer changes meanwhile - a trace switched on, a handler added -
 * is seen at the next full accounting, at most spr_segment_samples
 * interrupts later; only the CPU-time test waits, the rate bound does
 * not). CONTEXT: the owner of the run, from irq_flood_quick_set (a full
 * accounting: not per interrupt).
 */
static uint32_t irq_storm_cpu_look_at(struct irq_desc *desc, const struct irq_policy *p, bool fresh, bool eligible)
{
	struct irq_defence_line *def = &desc->def;
	uint32_t state = fresh ? IRQ_STORM_CPU_IDLE : __atomic_load_n(&def->storm_cpu_state, __ATOMIC_ACQUIRE);

	if (state == IRQ_STORM_CPU_IDLE && !eligible)
		return UINT32_MAX;  /* never timed: no look at all (a busy expecting disk's windows cost nothing) */

	if (state == IRQ_STORM_CPU_KNOWN) {
		uint32_t limit = __atomic_load_n(&def->storm_cpu_limit, __ATOMIC_RELAXED);

		return limit ? limit - 1 : UINT32_MAX;  /* the quick path counts below it: the full path sees the limit */
	}
	if (state == IRQ_STORM_CPU_TIMING)
		return 0;  /* every interrupt to the full path until the stand-in's answer is in (a few runs) */
	/*
	 * The full path looks at the interrupt that brings the window's count
	 * to storm_cpu_after_irqs (irq_storm_cpu_look); the quick path counts
	 * while the count before it is below the limit, so one less (issue 28:
	 * the count itself let the quick path take that interrupt, and the
	 * window's runs were timed from one interrupt later than the full
	 * path times them).
	 */
	if (!p->storm_cpu_after_irqs)
		return 0;
	return p->storm_cpu_after_irqs <= UINT32_MAX ? (uint32_t)(p->storm_cpu_after_irqs - 1) : UINT32_MAX;
}

/*
 * The share of a CPU that @irqs runs in @took took, by the timed cost of
 * one (0: not timed this window), in percent, kept for the storm's
 * message. CONTEXT: the owner of the run.
 */
static uint32_t irq_storm_cpu_share(struct irq_desc *desc, const struct irq_policy *p, uint32_t irqs, uint64_t took)
{
	struct irq_defence_line *def = &desc->def;
	uint64_t min = __atomic_load_n(&def->storm_run_min_ns, __ATOMIC_RELAXED), pct = 0;

	if (__atomic_load_n(&def->storm_cpu_state, __ATOMIC_ACQUIRE) == IRQ_STORM_CPU_KNOWN && min != UINT32_MAX) {
		if (took < p->storm_window_ns / 100u)
			took = p->storm_window_ns / 100u ? p->storm_window_ns / 100u : 1;  /* a window just begun: a floor */
		pct = (uint64_t)irqs * min * 100u / took;
		if (pct > 999)
			pct = 999;
	}
	__atomic_store_n(&def->storm_cpu_pct_seen, (uint32_t)pct, __ATOMIC_RELAXED);
	return (uint32_t)pct;
}

/* The line's flow while its runs are timed: the whole flow, between two clock reads. CONTEXT: interrupt context, as a flow handler. */
void irq_storm_timed_flow(struct irq_desc *desc)
{
	struct irq_defence_line *def = &desc->def;
	irq_flow_handler_t flow = __atomic_load_n(&def->storm_flow, __ATOMIC_ACQUIRE);
	const struct irq_policy *p = irq_policy();
	uint64_t start = irq_port_now_ns(), took;
	uint32_t ns, min;

	flow(desc);
	took = irq_port_now_ns() - start;
	ns = took < UINT32_MAX ? (uint32_t)took : UINT32_MAX - 1;
	min = __atomic_load_n(&def->storm_run_min_ns, __ATOMIC_RELAXED);
	while (ns < min && !__atomic_compare_exchange_n(&def->storm_run_min_ns, &min, ns, false, __ATOMIC_RELAXED,
							 __ATOMIC_RELAXED))
		;
	if (__atomic_sub_fetch(&def->storm_timed_left, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	/* The last sample: the count at which the window's runs take storm_cpu_pct of it. */
	min = __atomic_load_n(&def->storm_run_min_ns, __ATOMIC_RELAXED);
	{
		uint64_t budget = p->storm_cpu_pct * p->storm_window_ns / 100u;
		uint64_t limit = min ? budget / min + 1 : UINT32_MAX;
		irq_flow_handler_t self = irq_storm_timed_flow;

		__atomic_store_n(&def->storm_cpu_limit, limit < UINT32_MAX ? (uint32_t)limit : UINT32_MAX, __ATOMIC_RELAXED);
		__atomic_store_n(&def->storm_cpu_state, IRQ_STORM_CPU_KNOWN, __ATOMIC_RELEASE);
		__atomic_compare_exchange_n(&desc->handle_irq, &self, flow, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
}

/*
 * irq_storm_window_floods - the window's interrupts are unclaimed in the
 * share that makes a flood (spr_bad_ppm, the flood defence's own rule), so
 * when the CPU-time test finds they take more than storm_cpu_pct of a CPU
 * its verdict is the flood defence's: a flood of unclaimed interrupts,
 * disabled and polled, said as one (irq_flood_trip_by_cpu), not a storm of
 * claimed ones (issue 28). Before, the test called a held level line that
 * nobody claims a storm of claimed interrupts whenever a window held
 * storm_cpu_after_irqs of them (Bochs with noapic: 33 a window, "12
 * interrupts in 3955 us, 0 claimed, their runs 67 % of a CPU"). Nor can
 * the test leave such a window to the flood's segments: a bursty stream
 * of 32 or more in a window but under 100 in spr_segment_ns never makes a
 * segment, however much of a CPU its bursts take. A stream with more
 * claimed interrupts among its unclaimed ones than a flood has (QEMU's
 * HPET comparator with its duplicates, about half) is no flood and stays
 * a claimed storm by its time. Not when the flood defence is left out
 * (IRQ_FLOOD 0), nor under irqfixup (an unclaimed interrupt another
 * line's handler claims counts as claimed in the segment, not in the
 * window): then a claimed storm by its time, as before. CONTEXT: the
 * owner of the run.
 */
static bool irq_storm_window_floods(const struct irq_defence_line *def, const struct irq_policy *p)
{
	uint64_t irqs = def->storm_win_irqs, unclaimed = irqs - def->storm_win_claimed;

	return IRQ_FLOOD && !irq_fixup_enabled() && irqs && unclaimed * IRQ_POLICY_PPM >= p->spr_bad_ppm * irqs;
}

/*
 * irq_storm_cpu_look - the CPU-time test, at the full path of an interrupt
 * of a window with storm_win_irqs counted: start timing the window's runs
 * once storm_cpu_after_irqs came; RETURNS true when the runs timed so far
 * say the window's interrupts took more than storm_cpu_pct of it (the
 * share is kept for the message) and they are not unclaimed in a flood's
 * share; when they are, it trips the flood defence instead
 * (irq_flood_trip_by_cpu) and RETURNS false. Not on the clock's line
 * (IRQF_TIMER), nor while tracing (the stand-in would run the untraced
 * flow). CONTEXT: the owner of the run, lock not held.
 */
static bool irq_storm_cpu_look(struct irq_desc *desc, const struct irq_policy *p, uint64_t now)
{
	struct irq_defence_line *def = &desc->def;
	uint32_t state, limit, pct;
	irq_flow_handler_t flow;

	if (!p->storm_cpu_pct)
		return false;
	state = __atomic_load_n(&def->storm_cpu_state, __ATOMIC_ACQUIRE);
	if (state == IRQ_STORM_CPU_KNOWN) {
		limit = __atomic_load_n(&def->storm_cpu_limit, __ATOMIC_RELAXED);
		if (!limit || def->storm_win_irqs < limit)
			return false;
		pct = irq_storm_cpu_share(desc, p, def->storm_win_irqs, now - def->storm_win_start_ns);
		if (irq_storm_window_floods(def, p)) {
			/*
			 * Unclaimed in a flood's share: no claimed storm, but a
			 * flood by its CPU time (the flood defence's verdict, its
			 * message). The window starts over, as after a storm.
			 */
			uint32_t irqs = def->storm_win_irqs, unclaimed = irqs - def->storm_win_claimed;
			uint64_t took = now - def->storm_win_start_ns;

			def->storm_win_start_ns = now;
			def->storm_win_irqs = 0;
			def->storm_win_claimed = 0;
			irq_storm_cpu_window(desc);
			irq_flood_trip_by_cpu(desc, p, irqs, unclaimed, took, pct, now);
			return false;
		}
		def->storms_by_cpu++;
		return true;
	}
	if (state != IRQ_STORM_CPU_IDLE || def->storm_win_irqs < p->storm_cpu_after_irqs)
		return false;
	/* Not timed this window: say so (limit 0), so the quick path counts on to the bound. */
	__atomic_store_n(&def->storm_cpu_limit, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&def->storm_cpu_state, IRQ_STORM_CPU_KNOWN, __ATOMIC_RELEASE);
	if (!irq_storm_cpu_eligible(desc))
		return false;
	flow = __atomic_load_n(&desc->handle_irq, __ATOMIC_ACQUIRE);
	if (!flow || flow == irq_storm_timed_flow)
		return false;
	__atomic_store_n(&def->storm_run_min_ns, UINT32_MAX, __ATOMIC_RELAXED);
	__atomic_store_n(&def->storm_timed_left, p->storm_cpu_samples ? (uint32_t)p->storm_cpu_samples : 1u, __ATOMIC_RELAXED);
	__atomic_store_n(&def->storm_flow, flow, __ATOMIC_RELEASE);
	__atomic_store_n(&def->storm_cpu_state, IRQ_STORM_CPU_TIMING, __ATOMIC_RELAXED);
	/* Only if nobody changed the flow meanwhile (a chip's set_type); else no test this window. */
	if (!__atomic_compare_exchange_n(&desc->handle_irq, &flow, irq_storm_timed_flow, false, __ATOMIC_RELEASE,
					 __ATOMIC_RELAXED))
		__atomic_store_n(&def->storm_cpu_state, IRQ_STORM_CPU_KNOWN, __ATOMIC_RELEASE);
	return false;
}

/* irq_storm_timed_flow_of - the flow a timed line really has (stats.c's name for it). */
irq_flow_handler_t irq_storm_flow_of(const struct irq_desc *desc, irq_flow_handler_t flow)
{
	return IRQ_STORM && flow == irq_storm_timed_flow ? __atomic_load_n(&desc->def.storm_flow, __ATOMIC_ACQUIRE) : flow;
}

/*
 * irq_storm_account - one interrupt (not a poll) that is no part of a
 * flood: count it into the storm window; more than storm_max_claimed in
 * storm_window_ns is a storm. Unclaimed interrupts count too: a device
 * whose every period brings a claimed interrupt and one or two unclaimed
 * duplicates (QEMU's periodic HPET under -icount, with a quick enough
 * handler) livelocks the CPU as surely, and with a third of them claimed
 * it is neither a flood (95 % unclaimed) nor, counting claimed ones only,
 * a claimed storm. The drivers are asked first, unless one slowed its
 * device less than storm_slow_grace_ns ago (then it did not help);
 * otherwise, or if none could, the line is throttled. CONTEXT: the owner
 * of the run, lock not held.
 */
void irq_storm_account(struct irq_desc *desc, const struct irq_policy *p, bool claimed, uint64_t now)
{
	struct irq_defence_line *def = &desc->def;
	unsigned int irqs, nr_claimed;
	uint64_t took, slowed_at;
	unsigned long flags;

	if (now - def->storm_win_start_ns >= p->storm_window_ns) {
		def->storm_win_start_ns = now;
		def->storm_win_irqs = 0;
		def->storm_win_claimed = 0;
		irq_storm_cpu_window(desc);
	}
	def->storm_win_claimed += claimed;
	if (++def->storm_win_irqs <= p->storm_max_claimed && !irq_storm_cpu_look(desc, p, now))
		return;
	irqs = def->storm_win_irqs;
	nr_claimed = def->storm_win_claimed;
	took = now - def->storm_win_start_ns;
	if (irqs > p->storm_max_claimed)
		irq_storm_cpu_share(desc, p, irqs, took);  /* by the rate: the share too, when its runs were timed */
	def->storm_win_start_ns = now;
	def->storm_win_irqs = 0;
	def->storm_win_claimed = 0;
	irq_storm_cpu_window(desc);
	slowed_at = def->storm_slowed_ns;
	if ((!slowed_at || now - slowed_at > p->storm_slow_grace_ns) &&
	    irq_storm_ask_drivers(desc, irqs, nr_claimed, took)) {
		def->storm_slowed_ns = now ? now : 1;
		return;
	}
	flags = irq_port_lock_irqsave(&desc->lock);
	__irq_storm_throttle(desc, p, irqs, nr_claimed, took, now);
	irq_port_unlock_irqrestore(&desc->lock, flags);
}

/*
 * irq_storm_quick_limits - irq_flood_quick_set's part for the CPU-time test
 * (profiles with storm_max_claimed and storm_cpu_pct): the quick path's
 * claimed-interrupt limits lowered to where the test must look. CONTEXT: the
 * owner of the run, a full accounting.
 */
void irq_storm_quick_limits(struct irq_desc *desc, const struct irq_policy *p)
{
	struct irq_flood_segment *seg = &desc->def.seg;
	/* The CPU-time test looks at storm_cpu_after_irqs, and at the count its timing gave (irq_storm_cpu_look). */
	bool eligible = irq_storm_cpu_eligible(desc);
	uint32_t look = irq_storm_cpu_look_at(desc, p, false, eligible);
	uint32_t fresh = irq_storm_cpu_look_at(desc, p, true, eligible);

	if (look < seg->quick_claimed)
		seg->quick_claimed = look;
	if (fresh < seg->quick_claimed_fresh)
		seg->quick_claimed_fresh = fresh;
}

#else /* !IRQ_STORM */
/* The claimed-storm defence left out (IRQ_STORM 0): no window is timed, no storm is ever judged. */
irq_flow_handler_t irq_storm_flow_of(const struct irq_desc *desc, irq_flow_handler_t flow)
{
	(void)desc;
	return flow;
}
#endif /* IRQ_STORM */

int irq_set_storm_handler(unsigned int irq, void *dev_id, irq_storm_handler_t fn)
{
	struct irq_desc *desc = irq_to_desc(irq);
	struct irqaction *a;
	unsigned int walked;
	unsigned long flags;
	int err = -IRQ_EINVAL;

	if (!IRQ_STORM)
		return -IRQ_ENODEV;  /* the claimed-storm defence is left out (irq_config.h) */
	if (!desc)
		return err;
	flags = irq_port_lock_irqsave(&desc->lock);
	for (a = desc->action, walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++) {
		if (a->dev_id != dev_id)
			continue;
		/* Pairs with the acquire load in irq_storm_ask_drivers. */
		__atomic_store_n(&a->storm_handler, fn, __ATOMIC_RELEASE);
		err = 0;
		break;
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
	if (err)
		irq_port_log(IRQ_LOG_ERR, "irq %u: irq_set_storm_handler: no action with that dev_id\n", irq);
	return err;
}

