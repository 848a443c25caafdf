/*
 * test_cmdline.c - host unit tests for the kernel command line parser
 * (kernel/cmdline.c). A small parameter table records every set() call and
 * every problem report, so each test can say what the kernel would have
 * configured and what it would have complained about. The command line is
 * untrusted input: tests feed it from read-only memory, without a NUL, as
 * random bytes, and check that nothing is written, over-read or lost.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include <kernel/cmdline.h>
#include <kernel/errno.h>

/* Reports and set() calls remembered per test. */
#define MAX_RECORDS 256
/* Longest value or message remembered. */
#define RECORD_LEN 300
/* Random command lines tried by the robustness test. */
#define RANDOM_ROUNDS 20000

struct record {
	char text[RECORD_LEN];
	bool is_null;   /* set() was called with NULL (a bare flag) */
};

/* What one parse did: set() calls per parameter and the problem reports. */
struct outcome {
	struct record sets[MAX_RECORDS];
	const char *set_names[MAX_RECORDS];
	int nsets;
	char reports[MAX_RECORDS][RECORD_LEN];
	int nreports;
	int reject_with;   /* set() returns this (0 = accept) */
};

static struct outcome result;

static int record_set(const char *value, void *arg)
{
	if (result.nsets < MAX_RECORDS) {
		struct record *r = &result.sets[result.nsets];

		r->is_null = value == NULL;
		snprintf(r->text, sizeof(r->text), "%s", value ? value : "");
		result.set_names[result.nsets] = arg;
	}
	result.nsets++;
	return result.reject_with;
}

static void record_report(void *ctx, const char *msg)
{
	assert_ptr_equal(ctx, &result);
	assert_null(strchr(msg, '\n'));
	if (result.nreports < MAX_RECORDS)
		snprintf(result.reports[result.nreports], RECORD_LEN, "%s", msg);
	result.nreports++;
}

static const struct cmdline_param table[] = {
	{ "hz", CMDLINE_VALUE, record_set, "hz", "timer tick rate in Hz" },
	{ "quiet", CMDLINE_FLAG, record_set, "quiet", "log only warnings" },
	{ "debug", CMDLINE_FLAG_OR_VALUE, record_set, "debug", "debug output, optional level" },
	{ "irq.poll", CMDLINE_VALUE, record_set, "irq.poll", "lines to poll, comma list" },
};
#define TABLE_SIZE (sizeof(table) / sizeof(table[0]))

static int parse(const char *cmdline)
{
	memset(&result, 0, sizeof(result));
	return cmdline_parse(cmdline, table, TABLE_SIZE, record_report, &result);
}

static void assert_set(int index, const char *name, const char *value)
{
	assert_true(index < result.nsets);
	assert_string_equal(result.set_names[index], name);
	if (value == NULL) {
		assert_true(result.sets[index].is_null);
	} else {
		assert_false(result.sets[index].is_null);
		assert_string_equal(result.sets[index].text, value);
	}
}

static void assert_report_mentions(int index, const char *a, const char *b, const char *c)
{
	assert_true(index < result.nreports);
	const char *msg = result.reports[index];

	assert_non_null(strstr(msg, "cmdline: "));
	assert_non_null(strstr(msg, a));
	if (b)
		assert_non_null(strstr(msg, b));
	if (c)
		assert_non_null(strstr(msg, c));
}

static void flags_and_values_reach_their_set_functions_in_order(void **state)
{
	(void)state;
	assert_int_equal(parse("hz=100 quiet debug debug=2 irq.poll=3,4"), 0);
	assert_int_equal(result.nsets, 5);
	assert_set(0, "hz", "100");
	assert_set(1, "quiet", NULL);
	assert_set(2, "debug", NULL);
	assert_set(3, "debug", "2");
	assert_set(4, "irq.poll", "3,4");
	assert_int_equal(result.nreports, 0);
}

static void last_occurrence_wins_because_every_occurrence_calls_set(void **state)
{
	(void)state;
	assert_int_equal(parse("hz=100 quiet hz=250"), 0);
	assert_int_equal(result.nsets, 3);
	assert_set(0, "hz", "100");
	assert_set(2, "hz", "250");
}

