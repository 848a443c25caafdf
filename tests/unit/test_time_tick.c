/*
 * test_time_tick.c - host unit tests for the time core (kernel/time/tick.c,
 * time.c, clockevent.c) with a fake clock source (a counter the test
 * advances) and a fake clock event device (records what it is programmed
 * with, interrupts when the test says): periodic ticks, one-shot tick
 * emulation without drift over a million ticks, tickless idle, coarse timers
 * that are never early, msleep/udelay, mode selection, device hand-over and
 * registration refusals, and the drivers' ns-to-counts conversion against
 * 128-bit arithmetic.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/errno.h>
#include <time/clockevent.h>
#include <time/internal.h>
#include <time/time.h>
#include <time/time_port.h>

/* ---- test_time_port.c ---- */
void test_port_reset(void);
void test_port_check_balanced(void);
extern void (*test_idle_hook)(void);
extern unsigned test_log_count;
extern int test_last_log_level;
extern uint64_t fake_counter, fake_counter_hz, fake_counter_per_read;
void fake_counter_reset(void);
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
void fake_clockevent_interrupt(struct fake_clockevent *f);
void fake_clockevent_fire(struct fake_clockevent *f, uint64_t latency);

#define BOTH (CLOCK_EVT_FEAT_PERIODIC | CLOCK_EVT_FEAT_ONESHOT)
/* A LAPIC-like device: 1 us .. 10 s. */
#define LAPIC_MIN 1000
#define LAPIC_MAX (10 * NSEC_PER_SEC)
/* Timers in the batch tests. */
#define NTIMERS 300

struct probe {
	struct timer t;
	unsigned runs;
	uint64_t ran_ns;     /* ktime in the callback */
	uint64_t ran_jiffy;
};

static struct clocksource tsc;
static struct fake_clockevent ced, ced2, ced3;
static struct probe probes[NTIMERS];
static struct fake_clockevent *idle_device;
static uint64_t idle_latency;

static void record(struct timer *t)
{
	struct probe *p = t->arg;

	assert_false(timer_pending(t));
	p->runs++;
	p->ran_ns = ktime_get_ns();
	p->ran_jiffy = jiffies;
}

static int reset(void **state)
{
	unsigned i;

	(void)state;
	test_port_reset();
	fake_counter_reset();
	idle_device = &ced;
	idle_latency = 0;
	memset(probes, 0, sizeof(probes));
	for (i = 0; i < NTIMERS; i++)
		timer_setup(&probes[i].t, record, &probes[i]);
	return 0;
}

static int check(void **state)
{
	(void)state;
	test_port_check_balanced();
	return 0;
}

/* A 1 GHz TSC-like clock source and a one-shot device at @hz. */
static void start_oneshot(uint32_t hz, uint64_t max_delta)
{
	time_init(hz);
	fake_clocksource_init(&tsc, "tsc", 1000000000u, UINT64_MAX, 300);
	assert_int_equal(clocksource_register(&tsc), 0);
	fake_clockevent_init(&ced, "lapic", CLOCK_EVT_FEAT_ONESHOT, 300, LAPIC_MIN, max_delta);
	assert_int_equal(clockevent_register(&ced.dev), 0);
	assert_int_equal(time_tick_mode(), TICK_MODE_ONESHOT);
}

/* Idle hook: the device the test idles on interrupts. */
static void idle_fire(void)
{
	if (idle_device->periodic_hz)
		fake_clockevent_interrupt(idle_device);
	else
		fake_clockevent_fire(idle_device, idle_latency);
}

/* Idle with time_idle() until probe @id ran; RETURNS the idle rounds. */
static unsigned idle_until_run(unsigned id, unsigned limit)
{
	unsigned long flags = time_port_irq_save();
	unsigned rounds = 0;

	test_idle_hook = idle_fire;
	while (!probes[id].runs && rounds < limit) {
		time_idle();
		rounds++;
	}
	time_port_irq_restore(flags);
	assert_int_equal(probes[id].runs, 1);
	return rounds;
}

static void periodic_mode_counts_one_tick_per_event(void **state)
{
	struct time_stats st;
	unsigned i;

	(void)state;
	time_init(1000);
	fake_clockevent_init(&ced, "pit", CLOCK_EVT_FEAT_PERIODIC, 100, 0, 0);
	assert_int_equal(clockevent_register(&ced.dev), 0);
	assert_int_equal(time_tick_mode(), TICK_MODE_PERIODIC);
	assert_int_equal(ced.periodic_hz, 1000);
	for (i = 0; i < 1000; i++)
		fake_clockevent_interrupt(&ced);
	time_get_stats(&st);
	assert_int_equal(jiffies, 1000);
	assert_int_equal(st.events, 1000);
	assert_int_equal(st.ticks, 1000);
	assert_int_equal(ktime_get_ns(), NSEC_PER_SEC); /* from jiffies */
	assert_int_equal(tick_hz(), 1000);
}

static void record_hr(struct hrtimer *t)
{
	struct probe *p = t->arg;

	p->runs++;
	p->ran_ns = ktime_get_ns();
	p->ran_jiffy = jiffies;
}

