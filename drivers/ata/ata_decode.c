/*
 * ata_decode.c - the pure logic of drivers/ata, kept apart so that the host
 * unit tests check it without a device: what status/error registers and
 * SCSI sense data mean (ATA/ATAPI-6 sections 7.9, 7.15 and 9.10; SPC-3
 * section 4.5 and annex D), IDENTIFY (PACKET) DEVICE parsing (ATA8-ACS
 * 7.16/7.17), signatures (ATA/ATAPI-6 9.12), the channel layout of an IDE
 * controller (PCI IDE Controller Specification 1.0), and the ata-drop
 * decision.
 */
#include "ata_internal.h"
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/string.h>

/* ---- Messages ----------------------------------------------------------------- */

/* One named bit. */
struct bit_name {
	uint8_t bit;
	const char *name;
};

static const struct bit_name status_bits[] = {
	{ ATA_SR_BSY, "BSY" }, { ATA_SR_DRDY, "DRDY" }, { ATA_SR_DF, "DF" },
	{ ATA_SR_DSC, "DSC" }, { ATA_SR_DRQ, "DRQ" }, { ATA_SR_ERR, "ERR" },
};

const char *ata_status_names(uint8_t status, char *buf, size_t len)
{
	size_t used = 0;

	if (!buf || len == 0)
		return "";
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(status_bits) / sizeof(status_bits[0]) && used < len; i++)
		if (status & status_bits[i].bit)
			used += (size_t)ksnprintf(buf + used, len - used, "%s%s", used ? " " : "",
						  status_bits[i].name);
	if (used == 0)
		ksnprintf(buf, len, "none");
	return buf;
}

/* ATA error bits in the order a message names the most telling one. */
static const struct { uint8_t bit; const char *text; int err; } error_causes[] = {
	{ ATA_ER_NM, "NM: no medium", -ENOMEDIUM },
	{ ATA_ER_MC, "MC: medium changed", -EAGAIN },
	{ ATA_ER_MCR, "MCR: medium change requested", -EAGAIN },
	{ ATA_ER_IDNF, "IDNF: address not found", -ERANGE },
	{ ATA_ER_UNC, "UNC: uncorrectable data error", -EIO },
	{ ATA_ER_ICRC, "ICRC: interface CRC error", -EIO },
	{ ATA_ER_ABRT, "ABRT: command aborted", -EIO },
	{ ATA_ER_AMNF, "AMNF: address mark not found", -EIO },
};

int ata_decode_error(uint8_t status, uint8_t error, char *msg, size_t len)
{
	char names[ATA_DECODE_LEN / 2];
	const char *why = NULL;
	int err = -EIO;

	ata_status_names(status, names, sizeof(names));
	if (status & ATA_SR_ERR) {
		for (size_t i = 0; i < sizeof(error_causes) / sizeof(error_causes[0]); i++) {
			if (error & error_causes[i].bit) {
				why = error_causes[i].text;
				err = error_causes[i].err;
				break;
			}
		}
		if (!why)
			why = "no reason given";
	}
	if (status & ATA_SR_DF) {
		why = why ? why : "device fault";
		err = -EIO;
	}
	if (msg && len)
		ksnprintf(msg, len, "status %#04x (%s), error %#04x (%s)", status, names, error,
			  why ? why : "none");
	return err;
}

static const char *const sense_key_names[] = {
	"NO SENSE", "RECOVERED ERROR", "NOT READY", "MEDIUM ERROR", "HARDWARE ERROR",
	"ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT", "BLANK CHECK", "VENDOR SPECIFIC",
	"COPY ABORTED", "ABORTED COMMAND", "RESERVED", "VOLUME OVERFLOW", "MISCOMPARE",
	"RESERVED",
};

/* Additional sense codes we explain, and what they mean for the caller. */
static const struct { uint8_t asc; const char *text; int err; } asc_meanings[] = {
	{ ASC_MEDIUM_NOT_PRESENT, "medium not present", -ENOMEDIUM },
	{ ASC_MEDIUM_MAY_HAVE_CHANGED, "medium may have changed", -EAGAIN },
	{ ASC_POWER_ON_RESET, "power on, reset or bus device reset", -EAGAIN },
	{ ASC_INVALID_OPCODE, "invalid command operation code", -ENOSYS },
	{ ASC_LBA_OUT_OF_RANGE, "logical block address out of range", -ERANGE },
	{ ASC_INVALID_FIELD_IN_CDB, "invalid field in CDB", -EINVAL },
	{ ASC_WRITE_PROTECTED, "write protected", -EROFS },
	{ ASC_INCOMPATIBLE_MEDIUM, "incompatible medium", -EIO },
	{ ASC_UNRECOVERED_READ, "unrecovered read error", -EIO },
	{ ASC_NOT_READY_BECOMING, "logical unit not ready", -EAGAIN },
};

