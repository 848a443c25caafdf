/*
 * test_ahci_decode.c - host unit tests for the pure logic of the AHCI
 * driver (drivers/ata/ahci_decode.c): the Register Host to Device FIS of
 * 28- and 48-bit commands, PRD tables (pieces, odd counts and addresses,
 * the 4 GiB limit, too many entries), what a failed command's PxIS,
 * PxSERR and PxTFD decode to, and device signatures.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../drivers/ata/ahci_internal.h"
#include <kernel/errno.h>

#define MSG 240

static void an_lba48_read_puts_every_address_byte_and_the_count_in_its_place(void **state)
{
	struct ata_taskfile tf = { .command = 0x25, .count = 0x1234, .lba = 0x0000A1B2C3D4E5F6ull & 0xFFFFFFFFFFFFull,
				   .lba48 = true, .lba_mode = true };
	uint8_t fis[FIS_H2D_BYTES];

	(void)state;
	ahci_build_h2d_fis(fis, &tf);
	assert_int_equal(fis[FIS_TYPE], 0x27);
	assert_int_equal(fis[FIS_FLAGS], 0x80);             /* C: a command */
	assert_int_equal(fis[FIS_COMMAND], 0x25);
	assert_int_equal(fis[FIS_LBA0], 0xF6);
	assert_int_equal(fis[FIS_LBA1], 0xE5);
	assert_int_equal(fis[FIS_LBA2], 0xD4);
	assert_int_equal(fis[FIS_LBA3], 0xC3);
	assert_int_equal(fis[FIS_LBA4], 0xB2);
	assert_int_equal(fis[FIS_LBA5], 0xA1);
	assert_int_equal(fis[FIS_DEVICE], 0x40);            /* LBA, nothing else */
	assert_int_equal(fis[FIS_COUNT], 0x34);
	assert_int_equal(fis[FIS_COUNT_EXP], 0x12);
	for (unsigned int i = FIS_ICC; i < FIS_H2D_BYTES; i++)
		assert_int_equal(fis[i], 0);
}

static void an_lba28_command_carries_bits_27_to_24_in_the_device_byte(void **state)
{
	struct ata_taskfile tf = { .command = 0xC8, .count = 256, .lba = 0x0ABCDEF1, .lba_mode = true };
	uint8_t fis[FIS_H2D_BYTES];

	(void)state;
	ahci_build_h2d_fis(fis, &tf);
	assert_int_equal(fis[FIS_DEVICE], 0x40 | 0x0A);
	assert_int_equal(fis[FIS_LBA3], 0);
	assert_int_equal(fis[FIS_COUNT], 0);                /* 256 sectors: count 0 */
	assert_int_equal(fis[FIS_COUNT_EXP], 0);
	tf.lba_mode = false;                                /* IDENTIFY: no LBA bit */
	tf.command = 0xEC;
	ahci_build_h2d_fis(fis, &tf);
	assert_int_equal(fis[FIS_DEVICE], 0);
}

static void a_transfer_is_cut_into_pieces_with_odd_byte_counts(void **state)
{
	struct ahci_prd prdt[4];

	(void)state;
	assert_int_equal(ahci_fill_prdt(prdt, 4, 0x100000, 131072 + 512, 65536), 3);
	assert_int_equal(prdt[0].dba, 0x100000);
	assert_int_equal(prdt[0].dbc, 65535);
	assert_int_equal(prdt[1].dba, 0x110000);
	assert_int_equal(prdt[2].dba, 0x120000);
	assert_int_equal(prdt[2].dbc, 511);
	assert_int_equal(prdt[2].dbau, 0);
	assert_int_equal(ahci_fill_prdt(prdt, 4, 0x2000, 18, 65536), 1);
	assert_int_equal(prdt[0].dbc, 17);
}

