/*
 * irq_port_host.h (template port) - the types a host must define for the
 * portable interrupt core, as kernel/irq/port.h asks. Copy this directory
 * to your kernel, put the copy's directory on the include path, and adapt:
 * docs/porting.md goes through every item.
 *
 * This template is a complete, working port for a uniprocessor on which the
 * core is entered without real interrupt nesting (bring-up in polled mode,
 * a simulator): the lock is a test-and-set flag, the clock advances when
 * your tick calls irq_template_tick(), and timers fire from there. The
 * places that need your CPU are marked "PORT:".
 */
#ifndef IRQ_PORT_HOST_H
#define IRQ_PORT_HOST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

/* A lock: a flag set with an atomic test-and-set. PORT: a real spinlock. */
typedef struct irq_port_lock {
	bool taken;  /* true while held; accessed with __atomic builtins */
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
 * advances and expired timers run. CONTEXT: timer interrupt.
 */
void irq_template_tick(uint64_t elapsed_ns);

/*
 * irq_template_set_log - where irq_port_log() sends messages: your vprintk.
 * Until it is set, messages are dropped.
 */
void irq_template_set_log(void (*vlog)(int level, const char *fmt, va_list ap));

#endif /* IRQ_PORT_HOST_H */
