/*
 * test_ring.c - host unit tests for the SPSC byte ring (kernel/ring.c):
 * FIFO order, full and empty edges, index wrap-around, capacity rounding,
 * and two-thread stress runs (a producer thread standing in for the UART
 * interrupt, a consumer thread for the shell) that check every byte arrives
 * once and in order, or is counted as dropped.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <cmocka.h>

#include <kernel/ring.h>

/* Bytes pushed through the ring by each stress run. */
#define STRESS_BYTES 2000000
/* A small ring so that it is full and empty many times per run. */
#define STRESS_CAPACITY 16
/* Spins between yields while waiting on the other thread. */
#define SPINS_BEFORE_YIELD 64

/* The stream both threads agree on: xorshift32, so a lost block shows. */
static uint8_t stream_byte(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return (uint8_t)(x >> 24);
}

static void bytes_come_out_in_the_order_they_went_in(void **state)
{
	uint8_t storage[8], byte;
	struct ring r;
	int i;

	(void)state;
	ring_init(&r, storage, sizeof(storage));
	assert_int_equal(ring_count(&r), 0);
	for (i = 0; i < 5; i++)
		assert_true(ring_put(&r, (uint8_t)('a' + i)));
	assert_int_equal(ring_count(&r), 5);
	for (i = 0; i < 5; i++) {
		assert_true(ring_get(&r, &byte));
		assert_int_equal(byte, 'a' + i);
	}
	assert_false(ring_get(&r, &byte));
	assert_int_equal(ring_count(&r), 0);
}

static void full_ring_refuses_and_counts_dropped_bytes(void **state)
{
	uint8_t storage[4], byte;
	struct ring r;
	int i;

	(void)state;
	ring_init(&r, storage, sizeof(storage));
	for (i = 0; i < 4; i++)
		assert_true(ring_put(&r, (uint8_t)i));
	assert_false(ring_put(&r, 100));
	assert_false(ring_put(&r, 101));
	assert_int_equal(ring_dropped(&r), 2);
	assert_int_equal(ring_count(&r), 4);
	/* The bytes already in are untouched by the refused ones. */
	for (i = 0; i < 4; i++) {
		assert_true(ring_get(&r, &byte));
		assert_int_equal(byte, i);
	}
	/* Room again after a get. */
	assert_true(ring_put(&r, 7));
	assert_int_equal(ring_dropped(&r), 2);
}

static void indices_wrap_around_size_t_without_losing_bytes(void **state)
{
	uint8_t storage[4], byte;
	struct ring r;
	int i;

	(void)state;
	ring_init(&r, storage, sizeof(storage));
	/* Start just below the wrap of the free-running counters. */
	r.head = r.tail = SIZE_MAX - 2;
	for (i = 0; i < 100; i++) {
		assert_true(ring_put(&r, (uint8_t)i));
		assert_true(ring_put(&r, (uint8_t)(i + 1)));
		assert_int_equal(ring_count(&r), 2);
		assert_true(ring_get(&r, &byte));
		assert_int_equal(byte, (uint8_t)i);
		assert_true(ring_get(&r, &byte));
		assert_int_equal(byte, (uint8_t)(i + 1));
	}
	assert_true(r.head < 1000);  /* it did wrap */
}

static void capacity_is_rounded_down_to_a_power_of_two(void **state)
{
	uint8_t storage[100];
	struct ring r;
	int i;

	(void)state;
	ring_init(&r, storage, 100);
	assert_int_equal(ring_capacity(&r), 64);
	for (i = 0; i < 64; i++)
		assert_true(ring_put(&r, 0));
	assert_false(ring_put(&r, 0));
	ring_init(&r, storage, 1);
	assert_int_equal(ring_capacity(&r), 1);
	assert_true(ring_put(&r, 9));
	assert_false(ring_put(&r, 9));
}

static void ring_without_storage_drops_everything(void **state)
{
	uint8_t storage[1], byte;
	struct ring r;

	(void)state;
	ring_init(&r, NULL, 64);
	assert_int_equal(ring_capacity(&r), 0);
	assert_false(ring_put(&r, 1));
	assert_false(ring_get(&r, &byte));
	assert_int_equal(ring_dropped(&r), 1);
	ring_init(&r, storage, 0);
	assert_false(ring_put(&r, 1));
	assert_int_equal(ring_count(&r), 0);
}

struct stress {
	struct ring ring;
	uint8_t storage[STRESS_CAPACITY];
	bool producer_retries;      /* wait for room instead of dropping */
	uint8_t *accepted;          /* with drops: the bytes ring_put took, in order */
	size_t naccepted;
	size_t refusals;            /* ring_put calls that returned false */
	bool producer_done;
	uint8_t *received;          /* what the consumer got, in order */
	size_t nreceived;
	bool received_too_much;     /* more bytes came out than went in */
	size_t max_count_seen;
};

