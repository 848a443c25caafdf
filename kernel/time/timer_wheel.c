/*
 * timer_wheel.c - hierarchical timing wheel (Varghese & Lauck, SOSP 1987,
 * scheme 7), with per-level occupancy bitmaps. See timer_wheel.h for the
 * API and docs/time.md for figures.
 *
 * Geometry. A tick is a 64-bit number read as 11 groups of 6 bits. Level L
 * has 64 slots, each 64^L ticks wide; its slot index is bits 6L..6L+5 of a
 * tick. A timer that runs at tick F while the wheel stands at tick N goes to
 * the level of the highest bit in which F and N differ (the level of the
 * most significant bit of F ^ N), at the slot F's index names there. Hence:
 *  - every timer on level L shares N's bits above level L and has a larger
 *    index there than N (the top level, of which only 4 bits exist, is the
 *    exception: its indices are read circularly, which is what makes the
 *    counter wrap past UINT64_MAX work);
 *  - everything on level L-1 comes before everything on level L.
 * So the earliest slot is the lowest set bit of the lowest occupied level,
 * found with two find-first-set operations, and advance() jumps from one
 * occupied slot to the next however far apart they are.
 *
 * Expiry. When the wheel reaches the first tick of a slot, each timer in it
 * either runs (its fire tick is that tick) or cascades: it is queued again
 * relative to the new current tick, which puts it on a lower level. Nothing
 * new can land in the slot being emptied (a timer that is due inside it has
 * a lower level now), so emptying it ends. A timer therefore cascades at most
 * once per level: add, cancel and modify are O(1); a timer costs O(levels)
 * over its life; the wheel never looks at an empty slot.
 *
 * Slack. A timer may run anywhere in [expires, expires + slack]. The wheel
 * picks the tick with the most trailing zero bits in that window: the first
 * tick of the coarsest slot that lies inside the window. A timer whose fire
 * tick starts a level-L slot runs straight from that slot without cascading
 * further, and timers with overlapping windows pick the same tick.
 */
#include "timer_wheel.h"

#include <stddef.h>

/* Index of the most significant set bit of @x (@x != 0); 32-bit halves keep
 * it inline on 32-bit CPUs. */
static unsigned msb64(uint64_t x)
{
	uint32_t hi = (uint32_t)(x >> 32);

	if (hi)
		return 63 - (unsigned)__builtin_clz(hi);
	return 31 - (unsigned)__builtin_clz((uint32_t)x);
}

/* Index of the least significant set bit of @x (@x != 0). */
static unsigned lsb64(uint64_t x)
{
	uint32_t lo = (uint32_t)x;

	if (lo)
		return (unsigned)__builtin_ctz(lo);
	return 32 + (unsigned)__builtin_ctz((uint32_t)(x >> 32));
}

/* Level a timer firing at @fire belongs to while the wheel is at @now. */
static unsigned level_for(uint64_t now, uint64_t fire)
{
	return msb64(now ^ fire) / TIMER_WHEEL_LEVEL_BITS;
}

/* Slot index of @tick on @level. */
static unsigned index_on_level(uint64_t tick, unsigned level)
{
	return (unsigned)(tick >> (level * TIMER_WHEEL_LEVEL_BITS)) & (TIMER_WHEEL_SLOTS - 1);
}

/* First tick of slot @index on @level, for a wheel standing at @now. */
static uint64_t slot_start(uint64_t now, unsigned level, unsigned index)
{
	unsigned low = level * TIMER_WHEEL_LEVEL_BITS;
	unsigned high = low + TIMER_WHEEL_LEVEL_BITS;
	uint64_t above = high >= 64 ? 0 : now & ~((UINT64_C(1) << high) - 1);

	return above | ((uint64_t)index << low);
}

void timer_wheel_init(struct timer_wheel *w, uint64_t now)
{
	unsigned i;

	w->now = now;
	for (i = 0; i < TIMER_WHEEL_LEVELS; i++)
		w->occupied[i] = 0;
	w->levels_occupied = 0;
	w->pending = 0;
	w->advancing = false;
	w->stats.fired = 0;
	w->stats.cascaded = 0;
	w->stats.slots_run = 0;
	for (i = 0; i < TIMER_WHEEL_LEVELS * TIMER_WHEEL_SLOTS; i++) {
		w->slots[i].first = NULL;
		w->slots[i].last = NULL;
	}
}

