/*
 * port.h - everything the portable interrupt core (kernel/irq/) needs from
 * the kernel it runs in, and nothing more. In the manner of a FreeRTOS
 * portmacro.h: one list, sectioned, a comment per item; docs/porting.md
 * explains each function at length with an example.
 *
 * The core includes no header of its host except <irq_port_host.h>, which
 * the host puts on the include path. That header defines the two types
 * below and may implement any function of this file as a static inline
 * function (the declarations here then refer to those definitions). The
 * other functions are linked from the host's port file.
 *
 * Implementations: tests/host/irq_port_host.[ch] (host unit tests: pthreads
 * and a virtual clock), arch/x86 (the irqkit kernel), and
 * kernel/irq/template/ (the port to copy: x86, ARMv7-M and RISC-V sections,
 * run on QEMU by make cross).
 *
 * Before irq_core_init() the locks, irq_port_timer_init() and irq_port_log()
 * must work (logging may still drop messages); before irq_defences_start()
 * the clock and the timers must run. docs/porting.md, section 8 ("First
 * boot"), has the whole order and what a missing step looks like.
 *
 * The tick: a host with a periodic tick may lend it to the defences
 * (irq_tick_start, irq_tick, irq_tick_wanted in policy.h; docs/porting.md,
 * section 6a). Nothing to implement here for it; without it the poll
 * timers below do all the work.
 *
 * Several CPUs: the core may run on every CPU at once. What that asks of
 * the host beyond a one-CPU port is in the section "Several CPUs" at the
 * end (and docs/porting.md, section 5a); a one-CPU port need do nothing.
 *
 * Contexts named below:
 *   thread context  - ordinary kernel code, interrupts enabled, may spin.
 *   interrupt context - generic_handle_irq() and everything it calls:
 *                     interrupts disabled on this CPU.
 *   timer context   - a callback of an irq_port_timer. Interrupts disabled
 *                     (on x86: inside the timer interrupt).
 *
 * Layer 0, the base: the porting contract, below every file of the core;
 * uses only the host's own header (docs/irq-layers.md).
 */
#ifndef IRQ_PORT_H
#define IRQ_PORT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The host header must define:
 *   irq_port_lock_t       a spinning lock (a typedef; any size)
 *   struct irq_port_timer storage of one one-shot timer, owned by the caller
 */
#include <irq_port_host.h>

/* ========================================================================
 * Critical sections
 * ======================================================================== */

/*
 * irq_port_lock_init - make @lock usable and unlocked.
 * CONTEXT: any; called by irq_core_init() for every lock of the core, once
 * per boot (a host test may call irq_core_init() again between cases, with
 * every lock unlocked).
 */
void irq_port_lock_init(irq_port_lock_t *lock);

/*
 * irq_port_lock_irqsave - disable interrupts on this CPU, then take @lock
 * (spinning until it is free).
 * CONTEXT: any. The core never takes a lock it already holds, holds at most
 * one of its locks at a time, and calls no host code while holding one
 * except the irq_chip operations, irq_port_timer_*, irq_port_now_ns and
 * irq_port_log.
 * RETURNS the previous interrupt state, to hand to the matching unlock.
 */
unsigned long irq_port_lock_irqsave(irq_port_lock_t *lock);

/*
 * irq_port_unlock_irqrestore - release @lock, then put the interrupt state
 * back to @flags (from the matching irq_port_lock_irqsave). Unlocks happen
 * in the reverse order of the locks.
 * CONTEXT: the holder of @lock.
 */
void irq_port_unlock_irqrestore(irq_port_lock_t *lock, unsigned long flags);

/* ========================================================================
 * Timing
 * ======================================================================== */

/*
 * irq_port_now_ns - nanoseconds since an arbitrary origin (boot).
 * Monotonic (never goes back), advances even while interrupts are disabled
 * (read a free-running counter such as the TSC or HPET, not a tick count),
 * at least microsecond resolution. A host test clock may be virtual.
 * CONTEXT: any, with or without locks held. Cheap (tens of instructions).
 */
