/*
 * test_vsprintf.c - host unit tests for kvsnprintf()/ksnprintf()
 * (kernel/vsprintf.c). The host C library's vsnprintf is the reference:
 * a table of hand-picked formats and a long randomized run are printed by
 * both, at full and truncating buffer sizes, and must agree in the return
 * value, the bytes stored and the bytes left alone. Behaviour that C leaves
 * undefined and we define (NULL %s, unknown conversions, clamped widths) is
 * checked against fixed strings.
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
#include <cmocka.h>

#include <kernel/format.h>
#include <kernel/errno.h>

/* Size of the output buffers; bigger than any result the tests produce. */
#define OUT_SIZE 512
/* Byte the buffers are filled with so writes past the end show up. */
#define GUARD_BYTE 0x5A
/* Iterations of the randomized comparison. */
#define RANDOM_ROUNDS 200000

/* Print with both implementations into a @size-byte window and compare. */
static void compare_at_size(const char *fmt, size_t size, va_list ap)
{
	char want[OUT_SIZE], got[OUT_SIZE];
	va_list a1, a2;

	memset(want, GUARD_BYTE, sizeof(want));
	memset(got, GUARD_BYTE, sizeof(got));
	va_copy(a1, ap);
	va_copy(a2, ap);
	int want_len = vsnprintf(want, size, fmt, a1);
	int got_len = kvsnprintf(got, size, fmt, a2);
	va_end(a1);
	va_end(a2);

	if (want_len != got_len || memcmp(want, got, sizeof(got)) != 0) {
		print_error("format \"%s\" size %zu: libc %d \"%.*s\", kernel %d \"%.*s\"\n",
			    fmt, size, want_len, (int)(size ? size - 1 : 0), want,
			    got_len, (int)(size ? size - 1 : 0), got);
		fail();
	}
}

/* Compare at the full size, at 0, 1 and at sizes that cut the output. */
__attribute__((format(printf, 1, 2)))
static void check_like_libc(const char *fmt, ...)
{
	char probe[OUT_SIZE];
	va_list ap;

	va_start(ap, fmt);
	va_list a;
	va_copy(a, ap);
	int len = vsnprintf(probe, sizeof(probe), fmt, a);
	va_end(a);
	assert_true(len >= 0 && len < OUT_SIZE);

	compare_at_size(fmt, OUT_SIZE, ap);
	compare_at_size(fmt, 0, ap);
	compare_at_size(fmt, 1, ap);
	compare_at_size(fmt, (size_t)len, ap);
	compare_at_size(fmt, (size_t)len + 1, ap);
	compare_at_size(fmt, (size_t)len / 2 + 1, ap);
	va_end(ap);
}

