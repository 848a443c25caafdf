/*
 * timer_wheel.h - a hierarchical timing wheel: coarse timers counted in ticks.
 *
 * Follows G. Varghese and T. Lauck, "Hashed and Hierarchical Timing Wheels:
 * Data Structures for the Efficient Implementation of a Timer Facility"
 * (SOSP 1987), scheme 7 (hierarchical wheels), with one occupancy bitmap per
 * level so that empty slots are skipped instead of visited. The design (slot
 * widths, slack, the next-expiry bound, complexity) is explained at the top
 * of timer_wheel.c and in docs/time.md.
 *
 * This is a pure data structure: it needs nothing from its host (no lock, no
 * clock, no log, no allocator), so it builds for any CPU. Timers live in the
 * caller's storage. The caller serialises every call on one wheel; kernel/time
 * does it by disabling interrupts (see time.h for the kernel-facing API).
 *
 * Ticks are uint64_t and are compared modulo 2^64: a tick less than 2^63
 * ticks after the wheel's current tick is in the future, any other is in the
 * past. The counter may therefore start anywhere and wrap past UINT64_MAX.
 */
#ifndef TIME_TIMER_WHEEL_H
#define TIME_TIMER_WHEEL_H

#include <stdbool.h>
#include <stdint.h>

/* Geometry of the wheel. */
enum {
	/* log2 of the slots per level: 64 slots, one 64-bit occupancy word. */
	TIMER_WHEEL_LEVEL_BITS = 6,
	/* Slots per level. Level L's slots are 64^L ticks wide. */
	TIMER_WHEEL_SLOTS = 1 << TIMER_WHEEL_LEVEL_BITS,
	/* 11 levels * 6 bits = 66 >= 64: the levels cover every 64-bit tick,
	 * so no timer is ever too far away for the wheel (the top level uses
	 * 16 of its 64 slots). */
	TIMER_WHEEL_LEVELS = 11,
	/* Slot number of a timer that is not queued. */
	TIMER_WHEEL_NO_SLOT = 0xffff,
	/* next_expiry() looks at up to this many timers of the earliest slot;
	 * when the slot holds no more, its answer is exact. */
	TIMER_WHEEL_EXACT_SCAN = 8,
};

/* The farthest in the future a tick can be: 2^63 - 1 ticks ahead. */
#define TIMER_WHEEL_MAX_AHEAD (UINT64_MAX >> 1)

struct timer_wheel;

/* One timer, in the caller's storage. Fields are the wheel's; read them only
 * through the functions below. */
struct wheel_timer {
	struct wheel_timer *next, *prev; /* neighbours in the slot's list */
	uint64_t expires;  /* tick asked for */
	uint64_t fire;     /* tick it runs at, in [expires, expires + slack] */
	uint16_t slot;     /* level * 64 + index while queued, else NO_SLOT */
	/* Called once per expiry, after the timer has been dequeued. */
	void (*fn)(struct timer_wheel *w, struct wheel_timer *t);
};

/* One slot: a FIFO list of timers (first == NULL when empty). */
struct wheel_slot {
	struct wheel_timer *first, *last;
};

/* Counters kept by the wheel (wrap after 2^64 events). */
struct timer_wheel_stats {
	uint64_t fired;     /* callbacks run */
	uint64_t cascaded;  /* timers moved from a slot to a finer level */
	uint64_t slots_run; /* slots emptied by advance() (fired or cascaded) */
};

/* A wheel; timer_wheel_init() prepares it. About 5.7 KiB on i686. */
struct timer_wheel {
	uint64_t now;                            /* last tick advanced to */
	uint64_t occupied[TIMER_WHEEL_LEVELS];   /* bit i: slot i holds timers */
	uint32_t levels_occupied;                /* bit L: occupied[L] != 0 */
	uint32_t pending;                        /* timers queued */
	bool advancing;                          /* inside advance() */
	struct timer_wheel_stats stats;
	struct wheel_slot slots[TIMER_WHEEL_LEVELS * TIMER_WHEEL_SLOTS];
};

/*
 * timer_wheel_init - empty @w and set its current tick to @now.
 * CONTEXT: before any other use of @w.
 */
void timer_wheel_init(struct timer_wheel *w, uint64_t now);

/*
 * wheel_timer_setup - prepare @t (not queued) with callback @fn.
 * CONTEXT: @t must not be queued.
 */
