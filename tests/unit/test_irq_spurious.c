/*
 * test_irq_spurious.c - host tests of the flood defence (kernel/irq/
 * spurious.c) and of irqfixup, irqpoll and noirqdebug (poll.c, policy.c)
 * in the virtual-time simulator: a level line stuck asserted, floods that
 * are 99 % unclaimed, a healthy line at 100,000 interrupts a second, a
 * shared line with one good and one rogue device, bursts of spurious
 * edges, the re-enable back-off and its shrinking, and what each profile
 * documents (tejun2010 needs about 10,000 interrupts, mainline never
 * re-enables). Expected figures come from the policy table; the issues'
 * own bounds are asserted for irqkit: fewer than 200 unclaimed interrupts
 * for any flood, 10 ms for one of 20,000 a second and more, 100 ms for
 * one of 2,000 a second (issue 19; 1,000 and 100 ms before it), and no trip
 * on a line a fast device keeps claiming beside a slow second device.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>

#include "sim/sim_cmocka.h"

#define LINE 11
#define OTHER_LINE 10
/* The issues' detection bounds for irqkit (issue 19: 200 interrupts, 10 ms at 20,000/s). */
#define IRQKIT_MAX_IRQS 200u
#define IRQKIT_MAX_NS (10 * SIM_MS)
/* A flood of FAST_FLOOD_PERIOD_NS or faster must be off within IRQKIT_MAX_NS. */
#define FAST_FLOOD_PERIOD_NS (50 * SIM_US)
/* A slow flood (2,000/s and more) within this (issue 1). */
#define IRQKIT_SLOW_MAX_NS (100 * SIM_MS)
/* When the floods of these cases start. */
#define FLOOD_AT_NS SIM_S
/* Seeds tried for the randomised 99 % floods. */
#define FLOOD_SEEDS 16u
/* A healthy busy device: an interrupt every 10 us (100,000 a second), half of them claimed. */
#define BUSY_PERIOD_NS (10 * SIM_US)

/* A NIC-like device on LINE: 100 us per packet, 900 us apart, no expecting or watching. */
/* The line's unclaimed interrupts, summed over the CPUs (irq_get_line_stats). */
static uint64_t line_unhandled(void)
{
	struct irq_line_stats st;

	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	return st.unhandled;
}

static struct sim_dev nic(void)
{
	return (struct sim_dev){ .name = "nic", .irq = LINE, .level = true, .source = 0,
				 .latency_ns = 100 * SIM_US, .think_ns = 900 * SIM_US,
				 .timeout_ns = 2 * SIM_S, .seed = 3 };
}

/* A rogue stuck on LINE's level source 1 from @start to @stop, claiming @claim_ppm of its calls. */
static struct sim_source stuck_rogue(uint64_t start, uint64_t stop, uint32_t claim_ppm, uint64_t seed)
{
	return (struct sim_source){ .name = "rogue", .irq = LINE, .source = 1, .mode = SIM_STUCK_LEVEL,
				    .start_ns = start, .stop_ns = stop, .has_handler = claim_ppm != 0,
				    .claim_ppm = claim_ppm, .seed = seed };
}

/* The first mask of @irq at or after @t (index into its history), or -1. */
static int first_mask_after(unsigned int irq, uint64_t t)
{
	const struct sim_line *l = sim_line(irq);
	unsigned int i;

	for (i = 0; i < l->nr_history; i++)
		if (l->history[i].masked && l->history[i].at_ns >= t)
			return (int)i;
	return -1;
}

/* Interrupts the line took from @t (whose delivered count was @delivered_at_t) until it was masked. */
static uint64_t irqs_until_contained(unsigned int irq, uint64_t t, uint64_t delivered_at_t, uint64_t *took_ns)
{
	int i = first_mask_after(irq, t);

	assert_true(i >= 0);
	*took_ns = sim_line(irq)->history[i].at_ns - t;
	return sim_line(irq)->history[i].delivered - delivered_at_t;
}

/* A level line with @dev's handler (idle unless started) and a stuck rogue from FLOOD_AT_NS. */
static void setup_stuck_line(struct sim_dev *dev, struct sim_source *rogue)
{
	/* An IOAPIC-style level line: its flow masks only when the line is off. */
	assert_int_equal(sim_line_setup(LINE, SIM_FASTEOI), 0);
	assert_int_equal(sim_dev_attach(dev), 0);
	assert_int_equal(sim_source_attach(rogue), 0);
}

