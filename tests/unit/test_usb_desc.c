/*
 * test_usb_desc.c - host unit tests of the USB descriptor checks
 * (drivers/usb/usb_desc.c): the descriptor sets QEMU's usb-kbd and
 * usb-storage send parse into what the class drivers need, and every kind
 * of lie a device could tell is refused with the output left empty:
 * truncation at every byte, bLength 0 / 1 / past the end, wTotalLength
 * lies, absurd interface and endpoint counts, bad endpoint numbers, max
 * packet 0 or above 64, a bad device descriptor.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <drivers/usb.h>
#include <kernel/errno.h>

#define WHY_LEN 128

/* QEMU 7.2 usb-kbd, configuration 1: config, interface (HID boot keyboard), HID, endpoint 0x81. */
static const uint8_t kbd_config[] = {
	0x09, 0x02, 0x22, 0x00, 0x01, 0x01, 0x06, 0xa0, 0x32,
	0x09, 0x04, 0x00, 0x00, 0x01, 0x03, 0x01, 0x01, 0x07,
	0x09, 0x21, 0x11, 0x01, 0x00, 0x01, 0x22, 0x3f, 0x00,
	0x07, 0x05, 0x81, 0x03, 0x08, 0x00, 0x07,
};

/* A bulk-only mass storage interface (08/06/50) with bulk IN 0x81 and OUT 0x02 of 64 bytes. */
static const uint8_t storage_config[] = {
	0x09, 0x02, 0x20, 0x00, 0x01, 0x01, 0x00, 0xc0, 0x32,
	0x09, 0x04, 0x00, 0x00, 0x02, 0x08, 0x06, 0x50, 0x00,
	0x07, 0x05, 0x81, 0x02, 0x40, 0x00, 0x00,
	0x07, 0x05, 0x02, 0x02, 0x40, 0x00, 0x00,
};

/* QEMU usb-kbd device descriptor. */
static const struct usb_device_desc kbd_device = {
	.length = 18, .type = USB_DT_DEVICE, .bcd_usb = 0x0200, .max_packet0 = 8,
	.vendor_id = 0x0627, .product_id = 0x0001, .bcd_device = 0x0000,
	.i_manufacturer = 1, .i_product = 3, .i_serial = 10, .num_configurations = 1,
};

static int parse(const uint8_t *buf, size_t len, struct usb_config *cfg, char *why)
{
	memset(cfg, 0xA5, sizeof(*cfg));   /* the parser must overwrite everything */
	return usb_parse_config(buf, len, cfg, why, WHY_LEN);
}

static void assert_refused(const uint8_t *buf, size_t len, const char *why_part)
{
	struct usb_config cfg;
	char why[WHY_LEN];

	assert_int_equal(parse(buf, len, &cfg, why), -EINVAL);
	assert_int_equal(cfg.num_interfaces, 0);
	assert_int_equal(cfg.value, 0);
	assert_true(why[0] != 0);
	if (why_part && !strstr(why, why_part)) {
		printf("reason was: %s\n", why);
		fail_msg("reason does not mention '%s'", why_part);
	}
}

/* A modifiable copy of one of the sets. */
static uint8_t *copy(const uint8_t *src, size_t len)
{
	static uint8_t buf[USB_CONFIG_DESC_MAX];

	assert_true(len <= sizeof(buf));
	memcpy(buf, src, len);
	return buf;
}

static void keyboard_set_parses_to_one_interrupt_in_endpoint(void **state)
{
	struct usb_config cfg;
	char why[WHY_LEN];

	(void)state;
	assert_int_equal(parse(kbd_config, sizeof(kbd_config), &cfg, why), 0);
	assert_string_equal(why, "");
	assert_int_equal(cfg.value, 1);
	assert_int_equal(cfg.total_length, sizeof(kbd_config));
	assert_int_equal(cfg.attributes, 0xa0);
	assert_int_equal(cfg.max_power_2ma, 0x32);
	assert_int_equal(cfg.num_interfaces, 1);
	assert_int_equal(cfg.intf[0].class_code, USB_CLASS_HID);
	assert_int_equal(cfg.intf[0].subclass, 1);
	assert_int_equal(cfg.intf[0].protocol, 1);
	assert_int_equal(cfg.intf[0].num_endpoints, 1);
	assert_int_equal(cfg.intf[0].ep[0].address, 0x81);
	assert_int_equal(cfg.intf[0].ep[0].type, USB_EP_INTERRUPT);
	assert_int_equal(cfg.intf[0].ep[0].max_packet, 8);
	assert_int_equal(cfg.intf[0].ep[0].interval, 7);
	assert_null(cfg.intf[0].driver);
	assert_non_null(usb_find_endpoint(&cfg.intf[0], USB_EP_INTERRUPT, true));
	assert_null(usb_find_endpoint(&cfg.intf[0], USB_EP_INTERRUPT, false));
}

