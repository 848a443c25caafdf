/*
 * tick_look.c - the host's periodic tick, lent to the defences (policy.h:
 * irq_tick_start, irq_tick, irq_tick_wanted; docs/porting.md, section 6a).
 *
 * The problem it solves (issues 17 and 19). A verified expect token skips
 * the lock and the timer in expect_irq; what finds the first interrupt it
 * loses is a safety poll some time after expect_irq. Done by the line's
 * poll timer, a busy line pays for it in timer events: one per expect
 * (0.33 per ATA block, before issue 19), or one per recheck, where a long
 * recheck (100 ms) leaves a lost completion waiting that long and a short
 * one (400 us) cost healthy ATA 15 % of its throughput. A host that ticks
 * anyway (irqkit: 1 kHz) has a look at the line for free every tick. So:
 *
 *   - expect_irq of a verified token puts its line in the tick's set (one
 *     bit per line; a load, and an atomic OR only when the bit is clear)
 *     and returns, lock-free, without looking at the timer;
 *   - each tick looks at the lines in the set, under the line's lock: a
 *     verified token expecting for longer than its safety delay (4 x its
 *     typical latency, at least 100 us: expect_verified_mult,
 *     expect_verified_min_ns) is due, and the line's poll timer is armed
 *     for now (def.tick_due_ns makes __irq_expect_deadline agree); tokens
 *     not expecting are aged (__irq_expect_age) and a line whose verified
 *     tokens did not expect since the last tick leaves the set;
 *   - the poll timer keeps everything else: learning tokens, a token whose
 *     safety poll found the device busy (gaps doubling), the slow poll.
 *
 * A lost completion in busy verified traffic is thus found at the first
 * tick at least the safety delay after its expect_irq: within one tick
 * period plus that delay of the completion. While all is well, no timer
 * event, and per tick one lock round per busy line (the host read the
 * clock for its tick already and hands the time to irq_tick).
 *
 * Without a tick (irq_tick_start never called, or called with 0) nothing
 * here runs and the poll timer does it all (expect_verified_recheck_ns).
 * In every build, IRQ_TICK_LOOK 0 too, irq_tick_start hands the period on
 * to the standstill rule (stall.c, __irq_stall_tick): an idle CPU's
 * finished-interrupt count moves once a tick period, whatever looks here.
 * tejun2010 and mainline have expect_tick_look 0: their tokens never use
 * the tick.
 *
 * Layer 2, a service of the defences: may use layers 0-2; it asks
 * expecting through struct irq_tick_hooks (irq_sched.h), given by the
 * assembly, not by name (docs/irq-layers.md).
 */
#include "irq_sched.h"
#include "stall.h"

#if IRQ_TICK_LOOK
uint32_t __irq_tick_period_ns;

/* The set: bit (irq % 32) of word (irq / 32) for line irq. */
#define IRQ_TICK_WORDS ((IRQ_NR_LINES + 31) / 32)
uint32_t __irq_tick_lines[IRQ_TICK_WORDS];
/* A tick is looking at the lines (on some CPU): another CPU's tick skips its turn. */
static uint32_t irq_tick_busy;
/* Expecting's side of the look (irq_sched.h), given by __irq_tick_reset at boot. */
static const struct irq_tick_hooks *irq_tick_hooks;

/*
 * Memory ordering of the set. expect_irq publishes IRQ_EXP_EXPECTING with
 * a seq_cst read-modify-write of the token's state, then loads the line's
 * bit here (seq_cst) and sets it if clear. The tick, taking a line out,
 * clears the bit (a seq_cst read-modify-write), then loads the tokens'
 * states (seq_cst: __irq_expect_tick_keeps) and puts the line back if one
 * expects. In the single order of seq_cst operations, either expect_irq's
 * load comes after the tick's clear (it sees the bit clear and sets it) or
 * before it, and then its state change comes before the tick's loads,
 * which see the token expecting. With acquire/release only, both could
 * read the old values (store buffering: each CPU's store still in its
 * buffer), and the line would be out of the set with a token expecting:
 * a lost interrupt would then wait for the slow poll (3 s).
 */
/* __irq_tick_line_add (tick_set.h) is expect_irq's side of it. */

/*
 * The number of the lowest set bit of @bits (not 0), by a de Bruijn
 * multiplication: __builtin_ctz would be one instruction on x86 and ARMv7-M
 * but a library call on RISC-V without the B extension, and shifting bit
 * by bit up to line 14 cost the tick about 45 instructions.
 */
static unsigned int irq_tick_lowest_bit(uint32_t bits)
{
	static const uint8_t pos[32] = {
		0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
		31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9,
	};

	return pos[((bits & -bits) * 0x077CB531u) >> 27];
}

