/*
 * console_selftest.c - the cases that put kernel/printk.c's whole-line
 * output to work (selftest=console): a line is half built by cprintf when
 * something else prints - an interrupt on this CPU (a software interrupt
 * through the IDT, so the handler runs in interrupt context at irq_depth 1),
 * an exception on this CPU (int3, at trap_depth 1), another CPU in its
 * interrupt handler (smp_call_function_single's IPI) - and then the line is
 * finished; and a line longer than the line buffer.
 *
 * The kernel does not grade its own console: each case only checks that the
 * other context really printed while the line was half built. Whether every
 * line came out whole is judged on the host from the serial output
 * (tests/qemu/test_console.py), against the texts below.
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/smp.h>
#include <asm/trap.h>
#include <asm/x86_irq.h>
#include <kernel/printk.h>
#include <kernel/selftest.h>

/* Bytes of the long line: longer than printk's line buffer (PRINTK_CTX_LINE, 384), in pieces of 10. */
#define ST_LONG_LINE_BYTES 1000

static volatile uint32_t st_printed_on;   /* CPU number + 1 of the other context that printed */

static void st_interrupt_prints(struct trap_frame *f)
{
	(void)f;
	/* A line of its own, itself built in two pieces, as a handler's report may be. */
	cprintf("console-selftest: an interrupt's line, ");
	cprintf("in two pieces\n");
	pr_info("console-selftest: a message from an interrupt on CPU %u\n", smp_processor_id());
	st_printed_on = smp_processor_id() + 1;
}

SELFTEST(console, an_interrupt_on_this_cpu_does_not_cut_a_line_in_progress)
{
	st_printed_on = 0;
	x86_set_system_vector(CONSOLE_SELFTEST_VECTOR, st_interrupt_prints, "console-selftest");
	cprintf("console-selftest: task line begins, ");
	__asm__ volatile("int %0" :: "i"(CONSOLE_SELFTEST_VECTOR));
	cprintf("and ends after the interrupt\n");
	x86_set_system_vector(CONSOLE_SELFTEST_VECTOR, NULL, NULL);
	ST_EXPECT(t, st_printed_on == smp_processor_id() + 1, "the interrupt's handler did not run here (%u)",
		  st_printed_on);
}

SELFTEST(console, an_exception_on_this_cpu_does_not_cut_a_line_in_progress)
{
	uint32_t before = this_cpu()->trap_depth;

	cprintf("console-selftest: task line before a breakpoint, ");
	__asm__ volatile("int3");   /* reported by x86_exception, which resumes */
	cprintf("and after it\n");
	ST_EXPECT(t, this_cpu()->trap_depth == before, "trap depth %u after the breakpoint, %u before",
		  this_cpu()->trap_depth, before);
}

static void st_other_cpu_prints(void *arg)
{
	(void)arg;
	st_interrupt_prints(NULL);
}

SELFTEST(console, another_cpu_does_not_cut_a_line_in_progress)
{
	unsigned int other = smp_processor_id() == 0 ? 1 : 0;
	int rc;

	if (smp_num_cpus() < 2 || !smp_cpu_online(other)) {
		selftest_skip(t, "one CPU");
		return;
	}
	st_printed_on = 0;
	cprintf("console-selftest: CPU %u's line begins, ", smp_processor_id());
	rc = smp_call_function_single(other, st_other_cpu_prints, NULL, 0);
	cprintf("and ends after CPU %u printed\n", other);
	ST_EXPECT(t, rc == 0 && st_printed_on == other + 1, "CPU %u did not print in its handler (rc %d, %u)",
		  other, rc, st_printed_on);
}

SELFTEST(console, a_line_longer_than_the_buffer_comes_out_in_marked_pieces)
{
	static const char digits[] = "0123456789";

	cprintf("console-selftest: long line: ");
	for (unsigned int i = 0; i < ST_LONG_LINE_BYTES / 10; i++)
		cprintf("%s", digits);
	cprintf(" end\n");
	(void)t;   /* nothing to check in the kernel: the host reads the pieces (test_console.py) */
}
