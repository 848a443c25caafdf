/*
 * test_irq_request.c - host unit tests of kernel/irq's request_irq /
 * request_irq_static / free_irq and controller setup: who may share a
 * line, every refusal (with its logged message naming both parties), the
 * first action switching the line on and the last one switching it off,
 * and the action pool. One story per case: set up, request, act, expect.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <kernel/errno.h>
#include "test_irq_fake_chip.h"

/* The line most cases use; any line works. */
#define LINE 5
/* A second line. */
#define OTHER_LINE 9

/* kernel/irq defines its own error numbers; they must be the kernel's. */
_Static_assert(IRQ_EINVAL == EINVAL && IRQ_EBUSY == EBUSY && IRQ_ENOMEM == ENOMEM, "errno mismatch");
_Static_assert(IRQ_ENOENT == ENOENT && IRQ_ENODEV == ENODEV && IRQ_EAGAIN == EAGAIN, "errno mismatch");
_Static_assert(IRQ_ENOSPC == ENOSPC, "errno mismatch");

static void request_on_a_line_without_chip_is_refused(void **state)
{
	struct fake_dev dev = { .name = "serial", .answer = IRQ_HANDLED };

	(void)state;
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "serial", &dev), -EINVAL);
	assert_true(fake_refused(IRQ_E_REQ_NO_CHIP, LINE, "serial", "no interrupt controller"));
}

static void requests_with_bad_arguments_are_refused_and_logged(void **state)
{
	struct fake_dev dev = { .name = "d" };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(IRQ_NR_LINES, fake_dev_handler, 0, "d", &dev), -EINVAL);
	assert_int_equal(request_irq(LINE, NULL, 0, "d", &dev), -EINVAL);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0x8000, "d", &dev), -EINVAL);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_TRIGGER_RISING | IRQF_TRIGGER_HIGH, "d", &dev),
			 -EINVAL);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "d", NULL), -EINVAL);
	assert_int_equal(request_irq_static(NULL, LINE, fake_dev_handler, 0, "d", &dev), -EINVAL);
	assert_int_equal(irq_host_log_count_level(IRQ_LOG_ERR), 6);
	assert_true(fake_refused(IRQ_E_REQ_NO_LINE, IRQ_NR_LINES, "no such line", NULL));
	assert_true(fake_refused(IRQ_E_REQ_NO_HANDLER, LINE, "no handler function", NULL));
	assert_true(fake_refused(IRQ_E_REQ_FLAGS, LINE, "unknown IRQF_ flags", NULL));
	assert_true(fake_refused(IRQ_E_REQ_TRIGGERS, LINE, "more than one IRQF_TRIGGER_ kind", NULL));
	assert_true(fake_refused(IRQ_E_REQ_SHARED_NO_DEV_ID, LINE, "needs a dev_id", NULL));
	assert_true(fake_refused(IRQ_E_REQ_NO_STORAGE, LINE, "no storage for the action", NULL));
	/* Nothing of that reached the chip. */
	assert_string_equal(fake_chip_trace(LINE), "");
}

static void first_request_unmasks_the_line_and_free_of_the_last_masks_it(void **state)
{
	struct fake_dev dev = { .name = "serial", .answer = IRQ_HANDLED };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_true(fake_chip_masked(LINE));
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "serial", &dev), 0);
	assert_string_equal(fake_chip_trace(LINE), "unmask");
	assert_false(fake_chip_masked(LINE));
	free_irq(LINE, &dev);
	assert_string_equal(fake_chip_trace(LINE), "unmask mask");
	assert_true(fake_chip_masked(LINE));
}

static void first_request_with_a_trigger_programs_it_through_set_type(void **state)
{
	struct fake_dev dev = { .name = "nic" };
	struct irq_line_stats st;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_fasteoi_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_TRIGGER_LOW, "nic", &dev), 0);
	assert_string_equal(fake_chip_trace(LINE), "set_type unmask");
	assert_int_equal(fake_chip_type(LINE), IRQ_TYPE_LEVEL_LOW);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_string_equal(st.trigger, "level");
}

static void trigger_refused_by_the_chip_fails_the_request_and_keeps_the_line_off(void **state)
{
	struct fake_dev dev = { .name = "nic" };
	struct irq_line_stats st;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	fake_chip_set_type_result(-EINVAL);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_TRIGGER_FALLING, "nic", &dev), -EINVAL);
	assert_true(fake_refused(IRQ_E_REQ_TRIGGER_REFUSED, LINE, "\"nic\"", "FAKE"));
	assert_true(fake_chip_masked(LINE));
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.nr_actions, 0);
	assert_int_equal(st.depth, 1);
	/* The refused action went back to the pool: all of it is still there. */
	fake_chip_set_type_result(0);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_TRIGGER_FALLING, "nic", &dev), 0);
}

