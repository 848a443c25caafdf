/*
 * poll.c - the per-line poll timer of kernel/irq's defences: each defence
 * says when it wants the line polled (through the defence table: the flood
 * defence, expecting, watching; and irqpoll here) and the timer is
 * armed for the earliest of those times, as a one-shot timer, so nothing
 * runs periodically unless a defence asks for it and a tickless kernel
 * stays tickless. Also here: irqfixup (an unclaimed interrupt tries the
 * handlers of every other shared line) and irqpoll (every shared line is
 * polled periodically), the boot options of Linux's
 * Documentation/admin-guide/kernel-parameters.txt - done through the
 * per-line timers, where Linux's irqpoll used one global periodic timer,
 * which a one-shot tick did not fire (as the 2010 mail notes).
 *
 * A poll runs the line's handlers through irq_poll_line() (handle.c), under
 * the core's exclusion; what it found is accounted by note_interrupt(),
 * like any run. Only lines whose actions are all shared are polled by
 * irqfixup and irqpoll: a shared handler must cope with interrupts that are
 * not its device's, an exclusive one may not. Expecting, watching and the
 * flood defence poll their line whatever its flags: the driver asked for
 * it, or the handler is being called in vain by the flood anyway.
 *
 * The defences are asked and told through the table the assembly gave the
 * scheduler (struct irq_defence, irq_sched.h; __irq_sched_init): when each
 * next wants the line polled and why, what is due at a timer's expiry, a
 * poll that ran, an action that left, a line whose last action left. This
 * file names none of them; irqpoll and irqfixup are its own, and the
 * misroute episode's end is health reporting's (episode.c, layer 2).
 *
 * Layer 2, the poll scheduler: may use layers 0-2 (docs/irq-layers.md).
 */
#include "episode.h"
#include "irq_sched.h"
#include "stall.h"

/*
 * No two polls of one line closer than this (ns): a safety net against a
 * defence asking for a time already passed, which would otherwise make the
 * timer fire again and again at one instant.
 */
#define IRQ_POLL_MIN_GAP_NS 10000ull
/*
 * The poll timer's lateness (expiry to callback: interrupt entry, the
 * timer queue, and under an emulator the host's wake-up) is followed by a
 * lopsided average: a sample below it moves it by 1/2^DOWN of the
 * difference, one above by 1/2^UP, each bounded by IRQ_POLL_LATE_MAX_NS.
 * It settles near the lateness the timer nearly always has; occasional
 * long delays (a periodic tick's coarse timers, a busy host under an
 * emulator, one long interrupts-off stretch) must not move every poll far
 * ahead of its time, where it would only find the device still busy.
 */
#define IRQ_POLL_LATE_DOWN_SHIFT 1
#define IRQ_POLL_LATE_UP_SHIFT 4
#define IRQ_POLL_LATE_MAX_NS 50000ull
/* Polls run back to back after the first of one timer expiry, at most (see irq_poll_timer_poll). */
#define IRQ_POLL_RERUN_MAX 6


/*
 * The defences the assembly gave the scheduler (__irq_sched_init): a
 * NULL-terminated table of const entries. NULL before irq_core_init.
 */
static const struct irq_defence *const *irq_sched_defences;

void __irq_sched_init(const struct irq_defence *const *table)
{
	irq_sched_defences = table;
}

/* Walk the table: @d each defence in turn, at most IRQ_DEFENCES_MAX. */
#define for_each_defence(d, i)                                                                        \
	for ((i) = 0; irq_sched_defences && (i) < IRQ_DEFENCES_MAX && ((d) = irq_sched_defences[i]); (i)++)

/*
 * The line's poll-time generation (see __irq_poll_want_moved, internals.h):
 * its own changes plus a profile change (__irq_switches.gen, every line).
 */
static uint32_t __irq_poll_want_gen(const struct irq_desc *desc)
{
	return __atomic_load_n(&desc->def.want_gen, __ATOMIC_SEQ_CST) +
	       __atomic_load_n(&__irq_switches.gen, __ATOMIC_SEQ_CST);
}

/* Whether the line's actions are shared (so that irqfixup/irqpoll may call them). Lock held. */
static bool __irq_line_shared(const struct irq_desc *desc)
{
	return desc->action && (desc->action->flags & IRQF_SHARED);
}

