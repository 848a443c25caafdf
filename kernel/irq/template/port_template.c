/*
 * port_template.c (template port) - the functions of kernel/irq/port.h in
 * plain C plus the few instructions a CPU demands: copy it next to your
 * kernel with irq_port_host.h and replace what is marked "PORT:"
 * (docs/porting.md, item by item; its "First boot" section gives the order
 * of the calls).
 *
 * What is real here: the spinlocks (interrupts off, then an atomic
 * test-and-set word; correct on SMP, though not fair); interrupt
 * save/restore on x86 (EFLAGS.IF, Intel SDM vol. 3A 2.3 and 6.8.1), ARMv7-M
 * (PRIMASK, ARMv7-M Architecture Reference Manual B1.4.3) and RISC-V
 * machine mode (mstatus.MIE, bit 3, RISC-V Privileged Architecture
 * 3.1.6.1); on RISC-V the clock and the one-shot alarm, from the CLINT's
 * mtime and mtimecmp (Privileged Architecture 3.2.1); and the timer list,
 * which its own lock protects against the timer interrupt. What a port
 * supplies: on x86 and Arm the clock (irq_template_set_clock(): a
 * free-running counter, the TSC or a board timer, never a tick count), a
 * one-shot alarm where it has one, logging and panic. A CPU this file does
 * not know stops the build. The host unit build
 * (tests/unit/test_irq_template.c) selects a simulated CPU with
 * -DIRQ_TEMPLATE_HOST_SIM. `make cross` compiles this file with the core
 * for Cortex-M3, RV64IMAC and i686 and runs it on QEMU's mps2-an385
 * (tests/cross/m3_run.c) and RISC-V virt (tests/cross/rv64_run.c) boards.
 */
#include <irq/irq_config.h>
#include <irq/port.h>

#include <stddef.h>

/* Most timers one irq_template_timer_interrupt() fires; the rest wait for the next call. */
#define TEMPLATE_FIRES_PER_CALL 1024
/* "No alarm" for set_alarm, and no timer pending. */
#define TEMPLATE_NEVER UINT64_MAX

/* ---- Interrupt enable state: the instructions of your CPU -------------- */

#if defined(IRQ_TEMPLATE_HOST_SIM)
/*
 * The host unit build only (tests/unit/test_irq_template.c): a program that
 * nothing interrupts asynchronously, so the state is only recorded. Never
 * for a kernel: a port without real interrupt disabling is not a port.
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

#define TEMPLATE_DEFAULT_CLOCK NULL
#define TEMPLATE_DEFAULT_ALARM NULL

#elif defined(__i386__) || defined(__x86_64__)
/*
 * x86, ring 0 (protected or long mode). EFLAGS.IF (bit 9) set = maskable
 * interrupts enabled. pushf/pop read it, cli clears it; the "memory"
 * clobber keeps the compiler from moving accesses out of the section.
 * (In a user-mode program cli faults: this is kernel code.)
 */
#define TEMPLATE_EFLAGS_IF 0x200ul

/* Mask interrupts; RETURNS nonzero if they were enabled. */
static inline unsigned long template_irq_save(void)
{
	unsigned long eflags;

	__asm__ volatile("pushf\n\tpop %0\n\tcli" : "=r"(eflags) : : "memory");
	return eflags & TEMPLATE_EFLAGS_IF;
}

static inline void template_irq_restore(unsigned long were_enabled)
{
	if (were_enabled)
		__asm__ volatile("sti" : : : "memory");
}

/* The spin-wait hint: "pause" (a NOP before the Pentium 4). */
static inline void template_spin_hint(void)
{
	__asm__ volatile("pause" : : : "memory");
}

/* PORT: the TSC scaled by your calibration, or the HPET; the LAPIC timer as the alarm. */
#define TEMPLATE_DEFAULT_CLOCK NULL
#define TEMPLATE_DEFAULT_ALARM NULL

#elif defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
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

/*
 * ARMv7-M has no architectural free-running 64-bit counter (SysTick is 24
 * bits and reloads every tick). PORT: your board's timer, extended to 64
 * bits (tests/cross/m3_run.c extends a CMSDK 32-bit timer), and a
 * comparator as the alarm if it has one.
 */
#define TEMPLATE_DEFAULT_CLOCK NULL
#define TEMPLATE_DEFAULT_ALARM NULL

#elif defined(__riscv)
#ifndef __riscv_atomic
#error "the lock needs the RISC-V A extension (amoswap); build with -march=...a..."
#endif
/* mstatus.MIE (bit 3): machine-mode interrupts enabled. PORT: sstatus.SIE (bit 1) in S-mode. */
#define TEMPLATE_MSTATUS_MIE 8ul
/* mie.MTIE (bit 7): the machine timer interrupt enabled. */
#define TEMPLATE_MIE_MTIE 0x80ul

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

