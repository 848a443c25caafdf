/*
 * test_irq_sim.c - long scenarios of kernel/irq's defences in the
 * virtual-time simulator, each over hours of virtual time: a device that
 * goes bad after hours of good behaviour, a flaky device that must not
 * flood the log, a rogue that comes and goes on a shared line, the three
 * profiles ranked by how well a lossy device keeps working, and the "IRQ
 * health" summary, which must list every line on polling and no healthy
 * one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>

#include "sim/sim_cmocka.h"

#define DISK_LINE 5
/* The disk: a command every second, 300 us each; the driver waits 5 s. */
#define DISK_PERIOD_NS SIM_S
#define DISK_LATENCY_NS (300 * SIM_US)
#define DISK_TIMEOUT_NS (5 * SIM_S)
/* It goes bad after this long. */
#define GOOD_FOR_NS (3 * SIM_HOUR)

static struct sim_dev disk(void)
{
	return (struct sim_dev){ .name = "disk", .irq = DISK_LINE, .latency_ns = DISK_LATENCY_NS,
				 .think_ns = DISK_PERIOD_NS, .timeout_ns = DISK_TIMEOUT_NS,
				 .use_expect = true, .use_watch = true, .seed = 21 };
}

static void a_device_that_goes_bad_after_hours_is_caught_announced_and_keeps_working(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_dev d = disk();
	struct irq_action_health ah;
	uint64_t c0, t0, bad_for = SIM_HOUR;

	d.loss_change_at_ns = GOOD_FOR_NS;
	d.loss_ppm_after = SIM_PPM;
	assert_int_equal(sim_line_setup(DISK_LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	sim_dev_start(&d, 0);
	sim_run_for(GOOD_FOR_NS);
	/* Hours of good behaviour: everything by interrupt, nothing to report. */
	assert_int_equal(d.by_poll, 0);
	assert_int_equal(d.timeouts, 0);
	assert_int_equal(irq_get_action_health(DISK_LINE, 0, &ah), 0);
	assert_int_equal(ah.causes, 0);
	assert_int_equal(irq_host_log_count_level(IRQ_LOG_WARN), 0);
	assert_int_equal(irq_health_report(), 0);
	c0 = d.completions;
	t0 = sim_now();
	sim_run_for(bad_for);
	assert_int_equal(irq_get_action_health(DISK_LINE, 0, &ah), 0);
	print_message("%s: after going bad: %llu of %llu commands completed (%llu timed out), announced after %llu ms\n",
		      p->name, (unsigned long long)(d.completions - c0),
		      (unsigned long long)(bad_for / (DISK_PERIOD_NS + DISK_LATENCY_NS)),
		      (unsigned long long)d.timeouts,
		      ah.causes ? (unsigned long long)((ah.since_ns - t0) / SIM_MS) : 0ull);
	assert_int_equal(d.double_completions, 0);
	if (!p->expect_on) {
		/* mainline: every command times out; nothing is polled, nothing said. */
		assert_int_equal(d.completions, c0);
		assert_true(d.timeouts >= bad_for / (DISK_PERIOD_NS + DISK_TIMEOUT_NS) - 1);
		assert_int_equal(ah.causes, 0);
		sim_dev_detach(&d);
		return;
	}
	/* No command waits for the driver's time-out: the slow poll of the verified token comes first. */
	assert_int_equal(d.timeouts, 0);
	assert_true(d.completions - c0 >= bad_for / (DISK_PERIOD_NS + p->poll_slow_ns) );
	assert_true(d.latency_max_ns <= p->poll_slow_ns + DISK_LATENCY_NS);
	/* Announced once the verified token's good count is worn down, a few commands in. */
	assert_true(ah.causes & IRQ_HEALTH_LOST_EXPECT);
	assert_true(ah.since_ns - t0 <= ((p->expect_verify_goal + p->expect_bad_factor) / p->expect_bad_factor + 1) *
					       (DISK_PERIOD_NS + p->poll_slow_ns));
	assert_true(irq_host_log_contains_all("\"disk\"", "expected interrupt lost"));
	/* And listed in the summary. */
	assert_int_equal(irq_health_report(), 1);
	assert_true(irq_host_log_contains_all("irq health: line 5", "lost-while-expecting"));
	sim_dev_detach(&d);
}

static void a_flaky_device_at_1_percent_loss_keeps_working_and_the_log_quiet(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_dev d = disk();
	uint64_t span = 20 * SIM_MIN;

	d.think_ns = 10 * SIM_MS;
	d.loss_ppm = SIM_PPM / 100;
	d.use_watch = false;
	assert_int_equal(sim_line_setup(DISK_LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	sim_dev_start(&d, 0);
	sim_run_for(span);
	print_message("%s: %llu commands, %llu lost interrupts, %llu found by polling, %llu timed out, %u warnings\n",
		      p->name, (unsigned long long)d.ops, (unsigned long long)d.lost_irqs,
		      (unsigned long long)d.by_poll, (unsigned long long)d.timeouts,
		      irq_host_log_count_level(IRQ_LOG_WARN));
	assert_int_equal(d.double_completions, 0);
	assert_true(d.lost_irqs > 0);
	/* Each lost interrupt's command ended once (the last may still be waiting). */
	if (!p->expect_on) {
		assert_true(d.timeouts == d.lost_irqs || d.timeouts + 1 == d.lost_irqs);
		sim_dev_detach(&d);
		return;
	}
	assert_int_equal(d.timeouts, 0);
	assert_true(d.by_poll == d.lost_irqs || d.by_poll + 1 == d.lost_irqs);
	/* A lost interrupt now and then is not a broken line: no alarm at all. */
	assert_int_equal(irq_host_log_count_level(IRQ_LOG_WARN), 0);
	sim_dev_detach(&d);
}

static void a_rogue_that_comes_and_goes_on_a_shared_line_for_an_hour(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_dev nic = { .name = "nic", .irq = 11, .level = true, .source = 0, .latency_ns = 100 * SIM_US,
			       .think_ns = 20 * SIM_MS, .timeout_ns = 2 * SIM_S, .seed = 8 };
	struct sim_source rogue = { .name = "rogue", .irq = 11, .source = 1, .mode = SIM_STUCK_LEVEL };
	uint64_t cycle = 5 * SIM_MIN, flood = 10 * SIM_S, t;
	unsigned int floods = 0;

	assert_int_equal(sim_line_setup(11, SIM_FASTEOI), 0);
	assert_int_equal(sim_dev_attach(&nic), 0);
	assert_int_equal(sim_source_attach(&rogue), 0);
	irq_port_timer_cancel(&rogue.timer);
	sim_dev_start(&nic, 0);
	for (t = 0; t < SIM_HOUR; t += cycle) {
		/* Every five minutes the rogue holds the line for ten seconds. */
		sim_line_set_source(11, 1, true);
		sim_run_for(flood);
		sim_line_set_source(11, 1, false);
		sim_run_for(cycle - flood);
		floods++;
		if (p->spr_backoff_min_ns != IRQ_POLICY_FOREVER && p->spr_backoff_max_ns < cycle - flood)
			assert_false(sim_line(11)->masked);  /* back on interrupts well before the next */
	}
	print_message("%s: %u floods; nic %llu completions (%llu by polling), %llu timed out; %llu interrupts\n",
		      p->name, floods, (unsigned long long)nic.completions, (unsigned long long)nic.by_poll,
		      (unsigned long long)nic.timeouts, (unsigned long long)sim_line(11)->delivered);
	assert_int_equal(nic.double_completions, 0);
	assert_int_equal(nic.timeouts, 0);
	assert_true(nic.completions >= SIM_HOUR / (nic.think_ns + p->spr_poll_ns + nic.latency_ns));
	sim_source_detach(&rogue);
	sim_dev_detach(&nic);
}

/* Completions per second of a disk with back-to-back commands at @loss_ppm under @profile. */
static double disk_rate(const char *profile, uint32_t loss_ppm)
{
	struct sim_options o = { .policy = profile };
	struct sim_dev d = disk();
	uint64_t c0;

	sim_reset();
	assert_int_equal(sim_start(&o), 0);
	d.think_ns = 0;
	d.use_watch = false;
	d.loss_ppm = loss_ppm;
	d.jitter_ns = DISK_LATENCY_NS / 2;
	assert_int_equal(sim_line_setup(DISK_LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	sim_dev_start(&d, 0);
	sim_run_for(30 * SIM_S);
	c0 = d.completions;
	sim_run_for(10 * SIM_S);
	assert_int_equal(d.double_completions, 0);
	sim_dev_detach(&d);
	return (double)(d.completions - c0) / 10.0;
}

static void the_profiles_rank_as_documented_when_interrupts_are_lost(void **state)
{
	static const uint32_t losses[] = { 0, SIM_PPM / 2, SIM_PPM };
	double rate[IRQ_POLICY_COUNT][3];
	unsigned int i, l;

	(void)state;
	for (i = 0; i < IRQ_POLICY_COUNT; i++)
		for (l = 0; l < 3; l++)
			rate[i][l] = disk_rate(irq_policies[i].name, losses[l]);
	for (i = 0; i < IRQ_POLICY_COUNT; i++)
		print_message("%-9s 0%%: %6.0f/s  50%%: %6.0f/s (%.2f)  100%%: %6.0f/s (%.2f)\n", irq_policies[i].name,
			      rate[i][0], rate[i][1], rate[i][1] / rate[i][0], rate[i][2], rate[i][2] / rate[i][0]);
	for (l = 1; l < 3; l++) {
		assert_true(rate[IRQ_POLICY_IRQKIT][l] > rate[IRQ_POLICY_TEJUN2010][l]);
		assert_true(rate[IRQ_POLICY_TEJUN2010][l] > rate[IRQ_POLICY_MAINLINE][l]);
	}
	/* Healthy, all three are the device's own speed. */
	assert_true(rate[IRQ_POLICY_IRQKIT][0] == rate[IRQ_POLICY_TEJUN2010][0]);
	assert_true(rate[IRQ_POLICY_MAINLINE][0] == rate[IRQ_POLICY_TEJUN2010][0]);
	/* irqkit keeps 80 % of it even with every interrupt lost. */
	assert_true(rate[IRQ_POLICY_IRQKIT][2] >= 0.8 * rate[IRQ_POLICY_IRQKIT][0]);
	sim_reset();
}

static void the_health_summary_lists_every_line_on_polling_and_no_healthy_one(void **state)
{
	struct sim_dev lost = disk(), watched = disk(), fine = disk(), plain = disk();
	struct sim_source rogue = { .name = "rogue", .irq = 3, .source = 1, .mode = SIM_STUCK_LEVEL,
				    .start_ns = SIM_S, .has_handler = true, .claim_ppm = 0 };
	struct irq_line_health lh;
	unsigned int irq;
	/* Lines 3 (storm), 5 (lost while expecting), 6 (watch found lost work) are on polling. */
	const unsigned int polled[] = { 3, 5, 6 }, healthy[] = { 4, 7 };

	sim_case_start(state, NULL);
	lost.irq = 5, lost.use_watch = false, lost.loss_ppm = SIM_PPM, lost.name = "lost";
	watched.irq = 6, watched.use_expect = false, watched.loss_ppm = SIM_PPM, watched.name = "watched";
	fine.irq = 7, fine.name = "fine";
	plain.irq = 4, plain.use_expect = false, plain.use_watch = false, plain.name = "plain";
	assert_int_equal(sim_line_setup(3, SIM_FASTEOI), 0);
	for (irq = 4; irq <= 7; irq++)
		assert_int_equal(sim_line_setup(irq, SIM_EDGE), 0);
	assert_int_equal(sim_source_attach(&rogue), 0);
	assert_int_equal(sim_dev_attach(&lost), 0);
	assert_int_equal(sim_dev_attach(&watched), 0);
	assert_int_equal(sim_dev_attach(&fine), 0);
	assert_int_equal(sim_dev_attach(&plain), 0);
	sim_dev_start(&lost, 0);
	sim_dev_start(&watched, 0);
	sim_dev_start(&fine, 0);
	sim_dev_start(&plain, 0);
	sim_run_for(2 * SIM_MIN);
	irq_host_log_clear();
	assert_int_equal(irq_health_report(), 3);
	for (irq = 0; irq < 3; irq++) {
		char line[32];

		snprintf(line, sizeof(line), "irq health: line %u ", polled[irq]);
		assert_true(irq_host_log_contains(line));
		assert_int_equal(irq_get_line_health(polled[irq], &lh), 0);
		assert_true(lh.causes != 0);
		assert_true(lh.polled_completions > 0 || polled[irq] == 3);
	}
	for (irq = 0; irq < 2; irq++) {
		char line[32];

		snprintf(line, sizeof(line), "irq health: line %u ", healthy[irq]);
		assert_false(irq_host_log_contains(line));
		assert_int_equal(irq_get_line_health(healthy[irq], &lh), 0);
		assert_int_equal(lh.causes, 0);
	}
	assert_int_equal(irq_get_line_health(3, &lh), 0);
	assert_int_equal(lh.causes, IRQ_HEALTH_STORM);
	assert_true(lh.floods >= 1);
	assert_int_equal(irq_get_line_health(5, &lh), 0);
	assert_int_equal(lh.causes, IRQ_HEALTH_LOST_EXPECT);
	assert_int_equal(irq_get_line_health(6, &lh), 0);
	assert_int_equal(lh.causes, IRQ_HEALTH_WATCH_BAD);
	assert_true(lh.since_ns > 0 && lh.since_ns <= SIM_S);
	/* Each line on polling names its drivers. */
	assert_true(irq_host_log_contains("\"lost\": on polling (lost-while-expecting)"));
	assert_true(irq_host_log_contains("\"watched\": on polling (watch-found-lost)"));
	sim_source_detach(&rogue);
	sim_dev_detach(&lost);
	sim_dev_detach(&watched);
	sim_dev_detach(&fine);
	sim_dev_detach(&plain);
	/* Nothing left on polling: one line says so. */
	irq_host_log_clear();
	assert_int_equal(irq_health_report(), 0);
	assert_true(irq_host_log_contains("deliver by interrupt"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		SIM_CASES_PER_PROFILE(a_device_that_goes_bad_after_hours_is_caught_announced_and_keeps_working),
		SIM_CASES_PER_PROFILE(a_flaky_device_at_1_percent_loss_keeps_working_and_the_log_quiet),
		SIM_CASES_PER_PROFILE(a_rogue_that_comes_and_goes_on_a_shared_line_for_an_hour),
		SIM_CASE(the_profiles_rank_as_documented_when_interrupts_are_lost),
		SIM_CASE(the_health_summary_lists_every_line_on_polling_and_no_healthy_one),
	};

	sim_filter_from_env();
	return cmocka_run_group_tests_name("irq_sim", tests, NULL, NULL);
}
