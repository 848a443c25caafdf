/*
 * defences_bench.c - figures of kernel/irq's three defences, per profile
 * side by side (tests/bench/defences.mk runs it; docs/defences.md records
 * the results). Everything runs in the virtual-time simulator
 * (tests/unit/sim/), so the simulated figures are exact and repeatable.
 *
 *   defences_bench table          the policy table, one column per profile
 *   defences_bench sim            simulated figures:
 *       completions/s of a disk-like device (300 us +-150 us per command,
 *       back to back, driver using expect_irq/unexpect_irq) at 0, 50 and
 *       100 % interrupt loss, as a ratio to 0 %;
 *       interrupts taken before a flood is contained: a level line stuck
 *       asserted with nobody claiming it, and the same line shared with a
 *       working device (one completion per millisecond);
 *       time until the line is back on interrupts after a 10 s flood stops;
 *       poll timer events per 1,000 completions of the healthy disk (the
 *       cost of the verified token's safety poll: the timer following the
 *       token's expects by itself)
 *   defences_bench verified PROFILE N
 *       N expect_irq+unexpect_irq pairs on a verified token; the loop is
 *       bench_expect_measure(), the only function callgrind collects
 *       (--toggle-collect); prints the port locks taken and the timers
 *       armed (the poll timer or any other) per pair ("locks_per_pair L
 *       arms_per_pair A").
 *   defences_bench delivery PROFILE LOSS
 *       the disk at LOSS % loss, jitter-free, for callgrind's cost per poll
 *       timer event (irq_poll_timer_expired) or per interrupt
 *       (generic_handle_irq); prints the counts to divide by.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

#define DISK_LINE 5
#define FLOOD_LINE 11
/* The disk: latency and its jitter. */
#define DISK_LATENCY_NS (300 * SIM_US)
#define DISK_JITTER_NS (150 * SIM_US)
/* Warm-up before measuring, and the measured window (virtual time). */
#define WARMUP_NS (30 * SIM_S)
#define WINDOW_NS (10 * SIM_S)
/* The flood of the re-enable figure. */
#define FLOOD_AT_NS SIM_S
#define FLOOD_FOR_NS (10 * SIM_S)
/* Longest wait for a re-enable before calling it "never". */
#define REENABLE_LIMIT_NS (2 * SIM_HOUR)

#ifdef __clang__
#define MEASURED __attribute__((noinline))
#else
#define MEASURED __attribute__((noinline, noclone))
#endif

/* The line's interrupts, summed over the CPUs (irq_get_line_stats). */
static uint64_t line_delivered(const struct irq_desc *desc)
{
	struct irq_line_stats st;

	irq_get_line_stats(desc->irq_data.irq, &st);
	return st.delivered;
}

static void start(const char *profile)
{
	struct sim_options o = { .policy = profile };

	sim_reset();
	if (sim_start(&o)) {
		fprintf(stderr, "defences_bench: cannot start profile %s\n", profile);
		exit(2);
	}
}

static struct sim_dev disk(uint32_t loss_ppm)
{
	return (struct sim_dev){ .name = "disk", .irq = DISK_LINE, .latency_ns = DISK_LATENCY_NS,
				 .jitter_ns = DISK_JITTER_NS, .loss_ppm = loss_ppm, .timeout_ns = 5 * SIM_S,
				 .use_expect = true, .seed = 42 };
}

/* Poll timer events (polls and expiries that only moved the timer) per 1,000 completions in the last disk_rate() window. */
static double timer_events_per_1000;

/* Completions per second of the disk at @loss_ppm, after the warm-up. */
static double disk_rate(const char *profile, uint32_t loss_ppm)
{
	struct sim_dev d = disk(loss_ppm);
	const struct irq_desc *desc = irq_to_desc(DISK_LINE);
	uint64_t c0, ev0;

	start(profile);
	sim_line_setup(DISK_LINE, SIM_EDGE);
	sim_dev_attach(&d);
	sim_dev_start(&d, 0);
	sim_run_for(WARMUP_NS);
	c0 = d.completions;
	ev0 = desc->def.polls + desc->def.poll_skips;
	sim_run_for(WINDOW_NS);
	timer_events_per_1000 = d.completions == c0 ? 0 :
		1000.0 * (double)(desc->def.polls + desc->def.poll_skips - ev0) / (double)(d.completions - c0);
	if (d.double_completions)
		fprintf(stderr, "defences_bench: %s: a completion reported twice\n", profile);
	sim_dev_detach(&d);
	return (double)(d.completions - c0) * (double)SIM_S / (double)WINDOW_NS;
}

