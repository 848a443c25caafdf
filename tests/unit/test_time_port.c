/*
 * test_time_port.c - the host port of kernel/time (kernel/time/time_port.h)
 * for the unit tests, plus the fakes they share: a clock source that is a
 * variable the test advances and a clock event device that records what it
 * is programmed with and "interrupts" when the test says so.
 *
 * The port models the interrupt flag and checks that save/restore pair up
 * (FreeRTOS-test-port style): a restore without a save, or a restore while
 * interrupts are enabled, fails the test. time_port_idle() checks it is
 * called with interrupts disabled and delivers an "interrupt" through the
 * test's idle hook.
 *
 * Each test file declares what it uses from here in a block marked
 * "test_time_port.c".
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <time/clockevent.h>
#include <time/clocksource.h>
#include <time/time_port.h>

/* ---- Port ---------------------------------------------------------------- */

/*
 * Several CPUs (threads): the modelled interrupt flag and depth are each
 * thread's own, and the outermost save takes one lock shared by all (the
 * x86 port's recursive time_lock), which time_port_callback_begin gives up
 * whole around a callback; time_port_cpu_id is the thread's CPU number
 * (test_port_set_cpu). A single-threaded test never waits on the lock.
 */
__thread bool test_irqs_disabled;     /* the modelled interrupt flag */
__thread unsigned test_irq_depth;     /* saves not yet restored */
static __thread unsigned test_cpu;    /* time_port_cpu_id of this thread */
static pthread_mutex_t test_time_lock = PTHREAD_MUTEX_INITIALIZER;
unsigned long test_lock_takes;        /* outermost saves, all threads (to see a waiter spin) */
void (*test_idle_hook)(void); /* the "interrupt" time_port_idle waits for */
unsigned test_idle_calls;
unsigned test_log_count;
int test_last_log_level;
char test_last_log[256];

unsigned long time_port_irq_save(void)
{
	unsigned long was_disabled = test_irqs_disabled;

	if (test_irq_depth == 0) {
		pthread_mutex_lock(&test_time_lock);
		__atomic_add_fetch(&test_lock_takes, 1, __ATOMIC_RELAXED);
	}
	test_irqs_disabled = true;
	test_irq_depth++;
	return was_disabled;
}

void time_port_irq_restore(unsigned long flags)
{
	assert_true(test_irq_depth > 0);
	assert_true(test_irqs_disabled);
	test_irq_depth--;
	test_irqs_disabled = flags != 0;
	if (test_irq_depth == 0)
		pthread_mutex_unlock(&test_time_lock);
}

/* The lock is given up whole around the callback (other threads get in); interrupts stay disabled. */
unsigned long time_port_callback_begin(void)
{
	unsigned long depth = test_irq_depth;

	assert_true(test_irqs_disabled);
	assert_true(depth > 0);
	test_irq_depth = 0;
	pthread_mutex_unlock(&test_time_lock);
	return depth;
}

void time_port_callback_end(unsigned long token)
{
	assert_true(test_irqs_disabled);
	assert_int_equal(test_irq_depth, 0);
	pthread_mutex_lock(&test_time_lock);
	test_irq_depth = (unsigned)token;
}

unsigned int time_port_cpu_id(void)
{
	return test_cpu;
}

/* The CPU number this thread plays from now on (0 unless set). */
void test_port_set_cpu(unsigned cpu)
{
	test_cpu = cpu;
}

void time_port_idle(void)
{
	assert_true(test_irqs_disabled);
	assert_non_null(test_idle_hook);
	test_idle_calls++;
	test_irqs_disabled = false;
	test_idle_hook();
	test_irqs_disabled = true;
}

void time_port_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(test_last_log, sizeof(test_last_log), fmt, ap);
	va_end(ap);
	test_last_log_level = level;
	test_log_count++;
	if (getenv("TIME_TEST_VERBOSE"))
		fprintf(stderr, "log<%d>: %s\n", level, test_last_log);
}

/* Reset the port between test cases. */
void test_port_reset(void)
{
	if (test_irq_depth)
		pthread_mutex_unlock(&test_time_lock);  /* a failed case left it taken */
	test_irqs_disabled = false;
	test_irq_depth = 0;
	test_cpu = 0;
	test_idle_hook = NULL;
	test_idle_calls = 0;
	test_log_count = 0;
	test_last_log[0] = '\0';
}

/* Every save was restored and interrupts are enabled again. */
void test_port_check_balanced(void)
{
	assert_int_equal(test_irq_depth, 0);
	assert_false(test_irqs_disabled);
}

