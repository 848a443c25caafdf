/*
 * usb_storage.c - the USB mass storage class driver ("usb-storage"):
 * SCSI transparent command set (subclass 6) over Bulk-Only Transport
 * (protocol 0x50), exposed as block devices usba, usbb, ... through
 * kernel/blk.c, so `blk crc`, `blk write-pattern` and `blk verify-pattern`
 * work on a USB stick as on an ATA disk.
 *
 * Specs: USB Mass Storage Class Bulk-Only Transport 1.0 (section 3: class
 * requests, 5: wrappers and the host's error handling, 6.7: the thirteen
 * host/device cases), SPC-3 and SBC-2 for the commands. The wrappers and
 * SCSI data are built and checked by usb_scsi.c (pure, host-tested); this
 * file moves them over the bulk pipes and recovers from errors:
 *
 *   - a stall in the data stage: clear the endpoint's halt, then read the
 *     CSW (BOT 6.7.2, 6.7.3);
 *   - a stall when reading the CSW: clear halt and read it once more (5.3.3);
 *   - a CSW that is not valid or not meaningful, a phase error, a failed or
 *     timed-out CBW or data stage: reset recovery (5.3.4: Bulk-Only Mass
 *     Storage Reset, then CLEAR_FEATURE(HALT) on bulk-IN and bulk-OUT), and
 *     the command fails with -EIO and a log line saying why;
 *   - CHECK CONDITION (CSW status 1): REQUEST SENSE, the key/ASC/ASCQ are
 *     logged in words and the command fails with the matching error;
 *   - unplug: every transfer fails -ENODEV, the block device is
 *     unregistered (queued requests fail -ENODEV).
 *
 * CONTEXT: everything here runs in process context (probe/disconnect from
 * kernel work, read/write from whoever runs the block queue).
 * Docs: docs/usb-classes.md.
 */
#include <drivers/usb.h>
#include <kernel/blk.h>
#include <kernel/cmdline.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/format.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <time/time.h>

#include "usb_scsi.h"

/* Interface codes (USB Mass Storage Class Overview 1.4, tables 1 and 2). */
enum usb_storage_codes {
	USB_STORAGE_SUBCLASS_SCSI = 0x06,   /* SCSI transparent command set */
	USB_STORAGE_PROTOCOL_BOT = 0x50,    /* Bulk-Only Transport */
};

/* Tunables of the driver. */
enum usb_storage_tunables {
	USB_STORAGE_MAX = 4,                /* devices at once: usba..usbd */
	/* Largest READ(10)/WRITE(10) in bytes: 32 KiB (64 blocks of 512), which at full
	 * speed (at most 19 64-byte packets per 1 ms frame, ~1.2 MB/s) takes
	 * about 27 ms, far inside USB_BULK_TIMEOUT_MS (5 s) even when every
	 * completion is found only by a 100 ms poll of a misrouted controller. */
	USB_STORAGE_MAX_BYTES = 32768,
	USB_STORAGE_TUR_TRIES = 25,         /* TEST UNIT READY attempts while the unit is not ready */
	USB_STORAGE_TUR_DELAY_MS = 100,     /* between them: 2.5 s in all (a USB stick spins up in < 1 s) */
	USB_STORAGE_CMD_TIMEOUT_MS = USB_BULK_TIMEOUT_MS, /* each bulk stage of a command */
	USB_STORAGE_RESET_SETTLE_MS = 10,   /* after the class reset, before clearing halts */
	USB_STORAGE_RW_TRIES = 2,           /* a READ/WRITE that met UNIT ATTENTION is sent once more */
	USB_STORAGE_BADCBW_MAX = 1000,      /* largest COUNT of the usb-storage-badcbw fault */
};

/* Full speed moves at most 19 bulk packets of 64 bytes per 1 ms frame (USB
 * 2.0 table 5-9): the largest command must fit the bulk time-out ten times
 * over, and its block count the 16-bit field of READ(10)/WRITE(10). */