static void wait_a_little(unsigned *spins)
{
	if (++*spins % SPINS_BEFORE_YIELD == 0)
		sched_yield();
}

static void *producer_thread(void *arg)
{
	struct stress *s = arg;
	uint32_t seed = 1;
	unsigned spins = 0;
	size_t i;

	for (i = 0; i < STRESS_BYTES; i++) {
		uint8_t byte = stream_byte(&seed);

		if (ring_put(&s->ring, byte)) {
			s->accepted[s->naccepted++] = byte;
			continue;
		}
		s->refusals++;
		if (!s->producer_retries)
			continue;
		while (!ring_put(&s->ring, byte)) {
			s->refusals++;
			wait_a_little(&spins);
		}
		s->accepted[s->naccepted++] = byte;
	}
	__atomic_store_n(&s->producer_done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void *consumer_thread(void *arg)
{
	struct stress *s = arg;
	unsigned spins = 0;
	uint8_t byte;

	/* In the dropping run, let the ring overflow for sure before draining. */
	while (!s->producer_retries && ring_dropped(&s->ring) == 0)
		wait_a_little(&spins);
	for (;;) {
		size_t count = ring_count(&s->ring);

		if (count > s->max_count_seen)
			s->max_count_seen = count;
		if (ring_get(&s->ring, &byte)) {
			/* cmocka asserts only work in the main thread: flag it. */
			if (s->nreceived == STRESS_BYTES) {
				s->received_too_much = true;
				return NULL;
			}
			s->received[s->nreceived++] = byte;
			continue;
		}
		/* Empty: finished only if the producer was done before we looked. */
		if (__atomic_load_n(&s->producer_done, __ATOMIC_ACQUIRE) && ring_count(&s->ring) == 0)
			return NULL;
		wait_a_little(&spins);
	}
}

static struct stress *run_stress(bool producer_retries)
{
	struct stress *s = calloc(1, sizeof(*s));
	pthread_t producer, consumer;

	assert_non_null(s);
	s->accepted = malloc(STRESS_BYTES);
	s->received = malloc(STRESS_BYTES);
	assert_non_null(s->accepted);
	assert_non_null(s->received);
	s->producer_retries = producer_retries;
	ring_init(&s->ring, s->storage, sizeof(s->storage));
	assert_int_equal(pthread_create(&consumer, NULL, consumer_thread, s), 0);
	assert_int_equal(pthread_create(&producer, NULL, producer_thread, s), 0);
	assert_int_equal(pthread_join(producer, NULL), 0);
	assert_int_equal(pthread_join(consumer, NULL), 0);
	return s;
}

static void free_stress(struct stress *s)
{
	free(s->accepted);
	free(s->received);
	free(s);
}

static void two_threads_deliver_every_byte_once_and_in_order(void **state)
{
	struct stress *s = run_stress(true);
	uint32_t seed = 1;
	size_t i;

	(void)state;
	assert_false(s->received_too_much);
	assert_int_equal(s->nreceived, STRESS_BYTES);
	/* Every refused attempt counts as dropped, even if it is retried. */
	assert_int_equal(ring_dropped(&s->ring), s->refusals);
	for (i = 0; i < STRESS_BYTES; i++) {
		if (s->received[i] != stream_byte(&seed))
			fail_msg("byte %zu differs: lost, duplicated or reordered", i);
	}
	assert_true(s->max_count_seen <= STRESS_CAPACITY);
	free_stress(s);
}

static void two_threads_with_a_full_ring_lose_only_counted_bytes(void **state)
{
	struct stress *s = run_stress(false);

	(void)state;
	/* What was accepted arrived, in order; the rest is in dropped. */
	assert_false(s->received_too_much);
	assert_int_equal(s->nreceived, s->naccepted);
	assert_int_equal(ring_dropped(&s->ring), s->refusals);
	assert_true(ring_dropped(&s->ring) > 0);
	assert_int_equal(s->naccepted + ring_dropped(&s->ring), STRESS_BYTES);
	assert_memory_equal(s->received, s->accepted, s->nreceived);
	free_stress(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bytes_come_out_in_the_order_they_went_in),
		cmocka_unit_test(full_ring_refuses_and_counts_dropped_bytes),
		cmocka_unit_test(indices_wrap_around_size_t_without_losing_bytes),
		cmocka_unit_test(capacity_is_rounded_down_to_a_power_of_two),
		cmocka_unit_test(ring_without_storage_drops_everything),
		cmocka_unit_test(two_threads_deliver_every_byte_once_and_in_order),
		cmocka_unit_test(two_threads_with_a_full_ring_lose_only_counted_bytes),
	};
	return cmocka_run_group_tests_name("ring", tests, NULL, NULL);
}
