/*
 * clocksource.c - clock source registry and ktime_get_ns(). See
 * clocksource.h for the contract and docs/time.md for the arithmetic.
 *
 * Time is kept as base_ns (ktime at the last reading, cycle_last) plus a
 * fraction of a nanosecond in units of 2^-shift ns, so that accumulating
 * many small deltas loses nothing. Every ktime_get_ns() call accumulates;
 * a delta is taken modulo mask + 1 (narrow counters wrap) and a delta above
 * half the range is a counter that went backwards and is ignored.
 */
#include "clocksource.h"
#include "internal.h"
#include "time_port.h"

/* The current source's conversion, copied out of it by switch_to() so that
 * ktime_get_ns() reads one cache line and derives nothing per call. */
struct accum_params {
	uint64_t mask;      /* cs->mask */
	uint32_t mult;      /* cs->mult */
	uint32_t shift;     /* cs->shift */
	uint32_t frac_mask; /* 2^shift - 1: shift <= 31, so it fits */
	uint32_t fast_max;  /* largest delta accumulate_fast() takes, see fast_max_of() */
};

/*
 * ktime_get_ns_fast()'s sequence: odd while a writer (under
 * time_port_irq_save) changes the time state below, bumped again when it
 * is done. Writers: ktime_get_ns's accumulation, switch_to, clocksource_reset.
 */
static uint32_t cs_seq;

/* How often ktime_get_ns_fast() tries for a calm state before it takes the locked path. */
#define KTIME_FAST_TRIES 4

static struct {
	struct clocksource *current;
	struct clocksource *list;
	unsigned count;
	struct accum_params p;       /* of current */
	struct clocksource_accum acc; /* ktime and its fraction at cycle_last */
	uint64_t cycle_last;  /* counter at the last accumulation */
	uint64_t backwards;   /* readings ignored: counter behind cycle_last */
	char preferred[TIME_PREFER_NAME_MAX]; /* clocksource_prefer(); "" = by rating */
} cs_state;

static uint64_t jiffies_cs_read(struct clocksource *cs)
{
	(void)cs;
	return jiffies;
}

/* Time before any hardware counter: ticks, as jiffies count them. */
static struct clocksource jiffies_clocksource = {
	.name = "jiffies",
	.read = jiffies_cs_read,
	.mask = UINT64_MAX,
	.rating = 1,
	.flags = CLOCK_SOURCE_TICK_DRIVEN,
};

int clocksource_calc_mult_shift(uint32_t freq_hz, uint32_t *mult, uint32_t *shift)
{
	uint64_t m = 0;
	uint32_t s;

	if (!freq_hz)
		return -EINVAL;
	/* At shift 0, mult = 1e9 / freq < 2^32 always: the loop ends there. */
	for (s = 31;; s--) {
		m = ((NSEC_PER_SEC << s) + freq_hz / 2) / freq_hz;
		if (m <= UINT32_MAX || s == 0)
			break;
	}
	*mult = (uint32_t)m;
	*shift = s;
	return 0;
}

uint64_t clocksource_freq_hz(const struct clocksource *cs)
{
	if (cs->freq_hz)
		return cs->freq_hz;
	if (!cs->mult)
		return 0;
	/* A driver that gave mult/shift only (the TSC, whose rate may not fit 32 bits). */
	return ((NSEC_PER_SEC << cs->shift) + cs->mult / 2) / cs->mult;
}

uint64_t clocksource_cyc2ns(const struct clocksource *cs, uint64_t cycles)
{
	uint64_t low_mask = (UINT64_C(1) << cs->shift) - 1;

	/* Split so that neither product can overflow: shift <= 31 and
	 * mult < 2^32 keep (cycles & low_mask) * mult below 2^63. */
	return (cycles >> cs->shift) * cs->mult + (((cycles & low_mask) * cs->mult) >> cs->shift);
}