static void periodic_mode_runs_timers_on_the_first_tick_at_or_after_expiry(void **state)
{
	struct hrtimer hr;
	struct time_stats st;
	unsigned i;

	(void)state;
	time_init(1000);
	fake_clockevent_init(&ced, "pit", CLOCK_EVT_FEAT_PERIODIC, 100, 0, 0);
	assert_int_equal(clockevent_register(&ced.dev), 0);
	assert_int_equal(timer_add(&probes[0].t, 10500000, 0), 0);  /* 10.5 ms */
	hrtimer_setup(&hr, record_hr, &probes[1]);
	assert_int_equal(hrtimer_start(&hr, 2300000), 0);           /* 2.3 ms */
	for (i = 0; i < 20; i++)
		fake_clockevent_interrupt(&ced);
	assert_int_equal(probes[0].ran_jiffy, 11);
	assert_true(probes[0].ran_ns >= 10500000);
	assert_int_equal(probes[1].ran_jiffy, 3);  /* hrtimers: tick resolution */
	time_get_stats(&st);
	assert_int_equal(st.timers_run, 1);
	assert_int_equal(st.hrtimers_run, 1);
	assert_int_equal(st.late_hrtimers, 0);     /* a tick late is on time here */
	assert_int_equal(st.late_timers, 0);
}

static void ticks_of_a_fast_periodic_device_never_run_a_timer_early(void **state)
{
	unsigned i;

	(void)state;
	/* A PIT programmed for 1000 Hz really runs at 1001 Hz: each tick comes
	 * 999 us after the last by the TSC. */
	time_init(1000);
	fake_clocksource_init(&tsc, "tsc", 1000000000u, UINT64_MAX, 300);
	assert_int_equal(clocksource_register(&tsc), 0);
	fake_clockevent_init(&ced, "pit", CLOCK_EVT_FEAT_PERIODIC, 100, 0, 0);
	assert_int_equal(clockevent_register(&ced.dev), 0);
	assert_int_equal(time_tick_mode(), TICK_MODE_PERIODIC);
	assert_int_equal(timer_add(&probes[0].t, 10 * NSEC_PER_MSEC, 0), 0);
	for (i = 0; i < 12; i++) {
		fake_counter += 999000;
		fake_clockevent_interrupt(&ced);
	}
	/* Tick 10 came at 9.99 ms: the timer waited for tick 11. */
	assert_int_equal(probes[0].runs, 1);
	assert_int_equal(probes[0].ran_jiffy, 11);
	assert_true(probes[0].ran_ns >= 10 * NSEC_PER_MSEC);
}

static void oneshot_tick_has_no_drift_over_a_million_ticks(void **state)
{
	/* 300 Hz: a period of 3333333.33 ns, so rounding would show. */
	const uint32_t hz = 300;
	struct time_stats st;
	unsigned seed = 17;
	uint64_t n;

	(void)state;
	start_oneshot(hz, LAPIC_MAX);
	for (n = 1; n <= 1000000; n++) {
		assert_true(ced.armed);
		/* Ideal tick n: exactly floor(n * 1e9 / hz) after the start. */
		assert_int_equal(ced.deadline, n * NSEC_PER_SEC / hz);
		fake_clockevent_fire(&ced, (uint64_t)rand_r(&seed) % 50000);
	}
	time_get_stats(&st);
	assert_int_equal(jiffies, 1000000);
	assert_int_equal(st.ticks, 1000000);
	assert_int_equal(st.events, 1000000);
	assert_int_equal(st.late_hrtimers, 0);
	assert_int_equal(st.hrtimers_run, 0);  /* the tick's own are not counted */
}

static void a_late_tick_event_counts_every_tick_that_was_due(void **state)
{
	struct time_stats st;

	(void)state;
	start_oneshot(1000, LAPIC_MAX);
	fake_clockevent_fire(&ced, 5500000);     /* tick 1 handled at 6.5 ms */
	assert_int_equal(jiffies, 6);
	assert_int_equal(ced.deadline, 7 * NSEC_PER_MSEC);
	time_get_stats(&st);
	assert_int_equal(st.events, 1);
	assert_int_equal(st.ticks, 6);
	assert_int_equal(st.late_hrtimers, 1);   /* the tick's own hrtimer */
	assert_int_equal(st.max_late_ns, 5500000);
}

static void coarse_timers_never_run_early_and_end_within_their_slack(void **state)
{
	const uint64_t period = NSEC_PER_SEC / 250, max_latency = 100000;
	uint64_t e[NTIMERS], s[NTIMERS];
	unsigned i, seed = 23, rounds = 0, done;
	struct time_stats st;

	(void)state;
	start_oneshot(250, LAPIC_MAX);
	for (i = 0; i < NTIMERS; i++) {
		e[i] = (uint64_t)rand_r(&seed) % (2 * NSEC_PER_SEC);
		s[i] = i % 2 ? (uint64_t)rand_r(&seed) % (50 * NSEC_PER_MSEC) : 0;
		assert_int_equal(timer_add(&probes[i].t, e[i], s[i]), 0);
	}
	do {
		fake_clockevent_fire(&ced, (uint64_t)rand_r(&seed) % max_latency);
		for (i = 0, done = 0; i < NTIMERS; i++)
			done += probes[i].runs;
	} while (done < NTIMERS && ++rounds < 10000);
	for (i = 0; i < NTIMERS; i++) {
		assert_int_equal(probes[i].runs, 1);
		assert_true(probes[i].ran_ns >= e[i]);
		assert_true(probes[i].ran_ns <= e[i] + s[i] + period + max_latency);
	}
	time_get_stats(&st);
	assert_int_equal(st.timers_run, NTIMERS);
	assert_int_equal(st.late_timers, 0);
}

