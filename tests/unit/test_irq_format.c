/*
 * test_irq_format.c - the template's formatter (kernel/irq/template/
 * irq_format.c) against the C library's snprintf, conversion by conversion,
 * for the set docs/porting.md documents (the core's own format strings are
 * checked against that set by tests/docs/test_porting.py): edge values,
 * random values, precision and width forms, truncation, and the literal
 * copy of conversions it does not take.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../kernel/irq/template/irq_port_host.h"

/* Random values per conversion. */
#define RANDOM_ROUNDS 20000

static char got[512], want[512];

/* Format with both; RETURNS irq_template_vformat's length after comparing text and length. */
static int __attribute__((format(printf, 2, 3))) both(size_t size, const char *fmt, ...)
{
	va_list ap, aq;
	int n, m;

	va_start(ap, fmt);
	va_copy(aq, ap);
	n = irq_template_vformat(got, size, fmt, ap);
	m = vsnprintf(want, size, fmt, aq);
	va_end(aq);
	va_end(ap);
	if (n != m || strcmp(got, want) != 0)
		fail_msg("format \"%s\": got \"%s\" (%d), libc \"%s\" (%d)", fmt, got, n, want, m);
	return n;
}

static unsigned long long rnd64(void)
{
	unsigned long long v = 0;

	for (int i = 0; i < 4; i++)
		v = v << 16 | (unsigned long long)(rand() & 0xffff);
	return v >> (rand() % 64);  /* every magnitude */
}

static void integers_match_libc_at_the_edges(void **state)
{
	(void)state;
	both(sizeof(got), "%u %u %u", 0u, 1u, 4294967295u);
	both(sizeof(got), "%d %d %d %d", 0, -1, 2147483647, -2147483647 - 1);
	both(sizeof(got), "%x %x", 0u, 0xdeadbeefu);
	both(sizeof(got), "%llu %llu %llu", 0ull, 9999999999999999999ull, 18446744073709551615ull);
	both(sizeof(got), "%lld %lld", -9223372036854775807ll - 1, 9223372036854775807ll);
	both(sizeof(got), "%llx %llx", 0ull, 18446744073709551615ull);
	both(sizeof(got), "%03llu.%03llu %03llu %03llu", 12ull, 5ull, 999ull, 1234ull);
	both(sizeof(got), "%5u|%05d|%5d|%05d", 42u, 42, -42, -42);
}

static void random_integers_match_libc(void **state)
{
	(void)state;
	srand(21);
	for (int i = 0; i < RANDOM_ROUNDS; i++) {
		unsigned long long v = rnd64();

		both(sizeof(got), "%llu %03llu %llx %u %d %x", v, v % 1000, v, (unsigned int)v, (int)v, (unsigned int)v);
	}
}

static void strings_pointers_and_percent_match_libc(void **state)
{
	(void)state;
	both(sizeof(got), "irq %u: \"%.*s\" and \"%.*s\"", 14u, 4, "uart0", 32, "ata");
	both(sizeof(got), "%.16s|%.8s|%s", "irqpolicy-too-long-a-value", "12345678901", "plain");
	both(sizeof(got), "%.*s|%.0s", 0, "gone", "gone too");
	both(sizeof(got), "%p %p", (void *)0x1234, (void *)&got);
	both(sizeof(got), "100%% %c", 'x');
}

/* irq_template_vformat without a comparison (for what libc prints differently or refuses). */
static int mine(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = irq_template_vformat(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

static void output_is_cut_to_the_buffer_and_the_length_is_the_whole(void **state)
{
	(void)state;
	assert_int_equal(both(8, "irq %u: %s", 12345u, "a long message"), 25);
	assert_int_equal(strlen(got), 7);
	assert_int_equal(mine(NULL, 0, "irq %u", 7u), 5);
}

static void conversions_it_does_not_take_are_copied_and_take_no_argument(void **state)
{
	(void)state;
	/* %q is no conversion; %n must never write; a lone % at the end stays. */
	assert_int_equal(mine(got, sizeof(got), "a%qb%nc%", 5u), 8);
	assert_string_equal(got, "a%qb%nc%");
	/* The argument an unknown conversion did not take goes to the next one. */
	mine(got, sizeof(got), "%q%u", 5u);
	assert_string_equal(got, "%q5");
	/* NULL strings as glibc prints them. */
	mine(got, sizeof(got), "%s|%.3s", (const char *)NULL, (const char *)NULL);
	assert_string_equal(got, "(null)|(nu");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(integers_match_libc_at_the_edges),
		cmocka_unit_test(random_integers_match_libc),
		cmocka_unit_test(strings_pointers_and_percent_match_libc),
		cmocka_unit_test(output_is_cut_to_the_buffer_and_the_length_is_the_whole),
		cmocka_unit_test(conversions_it_does_not_take_are_copied_and_take_no_argument),
	};

	return cmocka_run_group_tests_name("irq_format", tests, NULL, NULL);
}
