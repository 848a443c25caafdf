/*
 * expect.c - IRQ expecting: drivers that know when an interrupt is due
 * bracket it with expect_irq()/unexpect_irq(), and the line is polled in
 * between if the interrupt does not come. The design is the one of Tejun
 * Heo's 2010 patch set "irq: better lost/spurious irq handling" (the essay
 * at the top of spurious.c explains how it fits with watching and the
 * flood defence); the first poll scheduled from measured latency, the
 * lock-free verified path, the token pool and the misuse checks are
 * irqkit's. docs/defences.md has the state machine as a table.
 *
 * A token's life:  init_irq_expect -> (expect_irq -> unexpect_irq)* -> free_irq
 *   not verified:  each expect arms the poll timer for the first poll, at
 *                  expect_latency_mult x the token's typical interrupt
 *                  latency (irqkit) or poll_normal_ns (tejun2010); later
 *                  polls of the same expect follow at growing gaps.
 *   verified:      after expect_verify_goal good deliveries (a lost one
 *                  costs expect_bad_factor): one safety poll per expect at
 *                  expect_verified_mult x the typical latency (irqkit;
 *                  tejun2010: only the slow poll). The timer, once armed,
 *                  follows the expects by itself (poll.c skips an expiry
 *                  with nothing due and re-arms), so expect_irq+unexpect_irq
 *                  take no lock and arm no timer in the steady state.
 *   distrusted:    when lost deliveries or time-outs wore the good count
 *                  down to zero: announced (health.c) until verified again.
 *
 * A completion found by a poll is judged later (irqkit,
 * expect_late_verdict): its interrupt may have been pending while the poll
 * ran. An unclaimed interrupt on the line before the token's next
 * completion makes it late (good); the next completion coming by interrupt
 * makes it unsure (expect_unsure_cost); else it was lost (expect_bad_factor).
 * The verdict waits in IRQ_EXP_CLAIM until the next unexpect_irq, the
 * next expect_irq that does not come from inside a poll of the line, or
 * free_irq.
 *
 * Which delivery a completion came by: unexpect_irq called from the handler
 * sees the run it is part of (IRQS_INPROGRESS; desc->run_is_poll); called
 * after the handler it takes the kind of the line's latest claimed run
 * (desc->def.last_claim_by_poll), which on a shared line may be another
 * device's - drivers should call it from the handler.
 *
 * The scheduler asks and tells it through irq_defence_expect (struct
 * irq_defence, irq_sched.h), the tick's look through struct irq_tick_hooks.
 *
 * Layer 3, a defence: may use layers 0-2 (docs/irq-layers.md).
 */
#include "episode.h"
#include "expect.h"
#include "stall.h"
#include "tick_set.h"

#if IRQ_EXPECT
/* Marks initialised token storage. */
#define IRQ_EXPECT_MAGIC 0x45585054u
/* The latency average weighs each new sample 1/2^this (about the last 8 completions). */
#define IRQ_EXPECT_LATENCY_SHIFT 3
/*
 * Where the first poll goes, while every interrupt is lost (irq_expect_learn_poll):
 * a first poll that found the completion moves the delay 1/2^SHRINK_SHIFT of
 * itself earlier, one that found nothing MISS_GROW times that later, so the
 * delay settles where about one first poll in MISS_GROW + 1 finds nothing:
 * near the 90th percentile of the device's latency. After HIT_RUN finds in a
 * row it comes down by 1/2^FAST_SHRINK_SHIFT instead (far above the latency:
 * a new episode starts from the interrupt-learned delay, several times it).
 */
#define IRQ_EXPECT_SHRINK_SHIFT 6
#define IRQ_EXPECT_MISS_GROW 9u
#define IRQ_EXPECT_HIT_RUN 16u
#define IRQ_EXPECT_FAST_SHRINK_SHIFT 3
/* After a first poll that found nothing, the next comes 1/2^this of the delay later. */
#define IRQ_EXPECT_RETRY_SHIFT 2
/* Attempts to take a pool token that others keep taking first. */
#define IRQ_EXPECT_POOL_TRIES 4
/* Percent, for the quick-mode ratio. */
#define IRQ_PERCENT 100u

/* Pool bookkeeping (struct irq_expect::pool_state). */
enum irq_expect_pool_state {
	IRQ_EXP_POOL_FREE = 0,   /* never handed out since boot */
	IRQ_EXP_POOL_TAKEN,      /* handed out by init_irq_expect */
	IRQ_EXP_POOL_DEAD,       /* its action was freed; reused only when no free one is left */
	IRQ_EXP_STATIC,          /* caller storage (init_irq_expect_static) */
};

static struct irq_expect irq_expect_pool[IRQ_NR_EXPECTS];
static uint32_t irq_expect_deaths;        /* order of deaths (dead_seq) */
static uint32_t irq_expect_off_calls;     /* init_irq_expect while off (rate-limits the message) */

void irq_expect_pool_init(void)
{
	unsigned int i;

	for (i = 0; i < IRQ_NR_EXPECTS; i++)
		irq_expect_pool[i] = (struct irq_expect){ 0 };
	irq_expect_deaths = 0;
	irq_expect_off_calls = 0;
}

/* Take a pool token: a never-used one first, else the one that died longest ago. */
static struct irq_expect *irq_expect_pool_take(void)
{
	unsigned int i, try;