/* Distinct jiffies at which the first @n probes ran. */
static unsigned distinct_ticks(unsigned n)
{
	unsigned i, j, count = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && probes[j].ran_jiffy != probes[i].ran_jiffy; j++)
			;
		count += j == i;
	}
	return count;
}

static void slack_lets_nearby_coarse_timers_share_a_tick(void **state)
{
	unsigned i, exact, batched;

	(void)state;
	start_oneshot(1000, LAPIC_MAX);
	for (i = 0; i < 100; i++)
		timer_add(&probes[i].t, (100 + i) * NSEC_PER_MSEC, 0);
	while (probes[99].runs == 0)
		fake_clockevent_fire(&ced, 0);
	exact = distinct_ticks(100);

	reset(state);
	start_oneshot(1000, LAPIC_MAX);
	for (i = 0; i < 100; i++)
		timer_add(&probes[i].t, (100 + i) * NSEC_PER_MSEC, 50 * NSEC_PER_MSEC);
	while (probes[99].runs == 0)
		fake_clockevent_fire(&ced, 0);
	batched = distinct_ticks(100);
	assert_int_equal(exact, 100);
	assert_true(batched <= 4);
	for (i = 0; i < 100; i++) {
		assert_true(probes[i].ran_ns >= (100 + i) * NSEC_PER_MSEC);
		assert_true(probes[i].ran_ns <= (151 + i) * NSEC_PER_MSEC);
	}
}

static void tickless_idle_sleeps_until_the_next_timer_and_catches_up_jiffies(void **state)
{
	struct time_stats st;
	unsigned rounds;

	(void)state;
	start_oneshot(1000, LAPIC_MAX);
	assert_int_equal(time_set_tick_mode(TICK_MODE_TICKLESS), 0);
	assert_int_equal(time_tick_mode(), TICK_MODE_TICKLESS);
	timer_add(&probes[0].t, 500 * NSEC_PER_MSEC, 0);
	rounds = idle_until_run(0, 100);
	time_get_stats(&st);
	assert_int_equal(rounds, 1);
	assert_int_equal(st.events, 1);
	assert_int_equal(st.tick_stops, 1);
	assert_int_equal(probes[0].ran_jiffy, 500);
	assert_int_equal(probes[0].ran_ns, 500 * NSEC_PER_MSEC);
	assert_int_equal(jiffies, 500);
	assert_int_equal(st.ticks, 500);
	/* Afterwards the tick is back on its grid. */
	assert_int_equal(ced.deadline, 501 * NSEC_PER_MSEC);
}

static void tickless_wakes_for_an_hrtimer_and_sleeps_on(void **state)
{
	struct hrtimer hr;
	struct time_stats st;

	(void)state;
	start_oneshot(1000, LAPIC_MAX);
	time_set_tick_mode(TICK_MODE_TICKLESS);
	timer_add(&probes[0].t, 500 * NSEC_PER_MSEC, 0);
	hrtimer_setup(&hr, record_hr, &probes[1]);
	hrtimer_start(&hr, 123456789);
	idle_until_run(0, 100);
	assert_int_equal(probes[1].ran_ns, 123456789);
	assert_int_equal(probes[0].ran_ns, 500 * NSEC_PER_MSEC);
	time_get_stats(&st);
	assert_int_equal(st.events, 2);
	assert_int_equal(st.hrtimers_run, 1);
	assert_int_equal(jiffies, 500);
}

static void tickless_sleeps_are_cut_to_the_device_max_delta(void **state)
{
	struct time_stats st;
	unsigned rounds, i;

	(void)state;
	start_oneshot(1000, 50 * NSEC_PER_MSEC);  /* PIT-like reach */
	time_set_tick_mode(TICK_MODE_TICKLESS);
	timer_add(&probes[0].t, NSEC_PER_SEC, 0);
	rounds = idle_until_run(0, 1000);
	assert_int_equal(rounds, 20);
	for (i = 0; i < 20; i++)
		assert_true(ced.deltas[i] <= 50 * NSEC_PER_MSEC);
	time_get_stats(&st);
	assert_int_equal(probes[0].ran_ns, NSEC_PER_SEC);
	assert_int_equal(jiffies, 1000);
}

