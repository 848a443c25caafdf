/*
 * test_irq_trace.c - host unit tests of kernel/irq's event trace
 * (trace.c, trace.h): nothing is recorded while it is off; a traced
 * interrupt records entry, chip calls, each handler's return and exit in
 * order with the same timestamps order; a full ring drops and counts
 * instead of overwriting; the filter (lines, classes); events of a CPU
 * number out of range are counted, not written out of bounds; driver tags;
 * the dump's header, lines, end line and hash; polls with their result.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_irq_fake_chip.h"

#define LINE 3
#define OTHER 5

/* The dump, kept as text. */
static char dump_text[1 << 20];
static size_t dump_used;
static unsigned int dump_lines;

static void dump_out(void *ctx, const char *line)
{
	size_t n = strlen(line);

	(void)ctx;
	assert_true(dump_used + n + 2 < sizeof(dump_text));
	memcpy(dump_text + dump_used, line, n);
	dump_used += n;
	dump_text[dump_used++] = '\n';
	dump_text[dump_used] = '\0';
	dump_lines++;
}

static unsigned long dump(void)
{
	dump_used = 0;
	dump_lines = 0;
	dump_text[0] = '\0';
	return irq_trace_dump(dump_out, NULL);
}

/* The event names of CPU @cpu's ring, in order, for line @line (IRQ_TRACE_NO_LINE: all), space-separated. */
static const char *ring_names(unsigned int cpu, unsigned int line)
{
	static char text[4096];
	const struct irq_trace_ring *r = &irq_trace_rings[cpu];
	uint32_t i, n = r->head < IRQ_TRACE_ENTRIES ? r->head : IRQ_TRACE_ENTRIES;
	size_t used = 0;

	text[0] = '\0';
	for (i = 0; i < n && used + 32 < sizeof(text); i++) {
		const struct irq_trace_entry *e = &r->e[i];

		if (line != IRQ_TRACE_NO_LINE && e->line != line)
			continue;
		used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%s", used ? " " : "",
					 irq_trace_event_name(e->type));
	}
	return text;
}

static int trace_setup(void **state)
{
	fake_irq_setup(state);
	irq_trace_stop();
	irq_trace_clear();
	irq_host_set_cpu(0);
	return 0;
}

static int trace_teardown(void **state)
{
	irq_trace_stop();
	irq_trace_clear();
	irq_host_set_cpu(0);
	return fake_irq_teardown(state);
}

static void nothing_is_recorded_while_tracing_is_off(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED };
	struct irq_trace_status st;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	fake_raise(LINE);
	irq_trace_record(IRQ_TEV_DRV, LINE, IRQ_TDRV_MARK, 1);  /* the hooks test the switch, not the record */
	irq_trace_clear();
	fake_raise(LINE);
	irq_host_irq_enter();  /* polls run in timer context */
	irq_poll_line_traced(irq_to_desc(LINE), IRQ_TRACE_WHY_HAND);
	irq_host_irq_exit();
	irq_trace_get_status(&st);
	assert_false(st.on);
	assert_int_equal(st.events, 0);
	assert_int_equal(dev.calls, 3);
}

static void a_traced_edge_interrupt_records_entry_ack_each_return_and_exit_in_order(void **state)
{
	struct fake_dev a = { .name = "a", .answer = IRQ_NONE }, b = { .name = "b", .answer = IRQ_HANDLED };
	const struct irq_trace_ring *r = &irq_trace_rings[0];
	uint32_t i;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "a", &a), 0);
	assert_int_equal(request_irq(LINE, fake_dev_handler, IRQF_SHARED, "b", &b), 0);
	assert_int_equal(irq_trace_start(NULL), 0);
	irq_host_advance_ns(1000);
	fake_raise(LINE);
	assert_string_equal(ring_names(0, LINE), "irq_entry chip action action irq_exit");
	assert_int_equal(r->e[0].sub, IRQ_TFLOW_EDGE);
	assert_int_equal(r->e[1].sub, IRQ_TCHIP_ACK);
	assert_int_equal(r->e[2].sub, IRQ_TRET_NONE);
	assert_int_equal(r->e[2].arg, 0);
	assert_int_equal(r->e[3].sub, IRQ_TRET_HANDLED);
	assert_int_equal(r->e[3].arg, 1);
	for (i = 0; i < 5; i++) {
		assert_int_equal(r->e[i].line, LINE);
		assert_int_equal(r->e[i].ts_ns, 1000);
	}
}

static void a_traced_level_interrupt_records_mask_ack_and_unmask(void **state)
{
	struct fake_dev a = { .name = "a", .answer = IRQ_HANDLED };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &a), 0);
	assert_int_equal(irq_trace_start("all"), 0);
	fake_raise(LINE);
	assert_string_equal(ring_names(0, LINE), "irq_entry chip chip action chip irq_exit");
	assert_int_equal(irq_trace_rings[0].e[1].sub, IRQ_TCHIP_MASK);
	assert_int_equal(irq_trace_rings[0].e[2].sub, IRQ_TCHIP_ACK);
	assert_int_equal(irq_trace_rings[0].e[4].sub, IRQ_TCHIP_UNMASK);
}