enum { USB_FULL_SPEED_BULK_BYTES_PER_MS = 19 * 64 };
_Static_assert(USB_STORAGE_MAX_BYTES / USB_FULL_SPEED_BULK_BYTES_PER_MS * 10 < USB_BULK_TIMEOUT_MS,
	       "USB_STORAGE_MAX_BYTES cannot move within the bulk time-out");
_Static_assert(USB_STORAGE_MAX_BYTES / BLK_BLOCK_SIZE_MIN <= SCSI_RW10_MAX_BLOCKS,
	       "USB_STORAGE_MAX_BYTES needs more blocks than READ(10) can name");

struct usb_storage {
	bool used;
	bool busy;                          /* a command is in flight */
	bool gone;                          /* unplugged */
	struct usb_device *dev;
	struct usb_interface *intf;
	const struct usb_endpoint *ep_in, *ep_out;
	uint8_t lun;
	uint32_t tag;
	struct blk_dev blk;
	struct scsi_inquiry inquiry;
	char model[SCSI_VENDOR_LEN + SCSI_PRODUCT_LEN + 2];
	uint8_t cbw[USB_BOT_CBW_LEN];
	uint8_t csw[USB_BOT_CSW_LEN];
	uint8_t small[64];                  /* INQUIRY, READ CAPACITY, sense data */
	/* statistics */
	uint32_t commands, resets, stalls_cleared, sense_reports;
};

static struct usb_storage units[USB_STORAGE_MAX];

/*
 * Fault usb-storage-badcbw[:COUNT]: the next COUNT CBWs (default 1) go out
 * on the wire with a wrong signature. The device must refuse them (BOT
 * 6.6.1: it stalls), so the host's reset recovery runs for real against
 * the device, and the command after it must work again.
 */
static unsigned int badcbw_left;

static int badcbw_on(const char *arg)
{
	unsigned long n = 1;

	if (arg && cmdline_parse_uint(arg, 1, USB_STORAGE_BADCBW_MAX, &n))
		return -EINVAL;
	badcbw_left = (unsigned int)n;
	return 0;
}

static int badcbw_off(void)
{
	badcbw_left = 0;
	return 0;
}

FAULT(usb_storage_badcbw, "usb-storage-badcbw", "COUNT",
      "the next COUNT mass storage CBWs carry a wrong signature: the device stalls, reset recovery runs",
      badcbw_on, badcbw_off);

static const char *op_name(uint8_t op)
{
	switch (op) {
	case SCSI_TEST_UNIT_READY: return "TEST UNIT READY";
	case SCSI_REQUEST_SENSE: return "REQUEST SENSE";
	case SCSI_INQUIRY: return "INQUIRY";
	case SCSI_READ_CAPACITY_10: return "READ CAPACITY(10)";
	case SCSI_READ_10: return "READ(10)";
	case SCSI_WRITE_10: return "WRITE(10)";
	default: return "command";
	}
}

/* BOT 5.3.4 reset recovery: class reset, then clear both halts. */
static void bot_reset_recovery(struct usb_storage *s, const char *why)
{
	int err;

	if (s->dev->gone)
		return;
	s->resets++;
	pr_warn("%s: %s; reset recovery (Bulk-Only Mass Storage Reset, clear halts)\n", s->blk.name,
		why);
	err = usb_control_msg(s->dev, USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE,
			      USB_BOT_REQ_RESET, 0, s->intf->number, NULL, 0, USB_CTRL_TIMEOUT_MS);
	if (err < 0)
		pr_err("%s: Bulk-Only Mass Storage Reset failed: %s\n", s->blk.name, errno_name(err));
	msleep(USB_STORAGE_RESET_SETTLE_MS);
	err = usb_clear_halt(s->dev, s->ep_in);
	if (err < 0)
		pr_err("%s: clearing bulk-IN halt failed: %s\n", s->blk.name, errno_name(err));
	err = usb_clear_halt(s->dev, s->ep_out);
	if (err < 0)
		pr_err("%s: clearing bulk-OUT halt failed: %s\n", s->blk.name, errno_name(err));
}

