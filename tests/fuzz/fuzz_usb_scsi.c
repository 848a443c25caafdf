/*
 * fuzz_usb_scsi.c - libFuzzer target for the parsers of what a USB mass
 * storage device sends (drivers/usb/usb_scsi.c): the CSW judge, INQUIRY,
 * READ CAPACITY(10) and sense data, and the sense message.
 *
 * Input: one selector byte (low 2 bits: which parser; for the CSW the next
 * 8 bytes are the expected tag and transfer length), then the device's
 * bytes. Checks beyond "no crash": verdicts and errors are in range, a
 * passed CSW really carries the signature and tag, parsed strings are
 * printable and terminated, capacities obey the block size rules.
 * Seeds: tests/fuzz/corpus/usb_scsi/.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../drivers/usb/usb_scsi.h"
#include <kernel/errno.h>

enum { SEL_CSW = 0, SEL_INQUIRY = 1, SEL_CAPACITY = 2, SEL_SENSE = 3, WHY = 96 };

static void check_text(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	if (n == cap)
		__builtin_trap();
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7E)
			__builtin_trap();
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void fuzz_csw(const uint8_t *d, size_t n)
{
	struct usb_bot_csw csw;
	char why[WHY];
	uint32_t tag, len;
	enum usb_bot_verdict v;

	if (n < 8)
		return;
	tag = le32(d);
	len = le32(d + 4);
	v = usb_bot_check_csw(d + 8, n - 8, tag, len, &csw, why, sizeof(why));
	if (v > USB_BOT_CSW_NOT_MEANINGFUL)
		__builtin_trap();
	check_text(why, sizeof(why));
	if (v != USB_BOT_CSW_INVALID &&
	    (n - 8 != USB_BOT_CSW_LEN || csw.signature != USB_BOT_CSW_SIGNATURE || csw.tag != tag))
		__builtin_trap();
	if ((v == USB_BOT_CSW_PASSED || v == USB_BOT_CSW_FAILED) && csw.residue > len)
		__builtin_trap();
	if (v == USB_BOT_CSW_PASSED && csw.status != 0)
		__builtin_trap();
}

static void fuzz_inquiry(const uint8_t *d, size_t n)
{
	struct scsi_inquiry inq;
	char why[WHY];
	int r = scsi_parse_inquiry(d, n, &inq, why, sizeof(why));

	if (r != 0 && r != -EPROTO && r != -ENODEV)
		__builtin_trap();
	if (r == 0 && (n < SCSI_INQUIRY_LEN || inq.qualifier != 0))
		__builtin_trap();
	check_text(inq.vendor, sizeof(inq.vendor));
	check_text(inq.product, sizeof(inq.product));
	check_text(inq.revision, sizeof(inq.revision));
	if (r)
		check_text(why, sizeof(why));
}

static void fuzz_capacity(const uint8_t *d, size_t n)
{
	struct scsi_capacity cap;
	char why[WHY];
	int r = scsi_parse_capacity10(d, n, &cap, why, sizeof(why));

	if (r == 0) {
		if (cap.block_size < 512 || cap.block_size > 4096 ||
		    (cap.block_size & (cap.block_size - 1)) || cap.nr_blocks == 0 ||
		    cap.nr_blocks != (uint64_t)cap.last_lba + 1 || cap.last_lba == 0xFFFFFFFFu)
			__builtin_trap();
	} else if (r != -EPROTO && r != -EOVERFLOW) {
		__builtin_trap();
	} else {
		check_text(why, sizeof(why));
	}
}

static void fuzz_sense(const uint8_t *d, size_t n)
{
	struct scsi_sense s;
	char why[WHY], msg[160];
	int r = scsi_parse_sense(d, n, &s, why, sizeof(why));

	if (r == 0) {
		if (s.key > 0x0F)
			__builtin_trap();
		scsi_sense_describe(&s, msg, sizeof(msg));
		check_text(msg, sizeof(msg));
		r = scsi_sense_errno(&s);
		if (r >= 0)
			__builtin_trap();
	} else if (r != -EPROTO) {
		__builtin_trap();
	} else {
		check_text(why, sizeof(why));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	if (size < 1 || size > 4096)
		return 0;
	/* an exact-size heap copy, so ASan sees any read past the device's bytes */
	copy = malloc(size - 1 ? size - 1 : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	switch (data[0] & 3) {
	case SEL_CSW: fuzz_csw(copy, size - 1); break;
	case SEL_INQUIRY: fuzz_inquiry(copy, size - 1); break;
	case SEL_CAPACITY: fuzz_capacity(copy, size - 1); break;
	case SEL_SENSE: fuzz_sense(copy, size - 1); break;
	}
	free(copy);
	return 0;
}
