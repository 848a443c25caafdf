/*
 * test_usb_storage.c - host tests of the mass storage driver
 * (drivers/usb/usb_storage.c) against a simulated Bulk-Only Transport
 * device: binding, set-up (GET MAX LUN, INQUIRY, TEST UNIT READY retries,
 * READ CAPACITY), READ(10)/WRITE(10) round trips, and every error path of
 * BOT 5.3 that QEMU's usb-storage never takes: a stalled data stage
 * (clear halt, then the CSW), a stalled CSW (clear halt, read again), a
 * CSW with a wrong tag / wrong length / residue above the length / phase
 * error (reset recovery: class reset, clear both halts, EIO), CHECK
 * CONDITION with sense data (REQUEST SENSE, errors by sense key), UNIT
 * ATTENTION retried once, and unplug (ENODEV, blk_unregister).
 *
 * The simulated device follows BOT 1.0 and SPC-3/SBC-2 as written, not the
 * driver: it parses the CBW bytes the driver really sent and checks them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <drivers/usb.h>
#include <kernel/blk.h>
#include <kernel/errno.h>

enum { SIM_BLOCKS = 1024, BS = 512, EP_IN = 0x81, EP_OUT = 0x02 };

enum phase { EXPECT_CBW, DATA_IN, DATA_OUT, SEND_CSW };

struct sim {
	enum phase phase;
	uint32_t tag, data_len, residue;
	uint8_t status;
	bool in;
	uint8_t cdb[16];
	uint8_t resp[65536];
	size_t resp_len;
	uint8_t disk[SIM_BLOCKS * BS];
	uint8_t sense_key, asc, ascq;
	/* behaviour */
	int tur_not_ready;            /* TEST UNIT READY says NOT READY this many times */
	bool stall_data_next, stall_csw_next, bad_tag_next, phase_error_next, short_csw_next;
	bool big_residue_next, max_lun_stall, gone;
	int fail_next_key, fail_next_asc;   /* next READ/WRITE: CHECK CONDITION with this sense */
	uint8_t inquiry_byte0;
	uint32_t capacity_block_size;
	bool halted_in, halted_out;
	/* records */
	unsigned int resets, clear_in, clear_out, cbws, tur, sleeps, bad_cbws;
	char log[65536];
	size_t log_len;
	struct blk_dev *registered;
	bool unregistered;
};

static struct sim S;
static struct usb_driver *drv;
static struct usb_hc hc = {.name = "sim0"};
static struct usb_device dev;
static struct usb_interface intf;

/* ---- what usb_storage.c calls -------------------------------------------------------- */

