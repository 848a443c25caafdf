/*
 * test_usb_scsi.c - host unit tests of drivers/usb/usb_scsi.c: the CBW
 * bytes exactly as Bulk-Only Transport 1.0 table 5.1 lays them out, every
 * rule of BOT 6.3 for a valid and meaningful CSW, the SCSI command blocks
 * (SPC-3, SBC-2), and the INQUIRY, READ CAPACITY(10) and sense parsers fed
 * truncated and corrupted data.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../drivers/usb/usb_scsi.h"
#include <kernel/errno.h>

#define WHY 160

/* ---- CBW ----------------------------------------------------------------------------- */

static void a_read10_cbw_has_the_bytes_bot_table_5_1_specifies(void **state)
{
	uint8_t cdb[10], cbw[31];
	static const uint8_t want[31] = {
		0x55, 0x53, 0x42, 0x43,       /* dCBWSignature 43425355h, little-endian: "USBC" */
		0x78, 0x56, 0x34, 0x12,       /* dCBWTag */
		0x00, 0x10, 0x00, 0x00,       /* dCBWDataTransferLength 4096 */
		0x80,                         /* bmCBWFlags: data in */
		0x00,                         /* bCBWLUN */
		0x0A,                         /* bCBWCBLength */
		0x28, 0x00, 0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x08, 0x00, /* READ(10) lba 0x01020304, 8 blocks */
		0, 0, 0, 0, 0, 0,             /* rest of CBWCB */
	};

	(void)state;
	assert_int_equal(scsi_cdb_read10(cdb, 0x01020304, 8), 10);
	memset(cbw, 0xAA, sizeof(cbw));
	assert_int_equal(usb_bot_build_cbw(cbw, 0x12345678, 4096, true, 0, cdb, 10), 0);
	assert_memory_equal(cbw, want, sizeof(want));
}

static void a_write_cbw_is_out_and_a_no_data_cbw_has_flags_zero(void **state)
{
	uint8_t cdb[10], cbw[31];

	(void)state;
	scsi_cdb_write10(cdb, 7, 1);
	assert_int_equal(usb_bot_build_cbw(cbw, 1, 512, false, 3, cdb, 10), 0);
	assert_int_equal(cbw[12], 0x00);
	assert_int_equal(cbw[13], 3);
	assert_int_equal(cbw[15], 0x2A);
	/* TEST UNIT READY: no data, so no direction even if asked for IN */
	scsi_cdb_test_unit_ready(cdb);
	assert_int_equal(usb_bot_build_cbw(cbw, 2, 0, true, 0, cdb, 6), 0);
	assert_int_equal(cbw[12], 0x00);
	assert_int_equal(cbw[14], 6);
	for (int i = 15; i < 31; i++)
		assert_int_equal(cbw[i], 0);
}

static void cbw_arguments_out_of_range_are_refused(void **state)
{
	uint8_t cdb[17] = {0}, cbw[31];

	(void)state;
	memset(cbw, 0xAA, sizeof(cbw));
	assert_int_equal(usb_bot_build_cbw(cbw, 1, 0, false, 0, cdb, 0), -EINVAL);
	assert_int_equal(usb_bot_build_cbw(cbw, 1, 0, false, 0, cdb, 17), -EINVAL);
	assert_int_equal(usb_bot_build_cbw(cbw, 1, 0, false, 16, cdb, 6), -EINVAL);
	assert_int_equal(usb_bot_build_cbw(cbw, 1, 0, false, 0, NULL, 6), -EINVAL);
	assert_int_equal(usb_bot_build_cbw(NULL, 1, 0, false, 0, cdb, 6), -EINVAL);
	assert_int_equal(cbw[0], 0xAA);   /* nothing written */
	assert_int_equal(usb_bot_build_cbw(cbw, 1, 0, false, 15, cdb, 16), 0);
}

/* ---- CSW ----------------------------------------------------------------------------- */

static void make_csw(uint8_t *b, uint32_t sig, uint32_t tag, uint32_t residue, uint8_t status)
{
	for (int i = 0; i < 4; i++) {
		b[i] = (uint8_t)(sig >> (8 * i));
		b[4 + i] = (uint8_t)(tag >> (8 * i));
		b[8 + i] = (uint8_t)(residue >> (8 * i));
	}
	b[12] = status;
}