static void a_full_ring_drops_new_events_and_counts_them(void **state)
{
	struct irq_trace_status st;
	unsigned int i;

	(void)state;
	assert_int_equal(irq_trace_start(NULL), 0);
	for (i = 0; i < IRQ_TRACE_ENTRIES + 10; i++)
		irq_trace_record(IRQ_TEV_DRV, LINE, IRQ_TDRV_MARK, i);
	irq_trace_get_status(&st);
	assert_int_equal(st.events, IRQ_TRACE_ENTRIES);
	assert_int_equal(st.dropped, 10);
	/* The oldest are kept, not overwritten. */
	assert_int_equal(irq_trace_rings[0].e[0].arg, 0);
	assert_int_equal(irq_trace_rings[0].e[IRQ_TRACE_ENTRIES - 1].arg, IRQ_TRACE_ENTRIES - 1);
	irq_trace_clear();
	irq_trace_get_status(&st);
	assert_int_equal(st.events, 0);
	assert_int_equal(st.dropped, 0);
	assert_true(st.on);  /* clear keeps the switch as it was */
}

static void the_filter_keeps_only_the_lines_and_classes_asked_for(void **state)
{
	struct fake_dev a = { .name = "a", .answer = IRQ_HANDLED }, b = { .name = "b", .answer = IRQ_HANDLED };
	uint32_t classes, lines[(IRQ_NR_LINES + 31) / 32];

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	fake_setup_line(OTHER, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &a), 0);
	assert_int_equal(request_irq(OTHER, fake_dev_handler, 0, "b", &b), 0);
	assert_int_equal(irq_trace_start("5,irq"), 0);
	fake_raise(LINE);
	fake_raise(OTHER);
	assert_string_equal(ring_names(0, IRQ_TRACE_NO_LINE), "irq_entry action irq_exit");
	assert_int_equal(irq_trace_rings[0].e[0].line, OTHER);
	/* Bad filters are refused and leave the trace as it was. */
	assert_int_equal(irq_trace_start("5,bogus"), -IRQ_EINVAL);
	assert_int_equal(irq_trace_start("64"), -IRQ_EINVAL);
	assert_int_equal(irq_trace_start("3,,4"), -IRQ_EINVAL);
	assert_int_equal(irq_trace_parse_filter("chip,poll", &classes, lines), 0);
	assert_int_equal(classes, IRQ_TCLASS_CHIP | IRQ_TCLASS_POLL);
	assert_int_equal(lines[0], ~0u);
}

static void events_of_a_cpu_number_out_of_range_are_counted_not_written(void **state)
{
	struct irq_trace_status st;
	unsigned int cpu;

	(void)state;
	assert_int_equal(irq_trace_start(NULL), 0);
	irq_host_set_cpu(IRQ_NR_CPUS);
	irq_trace_record(IRQ_TEV_DRV, LINE, IRQ_TDRV_MARK, 7);
	irq_host_set_cpu(IRQ_NR_CPUS - 1);
	irq_trace_record(IRQ_TEV_DRV, LINE, IRQ_TDRV_MARK, 8);
	irq_trace_get_status(&st);
	assert_int_equal(st.events, 1);
	assert_int_equal(st.dropped, 1);
	for (cpu = 0; cpu + 1 < IRQ_NR_CPUS; cpu++)
		assert_int_equal(irq_trace_rings[cpu].head, 0);
	assert_int_equal(irq_trace_rings[IRQ_NR_CPUS - 1].e[0].arg, 8);
}

static void driver_tags_are_named_once_and_bad_names_refused(void **state)
{
	unsigned int t1, t2;

	(void)state;
	t1 = irq_trace_tag("test_cmd");
	assert_true(t1 >= 1);
	assert_int_equal(irq_trace_tag("test_cmd"), t1);
	t2 = irq_trace_tag("test_xfer");
	assert_true(t2 >= 1 && t2 != t1);
	assert_int_equal(irq_trace_tag("Bad Name"), 0);
	assert_int_equal(irq_trace_tag(""), 0);
	assert_int_equal(irq_trace_tag("a_name_that_is_far_too_long_for_it"), 0);
	assert_int_equal(irq_trace_start(NULL), 0);
	irq_trace_drv(t1, LINE, IRQ_TDRV_BEGIN, 0x20);
	irq_trace_drv(0, LINE, IRQ_TDRV_BEGIN, 0x20);  /* tag 0: not recorded */
	assert_int_equal(irq_trace_rings[0].head, 1);
	assert_int_equal(irq_trace_rings[0].e[0].arg, t1 << 24 | 0x20);
	dump();
	assert_non_null(strstr(dump_text, " drv 3 name=test_cmd kind=begin value=32\n"));
}

