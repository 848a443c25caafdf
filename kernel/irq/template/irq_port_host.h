/*
 * irq_port_host.h (template port) - the types a host must define for the
 * portable interrupt core, as kernel/irq/port.h asks, and the few calls
 * the template needs from your kernel. Copy this directory to your kernel,
 * put the copy's directory on the include path (and the directory that
 * holds kernel/irq's "irq/" beside it), and adapt: docs/porting.md goes
 * through every item, and its "First boot" section gives the order.
 *
 * This template is a minimal, working port. Its locks are real spinlocks
 * (interrupts off on this CPU, then an atomic test-and-set word); its
 * interrupt save/restore is real on x86 (EFLAGS.IF), ARMv7-M (PRIMASK) and
 * RISC-V machine mode (mstatus.MIE); any other CPU stops the build with
 * #error. Its clock is a free-running counter your board gives it with
 * irq_template_set_clock() (on RISC-V the CLINT's mtime is built in); its
 * timers are a list served by irq_template_timer_interrupt(), from a
 * one-shot alarm (RISC-V: the CLINT's mtimecmp, built in) or from your
 * periodic tick. The places that need your kernel are marked "PORT:" in
 * port_template.c. `make cross` builds it with the core for Cortex-M3,
 * RV64 and i686, and runs it on QEMU's Cortex-M3 and RISC-V virt boards
 * (tests/cross/), so that it never rots.
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

/* One one-shot timer, in the caller's storage; kept on a list while pending. */
struct irq_port_timer {
	void (*fn)(void *arg);          /* callback */
	void *arg;                      /* its argument */
	uint64_t expires_ns;            /* when, on irq_port_now_ns() */
	bool pending;                   /* armed, not fired yet */
	struct irq_port_timer *next;    /* next pending timer */
};

/*
 * irq_template_set_clock - the clock and the alarm of the template.
 * @now_ns: nanoseconds of a free-running counter (TSC, a 64-bit timer, a
 * 32-bit one extended in software); it must advance with interrupts off
 * (port.h's contract) and be callable with interrupts off and the
 * template's timer lock held. Required before irq_defences_start(), the
 * first caller: without it irq_port_now_ns() panics with a message naming
 * this function.
 * @set_alarm: optional; program a one-shot interrupt at @expires_ns (or
 * "never" for UINT64_MAX) whose handler calls irq_template_timer_interrupt().
 * NULL: your periodic tick calls irq_template_timer_interrupt() instead,
 * and every poll of the defences is rounded up to the tick (porting.md,
 * "Timer resolution": 1 kHz is the coarsest that keeps a lost-interrupt
 * disk usable; a one-shot alarm is what to aim for).
 * On RISC-V both default to the CLINT's mtime and mtimecmp
 * (IRQ_TEMPLATE_CLINT_BASE, IRQ_TEMPLATE_MTIME_HZ in port_template.c).
 * CONTEXT: thread context, before irq_core_init(), interrupts off or the
 * timer not yet started.
 */
void irq_template_set_clock(uint64_t (*now_ns)(void), void (*set_alarm)(uint64_t expires_ns));

/*
 * irq_template_timer_interrupt - run the template's expired timers and
 * program the alarm for the next one. Your alarm's interrupt (RISC-V: the
 * machine timer interrupt, mcause 7) or your periodic tick calls it.
 * CONTEXT: timer interrupt (interrupts off).
 */
void irq_template_timer_interrupt(void);

/*
 * irq_template_interrupt_done - this CPU has finished an interrupt: call it
 * at the end of every interrupt handler of yours, after generic_handle_irq()
 * (irq_template_timer_interrupt() calls it itself). It is the count
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
