/*
 * test_irq_stat_fold.c - kernel/irq's per-CPU counters as a 32-bit CPU
 * keeps them (core.h, irq_stat_inc): built with IRQ_STAT_TEST_NARROW,
 * which gives the slots 32-bit words on this 64-bit host, so the fold into
 * the 64-bit part - once per 2^31 counts on i686 or a Cortex-M3 - is run
 * here: counts cross 2^31 and 2^32 and the sums stay exact, per CPU and
 * for the line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test_irq_fake_chip.h"

#ifndef IRQ_STAT_TEST_NARROW
#error "build with -DIRQ_STAT_TEST_NARROW (tests/unit/irq_stat_fold.mk)"
#endif

#define LINE 5
#define NEAR_TOP 0x7FFFFFFEu  /* two counts below the top bit of a 32-bit word */

static void counts_past_2_to_the_31_are_folded_and_the_sums_stay_exact(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED };
	struct irq_line_cpu_stats c;
	struct irq_line_stats st;
	unsigned int i;

	(void)state;
	_Static_assert(sizeof(irq_stat_t) == 4 && IRQ_STAT_FOLDS, "the narrow build keeps 32-bit words that fold");
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	/* CPU 1 has counted NEAR_TOP deliveries and claims of this line already. */
	irq_cpu_stats[1][LINE].n[IRQ_STAT_DELIVERED] = NEAR_TOP;
	irq_cpu_stats[1][LINE].n[IRQ_STAT_HANDLED] = NEAR_TOP;
	irq_host_set_cpu(1);
	for (i = 0; i < 4; i++)
		fake_raise(LINE);
	/* The word went past its top bit: folded into the 64-bit part, the word small again. */
	assert_true(irq_cpu_stats[1][LINE].n[IRQ_STAT_DELIVERED] < 4);
	assert_int_equal(irq_get_line_cpu_stats(LINE, 1, &c), 0);
	assert_int_equal(c.delivered, (uint64_t)NEAR_TOP + 4);
	assert_int_equal(c.handled, (uint64_t)NEAR_TOP + 4);
	/* Past 2^32 as well: a second fold adds to the first. */
	irq_cpu_stats[1][LINE].n[IRQ_STAT_DELIVERED] = NEAR_TOP;
	for (i = 0; i < 3; i++)
		fake_raise(LINE);
	assert_int_equal(irq_get_line_cpu_stats(LINE, 1, &c), 0);
	assert_true(c.delivered > (1ull << 32));
	/* CPU 0 counts on its own; the line's sums add both, exactly. */
	irq_host_set_cpu(0);
	fake_raise(LINE);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.delivered, c.delivered + 1);
	assert_int_equal(st.handled, (uint64_t)NEAR_TOP + 4 + 3 + 1);
	assert_int_equal(dev.calls, 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(counts_past_2_to_the_31_are_folded_and_the_sums_stay_exact,
						fake_irq_setup, fake_irq_teardown),
	};

	return cmocka_run_group_tests_name("irq_stat_fold", tests, NULL, NULL);
}