static void tickless_sleeps_are_cut_so_a_narrow_counter_cannot_wrap_unseen(void **state)
{
	static struct clocksource pm;
	unsigned rounds;

	(void)state;
	/* A 24-bit 1 MHz counter wraps every 16.8 s: sleep at most 3/8 of
	 * that (6.3 s), not TICK_NOHZ_MAX_SLEEP_MS. */
	time_init(1000);
	fake_counter_hz = 1000000;
	fake_clocksource_init(&pm, "acpi_pm", 1000000, UINT64_C(0xffffff), 200);
	assert_int_equal(clocksource_register(&pm), 0);
	fake_clockevent_init(&ced, "hpet", CLOCK_EVT_FEAT_ONESHOT, 250, LAPIC_MIN, 100 * NSEC_PER_SEC);
	assert_int_equal(clockevent_register(&ced.dev), 0);
	assert_int_equal(time_set_tick_mode(TICK_MODE_TICKLESS), 0);
	assert_true(pm.max_idle_ns < 6300 * NSEC_PER_MSEC);
	timer_add(&probes[0].t, 40 * NSEC_PER_SEC, 0);
	rounds = idle_until_run(0, 100);
	assert_true(rounds >= 40 * NSEC_PER_SEC / pm.max_idle_ns);
	assert_true(rounds <= 40 * NSEC_PER_SEC / pm.max_idle_ns + 2);
	assert_int_equal(probes[0].ran_ns, 40 * NSEC_PER_SEC);
	assert_int_equal(jiffies, 40000);
}

/* The tick hook of these cases: counts its calls and says "busy" while hook_busy is set. */
static unsigned hook_calls;
static uint64_t hook_last_ns;
static bool hook_busy;

static void count_hook(uint64_t now_ns)
{
	hook_calls++;
	hook_last_ns = now_ns;
}

static bool hook_says_busy(void)
{
	return hook_busy;
}

/*
 * time_set_tick_hook: the hook runs at every tick with the tick's time (one-shot and periodic),
 * and a tickless idle keeps ticking while its busy() says so (kernel/irq: a busy line's verified
 * expects are looked at by the tick); once it says no, the idle sleeps until the next timer.
 */
static void the_tick_hook_runs_every_tick_and_a_busy_hook_keeps_the_tick_through_idle(void **state)
{
	struct time_stats st;

	(void)state;
	hook_calls = 0;
	hook_busy = true;
	start_oneshot(1000, LAPIC_MAX);
	time_set_tick_hook(count_hook, hook_says_busy);
	assert_int_equal(time_set_tick_mode(TICK_MODE_TICKLESS), 0);
	timer_add(&probes[0].t, 50 * NSEC_PER_MSEC, 0);
	idle_until_run(0, 100);
	time_get_stats(&st);
	assert_int_equal(st.tick_stops, 0);   /* busy: never stopped */
	assert_int_equal(hook_calls, 50);     /* one call per tick */
	assert_int_equal(hook_last_ns, 50 * NSEC_PER_MSEC);
	/* Not busy: the next idle sleeps through to the timer, and the hook sees only the ticks run. */
	hook_busy = false;
	timer_add(&probes[1].t, 500 * NSEC_PER_MSEC, 0);
	idle_until_run(1, 100);
	time_get_stats(&st);
	assert_int_equal(st.tick_stops, 1);
	assert_int_equal(hook_calls, 51);
	/* time_init clears the hook. */
	time_init(1000);
	assert_int_equal(time_core.tick_hook == NULL, 1);
}

static void a_coarse_timer_due_at_the_next_tick_keeps_the_tick_running(void **state)
{
	struct time_stats st;

	(void)state;
	start_oneshot(1000, LAPIC_MAX);
	time_set_tick_mode(TICK_MODE_TICKLESS);
	timer_add(&probes[0].t, 500000, 0); /* first tick */
	idle_until_run(0, 10);
	time_get_stats(&st);
	assert_int_equal(st.tick_stops, 0);
	assert_int_equal(probes[0].ran_jiffy, 1);
}

static void msleep_takes_one_event_tickless_and_one_per_tick_otherwise(void **state)
{
	struct time_stats st;
	uint64_t t0;

	(void)state;
	start_oneshot(1000, LAPIC_MAX);
	test_idle_hook = idle_fire;
	t0 = ktime_get_ns();
	assert_int_equal(msleep(250), 0);
	assert_true(ktime_get_ns() - t0 >= 250 * NSEC_PER_MSEC);
	time_get_stats(&st);
	assert_true(st.events >= 250 && st.events <= 252);

	reset(state);
	start_oneshot(1000, LAPIC_MAX);
	time_set_tick_mode(TICK_MODE_TICKLESS);
	test_idle_hook = idle_fire;
	t0 = ktime_get_ns();
	assert_int_equal(msleep(250), 0);
	assert_true(ktime_get_ns() - t0 >= 250 * NSEC_PER_MSEC);
	time_get_stats(&st);
	assert_true(st.events <= 2);
}

static void msleep_in_periodic_mode_waits_on_ticks(void **state)
{
	struct time_stats st;

	(void)state;
	time_init(100);
	fake_clockevent_init(&ced, "pit", CLOCK_EVT_FEAT_PERIODIC, 100, 0, 0);
	assert_int_equal(clockevent_register(&ced.dev), 0);
	test_idle_hook = idle_fire;
	assert_int_equal(msleep(200), 0);
	time_get_stats(&st);
	assert_true(jiffies >= 20 && jiffies <= 21);
	assert_int_equal(st.events, jiffies);
}

