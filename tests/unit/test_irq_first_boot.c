/*
 * test_irq_first_boot.c - a port's first boot, in the order of the checklist
 * of docs/porting.md ("First boot"): irq_core_init(), the chip of each line,
 * irq_defences_start(), then drivers (request_irq, init_irq_expect,
 * watch_irq). Issue 21's xv6 port left the defences step out: its drivers
 * got no token, an INFO line said so, and a disk whose interrupt was lost
 * hung for ever. These cases pin down that leaving the step out is loud (a
 * warning that names irq_defences_start()) and what it costs, beside the
 * same boot with the step in.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>

#include <irq/policy.h>
#include "test_irq_fake_chip.h"

#define LINE 14
/* How long the lost completion is left waiting: far beyond every first poll (10 ms at most). */
#define LOST_WAIT_NS 1000000000ull
/* The quickest a started core finds it: the irqkit profile's latest first poll, plus slack. */
#define FOUND_WITHIN_NS 20000000ull

/* A disk-like device: the handler claims only a completion the device really has (poll-safe). */
struct disk {
	bool ready;
	unsigned int completions;
	struct irq_expect *token;
};

static irqreturn_t disk_handler(unsigned int irq, void *dev_id)
{
	struct disk *d = dev_id;

	(void)irq;
	if (!d->ready)
		return IRQ_NONE;
	d->ready = false;
	d->completions++;
	unexpect_irq(d->token, false);
	return IRQ_HANDLED;
}

/* The checklist's order up to the drivers; @start_defences false leaves step 3 out. */
static void boot(struct disk *d, bool start_defences)
{
	/* 1. irq_core_init() ran in fake_irq_setup(); 2. the controller attaches the line. */
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	/* 3. the defences, once the clock and timers run. */
	if (start_defences)
		irq_defences_start();
	/* 4. the driver. */
	assert_int_equal(request_irq(LINE, disk_handler, 0, "disk", d), 0);
	d->token = init_irq_expect(LINE, d);
}

/* A command whose completion interrupt is lost: the device is done, the line never raised. */
static void lose_one_completion(struct disk *d, uint64_t wait_ns)
{
	expect_irq(d->token);
	d->ready = true;
	irq_host_advance_ns(wait_ns);
}

static void expecting_without_started_defences_warns_and_names_the_fix(void **state)
{
	struct disk d = { 0 };

	(void)state;
	boot(&d, false);
	assert_null(d.token);
	assert_true(irq_host_log_count_level(IRQ_LOG_WARN) >= 1);
	assert_true(irq_host_log_contains_all("init_irq_expect", "defences were never started"));
	assert_true(irq_host_log_contains("call irq_defences_start()"));
	/* What the warning is about: the lost completion is never found. */
	lose_one_completion(&d, LOST_WAIT_NS);
	assert_int_equal(d.completions, 0);
	free_irq(LINE, &d);
}

static void watching_without_started_defences_warns_too(void **state)
{
	struct disk d = { 0 };

	(void)state;
	boot(&d, false);
	irq_host_log_clear();
	watch_irq(LINE, &d);
	assert_true(irq_host_log_contains_all("watch_irq", "defences were never started"));
	assert_true(irq_host_log_count_level(IRQ_LOG_WARN) >= 1);
	free_irq(LINE, &d);
}

static void the_same_boot_with_the_defences_started_finds_the_lost_completion_silently(void **state)
{
	struct disk d = { 0 };

	(void)state;
	boot(&d, true);
	assert_non_null(d.token);
	assert_false(irq_host_log_contains("never started"));
	assert_int_equal(irq_host_log_count_level(IRQ_LOG_WARN), 0);
	lose_one_completion(&d, FOUND_WITHIN_NS);
	assert_int_equal(d.completions, 1);
	free_irq(LINE, &d);
}

static void noirqdebug_is_a_choice_not_a_missing_step(void **state)
{
	struct disk d = { 0 };

	(void)state;
	assert_int_equal(irq_param_noirqdebug(NULL, NULL), 0);
	boot(&d, true);
	assert_null(d.token);
	assert_false(irq_host_log_contains("never started"));
	assert_true(irq_host_log_contains_all("init_irq_expect", "noirqdebug"));
	free_irq(LINE, &d);
	/* The switch outlives irq_core_init(): put it back for the next case. */
	__atomic_store_n(&__irq_switches.noirqdebug, false, __ATOMIC_RELEASE);
}

#define CASE(fn) cmocka_unit_test_setup_teardown(fn, fake_irq_setup, fake_irq_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASE(expecting_without_started_defences_warns_and_names_the_fix),
		CASE(watching_without_started_defences_warns_too),
		CASE(the_same_boot_with_the_defences_started_finds_the_lost_completion_silently),
		CASE(noirqdebug_is_a_choice_not_a_missing_step),
	};

	fake_irq_filter_from_env();
	return cmocka_run_group_tests_name("irq_first_boot", tests, NULL, NULL);
}
