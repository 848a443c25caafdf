/*
 * port_template.c (template port) - the functions of kernel/irq/port.h in
 * plain C plus the few instructions a CPU demands: copy it next to your
 * kernel with irq_port_host.h and replace what is marked "PORT:"
 * (docs/porting.md, item by item; its "First boot" section gives the order
 * of the calls, and it has a section per kind of kernel).
 *
 * What is real here: the spinlocks (interrupts off, then an atomic
 * test-and-set word; correct on SMP, though not fair); interrupt
 * save/restore on x86 (EFLAGS.IF, Intel SDM vol. 3A 2.3 and 6.8.1), ARMv7-M
 * (PRIMASK, ARMv7-M Architecture Reference Manual B1.4.3), AArch64 (DAIF.I,
 * Arm Architecture Reference Manual C5.2.2) and RISC-V in the mode the
 * build states: machine mode (mstatus.MIE, bit 3, RISC-V Privileged
 * Architecture 3.1.6.1) or supervisor mode (sstatus.SIE, bit 1, 4.1.1); the
 * clock and a per-CPU one-shot alarm on RISC-V (machine mode: the CLINT's
 * mtime and this hart's mtimecmp, Privileged Architecture 3.2.1;
 * supervisor mode: the time CSR, and the SBI timer or Sstc's stimecmp) and
 * on AArch64 (the generic timer's virtual count and this CPU's virtual
 * timer); and the timer lists (one per CPU with a per-CPU alarm), which
 * their own lock protects against the timer interrupt. What a port
 * supplies: on x86 and ARMv7-M the clock (irq_template_set_clock(): a
 * free-running counter, the TSC, the HPET or a board timer, never a tick
 * count) and a one-shot alarm where it has one; in supervisor mode the
 * hart id (irq_template_set_cpu_id()); logging and panic everywhere. A CPU
 * this file does not know, or a RISC-V build that does not say its mode,
 * stops the build. The host unit build (tests/unit/test_irq_template.c)
 * selects a simulated CPU with -DIRQ_TEMPLATE_HOST_SIM. `make cross`
 * compiles this file with the core for Cortex-M3, RV64IMAC, AArch64 and
 * i686 and runs it on QEMU's mps2-an385 (tests/cross/m3_run.c), RISC-V
 * virt in machine and supervisor mode (tests/cross/rv64_run.c) and Arm virt
 * (tests/cross/a64_run.c) boards.
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

/*
 * No clock or alarm built in: x86 has no architectural timer the template
 * could program without your kernel's set-up. PORT (docs/porting.md, x86,
 * has the facts): the clock is the TSC scaled by your calibration, or the
 * HPET's 64-bit main counter (at 0xFED00000 on QEMU pc and q35; its address
 * comes from the ACPI HPET table); the alarm is the LAPIC timer in one-shot
 * mode (per CPU: irq_template_set_cpu_alarm), an HPET comparator, or the
 * PIT in mode 0 (interrupt on terminal count, 1.193182 MHz, 16 bits: at
 * most 55 ms ahead; IRQ 0, which reaches IOAPIC pin 2, not pin 0): an alarm
 * set further out fires early, finds nothing due and is set again by
 * irq_template_timer_interrupt().
 */
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
#if defined(IRQ_TEMPLATE_RISCV_M_MODE) == defined(IRQ_TEMPLATE_RISCV_S_MODE)
#error "port_template.c: say which privilege mode your RISC-V kernel runs in: -DIRQ_TEMPLATE_RISCV_M_MODE (machine mode: mstatus, the CLINT's mtime and mtimecmp) or -DIRQ_TEMPLATE_RISCV_S_MODE (supervisor mode under an SBI such as OpenSBI: sstatus, the time CSR, the SBI timer or Sstc); docs/porting.md, RISC-V"
#endif

/*
 * The clock: mtime, a 64-bit counter running at a fixed rate whatever the
 * interrupt state. Machine mode reads it in the CLINT; supervisor mode
 * reads its shadow, the time CSR (Privileged Architecture 3.1.11: "time"
 * is mtime; M-mode code must set mcounteren.TM, which OpenSBI does).
 * PORT: your board's rate, the device tree's /cpus/timebase-frequency
 * (10 MHz on QEMU virt and on SiFive's boards).
 */