static void msleep_without_a_tick_busy_waits_or_says_no_device(void **state)
{
	(void)state;
	time_init(1000);
	assert_int_equal(msleep(5), -ENODEV);
	fake_clocksource_init(&tsc, "tsc", 1000000000u, UINT64_MAX, 300);
	assert_int_equal(clocksource_register(&tsc), 0);
	fake_counter_per_read = 1000;
	assert_int_equal(msleep(5), 0);
	assert_true(fake_counter >= 5 * NSEC_PER_MSEC);
}

static void udelay_busy_waits_on_the_clock_source(void **state)
{
	uint64_t start;

	(void)state;
	time_init(1000);
	fake_clocksource_init(&tsc, "tsc", 1000000000u, UINT64_MAX, 300);
	assert_int_equal(clocksource_register(&tsc), 0);
	fake_counter_per_read = 100; /* each read is 100 ns later */
	start = fake_counter;
	udelay(50);
	assert_true(fake_counter - start >= 50000);
	assert_true(fake_counter - start <= 50000 + 300);
	start = fake_counter;
	ndelay(777);
	assert_true(fake_counter - start >= 777 && fake_counter - start <= 777 + 300);
}

static void udelay_on_jiffies_gives_up_when_the_ticks_stop(void **state)
{
	unsigned logs;

	(void)state;
	time_init(1000);
	logs = test_log_count;
	udelay(2000); /* jiffies never move here */
	assert_int_equal(test_log_count, logs + 1);
	assert_int_equal(test_last_log_level, TIME_LOG_WARN);
}

static void a_oneshot_only_device_waits_for_a_free_running_clock_source(void **state)
{
	(void)state;
	time_init(1000);
	fake_clockevent_init(&ced, "lapic", CLOCK_EVT_FEAT_ONESHOT, 300, LAPIC_MIN, LAPIC_MAX);
	assert_int_equal(clockevent_register(&ced.dev), 0);
	assert_int_equal(time_tick_mode(), TICK_MODE_NONE);
	assert_false(ced.armed);
	fake_clocksource_init(&tsc, "tsc", 1000000000u, UINT64_MAX, 300);
	assert_int_equal(clocksource_register(&tsc), 0);
	assert_int_equal(time_tick_mode(), TICK_MODE_ONESHOT);
	assert_true(ced.armed);
	assert_int_equal(ced.deadline, NSEC_PER_MSEC);
	/* Periodic is not possible on it: asked for, refused, still one-shot. */
	assert_int_equal(time_set_tick_mode(TICK_MODE_PERIODIC), -EAGAIN);
	assert_int_equal(time_tick_mode(), TICK_MODE_ONESHOT);
	assert_int_equal(time_set_tick_mode(TICK_MODE_NONE), -EINVAL);
	assert_int_equal(time_set_tick_mode((enum tick_mode)42), -EINVAL);
}

static void periodic_hardware_moves_to_oneshot_when_a_counter_appears(void **state)
{
	unsigned i;

	(void)state;
	time_init(1000);
	fake_clockevent_init(&ced, "pit", BOTH, 100, LAPIC_MIN, 50 * NSEC_PER_MSEC);
	assert_int_equal(clockevent_register(&ced.dev), 0);
	assert_int_equal(time_tick_mode(), TICK_MODE_PERIODIC);
	timer_add(&probes[0].t, 30 * NSEC_PER_MSEC, 0);
	for (i = 0; i < 10; i++)
		fake_clockevent_interrupt(&ced);
	assert_int_equal(jiffies, 10);
	/* A TSC shows up at 10 ms: one-shot from now on, on the grid. */
	fake_counter = 10 * NSEC_PER_MSEC;
	fake_clocksource_init(&tsc, "tsc", 1000000000u, UINT64_MAX, 300);
	assert_int_equal(clocksource_register(&tsc), 0);
	assert_int_equal(time_tick_mode(), TICK_MODE_ONESHOT);
	assert_int_equal(ced.dev.state, CLOCKEVENT_ONESHOT);
	assert_int_equal(ktime_get_ns(), 10 * NSEC_PER_MSEC);
	assert_int_equal(ced.deadline, 11 * NSEC_PER_MSEC);
	while (!probes[0].runs)
		fake_clockevent_fire(&ced, 0);
	assert_int_equal(probes[0].ran_jiffy, 30);
	assert_true(probes[0].ran_ns >= 30 * NSEC_PER_MSEC);
}

