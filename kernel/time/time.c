/*
 * time.c - the kernel-facing API of kernel/time (time.h): initialisation,
 * coarse timers on the wheel, hrtimers, delays, msleep, idle, tick mode and
 * statistics. The mechanisms are in tick.c, clocksource.c, clockevent.c,
 * hrtimer.c and timer_wheel.c; docs/time.md describes the whole.
 */
#include "internal.h"
#include "time_port.h"

volatile uint64_t jiffies;
struct time_core time_core;

void time_init(uint32_t hz)
{
	unsigned long flags;

	if (hz < TIME_HZ_MIN || hz > TIME_HZ_MAX) {
		time_port_log(TIME_LOG_WARN, "time: hz=%u outside %u..%u, using %u", (unsigned)hz,
			      (unsigned)TIME_HZ_MIN, (unsigned)TIME_HZ_MAX, (unsigned)TIME_HZ_DEFAULT);
		hz = TIME_HZ_DEFAULT;
	}
	flags = time_port_irq_save();
	jiffies = 0;
	time_core.hz = hz;
	time_core.period_ns = (uint32_t)(NSEC_PER_SEC / hz);
	time_core.period_rem = (uint32_t)(NSEC_PER_SEC % hz);
	time_core.nohz_max_ticks = (uint32_t)((uint64_t)TICK_NOHZ_MAX_SLEEP_MS * hz / 1000);
	tick_reset();
	clockevent_reset();
	clocksource_reset(hz);
	time_port_irq_restore(flags);
	time_port_log(TIME_LOG_INFO, "time: %u Hz tick; time from jiffies until a clock source registers",
		      (unsigned)hz);
}

uint32_t tick_hz(void)
{
	return time_core.hz;
}

uint64_t jiffies_read(void)
{
	unsigned long flags = time_port_irq_save();
	uint64_t j = jiffies;

	time_port_irq_restore(flags);
	return j;
}

/* ---- Coarse timers ---------------------------------------------------------- */

/* Wheel callback of every struct timer: the time checks, then the user's. */
static void timer_expire(struct timer_wheel *w, struct wheel_timer *e)
{
	struct timer *t = time_container_of(e, struct timer, entry);
	uint64_t now = time_core.event_now_ns, allowed;

	if (now < t->expires_ns) {
		/* A periodic device that runs a little fast delivered this
		 * tick before the time asked for: wait one more tick. */
		timer_wheel_add(w, e, timer_wheel_now(w) + 1, 0);
		return;
	}
	allowed = t->expires_ns + t->slack_ns + time_core.period_ns;
	if (allowed >= t->expires_ns && now > allowed) {
		if (now - allowed > TIME_LATE_THRESHOLD_NS)
			time_core.stats.late_timers++;
		if (now - allowed > time_core.stats.max_late_ns)
			time_core.stats.max_late_ns = now - allowed;
	}
	time_core.stats.timers_run++;
	t->fn(t);
}

void timer_setup(struct timer *t, void (*fn)(struct timer *t), void *arg)
{
	wheel_timer_setup(&t->entry, timer_expire);
	t->fn = fn;
	t->arg = arg;
	t->expires_ns = 0;
	t->slack_ns = 0;
}

static int timer_check(const struct timer *t)
{
	if (!t || !t->fn)
		return -EINVAL;
	return time_initialized() ? 0 : -EAGAIN;
}

/* (Re)queue @t; interrupts disabled. RETURNS true if it was pending. */
static bool timer_queue(struct timer *t, uint64_t expires_ns, uint64_t slack_ns)
{
	t->expires_ns = expires_ns;
	t->slack_ns = slack_ns;
	return timer_wheel_mod(&time_core.wheel, &t->entry, tick_jiffy_for(expires_ns), tick_ticks_in(slack_ns));
}

int timer_add(struct timer *t, uint64_t expires_ns, uint64_t slack_ns)
{
	unsigned long flags;
	int rc = timer_check(t);

	if (rc < 0)
		return rc;
	flags = time_port_irq_save();
	if (wheel_timer_pending(&t->entry))
		rc = -EBUSY;
	else
		timer_queue(t, expires_ns, slack_ns);
	time_port_irq_restore(flags);
	return rc;
}

int timer_mod(struct timer *t, uint64_t expires_ns, uint64_t slack_ns)
{
	unsigned long flags;
	int rc = timer_check(t);
	bool was;

	if (rc < 0)
		return rc;
	flags = time_port_irq_save();
	was = timer_queue(t, expires_ns, slack_ns);
	time_port_irq_restore(flags);
	return was ? 1 : 0;
}

bool timer_cancel(struct timer *t)
{
	unsigned long flags = time_port_irq_save();
	bool was = timer_wheel_cancel(&time_core.wheel, &t->entry);

	time_port_irq_restore(flags);
	return was;
}

bool timer_pending(const struct timer *t)
{
	return wheel_timer_pending(&t->entry);
}

/* ---- hrtimers ------------------------------------------------------------------ */

int hrtimer_start(struct hrtimer *t, uint64_t expires_ns)
{
	unsigned long flags;

	if (!t || !t->fn)
		return -EINVAL;
	if (!time_initialized())
		return -EAGAIN;
	flags = time_port_irq_save();
	hrtimer_queue_add(&time_core.hrq, t, expires_ns);
	time_port_irq_restore(flags);
	return 0;
}

bool hrtimer_try_to_cancel(struct hrtimer *t)
{
	unsigned long flags = time_port_irq_save();
	bool was = hrtimer_queue_remove(t);

	time_port_irq_restore(flags);
	return was;
}

