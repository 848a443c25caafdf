/*
 * smp.h - several CPUs: which CPU this code runs on, per-CPU data, bringing
 * up the application processors (APs), and running a function on another
 * CPU (the call-function IPI). arch/x86/smp.c implements it; the real-mode
 * trampoline the APs start in is arch/x86/smp_trampoline.S; docs/smp.md
 * tells the story (discovery, bring-up, what runs where).
 *
 * CPU numbers: the boot CPU (BSP) is CPU 0; APs are numbered 1, 2, ... in
 * the order they check in. A CPU's number never changes. APIC IDs are the
 * hardware's names and need not be dense.
 *
 * Per-CPU data: each CPU's GDT has a segment (PERCPU_SEL) whose base is its
 * struct cpu_data, loaded into %gs once (gdt.c) and never changed (entry.S
 * leaves %gs alone), so this_cpu() and smp_processor_id() are one load.
 */
#ifndef ASM_SMP_H
#define ASM_SMP_H

#include <asm/trap.h>

/* Where the real-mode trampoline is copied: a page below 1 MiB (SIPI vector =
 * address >> 12), below the EBDA and above the real-mode IVT/BDA, that the
 * memory map must list as usable RAM. After multiboot_parse() irqkit keeps
 * nothing below 1 MiB (the heap starts above the kernel), so the page is free. */
#define SMP_TRAMPOLINE_PHYS 0x8000u
#define SMP_TRAMPOLINE_PAGE 0x1000u

#ifndef __ASSEMBLY__
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------
 * Tunables of SMP bring-up, with their reasons.
 */
enum smp_tunables {
	/* CPUs this kernel runs at most (per-CPU arrays, AP stacks in .bss: 20 KiB each);
	 * at most kernel/irq's IRQ_NR_CPUS (8), checked in irq_port.c. */
	SMP_MAX_CPUS = 8,
	/* INIT to the first SIPI (Intel SDM 3A 8.4.4.1, MP spec B.4: 10 ms). */
	SMP_INIT_DELAY_US = 10000,
	/* After each SIPI (SDM 3A 8.4.4.1: 200 us). */
	SMP_SIPI_DELAY_US = 200,
	/* An AP that has not checked in this long after its second SIPI is reported
	 * dead. Real CPUs need microseconds; a vCPU thread of a loaded host (two
	 * cores shared by several QEMUs) can need a scheduler slice or two. */
	SMP_CHECKIN_TIMEOUT_MS = 1000,
	/* Broadcast discovery (no table worth trusting): how long to wait for the
	 * unknown number of APs, and how long no new one may arrive before the
	 * count is taken as final once CPUID's package count is reached or unknown. */
	SMP_BROADCAST_WAIT_MS = 1000,
	SMP_BROADCAST_QUIET_MS = 100,
	/* smp_call_function_single(): how long a caller waits by default. */
	SMP_CALL_TIMEOUT_MS = 1000,
	/* Pages of each AP's kernel stack (the boot CPU keeps boot.S's 16 KiB). */
	SMP_AP_STACK_PAGES = 4,
};

/* What one CPU is and does. Written by its own CPU only (reads from others
 * are for print-outs: 64-bit counters may be read torn on 32-bit, which the
 * shell tolerates). */
struct cpu_data {
	struct cpu_data *self;        /* %gs:0: this struct's address */
	unsigned int cpu;             /* %gs:4: this CPU's number */
	uint32_t apic_id;             /* its local APIC ID */
	volatile bool online;         /* checked in and running (store-release by the CPU itself) */
	volatile uint32_t irq_depth;  /* nesting of interrupt handlers on this CPU */
	volatile uint32_t trap_depth; /* exceptions (NMI included) being handled on this CPU (x86_exception) */
	volatile uint64_t ticks;      /* its LAPIC timer's interrupts */
	volatile uint64_t interrupts; /* interrupts finished (vectors 32-255): counted at their end, smp_irq_exit */
	volatile uint64_t idle_ns;    /* time halted waiting for an interrupt */
	volatile uint64_t idle_since; /* tsc_ns() when the current halt began, 0 if not halted */
	uint64_t online_ns;           /* tsc_ns() when it checked in */
	uintptr_t stack_lo, stack_hi; /* its kernel stack */
	uintptr_t guard;              /* the unmapped page below it (0: none) */
	volatile uint32_t ipis;       /* IPIs received (call-function and wake-up) */
};

extern struct cpu_data cpu_data[SMP_MAX_CPUS];

/* this_cpu - this CPU's struct cpu_data. CONTEXT: any, after gdt_init(). */
static inline struct cpu_data *this_cpu(void)
{
	struct cpu_data *p;

	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(p) : "i"(offsetof(struct cpu_data, self)));
	return p;
}

/* smp_processor_id - this CPU's number (0 = boot CPU). CONTEXT: any, after gdt_init(). */
static inline unsigned int smp_processor_id(void)
{
	unsigned int id;

	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(id) : "i"(offsetof(struct cpu_data, cpu)));
	return id;
}

