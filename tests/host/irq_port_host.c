/*
 * irq_port_host.c - the host port of kernel/irq: implements every function
 * of kernel/irq/port.h on POSIX threads, with a virtual clock, and checks
 * that the core uses its locks in pairs (see irq_port_host.h for the rules).
 * Used by the host unit tests (tests/unit/test_irq_*.c), the benchmarks
 * and the defence simulator. Plain C library and pthreads; no cmocka, so
 * that benchmarks can link it too.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

#include <irq/port.h>

/* Marks an initialised lock. */
#define IRQ_HOST_LOCK_MAGIC 0x4c4f434bu
/* Port locks one thread may hold at once (the core holds at most one). */
#define IRQ_HOST_HELD_MAX 8
/* Simulated interrupts one thread may nest. */
#define IRQ_HOST_NESTING_MAX 8
/* Longest kept log message, bytes including the NUL. */
#define IRQ_HOST_LOG_LINE 512
/* Timer callbacks one advance may run before the port calls it a timer storm. */
#define IRQ_HOST_FIRES_MAX (1ul << 26)
/* A gap between two relax calls longer than this starts a new busy-wait (ns). */
#define IRQ_HOST_SPIN_GAP_NS 100000000ull
/* Nanoseconds per second. */
#define NS_PER_S 1000000000ull

/* ---- per-thread simulated CPU state ---------------------------------------- */

static __thread const irq_port_lock_t *held[IRQ_HOST_HELD_MAX];
static __thread unsigned int nr_held;
static __thread bool irqs_off;
static __thread unsigned int irq_nesting;
static __thread bool saved_irqs_off[IRQ_HOST_NESTING_MAX];
static __thread uint64_t spin_start_ns, spin_last_ns;

static uint64_t relax_calls;
static uint64_t lock_calls;
static void (*panic_hook)(const char *msg);

/* A broken rule of the port: say which and stop. */
static void __attribute__((noreturn, format(printf, 1, 2))) host_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "irq host port: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void irq_port_lock_init(irq_port_lock_t *lock)
{
	pthread_mutex_init(&lock->mutex, NULL);
	lock->magic = IRQ_HOST_LOCK_MAGIC;
}

unsigned long irq_port_lock_irqsave(irq_port_lock_t *lock)
{
	unsigned long flags = irqs_off;
	unsigned int i;

	if (lock->magic != IRQ_HOST_LOCK_MAGIC)
		host_fail("lock %p used before irq_port_lock_init", (void *)lock);
	for (i = 0; i < nr_held; i++)
		if (held[i] == lock)
			host_fail("lock %p taken again by the thread that holds it", (void *)lock);
	if (nr_held == IRQ_HOST_HELD_MAX)
		host_fail("more than %d port locks held by one thread", IRQ_HOST_HELD_MAX);
	irqs_off = true;
	pthread_mutex_lock(&lock->mutex);
	held[nr_held++] = lock;
	__atomic_add_fetch(&lock_calls, 1, __ATOMIC_RELAXED);
	return flags;
}

void irq_port_unlock_irqrestore(irq_port_lock_t *lock, unsigned long flags)
{
	if (nr_held == 0 || held[nr_held - 1] != lock)
		host_fail("lock %p released %s", (void *)lock,
			  nr_held == 0 ? "while no lock is held" : "out of order or by a thread that does not hold it");
	if (flags > 1)
		host_fail("lock %p released with flags %lu that no irqsave returned", (void *)lock, flags);
	nr_held--;
	pthread_mutex_unlock(&lock->mutex);
	irqs_off = flags != 0;
}

unsigned int irq_host_locks_held(void) { return nr_held; }
bool irq_host_irqs_disabled(void) { return irqs_off; }
bool irq_host_in_interrupt(void) { return irq_nesting > 0; }

void irq_host_irq_enter(void)
{
	if (irq_nesting == IRQ_HOST_NESTING_MAX)
		host_fail("simulated interrupts nested deeper than %d", IRQ_HOST_NESTING_MAX);
	saved_irqs_off[irq_nesting++] = irqs_off;
	irqs_off = true;
}

