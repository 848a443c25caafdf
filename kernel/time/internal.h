/*
 * internal.h - private to kernel/time: shared state, tunables and the calls
 * between its files. Nothing outside kernel/time may include it.
 *
 *   clocksource.c  time from counters (ktime_get_ns)
 *   clockevent.c   interrupt devices: registry, selection, programming
 *   tick.c         the tick: periodic, one-shot emulation, tickless idle
 *   time.c         the kernel-facing API of time.h
 */
#ifndef TIME_INTERNAL_H
#define TIME_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clockevent.h"
#include "clocksource.h"
#include "hrtimer.h"
#include "time.h"
#include "timer_wheel.h"
#include "time_port.h"

/*
 * Tunables. The tick range keeps a tick period between 100 us and 100 ms:
 * faster ticks spend the CPU on interrupts, slower ones make coarse timers
 * useless. The late threshold is about ten interrupt latencies on a slow
 * PC. The budget is far above what a healthy system has due at once, so it
 * only ever stops a callback that keeps re-arming itself in the past.
 */
enum time_tunables {
	TIME_HZ_MIN = 10,              /* slowest tick, Hz */
	TIME_HZ_MAX = 10000,           /* fastest tick, Hz */
	TIME_HZ_DEFAULT = 1000,        /* tick when time_init() gets nonsense */
	CLOCKSOURCE_MAX = 8,           /* clock sources that may register */
	CLOCKSOURCE_MIN_BITS = 16,     /* narrowest counter accepted */
	CLOCKEVENT_MAX = 8,            /* clock event devices that may register */
	CLOCKEVENT_MIN_DELTA_FLOOR_NS = 1000, /* no one-shot closer than 1 us */
	CLOCKEVENT_PROGRAM_TRIES = 3,  /* set_next_event attempts, delta doubling */
	HRTIMER_RUN_BUDGET = 1024,     /* hrtimer callbacks per clock event */
	TIME_LATE_THRESHOLD_NS = 100000, /* 100 us late counts as late */
	TICK_NOHZ_MAX_SLEEP_MS = 10000, /* longest tickless sleep, even if idle */
	TICK_CATCHUP_FIXUPS = 2,       /* see tick_catch_up() */
	TIME_DELAY_STALL_READS = 10000000, /* udelay on jiffies gives up after */
	MSLEEP_GRACE_TICKS = 100,      /* msleep gives up on a timer this overdue */
	/* hrtimer_cancel gives up waiting for a callback running on another CPU
	 * after this many looks at it (each one lock pair, ~0.1-1 us: seconds) */
	HRTIMER_CANCEL_WAIT_LOOKS = 1 << 24,
	TIME_PREFER_NAME_MAX = 24,     /* longest preferred device name (with NUL), see *_prefer() */
};

_Static_assert(TIME_HZ_MIN > 0 && TIME_HZ_MIN <= TIME_HZ_DEFAULT && TIME_HZ_DEFAULT <= TIME_HZ_MAX,
	       "TIME_HZ_MIN <= TIME_HZ_DEFAULT <= TIME_HZ_MAX, all > 0");
_Static_assert((uint64_t)TIME_HZ_MAX * NSEC_PER_SEC < (UINT64_C(1) << 63),
	       "TIME_HZ_MAX too large for the tick arithmetic (r * hz must fit)");
_Static_assert(CLOCKSOURCE_MIN_BITS >= 8 && CLOCKSOURCE_MIN_BITS <= 64, "CLOCKSOURCE_MIN_BITS out of 8..64");
_Static_assert(CLOCKEVENT_PROGRAM_TRIES >= 1, "CLOCKEVENT_PROGRAM_TRIES must be at least 1");
_Static_assert(HRTIMER_RUN_BUDGET >= 16, "HRTIMER_RUN_BUDGET below 16 would starve legitimate timers");
_Static_assert(TICK_NOHZ_MAX_SLEEP_MS >= 1, "TICK_NOHZ_MAX_SLEEP_MS must be at least 1");