/* Read the CSW; a stall is cleared and the read tried once more (BOT 5.3.3). */
static int bot_read_csw(struct usb_storage *s)
{
	int r = usb_bulk_msg(s->dev, s->ep_in, s->csw, sizeof(s->csw), USB_STORAGE_CMD_TIMEOUT_MS);

	if (r == -EPIPE) {
		s->stalls_cleared++;
		r = usb_clear_halt(s->dev, s->ep_in);
		if (r == 0)
			r = usb_bulk_msg(s->dev, s->ep_in, s->csw, sizeof(s->csw),
					 USB_STORAGE_CMD_TIMEOUT_MS);
	}
	return r;
}

/*
 * bot_command - one SCSI command through CBW, data stage and CSW.
 * RETURNS the bytes of data moved (>= 0) when the CSW is valid and
 * meaningful, with *@check set if it says the command failed (CHECK
 * CONDITION: the caller asks REQUEST SENSE); -ENODEV unplugged; -EIO a
 * transport failure (after reset recovery, with the reason logged).
 */
static int bot_command(struct usb_storage *s, const uint8_t *cb, uint8_t cb_len, void *data,
		       uint32_t len, bool in, bool *check)
{
	struct usb_bot_csw csw;
	enum usb_bot_verdict v;
	char why[96], what[128];
	int r, moved = 0;

	*check = false;
	if (s->gone || s->dev->gone)
		return -ENODEV;
	s->commands++;
	s->tag++;
	if (usb_bot_build_cbw(s->cbw, s->tag, len, in, s->lun, cb, cb_len) < 0)
		return -EINVAL;
	if (badcbw_left) {
		badcbw_left--;
		s->cbw[0] ^= 0xFF;           /* the fault: "USBC" no more */
		pr_warn("%s: usb-storage-badcbw: %s sent with a wrong CBW signature\n", s->blk.name,
			op_name(cb[0]));
	}
	r = usb_bulk_msg(s->dev, s->ep_out, s->cbw, sizeof(s->cbw), USB_STORAGE_CMD_TIMEOUT_MS);
	if (r == -ENODEV)
		return r;
	if (r != USB_BOT_CBW_LEN) {
		ksnprintf(what, sizeof(what), "%s: CBW not accepted (%s)", op_name(cb[0]),
			  r < 0 ? errno_name(r) : "short");
		bot_reset_recovery(s, what);
		return -EIO;
	}
	if (len) {
		r = usb_bulk_msg(s->dev, in ? s->ep_in : s->ep_out, data, len,
				 USB_STORAGE_CMD_TIMEOUT_MS);
		if (r == -ENODEV)
			return r;
		if (r == -EPIPE) {
			/* BOT 6.7.2/6.7.3: the device ended the data stage with a
			 * stall; clear it, the CSW says what happened. */
			s->stalls_cleared++;
			r = usb_clear_halt(s->dev, in ? s->ep_in : s->ep_out);
			if (r == -ENODEV)
				return r;
			moved = 0;
		} else if (r < 0) {
			ksnprintf(what, sizeof(what), "%s: data stage failed (%s)", op_name(cb[0]),
				  errno_name(r));
			bot_reset_recovery(s, what);
			return -EIO;
		} else {
			moved = r;
		}
	}
	r = bot_read_csw(s);
	if (r == -ENODEV)
		return r;
	if (r < 0) {
		ksnprintf(what, sizeof(what), "%s: no CSW (%s)", op_name(cb[0]), errno_name(r));
		bot_reset_recovery(s, what);
		return -EIO;
	}
	v = usb_bot_check_csw(s->csw, (size_t)r, s->tag, len, &csw, why, sizeof(why));
	switch (v) {
	case USB_BOT_CSW_PASSED:
		break;
	case USB_BOT_CSW_FAILED:
		*check = true;
		return moved;
	default:
		ksnprintf(what, sizeof(what), "%s: CSW %s: %s", op_name(cb[0]), usb_bot_verdict_name(v),
			  why);
		bot_reset_recovery(s, what);
		return -EIO;
	}
	/* Passed: the residue says how much of the transfer was not used. */
	if (len && (uint32_t)moved > len - csw.residue)
		moved = (int)(len - csw.residue);
	return moved;
}

