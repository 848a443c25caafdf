/*
 * test_ata_decode.c - host unit tests for the pure logic of drivers/ata
 * (ata_decode.c): what status/error registers and sense data are turned
 * into, IDENTIFY parsing (strings, capacities, feature words, integrity
 * word), signatures, the legacy/native channel layout of an IDE
 * controller, and the ata-drop decision.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../drivers/ata/ata_internal.h"
#include <kernel/errno.h>

#define MSG 200

/* ---- status and errors ------------------------------------------------------------------ */

static void status_bits_are_named_from_bsy_down(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(ata_status_names(0x58, buf, sizeof(buf)), "DRDY DSC DRQ");
	assert_string_equal(ata_status_names(0xD1, buf, sizeof(buf)), "BSY DRDY DSC ERR");
	assert_string_equal(ata_status_names(0x00, buf, sizeof(buf)), "none");
	/* too small a buffer truncates, never overflows */
	assert_string_equal(ata_status_names(0xFF, buf, 6), "BSY D");
}

static void an_aborted_command_decodes_to_eio_with_abrt_named(void **state)
{
	char msg[MSG];

	(void)state;
	assert_int_equal(ata_decode_error(0x51, ATA_ER_ABRT, msg, sizeof(msg)), -EIO);
	assert_string_equal(msg, "status 0x51 (DRDY DSC ERR), error 0x04 (ABRT: command aborted)");
}

static void error_bits_map_to_the_code_a_caller_can_act_on(void **state)
{
	char msg[MSG];

	(void)state;
	assert_int_equal(ata_decode_error(0x41, ATA_ER_IDNF | ATA_ER_ABRT, msg, sizeof(msg)), -ERANGE);
	assert_non_null(strstr(msg, "IDNF: address not found"));
	assert_int_equal(ata_decode_error(0x41, ATA_ER_UNC, msg, sizeof(msg)), -EIO);
	assert_non_null(strstr(msg, "UNC: uncorrectable data error"));
	assert_int_equal(ata_decode_error(0x41, ATA_ER_NM, msg, sizeof(msg)), -ENOMEDIUM);
	assert_int_equal(ata_decode_error(0x41, ATA_ER_MC, msg, sizeof(msg)), -EAGAIN);
	assert_int_equal(ata_decode_error(0x41, 0, msg, sizeof(msg)), -EIO);
	assert_non_null(strstr(msg, "no reason given"));
}

static void a_device_fault_is_eio_even_without_err(void **state)
{
	char msg[MSG];

	(void)state;
	assert_int_equal(ata_decode_error(0x60, 0, msg, sizeof(msg)), -EIO);
	assert_non_null(strstr(msg, "DRDY DF"));
	assert_non_null(strstr(msg, "device fault"));
}

static void sense_data_decodes_to_messages_and_codes(void **state)
{
	char msg[MSG];

	(void)state;
	assert_int_equal(atapi_decode_sense(SENSE_ILLEGAL_REQUEST, ASC_INVALID_OPCODE, 0, msg, sizeof(msg)),
			 -ENOSYS);
	assert_string_equal(msg, "ILLEGAL REQUEST: invalid command operation code (sense 5/20/00)");
	assert_int_equal(atapi_decode_sense(SENSE_NOT_READY, ASC_MEDIUM_NOT_PRESENT, 1, msg, sizeof(msg)),
			 -ENOMEDIUM);
	assert_string_equal(msg, "NOT READY: medium not present (sense 2/3a/01)");
	assert_int_equal(atapi_decode_sense(SENSE_UNIT_ATTENTION, ASC_MEDIUM_MAY_HAVE_CHANGED, 0, msg,
					    sizeof(msg)), -EAGAIN);
	assert_non_null(strstr(msg, "UNIT ATTENTION: medium may have changed"));
	assert_int_equal(atapi_decode_sense(SENSE_UNIT_ATTENTION, ASC_POWER_ON_RESET, 0, msg, sizeof(msg)),
			 -EAGAIN);
	assert_int_equal(atapi_decode_sense(SENSE_ILLEGAL_REQUEST, ASC_LBA_OUT_OF_RANGE, 0, msg, sizeof(msg)),
			 -ERANGE);
	assert_int_equal(atapi_decode_sense(SENSE_DATA_PROTECT, ASC_WRITE_PROTECTED, 0, msg, sizeof(msg)),
			 -EROFS);
	assert_int_equal(atapi_decode_sense(SENSE_MEDIUM_ERROR, ASC_UNRECOVERED_READ, 0, msg, sizeof(msg)),
			 -EIO);
	assert_int_equal(atapi_decode_sense(SENSE_RECOVERED_ERROR, 0x17, 0, msg, sizeof(msg)), 0);
	assert_int_equal(atapi_decode_sense(SENSE_HARDWARE_ERROR, 0x44, 0, msg, sizeof(msg)), -EIO);
	assert_non_null(strstr(msg, "HARDWARE ERROR: no further information (sense 4/44/00)"));
}