/*
 * The CLINT: mtime, a 64-bit counter running at a fixed rate whatever the
 * interrupt state, and per hart mtimecmp: the machine timer interrupt is
 * pending while mtime >= mtimecmp. PORT: your board's base and rate (these
 * are QEMU virt's; SiFive's boards share the base). An S-mode kernel reads
 * the time CSR and arms the alarm through the SBI instead.
 */
#ifndef IRQ_TEMPLATE_CLINT_BASE
#define IRQ_TEMPLATE_CLINT_BASE 0x02000000ul
#endif
#ifndef IRQ_TEMPLATE_MTIME_HZ
#define IRQ_TEMPLATE_MTIME_HZ 10000000ul
#endif
#if IRQ_TEMPLATE_MTIME_HZ < 1000000 || IRQ_TEMPLATE_MTIME_HZ > 1000000000 || 1000000000 % IRQ_TEMPLATE_MTIME_HZ
#error "IRQ_TEMPLATE_MTIME_HZ must divide 1 GHz and be at least 1 MHz (microsecond resolution); otherwise scale mtime with a multiplier and shift"
#endif
#define TEMPLATE_NS_PER_MTIME   (1000000000ul / IRQ_TEMPLATE_MTIME_HZ)
#define TEMPLATE_CLINT_MTIMECMP (IRQ_TEMPLATE_CLINT_BASE + 0x4000ul)  /* + 8 per hart */
#define TEMPLATE_CLINT_MTIME    (IRQ_TEMPLATE_CLINT_BASE + 0xbff8ul)

static uint64_t template_clint_now_ns(void)
{
	volatile uint32_t *mtime = (volatile uint32_t *)TEMPLATE_CLINT_MTIME;
	uint64_t t;
#if __riscv_xlen == 64
	t = *(volatile uint64_t *)mtime;
#else
	uint32_t hi, lo;

	/* Two 32-bit halves: read hi, lo, hi again until no carry came between (no torn value). */
	do {
		hi = mtime[1];
		lo = mtime[0];
	} while (mtime[1] != hi);
	t = (uint64_t)hi << 32 | lo;
#endif
	return t * TEMPLATE_NS_PER_MTIME;
}

static void template_clint_set_alarm(uint64_t expires_ns)
{
	unsigned long hart;
	uint64_t cmp;

	/* Round up: never early. */
	cmp = expires_ns == TEMPLATE_NEVER ? TEMPLATE_NEVER
		: expires_ns / TEMPLATE_NS_PER_MTIME + (expires_ns % TEMPLATE_NS_PER_MTIME != 0);
	__asm__ volatile("csrr %0, mhartid" : "=r"(hart));
#if __riscv_xlen == 64
	*(volatile uint64_t *)(TEMPLATE_CLINT_MTIMECMP + 8 * hart) = cmp;
#else
	{
		volatile uint32_t *mtimecmp = (volatile uint32_t *)(TEMPLATE_CLINT_MTIMECMP + 8 * hart);

		/* The Privileged spec's sequence: no moment with a smaller compare value than both. */
		mtimecmp[0] = UINT32_MAX;
		mtimecmp[1] = (uint32_t)(cmp >> 32);
		mtimecmp[0] = (uint32_t)cmp;
	}
#endif
	/* An alarm that cannot interrupt would hang the defences silently: enable it here. */
	__asm__ volatile("csrs mie, %0" : : "r"(TEMPLATE_MIE_MTIE) : "memory");
}

#define TEMPLATE_DEFAULT_CLOCK template_clint_now_ns
#define TEMPLATE_DEFAULT_ALARM template_clint_set_alarm

#else
#error "port_template.c: no interrupt save/restore for this CPU: add a section like the x86, ARMv7-M and RISC-V ones (docs/porting.md, First boot)"
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
	/* Release: pairs with the acquire exchange above in the next holder. */
	__atomic_store_n(&lock->taken, 0, __ATOMIC_RELEASE);
	template_irq_restore(flags);
}

/* ---- Clock and timers --------------------------------------------------- */

/*
 * The pending-timer list and the alarm, under template_timer_lock: taken
 * inside a core lock (arm and cancel run with one held) and never held
 * while a callback runs, so the lock order is always core, then this one.
 * The clock and alarm functions are set before the first timer is armed
 * (irq_template_set_clock) and read with acquire loads.
 */
static irq_port_lock_t template_timer_lock;
static struct irq_port_timer *template_timers;    /* pending timers, unsorted */
static uint64_t (*template_clock)(void) = TEMPLATE_DEFAULT_CLOCK;
static void (*template_alarm)(uint64_t expires_ns) = TEMPLATE_DEFAULT_ALARM;
static uint64_t template_alarm_at = TEMPLATE_NEVER;  /* what the alarm is set to */
static void (*template_vlog)(int level, const char *fmt, va_list ap);
static void (*template_console)(int level, const char *line);

void irq_template_set_clock(uint64_t (*now_ns)(void), void (*set_alarm)(uint64_t expires_ns))
{
	__atomic_store_n(&template_alarm, set_alarm, __ATOMIC_RELEASE);
	__atomic_store_n(&template_clock, now_ns, __ATOMIC_RELEASE);
}