/* ---- Fake clock source ---------------------------------------------------- */

uint64_t fake_counter;          /* the counter; tests advance it */
uint64_t fake_counter_hz = 1000000000u; /* its rate, for the fake device */
uint64_t fake_counter_per_read; /* added after each read (busy-wait tests) */
uint64_t fake_counter_reads;

static uint64_t fake_cs_read(struct clocksource *cs)
{
	uint64_t v = fake_counter;

	fake_counter_reads++;
	fake_counter += fake_counter_per_read;
	return v & cs->mask;
}

/* Back to a stopped 1 GHz counter at 0. */
void fake_counter_reset(void)
{
	fake_counter = 0;
	fake_counter_hz = 1000000000u;
	fake_counter_per_read = 0;
	fake_counter_reads = 0;
}

void fake_clocksource_init(struct clocksource *cs, const char *name, uint32_t freq_hz, uint64_t mask, int rating)
{
	*cs = (struct clocksource){
		.name = name,
		.read = fake_cs_read,
		.mask = mask,
		.freq_hz = freq_hz,
		.rating = rating,
	};
}

/* ---- Fake clock event device ------------------------------------------------ */

/* Deltas kept in the log; older ones are dropped. */
#define FAKE_DELTA_LOG 64

struct fake_clockevent {
	struct clock_event_device dev;
	uint32_t periodic_hz;   /* last set_periodic(), 0 if none */
	bool armed;             /* one-shot programmed and not fired */
	uint64_t deadline;      /* fake_counter value it fires at */
	uint64_t last_delta;
	uint64_t deltas[FAKE_DELTA_LOG];
	uint64_t programs, shutdowns, periodic_calls;
	unsigned fail_next;     /* set_next_event() fails this many more times */
};

static struct fake_clockevent *fake_of(struct clock_event_device *dev)
{
	return (struct fake_clockevent *)((char *)dev - offsetof(struct fake_clockevent, dev));
}

static int fake_set_periodic(struct clock_event_device *dev, uint32_t hz)
{
	struct fake_clockevent *f = fake_of(dev);

	assert_true(test_irqs_disabled);
	f->periodic_hz = hz;
	f->armed = false;
	f->periodic_calls++;
	return 0;
}

static int fake_set_next_event(struct clock_event_device *dev, uint64_t delta_ns)
{
	struct fake_clockevent *f = fake_of(dev);
	/* Counts of the fake counter in delta_ns, rounded up. */
	uint64_t counts = (uint64_t)(((unsigned __int128)delta_ns * fake_counter_hz + 999999999u) / 1000000000u);

	assert_true(test_irqs_disabled);
	assert_true(delta_ns >= dev->min_delta_ns);
	assert_true(delta_ns <= dev->max_delta_ns);
	f->deltas[f->programs % FAKE_DELTA_LOG] = delta_ns;
	f->programs++;
	f->last_delta = delta_ns;
	if (f->fail_next) {
		f->fail_next--;
		return -EIO;
	}
	f->periodic_hz = 0;
	f->armed = true;
	f->deadline = fake_counter + counts;
	return 0;
}

static int fake_shutdown(struct clock_event_device *dev)
{
	struct fake_clockevent *f = fake_of(dev);

	f->shutdowns++;
	f->armed = false;
	f->periodic_hz = 0;
	return 0;
}

void fake_clockevent_init(struct fake_clockevent *f, const char *name, unsigned features, int rating,
			  uint64_t min_delta_ns, uint64_t max_delta_ns)
{
	*f = (struct fake_clockevent){ 0 };
	f->dev.name = name;
	f->dev.features = features;
	f->dev.rating = rating;
	f->dev.set_periodic = fake_set_periodic;
	f->dev.set_next_event = fake_set_next_event;
	f->dev.shutdown = fake_shutdown;
	f->dev.min_delta_ns = min_delta_ns;
	f->dev.max_delta_ns = max_delta_ns;
}

/* The device interrupts: its handler runs with interrupts disabled. */
void fake_clockevent_interrupt(struct fake_clockevent *f)
{
	bool was = test_irqs_disabled;

	test_irqs_disabled = true;
	f->dev.event_handler(&f->dev);
	test_irqs_disabled = was;
}

/* Deliver the programmed one-shot event @latency counts late: the fake
 * counter moves to the deadline plus @latency. */
void fake_clockevent_fire(struct fake_clockevent *f, uint64_t latency)
{
	assert_true(f->armed);
	f->armed = false;
	if (fake_counter < f->deadline)
		fake_counter = f->deadline;
	fake_counter += latency;
	fake_clockevent_interrupt(f);
}