/*
 * Some of these formats combine flags on purpose where C says one of them
 * is ignored ('0' with '-' or with a precision, ' ' with '+'); gcc warns
 * about that, but it is defined behaviour and must match.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"

static void integers_match_libc_for_every_flag_width_and_precision(void **state)
{
	(void)state;
	check_like_libc("%d %i %u", 0, -1, 42u);
	check_like_libc("%d|%d|%d", INT_MIN, INT_MAX, -7);
	check_like_libc("%5d|%-5d|%05d|%+d|% d|%+ d", 42, 42, 42, 42, 42, 42);
	check_like_libc("%05d|%-05d|%+05d|% 05d", -42, -42, 42, 42);
	check_like_libc("%.3d|%.0d|%.0d|%5.0d|%-5.0d|%+.0d", -7, 0, 1, 0, 0, 0);
	check_like_libc("%08.3d|%-8.3d|%8.3d|%.10d", -7, 7, 7, INT_MIN);
	check_like_libc("%x %X %o", 0xdeadbeefu, 0xdeadbeefu, 0777u);
	check_like_libc("%#x|%#X|%#o|%#x|%#o|%#.0o|%.0o|%#.3o", 255u, 255u, 8u, 0u, 0u, 0u, 0u, 8u);
	check_like_libc("%#08x|%#-8x|%#8X|%08X|%#.5x|%#010.5x", 0xabu, 0xabu, 0xabu, 0xabu, 0xabu, 0xabu);
	check_like_libc("%u|%u|%10u|%-10u|%010u", 0u, UINT_MAX, 123u, 123u, 123u);
}

#pragma GCC diagnostic pop

static void length_modifiers_narrow_and_widen_like_libc(void **state)
{
	(void)state;
	check_like_libc("%hhd|%hhu|%hhx|%hhd", 300, 300, 511, -129);
	check_like_libc("%hd|%hu|%hx|%ho", 70000, 70000, -1, -1);
	check_like_libc("%ld|%lu|%lx", LONG_MIN, ULONG_MAX, ULONG_MAX);
	check_like_libc("%lld|%lld|%llu|%llx|%llo", LLONG_MIN, LLONG_MAX, ULLONG_MAX,
			ULLONG_MAX, ULLONG_MAX);
	check_like_libc("%lld|%llu", -1234567890123456789LL, 12345678901234567890ULL);
	check_like_libc("%+.25lld|%030llx|%#llo", 42LL, 0x123456789abcdefULL, 01ULL);
	check_like_libc("%zu|%zx|%zd|%td|%tu|%jd|%ju", SIZE_MAX, (size_t)4096, (size_t)-5,
			(ptrdiff_t)-3, (ptrdiff_t)17, INTMAX_MIN, UINTMAX_MAX);
}

static void stars_take_width_and_precision_from_arguments(void **state)
{
	(void)state;
	check_like_libc("%*d|%-*d|%*d", 6, 42, 6, 42, -6, 42);
	check_like_libc("%.*d|%.*d|%*.*d", 4, 7, -1, 7, 8, 3, -9);
	check_like_libc("%.*s|%*s|%-*.*s", 3, "abcdef", -8, "ab", 6, 2, "xyz");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
	check_like_libc("%0*d|%0*.*d", 7, -3, 7, 2, -3);
#pragma GCC diagnostic pop
}

static void chars_strings_and_percent_match_libc(void **state)
{
	(void)state;
	check_like_libc("%c%c%c|%3c|%-3c|", 'a', 'b', 'c', 'x', 'y');
	check_like_libc("[%c]", 0);          /* a NUL inside the output */
	check_like_libc("[%c]", 0x141);      /* converted to unsigned char */
	check_like_libc("%s|%10s|%-10s|%.2s|%.0s|%10.3s|%-10.3s", "hello", "hello",
			"hello", "hello", "hello", "hello", "hello");
	check_like_libc("%s%s%s", "", "a", "");
	check_like_libc("100%% done, %d%%", 5);
	check_like_libc("no conversions at all");
	check_like_libc("%s", "");
}

static void pointers_print_like_glibc(void **state)
{
	int object;

	(void)state;
	check_like_libc("%p", (void *)&object);
	check_like_libc("%20p|%-20p|", (void *)0x1234, (void *)0x1234);
	check_like_libc("%p|%10p|%-10p|", NULL, NULL, NULL);
	check_like_libc("%p", (void *)UINTPTR_MAX);
}

/* Call kvsnprintf with a format that the compiler must not check. */
static int format_unchecked(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = kvsnprintf(out, size, fmt, ap);
	va_end(ap);
	return ret;
}

static void null_string_prints_null_in_parentheses(void **state)
{
	char out[OUT_SIZE];
	const char *nothing = NULL;

	(void)state;
	assert_int_equal(format_unchecked(out, sizeof(out), "[%s]", nothing), 8);
	assert_string_equal(out, "[(null)]");
	assert_int_equal(format_unchecked(out, sizeof(out), "[%8s|%-8s]", nothing, nothing), 19);
	assert_string_equal(out, "[  (null)|(null)  ]");
	/* A precision cuts "(null)" like any other string. */
	assert_int_equal(format_unchecked(out, sizeof(out), "[%.3s]", nothing), 5);
	assert_string_equal(out, "[(nu]");
}

static void unknown_conversions_are_printed_literally_and_take_no_argument(void **state)
{
	char out[OUT_SIZE];
	int count = 0;

	(void)state;
	assert_int_equal(format_unchecked(out, sizeof(out), "a%yb%d", 7), 5);
	assert_string_equal(out, "a%yb7");
	assert_int_equal(format_unchecked(out, sizeof(out), "%-08.3qz|%d", 9), 10);
	assert_string_equal(out, "%-08.3qz|9");
	assert_int_equal(format_unchecked(out, sizeof(out), "%5.2f %d", 3), 7);
	assert_string_equal(out, "%5.2f 3");
	/* %n must never store through the argument. */
	assert_int_equal(format_unchecked(out, sizeof(out), "ab%n", &count), 4);
	assert_string_equal(out, "ab%n");
	assert_int_equal(count, 0);
	/* A lone '%' at the end, bare or with flags, comes out as written. */
	assert_int_equal(format_unchecked(out, sizeof(out), "50%"), 3);
	assert_string_equal(out, "50%");
	assert_int_equal(format_unchecked(out, sizeof(out), "x%-5"), 4);
	assert_string_equal(out, "x%-5");
	/* A NULL format is not a crash. */
	assert_int_equal(format_unchecked(out, sizeof(out), NULL), 6);
	assert_string_equal(out, "(null)");
}