/* REQUEST SENSE after a failed command; logs and RETURNS the error for it. */
static int scsi_sense_error(struct usb_storage *s, const char *what)
{
	struct scsi_sense sense;
	uint8_t cdb[SCSI_CDB6_LEN];
	char why[96], msg[160];
	bool check;
	int r;

	s->sense_reports++;
	memset(s->small, 0, sizeof(s->small));
	r = bot_command(s, cdb, (uint8_t)scsi_cdb_request_sense(cdb, SCSI_SENSE_LEN), s->small,
			SCSI_SENSE_LEN, true, &check);
	if (r == -ENODEV)
		return r;
	if (r < 0 || check) {
		pr_err("%s: %s failed and REQUEST SENSE failed too (%s)\n", s->blk.name, what,
		       r < 0 ? errno_name(r) : "check condition");
		return -EIO;
	}
	if (scsi_parse_sense(s->small, (size_t)r, &sense, why, sizeof(why)) < 0) {
		pr_err("%s: %s failed; sense data unusable: %s\n", s->blk.name, what, why);
		return -EIO;
	}
	scsi_sense_describe(&sense, msg, sizeof(msg));
	pr_err("%s: %s failed: %s\n", s->blk.name, what, msg);
	return scsi_sense_errno(&sense);
}

/* A command with sense handling. RETURNS bytes moved or an error. */
static int scsi_command(struct usb_storage *s, const uint8_t *cb, uint8_t cb_len, void *data,
			uint32_t len, bool in, const char *what)
{
	bool check;
	int r;

	if (s->busy)
		return -EBUSY;
	s->busy = true;
	r = bot_command(s, cb, cb_len, data, len, in, &check);
	if (r >= 0 && check)
		r = scsi_sense_error(s, what);
	s->busy = false;
	return r;
}

static int scsi_test_unit_ready(struct usb_storage *s)
{
	uint8_t cdb[SCSI_CDB6_LEN];
	int r = -EAGAIN;

	/* Not ready and unit attention (-EAGAIN) are what a unit says while it
	 * starts or after a reset: ask again, a bounded number of times. */
	for (unsigned int i = 0; i < USB_STORAGE_TUR_TRIES; i++) {
		r = scsi_command(s, cdb, (uint8_t)scsi_cdb_test_unit_ready(cdb), NULL, 0, false,
				 "TEST UNIT READY");
		if (r != -EAGAIN)
			return r < 0 ? r : 0;
		msleep(USB_STORAGE_TUR_DELAY_MS);
	}
	pr_err("%s: still not ready after %d tries\n", s->blk.name, USB_STORAGE_TUR_TRIES);
	return r;
}

static int scsi_read_capacity(struct usb_storage *s, struct scsi_capacity *cap)
{
	uint8_t cdb[SCSI_CDB10_LEN];
	char why[96];
	int r = scsi_command(s, cdb, (uint8_t)scsi_cdb_read_capacity10(cdb), s->small,
			     SCSI_READ_CAPACITY_LEN, true, "READ CAPACITY(10)");

	if (r < 0)
		return r;
	r = scsi_parse_capacity10(s->small, (size_t)r, cap, why, sizeof(why));
	if (r < 0)
		pr_err("%s: READ CAPACITY(10) data refused: %s\n", s->blk.name, why);
	return r;
}

/* ---- block device --------------------------------------------------------- */

