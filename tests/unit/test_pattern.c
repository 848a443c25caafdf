/*
 * test_pattern.c - host unit tests for the seeded test pattern
 * (kernel/pattern.c): its header layout, agreement with the independent
 * Python implementation in tests/qemu/diskimg.py (CRCs of whole blocks that
 * diskimg.pattern_block() produced), position and seed dependence, and how
 * pattern_check() reports damage.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/crc32.h>
#include <kernel/errno.h>
#include <kernel/pattern.h>

#define SECTOR 512
#define CD_BLOCK 2048
/* A block of pattern differs from another block's pattern in most stream bytes. */
#define MOSTLY_DIFFERENT (SECTOR / 2)

static uint64_t get_le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static void header_carries_magic_lba_seed_and_size(void **state)
{
	uint8_t b[SECTOR];

	(void)state;
	assert_int_equal(pattern_fill(0xCAFEBABEu, 0x123456789ull, b, sizeof(b)), 0);
	assert_memory_equal(b, "IRQKPAT1", 8);
	assert_true(get_le(b + PATTERN_LBA_OFFSET, 8) == 0x123456789ull);
	assert_int_equal(get_le(b + PATTERN_SEED_OFFSET, 4), 0xCAFEBABEu);
	assert_int_equal(get_le(b + PATTERN_SIZE_OFFSET, 4), SECTOR);
}

/* CRC-32 of whole blocks as the Python implementation (diskimg.py) computes them. */
static void blocks_match_the_independent_python_implementation(void **state)
{
	static const struct { uint32_t seed; uint64_t lba; size_t size; uint32_t crc; } known[] = {
		{ 0x1, 0, SECTOR, 0x7732d817u },
		{ 0x12345678, 1000, SECTOR, 0xbd6ac33cu },
		{ 0x0, 0, SECTOR, 0x7153793bu },
		{ 0x7, (1ull << 28) + 5, SECTOR, 0xe39d576bu },
		{ 0x3, 17, CD_BLOCK, 0x73339d29u },
	};
	uint8_t b[CD_BLOCK];

	(void)state;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		assert_int_equal(pattern_fill(known[i].seed, known[i].lba, b, known[i].size), 0);
		assert_int_equal(crc32(0, b, known[i].size), known[i].crc);
	}
}

static void first_stream_bytes_match_python_for_seed_1_lba_0(void **state)
{
	static const uint8_t want[16] = { 0x62, 0x90, 0x37, 0xb1, 0x06, 0x6c, 0xa3, 0x2c,
					  0xc2, 0xa7, 0x39, 0x4c, 0x2f, 0xfa, 0x09, 0xbb };
	uint8_t b[SECTOR];

	(void)state;
	pattern_fill(1, 0, b, sizeof(b));
	assert_memory_equal(b + PATTERN_STREAM_OFFSET, want, sizeof(want));
}

static size_t differing_bytes(const uint8_t *a, const uint8_t *b, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++)
		d += a[i] != b[i];
	return d;
}

static void neighbouring_lbas_and_seeds_give_unrelated_streams(void **state)
{
	uint8_t a[SECTOR], b[SECTOR];
	const size_t stream = SECTOR - PATTERN_STREAM_OFFSET;

	(void)state;
	for (uint64_t lba = 0; lba < 64; lba++) {
		pattern_fill(9, lba, a, sizeof(a));
		pattern_fill(9, lba + 1, b, sizeof(b));
		assert_true(differing_bytes(a + PATTERN_STREAM_OFFSET, b + PATTERN_STREAM_OFFSET, stream) >
			    MOSTLY_DIFFERENT);
		pattern_fill(10, lba, b, sizeof(b));
		assert_true(differing_bytes(a + PATTERN_STREAM_OFFSET, b + PATTERN_STREAM_OFFSET, stream) >
			    MOSTLY_DIFFERENT);
	}
}

static void the_same_block_is_generated_the_same_every_time(void **state)
{
	uint8_t a[SECTOR], b[SECTOR];

	(void)state;
	pattern_fill(42, 77, a, sizeof(a));
	memset(b, 0xEE, sizeof(b));
	pattern_fill(42, 77, b, sizeof(b));
	assert_memory_equal(a, b, sizeof(a));
}

