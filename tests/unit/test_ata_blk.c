/*
 * test_ata_blk.c - host unit tests for the block layer the ATA driver
 * registers its devices with (kernel/blk.c): registration rules, request
 * checks, the queue (order, splitting into the driver's pieces, one
 * completion per request, errors), removable media, and the shell helpers'
 * output judged against zlib and the pattern checker, on a RAM disk whose
 * driver records every call.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* blk.c is built with -Dcrc32=kernel_crc32 (ata_blk.mk) so zlib's stays crc32. */
#undef crc32
#include <zlib.h>
#include <kernel/blk.h>
#include <kernel/errno.h>
#include <kernel/pattern.h>

#define SECTOR 512
#define DISK_BLOCKS 1024
#define MAX_CALLS 256
#define OUT_MAX 16384

/* ---- Kernel services blk.c uses -------------------------------------------------- */

static char out[OUT_MAX];
static size_t out_len;

int cprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out + out_len, sizeof(out) - out_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		out_len += (size_t)n < sizeof(out) - out_len ? (size_t)n : sizeof(out) - out_len - 1;
	return n;
}

int printk(int level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
	return 0;
}

void *kmalloc(size_t size) { return malloc(size); }
void kfree(void *p) { free(p); }

static uint64_t fake_now;
uint64_t ktime_get_ns(void) { return fake_now += 1000; }

/* ---- A RAM disk that records what the layer asks of it --------------------------- */

struct call { char op; uint64_t lba; uint32_t count; };

struct ramdisk {
	struct blk_dev dev;
	uint8_t data[DISK_BLOCKS * SECTOR];
	struct call calls[MAX_CALLS];
	unsigned int ncalls;
	int fail_at_call;        /* call number that fails with fail_err; -1 = none */
	int fail_err;
	unsigned int revalidations;
	uint64_t medium_blocks;  /* what revalidate finds */
};

static void record(struct ramdisk *rd, char op, uint64_t lba, uint32_t count)
{
	assert_true(rd->ncalls < MAX_CALLS);
	rd->calls[rd->ncalls++] = (struct call){ op, lba, count };
}

static int failing(struct ramdisk *rd)
{
	return (int)rd->ncalls - 1 == rd->fail_at_call ? rd->fail_err : 0;
}

static int rd_read(struct blk_dev *dev, uint64_t lba, uint32_t count, void *buf)
{
	struct ramdisk *rd = dev->driver_data;

	record(rd, 'r', lba, count);
	assert_true(count <= dev->max_blocks && lba + count <= dev->nr_blocks);
	if (failing(rd))
		return failing(rd);
	memcpy(buf, rd->data + lba * SECTOR, (size_t)count * SECTOR);
	return 0;
}

static int rd_write(struct blk_dev *dev, uint64_t lba, uint32_t count, const void *buf)
{
	struct ramdisk *rd = dev->driver_data;

	record(rd, 'w', lba, count);
	assert_true(count <= dev->max_blocks && lba + count <= dev->nr_blocks);
	if (failing(rd))
		return failing(rd);
	memcpy(rd->data + lba * SECTOR, buf, (size_t)count * SECTOR);
	return 0;
}

static int rd_flush(struct blk_dev *dev)
{
	record(dev->driver_data, 'f', 0, 0);
	return 0;
}

static int rd_revalidate(struct blk_dev *dev)
{
	struct ramdisk *rd = dev->driver_data;

	rd->revalidations++;
	dev->nr_blocks = rd->medium_blocks;
	return 0;
}

static const struct blk_ops rd_ops = { rd_read, rd_write, rd_flush, rd_revalidate };

static struct ramdisk *rd_new(const char *name, uint32_t max_blocks)
{
	struct ramdisk *rd = calloc(1, sizeof(*rd));

	snprintf(rd->dev.name, sizeof(rd->dev.name), "%s", name);
	rd->dev.kind = "RAM disk";
	rd->dev.block_size = SECTOR;
	rd->dev.nr_blocks = DISK_BLOCKS;
	rd->dev.max_blocks = max_blocks;
	rd->dev.ops = &rd_ops;
	rd->dev.driver_data = rd;
	rd->fail_at_call = -1;
	for (size_t i = 0; i < sizeof(rd->data); i++)
		rd->data[i] = (uint8_t)(i * 7 + 3);
	return rd;
}

