/*
 * test_time_clocksource.c - host unit tests for kernel/time/clocksource.c:
 * mult/shift conversion against exact 128-bit arithmetic, ktime from jiffies
 * before any counter, monotonic time across wraps of narrow counters
 * (32-bit HPET-like, 16-bit PIT-like) and backward glitches, seamless
 * switches to better sources, registration refusals, and the accumulation's
 * one-multiply fast form held bit for bit against its general form.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <kernel/errno.h>
#include <time/internal.h>
#include <time/time.h>

/* ---- test_time_port.c ---- */
void test_port_reset(void);
void test_port_check_balanced(void);
extern uint64_t fake_counter, fake_counter_per_read, fake_counter_reads;
void fake_clocksource_init(struct clocksource *cs, const char *name, uint32_t freq_hz, uint64_t mask, int rating);

/* Counter masks of the hardware being imitated. */
#define MASK16 UINT64_C(0xffff)
#define MASK32 UINT64_C(0xffffffff)
#define MASK64 UINT64_MAX
/* Frequencies of real PC counters. */
#define PIT_HZ 1193182u
#define ACPI_PM_HZ 3579545u
#define HPET_HZ 14318180u

static struct clocksource cs_a, cs_b, cs_c;
extern char test_last_log[256];  /* tests/unit/test_time_port.c: the last time_port_log() line */

static int reset(void **state)
{
	(void)state;
	test_port_reset();
	fake_counter = 0;
	fake_counter_per_read = 0;
	time_init(1000);
	return 0;
}

static int check(void **state)
{
	(void)state;
	test_port_check_balanced();
	return 0;
}

/* Exact ns in @cycles at @freq, rounded down. */
static uint64_t exact_ns(uint64_t cycles, uint32_t freq)
{
	return (uint64_t)((unsigned __int128)cycles * NSEC_PER_SEC / freq);
}

static void mult_shift_converts_common_frequencies_within_a_part_per_billion(void **state)
{
	const uint32_t freqs[] = { 100, 1000, 32768, PIT_HZ, ACPI_PM_HZ, HPET_HZ, 25000000, 1000000000u,
				   2400000000u, 4294967295u };
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(freqs) / sizeof(freqs[0]); i++) {
		struct clocksource cs = { 0 };
		uint64_t ten_minutes = (uint64_t)freqs[i] * 600, got, want, err;

		assert_int_equal(clocksource_calc_mult_shift(freqs[i], &cs.mult, &cs.shift), 0);
		assert_true(cs.shift <= 31);
		assert_true(cs.mult > 0);
		got = clocksource_cyc2ns(&cs, ten_minutes);
		want = exact_ns(ten_minutes, freqs[i]);
		err = got > want ? got - want : want - got;
		/* mult is rounded to 32 bits: about 2^-31 relative at worst. */
		assert_true(err <= want / 1000000000u + 1);
	}
	uint32_t m, s;
	assert_int_equal(clocksource_calc_mult_shift(0, &m, &s), -EINVAL);
}

static void cyc2ns_does_not_overflow_for_huge_counts(void **state)
{
	struct clocksource cs = { 0 };
	uint64_t cycles = UINT64_C(1) << 62, got, want;

	(void)state;
	clocksource_calc_mult_shift(1000000000u, &cs.mult, &cs.shift);
	got = clocksource_cyc2ns(&cs, cycles);
	want = exact_ns(cycles, 1000000000u);
	assert_int_equal(got, want); /* 1 GHz: mult = 2^31, shift 31, exact */
	clocksource_calc_mult_shift(HPET_HZ, &cs.mult, &cs.shift);
	cycles = UINT64_C(1) << 50;
	got = clocksource_cyc2ns(&cs, cycles);
	want = exact_ns(cycles, HPET_HZ);
	assert_true((got > want ? got - want : want - got) <= want / 1000000000u + 1);
}

static void before_any_counter_time_comes_from_jiffies(void **state)
{
	(void)state;
	time_init(250);
	assert_string_equal(clocksource_current()->name, "jiffies");
	assert_int_equal(ktime_get_ns(), 0);
	jiffies = 7;
	assert_int_equal(ktime_get_ns(), 28 * NSEC_PER_MSEC);
	assert_false(clocksource_free_running());
}

/* Advance the fake counter by @cycles and check ktime: monotonic, and equal
 * to the exact time since @start within the conversion's rounding. */
