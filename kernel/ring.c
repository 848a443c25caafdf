/*
 * ring.c - the single-producer single-consumer byte ring described in
 * include/kernel/ring.h.
 *
 * Ordering, in the terms of the C11 memory model (__atomic builtins):
 *   producer: read tail (acquire), write the slot, publish head (release);
 *   consumer: read head (acquire), read the slot, publish tail (release).
 * The acquire on the other side's index pairs with its release, so the
 * consumer never reads a slot before the byte is in it, and the producer
 * never overwrites a slot before the consumer has read it. Each side reads
 * its own index relaxed: nobody else writes it.
 */
#include <kernel/ring.h>

/* Largest power of two not above @n (n > 0). */
static size_t round_down_pow2(size_t n)
{
	size_t p = 1;

	while (p <= n / 2)
		p *= 2;
	return p;
}

void ring_init(struct ring *r, uint8_t *storage, size_t capacity)
{
	r->storage = storage;
	r->capacity = (storage != NULL && capacity > 0) ? round_down_pow2(capacity) : 0;
	r->head = 0;
	r->tail = 0;
	r->dropped = 0;
}

bool ring_put(struct ring *r, uint8_t byte)
{
	size_t head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	size_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);

	if (head - tail >= r->capacity) {
		/* Only the producer writes dropped; atomic so readers see whole values. */
		__atomic_store_n(&r->dropped, __atomic_load_n(&r->dropped, __ATOMIC_RELAXED) + 1,
				 __ATOMIC_RELAXED);
		return false;
	}
	r->storage[head & (r->capacity - 1)] = byte;
	__atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
	return true;
}

bool ring_get(struct ring *r, uint8_t *byte)
{
	size_t tail = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
	size_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

	if (head == tail)
		return false;
	*byte = r->storage[tail & (r->capacity - 1)];
	__atomic_store_n(&r->tail, tail + 1, __ATOMIC_RELEASE);
	return true;
}

size_t ring_count(const struct ring *r)
{
	/*
	 * Tail first: it only grows, so an older tail with a newer head can
	 * only overstate the fill level, which the clamp bounds; the other
	 * order could see tail > head and wrap around to a huge count.
	 */
	size_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	size_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	size_t count = head - tail;

	return count > r->capacity ? r->capacity : count;
}

size_t ring_dropped(const struct ring *r)
{
	return __atomic_load_n(&r->dropped, __ATOMIC_RELAXED);
}

size_t ring_capacity(const struct ring *r)
{
	return r->capacity;
}