static void chip_without_set_type_accepts_only_the_trigger_it_has(void **state)
{
	struct fake_dev a = { .name = "a" }, b = { .name = "b" };

	(void)state;
	fake_setup_line(LINE, &fake_chip_fixed_type, handle_edge_irq);
	fake_setup_line(OTHER_LINE, &fake_chip_fixed_type, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_TRIGGER_RISING, "a", &a), 0);
	assert_int_equal(request_irq(OTHER_LINE, fake_dev_handler, IRQF_TRIGGER_LOW, "b", &b), -EINVAL);
	assert_true(fake_refused(IRQ_E_REQ_TRIGGER_REFUSED, OTHER_LINE, "\"b\"", "FAKE-FIXED"));
}

static void shared_actions_all_run_in_registration_order(void **state)
{
	struct fake_dev a = { .name = "a", .answer = IRQ_NONE };
	struct fake_dev b = { .name = "b", .answer = IRQ_HANDLED };
	struct fake_dev c = { .name = "c", .answer = IRQ_NONE };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "a", &a), 0);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "b", &b), 0);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "c", &c), 0);
	assert_int_equal(fake_raise(LINE), 0);
	/* Every handler runs even after one claimed it: the line is shared. */
	assert_string_equal(fake_call_order(), "a b c");
}

static void shared_request_on_an_exclusive_line_is_refused_naming_both(void **state)
{
	struct fake_dev serial = { .name = "serial" }, nic = { .name = "e1000" };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "serial", &serial), 0);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "e1000", &nic), -EBUSY);
	assert_true(fake_refused(IRQ_E_REQ_HELD, LINE, "\"e1000\"", "\"serial\""));
	assert_true(fake_refused(IRQ_E_REQ_HELD, LINE, "not shared", NULL));
}

static void exclusive_request_on_a_shared_line_is_refused_naming_both(void **state)
{
	struct fake_dev usb = { .name = "uhci" }, nic = { .name = "e1000" };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "uhci", &usb), 0);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "e1000", &nic), -EBUSY);
	assert_true(fake_refused(IRQ_E_REQ_NOT_SHARED, LINE, "\"e1000\"", "\"uhci\""));
	assert_true(fake_refused(IRQ_E_REQ_NOT_SHARED, LINE, "no IRQF_SHARED", NULL));
}

static void shared_requests_with_another_trigger_type_are_refused(void **state)
{
	struct fake_dev a = { .name = "a" }, b = { .name = "b" }, c = { .name = "c" }, d = { .name = "d" };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_fasteoi_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED | IRQF_TRIGGER_LOW, "a", &a), 0);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED | IRQF_TRIGGER_RISING, "b", &b), -EBUSY);
	assert_true(fake_refused(IRQ_E_REQ_OTHER_TRIGGER, LINE, "\"b\"", "\"a\""));
	/* The same type, or none (keep the line's), are fine. */
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED | IRQF_TRIGGER_LOW, "c", &c), 0);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "d", &d), 0);
	/* set_type ran once, for the first action only. */
	assert_string_equal(fake_chip_trace(LINE), "set_type unmask");
}

static void a_dev_id_registered_twice_on_a_line_is_refused(void **state)
{
	struct fake_dev a = { .name = "a" };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "a", &a), 0);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "a-again", &a), -EBUSY);
	assert_true(fake_refused(IRQ_E_REQ_DEV_ID_TWICE, LINE, "\"a-again\"", "dev_id already registered by \"a\""));
}

static void a_line_carries_at_most_irq_max_shared_actions(void **state)
{
	struct fake_dev devs[IRQ_MAX_SHARED + 1];
	unsigned int i;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	for (i = 0; i < IRQ_MAX_SHARED; i++) {
		devs[i] = (struct fake_dev){ .name = "dev" };
		assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "dev", &devs[i]), 0);
	}
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "one-too-many", &devs[i]), -ENOSPC);
	assert_true(fake_refused(IRQ_E_REQ_FULL, LINE, "\"one-too-many\"", NULL));
}

