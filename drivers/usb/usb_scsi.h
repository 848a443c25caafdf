/*
 * usb_scsi.h - USB Mass Storage Bulk-Only Transport wrappers and the SCSI
 * commands the storage driver sends (the pure part of usb_storage.c:
 * usb_scsi.c, host-tested and fuzzed).
 *
 * Bulk-Only Transport 1.0 (usb.org "Universal Serial Bus Mass Storage Class
 * Bulk-Only Transport", rev 1.0, 1999): every command is a 31-byte Command
 * Block Wrapper on the bulk-OUT endpoint (section 5.1), an optional data
 * stage, and a 13-byte Command Status Wrapper on bulk-IN (5.2). Section 6.3
 * says when the host may believe a CSW ("valid": 13 bytes, signature, the
 * CBW's tag; "meaningful": status passed/failed with a residue no larger
 * than the transfer length, or phase error). Everything the device sends is
 * untrusted: the parsers check lengths and values and say why they refuse.
 *
 * SCSI commands: SPC-3 (INQUIRY, TEST UNIT READY, REQUEST SENSE, fixed and
 * descriptor sense data) and SBC-2 (READ CAPACITY(10), READ(10), WRITE(10)).
 * Multi-byte CDB and parameter fields are big-endian; BOT fields are
 * little-endian.
 */
#ifndef DRIVERS_USB_SCSI_H
#define DRIVERS_USB_SCSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bulk-Only Transport wire format (BOT 1.0 5.1, 5.2) and class requests (3.1, 3.2). */
enum usb_bot {
	USB_BOT_CBW_LEN = 31,
	USB_BOT_CSW_LEN = 13,
	USB_BOT_CBW_SIGNATURE = 0x43425355, /* "USBC" little-endian */
	USB_BOT_CSW_SIGNATURE = 0x53425355, /* "USBS" little-endian */
	USB_BOT_CBW_FLAG_IN = 0x80,         /* bmCBWFlags bit 7: data stage device-to-host */
	USB_BOT_CB_MAX = 16,                /* bytes of the command block field */
	USB_BOT_LUN_MAX = 15,               /* bCBWLUN is 4 bits */
	USB_BOT_REQ_RESET = 0xFF,           /* Bulk-Only Mass Storage Reset (class, interface) */
	USB_BOT_REQ_GET_MAX_LUN = 0xFE,     /* Get Max LUN (class, interface, 1 byte IN) */
};

/* bCSWStatus (BOT 1.0 table 5.3). */
enum usb_bot_status {
	USB_BOT_STATUS_PASSED = 0,
	USB_BOT_STATUS_FAILED = 1,
	USB_BOT_STATUS_PHASE_ERROR = 2,
};

/* What the host makes of a CSW (BOT 1.0 6.3, 5.3.3). */
enum usb_bot_verdict {
	USB_BOT_CSW_PASSED = 0,      /* valid, meaningful, command passed */
	USB_BOT_CSW_FAILED = 1,      /* valid, meaningful, command failed: REQUEST SENSE */
	USB_BOT_CSW_PHASE_ERROR = 2, /* valid, meaningful, phase error: reset recovery */
	USB_BOT_CSW_INVALID = 3,     /* not valid (length, signature, tag): reset recovery */
	USB_BOT_CSW_NOT_MEANINGFUL = 4, /* valid, but reserved status or residue > length: reset recovery */
};

/* The fields of a received CSW. */
struct usb_bot_csw {
	uint32_t signature;
	uint32_t tag;
	uint32_t residue;
	uint8_t status;
};

/*
 * usb_bot_build_cbw - fill @cbw (USB_BOT_CBW_LEN bytes) for command block
 * @cb of @cb_len bytes (1..16) to LUN @lun with @data_len bytes of data in
 * direction @in (ignored when @data_len is 0: flags 0). Unused command block
 * bytes are zero. CONTEXT: any; pure.
 * RETURNS 0; -EINVAL for a bad @cb_len, @lun or NULL pointer (nothing written).
 */