/*
 * Accumulation: acc += delta * mult / 2^shift ns, the fraction carried in
 * acc.frac (units of 2^-shift ns, so frac < 2^shift <= 2^31).
 *
 * The general form splits delta at bit shift so that no product exceeds 64
 * bits for any delta: hi = delta >> shift, lo = delta & frac_mask, and
 * delta * mult + frac = hi * mult * 2^shift + (lo * mult + frac), whose
 * first term is a multiple of 2^shift. So the whole sum shifted right by
 * shift is hi * mult + ((lo * mult + frac) >> shift), and its low shift
 * bits are those of lo * mult + frac: computing the sum in one piece gives
 * the same base_ns and frac, bit for bit, whenever it fits in 64 bits.
 * For delta < 2^32 it always does: (2^32 - 1)^2 + 2^31 - 1 < 2^64. On
 * i686 that piece is one 32x32->64 multiply instead of the general form's
 * 64-bit shifts and three multiplies (~130 -> ~60 instructions a call).
 */

/* Largest delta the fast form takes for a counter of @mask: a 32-bit
 * delta, and not one the backwards check (delta > mask / 2) refuses, so
 * that one comparison in the hot path stands for both. */
static uint32_t fast_max_of(uint64_t mask)
{
	uint64_t half = mask >> 1;

	return half < UINT32_MAX ? (uint32_t)half : UINT32_MAX;
}

static void params_set(struct accum_params *p, uint64_t mask, uint32_t mult, uint32_t shift)
{
	p->mask = mask;
	p->mult = mult;
	p->shift = shift;
	p->frac_mask = (uint32_t)((UINT64_C(1) << shift) - 1);
	p->fast_max = fast_max_of(mask);
}

/* The general form; RETURNS false (and changes nothing) for a delta above
 * half the range: a counter that went backwards. Rare (a delta of 2^32 or
 * more, or a glitch): kept out of line so the hot path stays small. */
static __attribute__((noinline, cold)) bool accumulate_slow(struct clocksource_accum *a,
							     const struct accum_params *p, uint64_t delta)
{
	uint64_t part;

	if (delta > (p->mask >> 1))
		return false;
	part = (delta & p->frac_mask) * p->mult + a->frac;
	a->base_ns += (delta >> p->shift) * p->mult + (part >> p->shift);
	a->frac = (uint32_t)(part & p->frac_mask);
	return true;
}

/* What ktime_get_ns() runs: the one-multiply form for deltas up to
 * p->fast_max, the general one otherwise. RETURNS false for backwards. */
static inline __attribute__((always_inline)) bool accumulate_delta(struct clocksource_accum *a,
								    const struct accum_params *p, uint64_t delta)
{
	uint32_t lo = (uint32_t)delta;
	uint64_t sum;

	/* Tested as two 32-bit halves: compared as one 64-bit value, GCC
	 * multiplies the (known zero) high half too. */
	if (__builtin_expect((uint32_t)(delta >> 32) != 0 || lo > p->fast_max, 0))
		return accumulate_slow(a, p, delta);
	sum = (uint64_t)lo * p->mult + a->frac;
	a->base_ns += sum >> p->shift;
	a->frac = (uint32_t)sum & p->frac_mask;
	return true;
}

/* Bring the time up to counter value @now of the current source. */
static inline __attribute__((always_inline)) void accumulate(uint64_t now)
{
	uint64_t delta = (now - cs_state.cycle_last) & cs_state.p.mask;

	if (!accumulate_delta(&cs_state.acc, &cs_state.p, delta)) {
		cs_state.backwards++;
		return;
	}
	cs_state.cycle_last = now;
}

uint32_t clocksource_accum_fast_max(uint64_t mask)
{
	return fast_max_of(mask);
}

bool clocksource_accumulate_general(struct clocksource_accum *a, uint64_t mask, uint32_t mult, uint32_t shift,
				    uint64_t delta)
{
	struct accum_params p;

	params_set(&p, mask, mult, shift);
	return accumulate_slow(a, &p, delta);
}

bool clocksource_accumulate_fast(struct clocksource_accum *a, uint64_t mask, uint32_t mult, uint32_t shift,
				 uint64_t delta)
{
	struct accum_params p;

	params_set(&p, mask, mult, shift);
	return accumulate_delta(a, &p, delta);
}

