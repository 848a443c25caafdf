/*
 * test_irq_storm.c - host tests of the defence against storms of claimed
 * interrupts (kernel/irq/spurious.c, issue 19) in the virtual-time
 * simulator: a device whose driver claims every one of 200,000 interrupts
 * a second is throttled (masked, polled at the profile's bounded rate, its
 * work still done) within a storm window and announced; the re-enable
 * tests back off as for floods and the line comes back once the storm
 * stops; a driver's storm callback that slows its device keeps the line on
 * interrupts, one that only says so is throttled after the grace; fast
 * healthy devices are never throttled. tejun2010 and mainline have no such
 * defence (their columns are 0): the storm runs on there.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>

#include "sim/sim_cmocka.h"

#define LINE 11
/* When the storms of these cases start. */
#define STORM_AT_NS SIM_S
/* The storm: an interrupt every 5 us (200,000 a second), each claimed by its driver. */
#define STORM_PERIOD_NS (5 * SIM_US)
/* A device slowed by its driver: an interrupt every 100 us (10,000 a second). */
#define SLOWED_PERIOD_NS (100 * SIM_US)

/* A device on LINE that interrupts every STORM_PERIOD_NS from @start to @stop, claiming its own. */
static struct sim_source storming(uint64_t start, uint64_t stop)
{
	return (struct sim_source){ .name = "storm", .irq = LINE, .mode = SIM_EDGE_STREAM,
				    .period_ns = STORM_PERIOD_NS, .start_ns = start, .stop_ns = stop,
				    .has_handler = true, .claim_ppm = SIM_PPM, .claims_own = true, .seed = 3 };
}

static bool storm_defence(const struct irq_policy *p)
{
	return p->storm_max_claimed != 0;
}

/* The first mask of LINE at or after @t (index into its history), or -1. */
static int first_mask_after(uint64_t t)
{
	const struct sim_line *l = sim_line(LINE);
	unsigned int i;

	for (i = 0; i < l->nr_history; i++)
		if (l->history[i].masked && l->history[i].at_ns >= t)
			return (int)i;
	return -1;
}

static void a_device_claiming_200000_interrupts_a_second_is_throttled_and_its_work_still_done(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_source s = storming(STORM_AT_NS, 0);
	uint64_t calls0, claimed0, raised0, delivered0, span = SIM_S;
	int i;

	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_source_attach(&s), 0);
	sim_run_for(STORM_AT_NS + 50 * SIM_MS);
	if (!storm_defence(p)) {
		/* No claimed-storm defence: every interrupt is taken, nothing is said. */
		assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 0);
		assert_false(sim_line(LINE)->masked);
		assert_true(sim_line(LINE)->delivered >= 50 * SIM_MS / STORM_PERIOD_NS - 1);
		sim_source_detach(&s);
		return;
	}
	i = first_mask_after(STORM_AT_NS);
	assert_true(i >= 0);
	/* Throttled once the storm window saw more than the bound: within a window and a bit. */
	assert_true(sim_line(LINE)->history[i].at_ns - STORM_AT_NS <= p->storm_window_ns);
	assert_true(sim_line(LINE)->history[i].delivered <= p->storm_max_claimed + 1);
	assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 1);
	assert_int_equal(irq_to_desc(LINE)->def.floods, 0);
	assert_true(irq_host_log_contains_all("irq 11", "storm of claimed interrupts"));
	assert_true(irq_host_log_contains(" claimed (bound "));
	assert_int_equal(irq_health_report(), 1);
	/* While throttled: no interrupts, the handler runs at most once per storm_poll_ns, and the work is done. */
	sim_run_for(10 * SIM_MS);
	assert_true(sim_line(LINE)->masked);
	calls0 = s.handler_calls, claimed0 = s.claimed, raised0 = s.raised, delivered0 = sim_line(LINE)->delivered;
	sim_run_for(p->spr_backoff_min_ns - 60 * SIM_MS);
	print_message("%s: throttled: %llu handler calls, %llu claimed for %llu raised, %llu interrupts in %llu ms\n",
		      p->name, (unsigned long long)(s.handler_calls - calls0), (unsigned long long)(s.claimed - claimed0),
		      (unsigned long long)(s.raised - raised0), (unsigned long long)(sim_line(LINE)->delivered - delivered0),
		      (unsigned long long)((p->spr_backoff_min_ns - 60 * SIM_MS) / SIM_MS));
	assert_int_equal(sim_line(LINE)->delivered, delivered0);
	assert_true(s.handler_calls - calls0 <= (p->spr_backoff_min_ns - 60 * SIM_MS) / p->storm_poll_ns + 1);
	assert_true(s.claimed - claimed0 >= (p->spr_backoff_min_ns - 60 * SIM_MS) / p->storm_poll_ns - 1);
	(void)span;
	sim_source_detach(&s);
}

/* The times LINE was off after @t: off durations into @off (up to @max). */
static unsigned int off_durations(uint64_t t, uint64_t *off, unsigned int max)
{
	const struct sim_line *l = sim_line(LINE);
	int start = first_mask_after(t);
	unsigned int i, n = 0;

	for (i = (unsigned int)start; start >= 0 && i + 1 < l->nr_history && n < max; i += 2) {
		assert_true(l->history[i].masked);
		assert_false(l->history[i + 1].masked);
		off[n++] = l->history[i + 1].at_ns - l->history[i].at_ns;
	}
	return n;
}

