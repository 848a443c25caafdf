/*
 * test_time_hrtimer.c - host unit tests for the hrtimer queue
 * (kernel/time/hrtimer.c: ordering, cancel anywhere in the heap, equal
 * expiries, the program hook, callbacks and the run budget) and for
 * hrtimers through the time core on a fake one-shot clock event device
 * (exact events, min/max delta clamping, retries).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <kernel/errno.h>
#include <time/clockevent.h>
#include <time/internal.h>
#include <time/time.h>
#include <time/time_port.h>

/* ---- test_time_port.c ---- */
void test_port_reset(void);
void test_port_check_balanced(void);
extern uint64_t fake_counter;
void fake_clocksource_init(struct clocksource *cs, const char *name, uint32_t freq_hz, uint64_t mask, int rating);
struct fake_clockevent {
	struct clock_event_device dev;
	uint32_t periodic_hz;
	bool armed;
	uint64_t deadline;
	uint64_t last_delta;
	uint64_t deltas[64];
	uint64_t programs, shutdowns, periodic_calls;
	unsigned fail_next;
};
void fake_clockevent_init(struct fake_clockevent *f, const char *name, unsigned features, int rating,
			  uint64_t min_delta_ns, uint64_t max_delta_ns);
void fake_clockevent_fire(struct fake_clockevent *f, uint64_t latency);
extern void (*test_idle_hook)(void);
void test_port_set_cpu(unsigned cpu);
extern unsigned long test_lock_takes;
extern unsigned test_log_count;

/* Timers in the ordering tests. */
#define NT 2000
/* The fake device's limits: 2 us .. 50 ms, like a PIT in one-shot mode. */
#define MIN_DELTA 2000
#define MAX_DELTA (50 * NSEC_PER_MSEC)

struct probe {
	struct hrtimer t;
	unsigned id;
	unsigned runs;
	uint64_t ran_at; /* run's now */
};

static struct hrtimer_queue queue;
static struct probe probes[NT];
static unsigned order[NT * 2], ran_count;
static uint64_t run_now;
static void (*on_run)(struct probe *p);
/* Program hook calls. */
static unsigned hook_calls;
static uint64_t hook_last;

static struct clocksource tsc;
static struct fake_clockevent ced;

static void record_run(struct hrtimer *t)
{
	struct probe *p = t->arg;

	assert_false(hrtimer_pending(t));
	p->runs++;
	p->ran_at = run_now;
	order[ran_count++] = p->id;
	if (on_run)
		on_run(p);
}

static void hook(struct hrtimer_queue *q, uint64_t first)
{
	assert_ptr_equal(q, &queue);
	hook_calls++;
	hook_last = first;
}

static int reset(void **state)
{
	unsigned i;

	(void)state;
	test_port_reset();
	hrtimer_queue_init(&queue, hook);
	for (i = 0; i < NT; i++) {
		probes[i].id = i;
		probes[i].runs = 0;
		hrtimer_setup(&probes[i].t, record_run, &probes[i]);
	}
	ran_count = 0;
	on_run = NULL;
	hook_calls = 0;
	return 0;
}

static int check(void **state)
{
	(void)state;
	test_port_check_balanced();
	return 0;
}

static struct hrtimer_run run_at(uint64_t now)
{
	struct hrtimer_run run = { .now_ns = now, .budget = 100000, .late_threshold_ns = 1000 };

	run_now = now;
	hrtimer_queue_run(&queue, &run);
	return run;
}

static void timers_run_in_expiry_order_and_only_once_due(void **state)
{
	uint64_t exp[NT], now;
	unsigned i, seed = 9, before;

	(void)state;
	for (i = 0; i < NT; i++) {
		exp[i] = 1 + (uint64_t)rand_r(&seed) % 1000000;
		hrtimer_queue_add(&queue, &probes[i].t, exp[i]);
	}
	assert_int_equal(queue.count, NT);
	for (now = 0; now <= 1000000; now += 997) {
		before = ran_count;
		run_at(now);
		for (i = before; i < ran_count; i++) {
			assert_true(exp[order[i]] <= now);
			if (i > 0)
				assert_true(exp[order[i - 1]] <= exp[order[i]]);
		}
		if (hrtimer_queue_first(&queue))
			assert_true(hrtimer_queue_first(&queue)->expires_ns > now);
	}
	run_at(1000000);
	assert_int_equal(ran_count, NT);
	for (i = 0; i < NT; i++)
		assert_int_equal(probes[i].runs, 1);
}