static void an_exhausted_pool_gives_enomem_but_static_storage_still_works(void **state)
{
	static struct fake_dev devs[IRQ_NR_ACTIONS + 1];
	static struct irqaction own_storage;
	unsigned int i, line = 0;

	(void)state;
	for (i = 0; i < IRQ_NR_LINES; i++)
		fake_setup_line(i, &fake_chip, handle_level_irq);
	/* Fill the pool, spreading the actions over lines to stay below the sharing limit. */
	for (i = 0; i < IRQ_NR_ACTIONS; i++) {
		line = i / IRQ_MAX_SHARED;
		devs[i] = (struct fake_dev){ .name = "pooled" };
		assert_int_equal(request_irq(line, fake_dev_handler, IRQF_SHARED, "pooled", &devs[i]), 0);
	}
	assert_int_equal(request_irq(OTHER_LINE + 20, fake_dev_handler, 0, "late", &devs[i]), -ENOMEM);
	assert_true(fake_refused(IRQ_E_REQ_POOL_EMPTY, OTHER_LINE + 20, "\"late\"", "pooled actions are in use"));
	assert_int_equal(request_irq_static(&own_storage, OTHER_LINE + 20, fake_dev_handler, 0, "late", &devs[i]), 0);
	/* Freeing one pooled action makes room again. */
	free_irq(line, &devs[IRQ_NR_ACTIONS - 1]);
	assert_int_equal(request_irq(OTHER_LINE + 21, fake_dev_handler, 0, "later", &devs[0]), 0);
}

static void static_storage_registered_already_is_refused(void **state)
{
	static struct irqaction storage;
	struct fake_dev a = { .name = "a" }, b = { .name = "b" };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	fake_setup_line(OTHER_LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq_static(&storage, LINE, fake_dev_handler, 0, "a", &a), 0);
	assert_int_equal(request_irq_static(&storage, OTHER_LINE, fake_dev_handler, 0, "b", &b), -EBUSY);
	assert_true(fake_refused(IRQ_E_REQ_STORAGE_TWICE, OTHER_LINE, "\"b\"", "registered already, as \"a\""));
	/* Once freed, the storage may be used again. */
	free_irq(LINE, &a);
	assert_int_equal(request_irq_static(&storage, OTHER_LINE, fake_dev_handler, 0, "b", &b), 0);
	assert_int_equal(fake_raise(OTHER_LINE), 0);
	assert_string_equal(fake_call_order(), "b");
}

static void freeing_one_shared_action_keeps_the_others_running(void **state)
{
	struct fake_dev a = { .name = "a" }, b = { .name = "b" };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "a", &a), 0);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "b", &b), 0);
	free_irq(LINE, &a);
	assert_false(fake_chip_masked(LINE));
	fake_raise(LINE);
	assert_string_equal(fake_call_order(), "b");
	assert_int_equal(a.calls, 0);
}

static void free_of_an_unknown_dev_id_is_logged_and_changes_nothing(void **state)
{
	struct fake_dev a = { .name = "a", .answer = IRQ_HANDLED }, stranger = { .name = "x" };
	struct irq_line_stats st;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &a), 0);
	free_irq(LINE, &stranger);
	free_irq(IRQ_NR_LINES + 3, &a);
	assert_true(fake_refused(IRQ_E_FREE_NO_ACTION, LINE, "free_irq(dev_id", NULL));
	assert_true(fake_refused(IRQ_E_API_NO_LINE, IRQ_NR_LINES + 3, "no such line", NULL));
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.nr_actions, 1);
	fake_raise(LINE);
	assert_int_equal(a.calls, 1);
}

static void the_chip_of_a_line_in_use_cannot_be_replaced(void **state)
{
	struct fake_dev a = { .name = "a" };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &a), 0);
	assert_int_equal(irq_set_chip_and_handler(LINE, &fake_chip_mask_ack, handle_level_irq, NULL, LINE), -EBUSY);
	assert_true(fake_refused(IRQ_E_CHIP_IN_USE, LINE, "FAKE-MA", "\"a\""));
	assert_int_equal(irq_set_trigger(LINE, IRQ_TYPE_LEVEL_HIGH), -EBUSY);
	assert_true(fake_refused(IRQ_E_TRIGGER_IN_USE, LINE, "line in use with another type", NULL));
}

