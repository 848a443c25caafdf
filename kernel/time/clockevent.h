/*
 * clockevent.h - interrupt sources that drive the tick and the hrtimers.
 *
 * A clock event driver (PIT channel 0, an HPET comparator, the local APIC
 * timer) fills in the first part of a struct clock_event_device, calls
 * clockevent_register(), and from its interrupt handler calls
 * dev->event_handler(dev). The framework picks the best device (highest
 * rating) and tells it what to do through three operations:
 *
 *   set_periodic(dev, hz)       interrupt hz times a second until told
 *                               otherwise (CLOCK_EVT_FEAT_PERIODIC)
 *   set_next_event(dev, delta)  one interrupt in delta_ns nanoseconds, where
 *                               min_delta_ns <= delta_ns <= max_delta_ns; puts
 *                               the device in one-shot mode if it was not
 *                               (CLOCK_EVT_FEAT_ONESHOT); a negative return
 *                               (the delta was too short after all) makes
 *                               the framework retry with a longer one
 *   shutdown(dev)               no more interrupts
 *
 * Each returns 0 or a negative error code; the framework calls them with
 * interrupts disabled. The framework sets event_handler: before the tick
 * adopts a device it is a harmless no-op. Linux's clockevents have the same
 * shape; this is written from the shape, not from that code.
 */
#ifndef TIME_CLOCKEVENT_H
#define TIME_CLOCKEVENT_H

#include <stdbool.h>
#include <stdint.h>

/* Features of a clock event device. */
#define CLOCK_EVT_FEAT_PERIODIC 0x1u /* can interrupt periodically */
#define CLOCK_EVT_FEAT_ONESHOT  0x2u /* can interrupt once after a delay */

/* What the framework last told a device to do. */
enum clockevent_state {
	CLOCKEVENT_DETACHED = 0, /* registered, not used yet */
	CLOCKEVENT_SHUTDOWN,     /* shut down */
	CLOCKEVENT_PERIODIC,     /* set_periodic() done */
	CLOCKEVENT_ONESHOT,      /* set_next_event() done */
};

struct clock_event_device {
	/* ---- filled in by the driver ---- */
	const char *name;
	unsigned features; /* CLOCK_EVT_FEAT_* */
	int (*set_periodic)(struct clock_event_device *dev, uint32_t hz);
	int (*set_next_event)(struct clock_event_device *dev, uint64_t delta_ns);
	int (*shutdown)(struct clock_event_device *dev);
	uint64_t min_delta_ns; /* shortest one-shot delay the hardware does */
	uint64_t max_delta_ns; /* longest one (e.g. PIT: 65535 counts = 54.9 ms) */
	int rating;            /* higher is better: LAPIC > HPET > PIT */
	void *driver_data;
	/* ---- set by the framework ---- */
	/* Call from the device's interrupt handler. */
	void (*event_handler)(struct clock_event_device *dev);
	enum clockevent_state state;
	uint64_t next_event_ns;   /* ktime of the programmed one-shot event */
	uint64_t events;          /* interrupts handled */
	uint64_t programmed;      /* set_next_event() calls that succeeded */
	uint64_t clamped;         /* deltas raised to min or cut to max */
	uint64_t program_errors;  /* set_next_event() calls that failed */
	struct clock_event_device *next; /* registration list */
};

/*
 * clockevent_register - add @dev; if it is rated higher than the current
 * tick device it takes over (the old one is shut down). A min_delta_ns below
 * CLOCKEVENT_MIN_DELTA_FLOOR_NS is raised to it (interrupt-storm guard).
 * CONTEXT: after time_init(), process context.
 * RETURNS 0; -EINVAL for a missing name/operation, unknown or no features,
 * or a one-shot device with max_delta_ns < min_delta_ns or 0; -EEXIST if
 * already registered; -ENOSPC if CLOCKEVENT_MAX are; -EAGAIN before
 * time_init().
 */
int clockevent_register(struct clock_event_device *dev);