uint64_t irq_port_now_ns(void)
{
	uint64_t (*clock)(void) = __atomic_load_n(&template_clock, __ATOMIC_ACQUIRE);

	if (!clock)
		irq_port_panic("irq_port_now_ns: no clock: call irq_template_set_clock() before irq_defences_start()");
	return clock();
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
	__atomic_store_n(&timer->pending, false, __ATOMIC_RELAXED);
	return true;
}

/* Program the alarm for the earliest pending timer, if it moved. Timer lock held. */
static void template_alarm_update(void)
{
	void (*alarm)(uint64_t) = __atomic_load_n(&template_alarm, __ATOMIC_ACQUIRE);
	uint64_t first = TEMPLATE_NEVER;
	struct irq_port_timer *t;

	if (!alarm)
		return;  /* a periodic tick serves the list */
	for (t = template_timers; t; t = t->next)
		if (t->expires_ns < first)
			first = t->expires_ns;
	if (first != template_alarm_at) {
		template_alarm_at = first;
		alarm(first);
	}
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
	/* PORT: your kernel's high-resolution one-shot timers, if it has them (O(log n) instead of a list). */
	unsigned long flags = irq_port_lock_irqsave(&template_timer_lock);

	template_timer_unlink(timer);
	timer->expires_ns = expires_ns;
	__atomic_store_n(&timer->pending, true, __ATOMIC_RELAXED);
	timer->next = template_timers;
	template_timers = timer;
	template_alarm_update();
	irq_port_unlock_irqrestore(&template_timer_lock, flags);
}

bool irq_port_timer_cancel(struct irq_port_timer *timer)
{
	unsigned long flags = irq_port_lock_irqsave(&template_timer_lock);
	bool was = template_timer_unlink(timer);

	/* The alarm may stay early: an alarm that finds nothing due reprograms itself. */
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

void irq_template_timer_interrupt(void)
{
	unsigned long flags = irq_port_lock_irqsave(&template_timer_lock);
	unsigned int fired;

	for (fired = 0; fired < TEMPLATE_FIRES_PER_CALL; fired++) {
		struct irq_port_timer *t = template_first_expired(irq_port_now_ns());
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
	/* The alarm fired (or may have): program it afresh, even to the same time. */
	template_alarm_at = 0;
	template_alarm_update();
	irq_port_unlock_irqrestore(&template_timer_lock, flags);
	irq_template_interrupt_done();  /* the timer interrupt is finished: this CPU ran */
}

/* ---- Per-CPU progress (port.h: irq_port_cpu_progress) ------------------ */

/*
 * Interrupts each CPU has finished: irq_template_timer_interrupt() counts
 * its own, your other interrupt handlers call irq_template_interrupt_done()
 * after generic_handle_irq(). One writer per slot (its CPU, interrupts
 * off): a load and a release store, no read-modify-write. PORT: if your
 * kernel already counts finished interrupts per CPU, return that count in
 * irq_port_cpu_progress() and drop these.
 */
static uint32_t template_progress[IRQ_NR_CPUS];

void irq_template_interrupt_done(void)
{
	unsigned int cpu = irq_port_cpu_id();
	uint32_t *slot = &template_progress[cpu < IRQ_NR_CPUS ? cpu : 0];

	/* Release: after the handlers' stores, as port.h asks; pairs with the acquire below. */
	__atomic_store_n(slot, __atomic_load_n(slot, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
}

uint32_t irq_port_cpu_progress(unsigned int cpu)
{
	return cpu < IRQ_NR_CPUS ? __atomic_load_n(&template_progress[cpu], __ATOMIC_ACQUIRE) : 0;
}

/* ---- Diagnostics and CPU ------------------------------------------------ */

void irq_template_set_log(void (*vlog)(int level, const char *fmt, va_list ap))
{
	template_vlog = vlog;
}

void irq_template_set_console(void (*write)(int level, const char *line))
{
	template_console = write;
}

void irq_port_log(int level, const char *fmt, ...)
{
	char line[IRQ_TEMPLATE_LINE_MAX];
	va_list ap;

	/* PORT: your printk; it must be callable with interrupts off and a core lock held. */
	va_start(ap, fmt);
	if (template_vlog) {
		template_vlog(level, fmt, ap);
	} else if (template_console) {
		irq_template_vformat(line, sizeof(line), fmt, ap);
		template_console(level, line);
	}
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
 * variable, or the CPU's own ID register mapped to a dense number: RISC-V
 * mhartid, ARM MPIDR affinity fields), different for CPUs running at once
 * (port.h, "Several CPUs"). The core calls it twice per handled interrupt
 * for its per-CPU statistics: on several CPUs make it a static inline in
 * your irq_port_host.h (and delete this one). One CPU: 0, as here.
 */
unsigned int irq_port_cpu_id(void)
{
	return 0;
}