static void huge_widths_are_clamped_not_overflowed(void **state)
{
	char out[OUT_SIZE];

	(void)state;
	/* FORMAT_FIELD_MAX is 4096: the count says so, the buffer is cut. */
	assert_int_equal(format_unchecked(out, sizeof(out), "%99999999999999999999d", 1), 4096);
	assert_int_equal(strlen(out), sizeof(out) - 1);
	assert_int_equal(out[sizeof(out) - 2], ' ');
	assert_int_equal(format_unchecked(out, sizeof(out), "%*d", INT_MIN, 1), 4096);
	assert_int_equal(out[0], '1');
	assert_int_equal(format_unchecked(out, sizeof(out), "%.*d", INT_MAX, 1), 4096);
	assert_int_equal(out[0], '0');
}

static void zero_size_counts_without_writing_and_null_buffer_is_allowed(void **state)
{
	char out[4] = { 'k', 'e', 'e', 'p' };

	(void)state;
	assert_int_equal(ksnprintf(out, 0, "%d", 123456), 6);
	assert_memory_equal(out, "keep", 4);
	assert_int_equal(ksnprintf(NULL, 0, "%s-%d", "irq", 7), 5);
	/* A NULL buffer with a size is treated as size 0, not written. */
	assert_int_equal(ksnprintf(NULL, 100, "%s", "no crash"), 8);
	assert_int_equal(ksnprintf(out, sizeof(out), "%s", "truncated"), 9);
	assert_string_equal(out, "tru");
}

static void random_choice_from(const char *set, unsigned *seed, char *dst)
{
	*dst = set[(unsigned)rand_r(seed) % strlen(set)];
}

/* A random 64-bit value whose magnitude is spread over all bit widths. */
static uint64_t random_value(unsigned *seed)
{
	uint64_t v = ((uint64_t)(unsigned)rand_r(seed) << 33) ^
		     ((uint64_t)(unsigned)rand_r(seed) << 11) ^ (unsigned)rand_r(seed);
	unsigned bits = (unsigned)rand_r(seed) % 65;

	return bits == 64 ? v : v & ((UINT64_C(1) << bits) - 1);
}

struct random_spec {
	char text[64];       /* the format: literal text around one conversion */
	char kind;           /* conversion character */
	char length[3];      /* length modifier text */
	int star_width;      /* value for '*' width, if used */
	int star_precision;  /* value for '*' precision, if used */
	bool has_star_width, has_star_precision;
};

/* Build a random conversion whose behaviour C defines for its flags. */
static void build_random_spec(struct random_spec *rs, unsigned *seed)
{
	static const char *const lengths[] = { "", "hh", "h", "l", "ll", "z", "t", "j" };
	char *p = rs->text;
	char flag;
	int i;

	memset(rs, 0, sizeof(*rs));
	random_choice_from("diuxXocsp", seed, &rs->kind);
	bool integer = strchr("diuxXo", rs->kind) != NULL;
	p += sprintf(p, "<%c", 'a' + rand_r(seed) % 26);
	*p++ = '%';
	for (i = rand_r(seed) % 4; i > 0; i--) {
		random_choice_from("-0+ #", seed, &flag);
		if (flag == '#' && !strchr("oxX", rs->kind))
			continue;
		if (flag == '0' && !integer)
			continue;
		if ((flag == '+' || flag == ' ') && !strchr("di", rs->kind))
			continue;
		*p++ = flag;
	}
	switch (rand_r(seed) % 3) {
	case 1: p += sprintf(p, "%d", rand_r(seed) % 30); break;
	case 2:
		*p++ = '*';
		rs->has_star_width = true;
		rs->star_width = rand_r(seed) % 61 - 30;
		break;
	}
	if (rs->kind != 'c' && rs->kind != 'p') {
		switch (rand_r(seed) % 4) {
		case 1: *p++ = '.'; break;
		case 2: p += sprintf(p, ".%d", rand_r(seed) % 30); break;
		case 3:
			p += sprintf(p, ".*");
			rs->has_star_precision = true;
			rs->star_precision = rand_r(seed) % 36 - 5;
			break;
		}
	}
	if (integer)
		strcpy(rs->length, lengths[rand_r(seed) % 8]);
	p += sprintf(p, "%s%c>", rs->length, rs->kind);
}