/* ---- IDENTIFY ---------------------------------------------------------------------------- */

static void put_string(uint16_t *w, unsigned int first, unsigned int words, const char *s)
{
	char padded[64];

	memset(padded, ' ', sizeof(padded));
	memcpy(padded, s, strlen(s));
	for (unsigned int i = 0; i < words; i++)
		w[first + i] = (uint16_t)((uint8_t)padded[2 * i] << 8 | (uint8_t)padded[2 * i + 1]);
}

/* A disk like QEMU's: LBA, LBA48, multiple 16, both flushes. */
static void fill_disk_identify(uint16_t *w, uint64_t lba28, uint64_t lba48)
{
	memset(w, 0, ATA_ID_WORDS * 2);
	w[ATA_ID_CONFIG] = 0x0040;
	put_string(w, ATA_ID_SERIAL, ATA_ID_SERIAL_WORDS, "QM00001");
	put_string(w, ATA_ID_FIRMWARE, ATA_ID_FIRMWARE_WORDS, "2.5+");
	put_string(w, ATA_ID_MODEL, ATA_ID_MODEL_WORDS, "QEMU HARDDISK");
	w[ATA_ID_MULTIPLE_MAX] = 0x8010;
	w[ATA_ID_CAPABILITIES] = ATA_ID_CAP_LBA;
	w[ATA_ID_LBA28_SECTORS] = (uint16_t)lba28;
	w[ATA_ID_LBA28_SECTORS + 1] = (uint16_t)(lba28 >> 16);
	w[ATA_ID_COMMAND_SET_2] = ATA_ID_CMD2_VALID | ATA_ID_CMD2_LBA48 | ATA_ID_CMD2_FLUSH |
				   ATA_ID_CMD2_FLUSH_EXT;
	for (int i = 0; i < 4; i++)
		w[ATA_ID_LBA48_SECTORS + i] = (uint16_t)(lba48 >> (16 * i));
}

static void set_checksum(uint16_t *w)
{
	uint8_t sum = 0;

	w[ATA_ID_INTEGRITY] = ATA_ID_INTEGRITY_SIGNATURE;
	for (int i = 0; i < ATA_ID_WORDS; i++)
		sum = (uint8_t)(sum + (w[i] & 0xFF) + (w[i] >> 8));
	w[ATA_ID_INTEGRITY] = (uint16_t)((uint8_t)(0u - sum) << 8 | ATA_ID_INTEGRITY_SIGNATURE);
}

static void identify_strings_are_byte_swapped_and_trimmed(void **state)
{
	uint16_t w[ATA_ID_WORDS];
	struct ata_identity id;

	(void)state;
	fill_disk_identify(w, 16384, 16384);
	assert_int_equal(ata_parse_identify(w, &id), 0);
	assert_string_equal(id.model, "QEMU HARDDISK");
	assert_string_equal(id.serial, "QM00001");
	assert_string_equal(id.firmware, "2.5+");
	w[ATA_ID_MODEL] = 0x0141;      /* a control character becomes '?' */
	assert_int_equal(ata_parse_identify(w, &id), 0);
	assert_int_equal(id.model[0], '?');
	assert_int_equal(id.model[1], 'A');
}

/* Issue 20: Bochs pads IDENTIFY strings with NUL bytes (its firmware field is all NULs); they
 * printed as '?'. NUL is padding: cut at the end, a space inside. */
static void nul_bytes_in_identify_strings_are_padding_not_question_marks(void **state)
{
	uint16_t w[ATA_ID_WORDS];
	struct ata_identity id;

	(void)state;
	fill_disk_identify(w, 16384, 16384);
	for (unsigned int i = 0; i < 4; i++)
		w[ATA_ID_FIRMWARE + i] = 0;                  /* "\0\0\0\0\0\0\0\0" */
	w[ATA_ID_MODEL + 2] = 0x0000;                    /* "QEMU" NUL NUL "ARDDISK" ... */
	assert_int_equal(ata_parse_identify(w, &id), 0);
	assert_string_equal(id.firmware, "");
	assert_string_equal(id.model, "QEMU  ARDDISK");
	w[ATA_ID_MODEL + 6] = 0x4B00;                    /* ... "K" NUL at the very end */
	for (unsigned int i = 7; i < 20; i++)
		w[ATA_ID_MODEL + i] = 0;
	assert_int_equal(ata_parse_identify(w, &id), 0);
	assert_string_equal(id.model, "QEMU  ARDDISK");
}

