/*
 * tick.c - the tick: periodic, one-shot emulation and tickless idle.
 *
 * Periodic mode: the clock event device interrupts hz times a second; each
 * event is one tick (jiffies++), runs the timer wheel up to jiffies and the
 * hrtimers that are due (so hrtimers have tick resolution).
 *
 * One-shot mode: every event runs the hrtimers that are due and programs the
 * device for the earliest one left. The tick is one of them (tick_timer):
 * it is re-armed at ideal absolute tick times, tick n being due at
 * base + n * 1e9 / hz exactly (kept as nanoseconds plus a remainder in
 * 1/hz ns, Bresenham style), so interrupt latency never accumulates into
 * drift. A late tick counts every tick that is due at once.
 *
 * Tickless (one-shot + nohz): time_idle() moves tick_timer to the next
 * moment something needs it (the wheel's next expiry, at most
 * TICK_NOHZ_MAX_SLEEP_MS and the clock source's max_idle_ns ahead); hrtimers
 * keep their own events. Whatever wakes the CPU, jiffies are caught up from
 * the clock source and the tick is re-armed on the grid.
 *
 * Everything here runs with interrupts disabled.
 */
#include "internal.h"
#include "time_port.h"

/* ---- Ideal tick times --------------------------------------------------- */

/* Move the ideal tick clock @n >= 1 ticks on; tick_last_ns becomes the time
 * of the last of them. Divides only for n > 1 (catching up). */
static void tick_step(uint64_t n)
{
	struct time_core *tc = &time_core;

	if (n > 1) {
		uint64_t frac = tc->tick_next_frac + (n - 1) * tc->period_rem;

		tc->tick_next_ns += (n - 1) * tc->period_ns + frac / tc->hz;
		tc->tick_next_frac = (uint32_t)(frac % tc->hz);
	}
	tc->tick_last_ns = tc->tick_next_ns;
	tc->tick_next_ns += tc->period_ns;
	tc->tick_next_frac += tc->period_rem;
	if (tc->tick_next_frac >= tc->hz) {
		tc->tick_next_frac -= tc->hz;
		tc->tick_next_ns++;
	}
}

/* Ideal time of the tick @ahead >= 1 ticks after jiffies. */
static uint64_t tick_time_ahead(uint64_t ahead)
{
	uint64_t k = ahead - 1;
	uint64_t frac = time_core.tick_next_frac + k * time_core.period_rem;

	return time_core.tick_next_ns + k * time_core.period_ns + frac / time_core.hz;
}

/* floor(@ns * hz / 1e9), without overflow. */
static uint64_t periods_down(uint64_t ns)
{
	uint64_t sec = ns / NSEC_PER_SEC, rem = ns % NSEC_PER_SEC;

	return sec * time_core.hz + rem * time_core.hz / NSEC_PER_SEC;
}

uint64_t tick_ticks_in(uint64_t ns)
{
	if (time_core.period_rem)
		return periods_down(ns);
	if (ns <= UINT32_MAX)
		return (uint32_t)ns / time_core.period_ns; /* one 32-bit division */
	return ns / time_core.period_ns;
}

/* Smallest k with k tick periods >= @ns. */
static uint64_t ticks_up(uint64_t ns)
{
	uint64_t sec, rem;

	if (!time_core.period_rem) {
		if (ns <= UINT32_MAX)
			return (uint32_t)ns / time_core.period_ns + ((uint32_t)ns % time_core.period_ns != 0);
		return ns / time_core.period_ns + (ns % time_core.period_ns != 0);
	}
	sec = ns / NSEC_PER_SEC;
	rem = ns % NSEC_PER_SEC;
	return sec * time_core.hz + (rem * time_core.hz + NSEC_PER_SEC - 1) / NSEC_PER_SEC;
}

uint64_t tick_jiffy_for(uint64_t expires_ns)
{
	uint64_t base = time_core.tick_last_ns;

	/* Tick jiffies + k is due no earlier than base + k periods. */
	if (expires_ns <= base)
		return jiffies;
	return jiffies + ticks_up(expires_ns - base);
}

