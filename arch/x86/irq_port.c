/*
 * irq_port.c - the x86 kernel's implementation of kernel/irq/port.h: how the
 * portable interrupt core reaches this kernel (locks = ticket spin locks
 * with interrupts off, asm/spinlock.h; time = kernel/time's clock; timers = hrtimers; logging =
 * printk; panic = panic). docs/porting.md describes the contract.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/smp.h>
#include <irq/port.h>
#include <irq/irq_config.h>
#include <kernel/printk.h>
#include <time/time.h>
#include <time/hrtimer.h>

void irq_port_lock_init(irq_port_lock_t *lock)
{
	spin_lock_init(&lock->lock);
	lock->owner = 0;
}

/*
 * `owner` is written only by the holder (after the acquire, and cleared
 * before the release), and read by others only to compare with their own
 * number + 1, which only they could have written: a stale value can never
 * make another CPU believe it holds the lock.
 */
unsigned long irq_port_lock_irqsave(irq_port_lock_t *lock)
{
	unsigned long flags = irq_save_flags();
	uint32_t me = smp_processor_id() + 1;

	if (lock->owner == me)
		panic("irq_port_lock_irqsave: lock %p taken twice on CPU %u", (void *)lock, me - 1);
	spin_lock(&lock->lock);
	lock->owner = me;
	return flags;
}

void irq_port_unlock_irqrestore(irq_port_lock_t *lock, unsigned long flags)
{
	if (lock->owner != smp_processor_id() + 1)
		panic("irq_port_unlock_irqrestore: lock %p released but not held by CPU %u", (void *)lock,
		      smp_processor_id());
	lock->owner = 0;
	spin_unlock(&lock->lock);
	irq_restore_flags(flags);
}

/*
 * The lock-free read (kernel/time/clocksource.h): the core reads the clock
 * once or twice per interrupt and per expect_irq; ktime_get_ns() takes
 * kernel/time's lock for each (about 100 guest instructions against 35).
 */
uint64_t irq_port_now_ns(void)
{
	return ktime_get_ns_fast();
}

static void port_timer_expired(struct hrtimer *hr)
{
	struct irq_port_timer *t = (struct irq_port_timer *)((char *)hr - __builtin_offsetof(struct irq_port_timer, hr));

	t->fn(t->arg);
}

void irq_port_timer_init(struct irq_port_timer *timer, irq_port_timer_fn fn, void *arg)
{
	hrtimer_cancel(&timer->hr);
	timer->fn = fn;
	timer->arg = arg;
	hrtimer_setup(&timer->hr, port_timer_expired, timer);
}

void irq_port_timer_arm(struct irq_port_timer *timer, uint64_t expires_ns)
{
	int err = hrtimer_start(&timer->hr, expires_ns);

	/* The contract has no way to fail: a poll timer that cannot be armed
	 * (before time_init(), -EAGAIN) would silently never poll, so say so. */
	if (err)
		pr_err("irq: poll timer not armed (hrtimer_start: %d): this line will not be polled\n", err);
}

bool irq_port_timer_cancel(struct irq_port_timer *timer)
{
	/* Not hrtimer_cancel: the core cancels with a line's lock held, which the callback takes. */
	return hrtimer_try_to_cancel(&timer->hr);
}

bool irq_port_timer_pending(const struct irq_port_timer *timer)
{
	return hrtimer_pending(&timer->hr);
}

void irq_port_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk(level, fmt, ap);
	va_end(ap);
}

void irq_port_panic(const char *msg)
{
	panic("%s", msg);
}

void irq_port_cpu_relax(void)
{
	cpu_relax();
}

/* irq_port_cpu_id() is inline in <irq_port_host.h>: smp.c's CPU number (COMMON.md, decision 3). */

/*
 * The CPU's finished interrupts: cpu_data.interrupts, which smp_irq_exit()
 * (asm/smp.h) advances at the end of every interrupt, after its handlers -
 * the tick's included (each AP's LAPIC timer runs periodic at hz=, idle or
 * not; CPU 0's tick may stop in idle, but the poll timers run there). Its
 * low 32-bit word, loaded whole with acquire order: it pairs with the
 * release fence in smp_irq_exit(), so what that interrupt's handlers
 * counted (the line's unclaimed interrupts) is seen with it. No new work
 * on the interrupt path: the count existed (and moved from the entry to
 * the exit). A CPU number past the table (a core bug) reads 0: no
 * progress, so no lost verdict from it, never memory outside the table.
 */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "irq_port_cpu_progress reads the low word first");
uint32_t irq_port_cpu_progress(unsigned int cpu)
{
	if (cpu >= SMP_MAX_CPUS)
		return 0;
	return __atomic_load_n((const volatile uint32_t *)&cpu_data[cpu].interrupts, __ATOMIC_ACQUIRE);
}
_Static_assert(SMP_MAX_CPUS <= IRQ_NR_CPUS, "kernel/irq keeps per-CPU data for fewer CPUs than smp.c starts");
