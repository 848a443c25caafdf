/*
 * ring.h - a lock-free single-producer single-consumer byte ring, made for
 * the serial receive path: the UART interrupt handler puts, the shell gets.
 * It needs no lock and no interrupt masking because each index has exactly
 * one writer: the producer advances head, the consumer advances tail, and
 * the C11 acquire/release ordering (__atomic builtins, GCC manual "Built-in
 * Functions for Memory Model Aware Atomic Operations") makes a byte visible
 * before the index that publishes it.
 *
 * head and tail count bytes ever put and taken and wrap around freely; the
 * capacity is a power of two so that (index & mask) is the slot and
 * head - tail is the fill level even across the wrap.
 */
#ifndef KERNEL_RING_H
#define KERNEL_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ring {
	uint8_t *storage;   /* caller's buffer of capacity bytes */
	size_t capacity;    /* a power of two, or 0 for a ring that holds nothing */
	size_t head;        /* bytes ever put; written by the producer only */
	size_t tail;        /* bytes ever taken; written by the consumer only */
	size_t dropped;     /* bytes refused because the ring was full; producer writes */
};

/*
 * ring_init - set up @r over @capacity bytes at @storage, empty. A capacity
 * that is not a power of two is rounded down to one (storage beyond that is
 * unused); NULL storage or capacity 0 gives a ring that drops every byte.
 * CONTEXT: before producer and consumer start; not concurrently with them.
 */
void ring_init(struct ring *r, uint8_t *storage, size_t capacity);

/*
 * ring_put - append @byte. CONTEXT: the single producer (interrupt handler
 * or thread); may run concurrently with the consumer.
 * RETURNS true if stored; false if the ring was full (then dropped is counted).
 */
bool ring_put(struct ring *r, uint8_t byte);

/*
 * ring_get - take the oldest byte into *@byte. CONTEXT: the single consumer;
 * may run concurrently with the producer.
 * RETURNS true if a byte was taken, false if the ring was empty.
 */
bool ring_get(struct ring *r, uint8_t *byte);

/*
 * ring_count - bytes waiting. CONTEXT: any; while the other side runs the
 * answer is a snapshot: the consumer can get at least this many, and the
 * producer has at most this many in the ring.
 * RETURNS a value in [0, capacity].
 */
size_t ring_count(const struct ring *r);

/* ring_dropped - bytes refused so far because the ring was full. CONTEXT: any. */
size_t ring_dropped(const struct ring *r);

/* ring_capacity - bytes the ring can hold (after rounding). CONTEXT: any. */
size_t ring_capacity(const struct ring *r);

#endif