void wheel_timer_setup(struct wheel_timer *t, void (*fn)(struct timer_wheel *w, struct wheel_timer *t));

/*
 * timer_wheel_add - queue @t to run at a tick in [expires, expires + slack].
 * The wheel picks, inside that window, the tick with the most trailing zero
 * bits: the start of the coarsest slot the window holds, so timers with
 * overlapping windows share a tick and cascade less. An @expires that is not
 * in the future (<= now, modulo 2^64) runs at now + 1 and ignores @slack.
 * @slack is cut so that the window ends at most TIMER_WHEEL_MAX_AHEAD ahead.
 * CONTEXT: caller serialises; allowed from callbacks. O(1).
 * RETURNS true if queued, false if @t was already queued (nothing changed).
 */
bool timer_wheel_add(struct timer_wheel *w, struct wheel_timer *t, uint64_t expires, uint64_t slack);

/*
 * timer_wheel_mod - (re)queue @t with a new window, whether or not it was
 * queued. If it is queued and would keep its fire tick, it keeps its place.
 * CONTEXT: caller serialises; allowed from callbacks. O(1).
 * RETURNS true if @t was queued before the call.
 */
bool timer_wheel_mod(struct timer_wheel *w, struct wheel_timer *t, uint64_t expires, uint64_t slack);

/*
 * timer_wheel_cancel - dequeue @t so that it does not run.
 * CONTEXT: caller serialises; allowed from callbacks, also for a timer due at
 * the same tick that has not run yet. O(1).
 * RETURNS true if @t was queued, false if it was not (already ran/cancelled).
 */
bool timer_wheel_cancel(struct timer_wheel *w, struct wheel_timer *t);

/* wheel_timer_pending - RETURNS true while @t is queued. */
static inline bool wheel_timer_pending(const struct wheel_timer *t)
{
	return t->slot != TIMER_WHEEL_NO_SLOT;
}

/* wheel_timer_fire_tick - RETURNS the tick a queued @t will run at. */
static inline uint64_t wheel_timer_fire_tick(const struct wheel_timer *t)
{
	return t->fire;
}

/*
 * timer_wheel_advance - move the wheel's current tick forward to @now and run
 * every timer whose fire tick is <= @now. Rules for callbacks:
 *  - ticks are processed in increasing order; timers sharing a fire tick run
 *    in the order they were queued;
 *  - while its callback runs, a timer is not queued and timer_wheel_now()
 *    is its fire tick;
 *  - a callback may add, modify or cancel any timer, itself included: a
 *    timer queued with a fire tick <= @now runs in this same call (a window
 *    in the past means the next tick), a cancelled one does not run, even if
 *    it was due at the current tick;
 *  - callbacks must not call timer_wheel_advance() (such a call does nothing).
 * Empty stretches are skipped through the bitmaps: the cost depends on the
 * timers due and the slots that cascade, not on how far @now jumps.
 * CONTEXT: caller serialises.
 * RETURNS the number of callbacks run; 0 if @now is not after the current
 * tick (modulo 2^64, less than 2^63 ahead).
 */
uint64_t timer_wheel_advance(struct timer_wheel *w, uint64_t now);

/*
 * timer_wheel_next_expiry - the earliest tick at which a timer may be due.
 * Exact when the earliest occupied slot is on level 0 or holds at most
 * TIMER_WHEEL_EXACT_SCAN timers; otherwise the start of that slot, a lower
 * bound that is less than the slot's width (64^level ticks) early. Advancing
 * to a lower bound cascades that slot, so a caller that sleeps until the
 * answer wakes early at most once per level before the exact tick.
 * CONTEXT: caller serialises.
 * RETURNS false if no timer is queued; true with *@tick set otherwise.
 */
bool timer_wheel_next_expiry(const struct timer_wheel *w, uint64_t *tick);

/* timer_wheel_now - RETURNS the tick the wheel was last advanced to. */
static inline uint64_t timer_wheel_now(const struct timer_wheel *w)
{
	return w->now;
}

/* timer_wheel_pending_count - RETURNS the number of queued timers. */
static inline uint32_t timer_wheel_pending_count(const struct timer_wheel *w)
{
	return w->pending;
}

/* timer_wheel_slots_in_use - RETURNS how many slots hold timers (all levels). */
unsigned timer_wheel_slots_in_use(const struct timer_wheel *w);

#endif