static void re_enable_tests_back_off_and_the_line_comes_back_when_the_storm_stops(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	/* 100 + 200 + 400 + 800 ms of back-off and their test windows: the storm stops in the fifth time off. */
	uint64_t stop = STORM_AT_NS + 1600 * SIM_MS, off[8], want = p->spr_backoff_min_ns, delivered;
	struct sim_source s = storming(STORM_AT_NS, stop);
	unsigned int n, k;

	if (!storm_defence(p))
		skip();  /* no such defence in this profile (the case above checks it stays so) */
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_source_attach(&s), 0);
	sim_run_for(stop + 2 * SIM_S);
	n = off_durations(STORM_AT_NS, off, 8);
	print_message("%s: %u times off:", p->name, n);
	for (k = 0; k < n; k++)
		print_message(" %llu ms", (unsigned long long)(off[k] / SIM_MS));
	print_message("\n");
	assert_true(n >= 4);
	for (k = 0; k + 1 < n; k++) {
		/* Each failed test doubles the time off (the re-enabling poll is at most one storm poll late). */
		assert_true(off[k] >= want && off[k] <= want + p->storm_poll_ns);
		want <<= p->spr_backoff_grow_shift;
	}
	assert_int_equal(irq_to_desc(LINE)->def.failed_tests, 0);
	assert_false(sim_line(LINE)->masked);
	assert_false(irq_to_desc(LINE)->def.flood_testing);
	assert_true(irq_host_log_contains("claimed storm goes on after re-enable"));
	assert_true(irq_host_log_contains_all("irq 11", "claimed storm over, line back on interrupts"));
	assert_int_equal(irq_health_report(), 0);
	/* Back on interrupts: a slower device's interrupts are delivered again. */
	s.period_ns = SLOWED_PERIOD_NS;
	s.stop_ns = 0;
	irq_port_timer_arm(&s.timer, sim_now() + SIM_US);
	delivered = sim_line(LINE)->delivered;
	sim_run_for(SIM_S);
	assert_true(sim_line(LINE)->delivered - delivered >= SIM_S / SLOWED_PERIOD_NS - 1);
	assert_false(sim_line(LINE)->masked);
	sim_source_detach(&s);
}

/* A driver that can slow its device: the storm callback lengthens the period (when @really). */
static struct sim_source *slow_src;
static bool slow_really;
static unsigned int slow_calls;

static enum irq_storm_answer slow_down(unsigned int irq, void *dev_id, unsigned int claimed, uint64_t window_ns)
{
	struct sim_source *s = dev_id;

	assert_int_equal(irq, LINE);
	assert_ptr_equal(s, slow_src);
	assert_true(claimed > irq_policy()->storm_max_claimed);
	assert_true(window_ns <= irq_policy()->storm_window_ns);
	slow_calls++;
	if (slow_really)
		s->period_ns = SLOWED_PERIOD_NS;
	return IRQ_STORM_SLOWED;
}

static void a_driver_that_slows_its_device_keeps_the_line_on_interrupts(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_source s = storming(STORM_AT_NS, 0);
	uint64_t delivered;

	slow_src = &s, slow_really = true, slow_calls = 0;
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_source_attach(&s), 0);
	assert_int_equal(irq_set_storm_handler(LINE, &s, slow_down), 0);
	assert_int_equal(irq_set_storm_handler(LINE, &slow_calls, slow_down), -IRQ_EINVAL);
	sim_run_for(STORM_AT_NS + 100 * SIM_MS);
	delivered = sim_line(LINE)->delivered;
	sim_run_for(SIM_S);
	if (!storm_defence(p)) {
		assert_int_equal(slow_calls, 0);  /* never asked: the storm runs on */
		assert_true(sim_line(LINE)->delivered - delivered >= SIM_S / STORM_PERIOD_NS - 1);
		sim_source_detach(&s);
		return;
	}
	assert_int_equal(slow_calls, 1);
	assert_true(irq_host_log_contains_all("\"storm\"", "the driver slowed its device"));
	assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 0);
	assert_false(sim_line(LINE)->masked);
	/* On interrupts at the slower rate. */
	assert_true(sim_line(LINE)->delivered - delivered >= SIM_S / SLOWED_PERIOD_NS - 1);
	assert_true(sim_line(LINE)->delivered - delivered <= SIM_S / SLOWED_PERIOD_NS + 1);
	assert_int_equal(irq_health_report(), 0);
	sim_source_detach(&s);
}

