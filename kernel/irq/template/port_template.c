/*
 * port_template.c (template port) - the functions of kernel/irq/port.h in
 * plain C plus the few instructions a CPU demands: copy it next to your
 * kernel with irq_port_host.h and replace what is marked "PORT:"
 * (docs/porting.md, item by item).
 *
 * What is real here: the spinlocks (interrupts off, then an atomic
 * test-and-set word; correct on SMP, though not fair), interrupt
 * save/restore on ARMv7-M (PRIMASK, ARMv7-M Architecture Reference Manual
 * B1.4.3) and on RISC-V machine mode (mstatus.MIE, bit 3, RISC-V
 * Privileged Architecture 3.1.6.1), and the timer list, which its own lock
 * protects against the tick. What a real port replaces: the clock (a
 * free-running counter instead of the sum of ticks), the timers (your
 * kernel's high-resolution one-shot timers instead of a list scanned at
 * each tick), logging and panic. On any other CPU (the host test build,
 * tests/unit/test_irq_template.c) nothing interrupts asynchronously, so the
 * interrupt state is only recorded. `make cross` compiles this file with
 * the core for Cortex-M3 and RV64IMAC and runs the Cortex-M3 build on
 * QEMU's mps2-an385 (tests/cross/m3_run.c); the unit build runs it on the host.
 */
#include "../port.h"

#include <stddef.h>

/* Most timers one irq_template_tick() fires; the rest wait for the next tick. */
#define TEMPLATE_FIRES_PER_TICK 1024

/* ---- Interrupt enable state: the instructions of your CPU -------------- */

#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#if __ARM_ARCH < 7
#error "ARMv6-M has no exclusive loads for the lock's atomic exchange: on one CPU use a plain flag under PRIMASK"
#endif
/* PRIMASK bit 0 set = every interrupt of configurable priority is masked. */
#define TEMPLATE_PRIMASK_PM 1ul

/* Mask interrupts; RETURNS nonzero if they were enabled. */
static inline unsigned long template_irq_save(void)
{
	unsigned long primask;

	__asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
	return !(primask & TEMPLATE_PRIMASK_PM);
}

static inline void template_irq_restore(unsigned long were_enabled)
{
	if (were_enabled)
		__asm__ volatile("cpsie i" : : : "memory");
}

/* The spin-wait hint (a NOP on cores without multithreading). */
static inline void template_spin_hint(void)
{
	__asm__ volatile("yield" : : : "memory");
}

#elif defined(__riscv)
#ifndef __riscv_atomic
#error "the lock needs the RISC-V A extension (amoswap); build with -march=...a..."
#endif
/* mstatus.MIE (bit 3): machine-mode interrupts enabled. PORT: sstatus.SIE in S-mode. */
#define TEMPLATE_MSTATUS_MIE 8ul

/* Clear MIE; RETURNS nonzero if it was set. */
static inline unsigned long template_irq_save(void)
{
	unsigned long mstatus;

	__asm__ volatile("csrrci %0, mstatus, 8" : "=r"(mstatus) : : "memory");
	return mstatus & TEMPLATE_MSTATUS_MIE;
}

static inline void template_irq_restore(unsigned long were_enabled)
{
	if (were_enabled)
		__asm__ volatile("csrsi mstatus, 8" : : : "memory");
}

/* PORT: "pause" where the core has Zihintpause; a plain compiler barrier here. */
static inline void template_spin_hint(void)
{
	__asm__ volatile("" : : : "memory");
}

#else
/*
 * No CPU of ours (the host test build): nothing interrupts this program
 * asynchronously, so the state is only recorded. PORT: your CPU's
 * instructions, as in the two sections above (x86: pushf; cli / popf).
 */
static bool template_irqs_enabled = true;

static inline unsigned long template_irq_save(void)
{
	unsigned long were = template_irqs_enabled;

	template_irqs_enabled = false;
	return were;
}

static inline void template_irq_restore(unsigned long were_enabled)
{
	template_irqs_enabled = were_enabled != 0;
}

static inline void template_spin_hint(void)
{
	__asm__ volatile("" : : : "memory");
}
#endif

/* ---- Critical sections -------------------------------------------------- */

void irq_port_lock_init(irq_port_lock_t *lock)
{
	__atomic_store_n(&lock->taken, 0, __ATOMIC_RELEASE);
}

