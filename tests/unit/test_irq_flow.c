/*
 * test_irq_flow.c - host unit tests of kernel/irq's flow handlers (chip.c)
 * and dispatcher (handle.c): the exact chip calls of the edge, level and
 * fasteoi flows, edge replay when an edge arrives while the handler runs,
 * interrupts on disabled lines and on lines without handler, a level line
 * that stays asserted, and what note_interrupt() is told.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/errno.h>
#include "test_irq_fake_chip.h"

#define LINE 3
/* Interrupts a stuck level line delivers in the storm case. */
#define STORM 1000

/* "@word @word ... @word", @times times (up to what fits a trace). */
static const char *repeated(const char *word, unsigned int times)
{
	static char text[4096];
	size_t used = 0;
	unsigned int i;

	text[0] = '\0';
	for (i = 0; i < times && used + strlen(word) + 2 < sizeof(text); i++)
		used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s", i ? " " : "", word);
	return text;
}

/* Hook: a new edge arrives while the handler runs, until it ran ctx-many times. */
static void raise_again_until(struct fake_dev *dev, unsigned int irq)
{
	unsigned int limit = (unsigned int)(uintptr_t)dev->ctx;

	if (dev->calls < limit)
		assert_int_equal(fake_raise(irq), 0);
}

static void edge_flow_acks_then_runs_the_handler(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED };
	struct irq_line_stats st;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	fake_chip_trace_clear();
	assert_int_equal(fake_raise(LINE), 0);
	assert_string_equal(fake_chip_trace(LINE), "ack");
	assert_int_equal(dev.calls, 1);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.delivered, 1);
	assert_int_equal(st.handled, 1);
	assert_int_equal(st.status & (IRQS_INPROGRESS | IRQS_PENDING), 0);
}

static void an_edge_arriving_while_the_handler_runs_is_replayed_after_it(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED, .hook = raise_again_until,
				.ctx = (void *)(uintptr_t)2 };
	struct irq_line_stats st;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	fake_chip_trace_clear();
	fake_raise(LINE);
	/* The second edge was acked at once but ran only after the first run. */
	assert_string_equal(fake_chip_trace(LINE), "ack ack");
	assert_string_equal(fake_call_order(), "a a");
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.delivered, 2);
	assert_int_equal(st.handled, 2);
	assert_int_equal(irq_host_timers_pending(), 0);
}

static void an_edge_storm_is_replayed_in_bounded_rounds_from_the_resend_timer(void **state)
{
	const unsigned int total = 2 * IRQ_EDGE_REPLAY_LIMIT + 8;
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED, .hook = raise_again_until,
				.ctx = (void *)(uintptr_t)total };
	struct irq_line_stats st;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	fake_raise(LINE);
	/* One interrupt ran the first run and IRQ_EDGE_REPLAY_LIMIT replays, then let go. */
	assert_int_equal(dev.calls, 1 + IRQ_EDGE_REPLAY_LIMIT);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.status & (IRQS_PENDING | IRQS_REPLAY), IRQS_PENDING | IRQS_REPLAY);
	assert_int_equal(irq_host_timers_pending(), 1);
	/* The resend timer carries on, a bounded round per firing. */
	assert_int_equal(irq_host_run_timers(), 2);
	assert_int_equal(dev.calls, total);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.handled, total);
	assert_int_equal(st.delivered, total);
	assert_int_equal(st.status & (IRQS_PENDING | IRQS_REPLAY), 0);
}

static void an_edge_on_a_disabled_line_is_held_and_replayed_once_by_enable(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	disable_irq(LINE);
	fake_raise(LINE);
	fake_raise(LINE);
	assert_int_equal(dev.calls, 0);
	/* Masked by the disable; the late edges are only acknowledged. */
	assert_string_equal(fake_chip_trace(LINE), "unmask mask ack ack");
	enable_irq(LINE);
	assert_string_equal(fake_chip_trace(LINE), "unmask mask ack ack unmask");
	assert_int_equal(dev.calls, 0);  /* the replay runs in timer context, not in enable_irq */
	assert_int_equal(irq_host_run_timers(), 1);
	assert_int_equal(dev.calls, 1);
	assert_int_equal(irq_host_run_timers(), 0);
	assert_int_equal(dev.calls, 1);
}

static void level_flow_masks_and_acks_runs_the_handler_then_unmasks(void **state)
{
	struct fake_dev a = { .name = "a", .answer = IRQ_HANDLED }, b = { .name = "b", .answer = IRQ_HANDLED };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	fake_setup_line(LINE + 1, &fake_chip_mask_ack, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &a), 0);
	assert_int_equal(request_irq(LINE + 1, fake_dev_handler, 0, "b", &b), 0);
	fake_chip_trace_clear();
	fake_raise(LINE);
	fake_raise(LINE + 1);
	assert_string_equal(fake_chip_trace(LINE), "mask ack unmask");
	assert_string_equal(fake_chip_trace(LINE + 1), "mask_ack unmask");
	assert_int_equal(a.calls, 1);
	assert_int_equal(b.calls, 1);
}