static void equal_expiries_run_in_the_order_they_were_started(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < 100; i++)
		hrtimer_queue_add(&queue, &probes[i].t, 5000 + (i % 3) * 10);
	run_at(6000);
	for (i = 1; i < 100; i++) {
		uint64_t a = probes[order[i - 1]].t.expires_ns, b = probes[order[i]].t.expires_ns;

		assert_true(a < b || (a == b && order[i - 1] < order[i]));
	}
}

static void cancel_anywhere_in_the_heap_keeps_the_rest_in_order(void **state)
{
	uint64_t exp[NT];
	bool cancelled[NT] = { false };
	unsigned i, seed = 21;

	(void)state;
	for (i = 0; i < NT; i++) {
		exp[i] = (uint64_t)rand_r(&seed) % 50000;
		hrtimer_queue_add(&queue, &probes[i].t, exp[i]);
	}
	/* Build some heap structure first: pop a few. */
	run_at(100);
	for (i = 0; i < NT; i++) {
		if (probes[i].runs || rand_r(&seed) % 2)
			continue;
		assert_true(hrtimer_queue_remove(&probes[i].t));
		assert_false(hrtimer_queue_remove(&probes[i].t));
		cancelled[i] = true;
	}
	run_at(50000);
	for (i = 0; i < NT; i++)
		assert_int_equal(probes[i].runs, cancelled[i] ? 0 : 1);
	for (i = 1; i < ran_count; i++)
		assert_true(exp[order[i - 1]] <= exp[order[i]]);
	assert_int_equal(queue.count, 0);
	assert_null(hrtimer_queue_first(&queue));
}

static void restarting_a_pending_timer_moves_it(void **state)
{
	(void)state;
	hrtimer_queue_add(&queue, &probes[0].t, 100);
	hrtimer_queue_add(&queue, &probes[1].t, 200);
	hrtimer_queue_add(&queue, &probes[0].t, 300);
	assert_int_equal(queue.count, 2);
	run_at(250);
	assert_int_equal(ran_count, 1);
	assert_int_equal(order[0], 1);
	run_at(300);
	assert_int_equal(order[1], 0);
}

static void the_hook_hears_only_of_changes_to_the_earliest_expiry(void **state)
{
	(void)state;
	hrtimer_queue_add(&queue, &probes[0].t, 1000);
	assert_int_equal(hook_calls, 1);
	assert_int_equal(hook_last, 1000);
	hrtimer_queue_add(&queue, &probes[1].t, 2000);  /* later: no change */
	assert_int_equal(hook_calls, 1);
	hrtimer_queue_add(&queue, &probes[2].t, 500);   /* earlier */
	assert_int_equal(hook_calls, 2);
	assert_int_equal(hook_last, 500);
	hrtimer_queue_remove(&probes[1].t);              /* not the earliest */
	assert_int_equal(hook_calls, 2);
	hrtimer_queue_remove(&probes[2].t);              /* the earliest */
	assert_int_equal(hook_calls, 3);
	assert_int_equal(hook_last, 1000);
	hrtimer_queue_remove(&probes[0].t);              /* empty: nothing to program */
	assert_int_equal(hook_calls, 3);
	hrtimer_queue_add(&queue, &probes[0].t, 10);
	hrtimer_queue_add(&queue, &probes[1].t, 20);
	hook_calls = 0;
	run_at(15);                                      /* silent during runs */
	assert_int_equal(hook_calls, 0);
}

/* Probe 0 restarts itself at run_now + 5 twice, starts probe 1 in the past
 * and cancels probe 2. */
static void meddle(struct probe *p)
{
	if (p->id != 0)
		return;
	if (p->runs < 3)
		hrtimer_queue_add(&queue, &p->t, run_now + 5);
	hrtimer_queue_add(&queue, &probes[1].t, 1);
	hrtimer_queue_remove(&probes[2].t);
}

