/*
 * test_string.c - host unit tests for kernel/string.c, built with
 * -DKSTRING_PREFIX so the kernel's functions are kmemcpy, kstrlen, ... and
 * can be checked against the host C library on the same inputs. Every
 * alignment and length combination near word boundaries is tried, because
 * that is where the word-at-a-time paths of memcpy/memset/memcmp switch.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/string.h>

/* Size of the scratch buffers; larger than any offset + length used. */
#define BUF_SIZE 256
/* Offsets and lengths tried: covers several words either side of alignment. */
#define MAX_OFFSET 16
#define MAX_LEN 96
/* Byte the expected and actual buffers are pre-filled with around the target. */
#define GUARD_BYTE 0xA5

static void fill_random(unsigned char *buf, size_t n, unsigned *seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (unsigned char)rand_r(seed);
}

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

static void memcpy_copies_every_alignment_and_length_without_touching_neighbours(void **state)
{
	unsigned char src[BUF_SIZE], got[BUF_SIZE], want[BUF_SIZE];
	unsigned seed = 1;
	size_t so, doff, len;

	(void)state;
	fill_random(src, sizeof(src), &seed);
	for (so = 0; so < MAX_OFFSET; so++)
		for (doff = 0; doff < MAX_OFFSET; doff++)
			for (len = 0; len <= MAX_LEN; len++) {
				memset(got, GUARD_BYTE, sizeof(got));
				memset(want, GUARD_BYTE, sizeof(want));
				memcpy(want + doff, src + so, len);
				assert_ptr_equal(kmemcpy(got + doff, src + so, len), got + doff);
				assert_memory_equal(got, want, sizeof(got));
			}
}

static void memmove_handles_overlap_in_both_directions(void **state)
{
	unsigned char got[BUF_SIZE], want[BUF_SIZE];
	unsigned seed = 2;
	size_t from, to, len;

	(void)state;
	for (from = 0; from < 2 * MAX_OFFSET; from++)
		for (to = 0; to < 2 * MAX_OFFSET; to++)
			for (len = 0; len <= MAX_LEN; len += 3) {
				fill_random(want, sizeof(want), &seed);
				memcpy(got, want, sizeof(got));
				memmove(want + to, want + from, len);
				assert_ptr_equal(kmemmove(got + to, got + from, len), got + to);
				assert_memory_equal(got, want, sizeof(got));
			}
}

static void memset_fills_with_the_low_byte_of_c_only_within_bounds(void **state)
{
	unsigned char got[BUF_SIZE], want[BUF_SIZE];
	static const int values[] = { 0, 0x5A, 0xFF, 0x1234, -1 };
	size_t v, off, len;

	(void)state;
	for (v = 0; v < sizeof(values) / sizeof(values[0]); v++)
		for (off = 0; off < MAX_OFFSET; off++)
			for (len = 0; len <= MAX_LEN; len++) {
				memset(got, GUARD_BYTE, sizeof(got));
				memset(want, GUARD_BYTE, sizeof(want));
				memset(want + off, values[v], len);
				assert_ptr_equal(kmemset(got + off, values[v], len), got + off);
				assert_memory_equal(got, want, sizeof(got));
			}
}

static void memcmp_orders_like_libc_and_treats_bytes_as_unsigned(void **state)
{
	unsigned char a[BUF_SIZE], b[BUF_SIZE];
	unsigned seed = 3;
	size_t oa, ob, len, diff;

	(void)state;
	for (oa = 0; oa < MAX_OFFSET; oa += 3)
		for (ob = 0; ob < MAX_OFFSET; ob += 5)
			for (len = 1; len <= MAX_LEN; len += 7)
				for (diff = 0; diff < len; diff += 2) {
					fill_random(a + oa, len, &seed);
					memcpy(b + ob, a + oa, len);
					assert_int_equal(kmemcmp(a + oa, b + ob, len), 0);
					b[ob + diff] = (unsigned char)(a[oa + diff] ^ 0x80);
					assert_int_equal(sign(kmemcmp(a + oa, b + ob, len)),
							 sign(memcmp(a + oa, b + ob, len)));
					/* A difference past n is not looked at. */
					assert_int_equal(kmemcmp(a + oa, b + ob, diff), 0);
				}
	assert_true(kmemcmp("\x80", "\x01", 1) > 0);
	assert_int_equal(kmemcmp(NULL, NULL, 0), 0);
}

