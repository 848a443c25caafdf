/*
 * usb_scsi.c - Bulk-Only Transport wrappers (CBW builder, CSW judge) and
 * SCSI command blocks and parsers for usb_storage.c.
 *
 * Specs: USB Mass Storage Class Bulk-Only Transport 1.0 (sections 5.1,
 * 5.2, 6.3), SPC-3 (INQUIRY 6.4, REQUEST SENSE 6.27, sense data 4.5),
 * SBC-2 (READ CAPACITY(10) 5.10, READ(10) 5.6, WRITE(10) 5.25). Pure code
 * (no hardware, no state), tested on the host (tests/unit/test_usb_scsi.c)
 * and fuzzed (tests/fuzz/fuzz_usb_scsi.c); every byte it reads came from
 * the device and is checked before use. See usb_scsi.h.
 */
#include "usb_scsi.h"

#include <kernel/errno.h>
#include <kernel/format.h>

/* Offsets in the wrappers (BOT 1.0 tables 5.1 and 5.2). */
enum bot_offsets {
	CBW_SIGNATURE = 0,
	CBW_TAG = 4,
	CBW_DATA_LEN = 8,
	CBW_FLAGS = 12,
	CBW_LUN = 13,
	CBW_CB_LEN = 14,
	CBW_CB = 15,
	CSW_SIGNATURE = 0,
	CSW_TAG = 4,
	CSW_RESIDUE = 8,
	CSW_STATUS = 12,
};

/* Offsets and fields of SCSI data (SPC-3, SBC-2). */
enum scsi_offsets {
	INQ_PERIPHERAL = 0,           /* qualifier bits 7:5, device type 4:0 */
	INQ_RMB = 1,                  /* bit 7 removable */
	INQ_VERSION = 2,
	INQ_FORMAT = 3,               /* response data format bits 3:0 */
	INQ_ADDITIONAL_LEN = 4,       /* bytes after this one */
	INQ_VENDOR = 8,
	INQ_PRODUCT = 16,
	INQ_REVISION = 32,
	INQ_HEADER = 5,               /* bytes counted outside ADDITIONAL LENGTH */
	SENSE_RESPONSE = 0,           /* bits 6:0 response code */
	SENSE_FIXED_KEY = 2,          /* bits 3:0 */
	SENSE_FIXED_ADDITIONAL = 7,   /* bytes after byte 7 */
	SENSE_FIXED_ASC = 12,
	SENSE_FIXED_ASCQ = 13,
	SENSE_DESC_KEY = 1,
	SENSE_DESC_ASC = 2,
	SENSE_DESC_ASCQ = 3,
	SENSE_DESC_ADDITIONAL = 7,
	SENSE_HEADER = 8,             /* bytes before the additional ones, both formats */
	CAP_LAST_LBA = 0,
	CAP_BLOCK_LEN = 4,
	CAP_LAST_LBA_USE_16 = 0xFFFFFFFFu,
};

enum scsi_sense_codes {
	SENSE_CODE_MASK = 0x7F,
	SENSE_FIXED_CURRENT = 0x70,
	SENSE_FIXED_DEFERRED = 0x71,
	SENSE_DESC_CURRENT = 0x72,
	SENSE_DESC_DEFERRED = 0x73,
	SENSE_KEY_MASK = 0x0F,
};

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void zero(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = 0;
}

static void say(char *why, size_t why_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !why_len)
		return;
	va_start(ap, fmt);
	kvsnprintf(why, why_len, fmt, ap);
	va_end(ap);
}

/* ---- Bulk-Only Transport ------------------------------------------------ */