uint64_t __irq_poll_gap(const struct irq_desc *desc, uint64_t base_ns)
{
	uint64_t gap = desc->def.poll_gap_ns;

	if (!irq_policy()->poll_adaptive || !gap || gap > base_ns)
		return base_ns;
	return gap;
}

/* When irqpoll wants the line polled (0: not at all). Lock held. */
static uint64_t __irq_poll_all_deadline(struct irq_desc *desc, uint64_t now)
{
	uint64_t interval = irq_policy()->irqpoll_interval_ns;

	if (!irq_poll_all_enabled() || !__irq_line_shared(desc))
		return 0;
	if (desc->def.polls)
		return desc->def.last_poll_ns + interval;
	/* Not polled yet: an interval after irqpoll first asked (not after every look). */
	if (!desc->def.irqpoll_from_set) {  /* (a flag: 0 is a time like any other) */
		desc->def.irqpoll_from_set = true;
		desc->def.irqpoll_from_ns = now;
	}
	return desc->def.irqpoll_from_ns + interval;
}

/*
 * For the trace: which defences want the line polled by @now (plus the
 * timer's lateness), as IRQ_TRACE_WHY_* bits. Lock held.
 */
static unsigned int __irq_poll_why(struct irq_desc *desc, uint64_t now)
{
	uint64_t by = now + desc->def.poll_late_ns, t;
	const struct irq_defence *d;
	unsigned int why = 0, i;

	for_each_defence(d, i) {
		t = d->next_poll ? d->next_poll(desc, now) : 0;
		why |= t && t <= by ? d->why : 0;
	}
	t = __irq_poll_all_deadline(desc, now);
	why |= t && t <= by ? IRQ_TRACE_WHY_IRQPOLL : 0;
	t = __irq_health_deadline(desc);
	why |= t && t <= by ? IRQ_TRACE_WHY_HEALTH : 0;
	return why;
}

/* The earliest time any defence wants the line polled (0: none). Lock held. */
static uint64_t __irq_poll_want(struct irq_desc *desc, uint64_t now)
{
	struct irq_defence_line *def = &desc->def;
	const struct irq_defence *d;
	unsigned int i;
	uint64_t want = 0;

	if (!irq_defences_active() || !desc->action)
		return 0;
	/*
	 * Each defence is asked; each answers 0 at its first test when its
	 * state wants no poll (this runs after every poll of a line whose
	 * interrupts are lost, and most lines have one defence at work).
	 */
	for_each_defence(d, i)
		if (d->next_poll)
			want = irq_poll_earliest(want, d->next_poll(desc, now));
	if (irq_poll_all_enabled())
		want = irq_poll_earliest(want, __irq_poll_all_deadline(desc, now));
	if (IRQ_FIXUP && def->misroute.active)
		want = irq_poll_earliest(want, __irq_health_deadline(desc));
	if (want && def->polls && want < def->last_poll_ns + IRQ_POLL_MIN_GAP_NS)
		want = def->last_poll_ns + IRQ_POLL_MIN_GAP_NS;
	return want;
}

/*
 * Arm (or cancel) the poll timer for @want (0: none), as __irq_poll_want
 * computed it at generation @gen (read before it). Lock held.
 */