static void a_better_device_takes_over_and_the_old_one_is_shut_down(void **state)
{
	uint64_t j;

	(void)state;
	start_oneshot(1000, LAPIC_MAX);
	fake_clockevent_fire(&ced, 0);
	fake_clockevent_fire(&ced, 0);
	assert_int_equal(jiffies, 2);
	timer_add(&probes[0].t, 5 * NSEC_PER_MSEC, 0);
	fake_clockevent_init(&ced2, "better", CLOCK_EVT_FEAT_ONESHOT, 400, LAPIC_MIN, LAPIC_MAX);
	assert_int_equal(clockevent_register(&ced2.dev), 0);
	assert_ptr_equal(clockevent_current(), &ced2.dev);
	assert_int_equal(ced.shutdowns, 1);
	assert_int_equal(ced.dev.state, CLOCKEVENT_SHUTDOWN);
	assert_true(ced2.armed);
	assert_int_equal(ced2.deadline, 3 * NSEC_PER_MSEC);
	/* A stray interrupt from the old device does nothing. */
	j = jiffies;
	fake_clockevent_interrupt(&ced);
	assert_int_equal(jiffies, j);
	while (!probes[0].runs)
		fake_clockevent_fire(&ced2, 0);
	assert_int_equal(probes[0].ran_jiffy, 5);
	/* A worse one is recorded but does not take over. */
	fake_clockevent_init(&ced3, "worse", BOTH, 50, LAPIC_MIN, LAPIC_MAX);
	assert_int_equal(clockevent_register(&ced3.dev), 0);
	assert_ptr_equal(clockevent_current(), &ced2.dev);
	assert_int_equal(ced3.programs + ced3.periodic_calls, 0);
}

static int never(struct clock_event_device *dev, uint64_t delta)
{
	(void)dev;
	(void)delta;
	return 0;
}

/* clockevent=hpet: the preferred device drives the tick although the LAPIC
 * timer is rated higher and registered first, and a better one that comes
 * later does not displace it; time_init() forgets the preference. */
static void a_preferred_device_drives_the_tick_whatever_the_ratings(void **state)
{
	(void)state;
	time_init(1000);
	assert_int_equal(clockevent_prefer("hpet"), 0);
	fake_clocksource_init(&tsc, "tsc", 1000000000u, UINT64_MAX, 300);
	assert_int_equal(clocksource_register(&tsc), 0);
	fake_clockevent_init(&ced, "lapic", CLOCK_EVT_FEAT_ONESHOT, 300, LAPIC_MIN, LAPIC_MAX);
	assert_int_equal(clockevent_register(&ced.dev), 0);
	assert_ptr_equal(clockevent_current(), &ced.dev);
	fake_clockevent_init(&ced2, "hpet", CLOCK_EVT_FEAT_ONESHOT, 120, LAPIC_MIN, LAPIC_MAX);
	assert_int_equal(clockevent_register(&ced2.dev), 0);
	assert_ptr_equal(clockevent_current(), &ced2.dev);
	assert_int_equal(ced.shutdowns, 1);
	assert_true(ced2.armed);
	fake_clockevent_init(&ced3, "better", CLOCK_EVT_FEAT_ONESHOT, 400, LAPIC_MIN, LAPIC_MAX);
	assert_int_equal(clockevent_register(&ced3.dev), 0);
	assert_ptr_equal(clockevent_current(), &ced2.dev);
	assert_int_equal(ced3.programs, 0);
	/* A name that does not fit is refused and changes nothing. */
	assert_int_equal(clockevent_prefer("a-name-far-too-long-for-the-table"), -EINVAL);
	time_init(1000);
	assert_int_equal(clocksource_register(&tsc), 0);
	fake_clockevent_init(&ced2, "hpet", CLOCK_EVT_FEAT_ONESHOT, 120, LAPIC_MIN, LAPIC_MAX);
	assert_int_equal(clockevent_register(&ced2.dev), 0);
	fake_clockevent_init(&ced, "lapic", CLOCK_EVT_FEAT_ONESHOT, 300, LAPIC_MIN, LAPIC_MAX);
	assert_int_equal(clockevent_register(&ced.dev), 0);
	assert_ptr_equal(clockevent_current(), &ced.dev);
}