static void callbacks_restart_and_cancel_timers_during_the_run(void **state)
{
	(void)state;
	on_run = meddle;
	hrtimer_queue_add(&queue, &probes[0].t, 100);
	hrtimer_queue_add(&queue, &probes[2].t, 150);
	run_at(200);
	/* 0 at 100, then 1 (started in the past: runs in this run); 0 again
	 * only when due, at the next run. */
	assert_int_equal(probes[0].runs, 1);
	assert_int_equal(probes[1].runs, 1);
	assert_int_equal(probes[2].runs, 0);
	assert_true(hrtimer_pending(&probes[0].t));
	assert_int_equal(probes[0].t.expires_ns, 205);
	run_at(205);
	assert_int_equal(probes[0].runs, 2);
	run_at(210);
	assert_int_equal(probes[0].runs, 3);
	assert_false(hrtimer_pending(&probes[0].t));
}

static void rearm_in_the_past(struct probe *p)
{
	hrtimer_queue_add(&queue, &p->t, 0);
}

static void the_budget_stops_a_callback_that_keeps_rearming_in_the_past(void **state)
{
	struct hrtimer_run run = { .now_ns = 10, .budget = 50, .late_threshold_ns = 0 };

	(void)state;
	on_run = rearm_in_the_past;
	hrtimer_queue_add(&queue, &probes[0].t, 5);
	run_now = 10;
	hrtimer_queue_run(&queue, &run);
	assert_int_equal(run.ran, 50);
	assert_true(run.cut_short);
	assert_int_equal(run.max_late_ns, 10);
	assert_int_equal(run.late, 50);
	assert_true(hrtimer_pending(&probes[0].t));
}

/* ---- Through the time core, on a fake one-shot device ------------------------- */

static int core_reset(void **state)
{
	reset(state);
	fake_counter = 0;
	time_init(1000);
	fake_clocksource_init(&tsc, "tsc", 1000000000u, UINT64_MAX, 300);
	assert_int_equal(clocksource_register(&tsc), 0);
	fake_clockevent_init(&ced, "lapic", CLOCK_EVT_FEAT_ONESHOT, 300, MIN_DELTA, MAX_DELTA);
	assert_int_equal(clockevent_register(&ced.dev), 0);
	assert_int_equal(time_tick_mode(), TICK_MODE_ONESHOT);
	return 0;
}

static void record_core_run(struct hrtimer *t)
{
	struct probe *p = t->arg;

	p->runs++;
	p->ran_at = ktime_get_ns();
}

static void an_hrtimer_before_the_next_tick_gets_its_own_exact_event(void **state)
{
	struct time_stats st;

	(void)state;
	hrtimer_setup(&probes[0].t, record_core_run, &probes[0]);
	assert_int_equal(hrtimer_start(&probes[0].t, 123456), 0);
	assert_true(ced.armed);
	assert_int_equal(ced.deadline, 123456);
	fake_clockevent_fire(&ced, 0);
	assert_int_equal(probes[0].runs, 1);
	assert_int_equal(probes[0].ran_at, 123456);
	/* Next: the tick at 1 ms. */
	assert_int_equal(ced.deadline, NSEC_PER_MSEC);
	time_get_stats(&st);
	assert_int_equal(st.hrtimers_run, 1);
	assert_int_equal(st.late_hrtimers, 0);
}

static void a_too_close_expiry_is_raised_to_the_minimum_delta(void **state)
{
	(void)state;
	fake_counter = 400000;
	hrtimer_setup(&probes[0].t, record_core_run, &probes[0]);
	hrtimer_start(&probes[0].t, 400010);            /* 10 ns ahead */
	assert_int_equal(ced.last_delta, MIN_DELTA);
	hrtimer_start(&probes[0].t, 100);               /* in the past */
	assert_int_equal(ced.last_delta, MIN_DELTA);
	assert_true(ced.dev.clamped >= 2);
	fake_clockevent_fire(&ced, 0);
	assert_int_equal(probes[0].runs, 1);
	assert_int_equal(probes[0].ran_at, 400000 + MIN_DELTA);
}

static void fire_ced(void)
{
	fake_clockevent_fire(&ced, 0);
}