static void __irq_poll_arm(struct irq_desc *desc, uint64_t want, uint64_t now, uint32_t gen)
{
	struct irq_defence_line *def = &desc->def;

	def->armed_want_ns = want;
	def->armed_gen = gen;

	/*
	 * Arm early by the timer's measured lateness, so that the poll runs
	 * when it was wanted (never before now: the timer then fires as soon
	 * as it can) - but by at most half the time from the last poll to the
	 * wish. An expiry takes a wish within the lateness as due, so a wish
	 * closer to the last poll than the lateness, which that expiry does
	 * not consume (a gap shorter than the lateness, a flood re-enable at
	 * its exact time), would be armed for now again and again: polls back
	 * to back, and on a virtual clock at one instant for ever (the host
	 * port's "timer storm").
	 */
	if (want) {
		uint64_t late = def->poll_late_ns;

		if (def->polls && want > def->last_poll_ns && late > (want - def->last_poll_ns) / 2)
			late = (want - def->last_poll_ns) / 2;
		want = want > now + late ? want - late : now;
	}

	if (!want) {
		if (def->poll_at_ns) {
			irq_poll_cancel(desc);
			IRQ_TRACE(IRQ_TEV_POLL_ARM, desc->irq_data.irq, 1, 0);
			def->poll_at_ns = 0;
			__atomic_store_n(&def->poll_at_word, 0, __ATOMIC_SEQ_CST);
		}
		return;
	}
	if (want == def->poll_at_ns)
		return;
	irq_poll_schedule(desc, want);
	IRQ_TRACE(IRQ_TEV_POLL_ARM, desc->irq_data.irq, 0, (want - now) / 1000u);
	def->poll_at_ns = want;
	__atomic_store_n(&def->poll_at_word, irq_poll_word_encode(want), __ATOMIC_SEQ_CST);
	IRQ_POLL_COUNT(def->poll_arms);
}

void __irq_poll_reschedule(struct irq_desc *desc, uint64_t now)
{
	uint32_t gen = __irq_poll_want_gen(desc);

	__irq_poll_arm(desc, __irq_poll_want(desc, now), now, gen);
}

/*
 * At the poll timer's expiry: the time a poll is wanted, from what the
 * timer was armed for (@armed_ns: poll_at_ns, 0 if armed by hand) when
 * nothing moved since (__irq_poll_want_moved), else worked out again.
 * Lock held.
 */
static uint64_t __irq_poll_want_at_expiry(struct irq_desc *desc, uint64_t armed_ns, uint64_t now)
{
	struct irq_defence_line *def = &desc->def;

	if (armed_ns && def->armed_want_ns && def->armed_gen == __irq_poll_want_gen(desc)) {
#ifdef IRQ_POLL_WANT_CHECK
		/* Unless another CPU is between a lock-free change and its bump (__irq_poll_want_change_begin). */
		if (__irq_poll_want(desc, now) != def->armed_want_ns &&
		    !__atomic_load_n(&def->want_changing, __ATOMIC_SEQ_CST) &&
		    def->armed_gen == __irq_poll_want_gen(desc))
			__builtin_trap();  /* a change that moved the poll time without __irq_poll_want_moved */
#endif
		IRQ_POLL_COUNT(def->poll_want_reused);
		return def->armed_want_ns;
	}
	return __irq_poll_want(desc, now);
}

/* After a poll: adapt the gap of the fast polls to what the poll found. Lock held. */
static void __irq_poll_adapt(struct irq_desc *desc, int found)
{
	const struct irq_policy *p = irq_policy();
	struct irq_defence_line *def = &desc->def;

	if (!p->poll_adaptive)
		return;
	if (found == IRQ_HANDLED)
		def->poll_gap_ns = p->poll_quick_ns;  /* work comes in bursts: look again soon */
	else if (!def->poll_gap_ns)
		def->poll_gap_ns = p->poll_normal_ns;
	else if (def->poll_gap_ns < p->poll_normal_ns)
		def->poll_gap_ns = def->poll_gap_ns * 2 < p->poll_normal_ns ? def->poll_gap_ns * 2 : p->poll_normal_ns;
}

/* Fold how late the timer came into the line's lateness (see IRQ_POLL_LATE_DOWN_SHIFT). Lock held. */
static void __irq_poll_note_lateness(struct irq_desc *desc, uint64_t now)
{
	struct irq_defence_line *def = &desc->def;
	uint64_t late, avg = def->poll_late_ns;

	if (!def->poll_at_ns || now <= def->poll_at_ns)
		return;
	late = now - def->poll_at_ns;
	if (late > IRQ_POLL_LATE_MAX_NS)
		late = IRQ_POLL_LATE_MAX_NS;
	/* Down fast, up slowly: it tracks how late the timer usually is at least, not its hiccups. */
	def->poll_late_ns = late >= avg ? avg + ((late - avg) >> IRQ_POLL_LATE_UP_SHIFT)
					: avg - ((avg - late) >> IRQ_POLL_LATE_DOWN_SHIFT);
}