/* container_of for kernel/time's embedded structures. */
#define time_container_of(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* Everything the tick and the API share; one instance, time_core. */
struct time_core {
	uint32_t hz;              /* 0 until time_init() */
	uint32_t period_ns;       /* NSEC_PER_SEC / hz, rounded down */
	uint32_t period_rem;      /* NSEC_PER_SEC % hz: period is ns + rem/hz */
	uint32_t nohz_max_ticks;  /* TICK_NOHZ_MAX_SLEEP_MS in ticks */
	enum tick_mode mode;      /* running mode */
	enum tick_mode requested; /* time_set_tick_mode() */
	struct clock_event_device *dev; /* device the tick runs on */
	struct timer_wheel wheel; /* coarse timers, in jiffies */
	struct hrtimer_queue hrq; /* hrtimers, in ktime ns */
	struct hrtimer tick_timer; /* the emulated tick in one-shot mode */
	/* Ideal tick times (one-shot): tick jiffies + 1 is due at
	 * tick_next_ns + tick_next_frac / hz. In periodic mode tick_last_ns is
	 * the ktime of the last tick event. */
	uint64_t tick_last_ns;    /* time of tick number jiffies */
	uint64_t tick_next_ns;
	uint32_t tick_next_frac;
	bool tick_stopped;        /* tickless idle moved the tick timer */
	bool tick_ran;            /* the tick timer ran in this event */
	uint64_t event_now_ns;    /* ktime of the event being handled */
	/* The hrtimer whose callback runs now with the lock given up
	 * (tick_call_hrtimer), and the CPU running it (time_port_cpu_id);
	 * NULL when none. hrtimer_cancel on another CPU waits while it is
	 * its timer. Under the lock. */
	struct hrtimer *cb_running;
	unsigned int cb_cpu;
	/* time_set_tick_hook(): called at every tick, asked before a tickless stop. */
	void (*tick_hook)(uint64_t now_ns);
	bool (*tick_hook_busy)(void);
	struct time_stats stats;
};

extern struct time_core time_core;

/* True once time_init() has run. */
static inline bool time_initialized(void)
{
	return time_core.hz != 0;
}

/* Whether @name equals the preferred name @pref (NUL-terminated, at most
 * TIME_PREFER_NAME_MAX bytes). An empty @pref matches nothing. */
static inline bool time_name_is(const char *name, const char *pref)
{
	unsigned i;

	if (!name || !pref[0])
		return false;
	for (i = 0; i < TIME_PREFER_NAME_MAX; i++) {
		if (name[i] != pref[i])
			return false;
		if (!name[i])
			return true;
	}
	return false;
}

/* Copy @name into @pref (TIME_PREFER_NAME_MAX bytes); NULL or "" clears.
 * RETURNS 0, or -EINVAL if @name does not fit (nothing changed). */
static inline int time_name_set(char *pref, const char *name)
{
	unsigned i;

	if (!name) {
		pref[0] = 0;
		return 0;
	}
	for (i = 0; i < TIME_PREFER_NAME_MAX; i++)
		if (!name[i])
			break;
	if (i == TIME_PREFER_NAME_MAX)
		return -EINVAL;
	for (unsigned k = 0; k <= i; k++)
		pref[k] = name[k];
	return 0;
}

/* ---- clocksource.c ---- */
void clocksource_reset(uint32_t hz);

/* ktime as the accumulation keeps it: base_ns plus frac 2^-shift ns, where
 * frac < 2^shift <= 2^31. */
struct clocksource_accum {
	uint64_t base_ns;
	uint32_t frac;
};

/*
 * The two forms of one accumulation step, acc += @delta cycles of a source
 * with @mask, @mult and @shift, exposed only so that the unit tests can
 * hold them against each other: _general is the split 64-bit arithmetic
 * that is exact for any delta; _fast is what ktime_get_ns() runs (one
 * 32x32->64 multiply up to clocksource_accum_fast_max(@mask), the general
 * form above it). Both RETURN false, leaving @acc alone, for a delta above
 * @mask / 2 (the counter went backwards). Not for use outside the tests.
 */
uint32_t clocksource_accum_fast_max(uint64_t mask);
bool clocksource_accumulate_general(struct clocksource_accum *acc, uint64_t mask, uint32_t mult, uint32_t shift,
				    uint64_t delta);
bool clocksource_accumulate_fast(struct clocksource_accum *acc, uint64_t mask, uint32_t mult, uint32_t shift,
				 uint64_t delta);
bool clocksource_free_running(void);    /* current one is not tick-driven */
uint64_t clocksource_max_idle_ns(void); /* of the current one */

/* ---- clockevent.c ---- */
void clockevent_reset(void);

/* ---- tick.c ---- */
void tick_reset(void);
void tick_configure(void);  /* after a device, clock source or request change */
void tick_program_hook(struct hrtimer_queue *q, uint64_t first_expires_ns);
uint64_t tick_jiffy_for(uint64_t expires_ns); /* first tick at/after a time */
uint64_t tick_ticks_in(uint64_t ns);          /* whole ticks in ns, down */
void tick_nohz_stop(void);
void tick_nohz_restart(void);

#endif
