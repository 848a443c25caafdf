/*
 * spurious.c - what happens after every run of a line's handlers
 * (note_interrupt), the design of kernel/irq's three defences against
 * interrupts that go wrong, and the third of them: the flood defence.
 * The design follows Tejun Heo's 2010 patch set "irq: better lost/spurious
 * irq handling" (IRQ expecting, IRQ watching, spurious IRQ polling) and
 * today's Linux kernel/irq/spurious.c; the code is irqkit's own.
 * docs/defences.md has the state machines as tables and the figures.
 *
 * ---- Two ways an interrupt goes wrong -----------------------------------
 *
 * Too few: the device did its work but the interrupt never reaches its
 * handler. The line is misrouted (firmware tables that lie, an interrupt
 * router set up wrongly, a pin that is not wired), an edge is lost (a
 * controller that drops edges arriving too close together, a device that
 * pulses too briefly), or a device simply forgets to raise it. The driver
 * sees a time-out, often many seconds later, and the device looks dead
 * although it works.
 *
 * Too many: the line keeps interrupting and nobody claims it. A level line
 * stuck asserted (a device without driver, a device whose driver does not
 * clear its cause, the e1000 of QEMU-FACTS with nobody reading ICR), a
 * flood of edges from a broken device. On a level line nobody clears, the
 * CPU does nothing but take that interrupt: the machine locks up.
 *
 * ---- The defences ---------------------------------------------------------
 *
 * All three work by polling: running the line's handlers from the line's
 * own one-shot poll timer, exactly as an interrupt would run them (same
 * exclusion: a poll and an interrupt never run one line's handlers at the
 * same time, an interrupt that comes during a poll is replayed after it,
 * so no completion can be reported twice). A handler has to cope with
 * being called when its device has nothing to say, and return IRQ_NONE
 * then - which every shared handler does anyway.
 *
 * IRQ expecting (expect.c) is for drivers that know when an interrupt is
 * due: a command was issued and its completion will interrupt. The driver
 * calls expect_irq() before issuing it and unexpect_irq() when the
 * completion was found (or the driver gave up). In between the line is
 * polled if the interrupt does not come. Interrupts tend to keep working
 * once they work, so a token whose completions keep arriving by interrupt
 * becomes "verified" and is polled only slowly (2010: a safety net of
 * seconds; irqkit: one safety poll at a few times the device's latency,
 * which the poll timer follows by itself); on that path
 * expect_irq()+unexpect_irq() take no lock and arm no timer.
 * A completion found by a poll, or a time-out, makes the token distrust
 * the line: it is polled soon after each expect_irq(). How soon is where
 * irqkit goes beyond 2010: the token measures how long its completions
 * take when the interrupt does arrive, and schedules the first poll at a
 * few times that (on the high-resolution one-shot timer), so a device whose
 * interrupts are all lost still completes near its own speed instead of
 * once per 10 ms poll.
 *
 * IRQ watching (watch.c) is for drivers that cannot tell when to expect an
 * interrupt (a network card, a keyboard). watch_irq() has the action polled
 * slowly for a watch period; if a poll finds work that the interrupt should
 * have delivered, the action is marked and polled at the normal rate for
 * the rest of the period. At the end of the period its share of polled
 * deliveries decides: low, watching ends; middling, the action becomes
 * wary and is watched for a longer period; high, it is bad and polled for
 * good. A driver calls watch_irq() after registering its handler, and again
 * whenever it sees a time-out.
 *
 * The flood defence (this file) needs no driver: every interrupt of every
 * line is accounted. Interrupts are judged in segments (so many interrupts
 * or so much time, whichever ends first); a segment in which nearly all
 * interrupts were unclaimed is a flood. The line is then disabled at its
 * controller and its actions are polled instead, so a good device sharing
 * the line with a rogue one keeps working. After a back-off the line is
 * re-enabled to test whether the flood stopped; if it floods again it is
 * disabled for twice as long (exponential back-off); good segments shrink
 * the back-off again. Linux today disables a flooding line for good after
 * 99,900 unclaimed of 100,000; the 2010 design after 9,900 of 10,000 and
 * tried again after 100 s. irqkit decides within 200 interrupts (10 ms
 * for a flood of 20,000 a second), never on a healthy line (it judges a
 * ratio, not a rate), and tests again after 100 ms, backing off to at
 * most 10 s (policy.h).
 *
 * ---- How they combine ------------------------------------------------------
 *
 * A line has one poll timer; each defence says when it wants the line
 * polled and poll.c arms the timer for the earliest (a tickless system
 * needs nothing periodic). While a line is off for flooding, expecting and
 * watching see every completion come by polling; watching does not count
 * those against the action, expecting does (its tokens simply poll). Each
 * defence that starts running something on polling announces it at once
 * (health.c: line, driver, why), reminds at a low rate, announces recovery,
 * and shows up in the "IRQ health" summary at the end of boot and in the
 * irqs command. The boot switches of Linux keep their meaning: noirqdebug
 * turns all three off, irqfixup makes every unclaimed interrupt also try
 * the handlers of the other shared lines (a misrouted interrupt may be
 * someone else's), irqpoll adds a periodic poll of every shared line.
 * The numbers live in one table with three profiles (policy.h): irqkit,
 * tejun2010 and mainline.
 *
 * ---- Locking ---------------------------------------------------------------
 *
 * note_interrupt() runs as the owner of the run (IRQS_INPROGRESS set, lock
 * not held): the flood segment is written only there, without the lock.
 * Every decision that changes the line (disable, re-enable, arm the timer,
 * health) takes desc->lock. Expect tokens change their state word
 * atomically, so the verified path needs no lock at all.
 *
 * The scheduler asks and tells the flood defence through irq_defence_flood
 * (struct irq_defence, irq_sched.h).
 *
 * Layer 3, a defence (and note_interrupt, the core's accounting after
 * every run, called by handle.c: the layer check's one sanctioned call
 * up): may use layers 0-2 (docs/irq-layers.md).
 */