static struct ramdisk *rd_registered(const char *name, uint32_t max_blocks)
{
	struct ramdisk *rd = rd_new(name, max_blocks);

	assert_int_equal(blk_register(&rd->dev), 0);
	return rd;
}

static void rd_free(struct ramdisk *rd)
{
	blk_unregister(&rd->dev);
	free(rd);
}

static int setup(void **state)
{
	(void)state;
	out_len = 0;
	out[0] = 0;
	return 0;
}

/* ---- Registration ----------------------------------------------------------------- */

static void register_refuses_bad_descriptions(void **state)
{
	struct ramdisk *rd = rd_new("hdx", 8);

	(void)state;
	assert_int_equal(blk_register(NULL), -EINVAL);
	rd->dev.block_size = 768;
	assert_int_equal(blk_register(&rd->dev), -EINVAL);
	rd->dev.block_size = 256;
	assert_int_equal(blk_register(&rd->dev), -EINVAL);
	rd->dev.block_size = SECTOR;
	rd->dev.max_blocks = 0;
	assert_int_equal(blk_register(&rd->dev), -EINVAL);
	rd->dev.max_blocks = 8;
	rd->dev.name[0] = 0;
	assert_int_equal(blk_register(&rd->dev), -EINVAL);
	memset(rd->dev.name, 'a', sizeof(rd->dev.name));
	assert_int_equal(blk_register(&rd->dev), -EINVAL);
	assert_null(blk_find("hdx"));
	free(rd);
}

static void a_name_is_taken_once_and_the_table_is_bounded(void **state)
{
	struct ramdisk *rds[BLK_MAX_DEVICES + 1];
	struct ramdisk *dup = rd_new("d0", 8);
	char name[16];

	(void)state;
	for (int i = 0; i < BLK_MAX_DEVICES; i++) {
		snprintf(name, sizeof(name), "d%d", i);
		rds[i] = rd_registered(name, 8);
	}
	assert_int_equal(blk_register(&dup->dev), -EEXIST);
	assert_int_equal(blk_register(&rds[3]->dev), -EEXIST);
	rds[BLK_MAX_DEVICES] = rd_new("extra", 8);
	assert_int_equal(blk_register(&rds[BLK_MAX_DEVICES]->dev), -ENOSPC);
	assert_ptr_equal(blk_find("d5"), &rds[5]->dev);
	assert_ptr_equal(blk_device_at(2), &rds[2]->dev);
	assert_null(blk_device_at(BLK_MAX_DEVICES));
	for (int i = 0; i < BLK_MAX_DEVICES; i++)
		rd_free(rds[i]);
	assert_null(blk_find("d5"));
	assert_int_equal(blk_register(&rds[BLK_MAX_DEVICES]->dev), 0);
	rd_free(rds[BLK_MAX_DEVICES]);
	free(dup);
}

/* ---- Requests and the queue --------------------------------------------------------- */

static void a_read_is_split_into_the_drivers_pieces_in_order(void **state)
{
	struct ramdisk *rd = rd_registered("hda", 8);
	uint8_t buf[20 * SECTOR];

	(void)state;
	assert_int_equal(blk_read(&rd->dev, 100, 20, buf), 0);
	assert_int_equal(rd->ncalls, 3);
	assert_true(rd->calls[0].lba == 100 && rd->calls[0].count == 8);
	assert_true(rd->calls[1].lba == 108 && rd->calls[1].count == 8);
	assert_true(rd->calls[2].lba == 116 && rd->calls[2].count == 4);
	assert_memory_equal(buf, rd->data + 100 * SECTOR, sizeof(buf));
	assert_int_equal(rd->dev.stats.blocks_read, 20);
	rd_free(rd);
}