	for (try = 0; try < IRQ_EXPECT_POOL_TRIES; try++) {
		struct irq_expect *oldest = NULL;

		for (i = 0; i < IRQ_NR_EXPECTS; i++) {
			uint32_t expected = IRQ_EXP_POOL_FREE;

			if (__atomic_compare_exchange_n(&irq_expect_pool[i].pool_state, &expected, IRQ_EXP_POOL_TAKEN,
							false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
				return &irq_expect_pool[i];
		}
		for (i = 0; i < IRQ_NR_EXPECTS; i++) {
			struct irq_expect *e = &irq_expect_pool[i];

			if (__atomic_load_n(&e->pool_state, __ATOMIC_ACQUIRE) == IRQ_EXP_POOL_DEAD &&
			    (!oldest || e->dead_seq < oldest->dead_seq))
				oldest = e;
		}
		if (!oldest)
			return NULL;
		{
			uint32_t expected = IRQ_EXP_POOL_DEAD;

			if (__atomic_compare_exchange_n(&oldest->pool_state, &expected, IRQ_EXP_POOL_TAKEN,
							false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
				return oldest;
		}
	}
	return NULL;
}

/* Report a misuse of @exp (rate-limited per token). */
static void irq_expect_misuse(struct irq_expect *exp, const char *what)
{
	uint32_t n = __atomic_add_fetch(&exp->misuse, 1, __ATOMIC_RELAXED);

	if (irq_report_due(n))
		irq_port_log(IRQ_LOG_WARN, "irq %u: expect token %p: %s (%u misuses so far); ignored\n",
			     exp->irq, (void *)exp, what, (unsigned int)n);
}

/* Whether @exp is on some action's list of @desc. Lock held. */
static bool __irq_expect_linked(struct irq_desc *desc, const struct irq_expect *exp)
{
	const struct irqaction *a = desc->action;
	unsigned int walked, n;

	for (walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++) {
		const struct irq_expect *e = a->expects;

		for (n = 0; e && n < IRQ_EXPECTS_PER_ACTION; e = e->next, n++)
			if (e == exp)
				return true;
	}
	return false;
}

/* Whether @exp is a live token of any line (each line under its lock). */
static bool irq_expect_in_use(const struct irq_expect *exp)
{
	unsigned int irq;

	for (irq = 0; irq < IRQ_NR_LINES; irq++) {
		struct irq_desc *desc = &irq_descs[irq];
		unsigned long flags = irq_port_lock_irqsave(&desc->lock);
		bool linked = __irq_expect_linked(desc, exp);

		irq_port_unlock_irqrestore(&desc->lock, flags);
		if (linked)
			return true;
	}
	return false;
}

/* Bind @exp (pool or caller storage) to the action of @irq/@dev_id. RETURNS @exp or NULL (logged). */
static struct irq_expect *irq_expect_bind(struct irq_expect *exp, unsigned int irq, void *dev_id,
					  uint32_t pool_state)
{
	const struct irq_policy *p = irq_policy();
	struct irq_desc *desc = irq_to_desc(irq);
	struct irqaction *action;
	unsigned long flags;
	const char *why = NULL;

	flags = irq_port_lock_irqsave(&desc->lock);
	action = __irq_action_find(desc, dev_id);
	if (!action)
		why = "no action with that dev_id";
	else if (action->nr_expects >= IRQ_EXPECTS_PER_ACTION)
		why = "the action has IRQ_EXPECTS_PER_ACTION tokens already";
	if (!why) {
		*exp = (struct irq_expect){
			.magic = IRQ_EXPECT_MAGIC,
			.state = IRQ_EXP_LIVE,
			.next = action->expects,
			.desc = desc,
			.action = action,
			.irq = irq,
			.first_poll_ns = p->expect_latency_poll ? p->expect_first_poll_max_ns : 0,
			.pool_state = pool_state,
		};
		action->expects = exp;
		action->nr_expects++;
		__irq_poll_want_moved(desc);
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
	if (why) {
		irq_port_log(IRQ_LOG_ERR, "irq %u: init_irq_expect(dev_id %p) refused: %s\n", irq, dev_id, why);
		return NULL;
	}
	return exp;
}

/* Common checks of both init functions. RETURNS 0, or 1 after logging why not. */
static int irq_expect_init_refused(unsigned int irq)
{
	if (irq_defences_unstarted(irq, "init_irq_expect"))
		return 1;
	if (!irq_defences_active()) {
		uint32_t n = __atomic_add_fetch(&irq_expect_off_calls, 1, __ATOMIC_RELAXED);

		if (irq_report_due(n))
			irq_port_log(IRQ_LOG_INFO, "irq %u: init_irq_expect: defences off (noirqdebug), no token (expect calls do nothing)\n",
				     irq);
		return 1;
	}
	if (!irq_to_desc(irq)) {
		irq_port_log(IRQ_LOG_ERR, "irq: init_irq_expect(%u): no such line\n", irq);
		return 1;
	}
	if (!irq_policy()->expect_on) {
		/* A token would count nothing and its driver would say "expecting on" for nothing. */
		uint32_t n = __atomic_add_fetch(&irq_expect_off_calls, 1, __ATOMIC_RELAXED);

		if (irq_report_due(n))
			irq_port_log(IRQ_LOG_INFO, "irq %u: init_irq_expect: profile %s has no IRQ expecting, no token (expect calls do nothing)\n",
				     irq, irq_policy()->name);
		return 1;
	}
	return 0;
}

struct irq_expect *init_irq_expect(unsigned int irq, void *dev_id)
{
	struct irq_expect *exp;

	if (irq_expect_init_refused(irq))
		return NULL;
	exp = irq_expect_pool_take();
	if (!exp) {
		irq_port_log(IRQ_LOG_ERR, "irq %u: init_irq_expect: all %u pooled tokens in use (init_irq_expect_static needs none)\n",
			     irq, (unsigned int)IRQ_NR_EXPECTS);
		return NULL;
	}
	if (irq_expect_bind(exp, irq, dev_id, IRQ_EXP_POOL_TAKEN))
		return exp;
	/* Never handed out: it is as good as new. */
	*exp = (struct irq_expect){ 0 };
	__atomic_store_n(&exp->pool_state, IRQ_EXP_POOL_FREE, __ATOMIC_RELEASE);
	return NULL;
}

struct irq_expect *init_irq_expect_static(struct irq_expect *storage, unsigned int irq, void *dev_id)
{
	if (!storage) {
		irq_port_log(IRQ_LOG_ERR, "irq %u: init_irq_expect_static: no storage\n", irq);
		return NULL;
	}
	if (irq_expect_init_refused(irq))
		return NULL;
	if (storage->magic == IRQ_EXPECT_MAGIC && (storage->state & IRQ_EXP_LIVE) && irq_expect_in_use(storage)) {
		irq_port_log(IRQ_LOG_ERR, "irq %u: init_irq_expect_static: storage %p is a live token already (irq %u)\n",
			     irq, (void *)storage, storage->irq);
		return NULL;
	}
	return irq_expect_bind(storage, irq, dev_id, IRQ_EXP_STATIC);
}

/* Whether the completion being reported now was found by a poll (see the top). */
static bool irq_expect_by_poll(const struct irq_expect *exp)
{
	const struct irq_desc *desc = exp->desc;

	/*
	 * desc->run_clock_cpu (nonzero while a run is in progress), not
	 * IRQS_INPROGRESS: see struct irq_desc. Relaxed: called from the
	 * handler, these are this run's own stores; called on another CPU,
	 * any answer is one the line had at some instant, and the comment at
	 * the top says what an unexpect_irq after the run gets.
	 */
	if (__atomic_load_n(&desc->run_clock_cpu, __ATOMIC_RELAXED))
		return __atomic_load_n(&desc->run_is_poll, __ATOMIC_RELAXED);
	return __atomic_load_n(&desc->def.last_claim_by_poll, __ATOMIC_RELAXED);
}

/* Whether the armed poll timer fires by @deadline (no lock; see expect_irq). */
static bool irq_expect_poll_armed_by(const struct irq_desc *desc, uint64_t deadline)
{
	return irq_poll_word_fires_by(__atomic_load_n(&desc->def.poll_at_word, __ATOMIC_SEQ_CST), deadline);
}

/*
 * Whether the armed poll timer fires by the line's recheck time: a busy
 * line's verified tokens want no earlier look (__irq_expect_deadline). No
 * lock: both words are written under it by the poll timer (poll.c) with
 * sequentially consistent stores; a stale recheck word only sends this
 * expect to the locked path, which works it out again.
 */
static bool irq_expect_poll_armed_for_recheck(const struct irq_desc *desc)
{
	uint32_t recheck = __atomic_load_n(&desc->def.recheck_word, __ATOMIC_SEQ_CST);
	uint32_t armed = __atomic_load_n(&desc->def.poll_at_word, __ATOMIC_SEQ_CST);

	return (recheck & IRQ_POLL_WORD_ARMED) && (armed & IRQ_POLL_WORD_ARMED) && (int32_t)(armed - recheck) <= 0;
}

static void __irq_expect_judge_claim(struct irq_desc *desc, struct irq_expect *exp, bool next_by_irq, bool force,
				     uint64_t now);

/* How soon after expect_irq a verified token wants its line looked at: the safety poll, or the slow poll. */
static uint64_t irq_expect_verified_delay(const struct irq_expect *exp, const struct irq_policy *p)
{
	uint32_t d = __atomic_load_n(&exp->verified_poll_ns, __ATOMIC_RELAXED);

	return p->expect_verified_mult && d ? d : p->poll_slow_ns;
}

/*
 * The line's CPU as this expect opens (exp->open_mark): the earliest mark
 * since the expect, which a driver's time-out is judged from
 * (__irq_expect_timeout_stalled, irq_expect_cpu_ran) - there whether or
 * not a poll ran since. On every expect_irq, the verified path's too: a
 * relaxed load of the line's affinity, the port's CPU number and one
 * acquire load of the CPU's progress count (port.h), a few stores.
 * Ordering: written without the lock, before the seq_cst read-modify-write
 * of exp->state that publishes IRQ_EXP_EXPECTING (a release), and read
 * under the line's lock by the token's own driver (program order after
 * this expect_irq) or by a CPU whose acquire load of the state saw this
 * expect's EXPECTING, so either sees the whole mark. The acquire of the
 * progress count pairs with the release at the end of the CPU's
 * interrupts (stall.c). Not written while the token expects (a second
 * expect_irq then is a misuse, reported), so a reader never sees one torn.
 */
static inline void irq_expect_mark_open(struct irq_desc *desc, struct irq_expect *exp, uint64_t now)
{
	struct irq_cpu_mark *m = &exp->open_mark;
	unsigned int cpu = __irq_line_cpu(desc);

	m->at_ns = now;
	m->progress = irq_port_cpu_progress(cpu);
	m->cpu = (uint16_t)cpu;
	m->here = cpu == irq_port_cpu_id();
	m->late_poll = false;
	m->seen = m->progress;
	m->seen_ns = now;
}

void expect_irq(struct irq_expect *exp)
{
	const struct irq_policy *p;
	struct irq_desc *desc;
	unsigned long flags;
	uint32_t st;
	uint64_t now;

	if (!exp)
		return;
	st = __atomic_load_n(&exp->state, __ATOMIC_ACQUIRE);
	if (exp->magic != IRQ_EXPECT_MAGIC || !(st & IRQ_EXP_LIVE)) {
		irq_expect_misuse(exp, exp->magic == IRQ_EXPECT_MAGIC ? "expect_irq after its action was freed"
								      : "expect_irq on storage that is no token");
		return;
	}
	p = irq_policy();
	if (!(uint32_t)p->expect_on)  /* a 0/1 switch: its low word */
		return;
	if (st & IRQ_EXP_EXPECTING)
		irq_expect_misuse(exp, "expect_irq while already expecting; restarted");
	desc = exp->desc;
	now = __irq_run_now_fresh(desc);
	__irq_poll_want_change_begin(desc);
	/* Read by the poll timer on another CPU (irq_load_u64: internals.h); published by the state RMW below. */
	irq_store_u64(&exp->started_ns, now);
	if (p->stall_ran_irqs)
		irq_expect_mark_open(desc, exp, now);
	IRQ_TRACE(IRQ_TEV_EXPECT, desc->irq_data.irq, 0, irq_trace_id(exp));
	/*
	 * Publish EXPECTING, then look at the timer; the poll timer clears
	 * poll_at_ns before it looks at the tokens. Either it sees us
	 * expecting or we see it unarmed and arm it ourselves.
	 */
	st = __atomic_or_fetch(&exp->state, IRQ_EXP_EXPECTING | IRQ_EXP_USED, __ATOMIC_SEQ_CST);
	if (st & IRQ_EXP_FIRST_POLL)  /* left from the previous expect: this one has had no poll */
		__atomic_and_fetch(&exp->state, ~(uint32_t)IRQ_EXP_FIRST_POLL, __ATOMIC_SEQ_CST);
	/*
	 * After the changes, not before: the poll timer reads the generation
	 * before it reads the tokens (__irq_poll_reschedule), so a wish it
	 * worked out without this expect carries an older generation than
	 * this bump and is not reused at its expiry (__irq_poll_want_at_expiry).
	 * Bumped first, the timer on another CPU could read the new
	 * generation, then the token not yet expecting, and reuse that stale
	 * wish: this expect's poll would be missing from the armed time.
	 */
	__irq_poll_want_moved(desc);
	__irq_poll_want_change_end(desc);
	/*
	 * The verified path: no lock, no timer. With the host's tick
	 * (irq_tick_look_on), the tick looks at this expect: the line goes
	 * into its set, if not there yet (__irq_tick_line_add orders that
	 * against the tick taking the line out: tick_look.c). Without it, the
	 * armed poll comes early enough for this expect's safety poll (the
	 * timer, when it fires early for an older expect, moves itself on to
	 * this one).
	 */
	if (st & IRQ_EXP_VERIFIED) {
		bool tick = irq_tick_look_on(p);

		if (tick)
			__irq_tick_line_add(desc);
		if (!(st & IRQ_EXP_CLAIM) &&
		    (tick || irq_expect_poll_armed_for_recheck(desc) ||   /* a busy line's usual case: tested first */
		     irq_expect_poll_armed_by(desc, now + irq_expect_verified_delay(exp, p))))
			return;
	}
	/*
	 * Called from a handler the poll timer runs: the timer re-arms itself
	 * after the poll, and a late interrupt of the completion it just found
	 * cannot have come yet, so a pending verdict waits too. The same holds
	 * for an expect_irq on another CPU while the timer's poll runs (the
	 * verdict then waits for this expect's unexpect_irq). Ordering: the
	 * seq_cst read-modify-write of exp->state above, then this seq_cst
	 * load of timer_poll_running, against the timer's seq_cst store of
	 * timer_poll_running = false followed by its seq_cst loads of the
	 * tokens' state when it re-arms (irq_poll_timer_poll, poll.c): in the
	 * single order of seq_cst operations one of the two comes first, so
	 * either this load sees false (and the locked path below arms the
	 * timer) or the timer sees IRQ_EXP_EXPECTING, and, its load being an
	 * acquire of this release, started_ns with it. With acquire/release
	 * only, both CPUs could read the old value (store buffering) and the
	 * expect would never be polled: a lost interrupt would then hang the
	 * driver until its own time-out. The test of desc->run_clock_cpu (IRQS_INPROGRESS's
	 * lock-free mirror) only keeps the shortcut to a poll that is really running.
	 */
	if (__atomic_load_n(&desc->def.timer_poll_running, __ATOMIC_SEQ_CST) &&
	    __atomic_load_n(&desc->run_clock_cpu, __ATOMIC_SEQ_CST))
		return;
	flags = irq_port_lock_irqsave(&desc->lock);
	if (exp->action) {
		/* A new command after a polled completion: its interrupt had all the time it needed. */
		if (__atomic_load_n(&exp->state, __ATOMIC_ACQUIRE) & IRQ_EXP_CLAIM)
			__irq_expect_judge_claim(desc, exp, false, false, now);
		__irq_poll_reschedule(desc, now);
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
}

/*
 * The longest gap between two looks at an expecting token's line: with the
 * first poll from measured latency (irqkit) the latest first poll, so a lost
 * completion is found within it (plus a recheck while verified), not after
 * the normal poll's 10 ms; else the normal poll.
 */
static uint64_t irq_expect_gap_max(const struct irq_policy *p)
{
	return p->expect_latency_poll ? p->expect_first_poll_max_ns : p->poll_normal_ns;
}

/* @d bounded to [@lo, @hi]. */
static uint64_t irq_expect_clamp(uint64_t d, uint64_t lo, uint64_t hi)
{
	return d < lo ? lo : d > hi ? hi : d;
}

/*
 * A completion delivered by interrupt after @latency (or found by a poll
 * whose interrupt came after all: then @latency is when the poll found
 * it, a lower bound): learn it (the token's own fields). The first poll
 * goes to expect_latency_mult times the typical latency - except while
 * the token distrusts the line (@st): then polls that found completions
 * have taught it a better time, which an interrupt that did arrive may
 * only bring down, not up. The safety poll of the verified state goes to
 * expect_verified_mult times the typical latency.
 */
static void irq_expect_learn_latency(struct irq_expect *exp, const struct irq_policy *p, uint32_t st,
				     uint64_t latency)
{
	uint64_t avg = exp->latency_avg_ns, first;

	if (!avg)
		avg = latency;
	else if (latency >= avg)
		avg += (latency - avg) >> IRQ_EXPECT_LATENCY_SHIFT;
	else
		avg -= (avg - latency) >> IRQ_EXPECT_LATENCY_SHIFT;
	exp->latency_avg_ns = avg;
	if (p->expect_verified_mult)
		__atomic_store_n(&exp->verified_poll_ns,
				 (uint32_t)irq_expect_clamp(avg * p->expect_verified_mult, p->expect_verified_min_ns,
							    irq_expect_gap_max(p)), __ATOMIC_RELAXED);
	if (!p->expect_latency_poll || exp->completions_irq + exp->completions_late < p->expect_latency_samples)
		return;  /* too few samples to trust: the first poll stays where it is (at first the latest) */
	first = irq_expect_clamp(avg * p->expect_latency_mult, p->expect_first_poll_min_ns,
				 p->expect_first_poll_max_ns);
	/* Written here without the lock, read by the poll timer on another CPU (irq_load_u64). */
	if (!(st & IRQ_EXP_DISTRUSTED) || first < exp->first_poll_ns)
		irq_store_u64(&exp->first_poll_ns, first);
}

/* A verified spell as long as the raised goal @goal: the line's trouble is over, the goal halves. */
static void __attribute__((noinline)) irq_expect_goal_relax(struct irq_expect *exp, uint32_t goal)
{
	if (++exp->verified_good >= goal) {
		exp->verify_goal = goal / 2;
		exp->verified_good = 0;
	}
}

/*
 * One more good delivery (by interrupt, or late).
 * RETURNS whether the token has just reached its verify goal.
 * Inline: unexpect_irq's lock-free path calls it for every completion of
 * a verified token (out of line it cost 28 guest instructions per healthy
 * ATA block, make prof-ata); the raised goal's rare work is out of line.
 */
static inline __attribute__((always_inline)) bool irq_expect_count_good(struct irq_expect *exp,
									  const struct irq_policy *p, uint32_t st)
{
	/* 32-bit: the table's counts are small, and this runs for every completion (64-bit math costs i686). */
	uint32_t base = (uint32_t)p->expect_verify_goal, goal = exp->verify_goal > base ? exp->verify_goal : base;

	/* Room above the goal lets one good delivery undo one accidental polled one. */
	if (exp->nr_good < goal + (uint32_t)p->expect_bad_factor - 1)
		exp->nr_good++;
	if (!(st & IRQ_EXP_VERIFIED))
		return exp->nr_good >= goal;
	if (goal > base)
		irq_expect_goal_relax(exp, goal);
	return false;
}

static bool irq_expect_note_good(struct irq_expect *exp, const struct irq_policy *p, uint32_t st, uint64_t latency)
{
	irq_expect_learn_latency(exp, p, st, latency);
	return irq_expect_count_good(exp, p, st);
}

/*
 * Whether the latency of this interrupt-delivered completion goes
 * unlearned (@st: the token's state). A verified token's estimate rests on
 * at least expect_verify_goal completions: it learns one in
 * expect_verified_learn_every, so the others read no clock (the average
 * then follows a change of the device 8 times more slowly: a slower device
 * costs some safety polls that find it busy meanwhile, a faster one finds
 * its lost interrupts later by the old margin). Unverified tokens learn
 * every one.
 */
static bool irq_expect_skip_learning(struct irq_expect *exp, const struct irq_policy *p, uint32_t st)
{
	uint32_t every = (uint32_t)p->expect_verified_learn_every;  /* a small count: 32-bit math, as in count_good */

	if (!(st & IRQ_EXP_VERIFIED) || every <= 1)
		return false;
	if (++exp->learn_skip < every)
		return true;
	exp->learn_skip = 0;
	return false;
}

/* The token just reached the verify goal. Lock held. */
static void __irq_expect_verified(struct irq_desc *desc, struct irq_expect *exp, uint64_t now)
{
	const struct irq_policy *p = irq_policy();
	struct irqaction *action = exp->action;
	const struct irq_expect *e;
	unsigned int n;
	bool distrusted = false;

	__atomic_or_fetch(&exp->state, IRQ_EXP_VERIFIED, __ATOMIC_RELEASE);
	IRQ_TRACE(IRQ_TEV_STATE, desc->irq_data.irq, IRQ_TSTATE_VERIFIED, irq_trace_id(exp));
	exp->verified_good = 0;
	__atomic_and_fetch(&exp->state, ~(uint32_t)(IRQ_EXP_DISTRUSTED | IRQ_EXP_QUICK), __ATOMIC_RELEASE);
	exp->nr_samples = 0;
	exp->nr_quick = 0;
	if (p->expect_latency_poll)
		irq_expect_learn_latency(exp, p, 0, exp->latency_avg_ns);
	/* A first poll armed while unverified must not linger: it would steal completions. */
	__irq_poll_reschedule(desc, now);
	if (!action || !(action->health.cause & IRQ_HEALTH_LOST_EXPECT))
		return;
	for (e = action->expects, n = 0; e && n < IRQ_EXPECTS_PER_ACTION; e = e->next, n++)
		distrusted |= (__atomic_load_n(&e->state, __ATOMIC_RELAXED) & IRQ_EXP_DISTRUSTED) != 0;
	if (!distrusted)
		__irq_health_end(desc, action, &action->health, "interrupts verified again", now);
}

/* tejun2010 quick mode: judge the polled deliveries once enough were seen. */
static void irq_expect_judge_quick(struct irq_expect *exp, const struct irq_policy *p, uint64_t elapsed)
{
	if (!p->expect_quick_samples)
		return;
	if (elapsed <= p->poll_normal_ns)
		exp->nr_quick++;
	if (++exp->nr_samples < p->expect_quick_samples)
		return;
	if ((uint64_t)exp->nr_quick * IRQ_PERCENT >= p->expect_quick_pct * exp->nr_samples)
		__atomic_or_fetch(&exp->state, IRQ_EXP_QUICK, __ATOMIC_RELEASE);
	else
		__atomic_and_fetch(&exp->state, ~(uint32_t)IRQ_EXP_QUICK, __ATOMIC_RELEASE);
	exp->nr_samples = 0;
	exp->nr_quick = 0;
}

/*
 * irqkit: a poll found the completion (@st: the token's state). Move the
 * first poll: earlier if the first poll found it, later if that one found
 * nothing (IRQ_EXPECT_SHRINK_SHIFT). Each empty poll is a timer event of
 * its own; the rule before issue 19's second look (1/8 earlier per find,
 * a miss moved it to the middle of the miss and the find) sat near the
 * median of a jittery latency, and a third of QEMU's lost ATA blocks had
 * an empty poll (make prof-ata). Fixed steps, not the find's time: one
 * very slow completion moves it by 9/64, not by its own lateness.
 */
static void irq_expect_learn_poll(struct irq_expect *exp, const struct irq_policy *p, uint32_t st)
{
	uint64_t first = exp->first_poll_ns, step;

	if (!p->expect_latency_poll)
		return;
	if (!(st & IRQ_EXP_FIRST_POLL)) {  /* found by the first poll: it could come sooner */
		if (exp->first_hits < IRQ_EXPECT_HIT_RUN)
			exp->first_hits++;
		step = first >> (exp->first_hits >= IRQ_EXPECT_HIT_RUN ? IRQ_EXPECT_FAST_SHRINK_SHIFT
									: IRQ_EXPECT_SHRINK_SHIFT);
		first -= step;
	} else {  /* the first poll ran too early */
		exp->first_hits = 0;
		first += (first >> IRQ_EXPECT_SHRINK_SHIFT) * IRQ_EXPECT_MISS_GROW;
	}
	exp->first_poll_ns = irq_expect_clamp(first, p->expect_first_poll_min_ns, p->expect_first_poll_max_ns);
}

/*
 * The token's good deliveries are all worn off by lost ones: it distrusts
 * the line, and from now on the poll delivers. Its first poll sat at
 * expect_latency_mult times the typical latency, far enough not to take
 * completions from working interrupts; now it starts at the typical
 * latency itself, and irq_expect_learn_poll's steps move it from there (to
 * about the 90th percentile). Left at three times it, a PIO disk losing
 * every other command waited about 140 us per block for a completion that
 * was there after 20 (ata-drop:50, a trace of one lost command: first polls
 * at 142, 137, 133 ... 103 us). Not at the first loss of a verified token:
 * at 1 % loss that stole every other completion from the interrupts, and
 * the stolen ones' verdicts wore the token down to distrust (the simulator's
 * flaky-device case). Only ever earlier, as the interrupts' own learning
 * is while the token distrusts. Lock held.
 */
static void irq_expect_first_poll_on_distrust(struct irq_expect *exp, const struct irq_policy *p)
{
	uint64_t typical = irq_expect_clamp(exp->latency_avg_ns, p->expect_first_poll_min_ns, p->expect_first_poll_max_ns);

	if (!p->expect_latency_poll || !exp->latency_avg_ns || typical >= irq_load_u64(&exp->first_poll_ns))
		return;
	/* Read by the poll timer on another CPU (irq_load_u64). */
	irq_store_u64(&exp->first_poll_ns, typical);
	exp->first_hits = 0;
}

/*
 * The token distrusts its line again: its verify goal doubles, up to
 * expect_verify_goal_max, and halves back after each verified spell as
 * long as the goal (irq_expect_count_good). A line that loses interrupts
 * in bursts (QEMU ata-drop:50 loses whole commands at random) otherwise
 * came back to verified after every two good commands (32 blocks), and
 * the first block of its next lost command waited for the tick (about
 * 1 ms) where a distrusting token's poll finds it after about 20 us; each
 * flip was announced, too. The good count is the token's own, as nr_good:
 * written here under the lock and by unexpect_irq's lock-free path, which
 * the driver's own completion order keeps apart (one expect at a time).
 * Lock held.
 */
static void irq_expect_goal_on_distrust(struct irq_expect *exp, const struct irq_policy *p)
{
	uint32_t base = (uint32_t)p->expect_verify_goal, max = (uint32_t)p->expect_verify_goal_max;
	uint32_t goal = exp->verify_goal > base ? exp->verify_goal : base;

	exp->verify_goal = goal * 2 < max ? goal * 2 : max > base ? max : base;
	exp->verified_good = 0;
}

/* IRQ_EXPECT_TIMEOUT_COST: a time-out costs every good delivery. */
#define IRQ_EXPECT_TIMEOUT_COST UINT32_MAX

/*
 * A completion was lost (found by polling) or the driver timed out: @cost
 * good deliveries are taken back, and at none left the line is distrusted.
 * Lock held.
 */
static void __irq_expect_bad(struct irq_desc *desc, struct irq_expect *exp, uint32_t cost, uint64_t now)
{
	const struct irq_policy *p;
	struct irqaction *action = exp->action;
	bool timedout = cost == IRQ_EXPECT_TIMEOUT_COST;
	uint32_t st;

	(void)timedout;  /* read by the sentence alone, which a terse build (IRQ_HEALTH_TEXT 0) has not */
	exp->nr_good -= exp->nr_good < cost ? exp->nr_good : cost;
	st = __atomic_fetch_and(&exp->state, ~(uint32_t)IRQ_EXP_VERIFIED, __ATOMIC_ACQ_REL);
	if (exp->nr_good || (st & IRQ_EXP_DISTRUSTED) || !action)
		return;
	p = irq_policy();
	irq_expect_first_poll_on_distrust(exp, p);
	irq_expect_goal_on_distrust(exp, p);
	__atomic_or_fetch(&exp->state, IRQ_EXP_DISTRUSTED, __ATOMIC_RELEASE);
	IRQ_TRACE(IRQ_TEV_STATE, desc->irq_data.irq, IRQ_TSTATE_DISTRUSTED, irq_trace_id(exp));
	__irq_health_begin(desc, action, &action->health, IRQ_HEALTH_LOST_EXPECT,
			   timedout ? "expected interrupt timed out: polled while expected"
				    : "expected interrupt lost, completion found by polling: polled while expected",
			   now);
}

/* The verdicts on completions a poll found (IRQ_TEV_VERDICT, expect.c's own order of preference). */
enum irq_claim_verdict {
	IRQ_CLAIM_WAIT,     /* the line's CPU has not run since: no verdict yet */
	IRQ_CLAIM_LATE,     /* an unclaimed interrupt came after: good */
	IRQ_CLAIM_STALLED,  /* late while the line's CPU was not running (or never shown to run): not judged */
	IRQ_CLAIM_UNSURE,   /* the next completion came by interrupt: maybe late */
	IRQ_CLAIM_LOST,     /* the CPU ran and no interrupt came */
};

/*
 * The verdict on claim @c of @exp (completions a poll found), given what
 * came since:
 *   an interrupt on the line that no handler claimed (the device's own,
 *   arriving after the poll had done its work): late - a good delivery;
 *   else, while the line's CPU has not run since (__irq_cpu_ran: stall.c),
 *   no verdict: the interrupt may be pending at a CPU that was not running
 *   (a descheduled virtual CPU, an SMI, interrupts off) - unless @force
 *   (free_irq, a time-out): then not judged, as "late (CPU not running)";
 *   else the next completion came by interrupt (@next_by_irq, now or while
 *   the verdict waited): unsure -
 *   the late interrupt may have been taken for that next completion (PIO:
 *   the device starts the next block inside the poll), or every other
 *   interrupt is lost; it costs expect_unsure_cost, not expect_bad_factor;
 *   else (found by polling again, or a time-out): lost.
 * A claim that waited while its CPU was found not running (c->waited:
 * __irq_cpu_stalled) is "late (CPU not running)" where it would be late or
 * unsure: the interrupt came, or may have, once the CPU ran again; it
 * neither counts good nor wears the token's trust, and is not announced.
 * Lost stays lost: the CPU ran and the interrupt did not come.
 * Lock held.
 */
static enum irq_claim_verdict __irq_expect_claim_verdict(struct irq_desc *desc, struct irq_claim *c,
							  bool next_by_irq, bool force, uint64_t now)
{
	bool unclaimed_since = __irq_unhandled_word(desc) != c->unhandled;

	/*
	 * A completion by interrupt while the verdict waited counts as the
	 * "next by interrupt" of the rule whenever the verdict comes: the late
	 * interrupt may have been merged into it (an edge raised again before
	 * the CPU took the first), and a later find by polling must not turn
	 * that unsure verdict into a lost one.
	 */
	next_by_irq |= c->next_irq;
	/*
	 * An interrupt the line's CPU took while another CPU ran the line's
	 * handlers (a poll) waits as IRQS_PENDING for that CPU to replay it
	 * (handle.c): it came, and only its replay can tell whether it was
	 * the late one (nothing to claim) or carried the next completion.
	 * Its CPU finished its flow meanwhile, so its count says it ran
	 * while the unclaimed count has not moved yet: judged now, a healthy
	 * line's late interrupt was called lost (test_loaded, PIO ATA beside
	 * busy loops: CPU 1 entered the interrupt during CPU 0's poll and was
	 * kept off the host 1.4 ms before its ack, by when CPU 0 ran its next
	 * poll). Wait for the replay; forced, it counts as the next delivery
	 * by interrupt.
	 */
	if (!unclaimed_since && (desc->status & IRQS_PENDING) && !irq_desc_is_level(desc)) {
		if (!force)
			return IRQ_CLAIM_WAIT;
		next_by_irq = true;
	}
	/*
	 * A level interrupt left so is not replayed: the owner unmasks, and
	 * a device its poll cleared no longer asserts the line, so nothing
	 * is counted unclaimed. It came all the same (desc->busy_irqs), the
	 * late one or the next completion's: unsure, as a pending edge
	 * forced. (An edge's replay has been counted by now, unclaimed or
	 * claimed; one claimed by another handler of a shared line counts
	 * here too.)
	 */
	if (!unclaimed_since && desc->busy_irqs != c->busy_irqs)
		next_by_irq = true;
	if (!unclaimed_since && !__irq_cpu_ran(&c->mark)) {
		if (__irq_cpu_stalled(&c->mark, now))
			c->waited = true;
		return force ? IRQ_CLAIM_STALLED : IRQ_CLAIM_WAIT;
	}
	if (c->waited && (unclaimed_since || next_by_irq))
		return IRQ_CLAIM_STALLED;
	return unclaimed_since ? IRQ_CLAIM_LATE : next_by_irq ? IRQ_CLAIM_UNSURE : IRQ_CLAIM_LOST;
}

/*
 * The driver timed out (unexpect_irq(exp, true)): was the line's CPU shown
 * not to run? A time-out is the driver's own "lost", judged by time alone,
 * so the rule of the polls' verdicts holds for it too: lost only if the CPU
 * the line is routed to has run with the line deliverable since the
 * interrupt was due. Judged from the earliest mark since the expect, the
 * one expect_irq took as it opened (exp->open_mark): if that CPU has not
 * finished stall_ran_irqs interrupts since (one on its own CPU), it was
 * not running - a virtual CPU its host kept off the host's CPUs for the
 * driver's whole wait; nor if it did but then stood still for the
 * standstill window (stall.c: stall_ns or two tick periods) up to now, as the driver's asks during its wait and this look saw it
 * (__irq_cpu_ran_lately: three ticks early in the wait, then descheduled
 * while the completion's interrupt waited there) - and the interrupt is
 * late, not lost: counted with
 * the completions late while the CPU did not run, not announced, the
 * token's trust kept (the driver counts its time-out all the same). The
 * mark is there whether or not a poll ran since the expect: a verified
 * token's look may not have come yet when the driver's wait ends, and
 * judged by time then, the AHCI and NVMe cases of "late, not lost" said
 * "lost interrupt" in 2 of 11 and 6 of 12 runs. So is a time-out while the line's handlers run for an
 * interrupt on another CPU: the interrupt came, and that CPU has not
 * finished it (test_loaded.py's trace: vCPU 1 stood 306 ms between the
 * chip's ack and the handler's return, the driver's 250 ms wait on CPU 0
 * ended meanwhile). Called only for an unexpect that closed an expect (its
 * mark is this expect's). Lock held. Out of line (a time-out is rare):
 * tests/qemu/test_loaded.py marks each with tools/vcpuwatch and wants the
 * host's evidence for it.
 */
static __attribute__((noinline)) bool __irq_expect_timeout_stalled(struct irq_desc *desc, struct irq_expect *exp,
								  uint64_t now)
{
	if (!irq_policy()->stall_ran_irqs)
		return false;
	/* run_is_poll and the owner's CPU are the run's, set under the lock with IRQS_INPROGRESS. */
	if ((desc->status & IRQS_INPROGRESS) && !__atomic_load_n(&desc->run_is_poll, __ATOMIC_RELAXED) &&
	    __atomic_load_n(&desc->run_clock_cpu, __ATOMIC_RELAXED) != irq_port_cpu_id() + 1)
		return true;
	return !__irq_cpu_ran_lately(&exp->open_mark, now);
}

/* @n times @cost, at most IRQ_EXPECT_TIMEOUT_COST - 1 (a batch of lost completions). */
static uint32_t irq_expect_cost_times(uint32_t cost, uint32_t n)
{
	uint64_t total = (uint64_t)cost * n;

	return total >= IRQ_EXPECT_TIMEOUT_COST ? IRQ_EXPECT_TIMEOUT_COST - 1 : (uint32_t)total;
}

/* Apply @v to the @c->n completions of claim @c. @st: the token's state. Lock held. */
static void __irq_expect_claim_apply(struct irq_desc *desc, struct irq_expect *exp, const struct irq_claim *c,
				     enum irq_claim_verdict v, uint32_t st, uint64_t now)
{
	const struct irq_policy *p = irq_policy();
	static const uint8_t trace_kind[] = {
		[IRQ_CLAIM_LATE] = IRQ_TVERD_LATE, [IRQ_CLAIM_STALLED] = IRQ_TVERD_STALLED,
		[IRQ_CLAIM_UNSURE] = IRQ_TVERD_UNSURE, [IRQ_CLAIM_LOST] = IRQ_TVERD_LOST,
	};
	uint32_t i;
	bool verified = false;

	IRQ_TRACE(IRQ_TEV_VERDICT, desc->irq_data.irq, trace_kind[v], irq_trace_id(exp));
	switch (v) {
	case IRQ_CLAIM_LATE:
		exp->completions_late += c->n;
		irq_expect_learn_latency(exp, p, st, c->elapsed_ns);
		for (i = 0; i < c->n; i++)
			verified |= irq_expect_count_good(exp, p, st);
		if (verified)
			__irq_expect_verified(desc, exp, now);
		break;
	case IRQ_CLAIM_STALLED:
		exp->completions_stalled += c->n;
		break;
	case IRQ_CLAIM_UNSURE:
		exp->completions_unsure += c->n;
		__irq_expect_bad(desc, exp, irq_expect_cost_times((uint32_t)p->expect_unsure_cost, c->n), now);
		break;
	case IRQ_CLAIM_LOST:
		__irq_expect_bad(desc, exp, irq_expect_cost_times((uint32_t)p->expect_bad_factor, c->n), now);
		break;
	case IRQ_CLAIM_WAIT:
		break;
	}
}

/*
 * The verdicts on the completions polls found before (IRQ_EXP_CLAIM): the
 * older claim first; once it is judged the later one moves up and is
 * judged by the same rule. A claim whose CPU has not run since stays (the
 * later one with it). IRQ_EXP_CLAIM goes when none is left. Lock held.
 */
static void __irq_expect_judge_claim(struct irq_desc *desc, struct irq_expect *exp, bool next_by_irq, bool force,
				     uint64_t now)
{
	struct irq_claim *c = &exp->claims[0];

	if (next_by_irq) {  /* for both claims, also the later one that waits behind the older (see the verdict) */
		exp->claims[0].next_irq |= exp->claims[0].n != 0;
		exp->claims[1].next_irq |= exp->claims[1].n != 0;
	}
	while (c->n) {
		uint32_t st = __atomic_load_n(&exp->state, __ATOMIC_ACQUIRE) & ~(uint32_t)IRQ_EXP_CLAIM;
		enum irq_claim_verdict v = __irq_expect_claim_verdict(desc, c, next_by_irq, force, now);
		struct irq_claim judged;

		if (v == IRQ_CLAIM_WAIT)
			return;
		judged = *c;
		exp->claims[0] = exp->claims[1];
		exp->claims[1] = (struct irq_claim){ 0 };
		if (!exp->claims[0].n)
			__atomic_and_fetch(&exp->state, ~(uint32_t)IRQ_EXP_CLAIM, __ATOMIC_ACQ_REL);
		__irq_expect_claim_apply(desc, exp, &judged, v, st, now);
	}
}

/*
 * A poll found a completion (@elapsed after expect_irq) and no verdict is
 * taken yet: it joins the claims. A claim whose mark of the line's CPU
 * shows the same count (the CPU finished nothing in between: a chain of
 * polls in one timer interrupt, or a CPU not running) takes it in; so
 * does the later claim, whose mark moves to this one (the older's stays,
 * so that it is judged once the CPU has run: the claims never wait on
 * each other). Lock held.
 */
static void __irq_expect_claim_add(struct irq_desc *desc, struct irq_expect *exp, uint64_t elapsed, bool in_poll,
				   uint64_t now)
{
	struct irq_claim *c0 = &exp->claims[0], *c1 = &exp->claims[1], *c;
	struct irq_cpu_mark m;

	__irq_cpu_mark(desc, &m, now);
	if (in_poll && !c0->in_poll && !c1->in_poll)
		desc->def.poll_claims_open++;  /* __irq_expect_poll_done looks at this token after the run */
	if (c0->n && !c1->n && m.cpu == c0->mark.cpu && m.progress == c0->mark.progress) {
		c = c0;
	} else if (c0->n && c1->n) {
		c = c1;
		if (__irq_cpu_stalled(&c1->mark, now))
			c1->waited = true;
		c1->mark = m;
	} else {
		c = c0->n ? c1 : c0;
		*c = (struct irq_claim){ .unhandled = __irq_unhandled_word(desc), .busy_irqs = irq_busy_irqs_before_find(desc),
					 .mark = m, .waited = m.late_poll };
	}
	if (c->n && __irq_cpu_stalled(&c->mark, now))
		c->waited = true;
	if (c->n < UINT32_MAX)
		c->n++;
	c->elapsed_ns = elapsed;
	c->in_poll |= in_poll;
	__atomic_or_fetch(&exp->state, IRQ_EXP_CLAIM, __ATOMIC_RELEASE);
}

/*
 * A completion found by a poll while the line's interrupt was pending at
 * the controller (irq_chip::irq_pending): the interrupt was on its way and
 * would have delivered it, the poll only got there first. Judged late (a
 * good delivery) at once; no verdict left waiting. @st: the token's state
 * before. Lock held.
 */
static void __irq_expect_beat(struct irq_desc *desc, struct irq_expect *exp, uint32_t st, uint64_t elapsed,
			      uint64_t now)
{
	const struct irq_policy *p = irq_policy();

	IRQ_TRACE(IRQ_TEV_VERDICT, desc->irq_data.irq, IRQ_TVERD_BEAT, irq_trace_id(exp));
	exp->completions_late++;
	exp->completions_beat++;
	if (irq_expect_note_good(exp, p, st, elapsed))
		__irq_expect_verified(desc, exp, now);
}

/*
 * A poll found the completion @elapsed after expect_irq (@st: the token's
 * state before). Lock held.
 *
 * With a chip that can tell (irq_chip::irq_pending), a find while the
 * line's own interrupt was pending is late at once (__irq_expect_beat):
 * called from the poll's handler, this sees the sample taken before the
 * handlers ran; the one after them is looked at when the run ends
 * (__irq_expect_poll_done). A "not pending" answer is NOT taken as proof
 * of a loss, and the delayed verdict stays, because it is not conclusive:
 *   - a device may raise its interrupt after the status that the handler
 *     read says "done" (UHCI at its next frame; any device whose status
 *     write and interrupt are not one act), i.e. just after the sample
 *     after the handlers: such an interrupt comes, unclaimed, and the
 *     delayed verdict sees it;
 *   - an 8259 in level mode forgets a request as soon as the handler
 *     clears the device, so both samples can miss a request that was
 *     only raised between the first sample and the handler's read;
 *   - edges merge: a request the CPU took for an earlier completion may
 *     have carried this one's edge too, and that leaves nothing pending;
 *   - on a shared line the answer may be about another device's request
 *     (so neither answer is used there, __irq_poll_pending_counts).
 * Only "pending" is evidence (of a delivery that works); its absence is
 * what the delayed verdict was made for. So is a level interrupt a CPU
 * took during the run and left to it (__irq_poll_left_irq_counts).
 */
static void __irq_expect_polled(struct irq_desc *desc, struct irq_expect *exp, uint32_t st, uint64_t elapsed,
				uint64_t now)
{
	const struct irq_policy *p = irq_policy();
	bool in_poll = (desc->status & IRQS_INPROGRESS) && desc->run_is_poll;

	exp->completions_polled++;
	irq_expect_judge_quick(exp, p, elapsed);
	if (in_poll && __irq_poll_pending_counts(desc, desc->def.poll_pending_before)) {
		__irq_expect_beat(desc, exp, st, elapsed, now);
		return;
	}
	irq_expect_learn_poll(exp, p, st);
	if (!p->expect_late_verdict) {
		IRQ_TRACE(IRQ_TEV_VERDICT, desc->irq_data.irq, IRQ_TVERD_LOST, irq_trace_id(exp));
		__irq_expect_bad(desc, exp, (uint32_t)p->expect_bad_factor, now);
		return;
	}
	/* In a poll, the sample after the handlers may still show the interrupt pending (__irq_expect_poll_done). */
	__irq_expect_claim_add(desc, exp, elapsed, in_poll, now);
}

void __irq_expect_poll_done(struct irq_desc *desc, uint64_t now)
{
	bool pending = __irq_poll_pending_counts(desc, desc->def.poll_pending) || __irq_poll_left_irq_counts(desc);
	struct irqaction *a;
	struct irq_expect *e;
	unsigned int walked, n;

	for (a = desc->action, walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++) {
		for (e = a->expects, n = 0; e && n < IRQ_EXPECTS_PER_ACTION; e = e->next, n++) {
			unsigned int i;

			for (i = 0; i < 2; i++) {
				struct irq_claim c = e->claims[i];
				uint32_t st, k;

				if (!c.in_poll)
					continue;
				e->claims[i].in_poll = false;
				/*
				 * Not conclusive: the delayed verdict decides (see __irq_expect_polled).
				 * An IRQF_NEXT_ON_READ device's interrupt pending after the handlers
				 * is its next work's.
				 */
				if (!pending || !c.n || (a->flags & IRQF_NEXT_ON_READ))
					continue;
				/*
				 * The line's interrupt is pending after the run that found
				 * them: it carries their edges (merged while no interrupt
				 * was taken in between), late. The claim goes.
				 */
				if (i == 0)
					e->claims[0] = e->claims[1];
				e->claims[1] = (struct irq_claim){ 0 };
				st = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
				if (!e->claims[0].n)
					__atomic_and_fetch(&e->state, ~(uint32_t)IRQ_EXP_CLAIM, __ATOMIC_ACQ_REL);
				if (!(st & IRQ_EXP_LIVE))
					break;
				for (k = 0; k < c.n; k++)
					__irq_expect_beat(desc, e, st & ~(uint32_t)IRQ_EXP_CLAIM, c.elapsed_ns, now);
				break;  /* one claim holds this run's finds */
			}
		}
	}
	desc->def.poll_claims_open = 0;
}

void unexpect_irq(struct irq_expect *exp, bool timedout)
{
	const struct irq_policy *p;
	struct irq_desc *desc;
	unsigned long flags;
	uint32_t st;
	uint64_t now, elapsed;
	bool by_poll, opened, verify = false;

	if (!exp)
		return;
	st = __atomic_load_n(&exp->state, __ATOMIC_ACQUIRE);
	if (exp->magic != IRQ_EXPECT_MAGIC || !(st & IRQ_EXP_LIVE)) {
		irq_expect_misuse(exp, exp->magic == IRQ_EXPECT_MAGIC ? "unexpect_irq after its action was freed"
								      : "unexpect_irq on storage that is no token");
		return;
	}
	p = irq_policy();
	if (!(uint32_t)p->expect_on)  /* a 0/1 switch: its low word */
		return;
	desc = exp->desc;
	__irq_poll_want_change_begin(desc);
	st = __atomic_fetch_and(&exp->state, ~(uint32_t)IRQ_EXP_EXPECTING, __ATOMIC_ACQ_REL);
	opened = st & IRQ_EXP_EXPECTING;  /* this expect's open_mark is there */
	if (!opened) {
		irq_expect_misuse(exp, timedout ? "unexpect_irq(timed out) without expect_irq; time-out counted"
						: "unexpect_irq without expect_irq");
		if (!timedout) {
			__irq_poll_want_change_end(desc);
			return;
		}
	}
	by_poll = irq_expect_by_poll(exp);
	IRQ_TRACE(IRQ_TEV_UNEXPECT, desc->irq_data.irq, timedout ? IRQ_TUNEXP_TIMEOUT : by_poll ? IRQ_TUNEXP_POLL : IRQ_TUNEXP_IRQ, irq_trace_id(exp));
	if (!timedout && !by_poll && !(st & IRQ_EXP_CLAIM)) {
		/* By interrupt, no verdict pending: lock-free unless the goal is reached now. */
		exp->completions_irq++;
		if (irq_expect_skip_learning(exp, p, st)) {
			irq_expect_count_good(exp, p, st);  /* verified already: never reaches the goal anew */
			/* After every change the poll time depends on (see expect_irq). */
			__irq_poll_want_moved(desc);
			__irq_poll_want_change_end(desc);
			return;
		}
		now = __irq_run_now(desc);
		elapsed = now - irq_load_u64(&exp->started_ns);
		if (!irq_expect_note_good(exp, p, st, elapsed)) {
			__irq_poll_want_moved(desc);
			__irq_poll_want_change_end(desc);
			return;
		}
		verify = true;
	} else {
		/*
		 * The run's clock: in a poll of the poll timer the poll's time
		 * (irq_poll_line_at), which is when the completion was found;
		 * where the first poll goes is no longer learnt from it
		 * (irq_expect_learn_poll), only the verdict's and the quick
		 * mode's times, for which the start of the poll is the time.
		 */
		now = __irq_run_now(desc);
		elapsed = now - irq_load_u64(&exp->started_ns);
	}
	flags = irq_port_lock_irqsave(&desc->lock);
	if (exp->action) {
		if (st & IRQ_EXP_CLAIM) {
			__irq_expect_judge_claim(desc, exp, !timedout && !by_poll, timedout, now);
			st = (st & IRQ_EXP_FIRST_POLL) | (__atomic_load_n(&exp->state, __ATOMIC_ACQUIRE) & ~IRQ_EXP_FIRST_POLL);
			if (!timedout && !by_poll) {
				exp->completions_irq++;
				verify = irq_expect_note_good(exp, p, st, elapsed);
			}
		}
		if (timedout) {
			exp->timeouts++;
			if (opened && __irq_expect_timeout_stalled(desc, exp, now)) {
				exp->completions_stalled++;
				IRQ_TRACE(IRQ_TEV_VERDICT, desc->irq_data.irq, IRQ_TVERD_STALLED, irq_trace_id(exp));
			} else {
				__irq_expect_bad(desc, exp, IRQ_EXPECT_TIMEOUT_COST, now);
			}
		} else if (by_poll) {
			__irq_expect_polled(desc, exp, st, elapsed, now);
		} else if (verify) {
			__irq_expect_verified(desc, exp, now);
		}
	}
	__irq_poll_want_moved(desc);
	irq_port_unlock_irqrestore(&desc->lock, flags);
	__irq_poll_want_change_end(desc);
}

/* When the expects of @action want the line polled (0: never). Lock held. */
uint64_t __irq_expect_deadline(struct irq_desc *desc, struct irqaction *action, uint64_t now)
{
	const struct irq_policy *p = irq_policy();
	uint64_t want = 0, last = desc->def.last_poll_ns;
	struct irq_expect *e;
	unsigned int n;

	(void)now;
	if (!p->expect_on)
		return 0;
	/*
	 * A busy line's verified tokens: the poll timer fired lately and found
	 * nothing due (poll.c sets verified_check_ns, a real poll since undoes
	 * it). Then it looks again a recheck later, not after every expect.
	 */
	bool tick = irq_tick_look_on(p);
	bool recheck = !tick && p->expect_verified_recheck_ns && desc->def.verified_check_ns >= last;
	uint64_t recheck_at = desc->def.verified_check_ns + p->expect_verified_recheck_ns;

	for (e = action->expects, n = 0; e && n < IRQ_EXPECTS_PER_ACTION; e = e->next, n++) {
		uint32_t st = __atomic_load_n(&e->state, __ATOMIC_SEQ_CST);
		uint64_t started = irq_load_u64(&e->started_ns);
		uint64_t base = started > last ? started : last, at, gap;

		if (!(st & IRQ_EXP_EXPECTING)) {
			/*
			 * A verified token in use keeps the slow poll (or, busy, the
			 * recheck) alive, so its expects need no timer. With the
			 * host's tick it needs neither: the tick looks at its every
			 * expect (and a poll timer waiting 3 s in kernel/time's heap
			 * made every tick's re-queue dearer: 83 guest instructions
			 * per healthy ATA block, make prof-ata).
			 */
			if ((st & IRQ_EXP_VERIFIED) && (st & IRQ_EXP_USED) && !tick)
				at = recheck ? recheck_at : last + p->poll_slow_ns;
			else
				continue;
		} else if ((st & IRQ_EXP_VERIFIED) && !(st & IRQ_EXP_CLAIM)) {
			/*
			 * Verified, and no completion found by a poll awaits its
			 * verdict. With one awaiting it (the tick or a safety poll
			 * just found one: a lost interrupt, or a late one) the token
			 * is polled as an unverified one below, at its first-poll
			 * delay: left to the tick, the next block of a PIO disk
			 * whose interrupts had just gone waited a whole tick more
			 * (ata-drop:50: two tick-found blocks, about 1 ms each, at
			 * the start of every lost command).
			 */
			uint64_t safety = irq_expect_verified_delay(e, p);

			if (safety == p->poll_slow_ns)
				at = base + p->poll_slow_ns;
			else if (!(st & IRQ_EXP_FIRST_POLL)) {
				at = started + safety;  /* the safety poll */
				/*
				 * With the host's tick, the tick looks at the token
				 * (tick_look.c): due only once a tick found it past its
				 * safety delay, and until then it wants nothing of the
				 * timer. Without it, unless the timer looked at the
				 * line lately and found nothing due: the device is busy
				 * with one command after another, each one's safety poll
				 * would be a timer event of its own. Then once per
				 * recheck.
				 */
#if IRQ_TICK_LOOK
				if (tick) {
					if (at > desc->def.tick_due_ns)
						continue;  /* the tick looks at it: no timer */
				} else
#endif
				 if (recheck && at > desc->def.verified_check_ns && recheck_at > at) {
					at = recheck_at;  /* young at the last look: not due before the next */
				}
			}
			else  /* it found the device busy: a slow command; gaps doubling up to the normal rate */
				at = last + irq_expect_clamp(last - started, safety, irq_expect_gap_max(p));
		} else if (!(st & IRQ_EXP_FIRST_POLL)) {
			at = started + (p->expect_latency_poll ? irq_load_u64(&e->first_poll_ns)
					      : (st & IRQ_EXP_QUICK) ? p->poll_quick_ns : p->poll_normal_ns);
		} else {
			if (p->expect_latency_poll) {
				/*
				 * The first poll (meant for d) came too early: the
				 * completion is probably just behind it. Look again soon
				 * (d/4), then back off: each gap as long as the time
				 * since the first poll ran, up to the normal interval.
				 */
				uint64_t since_first = last - e->first_polled_ns;

				gap = irq_load_u64(&e->first_poll_ns) >> IRQ_EXPECT_RETRY_SHIFT;
				if (since_first > gap)
					gap = since_first;
				gap = irq_expect_clamp(gap, p->expect_first_poll_min_ns, irq_expect_gap_max(p));
			} else {
				gap = (st & IRQ_EXP_QUICK) ? p->poll_quick_ns : p->poll_normal_ns;
			}
			at = last + gap;
		}
		if (!want || at < want)
			want = at;
	}
	return want;
}

/*
 * Claims waiting for their verdict (the line's CPU has not run since a
 * poll found their work): if that CPU has now finished nothing for the
 * standstill window (stall_ns or two tick periods) since, it was not running (stall.c), which the verdict would otherwise
 * learn only if it were asked during the stall - a device slower than the
 * rest of the stall gives no occasion. Asked by every poll of the line and
 * every look of the tick. Lock held.
 */
static void __irq_expect_note_stall(struct irq_expect *e, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (e->claims[i].n && !e->claims[i].waited && __irq_cpu_stalled(&e->claims[i].mark, now))
			e->claims[i].waited = true;
}

void __irq_expect_mark_polled(struct irqaction *action, uint64_t poll_ns)
{
	struct irq_expect *e;
	unsigned int n;

	for (e = action->expects, n = 0; e && n < IRQ_EXPECTS_PER_ACTION; e = e->next, n++) {
		uint32_t st = __atomic_load_n(&e->state, __ATOMIC_SEQ_CST);

		if (st & IRQ_EXP_CLAIM)
			__irq_expect_note_stall(e, poll_ns);
		if ((st & IRQ_EXP_EXPECTING) && irq_load_u64(&e->started_ns) < poll_ns &&
		    !(__atomic_fetch_or(&e->state, IRQ_EXP_FIRST_POLL, __ATOMIC_SEQ_CST) & IRQ_EXP_FIRST_POLL))
			e->first_polled_ns = poll_ns;
	}
}

bool __irq_expect_any_verified(struct irq_desc *desc)
{
	struct irqaction *a;
	struct irq_expect *e;
	unsigned int walked, n;

	for (a = desc->action, walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++)
		for (e = a->expects, n = 0; e && n < IRQ_EXPECTS_PER_ACTION; e = e->next, n++)
			if (__atomic_load_n(&e->state, __ATOMIC_SEQ_CST) & IRQ_EXP_VERIFIED)
				return true;
	return false;
}

void __irq_expect_age(struct irq_desc *desc, struct irqaction *action)
{
	struct irq_expect *e;
	unsigned int n;

	/* A token that is expecting right now is in use; the others must show it again. */
	for (e = action->expects, n = 0; e && n < IRQ_EXPECTS_PER_ACTION; e = e->next, n++) {
		uint32_t st = __atomic_load_n(&e->state, __ATOMIC_SEQ_CST);

		if (!(st & IRQ_EXP_EXPECTING) && (st & IRQ_EXP_USED)) {
			__atomic_and_fetch(&e->state, ~(uint32_t)IRQ_EXP_USED, __ATOMIC_SEQ_CST);
			__irq_poll_want_moved(desc);  /* a verified token's slow poll may go */
		}
	}
}

/*
 * Expecting's side of the poll scheduler (struct irq_defence, irq_sched.h),
 * over the line's actions with tokens. All with the lock held.
 */

/* When the line's tokens want it polled (0: never). */
static uint64_t irq_expect_next_poll(struct irq_desc *desc, uint64_t now)
{
	struct irqaction *a;
	unsigned int walked;
	uint64_t want = 0;

	for (a = desc->action, walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++)
		if (a->expects)
			want = irq_poll_earliest(want, __irq_expect_deadline(desc, a, now));
	return want;
}

/*
 * The poll timer fired: without the host's tick, the line's verified
 * tokens are looked at now. An expect that is younger than its safety
 * delay needs no look before the next recheck (expect_verified_recheck_ns),
 * one that is older is due; and tokens that did not expect since the last
 * look keep no recheck alive, so an idle line's timer stops. (With the
 * host's tick, the tick looks at them: tick_look.c.)
 */
static void irq_expect_expired(struct irq_desc *desc, uint64_t now, uint64_t due_by)
{
	const struct irq_policy *p = irq_policy();
	struct irqaction *a;
	unsigned int walked;

	(void)due_by;
	if (!p->expect_verified_recheck_ns || irq_tick_look_on(p) || !__irq_expect_any_verified(desc))
		return;
	desc->def.verified_check_ns = now;
	/* Pairs with the loads in expect_irq (irq_expect_poll_armed_for_recheck). */
	__atomic_store_n(&desc->def.recheck_word, irq_poll_word_encode(now + p->expect_verified_recheck_ns),
			 __ATOMIC_SEQ_CST);
	for (a = desc->action, walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++)
		__irq_expect_age(desc, a);
	__irq_poll_want_moved(desc);
}

/* The timer's poll looked at the device from @poll_ns: expecting tokens had their first poll. */
static void irq_expect_polled(struct irq_desc *desc, uint64_t poll_ns)
{
	struct irqaction *a;
	unsigned int walked;

	for (a = desc->action, walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++)
		__irq_expect_mark_polled(a, poll_ns);
}

/* After the poll's next poll was worked out: tokens not expecting lose their "in use" mark. */
static void irq_expect_replanned(struct irq_desc *desc)
{
	struct irqaction *a;
	unsigned int walked;

	for (a = desc->action, walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++)
		__irq_expect_age(desc, a);
}

/* Expecting as the poll scheduler sees it (irq_sched.h; the assembly lists it). */
const struct irq_defence irq_defence_expect = {
	.name = "expect",
	.why = IRQ_TRACE_WHY_EXPECT,
	.next_poll = irq_expect_next_poll,
	.expired = irq_expect_expired,
	.polled = irq_expect_polled,
	.replanned = irq_expect_replanned,
	.action_removed = __irq_expect_kill_all,
};

#if IRQ_TICK_LOOK /* the tick's look at verified tokens (tick_look.c) */
/*
 * The safety poll of verified token @e (expecting since @started) is due:
 * may it run? Not while the line is routed to another CPU that has not
 * finished stall_gate interrupts since the poll came due: that CPU may not
 * be running (a descheduled virtual CPU), the interrupt only late, and the
 * poll would take the work from it (a healthy line polled under host
 * load). The first due look marks the CPU and waits; a later look polls
 * once it has finished them - within stall_gate tick periods for an idle
 * CPU (its ticks), soon after a stalled one runs again, by which time it
 * has taken the interrupt itself: three, as stall_ran_irqs, because the
 * first may end the interrupt it was in and the CPU's tick, of a higher
 * priority, is taken before the line's own when both were pending (with
 * one, a healthy NVMe line on CPU 1 beside two busy loops had up to 2 % of
 * its completions polled). A real loss is thus found at most stall_gate
 * tick periods later, and, on a stalled CPU, once it runs (docs/defences.md,
 * "A stalled CPU"). On the line's own CPU, or without the rule: at once.
 * Lock held.
 */
static bool __irq_expect_gate_open(struct irq_desc *desc, struct irq_expect *e, uint64_t started, uint64_t now)
{
	if (!irq_policy()->stall_gate || __irq_line_cpu(desc) == irq_port_cpu_id())
		return true;
	if (e->gate_started_ns != started || !e->gate.at_ns) {  /* (at_ns: an expect at time 0 too) */
		e->gate_started_ns = started;
		__irq_cpu_mark(desc, &e->gate, now);
		return false;
	}
	if (__irq_cpu_finished(&e->gate) >= irq_policy()->stall_gate)
		return true;
	e->gate_waits++;
	desc->def.tick_stall_waits++;
	return false;
}

bool __irq_expect_tick_look(struct irq_desc *desc, struct irqaction *action, uint64_t now, bool *keep)
{
	const struct irq_policy *p = irq_policy();
	struct irq_expect *e;
	bool due = false;
	unsigned int n;

	for (e = action->expects, n = 0; e && n < IRQ_EXPECTS_PER_ACTION; e = e->next, n++) {
		uint32_t st = __atomic_load_n(&e->state, __ATOMIC_SEQ_CST);

		if (!(st & IRQ_EXP_VERIFIED))
			continue;
		if (st & (IRQ_EXP_EXPECTING | IRQ_EXP_USED))
			*keep = true;
		if (st & IRQ_EXP_CLAIM)
			__irq_expect_note_stall(e, now);
		/*
		 * Past its safety delay and not polled yet since expect_irq (a
		 * poll that found the device busy has the timer follow the
		 * token: __irq_expect_deadline). started_ns is read after the
		 * seq_cst load saw EXPECTING, which expect_irq set after storing
		 * it (irq_load_u64: internals.h).
		 */
		if ((st & (IRQ_EXP_EXPECTING | IRQ_EXP_FIRST_POLL)) == IRQ_EXP_EXPECTING) {
			uint64_t started = irq_load_u64(&e->started_ns);

			if (now >= started && now - started >= irq_expect_verified_delay(e, p) &&
			    __irq_expect_gate_open(desc, e, started, now))
				due = true;
		}
	}
	__irq_expect_age(desc, action);
	return due;
}

bool __irq_expect_tick_keeps(struct irq_desc *desc)
{
	struct irqaction *a;
	struct irq_expect *e;
	unsigned int walked, n;

	for (a = desc->action, walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++)
		for (e = a->expects, n = 0; e && n < IRQ_EXPECTS_PER_ACTION; e = e->next, n++) {
			uint32_t st = __atomic_load_n(&e->state, __ATOMIC_SEQ_CST);

			if ((st & IRQ_EXP_VERIFIED) && (st & (IRQ_EXP_EXPECTING | IRQ_EXP_USED)))
				return true;
		}
	return false;
}

#endif /* IRQ_TICK_LOOK */

void __irq_expect_kill_all(struct irq_desc *desc, struct irqaction *action)
{
	struct irq_expect *e = action->expects, *next;
	unsigned int n;

	for (n = 0; e && n < IRQ_EXPECTS_PER_ACTION; e = next, n++) {
		next = e->next;
		/*
		 * A verdict still pending is taken now: its interrupt has had all
		 * the time there is (not judged if the line's CPU has not run since).
		 */
		if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) & IRQ_EXP_CLAIM)
			__irq_expect_judge_claim(desc, e, false, true, irq_port_now_ns());
		__atomic_store_n(&e->state, 0, __ATOMIC_RELEASE);
		e->action = NULL;
		e->next = NULL;
		if (e->pool_state == IRQ_EXP_POOL_TAKEN) {
			e->dead_seq = __atomic_add_fetch(&irq_expect_deaths, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&e->pool_state, IRQ_EXP_POOL_DEAD, __ATOMIC_RELEASE);
		}
	}
	action->expects = NULL;
	action->nr_expects = 0;
}

#else /* !IRQ_EXPECT */

/*
 * Expecting left out (IRQ_EXPECT 0, irq_config.h): no token is ever handed
 * out, as under noirqdebug: init_irq_expect() and init_irq_expect_static()
 * return NULL, and expect_irq()/unexpect_irq() of NULL do nothing (a
 * driver that got NULL knows it is not expecting; irq_defences_built()
 * has no IRQ_DEF_EXPECT bit). The internal calls are inline no-ops
 * (internals.h).
 */
struct irq_expect *init_irq_expect(unsigned int irq, void *dev_id)
{
	(void)irq;
	(void)dev_id;
	return NULL;
}

struct irq_expect *init_irq_expect_static(struct irq_expect *storage, unsigned int irq, void *dev_id)
{
	(void)storage;
	(void)irq;
	(void)dev_id;
	return NULL;
}

void expect_irq(struct irq_expect *exp)
{
	(void)exp;
}

void unexpect_irq(struct irq_expect *exp, bool timedout)
{
	(void)exp;
	(void)timedout;
}

#endif /* IRQ_EXPECT */
