/*
 * test_wheel_model.c - the timer wheel (kernel/time/timer_wheel.c) against a
 * simple reference model, with 100,000 timers and a random mix of add,
 * modify, cancel and advance, including callbacks that re-arm, modify and
 * cancel timers while the wheel runs them.
 *
 * The model keeps, for every timer, whether it is armed and the window
 * [lo, hi] it may run in, in an unwrapped 64-bit "virtual" time; the wheel
 * runs OFFSET ticks ahead of it, so its tick counter wraps past UINT64_MAX
 * during the run. Checks: a callback comes only for an armed timer, inside
 * its window, not after the advance's target and in non-decreasing tick
 * order; after every advance no armed timer's window has ended, the wheel's
 * pending count matches and next_expiry() is a lower bound of every window's
 * end; at the end, everything drains.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <time/timer_wheel.h>

/* Timers in the test. */
#define NTIMERS 100000
/* Random operations before the final drain. */
#define NOPS 600000
/* The wheel's tick is virtual time + OFFSET: the wrap comes after 2^28
 * virtual ticks, well inside the run. */
#define OFFSET (UINT64_MAX - (UINT64_C(1) << 28))
/* Percent chance that a callback touches another timer or itself. */
#define CALLBACK_MEDDLE_PERCENT 20

struct model_timer {
	struct wheel_timer t;
	uint32_t id;
	bool armed;
	uint64_t lo, hi;   /* window, virtual time */
	uint64_t runs;
};

static struct timer_wheel wheel;
static struct model_timer *timers;
static uint64_t model_armed;
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
/* The advance in progress: target and last callback tick (virtual). */
static uint64_t advance_target, last_fire;
static uint64_t total_runs, callback_meddles;

/* xorshift64*: deterministic, fast, good enough for picking operations. */
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

static uint64_t rnd_below(uint64_t n)
{
	return rnd() % n;
}

static uint64_t vnow(void)
{
	return timer_wheel_now(&wheel) - OFFSET;
}

/* A distance mix that reaches every level a run of this length can use. */
static uint64_t random_distance(void)
{
	switch (rnd_below(10)) {
	case 0: return 0;                                   /* due now: next tick */
	case 1: case 2: case 3: return 1 + rnd_below(64);
	case 4: case 5: return 1 + rnd_below(4096);
	case 6: case 7: return 1 + rnd_below(UINT64_C(1) << 18);
	case 8: return 1 + rnd_below(UINT64_C(1) << 24);
	default: return 1 + rnd_below(UINT64_C(1) << 34);
	}
}

static uint64_t random_slack(uint64_t distance)
{
	switch (rnd_below(4)) {
	case 0: case 1: return 0;
	case 2: return rnd_below(16);
	default: return rnd_below(distance / 4 + 1);
	}
}

/* Arm (add or modify) timer @m the way the kernel would, and the model. */
static void model_arm(struct model_timer *m)
{
	uint64_t d = random_distance(), s = random_slack(d), now = vnow();
	bool was;

	if (m->armed || rnd_below(2)) {
		was = timer_wheel_mod(&wheel, &m->t, OFFSET + now + d, s);
		assert_int_equal(was, m->armed);
	} else {
		assert_true(timer_wheel_add(&wheel, &m->t, OFFSET + now + d, s));
	}
	if (!m->armed)
		model_armed++;
	m->armed = true;
	m->lo = d ? now + d : now + 1;
	m->hi = d ? now + d + s : now + 1;
}

static void model_cancel(struct model_timer *m)
{
	assert_int_equal(timer_wheel_cancel(&wheel, &m->t), m->armed);
	if (m->armed)
		model_armed--;
	m->armed = false;
}

static struct model_timer *random_timer(void)
{
	return &timers[rnd_below(NTIMERS)];
}

static void on_expiry(struct timer_wheel *w, struct wheel_timer *t)
{
	struct model_timer *m = (struct model_timer *)((char *)t - offsetof(struct model_timer, t));
	uint64_t at = vnow();

	assert_ptr_equal(w, &wheel);
	assert_true(m->armed);
	assert_true(at >= m->lo);
	assert_true(at <= m->hi);
	assert_true(at <= advance_target);
	assert_true(at >= last_fire);
	last_fire = at;
	m->armed = false;
	model_armed--;
	m->runs++;
	total_runs++;
	if (rnd_below(100) >= CALLBACK_MEDDLE_PERCENT)
		return;
	callback_meddles++;
	switch (rnd_below(3)) {
	case 0: model_arm(m); break;                 /* re-arm itself */
	case 1: model_arm(random_timer()); break;    /* add/move another */
	default: model_cancel(random_timer()); break;
	}
}

