/*
 * time.h - the kernel's clocks and timers (include as <time/time.h>).
 *
 *   time_init(hz)            once at boot, before any time driver registers
 *   jiffies, tick_hz()       the tick count and rate
 *   ktime_get_ns()           monotonic nanoseconds since time_init()
 *   struct timer             coarse timers (timer wheel, tick resolution,
 *                            with slack so that nearby expiries batch)
 *   struct hrtimer           precise one-shot timers (ns resolution in
 *                            one-shot mode, tick resolution in periodic mode)
 *   ndelay/udelay/msleep     busy-wait on the clock source / sleep on a timer
 *   time_idle()              the idle loop's wait; stops the tick if tickless
 *
 * Hardware comes in through clocksource.h and clockevent.h: a driver fills
 * in a struct and registers it. Design, modes and figures: docs/time.md.
 *
 * CONTEXT RULE. Timer and hrtimer callbacks run from the clock event
 * interrupt, with interrupts disabled, one at a time. They must not sleep or
 * wait (no msleep, no long udelay) and should be short: every other timer
 * due at that moment waits behind them. A callback may start, modify and
 * cancel any timer, itself included. Every function below may be called from
 * interrupt handlers and callbacks unless it says "process context".
 *
 * Tick modes:
 *   periodic  the device interrupts hz times a second; each event is a tick
 *   oneshot   the tick is an hrtimer re-armed at the ideal absolute tick
 *             times (no drift); hrtimers get their own, exact interrupts
 *   tickless  oneshot, and time_idle() programs the next event for the next
 *             real expiry instead of the next tick (bounded by the device's
 *             max_delta_ns and the clock source's max_idle_ns); jiffies are
 *             caught up from the clock source on wake
 */
#ifndef TIME_TIME_H
#define TIME_TIME_H

#include <stdbool.h>
#include <stdint.h>

#include "clocksource.h"
#include "hrtimer.h"
#include "timer_wheel.h"

#define NSEC_PER_USEC UINT64_C(1000)
#define NSEC_PER_MSEC UINT64_C(1000000)
#define NSEC_PER_SEC  UINT64_C(1000000000)

/* Ticks since time_init(). On 32-bit CPUs read it with jiffies_read() from
 * code that interrupts may preempt (a 64-bit load is two loads there). */
extern volatile uint64_t jiffies;

/*
 * time_init - reset kernel/time and set the tick rate to @hz (TIME_HZ_MIN ..
 * TIME_HZ_MAX; anything else falls back to TIME_HZ_DEFAULT with a warning).
 * Time runs from jiffies until a clock source registers and ticks start when
 * a clock event device registers. Calling it again resets everything (the
 * host tests do); drivers must register again.
 * CONTEXT: process context, once at boot.
 */
void time_init(uint32_t hz);

/* tick_hz - RETURNS the tick rate set by time_init() (0 before it). */
uint32_t tick_hz(void);

/*
 * time_set_tick_hook - lend the tick to another subsystem (irqkit: the
 * interrupt core's look at busy lines, kernel/irq/tick_look.c): @fn(now)
 * runs at every tick, periodic or one-shot, with the tick's time and
 * kernel/time's lock given up (as an hrtimer callback); a tickless idle
 * asks @busy() (may be NULL) before it stops the tick and keeps ticking
 * while it says true. NULL @fn: no hook. time_init() clears it.
 * CONTEXT: process context.
 */
void time_set_tick_hook(void (*fn)(uint64_t now_ns), bool (*busy)(void));

/* jiffies_read - RETURNS jiffies, read atomically. CONTEXT: any. */
uint64_t jiffies_read(void);

/* ---- Coarse timers: the timer wheel ------------------------------------ */

/* A coarse timer in the caller's storage. Fields are kernel/time's. */
struct timer {
	struct wheel_timer entry;
	void (*fn)(struct timer *t);
	void *arg;            /* for the callback */
	uint64_t expires_ns;  /* ktime it was asked to expire at */
	uint64_t slack_ns;    /* how much later it may run */
};

/* timer_setup - prepare idle @t to call @fn(t); @arg is for @fn. */
void timer_setup(struct timer *t, void (*fn)(struct timer *t), void *arg);

/*
 * timer_add - run @fn at the first tick at or after @expires_ns (ktime), at
 * most @slack_ns plus one tick period later. Never early. Timers whose
 * windows overlap are batched onto the same tick. O(1).
 * RETURNS 0; -EBUSY if @t is already pending (nothing changed; use
 * timer_mod); -EINVAL if @t has no callback; -EAGAIN before time_init().
 */
int timer_add(struct timer *t, uint64_t expires_ns, uint64_t slack_ns);

/*
 * timer_mod - (re)arm @t like timer_add, pending or not. O(1).
 * RETURNS 1 if @t was pending, 0 if it was not, or -EINVAL / -EAGAIN.
 */
int timer_mod(struct timer *t, uint64_t expires_ns, uint64_t slack_ns);

/* timer_cancel - stop @t. O(1). RETURNS true if it was pending (it will
 * not run), false if not (it already ran, is running, or was never armed).
 * A callback running on another CPU has finished when it returns: the
 * wheel's callbacks run with kernel/time's lock held, which this takes. */
bool timer_cancel(struct timer *t);

