/*
 * irq_port_host.h (template port) - the types a host must define for the
 * portable interrupt core, as kernel/irq/port.h asks. Copy this directory
 * to your kernel, put the copy's directory on the include path, and adapt:
 * docs/porting.md goes through every item.
 *
 * This template is a minimal, working port. Its locks are real spinlocks
 * (interrupts off on this CPU, then an atomic test-and-set word), and its
 * interrupt save/restore is real on ARMv6-M/ARMv7-M (PRIMASK) and on RISC-V
 * in machine mode (mstatus.MIE); on any other CPU (the host test build) it
 * only records the state, because nothing interrupts there asynchronously.
 * Its clock is a count of nanoseconds your tick reports through
 * irq_template_tick(), and its timers fire from there, so time has the
 * resolution of your tick. The places that need your kernel are marked
 * "PORT:" in port_template.c; `make cross` builds it with the core for
 * Cortex-M3 and RV64 so that it never rots.
 */
#ifndef IRQ_PORT_HOST_H
#define IRQ_PORT_HOST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * A lock: a word set with an atomic exchange (acquire) and cleared with a
 * release store. A word, not a bool: RISC-V has no byte-sized atomic swap,
 * and GCC 12 turns one into a call to libatomic's __atomic_exchange_1.
 * PORT: a fair (ticket) lock if many CPUs contend.
 */
typedef struct irq_port_lock {
	uint32_t taken;  /* 1 while held; accessed with __atomic builtins only */
} irq_port_lock_t;

/* One one-shot timer, in the caller's storage; kept on a list while pending. */
struct irq_port_timer {
	void (*fn)(void *arg);          /* callback */
	void *arg;                      /* its argument */
	uint64_t expires_ns;            /* when, on irq_port_now_ns() */
	bool pending;                   /* armed, not fired yet */
	struct irq_port_timer *next;    /* next pending timer */
};

/*
 * irq_template_tick - your periodic (or one-shot) timer interrupt calls
 * this with the nanoseconds elapsed since the last call: the clock
 * advances and expired timers run. CONTEXT: timer interrupt (interrupts
 * off), one CPU at a time.
 */
void irq_template_tick(uint64_t elapsed_ns);

/*
 * irq_template_set_log - where irq_port_log() sends messages: your vprintk.
 * Until it is set, messages are dropped.
 */
void irq_template_set_log(void (*vlog)(int level, const char *fmt, va_list ap));

#endif /* IRQ_PORT_HOST_H */