/* Finished interrupts per simulated CPU (irq_port_cpu_progress); stalls (irq_host_cpu_stall). */
static uint32_t cpu_progress[IRQ_HOST_CPUS];
static uint64_t cpu_stall_from[IRQ_HOST_CPUS], cpu_stall_until[IRQ_HOST_CPUS];

void irq_host_irq_exit(void)
{
	if (irq_nesting == 0)
		host_fail("irq_host_irq_exit without irq_host_irq_enter");
	irqs_off = saved_irqs_off[--irq_nesting];
	/* The interrupt is finished: release, as port.h asks (pairs with the acquire below). */
	__atomic_add_fetch(&cpu_progress[irq_host_cpu % IRQ_HOST_CPUS], 1, __ATOMIC_RELEASE);
}

void irq_host_cpu_progress_add(unsigned int cpu)
{
	__atomic_add_fetch(&cpu_progress[cpu % IRQ_HOST_CPUS], 1, __ATOMIC_RELEASE);
}

uint32_t irq_port_cpu_progress(unsigned int cpu)
{
	return __atomic_load_n(&cpu_progress[cpu % IRQ_HOST_CPUS], __ATOMIC_ACQUIRE);
}

void irq_host_cpu_stall(unsigned int cpu, uint64_t from_ns, uint64_t until_ns)
{
	if (cpu >= IRQ_HOST_CPUS)
		host_fail("irq_host_cpu_stall: CPU %u past the port's %d", cpu, IRQ_HOST_CPUS);
	__atomic_store_n(&cpu_stall_from[cpu], from_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&cpu_stall_until[cpu], until_ns > from_ns ? until_ns : 0, __ATOMIC_RELEASE);
}

uint64_t irq_host_cpu_stalled_until(unsigned int cpu, uint64_t at_ns)
{
	uint64_t until;

	if (cpu >= IRQ_HOST_CPUS)
		return 0;
	until = __atomic_load_n(&cpu_stall_until[cpu], __ATOMIC_ACQUIRE);
	return until && at_ns >= __atomic_load_n(&cpu_stall_from[cpu], __ATOMIC_RELAXED) && at_ns < until ? until : 0;
}

/* ---- virtual clock and timers ---------------------------------------------- */

static pthread_mutex_t timer_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct irq_port_timer *timers;   /* pending, unsorted */
static uint64_t virtual_now_ns;
static uint64_t arm_seq;

static uint64_t now_calls;   /* irq_port_now_ns calls: the clock reads of the core (the harness reads irq_host_now_ns) */

uint64_t irq_host_now_ns(void)
{
	return __atomic_load_n(&virtual_now_ns, __ATOMIC_ACQUIRE);
}

uint64_t irq_port_now_ns(void)
{
	__atomic_add_fetch(&now_calls, 1, __ATOMIC_RELAXED);
	return irq_host_now_ns();
}

uint64_t irq_host_now_count(void) { return __atomic_load_n(&now_calls, __ATOMIC_RELAXED); }

/* Take @timer off the list (timer_mutex held). RETURNS whether it was pending. */
static bool timer_unlink(struct irq_port_timer *timer)
{
	struct irq_port_timer **link = &timers;

	while (*link && *link != timer)
		link = &(*link)->next;
	if (!*link)
		return false;
	*link = timer->next;
	timer->next = NULL;
	timer->pending = false;
	return true;
}

void irq_port_timer_init(struct irq_port_timer *timer, irq_port_timer_fn fn, void *arg)
{
	pthread_mutex_lock(&timer_mutex);
	timer_unlink(timer);
	timer->fn = fn;
	timer->arg = arg;
	timer->expires_ns = 0;
	timer->armed_seq = 0;
	timer->pending = false;
	timer->next = NULL;
	pthread_mutex_unlock(&timer_mutex);
}

void irq_port_timer_arm(struct irq_port_timer *timer, uint64_t expires_ns)
{
	if (!timer->fn)
		host_fail("timer %p armed before irq_port_timer_init", (void *)timer);
	pthread_mutex_lock(&timer_mutex);
	timer_unlink(timer);
	timer->expires_ns = expires_ns;
	timer->armed_seq = ++arm_seq;
	timer->pending = true;
	timer->next = timers;
	timers = timer;
	pthread_mutex_unlock(&timer_mutex);
}