static void a_write_reaches_the_disk_and_reads_back(void **state)
{
	struct ramdisk *rd = rd_registered("hda", 16);
	uint8_t a[5 * SECTOR], b[5 * SECTOR];

	(void)state;
	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)(i ^ 0x5A);
	assert_int_equal(blk_write(&rd->dev, DISK_BLOCKS - 5, 5, a), 0);
	assert_int_equal(blk_read(&rd->dev, DISK_BLOCKS - 5, 5, b), 0);
	assert_memory_equal(a, b, sizeof(a));
	assert_int_equal(blk_flush(&rd->dev), 0);
	assert_int_equal(rd->calls[rd->ncalls - 1].op, 'f');
	rd_free(rd);
}

static void ranges_past_the_end_or_wrapping_never_reach_the_driver(void **state)
{
	struct ramdisk *rd = rd_registered("hda", 8);
	uint8_t buf[2 * SECTOR];

	(void)state;
	assert_int_equal(blk_read(&rd->dev, DISK_BLOCKS, 1, buf), -ERANGE);
	assert_int_equal(blk_read(&rd->dev, DISK_BLOCKS - 1, 2, buf), -ERANGE);
	assert_int_equal(blk_read(&rd->dev, UINT64_MAX, 2, buf), -ERANGE);
	assert_int_equal(blk_read(&rd->dev, 0, 0, buf), -EINVAL);
	assert_int_equal(blk_read(&rd->dev, 0, 1, NULL), -EINVAL);
	assert_int_equal(rd->ncalls, 0);
	assert_int_equal(rd->dev.stats.refused, 5);
	assert_int_equal(blk_read(&rd->dev, DISK_BLOCKS - 1, 1, buf), 0);
	rd_free(rd);
}

static void writes_to_a_read_only_device_are_refused(void **state)
{
	struct ramdisk *rd = rd_new("cd0", 8);
	uint8_t buf[SECTOR] = { 0 };

	(void)state;
	rd->dev.read_only = true;
	assert_int_equal(blk_register(&rd->dev), 0);
	assert_int_equal(blk_write(&rd->dev, 0, 1, buf), -EROFS);
	assert_int_equal(rd->ncalls, 0);
	rd_free(rd);
}

static int end_io_calls;
static void count_end_io(struct blk_request *req)
{
	end_io_calls++;
	assert_true(req->done);
}

static void queued_requests_run_in_submission_order_and_complete_once(void **state)
{
	struct ramdisk *rd = rd_registered("hda", 64);
	static uint8_t bufs[3][4 * SECTOR];
	struct blk_request reqs[3];

	(void)state;
	end_io_calls = 0;
	for (int i = 0; i < 3; i++) {
		reqs[i] = (struct blk_request){ .dev = &rd->dev, .op = BLK_OP_READ,
						.lba = (uint64_t)(300 - 100 * i), .count = 4,
						.buf = bufs[i], .end_io = count_end_io };
		assert_int_equal(blk_submit(&reqs[i]), 0);
		assert_false(reqs[i].done);
	}
	assert_int_equal(blk_submit(&reqs[1]), -EBUSY);
	assert_int_equal(rd->ncalls, 0);
	assert_int_equal(blk_wait(&reqs[0]), 0);
	assert_int_equal(blk_run_queue(&rd->dev), 0);
	assert_int_equal(rd->ncalls, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(rd->calls[i].lba, 300 - 100 * i);
		assert_true(reqs[i].done);
		assert_int_equal(blk_wait(&reqs[i]), 0);
	}
	assert_int_equal(end_io_calls, 3);
	assert_int_equal(rd->dev.stats.requests, 3);
	rd_free(rd);
}

static void a_failing_piece_ends_the_request_with_its_error_and_the_next_one_runs(void **state)
{
	struct ramdisk *rd = rd_registered("hda", 4);
	uint8_t a[12 * SECTOR], b[SECTOR];
	struct blk_request r1 = { .dev = &rd->dev, .op = BLK_OP_READ, .lba = 0, .count = 12, .buf = a };
	struct blk_request r2 = { .dev = &rd->dev, .op = BLK_OP_READ, .lba = 50, .count = 1, .buf = b };

	(void)state;
	rd->fail_at_call = 1;
	rd->fail_err = -EIO;
	assert_int_equal(blk_submit(&r1), 0);
	assert_int_equal(blk_submit(&r2), 0);
	assert_int_equal(blk_wait(&r2), 0);
	assert_true(r1.done);
	assert_int_equal(r1.status, -EIO);
	assert_int_equal(r1.done_blocks, 4);
	assert_int_equal(rd->ncalls, 3);          /* piece 1, the failed piece 2, then r2 */
	assert_int_equal(rd->dev.stats.errors, 1);
	rd_free(rd);
}

