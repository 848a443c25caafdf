/*
 * hrtimer.h - high-resolution one-shot timers: a queue ordered by absolute
 * expiry in nanoseconds.
 *
 * The queue is an intrusive pairing heap (Fredman, Sedgewick, Sleator and
 * Tarjan, "The pairing heap: a new form of self-adjusting heap",
 * Algorithmica 1986), chosen because:
 *  - timers live in the caller's storage and the queue has no capacity
 *    limit and needs no allocator (a binary heap would need an array);
 *  - the earliest timer is the root: reading it is O(1), and it is what the
 *    clock event device is programmed from after every change;
 *  - insert is O(1); removing the earliest or any other timer is O(log n)
 *    amortized, where a sorted list costs O(n) per insert, paid on every
 *    tick in one-shot mode (the tick itself is an hrtimer);
 *  - the code is small: meld and a two-pass merge.
 * Equal expiries are kept first-in first-out by a per-queue sequence number.
 *
 * The queue knows no clock: the owner (kernel/time/tick.c) runs it with the
 * current time and, through the program hook, learns when the earliest
 * expiry changed so that it can program the clock event device. This file
 * is pure and the caller serialises (interrupts off). The kernel-facing
 * calls hrtimer_start() and hrtimer_cancel() are in time.h.
 */
#ifndef TIME_HRTIMER_H
#define TIME_HRTIMER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hrtimer_queue;

/* One timer, in the caller's storage. The heap links are the queue's. */
struct hrtimer {
	struct hrtimer *child;    /* first child in the heap */
	struct hrtimer *sibling;  /* next sibling */
	struct hrtimer *prev;     /* previous sibling, or parent if first child */
	struct hrtimer_queue *queue; /* queue it is pending on, NULL if idle */
	uint64_t expires_ns;      /* absolute expiry, ns of ktime */
	uint64_t seq;             /* queueing order, breaks expiry ties */
	void (*fn)(struct hrtimer *t); /* runs once per expiry */
	void *arg;                /* for the callback */
};

/* A queue. The hook is called (outside runs) when the earliest expiry
 * changes and the queue is not empty. */
struct hrtimer_queue {
	struct hrtimer *root;
	uint64_t next_seq;
	uint32_t count;
	bool running;
	void (*program)(struct hrtimer_queue *q, uint64_t first_expires_ns);
};

/* Parameters and results of one hrtimer_queue_run(). */
struct hrtimer_run {
	uint64_t now_ns;            /* in: run timers expiring at or before this */
	/* in, optional: runs each due timer (it must call t->fn(t)); NULL: t->fn(t) directly */
	void (*call)(struct hrtimer *t);
	uint32_t budget;            /* in: most callbacks this run may make */
	uint64_t late_threshold_ns; /* in: lateness above this counts as late */
	uint32_t ran;               /* out: callbacks made */
	uint32_t late;              /* out: of which later than the threshold */
	uint64_t max_late_ns;       /* out: largest lateness seen (now - expiry) */
	bool cut_short;             /* out: budget spent with timers still due */
};

/*
 * hrtimer_setup - prepare idle timer @t to call @fn(t); @arg is for @fn.
 * CONTEXT: any; @t must not be pending.
 */
void hrtimer_setup(struct hrtimer *t, void (*fn)(struct hrtimer *t), void *arg);

/* hrtimer_pending - RETURNS true while @t is queued. */
static inline bool hrtimer_pending(const struct hrtimer *t)
{
	return t->queue != NULL;
}

/*
 * hrtimer_queue_init - empty @q; @program (may be NULL) is its hook.
 * CONTEXT: before any other use of @q.
 */
void hrtimer_queue_init(struct hrtimer_queue *q, void (*program)(struct hrtimer_queue *q, uint64_t first_expires_ns));

/*
 * hrtimer_queue_add - queue @t to expire at @expires_ns; a pending @t is
 * moved (first taken off the queue it is on). Calls the hook if this changed
 * the earliest expiry and no run is in progress.
 * CONTEXT: caller serialises. O(1), O(log n) amortized when moving.
 */
void hrtimer_queue_add(struct hrtimer_queue *q, struct hrtimer *t, uint64_t expires_ns);

/*
 * hrtimer_queue_remove - take pending @t off its queue; calls the hook if
 * the earliest expiry changed (and the queue is not now empty).
 * CONTEXT: caller serialises. O(log n) amortized.
 * RETURNS true if @t was pending.
 */
bool hrtimer_queue_remove(struct hrtimer *t);

/* hrtimer_queue_first - RETURNS the earliest timer of @q, or NULL. O(1). */
static inline const struct hrtimer *hrtimer_queue_first(const struct hrtimer_queue *q)
{
	return q->root;
}

/*
 * hrtimer_queue_run - run, in expiry order, every timer of @q that expires at
 * or before @run->now_ns, up to @run->budget callbacks. Each timer is
 * dequeued before its callback; callbacks may start and cancel any timer,
 * themselves included: one started for a time <= now_ns runs in this same
 * run (the budget bounds a callback that keeps doing so). The hook is not
 * called during the run: afterwards the owner programs the device from
 * hrtimer_queue_first().
 * CONTEXT: caller serialises; callbacks run in the caller's context.
 */
void hrtimer_queue_run(struct hrtimer_queue *q, struct hrtimer_run *run);

#endif