static void a_chip_lacking_what_its_flow_calls_is_refused(void **state)
{
	static const struct irq_chip no_ack = { .name = "NOACK", .mask = NULL, .unmask = NULL };
	static const struct irq_chip mask_only = { .name = "MASKONLY" };
	struct irq_chip edge_without_ack = fake_chip, eoi_less = fake_chip;

	(void)state;
	edge_without_ack.ack = NULL;
	eoi_less.eoi = NULL;
	assert_int_equal(irq_set_chip_and_handler(LINE, NULL, handle_edge_irq, NULL, 0), -EINVAL);
	assert_int_equal(irq_set_chip_and_handler(LINE, &fake_chip, NULL, NULL, 0), -EINVAL);
	assert_int_equal(irq_set_chip_and_handler(LINE, &no_ack, handle_edge_irq, NULL, 0), -EINVAL);
	assert_int_equal(irq_set_chip_and_handler(LINE, &mask_only, handle_fasteoi_irq, NULL, 0), -EINVAL);
	assert_int_equal(irq_set_chip_and_handler(LINE, &edge_without_ack, handle_edge_irq, NULL, 0), -EINVAL);
	assert_int_equal(irq_set_chip_and_handler(LINE, &eoi_less, handle_fasteoi_irq, NULL, 0), -EINVAL);
	assert_int_equal(irq_set_chip_and_handler(IRQ_NR_LINES, &fake_chip, handle_edge_irq, NULL, 0), -EINVAL);
	assert_true(fake_refused(IRQ_E_CHIP_LACKS, LINE, "\"NOACK\" refused: chip lacks", NULL));
	assert_true(fake_refused(IRQ_E_CHIP_NO_LINE, IRQ_NR_LINES, "refused: no such line", NULL));
	/* The flow that needs no eoi takes the eoi-less chip. */
	assert_int_equal(irq_set_chip_and_handler(LINE, &eoi_less, handle_edge_irq, NULL, 0), 0);
	assert_int_equal(irq_set_handler(LINE, handle_fasteoi_irq), -EINVAL);
	assert_true(fake_refused(IRQ_E_FLOW_LACKS, LINE, "flow handler refused: no chip", NULL));
	assert_int_equal(irq_set_handler(IRQ_NR_LINES, handle_edge_irq), -EINVAL);
	assert_true(fake_refused(IRQ_E_FLOW_NO_LINE, IRQ_NR_LINES, "flow handler refused: no such line", NULL));
	assert_int_equal(irq_set_handler(LINE, handle_level_irq), 0);
}

static void set_trigger_goes_through_set_type_and_checks_the_type(void **state)
{
	struct irq_line_stats st;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(irq_set_trigger(LINE, IRQ_TYPE_LEVEL_HIGH), 0);
	assert_string_equal(fake_chip_trace(LINE), "set_type");
	assert_int_equal(fake_chip_type(LINE), IRQ_TYPE_LEVEL_HIGH);
	assert_int_equal(irq_set_trigger(LINE, IRQ_TYPE_LEVEL_HIGH | IRQ_TYPE_EDGE_RISING), -EINVAL);
	assert_int_equal(irq_set_trigger(LINE, IRQ_TYPE_NONE), -EINVAL);
	assert_true(fake_refused(IRQ_E_TRIGGER_KIND, LINE, "not one edge or level kind", NULL));
	assert_int_equal(irq_set_trigger(OTHER_LINE, IRQ_TYPE_LEVEL_HIGH), -EINVAL);  /* no chip */
	assert_true(fake_refused(IRQ_E_TRIGGER_REFUSED, OTHER_LINE, "no chip, or the chip refused", NULL));
	assert_int_equal(irq_set_trigger(IRQ_NR_LINES, IRQ_TYPE_LEVEL_HIGH), -EINVAL);
	assert_true(fake_refused(IRQ_E_TRIGGER_NO_LINE, IRQ_NR_LINES, "refused: no such line", NULL));
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_string_equal(st.trigger, "level");
}

static void a_trigger_equal_to_the_flows_default_is_still_programmed(void **state)
{
	struct fake_dev dev = { .name = "a" };

	(void)state;
	/* The edge flow's default is rising; the hardware may not be set so yet. */
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(irq_set_trigger(LINE, IRQ_TYPE_EDGE_RISING), 0);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_TRIGGER_RISING, "a", &dev), 0);
	assert_string_equal(fake_chip_trace(LINE), "set_type set_type unmask");
	assert_int_equal(fake_chip_type(LINE), IRQ_TYPE_EDGE_RISING);
}

/* A controller whose set_type switches the flow, as the 8259 and IOAPIC code do. */
static int switching_set_type(struct irq_data *d, unsigned int type)
{
	return irq_set_handler(d->irq, (type & IRQ_TYPE_LEVEL_MASK) ? handle_level_irq : handle_edge_irq);
}

