/*
 * port_template.c (template port) - the functions of kernel/irq/port.h for
 * a uniprocessor, in plain C: copy it next to your kernel with
 * irq_port_host.h, and replace what is marked "PORT:" with your CPU's
 * instructions (docs/porting.md, item by item). As it stands it runs the
 * core on a machine where interrupts are not taken asynchronously, and it
 * is compiled in the host test build so that it never rots.
 */
#include "../port.h"

#include <stddef.h>

/* Most timers one irq_template_tick() fires; the rest wait for the next tick. */
#define TEMPLATE_FIRES_PER_TICK 1024

/*
 * The interrupt-enable state this template pretends to manage. PORT: your
 * CPU's flag: on x86 "pushf; cli" to save, "popf" (or sti) to restore.
 */
static bool template_irqs_enabled = true;

/* Advanced by irq_template_tick. PORT: 64-bit reads must not tear on SMP. */
static uint64_t template_now_ns;
static struct irq_port_timer *template_timers;    /* pending timers, unsorted */
static void (*template_vlog)(int level, const char *fmt, va_list ap);

void irq_port_lock_init(irq_port_lock_t *lock)
{
	__atomic_store_n(&lock->taken, false, __ATOMIC_RELEASE);
}

unsigned long irq_port_lock_irqsave(irq_port_lock_t *lock)
{
	unsigned long flags = template_irqs_enabled;

	template_irqs_enabled = false;
	while (__atomic_exchange_n(&lock->taken, true, __ATOMIC_ACQUIRE))
		irq_port_cpu_relax();
	return flags;
}

void irq_port_unlock_irqrestore(irq_port_lock_t *lock, unsigned long flags)
{
	__atomic_store_n(&lock->taken, false, __ATOMIC_RELEASE);
	template_irqs_enabled = flags != 0;
}

uint64_t irq_port_now_ns(void)
{
	/* PORT: read a free-running counter (TSC, HPET) scaled to ns instead. */
	return template_now_ns;
}

/* Take @timer off the pending list; RETURNS whether it was on it. */
static bool template_timer_unlink(struct irq_port_timer *timer)
{
	struct irq_port_timer **link = &template_timers;

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
	template_timer_unlink(timer);
	timer->fn = fn;
	timer->arg = arg;
	timer->expires_ns = 0;
	timer->pending = false;
	timer->next = NULL;
}

void irq_port_timer_arm(struct irq_port_timer *timer, uint64_t expires_ns)
{
	template_timer_unlink(timer);
	timer->expires_ns = expires_ns;
	timer->pending = true;
	timer->next = template_timers;
	template_timers = timer;
}

bool irq_port_timer_cancel(struct irq_port_timer *timer)
{
	return template_timer_unlink(timer);
}

bool irq_port_timer_pending(const struct irq_port_timer *timer)
{
	return timer->pending;
}

/* The pending timer that expired first, or NULL. */
static struct irq_port_timer *template_first_expired(uint64_t now)
{
	struct irq_port_timer *t, *first = NULL;

	for (t = template_timers; t; t = t->next)
		if (t->expires_ns <= now && (!first || t->expires_ns < first->expires_ns))
			first = t;
	return first;
}

void irq_template_tick(uint64_t elapsed_ns)
{
	uint64_t now = template_now_ns += elapsed_ns;
	unsigned int fired;

	for (fired = 0; fired < TEMPLATE_FIRES_PER_TICK; fired++) {
		struct irq_port_timer *t = template_first_expired(now);

		if (!t)
			break;
		template_timer_unlink(t);
		t->fn(t->arg);  /* may re-arm itself */
	}
}

void irq_template_set_log(void (*vlog)(int level, const char *fmt, va_list ap))
{
	template_vlog = vlog;
}

void irq_port_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (!template_vlog)
		return;
	va_start(ap, fmt);
	template_vlog(level, fmt, ap);
	va_end(ap);
}

void irq_port_panic(const char *msg)
{
	irq_port_log(IRQ_LOG_ERR, "irq: panic: %s\n", msg);
	/* PORT: your kernel's panic (stop the other CPUs, print a backtrace). */
	for (;;)
		irq_port_cpu_relax();
}

void irq_port_cpu_relax(void)
{
	/* PORT: the CPU's spin-wait hint (x86: "pause"). */
	__asm__ volatile("" ::: "memory");
}
