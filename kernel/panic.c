/*
 * panic.c - stopping the kernel for good, loudly, and telling QEMU about it
 * when the `debugexit` boot parameter names its isa-debug-exit port (the
 * tests do; on real hardware the parameter is simply not given).
 */
#include <asm/smp.h>
#include <stdarg.h>
#include <asm/cpu.h>
#include <asm/io.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/format.h>
#include <kernel/console.h>

uint16_t debugexit_port;
static volatile int panicking;

void kernel_exit(enum kernel_exit_code code)
{
	cpu_cli();
	console_flush();
	if (debugexit_port)
		outl(debugexit_port, code);
	cpu_halt_forever();
}

void panic_raw(const char *msg)
{
	cpu_cli();
	console_emergency_write("\nPANIC (raw): ");
	console_emergency_write(msg);
	console_emergency_write("\n");
	if (debugexit_port)
		outl(debugexit_port, KEXIT_PANIC);
	cpu_halt_forever();
}

void halt_system(const char *why)
{
	cpu_cli();
	smp_stop_other_cpus();
	printk_flush_lines();
	pr_emerg("System halted: %s\n", why);
	kernel_exit(KEXIT_PANIC);
}

void panic(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	cpu_cli();
	if (panicking++)
		panic_raw("panic while panicking");
	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_emerg("Kernel panic: %s\n", msg);
	print_backtrace((uint32_t)(uintptr_t)__builtin_frame_address(0),
			(uint32_t)(uintptr_t)__builtin_return_address(0));
	halt_system("kernel panic");
}