#ifndef IRQ_TEMPLATE_MTIME_HZ
#define IRQ_TEMPLATE_MTIME_HZ 10000000ul
#endif
#if IRQ_TEMPLATE_MTIME_HZ < 1000000 || IRQ_TEMPLATE_MTIME_HZ > 1000000000 || 1000000000 % IRQ_TEMPLATE_MTIME_HZ
#error "IRQ_TEMPLATE_MTIME_HZ must divide 1 GHz and be at least 1 MHz (microsecond resolution); otherwise scale mtime with a multiplier and shift"
#endif
#define TEMPLATE_NS_PER_MTIME (1000000000ul / IRQ_TEMPLATE_MTIME_HZ)

/* An alarm time in mtime counts, rounded up: never early. */
static inline uint64_t template_mtime_at(uint64_t expires_ns)
{
	if (expires_ns == TEMPLATE_NEVER)
		return TEMPLATE_NEVER;
	return expires_ns / TEMPLATE_NS_PER_MTIME + (expires_ns % TEMPLATE_NS_PER_MTIME != 0);
}

/*
 * The two modes' interrupt enables, by name: the status CSR's global
 * enable and the interrupt-enable CSR's timer bit. Saving, restoring and
 * enabling the alarm's interrupt below are the same instructions on
 * either set; the clock and the alarm differ for real and have a section
 * each further down.
 */
#if defined(IRQ_TEMPLATE_RISCV_M_MODE)
#define TEMPLATE_CSR_STATUS "mstatus"
#define TEMPLATE_STATUS_IE  8ul     /* mstatus.MIE (bit 3): machine-mode interrupts enabled */
#define TEMPLATE_CSR_IE     "mie"
#define TEMPLATE_IE_TIMER   0x80ul  /* mie.MTIE (bit 7): the machine timer interrupt enabled */
#else /* IRQ_TEMPLATE_RISCV_S_MODE */
#define TEMPLATE_CSR_STATUS "sstatus"
#define TEMPLATE_STATUS_IE  2ul     /* sstatus.SIE (bit 1): supervisor-mode interrupts enabled */
#define TEMPLATE_CSR_IE     "sie"
#define TEMPLATE_IE_TIMER   0x20ul  /* sie.STIE (bit 5): the supervisor timer interrupt (scause 5) enabled */
#endif

/* Clear the mode's interrupt enable (csrrci mstatus, 8 / sstatus, 2); RETURNS nonzero if it was set. */
static inline unsigned long template_irq_save(void)
{
	unsigned long status;

	__asm__ volatile("csrrci %0, " TEMPLATE_CSR_STATUS ", %1" : "=r"(status) : "K"(TEMPLATE_STATUS_IE) : "memory");
	return status & TEMPLATE_STATUS_IE;
}

static inline void template_irq_restore(unsigned long were_enabled)
{
	if (were_enabled)
		__asm__ volatile("csrsi " TEMPLATE_CSR_STATUS ", %0" : : "K"(TEMPLATE_STATUS_IE) : "memory");
}

/* After an alarm is set: an alarm that cannot interrupt would hang the defences silently. */
static inline void template_timer_irq_enable(void)
{
	__asm__ volatile("csrs " TEMPLATE_CSR_IE ", %0" : : "r"(TEMPLATE_IE_TIMER) : "memory");
}

#if defined(IRQ_TEMPLATE_RISCV_M_MODE)
/*
 * The CLINT: mtime, and per hart mtimecmp; the machine timer interrupt is
 * pending while mtime >= mtimecmp (Privileged Architecture 3.2.1). PORT:
 * your board's base (QEMU virt's; SiFive's boards share it).
 */
#ifndef IRQ_TEMPLATE_CLINT_BASE
#define IRQ_TEMPLATE_CLINT_BASE 0x02000000ul
#endif
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

/* This hart's mtimecmp: a per-CPU comparator. */
static void template_clint_set_alarm(uint64_t expires_ns)
{
	uint64_t cmp = template_mtime_at(expires_ns);
	unsigned long hart;

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
	template_timer_irq_enable();
}

