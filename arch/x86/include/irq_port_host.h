/*
 * irq_port_host.h - the irqkit x86 kernel's types for kernel/irq/port.h.
 *
 * A core lock is a ticket spin lock taken with interrupts off on this CPU
 * (asm/spinlock.h: memory ordering there), plus the number of the CPU that
 * holds it, which catches a lock taken twice on one CPU (that would
 * otherwise spin until the spin lock's bound). Timers are kernel/time hrtimers (one-shot, nanoseconds, fired
 * from the clock event interrupt with interrupts off = timer context).
 * The functions are in arch/x86/irq_port.c.
 */
#ifndef IRQ_PORT_HOST_H
#define IRQ_PORT_HOST_H

#include <stdint.h>
#include <asm/smp.h>
#include <asm/spinlock.h>
#include <time/hrtimer.h>

typedef struct {
	spinlock_t lock;
	volatile uint32_t owner;  /* CPU number of the holder + 1; 0 while free */
} irq_port_lock_t;

struct irq_port_timer {
	struct hrtimer hr;         /* the kernel/time timer that does the work */
	void (*fn)(void *arg);
	void *arg;
};

/*
 * irq_port_cpu_id - arch/x86/smp.c's CPU number (0 = boot CPU): one %gs
 * load, inline because the core counts its statistics per CPU on every
 * interrupt (port.h allows any port function to be inline here).
 */
static inline unsigned int irq_port_cpu_id(void)
{
	return smp_processor_id();
}

#endif