#include "episode.h"
#include "flood.h"
#include "irq_sched.h"
#include "watch.h"

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
 * __irq_flood_trip - a segment was a flood: disable the line at its chip,
 * poll its actions instead, and set the time of the re-enable test.
 * Lock held.
 */
/*
 * __irq_line_off - take the line off interrupts for a flood or (@claimed)
 * a storm of claimed interrupts: masked at its chip, polled instead, the
 * re-enable test set after the back-off, which grows for the next time.
 * Lock held. RETURNS the time off.
 */
static uint64_t __irq_line_off(struct irq_desc *desc, const struct irq_policy *p, bool claimed, uint64_t now)
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

static void __irq_flood_trip(struct irq_desc *desc, const struct irq_policy *p,
			     const struct irq_flood_segment *seg, uint64_t now)
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
		if (off_for == IRQ_POLICY_FOREVER)
			irq_port_log(IRQ_LOG_WARN, "irq %u: %u of %u interrupts unclaimed in %llu ms; off for good, polled every %llu ms\n",
				     desc->irq_data.irq, (unsigned int)seg->unhandled, (unsigned int)seg->samples,
				     irq_log_ms(now - seg->start_ns),
				     irq_log_ms(p->spr_poll_ns));
		else
			irq_port_log(IRQ_LOG_WARN, "irq %u: %u of %u interrupts unclaimed in %llu ms; polled every %llu ms, re-enable test in %llu ms\n",
				     desc->irq_data.irq, (unsigned int)seg->unhandled, (unsigned int)seg->samples,
				     irq_log_ms(now - seg->start_ns),
				     irq_log_ms(p->spr_poll_ns), irq_log_ms(off_for));
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
static void irq_flood_judge(struct irq_desc *desc, const struct irq_policy *p, uint64_t now)
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
		__irq_flood_trip(desc, p, &seg, now);
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

#endif /* IRQ_FLOOD || IRQ_STORM */

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
 * (irq_flood_quick_set), and irq_storm_account calls the window a storm.
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
enum irq_storm_cpu_state {
	IRQ_STORM_CPU_IDLE = 0,   /* this window: not timed yet */
	IRQ_STORM_CPU_TIMING,     /* the stand-in is timing runs */
	IRQ_STORM_CPU_KNOWN,      /* storm_cpu_limit holds this window's answer */
};

/* A new storm window: the CPU-time test starts over (a run still being timed finishes into it). CONTEXT: the owner of the run. */
static void irq_storm_timed_flow(struct irq_desc *desc);

static void irq_storm_cpu_window(struct irq_desc *desc)
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
	return p->storm_cpu_after_irqs < UINT32_MAX ? (uint32_t)p->storm_cpu_after_irqs : UINT32_MAX;
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
static void irq_storm_timed_flow(struct irq_desc *desc)
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
 * irq_storm_cpu_look - the CPU-time test, at the full path of an interrupt
 * of a window with storm_win_irqs counted: start timing the window's runs
 * once storm_cpu_after_irqs came; RETURNS true when the runs timed so far
 * say the window's interrupts took more than storm_cpu_pct of it (the
 * share is kept for the message). Not on the clock's line (IRQF_TIMER),
 * nor while tracing (the stand-in would run the untraced flow). CONTEXT:
 * the owner of the run, lock not held.
 */