/* mhartid: dense from 0 on QEMU virt. PORT: map it if your harts are not (SiFive U54: 1-4). */
static inline unsigned int template_default_cpu_id(void)
{
	unsigned long hart;

	__asm__ volatile("csrr %0, mhartid" : "=r"(hart));
	return (unsigned int)hart;
}

#define TEMPLATE_DEFAULT_CLOCK template_clint_now_ns
#define TEMPLATE_DEFAULT_ALARM template_clint_set_alarm

#else /* IRQ_TEMPLATE_RISCV_S_MODE */
/* The time CSR (rdtime): mtime, readable in S-mode once M-mode set mcounteren.TM. */
static uint64_t template_time_csr_now_ns(void)
{
	uint64_t t;
#if __riscv_xlen == 64
	__asm__ volatile("csrr %0, time" : "=r"(t));
#else
	uint32_t hi, lo, hi2;

	/* Two halves, as for mtime: until no carry came between. */
	do {
		__asm__ volatile("csrr %0, timeh" : "=r"(hi));
		__asm__ volatile("csrr %0, time" : "=r"(lo));
		__asm__ volatile("csrr %0, timeh" : "=r"(hi2));
	} while (hi != hi2);
	t = (uint64_t)hi << 32 | lo;
#endif
	return t * TEMPLATE_NS_PER_MTIME;
}

#if defined(IRQ_TEMPLATE_RISCV_SSTC)
/*
 * Sstc: the hart's own supervisor comparator, stimecmp (CSR 0x14D; RV32:
 * stimecmph 0x15D). The supervisor timer interrupt is pending while
 * time >= stimecmp; writing a later value takes it back. M-mode code must
 * set menvcfg.STCE (OpenSBI 1.1 does on a hart with Sstc), or the write
 * traps as an illegal instruction (scause 2). No SBI call: the cheapest
 * alarm an S-mode kernel can have.
 */
static void template_sstc_set_alarm(uint64_t expires_ns)
{
	uint64_t cmp = template_mtime_at(expires_ns);
#if __riscv_xlen == 64
	__asm__ volatile("csrw 0x14d, %0" : : "r"(cmp) : "memory");
#else
	/* As for mtimecmp: no moment with a smaller compare value than both. */
	__asm__ volatile("csrw 0x14d, %0" : : "r"(UINT32_MAX) : "memory");
	__asm__ volatile("csrw 0x15d, %0" : : "r"((uint32_t)(cmp >> 32)) : "memory");
	__asm__ volatile("csrw 0x14d, %0" : : "r"((uint32_t)cmp) : "memory");
#endif
	template_timer_irq_enable();
}
#define TEMPLATE_DEFAULT_ALARM template_sstc_set_alarm

#else
/*
 * The SBI timer (RISC-V SBI specification, chapter 6, "Timer Extension",
 * EID 0x54494D45 "TIME", FID 0 sbi_set_timer): the SBI programs this hart's
 * mtimecmp and clears the pending supervisor timer interrupt; UINT64_MAX is
 * "never" (the spec's way of clearing it). An SBI without the TIME
 * extension (v0.1: BBL) answers SBI_ERR_NOT_SUPPORTED and gets the legacy
 * call, EID 0, from then on. One ecall per alarm: a few hundred
 * instructions in OpenSBI, where Sstc's stimecmp is one CSR write.
 */
#define TEMPLATE_SBI_EXT_TIME         0x54494D45ul
#define TEMPLATE_SBI_LEGACY_SET_TIMER 0ul
#define TEMPLATE_SBI_ERR_NOT_SUPPORTED (-2l)

static bool template_sbi_legacy;  /* the SBI has no TIME extension */

static long template_sbi_call(unsigned long ext, uint64_t stime)
{
	register unsigned long a0 __asm__("a0") = (unsigned long)stime;
#if __riscv_xlen == 64
	register unsigned long a1 __asm__("a1") = 0;
#else
	register unsigned long a1 __asm__("a1") = (unsigned long)(stime >> 32);
#endif
	register unsigned long a6 __asm__("a6") = 0;  /* FID 0: set_timer */
	register unsigned long a7 __asm__("a7") = ext;

	__asm__ volatile("ecall" : "+r"(a0), "+r"(a1) : "r"(a6), "r"(a7) : "memory");
	return (long)a0;  /* the error code (the legacy call returns nothing meaningful) */
}