unsigned long irq_port_lock_irqsave(irq_port_lock_t *lock)
{
	unsigned long flags = template_irq_save();

	/* Acquire: what the last holder wrote before its release is visible. */
	while (__atomic_exchange_n(&lock->taken, 1, __ATOMIC_ACQUIRE))
		template_spin_hint();
	return flags;
}

void irq_port_unlock_irqrestore(irq_port_lock_t *lock, unsigned long flags)
{
	__atomic_store_n(&lock->taken, 0, __ATOMIC_RELEASE);
	template_irq_restore(flags);
}

/* ---- Clock and timers --------------------------------------------------- */

/*
 * The clock and the pending-timer list, under template_timer_lock: taken
 * inside a core lock (arm and cancel run with one held) and never held
 * while a callback runs, so the lock order is always core, then this one.
 * PORT: 64-bit reads of template_now_ns would tear on a 32-bit CPU without it.
 */
static irq_port_lock_t template_timer_lock;
static uint64_t template_now_ns;                   /* advanced by irq_template_tick */
static struct irq_port_timer *template_timers;    /* pending timers, unsorted */
static void (*template_vlog)(int level, const char *fmt, va_list ap);

uint64_t irq_port_now_ns(void)
{
	/* PORT: read a free-running counter (cycle counter, SysTick, mtime) scaled to ns. */
	unsigned long flags = irq_port_lock_irqsave(&template_timer_lock);
	uint64_t now = template_now_ns;

	irq_port_unlock_irqrestore(&template_timer_lock, flags);
	return now;
}

/* Take @timer off the pending list; RETURNS whether it was on it. Timer lock held. */
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
	unsigned long flags = irq_port_lock_irqsave(&template_timer_lock);

	template_timer_unlink(timer);
	timer->fn = fn;
	timer->arg = arg;
	timer->expires_ns = 0;
	timer->pending = false;
	timer->next = NULL;
	irq_port_unlock_irqrestore(&template_timer_lock, flags);
}

void irq_port_timer_arm(struct irq_port_timer *timer, uint64_t expires_ns)
{
	/* PORT: your kernel's one-shot high-resolution timer (time to the next tick is the slack here). */
	unsigned long flags = irq_port_lock_irqsave(&template_timer_lock);

	template_timer_unlink(timer);
	timer->expires_ns = expires_ns;
	timer->pending = true;
	timer->next = template_timers;
	template_timers = timer;
	irq_port_unlock_irqrestore(&template_timer_lock, flags);
}

bool irq_port_timer_cancel(struct irq_port_timer *timer)
{
	unsigned long flags = irq_port_lock_irqsave(&template_timer_lock);
	bool was = template_timer_unlink(timer);

	irq_port_unlock_irqrestore(&template_timer_lock, flags);
	return was;
}

bool irq_port_timer_pending(const struct irq_port_timer *timer)
{
	return __atomic_load_n(&timer->pending, __ATOMIC_RELAXED);
}

/* The pending timer that expired first, or NULL. Timer lock held. */
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
	unsigned long flags = irq_port_lock_irqsave(&template_timer_lock);
	uint64_t now = template_now_ns += elapsed_ns;
	unsigned int fired;

	for (fired = 0; fired < TEMPLATE_FIRES_PER_TICK; fired++) {
		struct irq_port_timer *t = template_first_expired(now);
		irq_port_timer_fn fn;
		void *arg;

		if (!t)
			break;
		template_timer_unlink(t);
		fn = t->fn;
		arg = t->arg;
		/* The callback may re-arm or cancel timers: it runs without the timer lock. */
		irq_port_unlock_irqrestore(&template_timer_lock, flags);
		fn(arg);
		flags = irq_port_lock_irqsave(&template_timer_lock);
	}
	irq_port_unlock_irqrestore(&template_timer_lock, flags);
}

/* ---- Diagnostics and CPU ------------------------------------------------ */

void irq_template_set_log(void (*vlog)(int level, const char *fmt, va_list ap))
{
	template_vlog = vlog;
}

void irq_port_log(int level, const char *fmt, ...)
{
	va_list ap;

	/* PORT: your printk; it must be callable with interrupts off and a core lock held. */
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
	(void)template_irq_save();
	for (;;)
		template_spin_hint();
}

void irq_port_cpu_relax(void)
{
	template_spin_hint();
}

/*
 * PORT: the number of the CPU this runs on, 0..IRQ_NR_CPUS-1 (a per-CPU
 * variable, or the CPU's own ID register mapped to a dense number). One CPU: 0.
 */
unsigned int irq_port_cpu_id(void)
{
	return 0;
}