/* Around every change of cs_state that ktime_get_ns_fast() reads (the writer holds time_port_irq_save). */
static inline void cs_write_begin(void)
{
	__atomic_store_n(&cs_seq, cs_seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);  /* the odd count before the data */
}

static inline void cs_write_end(void)
{
	__atomic_store_n(&cs_seq, cs_seq + 1, __ATOMIC_RELEASE);  /* the data before the even count */
}

uint64_t ktime_get_ns(void)
{
	unsigned long flags = time_port_irq_save();
	struct clocksource *cs = cs_state.current;
	uint64_t ns;

	if (cs) {
		cs_write_begin();
		accumulate(cs->read(cs));
		cs_write_end();
	}
	ns = cs_state.acc.base_ns;
	time_port_irq_restore(flags);
	return ns;
}

/*
 * ktime_get_ns_fast - ktime_get_ns() without its lock and without writing:
 * the time at the counter's reading, from a snapshot of the state the last
 * accumulation left (base_ns + frac at cycle_last), by the same one-multiply
 * form, so it equals what ktime_get_ns() would return at that reading, bit
 * for bit. A seqlock read: the sequence (acquire) before the snapshot, an
 * acquire fence and the sequence again after it; a changed or odd sequence
 * means a writer was in it (the snapshot may be torn: the 64-bit fields
 * are two loads on i686), so try again. The plain loads of the snapshot
 * race with the writer by design and are only used when the sequence says
 * they did not. Not the fast form's case (no source, a delta of 2^32 or
 * more: the state was not accumulated for long; or a counter behind
 * cycle_last: another CPU's counter behind this one's), or a writer busy
 * KTIME_FAST_TRIES times: ktime_get_ns(). Monotonic on one CPU; across
 * CPUs as far as their counters agree (ktime_get_ns() also hides a
 * counter that lags another CPU's by returning the later time).
 * CONTEXT: any.
 */
uint64_t ktime_get_ns_fast(void)
{
	unsigned int tries;

	for (tries = 0; tries < KTIME_FAST_TRIES; tries++) {
		uint32_t seq = __atomic_load_n(&cs_seq, __ATOMIC_ACQUIRE);
		struct clocksource *cs = cs_state.current;
		uint64_t delta, ns;
		bool fast;

		if ((seq & 1) || !cs)
			continue;
		/*
		 * The counter first, then the snapshot, and the arithmetic done
		 * before the sequence is checked (its result is dropped if the
		 * snapshot was torn), so that little has to live across the
		 * call and the fence. A writer that accumulated between the
		 * reading and the snapshot left a cycle_last past the reading:
		 * the delta test sends that to the locked path.
		 */
		delta = (cs->read(cs) - cs_state.cycle_last) & cs_state.p.mask;
		fast = (uint32_t)(delta >> 32) == 0 && (uint32_t)delta <= cs_state.p.fast_max;
		ns = cs_state.acc.base_ns +
		     (((uint64_t)(uint32_t)delta * cs_state.p.mult + cs_state.acc.frac) >> cs_state.p.shift);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&cs_seq, __ATOMIC_RELAXED) != seq)
			continue;
		if (!fast)
			break;
		return ns;
	}
	return ktime_get_ns();
}

const struct clocksource *clocksource_current(void)
{
	return cs_state.current;
}

bool clocksource_free_running(void)
{
	return cs_state.current && !(cs_state.current->flags & CLOCK_SOURCE_TICK_DRIVEN);
}

uint64_t clocksource_max_idle_ns(void)
{
	return cs_state.current ? cs_state.current->max_idle_ns : UINT64_MAX;
}

/* Number of bits in a 2^n - 1 mask. */
static unsigned mask_bits(uint64_t mask)
{
	unsigned bits = 0;

	while (mask && bits < 64) {
		mask >>= 1;
		bits++;
	}
	return bits;
}

static int validate(struct clocksource *cs)
{
	if (!cs || !cs->name || !cs->read)
		return -EINVAL;
	if ((cs->mask & (cs->mask + 1)) != 0 || mask_bits(cs->mask) < CLOCKSOURCE_MIN_BITS)
		return -EINVAL;
	if (!cs->mult)
		return clocksource_calc_mult_shift(cs->freq_hz, &cs->mult, &cs->shift);
	return cs->shift <= 31 ? 0 : -EINVAL;
}