/* A run of back-to-back polls from one timer expiry (see irq_poll_timer_poll). */
struct irq_poll_chain {
	unsigned int why;     /* IRQ_TRACE_WHY_* of this expiry, for the trace (0 when not tracing) */
	unsigned int polls;   /* polled back to back so far, after the first */
	uint64_t spin_until;  /* empty polls may follow until then (0: not after a find) */
};

/*
 * One poll of the line from the poll timer, and what follows from it.
 * After a poll that found work (the device is busy now), a poll wanted
 * again sooner than the timer could bring it (its measured lateness) runs
 * at once: waiting for the timer would only make it later. And for as long
 * as that lateness after a find, a poll that found nothing is followed by
 * another at once: the timer could not bring one sooner, and the device,
 * which just took the next command, is due any moment. At most
 * IRQ_POLL_RERUN_MAX in a row. The next poll is worked out once per poll
 * and the timer armed only when the run ends (a rerun used to arm it and
 * cancel it again). Lock held (*@flags), on return too. RETURNS whether
 * to poll again now.
 */
static bool irq_poll_timer_poll(struct irq_desc *desc, uint64_t poll_ns, struct irq_poll_chain *chain,
				unsigned long *flags)
{
	struct irq_defence_line *def = &desc->def;
	const struct irq_defence *d;
	unsigned int i;
	uint64_t now, want, late;
	/* @poll_ns read just before it (irq_poll_timer_expired); lock held before and after. */
	int found = irq_poll_line_at(desc, chain->why, poll_ns, flags);
	bool again, deferred;
	uint32_t gen;

	now = irq_port_now_ns();
	def->last_poll_ns = now;
#if IRQ_EXPECT
	/* A real poll: the recheck (expect.c) counts from here no more. */
	__atomic_store_n(&def->recheck_word, 0, __ATOMIC_SEQ_CST);
#endif
	/*
	 * The seq_cst store pairs with expect_irq's seq_cst read-modify-write
	 * of its token's state followed by its seq_cst load of
	 * timer_poll_running (a store-buffering pair, expect.c): either that
	 * load sees false here and expect_irq reschedules under the lock
	 * itself, or the token loads below (__irq_poll_want, seq_cst) see its
	 * IRQ_EXP_EXPECTING and arm the timer for it. With weaker orderings
	 * both could miss the other on another CPU (each store still in its
	 * CPU's store buffer), and the expect would have no poll at all.
	 */
	__atomic_store_n(&def->timer_poll_running, false, __ATOMIC_SEQ_CST);
	deferred = found == -IRQ_EINPROGRESS;
	if (!deferred) {  /* a poll that left the work to the pending interrupt looked at nothing */
		__irq_poll_adapt(desc, found);
		for_each_defence(d, i)
			if (d->polled)
				d->polled(desc, poll_ns);
	}
	if (now >= def->remind_at_ns)  /* a reminder or a misroute's end may be due (health.c) */
		__irq_health_remind(desc, now);
	gen = __irq_poll_want_gen(desc);
	want = __irq_poll_want(desc, now);
	for_each_defence(d, i)
		if (d->replanned)
			d->replanned(desc);
	late = def->poll_late_ns;
	if (found == IRQ_HANDLED)
		chain->spin_until = now + late;
	/* Armed for want, the timer would fire at want - late, not before now (__irq_poll_arm). */
	/*
	 * The line's interrupt is pending at the controller (irq_chip::
	 * irq_pending): it runs the handlers as soon as the timer returns, so
	 * another poll now would only take its work first and merge more
	 * completions' edges into that one interrupt. The same when this poll
	 * left the work to it (irq_poll_line, -IRQ_EINPROGRESS).
	 */
	again = chain->polls < IRQ_POLL_RERUN_MAX && want && !deferred &&
		!(found >= 0 && def->poll_pending == IRQ_PENDING_YES) &&
		(found == IRQ_HANDLED ? want <= now + late
				      : now < chain->spin_until && want <= chain->spin_until + late);
	if (again) {
		if (def->poll_at_ns) {  /* armed by what the handler did (a token verified): this poll comes first */
			irq_poll_cancel(desc);
			def->poll_at_ns = 0;
			__atomic_store_n(&def->poll_at_word, 0, __ATOMIC_SEQ_CST);
		}
		def->polls++;
		IRQ_POLL_COUNT(def->poll_reruns);
		__atomic_store_n(&def->timer_poll_running, true, __ATOMIC_SEQ_CST);
		chain->polls++;
	} else {
		__irq_poll_arm(desc, want, now, gen);
	}
	return again;
}

