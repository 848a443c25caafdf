/*
 * test_irq_watch.c - host tests of IRQ watching (kernel/irq/watch.c) in the
 * virtual-time simulator: slow polling for a watch period that ends when
 * interrupts work, a poll that finds lost work marks the action and polls
 * it at the normal rate, the period's ratio making it wary or bad,
 * watch_irq again restarting the period, and no verdict while the flood
 * defence polls the line. Per-profile cases read each profile's constants
 * from the policy table (mainline has no watching: nothing may happen).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sim/sim_cmocka.h"

#define LINE 7
/* A keyboard-like device: an event every 50 ms, handled in 100 us. */
#define EVENT_GAP_NS (50 * SIM_MS)
#define EVENT_LATENCY_NS (100 * SIM_US)

static struct sim_dev keyboard(uint32_t loss_ppm)
{
	return (struct sim_dev){ .name = "kbd", .irq = LINE, .latency_ns = EVENT_LATENCY_NS,
				 .think_ns = EVENT_GAP_NS, .loss_ppm = loss_ppm, .use_watch = true, .seed = 5 };
}

static const char *watch_state(void)
{
	static struct irq_action_health ah;

	assert_int_equal(irq_get_action_health(LINE, 0, &ah), 0);
	return ah.watch;
}

static void a_watch_of_working_interrupts_polls_slowly_and_ends_after_a_period(void **state)
{
	const struct irq_policy *p;
	struct sim_dev d = keyboard(0);
	const struct irq_desc *desc = irq_to_desc(LINE);

	p = sim_case_start(state, NULL);
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	sim_dev_start(&d, 0);
	if (!p->watch_on) {
		sim_run_for(2 * SIM_MIN);
		assert_string_equal(watch_state(), "off");
		assert_int_equal(desc->def.polls, 0);
		sim_dev_detach(&d);
		return;
	}
	assert_string_equal(watch_state(), "watching");
	sim_run_for(p->watch_interval_ns - 1);
	assert_int_equal(desc->def.polls, 0);
	sim_run_for(1);
	assert_int_equal(desc->def.polls, 1);
	/* The gaps grow to the slow interval: far fewer polls than at the first rate. */
	sim_run_for(p->watch_period_ns + p->poll_slow_ns);
	assert_string_equal(watch_state(), "off");
	assert_true(desc->def.polls <= p->watch_period_ns / p->watch_interval_ns / 2);
	assert_true(desc->def.polls >= p->watch_period_ns / p->poll_slow_ns);
	assert_int_equal(d.by_poll, 0);
	assert_int_equal(irq_to_desc(LINE)->action->health.episodes, 0);
	/* Watching over: no more polls. */
	{
		uint64_t polls = desc->def.polls;

		sim_run_for(SIM_MIN);
		assert_int_equal(desc->def.polls, polls);
	}
	sim_dev_detach(&d);
}

static void a_watch_that_finds_lost_work_polls_at_the_normal_rate_and_marks_it_bad(void **state)
{
	const struct irq_policy *p;
	struct sim_dev d = keyboard(SIM_PPM);
	struct irq_action_health ah;
	uint64_t c0;

	p = sim_case_start(state, NULL);
	if (!p->watch_on) {
		assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
		assert_int_equal(sim_dev_attach(&d), 0);
		sim_dev_start(&d, 0);
		sim_run_for(SIM_MIN);
		assert_int_equal(d.completions, 0);  /* mainline: lost is lost */
		assert_int_equal(irq_get_action_health(LINE, 0, &ah), 0);
		assert_int_equal(ah.causes, 0);
		sim_dev_detach(&d);
		return;
	}
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	sim_dev_start(&d, 0);
	/* The first watch poll finds the lost event. */
	sim_run_for(p->watch_interval_ns);
	assert_int_equal(d.by_poll, 1);
	assert_string_equal(watch_state(), "polled");
	assert_int_equal(irq_get_action_health(LINE, 0, &ah), 0);
	assert_int_equal(ah.causes, IRQ_HEALTH_WATCH_BAD);
	assert_true(irq_host_log_contains_all("\"kbd\"", "a poll found work"));
	/* From now on every event is found within the normal poll interval. */
	c0 = d.completions;
	sim_run_for(10 * SIM_S);
	assert_true(d.completions - c0 >= 10 * SIM_S / (EVENT_GAP_NS + p->poll_normal_ns + EVENT_LATENCY_NS));
	assert_true(d.latency_max_ns <= p->watch_interval_ns + EVENT_LATENCY_NS);
	/* Every delivery came by polling: bad at the end of the period, polled for good. */
	sim_run_for(p->watch_period_ns);
	assert_string_equal(watch_state(), "bad");
	assert_true(irq_host_log_contains_all("\"kbd\"", "bad, polled for good"));
	c0 = d.completions;
	sim_run_for(2 * p->watch_wary_period_ns);
	assert_string_equal(watch_state(), "bad");
	assert_true(d.completions - c0 >= 2 * p->watch_wary_period_ns / (EVENT_GAP_NS + p->poll_normal_ns + EVENT_LATENCY_NS));
	assert_int_equal(d.double_completions, 0);
	sim_dev_detach(&d);
}