/* Count the ticks due at @now (one-shot mode). RETURNS how many. */
static uint64_t tick_catch_up(uint64_t now)
{
	uint64_t n, d;
	unsigned i;

	if (now < time_core.tick_next_ns)
		return 0;
	d = now - time_core.tick_next_ns;
	/* Ticks 0 .. floor(d / period) from tick_next are due; as stored times
	 * are rounded down, one more may be: TICK_CATCHUP_FIXUPS steps check. */
	n = 1 + (d < time_core.period_ns ? 0 : periods_down(d));
	tick_step(n);
	for (i = 0; i < TICK_CATCHUP_FIXUPS && time_core.tick_next_ns <= now; i++, n++)
		tick_step(1);
	jiffies += n;
	time_core.stats.ticks += n;
	return n;
}

/* ---- Running timers ------------------------------------------------------- */

static void note_lateness(uint64_t excess)
{
	if (excess > time_core.stats.max_late_ns)
		time_core.stats.max_late_ns = excess;
}

/* Every hrtimer but the tick's own runs with kernel/time open to other CPUs
 * (time_port_callback_begin); the tick's callback works on the wheel and the
 * tick state, which need the lock. The queue is `running` meanwhile, so a
 * timer armed by another CPU does not program the device: this CPU programs
 * it for the earliest expiry after the run (tick_oneshot_event). */
static void tick_call_hrtimer(struct hrtimer *t)
{
	unsigned long token;

	if (t == &time_core.tick_timer) {
		t->fn(t);
		return;
	}
	/* Said under the lock, before it is given up: hrtimer_cancel() waits for it. */
	time_core.cb_running = t;
	time_core.cb_cpu = time_port_cpu_id();
	token = time_port_callback_begin();
	t->fn(t);
	time_port_callback_end(token);
	time_core.cb_running = NULL;
}

static void tick_run_hrtimers(uint64_t now)
{
	uint64_t allowance = time_core.mode == TICK_MODE_PERIODIC ? time_core.period_ns : 0;
	struct hrtimer_run run = {
		.now_ns = now,
		.call = tick_call_hrtimer,
		.budget = HRTIMER_RUN_BUDGET,
		.late_threshold_ns = allowance + TIME_LATE_THRESHOLD_NS,
	};

	time_core.tick_ran = false;
	hrtimer_queue_run(&time_core.hrq, &run);
	time_core.stats.hrtimers_run += run.ran - (time_core.tick_ran ? 1 : 0);
	time_core.stats.late_hrtimers += run.late;
	if (run.max_late_ns > allowance)
		note_lateness(run.max_late_ns - allowance);
	if (run.cut_short)
		time_core.stats.budget_cuts++;
}

/*
 * Program one-shot @dev for the earliest hrtimer. The time by the
 * lock-free read (ktime_get_ns_fast, the same value bit for bit): an event
 * has just accumulated the clock (tick_oneshot_event's ktime_get_ns), so a
 * second accumulation here only cost kernel/time's lock again, about 40
 * guest instructions per timer event (make prof-ata).
 */
static int tick_program_next(struct clock_event_device *dev)
{
	const struct hrtimer *first = hrtimer_queue_first(&time_core.hrq);

	if (!first)
		return 0;
	return clockevent_program(dev, first->expires_ns, ktime_get_ns_fast());
}

static bool tick_is_oneshot(void)
{
	return time_core.mode == TICK_MODE_ONESHOT || time_core.mode == TICK_MODE_TICKLESS;
}

void tick_program_hook(struct hrtimer_queue *q, uint64_t first_expires_ns)
{
	(void)q;
	if (tick_is_oneshot() && time_core.dev)
		clockevent_program(time_core.dev, first_expires_ns, ktime_get_ns());
}

/* The tick's hook (time_set_tick_hook), run like an hrtimer callback: kernel/time's lock given up. */
static void tick_run_hook(uint64_t now)
{
	void (*fn)(uint64_t now_ns) = time_core.tick_hook;
	unsigned long token;

	if (!fn)
		return;
	token = time_port_callback_begin();
	fn(now);
	time_port_callback_end(token);
}