int usb_bot_build_cbw(uint8_t *cbw, uint32_t tag, uint32_t data_len, bool in, uint8_t lun,
		      const uint8_t *cb, uint8_t cb_len);

/*
 * usb_bot_check_csw - judge @len bytes received as the CSW of the command
 * with @tag and @data_len (BOT 1.0 6.3.1 valid, 6.3.2 meaningful), fill
 * @out (may be NULL) with what was there, and for anything but PASSED write
 * a one-line reason to @why. CONTEXT: any; pure.
 * RETURNS an enum usb_bot_verdict.
 */
enum usb_bot_verdict usb_bot_check_csw(const uint8_t *buf, size_t len, uint32_t tag,
				       uint32_t data_len, struct usb_bot_csw *out, char *why,
				       size_t why_len);

/* usb_bot_verdict_name - "passed", "failed", "phase error", "invalid", "not meaningful". */
const char *usb_bot_verdict_name(enum usb_bot_verdict v);

/* ---- SCSI ----------------------------------------------------------------- */

enum scsi_opcode {
	SCSI_TEST_UNIT_READY = 0x00,
	SCSI_REQUEST_SENSE = 0x03,
	SCSI_INQUIRY = 0x12,
	SCSI_READ_CAPACITY_10 = 0x25,
	SCSI_READ_10 = 0x28,
	SCSI_WRITE_10 = 0x2A,
};

/* Sizes of commands and of the data we ask for. */
enum scsi_sizes {
	SCSI_CDB6_LEN = 6,
	SCSI_CDB10_LEN = 10,
	SCSI_INQUIRY_LEN = 36,         /* standard INQUIRY data up to the revision field (SPC-3 6.4.2) */
	SCSI_SENSE_LEN = 18,           /* fixed-format sense data with the SKSV bytes (SPC-3 4.5.3) */
	SCSI_SENSE_FIXED_MIN = 14,     /* fixed format: bytes up to the ASCQ (13) */
	SCSI_SENSE_DESC_MIN = 8,       /* descriptor format header (SPC-3 4.5.2) */
	SCSI_READ_CAPACITY_LEN = 8,    /* READ CAPACITY(10) data (SBC-2 5.10.2) */
	SCSI_RW10_MAX_BLOCKS = 0xFFFF, /* 16-bit transfer length of READ(10)/WRITE(10) */
	SCSI_VENDOR_LEN = 8,           /* INQUIRY T10 vendor identification */
	SCSI_PRODUCT_LEN = 16,         /* INQUIRY product identification */
	SCSI_REVISION_LEN = 4,         /* INQUIRY product revision level */
};

/* Sense keys (SPC-3 table 27). */
enum scsi_sense_key {
	SCSI_SK_NO_SENSE = 0x0,
	SCSI_SK_RECOVERED_ERROR = 0x1,
	SCSI_SK_NOT_READY = 0x2,
	SCSI_SK_MEDIUM_ERROR = 0x3,
	SCSI_SK_HARDWARE_ERROR = 0x4,
	SCSI_SK_ILLEGAL_REQUEST = 0x5,
	SCSI_SK_UNIT_ATTENTION = 0x6,
	SCSI_SK_DATA_PROTECT = 0x7,
	SCSI_SK_ABORTED_COMMAND = 0xB,
};

/* Peripheral device types we name (SPC-3 table 83). */
enum scsi_device_type {
	SCSI_TYPE_DISK = 0x00,         /* direct-access block device */
	SCSI_TYPE_CDROM = 0x05,
	SCSI_TYPE_NONE = 0x1F,         /* unknown or no device type */
};

/* CDB builders: fill @cdb and RETURN its length (6 or 10). */
unsigned int scsi_cdb_test_unit_ready(uint8_t cdb[SCSI_CDB6_LEN]);
unsigned int scsi_cdb_request_sense(uint8_t cdb[SCSI_CDB6_LEN], uint8_t alloc_len);
unsigned int scsi_cdb_inquiry(uint8_t cdb[SCSI_CDB6_LEN], uint16_t alloc_len);
unsigned int scsi_cdb_read_capacity10(uint8_t cdb[SCSI_CDB10_LEN]);
unsigned int scsi_cdb_read10(uint8_t cdb[SCSI_CDB10_LEN], uint32_t lba, uint16_t blocks);
unsigned int scsi_cdb_write10(uint8_t cdb[SCSI_CDB10_LEN], uint32_t lba, uint16_t blocks);