static void template_sbi_set_alarm(uint64_t expires_ns)
{
	uint64_t cmp = template_mtime_at(expires_ns);

	if (template_sbi_legacy ||
	    template_sbi_call(TEMPLATE_SBI_EXT_TIME, cmp) == TEMPLATE_SBI_ERR_NOT_SUPPORTED) {
		template_sbi_legacy = true;
		(void)template_sbi_call(TEMPLATE_SBI_LEGACY_SET_TIMER, cmp);
	}
	template_timer_irq_enable();
}
#define TEMPLATE_DEFAULT_ALARM template_sbi_set_alarm
#endif

/* S-mode cannot read mhartid: the port gives the hart id (irq_template_set_cpu_id); one hart: 0. */
static inline unsigned int template_default_cpu_id(void)
{
	return 0;
}

#define TEMPLATE_DEFAULT_CLOCK template_time_csr_now_ns
#endif /* S-mode */

/* PORT: "pause" where the core has Zihintpause; a plain compiler barrier here. */
static inline void template_spin_hint(void)
{
	__asm__ volatile("" : : : "memory");
}

/* mtimecmp, stimecmp and the SBI timer are per hart. */
#define TEMPLATE_DEFAULT_ALARM_PER_CPU true

#elif defined(__aarch64__)
/*
 * AArch64 at EL1 (an OS kernel; the same instructions at EL2). DAIF.I
 * (bit 7) set = IRQs masked (Arm Architecture Reference Manual for A-profile,
 * C5.2.2 DAIF); "msr daifset, #2" sets it, "msr daifclr, #2" clears it, and
 * both are self-synchronising for interrupt masking. FIQs (DAIF.F) are left
 * alone: the core's interrupts are IRQs (GIC Group 1 under a kernel at EL1).
 */
#define TEMPLATE_DAIF_I 0x80ul

/* Mask IRQs; RETURNS nonzero if they were unmasked. */
static inline unsigned long template_irq_save(void)
{
	unsigned long daif;

	__asm__ volatile("mrs %0, daif\n\tmsr daifset, #2" : "=r"(daif) : : "memory");
	return !(daif & TEMPLATE_DAIF_I);
}

static inline void template_irq_restore(unsigned long were_enabled)
{
	if (were_enabled)
		__asm__ volatile("msr daifclr, #2" : : : "memory");
}

/* The spin-wait hint. */
static inline void template_spin_hint(void)
{
	__asm__ volatile("yield" : : : "memory");
}

/*
 * The generic timer (Arm ARM D11): CNTVCT_EL0, the virtual count, runs at
 * CNTFRQ_EL0 whatever the interrupt state, the same on every CPU; the EL1
 * virtual timer (CNTV_CVAL_EL0, CNTV_CTL_EL0) is each CPU's own comparator,
 * a level interrupt (PPI 11, INTID 27 on the GIC) while the count has
 * reached CVAL, enabled and not masked. The virtual pair, as Linux uses at
 * EL1: under a hypervisor it is the guest's own; the EL1 physical timer
 * (CNTP_*, INTID 30) works the same on bare metal. CNTFRQ_EL0 is written
 * by firmware (QEMU: 62.5 MHz); nanoseconds are converted with a division
 * (AArch64 has one in hardware), exact for any rate.
 */
#define TEMPLATE_CNTV_CTL_ENABLE 0x1ul  /* the timer compares */
#define TEMPLATE_NS_PER_S        1000000000ull

static uint64_t template_cntfrq(void)
{
	uint64_t hz;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	if (!hz)
		irq_port_panic("template_cntfrq: CNTFRQ_EL0 is 0 (firmware did not set it): "
			       "give your board's counter with irq_template_set_clock()");
	return hz;
}

static uint64_t template_cntvct_now_ns(void)
{
	uint64_t hz = template_cntfrq(), cnt;

	/* isb: the count may otherwise be read early, out of order with what came before (Arm ARM D11.2.2). */
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(cnt) : : "memory");
	/* No overflow: cnt % hz < hz < 2^33, times 10^9 < 2^63. */
	return cnt / hz * TEMPLATE_NS_PER_S + cnt % hz * TEMPLATE_NS_PER_S / hz;
}