static void a_stuck_level_line_is_contained_within_the_profiles_bound(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_dev d = nic();
	struct sim_source rogue = stuck_rogue(FLOOD_AT_NS, 0, 0, 1);
	uint64_t took, irqs;

	setup_stuck_line(&d, &rogue);
	sim_run_for(FLOOD_AT_NS + 2 * SIM_S);
	irqs = irqs_until_contained(LINE, FLOOD_AT_NS, 0, &took);
	print_message("%s: stuck line contained after %llu interrupts, %llu us\n", p->name,
		      (unsigned long long)irqs, (unsigned long long)(took / SIM_US));
	/* A flood that starts with a segment is caught at its end. */
	assert_int_equal(irqs, p->spr_segment_samples);
	assert_true(irq_to_desc(LINE)->def.flood_off || irq_to_desc(LINE)->def.flood_testing);
	assert_true(irq_host_log_contains_all("irq 11", "flood of unclaimed interrupts"));
	if (p == &irq_policies[IRQ_POLICY_IRQKIT]) {
		assert_true(irqs <= IRQKIT_MAX_IRQS);
		assert_true(took <= IRQKIT_MAX_NS);
	}
	sim_source_detach(&rogue);
	sim_dev_detach(&d);
}

static void a_99_percent_flood_starting_mid_segment_is_caught_within_two_segments(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	uint64_t worst_irqs = 0, worst_ns = 0, seed;

	for (seed = 1; seed <= FLOOD_SEEDS; seed++) {
		/* A busy healthy device fills part of a segment; then 99 % of interrupts go unclaimed. */
		struct sim_source busy = { .name = "busy", .irq = LINE, .mode = SIM_EDGE_STREAM,
					   .period_ns = 100 * SIM_US + seed * 7 * SIM_US, .stop_ns = FLOOD_AT_NS,
					   .has_handler = true, .claim_ppm = SIM_PPM, .claims_own = true, .seed = seed };
		struct sim_source rogue = { .name = "rogue", .irq = LINE, .mode = SIM_EDGE_STREAM,
					    .period_ns = 3 * SIM_US, .start_ns = FLOOD_AT_NS, .has_handler = true,
					    .claim_ppm = SIM_PPM / 100, .seed = seed * 31 };
		uint64_t took, irqs, at_flood;

		sim_reset();
		sim_case_start(state, NULL);
		assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
		assert_int_equal(sim_source_attach(&busy), 0);
		assert_int_equal(sim_source_attach(&rogue), 0);
		sim_run_for(FLOOD_AT_NS - 1);
		at_flood = sim_line(LINE)->delivered;
		/* Until caught, or ten segments of flood (three for a profile that never catches it). */
		uint64_t segments = p->spr_bad_ppm > SIM_PPM - SIM_PPM / 100 ? 3 : 10;

		while (!irq_to_desc(LINE)->def.floods &&
		       sim_now() < FLOOD_AT_NS + segments * p->spr_segment_samples * rogue.period_ns)
			sim_run_for(SIM_MS);
		if (p->spr_bad_ppm > SIM_PPM - SIM_PPM / 100) {
			/* mainline wants more than 99.9 %: a 99 % flood is never caught. */
			assert_int_equal(irq_to_desc(LINE)->def.floods, 0);
			sim_source_detach(&rogue);
			sim_source_detach(&busy);
			continue;
		}
		assert_int_equal(irq_to_desc(LINE)->def.floods >= 1, 1);
		irqs = irqs_until_contained(LINE, FLOOD_AT_NS, at_flood, &took);
		worst_irqs = irqs > worst_irqs ? irqs : worst_irqs;
		worst_ns = took > worst_ns ? took : worst_ns;
		sim_source_detach(&rogue);
		sim_source_detach(&busy);
	}
	if (p->spr_bad_ppm > SIM_PPM - SIM_PPM / 100)
		return;  /* mainline: never caught (asserted above) */
	print_message("%s: 99%% floods caught within %llu interrupts, %llu us (worst of %u)\n", p->name,
		      (unsigned long long)worst_irqs, (unsigned long long)(worst_ns / SIM_US), FLOOD_SEEDS);
	/*
	 * tejun2010 calls exactly 99 % a flood, so a 99 % flood's segments fall
	 * short about half the time: always caught (above), not always within
	 * two segments. A threshold with a margin (irqkit) is.
	 */
	if (p->spr_bad_ppm < SIM_PPM - SIM_PPM / 100)
		assert_true(worst_irqs <= 2 * p->spr_segment_samples);
	if (p == &irq_policies[IRQ_POLICY_IRQKIT]) {
		assert_true(worst_irqs <= IRQKIT_MAX_IRQS);
		assert_true(worst_ns <= IRQKIT_MAX_NS);
	}
}

static void a_slow_flood_of_2500_per_second_is_caught_within_100_ms(void **state)
{
	struct sim_source rogue = { .name = "rogue", .irq = LINE, .mode = SIM_EDGE_STREAM,
				    .period_ns = 400 * SIM_US, .start_ns = FLOOD_AT_NS, .has_handler = true,
				    .claim_ppm = SIM_PPM / 100, .seed = 9 };
	uint64_t took, irqs;

	sim_case_start(state, NULL);
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_source_attach(&rogue), 0);
	sim_run_for(FLOOD_AT_NS + SIM_S);
	irqs = irqs_until_contained(LINE, FLOOD_AT_NS, 0, &took);
	assert_true(took <= IRQKIT_SLOW_MAX_NS);
	assert_true(irqs <= IRQKIT_MAX_IRQS);
	sim_source_detach(&rogue);
}