static void malformed_clock_event_devices_are_refused(void **state)
{
	(void)state;
	time_init(1000);
	fake_clockevent_init(&ced, NULL, BOTH, 1, LAPIC_MIN, LAPIC_MAX);
	assert_int_equal(clockevent_register(&ced.dev), -EINVAL);
	fake_clockevent_init(&ced, "none", 0, 1, LAPIC_MIN, LAPIC_MAX);
	assert_int_equal(clockevent_register(&ced.dev), -EINVAL);
	fake_clockevent_init(&ced, "unknown", 0x10 | CLOCK_EVT_FEAT_ONESHOT, 1, LAPIC_MIN, LAPIC_MAX);
	assert_int_equal(clockevent_register(&ced.dev), -EINVAL);
	fake_clockevent_init(&ced, "noperiodic", CLOCK_EVT_FEAT_PERIODIC, 1, 0, 0);
	ced.dev.set_periodic = NULL;
	assert_int_equal(clockevent_register(&ced.dev), -EINVAL);
	fake_clockevent_init(&ced, "nonext", CLOCK_EVT_FEAT_ONESHOT, 1, LAPIC_MIN, LAPIC_MAX);
	ced.dev.set_next_event = NULL;
	assert_int_equal(clockevent_register(&ced.dev), -EINVAL);
	fake_clockevent_init(&ced, "nomax", CLOCK_EVT_FEAT_ONESHOT, 1, LAPIC_MIN, 0);
	assert_int_equal(clockevent_register(&ced.dev), -EINVAL);
	fake_clockevent_init(&ced, "inverted", CLOCK_EVT_FEAT_ONESHOT, 1, 5000, 4000);
	assert_int_equal(clockevent_register(&ced.dev), -EINVAL);
	fake_clockevent_init(&ced, "noshutdown", CLOCK_EVT_FEAT_ONESHOT, 1, LAPIC_MIN, LAPIC_MAX);
	ced.dev.shutdown = NULL;
	assert_int_equal(clockevent_register(&ced.dev), -EINVAL);
	assert_int_equal(clockevent_register(NULL), -EINVAL);
	assert_null(clockevent_current());
	/* A too-small minimum is raised to the floor; twice is refused. */
	fake_clockevent_init(&ced, "eager", CLOCK_EVT_FEAT_ONESHOT, 1, 10, LAPIC_MAX);
	ced.dev.set_next_event = never;
	assert_int_equal(clockevent_register(&ced.dev), 0);
	assert_int_equal(ced.dev.min_delta_ns, CLOCKEVENT_MIN_DELTA_FLOOR_NS);
	assert_int_equal(clockevent_register(&ced.dev), -EEXIST);
	time_core.hz = 0;
	fake_clockevent_init(&ced2, "early", BOTH, 1, LAPIC_MIN, LAPIC_MAX);
	assert_int_equal(clockevent_register(&ced2.dev), -EAGAIN);
	time_init(1000);
}

static void timer_calls_check_their_arguments_and_state(void **state)
{
	struct timer bare;

	(void)state;
	time_init(1000);
	assert_int_equal(timer_add(&probes[0].t, 1000, 0), 0);
	assert_int_equal(timer_add(&probes[0].t, 2000, 0), -EBUSY);
	assert_true(timer_pending(&probes[0].t));
	assert_int_equal(timer_mod(&probes[0].t, 3000, 0), 1);
	assert_true(timer_cancel(&probes[0].t));
	assert_false(timer_cancel(&probes[0].t));
	assert_false(timer_pending(&probes[0].t));
	assert_int_equal(timer_mod(&probes[0].t, 3000, 0), 0);
	timer_setup(&bare, NULL, NULL);
	assert_int_equal(timer_add(&bare, 1000, 0), -EINVAL);
	assert_int_equal(timer_add(NULL, 1000, 0), -EINVAL);
	time_core.hz = 0;
	timer_setup(&bare, record, &probes[1]);
	assert_int_equal(timer_add(&bare, 1000, 0), -EAGAIN);
	assert_int_equal(timer_mod(&bare, 1000, 0), -EAGAIN);
	time_init(1000);
}

static void time_init_falls_back_to_the_default_rate_with_a_warning(void **state)
{
	(void)state;
	time_init(5);
	assert_int_equal(tick_hz(), TIME_HZ_DEFAULT);
	time_init(TIME_HZ_MAX + 1);
	assert_int_equal(tick_hz(), TIME_HZ_DEFAULT);
	time_init(250);
	assert_int_equal(tick_hz(), 250);
	assert_string_equal(time_tick_mode_name(time_tick_mode()), "none");
	assert_string_equal(time_tick_mode_name(TICK_MODE_TICKLESS), "tickless");
}

/* ---- clockevent_ns_to_counts ---------------------------------------------- */

/* Deterministic 64-bit generator (xorshift64*). */
static uint64_t rnd64(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * UINT64_C(2685821657736338717);
}

/* One conversion against the exact ceiling in 128 bits (UINT64_MAX where
 * that does not fit): never below it, at most one above, and exactly it
 * where the conversion divides. */