/* This CPU's virtual timer: at @expires_ns, rounded up (never early), or off. */
static void template_cntv_set_alarm(uint64_t expires_ns)
{
	uint64_t hz = template_cntfrq(), cval;

	if (expires_ns == TEMPLATE_NEVER) {
		/* Disabled: the interrupt goes away and stays away. */
		__asm__ volatile("msr cntv_ctl_el0, %0\n\tisb" : : "r"(0ul) : "memory");
		return;
	}
	cval = expires_ns / TEMPLATE_NS_PER_S * hz +
	       (expires_ns % TEMPLATE_NS_PER_S * hz + TEMPLATE_NS_PER_S - 1) / TEMPLATE_NS_PER_S;
	__asm__ volatile("msr cntv_cval_el0, %0\n\tmsr cntv_ctl_el0, %1\n\tisb"
			 : : "r"(cval), "r"(TEMPLATE_CNTV_CTL_ENABLE) : "memory");
}

/*
 * MPIDR_EL1's affinity level 0: the CPU within its cluster, dense from 0 on
 * QEMU virt (up to 8 CPUs with GICv2, 16 with GICv3 per cluster). PORT: a
 * per-CPU variable, or a map of Aff1/Aff0, on a machine with clusters.
 */
static inline unsigned int template_default_cpu_id(void)
{
	uint64_t mpidr;

	__asm__ volatile("mrs %0, mpidr_el1" : "=r"(mpidr));
	return (unsigned int)(mpidr & 0xff);
}

#define TEMPLATE_DEFAULT_CLOCK template_cntvct_now_ns
#define TEMPLATE_DEFAULT_ALARM template_cntv_set_alarm
/* The generic timer is per CPU. */
#define TEMPLATE_DEFAULT_ALARM_PER_CPU true

#else
#error "port_template.c: no interrupt save/restore for this CPU: add a section like the x86, ARMv7-M, AArch64 and RISC-V ones (docs/porting.md, First boot)"
#endif

/* The sections that have no per-CPU alarm of their own, and no CPU number. */
#ifndef TEMPLATE_DEFAULT_ALARM_PER_CPU
#define TEMPLATE_DEFAULT_ALARM_PER_CPU false
static inline unsigned int template_default_cpu_id(void)
{
	return 0;
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
	/* Release: pairs with the acquire exchange above in the next holder. */
	__atomic_store_n(&lock->taken, 0, __ATOMIC_RELEASE);
	template_irq_restore(flags);
}

/* ---- Clock and timers --------------------------------------------------- */

/*
 * Timer lists: one per CPU while the alarm is per CPU (a comparator of its
 * own on every CPU: RISC-V, AArch64, the x86 LAPIC timer), else one (list
 * 0) for a global alarm or a periodic tick. IRQ_TEMPLATE_NR_CPUS lists; a
 * CPU number beyond it shares a list (number modulo the count), which
 * still works: each CPU programs its own comparator for the list's
 * earliest timer, and whichever fires first runs it.
 */
#ifndef IRQ_TEMPLATE_NR_CPUS
#define IRQ_TEMPLATE_NR_CPUS IRQ_NR_CPUS
#endif
#if IRQ_TEMPLATE_NR_CPUS < 1 || IRQ_TEMPLATE_NR_CPUS > 65535
#error "IRQ_TEMPLATE_NR_CPUS must be 1..65535 (struct irq_port_timer keeps a list number in 16 bits)"
#endif

/*
 * The pending-timer lists and the alarms, under template_timer_lock (one
 * lock for all lists: simple and correct on SMP; PORT: a lock per list if
 * many CPUs arm timers at once). It is taken inside a core lock (arm and
 * cancel run with one held) and never held while a callback runs, so the
 * lock order is always core, then this one. The clock, alarm and CPU
 * number functions are set before the first timer is armed
 * (irq_template_set_clock, _set_cpu_alarm, _set_cpu_id) and read with
 * acquire loads, which pair with the release stores of the setters.
 */