static void step_and_check(uint64_t cycles, uint64_t *total, uint64_t *last_ns, uint64_t base_ns, uint32_t freq)
{
	uint64_t now, want, tolerance;

	fake_counter += cycles;
	*total += cycles;
	now = ktime_get_ns();
	assert_true(now >= *last_ns);
	*last_ns = now;
	want = base_ns + exact_ns(*total, freq);
	tolerance = (want - base_ns) / 1000000000u + 2;
	assert_true((now > want ? now - want : want - now) <= tolerance);
}

static void ktime_never_goes_backwards_across_a_32_bit_counter_wrap(void **state)
{
	uint64_t total = 0, last = 0, base;
	unsigned i, seed = 3;

	(void)state;
	fake_counter = MASK32 - 1000; /* wraps on the first steps */
	fake_clocksource_init(&cs_a, "hpet", HPET_HZ, MASK32, 250);
	assert_int_equal(clocksource_register(&cs_a), 0);
	base = ktime_get_ns();
	/* Steps of up to half the range: 2^31 cycles = 150 s; ~100 wraps. */
	for (i = 0; i < 400; i++)
		step_and_check(1 + (uint64_t)rand_r(&seed) % (MASK32 >> 1), &total, &last, base, HPET_HZ);
	for (i = 0; i < 2000; i++)
		step_and_check((uint64_t)rand_r(&seed) % 100, &total, &last, base, HPET_HZ);
	assert_true(total > 50 * MASK32);
}

static void a_16_bit_pit_counter_wrapping_every_55_ms_keeps_exact_time(void **state)
{
	uint64_t total = 0, last = 0, base;
	unsigned i, seed = 5;

	(void)state;
	fake_clocksource_init(&cs_a, "pit", PIT_HZ, MASK16, 110);
	assert_int_equal(clocksource_register(&cs_a), 0);
	base = ktime_get_ns();
	for (i = 0; i < 100000; i++)
		step_and_check(1 + (uint64_t)rand_r(&seed) % (MASK16 >> 1), &total, &last, base, PIT_HZ);
	/* 3/8 of a 16-bit range at 1.19 MHz: read it at least every 20.6 ms. */
	assert_true(cs_a.max_idle_ns + 1 >= exact_ns(65536 * 3 / 8, PIT_HZ));
	assert_true(cs_a.max_idle_ns <= exact_ns(65536 * 3 / 8, PIT_HZ) + 1);
}

static void a_counter_that_steps_backwards_is_ignored_not_taken_as_a_wrap(void **state)
{
	uint64_t before, after;

	(void)state;
	fake_clocksource_init(&cs_a, "hpet", HPET_HZ, MASK32, 250);
	assert_int_equal(clocksource_register(&cs_a), 0);
	fake_counter += HPET_HZ; /* one second */
	before = ktime_get_ns();
	fake_counter -= 5;       /* glitch */
	after = ktime_get_ns();
	assert_int_equal(after, before);
	fake_counter += 5 + HPET_HZ;
	after = ktime_get_ns();
	assert_true(after - before >= NSEC_PER_SEC - 1 && after - before <= NSEC_PER_SEC + 1);
}

static void a_better_clock_source_takes_over_without_a_jump(void **state)
{
	uint64_t t0, t1, t2;

	(void)state;
	jiffies = 1500; /* 1.5 s of jiffies time */
	t0 = ktime_get_ns();
	assert_int_equal(t0, 1500 * NSEC_PER_MSEC);
	fake_counter = 123456789;
	fake_clocksource_init(&cs_a, "acpi_pm", ACPI_PM_HZ, UINT64_C(0xffffff), 200);
	assert_int_equal(clocksource_register(&cs_a), 0);
	assert_ptr_equal(clocksource_current(), &cs_a);
	assert_true(clocksource_free_running());
	t1 = ktime_get_ns();
	assert_int_equal(t1, t0);
	fake_counter += ACPI_PM_HZ / 10;
	t1 = ktime_get_ns();
	assert_true(t1 - t0 + 1 >= exact_ns(ACPI_PM_HZ / 10, ACPI_PM_HZ));
	assert_true(t1 - t0 <= exact_ns(ACPI_PM_HZ / 10, ACPI_PM_HZ) + 1);
	/* A worse one is recorded but not used. */
	fake_clocksource_init(&cs_b, "pit", PIT_HZ, MASK16, 110);
	assert_int_equal(clocksource_register(&cs_b), 0);
	assert_ptr_equal(clocksource_current(), &cs_a);
	/* A better one continues from the current time. */
	fake_clocksource_init(&cs_c, "tsc", 1000000000u, MASK64, 300);
	assert_int_equal(clocksource_register(&cs_c), 0);
	assert_ptr_equal(clocksource_current(), &cs_c);
	t2 = ktime_get_ns();
	assert_true(t2 >= t1 && t2 - t1 < 1000);
	fake_counter += 1000;
	assert_true(ktime_get_ns() - t2 >= 999 && ktime_get_ns() - t2 <= 1001);
}

