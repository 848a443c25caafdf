/*
 * bench_wheel.c - workloads for callgrind instruction counts of the timer
 * wheel (kernel/time/timer_wheel.c); tests/bench/wheel.mk runs them.
 *
 *   bench_wheel addcancel N   N add+cancel pairs on a wheel that already
 *                             holds BACKGROUND timers spread over all the
 *                             levels a 1000 Hz kernel uses (steady state)
 *   bench_wheel step          1000 timers due at random ticks in 1..4096,
 *                             advanced one tick at a time (the periodic tick)
 *   bench_wheel jump          the same 1000 timers, one advance to 4096
 *                             (a tickless wake-up)
 *   bench_wheel sametick      1000 timers due at the same tick
 *
 * Only bench_wheel_measure() is counted (valgrind --toggle-collect): set-up
 * and random numbers are outside it. It prints "ops N" for the divisor.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time/timer_wheel.h>

/* Timers already queued during add+cancel: a busy kernel's worth. */
#define BACKGROUND 10000
/* Timers the add+cancel pairs cycle through. */
#define POOL 1024
/* Timers expired by the expiry workloads. */
#define EXPIRING 1000
/* The ticks they are spread over (about 4 s at 1000 Hz). */
#define SPREAD 4096

enum workload { ADD_CANCEL, STEP, JUMP, SAME_TICK };

static struct timer_wheel wheel;
static struct wheel_timer background[BACKGROUND], pool[POOL], expiring[EXPIRING];
static uint64_t *pool_expiry;
static unsigned long ops, fired;
static enum workload workload;

static void count_fire(struct timer_wheel *w, struct wheel_timer *t)
{
	(void)w;
	(void)t;
	fired++;
}

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * UINT64_C(2685821657736338717);
}

__attribute__((noinline)) void bench_wheel_measure(void)
{
	unsigned long i;
	uint64_t t;

	switch (workload) {
	case ADD_CANCEL:
		for (i = 0; i < ops; i++) {
			timer_wheel_add(&wheel, &pool[i % POOL], pool_expiry[i], 0);
			timer_wheel_cancel(&wheel, &pool[i % POOL]);
		}
		break;
	case STEP:
		for (t = 1; t <= SPREAD; t++)
			timer_wheel_advance(&wheel, t);
		break;
	case JUMP:
	case SAME_TICK:
		timer_wheel_advance(&wheel, SPREAD);
		break;
	}
}

static void setup(void)
{
	unsigned long i;

	timer_wheel_init(&wheel, 0);
	if (workload == ADD_CANCEL) {
		for (i = 0; i < BACKGROUND; i++) {
			wheel_timer_setup(&background[i], count_fire);
			timer_wheel_add(&wheel, &background[i], 1 + rnd() % (UINT64_C(1) << 22), 0);
		}
		for (i = 0; i < POOL; i++)
			wheel_timer_setup(&pool[i], count_fire);
		pool_expiry = malloc(ops * sizeof(*pool_expiry));
		if (!pool_expiry)
			exit(1);
		/* Timeouts of 1 ms .. 65 s, the range drivers and protocols use. */
		for (i = 0; i < ops; i++)
			pool_expiry[i] = 1 + rnd() % (UINT64_C(1) << 16);
		return;
	}
	for (i = 0; i < EXPIRING; i++) {
		wheel_timer_setup(&expiring[i], count_fire);
		timer_wheel_add(&wheel, &expiring[i], workload == SAME_TICK ? SPREAD : 1 + rnd() % SPREAD, 0);
	}
	ops = EXPIRING;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "addcancel") && argc == 3) {
		workload = ADD_CANCEL;
		ops = strtoul(argv[2], NULL, 10);
		if (!ops)
			goto usage;
	} else if (!strcmp(argv[1], "step")) {
		workload = STEP;
	} else if (!strcmp(argv[1], "jump")) {
		workload = JUMP;
	} else if (!strcmp(argv[1], "sametick")) {
		workload = SAME_TICK;
	} else {
		goto usage;
	}
	setup();
	bench_wheel_measure();
	if (workload != ADD_CANCEL && fired != EXPIRING) {
		fprintf(stderr, "bench_wheel: %lu of %d timers fired\n", fired, EXPIRING);
		return 1;
	}
	printf("ops %lu\n", ops);
	printf("cascades %llu\n", (unsigned long long)wheel.stats.cascaded);
	return 0;
usage:
	fprintf(stderr, "usage: bench_wheel addcancel N | step | jump | sametick\n");
	return 2;
}