static irq_port_lock_t template_timer_lock;
static struct irq_port_timer *template_timers[IRQ_TEMPLATE_NR_CPUS];    /* pending timers per list, unsorted */
static uint64_t template_alarm_at[IRQ_TEMPLATE_NR_CPUS];               /* what each list's alarm is set to */
static uint64_t (*template_clock)(void) = TEMPLATE_DEFAULT_CLOCK;
static void (*template_alarm)(uint64_t expires_ns) = TEMPLATE_DEFAULT_ALARM;
static bool template_alarm_per_cpu = TEMPLATE_DEFAULT_ALARM_PER_CPU;   /* the alarm programs the calling CPU's comparator */
static unsigned int (*template_cpu_id)(void);
static void (*template_vlog)(int level, const char *fmt, va_list ap);
static void (*template_console)(int level, const char *line);

void irq_template_set_clock(uint64_t (*now_ns)(void), void (*set_alarm)(uint64_t expires_ns))
{
	__atomic_store_n(&template_alarm_per_cpu, false, __ATOMIC_RELEASE);
	__atomic_store_n(&template_alarm, set_alarm, __ATOMIC_RELEASE);
	__atomic_store_n(&template_clock, now_ns, __ATOMIC_RELEASE);
}

void irq_template_set_cpu_alarm(void (*set_alarm)(uint64_t expires_ns))
{
	__atomic_store_n(&template_alarm, set_alarm, __ATOMIC_RELEASE);
	__atomic_store_n(&template_alarm_per_cpu, set_alarm != NULL, __ATOMIC_RELEASE);
}

void irq_template_set_cpu_id(unsigned int (*cpu_id)(void))
{
	__atomic_store_n(&template_cpu_id, cpu_id, __ATOMIC_RELEASE);
}

uint64_t irq_port_now_ns(void)
{
	uint64_t (*clock)(void) = __atomic_load_n(&template_clock, __ATOMIC_ACQUIRE);

	if (!clock)
		irq_port_panic("irq_port_now_ns: no clock: call irq_template_set_clock() before irq_core_init()");
	return clock();
}

/* The list the calling CPU arms timers on and whose alarm it serves. Timer lock held. */
static unsigned int template_my_list(void)
{
	if (!__atomic_load_n(&template_alarm_per_cpu, __ATOMIC_ACQUIRE))
		return 0;
	return irq_port_cpu_id() % IRQ_TEMPLATE_NR_CPUS;
}

/* Take @timer off list @list; RETURNS whether it was on it. Timer lock held. */
static bool template_timer_unlink_from(struct irq_port_timer *timer, unsigned int list)
{
	struct irq_port_timer **link = &template_timers[list];

	while (*link && *link != timer)
		link = &(*link)->next;
	if (!*link)
		return false;
	*link = timer->next;
	timer->next = NULL;
	__atomic_store_n(&timer->pending, false, __ATOMIC_RELAXED);
	return true;
}

/* Take an initialised @timer off its list, if pending; RETURNS whether it was. Timer lock held. */
static bool template_timer_unlink(struct irq_port_timer *timer)
{
	if (!__atomic_load_n(&timer->pending, __ATOMIC_RELAXED) || timer->list >= IRQ_TEMPLATE_NR_CPUS)
		return false;
	return template_timer_unlink_from(timer, timer->list);
}

/* Program @list's alarm (on this CPU) for its earliest pending timer, if it moved. Timer lock held. */
static void template_alarm_update(unsigned int list)
{
	void (*alarm)(uint64_t) = __atomic_load_n(&template_alarm, __ATOMIC_ACQUIRE);
	uint64_t first = TEMPLATE_NEVER;
	struct irq_port_timer *t;

	if (!alarm)
		return;  /* a periodic tick serves the list */
	for (t = template_timers[list]; t; t = t->next)
		if (t->expires_ns < first)
			first = t->expires_ns;
	if (first != template_alarm_at[list]) {
		template_alarm_at[list] = first;
		alarm(first);
	}
}

void irq_port_timer_init(struct irq_port_timer *timer, irq_port_timer_fn fn, void *arg)
{
	unsigned long flags = irq_port_lock_irqsave(&template_timer_lock);
	unsigned int list;

	/* The storage may be new (any bytes): look for it on every list, not where its fields say. */
	for (list = 0; list < IRQ_TEMPLATE_NR_CPUS; list++)
		template_timer_unlink_from(timer, list);
	timer->fn = fn;
	timer->arg = arg;
	timer->expires_ns = 0;
	timer->pending = false;
	timer->list = 0;
	timer->next = NULL;
	irq_port_unlock_irqrestore(&template_timer_lock, flags);
}