static void a_far_expiry_is_cut_to_the_maximum_delta_and_still_runs_on_time(void **state)
{
	const uint64_t far = 3 * NSEC_PER_SEC + 777;
	struct time_stats st;
	unsigned long flags;
	unsigned events = 0;

	(void)state;
	assert_int_equal(time_set_tick_mode(TICK_MODE_TICKLESS), 0);
	hrtimer_setup(&probes[0].t, record_core_run, &probes[0]);
	hrtimer_start(&probes[0].t, far);
	/* Idle: the tick steps aside and the device is programmed as far as
	 * it can go, again and again, until the hrtimer is due. */
	test_idle_hook = fire_ced;
	flags = time_port_irq_save();
	while (!probes[0].runs && events < 1000) {
		time_idle();
		assert_true(ced.last_delta <= MAX_DELTA);
		events++;
	}
	time_port_irq_restore(flags);
	/* The last stretch was shorter than the device's minimum delta. */
	assert_true(probes[0].ran_at >= far);
	assert_true(probes[0].ran_at <= far + MIN_DELTA);
	assert_true(events >= far / MAX_DELTA);
	assert_true(events <= far / MAX_DELTA + 2);
	time_get_stats(&st);
	assert_int_equal(st.late_hrtimers, 0);
	assert_int_equal(jiffies, far / NSEC_PER_MSEC);
}

static void a_failed_program_is_retried_with_a_longer_delta(void **state)
{
	(void)state;
	hrtimer_setup(&probes[0].t, record_core_run, &probes[0]);
	uint64_t before = ced.programs;
	ced.fail_next = 2;
	hrtimer_start(&probes[0].t, 10);
	assert_int_equal(ced.programs - before, 3);
	assert_int_equal(ced.deltas[before % 64], MIN_DELTA);
	assert_int_equal(ced.deltas[(before + 1) % 64], 2 * MIN_DELTA);
	assert_int_equal(ced.deltas[(before + 2) % 64], 4 * MIN_DELTA);
	assert_true(ced.armed);
	assert_int_equal(ced.dev.program_errors, 2);
}

static void hrtimer_start_refuses_a_timer_without_callback(void **state)
{
	struct hrtimer t;

	(void)state;
	hrtimer_setup(&t, NULL, NULL);
	assert_int_equal(hrtimer_start(&t, 1000), -EINVAL);
	assert_int_equal(hrtimer_start(NULL, 1000), -EINVAL);
	assert_false(hrtimer_pending(&t));
	assert_false(hrtimer_cancel(&t));
}

static void a_late_hrtimer_is_counted_with_its_lateness(void **state)
{
	struct time_stats st;

	(void)state;
	hrtimer_setup(&probes[0].t, record_core_run, &probes[0]);
	hrtimer_start(&probes[0].t, 500000);
	fake_clockevent_fire(&ced, 300000);             /* 300 us late */
	time_get_stats(&st);
	assert_int_equal(st.late_hrtimers, 1);
	assert_int_equal(st.max_late_ns, 300000);
	assert_true(hrtimer_cancel(&probes[0].t) == false);
}

/* ---- Several CPUs: hrtimer_cancel waits for a callback running elsewhere ---- */

/* Wall-clock bound of every wait for the other thread, seconds. */
#define SMP_WAIT_S 20
/* Lock takes by the waiting canceller that show it is looping, not just starting. */
#define SMP_SPIN_TAKES 200

static struct {
	int entered;       /* the callback is inside (on "CPU 0") */
	int release;       /* the test lets it return */
	int rearm;         /* it re-arms its own timer before returning */
	int self_cancel;   /* it cancels its own timer: must not wait for itself */
	int self_result;   /* what that cancel returned, +1 */
	int finished_seq;  /* event order: the callback returned */
	int cancelled_seq; /* event order: hrtimer_cancel returned */
	int seq;
	struct hrtimer t;
} smp;

static int smp_flag(const int *f) { return __atomic_load_n(f, __ATOMIC_SEQ_CST); }
static void smp_set(int *f, int v) { __atomic_store_n(f, v, __ATOMIC_SEQ_CST); }
static int smp_next_seq(void) { return __atomic_add_fetch(&smp.seq, 1, __ATOMIC_SEQ_CST); }

static uint64_t smp_wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