static void a_driver_that_only_says_it_slowed_its_device_is_throttled_after_the_grace(void **state)
{
	struct sim_source s = storming(STORM_AT_NS, 0);
	const struct irq_policy *p;
	int i;

	p = sim_case_start(state, NULL);
	slow_src = &s, slow_really = false, slow_calls = 0;
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_source_attach(&s), 0);
	assert_int_equal(irq_set_storm_handler(LINE, &s, slow_down), 0);
	sim_run_for(STORM_AT_NS + 100 * SIM_MS);
	assert_int_equal(slow_calls, 1);
	assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 1);
	i = first_mask_after(STORM_AT_NS);
	assert_true(i >= 0);
	/* The next storm window after the driver's answer. */
	assert_true(sim_line(LINE)->history[i].at_ns - STORM_AT_NS <= 2 * p->storm_window_ns);
	assert_true(sim_line(LINE)->masked);
	sim_source_detach(&s);
}

static void fast_healthy_devices_are_never_throttled(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	/* 100,000 claimed interrupts a second, in bursts of 50 at 2.5 us (a NIC's receive ring), on average. */
	struct sim_source fast = { .name = "fast", .irq = LINE, .mode = SIM_EDGE_STREAM,
				   .period_ns = 10 * SIM_US, .has_handler = true,
				   .claim_ppm = SIM_PPM, .claims_own = true, .seed = 9 };
	unsigned int masks;

	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_source_attach(&fast), 0);
	masks = (unsigned int)sim_line(LINE)->masks;
	sim_run_for(3 * SIM_S);
	assert_true(sim_line(LINE)->delivered >= 3 * SIM_S / fast.period_ns - 1);
	assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 0);
	assert_int_equal(sim_line(LINE)->masks, masks);
	assert_int_equal(irq_health_report(), 0);
	(void)p;
	sim_source_detach(&fast);
}

/*
 * A claimed interrupt takes a quick path that only counts, up to limits the
 * full accounting worked out from the profile (spurious.c,
 * irq_flood_quick_set). The profile may change at run time and must count
 * at once: a device storming unchecked under tejun2010 (no such defence,
 * segments of 10,000) is throttled within irqkit's storm window of the
 * switch, not when tejun2010's segment would have ended.
 */
static void a_storm_under_a_profile_without_the_defence_is_throttled_soon_after_a_switch_to_irqkit(void **state)
{
	const struct irq_policy *irqkit = irq_policy_by_name("irqkit");
	struct sim_source s = storming(STORM_AT_NS, 0);
	uint64_t switched;
	int i;

	sim_case_start(state, NULL);
	assert_int_equal(irq_param_policy("tejun2010", NULL), 0);
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_source_attach(&s), 0);
	/* 33 ms into one of tejun2010's segments (10,000 interrupts: 50 ms of this storm). */
	sim_run_for(STORM_AT_NS + 233 * SIM_MS);
	assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 0);
	assert_false(sim_line(LINE)->masked);
	switched = sim_now();
	assert_int_equal(irq_param_policy("irqkit", NULL), 0);
	assert_true(irq_policy() == irqkit);
	sim_run_for(30 * SIM_MS);
	i = first_mask_after(switched);
	assert_true(i >= 0);
	print_message("throttled %llu us after the switch\n",
		      (unsigned long long)((sim_line(LINE)->history[i].at_ns - switched) / SIM_US));
	assert_true(sim_line(LINE)->history[i].at_ns - switched <= irqkit->storm_window_ns);
	assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 1);
	sim_source_detach(&s);
}

/*
 * A storm that mixes claimed and unclaimed interrupts: 200,000 a second,
 * a third of them claimed (QEMU's periodic HPET under -icount brings a
 * claimed interrupt and unclaimed duplicates per period once the handler
 * path is quick). Too few unclaimed for a flood (95 %), too few claimed
 * for the bound if only claimed ones counted (67 of the 150 a
 * millisecond); the CPU is as lost. The storm window counts every
 * interrupt that is not part of a flood.
 */
static void a_storm_of_mixed_claimed_and_unclaimed_interrupts_is_throttled(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_source s = storming(STORM_AT_NS, 0);
	int i;

	s.claim_ppm = SIM_PPM / 3;
	s.claims_own = false;
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_source_attach(&s), 0);
	sim_run_for(STORM_AT_NS + 50 * SIM_MS);
	print_message("%s: %llu delivered, %llu claimed, storms %u, floods %u\n", p->name,
		      (unsigned long long)sim_line(LINE)->delivered, (unsigned long long)s.claimed,
		      irq_to_desc(LINE)->def.claimed_storms, irq_to_desc(LINE)->def.floods);
	if (!storm_defence(p)) {
		assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 0);
		sim_source_detach(&s);
		return;
	}
	i = first_mask_after(STORM_AT_NS);
	assert_true(i >= 0);
	assert_true(sim_line(LINE)->history[i].at_ns - STORM_AT_NS <= p->storm_window_ns);
	assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 1);
	assert_int_equal(irq_to_desc(LINE)->def.floods, 0);
	sim_source_detach(&s);
}

/*
 * Attach @s to LINE (edge) and run the simulation to 100 ms past
 * STORM_AT_NS. RETURNS the time from STORM_AT_NS to the line's first mask
 * after it, with its index in the line's history in *@idx (-1: never).
 */