int atapi_decode_sense(uint8_t key, uint8_t asc, uint8_t ascq, char *msg, size_t len)
{
	const char *text = "no further information";
	int err;

	key &= SCSI_SENSE_KEY_MASK;
	switch (key) {
	case SENSE_NO_SENSE:
	case SENSE_RECOVERED_ERROR:
		err = 0;
		break;
	case SENSE_UNIT_ATTENTION:
		err = -EAGAIN;
		break;
	case SENSE_DATA_PROTECT:
		err = -EROFS;
		break;
	default:
		err = -EIO;
		break;
	}
	for (size_t i = 0; i < sizeof(asc_meanings) / sizeof(asc_meanings[0]); i++) {
		if (asc_meanings[i].asc != asc)
			continue;
		text = asc_meanings[i].text;
		/* The key decides for keys that say "it worked" or "try again". */
		if (err == -EIO || (key == SENSE_NOT_READY))
			err = asc_meanings[i].err;
		break;
	}
	if (msg && len)
		ksnprintf(msg, len, "%s: %s (sense %x/%02x/%02x)", sense_key_names[key], text, key, asc,
			  ascq);
	return err;
}

/* ---- IDENTIFY ------------------------------------------------------------------ */

#define BYTE_BITS 8
#define BYTE_MASK 0xFFu
#define WORD_BITS 16
#define ASCII_SPACE ' '
#define ASCII_LAST_PRINTABLE 0x7E
#define ASCII_REPLACEMENT '?'
#define LOW_BYTE_ALL_ONES 0xFFFF

/*
 * id_string - IDENTIFY strings hold two characters per word, the first in
 * the high byte; trailing spaces are padding, and so are NUL bytes (Bochs
 * pads with them: its firmware field is eight NULs). Other non-printable
 * bytes become '?'.
 */
static void id_string(const uint16_t *words, unsigned int first, unsigned int count, char *out)
{
	size_t n = 0;

	for (unsigned int w = first; w < first + count; w++) {
		out[n++] = (char)(words[w] >> BYTE_BITS);
		out[n++] = (char)(words[w] & BYTE_MASK);
	}
	out[n] = 0;
	for (size_t i = 0; i < n; i++)
		if (out[i] == 0)
			out[i] = ASCII_SPACE;
		else if ((unsigned char)out[i] < ASCII_SPACE || (unsigned char)out[i] > ASCII_LAST_PRINTABLE)
			out[i] = ASCII_REPLACEMENT;
	while (n > 0 && out[n - 1] == ASCII_SPACE)
		out[--n] = 0;
}

static uint64_t id_number(const uint16_t *words, unsigned int first, unsigned int count)
{
	uint64_t v = 0;

	for (unsigned int i = count; i-- > 0;)
		v = v << WORD_BITS | words[first + i];
	return v;
}

/* id_word_valid - words 83/86/106 carry information only when bits 15:14 are 01. */
static bool id_word_valid(uint16_t w)
{
	return (w & ATA_ID_CMD2_VALID_MASK) == ATA_ID_CMD2_VALID;
}

/* id_checksum - word 255: when its low byte is 0xA5, all 512 bytes sum to 0 mod 256. */
static void id_checksum(const uint16_t *words, struct ata_identity *out)
{
	uint8_t sum = 0;

	out->checksum_present = (words[ATA_ID_INTEGRITY] & BYTE_MASK) == ATA_ID_INTEGRITY_SIGNATURE;
	for (unsigned int i = 0; i < ATA_ID_WORDS; i++)
		sum = (uint8_t)(sum + (words[i] & BYTE_MASK) + (words[i] >> BYTE_BITS));
	out->checksum_ok = !out->checksum_present || sum == 0;
}

int ata_parse_identify(const uint16_t *words, struct ata_identity *out)
{
	uint16_t config = words[ATA_ID_CONFIG], cmd2 = words[ATA_ID_COMMAND_SET_2];
	bool all_zero = true, all_ones = true;

	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < ATA_ID_WORDS; i++) {
		all_zero &= words[i] == 0;
		all_ones &= words[i] == LOW_BYTE_ALL_ONES;
	}
	id_checksum(words, out);
	if (all_zero || all_ones || !out->checksum_ok)
		return -EPROTO;
	id_string(words, ATA_ID_MODEL, ATA_ID_MODEL_WORDS, out->model);
	id_string(words, ATA_ID_SERIAL, ATA_ID_SERIAL_WORDS, out->serial);
	id_string(words, ATA_ID_FIRMWARE, ATA_ID_FIRMWARE_WORDS, out->firmware);
	out->atapi = (config & ATA_ID_CONFIG_ATAPI_MASK) == ATA_ID_CONFIG_ATAPI;
	out->removable = config & ATA_ID_CONFIG_REMOVABLE;
	if (out->atapi) {
		out->atapi_type = (config >> ATA_ID_CONFIG_TYPE_SHIFT) & ATA_ID_CONFIG_TYPE_MASK;
		out->packet16 = (config & ATA_ID_CONFIG_PACKET_MASK) != 0;
		return 0;
	}
	out->lba = words[ATA_ID_CAPABILITIES] & ATA_ID_CAP_LBA;
	out->lba28_sectors = id_number(words, ATA_ID_LBA28_SECTORS, 2);
	out->multiple_max = words[ATA_ID_MULTIPLE_MAX] & ATA_ID_MULTIPLE_MASK;
	if (id_word_valid(cmd2)) {
		out->lba48 = cmd2 & ATA_ID_CMD2_LBA48;
		out->flush = cmd2 & ATA_ID_CMD2_FLUSH;
		out->flush_ext = cmd2 & ATA_ID_CMD2_FLUSH_EXT;
	}
	if (out->lba48)
		out->lba48_sectors = id_number(words, ATA_ID_LBA48_SECTORS, 4);
	if (id_word_valid(words[ATA_ID_SECTOR_SIZE]))
		out->long_sectors = words[ATA_ID_SECTOR_SIZE] & ATA_ID_SECSIZE_LONG;
	return 0;
}