/* Seeds of the 20,000/s flood: where in a segment it starts. */
#define FAST_FLOOD_SEEDS 8u

static void a_20000_per_second_flood_mid_segment_is_off_within_200_interrupts_and_10_ms(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	uint64_t worst_irqs = 0, worst_ns = 0, seed;

	for (seed = 1; seed <= FAST_FLOOD_SEEDS; seed++) {
		/*
		 * A busy device's claimed interrupts fill part of the segment the
		 * flood starts in (each seed elsewhere), so that segment is no flood
		 * and the next one must be: the worst case of the segment rule.
		 * The flood itself: 20,000 unclaimed edges a second (the rate of the
		 * spurious-flood scenario), nobody's.
		 */
		struct sim_source busy = { .name = "busy", .irq = LINE, .mode = SIM_EDGE_STREAM,
					   .period_ns = 200 * SIM_US + seed * 37 * SIM_US, .stop_ns = FLOOD_AT_NS,
					   .has_handler = true, .claim_ppm = SIM_PPM, .claims_own = true, .seed = seed };
		struct sim_source rogue = { .name = "rogue", .irq = LINE, .mode = SIM_EDGE_STREAM,
					    .period_ns = FAST_FLOOD_PERIOD_NS,
					    .start_ns = FLOOD_AT_NS + seed * 3 * SIM_US, .seed = seed * 31 };
		uint64_t took, irqs, at_flood;

		sim_reset();
		sim_case_start(state, NULL);
		assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
		assert_int_equal(sim_source_attach(&busy), 0);
		assert_int_equal(sim_source_attach(&rogue), 0);
		sim_run_for(FLOOD_AT_NS);
		at_flood = sim_line(LINE)->delivered;
		while (!irq_to_desc(LINE)->def.floods &&
		       sim_now() < FLOOD_AT_NS + 3 * p->spr_segment_samples * FAST_FLOOD_PERIOD_NS)
			sim_run_for(SIM_MS);
		assert_int_equal(irq_to_desc(LINE)->def.floods, 1);
		irqs = irqs_until_contained(LINE, FLOOD_AT_NS, at_flood, &took);
		/* Every profile within two of its segments. */
		assert_true(irqs <= 2 * p->spr_segment_samples);
		worst_irqs = irqs > worst_irqs ? irqs : worst_irqs;
		worst_ns = took > worst_ns ? took : worst_ns;
		sim_source_detach(&rogue);
		sim_source_detach(&busy);
	}
	print_message("%s: 20,000/s floods off within %llu interrupts, %llu us (worst of %u)\n", p->name,
		      (unsigned long long)worst_irqs, (unsigned long long)(worst_ns / SIM_US), FAST_FLOOD_SEEDS);
	if (p == &irq_policies[IRQ_POLICY_IRQKIT]) {
		assert_true(worst_irqs <= IRQKIT_MAX_IRQS);
		assert_true(worst_ns <= IRQKIT_MAX_NS);
	}
}

static void a_fast_claimed_device_beside_a_slow_one_leaving_some_unclaimed_never_trips(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	/* 100,000 interrupts a second, each claimed by the fast device's handler. */
	struct sim_source fast = { .name = "fast", .irq = LINE, .mode = SIM_EDGE_STREAM,
				   .period_ns = BUSY_PERIOD_NS, .has_handler = true,
				   .claim_ppm = SIM_PPM, .claims_own = true, .seed = 5 };
	/*
	 * A slow second device on the same line: it signals every 703 us, and
	 * its handler finds its status not yet ready for 30 % of them (those go
	 * unclaimed, unless the fast device claims the same run).
	 */
	struct sim_source slow = { .name = "slow", .irq = LINE, .mode = SIM_EDGE_STREAM,
				   .period_ns = 703 * SIM_US, .has_handler = true,
				   .claim_ppm = SIM_PPM * 7 / 10, .claims_own = true, .seed = 6 };
	/* And a third, which expects its completions (a disk) and must stay verified. */
	struct sim_dev d = nic();
	unsigned int masks_after_setup;

	d.level = false;
	d.use_expect = true;
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_source_attach(&fast), 0);
	assert_int_equal(sim_source_attach(&slow), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	sim_dev_start(&d, 0);
	masks_after_setup = (unsigned int)sim_line(LINE)->masks;
	sim_run_for(2 * SIM_S);
	print_message("%s: %llu interrupts, %llu unclaimed, %llu segments judged by the flood defence\n", p->name,
		      (unsigned long long)sim_line(LINE)->delivered,
		      (unsigned long long)line_unhandled(),
		      (unsigned long long)(sim_line(LINE)->delivered / p->spr_segment_samples));
	assert_true(sim_line(LINE)->delivered >= 2 * SIM_S / BUSY_PERIOD_NS - 1);
	assert_true(line_unhandled() > 0);
	assert_int_equal(irq_to_desc(LINE)->def.floods, 0);
	assert_int_equal(sim_line(LINE)->masks, masks_after_setup);
	assert_int_equal(d.timeouts, 0);
	assert_int_equal(irq_health_report(), 0);
	sim_dev_detach(&d);
	sim_source_detach(&slow);
	sim_source_detach(&fast);
}