static uint64_t run_until_masked(struct sim_source *s, int *idx)
{
	int i;

	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_source_attach(s), 0);
	sim_run_for(STORM_AT_NS + 100 * SIM_MS);
	i = first_mask_after(STORM_AT_NS);
	*idx = i;
	return i >= 0 ? sim_line(LINE)->history[i].at_ns - STORM_AT_NS : 0;
}

/*
 * The CPU time a storm takes, not its rate (issue 28): a device whose
 * every interrupt is claimed and whose handler takes @handler_ns, at
 * @period_ns, from STORM_AT_NS. RETURNS the time from the storm's start
 * to the first mask of the line (0: never masked within 100 ms).
 */
static uint64_t costly_storm(void **state, uint64_t period_ns, uint64_t handler_ns)
{
	struct sim_source s = storming(STORM_AT_NS, 0);
	uint64_t took;
	int i;

	sim_case_start(state, NULL);
	s.period_ns = period_ns;
	s.handler_ns = handler_ns;
	took = run_until_masked(&s, &i);
	print_message("every %llu us, %llu us each (%llu %% of a CPU): %s %llu us after its start, %u storms by CPU time\n",
		      (unsigned long long)(period_ns / SIM_US), (unsigned long long)(handler_ns / SIM_US),
		      (unsigned long long)(handler_ns * 100 / period_ns), i >= 0 ? "throttled" : "never throttled",
		      (unsigned long long)(took / SIM_US), irq_to_desc(LINE)->def.storms_by_cpu);
	sim_source_detach(&s);
	return i >= 0 ? (took ? took : 1) : 0;
}

/*
 * 10,000 claimed interrupts a second (100 a window: far under the bound of
 * 1,500), each taking 60 us of the CPU: 60 % of it. A storm by the time it
 * takes: throttled within 20 ms of its start (tejun2010 and mainline have
 * no such defence). Without the test (storm_cpu_pct 0) it runs on.
 */
static void a_slow_storm_that_takes_the_cpu_is_throttled_by_the_time_it_takes(void **state)
{
	const struct irq_policy *p = sim_case_policy(state);
	uint64_t took = costly_storm(state, 100 * SIM_US, 60 * SIM_US);

	if (!storm_defence(p)) {
		assert_int_equal(took, 0);
		return;
	}
	assert_true(took > 0 && took <= 20 * SIM_MS);
	assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 1);
	assert_int_equal(irq_to_desc(LINE)->def.storms_by_cpu, 1);
	assert_true(irq_host_log_contains_all("irq 11", "of a CPU (bound"));
}

/*
 * A stream like QEMU's HPET comparator under -icount (docs/storms.md): 100,000
 * interrupts a second, every other one an unclaimed duplicate of the claimed
 * one before it, each run @handler_ns. Under the rate bound (1,000 in a
 * 10 ms window against 1,500) and far from a flood (half unclaimed against
 * 95 %): only the CPU time it takes can make it a storm. RETURNS the time from
 * its start to the first mask of the line (0: never masked within 100 ms).
 */
static uint64_t duplicating_storm(void **state, uint64_t handler_ns)
{
	struct sim_source s = storming(STORM_AT_NS, 0);
	uint64_t took;
	int i;

	sim_case_start(state, NULL);
	s.period_ns = 10 * SIM_US;
	s.handler_ns = handler_ns;
	s.claim_ppm = SIM_PPM / 2;
	s.claims_own = false;
	took = run_until_masked(&s, &i);
	print_message("every 10 us, half unclaimed, %llu ns each (%llu %% of a CPU): %s %llu us after its start, "
		      "%u storms by CPU time, %u floods\n", (unsigned long long)handler_ns,
		      (unsigned long long)(handler_ns * 100 / (10 * SIM_US)), i >= 0 ? "throttled" : "never throttled",
		      (unsigned long long)(took / SIM_US), irq_to_desc(LINE)->def.storms_by_cpu,
		      irq_to_desc(LINE)->def.floods);
	sim_source_detach(&s);
	return i >= 0 ? (took ? took : 1) : 0;
}

/*
 * Issue 28: the stream above at 3 us a run takes 30 % of a CPU, over
 * storm_cpu_pct (25): a storm by the time it takes, throttled (as a claimed
 * storm, not a flood) within 20 ms of its start, at a rate under the bound.
 * Without the CPU-time test (storm_cpu_pct 0) it runs on. The same stream
 * at 2 us a run (20 %, the simulator's healthy fast device's share) is left
 * alone: the share decides, not the unclaimed duplicates.
 */
static void a_duplicating_stream_under_the_rate_bound_is_a_storm_by_its_cpu_share(void **state)
{
	const struct irq_policy *p = sim_case_policy(state);
	uint64_t took = duplicating_storm(state, 3 * SIM_US);

	if (!storm_defence(p)) {
		assert_int_equal(took, 0);
		return;
	}
	assert_true(took > 0 && took <= 20 * SIM_MS);
	assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 1);
	assert_int_equal(irq_to_desc(LINE)->def.storms_by_cpu, 1);
	assert_int_equal(irq_to_desc(LINE)->def.floods, 0);
	assert_true(irq_host_log_contains_all("irq 11", "of a CPU (bound"));
	sim_reset();
	assert_int_equal(duplicating_storm(state, 2 * SIM_US), 0);
	assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 0);
}