/* After an advance: nothing armed is overdue, counts agree, and the
 * next-expiry answer is no later than any armed window's end. */
static void check_model(void)
{
	uint64_t now = vnow(), min_hi = UINT64_MAX, next;
	uint32_t i;

	for (i = 0; i < NTIMERS; i++) {
		if (!timers[i].armed)
			continue;
		assert_true(timers[i].hi > now);
		if (timers[i].hi < min_hi)
			min_hi = timers[i].hi;
	}
	assert_int_equal(timer_wheel_pending_count(&wheel), model_armed);
	if (!model_armed) {
		assert_false(timer_wheel_next_expiry(&wheel, &next));
		return;
	}
	assert_true(timer_wheel_next_expiry(&wheel, &next));
	next -= OFFSET;
	assert_true(next > now);
	assert_true(next <= min_hi);
}

static void model_advance(uint64_t by)
{
	advance_target = vnow() + by;
	last_fire = vnow();
	timer_wheel_advance(&wheel, OFFSET + advance_target);
	assert_int_equal(vnow(), advance_target);
	check_model();
}

static uint64_t random_step(void)
{
	switch (rnd_below(8)) {
	case 0: case 1: case 2: return 1;
	case 3: case 4: return 1 + rnd_below(64);
	case 5: return 1 + rnd_below(UINT64_C(1) << 12);
	case 6: return 1 + rnd_below(UINT64_C(1) << 17);
	default: return 1 + rnd_below(UINT64_C(1) << 21);
	}
}

static void random_operations_match_the_reference_model_and_every_timer_fires_once_in_its_window(void **state)
{
	uint64_t op, advances = 0, max_hi = 0;
	uint32_t i;

	(void)state;
	timers = calloc(NTIMERS, sizeof(*timers));
	assert_non_null(timers);
	timer_wheel_init(&wheel, OFFSET);
	for (i = 0; i < NTIMERS; i++) {
		timers[i].id = i;
		wheel_timer_setup(&timers[i].t, on_expiry);
	}
	for (op = 0; op < NOPS; op++) {
		uint64_t r = rnd_below(1000);

		if (r < 620)
			model_arm(random_timer());
		else if (r < 995)
			model_cancel(random_timer());
		else {
			model_advance(random_step());
			advances++;
		}
	}
	/* The tick counter wrapped while timers were being juggled. */
	assert_true(vnow() > (UINT64_C(1) << 28));
	/* Drain: jump past every window's end. */
	for (i = 0; i < NTIMERS; i++)
		if (timers[i].armed && timers[i].hi > max_hi)
			max_hi = timers[i].hi;
	while (model_armed) {
		model_advance(max_hi >= vnow() ? max_hi - vnow() + 1 : 1);
		for (i = 0, max_hi = 0; i < NTIMERS; i++)
			if (timers[i].armed && timers[i].hi > max_hi)
				max_hi = timers[i].hi;
	}
	assert_int_equal(timer_wheel_pending_count(&wheel), 0);
	assert_int_equal(timer_wheel_slots_in_use(&wheel), 0);
	/* The run really exercised everything. */
	assert_true(advances > 2000);
	assert_true(total_runs > 50000);
	assert_true(callback_meddles > 5000);
	assert_true(wheel.stats.cascaded > 10000);
	print_message("model: %llu advances, %llu runs, %llu callback meddles, %llu cascades, final tick %llu\n",
		      (unsigned long long)advances, (unsigned long long)total_runs,
		      (unsigned long long)callback_meddles, (unsigned long long)wheel.stats.cascaded,
		      (unsigned long long)vnow());
	free(timers);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(random_operations_match_the_reference_model_and_every_timer_fires_once_in_its_window),
	};

	return cmocka_run_group_tests_name("timer_wheel_model", tests, NULL, NULL);
}