static void blanks_of_any_kind_and_amount_separate_words(void **state)
{
	(void)state;
	assert_int_equal(parse("\t  hz=1\t\tquiet   \n debug  "), 0);
	assert_int_equal(result.nsets, 3);
	assert_set(0, "hz", "1");
	assert_set(1, "quiet", NULL);
	assert_set(2, "debug", NULL);
}

static void quoted_values_keep_their_blanks_and_lose_their_quotes(void **state)
{
	(void)state;
	assert_int_equal(parse("debug=\"a b\tc\" \"hz=1 2\" debug=x\"y z\"w debug=\"\""), 0);
	assert_int_equal(result.nsets, 4);
	assert_set(0, "debug", "a b\tc");
	assert_set(1, "hz", "1 2");
	assert_set(2, "debug", "xy zw");
	assert_set(3, "debug", "");
}

static void value_may_contain_further_equals_signs(void **state)
{
	(void)state;
	assert_int_equal(parse("debug=a=b hz="), 0);
	assert_set(0, "debug", "a=b");
	assert_set(1, "hz", "");
}

static void unknown_parameter_is_reported_and_the_rest_still_applies(void **state)
{
	(void)state;
	assert_int_equal(parse("nosuch hz=5 other=1"), 2);
	assert_int_equal(result.nreports, 2);
	assert_report_mentions(0, "unknown parameter", "'nosuch'", NULL);
	assert_report_mentions(1, "unknown parameter", "'other'", NULL);
	assert_int_equal(result.nsets, 1);
	assert_set(0, "hz", "5");
}

static void names_match_exactly_not_by_prefix_or_case(void **state)
{
	(void)state;
	assert_int_equal(parse("h=1 hzz=1 HZ=1 quie"), 4);
	assert_int_equal(result.nsets, 0);
}

static void flag_given_a_value_is_reported_and_not_applied(void **state)
{
	(void)state;
	assert_int_equal(parse("quiet=yes"), 1);
	assert_report_mentions(0, "'quiet'", "flag", "quiet=yes");
	assert_int_equal(result.nsets, 0);
}

static void value_parameter_without_a_value_is_reported_and_not_applied(void **state)
{
	(void)state;
	assert_int_equal(parse("hz"), 1);
	assert_report_mentions(0, "'hz'", "needs a value", NULL);
	assert_int_equal(result.nsets, 0);
}

static void rejected_value_report_names_parameter_value_and_error(void **state)
{
	(void)state;
	memset(&result, 0, sizeof(result));
	result.reject_with = -ERANGE;
	assert_int_equal(cmdline_parse("hz=99999 quiet", table, TABLE_SIZE, record_report, &result), 2);
	assert_int_equal(result.nsets, 2);
	assert_report_mentions(0, "hz=99999", "rejected", "ERANGE");
	assert_report_mentions(1, "'quiet'", "rejected", "ERANGE");
}

static void unterminated_quote_is_reported_and_swallows_the_rest(void **state)
{
	(void)state;
	assert_int_equal(parse("hz=1 debug=\"oops quiet"), 1);
	assert_report_mentions(0, "unterminated quote", "debug=oops quiet", NULL);
	assert_int_equal(result.nsets, 1);
	assert_set(0, "hz", "1");
}

static void empty_names_are_reported(void **state)
{
	(void)state;
	assert_int_equal(parse("=5 \"\" hz=2"), 2);
	assert_report_mentions(0, "no parameter name", "'=5'", NULL);
	assert_report_mentions(1, "empty", NULL, NULL);
	assert_int_equal(result.nsets, 1);
}

