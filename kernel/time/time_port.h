/*
 * time_port.h - everything kernel/time needs from the kernel that hosts it.
 *
 * kernel/time (clock sources, clock events, the tick, hrtimers and the timer
 * wheel's kernel wrapper) is portable C: besides the compiler's freestanding
 * headers it includes only its own headers and this one. A host supplies
 * the functions below; nothing else crosses the boundary. This kernel
 * implements them in arch/x86; the host unit tests implement them in
 * tests/unit/test_time_port.c. The timer wheel (timer_wheel.c) needs not
 * even this header. The design is described in docs/time.md.
 *
 * Sections, in the manner of a FreeRTOS portmacro.h: error codes, critical
 * sections, idle, logging.
 */
#ifndef TIME_TIME_PORT_H
#define TIME_TIME_PORT_H

/* ---- Error codes ---------------------------------------------------------
 * The kernel-wide list of negative error codes (pure #defines, no code), so
 * that kernel/time returns the same -EINVAL/-EBUSY/... as the rest of the
 * kernel.
 */
#include <kernel/errno.h>

/* ---- Critical sections ---------------------------------------------------
 * kernel/time runs on one CPU and protects its state by disabling local
 * interrupts, which also keeps clock event handlers out.
 */

/*
 * time_port_irq_save - disable interrupts on this CPU.
 * RETURNS an opaque value that records whether they were enabled before;
 * calls nest (save/restore in strict pairs).
 */
unsigned long time_port_irq_save(void);

/* time_port_irq_restore - put the interrupt state back as @flags recorded. */
void time_port_irq_restore(unsigned long flags);

/*
 * time_port_callback_begin / time_port_callback_end - around the callback
 * of an hrtimer (not kernel/time's own tick timer): a host with several
 * CPUs lets the other CPUs into kernel/time while the callback runs, so a
 * callback that takes a lock of its own (kernel/irq's poll takes a line's)
 * never waits with kernel/time's lock held while another CPU holds that
 * lock and waits for kernel/time's (arming a timer): the inversion that
 * deadlocks two CPUs. Interrupts stay disabled on this CPU. A host with one
 * CPU does nothing. begin RETURNS an opaque token for end.
 * CONTEXT: the clock event handler, inside time_port_irq_save().
 */
unsigned long time_port_callback_begin(void);
void time_port_callback_end(unsigned long token);

/*
 * time_port_cpu_id - the number of the CPU running the caller (any numbering
 * that is stable while interrupts are disabled; a host with one CPU returns
 * 0). hrtimer_cancel() compares it with the CPU running a callback so that
 * a callback cancelling its own timer does not wait for itself.
 * CONTEXT: any. Cheap.
 */
unsigned int time_port_cpu_id(void);

/* ---- Idle ----------------------------------------------------------------
 * time_port_idle - wait for an interrupt (x86: "sti; hlt; cli").
 * CONTEXT: called with interrupts disabled. It must enable them and halt as
 * one step (an interrupt that arrives between the caller's last check and
 * the halt must still end the wait), let the interrupt be handled, and
 * return with interrupts disabled again.
 */
void time_port_idle(void);

/* ---- Logging -------------------------------------------------------------
 * Levels have the same numbers as the kernel's printk levels.
 */
enum time_log_level {
	TIME_LOG_ERR  = 3,  /* an operation failed */
	TIME_LOG_WARN = 4,  /* something is wrong but time keeps going */
	TIME_LOG_INFO = 6,  /* boot and configuration messages */
	TIME_LOG_DEBUG = 7, /* details for developers */
};

/*
 * time_port_log - log one line (no trailing newline needed) at @level.
 * CONTEXT: any, including clock event handlers with interrupts disabled.
 */
void time_port_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