static void buffers_the_hba_cannot_take_are_refused(void **state)
{
	struct ahci_prd prdt[2];

	(void)state;
	assert_int_equal(ahci_fill_prdt(prdt, 2, 0x1001, 512, 65536), -EINVAL);    /* odd address */
	assert_int_equal(ahci_fill_prdt(prdt, 2, 0x1000, 511, 65536), -EINVAL);    /* odd length */
	assert_int_equal(ahci_fill_prdt(prdt, 2, 0x1000, 0, 65536), -EINVAL);
	assert_int_equal(ahci_fill_prdt(prdt, 2, 0xFFFFF000ull, 8192, 65536), -EINVAL);  /* past 4 GiB */
	assert_int_equal(ahci_fill_prdt(prdt, 2, 0x1000, 512, 8u << 20), -EINVAL); /* piece > 4 MiB */
	assert_int_equal(ahci_fill_prdt(prdt, 2, 0x1000, 3 * 65536, 65536), -E2BIG);
}

static void a_task_file_error_is_the_devices_decision_decoded(void **state)
{
	char msg[MSG];

	(void)state;
	/* LBA past the end as QEMU answers it: ERR with ABRT */
	assert_int_equal(ahci_decode_error(AHCI_PxIS_TFES | AHCI_PxIS_DHRS, 0, 0x0441, msg, sizeof(msg)), -EIO);
	assert_non_null(strstr(msg, "ABRT"));
	/* IDNF: the address is not on the medium */
	assert_int_equal(ahci_decode_error(AHCI_PxIS_TFES, 0, (ATA_ER_IDNF << 8) | 0x51, msg, sizeof(msg)),
			 -ERANGE);
	/* TFES with a status that lost its ERR bit is still an error */
	assert_true(ahci_decode_error(AHCI_PxIS_TFES, 0, 0x0440, msg, sizeof(msg)) < 0);
}

static void hba_errors_win_over_the_task_file_and_name_serror(void **state)
{
	char msg[MSG];

	(void)state;
	assert_int_equal(ahci_decode_error(AHCI_PxIS_HBFS | AHCI_PxIS_TFES, 1u << 9, 0x0441, msg, sizeof(msg)),
			 -EPROTO);
	assert_non_null(strstr(msg, "host bus fatal"));
	assert_non_null(strstr(msg, "HBFS TFES"));
	assert_non_null(strstr(msg, "C(persistent communication)"));
	assert_int_equal(ahci_decode_error(AHCI_PxIS_IFS, 0, 0x50, msg, sizeof(msg)), -EPROTO);
	assert_non_null(strstr(msg, "interface fatal"));
	assert_int_equal(ahci_decode_error(AHCI_PxIS_DHRS, 0, 0x50, msg, sizeof(msg)), 0);
}

static void names_are_truncated_never_overflowed(void **state)
{
	char buf[12];

	(void)state;
	assert_string_equal(ahci_is_names(AHCI_PxIS_DHRS | AHCI_PxIS_PSS | AHCI_PxIS_TFES, buf, sizeof(buf)),
			    "DHRS PSS TF");   /* cut at the buffer's end */
	assert_string_equal(ahci_is_names(0, buf, sizeof(buf)), "none");
	assert_string_equal(ahci_serr_names(0, buf, sizeof(buf)), "none");
}

static void signatures_tell_disks_cdroms_and_the_rest_apart(void **state)
{
	(void)state;
	assert_int_equal(ahci_classify_signature(0x00000101), ATA_CLASS_ATA);
	assert_int_equal(ahci_classify_signature(0xEB140101), ATA_CLASS_ATAPI);
	assert_int_equal(ahci_classify_signature(0xFFFFFFFF), ATA_CLASS_NONE);
	assert_int_equal(ahci_classify_signature(0x96690101), ATA_CLASS_UNKNOWN);   /* port multiplier */
	assert_int_equal(ahci_classify_signature(0xC33C0101), ATA_CLASS_UNKNOWN);   /* SEMB */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_lba48_read_puts_every_address_byte_and_the_count_in_its_place),
		cmocka_unit_test(an_lba28_command_carries_bits_27_to_24_in_the_device_byte),
		cmocka_unit_test(a_transfer_is_cut_into_pieces_with_odd_byte_counts),
		cmocka_unit_test(buffers_the_hba_cannot_take_are_refused),
		cmocka_unit_test(a_task_file_error_is_the_devices_decision_decoded),
		cmocka_unit_test(hba_errors_win_over_the_task_file_and_name_serror),
		cmocka_unit_test(names_are_truncated_never_overflowed),
		cmocka_unit_test(signatures_tell_disks_cdroms_and_the_rest_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
