/*
 * usb_desc.c - checking and parsing the descriptors a USB device sends
 * (USB 2.0 chapter 9.6: device, configuration, interface and endpoint
 * descriptors; 5.5.3 / 5.7.3 / 5.8.3: the packet sizes full- and low-speed
 * endpoints may have). Everything here is untrusted input from the wire:
 * every length is checked against what is left, every count against what
 * is really there and against what the core keeps (include/drivers/usb.h,
 * enum usb_limits).
 *
 * Pure C: only <stdint.h>, <stddef.h>, <stdarg.h> and the kernel's error
 * numbers, so the host unit tests (tests/unit/test_usb_desc.c) and the fuzz
 * target (tests/fuzz/fuzz_usb_desc.c) run this very file. See also
 * usb_core.c, which reads the descriptors and calls these.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <drivers/usb.h>
#include <kernel/errno.h>

/* Sizes and rules from USB 2.0 chapter 9.6 and 5.x. */
enum usb_desc_rules {
	USB_DEVICE_DESC_LEN = 18,     /* table 9-8 */
	USB_CONFIG_DESC_LEN = 9,      /* table 9-10 */
	USB_INTERFACE_DESC_LEN = 9,   /* table 9-12 */
	USB_ENDPOINT_DESC_LEN = 7,    /* table 9-13 */
	USB_DESC_HEADER_LEN = 2,      /* bLength, bDescriptorType: the least any descriptor has */
	USB_EP_NUMBER_MASK = 0x0F,    /* bEndpointAddress bits 3:0 */
	USB_EP_RESERVED_MASK = 0x70,  /* bEndpointAddress bits 6:4, reserved zero */
	USB_EP_DIR_IN = 0x80,         /* bEndpointAddress bit 7 */
	USB_EP_TYPE_MASK = 0x03,      /* bmAttributes bits 1:0 */
	USB_EP_SIZE_MASK = 0x07FF,    /* wMaxPacketSize bits 10:0 */
	USB_EP_FULL_MAX = 64,         /* control/bulk/interrupt at full speed: at most 64 bytes */
	USB_EP_ISO_MAX = 1023,        /* isochronous at full speed */
	USB_EP_MAX_PER_INTERFACE = 30,/* 15 numbers x 2 directions: more cannot be real */
	USB_BCD_USB_MIN = 0x0100,     /* USB 1.0 */
	USB_BCD_USB_MAX = 0x0320,     /* USB 3.2: a later device still talks 1.1 to a UHCI */
};

/* ---- the reason string ----------------------------------------------------------------- */

static void why_put(char *why, size_t cap, size_t *at, char c)
{
	if (*at + 1 < cap)
		why[(*at)++] = c;
}

/* why_set - a tiny formatter (%u, %x, %s) for the one-line reason: no libc here. */
static void why_set(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;
	size_t at = 0;

	if (!why || cap == 0)
		return;
	va_start(ap, fmt);
	for (const char *p = fmt; *p; p++) {
		if (*p != '%' || (p[1] != 'u' && p[1] != 'x' && p[1] != 's')) {
			why_put(why, cap, &at, *p);
			continue;
		}
		p++;
		if (*p == 's') {
			const char *s = va_arg(ap, const char *);

			for (unsigned int i = 0; s && s[i] && i < 64; i++)
				why_put(why, cap, &at, s[i]);
		} else {
			unsigned int v = va_arg(ap, unsigned int), base = *p == 'x' ? 16u : 10u;
			char digits[12];
			unsigned int n = 0;

			if (base == 16) {
				why_put(why, cap, &at, '0');
				why_put(why, cap, &at, 'x');
			}
			do {
				digits[n++] = "0123456789abcdef"[v % base];
				v /= base;
			} while (v && n < sizeof(digits));
			while (n)
				why_put(why, cap, &at, digits[--n]);
		}
	}
	va_end(ap);
	why[at] = 0;
}

static unsigned int get16(const uint8_t *p)
{
	return (unsigned int)p[0] | (unsigned int)p[1] << 8;
}

/* ---- device descriptor ----------------------------------------------------------------- */