int usb_bot_build_cbw(uint8_t *cbw, uint32_t tag, uint32_t data_len, bool in, uint8_t lun,
		      const uint8_t *cb, uint8_t cb_len)
{
	if (!cbw || !cb || cb_len < 1 || cb_len > USB_BOT_CB_MAX || lun > USB_BOT_LUN_MAX)
		return -EINVAL;
	zero(cbw, USB_BOT_CBW_LEN);
	put_le32(cbw + CBW_SIGNATURE, USB_BOT_CBW_SIGNATURE);
	put_le32(cbw + CBW_TAG, tag);
	put_le32(cbw + CBW_DATA_LEN, data_len);
	/* BOT 5.1: the direction bit is ignored by the device when the length
	 * is zero and must be 0 then; bits 6:0 are reserved (0). */
	cbw[CBW_FLAGS] = (data_len && in) ? USB_BOT_CBW_FLAG_IN : 0;
	cbw[CBW_LUN] = lun;
	cbw[CBW_CB_LEN] = cb_len;
	for (unsigned int i = 0; i < cb_len; i++)
		cbw[CBW_CB + i] = cb[i];
	return 0;
}

enum usb_bot_verdict usb_bot_check_csw(const uint8_t *buf, size_t len, uint32_t tag,
				       uint32_t data_len, struct usb_bot_csw *out, char *why,
				       size_t why_len)
{
	struct usb_bot_csw csw = {0};

	if (out)
		*out = csw;
	if (why && why_len)
		why[0] = 0;
	/* 6.3.1 (valid): exactly 13 bytes, the signature, the CBW's tag. */
	if (!buf || len != USB_BOT_CSW_LEN) {
		say(why, why_len, "CSW of %zu bytes, not %d", buf ? len : (size_t)0, USB_BOT_CSW_LEN);
		return USB_BOT_CSW_INVALID;
	}
	csw.signature = get_le32(buf + CSW_SIGNATURE);
	csw.tag = get_le32(buf + CSW_TAG);
	csw.residue = get_le32(buf + CSW_RESIDUE);
	csw.status = buf[CSW_STATUS];
	if (out)
		*out = csw;
	if (csw.signature != USB_BOT_CSW_SIGNATURE) {
		say(why, why_len, "CSW signature %#010x, not %#010x", csw.signature,
		    USB_BOT_CSW_SIGNATURE);
		return USB_BOT_CSW_INVALID;
	}
	if (csw.tag != tag) {
		say(why, why_len, "CSW tag %#x does not match the CBW's %#x", csw.tag, tag);
		return USB_BOT_CSW_INVALID;
	}
	/* 6.3.2 (meaningful): status 0/1 with residue <= dCBWDataTransferLength,
	 * or status 2 (the residue then means nothing). */
	if (csw.status == USB_BOT_STATUS_PHASE_ERROR) {
		say(why, why_len, "phase error reported by the device");
		return USB_BOT_CSW_PHASE_ERROR;
	}
	if (csw.status != USB_BOT_STATUS_PASSED && csw.status != USB_BOT_STATUS_FAILED) {
		say(why, why_len, "reserved CSW status %#x", csw.status);
		return USB_BOT_CSW_NOT_MEANINGFUL;
	}
	if (csw.residue > data_len) {
		say(why, why_len, "CSW residue %u exceeds the transfer length %u", csw.residue,
		    data_len);
		return USB_BOT_CSW_NOT_MEANINGFUL;
	}
	if (csw.status == USB_BOT_STATUS_FAILED) {
		say(why, why_len, "command failed (residue %u)", csw.residue);
		return USB_BOT_CSW_FAILED;
	}
	return USB_BOT_CSW_PASSED;
}

const char *usb_bot_verdict_name(enum usb_bot_verdict v)
{
	switch (v) {
	case USB_BOT_CSW_PASSED: return "passed";
	case USB_BOT_CSW_FAILED: return "failed";
	case USB_BOT_CSW_PHASE_ERROR: return "phase error";
	case USB_BOT_CSW_INVALID: return "invalid";
	case USB_BOT_CSW_NOT_MEANINGFUL: return "not meaningful";
	}
	return "?";
}

/* ---- SCSI command blocks -------------------------------------------------- */

