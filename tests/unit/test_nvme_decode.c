/*
 * test_nvme_decode.c - host unit tests for drivers/nvme/nvme_decode.c:
 * what a namespace's identify data (NVMe 1.4 figure 245) may claim and
 * whether the driver believes it, status fields in words and errors, and
 * the PRP entries of a buffer (4.3). QEMU's namespaces are always sane, so
 * the absurd ones live here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/errno.h>

#include "nvme/nvme_internal.h"

static uint8_t id[NVME_IDENTIFY_BYTES];

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A namespace of @blocks blocks of 2^@lbads bytes in format @fmt of @nlbaf + 1, metadata @ms. */
static void make_ns(uint64_t blocks, unsigned int lbads, unsigned int fmt, unsigned int nlbaf, unsigned int ms)
{
	uint32_t lbaf = (uint32_t)lbads << 16 | ms;

	memset(id, 0, sizeof(id));
	put64(id + NVME_IDNS_NSZE, blocks);
	put64(id + NVME_IDNS_NCAP, blocks);
	id[NVME_IDNS_NLBAF] = (uint8_t)nlbaf;
	id[NVME_IDNS_FLBAS] = (uint8_t)fmt;
	memcpy(id + NVME_IDNS_LBAF + 4 * (fmt % NVME_LBAF_COUNT), &lbaf, 4);
}

static int parse(struct nvme_ns_info *ns, char *why)
{
	return nvme_ns_parse(id, ns, why, 128);
}

static void qemu_namespace_of_512_byte_blocks_is_accepted(void **state)
{
	struct nvme_ns_info ns;
	char why[128] = "";

	(void)state;
	make_ns(131072, 9, 0, 0, 0);
	assert_int_equal(parse(&ns, why), 0);
	assert_int_equal(ns.blocks, 131072);
	assert_int_equal(ns.block_size, 512);
	assert_false(ns.read_only);
	make_ns(3ull << 31, 12, 3, 4, 0);          /* 4 KiB blocks in format 3, beyond 2^32 blocks */
	id[NVME_IDNS_NSATTR] = 1;
	assert_int_equal(parse(&ns, why), 0);
	assert_int_equal(ns.block_size, 4096);
	assert_int_equal(ns.blocks, 3ull << 31);
	assert_true(ns.read_only);
}

static void zero_or_absurd_sizes_are_refused(void **state)
{
	struct nvme_ns_info ns;
	char why[128] = "";

	(void)state;
	make_ns(0, 9, 0, 0, 0);
	assert_int_equal(parse(&ns, why), -EINVAL);
	assert_non_null(strstr(why, "size is 0"));
	make_ns(UINT64_MAX, 9, 0, 0, 0);           /* 2^64 blocks of 512 bytes: more bytes than 64 bits hold */
	assert_int_equal(parse(&ns, why), -EINVAL);
	assert_non_null(strstr(why, "overflows"));
	make_ns(1000, 9, 0, 0, 0);
	put64(id + NVME_IDNS_NCAP, 1001);
	assert_int_equal(parse(&ns, why), -EINVAL);
	assert_non_null(strstr(why, "capacity"));
}

static void absurd_block_sizes_and_formats_are_refused(void **state)
{
	struct nvme_ns_info ns;
	char why[128] = "";

	(void)state;
	make_ns(1000, 8, 0, 0, 0);                 /* 256-byte blocks */
	assert_int_equal(parse(&ns, why), -EINVAL);
	assert_non_null(strstr(why, "block size"));
	make_ns(1000, 13, 0, 0, 0);                /* 8 KiB: more than kernel/blk takes */
	assert_int_equal(parse(&ns, why), -EINVAL);
	make_ns(1000, 255, 0, 0, 0);
	assert_int_equal(parse(&ns, why), -EINVAL);
	make_ns(1000, 9, 5, 2, 0);                 /* format 5 of 3 */
	assert_int_equal(parse(&ns, why), -EINVAL);
	assert_non_null(strstr(why, "LBA format"));
	make_ns(1000, 9, 0, 200, 0);               /* NLBAF beyond the 16 formats */
	assert_int_equal(parse(&ns, why), -EINVAL);
	make_ns(1000, 9, 0, 0, 8);                 /* 8 bytes of metadata per block */
	assert_int_equal(parse(&ns, why), -EINVAL);
	assert_non_null(strstr(why, "metadata"));
}

static void status_fields_are_decoded_with_their_errors(void **state)
{
	char text[96];
	uint16_t lba_range = (uint16_t)(0x80 << 1 | NVME_STATUS_DNR);
	uint16_t write_protected = (uint16_t)(1 << 9 | 0x20 << 1);

	(void)state;
	assert_int_equal(nvme_status_errno(0), 0);
	assert_string_equal(nvme_status_text(0, text, sizeof(text)), "Success");
	assert_int_equal(nvme_status_errno(lba_range), -ERANGE);
	assert_string_equal(nvme_status_text(lba_range, text, sizeof(text)),
			    "Generic / LBA Out of Range (sct 0 sc 0x80, do not retry)");
	assert_int_equal(nvme_status_errno(write_protected), -EROFS);
	assert_int_equal(nvme_status_errno((uint16_t)(7 << 9 | 0x42 << 1)), -EIO);   /* vendor specific */
	assert_non_null(strstr(nvme_status_text((uint16_t)(7 << 9 | 0x42 << 1), text, sizeof(text)), "unknown status"));
}

static void prp_entries_cover_the_buffer_page_by_page(void **state)
{
	uint64_t list[512], prp1, prp2;

	(void)state;
	/* Within one page: PRP1 only. */
	assert_int_equal(nvme_prp_setup(0x100200, 512, list, 0x200000, &prp1, &prp2), 0);
	assert_int_equal(prp1, 0x100200);
	assert_int_equal(prp2, 0);
	/* Two pages: PRP2 is the second page itself. */
	assert_int_equal(nvme_prp_setup(0x100e00, 1024, list, 0x200000, &prp1, &prp2), 0);
	assert_int_equal(prp2, 0x101000);
	/* 128 KiB from mid-page: 33 pages, PRP2 points at a list of the 32 after the first. */
	memset(list, 0, sizeof(list));
	assert_int_equal(nvme_prp_setup(0x100200, 131072, list, 0x200000, &prp1, &prp2), 0);
	assert_int_equal(prp2, 0x200000);
	assert_int_equal(list[0], 0x101000);
	assert_int_equal(list[31], 0x120000);
	assert_int_equal(list[32], 0);
	/* Refused: misaligned, too long, empty, a list that is not page-aligned. */
	assert_int_equal(nvme_prp_setup(0x100201, 512, list, 0x200000, &prp1, &prp2), -EINVAL);
	assert_int_equal(nvme_prp_setup(0x100000, 131072 + 512, list, 0x200000, &prp1, &prp2), -EINVAL);
	assert_int_equal(nvme_prp_setup(0x100000, 0, list, 0x200000, &prp1, &prp2), -EINVAL);
	assert_int_equal(nvme_prp_setup(0x100000, 65536, list, 0x200100, &prp1, &prp2), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(qemu_namespace_of_512_byte_blocks_is_accepted),
		cmocka_unit_test(zero_or_absurd_sizes_are_refused),
		cmocka_unit_test(absurd_block_sizes_and_formats_are_refused),
		cmocka_unit_test(status_fields_are_decoded_with_their_errors),
		cmocka_unit_test(prp_entries_cover_the_buffer_page_by_page),
	};
	return cmocka_run_group_tests_name("nvme_decode", tests, NULL, NULL);
}