bool irq_port_timer_cancel(struct irq_port_timer *timer)
{
	bool was_pending;

	pthread_mutex_lock(&timer_mutex);
	was_pending = timer_unlink(timer);
	pthread_mutex_unlock(&timer_mutex);
	return was_pending;
}

bool irq_port_timer_pending(const struct irq_port_timer *timer)
{
	return __atomic_load_n(&timer->pending, __ATOMIC_ACQUIRE);
}

/* When @t fires: its due time, or the end of a stall of CPU 0 (the port's timers' CPU) that covers it. */
static uint64_t timer_fires_at(const struct irq_port_timer *t)
{
	uint64_t until = irq_host_cpu_stalled_until(0, t->expires_ns);

	return until ? until : t->expires_ns;
}

/*
 * The pending timer that fires first at or before @until (timer_mutex
 * held), or NULL: by firing time, then due time (timers held by a stall
 * fire in the order they were due), then arm order.
 */
static struct irq_port_timer *timer_first_due(uint64_t until, uint64_t *fires_at)
{
	struct irq_port_timer *t, *first = NULL;
	uint64_t first_at = 0;

	for (t = timers; t; t = t->next) {
		uint64_t at = timer_fires_at(t);

		if (at > until)
			continue;
		if (!first || at < first_at || (at == first_at && (t->expires_ns < first->expires_ns ||
		    (t->expires_ns == first->expires_ns && t->armed_seq < first->armed_seq)))) {
			first = t;
			first_at = at;
		}
	}
	*fires_at = first_at;
	return first;
}

unsigned long irq_host_advance_ns(uint64_t delta_ns)
{
	uint64_t target = irq_host_now_ns() + delta_ns;
	unsigned long fired = 0;

	if (nr_held)
		host_fail("virtual time advanced while holding %u port lock(s)", nr_held);
	pthread_mutex_lock(&timer_mutex);
	for (;;) {
		uint64_t at;
		struct irq_port_timer *t = timer_first_due(target, &at);
		void (*fn)(void *);
		void *arg;

		if (!t)
			break;
		if (++fired > IRQ_HOST_FIRES_MAX)
			host_fail("more than %lu timer callbacks in one advance: timer storm", IRQ_HOST_FIRES_MAX);
		if (at > virtual_now_ns)
			__atomic_store_n(&virtual_now_ns, at, __ATOMIC_RELEASE);
		timer_unlink(t);
		fn = t->fn;
		arg = t->arg;
		pthread_mutex_unlock(&timer_mutex);
		irq_host_irq_enter();     /* timer context: interrupts disabled */
		fn(arg);
		irq_host_irq_exit();
		if (nr_held)
			host_fail("timer callback %p returned holding %u port lock(s)", (void *)fn, nr_held);
		pthread_mutex_lock(&timer_mutex);
	}
	/* Never back: callbacks may have spent time past the target (irq_host_spend_ns). */
	if (target > virtual_now_ns)
		__atomic_store_n(&virtual_now_ns, target, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&timer_mutex);
	return fired;
}

void irq_host_spend_ns(uint64_t ns)
{
	__atomic_add_fetch(&virtual_now_ns, ns, __ATOMIC_ACQ_REL);
}

unsigned long irq_host_run_timers(void)
{
	return irq_host_advance_ns(0);
}

unsigned int irq_host_timers_pending(void)
{
	unsigned int n = 0;
	struct irq_port_timer *t;

	pthread_mutex_lock(&timer_mutex);
	for (t = timers; t; t = t->next)
		n++;
	pthread_mutex_unlock(&timer_mutex);
	return n;
}

/* ---- log ------------------------------------------------------------------- */

struct log_entry {
	int level;
	char text[IRQ_HOST_LOG_LINE];
};

static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct log_entry log_ring[IRQ_HOST_LOG_KEEP];
static unsigned int log_total;   /* messages since the last clear */

void irq_port_log(int level, const char *fmt, ...)
{
	struct log_entry *e;
	va_list ap;

	pthread_mutex_lock(&log_mutex);
	e = &log_ring[log_total % IRQ_HOST_LOG_KEEP];
	e->level = level;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	log_total++;
	if (getenv("IRQ_HOST_LOG"))
		fprintf(stderr, "<%d>%s", level, e->text);
	pthread_mutex_unlock(&log_mutex);
}