static bool bcd_valid(unsigned int bcd)
{
	for (unsigned int i = 0; i < 4; i++)
		if (((bcd >> (4 * i)) & 0xF) > 9)
			return false;
	return true;
}

int usb_check_device_desc(const struct usb_device_desc *d, size_t len, char *why, size_t why_len)
{
	if (why && why_len)
		why[0] = 0;
	if (!d || len < USB_DEVICE_DESC_LEN) {
		why_set(why, why_len, "device descriptor: %u bytes read, need %u",
			(unsigned int)(d ? len : 0), USB_DEVICE_DESC_LEN);
		return -EINVAL;
	}
	if (d->length != USB_DEVICE_DESC_LEN) {
		why_set(why, why_len, "device descriptor: bLength %u, must be %u", d->length, USB_DEVICE_DESC_LEN);
		return -EINVAL;
	}
	if (d->type != USB_DT_DEVICE) {
		why_set(why, why_len, "device descriptor: type %u, must be %u", d->type, USB_DT_DEVICE);
		return -EINVAL;
	}
	if (!bcd_valid(d->bcd_usb) || d->bcd_usb < USB_BCD_USB_MIN || d->bcd_usb > USB_BCD_USB_MAX) {
		why_set(why, why_len, "device descriptor: bcdUSB %x is no USB version", d->bcd_usb);
		return -EINVAL;
	}
	if (d->max_packet0 != 8 && d->max_packet0 != 16 && d->max_packet0 != 32 && d->max_packet0 != 64) {
		why_set(why, why_len, "device descriptor: bMaxPacketSize0 %u, must be 8, 16, 32 or 64",
			d->max_packet0);
		return -EINVAL;
	}
	if (d->num_configurations == 0) {
		why_set(why, why_len, "device descriptor: no configuration");
		return -EINVAL;
	}
	return 0;
}

/* ---- configuration descriptor set ------------------------------------------------------ */

/* What the walk over the set keeps between descriptors. */
struct parse_state {
	struct usb_config *out;
	struct usb_interface *cur;   /* alt-0 interface being filled, NULL while in an alternate */
	bool in_interface;           /* an interface descriptor was seen */
	unsigned int ep_declared;    /* bNumEndpoints of the current interface (any alternate) */
	unsigned int ep_seen;        /* endpoint descriptors after it */
	unsigned int alt0_seen;      /* alternate-0 interfaces in the set */
	unsigned int intf_dropped;   /* beyond USB_MAX_INTERFACES */
	unsigned int ep_dropped;     /* beyond USB_MAX_ENDPOINTS (or isochronous: not kept) */
	uint32_t numbers_seen[8];    /* bitmap of alt-0 bInterfaceNumber values */
	uint16_t addrs_seen;         /* endpoint addresses of the current interface: bit n + 16*dir */
	uint16_t addrs_seen_in;
};

static int end_interface(struct parse_state *st, char *why, size_t why_len)
{
	if (st->in_interface && st->ep_seen != st->ep_declared) {
		why_set(why, why_len, "interface claims %u endpoints, has %u", st->ep_declared, st->ep_seen);
		return -EINVAL;
	}
	return 0;
}

static int parse_interface(struct parse_state *st, const uint8_t *d, char *why, size_t why_len)
{
	unsigned int number = d[2], alt = d[3], neps = d[4];
	int err = end_interface(st, why, why_len);

	if (err)
		return err;
	if (neps > USB_EP_MAX_PER_INTERFACE) {
		why_set(why, why_len, "interface %u claims %u endpoints (at most %u exist)", number, neps,
			USB_EP_MAX_PER_INTERFACE);
		return -EINVAL;
	}
	st->in_interface = true;
	st->ep_declared = neps;
	st->ep_seen = 0;
	st->addrs_seen = st->addrs_seen_in = 0;
	st->cur = NULL;
	if (alt != 0)
		return 0;              /* alternate settings are checked, not kept */
	if (st->numbers_seen[number / 32] & (1u << (number % 32))) {
		why_set(why, why_len, "interface %u appears twice", number);
		return -EINVAL;
	}
	st->numbers_seen[number / 32] |= 1u << (number % 32);
	st->alt0_seen++;
	if (st->out->num_interfaces >= USB_MAX_INTERFACES) {
		st->intf_dropped++;
		return 0;
	}
	st->cur = &st->out->intf[st->out->num_interfaces++];
	st->cur->number = (uint8_t)number;
	st->cur->alt_setting = 0;
	st->cur->class_code = d[5];
	st->cur->subclass = d[6];
	st->cur->protocol = d[7];
	return 0;
}