static void a_level_interrupt_on_a_disabled_line_stays_masked_and_is_not_replayed(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	disable_irq(LINE);
	fake_raise(LINE);
	assert_string_equal(fake_chip_trace(LINE), "unmask mask ack");
	enable_irq(LINE);
	/* The level line re-asserts by itself once open: no software replay. */
	assert_string_equal(fake_chip_trace(LINE), "unmask mask ack unmask");
	assert_int_equal(irq_host_timers_pending(), 0);
	assert_int_equal(dev.calls, 0);
}

static void a_level_line_stuck_asserted_with_an_unclaiming_handler_is_accounted(void **state)
{
	struct fake_dev dev = { .name = "quiet", .answer = IRQ_NONE };
	struct irq_line_stats st;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "quiet", &dev), 0);
	fake_line_set_asserted(LINE, true);
	/* Every interrupt returns (masked while it runs); nothing locks up. */
	assert_int_equal(fake_line_deliver(LINE, STORM), STORM);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.delivered, STORM);
	assert_int_equal(st.unhandled, STORM);
	assert_int_equal(st.handled, 0);
	assert_int_equal(dev.calls, STORM);
	/* The line is open again after each one, ready for the flood defence to judge. */
	assert_false(fake_chip_masked(LINE));
	fake_line_set_asserted(LINE, false);
	assert_int_equal(fake_line_deliver(LINE, STORM), 0);
	free_irq(LINE, &dev);
}

static void an_interrupt_without_handler_is_counted_spurious_and_the_line_stays_masked(void **state)
{
	struct irq_line_stats st;
	unsigned int i;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	fake_setup_line(LINE + 1, &fake_chip, handle_level_irq);
	fake_setup_line(LINE + 2, &fake_chip, handle_fasteoi_irq);
	for (i = 0; i < 100; i++) {
		fake_raise(LINE);
		fake_raise(LINE + 1);
		fake_raise(LINE + 2);
	}
	/* Lines without action are masked since setup; late interrupts are just ended. */
	assert_string_equal(fake_chip_trace(LINE), repeated("ack", 100));
	assert_true(fake_chip_masked(LINE + 1));
	assert_true(fake_chip_masked(LINE + 2));
	assert_int_equal(irq_get_line_stats(LINE + 1, &st), 0);
	assert_int_equal(st.delivered, 100);
	assert_int_equal(st.unhandled, 100);
	assert_int_equal(st.spurious, 100);
	/* Warned at the 1st, 2nd, 4th ... 64th: 7 warnings per line, not 100. */
	assert_int_equal(irq_host_log_count_level(IRQ_LOG_WARN), 3 * 7);
	assert_true(irq_host_log_contains("line without handler"));
}

static void a_level_line_left_asserted_after_its_driver_left_delivers_nothing(void **state)
{
	struct fake_dev dev = { .name = "gone", .answer = IRQ_HANDLED };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "gone", &dev), 0);
	free_irq(LINE, &dev);
	fake_line_set_asserted(LINE, true);
	assert_int_equal(fake_line_deliver(LINE, STORM), 0);
	assert_int_equal(dev.calls, 0);
}

static void fasteoi_flow_runs_the_handler_then_sends_one_eoi(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_fasteoi_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	fake_chip_trace_clear();
	fake_raise(LINE);
	assert_string_equal(fake_chip_trace(LINE), "eoi");
	assert_int_equal(dev.calls, 1);
}

static void a_fasteoi_interrupt_on_a_disabled_line_is_masked_and_eoid(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_fasteoi_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	disable_irq_nosync(LINE);
	fake_raise(LINE);
	assert_string_equal(fake_chip_trace(LINE), "unmask mask eoi");
	assert_int_equal(dev.calls, 0);
	enable_irq(LINE);
	assert_string_equal(fake_chip_trace(LINE), "unmask mask eoi unmask");
	assert_int_equal(irq_host_run_timers(), 0);  /* level by default: no replay */
}

static void a_fasteoi_interrupt_during_its_own_handler_is_masked_then_reopened(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED, .hook = raise_again_until,
				.ctx = (void *)(uintptr_t)2 };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_fasteoi_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	fake_chip_trace_clear();
	fake_raise(LINE);
	/* Level: held masked, reopened after the run (the pin re-asserts if still due). */
	assert_string_equal(fake_chip_trace(LINE), "mask eoi unmask eoi");
	assert_int_equal(dev.calls, 1);
}