static void overlong_word_is_reported_cut_and_the_next_word_applies(void **state)
{
	char line[CMDLINE_WORD_MAX + 64];
	int i;

	(void)state;
	/* debug=xxxx...: one byte more than CMDLINE_WORD_MAX. */
	i = sprintf(line, "debug=");
	memset(line + i, 'x', CMDLINE_WORD_MAX + 1 - (size_t)i);
	strcpy(line + CMDLINE_WORD_MAX + 1, " quiet");
	assert_int_equal(parse(line), 1);
	assert_report_mentions(0, "longer than 255 bytes", "'debug=xxx", "...'");
	assert_true(strlen(result.reports[0]) < 160);
	assert_int_equal(result.nsets, 1);
	assert_set(0, "quiet", NULL);

	/* Exactly CMDLINE_WORD_MAX bytes is still accepted. */
	line[CMDLINE_WORD_MAX] = '\0';
	assert_int_equal(parse(line), 0);
	assert_int_equal(strlen(result.sets[0].text), CMDLINE_WORD_MAX - strlen("debug="));
}

static void overlong_command_line_is_reported_and_its_first_bytes_parsed(void **state)
{
	char line[CMDLINE_MAX + 64];
	size_t pos;
	int quiets = 0;

	(void)state;
	/* "quiet" words up to byte CMDLINE_MAX, then a hz= that lies beyond it. */
	memset(line, ' ', sizeof(line));
	memcpy(line, "hz=7", 4);
	for (pos = 10; pos + 6 < CMDLINE_MAX; pos += 6, quiets++)
		memcpy(line + pos, "quiet", 5);
	strcpy(line + CMDLINE_MAX + 2, "hz=8");
	assert_int_equal(parse(line), 1);
	assert_report_mentions(0, "longer than 1024 bytes", NULL, NULL);
	assert_set(0, "hz", "7");
	assert_string_equal(result.set_names[result.nsets - 1], "quiet");
	assert_int_equal(result.nsets, 1 + quiets);
}

static void unterminated_input_is_not_read_past_the_limit(void **state)
{
	/* No NUL anywhere: the parser may read CMDLINE_MAX + 1 bytes, no more. */
	char *line = malloc(CMDLINE_MAX + 1);

	(void)state;
	assert_non_null(line);
	memset(line, 'q', CMDLINE_MAX + 1);
	assert_int_equal(parse(line), 2);  /* overlong line + overlong word */
	assert_int_equal(result.nsets, 0);
	free(line);
}

static void input_is_never_written(void **state)
{
	const char *text = "debug=\"a b\" hz=3 =x nosuch quiet=1 \"";
	long page = sysconf(_SC_PAGESIZE);
	char *ro = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(ro != MAP_FAILED);
	strcpy(ro, text);
	/* Read-only: any write by the parser would fault the test. */
	assert_int_equal(mprotect(ro, (size_t)page, PROT_READ), 0);
	assert_int_equal(parse(ro), 4);
	assert_string_equal(ro, text);
	assert_int_equal(result.nsets, 2);
	munmap(ro, (size_t)page);
}

static void empty_and_blank_command_lines_have_no_problems(void **state)
{
	(void)state;
	assert_int_equal(parse(NULL), 0);
	assert_int_equal(parse(""), 0);
	assert_int_equal(parse(" \t \n "), 0);
	assert_int_equal(result.nsets, 0);
	assert_int_equal(result.nreports, 0);
}

static void problems_are_counted_even_without_a_report_function(void **state)
{
	(void)state;
	memset(&result, 0, sizeof(result));
	assert_int_equal(cmdline_parse("nosuch hz quiet=1 hz=4", table, TABLE_SIZE, NULL, NULL), 3);
	assert_int_equal(result.nsets, 1);
	/* A missing table makes every word unknown. */
	assert_int_equal(cmdline_parse("a b c", NULL, 5, record_report, &result), 3);
}

static void control_characters_never_reach_the_log(void **state)
{
	(void)state;
	assert_int_equal(parse("bad\x1b[2J\x7f\xe9name"), 1);
	assert_report_mentions(0, "'bad?[2J??name'", NULL, NULL);
}

