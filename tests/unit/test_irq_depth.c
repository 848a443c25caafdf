/*
 * test_irq_depth.c - host unit tests of kernel/irq's enable/disable depth:
 * the first disable masks and the last enable unmasks, nesting, unbalanced
 * enables (warned, no underflow), the limit on nesting, and how the depth
 * and a pending edge behave across free_irq and a new request_irq.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <kernel/errno.h>
#include "test_irq_fake_chip.h"

#define LINE 7

static unsigned int line_depth(unsigned int irq)
{
	struct irq_line_stats st;

	assert_int_equal(irq_get_line_stats(irq, &st), 0);
	return st.depth;
}

static void nested_disables_mask_once_and_only_the_last_enable_unmasks(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	disable_irq(LINE);
	disable_irq_nosync(LINE);
	disable_irq(LINE);
	assert_string_equal(fake_chip_trace(LINE), "unmask mask");
	assert_int_equal(line_depth(LINE), 3);
	enable_irq(LINE);
	enable_irq(LINE);
	assert_true(fake_chip_masked(LINE));
	fake_raise(LINE);
	assert_int_equal(dev.calls, 0);
	enable_irq(LINE);
	assert_false(fake_chip_masked(LINE));
	assert_int_equal(line_depth(LINE), 0);
	fake_raise(LINE);
	assert_int_equal(dev.calls, 1);
}

static void an_unbalanced_enable_is_warned_about_and_the_depth_does_not_underflow(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED };
	unsigned int i;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	for (i = 0; i < 10; i++)
		enable_irq(LINE);
	assert_int_equal(line_depth(LINE), 0);
	assert_true(fake_refused(IRQ_E_ENABLE_UNBALANCED, LINE, "unbalanced enable_irq", NULL));
	/* 1st, 2nd, 4th, 8th: rate-limited. */
	assert_int_equal(irq_host_log_count_level(IRQ_LOG_WARN), 4);
	/* One disable still switches the line off: no hidden negative depth. */
	disable_irq(LINE);
	assert_true(fake_chip_masked(LINE));
	fake_raise(LINE);
	assert_int_equal(dev.calls, 0);
	assert_string_equal(fake_chip_trace(LINE), "unmask mask ack");
}

static void enable_of_a_line_without_handler_is_refused_and_it_stays_masked(void **state)
{
	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	enable_irq(LINE);
	assert_true(fake_chip_masked(LINE));
	assert_int_equal(line_depth(LINE), 1);
	assert_true(fake_refused(IRQ_E_ENABLE_NO_HANDLER, LINE, "enable_irq on a line without handler", NULL));
	assert_string_equal(fake_chip_trace(LINE), "");
}

static void disabling_deeper_than_irq_depth_max_is_refused(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED };
	unsigned int i;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	for (i = 0; i < IRQ_DEPTH_MAX + 5; i++)
		disable_irq_nosync(LINE);
	assert_int_equal(line_depth(LINE), IRQ_DEPTH_MAX);
	assert_true(fake_refused(IRQ_E_DISABLE_DEEP, LINE, "nested deeper than", NULL));
	for (i = 0; i < IRQ_DEPTH_MAX; i++)
		enable_irq(LINE);
	assert_false(fake_chip_masked(LINE));
}

static void a_new_request_after_freeing_a_disabled_line_starts_enabled(void **state)
{
	struct fake_dev a = { .name = "a", .answer = IRQ_HANDLED }, b = { .name = "b", .answer = IRQ_HANDLED };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &a), 0);
	disable_irq(LINE);
	disable_irq(LINE);
	fake_raise(LINE);       /* pending for "a", who never sees it */
	free_irq(LINE, &a);
	assert_int_equal(line_depth(LINE), 1);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "b", &b), 0);
	assert_int_equal(line_depth(LINE), 0);
	assert_false(fake_chip_masked(LINE));
	/* The old driver's pending edge was forgotten at free_irq. */
	assert_int_equal(irq_host_run_timers(), 0);
	assert_int_equal(a.calls + b.calls, 0);
	fake_raise(LINE);
	assert_int_equal(b.calls, 1);
}

static void an_edge_that_came_before_any_driver_is_delivered_to_the_first_one(void **state)
{
	struct fake_dev dev = { .name = "late", .answer = IRQ_HANDLED };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	fake_raise(LINE);       /* latched before the mask took effect */
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "late", &dev), 0);
	assert_int_equal(dev.calls, 0);
	assert_int_equal(irq_host_run_timers(), 1);
	assert_int_equal(dev.calls, 1);
}

static void calls_on_lines_that_do_not_exist_are_logged_and_ignored(void **state)
{
	(void)state;
	disable_irq(IRQ_NR_LINES);
	disable_irq_nosync(IRQ_NR_LINES + 1);
	enable_irq(IRQ_NR_LINES + 2);
	synchronize_irq(IRQ_NR_LINES + 3);
	assert_int_equal(irq_host_log_count_level(IRQ_LOG_WARN), 4);
	assert_true(fake_refused(IRQ_E_API_NO_LINE, IRQ_NR_LINES + 3, "synchronize_irq", NULL));
}

#define CASE(fn) cmocka_unit_test_setup_teardown(fn, fake_irq_setup, fake_irq_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASE(nested_disables_mask_once_and_only_the_last_enable_unmasks),
		CASE(an_unbalanced_enable_is_warned_about_and_the_depth_does_not_underflow),
		CASE(enable_of_a_line_without_handler_is_refused_and_it_stays_masked),
		CASE(disabling_deeper_than_irq_depth_max_is_refused),
		CASE(a_new_request_after_freeing_a_disabled_line_starts_enabled),
		CASE(an_edge_that_came_before_any_driver_is_delivered_to_the_first_one),
		CASE(calls_on_lines_that_do_not_exist_are_logged_and_ignored),
	};

	fake_irq_filter_from_env();
	return cmocka_run_group_tests_name("irq_depth", tests, NULL, NULL);
}