static void an_edge_fasteoi_line_replays_the_edge_that_came_during_its_handler(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED, .hook = raise_again_until,
				.ctx = (void *)(uintptr_t)2 };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_fasteoi_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_TRIGGER_RISING, "a", &dev), 0);
	fake_chip_trace_clear();
	fake_raise(LINE);
	assert_string_equal(fake_chip_trace(LINE), "mask eoi unmask eoi");
	assert_int_equal(dev.calls, 2);
}

static void generic_handle_irq_refuses_lines_that_do_not_exist_or_have_no_chip(void **state)
{
	struct irq_line_stats st;

	(void)state;
	assert_int_equal(fake_raise(IRQ_NR_LINES), -EINVAL);
	assert_int_equal(fake_raise(IRQ_NR_LINES + 1000), -EINVAL);
	assert_true(irq_host_log_contains("does not exist"));
	assert_int_equal(fake_raise(LINE), -ENODEV);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.delivered, 1);
	assert_int_equal(st.spurious, 1);
}

/* Hook: the handler switches its own line off, as a driver may. */
static void disable_own_line(struct fake_dev *dev, unsigned int irq)
{
	(void)dev;
	disable_irq_nosync(irq);
}

static void a_handler_may_disable_its_own_line_without_waiting(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED, .hook = disable_own_line };
	struct irq_line_stats st;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	fake_chip_trace_clear();
	fake_raise(LINE);
	/* Masked by the flow, kept masked because the handler disabled the line. */
	assert_string_equal(fake_chip_trace(LINE), "mask ack");
	fake_raise(LINE);
	assert_int_equal(dev.calls, 1);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.depth, 1);
	dev.hook = NULL;
	enable_irq(LINE);
	fake_raise(LINE);
	assert_int_equal(dev.calls, 2);
}

static void note_interrupt_is_told_handled_when_any_shared_action_claimed_it(void **state)
{
	struct fake_dev a = { .name = "a", .answer = IRQ_NONE }, b = { .name = "b", .answer = IRQ_HANDLED };
	struct irq_line_stats st;
	struct irq_action_stats as;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "a", &a), 0);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "b", &b), 0);
	fake_raise(LINE);
	b.answer = IRQ_NONE;
	fake_raise(LINE);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.handled, 1);
	assert_int_equal(st.unhandled, 1);
	assert_int_equal(irq_get_action_stats(LINE, 1, &as), 0);
	assert_string_equal(as.name, "b");
	assert_int_equal(as.handled, 1);
}

static void a_handler_returning_nonsense_counts_as_unclaimed_and_is_reported(void **state)
{
	struct fake_dev dev = { .name = "odd", .answer = (irqreturn_t)7 };
	struct irq_line_stats st;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "odd", &dev), 0);
	fake_raise(LINE);
	fake_raise(LINE);
	fake_raise(LINE);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.unhandled, 3);
	assert_true(irq_host_log_contains_all("\"odd\"", "returned 7"));
	assert_int_equal(irq_host_log_count_level(IRQ_LOG_WARN), 2);  /* 1st and 2nd; 3rd is rate-limited */
}

#define CASE(fn) cmocka_unit_test_setup_teardown(fn, fake_irq_setup, fake_irq_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASE(edge_flow_acks_then_runs_the_handler),
		CASE(an_edge_arriving_while_the_handler_runs_is_replayed_after_it),
		CASE(an_edge_storm_is_replayed_in_bounded_rounds_from_the_resend_timer),
		CASE(an_edge_on_a_disabled_line_is_held_and_replayed_once_by_enable),
		CASE(level_flow_masks_and_acks_runs_the_handler_then_unmasks),
		CASE(a_level_interrupt_on_a_disabled_line_stays_masked_and_is_not_replayed),
		CASE(a_level_line_stuck_asserted_with_an_unclaiming_handler_is_accounted),
		CASE(an_interrupt_without_handler_is_counted_spurious_and_the_line_stays_masked),
		CASE(a_level_line_left_asserted_after_its_driver_left_delivers_nothing),
		CASE(fasteoi_flow_runs_the_handler_then_sends_one_eoi),
		CASE(a_fasteoi_interrupt_on_a_disabled_line_is_masked_and_eoid),
		CASE(a_fasteoi_interrupt_during_its_own_handler_is_masked_then_reopened),
		CASE(an_edge_fasteoi_line_replays_the_edge_that_came_during_its_handler),
		CASE(generic_handle_irq_refuses_lines_that_do_not_exist_or_have_no_chip),
		CASE(a_handler_may_disable_its_own_line_without_waiting),
		CASE(note_interrupt_is_told_handled_when_any_shared_action_claimed_it),
		CASE(a_handler_returning_nonsense_counts_as_unclaimed_and_is_reported),
	};

	fake_irq_filter_from_env();
	return cmocka_run_group_tests_name("irq_flow", tests, NULL, NULL);
}