static void check_counts(uint32_t hz, uint64_t ns)
{
	struct clockevent_conv conv;
	unsigned __int128 exact = ((unsigned __int128)ns * hz + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
	uint64_t want = exact > UINT64_MAX ? UINT64_MAX : (uint64_t)exact, got;

	clockevent_conv_init(&conv, hz);
	assert_int_equal(conv.hz, hz);
	got = clockevent_ns_to_counts(&conv, ns);
	assert_true(got >= want);
	assert_true(got - want <= 1);
	if (ns > UINT32_MAX || hz >= NSEC_PER_SEC)
		assert_int_equal(got, want);
	assert_int_equal(clockevent_ns_to_counts_exact(hz, ns), want);
}

static void ns_to_counts_is_never_early_and_at_most_one_count_late(void **state)
{
	/* Real rates (PIT, ACPI PM, HPET, QEMU's LAPIC /16, a 100 MHz bus /16),
	 * the ends of the multiply's range and the rates that always divide. */
	const uint32_t rates[] = { 1, 2, 3, 1000, 32768, 1193182, 3579545, 14318180, 62500000, 6250000,
				   999999999, 1000000000, 1000000001, 4294967295u };
	const uint64_t nss[] = { 0, 1, 2, 999, 1000, 999999999, 1000000000, 1000000001, UINT32_MAX - 1,
				 UINT32_MAX, UINT64_C(1) << 32, (UINT64_C(1) << 32) + 1, UINT64_C(68719476736000),
				 UINT64_MAX / 4294967295u, UINT64_MAX - 1, UINT64_MAX };
	uint64_t x = UINT64_C(0x2545f4914f6cdd1d);
	unsigned checks = 0;

	(void)state;
	for (unsigned r = 0; r < sizeof(rates) / sizeof(rates[0]); r++)
		for (unsigned n = 0; n < sizeof(nss) / sizeof(nss[0]); n++)
			check_counts(rates[r], nss[n]), checks++;
	/* mult as the header defines it, at its largest and its smallest. */
	struct clockevent_conv conv;
	clockevent_conv_init(&conv, 999999999);
	assert_int_equal(conv.mult, 4294967292u);
	clockevent_conv_init(&conv, 1);
	assert_int_equal(conv.mult, 5);
	clockevent_conv_init(&conv, 1000000000);
	assert_int_equal(conv.mult, 0);
	for (unsigned r = 0; r < 2000; r++) {
		uint32_t hz = 1 + (uint32_t)(rnd64(&x) % 999999999u);
		for (unsigned n = 0; n < 500; n++) {
			uint64_t v = rnd64(&x), ns;
			/* Mostly 32-bit delays (the multiply), some near 2^32 and
			 * some of any length (the division). */
			switch (v & 3) {
			case 0: ns = rnd64(&x) % 10000000; break;
			case 1: ns = (uint32_t)rnd64(&x); break;
			case 2: ns = UINT32_MAX - 16 + rnd64(&x) % 33; break;
			default: ns = rnd64(&x) >> (rnd64(&x) % 64); break;
			}
			check_counts(hz, ns), checks++;
		}
	}
	assert_true(checks > 1000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(periodic_mode_counts_one_tick_per_event, reset, check),
		cmocka_unit_test_setup_teardown(the_tick_hook_runs_every_tick_and_a_busy_hook_keeps_the_tick_through_idle, reset, check),
		cmocka_unit_test_setup_teardown(periodic_mode_runs_timers_on_the_first_tick_at_or_after_expiry, reset, check),
		cmocka_unit_test_setup_teardown(ticks_of_a_fast_periodic_device_never_run_a_timer_early, reset, check),
		cmocka_unit_test_setup_teardown(oneshot_tick_has_no_drift_over_a_million_ticks, reset, check),
		cmocka_unit_test_setup_teardown(a_late_tick_event_counts_every_tick_that_was_due, reset, check),
		cmocka_unit_test_setup_teardown(coarse_timers_never_run_early_and_end_within_their_slack, reset, check),
		cmocka_unit_test_setup_teardown(slack_lets_nearby_coarse_timers_share_a_tick, reset, check),
		cmocka_unit_test_setup_teardown(tickless_idle_sleeps_until_the_next_timer_and_catches_up_jiffies, reset, check),
		cmocka_unit_test_setup_teardown(tickless_wakes_for_an_hrtimer_and_sleeps_on, reset, check),
		cmocka_unit_test_setup_teardown(tickless_sleeps_are_cut_to_the_device_max_delta, reset, check),
		cmocka_unit_test_setup_teardown(tickless_sleeps_are_cut_so_a_narrow_counter_cannot_wrap_unseen, reset, check),
		cmocka_unit_test_setup_teardown(a_coarse_timer_due_at_the_next_tick_keeps_the_tick_running, reset, check),
		cmocka_unit_test_setup_teardown(msleep_takes_one_event_tickless_and_one_per_tick_otherwise, reset, check),
		cmocka_unit_test_setup_teardown(msleep_in_periodic_mode_waits_on_ticks, reset, check),
		cmocka_unit_test_setup_teardown(msleep_without_a_tick_busy_waits_or_says_no_device, reset, check),
		cmocka_unit_test_setup_teardown(udelay_busy_waits_on_the_clock_source, reset, check),
		cmocka_unit_test_setup_teardown(udelay_on_jiffies_gives_up_when_the_ticks_stop, reset, check),
		cmocka_unit_test_setup_teardown(a_oneshot_only_device_waits_for_a_free_running_clock_source, reset, check),
		cmocka_unit_test_setup_teardown(periodic_hardware_moves_to_oneshot_when_a_counter_appears, reset, check),
		cmocka_unit_test_setup_teardown(a_better_device_takes_over_and_the_old_one_is_shut_down, reset, check),
		cmocka_unit_test_setup_teardown(a_preferred_device_drives_the_tick_whatever_the_ratings, reset, check),
		cmocka_unit_test_setup_teardown(malformed_clock_event_devices_are_refused, reset, check),
		cmocka_unit_test_setup_teardown(timer_calls_check_their_arguments_and_state, reset, check),
		cmocka_unit_test_setup_teardown(time_init_falls_back_to_the_default_rate_with_a_warning, reset, check),
		cmocka_unit_test_setup_teardown(ns_to_counts_is_never_early_and_at_most_one_count_late, reset, check),
	};

	return cmocka_run_group_tests_name("time_tick", tests, NULL, NULL);
}