void wheel_timer_setup(struct wheel_timer *t, void (*fn)(struct timer_wheel *w, struct wheel_timer *t))
{
	t->next = NULL;
	t->prev = NULL;
	t->expires = 0;
	t->fire = 0;
	t->slot = TIMER_WHEEL_NO_SLOT;
	t->fn = fn;
}

/* Put @t (fire tick ahead of now) at the tail of its slot. */
static void enqueue(struct timer_wheel *w, struct wheel_timer *t)
{
	unsigned level = level_for(w->now, t->fire);
	unsigned index = index_on_level(t->fire, level);
	unsigned slot = level * TIMER_WHEEL_SLOTS + index;
	struct wheel_slot *s = &w->slots[slot];

	t->slot = (uint16_t)slot;
	t->next = NULL;
	t->prev = s->last;
	if (s->last)
		s->last->next = t;
	else
		s->first = t;
	s->last = t;
	w->occupied[level] |= UINT64_C(1) << index;
	w->levels_occupied |= UINT32_C(1) << level;
	w->pending++;
}

/* Take queued @t out of its slot, clearing bitmap bits that go empty. */
static void unlink_timer(struct timer_wheel *w, struct wheel_timer *t)
{
	unsigned slot = t->slot;
	struct wheel_slot *s = &w->slots[slot];

	if (t->prev)
		t->prev->next = t->next;
	else
		s->first = t->next;
	if (t->next)
		t->next->prev = t->prev;
	else
		s->last = t->prev;
	if (!s->first) {
		unsigned level = slot / TIMER_WHEEL_SLOTS;

		w->occupied[level] &= ~(UINT64_C(1) << (slot % TIMER_WHEEL_SLOTS));
		if (!w->occupied[level])
			w->levels_occupied &= ~(UINT32_C(1) << level);
	}
	t->next = NULL;
	t->prev = NULL;
	t->slot = TIMER_WHEEL_NO_SLOT;
	w->pending--;
}

/* The tick in [lo, hi] (modulo 2^64) with the most trailing zero bits. */
static uint64_t most_aligned_tick(uint64_t lo, uint64_t hi)
{
	unsigned keep;

	if (hi < lo || lo == 0)
		return 0; /* the window holds 2^64 == 0, which beats any other */
	if (hi == lo)
		return lo;
	/* Below the highest bit where lo - 1 and hi differ, hi's bits can all be
	 * cleared without dropping under lo. */
	keep = msb64((lo - 1) ^ hi);
	return hi & ~((UINT64_C(1) << keep) - 1);
}

/* Fire tick for a timer asked for [expires, expires + slack] at @now. */
static uint64_t choose_fire_tick(uint64_t now, uint64_t expires, uint64_t slack)
{
	uint64_t ahead = expires - now;

	if (ahead == 0 || ahead > TIMER_WHEEL_MAX_AHEAD)
		return now + 1; /* due or past: the next tick */
	if (slack > TIMER_WHEEL_MAX_AHEAD - ahead)
		slack = TIMER_WHEEL_MAX_AHEAD - ahead;
	return most_aligned_tick(expires, expires + slack);
}

bool timer_wheel_add(struct timer_wheel *w, struct wheel_timer *t, uint64_t expires, uint64_t slack)
{
	if (wheel_timer_pending(t))
		return false;
	t->expires = expires;
	t->fire = choose_fire_tick(w->now, expires, slack);
	enqueue(w, t);
	return true;
}

bool timer_wheel_mod(struct timer_wheel *w, struct wheel_timer *t, uint64_t expires, uint64_t slack)
{
	uint64_t fire = choose_fire_tick(w->now, expires, slack);

	if (wheel_timer_pending(t)) {
		t->expires = expires;
		if (fire != t->fire) {
			unlink_timer(w, t);
			t->fire = fire;
			enqueue(w, t);
		}
		return true;
	}
	t->expires = expires;
	t->fire = fire;
	enqueue(w, t);
	return false;
}

