/*
 * test_wheel.c - host unit tests for the hierarchical timer wheel
 * (kernel/time/timer_wheel.c): ordering, level boundaries, cancel and modify,
 * slack batching, the counter wrap past UINT64_MAX, long jumps and the rules
 * for callbacks. The randomized comparison with a reference model is in
 * test_wheel_model.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <time/timer_wheel.h>

/* Probes used by one test; more than any test needs. */
#define MAX_PROBES 512
/* Firings recorded in order; more than any test produces. */
#define MAX_LOG 4096
/* 64^L: width of a slot on level L. */
#define SLOT_WIDTH(level) (UINT64_C(1) << ((level) * TIMER_WHEEL_LEVEL_BITS))

/* A timer that records when it ran. */
struct probe {
	struct wheel_timer t;
	int id;
	unsigned runs;
	uint64_t ran_at;
};

/* What ran, in order. */
struct firing {
	int id;
	uint64_t tick;
};

static struct timer_wheel wheel;
static struct probe probes[MAX_PROBES];
static struct firing fired_log[MAX_LOG];
static unsigned fired_count;

/* Optional per-test action run from record_fire after logging. */
static void (*on_fire)(struct probe *p);

static struct probe *probe_of(struct wheel_timer *t)
{
	return (struct probe *)((char *)t - offsetof(struct probe, t));
}

static void record_fire(struct timer_wheel *w, struct wheel_timer *t)
{
	struct probe *p = probe_of(t);

	assert_ptr_equal(w, &wheel);
	assert_false(wheel_timer_pending(t));
	p->runs++;
	p->ran_at = timer_wheel_now(w);
	assert_true(fired_count < MAX_LOG);
	fired_log[fired_count].id = p->id;
	fired_log[fired_count].tick = p->ran_at;
	fired_count++;
	if (on_fire)
		on_fire(p);
}

static int reset(void **state)
{
	int i;

	(void)state;
	timer_wheel_init(&wheel, 0);
	memset(probes, 0, sizeof(probes));
	for (i = 0; i < MAX_PROBES; i++) {
		probes[i].id = i;
		wheel_timer_setup(&probes[i].t, record_fire);
	}
	fired_count = 0;
	on_fire = NULL;
	return 0;
}

static void add(int id, uint64_t expires, uint64_t slack)
{
	assert_true(timer_wheel_add(&wheel, &probes[id].t, expires, slack));
}

/* Step the wheel tick by tick from its current tick up to @to. */
static void step_to(uint64_t to)
{
	while (timer_wheel_now(&wheel) != to)
		timer_wheel_advance(&wheel, timer_wheel_now(&wheel) + 1);
}

static void timers_run_in_expiry_order_and_equal_expiries_in_queue_order(void **state)
{
	unsigned seed = 7, i;
	uint64_t expires[300];

	(void)state;
	for (i = 0; i < 300; i++) {
		/* Every tenth timer shares the previous one's tick. */
		expires[i] = (i % 10 == 9) ? expires[i - 1] : 1 + (uint64_t)rand_r(&seed) % 300000;
		add((int)i, expires[i], 0);
	}
	assert_int_equal(timer_wheel_advance(&wheel, 400000), 300);
	assert_int_equal(fired_count, 300);
	for (i = 0; i < 300; i++)
		assert_int_equal(fired_log[i].tick, expires[fired_log[i].id]);
	for (i = 1; i < 300; i++) {
		assert_true(fired_log[i - 1].tick <= fired_log[i].tick);
		if (fired_log[i - 1].tick == fired_log[i].tick)
			assert_true(fired_log[i - 1].id < fired_log[i].id);
	}
	assert_int_equal(timer_wheel_pending_count(&wheel), 0);
}

