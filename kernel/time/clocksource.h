/*
 * clocksource.h - free-running counters that kernel/time reads the time from.
 *
 * A clock source driver (TSC, HPET main counter, ACPI PM timer, a PIT-derived
 * counter) fills in the first part of a struct clocksource and calls
 * clocksource_register(). The framework keeps the best one (highest rating)
 * and turns its cycles into nanoseconds with ns = cycles * mult >> shift, so
 * the read path has no division. Counters narrower than 64 bits are fine:
 * every reading is taken modulo mask + 1, and the framework reads often
 * enough (at every clock event; the tickless idle sleeps at most max_idle_ns,
 * 3/8 of the counter's range) that the counter never advances by half its
 * range between two readings. A reading that is less than half a range *behind*
 * the previous one is treated as the counter going backwards and ignored,
 * so ktime_get_ns() never goes backwards, not even for a glitching counter.
 *
 * Before any hardware counter registers, time comes from jiffies (the
 * built-in "jiffies" clock source, rating 1, which is tick-driven).
 * Linux's clocksource (kernel/time/clocksource.c) uses the same mult/shift
 * arithmetic; this code is written from the arithmetic, not from it.
 */
#ifndef TIME_CLOCKSOURCE_H
#define TIME_CLOCKSOURCE_H

#include <stdbool.h>
#include <stdint.h>

/* Flags of a clock source. */
enum clocksource_flags {
	/* The counter only moves while the periodic tick runs (jiffies, a
	 * counter rebuilt from PIT interrupts): no one-shot or tickless mode
	 * can be built on it. */
	CLOCK_SOURCE_TICK_DRIVEN = 1u << 0,
};

struct clocksource {
	/* ---- filled in by the driver ---- */
	const char *name;
	/* Read the counter. CONTEXT: interrupts disabled; must not block. */
	uint64_t (*read)(struct clocksource *cs);
	uint64_t mask;    /* counter width: 2^bits - 1, at least 16 bits */
	uint32_t freq_hz; /* counts per second; used when mult is 0 */
	uint32_t mult;    /* ns = cycles * mult >> shift; 0: computed from freq_hz */
	uint32_t shift;   /* at most 31 */
	int rating;       /* higher is better: TSC > HPET > ACPI PM > PIT */
	unsigned flags;   /* enum clocksource_flags */
	void *driver_data;
	/* ---- kept by the framework ---- */
	uint64_t max_idle_ns;       /* longest safe gap between readings: 3/8 range */
	struct clocksource *next;   /* registration list */
};

/*
 * clocksource_register - add @cs; it becomes the time source if it is rated
 * higher than the current one (time continues seamlessly from the current
 * value). Computes mult/shift from freq_hz when mult is 0.
 * CONTEXT: after time_init(), process context (interrupts may be on).
 * RETURNS 0; -EINVAL for a missing name/read, a mask that is not 2^n - 1 of
 * at least 16 bits, no frequency or shift > 31; -EEXIST if already
 * registered; -ENOSPC if CLOCKSOURCE_MAX are; -EAGAIN before time_init().
 */
int clocksource_register(struct clocksource *cs);

/*
 * clocksource_prefer - make the source named @name the time source as soon
 * as it registers, whatever its rating (a boot parameter's choice); a
 * source registered after it does not displace it. NULL or "" goes back to
 * ratings. Applies to registrations from now on: call it after time_init()
 * and before the drivers register (time_init() clears it).
 * CONTEXT: process context.
 * RETURNS 0; -EINVAL if @name is TIME_PREFER_NAME_MAX bytes or longer;
 * -EAGAIN before time_init().
 */
int clocksource_prefer(const char *name);

/* clocksource_current - RETURNS the clock source time is read from. */
const struct clocksource *clocksource_current(void);

/*
 * clocksource_calc_mult_shift - the largest shift <= 31 for which
 * mult = round(1e9 * 2^shift / @freq_hz) fits in 32 bits.
 * CONTEXT: any (uses a 64-bit division: not for hot paths).
 * RETURNS 0, or -EINVAL if @freq_hz is 0.
 */
int clocksource_calc_mult_shift(uint32_t freq_hz, uint32_t *mult, uint32_t *shift);

/*
 * clocksource_cyc2ns - nanoseconds in @cycles counts of @cs, exact to
 * below 1 ns per conversion, for any 64-bit @cycles (no overflow).
 * CONTEXT: any.
 */
uint64_t clocksource_cyc2ns(const struct clocksource *cs, uint64_t cycles);

/*
 * clocksource_freq_hz - counts per second of @cs: freq_hz, or for a driver
 * that gave only mult/shift, 1e9 * 2^shift / mult rounded. CONTEXT: any.
 * RETURNS the rate, 0 when neither is set.
 */
uint64_t clocksource_freq_hz(const struct clocksource *cs);

/*
 * ktime_get_ns - monotonic nanoseconds since time_init(): never goes
 * backwards, across counter wraps and clock source changes.
 * CONTEXT: any, including interrupt handlers.
 */
uint64_t ktime_get_ns(void);

/*
 * ktime_get_ns_fast - the same time without a lock and without writing
 * (a seqlock read of the state the last ktime_get_ns() left): for hot
 * paths that read the clock per interrupt. Monotonic on one CPU; across
 * CPUs only as far as their counters agree, where ktime_get_ns() never
 * goes back. Falls back to ktime_get_ns() when the fast form does not
 * apply. CONTEXT: any, including interrupt handlers.
 */
uint64_t ktime_get_ns_fast(void);

#endif