static void a_good_csw_passes_with_its_fields(void **state)
{
	uint8_t b[13];
	struct usb_bot_csw csw;
	char why[WHY];

	(void)state;
	make_csw(b, 0x53425355, 0xCAFE, 0, 0);
	assert_memory_equal(b, "USBS", 4);
	assert_int_equal(usb_bot_check_csw(b, 13, 0xCAFE, 512, &csw, why, sizeof(why)),
			 USB_BOT_CSW_PASSED);
	assert_int_equal(csw.tag, 0xCAFE);
	assert_int_equal(csw.status, 0);
	assert_string_equal(why, "");
	/* residue equal to the length is still meaningful (nothing moved) */
	make_csw(b, 0x53425355, 0xCAFE, 512, 0);
	assert_int_equal(usb_bot_check_csw(b, 13, 0xCAFE, 512, &csw, why, sizeof(why)),
			 USB_BOT_CSW_PASSED);
	assert_int_equal(csw.residue, 512);
}

static void a_csw_of_the_wrong_length_is_invalid(void **state)
{
	uint8_t b[32] = {0};
	char why[WHY];

	(void)state;
	make_csw(b, 0x53425355, 5, 0, 0);
	assert_int_equal(usb_bot_check_csw(b, 12, 5, 0, NULL, why, sizeof(why)), USB_BOT_CSW_INVALID);
	assert_string_equal(why, "CSW of 12 bytes, not 13");
	assert_int_equal(usb_bot_check_csw(b, 14, 5, 0, NULL, why, sizeof(why)), USB_BOT_CSW_INVALID);
	assert_int_equal(usb_bot_check_csw(b, 31, 5, 0, NULL, why, sizeof(why)), USB_BOT_CSW_INVALID);
	assert_int_equal(usb_bot_check_csw(b, 0, 5, 0, NULL, why, sizeof(why)), USB_BOT_CSW_INVALID);
	assert_int_equal(usb_bot_check_csw(NULL, 13, 5, 0, NULL, why, sizeof(why)), USB_BOT_CSW_INVALID);
}

static void a_csw_with_a_wrong_signature_is_invalid(void **state)
{
	uint8_t b[13];
	char why[WHY];

	(void)state;
	make_csw(b, 0x43425355, 5, 0, 0);    /* a CBW signature echoed back */
	assert_int_equal(usb_bot_check_csw(b, 13, 5, 0, NULL, why, sizeof(why)), USB_BOT_CSW_INVALID);
	assert_string_equal(why, "CSW signature 0x43425355, not 0x53425355");
	make_csw(b, 0x53425354, 5, 0, 0);
	assert_int_equal(usb_bot_check_csw(b, 13, 5, 0, NULL, why, sizeof(why)), USB_BOT_CSW_INVALID);
	/* a data block that happened to be 13 bytes */
	memset(b, 0, sizeof(b));
	assert_int_equal(usb_bot_check_csw(b, 13, 0, 0, NULL, why, sizeof(why)), USB_BOT_CSW_INVALID);
}

static void a_csw_with_another_commands_tag_is_invalid(void **state)
{
	uint8_t b[13];
	struct usb_bot_csw csw;
	char why[WHY];

	(void)state;
	make_csw(b, 0x53425355, 41, 0, 0);
	assert_int_equal(usb_bot_check_csw(b, 13, 42, 0, &csw, why, sizeof(why)), USB_BOT_CSW_INVALID);
	assert_string_equal(why, "CSW tag 0x29 does not match the CBW's 0x2a");
	assert_int_equal(csw.tag, 41);
}