unsigned int scsi_cdb_test_unit_ready(uint8_t cdb[SCSI_CDB6_LEN])
{
	zero(cdb, SCSI_CDB6_LEN);
	cdb[0] = SCSI_TEST_UNIT_READY;
	return SCSI_CDB6_LEN;
}

unsigned int scsi_cdb_request_sense(uint8_t cdb[SCSI_CDB6_LEN], uint8_t alloc_len)
{
	zero(cdb, SCSI_CDB6_LEN);
	cdb[0] = SCSI_REQUEST_SENSE;
	cdb[4] = alloc_len;            /* DESC bit (byte 1) 0: fixed format */
	return SCSI_CDB6_LEN;
}

unsigned int scsi_cdb_inquiry(uint8_t cdb[SCSI_CDB6_LEN], uint16_t alloc_len)
{
	zero(cdb, SCSI_CDB6_LEN);
	cdb[0] = SCSI_INQUIRY;         /* EVPD 0, page code 0: standard data */
	cdb[3] = (uint8_t)(alloc_len >> 8);
	cdb[4] = (uint8_t)alloc_len;
	return SCSI_CDB6_LEN;
}

unsigned int scsi_cdb_read_capacity10(uint8_t cdb[SCSI_CDB10_LEN])
{
	zero(cdb, SCSI_CDB10_LEN);
	cdb[0] = SCSI_READ_CAPACITY_10;
	return SCSI_CDB10_LEN;
}

static unsigned int cdb_rw10(uint8_t cdb[SCSI_CDB10_LEN], uint8_t op, uint32_t lba, uint16_t blocks)
{
	zero(cdb, SCSI_CDB10_LEN);
	cdb[0] = op;
	put_be32(cdb + 2, lba);
	cdb[7] = (uint8_t)(blocks >> 8);
	cdb[8] = (uint8_t)blocks;
	return SCSI_CDB10_LEN;
}

unsigned int scsi_cdb_read10(uint8_t cdb[SCSI_CDB10_LEN], uint32_t lba, uint16_t blocks)
{
	return cdb_rw10(cdb, SCSI_READ_10, lba, blocks);
}

unsigned int scsi_cdb_write10(uint8_t cdb[SCSI_CDB10_LEN], uint32_t lba, uint16_t blocks)
{
	return cdb_rw10(cdb, SCSI_WRITE_10, lba, blocks);
}

/* ---- Parsers -------------------------------------------------------------- */

/* Copy an ASCII field of @n bytes: NULs are padding like spaces (Bochs pads with them), other
 * non-printables become '?', trailing padding is cut. */
static void copy_ascii(char *dst, const uint8_t *src, size_t n)
{
	size_t end = 0;

	for (size_t i = 0; i < n; i++) {
		uint8_t c = src[i];

		dst[i] = c == 0 ? ' ' : (c >= 0x20 && c < 0x7F) ? (char)c : '?';
		if (dst[i] != ' ')
			end = i + 1;
	}
	dst[end] = 0;
}

int scsi_parse_inquiry(const uint8_t *buf, size_t len, struct scsi_inquiry *out, char *why,
		       size_t why_len)
{
	struct scsi_inquiry inq = {0};
	size_t claimed;
	uint8_t format;

	if (out)
		*out = inq;
	if (!buf || len < SCSI_INQUIRY_LEN) {
		say(why, why_len, "INQUIRY data of %zu bytes, need %d", buf ? len : (size_t)0,
		    SCSI_INQUIRY_LEN);
		return -EPROTO;
	}
	claimed = (size_t)buf[INQ_ADDITIONAL_LEN] + INQ_HEADER;
	if (claimed < SCSI_INQUIRY_LEN) {
		say(why, why_len, "INQUIRY additional length %u covers only %zu bytes",
		    buf[INQ_ADDITIONAL_LEN], claimed);
		return -EPROTO;
	}
	format = buf[INQ_FORMAT] & 0x0F;
	if (format != 2 && format != 1) {
		say(why, why_len, "INQUIRY response data format %u (want 2)", format);
		return -EPROTO;
	}
	inq.qualifier = buf[INQ_PERIPHERAL] >> 5;
	inq.device_type = buf[INQ_PERIPHERAL] & 0x1F;
	inq.removable = (buf[INQ_RMB] & 0x80) != 0;
	inq.version = buf[INQ_VERSION];
	copy_ascii(inq.vendor, buf + INQ_VENDOR, SCSI_VENDOR_LEN);
	copy_ascii(inq.product, buf + INQ_PRODUCT, SCSI_PRODUCT_LEN);
	copy_ascii(inq.revision, buf + INQ_REVISION, SCSI_REVISION_LEN);
	if (out)
		*out = inq;
	if (inq.qualifier != 0) {
		say(why, why_len, "peripheral qualifier %u: no device at this LUN", inq.qualifier);
		return -ENODEV;
	}
	return 0;
}