static int stor_rw(struct blk_dev *blk, uint64_t lba, uint32_t count, void *buf, bool write)
{
	struct usb_storage *s = blk->driver_data;
	uint8_t cdb[SCSI_CDB10_LEN];
	uint32_t bytes;
	char what[64];
	int r;

	if (!s || s->gone)
		return -ENODEV;
	if (count == 0 || count > blk->max_blocks || lba + count > blk->nr_blocks ||
	    lba + count > (uint64_t)UINT32_MAX + 1)
		return -EINVAL;
	bytes = count * blk->block_size;
	if (write)
		scsi_cdb_write10(cdb, (uint32_t)lba, (uint16_t)count);
	else
		scsi_cdb_read10(cdb, (uint32_t)lba, (uint16_t)count);
	ksnprintf(what, sizeof(what), "%s lba %llu+%u", write ? "WRITE(10)" : "READ(10)",
		  (unsigned long long)lba, count);
	/* UNIT ATTENTION (-EAGAIN) reports an event (reset, media change) and
	 * not a fault of this command: send it once more. */
	for (unsigned int i = 0; i < USB_STORAGE_RW_TRIES; i++) {
		r = scsi_command(s, cdb, SCSI_CDB10_LEN, buf, bytes, !write, what);
		if (r != -EAGAIN)
			break;
	}
	if (r < 0)
		return s->gone ? -ENODEV : r;
	if ((uint32_t)r != bytes) {
		pr_err("%s: %s moved %d of %u bytes\n", blk->name, what, r, bytes);
		return -EIO;
	}
	return 0;
}

static int stor_read(struct blk_dev *blk, uint64_t lba, uint32_t count, void *buf)
{
	return stor_rw(blk, lba, count, buf, false);
}

static int stor_write(struct blk_dev *blk, uint64_t lba, uint32_t count, const void *buf)
{
	return stor_rw(blk, lba, count, (void *)buf, true);
}

static const struct blk_ops stor_blk_ops = {
	.read = stor_read,
	.write = stor_write,
};

/* ---- binding --------------------------------------------------------------- */

static struct usb_storage *stor_alloc(unsigned int *index)
{
	for (unsigned int i = 0; i < USB_STORAGE_MAX; i++) {
		/* a slot is reused only once its block device is gone and idle */
		if (!units[i].used && !units[i].busy && !units[i].blk.registered) {
			memset(&units[i], 0, sizeof(units[i]));
			*index = i;
			return &units[i];
		}
	}
	return NULL;
}

/* GET MAX LUN (BOT 3.2): optional; a stall means one LUN. We use LUN 0. */
static void stor_get_max_lun(struct usb_storage *s)
{
	int r = usb_control_msg(s->dev, USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_INTERFACE,
				USB_BOT_REQ_GET_MAX_LUN, 0, s->intf->number, s->small, 1,
				USB_CTRL_TIMEOUT_MS);

	if (r == 1 && s->small[0] > 0 && s->small[0] <= USB_BOT_LUN_MAX)
		pr_info("%s: %u LUNs; only LUN 0 is used\n", s->blk.name, s->small[0] + 1u);
	else if (r == 1 && s->small[0] > USB_BOT_LUN_MAX)
		pr_warn("%s: GET MAX LUN says %u (above 15); using LUN 0\n", s->blk.name, s->small[0]);
}

static int stor_setup(struct usb_storage *s)
{
	struct scsi_capacity cap;
	uint8_t cdb[SCSI_CDB6_LEN];
	char why[96];
	int r;

	stor_get_max_lun(s);
	memset(s->small, 0, sizeof(s->small));
	r = scsi_command(s, cdb, (uint8_t)scsi_cdb_inquiry(cdb, SCSI_INQUIRY_LEN), s->small,
			 SCSI_INQUIRY_LEN, true, "INQUIRY");
	if (r < 0)
		return r;
	r = scsi_parse_inquiry(s->small, (size_t)r, &s->inquiry, why, sizeof(why));
	if (r < 0) {
		pr_err("%s: INQUIRY data refused: %s\n", s->blk.name, why);
		return r;
	}
	if (s->inquiry.device_type != SCSI_TYPE_DISK) {
		pr_info("%s: a %s (SCSI type %#x), not a disk: not used\n", s->blk.name,
			scsi_device_type_name(s->inquiry.device_type), s->inquiry.device_type);
		return -ENODEV;
	}
	r = scsi_test_unit_ready(s);
	if (r < 0)
		return r;
	r = scsi_read_capacity(s, &cap);
	if (r < 0)
		return r;
	s->blk.block_size = cap.block_size;
	s->blk.nr_blocks = cap.nr_blocks;
	s->blk.max_blocks = USB_STORAGE_MAX_BYTES / cap.block_size;
	return 0;
}