/* The emulated tick (tick_timer's callback, one-shot mode). */
static void tick_emulate(struct hrtimer *t)
{
	(void)t;
	time_core.tick_ran = true;
	tick_catch_up(time_core.event_now_ns);
	timer_wheel_advance(&time_core.wheel, jiffies);
	time_core.tick_stopped = false;
	hrtimer_queue_add(&time_core.hrq, &time_core.tick_timer, time_core.tick_next_ns);
	tick_run_hook(time_core.event_now_ns);  /* last: the tick's state is whole again */
}

static void tick_periodic_event(struct clock_event_device *dev)
{
	unsigned long flags = time_port_irq_save();
	uint64_t now;

	dev->events++;
	time_core.stats.events++;
	jiffies++;
	time_core.stats.ticks++;
	now = ktime_get_ns(); /* after jiffies++: jiffies may be the clock */
	time_core.event_now_ns = now;
	time_core.tick_last_ns = now;
	timer_wheel_advance(&time_core.wheel, jiffies);
	tick_run_hrtimers(now);
	tick_run_hook(now);
	time_port_irq_restore(flags);
}

static void tick_oneshot_event(struct clock_event_device *dev)
{
	unsigned long flags = time_port_irq_save();
	uint64_t now = ktime_get_ns();

	dev->events++;
	time_core.stats.events++;
	time_core.event_now_ns = now;
	tick_run_hrtimers(now);
	tick_program_next(dev);
	time_port_irq_restore(flags);
}

/* ---- Modes ------------------------------------------------------------------ */

/* The mode to run on @dev: the request if the hardware allows it, else the
 * best it allows (one-shot needs a free-running clock source). */
static enum tick_mode tick_choose_mode(const struct clock_event_device *dev)
{
	bool periodic = dev && (dev->features & CLOCK_EVT_FEAT_PERIODIC);
	bool oneshot = dev && (dev->features & CLOCK_EVT_FEAT_ONESHOT) && clocksource_free_running();

	switch (time_core.requested) {
	case TICK_MODE_PERIODIC:
		if (periodic)
			return TICK_MODE_PERIODIC;
		break;
	case TICK_MODE_ONESHOT:
	case TICK_MODE_TICKLESS:
		if (oneshot)
			return time_core.requested;
		break;
	default:
		break;
	}
	if (oneshot)
		return TICK_MODE_ONESHOT;
	return periodic ? TICK_MODE_PERIODIC : TICK_MODE_NONE;
}

static int tick_start_periodic(struct clock_event_device *dev)
{
	int rc;

	hrtimer_queue_remove(&time_core.tick_timer);
	time_core.tick_stopped = false;
	dev->event_handler = tick_periodic_event;
	rc = clockevent_set_periodic(dev, time_core.hz);
	if (rc < 0)
		return rc;
	time_core.dev = dev;
	time_core.mode = TICK_MODE_PERIODIC;
	time_core.tick_last_ns = ktime_get_ns();
	return 0;
}

static int tick_start_oneshot(struct clock_event_device *dev, enum tick_mode mode)
{
	uint64_t now;

	if (!tick_is_oneshot()) {
		/* Start the ideal tick grid one period from now. */
		if (dev->state == CLOCKEVENT_PERIODIC)
			clockevent_shutdown(dev);
		now = ktime_get_ns();
		time_core.tick_last_ns = now;
		time_core.tick_next_ns = now + time_core.period_ns;
		time_core.tick_next_frac = time_core.period_rem;
	}
	dev->event_handler = tick_oneshot_event;
	time_core.dev = dev;
	time_core.mode = mode;
	time_core.tick_stopped = false;
	hrtimer_queue_add(&time_core.hrq, &time_core.tick_timer, time_core.tick_next_ns);
	/* The device may be new even if the earliest expiry is not. */
	return tick_program_next(dev);
}

/* Handler of a device the tick could not use. */
static void tick_ignore_event(struct clock_event_device *dev)
{
	dev->events++;
}

/* No tick: no device, or it cannot or will not run. */
static void tick_stop(struct clock_event_device *dev)
{
	hrtimer_queue_remove(&time_core.tick_timer);
	time_core.tick_stopped = false;
	time_core.mode = TICK_MODE_NONE;
	time_core.dev = NULL;
	if (dev) {
		dev->event_handler = tick_ignore_event;
		clockevent_shutdown(dev);
	}
}

