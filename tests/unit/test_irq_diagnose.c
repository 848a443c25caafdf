/*
 * test_irq_diagnose.c - host unit tests of the optional chip operation
 * irq_diagnose and irq_get_line_diagnosis() (kernel/irq/health.c): a chip
 * that can say why a line's interrupts do not arrive (the message chip of
 * drivers/pci/msi.c: a mask set behind the core's back) is asked with the
 * line's lock held, its answer reaches the caller as a string, and a chip
 * without the operation, a line without a chip and bad arguments are told
 * apart. The fake chip of test_irq_fake_chip.c does the rest.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/errno.h>
#include "test_irq_fake_chip.h"
#include <irq/policy.h>

#define LINE 5

static int answer;                 /* what the chip says: 1, 0 or negative */
static unsigned int calls;
static bool lock_held_in_call;

static int diagnose(struct irq_data *d, char *buf, size_t len)
{
	calls++;
	lock_held_in_call = irq_host_locks_held() == 1 && d->irq == LINE;
	if (answer == 1)
		snprintf(buf, len, "line %u: entry masked at the device behind the core's back, and a long tail that "
			 "does not fit a short buffer", d->irq);
	return answer;
}

static struct irq_chip diag_chip;

static void setup_diag_line(void)
{
	diag_chip = fake_chip;
	diag_chip.name = "DIAG";
	diag_chip.irq_diagnose = diagnose;
	fake_setup_line(LINE, &diag_chip, handle_edge_irq);
	calls = 0;
}

static void a_chip_with_a_reason_gives_it_under_the_lines_lock(void **state)
{
	char buf[160];

	(void)state;
	setup_diag_line();
	answer = 1;
	assert_int_equal(irq_get_line_diagnosis(LINE, buf, sizeof(buf)), 1);
	assert_int_equal(calls, 1);
	assert_true(lock_held_in_call);
	assert_non_null(strstr(buf, "masked at the device behind the core's back"));
}

static void a_short_buffer_still_gets_a_terminated_string(void **state)
{
	char buf[16];

	(void)state;
	setup_diag_line();
	answer = 1;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(irq_get_line_diagnosis(LINE, buf, sizeof(buf)), 1);
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
}

static void nothing_wrong_and_cannot_tell_are_told_apart(void **state)
{
	char buf[64] = "stale";

	(void)state;
	setup_diag_line();
	answer = 0;
	assert_int_equal(irq_get_line_diagnosis(LINE, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	answer = -IRQ_EBUSY;
	assert_int_equal(irq_get_line_diagnosis(LINE, buf, sizeof(buf)), -IRQ_EBUSY);
	answer = 7;   /* a chip bug must not read as "found something" */
	assert_int_equal(irq_get_line_diagnosis(LINE, buf, sizeof(buf)), -IRQ_ENODEV);
}

static void chips_without_the_operation_and_bad_arguments_are_refused(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(irq_get_line_diagnosis(LINE, buf, sizeof(buf)), -IRQ_ENODEV);   /* no chip yet */
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(irq_get_line_diagnosis(LINE, buf, sizeof(buf)), -IRQ_ENODEV);   /* no irq_diagnose */
	assert_int_equal(irq_get_line_diagnosis(IRQ_NR_LINES, buf, sizeof(buf)), -IRQ_EINVAL);
	assert_int_equal(irq_get_line_diagnosis(LINE, NULL, 10), -IRQ_EINVAL);
	assert_int_equal(irq_get_line_diagnosis(LINE, buf, 0), -IRQ_EINVAL);
}

static void the_health_report_prints_the_reason_of_a_line_on_polling(void **state)
{
	struct fake_dev dev = { .name = "disk", .answer = IRQ_HANDLED };
	struct irq_expect *exp;

	(void)state;
	irq_defences_start();
	setup_diag_line();
	answer = 1;
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "disk", &dev), 0);
	exp = init_irq_expect(LINE, &dev);
	assert_non_null(exp);
	expect_irq(exp);
	/* The driver's wait: its CPU (the line's) took its tick meanwhile, so the time-out is lost, not late (stall.c). */
	irq_host_cpu_progress_add(irq_port_cpu_id());
	unexpect_irq(exp, true);     /* the driver gave up waiting: the line goes on polling */
	calls = 0;
	assert_int_equal(irq_health_report(), 1);
	assert_int_equal(calls, 1);  /* asked once, for the one line on polling */
	free_irq(LINE, &dev);
}

#define CASE(fn) cmocka_unit_test_setup_teardown(fn, fake_irq_setup, fake_irq_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASE(a_chip_with_a_reason_gives_it_under_the_lines_lock),
		CASE(a_short_buffer_still_gets_a_terminated_string),
		CASE(nothing_wrong_and_cannot_tell_are_told_apart),
		CASE(chips_without_the_operation_and_bad_arguments_are_refused),
		CASE(the_health_report_prints_the_reason_of_a_line_on_polling),
	};
	return cmocka_run_group_tests_name("irq_diagnose", tests, NULL, NULL);
}
