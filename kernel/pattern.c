/*
 * pattern.c - the seeded, position-dependent test pattern of
 * include/kernel/pattern.h (format: docs/ata.md, "The test pattern").
 *
 * The stream generator is Marsaglia's xorshift64 (shifts 13, 7, 17; "Xorshift
 * RNGs", Journal of Statistical Software 8(14), 2003); its start state is
 * mixed from the seed and the LBA with the finaliser of Steele, Lea and
 * Flood's splitmix64 ("Fast splittable pseudorandom number generators",
 * OOPSLA 2014), so neighbouring LBAs and seeds give unrelated streams.
 * Everything is computed byte by byte in little-endian order, so the result
 * does not depend on the host's byte order and a Python version written from
 * the documentation gives the same bytes.
 */
#include <kernel/pattern.h>
#include <kernel/errno.h>

/* The magic that opens every pattern block. */
static const char pattern_magic[PATTERN_MAGIC_LEN] = { 'I', 'R', 'Q', 'K', 'P', 'A', 'T', '1' };

/* 2^64 / golden ratio, splitmix64's increment; also the stand-in for a zero state. */
#define PATTERN_GOLDEN 0x9E3779B97F4A7C15ull
/* splitmix64 finaliser: shifts and multipliers. */
#define MIX_SHIFT_1 30
#define MIX_MULT_1 0xBF58476D1CE4E5B9ull
#define MIX_SHIFT_2 27
#define MIX_MULT_2 0x94D049BB133111EBull
#define MIX_SHIFT_3 31
/* xorshift64 shifts (left, right, left). */
#define XS_SHIFT_A 13
#define XS_SHIFT_B 7
#define XS_SHIFT_C 17
/* Bits in a byte, for little-endian (de)composition. */
#define BYTE_BITS 8

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> MIX_SHIFT_1)) * MIX_MULT_1;
	z = (z ^ (z >> MIX_SHIFT_2)) * MIX_MULT_2;
	return z ^ (z >> MIX_SHIFT_3);
}

uint64_t pattern_stream_seed(uint32_t seed, uint64_t lba)
{
	uint64_t state = mix64(mix64(lba + PATTERN_GOLDEN) ^ seed);

	return state ? state : PATTERN_GOLDEN;
}

static uint64_t xorshift64_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << XS_SHIFT_A;
	x ^= x >> XS_SHIFT_B;
	x ^= x << XS_SHIFT_C;
	*state = x;
	return x;
}

bool pattern_block_size_ok(size_t block_size)
{
	return block_size >= PATTERN_BLOCK_MIN && block_size <= PATTERN_BLOCK_MAX &&
	       block_size % PATTERN_WORD_BYTES == 0;
}

/* put_le - store the low @bytes bytes of @v at @p, least significant first. */
static void put_le(uint8_t *p, uint64_t v, unsigned int bytes)
{
	for (unsigned int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (BYTE_BITS * i));
}

/* pattern_header - the PATTERN_STREAM_OFFSET header bytes of the block. */
static void pattern_header(uint8_t *hdr, uint32_t seed, uint64_t lba, size_t block_size)
{
	for (unsigned int i = 0; i < PATTERN_MAGIC_LEN; i++)
		hdr[PATTERN_MAGIC_OFFSET + i] = (uint8_t)pattern_magic[i];
	put_le(hdr + PATTERN_LBA_OFFSET, lba, sizeof(uint64_t));
	put_le(hdr + PATTERN_SEED_OFFSET, seed, sizeof(uint32_t));
	put_le(hdr + PATTERN_SIZE_OFFSET, block_size, sizeof(uint32_t));
}

int pattern_fill(uint32_t seed, uint64_t lba, void *buf, size_t block_size)
{
	uint8_t *p = buf;
	uint64_t state = pattern_stream_seed(seed, lba);

	if (!buf || !pattern_block_size_ok(block_size))
		return -EINVAL;
	pattern_header(p, seed, lba, block_size);
	for (size_t off = PATTERN_STREAM_OFFSET; off < block_size; off += PATTERN_WORD_BYTES)
		put_le(p + off, xorshift64_next(&state), PATTERN_WORD_BYTES);
	return 0;
}

long pattern_check(uint32_t seed, uint64_t lba, const void *buf, size_t block_size,
		   size_t *first_bad)
{
	const uint8_t *p = buf;
	uint8_t want[PATTERN_STREAM_OFFSET];   /* the header, then the current stream word */
	uint64_t state = pattern_stream_seed(seed, lba);
	long bad = 0;

	_Static_assert(PATTERN_WORD_BYTES <= PATTERN_STREAM_OFFSET, "want[] holds a stream word");
	if (!buf || !pattern_block_size_ok(block_size))
		return -EINVAL;
	if (first_bad)
		*first_bad = block_size;
	pattern_header(want, seed, lba, block_size);
	for (size_t off = 0; off < block_size; off++) {
		size_t in_word = (off - PATTERN_STREAM_OFFSET) % PATTERN_WORD_BYTES;

		if (off >= PATTERN_STREAM_OFFSET && in_word == 0)
			put_le(want, xorshift64_next(&state), PATTERN_WORD_BYTES);
		if (p[off] == want[off < PATTERN_STREAM_OFFSET ? off : in_word])
			continue;
		if (bad == 0 && first_bad)
			*first_bad = off;
		bad++;
	}
	return bad;
}
