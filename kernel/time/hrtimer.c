/*
 * hrtimer.c - the hrtimer queue: an intrusive pairing heap ordered by
 * (expiry, queueing order). See hrtimer.h for why a pairing heap, and
 * Fredman et al., "The pairing heap: a new form of self-adjusting heap"
 * (Algorithmica 1, 1986) for the structure: a heap-ordered tree kept as
 * first-child/next-sibling lists; meld makes the later root the first
 * child of the earlier one; deleting a root melds its children in pairs left
 * to right, then melds the pairs right to left ("two-pass").
 */
#include "hrtimer.h"

/* True if @a must expire before @b. */
static bool before(const struct hrtimer *a, const struct hrtimer *b)
{
	if (a->expires_ns != b->expires_ns)
		return a->expires_ns < b->expires_ns;
	return a->seq < b->seq;
}

/* Meld two detached heaps (roots with no prev/sibling). RETURNS the root. */
static struct hrtimer *meld(struct hrtimer *a, struct hrtimer *b)
{
	struct hrtimer *tmp;

	if (before(b, a)) {
		tmp = a;
		a = b;
		b = tmp;
	}
	b->sibling = a->child;
	if (a->child)
		a->child->prev = b;
	b->prev = a;
	a->child = b;
	return a;
}

/* Two-pass merge of the sibling list starting at @first. RETURNS the new
 * root (detached), or NULL for an empty list. Each pass walks the list once. */
static struct hrtimer *merge_pairs(struct hrtimer *first)
{
	struct hrtimer *pairs = NULL, *a, *b, *rest, *root;

	/*
	 * One child: it is the root (the periodic tick's expiry, with one
	 * timer waiting behind it, e.g. a line's poll timer: every tick).
	 */
	if (first && !first->sibling) {
		first->prev = NULL;
		return first;
	}
	while (first) {
		a = first;
		b = a->sibling;
		rest = b ? b->sibling : NULL;
		a->prev = a->sibling = NULL;
		if (b) {
			b->prev = b->sibling = NULL;
			a = meld(a, b);
		}
		a->sibling = pairs; /* stack of melded pairs, last pair on top */
		pairs = a;
		first = rest;
	}
	if (!pairs)
		return NULL;
	root = pairs;
	pairs = pairs->sibling;
	root->sibling = NULL;
	while (pairs) {
		a = pairs;
		pairs = a->sibling;
		a->sibling = NULL;
		root = meld(root, a);
	}
	return root;
}

void hrtimer_setup(struct hrtimer *t, void (*fn)(struct hrtimer *t), void *arg)
{
	t->child = t->sibling = t->prev = NULL;
	t->queue = NULL;
	t->expires_ns = 0;
	t->seq = 0;
	t->fn = fn;
	t->arg = arg;
}

void hrtimer_queue_init(struct hrtimer_queue *q, void (*program)(struct hrtimer_queue *q, uint64_t first_expires_ns))
{
	q->root = NULL;
	q->next_seq = 0;
	q->count = 0;
	q->running = false;
	q->program = program;
}

/* Take pending @t out of @q's heap without calling the hook. */
static void detach(struct hrtimer_queue *q, struct hrtimer *t)
{
	struct hrtimer *sub;

	if (t == q->root) {
		q->root = merge_pairs(t->child);
	} else {
		/* prev is the parent when t is its first child. */
		if (t->prev->child == t)
			t->prev->child = t->sibling;
		else
			t->prev->sibling = t->sibling;
		if (t->sibling)
			t->sibling->prev = t->prev;
		t->sibling = t->prev = NULL;
		sub = merge_pairs(t->child);
		if (sub)
			q->root = meld(q->root, sub);
	}
	t->child = t->sibling = t->prev = NULL;
	t->queue = NULL;
	q->count--;
}

/* Call @q's hook if its earliest expiry is no longer (@had, @old_ns). */
static void note_first(struct hrtimer_queue *q, bool had, uint64_t old_ns)
{
	if (q->running || !q->program || !q->root)
		return;
	if (!had || q->root->expires_ns != old_ns)
		q->program(q, q->root->expires_ns);
}

void hrtimer_queue_add(struct hrtimer_queue *q, struct hrtimer *t, uint64_t expires_ns)
{
	bool had = q->root != NULL;
	uint64_t old_ns = had ? q->root->expires_ns : 0;
	struct hrtimer_queue *old_q = t->queue;

	if (old_q) {
		uint64_t old_q_first = old_q->root->expires_ns;

		detach(old_q, t);
		if (old_q != q)
			note_first(old_q, true, old_q_first);
	}
	t->expires_ns = expires_ns;
	t->seq = q->next_seq++;
	t->queue = q;
	q->count++;
	q->root = q->root ? meld(q->root, t) : t;
	note_first(q, had, old_ns);
}

bool hrtimer_queue_remove(struct hrtimer *t)
{
	struct hrtimer_queue *q = t->queue;
	uint64_t old_ns;

	if (!q)
		return false;
	old_ns = q->root->expires_ns;
	detach(q, t);
	note_first(q, true, old_ns);
	return true;
}

void hrtimer_queue_run(struct hrtimer_queue *q, struct hrtimer_run *run)
{
	struct hrtimer *t;
	uint64_t late;

	run->ran = 0;
	run->late = 0;
	run->max_late_ns = 0;
	run->cut_short = false;
	q->running = true;
	while ((t = q->root) != NULL && t->expires_ns <= run->now_ns) {
		if (run->ran >= run->budget) {
			run->cut_short = true;
			break;
		}
		detach(q, t);
		late = run->now_ns - t->expires_ns;
		if (late > run->max_late_ns)
			run->max_late_ns = late;
		if (late > run->late_threshold_ns)
			run->late++;
		run->ran++;
		if (t->fn) {
			if (run->call)
				run->call(t);
			else
				t->fn(t);
		}
	}
	q->running = false;
}