void irq_port_timer_arm(struct irq_port_timer *timer, uint64_t expires_ns)
{
	/* PORT: your kernel's high-resolution one-shot timers, if it has them (O(log n) instead of a list). */
	unsigned long flags = irq_port_lock_irqsave(&template_timer_lock);
	unsigned int list = template_my_list();

	/*
	 * Off any list, onto this CPU's: with a per-CPU alarm the timer fires
	 * here. The CPU it left keeps its comparator, now maybe early: an
	 * alarm that finds nothing due reprograms itself.
	 */
	template_timer_unlink(timer);
	timer->expires_ns = expires_ns;
	timer->list = (uint16_t)list;
	__atomic_store_n(&timer->pending, true, __ATOMIC_RELAXED);
	timer->next = template_timers[list];
	template_timers[list] = timer;
	template_alarm_update(list);
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

/* The pending timer of @list that expired first, or NULL. Timer lock held. */
static struct irq_port_timer *template_first_expired(unsigned int list, uint64_t now)
{
	struct irq_port_timer *t, *first = NULL;

	for (t = template_timers[list]; t; t = t->next)
		if (t->expires_ns <= now && (!first || t->expires_ns < first->expires_ns))
			first = t;
	return first;
}

void irq_template_timer_interrupt(void)
{
	unsigned long flags = irq_port_lock_irqsave(&template_timer_lock);
	unsigned int list = template_my_list();
	unsigned int fired;

	for (fired = 0; fired < TEMPLATE_FIRES_PER_CALL; fired++) {
		struct irq_port_timer *t = template_first_expired(list, irq_port_now_ns());
		irq_port_timer_fn fn;
		void *arg;

		if (!t)
			break;
		template_timer_unlink_from(t, list);
		fn = t->fn;
		arg = t->arg;
		/* The callback may re-arm or cancel timers: it runs without the timer lock. */
		irq_port_unlock_irqrestore(&template_timer_lock, flags);
		fn(arg);
		flags = irq_port_lock_irqsave(&template_timer_lock);
	}
	/*
	 * The alarm fired (or may have): program it afresh, even to the same
	 * time. This is also the re-arm after an early expiry: a comparator
	 * that cannot reach the first timer (the PIT: 55 ms) was set as far
	 * as it reaches, fires with nothing due, and is set again from here.
	 */
	template_alarm_at[list] = 0;
	template_alarm_update(list);
	irq_port_unlock_irqrestore(&template_timer_lock, flags);
	irq_template_interrupt_done();  /* the timer interrupt is finished: this CPU ran */
}

/* ---- Per-CPU progress (port.h: irq_port_cpu_progress) ------------------ */

/*
 * Interrupts each CPU has finished: irq_template_timer_interrupt() counts
 * its own, plic_template.c's irq_template_plic_interrupt() each claim, your
 * other interrupt handlers call irq_template_interrupt_done() after
 * generic_handle_irq() (per interrupt taken, where one entry takes several
 * from the controller: docs/porting.md, "Evidence that a CPU ran"), in the
 * slot of irq_port_cpu_id(), so that number must be right first (supervisor
 * mode: irq_template_set_cpu_id()). One writer per slot (its CPU, interrupts
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
 * irq_port_cpu_id - the number of the CPU this runs on, 0..IRQ_NR_CPUS-1,
 * different for CPUs running at once (port.h, "Several CPUs"): the port's
 * function (irq_template_set_cpu_id), else the CPU section's default
 * (machine-mode RISC-V: mhartid; AArch64: MPIDR_EL1 Aff0; others: 0). The
 * core calls it twice per handled interrupt for its per-CPU statistics.
 * PORT: on several CPUs make it a static inline in your irq_port_host.h
 * (a per-CPU variable; RISC-V S-mode: the hart id your kernel keeps) and
 * delete this one.
 */
unsigned int irq_port_cpu_id(void)
{
	unsigned int (*cpu_id)(void) = __atomic_load_n(&template_cpu_id, __ATOMIC_ACQUIRE);

	return cpu_id ? cpu_id() : template_default_cpu_id();
}