static void a_healthy_line_at_100000_per_second_never_trips(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_source busy = { .name = "busy", .irq = LINE, .mode = SIM_EDGE_STREAM,
				   .period_ns = BUSY_PERIOD_NS, .has_handler = true,
				   .claim_ppm = SIM_PPM / 2, .seed = 17 };
	unsigned int masks_after_setup;

	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_source_attach(&busy), 0);
	masks_after_setup = (unsigned int)sim_line(LINE)->masks;
	sim_run_for(2 * SIM_S);
	assert_true(sim_line(LINE)->delivered >= 2 * SIM_S / BUSY_PERIOD_NS - 1);
	assert_int_equal(irq_to_desc(LINE)->def.floods, 0);
	assert_int_equal(sim_line(LINE)->masks, masks_after_setup);
	assert_int_equal(irq_health_report(), 0);
	(void)p;
	sim_source_detach(&busy);
}

static void the_good_device_on_a_shared_storming_line_keeps_working(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_dev d = nic();
	struct sim_source rogue = stuck_rogue(FLOOD_AT_NS, 0, 0, 1);
	uint64_t c0, window = 3 * SIM_S;

	setup_stuck_line(&d, &rogue);
	sim_dev_start(&d, 0);
	sim_run_for(FLOOD_AT_NS + SIM_S);
	c0 = d.completions;
	sim_run_for(window);
	print_message("%s: good device %llu completions in 3 s of storm (%llu by polling), %llu interrupts taken\n",
		      p->name, (unsigned long long)(d.completions - c0), (unsigned long long)d.by_poll,
		      (unsigned long long)sim_line(LINE)->delivered);
	assert_int_equal(d.timeouts, 0);
	assert_int_equal(d.double_completions, 0);
	if (p->spr_bad_ppm * p->spr_segment_samples / IRQ_POLICY_PPM >
	    p->spr_segment_samples - p->spr_segment_samples * SIM_IRQ_COST_NS * 2 / SIM_MS) {
		/*
		 * mainline: the good device claims more than 0.1 % of the storm's
		 * interrupts (one per millisecond of 500), so the line is never
		 * called a flood: it storms on and the CPU does nothing else.
		 */
		assert_int_equal(irq_to_desc(LINE)->def.floods, 0);
		assert_true(sim_line(LINE)->delivered >= window / SIM_IRQ_COST_NS);
	} else {
		/* Off at the chip; the device is served by polls at least every spr_poll_ns. */
		assert_true(irq_to_desc(LINE)->def.floods >= 1);
		assert_true(d.completions - c0 >= window / (p->spr_poll_ns + d.latency_ns + d.think_ns));
		assert_true(d.by_poll > 0);
	}
	sim_source_detach(&rogue);
	sim_dev_detach(&d);
}

/* The times the line was off and on after FLOOD_AT_NS: off durations into @off (up to @max). */
static unsigned int off_durations(unsigned int irq, uint64_t *off, unsigned int max)
{
	const struct sim_line *l = sim_line(irq);
	unsigned int i, n = 0;
	int start = first_mask_after(irq, FLOOD_AT_NS);

	for (i = (unsigned int)start; start >= 0 && i + 1 < l->nr_history && n < max; i += 2) {
		assert_true(l->history[i].masked);
		assert_false(l->history[i + 1].masked);
		off[n++] = l->history[i + 1].at_ns - l->history[i].at_ns;
	}
	return n;
}

static void re_enable_tests_back_off_exponentially_up_to_the_profiles_limit(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_dev d = nic();
	struct sim_source rogue = stuck_rogue(FLOOD_AT_NS, 0, 0, 1);
	uint64_t off[16], want = p->spr_backoff_min_ns;
	unsigned int n, i, periods;

	setup_stuck_line(&d, &rogue);
	if (p->spr_backoff_min_ns == IRQ_POLICY_FOREVER) {
		/* mainline: off for good, polled every spr_poll_ns. */
		sim_run_for(FLOOD_AT_NS + SIM_HOUR);
		assert_int_equal(off_durations(LINE, off, 16), 0);
		assert_true(sim_line(LINE)->masked);
		/* The trip came a segment (under a second) into the flood. */
		assert_true(irq_to_desc(LINE)->def.polls >= (SIM_HOUR - SIM_S) / p->spr_poll_ns);
		assert_true(irq_to_desc(LINE)->def.polls <= SIM_HOUR / p->spr_poll_ns + 1);
		sim_source_detach(&rogue);
		sim_dev_detach(&d);
		return;
	}
	/* As many doublings as fit in an hour (irqkit reaches its limit; tejun2010 grows 8x twice). */
	{
		uint64_t total = 0, b = p->spr_backoff_min_ns;

		for (periods = 0; periods < 16 && total + b <= SIM_HOUR; periods++) {
			total += b;
			b = b << p->spr_backoff_grow_shift > p->spr_backoff_max_ns ? p->spr_backoff_max_ns
										  : b << p->spr_backoff_grow_shift;
		}
		sim_run_for(FLOOD_AT_NS + total + SIM_S);
	}
	n = off_durations(LINE, off, periods);
	assert_int_equal(n, periods);
	assert_true(n >= 2);
	for (i = 0; i < n; i++) {
		/* Off for the back-off (the poll that re-enables is at most one poll late). */
		assert_true(off[i] >= want);
		assert_true(off[i] <= want + p->spr_poll_ns);
		want = want << p->spr_backoff_grow_shift > p->spr_backoff_max_ns ? p->spr_backoff_max_ns
										  : want << p->spr_backoff_grow_shift;
	}
	assert_int_equal(irq_to_desc(LINE)->def.failed_tests, n);
	sim_source_detach(&rogue);
	sim_dev_detach(&d);
}