static void storage_set_parses_to_bulk_in_and_out(void **state)
{
	struct usb_config cfg;
	char why[WHY_LEN];
	const struct usb_endpoint *in, *out;

	(void)state;
	assert_int_equal(parse(storage_config, sizeof(storage_config), &cfg, why), 0);
	assert_int_equal(cfg.num_interfaces, 1);
	assert_int_equal(cfg.intf[0].class_code, USB_CLASS_MASS_STORAGE);
	assert_int_equal(cfg.intf[0].num_endpoints, 2);
	in = usb_find_endpoint(&cfg.intf[0], USB_EP_BULK, true);
	out = usb_find_endpoint(&cfg.intf[0], USB_EP_BULK, false);
	assert_non_null(in);
	assert_non_null(out);
	assert_int_equal(in->address, 0x81);
	assert_int_equal(out->address, 0x02);
	assert_int_equal(in->max_packet, 64);
}

static void truncation_at_every_byte_is_refused(void **state)
{
	(void)state;
	for (size_t n = 0; n < sizeof(kbd_config); n++)
		assert_refused(kbd_config, n, NULL);
	for (size_t n = 0; n < sizeof(storage_config); n++)
		assert_refused(storage_config, n, NULL);
}

static void more_bytes_than_total_length_are_ignored(void **state)
{
	uint8_t buf[sizeof(kbd_config) + 5];
	struct usb_config cfg;
	char why[WHY_LEN];

	(void)state;
	memcpy(buf, kbd_config, sizeof(kbd_config));
	memset(buf + sizeof(kbd_config), 0, 5);   /* would be bLength 0 if it were read */
	assert_int_equal(parse(buf, sizeof(buf), &cfg, why), 0);
	assert_int_equal(cfg.total_length, sizeof(kbd_config));
}

static void blength_zero_one_and_past_the_end_are_refused(void **state)
{
	uint8_t *b;

	(void)state;
	b = copy(kbd_config, sizeof(kbd_config));
	b[18] = 0;                 /* HID descriptor bLength 0: would loop for ever */
	assert_refused(b, sizeof(kbd_config), "bLength 0");
	b = copy(kbd_config, sizeof(kbd_config));
	b[18] = 1;
	assert_refused(b, sizeof(kbd_config), "bLength 1");
	b = copy(kbd_config, sizeof(kbd_config));
	b[27] = 8;                 /* endpoint runs one byte past wTotalLength */
	assert_refused(b, sizeof(kbd_config), "bytes left");
	b = copy(kbd_config, sizeof(kbd_config));
	b[9] = 8;                  /* interface shorter than its minimum */
	assert_refused(b, sizeof(kbd_config), "interface descriptor");
	b = copy(kbd_config, sizeof(kbd_config));
	b[27] = 6;                 /* endpoint shorter than its minimum */
	assert_refused(b, sizeof(kbd_config), "endpoint descriptor");
	b = copy(kbd_config, sizeof(kbd_config));
	b[0] = 8;                  /* configuration header too short */
	assert_refused(b, sizeof(kbd_config), "configuration header");
	b = copy(kbd_config, sizeof(kbd_config));
	b[1] = USB_DT_DEVICE;
	assert_refused(b, sizeof(kbd_config), "configuration header");
}

static void total_length_lies_are_refused(void **state)
{
	uint8_t *b;
	struct usb_config cfg;
	char why[WHY_LEN];

	(void)state;
	b = copy(kbd_config, sizeof(kbd_config));
	b[2] = sizeof(kbd_config) + 1;   /* claims more than was read */
	assert_refused(b, sizeof(kbd_config), "wTotalLength");
	b = copy(kbd_config, sizeof(kbd_config));
	b[2] = 0xFF;
	b[3] = 0xFF;
	assert_refused(b, sizeof(kbd_config), "wTotalLength");
	b = copy(kbd_config, sizeof(kbd_config));
	b[2] = 8;                        /* less than its own header */
	assert_refused(b, sizeof(kbd_config), "wTotalLength");
	b = copy(kbd_config, sizeof(kbd_config));
	b[2] = 9;                        /* only the header: the interface is missing */
	assert_refused(b, sizeof(kbd_config), "claims 1 interfaces, has 0");
	/* Claiming less, cutting the endpoint in half, is a truncated endpoint. */
	b = copy(kbd_config, sizeof(kbd_config));
	b[2] = 30;
	assert_int_equal(parse(b, sizeof(kbd_config), &cfg, why), -EINVAL);
}

