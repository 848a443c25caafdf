/*
 * irq_port_host.h - the host port of kernel/irq (kernel/irq/port.h) for
 * host unit tests, simulators and benchmarks: pthread mutexes as locks,
 * a virtual nanosecond clock that only moves when a test advances it, and
 * one-shot timers that fire, in expiry order, while the test advances time.
 *
 * It is a checking port, in the manner of FreeRTOS's test ports: a lock
 * taken twice, released out of order or by a thread that does not hold it,
 * a lock used before initialisation, or a busy-wait that spins for
 * IRQ_HOST_SPIN_LIMIT_S seconds of wall time stops the program with a
 * message (abort(), which cmocka reports as a failed test).
 *
 * "Interrupts disabled" is simulated per thread: irq_port_lock_irqsave
 * disables, irq_port_unlock_irqrestore restores, and irq_host_irq_enter/
 * exit bracket a simulated interrupt (tests wrap generic_handle_irq in
 * them; timer callbacks run inside them). Tests can ask which state the
 * calling thread is in and how many port locks it holds.
 */
#ifndef IRQ_PORT_HOST_H
#define IRQ_PORT_HOST_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* Wall-clock seconds one thread may busy-wait before the port calls it a deadlock. */
#define IRQ_HOST_SPIN_LIMIT_S 30

/* A port lock: a mutex plus a marker that says it was initialised. */
typedef struct irq_port_lock {
	pthread_mutex_t mutex;
	uint32_t magic;  /* IRQ_HOST_LOCK_MAGIC once irq_port_lock_init ran */
} irq_port_lock_t;

/* One one-shot timer (caller storage); on the port's list while pending. */
struct irq_port_timer {
	void (*fn)(void *arg);         /* callback */
	void *arg;                     /* its argument */
	uint64_t expires_ns;           /* virtual time it fires at */
	uint64_t armed_seq;            /* arm order: equal expiries fire first-armed first */
	bool pending;                  /* armed and not fired */
	struct irq_port_timer *next;   /* next pending timer */
};

/* ---- virtual time -------------------------------------------------------- */

/* irq_host_reset - clock to 0, no pending timers, empty log, counters to 0. */
void irq_host_reset(void);

/*
 * irq_host_advance_ns - move the virtual clock forward by @delta_ns, firing
 * every timer that expires on the way, in expiry order, each with the clock
 * set to its expiry time, in simulated timer context (interrupts disabled)
 * on the calling thread. Timers armed by callbacks fire too if they fall in
 * the window. RETURNS the number of callbacks run.
 */
unsigned long irq_host_advance_ns(uint64_t delta_ns);

/*
 * irq_host_spend_ns - the calling code takes @ns of CPU time (a handler at
 * work): the virtual clock moves on by @ns, firing no timer (those due
 * meanwhile fire late, at the next advance). For the CPU time the
 * defences measure (a storm judged by the time its runs take).
 */
void irq_host_spend_ns(uint64_t ns);

/* irq_host_run_timers - fire the timers that are due now (advance by 0). */
unsigned long irq_host_run_timers(void);

/* irq_host_timers_pending - how many timers are armed. */
unsigned int irq_host_timers_pending(void);

/* ---- simulated CPU state of the calling thread ----------------------------- */

unsigned int irq_host_locks_held(void);   /* port locks this thread holds */
bool irq_host_irqs_disabled(void);        /* inside a lock or a simulated interrupt */
bool irq_host_in_interrupt(void);         /* inside irq_host_irq_enter/exit or a timer */
void irq_host_irq_enter(void);            /* begin a simulated interrupt (disables) */
void irq_host_irq_exit(void);             /* end it (restores the previous state) */

/* ---- counters -------------------------------------------------------------- */

/*
 * irq_port_cpu_id() of the calling thread from now on (default 0; a number
 * >= IRQ_NR_CPUS tests the core's check). Threads that play CPUs running at
 * the same time each set their own number, as port.h requires.
 */
void irq_host_set_cpu(unsigned int cpu);

/* The number itself: irq_port_cpu_id() is inline here (port.h allows it), one thread-local load. */
extern __thread unsigned int irq_host_cpu;

static inline unsigned int irq_port_cpu_id(void)
{
	return irq_host_cpu;
}
uint64_t irq_host_relax_count(void);      /* irq_port_cpu_relax calls, all threads */
uint64_t irq_host_lock_count(void);       /* irq_port_lock_irqsave calls, all threads */
uint64_t irq_host_timer_arm_count(void);  /* irq_port_timer_arm calls since irq_host_reset, all timers */
uint64_t irq_host_now_count(void);        /* irq_port_now_ns calls (the core's clock reads), all threads */
uint64_t irq_host_now_ns(void);           /* the virtual clock, for the harness: not counted */

/* ---- per-CPU progress and stalls (port.h: irq_port_cpu_progress) ------------- */

/* Simulated CPUs whose progress the port keeps (IRQ_NR_CPUS of the core, at most this). */
#define IRQ_HOST_CPUS 8

/*
 * irq_port_cpu_progress(cpu) is the count of simulated interrupts CPU cpu
 * has finished: irq_host_irq_exit() advances the count of the calling
 * thread's CPU (irq_host_set_cpu), so every simulated interrupt and every
 * timer callback (timer context on the thread that advances time) counts
 * on the CPU it ran on. irq_host_cpu_progress_add() counts one for a CPU
 * that a harness runs no code for (another CPU's tick in the simulator).
 *
 * irq_host_cpu_stall - CPU @cpu does not run from @from_ns until
 * @until_ns: a harness asks irq_host_cpu_stalled_until() before it
 * delivers an interrupt to it or counts its tick (tests/unit/sim), and the
 * port's own timers, which all run on CPU 0, wait when @cpu is 0: a timer
 * due in the stall fires at @until_ns, late, in the order of its due time
 * (the host stopped the whole machine). One stall per CPU; a new one
 * replaces it, @until_ns <= @from_ns ends it.
 * irq_host_cpu_stalled_until - when CPU @cpu runs again if it is stalled at
 * @at_ns, else 0.
 */
void irq_host_cpu_stall(unsigned int cpu, uint64_t from_ns, uint64_t until_ns);
uint64_t irq_host_cpu_stalled_until(unsigned int cpu, uint64_t at_ns);
void irq_host_cpu_progress_add(unsigned int cpu);

/* ---- captured log ---------------------------------------------------------- */

/* Messages are kept (the last IRQ_HOST_LOG_KEEP); set IRQ_HOST_LOG=1 to also print them. */
#define IRQ_HOST_LOG_KEEP 256

void irq_host_log_clear(void);
unsigned int irq_host_log_count(void);                   /* messages since the last clear */
unsigned int irq_host_log_count_level(int level);        /* of one level */
bool irq_host_log_contains(const char *needle);          /* some kept message contains it */
bool irq_host_log_contains_all(const char *a, const char *b); /* one message contains both */

/* ---- panics ------------------------------------------------------------------ */

/*
 * irq_host_set_panic_hook - call @hook(msg) on irq_port_panic instead of
 * aborting (a test that provokes a panic longjmps out of the hook; the hook
 * must not return). NULL restores the default.
 */
void irq_host_set_panic_hook(void (*hook)(const char *msg));

#endif /* IRQ_PORT_HOST_H */
