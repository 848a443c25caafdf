/*
 * irq_port_host.h (template port) - the types a host must define for the
 * portable interrupt core, as kernel/irq/port.h asks, and the few calls
 * the template needs from your kernel. Copy this directory to your kernel,
 * put the copy's directory on the include path (and the directory that
 * holds kernel/irq's "irq/" beside it), and adapt: docs/porting.md goes
 * through every item, has a section for your kind of kernel (x86, RISC-V
 * in machine or supervisor mode, Cortex-M, AArch64), and its "First boot"
 * section gives the order.
 *
 * This template is a minimal, working port. Its locks are real spinlocks
 * (interrupts off on this CPU, then an atomic test-and-set word); its
 * interrupt save/restore is real on x86 (EFLAGS.IF), ARMv7-M (PRIMASK),
 * AArch64 (DAIF.I) and RISC-V, where the build must say which privilege
 * mode the kernel runs in: -DIRQ_TEMPLATE_RISCV_M_MODE (mstatus.MIE, the
 * CLINT) or -DIRQ_TEMPLATE_RISCV_S_MODE (sstatus.SIE, the time CSR, the SBI
 * timer or Sstc's stimecmp). Neither, or any other CPU, stops the build
 * with #error. Its clock is a free-running counter: built in on RISC-V
 * (mtime, the time CSR) and AArch64 (the generic timer's virtual count),
 * given with irq_template_set_clock() elsewhere; its timers are lists
 * served by irq_template_timer_interrupt(), from a one-shot alarm (built in
 * on RISC-V and AArch64: per-CPU comparators, one list per CPU) or from
 * your periodic tick. The places that need your kernel are marked "PORT:"
 * in port_template.c. For RISC-V boards, plic_template.h gives the PLIC as
 * an irq_chip (machine or supervisor mode, one hart or several). `make cross` builds it with the core for Cortex-M3,
 * RV64, AArch64 and i686, and runs it on QEMU's Cortex-M3 board, the
 * RISC-V virt board in machine and in supervisor mode, and the Arm virt
 * board at EL1 (tests/cross/), so that it never rots.
 */
#ifndef IRQ_PORT_HOST_H
#define IRQ_PORT_HOST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
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

/*
 * One one-shot timer, in the caller's storage; kept on a list while
 * pending: the list of the CPU that armed it when the alarm is per CPU
 * (irq_template_set_cpu_alarm), else the one list. @list fits in the
 * padding after @pending, so the timer is no bigger than with one list.
 */
struct irq_port_timer {
	void (*fn)(void *arg);          /* callback */
	void *arg;                      /* its argument */
	uint64_t expires_ns;            /* when, on irq_port_now_ns() */
	bool pending;                   /* armed, not fired yet */
	uint16_t list;                  /* while pending: the list it is on (a CPU number, or 0) */
	struct irq_port_timer *next;    /* next pending timer */
};

/*
 * irq_template_set_clock - the clock and a global alarm of the template.
 * @now_ns: nanoseconds of a free-running counter (TSC, HPET, a 64-bit
 * timer, a 32-bit one extended in software); it must advance with
 * interrupts off (port.h's contract) and be callable with interrupts off
 * and the template's timer lock held. Without it (and without a built-in
 * clock: RISC-V and AArch64 have one) irq_port_now_ns() panics with a
 * message naming this function.
 * @set_alarm: optional; program a one-shot interrupt at @expires_ns (or
 * "never" for UINT64_MAX) whose handler calls irq_template_timer_interrupt().
 * One comparator for the whole machine (the HPET, the PIT, a board timer):
 * every CPU may call it, for the earliest timer of all. A comparator that
 * cannot reach far enough (the PIT's 16 bits: 55 ms) may fire early: set
 * it as far as it reaches; an interrupt that finds nothing due programs it
 * again (docs/porting.md, x86). A comparator per CPU takes
 * irq_template_set_cpu_alarm() instead.
 * NULL: your periodic tick calls irq_template_timer_interrupt() instead,
 * and every poll of the defences is rounded up to the tick (porting.md,
 * "Timer resolution": 1 kHz is the coarsest that keeps a lost-interrupt
 * disk usable; a one-shot alarm is what to aim for).
 * RISC-V and AArch64 start with their built-in clock and per-CPU alarm
 * (port_template.c); this call replaces both.
 * CONTEXT: thread context, before irq_core_init() (the core reads the clock
 * in the waits of disable_irq() and free_irq(), the replay of enable_irq()
 * and the defences from irq_defences_start() on: setting it first is always
 * early enough; docs/porting.md, First boot, step 1), with no timer armed.
 */