static void absurd_interface_and_endpoint_counts_are_refused(void **state)
{
	uint8_t *b;

	(void)state;
	b = copy(kbd_config, sizeof(kbd_config));
	b[4] = 0;
	assert_refused(b, sizeof(kbd_config), "no interface");
	b = copy(kbd_config, sizeof(kbd_config));
	b[4] = 255;
	assert_refused(b, sizeof(kbd_config), "claims 255 interfaces, has 1");
	b = copy(kbd_config, sizeof(kbd_config));
	b[13] = 255;                     /* bNumEndpoints */
	assert_refused(b, sizeof(kbd_config), "claims 255 endpoints");
	b = copy(kbd_config, sizeof(kbd_config));
	b[13] = 2;
	assert_refused(b, sizeof(kbd_config), "claims 2 endpoints, has 1");
	b = copy(kbd_config, sizeof(kbd_config));
	b[13] = 0;
	assert_refused(b, sizeof(kbd_config), "has more");
	b = copy(kbd_config, sizeof(kbd_config));
	b[5] = 0;
	assert_refused(b, sizeof(kbd_config), "bConfigurationValue 0");
}

static void bad_endpoint_numbers_are_refused(void **state)
{
	uint8_t *b;

	(void)state;
	b = copy(kbd_config, sizeof(kbd_config));
	b[29] = 0x80;                    /* endpoint 0 IN */
	assert_refused(b, sizeof(kbd_config), "number 0");
	b = copy(kbd_config, sizeof(kbd_config));
	b[29] = 0x91;                    /* reserved bit 4 */
	assert_refused(b, sizeof(kbd_config), "reserved");
	b = copy(storage_config, sizeof(storage_config));
	b[27] = 0x81;                    /* the OUT endpoint becomes a second 0x81 */
	assert_refused(b, sizeof(storage_config), "twice");
	b = copy(kbd_config, sizeof(kbd_config));
	b[30] = USB_EP_CONTROL;
	assert_refused(b, sizeof(kbd_config), "control");
	b = copy(kbd_config, sizeof(kbd_config));
	b[33] = 0;                       /* interrupt bInterval 0 */
	assert_refused(b, sizeof(kbd_config), "bInterval");
}

static void endpoint_before_interface_is_refused(void **state)
{
	static const uint8_t b[] = {
		0x09, 0x02, 0x19, 0x00, 0x01, 0x01, 0x00, 0x80, 0x32,
		0x07, 0x05, 0x81, 0x03, 0x08, 0x00, 0x07,
		0x09, 0x04, 0x00, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00,
	};

	(void)state;
	assert_refused(b, sizeof(b), "before any interface");
}

static void max_packet_zero_or_above_64_is_refused(void **state)
{
	uint8_t *b;

	(void)state;
	b = copy(kbd_config, sizeof(kbd_config));
	b[31] = 0;
	assert_refused(b, sizeof(kbd_config), "max packet 0");
	b = copy(kbd_config, sizeof(kbd_config));
	b[31] = 65;
	assert_refused(b, sizeof(kbd_config), "max packet 65");
	b = copy(kbd_config, sizeof(kbd_config));
	b[31] = 0x00;
	b[32] = 0x04;                    /* 1024 */
	assert_refused(b, sizeof(kbd_config), "max packet 1024");
	b = copy(kbd_config, sizeof(kbd_config));
	b[32] = 0x08;                    /* high-bandwidth bits */
	assert_refused(b, sizeof(kbd_config), "high-bandwidth");
	b = copy(storage_config, sizeof(storage_config));
	b[22] = 48;                      /* bulk must be 8/16/32/64 */
	assert_refused(b, sizeof(storage_config), "bulk max packet 48");
}

static void nested_configuration_is_refused(void **state)
{
	uint8_t *b;

	(void)state;
	b = copy(kbd_config, sizeof(kbd_config));
	b[19] = USB_DT_CONFIG;           /* the HID descriptor turns into a configuration */
	assert_refused(b, sizeof(kbd_config), "inside");
}

static void alternate_settings_are_checked_not_kept(void **state)
{
	static const uint8_t b[] = {
		0x09, 0x02, 0x29, 0x00, 0x01, 0x01, 0x00, 0x80, 0x32,
		0x09, 0x04, 0x00, 0x00, 0x01, 0x03, 0x01, 0x01, 0x00,
		0x07, 0x05, 0x81, 0x03, 0x08, 0x00, 0x07,
		0x09, 0x04, 0x00, 0x01, 0x01, 0x03, 0x01, 0x01, 0x00,
		0x07, 0x05, 0x81, 0x03, 0x10, 0x00, 0x01,
	};
	uint8_t bad[sizeof(b)];
	struct usb_config cfg;
	char why[WHY_LEN];

	(void)state;
	assert_int_equal(parse(b, sizeof(b), &cfg, why), 0);
	assert_int_equal(cfg.num_interfaces, 1);
	assert_int_equal(cfg.intf[0].ep[0].max_packet, 8);
	memcpy(bad, b, sizeof(b));
	bad[40] = 0;                     /* the alternate's endpoint: bInterval 0 */
	assert_refused(bad, sizeof(bad), "bInterval");
	memcpy(bad, b, sizeof(b));
	bad[28] = 0;                     /* second interface 0 alt 0: duplicate */
	assert_refused(bad, sizeof(bad), "twice");
}