static int compare_ticks(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The ticks that are the first and the last slot of each level seen from
 * tick 0, the last tick of each level's first slot and the farthest tick,
 * sorted and without duplicates. */
static unsigned boundary_ticks(uint64_t *out)
{
	unsigned level, n = 0, i, kept;

	for (level = 0; level < TIMER_WHEEL_LEVELS; level++) {
		out[n++] = level ? SLOT_WIDTH(level) : 1;            /* first slot */
		out[n++] = SLOT_WIDTH(level) * 2 - 1;                /* end of it */
		if (level + 1 < TIMER_WHEEL_LEVELS)
			out[n++] = SLOT_WIDTH(level + 1) - 1;        /* last slot */
	}
	out[n++] = TIMER_WHEEL_MAX_AHEAD;                            /* farthest */
	qsort(out, n, sizeof(out[0]), compare_ticks);
	for (kept = 1, i = 1; i < n; i++)
		if (out[i] != out[kept - 1])
			out[kept++] = out[i];
	return kept;
}

static void a_timer_at_each_level_first_and_last_slot_runs_exactly_on_its_tick(void **state)
{
	uint64_t ticks[64];
	unsigned n = boundary_ticks(ticks), i;

	for (i = 0; i < n; i++) {
		reset(state);
		add(0, ticks[i], 0);
		timer_wheel_advance(&wheel, ticks[i] - 1);
		assert_int_equal(probes[0].runs, 0);
		assert_true(wheel_timer_pending(&probes[0].t));
		assert_int_equal(timer_wheel_advance(&wheel, ticks[i]), 1);
		assert_int_equal(probes[0].runs, 1);
		assert_int_equal(probes[0].ran_at, ticks[i]);
		assert_int_equal(timer_wheel_slots_in_use(&wheel), 0);
	}
}

static void all_boundary_timers_together_run_in_order_after_one_long_jump(void **state)
{
	uint64_t ticks[64];
	unsigned n = boundary_ticks(ticks), i;

	(void)state;
	for (i = 0; i < n; i++)
		add((int)i, ticks[i], 0);
	assert_int_equal(timer_wheel_advance(&wheel, TIMER_WHEEL_MAX_AHEAD), n);
	for (i = 0; i < n; i++)
		assert_int_equal(probes[i].ran_at, ticks[i]);
	for (i = 1; i < n; i++)
		assert_true(fired_log[i - 1].tick <= fired_log[i].tick);
}

static void cancel_at_each_level_boundary_leaves_no_trace(void **state)
{
	uint64_t ticks[64];
	unsigned n = boundary_ticks(ticks), i;

	(void)state;
	for (i = 0; i < n; i++)
		add((int)i, ticks[i], 0);
	assert_int_equal(timer_wheel_pending_count(&wheel), n);
	for (i = 0; i < n; i++) {
		assert_true(timer_wheel_cancel(&wheel, &probes[i].t));
		assert_false(wheel_timer_pending(&probes[i].t));
		assert_false(timer_wheel_cancel(&wheel, &probes[i].t));
	}
	assert_int_equal(timer_wheel_pending_count(&wheel), 0);
	assert_int_equal(timer_wheel_slots_in_use(&wheel), 0);
	uint64_t tick;
	assert_false(timer_wheel_next_expiry(&wheel, &tick));
	assert_int_equal(timer_wheel_advance(&wheel, TIMER_WHEEL_MAX_AHEAD), 0);
	assert_int_equal(fired_count, 0);
}

static void cancel_after_a_cascade_removes_the_timer_from_its_finer_slot(void **state)
{
	(void)state;
	add(0, SLOT_WIDTH(2) + 5, 0);
	/* At 64^2 the level-2 slot cascades the timer down to level 0. */
	timer_wheel_advance(&wheel, SLOT_WIDTH(2));
	assert_true(wheel.stats.cascaded >= 1);
	assert_true(timer_wheel_cancel(&wheel, &probes[0].t));
	assert_int_equal(timer_wheel_slots_in_use(&wheel), 0);
	timer_wheel_advance(&wheel, SLOT_WIDTH(3));
	assert_int_equal(probes[0].runs, 0);
}

static void modify_moves_a_timer_across_every_level_boundary(void **state)
{
	uint64_t ticks[64];
	unsigned n = boundary_ticks(ticks), i;

	for (i = 0; i + 1 < n; i++) {
		reset(state);
		/* From a coarse level to a fine one and back out again. */
		add(0, ticks[n - 1 - i], 0);
		assert_true(timer_wheel_mod(&wheel, &probes[0].t, ticks[i], 0));
		assert_int_equal(wheel_timer_fire_tick(&probes[0].t), ticks[i]);
		add(1, ticks[i], 0);
		assert_true(timer_wheel_mod(&wheel, &probes[1].t, ticks[i + 1], 0));
		timer_wheel_advance(&wheel, ticks[i] - 1);
		assert_int_equal(fired_count, 0);
		timer_wheel_advance(&wheel, ticks[i + 1]);
		assert_int_equal(probes[0].ran_at, ticks[i]);
		assert_int_equal(probes[1].ran_at, ticks[i + 1]);
		assert_int_equal(fired_count, 2);
	}
}

static void modify_to_the_same_tick_keeps_the_timer_ahead_of_later_equals(void **state)
{
	(void)state;
	add(0, 300, 0);
	add(1, 300, 0);
	assert_true(timer_wheel_mod(&wheel, &probes[0].t, 300, 0));
	/* A window that still picks 300 does not move it either. */
	assert_true(timer_wheel_mod(&wheel, &probes[0].t, 297, 6));
	assert_int_equal(wheel_timer_fire_tick(&probes[0].t), 300);
	timer_wheel_advance(&wheel, 300);
	assert_int_equal(fired_log[0].id, 0);
	assert_int_equal(fired_log[1].id, 1);
}

static void modify_of_an_idle_timer_queues_it_and_reports_it_was_idle(void **state)
{
	(void)state;
	assert_false(timer_wheel_mod(&wheel, &probes[0].t, 100, 0));
	assert_true(wheel_timer_pending(&probes[0].t));
	timer_wheel_advance(&wheel, 100);
	assert_int_equal(probes[0].ran_at, 100);
}

static void adding_a_queued_timer_is_refused_and_changes_nothing(void **state)
{
	(void)state;
	add(0, 50, 0);
	assert_false(timer_wheel_add(&wheel, &probes[0].t, 10, 0));
	timer_wheel_advance(&wheel, 49);
	assert_int_equal(probes[0].runs, 0);
	timer_wheel_advance(&wheel, 50);
	assert_int_equal(probes[0].ran_at, 50);
}

static void an_expiry_in_the_past_runs_on_the_next_tick(void **state)
{
	(void)state;
	timer_wheel_advance(&wheel, 1000);
	add(0, 1000, 500);  /* now: slack is ignored */
	add(1, 3, 0);       /* long gone */
	timer_wheel_advance(&wheel, 1001);
	assert_int_equal(probes[0].ran_at, 1001);
	assert_int_equal(probes[1].ran_at, 1001);
}

/* Add 64 timers with expiries 1000..1063 from tick 990, with @slack. */
static void add_spread(uint64_t slack)
{
	int i;

	timer_wheel_advance(&wheel, 990);
	for (i = 0; i < 64; i++)
		add(i, 1000 + (uint64_t)i, slack);
}

static void slack_batches_timers_into_fewer_slots_and_ticks(void **state)
{
	unsigned exact_slots, batched_slots, exact_ticks, batched_ticks, i;

	add_spread(0);
	exact_slots = timer_wheel_slots_in_use(&wheel);
	step_to(1200);
	for (exact_ticks = 1, i = 1; i < fired_count; i++)
		exact_ticks += fired_log[i].tick != fired_log[i - 1].tick;

	reset(state);
	add_spread(100);
	batched_slots = timer_wheel_slots_in_use(&wheel);
	step_to(1200);
	for (batched_ticks = 1, i = 1; i < fired_count; i++)
		batched_ticks += fired_log[i].tick != fired_log[i - 1].tick;

	assert_int_equal(exact_ticks, 64);
	assert_int_equal(fired_count, 64);
	/* With 100 ticks of slack, 1024, 1088 and 1152 cover every window. */
	assert_int_equal(batched_ticks, 3);
	assert_int_equal(batched_slots, 3);
	assert_true(exact_slots > 20);
	for (i = 0; i < 64; i++) {
		assert_true(probes[i].ran_at >= 1000 + i);
		assert_true(probes[i].ran_at <= 1000 + i + 100);
	}
}

static void slack_never_fires_early_or_after_the_window(void **state)
{
	unsigned seed = 11, i;
	uint64_t e[MAX_PROBES], s[MAX_PROBES];

	(void)state;
	for (i = 0; i < MAX_PROBES; i++) {
		e[i] = 1 + (uint64_t)rand_r(&seed) % 20000;
		s[i] = (uint64_t)rand_r(&seed) % (i % 2 ? 5000 : 40);
		add((int)i, e[i], s[i]);
	}
	step_to(30000);
	for (i = 0; i < MAX_PROBES; i++) {
		assert_int_equal(probes[i].runs, 1);
		assert_true(probes[i].ran_at >= e[i]);
		assert_true(probes[i].ran_at <= e[i] + s[i]);
	}
	/* Batching is real: far fewer distinct ticks than timers. */
	unsigned ticks = 1;
	for (i = 1; i < fired_count; i++)
		ticks += fired_log[i].tick != fired_log[i - 1].tick;
	assert_true(ticks < MAX_PROBES * 3 / 4);
}

static void slack_is_cut_so_the_window_stays_within_the_wheel(void **state)
{
	(void)state;
	add(0, TIMER_WHEEL_MAX_AHEAD - 10, UINT64_MAX);
	assert_true(wheel_timer_fire_tick(&probes[0].t) >= TIMER_WHEEL_MAX_AHEAD - 10);
	assert_true(wheel_timer_fire_tick(&probes[0].t) <= TIMER_WHEEL_MAX_AHEAD);
	timer_wheel_advance(&wheel, TIMER_WHEEL_MAX_AHEAD);
	assert_int_equal(probes[0].runs, 1);
}

static void tick_counter_wraps_past_uint64_max(void **state)
{
	const uint64_t start = UINT64_MAX - 100;
	const uint64_t offsets[] = { 50, 100, 101, 102, 5000, SLOT_WIDTH(3) + 7, SLOT_WIDTH(5) };
	unsigned i, n = sizeof(offsets) / sizeof(offsets[0]);

	(void)state;
	timer_wheel_init(&wheel, start);
	for (i = 0; i < n; i++)
		add((int)i, start + offsets[i], 0);
	/* A slack window that straddles the wrap picks tick 0. */
	add(20, start + 90, 30);
	assert_int_equal(wheel_timer_fire_tick(&probes[20].t), 0);
	step_to(start + 6000);
	for (i = 0; i < 5; i++)
		assert_int_equal(probes[i].ran_at, start + offsets[i]);
	assert_int_equal(probes[20].ran_at, 0);
	timer_wheel_advance(&wheel, start + SLOT_WIDTH(5));
	for (i = 5; i < n; i++)
		assert_int_equal(probes[i].ran_at, start + offsets[i]);
	for (i = 1; i < fired_count; i++)
		assert_true(fired_log[i].tick - start > fired_log[i - 1].tick - start ||
			    fired_log[i].tick == fired_log[i - 1].tick);
}

static void wrap_of_the_top_level_index_is_read_circularly(void **state)
{
	/* The top level holds bits 60..63. From index 14, index 15 comes
	 * before indices 0, 1, 2 of the next round. */
	const uint64_t start = UINT64_C(0xE000000000000000) + 12345;
	const uint64_t near = start + (UINT64_C(1) << 60);  /* top slot 15 */
	const uint64_t far = start + (UINT64_C(1) << 62);   /* top slot 2 */
	const uint64_t mid = start + (UINT64_C(1) << 61);   /* top slot 0 */
	uint64_t tick;

	(void)state;
	timer_wheel_init(&wheel, start);
	add(0, far, 0);
	add(1, near, 0);
	add(2, mid, 0);
	assert_true(timer_wheel_next_expiry(&wheel, &tick));
	assert_int_equal(tick, near);
	timer_wheel_advance(&wheel, far);
	assert_int_equal(probes[1].ran_at, near);
	assert_int_equal(probes[2].ran_at, mid);
	assert_int_equal(probes[0].ran_at, far);
	assert_int_equal(fired_log[0].id, 1);
	assert_int_equal(fired_log[1].id, 2);
	assert_int_equal(fired_log[2].id, 0);
}

static void a_one_tick_timer_across_a_level_3_carry_runs_on_time(void **state)
{
	(void)state;
	timer_wheel_advance(&wheel, SLOT_WIDTH(3) - 1);
	add(0, SLOT_WIDTH(3), 0);
	add(1, SLOT_WIDTH(3) + 1, 0);
	timer_wheel_advance(&wheel, SLOT_WIDTH(3));
	assert_int_equal(probes[0].ran_at, SLOT_WIDTH(3));
	assert_int_equal(probes[1].runs, 0);
	timer_wheel_advance(&wheel, SLOT_WIDTH(3) + 1);
	assert_int_equal(probes[1].ran_at, SLOT_WIDTH(3) + 1);
}

static void long_jumps_visit_only_occupied_slots(void **state)
{
	/* Three hours at 1000 Hz, and farther. */
	const uint64_t hours3 = UINT64_C(3) * 3600 * 1000;
	int i;

	(void)state;
	for (i = 0; i < 10; i++)
		add(i, hours3 * (uint64_t)(i + 1), 0);
	assert_int_equal(timer_wheel_advance(&wheel, hours3 * 10), 10);
	for (i = 0; i < 10; i++)
		assert_int_equal(probes[i].ran_at, hours3 * (uint64_t)(i + 1));
	/* Each timer costs at most one slot per level, never one per tick. */
	assert_true(wheel.stats.slots_run <= 10 * TIMER_WHEEL_LEVELS);
	/* An empty wheel jumps any distance at once. */
	uint64_t before = wheel.stats.slots_run;
	assert_int_equal(timer_wheel_advance(&wheel, TIMER_WHEEL_MAX_AHEAD), 0);
	assert_int_equal(wheel.stats.slots_run, before);
	assert_int_equal(timer_wheel_now(&wheel), TIMER_WHEEL_MAX_AHEAD);
}

static void advance_backwards_or_too_far_does_nothing(void **state)
{
	(void)state;
	add(0, 500, 0);
	timer_wheel_advance(&wheel, 100);
	assert_int_equal(timer_wheel_advance(&wheel, 50), 0);
	assert_int_equal(timer_wheel_now(&wheel), 100);
	assert_int_equal(timer_wheel_advance(&wheel, 100 + TIMER_WHEEL_MAX_AHEAD + 1), 0);
	assert_int_equal(timer_wheel_now(&wheel), 100);
	assert_int_equal(probes[0].runs, 0);
}

/* Re-arms itself every 10 ticks until it has run 100 times. */
static void rearm_every_10(struct probe *p)
{
	if (p->id == 0 && p->runs < 100)
		add(0, p->ran_at + 10, 0);
}

static void a_callback_that_rearms_itself_runs_again_in_the_same_advance(void **state)
{
	unsigned i;

	(void)state;
	on_fire = rearm_every_10;
	add(0, 10, 0);
	assert_int_equal(timer_wheel_advance(&wheel, 5000), 100);
	for (i = 0; i < 100; i++)
		assert_int_equal(fired_log[i].tick, 10 * (i + 1));
	assert_false(wheel_timer_pending(&probes[0].t));
}

/* Probe 0 cancels probes 1 (same tick, after it) and 2 (later). */
static void cancel_others(struct probe *p)
{
	if (p->id != 0)
		return;
	assert_true(timer_wheel_cancel(&wheel, &probes[1].t));
	assert_true(timer_wheel_cancel(&wheel, &probes[2].t));
}

static void a_callback_can_cancel_a_timer_due_at_the_same_tick(void **state)
{
	(void)state;
	on_fire = cancel_others;
	add(0, SLOT_WIDTH(2), 0);
	add(1, SLOT_WIDTH(2), 0);
	add(2, SLOT_WIDTH(2) + 3, 0);
	add(3, SLOT_WIDTH(2), 0);
	timer_wheel_advance(&wheel, SLOT_WIDTH(3));
	assert_int_equal(probes[0].runs, 1);
	assert_int_equal(probes[1].runs, 0);
	assert_int_equal(probes[2].runs, 0);
	assert_int_equal(probes[3].runs, 1);
	assert_int_equal(timer_wheel_pending_count(&wheel), 0);
}

/* Probe 0 queues 1 for its own tick, 2 a little later, 3 past the target,
 * and moves 4 (due at the same tick) later. */
static void add_from_callback(struct probe *p)
{
	if (p->id != 0)
		return;
	add(1, p->ran_at, 0);
	add(2, p->ran_at + 7, 0);
	add(3, p->ran_at + 100000, 0);
	assert_true(timer_wheel_mod(&wheel, &probes[4].t, p->ran_at + 2, 0));
}

static void timers_added_by_a_callback_run_in_the_same_advance_if_due_by_its_end(void **state)
{
	(void)state;
	on_fire = add_from_callback;
	add(0, 100, 0);
	add(4, 100, 0);
	timer_wheel_advance(&wheel, 1000);
	assert_int_equal(probes[1].ran_at, 101);  /* its own tick: the next one */
	assert_int_equal(probes[4].ran_at, 102);
	assert_int_equal(probes[2].ran_at, 107);
	assert_int_equal(probes[3].runs, 0);
	assert_true(wheel_timer_pending(&probes[3].t));
	assert_int_equal(fired_count, 4);
}

static void nested_advance(struct probe *p)
{
	(void)p;
	assert_int_equal(timer_wheel_advance(&wheel, 10000), 0);
}

static void advance_from_a_callback_is_refused(void **state)
{
	(void)state;
	on_fire = nested_advance;
	add(0, 5, 0);
	add(1, 50, 0);
	timer_wheel_advance(&wheel, 10);
	assert_int_equal(timer_wheel_now(&wheel), 10);
	assert_int_equal(probes[1].runs, 0);
}

static void next_expiry_is_exact_for_small_slots_and_a_close_lower_bound_otherwise(void **state)
{
	uint64_t tick, min = UINT64_MAX;
	int i;

	(void)state;
	assert_false(timer_wheel_next_expiry(&wheel, &tick));
	add(0, 20, 0);
	assert_true(timer_wheel_next_expiry(&wheel, &tick));
	assert_int_equal(tick, 20);                       /* level 0 */
	assert_true(timer_wheel_cancel(&wheel, &probes[0].t));
	add(0, 5 * SLOT_WIDTH(2) + 777, 0);
	assert_true(timer_wheel_next_expiry(&wheel, &tick));
	assert_int_equal(tick, 5 * SLOT_WIDTH(2) + 777);  /* one timer on level 2 */
	/* Twenty timers in the same level-2 slot: a lower bound. */
	for (i = 1; i <= 20; i++) {
		uint64_t e = 5 * SLOT_WIDTH(2) + 100 + (uint64_t)i * 37;
		add(i, e, 0);
		min = e < min ? e : min;
	}
	assert_true(timer_wheel_next_expiry(&wheel, &tick));
	assert_true(tick <= min);
	assert_true(min - tick < SLOT_WIDTH(2));
	/* Advancing to the bound cascades the slot; then the answer is exact. */
	timer_wheel_advance(&wheel, tick);
	assert_true(timer_wheel_next_expiry(&wheel, &tick));
	assert_int_equal(tick, min);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(timers_run_in_expiry_order_and_equal_expiries_in_queue_order, reset),
		cmocka_unit_test_setup(a_timer_at_each_level_first_and_last_slot_runs_exactly_on_its_tick, reset),
		cmocka_unit_test_setup(all_boundary_timers_together_run_in_order_after_one_long_jump, reset),
		cmocka_unit_test_setup(cancel_at_each_level_boundary_leaves_no_trace, reset),
		cmocka_unit_test_setup(cancel_after_a_cascade_removes_the_timer_from_its_finer_slot, reset),
		cmocka_unit_test_setup(modify_moves_a_timer_across_every_level_boundary, reset),
		cmocka_unit_test_setup(modify_to_the_same_tick_keeps_the_timer_ahead_of_later_equals, reset),
		cmocka_unit_test_setup(modify_of_an_idle_timer_queues_it_and_reports_it_was_idle, reset),
		cmocka_unit_test_setup(adding_a_queued_timer_is_refused_and_changes_nothing, reset),
		cmocka_unit_test_setup(an_expiry_in_the_past_runs_on_the_next_tick, reset),
		cmocka_unit_test_setup(slack_batches_timers_into_fewer_slots_and_ticks, reset),
		cmocka_unit_test_setup(slack_never_fires_early_or_after_the_window, reset),
		cmocka_unit_test_setup(slack_is_cut_so_the_window_stays_within_the_wheel, reset),
		cmocka_unit_test_setup(tick_counter_wraps_past_uint64_max, reset),
		cmocka_unit_test_setup(wrap_of_the_top_level_index_is_read_circularly, reset),
		cmocka_unit_test_setup(a_one_tick_timer_across_a_level_3_carry_runs_on_time, reset),
		cmocka_unit_test_setup(long_jumps_visit_only_occupied_slots, reset),
		cmocka_unit_test_setup(advance_backwards_or_too_far_does_nothing, reset),
		cmocka_unit_test_setup(a_callback_that_rearms_itself_runs_again_in_the_same_advance, reset),
		cmocka_unit_test_setup(a_callback_can_cancel_a_timer_due_at_the_same_tick, reset),
		cmocka_unit_test_setup(timers_added_by_a_callback_run_in_the_same_advance_if_due_by_its_end, reset),
		cmocka_unit_test_setup(advance_from_a_callback_is_refused, reset),
		cmocka_unit_test_setup(next_expiry_is_exact_for_small_slots_and_a_close_lower_bound_otherwise, reset),
	};

	return cmocka_run_group_tests_name("timer_wheel", tests, NULL, NULL);
}