void irq_template_set_clock(uint64_t (*now_ns)(void), void (*set_alarm)(uint64_t expires_ns));

/*
 * irq_template_set_cpu_alarm - an alarm per CPU (RISC-V mtimecmp, stimecmp
 * or the SBI timer; the Arm generic timer; the x86 LAPIC timer):
 * @set_alarm programs the *calling* CPU's comparator. The template then
 * keeps one timer list per CPU (IRQ_TEMPLATE_NR_CPUS): a timer goes on the
 * list of the CPU that arms it, that CPU's comparator is set for the
 * earliest on its list, and its alarm interrupt runs only its list, so no
 * CPU's comparator stands for another's timers. The core arms a line's
 * poll timer where the driver called expect_irq() or where the line's
 * interrupt or the previous poll ran: docs/porting.md, "Several CPUs: the
 * alarm's CPU", says what that means for routing. The clock is kept.
 * CONTEXT: as irq_template_set_clock, after it (or with the built-in clock).
 */
void irq_template_set_cpu_alarm(void (*set_alarm)(uint64_t expires_ns));

/*
 * irq_template_timer_interrupt - run the template's expired timers and
 * program the alarm for the next one. Your alarm's interrupt (RISC-V: the
 * machine timer interrupt, mcause 7, or the supervisor timer interrupt,
 * scause 5; AArch64: the virtual timer's PPI, INTID 27) or your periodic
 * tick calls it. With a per-CPU alarm it runs the calling CPU's list.
 * CONTEXT: timer interrupt (interrupts off).
 */
void irq_template_timer_interrupt(void);

/*
 * irq_template_set_cpu_id - the number of the calling CPU, 0 to
 * IRQ_NR_CPUS - 1, for irq_port_cpu_id() and the per-CPU timer lists.
 * Without it: machine-mode RISC-V reads mhartid, AArch64 the affinity-0
 * field of MPIDR_EL1, every other CPU says 0 (right for one CPU). A
 * supervisor-mode RISC-V kernel cannot read mhartid: it keeps the hart id
 * the SBI handed it in a0 (xv6: in tp; Linux: in its per-CPU data) and
 * gives it here. The core calls irq_port_cpu_id() twice per interrupt: on
 * several CPUs, make it a static inline in this header instead (and delete
 * the template's).
 * CONTEXT: thread context, before irq_core_init().
 */
void irq_template_set_cpu_id(unsigned int (*cpu_id)(void));

/*
 * irq_template_interrupt_done - this CPU has finished an interrupt: call it
 * at the end of every interrupt handler of yours, after generic_handle_irq()
 * (irq_template_timer_interrupt() and, per claim, plic_template.h's
 * irq_template_plic_interrupt() call it themselves). It is the count
 * irq_port_cpu_progress() returns: the defences' sign that the CPU ran, so
 * that an interrupt late because the CPU did not run is not called lost
 * (docs/porting.md, "Evidence that a CPU ran"). Without the calls only the
 * timer interrupts count, which is enough on one CPU that ticks.
 * CONTEXT: interrupt context, at its end.
 */
void irq_template_interrupt_done(void);

/*
 * irq_template_set_log - where irq_port_log() sends messages: your vprintk
 * (it must take the conversions docs/porting.md lists, %llu among them).
 * irq_template_set_console - or, for a kernel whose printf cannot (xv6's
 * cprintf has no %u, %llu, precision or va_list form): the template formats
 * each message itself with irq_template_vformat() into a line of
 * IRQ_TEMPLATE_LINE_MAX characters and hands it to @write.
 * Until one is set, messages are dropped: set it before irq_core_init().
 * CONTEXT: thread context, before irq_core_init().
 */
void irq_template_set_log(void (*vlog)(int level, const char *fmt, va_list ap));
void irq_template_set_console(void (*write)(int level, const char *line));

/* Longest line irq_template_set_console's writer gets (the core's longest message is about 250). */
#define IRQ_TEMPLATE_LINE_MAX 320

/*
 * irq_template_vformat (irq_format.c) - format @fmt with @ap into @buf of
 * @size bytes, NUL-terminated when @size > 0, taking exactly the
 * conversions of docs/porting.md section 2. CONTEXT: any; no locks.
 * RETURNS the length of the whole result (as vsnprintf).
 */
int irq_template_vformat(char *buf, size_t size, const char *fmt, va_list ap);

#endif /* IRQ_PORT_HOST_H */