int printk(int level, const char *fmt, ...)
{
	va_list ap;
	int n;
	size_t room = sizeof(S.log) - S.log_len;

	(void)level;
	va_start(ap, fmt);
	n = vsnprintf(S.log + S.log_len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		S.log_len += (size_t)n < room ? (size_t)n : room - 1;
	return n;
}

int msleep(uint32_t ms)
{
	(void)ms;
	S.sleeps++;
	return 0;
}

int usb_register_driver(struct usb_driver *d)
{
	drv = d;
	return 0;
}

const struct usb_endpoint *usb_find_endpoint(const struct usb_interface *i, uint8_t type, bool in)
{
	for (unsigned int k = 0; k < i->num_endpoints; k++)
		if (i->ep[k].type == type && ((i->ep[k].address & USB_DIR_IN) != 0) == in)
			return &i->ep[k];
	return NULL;
}

int blk_register(struct blk_dev *d)
{
	d->registered = true;
	S.registered = d;
	return 0;
}

void blk_unregister(struct blk_dev *d)
{
	d->registered = false;
	S.unregistered = true;
}

int usb_control_msg(struct usb_device *d, uint8_t type, uint8_t req, uint16_t value,
		    uint16_t index, void *data, uint16_t len, uint32_t timeout_ms)
{
	(void)value; (void)timeout_ms;
	assert_ptr_equal(d, &dev);
	if (S.gone)
		return -ENODEV;
	assert_int_equal(index, intf.number);
	if (req == 0xFF) {                /* Bulk-Only Mass Storage Reset (BOT 3.1) */
		assert_int_equal(type, 0x21);
		assert_int_equal(len, 0);
		S.resets++;
		S.phase = EXPECT_CBW;     /* halts stay until cleared (BOT 5.3.4) */
		return 0;
	}
	if (req == 0xFE) {                /* Get Max LUN (BOT 3.2) */
		assert_int_equal(type, 0xA1);
		assert_int_equal(len, 1);
		if (S.max_lun_stall)
			return -EPIPE;
		((uint8_t *)data)[0] = 0;
		return 1;
	}
	fail_msg("unexpected control request 0x%02x", req);
	return -EINVAL;
}

int usb_clear_halt(struct usb_device *d, const struct usb_endpoint *ep)
{
	(void)d;
	if (S.gone)
		return -ENODEV;
	if (ep->address & USB_DIR_IN) {
		S.halted_in = false;
		S.clear_in++;
	} else {
		S.halted_out = false;
		S.clear_out++;
	}
	return 0;
}

/* ---- the simulated device ------------------------------------------------------------- */

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

static void check_condition(uint8_t key, uint8_t asc, uint8_t ascq)
{
	S.status = 1;
	S.sense_key = key;
	S.asc = asc;
	S.ascq = ascq;
}

static void execute(void)
{
	uint32_t lba = be32(S.cdb + 2), count = (uint32_t)S.cdb[7] << 8 | S.cdb[8];

	S.status = 0;
	S.resp_len = 0;
	switch (S.cdb[0]) {
	case 0x00:
		S.tur++;
		if (S.tur_not_ready > 0) {
			S.tur_not_ready--;
			check_condition(2, 0x04, 0x01);
		}
		break;
	case 0x03:
		memset(S.resp, 0, 18);
		S.resp[0] = 0x70;
		S.resp[2] = S.sense_key;
		S.resp[7] = 10;
		S.resp[12] = S.asc;
		S.resp[13] = S.ascq;
		S.resp_len = 18;
		S.sense_key = S.asc = S.ascq = 0;
		break;
	case 0x12:
		memset(S.resp, 0, 36);
		S.resp[0] = S.inquiry_byte0;
		S.resp[2] = 5;
		S.resp[3] = 2;
		S.resp[4] = 31;
		memcpy(S.resp + 8, "SIM     SIMDISK         1.0 ", 28);
		S.resp_len = 36;
		break;
	case 0x25:
		S.resp[0] = (SIM_BLOCKS - 1) >> 24; S.resp[1] = (SIM_BLOCKS - 1) >> 16;
		S.resp[2] = (SIM_BLOCKS - 1) >> 8; S.resp[3] = (SIM_BLOCKS - 1) & 0xFF;
		S.resp[4] = S.capacity_block_size >> 24; S.resp[5] = S.capacity_block_size >> 16;
		S.resp[6] = S.capacity_block_size >> 8; S.resp[7] = S.capacity_block_size & 0xFF;
		S.resp_len = 8;
		break;
	case 0x28:
	case 0x2A:
		assert_int_equal(S.data_len, count * BS);
		assert_int_equal(S.in, S.cdb[0] == 0x28);
		if (S.fail_next_key) {
			check_condition((uint8_t)S.fail_next_key, (uint8_t)S.fail_next_asc, 0);
			S.fail_next_key = 0;
		} else if (lba + count > SIM_BLOCKS) {
			check_condition(5, 0x21, 0);
		} else if (S.cdb[0] == 0x28) {
			memcpy(S.resp, S.disk + (size_t)lba * BS, count * BS);
			S.resp_len = count * BS;
		}
		break;
	default:
		check_condition(5, 0x20, 0);
	}
}

static int sim_cbw(const uint8_t *buf, uint32_t len)
{
	assert_int_equal(len, 31);
	if (le32(buf) != 0x43425355) {    /* BOT 6.6.1: not valid: stall both */
		S.bad_cbws++;
		S.halted_in = S.halted_out = true;
		return -EPIPE;
	}
	S.cbws++;
	S.tag = le32(buf + 4);
	S.data_len = le32(buf + 8);
	S.in = (buf[12] & 0x80) != 0;
	assert_int_equal(buf[12] & 0x7F, 0);
	if (!S.data_len)
		assert_int_equal(buf[12], 0);
	assert_int_equal(buf[13], 0);                 /* LUN 0 */
	assert_true(buf[14] >= 1 && buf[14] <= 16);
	memset(S.cdb, 0, sizeof(S.cdb));
	memcpy(S.cdb, buf + 15, buf[14]);
	for (int i = 15 + buf[14]; i < 31; i++)
		assert_int_equal(buf[i], 0);
	execute();
	S.residue = S.data_len;
	S.phase = S.data_len ? (S.in ? DATA_IN : DATA_OUT) : SEND_CSW;
	return 31;
}

static int sim_csw(uint8_t *buf, uint32_t len)
{
	uint32_t tag = S.tag + (S.bad_tag_next ? 1 : 0);
	uint32_t residue = S.big_residue_next ? S.data_len + 1 : S.residue;
	uint8_t status = S.phase_error_next ? 2 : S.status;
	int n = S.short_csw_next ? 12 : 13;

	if (S.stall_csw_next) {
		S.stall_csw_next = false;
		S.halted_in = true;
		return -EPIPE;
	}
	assert_true(len >= 13);
	S.bad_tag_next = S.big_residue_next = S.phase_error_next = S.short_csw_next = false;
	buf[0] = 0x55; buf[1] = 0x53; buf[2] = 0x42; buf[3] = 0x53;
	for (int i = 0; i < 4; i++) {
		buf[4 + i] = (uint8_t)(tag >> (8 * i));
		buf[8 + i] = (uint8_t)(residue >> (8 * i));
	}
	buf[12] = status;
	S.phase = EXPECT_CBW;
	return n;
}

int usb_bulk_msg(struct usb_device *d, const struct usb_endpoint *ep, void *buf, uint32_t len,
		 uint32_t timeout_ms)
{
	(void)timeout_ms;
	assert_ptr_equal(d, &dev);
	if (S.gone)
		return -ENODEV;
	if (!(ep->address & USB_DIR_IN)) {
		assert_int_equal(ep->address, EP_OUT);
		if (S.halted_out)
			return -EPIPE;
		if (S.phase == EXPECT_CBW)
			return sim_cbw(buf, len);
		if (S.phase != DATA_OUT)
			fail_msg("bulk-OUT in phase %d", S.phase);
		if (S.stall_data_next) {
			S.stall_data_next = false;
			S.halted_out = true;
			check_condition(4, 0x44, 0);
			S.phase = SEND_CSW;
			return -EPIPE;
		}
		assert_int_equal(len, S.data_len);
		if (S.status == 0)
			memcpy(S.disk + (size_t)be32(S.cdb + 2) * BS, buf, len);
		S.residue = S.status == 0 ? 0 : S.data_len;
		S.phase = SEND_CSW;
		return (int)len;
	}
	assert_int_equal(ep->address, EP_IN);
	if (S.halted_in)
		return -EPIPE;
	if (S.phase == DATA_IN) {
		size_t n = S.resp_len < len ? S.resp_len : len;

		if (S.stall_data_next || (S.status && !S.resp_len)) {
			/* BOT 6.7.2 (case Hi > Dn or an error): stall the data stage */
			if (S.stall_data_next)
				check_condition(3, 0x11, 0);
			S.stall_data_next = false;
			S.halted_in = true;
			S.phase = SEND_CSW;
			return -EPIPE;
		}
		memcpy(buf, S.resp, n);
		S.residue = S.data_len - (uint32_t)n;
		S.phase = SEND_CSW;
		return (int)n;
	}
	if (S.phase == SEND_CSW)
		return sim_csw(buf, len);
	fail_msg("bulk-IN in phase %d", S.phase);
	return -EIO;
}

/* ---- fixtures ------------------------------------------------------------------------ */

void usb_storage_init(void);

static int setup(void **state)
{
	(void)state;
	memset(&S, 0, sizeof(S));
	S.capacity_block_size = BS;
	for (size_t i = 0; i < sizeof(S.disk); i++)
		S.disk[i] = (uint8_t)(i * 7 + i / 512);
	memset(&dev, 0, sizeof(dev));
	dev.present = true;
	dev.hc = &hc;
	dev.port = 1;
	memset(&intf, 0, sizeof(intf));
	intf.class_code = 8;
	intf.subclass = 6;
	intf.protocol = 0x50;
	intf.num_endpoints = 2;
	intf.ep[0] = (struct usb_endpoint){.address = EP_IN, .type = USB_EP_BULK, .max_packet = 64};
	intf.ep[1] = (struct usb_endpoint){.address = EP_OUT, .type = USB_EP_BULK, .max_packet = 64};
	drv = NULL;
	usb_storage_init();
	assert_non_null(drv);
	assert_string_equal(drv->name, "usb-storage");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (intf.driver_data)
		drv->disconnect(&dev, &intf);
	return 0;
}

static struct blk_dev *bind(void)
{
	assert_int_equal(drv->probe(&dev, &intf), 0);
	assert_non_null(S.registered);
	return S.registered;
}

static bool in_log(const char *s)
{
	return strstr(S.log, s) != NULL;
}

/* ---- binding and set-up --------------------------------------------------------------- */

static void a_bulk_only_scsi_interface_becomes_usba(void **state)
{
	struct blk_dev *b;

	(void)state;
	b = bind();
	assert_string_equal(b->name, "usba");
	assert_string_equal(b->kind, "USB mass storage");
	assert_string_equal(b->model, "SIM SIMDISK");
	assert_int_equal(b->block_size, 512);
	assert_int_equal(b->nr_blocks, SIM_BLOCKS);
	assert_int_equal(b->max_blocks, 64);
	assert_int_equal(S.tur, 1);
	assert_int_equal(S.resets, 0);
	assert_true(in_log("usba: USB mass storage \"SIM SIMDISK\" rev 1.0 on sim0 port 2: 1024 blocks"));
}

static void other_interfaces_are_not_taken(void **state)
{
	(void)state;
	intf.protocol = 0x62;           /* UAS */
	assert_int_equal(drv->probe(&dev, &intf), -ENODEV);
	intf.protocol = 0x50;
	intf.subclass = 0x04;           /* UFI */
	assert_int_equal(drv->probe(&dev, &intf), -ENODEV);
	intf.subclass = 0x06;
	intf.class_code = 3;
	assert_int_equal(drv->probe(&dev, &intf), -ENODEV);
	intf.class_code = 8;
	intf.num_endpoints = 1;         /* no bulk-OUT */
	assert_int_equal(drv->probe(&dev, &intf), -EINVAL);
	assert_int_equal(S.cbws, 0);
}

static void a_stalled_get_max_lun_means_one_lun(void **state)
{
	(void)state;
	S.max_lun_stall = true;
	bind();
}

static void test_unit_ready_is_retried_while_not_ready_and_bounded(void **state)
{
	(void)state;
	S.tur_not_ready = 3;
	bind();
	assert_int_equal(S.tur, 4);
	assert_int_equal(S.sleeps, 3);
	drv->disconnect(&dev, &intf);
	S.registered = NULL;
	S.tur = S.sleeps = 0;
	S.tur_not_ready = 1000;
	assert_int_equal(drv->probe(&dev, &intf), -EAGAIN);
	assert_int_equal(S.tur, 25);
	assert_null(S.registered);
	assert_true(in_log("still not ready after 25 tries"));
}

static void a_lun_without_device_or_an_odd_block_size_is_refused(void **state)
{
	(void)state;
	S.inquiry_byte0 = 0x7F;         /* qualifier 3 */
	assert_int_equal(drv->probe(&dev, &intf), -ENODEV);
	S.inquiry_byte0 = 0x05;         /* a CD-ROM: not ours */
	assert_int_equal(drv->probe(&dev, &intf), -ENODEV);
	S.inquiry_byte0 = 0;
	S.capacity_block_size = 1000;
	assert_int_equal(drv->probe(&dev, &intf), -EPROTO);
	assert_true(in_log("block size 1000 is not a power of two"));
	assert_null(S.registered);
}

/* ---- data ----------------------------------------------------------------------------- */

static void blocks_written_read_back_through_read10_and_write10(void **state)
{
	struct blk_dev *b;
	uint8_t *w = malloc(64 * BS), *r = malloc(64 * BS);

	(void)state;
	b = bind();
	for (int i = 0; i < 64 * BS; i++)
		w[i] = (uint8_t)(i ^ 0x5A);
	assert_int_equal(b->ops->write(b, 900, 64, w), 0);
	assert_memory_equal(S.disk + 900 * BS, w, 64 * BS);
	assert_int_equal(b->ops->read(b, 900, 64, r), 0);
	assert_memory_equal(r, w, 64 * BS);
	assert_int_equal(b->ops->read(b, SIM_BLOCKS - 1, 1, r), 0);
	assert_memory_equal(r, S.disk + (SIM_BLOCKS - 1) * BS, BS);
	/* the driver's own bounds: more than max_blocks, or past the end */
	assert_int_equal(b->ops->read(b, 0, 65, r), -EINVAL);
	assert_int_equal(b->ops->read(b, SIM_BLOCKS - 1, 2, r), -EINVAL);
	assert_int_equal(S.resets, 0);
	free(w);
	free(r);
}

/* ---- BOT 5.3 error handling ----------------------------------------------------------- */

static void a_stalled_data_stage_is_cleared_and_the_csw_and_sense_say_why(void **state)
{
	struct blk_dev *b;
	uint8_t buf[BS];

	(void)state;
	b = bind();
	S.stall_data_next = true;
	assert_int_equal(b->ops->read(b, 10, 1, buf), -EIO);
	assert_int_equal(S.clear_in, 1);
	assert_int_equal(S.resets, 0);
	assert_true(in_log("usba: READ(10) lba 10+1 failed: MEDIUM ERROR: unrecovered read error "
			   "(asc 0x11 ascq 0x00)"));
	S.stall_data_next = true;
	assert_int_equal(b->ops->write(b, 10, 1, buf), -EIO);
	assert_int_equal(S.clear_out, 1);
	assert_true(in_log("HARDWARE ERROR: internal target failure"));
	assert_int_equal(b->ops->read(b, 10, 1, buf), 0);
	assert_memory_equal(buf, S.disk + 10 * BS, BS);
}

static void a_stalled_csw_is_cleared_and_read_again(void **state)
{
	struct blk_dev *b;
	uint8_t buf[BS];

	(void)state;
	b = bind();
	S.stall_csw_next = true;
	assert_int_equal(b->ops->read(b, 3, 1, buf), 0);
	assert_int_equal(S.clear_in, 1);
	assert_int_equal(S.resets, 0);
	assert_memory_equal(buf, S.disk + 3 * BS, BS);
}

/* Each bad CSW: reset recovery (reset, clear IN, clear OUT), EIO, and the next command works. */
static void check_reset_recovery(bool *flag, const char *why)
{
	struct blk_dev *b = S.registered;
	uint8_t buf[BS];
	unsigned int resets = S.resets, cin = S.clear_in, cout = S.clear_out;

	*flag = true;
	assert_int_equal(b->ops->read(b, 7, 1, buf), -EIO);
	assert_int_equal(S.resets, resets + 1);
	assert_int_equal(S.clear_in, cin + 1);
	assert_int_equal(S.clear_out, cout + 1);
	assert_true(in_log(why));
	assert_int_equal(b->ops->read(b, 7, 1, buf), 0);
	assert_memory_equal(buf, S.disk + 7 * BS, BS);
}

static void csws_that_are_not_valid_or_not_meaningful_lead_to_reset_recovery(void **state)
{
	(void)state;
	bind();
	check_reset_recovery(&S.bad_tag_next, "READ(10): CSW invalid: CSW tag");
	check_reset_recovery(&S.short_csw_next, "READ(10): CSW invalid: CSW of 12 bytes, not 13");
	check_reset_recovery(&S.big_residue_next, "CSW not meaningful: CSW residue 513 exceeds");
	check_reset_recovery(&S.phase_error_next, "CSW phase error");
}

static void a_cbw_the_device_refuses_leads_to_reset_recovery(void **state)
{
	struct blk_dev *b;
	uint8_t buf[BS];

	(void)state;
	b = bind();
	S.halted_out = true;            /* as after a CBW the device judged invalid */
	assert_int_equal(b->ops->read(b, 1, 1, buf), -EIO);
	assert_true(in_log("READ(10): CBW not accepted (EPIPE); reset recovery"));
	assert_int_equal(S.resets, 1);
	assert_false(S.halted_in || S.halted_out);
	assert_int_equal(b->ops->read(b, 1, 1, buf), 0);
}

static void check_condition_errors_follow_the_sense_key(void **state)
{
	struct blk_dev *b;
	uint8_t buf[BS];

	(void)state;
	b = bind();
	S.fail_next_key = 2; S.fail_next_asc = 0x3A;
	assert_int_equal(b->ops->read(b, 1, 1, buf), -ENOMEDIUM);
	assert_true(in_log("NOT READY: medium not present"));
	S.fail_next_key = 7; S.fail_next_asc = 0x27;
	assert_int_equal(b->ops->write(b, 1, 1, buf), -EROFS);
	assert_true(in_log("usba: WRITE(10) lba 1+1 failed: DATA PROTECT: write protected"));
	S.fail_next_key = 5; S.fail_next_asc = 0x24;
	assert_int_equal(b->ops->read(b, 1, 1, buf), -EINVAL);
	assert_int_equal(S.resets, 0);
}

static void a_unit_attention_is_sent_once_more(void **state)
{
	struct blk_dev *b;
	uint8_t buf[BS];
	unsigned int cbws;

	(void)state;
	b = bind();
	cbws = S.cbws;
	S.fail_next_key = 6; S.fail_next_asc = 0x29;
	assert_int_equal(b->ops->read(b, 2, 1, buf), 0);
	assert_int_equal(S.cbws, cbws + 3);   /* READ, REQUEST SENSE, READ */
	assert_memory_equal(buf, S.disk + 2 * BS, BS);
}

static void unplug_fails_transfers_and_unregisters_the_disk(void **state)
{
	struct blk_dev *b;
	uint8_t buf[BS];

	(void)state;
	b = bind();
	S.gone = true;
	dev.gone = true;
	assert_int_equal(b->ops->read(b, 2, 1, buf), -ENODEV);
	assert_int_equal(S.resets, 0);
	drv->disconnect(&dev, &intf);
	assert_true(S.unregistered);
	assert_null(intf.driver_data);
	assert_int_equal(b->ops->read(b, 2, 1, buf), -ENODEV);
	assert_true(in_log("usba: disconnected"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_bulk_only_scsi_interface_becomes_usba, setup, teardown),
		cmocka_unit_test_setup_teardown(other_interfaces_are_not_taken, setup, teardown),
		cmocka_unit_test_setup_teardown(a_stalled_get_max_lun_means_one_lun, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unit_ready_is_retried_while_not_ready_and_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(a_lun_without_device_or_an_odd_block_size_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(blocks_written_read_back_through_read10_and_write10, setup, teardown),
		cmocka_unit_test_setup_teardown(a_stalled_data_stage_is_cleared_and_the_csw_and_sense_say_why, setup, teardown),
		cmocka_unit_test_setup_teardown(a_stalled_csw_is_cleared_and_read_again, setup, teardown),
		cmocka_unit_test_setup_teardown(csws_that_are_not_valid_or_not_meaningful_lead_to_reset_recovery, setup, teardown),
		cmocka_unit_test_setup_teardown(a_cbw_the_device_refuses_leads_to_reset_recovery, setup, teardown),
		cmocka_unit_test_setup_teardown(check_condition_errors_follow_the_sense_key, setup, teardown),
		cmocka_unit_test_setup_teardown(a_unit_attention_is_sent_once_more, setup, teardown),
		cmocka_unit_test_setup_teardown(unplug_fails_transfers_and_unregisters_the_disk, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