void irq_poll_timer_expired(struct irq_desc *desc)
{
	unsigned long flags;
	uint64_t now = irq_port_now_ns(), want, armed_ns, late_ns;
	struct irq_poll_chain chain = { 0 };
	const struct irq_defence *d;
	unsigned int i;
	uint32_t gen;

	flags = irq_port_lock_irqsave(&desc->lock);
	__irq_poll_note_lateness(desc, now);
	armed_ns = desc->def.poll_at_ns;
	/* First: an expect_irq from now on sees the timer unarmed (expect.c). */
	desc->def.poll_at_ns = 0;
	__atomic_store_n(&desc->def.poll_at_word, 0, __ATOMIC_SEQ_CST);
	if (!irq_defences_active()) {
		/* Armed by hand (irq_poll_schedule) with the defences off: just poll. */
		irq_port_unlock_irqrestore(&desc->lock, flags);
		irq_poll_line_traced(desc, IRQ_TRACE_WHY_HAND);
		return;
	}
	if (!desc->action) {
		irq_port_unlock_irqrestore(&desc->lock, flags);
		return;
	}
	/*
	 * Each defence does what is due by the time the timer was armed early
	 * for (__irq_poll_arm), as the polls below: the flood defence's
	 * re-enable or passed test, expecting's look at its verified tokens.
	 */
	for_each_defence(d, i)
		if (d->expired)
			d->expired(desc, now, now + desc->def.poll_late_ns);
	gen = __irq_poll_want_gen(desc);
	want = __irq_poll_want_at_expiry(desc, armed_ns, now);
	if (!want || want > now + desc->def.poll_late_ns) {
		/*
		 * Nobody wants a poll yet: the wish it was armed for is gone or
		 * moved on (a verified token's safety poll follows its latest
		 * expect_irq, which does not re-arm the timer itself). Armed
		 * for what was just worked out: nothing changed since.
		 */
		desc->def.poll_skips++;
		__irq_poll_arm(desc, want, now, gen);
		irq_port_unlock_irqrestore(&desc->lock, flags);
		return;
	}
	desc->def.polls++;
	__atomic_store_n(&desc->def.timer_poll_running, true, __ATOMIC_SEQ_CST);
	chain.why = irq_trace_enabled() ? __irq_poll_why(desc, now) : 0;
	/*
	 * A timer that fires the standstill window (__irq_stall_window_ns:
	 * stall_ns, or two tick periods if longer: a host whose timers follow
	 * its tick fires them up to a period late) after its time shows this
	 * CPU was not running (on one CPU: the host stopped the whole
	 * machine): what these polls find is marked so (stall.c). Under the
	 * lock, as the marks.
	 */
	late_ns = __irq_stall_window_ns();
	desc->def.poll_fired_late = late_ns && armed_ns && now > armed_ns && now - armed_ns >= late_ns;
	/* The polls take the lock over as it is: the run lets go of it while the handlers run. */
	while (irq_poll_timer_poll(desc, now, &chain, &flags))
		now = irq_port_now_ns();
	desc->def.poll_fired_late = false;
	irq_port_unlock_irqrestore(&desc->lock, flags);
}

#if IRQ_FIXUP
bool irq_fixup_try_others(struct irq_desc *desc)
{
	bool claimed = false;
	unsigned int irq;

	for (irq = 0; irq < IRQ_NR_LINES; irq++) {
		struct irq_desc *other = &irq_descs[irq];
		unsigned long flags;
		bool shared;

		if (other == desc)
			continue;
		flags = irq_port_lock_irqsave(&other->lock);
		shared = __irq_line_shared(other);
		irq_port_unlock_irqrestore(&other->lock, flags);
		if (!shared || irq_poll_line_traced(other, IRQ_TRACE_WHY_FIXUP) != IRQ_HANDLED)
			continue;
		claimed = true;
		flags = irq_port_lock_irqsave(&other->lock);
		__irq_health_fixup_claim(other, desc->irq_data.irq, irq_port_now_ns());
		irq_port_unlock_irqrestore(&other->lock, flags);
	}
	if (claimed)
		IRQ_POLL_COUNT(desc->def.fixup_rescues);
	return claimed;
}
#else
/* irqfixup left out (IRQ_FIXUP 0): irq_fixup_enabled() is false, so nobody asks; nothing claimed. */
bool irq_fixup_try_others(struct irq_desc *desc)
{
	(void)desc;
	return false;
}
#endif

