/*
 * test_errno.c - host unit tests for errno_name() (kernel/errno.c): every
 * code in <kernel/errno.h> has its own name in both signs, and odd inputs
 * get a fixed answer instead of a crash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <limits.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/errno.h>

static void names_match_the_symbols_in_errno_h(void **state)
{
	(void)state;
	assert_string_equal(errno_name(EINVAL), "EINVAL");
	assert_string_equal(errno_name(ENOMEM), "ENOMEM");
	assert_string_equal(errno_name(ETIMEDOUT), "ETIMEDOUT");
	assert_string_equal(errno_name(EFAULT), "EFAULT");
	assert_string_equal(errno_name(ERANGE), "ERANGE");
}

static void negated_codes_as_functions_return_them_have_the_same_name(void **state)
{
	static const int codes[] = { EPERM, ENOENT, EIO, ENXIO, E2BIG, EAGAIN, ENOMEM,
		EFAULT, EBUSY, EEXIST, ENODEV, EINVAL, ENOSPC, EROFS, ERANGE, ENOSYS,
		EPROTO, EOVERFLOW, EMSGSIZE, ENOMEDIUM, ETIMEDOUT, ETIME };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		assert_string_equal(errno_name(codes[i]), errno_name(-codes[i]));
}

static void every_code_has_a_distinct_name(void **state)
{
	static const int codes[] = { EPERM, ENOENT, EIO, ENXIO, E2BIG, EAGAIN, ENOMEM,
		EFAULT, EBUSY, EEXIST, ENODEV, EINVAL, ENOSPC, EROFS, ERANGE, ENOSYS,
		EPROTO, EOVERFLOW, EMSGSIZE, ENOMEDIUM, ETIMEDOUT, ETIME };
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		const char *name = errno_name(-codes[i]);

		assert_int_equal(name[0], 'E');
		assert_string_not_equal(name, "EUNKNOWN");
		for (j = 0; j < i; j++)
			assert_string_not_equal(name, errno_name(codes[j]));
	}
}

static void zero_is_success_and_strangers_are_unknown(void **state)
{
	(void)state;
	assert_string_equal(errno_name(0), "OK");
	assert_string_equal(errno_name(9999), "EUNKNOWN");
	assert_string_equal(errno_name(-9999), "EUNKNOWN");
	assert_string_equal(errno_name(INT_MIN), "EUNKNOWN");
	assert_string_equal(errno_name(INT_MAX), "EUNKNOWN");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_match_the_symbols_in_errno_h),
		cmocka_unit_test(negated_codes_as_functions_return_them_have_the_same_name),
		cmocka_unit_test(every_code_has_a_distinct_name),
		cmocka_unit_test(zero_is_success_and_strangers_are_unknown),
	};
	return cmocka_run_group_tests_name("errno", tests, NULL, NULL);
}