static int parse_endpoint(struct parse_state *st, const uint8_t *d, char *why, size_t why_len)
{
	unsigned int addr = d[2], type = d[3] & USB_EP_TYPE_MASK, raw = get16(d + 4);
	unsigned int size = raw & USB_EP_SIZE_MASK, num = addr & USB_EP_NUMBER_MASK, interval = d[6];
	uint16_t *seen;

	if (!st->in_interface) {
		why_set(why, why_len, "endpoint %x before any interface", addr);
		return -EINVAL;
	}
	if (++st->ep_seen > st->ep_declared) {
		why_set(why, why_len, "interface claims %u endpoints, has more", st->ep_declared);
		return -EINVAL;
	}
	if (num == 0 || (addr & USB_EP_RESERVED_MASK)) {
		why_set(why, why_len, "endpoint address %x: number 0 or reserved bits set", addr);
		return -EINVAL;
	}
	seen = (addr & USB_EP_DIR_IN) ? &st->addrs_seen_in : &st->addrs_seen;
	if (*seen & (1u << num)) {
		why_set(why, why_len, "endpoint %x appears twice in one interface", addr);
		return -EINVAL;
	}
	*seen |= (uint16_t)(1u << num);
	if (raw & ~USB_EP_SIZE_MASK) {
		why_set(why, why_len, "endpoint %x: high-bandwidth bits in wMaxPacketSize %x at full speed",
			addr, raw);
		return -EINVAL;
	}
	if (type == USB_EP_ISOCHRONOUS) {
		if (size > USB_EP_ISO_MAX) {
			why_set(why, why_len, "endpoint %x: isochronous max packet %u > %u", addr, size, USB_EP_ISO_MAX);
			return -EINVAL;
		}
		st->ep_dropped++;      /* no isochronous transfers here: checked, not kept */
		return 0;
	}
	if (type == USB_EP_CONTROL) {
		why_set(why, why_len, "endpoint %x: a control endpoint other than 0 (not supported)", addr);
		return -EINVAL;
	}
	if (size == 0 || size > USB_EP_FULL_MAX) {
		why_set(why, why_len, "endpoint %x: max packet %u, must be 1-%u", addr, size, USB_EP_FULL_MAX);
		return -EINVAL;
	}
	if (type == USB_EP_BULK && size != 8 && size != 16 && size != 32 && size != 64) {
		why_set(why, why_len, "endpoint %x: bulk max packet %u, must be 8, 16, 32 or 64", addr, size);
		return -EINVAL;
	}
	if (type == USB_EP_INTERRUPT && interval == 0) {
		why_set(why, why_len, "endpoint %x: interrupt bInterval 0", addr);
		return -EINVAL;
	}
	if (!st->cur)
		return 0;              /* endpoint of an alternate or dropped interface */
	if (st->cur->num_endpoints >= USB_MAX_ENDPOINTS) {
		st->ep_dropped++;
		return 0;
	}
	st->cur->ep[st->cur->num_endpoints++] = (struct usb_endpoint){
		.address = (uint8_t)addr, .type = (uint8_t)type, .max_packet = (uint16_t)size,
		.interval = (uint8_t)interval,
	};
	return 0;
}