void __irq_defences_action_added(struct irq_desc *desc, struct irqaction *action)
{
	(void)action;
	__irq_poll_want_moved(desc);
	if (irq_poll_all_enabled())
		__irq_poll_reschedule(desc, irq_port_now_ns());
}

/* The scheduler's own state of a line whose last action left (and irqfixup's misroute episode). Lock held. */
static void __irq_sched_line_reset(struct irq_desc *desc)
{
	struct irq_defence_line *def = &desc->def;

	/*
	 * Only what the lock protects: a run of the handler being freed may
	 * still be writing the owner's fields, and since-boot counters survive
	 * the line's drivers.
	 */
	irq_poll_cancel(desc);
	def->misroute.active = false;
	def->misroute.cause = 0;
	def->poll_at_ns = 0;
	__atomic_store_n(&def->poll_at_word, 0, __ATOMIC_SEQ_CST);
#if IRQ_EXPECT
	__atomic_store_n(&def->recheck_word, 0, __ATOMIC_SEQ_CST);
#endif
	def->armed_want_ns = 0;
	__irq_poll_want_moved(desc);
	def->poll_gap_ns = 0;
}

void __irq_defences_action_removed(struct irq_desc *desc, struct irqaction *action)
{
	const struct irq_defence *d;
	unsigned int i;
	uint64_t now;

	__irq_poll_want_moved(desc);
	for_each_defence(d, i)
		if (d->action_removed)
			d->action_removed(desc, action);
	/* Read after the verdicts above, which may open the episode at their own, later "now". */
	now = irq_port_now_ns();
	if (action->health.active)
		irq_port_log(IRQ_LOG_INFO, "irq %u: \"%.*s\" freed after %llu ms on polling\n", desc->irq_data.irq,
			     IRQ_NAME_LOG_MAX, action->name, irq_log_ms(now - action->health.since_ns));
	action->health.active = false;
	if (!desc->action) {
		__irq_sched_line_reset(desc);
		for_each_defence(d, i)
			if (d->line_reset)
				d->line_reset(desc);
		return;
	}
	__irq_poll_reschedule(desc, now);
}

/* The line's poll timer fired: the callback the core gives irq_port_timer_init (core.h's hooks). */
void irq_poll_timer_fn(void *arg)
{
	irq_poll_timer_expired(arg);
}

#if IRQ_FIXUP
/* irqfixup found this line's work on another line's interrupt: count it, begin the misroute episode. Lock held. */
void __irq_health_fixup_claim(struct irq_desc *desc, unsigned int from_irq, uint64_t now)
{
	struct irq_defence_line *def = &desc->def;

	def->fixup_claims++;
	def->fixup_last_ns = now;
	__irq_poll_want_moved(desc);  /* the misroute episode's end moves on */
	if (!IRQ_HEALTH_TEXT && irq_report_due(def->fixup_claims))
		irq_port_log(IRQ_LOG_WARN, "irq %u: fixup from %u, %llu\n", desc->irq_data.irq, from_irq,
			     (unsigned long long)def->fixup_claims);
	else if (irq_report_due(def->fixup_claims))
		irq_port_log(IRQ_LOG_WARN, "irq %u: its handlers claimed an unclaimed interrupt of irq %u (irqfixup; %llu times): misrouted?\n",
			     desc->irq_data.irq, from_irq, (unsigned long long)def->fixup_claims);
	if (!def->misroute.active) {
		__irq_health_begin(desc, NULL, &def->misroute, IRQ_HEALTH_MISROUTED,
				   "misrouted: its work came on another line's interrupt and irqfixup's polls take it", now);
		__irq_poll_reschedule(desc, now);
	}
}
#endif