static void a_big_disk_reports_its_lba48_capacity_and_features(void **state)
{
	uint16_t w[ATA_ID_WORDS];
	struct ata_identity id;
	const uint64_t sectors = (140ull << 30) / 512;   /* 140 GiB: beyond 28 bits */

	(void)state;
	fill_disk_identify(w, 0x0FFFFFFF, sectors);
	assert_int_equal(ata_parse_identify(w, &id), 0);
	assert_false(id.atapi);
	assert_true(id.lba && id.lba48 && id.flush && id.flush_ext);
	assert_true(id.lba28_sectors == 0x0FFFFFFF);
	assert_true(id.lba48_sectors == sectors);
	assert_int_equal(id.multiple_max, 16);
	assert_false(id.long_sectors);
}

static void feature_words_without_their_validity_bits_are_ignored(void **state)
{
	uint16_t w[ATA_ID_WORDS];
	struct ata_identity id;

	(void)state;
	fill_disk_identify(w, 1000, 1000);
	w[ATA_ID_COMMAND_SET_2] = 0xFFFF;          /* bits 15:14 = 11: not a valid word */
	assert_int_equal(ata_parse_identify(w, &id), 0);
	assert_false(id.lba48);
	assert_true(id.lba48_sectors == 0);
	w[ATA_ID_COMMAND_SET_2] = ATA_ID_CMD2_VALID;
	w[ATA_ID_SECTOR_SIZE] = ATA_ID_SECSIZE_VALID | ATA_ID_SECSIZE_LONG;
	assert_int_equal(ata_parse_identify(w, &id), 0);
	assert_true(id.long_sectors);
}

static void the_integrity_word_is_checked_when_present(void **state)
{
	uint16_t w[ATA_ID_WORDS];
	struct ata_identity id;

	(void)state;
	fill_disk_identify(w, 1000, 1000);
	set_checksum(w);
	assert_int_equal(ata_parse_identify(w, &id), 0);
	assert_true(id.checksum_present && id.checksum_ok);
	w[ATA_ID_MODEL + 3] ^= 0x0100;             /* one flipped bit */
	assert_int_equal(ata_parse_identify(w, &id), -EPROTO);
}

static void empty_or_floating_identify_data_is_refused(void **state)
{
	uint16_t w[ATA_ID_WORDS];
	struct ata_identity id;

	(void)state;
	memset(w, 0, sizeof(w));
	assert_int_equal(ata_parse_identify(w, &id), -EPROTO);
	memset(w, 0xFF, sizeof(w));
	assert_int_equal(ata_parse_identify(w, &id), -EPROTO);
}

static void a_cdrom_identify_packet_is_atapi_type_5_removable(void **state)
{
	uint16_t w[ATA_ID_WORDS];
	struct ata_identity id;

	(void)state;
	memset(w, 0, sizeof(w));
	w[ATA_ID_CONFIG] = 0x85C0;                 /* ATAPI, CD-ROM, removable, 12-byte packets */
	put_string(w, ATA_ID_MODEL, ATA_ID_MODEL_WORDS, "QEMU DVD-ROM");
	assert_int_equal(ata_parse_identify(w, &id), 0);
	assert_true(id.atapi && id.removable);
	assert_int_equal(id.atapi_type, SCSI_TYPE_CDROM);
	assert_false(id.packet16);
	assert_string_equal(id.model, "QEMU DVD-ROM");
	w[ATA_ID_CONFIG] = 0x85C1;
	assert_int_equal(ata_parse_identify(w, &id), 0);
	assert_true(id.packet16);
}

/* ---- signatures, layout, drops ------------------------------------------------------------ */

static void signatures_tell_disks_packet_devices_and_empty_slots_apart(void **state)
{
	(void)state;
	assert_int_equal(ata_classify_signature(0x00, 0x00), ATA_CLASS_ATA);
	assert_int_equal(ata_classify_signature(0x3C, 0xC3), ATA_CLASS_ATA);
	assert_int_equal(ata_classify_signature(0x14, 0xEB), ATA_CLASS_ATAPI);
	assert_int_equal(ata_classify_signature(0x69, 0x96), ATA_CLASS_ATAPI);
	assert_int_equal(ata_classify_signature(0xFF, 0xFF), ATA_CLASS_NONE);
	assert_int_equal(ata_classify_signature(0x12, 0x34), ATA_CLASS_UNKNOWN);
}