/* clocksource=hpet: the preferred source is used although the TSC is rated
 * higher, whichever registers first; clocksource=jiffies keeps the built-in
 * tick-driven source; time_init() forgets the preference. */
static void a_preferred_clock_source_is_used_whatever_the_ratings(void **state)
{
	(void)state;
	assert_int_equal(clocksource_prefer("hpet"), 0);
	fake_clocksource_init(&cs_a, "tsc", 1000000000u, MASK64, 300);
	assert_int_equal(clocksource_register(&cs_a), 0);
	assert_ptr_equal(clocksource_current(), &cs_a);
	fake_clocksource_init(&cs_b, "hpet", HPET_HZ, MASK32, 250);
	assert_int_equal(clocksource_register(&cs_b), 0);
	assert_ptr_equal(clocksource_current(), &cs_b);
	fake_clocksource_init(&cs_c, "better", 1000000000u, MASK64, 400);
	assert_int_equal(clocksource_register(&cs_c), 0);
	assert_ptr_equal(clocksource_current(), &cs_b);
	assert_int_equal(clocksource_prefer("a-name-far-too-long-for-the-table"), -EINVAL);

	time_init(1000);
	assert_int_equal(clocksource_prefer("jiffies"), 0);
	assert_int_equal(clocksource_register(&cs_a), 0);
	assert_string_equal(clocksource_current()->name, "jiffies");
	assert_false(clocksource_free_running());

	time_init(1000);
	assert_int_equal(clocksource_register(&cs_b), 0);
	assert_int_equal(clocksource_register(&cs_a), 0);
	assert_ptr_equal(clocksource_current(), &cs_a);
}

static void driver_supplied_mult_and_shift_are_used_as_given(void **state)
{
	(void)state;
	fake_clocksource_init(&cs_a, "tsc", 0, MASK64, 300);
	cs_a.mult = 3u << 20; /* 3 ns per cycle at shift 20 */
	cs_a.shift = 20;
	assert_int_equal(clocksource_register(&cs_a), 0);
	uint64_t t0 = ktime_get_ns();
	fake_counter += 1000;
	assert_int_equal(ktime_get_ns() - t0, 3000);
}

/* Issue 20: the boot log said "clocksource: tsc, 0 Hz" (the TSC gives mult/shift, not freq_hz). */
static void a_source_given_by_mult_and_shift_is_logged_with_its_rate_not_0_hz(void **state)
{
	(void)state;
	fake_clocksource_init(&cs_a, "pit", 1193182, MASK64, 300);
	assert_int_equal(clocksource_register(&cs_a), 0);
	fake_clocksource_init(&cs_b, "tsc", 0, MASK64, 100);  /* lower rated: its line is the last log */
	cs_b.mult = (uint32_t)((UINT64_C(1000000000) << 24) / 4002000u);
	cs_b.shift = 24;
	assert_int_equal(clocksource_register(&cs_b), 0);
	assert_int_equal(clocksource_freq_hz(&cs_b), 4002000);
	assert_string_equal(test_last_log, "clocksource: tsc, 4002000 Hz, 64 bits, rating 100");
	cs_b.mult = (uint32_t)((UINT64_C(1000000000) << 24) / 2999999999u);  /* a rate above 2^31 */
	assert_true(clocksource_freq_hz(&cs_b) > UINT64_C(2990000000));
	assert_int_equal(clocksource_freq_hz(&cs_a), 1193182);
}