bool timer_wheel_cancel(struct timer_wheel *w, struct wheel_timer *t)
{
	if (!wheel_timer_pending(t))
		return false;
	unlink_timer(w, t);
	return true;
}

/* Set bits of @bits above position @cur (none when cur is the last bit). */
static uint64_t bits_after(uint64_t bits, unsigned cur)
{
	if (cur + 1 >= 64)
		return 0;
	return bits & (~UINT64_C(0) << (cur + 1));
}

/* The earliest occupied slot. RETURNS false if the wheel is empty. */
static bool earliest_slot(const struct timer_wheel *w, unsigned *level, unsigned *index)
{
	unsigned lvl, cur;
	uint64_t bits, later;

	if (!w->levels_occupied)
		return false;
	lvl = (unsigned)__builtin_ctz(w->levels_occupied);
	bits = w->occupied[lvl];
	/* Slots after the current one come first; on the top level, indices
	 * below the current one follow after the counter wraps. */
	cur = index_on_level(w->now, lvl);
	later = bits_after(bits, cur);
	*level = lvl;
	*index = lsb64(later ? later : bits);
	return true;
}

/* Run or cascade every timer of @slot, whose first tick is now. */
static uint64_t empty_slot(struct timer_wheel *w, unsigned slot)
{
	struct wheel_slot *s = &w->slots[slot];
	struct wheel_timer *t;
	uint64_t ran = 0;

	w->stats.slots_run++;
	while ((t = s->first) != NULL) {
		unlink_timer(w, t);
		if (t->fire == w->now) {
			w->stats.fired++;
			ran++;
			if (t->fn)
				t->fn(w, t);
		} else {
			w->stats.cascaded++;
			enqueue(w, t);
		}
	}
	return ran;
}

uint64_t timer_wheel_advance(struct timer_wheel *w, uint64_t now)
{
	uint64_t ran = 0, start;
	unsigned level, index;

	if (w->advancing || now - w->now == 0 || now - w->now > TIMER_WHEEL_MAX_AHEAD)
		return 0;
	w->advancing = true;
	/* Each round moves the current tick strictly forward to the next
	 * occupied slot, so the loop ends at @now. */
	while (earliest_slot(w, &level, &index)) {
		start = slot_start(w->now, level, index);
		if (start - w->now > now - w->now)
			break;
		w->now = start;
		ran += empty_slot(w, level * TIMER_WHEEL_SLOTS + index);
	}
	w->now = now;
	w->advancing = false;
	return ran;
}

/* Earliest fire tick in @s if it holds at most TIMER_WHEEL_EXACT_SCAN
 * timers. RETURNS false if it holds more. */
static bool scan_slot(const struct timer_wheel *w, const struct wheel_slot *s, uint64_t *tick)
{
	const struct wheel_timer *t = s->first;
	uint64_t best = t->fire;
	unsigned n;

	for (n = 0; t && n < TIMER_WHEEL_EXACT_SCAN; n++, t = t->next)
		if (t->fire - w->now < best - w->now)
			best = t->fire;
	if (t)
		return false;
	*tick = best;
	return true;
}

bool timer_wheel_next_expiry(const struct timer_wheel *w, uint64_t *tick)
{
	unsigned level, index;

	if (!earliest_slot(w, &level, &index))
		return false;
	if (level > 0 && scan_slot(w, &w->slots[level * TIMER_WHEEL_SLOTS + index], tick))
		return true;
	*tick = slot_start(w->now, level, index);
	return true;
}

unsigned timer_wheel_slots_in_use(const struct timer_wheel *w)
{
	unsigned level, n = 0, bit;
	uint64_t bits;

	for (level = 0; level < TIMER_WHEEL_LEVELS; level++) {
		bits = w->occupied[level];
		for (bit = 0; bits && bit < TIMER_WHEEL_SLOTS; bit++) {
			bits &= bits - 1;
			n++;
		}
	}
	return n;
}
