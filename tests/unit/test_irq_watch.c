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
/* Slack after a deadline for the poll timer's 10 us minimum gap between polls. */
#define IRQ_POLL_MIN_GAP_TEST_NS (SIM_MS)

static struct sim_dev keyboard(uint32_t loss_ppm)
{
	return (struct sim_dev){ .name = "kbd", .irq = LINE, .latency_ns = EVENT_LATENCY_NS,
				 .think_ns = EVENT_GAP_NS, .loss_ppm = loss_ppm, .use_watch = true, .seed = 5 };
}

/* The line's unclaimed interrupts, summed over the CPUs (irq_get_line_stats). */
static uint64_t line_unhandled(void)
{
	struct irq_line_stats st;

	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	return st.unhandled;
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
	/* The first watch poll finds the lost event (at the same time whatever the profile). */
	sim_run_for(p->watch_interval_ns);
	assert_int_equal(d.by_poll, 1);
	if (p->watch_late_window_ns) {
		/* irqkit: its interrupt may still come; the verdict waits for the window. */
		assert_string_equal(watch_state(), "watching");
		assert_int_equal(irq_to_desc(LINE)->action->watch.late_pending, 1);
		assert_false(irq_host_log_contains("a poll found work"));
		sim_run_for(p->watch_late_window_ns);
	}
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

/*
 * Issue 19: a keystroke of a misrouted keyboard may wait at most 2 ms
 * median and 3 ms worst longer than a healthy one. Once the watch put the
 * keyboard on polling, the poll gap backs off after each find (1, 2, 4 ...
 * ms) only up to watch_poll_max_ns (2 ms), not to the normal 10 ms: every
 * event of a keyboard whose interrupts all go astray is found within that
 * of the moment it was done, and on average within half of it. The 2010
 * profile has no cap (events wait up to its 10 ms normal poll).
 */
static void a_keyboard_on_polling_waits_at_most_watch_poll_max_for_its_events(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_dev d = keyboard(SIM_PPM);
	/* Events done at a random point of 0-3 ms after their start: every phase of the polls. */
	const uint64_t jitter = 3 * SIM_MS;
	uint64_t c0, sum0, cap, avg;

	if (!p->watch_on)
		return;
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	sim_dev_start(&d, 0);
	sim_run_for(p->watch_interval_ns + p->watch_late_window_ns + SIM_MS);
	assert_string_equal(watch_state(), "polled");
	d.jitter_ns = jitter;
	c0 = d.completions;
	sum0 = d.latency_sum_ns;
	d.latency_max_ns = 0;
	sim_run_for(20 * SIM_S);
	cap = p->watch_poll_max_ns ? p->watch_poll_max_ns : p->poll_normal_ns;
	avg = (d.latency_sum_ns - sum0) / (d.completions - c0);
	print_message("%s: %llu events found by polling, %llu us on average from their start, %llu us at most "
		      "(device %llu-%llu us, poll gap cap %llu us)\n", p->name, (unsigned long long)(d.completions - c0),
		      (unsigned long long)avg / SIM_US, (unsigned long long)d.latency_max_ns / SIM_US,
		      (unsigned long long)EVENT_LATENCY_NS / SIM_US, (unsigned long long)(EVENT_LATENCY_NS + jitter) / SIM_US,
		      (unsigned long long)cap / SIM_US);
	assert_true(d.completions - c0 >= 20 * SIM_S / (EVENT_GAP_NS + EVENT_LATENCY_NS + jitter + cap));
	/* Done at most latency + jitter after the start, found at most a gap later. */
	assert_true(d.latency_max_ns <= EVENT_LATENCY_NS + jitter + cap + IRQ_POLL_MIN_GAP_TEST_NS / 100);
	/*
	 * irqkit, issue 19's goal itself (not the profile's own cap): at most 2 ms more than the
	 * device's time at worst (the goal allows 3), 1.5 ms on average (the goal: 2 ms of median).
	 */
	if (p == &irq_policies[IRQ_POLICY_IRQKIT]) {
		assert_true(d.latency_max_ns <= EVENT_LATENCY_NS + jitter + 2 * SIM_MS + IRQ_POLL_MIN_GAP_TEST_NS / 100);
		assert_true(avg <= EVENT_LATENCY_NS + jitter / 2 + 3 * SIM_MS / 2);
	}
	assert_int_equal(d.double_completions, 0);
	sim_dev_detach(&d);
}

/*
 * Regression (USB engineers: false "a poll found work" on a healthy UHCI):
 * every interrupt comes 15 ms after the device is done, as a UHCI signals
 * at its next frame, so some slow watch polls run between the two, take the
 * work, and the interrupt then arrives unclaimed. irqkit counts those as
 * delivered by interrupt (late) and watching ends healthy; tejun2010 keeps
 * the 2010 behaviour (judged at once: announced, polled).
 */
#define RACING_IRQ_DELAY_NS (15 * SIM_MS)

static void a_device_whose_interrupt_is_late_by_less_than_the_window_never_goes_on_polling(void **state)
{
	const struct irq_policy *p;
	struct sim_dev d = keyboard(0);
	struct irq_action_health ah;
	const struct irq_watch *w;

	p = sim_case_start(state, NULL);
	if (!p->watch_on)
		return;  /* mainline has no watching */
	d.irq_delay_ns = RACING_IRQ_DELAY_NS;
	d.jitter_ns = 20 * SIM_MS;  /* so that the polls fall anywhere in the device's cycle */
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	w = &irq_to_desc(LINE)->action->watch;
	sim_dev_start(&d, 0);
	sim_run_for(p->watch_period_ns + p->poll_slow_ns);
	/* The race did happen: polls took work whose interrupt was on its way. */
	assert_true(d.by_poll >= 2);
	assert_int_equal(d.lost_irqs, 0);
	if (p == &irq_policies[IRQ_POLICY_TEJUN2010]) {
		/* The 2010 patch judged a find at once; its profile keeps that. */
		assert_int_equal(p->watch_late_window_ns, 0);
		assert_true(irq_to_desc(LINE)->action->health.episodes >= 1);
		assert_true(irq_host_log_contains_all("\"kbd\"", "a poll found work"));
		sim_dev_detach(&d);
		return;
	}
	assert_string_equal(watch_state(), "off");
	assert_int_equal(irq_to_desc(LINE)->action->health.episodes, 0);
	assert_false(irq_host_log_contains("a poll found work"));
	assert_false(irq_host_log_contains("watch-found-lost"));
	assert_int_equal(irq_get_action_health(LINE, 0, &ah), 0);
	assert_int_equal(ah.causes, 0);
	assert_int_equal(ah.watch_late, d.by_poll);
	assert_int_equal(ah.watch_polled, 0);
	assert_int_equal(w->total_polled, 0);
	assert_int_equal(w->total_late, d.by_poll);
	assert_true(irq_host_log_contains_all("\"kbd\": watch ended after 6", "late, after a poll had found the work): healthy"));
	assert_int_equal(irq_to_desc(LINE)->def.watch_late_open, 0);
	assert_int_equal(d.double_completions, 0);
	assert_true(RACING_IRQ_DELAY_NS < p->watch_late_window_ns);
	sim_dev_detach(&d);
}

/* A busy device whose interrupts are all lost: every poll finds work, a find always waits; still judged bad. */
static void a_busy_device_whose_every_poll_finds_work_is_still_judged_bad(void **state)
{
	const struct irq_policy *p;
	struct sim_dev d = keyboard(SIM_PPM);

	p = sim_case_start(state, NULL);
	d.think_ns = 200 * SIM_US;  /* new work well within every poll gap */
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	sim_dev_start(&d, 0);
	sim_run_for(p->watch_period_ns + p->poll_slow_ns);
	assert_string_equal(watch_state(), "bad");
	assert_true(irq_host_log_contains_all("\"kbd\"", "bad, polled for good"));
	assert_int_equal(irq_to_desc(LINE)->action->watch.late_since_boot, 0);
	sim_dev_detach(&d);
}

/* An interrupt later than the window does not excuse the find: the delivery was by polling. */
static void an_interrupt_later_than_the_window_leaves_the_find_polled(void **state)
{
	const struct irq_policy *p;
	struct sim_dev d = keyboard(0);

	p = sim_case_start(state, NULL);
	/* One operation, done 1 ms before the first watch poll; its interrupt comes 5 ms after the window. */
	d.irq_delay_ns = p->watch_late_window_ns + 6 * SIM_MS;
	d.think_ns = SIM_HOUR;
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	sim_dev_start(&d, p->watch_interval_ns - SIM_MS - d.latency_ns);
	sim_run_for(p->watch_interval_ns + p->watch_late_window_ns + SIM_MS);
	assert_int_equal(d.by_poll, 1);
	assert_string_equal(watch_state(), "polled");
	assert_true(irq_host_log_contains_all("\"kbd\"", "a poll found work"));
	assert_int_equal(irq_to_desc(LINE)->action->watch.late_since_boot, 0);
	/* Its interrupt does come, unclaimed, after the window: that changes nothing. */
	sim_run_for(10 * SIM_MS);
	assert_int_equal(line_unhandled(), 1);
	assert_int_equal(irq_to_desc(LINE)->action->watch.late_since_boot, 0);
	assert_int_equal(irq_to_desc(LINE)->action->watch.polled_since_boot, 1);
	sim_dev_detach(&d);
}

/* Issue: `irqs` said "misrouted" for ever after one irqfixup claim. Now: while claims are recent. */
#define FIXUP_LINE 11
#define FIXUP_OTHER 10

static void misrouted_lasts_while_irqfixup_claims_and_its_end_is_announced(void **state)
{
	struct sim_options fixup = { .irqfixup = true };
	const struct irq_policy *p;
	struct sim_dev lost = { .name = "lost", .irq = FIXUP_LINE, .misrouted = true, .raise_irq = FIXUP_OTHER,
				.latency_ns = 100 * SIM_US, .think_ns = 10 * SIM_MS, .timeout_ns = SIM_S, .seed = 3 };
	struct sim_dev host = { .name = "host", .irq = FIXUP_OTHER, .latency_ns = 100 * SIM_US,
				.think_ns = 10 * SIM_MS, .seed = 4 };
	struct irq_line_health lh;
	uint64_t claims, stop_at;

	p = sim_case_start(state, &fixup);
	assert_int_equal(sim_line_setup(FIXUP_LINE, SIM_EDGE), 0);
	assert_int_equal(sim_line_setup(FIXUP_OTHER, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&lost), 0);
	assert_int_equal(sim_dev_attach(&host), 0);
	sim_dev_start(&lost, 0);
	sim_run_for(2 * SIM_S);
	assert_int_equal(irq_get_line_health(FIXUP_LINE, &lh), 0);
	assert_true(lh.causes & IRQ_HEALTH_MISROUTED);
	assert_true(lh.fixup_claims > 0);
	assert_true(irq_host_log_contains_all("\"lost\"", "misrouted: its work came on another line"));
	/* The misroute is undone: the device's interrupt comes on its own line again. */
	lost.misrouted = false;
	stop_at = sim_now();
	claims = lh.fixup_claims;
	sim_run_for(p->health_misroute_window_ns - 10 * SIM_MS);
	assert_int_equal(irq_get_line_health(FIXUP_LINE, &lh), 0);
	assert_true(lh.causes & IRQ_HEALTH_MISROUTED);  /* the evidence is still recent */
	assert_true(lh.fixup_claims <= claims + 1);
	sim_run_for(20 * SIM_MS + IRQ_POLL_MIN_GAP_TEST_NS);
	assert_int_equal(irq_get_line_health(FIXUP_LINE, &lh), 0);
	assert_int_equal(lh.causes & IRQ_HEALTH_MISROUTED, 0);
	assert_true(lh.fixup_claims >= claims);  /* the since-boot count stays */
	assert_true(lh.fixup_last_ns <= stop_at + lost.latency_ns + lost.think_ns + SIM_MS);
	assert_true(irq_host_log_contains_all("\"lost\"", "misroute over"));
	assert_int_equal(lost.timeouts, 0);
	/* Nothing polls the line for the misroute any more. */
	assert_int_equal(irq_to_desc(FIXUP_LINE)->def.poll_at_ns, 0);
	sim_dev_detach(&lost);
	sim_dev_detach(&host);
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
	assert_int_equal(sim_core_timers_pending(), 0);
	sim_dev_detach(&d);
}

/*
 * watch_irq_keep (drivers/input/i8042.c): a keyboard has no time-out to re-arm its watch
 * from, so its watch must not end. Quiet for many periods, then its interrupts are lost:
 * the loss is found by a watch poll at most poll_slow_ns later; healthy again, the recovery
 * is said once and watching goes on at the slow rate.
 */
static void a_standing_watch_goes_on_through_quiet_periods_and_finds_a_later_loss(void **state)
{
	const struct irq_policy *p;
	struct sim_dev d = keyboard(0);
	struct irq_action_health ah;

	p = sim_case_start(state, NULL);
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	watch_irq_keep(LINE, &d);
	if (!p->watch_on) {
		sim_run_for(3 * SIM_MIN);
		assert_string_equal(watch_state(), "off");
		assert_int_equal(irq_to_desc(LINE)->def.polls, 0);
		sim_dev_detach(&d);
		return;
	}
	sim_run_for(5 * p->watch_period_ns + p->poll_slow_ns);
	assert_string_equal(watch_state(), "watching");
	assert_false(irq_host_log_contains("watch ended"));
	assert_true(sim_core_timers_pending() > 0);
	/* Now the device's first interrupt is lost (the rest arrive): it waits for a slow poll, no longer. */
	d.loss_ppm = SIM_PPM;
	d.loss_change_after_ops = 1;
	d.loss_ppm_after = 0;
	sim_dev_start(&d, 0);
	sim_run_for(p->poll_slow_ns + EVENT_LATENCY_NS + IRQ_POLL_MIN_GAP_TEST_NS);
	assert_true(d.by_poll >= 1);
	assert_true(d.latency_max_ns <= p->poll_slow_ns + EVENT_LATENCY_NS + IRQ_POLL_MIN_GAP_TEST_NS);
	sim_run_for(p->watch_late_window_ns + SIM_MS);
	assert_string_equal(watch_state(), "polled");
	assert_true(irq_host_log_contains_all("\"kbd\"", "a poll found work"));
	assert_int_equal(d.by_poll, 1);
	/* Healthy since: at the period's end recovered, said once, watched on. */
	sim_run_for(2 * p->watch_period_ns);
	assert_string_equal(watch_state(), "watching");
	assert_int_equal(irq_get_action_health(LINE, 0, &ah), 0);
	assert_int_equal(ah.causes, 0);
	assert_true(irq_host_log_contains_all("\"kbd\"", "recovered; watched on"));
	assert_false(irq_host_log_contains("watch ended"));
	sim_dev_stop(&d);
	sim_run_for(3 * p->watch_period_ns);
	assert_string_equal(watch_state(), "watching");
	assert_int_equal(d.double_completions, 0);
	sim_dev_detach(&d);
}

/* A standing watch on polling whose device goes quiet stays on polling: its next event would
 * be lost too, and must not wait for a slow poll again. */
static void a_standing_watch_on_polling_stays_on_polling_while_its_device_is_quiet(void **state)
{
	const struct irq_policy *p;
	struct sim_dev d = keyboard(SIM_PPM);

	p = sim_case_start(state, NULL);
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	watch_irq_keep(LINE, &d);
	sim_dev_start(&d, 0);
	sim_run_for(p->watch_interval_ns + p->watch_late_window_ns + SIM_MS);
	assert_string_equal(watch_state(), "polled");
	sim_dev_stop(&d);
	sim_run_for(3 * p->watch_period_ns);
	assert_string_equal(watch_state(), "polled");
	assert_false(irq_host_log_contains("recovered"));
	d.latency_max_ns = 0;
	sim_dev_start(&d, 0);
	sim_run_for(SIM_S);
	assert_true(d.completions > 0);
	assert_true(d.latency_max_ns <= EVENT_LATENCY_NS + (p->watch_poll_max_ns ? p->watch_poll_max_ns : p->poll_normal_ns) +
					 IRQ_POLL_MIN_GAP_TEST_NS / 100);
	sim_dev_detach(&d);
}

/*
 * IRQF_NEXT_ON_READ (drivers/input/i8042.c): a model of the 8042, one byte of output buffer in
 * front of a queue, an edge whenever a byte enters the empty buffer. Its handler takes one byte,
 * and the controller loads the next and raises its edge at once, inside the handler. The classic
 * stuck keyboard: one interrupt taken, its byte left, no edge for the rest. A watch poll takes
 * the byte - and the next byte's edge is pending after the handlers. Without the flag that
 * pending interrupt was taken for this byte's own (judged late, nothing reported); with it only
 * a request pending before the handlers counts, so the loss is reported.
 */
#define KBC_QUEUE 16
static struct kbc_model {
	uint8_t queue[KBC_QUEUE];
	unsigned int head, len;
	bool obf;
	bool leave_next;            /* the buggy handler returns without reading, once */
	uint64_t taken;
} kbc;

static void kbc_load(void)
{
	if (kbc.obf || !kbc.len)
		return;
	kbc.obf = true;             /* the byte enters the empty buffer: a rising edge */
	kbc.head = (kbc.head + 1) % KBC_QUEUE;
	kbc.len--;
	sim_line_edge(LINE);
}

static void kbc_push(unsigned int n)
{
	for (unsigned int i = 0; i < n && kbc.len < KBC_QUEUE; i++)
		kbc.queue[(kbc.head + kbc.len++) % KBC_QUEUE] = (uint8_t)i;
	kbc_load();
}

static irqreturn_t kbc_handler(unsigned int irq, void *dev_id)
{
	(void)irq;
	(void)dev_id;
	if (!kbc.obf)
		return IRQ_NONE;
	if (kbc.leave_next) {
		kbc.leave_next = false;
		return IRQ_HANDLED;
	}
	kbc.obf = false;
	kbc.taken++;
	kbc_load();                 /* reading port 0x60 loads the next byte, with its edge */
	return IRQ_HANDLED;
}

static void run_stuck_kbc(unsigned long flags, struct irq_action_health *ah)
{
	memset(&kbc, 0, sizeof(kbc));
	assert_int_equal(sim_line_setup_pending(LINE, SIM_EDGE), 0);
	assert_int_equal(request_irq(LINE, kbc_handler, IRQF_TRIGGER_RISING | flags, "kbc", &kbc), 0);
	watch_irq_keep(LINE, &kbc);
	sim_run_for(10 * SIM_S);
	kbc.leave_next = true;
	kbc_push(3);                /* a key's make and break, queued at once as QEMU does */
	sim_run_for(5 * SIM_S);
	assert_int_equal(kbc.taken, 3);   /* typing goes on either way */
	assert_int_equal(irq_get_action_health(LINE, 0, ah), 0);
	free_irq(LINE, &kbc);
}

static void a_stuck_byte_is_reported_when_the_next_byte_raises_its_edge_at_once(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct irq_action_health ah;

	if (!p->watch_on)
		return;
	run_stuck_kbc(IRQF_NEXT_ON_READ, &ah);
	assert_int_equal(ah.watch_polled, 1);
	assert_int_equal(ah.watch_beat, 0);
	assert_true(irq_host_log_contains_all("\"kbc\"", "a poll found work"));
}

static void without_next_on_read_the_next_bytes_edge_hides_the_stuck_byte(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct irq_action_health ah;

	if (!p->watch_on)
		return;
	run_stuck_kbc(0, &ah);
	assert_int_equal(ah.watch_polled, 0);
	assert_int_equal(ah.watch_beat, 1);
	assert_false(irq_host_log_contains("a poll found work"));
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
	assert_int_equal(sim_core_timers_pending(), 0);
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
		SIM_NEEDS_TEXT(SIM_CASES_PER_PROFILE(a_watch_that_finds_lost_work_polls_at_the_normal_rate_and_marks_it_bad))
		SIM_NEEDS_TEXT(SIM_CASES_PER_PROFILE(a_device_whose_interrupt_is_late_by_less_than_the_window_never_goes_on_polling))
		SIM_NEEDS_TEXT(SIM_CASE(an_interrupt_later_than_the_window_leaves_the_find_polled))
		SIM_CASE(a_busy_device_whose_every_poll_finds_work_is_still_judged_bad),
		SIM_NEEDS_TEXT(SIM_CASE(misrouted_lasts_while_irqfixup_claims_and_its_end_is_announced))
		SIM_CASES_PER_PROFILE(a_keyboard_on_polling_waits_at_most_watch_poll_max_for_its_events),
		SIM_NEEDS_TEXT(SIM_CASE_PROFILE(a_middling_ratio_makes_the_action_wary_and_a_good_wary_period_ends_it,
				 IRQ_POLICY_IRQKIT, "irqkit"))
		SIM_NEEDS_TEXT(SIM_CASE_PROFILE(a_middling_ratio_makes_the_action_wary_and_a_good_wary_period_ends_it,
				 IRQ_POLICY_TEJUN2010, "tejun2010"))
		SIM_CASE_PROFILE(watch_irq_again_restarts_the_period, IRQ_POLICY_IRQKIT, "irqkit"),
		SIM_CASE_PROFILE(watch_irq_again_restarts_the_period, IRQ_POLICY_TEJUN2010, "tejun2010"),
		SIM_CASE(a_watch_without_deliveries_ends_after_one_period),
		SIM_NEEDS_TEXT(SIM_CASES_PER_PROFILE(a_standing_watch_goes_on_through_quiet_periods_and_finds_a_later_loss))
		SIM_NEEDS_TEXT(SIM_CASE_PROFILE(a_standing_watch_on_polling_stays_on_polling_while_its_device_is_quiet,
				 IRQ_POLICY_IRQKIT, "irqkit"))
		SIM_NEEDS_TEXT(SIM_CASE_PROFILE(a_standing_watch_on_polling_stays_on_polling_while_its_device_is_quiet,
				 IRQ_POLICY_TEJUN2010, "tejun2010"))
		SIM_NEEDS_TEXT(SIM_CASES_PER_PROFILE(a_stuck_byte_is_reported_when_the_next_byte_raises_its_edge_at_once))
		SIM_CASE(without_next_on_read_the_next_bytes_edge_hides_the_stuck_byte),
		SIM_CASE(watch_irq_on_unknown_lines_and_actions_is_reported_and_ignored),
		SIM_CASE(the_watch_holds_its_verdict_while_the_line_is_off_for_flooding),
	};

	sim_filter_from_env();
	return cmocka_run_group_tests_name("irq_watch", tests, NULL, NULL);
}