/* FNV-1a as trace.c and tools/trace compute it. */
static uint32_t fnv_lines(const char *text)
{
	uint32_t h = 2166136261u;
	const char *p;

	for (p = text; *p; p++) {
		h ^= (uint8_t)*p;
		h *= 16777619u;
	}
	return h;
}

static void the_dump_has_a_versioned_header_numbered_lines_and_an_end_line_with_count_and_hash(void **state)
{
	struct fake_dev a = { .name = "a", .answer = IRQ_HANDLED };
	char expect[128], *events, *end;
	unsigned long n;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_fasteoi_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &a), 0);
	assert_int_equal(irq_trace_start(NULL), 0);
	irq_host_advance_ns(5000);
	fake_raise(LINE);
	irq_host_set_cpu(1);
	irq_host_advance_ns(1000);
	irq_trace_record(IRQ_TEV_POLL_ARM, LINE, 0, 250);
	irq_host_set_cpu(0);
	n = dump();
	assert_int_equal(n, 5);
	assert_int_equal(dump_lines, 7);
	snprintf(expect, sizeof(expect), "@irqkit-trace v%d cpus=%d ring=%d slots=5 dropped=0 clock=ns\n",
		 IRQ_TRACE_FORMAT_VERSION, IRQ_NR_CPUS, IRQ_TRACE_ENTRIES);
	assert_true(strncmp(dump_text, expect, strlen(expect)) == 0);
	assert_non_null(strstr(dump_text, "\n@T 0 0 5000 irq_entry 3 flow=fasteoi\n"
					  "@T 1 0 5000 action 3 idx=0 ret=handled run=irq\n"
					  "@T 2 0 5000 chip 3 op=eoi\n"
					  "@T 3 0 5000 irq_exit 3 flow=fasteoi\n"
					  "@T 4 1 6000 poll_arm 3 in_us=250\n"));
	events = strchr(dump_text, '\n') + 1;
	end = strstr(dump_text, "@irqkit-trace-end");
	assert_non_null(end);
	*end = '\0';
	snprintf(expect, sizeof(expect), "v%d events=5 dropped=0 unwritten=0 hash=%08x\n", IRQ_TRACE_FORMAT_VERSION,
		 fnv_lines(events));
	*end = '@';
	assert_string_equal(end + strlen("@irqkit-trace-end "), expect);
}

static void a_traced_poll_records_its_reason_the_handler_and_its_result(void **state)
{
	struct fake_dev a = { .name = "a", .answer = IRQ_HANDLED };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &a), 0);
	assert_int_equal(irq_trace_start("poll,irq"), 0);
	irq_host_irq_enter();  /* polls run in timer context */
	assert_int_equal(irq_poll_line_traced(irq_to_desc(LINE), IRQ_TRACE_WHY_EXPECT | IRQ_TRACE_WHY_WATCH),
			 IRQ_HANDLED);
	irq_host_irq_exit();
	disable_irq(LINE);
	irq_host_irq_enter();
	assert_int_equal(irq_poll_line_traced(irq_to_desc(LINE), IRQ_TRACE_WHY_HAND), -IRQ_EAGAIN);
	irq_host_irq_exit();
	enable_irq(LINE);
	dump();
	assert_non_null(strstr(dump_text, " poll_start 3 why=expect+watch\n"));
	assert_non_null(strstr(dump_text, " action 3 idx=0 ret=handled run=poll\n"));
	assert_non_null(strstr(dump_text, " poll_end 3 result=handled\n"));
	assert_non_null(strstr(dump_text, " poll_start 3 why=hand\n"));
	assert_non_null(strstr(dump_text, " poll_end 3 result=disabled\n"));
	assert_null(strstr(dump_text, " chip "));  /* class chip not asked for */
}

#define CASE(fn) cmocka_unit_test_setup_teardown(fn, trace_setup, trace_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASE(nothing_is_recorded_while_tracing_is_off),
		CASE(a_traced_edge_interrupt_records_entry_ack_each_return_and_exit_in_order),
		CASE(a_traced_level_interrupt_records_mask_ack_and_unmask),
		CASE(a_full_ring_drops_new_events_and_counts_them),
		CASE(the_filter_keeps_only_the_lines_and_classes_asked_for),
		CASE(events_of_a_cpu_number_out_of_range_are_counted_not_written),
		CASE(driver_tags_are_named_once_and_bad_names_refused),
		CASE(the_dump_has_a_versioned_header_numbered_lines_and_an_end_line_with_count_and_hash),
		CASE(a_traced_poll_records_its_reason_the_handler_and_its_result),
	};

	fake_irq_filter_from_env();
	return cmocka_run_group_tests_name("irq_trace", tests, NULL, NULL);
}
