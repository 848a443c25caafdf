/*
 * irq_port_host.h - the irqkit x86 kernel's types for kernel/irq/port.h.
 *
 * irqkit runs on one CPU: a core lock is "interrupts off" plus a held flag
 * that catches a lock taken twice (which on one CPU would otherwise hang
 * silently). Timers are kernel/time hrtimers (one-shot, nanoseconds, fired
 * from the clock event interrupt with interrupts off = timer context).
 * The functions are in arch/x86/irq_port.c.
 */
#ifndef IRQ_PORT_HOST_H
#define IRQ_PORT_HOST_H

#include <stdint.h>
#include <time/hrtimer.h>

typedef struct {
	volatile uint32_t held;   /* 1 while taken */
} irq_port_lock_t;

struct irq_port_timer {
	struct hrtimer hr;         /* the kernel/time timer that does the work */
	void (*fn)(void *arg);
	void *arg;
};

#endif