static int stor_probe(struct usb_device *dev, struct usb_interface *intf)
{
	struct usb_storage *s;
	unsigned int index;
	int r;

	if (intf->class_code != USB_CLASS_MASS_STORAGE || intf->subclass != USB_STORAGE_SUBCLASS_SCSI ||
	    intf->protocol != USB_STORAGE_PROTOCOL_BOT)
		return -ENODEV;
	s = stor_alloc(&index);
	if (!s) {
		pr_err("usb-storage: more than %d devices; this one is not used\n", USB_STORAGE_MAX);
		return -ENOSPC;
	}
	s->dev = dev;
	s->intf = intf;
	s->ep_in = usb_find_endpoint(intf, USB_EP_BULK, true);
	s->ep_out = usb_find_endpoint(intf, USB_EP_BULK, false);
	ksnprintf(s->blk.name, sizeof(s->blk.name), "usb%c", 'a' + index);
	if (!s->ep_in || !s->ep_out) {
		pr_err("%s: bulk-only interface %u lacks a bulk-%s endpoint\n", s->blk.name,
		       intf->number, s->ep_in ? "OUT" : "IN");
		return -EINVAL;
	}
	s->used = true;
	r = stor_setup(s);
	if (r < 0) {
		if (r != -ENODEV || !dev->gone)
			pr_err("%s: not usable: %s\n", s->blk.name, errno_name(r));
		s->used = false;
		return r;
	}
	ksnprintf(s->model, sizeof(s->model), "%s %s", s->inquiry.vendor, s->inquiry.product);
	s->blk.kind = "USB mass storage";
	s->blk.model = s->model;
	s->blk.removable = false;
	s->blk.ops = &stor_blk_ops;
	s->blk.driver_data = s;
	r = blk_register(&s->blk);
	if (r < 0) {
		pr_err("%s: block device not registered: %s\n", s->blk.name, errno_name(r));
		s->used = false;
		return r;
	}
	intf->driver_data = s;
	pr_info("%s: USB mass storage \"%s\" rev %s on %s port %u: %llu blocks of %u bytes "
		"(%llu MiB), %u blocks per command\n", s->blk.name, s->model, s->inquiry.revision,
		dev->hc->name, dev->port + 1, (unsigned long long)s->blk.nr_blocks, s->blk.block_size,
		(unsigned long long)(s->blk.nr_blocks * s->blk.block_size >> 20), s->blk.max_blocks);
	return 0;
}

static void stor_disconnect(struct usb_device *dev, struct usb_interface *intf)
{
	struct usb_storage *s = intf->driver_data;

	(void)dev;
	if (!s)
		return;
	s->gone = true;
	blk_unregister(&s->blk);
	s->used = false;
	intf->driver_data = NULL;
	pr_info("%s: disconnected (%u commands, %u reset recoveries, %u halts cleared, %u sense "
		"reports)%s\n", s->blk.name, s->commands, s->resets, s->stalls_cleared,
		s->sense_reports, s->busy ? "; the command in flight fails with ENODEV" : "");
}

static struct usb_driver usb_storage_driver = {
	.name = "usb-storage",
	.probe = stor_probe,
	.disconnect = stor_disconnect,
};

void usb_storage_init(void)
{
	usb_register_driver(&usb_storage_driver);
}