/* smp_num_cpus - CPUs that came online (1 before smp_init or with nosmp). CONTEXT: any. */
unsigned int smp_num_cpus(void);

/* smp_cpu_online - CPU @cpu is running. CONTEXT: any. */
bool smp_cpu_online(unsigned int cpu);

/* Boot parameters: `nosmp` (start no AP) and `maxcpus=N` (at most N CPUs, the boot CPU included). */
extern bool smp_param_nosmp;
extern unsigned int smp_param_maxcpus;
int smp_param_set_nosmp(const char *value, void *arg);
int smp_param_set_maxcpus(const char *value, void *arg);

/*
 * smp_init - find the CPUs (@fw: the firmware description kmain chose, may
 * be NULL; @fw_mp: the MP table's, may be NULL) and start the APs with
 * INIT-SIPI-SIPI through the trampoline. Prints where the CPU list came from
 * and why, each CPU started, each that did not check in, and the total.
 * CONTEXT: boot, after paging_init(), lapic_init(), tsc_calibrate() and
 * lapic_timer_init(); interrupts may be on or off.
 * RETURNS the number of CPUs online (>= 1).
 */
unsigned int smp_init(const void *fw, const void *fw_mp);

/*
 * smp_call_function_single - run @fn(@arg) on CPU @cpu (with interrupts
 * off there, in its interrupt handler) and wait until it has returned, at
 * most @timeout_ms (0: SMP_CALL_TIMEOUT_MS). On this CPU it just calls.
 * CONTEXT: thread context (not an interrupt handler: the target could be
 * waiting for us). Callers are serialised per target CPU.
 * RETURNS 0; -ENODEV (@cpu is not online); -ETIMEDOUT (it did not answer in
 * time: @fn may still run later, so @arg must outlive the call - callers
 * pass static data or give up the CPU).
 */
int smp_call_function_single(unsigned int cpu, void (*fn)(void *), void *arg, uint32_t timeout_ms);

/*
 * smp_stop_other_cpus - send every other CPU the stop IPI (STOP_VECTOR):
 * it halts with interrupts off (a CPU with interrupts off already goes on
 * until it opens them). Does not wait. CONTEXT: any (panic, halt).
 */
void smp_stop_other_cpus(void);

/* smp_send_wakeup - send the wake-up IPI (RESCHEDULE_VECTOR) to @cpu. CONTEXT: any. */
void smp_send_wakeup(unsigned int cpu);

/*
 * smp_idle_halt - wait for an interrupt with interrupts enabled and account
 * the time as idle (cpu_data.idle_ns, ended by the interrupt's entry).
 * CONTEXT: interrupts disabled; returns with them disabled.
 */
void smp_idle_halt(void);

/*
 * smp_irq_enter / smp_irq_exit - called by arch/x86/irq.c around every
 * interrupt (on @vector). The exit counts the interrupt as finished
 * (cpu_data.interrupts), after its handlers: kernel/irq reads that count
 * from other CPUs as the sign that this CPU ran (irq_port_cpu_progress in
 * arch/x86/irq_port.c). Ordering: the handlers' stores (the line's
 * unclaimed count among them) come before the count's store in program
 * order; x86 keeps stores in that order for other CPUs (TSO) and the
 * release fence keeps the compiler from moving them after it (it emits no
 * instruction), so a CPU whose acquire load sees the new count sees them.
 * The low word is one aligned 32-bit store of the increment: never torn.
 */
void smp_irq_enter(unsigned int vector);
static inline void smp_irq_exit(void)
{
	struct cpu_data *c = this_cpu();

	c->irq_depth--;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	c->interrupts++;
}

/* smp_print_cpus - the `cpus` shell command's table (cprintf). RETURNS 0. */
int smp_print_cpus(void);

/*
 * smp_print_irq_columns - for the shell's `irqs`: interrupts taken per CPU,
 * one column per online CPU, one row per vector that any CPU took (device
 * vectors named by their kernel/irq line, system vectors by their handler's
 * name), as Linux's /proc/interrupts. CONTEXT: thread context. RETURNS 0.
 */
int smp_print_irq_columns(void);

/* ---- Affinity (irq_affinity.c) ---- */

/* irq_affinity_param - `irqaffinity=CPU[,CPU...]`: the CPUs device lines go to. RETURNS 0 or -EINVAL. */
int irq_affinity_param(const char *value, void *arg);

/* irq_affinity_apply_boot - apply irqaffinity= to every device line with handlers (not the
 * tick's line). CONTEXT: end of boot, after the drivers requested their lines. */
void irq_affinity_apply_boot(void);

/* irq_affinity_cmd - the `affinity [IRQ CPU[,CPU...] [every MS]]` shell command. */
int irq_affinity_cmd(int argc, char **argv);

/* smp_source_name - "MADT", "MP table", "broadcast INIT-SIPI-SIPI" or "none (nosmp)". */
const char *smp_source_name(void);

#endif /* !__ASSEMBLY__ */
#endif