static void status_one_fails_two_is_a_phase_error_and_the_rest_mean_nothing(void **state)
{
	uint8_t b[13];
	char why[WHY];

	(void)state;
	make_csw(b, 0x53425355, 9, 100, 1);
	assert_int_equal(usb_bot_check_csw(b, 13, 9, 512, NULL, why, sizeof(why)), USB_BOT_CSW_FAILED);
	/* phase error: the residue is not looked at */
	make_csw(b, 0x53425355, 9, 0xFFFFFFFF, 2);
	assert_int_equal(usb_bot_check_csw(b, 13, 9, 512, NULL, why, sizeof(why)),
			 USB_BOT_CSW_PHASE_ERROR);
	for (unsigned int st = 3; st <= 0xFF; st++) {
		make_csw(b, 0x53425355, 9, 0, (uint8_t)st);
		assert_int_equal(usb_bot_check_csw(b, 13, 9, 512, NULL, why, sizeof(why)),
				 USB_BOT_CSW_NOT_MEANINGFUL);
	}
	make_csw(b, 0x53425355, 9, 0, 3);
	usb_bot_check_csw(b, 13, 9, 512, NULL, why, sizeof(why));
	assert_string_equal(why, "reserved CSW status 0x3");
}

static void a_residue_larger_than_the_transfer_is_not_meaningful(void **state)
{
	uint8_t b[13];
	char why[WHY];

	(void)state;
	make_csw(b, 0x53425355, 9, 513, 0);
	assert_int_equal(usb_bot_check_csw(b, 13, 9, 512, NULL, why, sizeof(why)),
			 USB_BOT_CSW_NOT_MEANINGFUL);
	assert_string_equal(why, "CSW residue 513 exceeds the transfer length 512");
	make_csw(b, 0x53425355, 9, 1, 1);     /* also for a failed command */
	assert_int_equal(usb_bot_check_csw(b, 13, 9, 0, NULL, why, sizeof(why)),
			 USB_BOT_CSW_NOT_MEANINGFUL);
	assert_string_equal(usb_bot_verdict_name(USB_BOT_CSW_NOT_MEANINGFUL), "not meaningful");
}

/* ---- CDBs ---------------------------------------------------------------------------- */

static void command_blocks_match_spc3_and_sbc2(void **state)
{
	uint8_t c[10];
	static const uint8_t inq[6] = {0x12, 0, 0, 0x00, 36, 0};
	static const uint8_t tur[6] = {0, 0, 0, 0, 0, 0};
	static const uint8_t rs[6] = {0x03, 0, 0, 0, 18, 0};
	static const uint8_t rc[10] = {0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0};
	static const uint8_t wr[10] = {0x2A, 0, 0xFF, 0xFF, 0xFF, 0xFE, 0, 0xFF, 0xFF, 0};

	(void)state;
	assert_int_equal(scsi_cdb_inquiry(c, 36), 6);
	assert_memory_equal(c, inq, 6);
	assert_int_equal(scsi_cdb_inquiry(c, 0x0102), 6);
	assert_int_equal(c[3], 1);
	assert_int_equal(c[4], 2);
	assert_int_equal(scsi_cdb_test_unit_ready(c), 6);
	assert_memory_equal(c, tur, 6);
	assert_int_equal(scsi_cdb_request_sense(c, 18), 6);
	assert_memory_equal(c, rs, 6);
	memset(c, 0xAA, sizeof(c));
	assert_int_equal(scsi_cdb_read_capacity10(c), 10);
	assert_memory_equal(c, rc, 10);
	assert_int_equal(scsi_cdb_write10(c, 0xFFFFFFFE, 0xFFFF), 10);
	assert_memory_equal(c, wr, 10);
}

/* ---- INQUIRY ------------------------------------------------------------------------- */

/* What QEMU's usb-storage (scsi-disk) answers, in the layout of SPC-3 table 82. */
static void qemu_inquiry(uint8_t *b)
{
	memset(b, 0, 36);
	b[0] = 0x00;           /* qualifier 0, direct access */
	b[1] = 0x80;           /* removable */
	b[2] = 0x05;           /* SPC-3 */
	b[3] = 0x02;           /* response data format 2 */
	b[4] = 31;             /* additional length: 36 bytes in all */
	memcpy(b + 8, "QEMU    ", 8);
	memcpy(b + 16, "QEMU HARDDISK   ", 16);
	memcpy(b + 32, "2.5+", 4);
}