uint64_t irq_port_now_ns(void);

/* irq_port_timer_fn - a timer callback; runs in timer context, no lock held. */
typedef void (*irq_port_timer_fn)(void *arg);

/*
 * irq_port_timer_init - prepare @timer (caller storage) to call @fn(@arg)
 * when it expires; leaves it not pending. Initialising a pending timer
 * cancels it first.
 * CONTEXT: thread context (the core calls it from irq_core_init()).
 */
void irq_port_timer_init(struct irq_port_timer *timer, irq_port_timer_fn fn, void *arg);

/*
 * irq_port_timer_arm - make @timer fire once at @expires_ns (irq_port_now_ns
 * time). Re-arming a pending timer moves it. A time in the past fires as
 * soon as the host processes timers. The callback runs at most once per arm.
 * The host may fire late (by its timer slack) but never early.
 * CONTEXT: any, including with a core lock held and from inside the timer's
 * own callback. Must not call back into the core.
 */
void irq_port_timer_arm(struct irq_port_timer *timer, uint64_t expires_ns);

/*
 * irq_port_timer_cancel - stop @timer if pending. Does NOT wait for a
 * callback already running on another CPU, and must not: the core cancels
 * with a line's lock held, and the line's poll callback takes that lock,
 * so a waiting cancel would deadlock the two CPUs. The core handles a
 * running callback itself (it re-checks the line under its lock inside
 * the callback; free_irq and friends wait for the run the callback makes).
 * CONTEXT: any, including with a core lock held.
 * RETURNS true if the timer was pending (and now will not fire).
 */
bool irq_port_timer_cancel(struct irq_port_timer *timer);

/*
 * irq_port_timer_pending - whether @timer is armed and has not fired yet.
 * CONTEXT: any. The answer may be stale by the time the caller reads it
 * unless the caller serialises with arm/cancel itself.
 */
bool irq_port_timer_pending(const struct irq_port_timer *timer);

/* ========================================================================
 * Diagnostics
 * ======================================================================== */

/* Log levels (the same numbers as the kernel's printk levels). */
enum irq_port_log_level {
	IRQ_LOG_ERR   = 3,  /* an operation failed or was refused */
	IRQ_LOG_WARN  = 4,  /* misuse or a misbehaving line; the core carries on */
	IRQ_LOG_INFO  = 6,  /* normal status (one line at init) */
	IRQ_LOG_DEBUG = 7,  /* verbose */
};

/*
 * irq_port_log - print one message, printf-style. The conversions used are
 * exactly %s %.*s %.Ns (a constant precision) %u %d %x %llu %03llu %p
 * (docs/porting.md section 2; tests/docs/test_porting.py keeps that list
 * true): the host's printf needs a va_list form, long long and string
 * precision, or the template's formatter (irq_template_set_console). The
 * core ends messages with "\n" and starts them with "irq".
 * CONTEXT: any, including interrupt and timer context with a core lock held;
 * must not take a core lock or call into the core.
 */
void irq_port_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * irq_port_panic - a broken invariant (corrupt list, deadlock): stop for
 * good. The core has already logged the details; @msg is "function: reason".
 * CONTEXT: any. Does not return.
 */
__attribute__((noreturn)) void irq_port_panic(const char *msg);

/* ========================================================================
 * CPU
 * ======================================================================== */

/*
 * irq_port_cpu_relax - one step of a busy-wait (x86: "pause"; a host may
 * yield). The core calls it, with no lock held, while waiting for a handler
 * running elsewhere to finish.
 * CONTEXT: thread context.
 */
void irq_port_cpu_relax(void);

