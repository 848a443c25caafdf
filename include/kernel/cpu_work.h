/*
 * cpu_work.h - thread-context work on another CPU (kernel/cpu_work.c).
 *
 * smp_call_function_single() runs a function on another CPU inside its
 * IPI handler, with interrupts off: it must not wait for anything. A
 * struct cpu_work is run instead by the target CPU's idle loop
 * (smp_ap_entry's, arch/x86/smp.c) with interrupts ENABLED, as the shell
 * runs on CPU 0: it may sleep, wait for a device's interrupt, take locks
 * that handlers take. Each CPU other than 0 has one slot; a caller queues
 * a work there, wakes the CPU with the wake-up IPI, and later waits for it
 * (bounded) or looks whether it is done.
 *
 *   static int fn(void *arg) { ... may wait for interrupts ... return 0; }
 *   struct cpu_work w;
 *   cpu_work_init(&w, fn, arg);
 *   err = cpu_work_queue(1, &w);          // -ENODEV offline, -EBUSY slot taken
 *   if (!err) err = cpu_work_wait(&w, 5000);  // -ETIMEDOUT: still running
 *   if (!err) result = w.result;
 *
 * A work that timed out keeps running: its struct must outlive it (callers
 * keep them in static storage) and it is collected by a later wait.
 */
#ifndef KERNEL_CPU_WORK_H
#define KERNEL_CPU_WORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cpu_work_state {
	CPU_WORK_IDLE = 0,    /* never queued, or collected */
	CPU_WORK_QUEUED,      /* in its CPU's slot, not started */
	CPU_WORK_RUNNING,     /* its function runs on the target CPU */
	CPU_WORK_DONE,        /* returned: result valid */
};

struct cpu_work {
	int (*fn)(void *arg);
	void *arg;
	volatile uint32_t state;     /* enum cpu_work_state (store-release on each change by the target) */
	int result;                  /* fn's return value, valid once DONE */
	unsigned int cpu;            /* where it was queued */
	unsigned int waiter;         /* CPU woken when it is done (the queueing CPU) */
	uint64_t queued_ns, started_ns, done_ns;
};

/* Tunables of per-CPU work, with their reasons. */
enum cpu_work_tunables {
	CPU_WORK_RUN_MAX = 4,        /* works an idle loop runs before it halts again (one slot: 1 suffices; bound) */
	ONCPU_WAIT_MS = 120000,      /* `oncpu CPU CMD` waits this long (a whole-disk pattern write takes seconds) */
	ONCPU_WAIT_MAX_MS = 600000,  /* `oncpu wait CPU MS`: the largest MS */
	ONCPU_LINE_MAX = 160,        /* characters of the command line, as the shell's own line */
	ONCPU_OUTPUT_BYTES = 16384,  /* output kept per CPU: `irqs` or `nvme` fit with room */
	ONCPU_PRINT_CHUNK = 256,     /* bytes per cprintf when CPU 0 prints it (below printk's 512-byte line) */
};

/* cpu_work_init - prepare @w to run @fn(@arg). */
void cpu_work_init(struct cpu_work *w, int (*fn)(void *arg), void *arg);

/*
 * cpu_work_queue - put @w in CPU @cpu's slot and wake that CPU.
 * CONTEXT: thread context, any CPU.
 * RETURNS 0; -ENODEV (@cpu is not online), -EINVAL (@cpu is this CPU or
 * CPU 0, whose idle loop is the shell: call the function directly there),
 * -EBUSY (the slot holds another work, or @w is queued or running).
 */
int cpu_work_queue(unsigned int cpu, struct cpu_work *w);

/*
 * cpu_work_wait - wait until @w is done, at most @timeout_ms, with
 * interrupts enabled (the waiting CPU halts; CPU 0 runs its deferred work
 * meanwhile). CONTEXT: thread context. RETURNS 0 (DONE: @w->result valid);
 * -ETIMEDOUT (still queued or running); -EINVAL (@w was never queued).
 */
int cpu_work_wait(struct cpu_work *w, uint32_t timeout_ms);

/* cpu_work_busy - CPU @cpu's slot holds a work (queued or running). CONTEXT: any. */
bool cpu_work_busy(unsigned int cpu);

/*
 * cpu_work_run_pending - run the work in this CPU's slot, if any, with
 * interrupts enabled. CONTEXT: the CPU's idle loop, interrupts off; they
 * are off again on return. RETURNS the works run.
 */
unsigned int cpu_work_run_pending(void);

/* cpu_work_count - works this CPU's slot has run since boot. CONTEXT: any. */
uint32_t cpu_work_count(unsigned int cpu);

/* The `oncpu` shell command (kernel/cpu_work.c). */
int oncpu_cmd(int argc, char **argv);

#endif