static void inquiry_data_is_parsed_and_its_strings_trimmed(void **state)
{
	uint8_t b[36];
	struct scsi_inquiry inq;
	char why[WHY];

	(void)state;
	qemu_inquiry(b);
	assert_int_equal(scsi_parse_inquiry(b, 36, &inq, why, sizeof(why)), 0);
	assert_int_equal(inq.device_type, SCSI_TYPE_DISK);
	assert_true(inq.removable);
	assert_int_equal(inq.version, 5);
	assert_string_equal(inq.vendor, "QEMU");
	assert_string_equal(inq.product, "QEMU HARDDISK");
	assert_string_equal(inq.revision, "2.5+");
	/* non-printable bytes are shown as '?', never copied */
	b[9] = 0x07;
	b[20] = 0xC3;
	assert_int_equal(scsi_parse_inquiry(b, 36, &inq, why, sizeof(why)), 0);
	assert_string_equal(inq.vendor, "Q?MU");
	assert_string_equal(inq.product, "QEMU?HARDDISK");
	assert_string_equal(scsi_device_type_name(inq.device_type), "disk");
}

/* Issue 20: Bochs's INQUIRY pads with NUL bytes ("BOCHS  \0", "BOCHS HARDDISK \0", "1.0\0");
 * they printed as '?'. NUL is padding: cut at the end, a space inside. */
static void nul_bytes_in_inquiry_strings_are_padding_not_question_marks(void **state)
{
	uint8_t b[36];
	struct scsi_inquiry inq;
	char why[WHY];

	(void)state;
	qemu_inquiry(b);
	memcpy(b + 8, "BOCHS  \0", 8);
	memcpy(b + 16, "BOCHS HARDDISK \0", 16);
	memcpy(b + 32, "1.0\0", 4);
	assert_int_equal(scsi_parse_inquiry(b, 36, &inq, why, sizeof(why)), 0);
	assert_string_equal(inq.vendor, "BOCHS");
	assert_string_equal(inq.product, "BOCHS HARDDISK");
	assert_string_equal(inq.revision, "1.0");
	b[21] = 0;                                   /* "BOCHS\0HARDDISK" */
	assert_int_equal(scsi_parse_inquiry(b, 36, &inq, why, sizeof(why)), 0);
	assert_string_equal(inq.product, "BOCHS HARDDISK");
}

static void truncated_or_malformed_inquiry_data_is_refused(void **state)
{
	uint8_t b[36];
	struct scsi_inquiry inq;
	char why[WHY];

	(void)state;
	qemu_inquiry(b);
	for (size_t len = 0; len < 36; len++)
		assert_int_equal(scsi_parse_inquiry(b, len, &inq, why, sizeof(why)), -EPROTO);
	assert_string_equal(why, "INQUIRY data of 35 bytes, need 36");
	b[4] = 30;   /* additional length claims only 35 bytes */
	assert_int_equal(scsi_parse_inquiry(b, 36, &inq, why, sizeof(why)), -EPROTO);
	assert_string_equal(why, "INQUIRY additional length 30 covers only 35 bytes");
	qemu_inquiry(b);
	b[3] = 0x00;
	assert_int_equal(scsi_parse_inquiry(b, 36, &inq, why, sizeof(why)), -EPROTO);
	b[3] = 0x01;    /* SCSI-2 style is taken */
	assert_int_equal(scsi_parse_inquiry(b, 36, &inq, why, sizeof(why)), 0);
	qemu_inquiry(b);
	b[0] = 0x7F;    /* qualifier 3: no device at this LUN */
	assert_int_equal(scsi_parse_inquiry(b, 36, &inq, why, sizeof(why)), -ENODEV);
	assert_int_equal(inq.qualifier, 3);
	assert_int_equal(scsi_parse_inquiry(NULL, 36, &inq, why, sizeof(why)), -EPROTO);
}

/* ---- READ CAPACITY(10) ----------------------------------------------------------------- */

static void capacity(uint8_t *b, uint32_t last, uint32_t bs)
{
	for (int i = 0; i < 4; i++) {
		b[i] = (uint8_t)(last >> (24 - 8 * i));
		b[4 + i] = (uint8_t)(bs >> (24 - 8 * i));
	}
}