/* A concurrent device (NVMe, a queue per CPU) is called directly: a read made while the
 * request queue is running (another CPU's blk_run_queue) still reaches the driver, checked. */
static void a_concurrent_device_is_called_directly_with_the_same_checks(void **state)
{
	struct ramdisk *rd = rd_registered("nvme0n1", 64);
	uint8_t buf[4 * SECTOR];

	(void)state;
	rd->dev.concurrent = true;
	rd->dev.running = true;      /* as if another CPU were in blk_run_queue */
	assert_int_equal(blk_read(&rd->dev, 10, 4, buf), 0);
	assert_int_equal(rd->ncalls, 1);
	assert_int_equal(rd->calls[0].lba, 10);
	assert_int_equal(blk_read(&rd->dev, DISK_BLOCKS - 1, 2, buf), -ERANGE);
	assert_int_equal(rd->ncalls, 1);
	assert_int_equal(rd->dev.stats.refused, 1);
	assert_int_equal(rd->dev.stats.requests, 1);
	assert_int_equal(rd->dev.stats.blocks_read, 4);
	assert_null(rd->dev.queue_head);
	rd->dev.concurrent = false;  /* the same read on a one-CPU device waits for the running queue */
	assert_int_equal(blk_read(&rd->dev, 10, 4, buf), -EBUSY);
	rd->dev.running = false;
	rd_free(rd);
}

static void the_queue_is_bounded(void **state)
{
	struct ramdisk *rd = rd_registered("hda", 8);
	static struct blk_request reqs[BLK_QUEUE_MAX + 1];
	static uint8_t buf[SECTOR];

	(void)state;
	for (int i = 0; i <= BLK_QUEUE_MAX; i++) {
		reqs[i] = (struct blk_request){ .dev = &rd->dev, .op = BLK_OP_READ, .lba = (uint64_t)i,
						.count = 1, .buf = buf };
		assert_int_equal(blk_submit(&reqs[i]), i < BLK_QUEUE_MAX ? 0 : -EAGAIN);
	}
	assert_int_equal(blk_run_queue(&rd->dev), BLK_QUEUE_MAX);
	assert_int_equal(blk_submit(&reqs[BLK_QUEUE_MAX]), 0);
	assert_int_equal(blk_wait(&reqs[BLK_QUEUE_MAX]), 0);
	rd_free(rd);
}

static void waiting_for_a_request_never_submitted_is_an_error(void **state)
{
	struct ramdisk *rd = rd_registered("hda", 8);
	uint8_t buf[SECTOR];
	struct blk_request r = { .dev = &rd->dev, .op = BLK_OP_READ, .count = 1, .buf = buf };

	(void)state;
	assert_int_equal(blk_wait(&r), -EINVAL);
	assert_int_equal(blk_wait(NULL), -EINVAL);
	rd_free(rd);
}

static void unregistering_fails_what_is_still_queued(void **state)
{
	struct ramdisk *rd = rd_registered("hda", 8);
	uint8_t buf[SECTOR];
	struct blk_request r = { .dev = &rd->dev, .op = BLK_OP_READ, .count = 1, .buf = buf };

	(void)state;
	assert_int_equal(blk_submit(&r), 0);
	blk_unregister(&rd->dev);
	assert_true(r.done);
	assert_int_equal(r.status, -ENODEV);
	assert_int_equal(rd->ncalls, 0);
	assert_int_equal(blk_read(&rd->dev, 0, 1, buf), -EINVAL);
	free(rd);
}