static bool smp_wait(const int *f)
{
	uint64_t start = smp_wall_s();

	while (!smp_flag(f)) {
		if (smp_wall_s() - start > SMP_WAIT_S)
			return false;
		sched_yield();
	}
	return true;
}

static void blocking_callback(struct hrtimer *t)
{
	smp_set(&smp.entered, 1);
	if (smp_flag(&smp.self_cancel))
		smp_set(&smp.self_result, hrtimer_cancel(t) + 1);
	smp_wait(&smp.release);
	if (smp_flag(&smp.rearm))
		hrtimer_start(t, ktime_get_ns() + NSEC_PER_MSEC / 2);
	smp_set(&smp.finished_seq, smp_next_seq());
}

/* "CPU 0": the clock event whose handler runs the callback. */
static void *cpu0_fire(void *arg)
{
	(void)arg;
	test_port_set_cpu(0);
	fake_clockevent_fire(&ced, 0);
	return NULL;
}

/* "CPU 0": clock events (ticks) until the wheel's callback has started, at most a few. */
static void *cpu0_fire_until_entered(void *arg)
{
	int i;

	(void)arg;
	test_port_set_cpu(0);
	for (i = 0; i < 10 && !smp_flag(&smp.entered) && ced.armed; i++)
		fake_clockevent_fire(&ced, 0);
	return NULL;
}

/* "CPU 1": cancels the timer while its callback runs on CPU 0. */
static void *cpu1_cancel(void *arg)
{
	(void)arg;
	test_port_set_cpu(1);
	hrtimer_cancel(&smp.t);
	smp_set(&smp.cancelled_seq, smp_next_seq());
	return NULL;
}

static void smp_run_cancel_during_callback(bool rearm)
{
	pthread_t cpu0, cpu1;
	unsigned long takes;
	uint64_t start;

	memset(&smp, 0, sizeof(smp));
	smp.rearm = rearm;
	hrtimer_setup(&smp.t, blocking_callback, NULL);
	assert_int_equal(hrtimer_start(&smp.t, 200000), 0);
	assert_int_equal(pthread_create(&cpu0, NULL, cpu0_fire, NULL), 0);
	assert_true(smp_wait(&smp.entered));
	takes = __atomic_load_n(&test_lock_takes, __ATOMIC_RELAXED);
	assert_int_equal(pthread_create(&cpu1, NULL, cpu1_cancel, NULL), 0);
	/* The canceller is seen looping on the lock, and has not returned. */
	start = smp_wall_s();
	while (__atomic_load_n(&test_lock_takes, __ATOMIC_RELAXED) < takes + SMP_SPIN_TAKES &&
	       !smp_flag(&smp.cancelled_seq) && smp_wall_s() - start <= SMP_WAIT_S)
		sched_yield();
	assert_int_equal(smp_flag(&smp.cancelled_seq), 0);
	smp_set(&smp.release, 1);
	assert_int_equal(pthread_join(cpu1, NULL), 0);
	assert_int_equal(pthread_join(cpu0, NULL), 0);
	assert_true(smp.finished_seq < smp.cancelled_seq);
	/* Nothing of it is left to run: a re-arm made during the wait was cancelled too. */
	assert_false(hrtimer_pending(&smp.t));
}

static void hrtimer_cancel_waits_for_the_callback_running_on_another_cpu(void **state)
{
	(void)state;
	smp_run_cancel_during_callback(false);
}

static void hrtimer_cancel_also_cancels_a_rearm_the_running_callback_makes(void **state)
{
	(void)state;
	smp_run_cancel_during_callback(true);
}

static void hrtimer_cancel_from_its_own_callback_does_not_wait_for_itself(void **state)
{
	pthread_t cpu0;
	unsigned logs = test_log_count;

	(void)state;
	memset(&smp, 0, sizeof(smp));
	smp.self_cancel = 1;
	smp.release = 1;
	hrtimer_setup(&smp.t, blocking_callback, NULL);
	assert_int_equal(hrtimer_start(&smp.t, 200000), 0);
	assert_int_equal(pthread_create(&cpu0, NULL, cpu0_fire, NULL), 0);
	assert_int_equal(pthread_join(cpu0, NULL), 0);
	assert_int_equal(smp.self_result, 1);  /* returned false (not pending), */
	assert_int_equal(test_log_count, logs);  /* and at once, not after giving up a wait */
	assert_true(smp.finished_seq > 0);
}

