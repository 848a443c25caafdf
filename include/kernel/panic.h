/*
 * Stopping the machine: panic(), the last-resort raw path, and the exit
 * codes the kernel reports to QEMU's isa-debug-exit device (boot parameter
 * `debugexit`), which QEMU turns into its exit status (code << 1) | 1.
 */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include <stdint.h>

enum kernel_exit_code {
	KEXIT_PASS  = 0x10,  /* selftests passed        -> QEMU exits 33 */
	KEXIT_FAIL  = 0x11,  /* a selftest failed       -> QEMU exits 35 */
	KEXIT_PANIC = 0x12,  /* panic / fatal exception -> QEMU exits 37 */
	KEXIT_HALT  = 0x13,  /* shell `halt`            -> QEMU exits 39 */
};

/* halt_system - print why, report KEXIT_PANIC to QEMU if enabled, halt for good. */
__attribute__((noreturn)) void halt_system(const char *why);
/* panic_raw - polled serial output of one line and halt; never calls printk. */
__attribute__((noreturn)) void panic_raw(const char *msg);
/* kernel_exit - report @code to isa-debug-exit (when enabled) and halt. */
__attribute__((noreturn)) void kernel_exit(enum kernel_exit_code code);
/* print_backtrace - walk the frame-pointer chain from @ebp (arch code). */
void print_backtrace(uint32_t ebp, uint32_t eip);

/* Set by the `debugexit` boot parameter: I/O port of QEMU's isa-debug-exit, 0 = off. */
extern uint16_t debugexit_port;

#endif