/*
 * Issue 28: a stream that nobody claims, every 300 us with each run taking
 * 195 us (65 % of a CPU; a held level line on Bochs's 8259 with a slow
 * shared handler: 33 a window), from STORM_AT_NS, of which @claimed_ppm
 * are claimed. RETURNS the time from its start to the first mask of the
 * line (0: never masked within 100 ms).
 */
static uint64_t slow_unclaimed_stream(void **state, uint32_t claimed_ppm)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_source s = storming(STORM_AT_NS, 0);
	uint64_t took;
	int i;

	s.period_ns = 300 * SIM_US;
	s.handler_ns = 195 * SIM_US;
	s.claim_ppm = claimed_ppm;
	s.claims_own = false;
	took = run_until_masked(&s, &i);
	print_message("%s: every 300 us, 195 us each (65 %% of a CPU), %u ppm claimed: %s %llu us after its start, "
		      "%llu claimed, %u floods, %u claimed storms (%u by CPU time)\n", p->name, (unsigned int)claimed_ppm,
		      i >= 0 ? "masked" : "never masked", (unsigned long long)(took / SIM_US), (unsigned long long)s.claimed,
		      irq_to_desc(LINE)->def.floods, irq_to_desc(LINE)->def.claimed_storms, irq_to_desc(LINE)->def.storms_by_cpu);
	sim_source_detach(&s);
	return i >= 0 ? (took ? took : 1) : 0;
}

/*
 * Issue 28: the CPU-time test calls a window whose interrupts are
 * unclaimed in a flood's share a flood, not a claimed storm (storm.c,
 * irq_storm_window_floods; flood.c, irq_flood_trip_by_cpu). The stream
 * above, none claimed, at 65 % of a CPU: a flood by its CPU time at the
 * 13th interrupt of the window after the timed one (before its first
 * segment of 100 is complete, 30 ms), never "a storm of claimed
 * interrupts". With a third claimed it is no flood (95 % is), and the
 * CPU-time test throttles it as a claimed storm.
 */
static void an_unclaimed_storm_that_takes_the_cpu_is_a_flood_not_a_claimed_storm(void **state)
{
	const struct irq_policy *p = sim_case_policy(state);
	uint64_t took = slow_unclaimed_stream(state, 0);

	assert_true(took > 0 && took <= 2 * p->storm_window_ns + SIM_MS);
	assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 0);
	assert_int_equal(irq_to_desc(LINE)->def.storms_by_cpu, 0);
	assert_int_equal(irq_to_desc(LINE)->def.floods, 1);
	assert_true(irq_host_log_contains_all("irq 11", "interrupts unclaimed in") && irq_host_log_contains_all("unclaimed in", "of a CPU (bound"));
	assert_false(irq_host_log_contains_all("irq 11", "claimed (bound"));
	sim_reset();
	took = slow_unclaimed_stream(state, SIM_PPM / 3);
	assert_true(took > 0 && took <= 2 * p->storm_window_ns + SIM_MS);
	assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 1);
	assert_int_equal(irq_to_desc(LINE)->def.storms_by_cpu, 1);
	assert_int_equal(irq_to_desc(LINE)->def.floods, 0);
}

/*
 * Issue 28: a bursty stream nobody claims, 40 interrupts 240 us apart (a
 * burst of 9.6 ms, one storm window) every 26 ms, each run 200 us: 83 %
 * of a CPU in its windows and 31 % over time, for ever. Its bursts pass
 * storm_cpu_after_irqs (32), so the CPU-time test times them, but it is
 * under a flood's segment (at most 81 interrupts in 50 ms, a segment needs
 * 100): without the flood's verdict by CPU time (storm.c,
 * irq_storm_cpu_look; flood.c, irq_flood_trip_by_cpu) neither defence
 * judges it (main called it a claimed storm). Now a flood within its
 * first burst (the 32nd interrupt starts the timing, 4 runs are timed, the
 * 37th passes the limit of 13), and its re-enable tests fail on the bursts that follow.
 */