static void a_middling_ratio_makes_the_action_wary_and_a_good_wary_period_ends_it(void **state)
{
	const struct irq_policy *p;
	struct sim_dev d = keyboard(0);
	struct irq_action_health ah;
	uint32_t middling;

	p = sim_case_start(state, NULL);
	if (!p->watch_on)
		return;  /* mainline has no watching (the other cases show nothing happens) */
	/* Lose a share between the wary and the bad percentages for one period. */
	middling = (uint32_t)((p->watch_wary_pct + p->watch_bad_pct) * SIM_PPM / 200);
	d.loss_ppm = middling;
	d.loss_change_at_ns = p->watch_period_ns;
	d.loss_ppm_after = 0;
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	sim_dev_start(&d, 0);
	sim_run_for(p->watch_period_ns + p->poll_normal_ns);
	assert_string_equal(watch_state(), "polled");
	assert_true(irq_to_desc(LINE)->action->watch.flags & IRQ_WAT_WARY);
	/* A wary period of working interrupts: watching ends, and that is announced. */
	sim_run_for(p->watch_wary_period_ns + p->poll_normal_ns);
	assert_string_equal(watch_state(), "off");
	assert_int_equal(irq_get_action_health(LINE, 0, &ah), 0);
	assert_int_equal(ah.causes, 0);
	assert_true(irq_host_log_contains_all("\"kbd\"", "deliveries by interrupt again"));
	sim_dev_detach(&d);
}

static void watch_irq_again_restarts_the_period(void **state)
{
	const struct irq_policy *p;
	struct sim_dev d = keyboard(0);

	p = sim_case_start(state, NULL);
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	sim_dev_start(&d, 0);
	sim_run_for(p->watch_period_ns / 2);
	watch_irq(LINE, &d);
	/* The first period would be over here; the restarted one is not. */
	sim_run_for(p->watch_period_ns / 2 + p->poll_slow_ns);
	assert_string_equal(watch_state(), "watching");
	assert_int_equal(irq_to_desc(LINE)->action->watch.started_ns, p->watch_period_ns / 2);
	sim_run_for(p->watch_period_ns / 2 + p->poll_slow_ns);
	assert_string_equal(watch_state(), "off");
	sim_dev_detach(&d);
}

static void a_watch_without_deliveries_ends_after_one_period(void **state)
{
	const struct irq_policy *p;
	struct sim_dev d = keyboard(0);

	p = sim_case_start(state, NULL);
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);  /* never started: nothing to deliver */
	sim_run_for(p->watch_period_ns + p->poll_slow_ns);
	assert_string_equal(watch_state(), "off");
	assert_int_equal(irq_host_timers_pending(), 0);
	sim_dev_detach(&d);
}

static void watch_irq_on_unknown_lines_and_actions_is_reported_and_ignored(void **state)
{
	int nobody;

	sim_case_start(state, NULL);
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	watch_irq(IRQ_NR_LINES, &nobody);
	assert_true(irq_host_log_contains("no such line"));
	watch_irq(LINE, &nobody);
	assert_true(irq_host_log_contains("no such action"));
	assert_int_equal(irq_host_timers_pending(), 0);
}

static void the_watch_holds_its_verdict_while_the_line_is_off_for_flooding(void **state)
{
	const struct irq_policy *p;
	struct sim_dev d = keyboard(0);
	struct sim_source rogue = { .name = "rogue", .irq = LINE, .source = 1, .mode = SIM_STUCK_LEVEL,
				    .start_ns = SIM_S, .stop_ns = 20 * SIM_S };

	p = sim_case_start(state, NULL);
	d.level = true;
	assert_int_equal(sim_line_setup(LINE, SIM_LEVEL), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	assert_int_equal(sim_source_attach(&rogue), 0);
	sim_dev_start(&d, 0);
	sim_run_for(10 * SIM_S);
	assert_true(irq_to_desc(LINE)->def.flood_off);
	/* Its events come by polling now, but that is the flood defence's doing. */
	assert_true(d.by_poll > 0);
	assert_false(irq_to_desc(LINE)->action->watch.flags & IRQ_WAT_POLLED);
	assert_true(strcmp(watch_state(), "watching") == 0);
	(void)p;
	sim_source_detach(&rogue);
	sim_dev_detach(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		SIM_CASES_PER_PROFILE(a_watch_of_working_interrupts_polls_slowly_and_ends_after_a_period),
		SIM_CASES_PER_PROFILE(a_watch_that_finds_lost_work_polls_at_the_normal_rate_and_marks_it_bad),
		SIM_CASE_PROFILE(a_middling_ratio_makes_the_action_wary_and_a_good_wary_period_ends_it,
				 IRQ_POLICY_IRQKIT, "irqkit"),
		SIM_CASE_PROFILE(a_middling_ratio_makes_the_action_wary_and_a_good_wary_period_ends_it,
				 IRQ_POLICY_TEJUN2010, "tejun2010"),
		SIM_CASE_PROFILE(watch_irq_again_restarts_the_period, IRQ_POLICY_IRQKIT, "irqkit"),
		SIM_CASE_PROFILE(watch_irq_again_restarts_the_period, IRQ_POLICY_TEJUN2010, "tejun2010"),
		SIM_CASE(a_watch_without_deliveries_ends_after_one_period),
		SIM_CASE(watch_irq_on_unknown_lines_and_actions_is_reported_and_ignored),
		SIM_CASE(the_watch_holds_its_verdict_while_the_line_is_off_for_flooding),
	};

	sim_filter_from_env();
	return cmocka_run_group_tests_name("irq_watch", tests, NULL, NULL);
}