void tick_configure(void)
{
	struct clock_event_device *dev = clockevent_current();
	unsigned long flags = time_port_irq_save();
	enum tick_mode mode = tick_choose_mode(dev);
	int rc = 0;

	if (mode == time_core.mode && dev == time_core.dev) {
		time_port_irq_restore(flags);
		return;
	}
	if (mode == TICK_MODE_PERIODIC)
		rc = tick_start_periodic(dev);
	else if (mode != TICK_MODE_NONE)
		rc = tick_start_oneshot(dev, mode);
	if (mode == TICK_MODE_NONE || rc < 0)
		tick_stop(dev);
	time_port_irq_restore(flags);
	if (rc < 0)
		time_port_log(TIME_LOG_ERR, "tick: %s refused %s mode (%d): no tick", dev->name,
			      time_tick_mode_name(mode), rc);
	else if (dev && mode == TICK_MODE_NONE)
		time_port_log(TIME_LOG_WARN, "tick: %s is one-shot only and needs a free-running clock source: no tick until one registers",
			      dev->name);
	else if (dev)
		time_port_log(TIME_LOG_INFO, "tick: %s at %u Hz on %s", time_tick_mode_name(mode),
			      (unsigned)time_core.hz, dev->name);
}

/* ---- Tickless idle ---------------------------------------------------------- */

void tick_nohz_stop(void)
{
	uint64_t now, wake, sleep, next, ahead;

	if (time_core.mode != TICK_MODE_TICKLESS || time_core.tick_stopped)
		return;
	if (time_core.tick_hook_busy && time_core.tick_hook_busy())
		return; /* the hook needs the ticks (kernel/irq: a busy line's verified expects) */
	now = ktime_get_ns();
	sleep = (uint64_t)TICK_NOHZ_MAX_SLEEP_MS * NSEC_PER_MSEC;
	if (clocksource_max_idle_ns() < sleep)
		sleep = clocksource_max_idle_ns();
	wake = now + sleep;
	if (timer_wheel_next_expiry(&time_core.wheel, &next)) {
		ahead = next - jiffies;
		if (ahead == 0 || ahead > TIMER_WHEEL_MAX_AHEAD)
			return; /* a coarse timer is due: keep ticking */
		if (ahead <= time_core.nohz_max_ticks && tick_time_ahead(ahead) < wake)
			wake = tick_time_ahead(ahead);
	}
	if (wake <= time_core.tick_next_ns)
		return; /* the next tick is needed anyway */
	time_core.tick_stopped = true;
	time_core.stats.tick_stops++;
	hrtimer_queue_add(&time_core.hrq, &time_core.tick_timer, wake);
}

void tick_nohz_restart(void)
{
	uint64_t now, next;
	bool due;

	if (!time_core.tick_stopped)
		return;
	time_core.tick_stopped = false;
	now = ktime_get_ns();
	tick_catch_up(now);
	/* Coarse timers due now run from the next event, right away. */
	due = timer_wheel_next_expiry(&time_core.wheel, &next) && next - jiffies - 1 >= TIMER_WHEEL_MAX_AHEAD;
	hrtimer_queue_add(&time_core.hrq, &time_core.tick_timer, due ? now : time_core.tick_next_ns);
}

void time_set_tick_hook(void (*fn)(uint64_t now_ns), bool (*busy)(void))
{
	unsigned long flags = time_port_irq_save();

	time_core.tick_hook = fn;
	time_core.tick_hook_busy = fn ? busy : NULL;
	time_port_irq_restore(flags);
}

void tick_reset(void)
{
	time_core.tick_hook = NULL;
	time_core.tick_hook_busy = NULL;
	time_core.mode = TICK_MODE_NONE;
	time_core.requested = TICK_MODE_AUTO;
	time_core.dev = NULL;
	timer_wheel_init(&time_core.wheel, 0);
	hrtimer_queue_init(&time_core.hrq, tick_program_hook);
	hrtimer_setup(&time_core.tick_timer, tick_emulate, NULL);
	time_core.tick_last_ns = 0;
	time_core.tick_next_ns = 0;
	time_core.tick_next_frac = 0;
	time_core.tick_stopped = false;
	time_core.tick_ran = false;
	time_core.event_now_ns = 0;
	time_core.stats = (struct time_stats){ 0 };
}