/* Make @cs the source; time continues from the current value. */
static void switch_to(struct clocksource *cs)
{
	struct clocksource *old = cs_state.current;

	cs_write_begin();
	if (old)
		accumulate(old->read(old));
	cs_state.current = cs;
	params_set(&cs_state.p, cs->mask, cs->mult, cs->shift);
	cs_state.cycle_last = cs->read(cs);
	cs_state.acc.frac = 0;
	cs_write_end();
}

/* Whether @a should replace current @b: the preferred source beats every
 * other; otherwise the higher rating wins, but nothing displaces the
 * preferred one. */
static bool beats(const struct clocksource *a, const struct clocksource *b)
{
	bool pa = time_name_is(a->name, cs_state.preferred);
	bool pb = time_name_is(b->name, cs_state.preferred);

	if (pa != pb)
		return pa;
	return a->rating > b->rating;
}

/* Add validated @cs. RETURNS 1 if it became current, 0, or -errno. */
static int add_locked(struct clocksource *cs)
{
	struct clocksource *p;
	unsigned n = 0;

	for (p = cs_state.list; p && n < CLOCKSOURCE_MAX; p = p->next, n++)
		if (p == cs)
			return -EEXIST;
	if (cs_state.count >= CLOCKSOURCE_MAX)
		return -ENOSPC;
	/* 3/8 of the range: half of it is where a reading would be taken as
	 * backwards, and the other 1/8 is margin for interrupt latency. */
	cs->max_idle_ns = clocksource_cyc2ns(cs, (cs->mask >> 1) - (cs->mask >> 3));
	cs->next = cs_state.list;
	cs_state.list = cs;
	cs_state.count++;
	if (cs_state.current && !beats(cs, cs_state.current))
		return 0;
	switch_to(cs);
	return 1;
}

int clocksource_register(struct clocksource *cs)
{
	unsigned long flags;
	int rc;

	if (!time_initialized())
		return -EAGAIN;
	rc = validate(cs);
	if (rc < 0) {
		time_port_log(TIME_LOG_ERR, "clocksource: %s refused (%d)", cs && cs->name ? cs->name : "?", rc);
		return rc;
	}
	flags = time_port_irq_save();
	rc = add_locked(cs);
	time_port_irq_restore(flags);
	if (rc < 0) {
		time_port_log(TIME_LOG_ERR, "clocksource: %s refused (%d)", cs->name, rc);
		return rc;
	}
	time_port_log(TIME_LOG_INFO, "clocksource: %s, %llu Hz, %u bits, rating %d%s", cs->name,
		      (unsigned long long)clocksource_freq_hz(cs), mask_bits(cs->mask), cs->rating, rc ? ", now the time source" : "");
	if (rc)
		tick_configure();
	return 0;
}

int clocksource_prefer(const char *name)
{
	unsigned long flags;
	int rc;

	if (!time_initialized())
		return -EAGAIN;
	flags = time_port_irq_save();
	rc = time_name_set(cs_state.preferred, name);
	time_port_irq_restore(flags);
	if (rc == 0 && name && name[0])
		time_port_log(TIME_LOG_INFO, "clocksource: %s preferred over the ratings", name);
	return rc;
}

void clocksource_reset(uint32_t hz)
{
	cs_write_begin();
	cs_state.preferred[0] = 0;
	cs_state.current = NULL;
	cs_state.list = NULL;
	cs_state.count = 0;
	cs_state.acc.base_ns = 0;
	cs_state.acc.frac = 0;
	params_set(&cs_state.p, 0, 0, 0); /* no source: nothing reads them */
	cs_state.cycle_last = 0;
	cs_state.backwards = 0;
	cs_write_end();
	jiffies_clocksource.freq_hz = hz;
	jiffies_clocksource.mult = 0;
	jiffies_clocksource.next = NULL;
	if (validate(&jiffies_clocksource) == 0)
		add_locked(&jiffies_clocksource);
}