/*
 * irq_port_cpu_id - the number of the CPU running the caller, 0 up to
 * IRQ_NR_CPUS - 1 (irq_config.h). Two contexts that can run at the same
 * time get different numbers. Stable while interrupts are disabled; a
 * caller with interrupts on may be moved right after, which the core
 * allows for (the trace reserves its slot atomically). A larger number is
 * a port bug the core survives: its trace events are counted as dropped,
 * its statistics land in another CPU's slot (never lost, never outside the
 * table).
 * CONTEXT: any. Called twice per handled interrupt (the per-CPU
 * statistics): make it an inline per-CPU read in <irq_port_host.h>. A
 * one-CPU port returns 0.
 */
unsigned int irq_port_cpu_id(void);

/*
 * irq_port_cpu_progress - how many interrupts CPU @cpu (0 up to
 * IRQ_NR_CPUS - 1) has finished: a count that CPU advances at the end of
 * every interrupt it takes, its tick's included, after the handlers ran.
 * The defences use it as the sign that a CPU ran: a completion a poll
 * found is judged lost only once the CPU its line is routed to has
 * finished interrupts since (one when asked on that CPU, more from
 * another: policy.h, stall_ran_irqs), and a verified token's safety poll
 * of a line routed to another CPU waits until that CPU has finished one
 * since the poll was due. A CPU that did not run (a virtual CPU its host
 * descheduled, an SMI, a CPU spinning with interrupts off) has the
 * interrupt late, not lost (docs/defences.md, "A stalled CPU").
 * Needs: the count only grows (it may wrap: compared by difference); a
 * running CPU advances it at least once per tick period (the period given
 * to irq_tick_start: the standstill rule waits two of them), idle or not (a
 * CPU whose tick stops in idle is woken by the interrupt that matters);
 * each advance is a release store after the handlers' own stores (on x86
 * a plain store after them), read here as an acquire, so a reader that
 * sees the advance sees what the interrupt's handlers counted.
 * CONTEXT: any. Called at every expect_irq() (the mark a driver's time-out
 * is judged from: keep it one load), when a poll found work, at the
 * verdict on it and at a due safety poll: never in an interrupt's own path.
 * A one-CPU port may count its timer interrupts and the interrupts it
 * hands to generic_handle_irq().
 */
uint32_t irq_port_cpu_progress(unsigned int cpu);

/* ========================================================================
 * Several CPUs
 *
 * Nothing to implement beyond the functions above; what they, the
 * compiler and the CPU must give when the core runs on several CPUs at
 * once (docs/porting.md, section 5a, has the why and the tests):
 *   - irq_port_cpu_id: distinct numbers for CPUs running at once (above);
 *   - the locks: exclusion between CPUs, not only against this CPU's
 *     interrupts, and lock ordering: what one holder wrote before its
 *     unlock, the next holder sees after its lock (acquire/release);
 *   - the timers: callbacks may run on any CPU, while the core runs on
 *     others; irq_port_timer_cancel never waits for one (above);
 *   - the compiler's __atomic builtins inline, without a library call:
 *     loads and stores of bytes, 32-bit words, unsigned long and pointers
 *     in every memory order, read-modify-writes on 32-bit words, and real
 *     barriers where the CPU needs them (x86 lock/mfence, ARM dmb, RISC-V
 *     fence). Checked below at compile time; 64-bit atomics are not used
 *     (internals.h, irq_load_u64).
 * ======================================================================== */

_Static_assert(__atomic_always_lock_free(sizeof(uint32_t), 0),
	       "kernel/irq needs lock-free 32-bit atomics (port.h, Several CPUs)");
_Static_assert(__atomic_always_lock_free(sizeof(unsigned long), 0),
	       "kernel/irq needs lock-free atomic loads and stores of unsigned long (port.h, Several CPUs)");
_Static_assert(__atomic_always_lock_free(sizeof(void *), 0),
	       "kernel/irq needs lock-free atomic pointers (port.h, Several CPUs)");

#endif /* IRQ_PORT_H */