/* Issue 20: after one storm `irqs` said "floods since boot: 11": every failed re-enable test
 * counted as a flood. One storm is one flood; its failed tests are counted apart. */
static void one_storm_is_one_flood_and_its_failed_re_enable_tests_are_counted_apart(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_dev d = nic();
	struct sim_source rogue = stuck_rogue(FLOOD_AT_NS, 0, 0, 1);
	struct irq_line_health h;

	setup_stuck_line(&d, &rogue);
	sim_run_for(FLOOD_AT_NS + SIM_MIN);
	assert_int_equal(irq_get_line_health(LINE, &h), 0);
	assert_int_equal(h.floods, 1);
	if (p->spr_backoff_min_ns == IRQ_POLICY_FOREVER)
		assert_int_equal(h.failed_tests_total, 0);   /* mainline: off for good, never tested */
	else
		assert_true(h.failed_tests_total >= 3 && h.failed_tests_total == h.failed_tests);
	sim_source_detach(&rogue);
	sim_dev_detach(&d);
}

/* Issue 20: the flood messages limited to the 1st, 2nd, 4th, 8th... failed test read as lost
 * messages: each says when it comes again. */
static void rate_limited_flood_messages_say_when_they_come_again(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_dev d = nic();
	struct sim_source rogue = stuck_rogue(FLOOD_AT_NS, 0, 0, 1);

	if (p->spr_backoff_min_ns == IRQ_POLICY_FOREVER)
		return;                                      /* mainline never re-tests */
	setup_stuck_line(&d, &rogue);
	sim_run_for(FLOOD_AT_NS + SIM_MIN);
	assert_true(irq_to_desc(LINE)->def.failed_tests >= 4);
	assert_true(irq_host_log_contains("(1 failed tests): off again"));
	assert_true(irq_host_log_contains_all("(2 failed tests)", "said again at 4 failed tests"));
	assert_true(irq_host_log_contains_all("(4 failed tests)", "said again at 8 failed tests"));
	assert_false(irq_host_log_contains("(3 failed tests)"));
	assert_true(irq_host_log_contains_all("re-enabled to test whether the flood stopped (test 3;",
					      "said again at test 5)"));
	sim_source_detach(&rogue);
	sim_dev_detach(&d);
}

/*
 * The poll timer is armed early by its measured lateness (poll.c), and a
 * poll is due when it is wanted by now plus that lateness. The re-enable
 * test of a line off for flooding must be due by the same rule: when the
 * back-off ended less than the lateness after a poll, the timer fired
 * early for it, the re-enable waited for its exact time, and the timer,
 * still wanting it within its lateness, was due again at once, at the
 * same instant, for ever (the host port's "timer storm"; on hardware,
 * polls back to back until the time came). Found by the SMP expect case
 * of test_irq_concurrency.c, whose timer thread steps 20 us at a time.
 */
static void a_re_enable_due_within_the_poll_timers_lateness_is_taken_not_polled_for_ever(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_dev d = nic();
	struct sim_source rogue = stuck_rogue(FLOOD_AT_NS, FLOOD_AT_NS + 20 * SIM_MS, 0, 1);
	struct irq_desc *desc = irq_to_desc(LINE);
	uint64_t polls;

	setup_stuck_line(&d, &rogue);
	sim_run_for(FLOOD_AT_NS + 30 * SIM_MS);
	assert_true(desc->def.flood_off);
	/* The next poll, then the back-off's end 20 us after it, with the timer 50 us late on average. */
	desc->def.flood_reenable_at_ns = __irq_flood_deadline(desc, sim_now()) + 20 * SIM_US;
	desc->def.poll_late_ns = 50 * SIM_US;
	__irq_poll_want_moved(desc);
	polls = desc->def.polls;
	sim_run_for(p->spr_poll_ns + p->spr_segment_ns + SIM_MS);
	print_message("%s: %llu polls, then %s\n", p->name, (unsigned long long)(desc->def.polls - polls),
		      desc->def.flood_off ? "still off" : desc->def.flood_testing ? "on test" : "back on");
	assert_false(desc->def.flood_off);
	assert_true(desc->def.polls - polls <= 3);
	sim_source_detach(&rogue);
	sim_dev_detach(&d);
}

