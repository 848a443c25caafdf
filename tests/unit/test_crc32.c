/*
 * test_crc32.c - host unit tests for crc32() (kernel/crc32.c): published
 * check values, chaining, and agreement with zlib's crc32() on random
 * buffers of every length up to a few KiB and at every alignment.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/*
 * zlib's function is also called crc32, so crc32.mk builds kernel/crc32.c
 * with -Dcrc32=kernel_crc32: ours is kernel_crc32, zlib's stays crc32.
 */
#undef crc32
#include <zlib.h>
#define crc32 kernel_crc32
#include <kernel/crc32.h>
#undef crc32

/* Largest random buffer compared with zlib. */
#define MAX_LEN 4096
/* Random buffers per length class. */
#define ROUNDS 2000

static void check_value_of_123456789_is_cbf43926(void **state)
{
	(void)state;
	assert_int_equal(kernel_crc32(0, "123456789", 9), 0xCBF43926u);
}

static void published_vectors_match(void **state)
{
	static const unsigned char zeros[32];
	static const unsigned char ones[32] = { [0 ... 31] = 0xFF };

	(void)state;
	assert_int_equal(kernel_crc32(0, "", 0), 0);
	assert_int_equal(kernel_crc32(0, "a", 1), 0xE8B7BE43u);
	assert_int_equal(kernel_crc32(0, "abc", 3), 0x352441C2u);
	assert_int_equal(kernel_crc32(0, "The quick brown fox jumps over the lazy dog", 43),
			 0x414FA339u);
	/* iSCSI (RFC 3720 B.4) test patterns, checked with the zlib CRC. */
	assert_int_equal(kernel_crc32(0, zeros, sizeof(zeros)), 0x190A55ADu);
	assert_int_equal(kernel_crc32(0, ones, sizeof(ones)), 0xFF6CAB0Bu);
}

static void chained_calls_equal_one_call(void **state)
{
	unsigned char buf[1024];
	unsigned seed = 11;
	size_t i, split;

	(void)state;
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rand_r(&seed);
	uint32_t whole = kernel_crc32(0, buf, sizeof(buf));

	for (split = 0; split <= sizeof(buf); split += 7) {
		uint32_t part = kernel_crc32(0, buf, split);

		assert_int_equal(kernel_crc32(part, buf + split, sizeof(buf) - split), whole);
	}
	/* Byte by byte, too. */
	uint32_t crc = 0;

	for (i = 0; i < sizeof(buf); i++)
		crc = kernel_crc32(crc, buf + i, 1);
	assert_int_equal(crc, whole);
}

static void random_buffers_match_zlib(void **state)
{
	unsigned char *buf = malloc(MAX_LEN + 8);
	unsigned seed = 99;
	int round;

	(void)state;
	assert_non_null(buf);
	for (round = 0; round < ROUNDS; round++) {
		size_t len = (size_t)rand_r(&seed) % (round < ROUNDS / 2 ? 64 : MAX_LEN);
		size_t offset = (size_t)rand_r(&seed) % 8, i;
		uint32_t start = round % 3 ? (uint32_t)rand_r(&seed) : 0;

		for (i = 0; i < len; i++)
			buf[offset + i] = (unsigned char)rand_r(&seed);
		assert_int_equal(kernel_crc32(start, buf + offset, len),
				 (uint32_t)crc32(start, buf + offset, (uInt)len));
	}
	free(buf);
}

static void every_single_byte_matches_zlib(void **state)
{
	unsigned v;

	(void)state;
	for (v = 0; v < 256; v++) {
		unsigned char byte = (unsigned char)v;

		assert_int_equal(kernel_crc32(0, &byte, 1), (uint32_t)crc32(0, &byte, 1));
	}
}

static void null_buffer_gives_zero_like_zlib(void **state)
{
	(void)state;
	assert_int_equal(kernel_crc32(0x12345678u, NULL, 10), 0);
	assert_int_equal(kernel_crc32(0x12345678u, NULL, 10), (uint32_t)crc32(0x12345678u, NULL, 10));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_value_of_123456789_is_cbf43926),
		cmocka_unit_test(published_vectors_match),
		cmocka_unit_test(chained_calls_equal_one_call),
		cmocka_unit_test(random_buffers_match_zlib),
		cmocka_unit_test(every_single_byte_matches_zlib),
		cmocka_unit_test(null_buffer_gives_zero_like_zlib),
	};
	return cmocka_run_group_tests_name("crc32", tests, NULL, NULL);
}