/* Standard INQUIRY data, checked and made printable. */
struct scsi_inquiry {
	uint8_t qualifier;             /* peripheral qualifier: 0 = a device is connected at this LUN */
	uint8_t device_type;           /* enum scsi_device_type */
	bool removable;                /* RMB */
	uint8_t version;
	char vendor[SCSI_VENDOR_LEN + 1];    /* trailing spaces removed, non-printables as '?' */
	char product[SCSI_PRODUCT_LEN + 1];
	char revision[SCSI_REVISION_LEN + 1];
};

/*
 * scsi_parse_inquiry - check @len bytes of standard INQUIRY data: at least
 * SCSI_INQUIRY_LEN bytes and an ADDITIONAL LENGTH that covers them, response
 * data format 2 (or 1, SCSI-2 style), qualifier 0.
 * RETURNS 0; -EPROTO (truncated or malformed, reason in @why); -ENODEV
 * (qualifier says no device at this LUN). CONTEXT: any; pure.
 */
int scsi_parse_inquiry(const uint8_t *buf, size_t len, struct scsi_inquiry *out, char *why,
		       size_t why_len);

/* READ CAPACITY(10) data. */
struct scsi_capacity {
	uint32_t last_lba;
	uint32_t block_size;
	uint64_t nr_blocks;            /* last_lba + 1 */
};

/*
 * scsi_parse_capacity10 - check @len bytes of READ CAPACITY(10) data: 8
 * bytes, block size a power of two from 512 to 4096, last LBA below
 * 0xFFFFFFFF (which means "use READ CAPACITY(16)", not supported here).
 * RETURNS 0; -EPROTO (length, block size; reason in @why); -EOVERFLOW (the
 * device is too big for READ CAPACITY(10)). CONTEXT: any; pure.
 */
int scsi_parse_capacity10(const uint8_t *buf, size_t len, struct scsi_capacity *out, char *why,
			  size_t why_len);

/* Sense data, fixed (0x70/0x71) or descriptor (0x72/0x73) format. */
struct scsi_sense {
	uint8_t response_code;
	uint8_t key;
	uint8_t asc;
	uint8_t ascq;
	bool deferred;                 /* 0x71/0x73: about an earlier command */
};

/*
 * scsi_parse_sense - check @len bytes of sense data: a known response code,
 * enough bytes for the key/ASC/ASCQ of its format (the ADDITIONAL SENSE
 * LENGTH must cover them too).
 * RETURNS 0; -EPROTO (reason in @why). CONTEXT: any; pure.
 */
int scsi_parse_sense(const uint8_t *buf, size_t len, struct scsi_sense *out, char *why,
		     size_t why_len);

/* scsi_sense_key_name - "NOT READY", ... ("reserved" for keys without a name). */
const char *scsi_sense_key_name(uint8_t key);

/* scsi_asc_text - what ASC/ASCQ mean, or NULL if not in our table. */
const char *scsi_asc_text(uint8_t asc, uint8_t ascq);

/*
 * scsi_sense_describe - one line for the log, "NOT READY: medium not
 * present (asc 0x3a ascq 0x00)". CONTEXT: any; pure. RETURNS what
 * ksnprintf returns (the full length).
 */
int scsi_sense_describe(const struct scsi_sense *s, char *buf, size_t len);

/* scsi_sense_errno - the error a failed command reports for @s: -ENOMEDIUM
 * (no medium), -EAGAIN (not ready, becoming ready, unit attention), -EROFS
 * (write protected), -ERANGE (LBA out of range), -EINVAL (illegal request),
 * -EIO otherwise. */
int scsi_sense_errno(const struct scsi_sense *s);

/* scsi_device_type_name - "disk", "CD/DVD", ... */
const char *scsi_device_type_name(uint8_t type);

#endif /* DRIVERS_USB_SCSI_H */