static void after_the_flood_stops_the_line_comes_back_and_good_segments_shrink_the_back_off(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_dev d = nic();
	uint64_t flood_len = 5 * p->spr_backoff_min_ns, stop = FLOOD_AT_NS + flood_len;
	struct sim_source rogue = stuck_rogue(FLOOD_AT_NS, stop, 0, 1);
	struct sim_source again = stuck_rogue(0, 0, 0, 2);
	uint64_t back_after;

	if (p->spr_backoff_min_ns == IRQ_POLICY_FOREVER)
		flood_len = SIM_S, stop = FLOOD_AT_NS + flood_len, rogue.stop_ns = stop;
	setup_stuck_line(&d, &rogue);  /* the NIC idles until the flood is over */
	sim_run_for(stop);
	sim_dev_start(&d, 0);
	while (sim_line(LINE)->masked && sim_now() < stop + SIM_HOUR)
		sim_run_for(p->spr_poll_ns);
	back_after = sim_now() - stop;
	print_message("%s: line back on interrupts %llu ms after the flood stopped\n", p->name,
		      sim_line(LINE)->masked ? 0ull : (unsigned long long)(back_after / SIM_MS));
	if (p->spr_backoff_min_ns == IRQ_POLICY_FOREVER) {
		assert_true(sim_line(LINE)->masked);  /* mainline: never */
		sim_source_detach(&rogue);
		sim_dev_detach(&d);
		return;
	}
	assert_false(sim_line(LINE)->masked);
	assert_true(back_after <= irq_to_desc(LINE)->def.flood_backoff_ns + p->spr_poll_ns);
	/* A segment's time later the test has passed: recovered, announced, healthy. */
	sim_run_for(p->spr_segment_ns + p->spr_poll_ns + 2 * SIM_S);
	assert_false(irq_to_desc(LINE)->def.flood_testing);
	assert_true(irq_host_log_contains_all("irq 11", "flood over, line back on interrupts"));
	assert_int_equal(irq_health_report(), 0);
	/* Healthy traffic long enough shrinks the back-off to the minimum: a new flood gets it. */
	sim_run_for(SIM_MIN);
	again.start_ns = sim_now() + SIM_MS;
	assert_int_equal(sim_source_attach(&again), 0);
	sim_run_for(SIM_MS + 2 * p->spr_segment_samples * SIM_IRQ_COST_NS + p->spr_backoff_min_ns + p->spr_poll_ns);
	{
		const struct sim_line *l = sim_line(LINE);
		int i = first_mask_after(LINE, again.start_ns);

		assert_true(i >= 0 && (unsigned int)i + 1 < l->nr_history);
		assert_false(l->history[i + 1].masked);
		assert_true(l->history[i + 1].at_ns - l->history[i].at_ns <= p->spr_backoff_min_ns + p->spr_poll_ns);
	}
	sim_source_detach(&again);
	sim_source_detach(&rogue);
	sim_dev_detach(&d);
}

static void a_burst_of_spurious_edges_trips_only_when_it_fills_a_judged_segment(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_dev d = nic();
	uint64_t short_n = p->spr_min_samples - 1, long_n = 3 * p->spr_segment_samples;
	struct sim_source burst = { .name = "burst", .irq = LINE, .mode = SIM_EDGE_STREAM,
				    .period_ns = 3 * SIM_US, .start_ns = FLOOD_AT_NS,
				    .stop_ns = FLOOD_AT_NS + short_n * 3 * SIM_US - 1 };

	d.level = false;
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	assert_int_equal(sim_source_attach(&burst), 0);
	sim_run_for(FLOOD_AT_NS + SIM_S);
	assert_int_equal(burst.raised, short_n);
	assert_int_equal(irq_to_desc(LINE)->def.floods, 0);
	/* A long burst is a flood: contained, and (except for mainline) over once the burst is. */
	burst.start_ns = sim_now() + SIM_MS;
	burst.stop_ns = burst.start_ns + long_n * 3 * SIM_US;
	irq_port_timer_arm(&burst.timer, burst.start_ns);
	sim_run_for(SIM_MS + long_n * 3 * SIM_US + SIM_S);
	assert_int_equal(irq_to_desc(LINE)->def.floods, 1);
	sim_dev_start(&d, 0);
	if (p->spr_backoff_min_ns == IRQ_POLICY_FOREVER) {
		sim_run_for(SIM_MIN);
		assert_true(sim_line(LINE)->masked);
		assert_true(d.completions > 0);  /* polled */
	} else {
		sim_run_for(p->spr_backoff_min_ns + p->spr_segment_ns + SIM_S);
		assert_false(sim_line(LINE)->masked);
		assert_false(irq_to_desc(LINE)->def.flood_testing);
		assert_true(d.by_irq > 0);
	}
	sim_source_detach(&burst);
	sim_dev_detach(&d);
}

