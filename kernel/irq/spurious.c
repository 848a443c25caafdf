/*
 * spurious.c - what happens after every run of a line's handlers
 * (note_interrupt), the design of kernel/irq's three defences against
 * interrupts that go wrong, and the accounting of every interrupt that
 * feeds the third of them, the flood defence (flood.c), and the
 * claimed-storm defence (storm.c).
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
 * The flood defence (flood.c) needs no driver: every interrupt of every
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
 * Here: note_interrupt() and the accounting (the segments and the storm
 * windows, with the quick path of an interrupt that only counts), which call the
 * flood defence's judgement (irq_flood_judge, flood.c) when a segment is
 * complete and the claimed-storm defence (irq_storm_account, storm.c) on
 * the full path. The scheduler asks and tells the flood and storm defence
 * through irq_defence_flood (flood.c; struct irq_defence, irq_sched.h).
 *
 * Layer 3, with the defences it feeds (note_interrupt, the core's
 * accounting after every run, is called by handle.c: the layer check's one
 * sanctioned call up): may use layers 0-2 and the defences of layer 3
 * (docs/irq-layers.md).
 */
#include "flood.h"
#include "irq_sched.h"
#include "storm.h"
#include "watch.h"

#if IRQ_FLOOD || IRQ_STORM
/*
 * irq_storm_window_quick - the quick path starts a storm window: the
 * CPU-time test starts over (irq_storm_cpu_window, storm.c), which has
 * something to do only when the test began in the window that ended; most
 * windows never begin it (a disk's few hundred interrupts a second), so the
 * quick path asks its state first, as irq_storm_cpu_window would (relaxed).
 * CONTEXT: the owner of the run.
 */
static inline void irq_storm_window_quick(struct irq_desc *desc)
{
#if IRQ_STORM
	if (__atomic_load_n(&desc->def.storm_cpu_state, __ATOMIC_RELAXED) != IRQ_STORM_CPU_IDLE)
		irq_storm_cpu_window(desc);
#else
	(void)desc;
#endif
}

/* @a + @b, or UINT64_MAX if that does not fit. */
static uint64_t irq_add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * irq_flood_quick_set - after the full accounting of an interrupt that
 * left the segment open: the limits up to which the next interrupts
 * may take the quick path (irq_flood_account), and whether unclaimed
 * ones may. Each one is
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
	/*
	 * An unclaimed interrupt may count quickly too unless the full path
	 * would do more with it than count: irqfixup tries the other lines'
	 * handlers (and an interrupt they claim is not unclaimed), mainline's
	 * gap rule may start the count again. Both are fixed while the
	 * generation below is (the switches are boot parameters; a profile
	 * change bumps it).
	 */
	seg->quick_unclaimed = !p->spr_unhandled_gap_ns && !irq_fixup_enabled();
#if IRQ_STORM
	if (p->storm_max_claimed && p->storm_cpu_pct)
		irq_storm_quick_limits(desc, p);  /* storm.c */
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
	bool claimed = ret == IRQ_HANDLED;
	uint64_t now;

	now = __irq_run_clock_owner(desc);  /* the run's: its handler may have read the clock already */

	/*
	 * The quick path (issue 19: the full one below cost a healthy disk 70
	 * instructions per interrupt, mostly 64-bit compares against the
	 * profile's values; issue 28: an uncontained storm whose comparator
	 * adds an unclaimed duplicate to every claimed interrupt paid 234 for
	 * the defences' accounting, the unclaimed half taking the full path).
	 * It only counts, and only while irq_flood_quick_set's limits say the
	 * full path would do nothing else: no segment has ended by time, the
	 * segment is not complete and the storm bound is not passed; a storm
	 * window that has ended it starts anew itself. An unclaimed interrupt
	 * counts here too (into the segment's unclaimed count, as the full
	 * path would) when quick_unclaimed says the full path would only count
	 * it: the flood is judged when the segment completes, which the
	 * full path does. So the result is the full path's, interrupt for
	 * interrupt (for a run clock that does not go back; the CPU-time
	 * test's eligibility is the one exception: irq_storm_cpu_look_at).
	 * The profile's generation: a relaxed load, as the profile pointer
	 * itself is read; an interrupt that runs while another CPU switches
	 * profiles may count by the old one, as if it had come just before
	 * the switch. No ordering is needed for the fields: the owner of the
	 * run alone reads and writes them (the CPU-time test's state, which
	 * the stand-in writes, is read relaxed by irq_storm_window_quick).
	 */
	/*
	 * The window's count is tested first: while the CPU-time test times
	 * runs its limit is 0, and those runs (the full path's) must cost no
	 * more than they did before unclaimed interrupts had a quick path.
	 * A window that ended with its count at the limit goes to the full
	 * path, which starts the next one as the quick path would have.
	 */
	if ((claimed || seg->quick_unclaimed) && desc->def.storm_win_irqs < seg->quick_claimed &&
	    now < seg->quick_until_ns && seg->samples + 1 < seg->quick_samples &&
	    seg->quick_gen == __atomic_load_n(&__irq_switches.gen, __ATOMIC_RELAXED)) {
		struct irq_defence_line *def = &desc->def;

		/* The storm window is over: this interrupt starts the next, as irq_storm_account would. */
		if (IRQ_STORM && now >= seg->quick_storm_until_ns) {
			/* The next window's count (0) must be below its limit too. */
			if (!seg->quick_window_ns || !seg->quick_claimed_fresh)
				goto full;
			def->storm_win_start_ns = now;
			def->storm_win_irqs = 0;
			def->storm_win_claimed = 0;
			seg->quick_storm_until_ns = now + seg->quick_window_ns;
			irq_storm_window_quick(desc);
			seg->quick_claimed = seg->quick_claimed_fresh;
		}
		seg->samples++;
		def->storm_win_irqs++;
		if (claimed) {
			def->storm_win_claimed++;
		} else {
			seg->unhandled++;
			seg->last_unhandled_ns = now;
			IRQ_POLL_COUNT(def->quick_unclaimed_counts);
		}
		return;
	}
full:
	p = irq_policy();
	if (!claimed && !(irq_fixup_enabled() && irq_fixup_try_others(desc))) {
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
		irq_storm_account(desc, p, claimed, now);
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