static void malformed_clock_sources_are_refused(void **state)
{
	(void)state;
	fake_clocksource_init(&cs_a, "odd", 1000, UINT64_C(0xfffe), 100);
	assert_int_equal(clocksource_register(&cs_a), -EINVAL);  /* not 2^n - 1 */
	fake_clocksource_init(&cs_a, "narrow", 1000, UINT64_C(0xff), 100);
	assert_int_equal(clocksource_register(&cs_a), -EINVAL);  /* 8 bits */
	fake_clocksource_init(&cs_a, "nofreq", 0, MASK32, 100);
	assert_int_equal(clocksource_register(&cs_a), -EINVAL);
	fake_clocksource_init(&cs_a, "shift", 0, MASK32, 100);
	cs_a.mult = 5;
	cs_a.shift = 32;
	assert_int_equal(clocksource_register(&cs_a), -EINVAL);
	fake_clocksource_init(&cs_a, NULL, 1000, MASK32, 100);
	assert_int_equal(clocksource_register(&cs_a), -EINVAL);
	fake_clocksource_init(&cs_a, "noread", 1000, MASK32, 100);
	cs_a.read = NULL;
	assert_int_equal(clocksource_register(&cs_a), -EINVAL);
	assert_int_equal(clocksource_register(NULL), -EINVAL);
	assert_string_equal(clocksource_current()->name, "jiffies");
}

static void registering_twice_or_too_many_is_refused(void **state)
{
	static struct clocksource many[CLOCKSOURCE_MAX];
	unsigned i;

	(void)state;
	fake_clocksource_init(&cs_a, "hpet", HPET_HZ, MASK32, 250);
	assert_int_equal(clocksource_register(&cs_a), 0);
	assert_int_equal(clocksource_register(&cs_a), -EEXIST);
	/* jiffies and hpet are two; fill up the rest. */
	for (i = 0; i + 2 < CLOCKSOURCE_MAX; i++) {
		fake_clocksource_init(&many[i], "filler", 1000, MASK32, 2);
		assert_int_equal(clocksource_register(&many[i]), 0);
	}
	fake_clocksource_init(&many[i], "one too many", 1000, MASK32, 2);
	assert_int_equal(clocksource_register(&many[i]), -ENOSPC);
}

static void registration_before_time_init_is_refused(void **state)
{
	(void)state;
	time_core.hz = 0; /* as before the first time_init() */
	fake_clocksource_init(&cs_a, "hpet", HPET_HZ, MASK32, 250);
	assert_int_equal(clocksource_register(&cs_a), -EAGAIN);
	time_init(1000);
	assert_int_equal(clocksource_register(&cs_a), 0);
}

/* ---- The accumulation's fast form against its general form -------------- */

/* Deterministic 64-bit generator (xorshift64*): rand_r gives 31 bits only. */
static uint64_t rnd64(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * UINT64_C(2685821657736338717);
}

/* Run @delta through both forms from the same start and insist on the same
 * verdict and the same base_ns and frac. Where the true sum fits in 64 bits,
 * both must also equal it, computed in 128 bits: base * 2^shift + frac +
 * delta * mult, split again at bit shift. RETURNS whether it accumulated. */
static bool check_both(uint64_t mask, uint32_t mult, uint32_t shift, struct clocksource_accum start, uint64_t delta)
{
	struct clocksource_accum g = start, f = start;
	bool ok_g = clocksource_accumulate_general(&g, mask, mult, shift, delta);
	bool ok_f = clocksource_accumulate_fast(&f, mask, mult, shift, delta);

	assert_int_equal(ok_g, ok_f);
	assert_int_equal(f.base_ns, g.base_ns);
	assert_int_equal(f.frac, g.frac);
	if (!ok_g) {
		assert_true(delta > mask >> 1);
		assert_int_equal(g.base_ns, start.base_ns);
		assert_int_equal(g.frac, start.frac);
		return false;
	}
	assert_true(delta <= mask >> 1);
	unsigned __int128 sum = (unsigned __int128)delta * mult + start.frac;
	unsigned __int128 ns = (unsigned __int128)start.base_ns + (sum >> shift);
	if (ns <= UINT64_MAX) {
		assert_int_equal(g.base_ns, (uint64_t)ns);
		assert_int_equal(g.frac, (uint64_t)(sum & ((UINT64_C(1) << shift) - 1)));
	}
	return true;
}

static void the_fast_form_takes_32_bit_deltas_short_of_half_the_range(void **state)
{
	(void)state;
	/* Half the range is where a delta is taken as backwards; 2^32 - 1 is
	 * where one multiply of 32-bit halves stops being enough. */
	assert_int_equal(clocksource_accum_fast_max(MASK16), 0x7fff);
	assert_int_equal(clocksource_accum_fast_max(UINT64_C(0xffffff)), 0x7fffff);
	assert_int_equal(clocksource_accum_fast_max(MASK32), 0x7fffffff);
	assert_int_equal(clocksource_accum_fast_max(UINT64_C(0x1ffffffff)), 0xffffffffu);
	assert_int_equal(clocksource_accum_fast_max(MASK64), 0xffffffffu);
}