static void a_removable_device_without_medium_says_so_and_revalidates_on_change(void **state)
{
	struct ramdisk *rd = rd_new("hdc", 8);
	uint8_t buf[SECTOR];

	(void)state;
	rd->dev.removable = true;
	rd->dev.read_only = true;
	rd->dev.nr_blocks = 0;
	rd->medium_blocks = 0;
	assert_int_equal(blk_register(&rd->dev), 0);
	assert_int_equal(blk_read(&rd->dev, 0, 1, buf), -ENOMEDIUM);
	assert_int_equal(rd->revalidations, 1);
	rd->medium_blocks = 100;                 /* a disc is inserted */
	assert_int_equal(blk_read(&rd->dev, 99, 1, buf), 0);
	assert_int_equal(rd->revalidations, 2);
	assert_int_equal(blk_read(&rd->dev, 0, 1, buf), 0);
	assert_int_equal(rd->revalidations, 2);  /* no change reported: no new look */
	rd->medium_blocks = 10;                  /* the driver saw a medium change */
	rd->dev.media_changed = true;
	assert_int_equal(blk_read(&rd->dev, 99, 1, buf), -ERANGE);
	assert_int_equal(rd->revalidations, 3);
	rd_free(rd);
}

/* ---- Shell helpers -------------------------------------------------------------------- */

static void crc_helper_prints_what_zlib_computes_over_the_disk(void **state)
{
	struct ramdisk *rd = rd_registered("hda", 8);
	char want[64];

	(void)state;
	/* 300 blocks: more than one bounce buffer (256 sectors) */
	unsigned long z = crc32(0, rd->data + 700 * SECTOR, 300 * SECTOR);
	snprintf(want, sizeof(want), "crc32 hda 700+300 = %08lx (", z);
	assert_int_equal(blk_print_crc(&rd->dev, 700, 300), 0);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "153600 bytes in"));
	rd_free(rd);
}

static void write_pattern_then_verify_pattern_agree_and_touch_nothing_else(void **state)
{
	struct ramdisk *rd = rd_registered("hda", 16);
	static uint8_t before[DISK_BLOCKS * SECTOR];

	(void)state;
	memcpy(before, rd->data, sizeof(before));
	assert_int_equal(blk_print_write_pattern(&rd->dev, 0xABCD, 10, 270), 0);
	assert_non_null(strstr(out, "write-pattern hda 10+270 seed 0x0000abcd: ok"));
	for (uint64_t lba = 0; lba < DISK_BLOCKS; lba++) {
		const uint8_t *blk = rd->data + lba * SECTOR;

		if (lba >= 10 && lba < 280)
			assert_int_equal(pattern_check(0xABCD, lba, blk, SECTOR, NULL), 0);
		else
			assert_memory_equal(blk, before + lba * SECTOR, SECTOR);
	}
	assert_int_equal(blk_print_verify_pattern(&rd->dev, 0xABCD, 10, 270), 0);
	assert_non_null(strstr(out, "verify-pattern hda 10+270 seed 0x0000abcd: 270 right, 0 wrong"));
	rd_free(rd);
}

static void verify_pattern_names_the_damaged_blocks(void **state)
{
	struct ramdisk *rd = rd_registered("hda", 16);

	(void)state;
	assert_int_equal(blk_print_write_pattern(&rd->dev, 7, 0, 32), 0);
	rd->data[5 * SECTOR + 100] ^= 1;
	memset(rd->data + 20 * SECTOR, 0, SECTOR);
	out_len = 0;
	assert_int_equal(blk_print_verify_pattern(&rd->dev, 7, 0, 32), -EIO);
	assert_non_null(strstr(out, "LBA 5: 1 bytes differ, the first at offset 100"));
	assert_non_null(strstr(out, "LBA 20: "));
	assert_non_null(strstr(out, ": 30 right, 2 wrong"));
	assert_int_equal(blk_print_verify_pattern(&rd->dev, 8, 0, 1), -EIO);
	rd_free(rd);
}

static void helpers_report_a_driver_error_with_its_lba(void **state)
{
	struct ramdisk *rd = rd_registered("hda", 8);

	(void)state;
	rd->fail_at_call = 0;
	rd->fail_err = -ETIMEDOUT;
	assert_int_equal(blk_print_crc(&rd->dev, 40, 4), -ETIMEDOUT);
	assert_non_null(strstr(out, "crc32 hda 40+4: failed at LBA 40: ETIMEDOUT"));
	rd_free(rd);
}