static void strlen_and_strnlen_stop_at_the_nul_or_the_limit(void **state)
{
	char s[BUF_SIZE];
	size_t len, max;

	(void)state;
	for (len = 0; len < 40; len++) {
		memset(s, 'x', len);
		s[len] = '\0';
		assert_int_equal(kstrlen(s), len);
		for (max = 0; max < 45; max++)
			assert_int_equal(kstrnlen(s, max), strnlen(s, max));
	}
	/* strnlen must not read past max: this buffer has no NUL at all. */
	memset(s, 'y', sizeof(s));
	assert_int_equal(kstrnlen(s, sizeof(s)), sizeof(s));
}

static void strcmp_and_strncmp_agree_with_libc_in_sign(void **state)
{
	static const char *const words[] = { "", "a", "ab", "abc", "abd", "b", "\xff",
		"\x7f", "hz", "hz=100", "irq", "irqpoll" };
	size_t n = sizeof(words) / sizeof(words[0]);
	size_t i, j, k;

	(void)state;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			assert_int_equal(sign(kstrcmp(words[i], words[j])),
					 sign(strcmp(words[i], words[j])));
			for (k = 0; k < 8; k++)
				assert_int_equal(sign(kstrncmp(words[i], words[j], k)),
						 sign(strncmp(words[i], words[j], k)));
		}
}

static void strchr_finds_the_first_match_or_the_terminator(void **state)
{
	const char *s = "irq=poll,noapic";

	(void)state;
	assert_ptr_equal(kstrchr(s, '='), s + 3);
	assert_ptr_equal(kstrchr(s, 'i'), s);
	assert_ptr_equal(kstrchr(s, ','), s + 8);
	assert_ptr_equal(kstrchr(s, '\0'), s + strlen(s));
	assert_null(kstrchr(s, 'z'));
	/* c is converted to char, as in C: 0x100 + '=' finds '='. */
	assert_ptr_equal(kstrchr(s, 0x100 + '='), s + 3);
}

static void strlcpy_truncates_terminates_and_reports_the_source_length(void **state)
{
	char dst[16];
	const char *src = "interrupts";  /* 10 bytes */
	size_t size;

	(void)state;
	for (size = 0; size <= sizeof(dst); size++) {
		memset(dst, GUARD_BYTE, sizeof(dst));
		assert_int_equal(kstrlcpy(dst, src, size), strlen(src));
		if (size == 0) {
			assert_int_equal((unsigned char)dst[0], GUARD_BYTE);
			continue;
		}
		size_t copied = strlen(src) < size - 1 ? strlen(src) : size - 1;
		assert_memory_equal(dst, src, copied);
		assert_int_equal(dst[copied], '\0');
		/* Nothing past the terminator is written. */
		if (copied + 1 < sizeof(dst))
			assert_int_equal((unsigned char)dst[copied + 1], GUARD_BYTE);
	}
	assert_int_equal(kstrlcpy(dst, "", sizeof(dst)), 0);
	assert_string_equal(dst, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(memcpy_copies_every_alignment_and_length_without_touching_neighbours),
		cmocka_unit_test(memmove_handles_overlap_in_both_directions),
		cmocka_unit_test(memset_fills_with_the_low_byte_of_c_only_within_bounds),
		cmocka_unit_test(memcmp_orders_like_libc_and_treats_bytes_as_unsigned),
		cmocka_unit_test(strlen_and_strnlen_stop_at_the_nul_or_the_limit),
		cmocka_unit_test(strcmp_and_strncmp_agree_with_libc_in_sign),
		cmocka_unit_test(strchr_finds_the_first_match_or_the_terminator),
		cmocka_unit_test(strlcpy_truncates_terminates_and_reports_the_source_length),
	};
	return cmocka_run_group_tests_name("string", tests, NULL, NULL);
}