#define BURSTS 12
static void a_bursty_unclaimed_stream_under_the_flood_segment_is_a_flood_by_its_cpu_time(void **state)
{
	const struct irq_policy *p = sim_case_start(state, NULL);
	struct sim_source b[BURSTS];
	uint64_t took = 0, burst_ns = 40 * 240 * SIM_US, every_ns = 26 * SIM_MS;
	int i, k;

	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	for (k = 0; k < BURSTS; k++) {
		b[k] = storming(STORM_AT_NS + (uint64_t)k * every_ns, STORM_AT_NS + (uint64_t)k * every_ns + burst_ns - SIM_US);
		b[k].period_ns = 240 * SIM_US;
		b[k].has_handler = k == 0;  /* one handler on the line: every interrupt runs it once */
		b[k].handler_ns = 200 * SIM_US;
		b[k].claim_ppm = 0;
		b[k].claims_own = false;
		assert_int_equal(sim_source_attach(&b[k]), 0);
	}
	sim_run_for(STORM_AT_NS + BURSTS * every_ns);
	i = first_mask_after(STORM_AT_NS);
	if (i >= 0)
		took = sim_line(LINE)->history[i].at_ns - STORM_AT_NS;
	print_message("%s: 40 every 26 ms, 200 us each (83 %% of a CPU in its windows, 31 %% over %u ms), none claimed: "
		      "%s %llu us after its start, %llu handler calls, %u floods, %u failed re-enable tests, %u claimed storms\n",
		      p->name, (unsigned int)(BURSTS * every_ns / SIM_MS), i >= 0 ? "masked" : "never masked",
		      (unsigned long long)(took / SIM_US), (unsigned long long)b[0].handler_calls, irq_to_desc(LINE)->def.floods,
		      (unsigned int)irq_to_desc(LINE)->def.failed_tests_total, irq_to_desc(LINE)->def.claimed_storms);
	assert_true(i >= 0 && took <= burst_ns + SIM_MS);
	assert_int_equal(irq_to_desc(LINE)->def.floods, 1);
	assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 0);
	assert_true(irq_to_desc(LINE)->def.failed_tests_total >= 1);
	assert_true(irq_host_log_contains_all("irq 11", "of 37 interrupts unclaimed in") && irq_host_log_contains_all("of 37 interrupts", "of a CPU (bound"));
	for (k = 0; k < BURSTS; k++)
		sim_source_detach(&b[k]);
}
#undef BURSTS

/*
 * A fast healthy device whose handler has real work, 100,000 interrupts a
 * second at 2 us each (20 % of a CPU, under storm_cpu_pct), and a disk
 * whose driver expects every interrupt and whose handler does its
 * transfers, 60 us each back to back (its commands pace it: no storm):
 * neither is ever throttled.
 */
static void busy_healthy_devices_are_not_storms_by_the_time_they_take(void **state)
{
	struct sim_dev disk = { .name = "disk", .irq = LINE, .latency_ns = 10 * SIM_US, .handler_ns = 60 * SIM_US,
				.use_expect = true, .start_in_handler = true, .seed = 5 };
	unsigned int masks;

	assert_int_equal(costly_storm(state, 10 * SIM_US, 2 * SIM_US), 0);
	sim_reset();
	sim_case_start(state, NULL);
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(sim_dev_attach(&disk), 0);
	masks = (unsigned int)sim_line(LINE)->masks;
	sim_dev_start(&disk, 0);
	sim_run_for(SIM_S);
	print_message("disk: %llu completions in 1 s, %llu by polling\n", (unsigned long long)disk.completions,
		      (unsigned long long)disk.by_poll);
	assert_true(disk.completions > 10000);
	assert_int_equal(sim_line(LINE)->masks, masks);
	assert_int_equal(irq_to_desc(LINE)->def.claimed_storms, 0);
	sim_dev_detach(&disk);
}

/*
 * Issue 28: the accounting's quick path (spurious.c, irq_flood_account)
 * counts claimed and, when the full path would only count them, unclaimed
 * interrupts without judging; its result must be the full path's,
 * interrupt for interrupt. One stream of mixed claimed and unclaimed
 * interrupts, run twice from a fresh core: once as it comes, once with the
 * quick path refused before every interrupt (its generation made stale, so
 * each interrupt takes the full path, the reference). After every
 * interrupt the two runs must agree on the segment (its count, unclaimed
 * count and start), the storm window (start, counts), the CPU-time test's
 * state and every verdict: floods, claimed storms, the line off, its
 * re-enable tests, its mask. The stream has a duplicating phase (half
 * unclaimed, neither flood nor storm), a flood, sparse interrupts across
 * window and segment ends (and mainline's 100 ms gap), a storm by its CPU
 * time, a fast storm and a nearly flooding mix.
 */
#define ACCT_STEPS 11000

struct acct_snap {
	uint64_t now, delivered, seg_start_ns, last_unhandled_ns, win_start_ns;
	uint32_t samples, unhandled, win_irqs, win_claimed;
	uint32_t floods, claimed_storms, storms_by_cpu, failed_tests, cpu_state, cpu_limit;
	bool off, testing, masked;
};

static struct acct_snap acct_quick[ACCT_STEPS], acct_full[ACCT_STEPS];
static bool acct_claim;  /* what the handler answers for the interrupt (or poll) now due */
static uint64_t acct_handler_ns;  /* and how long it takes */

static irqreturn_t acct_handler(unsigned int irq, void *dev_id)
{
	(void)irq;
	(void)dev_id;
	irq_host_spend_ns(acct_handler_ns);
	return acct_claim ? IRQ_HANDLED : IRQ_NONE;
}