/* Nine interfaces: eight are kept, and the success note says one was not. */
static void interfaces_beyond_the_limit_are_noted_not_kept(void **state)
{
	uint8_t b[9 + 9 * 9];
	struct usb_config cfg;
	char why[WHY_LEN];

	(void)state;
	memcpy(b, (const uint8_t[]){ 0x09, 0x02, sizeof(b), 0x00, 9, 0x01, 0x00, 0x80, 0x32 }, 9);
	for (unsigned int i = 0; i < 9; i++)
		memcpy(b + 9 + 9 * i, (const uint8_t[]){ 0x09, 0x04, (uint8_t)i, 0, 0, 0xff, 0, 0, 0 }, 9);
	assert_int_equal(parse(b, sizeof(b), &cfg, why), 0);
	assert_int_equal(cfg.num_interfaces, USB_MAX_INTERFACES);
	assert_non_null(strstr(why, "1 interfaces beyond 8"));
}

static void device_descriptor_checks(void **state)
{
	struct usb_device_desc d;
	char why[WHY_LEN];

	(void)state;
	assert_int_equal(usb_check_device_desc(&kbd_device, 18, why, sizeof(why)), 0);
	for (size_t n = 0; n < 18; n++)
		assert_int_equal(usb_check_device_desc(&kbd_device, n, why, sizeof(why)), -EINVAL);
	d = kbd_device;
	d.length = 17;
	assert_int_equal(usb_check_device_desc(&d, 18, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "bLength 17"));
	d = kbd_device;
	d.type = USB_DT_CONFIG;
	assert_int_equal(usb_check_device_desc(&d, 18, why, sizeof(why)), -EINVAL);
	d = kbd_device;
	d.max_packet0 = 0;
	assert_int_equal(usb_check_device_desc(&d, 18, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "bMaxPacketSize0 0"));
	d.max_packet0 = 12;
	assert_int_equal(usb_check_device_desc(&d, 18, why, sizeof(why)), -EINVAL);
	d = kbd_device;
	d.bcd_usb = 0x01A0;
	assert_int_equal(usb_check_device_desc(&d, 18, why, sizeof(why)), -EINVAL);
	d.bcd_usb = 0x0001;
	assert_int_equal(usb_check_device_desc(&d, 18, why, sizeof(why)), -EINVAL);
	d = kbd_device;
	d.num_configurations = 0;
	assert_int_equal(usb_check_device_desc(&d, 18, why, sizeof(why)), -EINVAL);
	assert_int_equal(usb_check_device_desc(NULL, 18, why, sizeof(why)), -EINVAL);
}

static void tiny_reason_buffers_are_not_overrun(void **state)
{
	char why[4];
	struct usb_config cfg;

	(void)state;
	memset(why, 'x', sizeof(why));
	assert_int_equal(usb_parse_config(kbd_config, 5, &cfg, why, sizeof(why)), -EINVAL);
	assert_int_equal(strlen(why), 3);
	assert_int_equal(usb_parse_config(kbd_config, 5, &cfg, NULL, 0), -EINVAL);
	assert_int_equal(usb_parse_config(NULL, 0, &cfg, why, sizeof(why)), -EINVAL);
	assert_int_equal(usb_parse_config(kbd_config, sizeof(kbd_config), NULL, why, sizeof(why)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keyboard_set_parses_to_one_interrupt_in_endpoint),
		cmocka_unit_test(storage_set_parses_to_bulk_in_and_out),
		cmocka_unit_test(truncation_at_every_byte_is_refused),
		cmocka_unit_test(more_bytes_than_total_length_are_ignored),
		cmocka_unit_test(blength_zero_one_and_past_the_end_are_refused),
		cmocka_unit_test(total_length_lies_are_refused),
		cmocka_unit_test(absurd_interface_and_endpoint_counts_are_refused),
		cmocka_unit_test(bad_endpoint_numbers_are_refused),
		cmocka_unit_test(endpoint_before_interface_is_refused),
		cmocka_unit_test(max_packet_zero_or_above_64_is_refused),
		cmocka_unit_test(nested_configuration_is_refused),
		cmocka_unit_test(alternate_settings_are_checked_not_kept),
		cmocka_unit_test(interfaces_beyond_the_limit_are_noted_not_kept),
		cmocka_unit_test(device_descriptor_checks),
		cmocka_unit_test(tiny_reason_buffers_are_not_overrun),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