static void set_type_may_switch_the_flow_handler_of_its_line(void **state)
{
	struct irq_chip switching = fake_chip;
	struct fake_dev a = { .name = "a", .answer = IRQ_HANDLED };
	struct irq_line_stats st;

	(void)state;
	switching.set_type = switching_set_type;
	assert_int_equal(irq_set_chip_and_handler(LINE, &switching, handle_edge_irq, NULL, LINE), 0);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_TRIGGER_HIGH, "a", &a), 0);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_string_equal(st.flow, "level");
	fake_chip_trace_clear();
	fake_raise(LINE);
	assert_string_equal(fake_chip_trace(LINE), "mask ack unmask");
}

/*
 * A part irq_config.h's switches leave out keeps its API, as calls that do
 * nothing, and a caller can tell (irq_defences_built(); docs/irq-layers.md,
 * "A defence left out"). Runs in the full build and in each reduced build
 * of tests/unit/irq_builds.mk, each checking its own switches.
 */
static void trace_line_must_not_come(void *ctx, const char *line)
{
	(void)ctx;
	fail_msg("the trace is compiled out, yet the dump printed: %s", line);
}

static void a_left_out_part_keeps_its_api_as_calls_that_do_nothing(void **state)
{
	struct fake_dev dev = { .name = "disk", .answer = IRQ_HANDLED };
	unsigned int built = irq_defences_built();
	struct irq_expect storage = { 0 }, *exp;
	struct irq_action_health ah;
	struct irq_trace_status ts;

	(void)state;
	assert_int_equal(!!(built & IRQ_DEF_EXPECT), IRQ_EXPECT);
	assert_int_equal(!!(built & IRQ_DEF_WATCH), IRQ_WATCH);
	assert_int_equal(!!(built & IRQ_DEF_FLOOD), IRQ_FLOOD);
	assert_int_equal(!!(built & IRQ_DEF_STORM), IRQ_STORM);
	assert_int_equal(!!(built & IRQ_DEF_TICK_LOOK), IRQ_TICK_LOOK);
	assert_int_equal(!!(built & IRQ_DEF_TRACE), IRQ_TRACE_BUILD);
	assert_int_equal(!!(built & IRQ_DEF_HEALTH_TEXT), IRQ_HEALTH_TEXT);
	assert_int_equal(!!(built & IRQ_DEF_FIXUP), IRQ_FIXUP);
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "disk", &dev), 0);
	irq_defences_start();
	/* Expecting: a token, or NULL (whose calls do nothing) when left out. */
	exp = init_irq_expect(LINE, &dev);
	assert_int_equal(exp != NULL, IRQ_EXPECT);
	assert_int_equal(init_irq_expect_static(&storage, LINE, &dev) != NULL, IRQ_EXPECT);
	expect_irq(exp);
	unexpect_irq(exp, false);
	/* Watching: the action is watched, or stays off. */
	watch_irq(LINE, &dev);
	if (IRQ_EXPECT || IRQ_WATCH) {
		assert_int_equal(irq_get_action_health(LINE, 0, &ah), 0);
		assert_string_equal(ah.watch, IRQ_WATCH ? "watching" : "off");
	} else {
		/* Neither defence that gives an action its health: the reader says it is not built. */
		assert_int_equal(irq_get_action_health(LINE, 0, &ah), -IRQ_ENODEV);
	}
	{
		char causes[16];

		/* The cause words, or in a terse build the bits in hex. */
		assert_string_equal(irq_health_cause_string(IRQ_HEALTH_STORM | IRQ_HEALTH_MISROUTED, causes, sizeof(causes)),
				    IRQ_HEALTH_TEXT ? "storm,misrouted" : "0x14");
	}
	/* The claimed-storm defence's callback, the trace, the tick. */
	assert_int_equal(irq_set_storm_handler(LINE, &dev, NULL), IRQ_STORM ? 0 : -IRQ_ENODEV);
	assert_int_equal(irq_trace_start("all"), IRQ_TRACE_BUILD ? 0 : -IRQ_ENODEV);
	irq_trace_get_status(&ts);
	assert_int_equal(ts.on, IRQ_TRACE_BUILD);
	assert_int_equal(irq_trace_param("off", NULL), 0);
	irq_trace_stop();
	assert_int_equal(irq_trace_tag("disk_cmd") != 0, IRQ_TRACE_BUILD);
	if (!IRQ_TRACE_BUILD) {
		/* Compiled out: the control answers, empty, and boot's trace= says so. */
		assert_int_equal(irq_trace_dump(trace_line_must_not_come, NULL), 0);
		assert_int_equal(irq_trace_param("all", NULL), -IRQ_ENODEV);
		assert_int_equal(ts.events + ts.dropped + ts.lines_selected, 0);
	}
	/* irqfixup and irqpoll: boot switches, refused once started; "on" refused where not built, "off" taken. */
	assert_int_equal(irq_param_irqfixup(NULL, NULL), IRQ_FIXUP ? -IRQ_EBUSY : -IRQ_ENODEV);
	assert_int_equal(irq_param_irqpoll("1", NULL), IRQ_FIXUP ? -IRQ_EBUSY : -IRQ_ENODEV);
	if (!IRQ_FIXUP) {
		/* A boot switch's refusal names no line: "irq: E<code>" in a terse build. */
		assert_true(irq_host_log_contains(IRQ_HEALTH_TEXT ? "irqpoll: not in this build" : "irq: E33\n"));
		assert_int_equal(irq_param_irqfixup("off", NULL), 0);
	}
	irq_tick_start(1000000);
	if (!IRQ_TICK_LOOK)
		assert_false(irq_tick_wanted());
	irq_tick_start(0);
	free_irq(LINE, &dev);
}