/* Step @i's gap before the next edge and whether its interrupt is claimed, by phase. */
static uint64_t acct_step(unsigned int i, uint64_t *rng, bool *claim)
{
	uint64_t lo, span;
	uint32_t claim_ppm;

	if (i < 4000)
		lo = 5 * SIM_US, span = 20 * SIM_US, claim_ppm = SIM_PPM / 2;     /* duplicating, ~70,000/s */
	else if (i < 4600)
		lo = 5 * SIM_US, span = 20 * SIM_US, claim_ppm = SIM_PPM / 50;    /* a flood */
	else if (i < 4900 && i % 100 == 99)
		lo = 120 * SIM_MS, span = SIM_MS, claim_ppm = 0;                  /* past mainline's gap rule (100 ms) */
	else if (i < 4900)
		lo = 200 * SIM_US, span = 12 * SIM_MS, claim_ppm = SIM_PPM * 3 / 10; /* sparse: windows and segments end by time */
	else if (i < 5600)
		lo = 35 * SIM_US, span = 15 * SIM_US, claim_ppm = SIM_PPM / 2;    /* costly: a storm by its CPU time */
	else if (i < 8000)
		lo = 4 * SIM_US, span = 3 * SIM_US, claim_ppm = SIM_PPM / 2;      /* a fast storm, ~180,000/s */
	else
		lo = 5 * SIM_US, span = 35 * SIM_US, claim_ppm = SIM_PPM / 10;    /* 90 % unclaimed: no flood */
	/* 30 us runs: their CPU-time limit (84 a window) comes before the segment's end (100). */
	acct_handler_ns = i >= 4900 && i < 5600 ? 30 * SIM_US : SIM_US;
	*claim = sim_chance(rng, claim_ppm);
	return lo + sim_random(rng) % span;
}

/* Run the stream from a fresh core (@full: the quick path refused before each interrupt) into @snap. */
static void acct_run(void **state, const struct sim_options *opt, bool full, struct acct_snap *snap)
{
	struct irq_desc *desc;
	uint64_t rng = 28;
	unsigned int i;
	int dev;

	sim_reset();
	sim_case_start(state, opt);
	assert_int_equal(sim_line_setup(LINE, SIM_EDGE), 0);
	assert_int_equal(request_irq(LINE, acct_handler, IRQF_SHARED, "acct", &dev), 0);
	desc = irq_to_desc(LINE);
	sim_run_for(SIM_MS);
	for (i = 0; i < ACCT_STEPS; i++) {
		struct irq_defence_line *def = &desc->def;
		uint64_t gap = acct_step(i, &rng, &acct_claim);

		if (full)
			def->seg.quick_gen = __atomic_load_n(&__irq_switches.gen, __ATOMIC_RELAXED) + 1;
		sim_line_edge(LINE);
		sim_run_for(gap);
		snap[i] = (struct acct_snap){
			.now = sim_now(), .delivered = sim_line(LINE)->delivered,
			.seg_start_ns = def->seg.start_ns, .last_unhandled_ns = def->seg.last_unhandled_ns,
			.win_start_ns = def->storm_win_start_ns, .samples = def->seg.samples,
			.unhandled = def->seg.unhandled, .win_irqs = def->storm_win_irqs,
			.win_claimed = def->storm_win_claimed, .floods = def->floods,
			.claimed_storms = def->claimed_storms, .storms_by_cpu = def->storms_by_cpu,
			.failed_tests = def->failed_tests_total, .cpu_state = def->storm_cpu_state,
			.cpu_limit = def->storm_cpu_limit, .off = def->flood_off, .testing = def->flood_testing,
			.masked = sim_line(LINE)->masked,
		};
	}
	free_irq(LINE, &dev);
}

/* Whether two snapshots agree (field by field: no padding compared); the storm window only if @window. */
static bool acct_same(const struct acct_snap *a, const struct acct_snap *b, bool window)
{
	return a->now == b->now && a->delivered == b->delivered && a->seg_start_ns == b->seg_start_ns &&
	       a->last_unhandled_ns == b->last_unhandled_ns && a->samples == b->samples &&
	       a->unhandled == b->unhandled && a->floods == b->floods && a->claimed_storms == b->claimed_storms &&
	       a->storms_by_cpu == b->storms_by_cpu && a->failed_tests == b->failed_tests &&
	       a->cpu_state == b->cpu_state && a->cpu_limit == b->cpu_limit && a->off == b->off &&
	       a->testing == b->testing && a->masked == b->masked &&
	       (!window || (a->win_start_ns == b->win_start_ns && a->win_irqs == b->win_irqs &&
			    a->win_claimed == b->win_claimed));
}

/* The first step at which the two runs differ (ACCT_STEPS: none), said field by field. */
static unsigned int acct_first_difference(void)
{
	/*
	 * Without the storm defence the full path restarts the window at
	 * every interrupt it accounts, the quick path keeps counting it
	 * (spurious.c: a profile switched to finds it counted); no verdict
	 * reads it there, so it is compared only with the defence.
	 */
	bool window = storm_defence(irq_policy());
	unsigned int i;

	for (i = 0; i < ACCT_STEPS; i++) {
		const struct acct_snap *q = &acct_quick[i], *f = &acct_full[i];

		if (acct_same(q, f, window))
			continue;
		print_message("step %u differs (quick / full): now %llu/%llu delivered %llu/%llu samples %u/%u "
			      "unhandled %u/%u seg start %llu/%llu window %llu/%llu irqs %u/%u claimed %u/%u "
			      "floods %u/%u storms %u/%u by cpu %u/%u cpu state %u/%u limit %u/%u off %d/%d masked %d/%d\n",
			      i, (unsigned long long)q->now, (unsigned long long)f->now,
			      (unsigned long long)q->delivered, (unsigned long long)f->delivered, q->samples, f->samples,
			      q->unhandled, f->unhandled, (unsigned long long)q->seg_start_ns,
			      (unsigned long long)f->seg_start_ns, (unsigned long long)q->win_start_ns,
			      (unsigned long long)f->win_start_ns, q->win_irqs, f->win_irqs, q->win_claimed, f->win_claimed,
			      q->floods, f->floods, q->claimed_storms, f->claimed_storms, q->storms_by_cpu, f->storms_by_cpu,
			      q->cpu_state, f->cpu_state, q->cpu_limit, f->cpu_limit, q->off, f->off, q->masked, f->masked);
		return i;
	}
	return ACCT_STEPS;
}