static void fast_and_general_accumulation_agree_at_the_edges(void **state)
{
	const uint64_t masks[] = { MASK16, UINT64_C(0xffffff), MASK32, UINT64_C(0x1ffffffff), MASK64 };
	/* (mult, shift) of real counters from calc_mult_shift, and the extremes. */
	const uint32_t freqs[] = { 1, 32768, PIT_HZ, ACPI_PM_HZ, HPET_HZ, 1000000000u, 2400000000u, 4294967295u };
	struct { uint32_t mult, shift; } conv[sizeof(freqs) / sizeof(freqs[0]) + 4];
	unsigned n = 0, accepted = 0, refused = 0;

	(void)state;
	for (unsigned i = 0; i < sizeof(freqs) / sizeof(freqs[0]); i++, n++)
		assert_int_equal(clocksource_calc_mult_shift(freqs[i], &conv[n].mult, &conv[n].shift), 0);
	conv[n].mult = UINT32_MAX, conv[n++].shift = 31;
	conv[n].mult = UINT32_MAX, conv[n++].shift = 0;
	conv[n].mult = 1, conv[n++].shift = 31;
	conv[n].mult = 1, conv[n++].shift = 0;
	for (unsigned m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
		uint64_t mask = masks[m], fm = clocksource_accum_fast_max(mask);
		const uint64_t deltas[] = { 0, 1, 2, fm - 1, fm, fm + 1, UINT32_MAX, UINT64_C(1) << 32,
					    (UINT64_C(1) << 32) + 1, mask >> 1, (mask >> 1) + 1, mask };
		for (unsigned c = 0; c < n; c++) {
			uint32_t fmax = (uint32_t)((UINT64_C(1) << conv[c].shift) - 1);
			const uint32_t fracs[] = { 0, 1, fmax };
			for (unsigned d = 0; d < sizeof(deltas) / sizeof(deltas[0]); d++)
				for (unsigned k = 0; k < 3; k++) {
					struct clocksource_accum a = { .base_ns = UINT64_C(123456789012345), .frac = fracs[k] };
					if (check_both(mask, conv[c].mult, conv[c].shift, a, deltas[d] & mask))
						accepted++;
					else
						refused++;
				}
		}
	}
	/* Both sides of the backwards line were crossed. */
	assert_true(accepted > 0 && refused > 0);
}

static void fast_and_general_accumulation_agree_for_random_sources(void **state)
{
	uint64_t x = UINT64_C(0x9e3779b97f4a7c15);
	unsigned fast = 0, slow = 0;

	(void)state;
	for (unsigned i = 0; i < 50000; i++) {
		unsigned bits = CLOCKSOURCE_MIN_BITS + (unsigned)(rnd64(&x) % (64 - CLOCKSOURCE_MIN_BITS + 1));
		uint64_t mask = bits == 64 ? MASK64 : (UINT64_C(1) << bits) - 1;
		uint32_t shift = (uint32_t)(rnd64(&x) % 32);
		uint32_t mult = (uint32_t)rnd64(&x) | 1;
		uint64_t r = rnd64(&x), delta;
		struct clocksource_accum a = { .base_ns = rnd64(&x) >> 2,
					       .frac = (uint32_t)(rnd64(&x) & ((UINT64_C(1) << shift) - 1)) };

		/* Mostly the common case (short gaps), also around the fast
		 * form's limit and anywhere in the range. */
		switch (r & 3) {
		case 0: delta = rnd64(&x) % 100000; break;
		case 1: delta = (uint64_t)clocksource_accum_fast_max(mask) - 8 + rnd64(&x) % 17; break;
		case 2: delta = rnd64(&x) >> (rnd64(&x) % 64); break;
		default: delta = rnd64(&x); break;
		}
		delta &= mask;
		check_both(mask, mult, shift, a, delta);
		if (delta <= clocksource_accum_fast_max(mask))
			fast++;
		else
			slow++;
	}
	assert_true(fast > 10000 && slow > 10000);
}

/* A 64-bit counter read at gaps either side of 2^32 cycles: ktime takes the
 * fast form for some and the general one for others, and stays exact. */