static bool irq_storm_cpu_look(struct irq_desc *desc, const struct irq_policy *p, uint64_t now)
{
	struct irq_defence_line *def = &desc->def;
	uint32_t state, limit;
	irq_flow_handler_t flow;

	if (!p->storm_cpu_pct)
		return false;
	state = __atomic_load_n(&def->storm_cpu_state, __ATOMIC_ACQUIRE);
	if (state == IRQ_STORM_CPU_KNOWN) {
		limit = __atomic_load_n(&def->storm_cpu_limit, __ATOMIC_RELAXED);
		if (!limit || def->storm_win_irqs < limit)
			return false;
		irq_storm_cpu_share(desc, p, def->storm_win_irqs, now - def->storm_win_start_ns);
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
static void irq_storm_account(struct irq_desc *desc, const struct irq_policy *p, bool claimed, uint64_t now)
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

#else /* !IRQ_STORM */
/* The claimed-storm defence left out (IRQ_STORM 0): no window is timed, no storm is ever judged. */
#if IRQ_FLOOD
static void irq_storm_cpu_window(struct irq_desc *desc)
{
	(void)desc;
}
#endif

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

#if IRQ_FLOOD || IRQ_STORM
/* @a + @b, or UINT64_MAX if that does not fit. */
static uint64_t irq_add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * irq_flood_quick_set - after the full accounting of an interrupt that
 * left the segment open: the limits up to which the next claimed
 * interrupts may take the quick path (irq_flood_account). Each one is
 * where a test of the full path would first come out differently: the
 * segment's end by time (spr_judge_on_time) and the storm window's end
 * (both "now - start >= length"), the sample that completes the segment,
 * the interrupt past storm_max_claimed. The end of a storm window alone
 * the quick path handles itself (the next window starts with the
 * interrupt, nothing else happens): at a disk's few hundred interrupts a
 * second most of them come after the 10 ms window of the one before.
 * CONTEXT: the owner of the run.
 */
static void irq_flood_quick_set(struct irq_desc *desc, const struct irq_policy *p)
{
	struct irq_flood_segment *seg = &desc->def.seg;

	seg->quick_until_ns = p->spr_judge_on_time ? irq_add_sat(seg->start_ns, p->spr_segment_ns) : UINT64_MAX;
	seg->quick_storm_until_ns = IRQ_STORM && p->storm_max_claimed ?
				    irq_add_sat(desc->def.storm_win_start_ns, p->storm_window_ns) : UINT64_MAX;
	seg->quick_window_ns = IRQ_STORM && p->storm_window_ns <= UINT32_MAX ? (uint32_t)p->storm_window_ns : 0;
	seg->quick_samples = p->spr_segment_samples < UINT32_MAX ? (uint32_t)p->spr_segment_samples : UINT32_MAX;
	seg->quick_claimed = !(IRQ_STORM && p->storm_max_claimed) ? UINT32_MAX
			     : p->storm_max_claimed < UINT32_MAX ? (uint32_t)p->storm_max_claimed : UINT32_MAX - 1;
	seg->quick_claimed_fresh = seg->quick_claimed;
#if IRQ_STORM
	if (p->storm_max_claimed && p->storm_cpu_pct) {
		/* The CPU-time test looks at storm_cpu_after_irqs, and at the count its timing gave (irq_storm_cpu_look). */
		bool eligible = irq_storm_cpu_eligible(desc);
		uint32_t look = irq_storm_cpu_look_at(desc, p, false, eligible);
		uint32_t fresh = irq_storm_cpu_look_at(desc, p, true, eligible);

		if (look < seg->quick_claimed)
			seg->quick_claimed = look;
		if (fresh < seg->quick_claimed_fresh)
			seg->quick_claimed_fresh = fresh;
	}
#endif
	seg->quick_gen = __atomic_load_n(&__irq_switches.gen, __ATOMIC_RELAXED);
}

/*
 * irq_flood_account - one interrupt (not a poll) ran the handlers: count
 * it into the segment and judge the segment when it is complete.
 * CONTEXT: the owner of the run, lock not held.
 */
static void irq_flood_account(struct irq_desc *desc, irqreturn_t ret)
{
	const struct irq_policy *p;
	struct irq_flood_segment *seg = &desc->def.seg;
	uint64_t now;

	now = __irq_run_clock_owner(desc);  /* the run's: its handler may have read the clock already */

	/*
	 * The quick path of a claimed interrupt (issue 19: the full one below
	 * cost a healthy disk 70 instructions per interrupt, mostly 64-bit
	 * compares against the profile's values). It only counts, and only
	 * while irq_flood_quick_set's limits say the full path would do
	 * nothing else: no segment has ended by time, the segment is not
	 * complete and the storm bound is not passed; a storm window that has
	 * ended it starts anew itself. So the result is the full path's,
	 * interrupt for interrupt (for a run clock that does not go back; the
 * CPU-time test's eligibility is the one exception: irq_storm_cpu_look_at).
	 * The profile's generation: a relaxed load, as the profile pointer
	 * itself is read; an interrupt that runs while another CPU switches
	 * profiles may count by the old one, as if it had come just before
	 * the switch.
	 */
	if (ret == IRQ_HANDLED && now < seg->quick_until_ns && seg->samples + 1 < seg->quick_samples &&
	    seg->quick_gen == __atomic_load_n(&__irq_switches.gen, __ATOMIC_RELAXED)) {
		struct irq_defence_line *def = &desc->def;

		/* The storm window is over: this interrupt starts the next, as irq_storm_account would. */
		if (IRQ_STORM && now >= seg->quick_storm_until_ns && seg->quick_window_ns) {
			def->storm_win_start_ns = now;
			def->storm_win_irqs = 0;
			def->storm_win_claimed = 0;
			seg->quick_storm_until_ns = now + seg->quick_window_ns;
			irq_storm_cpu_window(desc);
			seg->quick_claimed = seg->quick_claimed_fresh;
		}
		if (now < seg->quick_storm_until_ns && def->storm_win_irqs < seg->quick_claimed) {
			seg->samples++;
			def->storm_win_irqs++;
			def->storm_win_claimed++;
			return;
		}
	}
	p = irq_policy();
	if (ret != IRQ_HANDLED && !(irq_fixup_enabled() && irq_fixup_try_others(desc))) {
		/* Mainline: an unclaimed interrupt long after the last one starts the count again. */
		if (p->spr_unhandled_gap_ns && seg->unhandled &&
		    now - seg->last_unhandled_ns > p->spr_unhandled_gap_ns)
			seg->unhandled = 0;
		seg->unhandled++;
		seg->last_unhandled_ns = now;
	}
#if IRQ_STORM
	if (p->storm_max_claimed) {
		/* Maybe far too many (storms: claimed, or mixed with unclaimed ones). */
		irq_storm_account(desc, p, ret == IRQ_HANDLED, now);
	} else
#endif
	{
		/* No storm defence: the window counts from here, should a profile with one come. */
		desc->def.storm_win_start_ns = now;
		desc->def.storm_win_irqs = 0;
		desc->def.storm_win_claimed = 0;
	}
	if (seg->samples++ == 0)
		seg->start_ns = now;
	if (seg->samples < p->spr_segment_samples &&
	    !(p->spr_judge_on_time && now - seg->start_ns >= p->spr_segment_ns)) {
		irq_flood_quick_set(desc, p);
		return;
	}
	irq_flood_judge(desc, p, now);
}
#else /* !(IRQ_FLOOD || IRQ_STORM) */
static void irq_flood_account(struct irq_desc *desc, irqreturn_t ret)
{
	/* Both left out (irq_config.h): nothing counts the line's interrupts; irqfixup still works. */
	if (ret != IRQ_HANDLED && irq_fixup_enabled())
		irq_fixup_try_others(desc);
}
#endif /* IRQ_FLOOD || IRQ_STORM */

void note_interrupt(struct irq_desc *desc, irqreturn_t ret)
{
	/* desc->status may change under the lock meanwhile; this is ours. */
	bool polled = desc->run_is_poll;

	if (polled)
		irq_stat_inc(desc, IRQ_STAT_POLLED, false);
	else if (ret == IRQ_HANDLED)
		irq_stat_inc(desc, IRQ_STAT_HANDLED, false);
	else
		irq_stat_inc(desc, IRQ_STAT_UNHANDLED, false);
	if (ret == IRQ_HANDLED) {
		/* Read by an unexpect_irq() called after the handler (expect.c). */
		__atomic_store_n(&desc->def.last_claim_by_poll, polled, __ATOMIC_RELAXED);
		if (polled)
			desc->def.polled_claims++;
	}
	if (!irq_defences_active())
		return;
	if (!polled) {
		/* Only interrupts say anything about the line; polls are ours. */
		irq_flood_account(desc, ret);
		if (ret != IRQ_HANDLED && irq_line_watch_late_open(desc)) {
			/* Perhaps the interrupt of work a watch poll took just before: late, not lost. */
			unsigned long flags = irq_port_lock_irqsave(&desc->lock);

			__irq_watch_unclaimed(desc, __irq_run_clock_owner(desc));
			irq_port_unlock_irqrestore(&desc->lock, flags);
		}
	} else if (irq_line_watching(desc)) {
		unsigned long flags = irq_port_lock_irqsave(&desc->lock);

		__irq_watch_update(desc, __irq_run_clock_owner(desc));
		irq_port_unlock_irqrestore(&desc->lock, flags);
	}
}

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