static void a_long_flood_is_reminded_of_at_the_low_rate(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_dev d = nic();
	struct sim_source rogue = stuck_rogue(FLOOD_AT_NS, 0, 0, 1);
	uint64_t span = 10 * p->health_remind_ns;
	unsigned int reminders;

	setup_stuck_line(&d, &rogue);  /* the NIC idles: nothing claims the flood */
	sim_run_for(FLOOD_AT_NS + SIM_S);
	irq_host_log_clear();
	sim_run_for(span);
	reminders = irq_host_log_count_level(IRQ_LOG_WARN);
	/* About one reminder per health_remind_ns, plus rate-limited re-test messages. */
	assert_true(irq_host_log_contains("still on polling (storm)"));
	assert_true(reminders >= span / p->health_remind_ns - 1);
	assert_true(reminders <= 2 * (span / p->health_remind_ns) + 8);
	sim_source_detach(&rogue);
	sim_dev_detach(&d);
}

static void freeing_the_last_handler_of_a_flooded_line_resets_its_defence(void **state)
{
	struct sim_dev d = nic();
	struct sim_source rogue = stuck_rogue(FLOOD_AT_NS, 0, 0, 1);

	sim_case_start(state, NULL);
	setup_stuck_line(&d, &rogue);
	sim_run_for(FLOOD_AT_NS + 10 * SIM_MS);
	assert_true(irq_to_desc(LINE)->def.flood_off);
	sim_dev_detach(&d);
	assert_false(irq_to_desc(LINE)->def.flood_off);
	assert_true(sim_line(LINE)->masked);  /* shut down: no handler */
	assert_int_equal(irq_to_desc(LINE)->def.poll_at_ns, 0);
	/* A new driver gets a working line (and the flood defence starts afresh). */
	sim_source_detach(&rogue);
	d = nic();
	assert_int_equal(sim_dev_attach(&d), 0);
	assert_false(sim_line(LINE)->masked);
	sim_dev_start(&d, 0);
	sim_run_for(SIM_S);
	assert_true(d.by_irq > 0);
	sim_dev_detach(&d);
}

static void irqfixup_finds_a_misrouted_interrupt_on_another_shared_line(void **state)
{
	struct sim_options fixup = { .irqfixup = true };
	struct sim_dev lost = nic(), host = nic();
	struct irq_line_health lh;
	unsigned int round;

	for (round = 0; round < 2; round++) {
		sim_reset();
		sim_case_start(state, round ? &fixup : NULL);
		/* "lost" registers on LINE, but its interrupt arrives on OTHER_LINE. */
		lost = nic();
		lost.name = "lost";
		lost.level = false;
		lost.misrouted = true;
		lost.raise_irq = OTHER_LINE;
		lost.timeout_ns = SIM_S;
		host = nic();
		host.name = "host";
		host.irq = OTHER_LINE;
		host.level = false;
		assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
		assert_int_equal(sim_line_setup(OTHER_LINE, SIM_EDGE), 0);
		assert_int_equal(sim_dev_attach(&lost), 0);
		assert_int_equal(sim_dev_attach(&host), 0);
		sim_dev_start(&lost, 0);
		sim_run_for(10 * SIM_S);
		assert_int_equal(irq_get_line_health(LINE, &lh), 0);
		if (!round) {
			assert_int_equal(lost.completions, 0);  /* only time-outs */
			assert_true(lost.timeouts >= 9);
			assert_int_equal(lh.causes, 0);
		} else {
			assert_int_equal(lost.timeouts, 0);
			assert_true(lost.completions >= 10 * SIM_S / (lost.latency_ns + lost.think_ns) / 2);
			assert_true(lh.causes & IRQ_HEALTH_MISROUTED);
			assert_true(irq_host_log_contains_all("irq 11", "misrouted?"));
		}
		sim_dev_detach(&lost);
		sim_dev_detach(&host);
	}
}

static void irqpoll_polls_every_shared_line_through_its_own_one_shot_timer(void **state)
{
	const struct irq_policy *p;
	struct sim_options irqpoll = { .irqpoll = true };
	struct sim_dev d = nic();
	struct irq_line_health lh;

	p = sim_case_start(state, &irqpoll);
	d.level = false;
	d.loss_ppm = SIM_PPM;  /* no interrupt ever arrives, and the driver neither expects nor watches */
	d.timeout_ns = 0;
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&d), 0);
	sim_dev_start(&d, 0);
	sim_run_for(10 * SIM_S);
	assert_true(d.completions >= 10 * SIM_S / (p->irqpoll_interval_ns + d.think_ns + d.latency_ns) - 1);
	assert_true(irq_to_desc(LINE)->def.polls <= 10 * SIM_S / p->irqpoll_interval_ns + 1);
	assert_int_equal(irq_get_line_health(LINE, &lh), 0);
	assert_true(lh.causes & IRQ_HEALTH_IRQPOLL);
	assert_int_equal(irq_health_report(), 1);
	assert_true(irq_host_log_contains_all("irq health: line 11", "irqpoll"));
	/* irqpoll is a boot parameter: refused once the defences run. */
	assert_int_equal(irq_param_irqpoll("0", NULL), -IRQ_EBUSY);
	sim_dev_detach(&d);
}

