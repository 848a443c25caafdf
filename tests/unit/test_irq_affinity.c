/*
 * test_irq_affinity.c - irq_set_affinity() / irq_get_affinity() and the
 * optional irq_chip::irq_set_affinity (kernel/irq/irqdesc.c, issue 16):
 * the chip is asked under the line's lock, the mask is remembered only when
 * the chip took it, and a chip without the operation or a bad mask is refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <kernel/errno.h>
#include "test_irq_fake_chip.h"

#define LINE 5

static irq_cpumask_t chip_saw;     /* the mask the chip's operation got */
static unsigned int chip_calls;
static int chip_answer;            /* what it returns */
static bool lock_held_in_op;

static int affinity_op(struct irq_data *d, irq_cpumask_t mask)
{
	chip_saw = mask;
	chip_calls++;
	(void)d;
	lock_held_in_op = irq_host_locks_held() == 1;
	return chip_answer;
}

static struct irq_chip movable_chip;

static int setup(void **state)
{
	int rc = fake_irq_setup(state);

	movable_chip = fake_chip;
	movable_chip.name = "movable";
	movable_chip.irq_set_affinity = affinity_op;
	chip_saw = 0;
	chip_calls = 0;
	chip_answer = 0;
	lock_held_in_op = false;
	return rc;
}

static void a_chip_that_can_move_lines_gets_the_mask_under_the_lines_lock(void **state)
{
	(void)state;
	fake_setup_line(LINE, &movable_chip, handle_edge_irq);
	assert_int_equal(irq_get_affinity(LINE) & 0x3u, 0x3u);   /* never set: every CPU */
	assert_int_equal(irq_set_affinity(LINE, 0x2), 0);
	assert_int_equal(chip_calls, 1);
	assert_int_equal(chip_saw, 0x2);
	assert_true(lock_held_in_op);
	assert_int_equal(irq_get_affinity(LINE), 0x2);
}

static void a_refused_mask_is_not_remembered(void **state)
{
	(void)state;
	fake_setup_line(LINE, &movable_chip, handle_edge_irq);
	assert_int_equal(irq_set_affinity(LINE, 0x1), 0);
	chip_answer = -EINVAL;
	assert_int_equal(irq_set_affinity(LINE, 0x4), -EINVAL);
	assert_int_equal(irq_get_affinity(LINE), 0x1);
}

static void a_chip_without_the_operation_or_no_chip_is_enodev(void **state)
{
	(void)state;
	assert_int_equal(irq_set_affinity(LINE, 0x1), -ENODEV);   /* no chip yet */
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(irq_set_affinity(LINE, 0x1), -ENODEV);
}

static void empty_masks_cpus_past_irq_nr_cpus_and_bad_lines_are_einval(void **state)
{
	(void)state;
	fake_setup_line(LINE, &movable_chip, handle_edge_irq);
	assert_int_equal(irq_set_affinity(LINE, 0), -EINVAL);
#if IRQ_NR_CPUS < 32
	assert_int_equal(irq_set_affinity(LINE, 1u << IRQ_NR_CPUS), -EINVAL);
#endif
	assert_int_equal(irq_set_affinity(IRQ_NR_LINES, 0x1), -EINVAL);
	assert_int_equal(irq_get_affinity(IRQ_NR_LINES), 0);
	assert_int_equal(chip_calls, 0);
}

#define CASE(fn) cmocka_unit_test_setup_teardown(fn, setup, fake_irq_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASE(a_chip_that_can_move_lines_gets_the_mask_under_the_lines_lock),
		CASE(a_refused_mask_is_not_remembered),
		CASE(a_chip_without_the_operation_or_no_chip_is_enodev),
		CASE(empty_masks_cpus_past_irq_nr_cpus_and_bad_lines_are_einval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