static void acct_compare(void **state, const struct sim_options *opt, bool unclaimed_quick)
{
	const struct irq_policy *p = sim_case_policy(state);
	uint64_t quick_unclaimed;

	acct_run(state, opt, false, acct_quick);
	quick_unclaimed = irq_to_desc(LINE)->def.quick_unclaimed_counts;
	acct_run(state, opt, true, acct_full);
	print_message("%s%s: %llu delivered, %u floods, %u claimed storms (%u by CPU time), %u failed tests; "
		      "%llu unclaimed interrupts counted by the quick path (full run: %llu)\n", p->name,
		      opt && opt->irqfixup ? "+irqfixup" : "", (unsigned long long)acct_quick[ACCT_STEPS - 1].delivered,
		      acct_quick[ACCT_STEPS - 1].floods, acct_quick[ACCT_STEPS - 1].claimed_storms,
		      acct_quick[ACCT_STEPS - 1].storms_by_cpu, acct_quick[ACCT_STEPS - 1].failed_tests,
		      (unsigned long long)quick_unclaimed, (unsigned long long)irq_to_desc(LINE)->def.quick_unclaimed_counts);
	assert_int_equal(acct_first_difference(), ACCT_STEPS);
	assert_int_equal(irq_to_desc(LINE)->def.quick_unclaimed_counts, 0);  /* the reference really took the full path */
	if (unclaimed_quick)
		assert_true(quick_unclaimed >= acct_quick[ACCT_STEPS - 1].delivered / 3);  /* ... the run beside it the quick one */
	else
		assert_int_equal(quick_unclaimed, 0);
	if (storm_defence(p)) {
		/* The verdicts the stream is made to bring: the comparison covered them. */
		assert_true(acct_quick[ACCT_STEPS - 1].floods >= 1);
		assert_true(acct_quick[ACCT_STEPS - 1].claimed_storms >= 1);
		assert_true(acct_quick[ACCT_STEPS - 1].storms_by_cpu >= 1);
	}
}

static void the_quick_accounting_decides_as_the_full_path_interrupt_for_interrupt(void **state)
{
	/* Mainline's gap rule (an unclaimed interrupt may restart the count) keeps unclaimed ones on the full path. */
	acct_compare(state, NULL, sim_case_policy(state)->spr_unhandled_gap_ns == 0);
}

static void with_irqfixup_unclaimed_interrupts_keep_the_full_path_and_decide_the_same(void **state)
{
	const struct sim_options opt = { .irqfixup = true };

	acct_compare(state, &opt, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		SIM_CASES_PER_PROFILE(a_device_claiming_200000_interrupts_a_second_is_throttled_and_its_work_still_done),
		SIM_CASE(re_enable_tests_back_off_and_the_line_comes_back_when_the_storm_stops),
		SIM_CASES_PER_PROFILE(a_driver_that_slows_its_device_keeps_the_line_on_interrupts),
		SIM_CASE(a_driver_that_only_says_it_slowed_its_device_is_throttled_after_the_grace),
		SIM_CASES_PER_PROFILE(fast_healthy_devices_are_never_throttled),
		SIM_CASES_PER_PROFILE(a_storm_of_mixed_claimed_and_unclaimed_interrupts_is_throttled),
		SIM_CASE(a_storm_under_a_profile_without_the_defence_is_throttled_soon_after_a_switch_to_irqkit),
		SIM_CASES_PER_PROFILE(a_slow_storm_that_takes_the_cpu_is_throttled_by_the_time_it_takes),
		SIM_CASES_PER_PROFILE(a_duplicating_stream_under_the_rate_bound_is_a_storm_by_its_cpu_share),
		SIM_CASE(an_unclaimed_storm_that_takes_the_cpu_is_a_flood_not_a_claimed_storm),
		SIM_CASE(a_bursty_unclaimed_stream_under_the_flood_segment_is_a_flood_by_its_cpu_time),
		SIM_CASE(busy_healthy_devices_are_not_storms_by_the_time_they_take),
		SIM_CASES_PER_PROFILE(the_quick_accounting_decides_as_the_full_path_interrupt_for_interrupt),
		SIM_CASE(with_irqfixup_unclaimed_interrupts_keep_the_full_path_and_decide_the_same),
	};

	sim_filter_from_env();
	return cmocka_run_group_tests_name("irq_storm", tests, NULL, NULL);
}