/*
 * Interrupts delivered from the flood's start until the line was masked
 * (0 when it never was within a second of flood). @shared: a working
 * device on the line claims one interrupt per millisecond.
 */
static uint64_t irqs_to_contain(const char *profile, bool shared)
{
	struct sim_dev nic = { .name = "nic", .irq = FLOOD_LINE, .level = true, .source = 0,
			       .latency_ns = 100 * SIM_US, .think_ns = 900 * SIM_US, .timeout_ns = 2 * SIM_S,
			       .seed = 3 };
	struct sim_source rogue = { .name = "rogue", .irq = FLOOD_LINE, .source = 1, .mode = SIM_STUCK_LEVEL,
				    .start_ns = FLOOD_AT_NS };
	const struct sim_line *l;
	uint64_t at_flood, contained = 0;
	unsigned int i;

	start(profile);
	sim_line_setup(FLOOD_LINE, SIM_FASTEOI);
	sim_dev_attach(&nic);
	sim_source_attach(&rogue);
	if (shared)
		sim_dev_start(&nic, 0);
	sim_run_for(FLOOD_AT_NS);
	at_flood = sim_line(FLOOD_LINE)->delivered;
	sim_run_for(SIM_S);
	l = sim_line(FLOOD_LINE);
	for (i = 0; i < l->nr_history && !contained; i++)
		if (l->history[i].masked && l->history[i].at_ns >= FLOOD_AT_NS)
			contained = l->history[i].delivered - at_flood;
	sim_source_detach(&rogue);
	sim_dev_detach(&nic);
	return contained;
}

/* Time from the end of a FLOOD_FOR_NS flood until the line is unmasked for good (UINT64_MAX: never). */
static uint64_t time_to_reenable(const char *profile)
{
	struct sim_dev nic = { .name = "nic", .irq = FLOOD_LINE, .level = true, .source = 0,
			       .latency_ns = 100 * SIM_US, .think_ns = 900 * SIM_US, .timeout_ns = 2 * SIM_S,
			       .seed = 3 };
	struct sim_source rogue = { .name = "rogue", .irq = FLOOD_LINE, .source = 1, .mode = SIM_STUCK_LEVEL,
				    .start_ns = FLOOD_AT_NS, .stop_ns = FLOOD_AT_NS + FLOOD_FOR_NS };
	uint64_t stop = FLOOD_AT_NS + FLOOD_FOR_NS, step = 10 * SIM_MS, back;

	start(profile);
	sim_line_setup(FLOOD_LINE, SIM_FASTEOI);
	sim_dev_attach(&nic);
	sim_source_attach(&rogue);
	sim_run_for(stop);
	while (sim_line(FLOOD_LINE)->masked && sim_now() < stop + REENABLE_LIMIT_NS)
		sim_run_for(step);
	back = sim_line(FLOOD_LINE)->masked ? UINT64_MAX : sim_line(FLOOD_LINE)->last_unmask_ns - stop;
	sim_source_detach(&rogue);
	sim_dev_detach(&nic);
	return back;
}

static void print_sim(void)
{
	static const uint32_t losses[] = { 0, SIM_PPM / 2, SIM_PPM };
	unsigned int i, l;

	printf("  %-44s", "");
	for (i = 0; i < IRQ_POLICY_COUNT; i++)
		printf(" %18s", irq_policies[i].name);
	printf("\n");
	for (l = 0; l < 3; l++) {
		printf("  disk completions/s at %3u %% interrupt loss  ", losses[l] / (SIM_PPM / 100));
		for (i = 0; i < IRQ_POLICY_COUNT; i++) {
			double base = disk_rate(irq_policies[i].name, 0), r = disk_rate(irq_policies[i].name, losses[l]);

			printf(" %9.0f (%5.2f) ", r, base > 0 ? r / base : 0.0);
		}
		printf("\n");
	}
	printf("  poll timer events per 1000 completions, 0 %%");
	for (i = 0; i < IRQ_POLICY_COUNT; i++) {
		disk_rate(irq_policies[i].name, 0);
		printf(" %18.1f", timer_events_per_1000);
	}
	printf("\n");
	for (l = 0; l < 2; l++) {
		printf("  interrupts until a flood is contained%-7s", l ? ", shared" : "");
		for (i = 0; i < IRQ_POLICY_COUNT; i++) {
			uint64_t n = irqs_to_contain(irq_policies[i].name, l != 0);

			if (n)
				printf(" %18llu", (unsigned long long)n);
			else
				printf(" %18s", "never");
		}
		printf("\n");
	}
	printf("  back on interrupts after a 10 s flood ends  ");
	for (i = 0; i < IRQ_POLICY_COUNT; i++) {
		uint64_t t = time_to_reenable(irq_policies[i].name);

		if (t == UINT64_MAX)
			printf(" %18s", "never");
		else
			printf(" %16.2f s", (double)t / (double)SIM_S);
	}
	printf("\n");
}