/*
 * clockevent_prefer - let the device named @name drive the tick as soon as
 * it registers, whatever its rating (a boot parameter's choice); a device
 * registered after it does not displace it. NULL or "" goes back to
 * ratings. Applies to registrations from now on: call it after time_init()
 * and before the drivers register (time_init() clears it).
 * CONTEXT: process context.
 * RETURNS 0; -EINVAL if @name is TIME_PREFER_NAME_MAX bytes or longer;
 * -EAGAIN before time_init().
 */
int clockevent_prefer(const char *name);
/* The name clockevent_prefer() set (clockevent= on x86), or NULL when the ratings choose. */
const char *clockevent_preferred(void);

/* clockevent_current - RETURNS the device the tick runs on, or NULL. */
struct clock_event_device *clockevent_current(void);

/*
 * clockevent_program - program one-shot @dev to interrupt at @expires_ns
 * (ktime); @now_ns is the current ktime. The delay is clamped to
 * [min_delta_ns, max_delta_ns]: an expiry that is past or too close gets the
 * minimum, a far one the maximum (the handler then simply programs again).
 * CONTEXT: interrupts disabled.
 * RETURNS 0, -EINVAL if @dev is not one-shot capable, or the driver's error
 * after CLOCKEVENT_PROGRAM_TRIES attempts with growing deltas.
 */
int clockevent_program(struct clock_event_device *dev, uint64_t expires_ns, uint64_t now_ns);

/*
 * Nanoseconds to device counts for drivers' set_next_event(), without a
 * division in the common case. mult = ceil(hz * 2^32 / 1e9) overstates the
 * rate by less than 2^-32 counts per ns, so for ns < 2^32 the product
 * ns * mult / 2^32 exceeds the exact ns * hz / 1e9 by less than one count:
 * rounded up, the result is the exact ceiling or one more. An event is
 * therefore never early and at most one count late. For longer delays, and
 * for rates of 1 GHz and more (mult would not fit in 32 bits), the exact
 * ceiling is divided out.
 */
struct clockevent_conv {
	uint32_t hz;   /* counts per second */
	uint32_t mult; /* ceil(hz * 2^32 / 1e9); 0: always divide */
};

/* clockevent_conv_init - @conv for a device counting @hz per second.
 * CONTEXT: any (one 64-bit division: at calibration, not per event). */
void clockevent_conv_init(struct clockevent_conv *conv, uint32_t hz);

/* The exact ceil(@ns * @hz / 1e9), UINT64_MAX if it does not fit; what
 * clockevent_ns_to_counts() falls back to. CONTEXT: any. */
uint64_t clockevent_ns_to_counts_exact(uint32_t hz, uint64_t ns);

/*
 * clockevent_ns_to_counts - counts of @conv's device in @ns: never fewer
 * than the exact ceil(ns * hz / 1e9), at most one more (exact for
 * ns >= 2^32 or hz >= 1e9). On i686, one 32x32->64 multiply for ns < 2^32.
 * CONTEXT: any.
 */
static inline uint64_t clockevent_ns_to_counts(const struct clockevent_conv *conv, uint64_t ns)
{
	/* The high half tested on its own: compared as one 64-bit value, GCC
	 * multiplies the (known zero) high half too. */
	if ((uint32_t)(ns >> 32) == 0 && conv->mult)
		/* (2^32 - 1) * mult + 2^32 - 1 < 2^64 since mult < 2^32 - 1. */
		return ((uint64_t)(uint32_t)ns * conv->mult + UINT32_MAX) >> 32;
	return clockevent_ns_to_counts_exact(conv->hz, ns);
}

/*
 * clockevent_set_periodic / clockevent_shutdown - the driver's operations,
 * recording the new state. CONTEXT: interrupts disabled.
 * RETURNS 0 or the driver's error (-EINVAL if periodic is not supported).
 */
int clockevent_set_periodic(struct clock_event_device *dev, uint32_t hz);
int clockevent_shutdown(struct clock_event_device *dev);

#endif