/*
 * The profile in force: irqkit's column of the table. The minimal build has
 * only that one, a constant its code reads as immediates (policy.h's
 * irq_policy()), and irqpolicy= accepts nothing else; the others switch.
 */
static void the_profile_is_irqkits_column_and_the_minimal_build_has_no_other(void **state)
{
	(void)state;
	assert_string_equal(irq_policy()->name, "irqkit");
#define IRQKIT_COLUMN(field, irqkit, tejun2010, mainline, what) \
	assert_true(irq_policy()->field == (uint64_t)(irqkit));
	IRQ_POLICY_TUNABLES(IRQKIT_COLUMN)
#undef IRQKIT_COLUMN
	assert_int_equal(irq_param_policy("tejun2010", NULL), IRQ_MINIMAL ? -IRQ_EINVAL : 0);
	assert_string_equal(irq_policy()->name, IRQ_MINIMAL ? "irqkit" : "tejun2010");
	assert_int_equal(irq_param_policy("irqkit", NULL), 0);
	assert_string_equal(irq_policy()->name, "irqkit");
	assert_int_equal(irq_param_policy(NULL, NULL), -IRQ_EINVAL);
}

#define CASE(fn) cmocka_unit_test_setup_teardown(fn, fake_irq_setup, fake_irq_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASE(request_on_a_line_without_chip_is_refused),
		CASE(requests_with_bad_arguments_are_refused_and_logged),
		CASE(first_request_unmasks_the_line_and_free_of_the_last_masks_it),
		CASE(first_request_with_a_trigger_programs_it_through_set_type),
		CASE(trigger_refused_by_the_chip_fails_the_request_and_keeps_the_line_off),
		CASE(chip_without_set_type_accepts_only_the_trigger_it_has),
		CASE(shared_actions_all_run_in_registration_order),
		CASE(shared_request_on_an_exclusive_line_is_refused_naming_both),
		CASE(exclusive_request_on_a_shared_line_is_refused_naming_both),
		CASE(shared_requests_with_another_trigger_type_are_refused),
		CASE(a_dev_id_registered_twice_on_a_line_is_refused),
		CASE(a_line_carries_at_most_irq_max_shared_actions),
		CASE(an_exhausted_pool_gives_enomem_but_static_storage_still_works),
		CASE(static_storage_registered_already_is_refused),
		CASE(freeing_one_shared_action_keeps_the_others_running),
		CASE(free_of_an_unknown_dev_id_is_logged_and_changes_nothing),
		CASE(the_chip_of_a_line_in_use_cannot_be_replaced),
		CASE(a_chip_lacking_what_its_flow_calls_is_refused),
		CASE(set_trigger_goes_through_set_type_and_checks_the_type),
		CASE(a_trigger_equal_to_the_flows_default_is_still_programmed),
		CASE(set_type_may_switch_the_flow_handler_of_its_line),
		CASE(a_left_out_part_keeps_its_api_as_calls_that_do_nothing),
		CASE(the_profile_is_irqkits_column_and_the_minimal_build_has_no_other),
	};

	fake_irq_filter_from_env();
	return cmocka_run_group_tests_name("irq_request", tests, NULL, NULL);
}