/* walk - every descriptor after the configuration header. RETURNS 0 or -EINVAL. */
static int walk(struct parse_state *st, const uint8_t *buf, size_t total, char *why, size_t why_len)
{
	size_t off = buf[0];
	int err = 0;

	/* Each pass consumes at least USB_DESC_HEADER_LEN bytes: at most total / 2 passes. */
	while (off < total && !err) {
		size_t left = total - off;
		unsigned int dlen = buf[off], type;

		if (left < USB_DESC_HEADER_LEN) {
			why_set(why, why_len, "1 byte left over at offset %u", (unsigned int)off);
			return -EINVAL;
		}
		type = buf[off + 1];
		if (dlen < USB_DESC_HEADER_LEN || dlen > left) {
			why_set(why, why_len, "descriptor at offset %u: bLength %u (%u bytes left)",
				(unsigned int)off, dlen, (unsigned int)left);
			return -EINVAL;
		}
		if (type == USB_DT_INTERFACE) {
			if (dlen < USB_INTERFACE_DESC_LEN) {
				why_set(why, why_len, "interface descriptor at offset %u: bLength %u < %u",
					(unsigned int)off, dlen, USB_INTERFACE_DESC_LEN);
				return -EINVAL;
			}
			err = parse_interface(st, buf + off, why, why_len);
		} else if (type == USB_DT_ENDPOINT) {
			if (dlen < USB_ENDPOINT_DESC_LEN) {
				why_set(why, why_len, "endpoint descriptor at offset %u: bLength %u < %u",
					(unsigned int)off, dlen, USB_ENDPOINT_DESC_LEN);
				return -EINVAL;
			}
			err = parse_endpoint(st, buf + off, why, why_len);
		} else if (type == USB_DT_CONFIG || type == USB_DT_DEVICE) {
			why_set(why, why_len, "a %s descriptor inside the configuration at offset %u",
				type == USB_DT_CONFIG ? "configuration" : "device", (unsigned int)off);
			return -EINVAL;
		}
		/* Class-specific (HID, ...) and unknown descriptors: skipped by their length. */
		off += dlen;
	}
	if (!err)
		err = end_interface(st, why, why_len);
	return err;
}

int usb_parse_config(const uint8_t *buf, size_t len, struct usb_config *out, char *why, size_t why_len)
{
	struct parse_state st = { .out = out };
	unsigned int total, declared;
	int err;

	if (why && why_len)
		why[0] = 0;
	if (!out)
		return -EINVAL;
	*out = (struct usb_config){ 0 };
	if (!buf || len < USB_CONFIG_DESC_LEN) {
		why_set(why, why_len, "configuration: %u bytes, need %u", (unsigned int)(buf ? len : 0),
			USB_CONFIG_DESC_LEN);
		return -EINVAL;
	}
	if (buf[1] != USB_DT_CONFIG || buf[0] < USB_CONFIG_DESC_LEN) {
		why_set(why, why_len, "configuration header: type %u bLength %u", buf[1], buf[0]);
		return -EINVAL;
	}
	total = get16(buf + 2);
	declared = buf[4];
	if (total < buf[0] || total > len) {
		why_set(why, why_len, "wTotalLength %u, but the header has %u and %u bytes were read", total,
			buf[0], (unsigned int)len);
		return -EINVAL;
	}
	if (declared == 0) {
		why_set(why, why_len, "configuration with no interface");
		return -EINVAL;
	}
	if (buf[5] == 0) {
		why_set(why, why_len, "bConfigurationValue 0 (that value means unconfigured)");
		return -EINVAL;
	}
	err = walk(&st, buf, total, why, why_len);
	if (!err && st.alt0_seen != declared) {
		why_set(why, why_len, "configuration claims %u interfaces, has %u", declared, st.alt0_seen);
		err = -EINVAL;
	}
	if (err) {
		*out = (struct usb_config){ 0 };
		return err;
	}
	out->value = buf[5];
	out->attributes = buf[7];
	out->max_power_2ma = buf[8];
	out->total_length = (uint16_t)total;
	if (st.intf_dropped || st.ep_dropped)
		why_set(why, why_len, "not kept: %u interfaces beyond %u, %u endpoints (isochronous or beyond %u)",
			st.intf_dropped, USB_MAX_INTERFACES, st.ep_dropped, USB_MAX_ENDPOINTS);
	return 0;
}

const struct usb_endpoint *usb_find_endpoint(const struct usb_interface *intf, uint8_t type, bool in)
{
	if (!intf)
		return NULL;
	for (unsigned int i = 0; i < intf->num_endpoints && i < USB_MAX_ENDPOINTS; i++) {
		const struct usb_endpoint *ep = &intf->ep[i];

		if (ep->type == type && !!(ep->address & USB_EP_DIR_IN) == in)
			return ep;
	}
	return NULL;
}