static void the_blk_command_checks_its_words(void **state)
{
	struct ramdisk *rd = rd_registered("hda", 8);
	char *list[] = { "blk", NULL };
	char *nodev[] = { "blk", "crc", "hdz", "0", "1", NULL };
	char *badnum[] = { "blk", "crc", "hda", "12x", "1", NULL };
	char *short_[] = { "blk", "crc", "hda", "1", NULL };
	char *past[] = { "blk", "crc", "hda", "1024", "1", NULL };
	char *good[] = { "blk", "crc", "hda", "0x10", "2", NULL };

	(void)state;
	assert_int_equal(blk_cmd(1, list), 0);
	assert_non_null(strstr(out, "hda  RAM disk"));
	assert_int_equal(blk_cmd(5, nodev), -ENODEV);
	assert_non_null(strstr(out, "no block device 'hdz'"));
	assert_int_equal(blk_cmd(5, badnum), -EINVAL);
	assert_int_equal(blk_cmd(4, short_), -EINVAL);
	assert_int_equal(blk_cmd(5, past), -ERANGE);
	assert_non_null(strstr(out, "outside the device"));
	assert_int_equal(blk_cmd(5, good), 0);
	assert_non_null(strstr(out, "crc32 hda 16+2 = "));
	rd_free(rd);
}

static void numbers_parse_in_decimal_and_hex_up_to_their_limit(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(blk_parse_number("0", 10, &v), 0);
	assert_true(v == 0);
	assert_int_equal(blk_parse_number("268435461", UINT64_MAX, &v), 0);
	assert_true(v == 268435461);
	assert_int_equal(blk_parse_number("0x1000000ab", UINT64_MAX, &v), 0);
	assert_true(v == 0x1000000abull);
	assert_int_equal(blk_parse_number("18446744073709551615", UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(blk_parse_number("18446744073709551616", UINT64_MAX, &v), -ERANGE);
	assert_int_equal(blk_parse_number("11", 10, &v), -ERANGE);
	assert_int_equal(blk_parse_number("", 10, &v), -EINVAL);
	assert_int_equal(blk_parse_number("0x", 10, &v), -EINVAL);
	assert_int_equal(blk_parse_number("-1", 10, &v), -EINVAL);
	assert_int_equal(blk_parse_number("1 ", 10, &v), -EINVAL);
	assert_int_equal(blk_parse_number("ff", 1000, &v), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(register_refuses_bad_descriptions, setup),
		cmocka_unit_test_setup(a_name_is_taken_once_and_the_table_is_bounded, setup),
		cmocka_unit_test_setup(a_read_is_split_into_the_drivers_pieces_in_order, setup),
		cmocka_unit_test_setup(a_write_reaches_the_disk_and_reads_back, setup),
		cmocka_unit_test_setup(ranges_past_the_end_or_wrapping_never_reach_the_driver, setup),
		cmocka_unit_test_setup(writes_to_a_read_only_device_are_refused, setup),
		cmocka_unit_test_setup(queued_requests_run_in_submission_order_and_complete_once, setup),
		cmocka_unit_test_setup(a_failing_piece_ends_the_request_with_its_error_and_the_next_one_runs, setup),
		cmocka_unit_test_setup(the_queue_is_bounded, setup),
		cmocka_unit_test_setup(a_concurrent_device_is_called_directly_with_the_same_checks, setup),
		cmocka_unit_test_setup(waiting_for_a_request_never_submitted_is_an_error, setup),
		cmocka_unit_test_setup(unregistering_fails_what_is_still_queued, setup),
		cmocka_unit_test_setup(a_removable_device_without_medium_says_so_and_revalidates_on_change, setup),
		cmocka_unit_test_setup(crc_helper_prints_what_zlib_computes_over_the_disk, setup),
		cmocka_unit_test_setup(write_pattern_then_verify_pattern_agree_and_touch_nothing_else, setup),
		cmocka_unit_test_setup(verify_pattern_names_the_damaged_blocks, setup),
		cmocka_unit_test_setup(helpers_report_a_driver_error_with_its_lba, setup),
		cmocka_unit_test_setup(the_blk_command_checks_its_words, setup),
		cmocka_unit_test_setup(numbers_parse_in_decimal_and_hex_up_to_their_limit, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