/* Print @value after whichever '*' arguments the random format has. */
#define CHECK_ARG(rs, fmt, w, pr, value) do { \
		if ((rs)->has_star_width && (rs)->has_star_precision) \
			check_like_libc(fmt, w, pr, value); \
		else if ((rs)->has_star_width) \
			check_like_libc(fmt, w, value); \
		else if ((rs)->has_star_precision) \
			check_like_libc(fmt, pr, value); \
		else \
			check_like_libc(fmt, value); \
	} while (0)

/* Pass the value as the type the length modifier names. */
static void check_random_integer(const struct random_spec *rs, uint64_t v)
{
	bool sgn = rs->kind == 'd' || rs->kind == 'i';
	const char *len = rs->length;
	const char *fmt = rs->text;
	int w = rs->star_width, pr = rs->star_precision;

	if (!strcmp(len, "l") && sgn)
		CHECK_ARG(rs, fmt, w, pr, (long)v);
	else if (!strcmp(len, "l"))
		CHECK_ARG(rs, fmt, w, pr, (unsigned long)v);
	else if (!strcmp(len, "ll") && sgn)
		CHECK_ARG(rs, fmt, w, pr, (long long)v);
	else if (!strcmp(len, "ll"))
		CHECK_ARG(rs, fmt, w, pr, (unsigned long long)v);
	else if (!strcmp(len, "z"))
		CHECK_ARG(rs, fmt, w, pr, (size_t)v);
	else if (!strcmp(len, "t"))
		CHECK_ARG(rs, fmt, w, pr, (ptrdiff_t)v);
	else if (!strcmp(len, "j") && sgn)
		CHECK_ARG(rs, fmt, w, pr, (intmax_t)v);
	else if (!strcmp(len, "j"))
		CHECK_ARG(rs, fmt, w, pr, (uintmax_t)v);
	else if (sgn)
		CHECK_ARG(rs, fmt, w, pr, (int)v);
	else
		CHECK_ARG(rs, fmt, w, pr, (unsigned int)v);
}

static void random_formats_match_libc(void **state)
{
	static const char *const strings[] = { "", "x", "irqkit", "a longer string, with spaces",
		"\t\x7f\xff" };
	unsigned seed = 12345;
	long round;

	(void)state;
	for (round = 0; round < RANDOM_ROUNDS; round++) {
		struct random_spec rs;

		build_random_spec(&rs, &seed);
		const char *fmt = rs.text;
		int w = rs.star_width, pr = rs.star_precision;
		uint64_t v = random_value(&seed);
		const char *str = strings[rand_r(&seed) % 5];
		void *ptr = (void *)(uintptr_t)(v | 1);
		char ch = (char)(' ' + v % 95);

		switch (rs.kind) {
		case 's': CHECK_ARG(&rs, fmt, w, pr, str); break;
		case 'c': CHECK_ARG(&rs, fmt, w, pr, ch); break;
		case 'p': CHECK_ARG(&rs, fmt, w, pr, ptr); break;
		default: check_random_integer(&rs, v); break;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(integers_match_libc_for_every_flag_width_and_precision),
		cmocka_unit_test(length_modifiers_narrow_and_widen_like_libc),
		cmocka_unit_test(stars_take_width_and_precision_from_arguments),
		cmocka_unit_test(chars_strings_and_percent_match_libc),
		cmocka_unit_test(pointers_print_like_glibc),
		cmocka_unit_test(null_string_prints_null_in_parentheses),
		cmocka_unit_test(unknown_conversions_are_printed_literally_and_take_no_argument),
		cmocka_unit_test(huge_widths_are_clamped_not_overflowed),
		cmocka_unit_test(zero_size_counts_without_writing_and_null_buffer_is_allowed),
		cmocka_unit_test(random_formats_match_libc),
	};
	return cmocka_run_group_tests_name("vsprintf", tests, NULL, NULL);
}