void irq_host_log_clear(void)
{
	pthread_mutex_lock(&log_mutex);
	log_total = 0;
	pthread_mutex_unlock(&log_mutex);
}

unsigned int irq_host_log_count(void)
{
	unsigned int n;

	pthread_mutex_lock(&log_mutex);
	n = log_total;
	pthread_mutex_unlock(&log_mutex);
	return n;
}

/* Kept entries: the last min(total, KEEP). Call with log_mutex held. */
static unsigned int log_kept(void)
{
	return log_total < IRQ_HOST_LOG_KEEP ? log_total : IRQ_HOST_LOG_KEEP;
}

unsigned int irq_host_log_count_level(int level)
{
	unsigned int i, n = 0;

	pthread_mutex_lock(&log_mutex);
	for (i = 0; i < log_kept(); i++)
		n += log_ring[i].level == level;
	pthread_mutex_unlock(&log_mutex);
	return n;
}

bool irq_host_log_contains_all(const char *a, const char *b)
{
	unsigned int i;
	bool found = false;

	pthread_mutex_lock(&log_mutex);
	for (i = 0; i < log_kept() && !found; i++)
		found = strstr(log_ring[i].text, a) && (!b || strstr(log_ring[i].text, b));
	pthread_mutex_unlock(&log_mutex);
	return found;
}

bool irq_host_log_contains(const char *needle)
{
	return irq_host_log_contains_all(needle, NULL);
}

/* ---- panic, relax, reset ------------------------------------------------------ */

void irq_host_set_panic_hook(void (*hook)(const char *msg))
{
	panic_hook = hook;
}

void irq_port_panic(const char *msg)
{
	if (panic_hook)
		panic_hook(msg);
	host_fail("panic: %s", msg);
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

void irq_port_cpu_relax(void)
{
	uint64_t now = wall_ns();

	if (nr_held)
		host_fail("busy-wait while holding %u port lock(s)", nr_held);
	if (now - spin_last_ns > IRQ_HOST_SPIN_GAP_NS)
		spin_start_ns = now;
	spin_last_ns = now;
	if (now - spin_start_ns > IRQ_HOST_SPIN_LIMIT_S * NS_PER_S)
		host_fail("busy-waiting for %d s: deadlock", IRQ_HOST_SPIN_LIMIT_S);
	__atomic_add_fetch(&relax_calls, 1, __ATOMIC_RELAXED);
	sched_yield();
}

/* The CPU a test thread plays (irq_host_set_cpu); 0 unless set. irq_port_cpu_id() is inline in the header. */
__thread unsigned int irq_host_cpu;

void irq_host_set_cpu(unsigned int cpu)
{
	irq_host_cpu = cpu;
}

uint64_t irq_host_relax_count(void) { return __atomic_load_n(&relax_calls, __ATOMIC_RELAXED); }
uint64_t irq_host_lock_count(void) { return __atomic_load_n(&lock_calls, __ATOMIC_RELAXED); }

uint64_t irq_host_timer_arm_count(void)
{
	uint64_t n;

	pthread_mutex_lock(&timer_mutex);
	n = arm_seq;
	pthread_mutex_unlock(&timer_mutex);
	return n;
}

void irq_host_reset(void)
{
	if (nr_held)
		host_fail("irq_host_reset while holding %u port lock(s)", nr_held);
	pthread_mutex_lock(&timer_mutex);
	while (timers)
		timer_unlink(timers);
	__atomic_store_n(&virtual_now_ns, 0, __ATOMIC_RELEASE);
	arm_seq = 0;
	pthread_mutex_unlock(&timer_mutex);
	irq_host_log_clear();
	for (unsigned int c = 0; c < IRQ_HOST_CPUS; c++) {
		__atomic_store_n(&cpu_progress[c], 0, __ATOMIC_RELAXED);
		irq_host_cpu_stall(c, 0, 0);
	}
	__atomic_store_n(&relax_calls, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&lock_calls, 0, __ATOMIC_RELAXED);
	panic_hook = NULL;
}