/*
 * ktime_get_ns_fast (issue 19: the interrupt core's clock): the value
 * ktime_get_ns() would return at the same counter reading, bit for bit,
 * without advancing the state; a counter behind the last accumulation and
 * a delta past the fast form go the locked way (backwards: the later time).
 */
static void the_lock_free_read_equals_ktime_at_the_same_reading(void **state)
{
	uint64_t seed = 12345, a, b, steps;

	(void)state;
	fake_clocksource_init(&cs_a, "hpet", HPET_HZ, MASK32, 250);
	assert_true(clocksource_register(&cs_a) >= 0);
	fake_counter = MASK32 - 5000;    /* a wrap in the first steps */
	(void)ktime_get_ns();
	for (steps = 0; steps < 2000; steps++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		fake_counter += (seed >> 33) % (HPET_HZ / 10);
		a = ktime_get_ns_fast();
		b = ktime_get_ns_fast();   /* nothing accumulated: the same answer */
		assert_int_equal(a, b);
		if (steps % 3 == 0)
			assert_int_equal(ktime_get_ns(), a);   /* which the locked read agrees with */
	}
	a = ktime_get_ns();
	fake_counter -= 5;               /* a glitch behind the last accumulation */
	assert_int_equal(ktime_get_ns_fast(), a);
	fake_counter += 5 + MASK32 / 2 + 10;   /* past the fast form: the locked read's wrap-and-ignore */
	assert_int_equal(ktime_get_ns_fast(), a);
}

static void ktime_stays_exact_across_the_fast_forms_limit(void **state)
{
	const uint64_t steps[] = { UINT32_MAX, UINT64_C(1) << 32, (UINT64_C(1) << 32) + 1, 1, 12345,
				   (UINT64_C(1) << 40) + 7, 3 };
	uint64_t total = 0, last = 0, base;

	(void)state;
	fake_clocksource_init(&cs_a, "tsc", 2400000000u, MASK64, 300);
	assert_int_equal(clocksource_register(&cs_a), 0);
	base = ktime_get_ns();
	for (unsigned r = 0; r < 50; r++)
		for (unsigned i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
			step_and_check(steps[i], &total, &last, base, 2400000000u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(mult_shift_converts_common_frequencies_within_a_part_per_billion, reset, check),
		cmocka_unit_test_setup_teardown(cyc2ns_does_not_overflow_for_huge_counts, reset, check),
		cmocka_unit_test_setup_teardown(before_any_counter_time_comes_from_jiffies, reset, check),
		cmocka_unit_test_setup_teardown(ktime_never_goes_backwards_across_a_32_bit_counter_wrap, reset, check),
		cmocka_unit_test_setup_teardown(a_16_bit_pit_counter_wrapping_every_55_ms_keeps_exact_time, reset, check),
		cmocka_unit_test_setup_teardown(a_counter_that_steps_backwards_is_ignored_not_taken_as_a_wrap, reset, check),
		cmocka_unit_test_setup_teardown(the_lock_free_read_equals_ktime_at_the_same_reading, reset, check),
		cmocka_unit_test_setup_teardown(a_better_clock_source_takes_over_without_a_jump, reset, check),
		cmocka_unit_test_setup_teardown(a_preferred_clock_source_is_used_whatever_the_ratings, reset, check),
		cmocka_unit_test_setup_teardown(driver_supplied_mult_and_shift_are_used_as_given, reset, check),
		cmocka_unit_test_setup_teardown(a_source_given_by_mult_and_shift_is_logged_with_its_rate_not_0_hz, reset, check),
		cmocka_unit_test_setup_teardown(malformed_clock_sources_are_refused, reset, check),
		cmocka_unit_test_setup_teardown(registering_twice_or_too_many_is_refused, reset, check),
		cmocka_unit_test_setup_teardown(registration_before_time_init_is_refused, reset, check),
		cmocka_unit_test_setup_teardown(the_fast_form_takes_32_bit_deltas_short_of_half_the_range, reset, check),
		cmocka_unit_test_setup_teardown(fast_and_general_accumulation_agree_at_the_edges, reset, check),
		cmocka_unit_test_setup_teardown(fast_and_general_accumulation_agree_for_random_sources, reset, check),
		cmocka_unit_test_setup_teardown(ktime_stays_exact_across_the_fast_forms_limit, reset, check),
	};

	return cmocka_run_group_tests_name("time_clocksource", tests, NULL, NULL);
}