/*
 * The callback of @t runs on another CPU with the lock given up
 * (tick_call_hrtimer). Not on this CPU: a callback that cancels its own
 * timer, or anything it calls, must not wait for itself. Lock held.
 */
static bool hrtimer_running_elsewhere(const struct hrtimer *t)
{
	return time_core.cb_running == t && time_core.cb_cpu != time_port_cpu_id();
}

bool hrtimer_cancel(struct hrtimer *t)
{
	unsigned long flags = time_port_irq_save();
	bool was = false;
	uint32_t looks;

	/*
	 * Take it off the queue, and while its callback runs on another CPU
	 * give the lock up and look again: the callback may re-arm its timer,
	 * which the next pass takes off again, and once it has returned
	 * nothing of the timer runs any more. cb_running is written and read
	 * under the lock only (tick_call_hrtimer sets it before giving the
	 * lock up and clears it after taking it back), so the lock's own
	 * ordering is all the wait needs.
	 */
	for (looks = 0;; looks++) {
		was = hrtimer_queue_remove(t) || was;
		if (!hrtimer_running_elsewhere(t))
			break;
		if (looks == HRTIMER_CANCEL_WAIT_LOOKS) {
			time_port_log(TIME_LOG_ERR, "time: hrtimer_cancel(%p): its callback has run on CPU %u for %u looks; "
				      "not waiting any longer", (void *)t, time_core.cb_cpu, (unsigned)looks);
			break;
		}
		time_port_irq_restore(flags);
		flags = time_port_irq_save();
	}
	time_port_irq_restore(flags);
	return was;
}

/* ---- Delays ------------------------------------------------------------------- */

/* Wait whole ticks for @ns; gives up if jiffies stop moving. */
static void delay_on_jiffies(uint64_t ns)
{
	static bool warned;
	uint64_t ticks = tick_ticks_in(ns) + 2; /* a partial tick each end */
	uint64_t start = jiffies_read(), last = start, seen;
	uint32_t stalled = 0;

	while ((seen = jiffies_read()) - start < ticks) {
		if (seen != last) {
			last = seen;
			stalled = 0;
		} else if (++stalled >= TIME_DELAY_STALL_READS) {
			if (!warned)
				time_port_log(TIME_LOG_WARN, "time: delay gave up, jiffies stopped (interrupts off, no clock source?)");
			warned = true;
			return;
		}
	}
}

void ndelay(uint64_t ns)
{
	uint64_t start;

	if (!time_initialized())
		return;
	if (!clocksource_free_running()) {
		delay_on_jiffies(ns);
		return;
	}
	/* Bounded by time itself: the clock source is free-running. */
	start = ktime_get_ns();
	while (ktime_get_ns() - start < ns)
		;
}

void udelay(uint32_t us)
{
	ndelay((uint64_t)us * NSEC_PER_USEC);
}

static void msleep_wake(struct timer *t)
{
	*(volatile bool *)t->arg = true;
}

int msleep(uint32_t ms)
{
	volatile bool done = false;
	struct timer t;
	uint64_t deadline, give_up;
	unsigned long flags;
	int rc = 0;

	if (!time_initialized() || time_core.mode == TICK_MODE_NONE) {
		if (!time_initialized() || !clocksource_free_running())
			return -ENODEV;
		ndelay((uint64_t)ms * NSEC_PER_MSEC);
		return 0;
	}
	deadline = ktime_get_ns() + (uint64_t)ms * NSEC_PER_MSEC;
	give_up = deadline + (uint64_t)MSLEEP_GRACE_TICKS * time_core.period_ns;
	timer_setup(&t, msleep_wake, (void *)&done);
	timer_add(&t, deadline, 0);
	flags = time_port_irq_save();
	while (!done) {
		if (ktime_get_ns() > give_up) {
			timer_cancel(&t);
			time_port_log(TIME_LOG_ERR, "time: msleep(%u) timer lost, giving up", (unsigned)ms);
			rc = -ETIMEDOUT;
			break;
		}
		time_idle();
	}
	time_port_irq_restore(flags);
	return rc;
}

void time_idle(void)
{
	tick_nohz_stop();
	time_port_idle();
	tick_nohz_restart();
}

/* ---- Mode and statistics -------------------------------------------------------- */

enum tick_mode time_tick_mode(void)
{
	return time_core.mode;
}

int time_set_tick_mode(enum tick_mode mode)
{
	if (mode != TICK_MODE_PERIODIC && mode != TICK_MODE_ONESHOT && mode != TICK_MODE_TICKLESS &&
	    mode != TICK_MODE_AUTO)
		return -EINVAL;
	if (!time_initialized())
		return -EAGAIN;
	time_core.requested = mode;
	tick_configure();
	return (mode == TICK_MODE_AUTO || time_core.mode == mode) ? 0 : -EAGAIN;
}

const char *time_tick_mode_name(enum tick_mode mode)
{
	switch (mode) {
	case TICK_MODE_NONE: return "none";
	case TICK_MODE_PERIODIC: return "periodic";
	case TICK_MODE_ONESHOT: return "oneshot";
	case TICK_MODE_TICKLESS: return "tickless";
	case TICK_MODE_AUTO: return "auto";
	}
	return "?";
}

void time_get_stats(struct time_stats *out)
{
	unsigned long flags = time_port_irq_save();

	*out = time_core.stats;
	time_port_irq_restore(flags);
}