static void read_capacity_gives_blocks_and_a_sane_block_size(void **state)
{
	uint8_t b[8];
	struct scsi_capacity cap;
	char why[WHY];

	(void)state;
	capacity(b, 8191, 512);
	assert_int_equal(scsi_parse_capacity10(b, 8, &cap, why, sizeof(why)), 0);
	assert_int_equal(cap.last_lba, 8191);
	assert_int_equal(cap.nr_blocks, 8192);
	assert_int_equal(cap.block_size, 512);
	capacity(b, 0, 4096);
	assert_int_equal(scsi_parse_capacity10(b, 8, &cap, why, sizeof(why)), 0);
	assert_int_equal(cap.nr_blocks, 1);
	capacity(b, 0xFFFFFFFE, 2048);
	assert_int_equal(scsi_parse_capacity10(b, 8, &cap, why, sizeof(why)), 0);
	assert_int_equal(cap.nr_blocks, 0xFFFFFFFFull);
}

static void bad_capacity_data_is_refused(void **state)
{
	static const uint32_t bad_sizes[] = {0, 1, 256, 511, 513, 1000, 3072, 8192, 0x80000000u,
					     0xFFFFFFFFu};
	uint8_t b[9] = {0};
	struct scsi_capacity cap;
	char why[WHY];

	(void)state;
	capacity(b, 100, 512);
	for (size_t len = 0; len <= 9; len++)
		if (len != 8)
			assert_int_equal(scsi_parse_capacity10(b, len, &cap, why, sizeof(why)), -EPROTO);
	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		capacity(b, 100, bad_sizes[i]);
		assert_int_equal(scsi_parse_capacity10(b, 8, &cap, why, sizeof(why)), -EPROTO);
		assert_int_equal(cap.nr_blocks, 0);
	}
	capacity(b, 100, 3072);
	scsi_parse_capacity10(b, 8, &cap, why, sizeof(why));
	assert_string_equal(why, "block size 3072 is not a power of two from 512 to 4096");
	capacity(b, 0xFFFFFFFF, 512);
	assert_int_equal(scsi_parse_capacity10(b, 8, &cap, why, sizeof(why)), -EOVERFLOW);
}

/* ---- sense --------------------------------------------------------------------------- */

static void fixed(uint8_t *b, uint8_t code, uint8_t key, uint8_t asc, uint8_t ascq)
{
	memset(b, 0, 18);
	b[0] = code;
	b[2] = key;
	b[7] = 10;
	b[12] = asc;
	b[13] = ascq;
}

static void fixed_sense_gives_key_asc_ascq_and_a_clear_message(void **state)
{
	uint8_t b[18];
	struct scsi_sense s;
	char why[WHY], msg[WHY];

	(void)state;
	fixed(b, 0xF0, 0x22, 0x3A, 0x00);   /* VALID bit set, ILI bit in the key byte */
	assert_int_equal(scsi_parse_sense(b, 18, &s, why, sizeof(why)), 0);
	assert_int_equal(s.key, SCSI_SK_NOT_READY);
	assert_int_equal(s.asc, 0x3A);
	assert_false(s.deferred);
	scsi_sense_describe(&s, msg, sizeof(msg));
	assert_string_equal(msg, "NOT READY: medium not present (asc 0x3a ascq 0x00)");
	assert_int_equal(scsi_sense_errno(&s), -ENOMEDIUM);

	fixed(b, 0x71, 0x05, 0x21, 0x00);
	assert_int_equal(scsi_parse_sense(b, 14, &s, why, sizeof(why)), 0);
	assert_true(s.deferred);
	scsi_sense_describe(&s, msg, sizeof(msg));
	assert_string_equal(msg, "ILLEGAL REQUEST: logical block address out of range "
			    "(asc 0x21 ascq 0x00) [deferred]");
	assert_int_equal(scsi_sense_errno(&s), -ERANGE);

	fixed(b, 0x70, 0x06, 0x29, 0x02);
	scsi_parse_sense(b, 18, &s, why, sizeof(why));
	scsi_sense_describe(&s, msg, sizeof(msg));
	assert_string_equal(msg, "UNIT ATTENTION: power on, reset, or bus device reset occurred "
			    "(asc 0x29 ascq 0x02)");
	assert_int_equal(scsi_sense_errno(&s), -EAGAIN);

	fixed(b, 0x70, 0x03, 0x99, 0x42);
	scsi_parse_sense(b, 18, &s, why, sizeof(why));
	scsi_sense_describe(&s, msg, sizeof(msg));
	assert_string_equal(msg, "MEDIUM ERROR: unknown additional sense code (asc 0x99 ascq 0x42)");
	assert_int_equal(scsi_sense_errno(&s), -EIO);
	fixed(b, 0x70, 0x07, 0x27, 0x00);
	scsi_parse_sense(b, 18, &s, why, sizeof(why));
	assert_int_equal(scsi_sense_errno(&s), -EROFS);
}