/* timer_pending - RETURNS true while @t is armed and has not run. */
bool timer_pending(const struct timer *t);

/* ---- Precise timers: hrtimers ------------------------------------------
 * struct hrtimer, hrtimer_setup() and hrtimer_pending() are in hrtimer.h.
 */

/*
 * hrtimer_start - (re)arm @t to run at @expires_ns (absolute ktime); a
 * pending @t is moved. An expiry in the past runs as soon as possible.
 * O(1) (O(log n) amortized when moving).
 * RETURNS 0; -EINVAL if @t has no callback; -EAGAIN before time_init().
 */
int hrtimer_start(struct hrtimer *t, uint64_t expires_ns);

/*
 * hrtimer_cancel - stop @t, and if its callback is running on another CPU
 * wait until it has returned (a callback that re-arms its timer meanwhile
 * is cancelled again): after the call nothing of @t runs anywhere. Called
 * from @t's own callback (or what that calls) it does not wait for itself.
 * Must not be called holding a lock that @t's callback takes (the callback
 * would wait for the lock, the caller for the callback): use
 * hrtimer_try_to_cancel there. The wait is bounded
 * (HRTIMER_CANCEL_WAIT_LOOKS; then it logs and returns).
 * RETURNS true if it was pending (it will not run), false if it was not.
 */
bool hrtimer_cancel(struct hrtimer *t);

/*
 * hrtimer_try_to_cancel - stop @t if pending; does not wait for a callback
 * running on another CPU. Any context, any lock held.
 * RETURNS true if it was pending.
 */
bool hrtimer_try_to_cancel(struct hrtimer *t);

/* ---- Delays -------------------------------------------------------------- */

/*
 * ndelay / udelay - busy-wait at least @ns / @us on the clock source.
 * Before a free-running clock source exists they wait whole ticks on
 * jiffies, which needs interrupts enabled; if jiffies stop moving they give
 * up after TIME_DELAY_STALL_READS reads, with a warning.
 * CONTEXT: any; keep it short with interrupts disabled.
 */
void ndelay(uint64_t ns);
void udelay(uint32_t us);

/*
 * msleep - wait at least @ms milliseconds on a coarse timer, idling the CPU
 * (time_idle()) until it fires.
 * CONTEXT: process context, never from a callback or interrupt handler.
 * RETURNS 0; -ENODEV if no tick runs and no free-running clock source
 * exists to busy-wait on; -ETIMEDOUT if the timer was lost (logged).
 */
int msleep(uint32_t ms);

/*
 * time_idle - wait for the next interrupt (time_port_idle()). In tickless
 * mode it first stops the tick (the next event is programmed for the next
 * expiry that matters) and restarts it, with jiffies caught up, on wake.
 * CONTEXT: the idle loop or msleep, with interrupts disabled by the caller.
 */
void time_idle(void);

/* ---- Tick mode and statistics --------------------------------------------- */

enum tick_mode {
	TICK_MODE_NONE = 0,  /* no clock event device (yet): no ticks */
	TICK_MODE_PERIODIC,  /* device interrupts at hz; hrtimers at tick resolution */
	TICK_MODE_ONESHOT,   /* tick emulated on hrtimers; hrtimers exact */
	TICK_MODE_TICKLESS,  /* oneshot, and the tick stops while idle */
	TICK_MODE_AUTO,      /* request only: the best the hardware allows */
};

/* time_tick_mode - RETURNS the mode the tick runs in now. */
enum tick_mode time_tick_mode(void);

/*
 * time_set_tick_mode - ask for @mode (PERIODIC, ONESHOT, TICKLESS or AUTO;
 * AUTO, the default, is ONESHOT when possible, else PERIODIC). ONESHOT and
 * TICKLESS need a one-shot device and a free-running clock source. The
 * request is kept and applied whenever devices register.
 * CONTEXT: process context.
 * RETURNS 0 if the tick now runs as asked; -EAGAIN if the hardware does not
 * allow it yet (the best mode available runs meanwhile); -EINVAL for NONE or
 * an unknown mode.
 */
int time_set_tick_mode(enum tick_mode mode);

/* time_tick_mode_name - RETURNS "periodic", "oneshot", ... for the shell. */
const char *time_tick_mode_name(enum tick_mode mode);

/* Counters since time_init(), for the shell. */
struct time_stats {
	uint64_t events;        /* clock event interrupts taken */
	uint64_t ticks;         /* ticks counted (jiffies increments) */
	uint64_t timers_run;    /* coarse timer callbacks */
	uint64_t hrtimers_run;  /* hrtimer callbacks (not the tick's own) */
	uint64_t late_timers;   /* coarse timers run more than TIME_LATE_THRESHOLD_NS
				   after expires + slack + one tick */
	uint64_t late_hrtimers; /* hrtimers (the tick's included) run more than
				   TIME_LATE_THRESHOLD_NS late (plus a tick in periodic mode) */
	uint64_t max_late_ns;   /* largest such lateness, either kind */
	uint64_t tick_stops;    /* tickless idle periods that stopped the tick */
	uint64_t budget_cuts;   /* events that left due hrtimers for the next one */
};

/* time_get_stats - copy the counters into @out. */
void time_get_stats(struct time_stats *out);

#endif