int scsi_parse_capacity10(const uint8_t *buf, size_t len, struct scsi_capacity *out, char *why,
			  size_t why_len)
{
	struct scsi_capacity cap = {0};

	if (out)
		*out = cap;
	if (!buf || len != SCSI_READ_CAPACITY_LEN) {
		say(why, why_len, "READ CAPACITY data of %zu bytes, not %d", buf ? len : (size_t)0,
		    SCSI_READ_CAPACITY_LEN);
		return -EPROTO;
	}
	cap.last_lba = get_be32(buf + CAP_LAST_LBA);
	cap.block_size = get_be32(buf + CAP_BLOCK_LEN);
	if (cap.block_size < 512 || cap.block_size > 4096 ||
	    (cap.block_size & (cap.block_size - 1))) {
		say(why, why_len, "block size %u is not a power of two from 512 to 4096",
		    cap.block_size);
		return -EPROTO;
	}
	if (cap.last_lba == CAP_LAST_LBA_USE_16) {
		say(why, why_len, "more than 2^32 blocks: READ CAPACITY(16) needed, not supported");
		return -EOVERFLOW;
	}
	cap.nr_blocks = (uint64_t)cap.last_lba + 1;
	if (out)
		*out = cap;
	return 0;
}

int scsi_parse_sense(const uint8_t *buf, size_t len, struct scsi_sense *out, char *why,
		     size_t why_len)
{
	struct scsi_sense s = {0};
	size_t need, have;

	if (out)
		*out = s;
	if (!buf || len < SENSE_HEADER) {
		say(why, why_len, "sense data of %zu bytes", buf ? len : (size_t)0);
		return -EPROTO;
	}
	s.response_code = buf[SENSE_RESPONSE] & SENSE_CODE_MASK;
	switch (s.response_code) {
	case SENSE_FIXED_CURRENT:
	case SENSE_FIXED_DEFERRED:
		need = SCSI_SENSE_FIXED_MIN;
		have = SENSE_HEADER + (size_t)buf[SENSE_FIXED_ADDITIONAL];
		break;
	case SENSE_DESC_CURRENT:
	case SENSE_DESC_DEFERRED:
		need = SCSI_SENSE_DESC_MIN;
		have = SENSE_HEADER + (size_t)buf[SENSE_DESC_ADDITIONAL];
		break;
	default:
		say(why, why_len, "unknown sense response code 0x%02x", s.response_code);
		return -EPROTO;
	}
	if (len < need) {
		say(why, why_len, "sense data of %zu bytes, format 0x%02x needs %zu", len,
		    s.response_code, need);
		return -EPROTO;
	}
	if (have < need) {
		say(why, why_len, "sense additional length %zu does not reach the ASCQ",
		    have - SENSE_HEADER);
		return -EPROTO;
	}
	s.deferred = s.response_code == SENSE_FIXED_DEFERRED || s.response_code == SENSE_DESC_DEFERRED;
	if (s.response_code <= SENSE_FIXED_DEFERRED) {
		s.key = buf[SENSE_FIXED_KEY] & SENSE_KEY_MASK;
		s.asc = buf[SENSE_FIXED_ASC];
		s.ascq = buf[SENSE_FIXED_ASCQ];
	} else {
		s.key = buf[SENSE_DESC_KEY] & SENSE_KEY_MASK;
		s.asc = buf[SENSE_DESC_ASC];
		s.ascq = buf[SENSE_DESC_ASCQ];
	}
	if (out)
		*out = s;
	return 0;
}

