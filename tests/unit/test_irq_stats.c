/*
 * test_irq_stats.c - host unit tests of kernel/irq's statistics (stats.c),
 * what the "irqs" shell command shows: per-line counters, chip, trigger,
 * flow and state, per-action counters, the status string, and that the
 * core's error numbers are the kernel's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/errno.h>
#include "test_irq_fake_chip.h"

#define LINE 4

static void an_unused_line_reports_zeros_and_none(void **state)
{
	struct irq_line_stats st;
	char buf[64];

	(void)state;
	memset(&st, 0xA5, sizeof(st));
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.irq, LINE);
	assert_string_equal(st.chip_name, "none");
	assert_string_equal(st.trigger, "none");
	assert_string_equal(st.flow, "none");
	assert_int_equal(st.depth, 1);
	assert_int_equal(st.nr_actions, 0);
	assert_int_equal(st.delivered + st.handled + st.unhandled + st.spurious + st.polled, 0);
	assert_string_equal(irq_status_string(st.status, buf, sizeof(buf)), "disabled");
}

static void a_busy_line_counts_deliveries_claims_and_spurious_interrupts(void **state)
{
	struct fake_dev dev = { .name = "serial", .answer = IRQ_HANDLED };
	struct irq_line_stats st;
	char buf[64];
	unsigned int i;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "serial", &dev), 0);
	for (i = 0; i < 3; i++)
		fake_raise(LINE);
	dev.answer = IRQ_NONE;
	fake_raise(LINE);
	fake_raise(LINE);
	irq_account_spurious(LINE);
	irq_account_spurious(IRQ_NR_LINES);  /* ignored */
	irq_host_irq_enter();
	assert_int_equal(irq_poll_line(irq_to_desc(LINE)), IRQ_NONE);
	irq_host_irq_exit();
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_string_equal(st.chip_name, "FAKE");
	assert_string_equal(st.trigger, "edge");
	assert_string_equal(st.flow, "edge");
	assert_int_equal(st.delivered, 5);
	assert_int_equal(st.handled, 3);
	assert_int_equal(st.unhandled, 2);
	assert_int_equal(st.spurious, 1);
	assert_int_equal(st.polled, 1);
	assert_int_equal(st.nr_actions, 1);
	assert_int_equal(st.depth, 0);
	assert_string_equal(irq_status_string(st.status, buf, sizeof(buf)), "");
	disable_irq(LINE);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_string_equal(irq_status_string(st.status, buf, sizeof(buf)), "disabled,masked");
}

static void action_stats_list_the_actions_in_order_then_end(void **state)
{
	struct fake_dev a = { .name = "uhci", .answer = IRQ_HANDLED }, b = { .name = "e1000", .answer = IRQ_NONE };
	struct irq_action_stats as;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_fasteoi_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED | IRQF_TRIGGER_HIGH, "uhci", &a), 0);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "e1000", &b), 0);
	fake_raise(LINE);
	fake_raise(LINE);
	assert_int_equal(irq_get_action_stats(LINE, 0, &as), 0);
	assert_string_equal(as.name, "uhci");
	assert_ptr_equal(as.dev_id, &a);
	assert_int_equal(as.handled, 2);
	assert_int_equal(as.flags, IRQF_SHARED | IRQF_TRIGGER_HIGH);
	assert_int_equal(irq_get_action_stats(LINE, 1, &as), 0);
	assert_string_equal(as.name, "e1000");
	assert_int_equal(as.handled, 0);
	assert_int_equal(irq_get_action_stats(LINE, 2, &as), -ENOENT);
	assert_int_equal(irq_get_action_stats(LINE, 1000, &as), -ENOENT);
	assert_int_equal(irq_get_action_stats(LINE + 1, 0, &as), -ENOENT);
}

static void stats_refuse_lines_that_do_not_exist_and_missing_buffers(void **state)
{
	struct irq_line_stats st;
	struct irq_action_stats as;

	(void)state;
	assert_int_equal(irq_get_line_stats(IRQ_NR_LINES, &st), -EINVAL);
	assert_int_equal(irq_get_line_stats(LINE, NULL), -EINVAL);
	assert_int_equal(irq_get_action_stats(IRQ_NR_LINES, 0, &as), -EINVAL);
	assert_int_equal(irq_get_action_stats(LINE, 0, NULL), -EINVAL);
}