static void print_table(void)
{
	size_t r;
	unsigned int i;

	printf("  %-26s", "tunable");
	for (i = 0; i < IRQ_POLICY_COUNT; i++)
		printf(" %20s", irq_policies[i].name);
	printf("\n");
	for (r = 0; r < irq_policy_rows_count; r++) {
		printf("  %-26s", irq_policy_rows[r].field);
		for (i = 0; i < IRQ_POLICY_COUNT; i++) {
			uint64_t v;

			memcpy(&v, (const char *)&irq_policies[i] + irq_policy_rows[r].offset, sizeof(v));
			if (v == IRQ_POLICY_FOREVER)
				printf(" %20s", "forever");
			else
				printf(" %20llu", (unsigned long long)v);
		}
		printf("  %s\n", irq_policy_rows[r].what);
	}
}

MEASURED void bench_expect_measure(struct irq_expect *exp, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++) {
		expect_irq(exp);
		unexpect_irq(exp, false);
	}
}

static int run_verified(const char *profile, unsigned long n)
{
	struct sim_dev d = disk(0);
	uint64_t locks, arms;

	start(profile);
	d.jitter_ns = 0;
	sim_line_setup(DISK_LINE, SIM_EDGE);
	sim_dev_attach(&d);
	sim_dev_start(&d, 0);
	sim_run_for(SIM_S);  /* verified by now (all profiles' goals are below 3,000 commands) */
	sim_dev_stop(&d);
	sim_run_for(SIM_MS);
	if (irq_policy()->expect_on && !(d.exp->state & IRQ_EXP_VERIFIED)) {
		fprintf(stderr, "defences_bench: %s: the token is not verified\n", profile);
		return 1;
	}
	/* Until the safety poll's delay is at its floor (these pairs take no time; see test_irq_expect.c). */
	for (unsigned int i = 0; i < 64; i++) {
		expect_irq(d.exp);
		unexpect_irq(d.exp, false);
	}
	locks = irq_host_lock_count();
	arms = irq_host_timer_arm_count();
	bench_expect_measure(d.exp, n);
	printf("locks_per_pair %.3f arms_per_pair %.3f\n", (double)(irq_host_lock_count() - locks) / (double)n,
	       (double)(irq_host_timer_arm_count() - arms) / (double)n);
	sim_dev_detach(&d);
	return 0;
}

/*
 * The disk at @loss_pct % interrupt loss for 2 s of virtual time after a
 * warm-up: prints the timer polls, interrupts and completions of the
 * measured part, for callgrind's --toggle-collect=irq_poll_timer_expired
 * (instructions per poll timer event, the device's handler included) or
 * --toggle-collect=generic_handle_irq (per interrupt). Jitter-free, so the
 * run repeats exactly.
 */
static int run_delivery(const char *profile, unsigned int loss_pct)
{
	struct sim_dev d = disk(loss_pct * 10000u);
	const struct irq_desc *desc = irq_to_desc(DISK_LINE);
	uint64_t c0, p0, i0;

	start(profile);
	d.jitter_ns = 0;
	sim_line_setup(DISK_LINE, SIM_EDGE);
	sim_dev_attach(&d);
	sim_dev_start(&d, 0);
	sim_run_for(SIM_S);
	c0 = d.completions;
	p0 = desc->def.polls + desc->def.poll_skips;
	i0 = line_delivered(desc);
	sim_run_for(2 * SIM_S);
	printf("completions %llu timer_events %llu interrupts %llu\n", (unsigned long long)(d.completions - c0),
	       (unsigned long long)(desc->def.polls + desc->def.poll_skips - p0),
	       (unsigned long long)(line_delivered(desc) - i0));
	sim_dev_detach(&d);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "delivery") && irq_policy_by_name(argv[2]))
		return run_delivery(argv[2], (unsigned int)strtoul(argv[3], NULL, 10) % 101u);
	if (argc == 2 && !strcmp(argv[1], "table")) {
		print_table();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "sim")) {
		print_sim();
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "verified") && irq_policy_by_name(argv[2]))
		return run_verified(argv[2], strtoul(argv[3], NULL, 10));
	fprintf(stderr, "usage: defences_bench table | sim | verified irqkit|tejun2010|mainline N | delivery PROFILE LOSS%%\n");
	return 2;
}