static void legacy_mode_uses_the_fixed_ports_and_bar4_for_bus_master(void **state)
{
	const uint32_t bars[6] = { 0, 0, 0, 0, 0xC040, 0 };
	uint16_t cmd, ctl, bm;
	bool native;

	(void)state;
	assert_int_equal(ata_channel_layout(0, 0x80, bars, &cmd, &ctl, &bm, &native), 0);
	assert_true(cmd == 0x1F0 && ctl == 0x3F6 && bm == 0xC040 && !native);
	assert_int_equal(ata_channel_layout(1, 0x80, bars, &cmd, &ctl, &bm, &native), 0);
	assert_true(cmd == 0x170 && ctl == 0x376 && bm == 0xC048 && !native);
	assert_int_equal(ata_channel_layout(1, 0x00, bars, &cmd, &ctl, &bm, &native), 0);
	assert_int_equal(bm, 0);                   /* no bus master without prog-if bit 7 */
	assert_int_equal(ata_channel_layout(0, 0x8F, NULL, &cmd, &ctl, &bm, &native), 0);
	assert_true(cmd == 0x1F0 && !native);      /* no PCI: the legacy ports */
	assert_int_equal(ata_channel_layout(2, 0x80, bars, &cmd, &ctl, &bm, &native), -EINVAL);
}

static void native_mode_takes_ports_from_the_bars(void **state)
{
	const uint32_t bars[6] = { 0xD000, 0xD100, 0xD200, 0xD300, 0xD400, 0 };
	const uint32_t half[6] = { 0xD000, 0xD100, 0, 0, 0, 0 };
	uint16_t cmd, ctl, bm;
	bool native;

	(void)state;
	assert_int_equal(ata_channel_layout(0, 0x85, bars, &cmd, &ctl, &bm, &native), 0);
	assert_true(native && cmd == 0xD000 && ctl == 0xD102 && bm == 0xD400);
	assert_int_equal(ata_channel_layout(1, 0x85, bars, &cmd, &ctl, &bm, &native), 0);
	assert_true(native && cmd == 0xD200 && ctl == 0xD302 && bm == 0xD408);
	/* primary native, secondary legacy (prog-if 0x01) */
	assert_int_equal(ata_channel_layout(1, 0x01, bars, &cmd, &ctl, &bm, &native), 0);
	assert_true(!native && cmd == 0x170);
	assert_int_equal(ata_channel_layout(1, 0x05, half, &cmd, &ctl, &bm, &native), -ENODEV);
}

static void drops_follow_the_percentage_and_repeat_run_after_run(void **state)
{
	unsigned int dropped = 0;
	bool first[64];

	(void)state;
	for (uint32_t seq = 0; seq < 10000; seq++) {
		assert_false(ata_drop_decision(seq, 0));
		assert_true(ata_drop_decision(seq, 100));
		dropped += ata_drop_decision(seq, 30);
	}
	assert_in_range(dropped, 2800, 3200);
	for (uint32_t seq = 0; seq < 64; seq++)
		first[seq] = ata_drop_decision(seq, 50);
	for (uint32_t seq = 0; seq < 64; seq++)
		assert_int_equal(first[seq], ata_drop_decision(seq, 50));
	/* a higher percentage drops a superset */
	for (uint32_t seq = 0; seq < 1000; seq++)
		if (ata_drop_decision(seq, 30))
			assert_true(ata_drop_decision(seq, 60));
}

static void devices_are_named_hda_to_hdd(void **state)
{
	char n[4];

	(void)state;
	ata_device_name(0, 0, n);
	assert_string_equal(n, "hda");
	ata_device_name(0, 1, n);
	assert_string_equal(n, "hdb");
	ata_device_name(1, 0, n);
	assert_string_equal(n, "hdc");
	ata_device_name(1, 1, n);
	assert_string_equal(n, "hdd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(status_bits_are_named_from_bsy_down),
		cmocka_unit_test(nul_bytes_in_identify_strings_are_padding_not_question_marks),
		cmocka_unit_test(an_aborted_command_decodes_to_eio_with_abrt_named),
		cmocka_unit_test(error_bits_map_to_the_code_a_caller_can_act_on),
		cmocka_unit_test(a_device_fault_is_eio_even_without_err),
		cmocka_unit_test(sense_data_decodes_to_messages_and_codes),
		cmocka_unit_test(identify_strings_are_byte_swapped_and_trimmed),
		cmocka_unit_test(a_big_disk_reports_its_lba48_capacity_and_features),
		cmocka_unit_test(feature_words_without_their_validity_bits_are_ignored),
		cmocka_unit_test(the_integrity_word_is_checked_when_present),
		cmocka_unit_test(empty_or_floating_identify_data_is_refused),
		cmocka_unit_test(a_cdrom_identify_packet_is_atapi_type_5_removable),
		cmocka_unit_test(signatures_tell_disks_packet_devices_and_empty_slots_apart),
		cmocka_unit_test(legacy_mode_uses_the_fixed_ports_and_bar4_for_bus_master),
		cmocka_unit_test(native_mode_takes_ports_from_the_bars),
		cmocka_unit_test(drops_follow_the_percentage_and_repeat_run_after_run),
		cmocka_unit_test(devices_are_named_hda_to_hdd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