/* Look at one line of the set (see the top of the file). */
static void irq_tick_look_line(struct irq_desc *desc, unsigned int irq, uint64_t now)
{
	uint32_t *word = &__irq_tick_lines[irq / 32], bit = 1u << (irq % 32);
	bool keep = false, due = false;
	struct irqaction *a;
	unsigned int walked;
	unsigned long flags;

	flags = irq_port_lock_irqsave(&desc->lock);
	desc->def.tick_looks++;
	for (a = desc->action, walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++)
		if (a->expects && irq_tick_hooks->look(desc, a, now, &keep))
			due = true;
	if (due) {
		/* __irq_expect_deadline: a token past its safety delay at this tick is due now. */
		desc->def.tick_due_ns = now;
		desc->def.tick_polls++;
		__irq_poll_want_moved(desc);
		__irq_poll_reschedule(desc, now);
	}
	if (!keep) {
		/* Out of the set, then look again (the ordering above). */
		__atomic_and_fetch(word, ~bit, __ATOMIC_SEQ_CST);
		if (irq_tick_hooks->keeps(desc))
			__atomic_or_fetch(word, bit, __ATOMIC_SEQ_CST);
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
}

static void irq_tick_release_lines(void);

void irq_tick(uint64_t now)
{
	unsigned int w;

	/* irq_tick_look_on (tick_set.h), read here without the header that reads this file's data. */
	if (!irq_defences_active() || !(uint32_t)irq_policy()->expect_tick_look ||
	    !__atomic_load_n(&__irq_tick_period_ns, __ATOMIC_ACQUIRE)) {
		/*
		 * The profile changed to one without the tick's look (irqpolicy=
		 * tejun2010 at run time): a token expecting now has no timer of
		 * its own yet. Hand its line back to its poll timer, once.
		 */
		if (irq_tick_wanted())
			irq_tick_release_lines();
		return;
	}
	/*
	 * Most ticks find the set empty (a disk's line is in it only while a
	 * command is out or was since the last tick): say so before the
	 * exchange. A line put in after this load is looked at next tick, as
	 * one put in after the loop's load below would be.
	 */
	if (!irq_tick_wanted())
		return;
	if (__atomic_exchange_n(&irq_tick_busy, 1, __ATOMIC_ACQUIRE))
		return;
	for (w = 0; w < IRQ_TICK_WORDS; w++) {
		uint32_t bits = __atomic_load_n(&__irq_tick_lines[w], __ATOMIC_SEQ_CST);
		unsigned int b;

		for (; bits; bits &= bits - 1) {
			b = irq_tick_lowest_bit(bits);
			irq_tick_look_line(&irq_descs[w * 32 + b], w * 32 + b, now);
		}
	}
	__atomic_store_n(&irq_tick_busy, 0, __ATOMIC_RELEASE);
}

bool irq_tick_wanted(void)
{
	unsigned int w;

	for (w = 0; w < IRQ_TICK_WORDS; w++)
		if (__atomic_load_n(&__irq_tick_lines[w], __ATOMIC_RELAXED))
			return true;
	return false;
}

/* Hand every line of the set back to its poll timer (the tick stopped). */
static void irq_tick_release_lines(void)
{
	unsigned int w;

	for (w = 0; w < IRQ_TICK_WORDS; w++) {
		uint32_t bits = __atomic_exchange_n(&__irq_tick_lines[w], 0, __ATOMIC_SEQ_CST);

		for (; bits; bits &= bits - 1) {
			struct irq_desc *desc = &irq_descs[w * 32 + irq_tick_lowest_bit(bits)];
			unsigned long flags;

			flags = irq_port_lock_irqsave(&desc->lock);
			__irq_poll_want_moved(desc);
			__irq_poll_reschedule(desc, irq_port_now_ns());
			irq_port_unlock_irqrestore(&desc->lock, flags);
		}
	}
}

void irq_tick_start(uint64_t period_ns)
{
	uint32_t v = period_ns <= UINT32_MAX ? (uint32_t)period_ns : 0;
	uint32_t old;

	__irq_stall_tick(period_ns);  /* the standstill rule's window follows the tick (stall.c) */
	if (period_ns > UINT32_MAX)
		irq_port_log(IRQ_LOG_WARN, "irq: a tick of %llu ms is too slow to look at lines; not used\n",
			     (unsigned long long)(period_ns / IRQ_POLICY_MS));
	old = __atomic_exchange_n(&__irq_tick_period_ns, v, __ATOMIC_SEQ_CST);
	if (old == v)
		return;
	/* Every line's wanted poll time may move (the cached ones of poll.c are stale). */
	__atomic_add_fetch(&__irq_switches.gen, 1, __ATOMIC_SEQ_CST);
	if (!v) {
		irq_tick_release_lines();
		irq_port_log(IRQ_LOG_INFO, "irq: tick stopped; busy verified lines go back to their poll timers\n");
		return;
	}
	if (!old)
		irq_port_log(IRQ_LOG_INFO, "irq: the tick (every %u us) looks at busy lines' verified expects%s\n",
			     (unsigned int)(v / IRQ_POLICY_US),
			     irq_policy()->expect_tick_look ? "" : " (not in this profile)");
}

void __irq_tick_reset(const struct irq_tick_hooks *hooks)
{
	unsigned int w;

	irq_tick_hooks = hooks;
	__atomic_store_n(&__irq_tick_period_ns, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&irq_tick_busy, 0, __ATOMIC_SEQ_CST);
	for (w = 0; w < IRQ_TICK_WORDS; w++)
		__atomic_store_n(&__irq_tick_lines[w], 0, __ATOMIC_SEQ_CST);
}

#else /* !IRQ_TICK_LOOK */

/*
 * The tick's look left out (IRQ_TICK_LOOK 0, irq_config.h): the calls stay
 * and do nothing; irq_tick_wanted() says false, so a host that asks it
 * before ticking never ticks for the core. Verified tokens get their
 * safety polls from the line's poll timer (expect_verified_recheck_ns),
 * as on a host without a tick (irq_tick_look_on is a constant false).
 */
void irq_tick_start(uint64_t period_ns)
{
	/* No look, but the CPUs still tick at @period_ns: the standstill rule's window follows it (stall.c). */
	__irq_stall_tick(period_ns);
}

void irq_tick(uint64_t now)
{
	(void)now;
}

bool irq_tick_wanted(void)
{
	return false;
}

#endif /* IRQ_TICK_LOOK */