const char *scsi_sense_key_name(uint8_t key)
{
	static const char *const names[16] = {
		"NO SENSE", "RECOVERED ERROR", "NOT READY", "MEDIUM ERROR", "HARDWARE ERROR",
		"ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT", "BLANK CHECK",
		"VENDOR SPECIFIC", "COPY ABORTED", "ABORTED COMMAND", "reserved", "VOLUME OVERFLOW",
		"MISCOMPARE", "reserved",
	};

	return names[key & SENSE_KEY_MASK];
}

/* Additional sense codes we explain (SPC-3 annex D; ascq 0xFF = any). */
static const struct {
	uint8_t asc, ascq;
	const char *text;
} asc_table[] = {
	{0x00, 0x00, "no additional sense information"},
	{0x04, 0x00, "logical unit not ready, cause not reportable"},
	{0x04, 0x01, "logical unit is in process of becoming ready"},
	{0x04, 0x02, "logical unit not ready, initializing command required"},
	{0x04, 0x03, "logical unit not ready, manual intervention required"},
	{0x04, 0xFF, "logical unit not ready"},
	{0x0C, 0xFF, "write error"},
	{0x11, 0xFF, "unrecovered read error"},
	{0x1A, 0x00, "parameter list length error"},
	{0x20, 0x00, "invalid command operation code"},
	{0x21, 0x00, "logical block address out of range"},
	{0x24, 0x00, "invalid field in CDB"},
	{0x25, 0x00, "logical unit not supported"},
	{0x26, 0xFF, "invalid field in parameter list"},
	{0x27, 0xFF, "write protected"},
	{0x28, 0x00, "not ready to ready change, medium may have changed"},
	{0x29, 0xFF, "power on, reset, or bus device reset occurred"},
	{0x3A, 0xFF, "medium not present"},
	{0x44, 0x00, "internal target failure"},
};

const char *scsi_asc_text(uint8_t asc, uint8_t ascq)
{
	for (size_t i = 0; i < sizeof(asc_table) / sizeof(asc_table[0]); i++)
		if (asc_table[i].asc == asc && (asc_table[i].ascq == ascq || asc_table[i].ascq == 0xFF))
			return asc_table[i].text;
	return NULL;
}

int scsi_sense_describe(const struct scsi_sense *s, char *buf, size_t len)
{
	const char *text = scsi_asc_text(s->asc, s->ascq);

	return ksnprintf(buf, len, "%s: %s (asc 0x%02x ascq 0x%02x)%s", scsi_sense_key_name(s->key),
			 text ? text : "unknown additional sense code", s->asc, s->ascq,
			 s->deferred ? " [deferred]" : "");
}

int scsi_sense_errno(const struct scsi_sense *s)
{
	switch (s->key) {
	case SCSI_SK_NOT_READY:
		return s->asc == 0x3A ? -ENOMEDIUM : -EAGAIN;
	case SCSI_SK_UNIT_ATTENTION:
		return -EAGAIN;
	case SCSI_SK_DATA_PROTECT:
		return -EROFS;
	case SCSI_SK_ILLEGAL_REQUEST:
		return s->asc == 0x21 ? -ERANGE : -EINVAL;
	default:
		return -EIO;
	}
}

const char *scsi_device_type_name(uint8_t type)
{
	switch (type) {
	case SCSI_TYPE_DISK: return "disk";
	case 0x01: return "tape";
	case SCSI_TYPE_CDROM: return "CD/DVD";
	case 0x07: return "optical";
	case 0x0E: return "simplified disk";
	default: return "other";
	}
}