static void random_bytes_never_crash_and_every_problem_is_reported(void **state)
{
	static const char alphabet[] = "hzquietdebug=\"\t ,x0\x01\xff";
	char line[96];
	unsigned seed = 7;
	int round;

	(void)state;
	for (round = 0; round < RANDOM_ROUNDS; round++) {
		size_t len = (size_t)rand_r(&seed) % (sizeof(line) - 1), i;

		for (i = 0; i < len; i++)
			line[i] = alphabet[(size_t)rand_r(&seed) % (sizeof(alphabet) - 1)];
		line[len] = '\0';
		int problems = parse(line);

		assert_true(problems >= 0 && problems <= (int)len);
		assert_int_equal(problems, result.nreports);
	}
}

static void parse_uint_reads_decimal_and_hex_within_bounds(void **state)
{
	unsigned long v = 0;

	(void)state;
	assert_int_equal(cmdline_parse_uint("100", 19, 10000, &v), 0);
	assert_int_equal(v, 100);
	assert_int_equal(cmdline_parse_uint("0x3f8", 0, 0xffff, &v), 0);
	assert_int_equal(v, 0x3f8);
	assert_int_equal(cmdline_parse_uint("0X3F8", 0, 0xffff, &v), 0);
	assert_int_equal(v, 0x3f8);
	assert_int_equal(cmdline_parse_uint("010", 0, 100, &v), 0);
	assert_int_equal(v, 10);  /* decimal, not octal */
	assert_int_equal(cmdline_parse_uint("0", 0, 0, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(cmdline_parse_uint("19", 19, 19, &v), 0);
	assert_int_equal(v, 19);
	char max[32];

	snprintf(max, sizeof(max), "%lu", ULONG_MAX);
	assert_int_equal(cmdline_parse_uint(max, 0, ULONG_MAX, &v), 0);
	assert_true(v == ULONG_MAX);
}

static void parse_uint_rejects_junk_with_einval_and_leaves_out_alone(void **state)
{
	static const char *const junk[] = { "", "0x", "-1", "+1", " 1", "1 ", "12a", "0x1g",
		"1k", "0b101", "x10", "1.5", "０" };
	unsigned long v = 12345;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++)
		assert_int_equal(cmdline_parse_uint(junk[i], 0, ULONG_MAX, &v), -EINVAL);
	assert_int_equal(cmdline_parse_uint(NULL, 0, 1, &v), -EINVAL);
	assert_int_equal(cmdline_parse_uint("1", 0, 1, NULL), -EINVAL);
	assert_int_equal(cmdline_parse_uint("5", 10, 1, &v), -EINVAL);
	/* Junk after an overflowing prefix is still junk. */
	assert_int_equal(cmdline_parse_uint("99999999999999999999999z", 0, ULONG_MAX, &v), -EINVAL);
	assert_int_equal(v, 12345);
}

static void parse_uint_reports_out_of_range_with_erange(void **state)
{
	unsigned long v = 12345;

	(void)state;
	assert_int_equal(cmdline_parse_uint("18", 19, 10000, &v), -ERANGE);
	assert_int_equal(cmdline_parse_uint("10001", 19, 10000, &v), -ERANGE);
	assert_int_equal(cmdline_parse_uint("99999999999999999999999", 0, ULONG_MAX, &v), -ERANGE);
	assert_int_equal(cmdline_parse_uint("0x10000000000000000", 0, ULONG_MAX, &v), -ERANGE);
	assert_int_equal(v, 12345);
}

/* Collect the items of @list joined by '|' into @out. */
static int list_items(const char *list, char *out, size_t size)
{
	const char *cursor = list, *item;
	size_t len;
	int n = 0;

	out[0] = '\0';
	while (cmdline_list_next(&cursor, &item, &len)) {
		size_t used = strlen(out);

		snprintf(out + used, size - used, "%s%.*s", n ? "|" : "", (int)len, item);
		n++;
	}
	return n;
}

static void list_next_walks_comma_separated_items(void **state)
{
	char out[128];

	(void)state;
	assert_int_equal(list_items("a,b:c,d", out, sizeof(out)), 3);
	assert_string_equal(out, "a|b:c|d");
	assert_int_equal(list_items("single", out, sizeof(out)), 1);
	assert_string_equal(out, "single");
	assert_int_equal(list_items("", out, sizeof(out)), 0);
	assert_int_equal(list_items("a,,b", out, sizeof(out)), 3);
	assert_string_equal(out, "a||b");
	assert_int_equal(list_items(",a", out, sizeof(out)), 2);
	assert_string_equal(out, "|a");
	assert_int_equal(list_items("a,", out, sizeof(out)), 1);
	assert_string_equal(out, "a");
}

static void list_next_refuses_null_arguments(void **state)
{
	const char *cursor = NULL, *item;
	size_t len;

	(void)state;
	assert_false(cmdline_list_next(&cursor, &item, &len));
	assert_false(cmdline_list_next(NULL, &item, &len));
	cursor = "a";
	assert_false(cmdline_list_next(&cursor, NULL, &len));
	assert_false(cmdline_list_next(&cursor, &item, NULL));
}

static void skip_image_drops_a_leading_path_only(void **state)
{
	const char *s;

	(void)state;
	assert_string_equal(cmdline_skip_image("/boot/irqkit.elf hz=100"), "hz=100");
	assert_string_equal(cmdline_skip_image("build/kernel.elf  \t quiet"), "quiet");
	assert_string_equal(cmdline_skip_image("  /boot/irqkit.elf"), "");
	assert_string_equal(cmdline_skip_image("hz=100 /x"), "hz=100 /x");
	/* A parameter whose value is a path is not an image. */
	assert_string_equal(cmdline_skip_image("root=/dev/hda quiet"), "root=/dev/hda quiet");
	assert_string_equal(cmdline_skip_image("irqkit.elf quiet"), "irqkit.elf quiet");
	assert_string_equal(cmdline_skip_image("   quiet"), "quiet");
	assert_string_equal(cmdline_skip_image(""), "");
	assert_null(cmdline_skip_image(NULL));
	s = "/boot/irqkit.elf hz=1";
	assert_ptr_equal(cmdline_skip_image(s), s + strlen("/boot/irqkit.elf "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flags_and_values_reach_their_set_functions_in_order),
		cmocka_unit_test(last_occurrence_wins_because_every_occurrence_calls_set),
		cmocka_unit_test(blanks_of_any_kind_and_amount_separate_words),
		cmocka_unit_test(quoted_values_keep_their_blanks_and_lose_their_quotes),
		cmocka_unit_test(value_may_contain_further_equals_signs),
		cmocka_unit_test(unknown_parameter_is_reported_and_the_rest_still_applies),
		cmocka_unit_test(names_match_exactly_not_by_prefix_or_case),
		cmocka_unit_test(flag_given_a_value_is_reported_and_not_applied),
		cmocka_unit_test(value_parameter_without_a_value_is_reported_and_not_applied),
		cmocka_unit_test(rejected_value_report_names_parameter_value_and_error),
		cmocka_unit_test(unterminated_quote_is_reported_and_swallows_the_rest),
		cmocka_unit_test(empty_names_are_reported),
		cmocka_unit_test(overlong_word_is_reported_cut_and_the_next_word_applies),
		cmocka_unit_test(overlong_command_line_is_reported_and_its_first_bytes_parsed),
		cmocka_unit_test(unterminated_input_is_not_read_past_the_limit),
		cmocka_unit_test(input_is_never_written),
		cmocka_unit_test(empty_and_blank_command_lines_have_no_problems),
		cmocka_unit_test(problems_are_counted_even_without_a_report_function),
		cmocka_unit_test(control_characters_never_reach_the_log),
		cmocka_unit_test(random_bytes_never_crash_and_every_problem_is_reported),
		cmocka_unit_test(parse_uint_reads_decimal_and_hex_within_bounds),
		cmocka_unit_test(parse_uint_rejects_junk_with_einval_and_leaves_out_alone),
		cmocka_unit_test(parse_uint_reports_out_of_range_with_erange),
		cmocka_unit_test(list_next_walks_comma_separated_items),
		cmocka_unit_test(list_next_refuses_null_arguments),
		cmocka_unit_test(skip_image_drops_a_leading_path_only),
	};
	return cmocka_run_group_tests_name("cmdline", tests, NULL, NULL);
}
