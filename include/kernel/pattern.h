/*
 * pattern.h - the seeded, position-dependent test pattern that the storage
 * tests write to disks and check on the host (kernel/pattern.c; the format
 * is specified in docs/ata.md, section "The test pattern", and implemented
 * a second time, from that text, in tests/qemu/diskimg.py).
 *
 * A block (one sector: 512 bytes on a disk, 2048 on a CD) at LBA L written
 * with seed S holds:
 *
 *   bytes  0..7   the ASCII magic "IRQKPAT1"
 *   bytes  8..15  L, 64-bit little-endian
 *   bytes 16..19  S, 32-bit little-endian
 *   bytes 20..23  the block size in bytes, 32-bit little-endian
 *   bytes 24..    a xorshift64 stream, 8 bytes little-endian per step, whose
 *                 state starts at pattern_stream_seed(S, L)
 *
 * so a block that lands at the wrong LBA, carries another run's seed, is
 * shifted, torn or stale is told apart from a right one by its own bytes.
 */
#ifndef KERNEL_PATTERN_H
#define KERNEL_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Layout of a pattern block. */
enum pattern_layout {
	PATTERN_MAGIC_OFFSET = 0,    /* "IRQKPAT1" */
	PATTERN_MAGIC_LEN = 8,
	PATTERN_LBA_OFFSET = 8,      /* 64-bit LBA */
	PATTERN_SEED_OFFSET = 16,    /* 32-bit seed */
	PATTERN_SIZE_OFFSET = 20,    /* 32-bit block size */
	PATTERN_STREAM_OFFSET = 24,  /* first byte of the xorshift stream */
	PATTERN_WORD_BYTES = 8,      /* bytes the stream produces per step */
	PATTERN_BLOCK_MIN = 32,      /* smallest block: header and one stream word */
	PATTERN_BLOCK_MAX = 65536,   /* largest block accepted (sanity bound) */
};

/*
 * pattern_stream_seed - the xorshift64 start state of block @lba under
 * @seed: splitmix64's finaliser applied to (@lba + golden ratio), XOR
 * @seed, finalised again; a zero result becomes the golden ratio constant
 * (xorshift must not start at 0). CONTEXT: any. RETURNS the state.
 */
uint64_t pattern_stream_seed(uint32_t seed, uint64_t lba);

/*
 * pattern_block_size_ok - @block_size can carry the pattern: a multiple of
 * PATTERN_WORD_BYTES from PATTERN_BLOCK_MIN to PATTERN_BLOCK_MAX.
 * CONTEXT: any. RETURNS true if so.
 */
bool pattern_block_size_ok(size_t block_size);

/*
 * pattern_fill - write the pattern of block @lba under @seed into @buf
 * (@block_size bytes). CONTEXT: any; no state.
 * RETURNS 0; -EINVAL for a NULL @buf or a size pattern_block_size_ok()
 * refuses (nothing written).
 */
int pattern_fill(uint32_t seed, uint64_t lba, void *buf, size_t block_size);

/*
 * pattern_check - compare @buf (@block_size bytes) with the pattern of
 * block @lba under @seed. CONTEXT: any; no state.
 * RETURNS the number of bytes that differ (0 = the block is right), and in
 * *@first_bad (may be NULL) the offset of the first one; -EINVAL as
 * pattern_fill().
 */
long pattern_check(uint32_t seed, uint64_t lba, const void *buf, size_t block_size,
		   size_t *first_bad);

#endif