static void noirqdebug_turns_every_defence_off(void **state)
{
	struct sim_options off = { .noirqdebug = true };
	struct sim_dev d = nic();
	struct sim_source rogue = stuck_rogue(FLOOD_AT_NS, 0, 0, 1);

	sim_case_start(state, &off);
	d.use_expect = true;
	d.use_watch = true;
	setup_stuck_line(&d, &rogue);
	assert_null(d.exp);
	sim_run_for(FLOOD_AT_NS + 100 * SIM_MS);
	assert_int_equal(irq_to_desc(LINE)->def.floods, 0);
	assert_true(sim_line(LINE)->delivered >= 100 * SIM_MS / SIM_IRQ_COST_NS - 1);
	assert_int_equal(irq_to_desc(LINE)->def.polls, 0);
	irq_host_log_clear();
	irq_health_report();
	assert_true(irq_host_log_contains("defences off"));
	sim_source_detach(&rogue);
	sim_dev_detach(&d);
}

static void boot_switches_accept_flags_and_words_and_refuse_the_rest(void **state)
{
	(void)state;
	/* Without irqfixup built (IRQ_FIXUP 0) its switch takes "off" and refuses "on". */
	assert_int_equal(irq_param_irqfixup(NULL, NULL), IRQ_FIXUP ? 0 : -IRQ_ENODEV);
	assert_true(irq_host_log_contains(IRQ_FIXUP ? "irqfixup on" : IRQ_HEALTH_TEXT ? "not in this build" : "irq: E33"));
	assert_int_equal(irq_param_irqfixup("off", NULL), 0);
	assert_int_equal(irq_param_irqfixup("maybe", NULL), -IRQ_EINVAL);
	assert_int_equal(irq_param_irqfixup("yesyesyesyes", NULL), -IRQ_EINVAL);
	assert_int_equal(irq_param_policy("tejun2010", NULL), 0);
	assert_string_equal(irq_policy()->name, "tejun2010");
	assert_int_equal(irq_param_policy("linux", NULL), -IRQ_EINVAL);
	assert_int_equal(irq_param_policy(NULL, NULL), -IRQ_EINVAL);
	assert_string_equal(irq_policy()->name, "tejun2010");
	assert_null(irq_policy_by_name("IRQKIT"));
	assert_ptr_equal(irq_policy_by_name("mainline"), &irq_policies[IRQ_POLICY_MAINLINE]);
	/* The table describes every field it sets. */
	assert_int_equal(irq_policy_rows_count * sizeof(uint64_t) + sizeof(const char *), sizeof(struct irq_policy));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		SIM_NEEDS_TEXT(SIM_CASES_PER_PROFILE(a_stuck_level_line_is_contained_within_the_profiles_bound))
		SIM_CASES_PER_PROFILE(a_99_percent_flood_starting_mid_segment_is_caught_within_two_segments),
		SIM_CASE(a_slow_flood_of_2500_per_second_is_caught_within_100_ms),
		SIM_CASES_PER_PROFILE(a_20000_per_second_flood_mid_segment_is_off_within_200_interrupts_and_10_ms),
		SIM_CASES_PER_PROFILE(a_fast_claimed_device_beside_a_slow_one_leaving_some_unclaimed_never_trips),
		SIM_CASES_PER_PROFILE(a_healthy_line_at_100000_per_second_never_trips),
		SIM_CASES_PER_PROFILE(the_good_device_on_a_shared_storming_line_keeps_working),
		SIM_CASES_PER_PROFILE(re_enable_tests_back_off_exponentially_up_to_the_profiles_limit),
		SIM_NEEDS_TEXT(SIM_CASES_PER_PROFILE(after_the_flood_stops_the_line_comes_back_and_good_segments_shrink_the_back_off))
		SIM_CASE(a_re_enable_due_within_the_poll_timers_lateness_is_taken_not_polled_for_ever),
		SIM_CASES_PER_PROFILE(a_burst_of_spurious_edges_trips_only_when_it_fills_a_judged_segment),
		SIM_NEEDS_TEXT(SIM_CASES_PER_PROFILE(a_long_flood_is_reminded_of_at_the_low_rate))
		SIM_CASE(freeing_the_last_handler_of_a_flooded_line_resets_its_defence),
		SIM_CASE(one_storm_is_one_flood_and_its_failed_re_enable_tests_are_counted_apart),
		SIM_CASE(rate_limited_flood_messages_say_when_they_come_again),
		SIM_NEEDS_TEXT(SIM_CASE(irqfixup_finds_a_misrouted_interrupt_on_another_shared_line))
		SIM_NEEDS_TEXT(SIM_CASES_PER_PROFILE(irqpoll_polls_every_shared_line_through_its_own_one_shot_timer))
		SIM_NEEDS_TEXT(SIM_CASE(noirqdebug_turns_every_defence_off))
		SIM_CASE(boot_switches_accept_flags_and_words_and_refuse_the_rest),
	};

	sim_filter_from_env();
	return cmocka_run_group_tests_name("irq_spurious", tests, NULL, NULL);
}