enum ata_class ata_classify_signature(uint8_t lba_mid, uint8_t lba_high)
{
	if ((lba_mid == ATA_SIG_ATA_MID && lba_high == ATA_SIG_ATA_HIGH) ||
	    (lba_mid == ATA_SIG_SATA_MID && lba_high == ATA_SIG_SATA_HIGH))
		return ATA_CLASS_ATA;
	if ((lba_mid == ATA_SIG_ATAPI_MID && lba_high == ATA_SIG_ATAPI_HIGH) ||
	    (lba_mid == ATA_SIG_SATAPI_MID && lba_high == ATA_SIG_SATAPI_HIGH))
		return ATA_CLASS_ATAPI;
	if (lba_mid == ATA_SIG_NONE && lba_high == ATA_SIG_NONE)
		return ATA_CLASS_NONE;
	return ATA_CLASS_UNKNOWN;
}

/* ---- Controller layout and fault decisions --------------------------------------- */

/* I/O BAR bases are 4-byte aligned at least; the ports must fit 16 bits. */
#define IO_PORT_MAX 0xFFFFu

int ata_channel_layout(unsigned int index, uint8_t prog_if, const uint32_t bars[6],
		       uint16_t *cmd_base, uint16_t *ctl_port, uint16_t *bm_base, bool *native)
{
	static const uint16_t legacy_cmd[ATA_MAX_CHANNELS] = { ATA_LEGACY_CMD_PRIMARY,
							       ATA_LEGACY_CMD_SECONDARY };
	static const uint16_t legacy_ctl[ATA_MAX_CHANNELS] = { ATA_LEGACY_CTL_PRIMARY,
							       ATA_LEGACY_CTL_SECONDARY };
	const uint8_t native_bit = index == 0 ? ATA_PROGIF_PRIMARY_NATIVE : ATA_PROGIF_SECONDARY_NATIVE;

	if (index >= ATA_MAX_CHANNELS)
		return -EINVAL;
	*bm_base = 0;
	if (bars && (prog_if & ATA_PROGIF_BUS_MASTER) && bars[ATA_BAR_BUS_MASTER] &&
	    bars[ATA_BAR_BUS_MASTER] + ATA_BM_CHANNEL_STRIDE * (index + 1) <= IO_PORT_MAX)
		*bm_base = (uint16_t)(bars[ATA_BAR_BUS_MASTER] + ATA_BM_CHANNEL_STRIDE * index);
	*native = bars && (prog_if & native_bit);
	if (!*native) {
		*cmd_base = legacy_cmd[index];
		*ctl_port = legacy_ctl[index];
		return 0;
	}
	uint32_t cmd = bars[2 * index], ctl = bars[2 * index + 1];
	if (!cmd || !ctl || cmd > IO_PORT_MAX || ctl + ATA_NATIVE_CTL_OFFSET > IO_PORT_MAX)
		return -ENODEV;
	*cmd_base = (uint16_t)cmd;
	*ctl_port = (uint16_t)(ctl + ATA_NATIVE_CTL_OFFSET);
	return 0;
}

/* splitmix64's finaliser constants (Steele, Lea, Flood, OOPSLA 2014). */
#define DROP_MIX_MULT_1 0xBF58476D1CE4E5B9ull
#define DROP_MIX_MULT_2 0x94D049BB133111EBull
#define DROP_MIX_SHIFT_1 30
#define DROP_MIX_SHIFT_2 27
#define DROP_MIX_SHIFT_3 31
/* Fixed seed of the drop sequence, so runs are repeatable ("ATA!" in ASCII). */
#define DROP_SEED 0x41544121ull

bool ata_drop_decision(uint32_t seq, unsigned int percent)
{
	uint64_t z = (uint64_t)seq ^ DROP_SEED;

	if (percent == 0)
		return false;
	if (percent >= ATA_PERCENT_MAX)
		return true;
	z = (z ^ (z >> DROP_MIX_SHIFT_1)) * DROP_MIX_MULT_1;
	z = (z ^ (z >> DROP_MIX_SHIFT_2)) * DROP_MIX_MULT_2;
	z ^= z >> DROP_MIX_SHIFT_3;
	return (unsigned int)(z % ATA_PERCENT_MAX) < percent;
}

void ata_device_name(unsigned int index, unsigned int slot, char *buf)
{
	buf[0] = 'h';
	buf[1] = 'd';
	buf[2] = (char)('a' + index * ATA_DEVICES_PER_CHANNEL + slot);
	buf[3] = 0;
}