static void check_accepts_a_right_block(void **state)
{
	uint8_t b[CD_BLOCK];
	size_t first = 0;

	(void)state;
	pattern_fill(5, 123, b, sizeof(b));
	assert_int_equal(pattern_check(5, 123, b, sizeof(b), &first), 0);
	assert_int_equal(first, sizeof(b));
}

static void check_counts_one_flipped_bit_and_names_its_offset(void **state)
{
	uint8_t b[SECTOR];
	size_t first = 0;

	(void)state;
	for (size_t off = 0; off < SECTOR; off += 37) {
		pattern_fill(5, 123, b, sizeof(b));
		b[off] ^= 0x10;
		assert_int_equal(pattern_check(5, 123, b, sizeof(b), &first), 1);
		assert_int_equal(first, off);
	}
}

static void check_rejects_a_block_from_the_wrong_lba_or_seed(void **state)
{
	uint8_t b[SECTOR];
	size_t first = 0;

	(void)state;
	pattern_fill(5, 124, b, sizeof(b));
	assert_true(pattern_check(5, 123, b, sizeof(b), &first) > MOSTLY_DIFFERENT);
	assert_int_equal(first, PATTERN_LBA_OFFSET);
	pattern_fill(6, 123, b, sizeof(b));
	assert_true(pattern_check(5, 123, b, sizeof(b), &first) > MOSTLY_DIFFERENT);
	assert_int_equal(first, PATTERN_SEED_OFFSET);
}

static void check_rejects_zeros_and_a_torn_block(void **state)
{
	uint8_t b[SECTOR];
	size_t first = 0;

	(void)state;
	memset(b, 0, sizeof(b));
	assert_true(pattern_check(1, 0, b, sizeof(b), &first) > MOSTLY_DIFFERENT);
	assert_int_equal(first, 0);
	/* The first half right, the second half stale (zeros): a torn write. */
	pattern_fill(1, 0, b, sizeof(b));
	memset(b + SECTOR / 2, 0, SECTOR / 2);
	assert_true(pattern_check(1, 0, b, sizeof(b), &first) > 0);
	assert_true(first >= SECTOR / 2);
}

static void bad_sizes_and_null_buffers_are_refused_without_writing(void **state)
{
	uint8_t b[64];

	(void)state;
	memset(b, 0xAB, sizeof(b));
	assert_int_equal(pattern_fill(1, 0, b, 0), -EINVAL);
	assert_int_equal(pattern_fill(1, 0, b, PATTERN_BLOCK_MIN - PATTERN_WORD_BYTES), -EINVAL);
	assert_int_equal(pattern_fill(1, 0, b, PATTERN_BLOCK_MIN + 4), -EINVAL);
	assert_int_equal(pattern_fill(1, 0, NULL, SECTOR), -EINVAL);
	assert_int_equal(pattern_check(1, 0, NULL, SECTOR, NULL), -EINVAL);
	assert_int_equal(pattern_check(1, 0, b, PATTERN_BLOCK_MAX + PATTERN_WORD_BYTES, NULL), -EINVAL);
	for (size_t i = 0; i < sizeof(b); i++)
		assert_int_equal(b[i], 0xAB);
	assert_int_equal(pattern_fill(1, 0, b, PATTERN_BLOCK_MIN), 0);
}

static void stream_seed_is_never_zero(void **state)
{
	(void)state;
	for (uint32_t seed = 0; seed < 1000; seed++)
		for (uint64_t lba = 0; lba < 100; lba++)
			assert_true(pattern_stream_seed(seed, lba) != 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_carries_magic_lba_seed_and_size),
		cmocka_unit_test(blocks_match_the_independent_python_implementation),
		cmocka_unit_test(first_stream_bytes_match_python_for_seed_1_lba_0),
		cmocka_unit_test(neighbouring_lbas_and_seeds_give_unrelated_streams),
		cmocka_unit_test(the_same_block_is_generated_the_same_every_time),
		cmocka_unit_test(check_accepts_a_right_block),
		cmocka_unit_test(check_counts_one_flipped_bit_and_names_its_offset),
		cmocka_unit_test(check_rejects_a_block_from_the_wrong_lba_or_seed),
		cmocka_unit_test(check_rejects_zeros_and_a_torn_block),
		cmocka_unit_test(bad_sizes_and_null_buffers_are_refused_without_writing),
		cmocka_unit_test(stream_seed_is_never_zero),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