static void descriptor_sense_is_read_from_its_own_offsets(void **state)
{
	uint8_t b[8] = {0x72, 0x02, 0x04, 0x01, 0, 0, 0, 0};
	struct scsi_sense s;
	char why[WHY];

	(void)state;
	assert_int_equal(scsi_parse_sense(b, 8, &s, why, sizeof(why)), 0);
	assert_int_equal(s.key, 2);
	assert_int_equal(s.asc, 4);
	assert_int_equal(s.ascq, 1);
	assert_int_equal(scsi_sense_errno(&s), -EAGAIN);
}

static void truncated_or_corrupted_sense_is_refused(void **state)
{
	uint8_t b[18];
	struct scsi_sense s;
	char why[WHY];

	(void)state;
	fixed(b, 0x70, 0x02, 0x04, 0x01);
	for (size_t len = 0; len < 14; len++)
		assert_int_equal(scsi_parse_sense(b, len, &s, why, sizeof(why)), -EPROTO);
	b[7] = 5;    /* additional length stops before the ASCQ */
	assert_int_equal(scsi_parse_sense(b, 18, &s, why, sizeof(why)), -EPROTO);
	assert_string_equal(why, "sense additional length 5 does not reach the ASCQ");
	fixed(b, 0x00, 0x02, 0x04, 0x01);   /* all zero header: no sense data at all */
	assert_int_equal(scsi_parse_sense(b, 18, &s, why, sizeof(why)), -EPROTO);
	assert_string_equal(why, "unknown sense response code 0x00");
	fixed(b, 0x7F, 0x02, 0x04, 0x01);   /* vendor-specific format */
	assert_int_equal(scsi_parse_sense(b, 18, &s, why, sizeof(why)), -EPROTO);
	assert_int_equal(scsi_parse_sense(NULL, 18, &s, why, sizeof(why)), -EPROTO);
	assert_int_equal(s.key, 0);
	assert_string_equal(scsi_sense_key_name(0x0C), "reserved");
	assert_string_equal(scsi_sense_key_name(0xFF), "reserved");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_read10_cbw_has_the_bytes_bot_table_5_1_specifies),
		cmocka_unit_test(nul_bytes_in_inquiry_strings_are_padding_not_question_marks),
		cmocka_unit_test(a_write_cbw_is_out_and_a_no_data_cbw_has_flags_zero),
		cmocka_unit_test(cbw_arguments_out_of_range_are_refused),
		cmocka_unit_test(a_good_csw_passes_with_its_fields),
		cmocka_unit_test(a_csw_of_the_wrong_length_is_invalid),
		cmocka_unit_test(a_csw_with_a_wrong_signature_is_invalid),
		cmocka_unit_test(a_csw_with_another_commands_tag_is_invalid),
		cmocka_unit_test(status_one_fails_two_is_a_phase_error_and_the_rest_mean_nothing),
		cmocka_unit_test(a_residue_larger_than_the_transfer_is_not_meaningful),
		cmocka_unit_test(command_blocks_match_spc3_and_sbc2),
		cmocka_unit_test(inquiry_data_is_parsed_and_its_strings_trimmed),
		cmocka_unit_test(truncated_or_malformed_inquiry_data_is_refused),
		cmocka_unit_test(read_capacity_gives_blocks_and_a_sane_block_size),
		cmocka_unit_test(bad_capacity_data_is_refused),
		cmocka_unit_test(fixed_sense_gives_key_asc_ascq_and_a_clear_message),
		cmocka_unit_test(descriptor_sense_is_read_from_its_own_offsets),
		cmocka_unit_test(truncated_or_corrupted_sense_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