/* The wheel's callbacks run with kernel/time's lock held: timer_cancel from another CPU waits for them. */
static struct timer smp_wheel_timer;

static void blocking_wheel_callback(struct timer *t)
{
	(void)t;
	smp_set(&smp.entered, 1);
	smp_wait(&smp.release);
	smp_set(&smp.finished_seq, smp_next_seq());
}

static void *cpu1_timer_cancel(void *arg)
{
	(void)arg;
	test_port_set_cpu(1);
	timer_cancel(&smp_wheel_timer);
	smp_set(&smp.cancelled_seq, smp_next_seq());
	return NULL;
}

static void timer_cancel_waits_for_the_wheel_callback_running_on_another_cpu(void **state)
{
	pthread_t cpu0, cpu1;

	(void)state;
	memset(&smp, 0, sizeof(smp));
	timer_setup(&smp_wheel_timer, blocking_wheel_callback, NULL);
	assert_int_equal(timer_add(&smp_wheel_timer, NSEC_PER_MSEC, 0), 0);
	assert_int_equal(pthread_create(&cpu0, NULL, cpu0_fire_until_entered, NULL), 0);
	assert_true(smp_wait(&smp.entered));
	assert_int_equal(pthread_create(&cpu1, NULL, cpu1_timer_cancel, NULL), 0);
	/* The canceller cannot get in while the callback runs: give it a fair chance to be wrong. */
	for (int i = 0; i < 1000; i++)
		sched_yield();
	assert_int_equal(smp_flag(&smp.cancelled_seq), 0);
	smp_set(&smp.release, 1);
	assert_int_equal(pthread_join(cpu1, NULL), 0);
	assert_int_equal(pthread_join(cpu0, NULL), 0);
	assert_true(smp.finished_seq < smp.cancelled_seq);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(timers_run_in_expiry_order_and_only_once_due, reset, check),
		cmocka_unit_test_setup_teardown(equal_expiries_run_in_the_order_they_were_started, reset, check),
		cmocka_unit_test_setup_teardown(cancel_anywhere_in_the_heap_keeps_the_rest_in_order, reset, check),
		cmocka_unit_test_setup_teardown(restarting_a_pending_timer_moves_it, reset, check),
		cmocka_unit_test_setup_teardown(the_hook_hears_only_of_changes_to_the_earliest_expiry, reset, check),
		cmocka_unit_test_setup_teardown(callbacks_restart_and_cancel_timers_during_the_run, reset, check),
		cmocka_unit_test_setup_teardown(the_budget_stops_a_callback_that_keeps_rearming_in_the_past, reset, check),
		cmocka_unit_test_setup_teardown(an_hrtimer_before_the_next_tick_gets_its_own_exact_event, core_reset, check),
		cmocka_unit_test_setup_teardown(a_too_close_expiry_is_raised_to_the_minimum_delta, core_reset, check),
		cmocka_unit_test_setup_teardown(a_far_expiry_is_cut_to_the_maximum_delta_and_still_runs_on_time, core_reset, check),
		cmocka_unit_test_setup_teardown(a_failed_program_is_retried_with_a_longer_delta, core_reset, check),
		cmocka_unit_test_setup_teardown(hrtimer_start_refuses_a_timer_without_callback, core_reset, check),
		cmocka_unit_test_setup_teardown(a_late_hrtimer_is_counted_with_its_lateness, core_reset, check),
		cmocka_unit_test_setup_teardown(hrtimer_cancel_waits_for_the_callback_running_on_another_cpu, core_reset, check),
		cmocka_unit_test_setup_teardown(hrtimer_cancel_also_cancels_a_rearm_the_running_callback_makes, core_reset, check),
		cmocka_unit_test_setup_teardown(hrtimer_cancel_from_its_own_callback_does_not_wait_for_itself, core_reset, check),
		cmocka_unit_test_setup_teardown(timer_cancel_waits_for_the_wheel_callback_running_on_another_cpu, core_reset, check),
	};

	return cmocka_run_group_tests_name("time_hrtimer", tests, NULL, NULL);
}