static void the_status_string_names_every_bit_and_unknown_ones_in_hex(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(irq_status_string(0, buf, sizeof(buf)), "");
	assert_string_equal(irq_status_string(IRQS_POLLING | IRQS_DISABLED, buf, sizeof(buf)), "disabled,polling");
	assert_string_equal(irq_status_string(IRQS_KNOWN_MASK, buf, sizeof(buf)),
			    "disabled,masked,inprogress,pending,replay,polling");
	assert_string_equal(irq_status_string(IRQS_PENDING | 0x1000u, buf, sizeof(buf)), "pending,0x1000");
	assert_string_equal(irq_status_string(0x80000000u, buf, sizeof(buf)), "0x80000000");
}

static void the_status_string_is_truncated_to_the_buffer(void **state)
{
	char buf[8];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_string_equal(irq_status_string(IRQS_DISABLED | IRQS_MASKED, buf, 5), "disa");
	assert_int_equal(buf[5], 'x');  /* nothing written past len */
	assert_string_equal(irq_status_string(IRQS_DISABLED | IRQS_MASKED, buf, sizeof(buf)), "disable");
	assert_string_equal(irq_status_string(IRQS_DISABLED, buf, 1), "");
	assert_string_equal(irq_status_string(IRQS_DISABLED, buf, 0), "");
	assert_string_equal(irq_status_string(IRQS_DISABLED, NULL, 16), "");
}

/* A controller-specific flow: runs the handlers like the level flow would. */
static void custom_flow(struct irq_desc *desc)
{
	handle_level_irq(desc);
}

static void a_custom_flow_handler_is_reported_as_custom(void **state)
{
	struct irq_line_stats st;

	(void)state;
	fake_setup_line(LINE, &fake_chip_mask_ack, custom_flow);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_string_equal(st.flow, "custom");
	assert_string_equal(st.chip_name, "FAKE-MA");
	assert_string_equal(st.trigger, "level");
}

static void the_core_error_numbers_are_the_kernels(void **state)
{
	(void)state;
	assert_int_equal(IRQ_ENOENT, ENOENT);
	assert_int_equal(IRQ_EAGAIN, EAGAIN);
	assert_int_equal(IRQ_ENOMEM, ENOMEM);
	assert_int_equal(IRQ_EBUSY, EBUSY);
	assert_int_equal(IRQ_ENODEV, ENODEV);
	assert_int_equal(IRQ_EINVAL, EINVAL);
	assert_int_equal(IRQ_ENOSPC, ENOSPC);
	assert_int_equal(IRQ_ETIMEDOUT, ETIMEDOUT);
	assert_int_equal(IRQ_EINPROGRESS, EINPROGRESS);
	/* And the trigger types are the request flags shifted. */
	assert_int_equal(IRQF_TRIGGER_RISING >> IRQ_TYPE_FROM_IRQF_SHIFT, IRQ_TYPE_EDGE_RISING);
	assert_int_equal(IRQF_TRIGGER_FALLING >> IRQ_TYPE_FROM_IRQF_SHIFT, IRQ_TYPE_EDGE_FALLING);
	assert_int_equal(IRQF_TRIGGER_HIGH >> IRQ_TYPE_FROM_IRQF_SHIFT, IRQ_TYPE_LEVEL_HIGH);
	assert_int_equal(IRQF_TRIGGER_LOW >> IRQ_TYPE_FROM_IRQF_SHIFT, IRQ_TYPE_LEVEL_LOW);
}

#define CASE(fn) cmocka_unit_test_setup_teardown(fn, fake_irq_setup, fake_irq_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASE(an_unused_line_reports_zeros_and_none),
		CASE(a_busy_line_counts_deliveries_claims_and_spurious_interrupts),
		CASE(action_stats_list_the_actions_in_order_then_end),
		CASE(stats_refuse_lines_that_do_not_exist_and_missing_buffers),
		CASE(the_status_string_names_every_bit_and_unknown_ones_in_hex),
		CASE(the_status_string_is_truncated_to_the_buffer),
		CASE(a_custom_flow_handler_is_reported_as_custom),
		CASE(the_core_error_numbers_are_the_kernels),
	};

	fake_irq_filter_from_env();
	return cmocka_run_group_tests_name("irq_stats", tests, NULL, NULL);
}
