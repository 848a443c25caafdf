/*
 * usb_shell.c - the `lsusb` shell command: controllers (with the IRQ
 * watching state kernel/irq keeps for their interrupt action), root ports
 * and devices with their descriptors and bound drivers.
 *
 *   lsusb             everything
 *   lsusb -r N        re-read every device's device and configuration
 *                     descriptors N times (a control-transfer loop: for
 *                     tests of unplugging in the middle of transfers)
 */
#include <stdint.h>
#include <drivers/usb.h>
#include <irq/stats.h>
#include <kernel/cmdline.h>
#include <kernel/errno.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <time/time.h>

enum usb_shell_limits {
	USB_REREAD_MAX = 100000,       /* lsusb -r N: at most this many rounds */
};

static const char *class_name(uint8_t c)
{
	switch (c) {
	case USB_CLASS_HID: return "HID";
	case USB_CLASS_MASS_STORAGE: return "mass storage";
	case USB_CLASS_HUB: return "hub";
	case 0x00: return "per interface";
	case 0xFF: return "vendor";
	default: return "other";
	}
}

static const char *ep_type_name(uint8_t t)
{
	static const char *const names[] = { "control", "isochronous", "bulk", "interrupt" };

	return names[t & 3];
}

/* show_watch - kernel/irq's view of the controller's action on its line. */
static void show_watch(const struct usb_hc *hc)
{
	struct irq_action_health a;

	for (unsigned int i = 0; irq_get_action_health(hc->irq, i, &a) == 0; i++) {
		char why[48];

		if (a.dev_id != hc)
			continue;
		cprintf("  irq %u action \"%s\": watch %s%s%s, completions by polling %llu\n", hc->irq, a.name, a.watch,
			a.causes ? ", on polling: " : "", a.causes ? irq_health_cause_string(a.causes, why, sizeof(why)) : "",
			(unsigned long long)a.polled_completions);
		return;
	}
	cprintf("  irq %u: no action of this controller registered\n", hc->irq);
}

static void show_device(const struct usb_device *dev)
{
	const struct usb_config *c = &dev->config;

	cprintf("device %u: %s port %u, %s, %04x:%04x rev %x.%02x, USB %x.%02x, class %02x, ep0 %u bytes\n",
		dev->address, dev->hc->name, dev->port + 1, dev->speed == USB_SPEED_LOW ? "low-speed" : "full-speed",
		dev->desc.vendor_id, dev->desc.product_id, dev->desc.bcd_device >> 8, dev->desc.bcd_device & 0xFF,
		dev->desc.bcd_usb >> 8, dev->desc.bcd_usb & 0xFF, dev->desc.device_class, dev->desc.max_packet0);
	cprintf("  manufacturer '%s' product '%s' serial '%s'\n", dev->manufacturer, dev->product, dev->serial);
	cprintf("  config %u of %u: %u bytes, attributes %#04x, %u mA, %u interface%s%s\n", c->value,
		dev->desc.num_configurations, c->total_length, c->attributes, c->max_power_2ma * 2u, c->num_interfaces,
		c->num_interfaces == 1 ? "" : "s", dev->gone ? " (gone)" : "");
	for (unsigned int k = 0; k < c->num_interfaces && k < USB_MAX_INTERFACES; k++) {
		const struct usb_interface *i = &c->intf[k];

		cprintf("  interface %u: class %02x/%02x/%02x (%s), driver %s\n", i->number, i->class_code, i->subclass,
			i->protocol, class_name(i->class_code), i->driver ? i->driver->name : "none");
		for (unsigned int e = 0; e < i->num_endpoints && e < USB_MAX_ENDPOINTS; e++)
			cprintf("    endpoint %#04x %s %s, %u bytes, interval %u\n", i->ep[e].address,
				(i->ep[e].address & USB_DIR_IN) ? "IN" : "OUT", ep_type_name(i->ep[e].type),
				i->ep[e].max_packet, i->ep[e].interval);
	}
}

/* reread - N rounds of GET_DESCRIPTOR(device) + GET_DESCRIPTOR(configuration) on every device. */
static int reread(unsigned long rounds)
{
	static uint8_t buf[USB_CONFIG_DESC_MAX];
	uint64_t t0 = ktime_get_ns();
	unsigned long ok = 0;

	for (unsigned long r = 0; r < rounds; r++) {
		struct usb_device *dev;
		unsigned int seen = 0;

		for (unsigned int d = 0; (dev = usb_device_at(d)) != NULL; d++) {
			uint16_t len = dev->config.total_length ? dev->config.total_length : 9;
			int err;

			if (dev->gone)
				continue;
			seen++;
			err = usb_control_msg(dev, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_DEVICE << 8, 0, buf, 18,
					      USB_CTRL_TIMEOUT_MS);
			if (err >= 0)
				err = usb_control_msg(dev, USB_DIR_IN, USB_REQ_GET_DESCRIPTOR, USB_DT_CONFIG << 8, 0, buf,
						      len, USB_CTRL_TIMEOUT_MS);
			if (err < 0) {
				cprintf("lsusb: round %lu: device %u (%s port %u): %s after %lu good rounds\n", r + 1,
					dev->address, dev->hc->name, dev->port + 1, errno_name(err), ok);
				return err;
			}
		}
		if (!seen) {
			cprintf("lsusb: no device to read\n");
			return -ENODEV;
		}
		ok++;
	}
	cprintf("lsusb: %lu rounds read in %u ms\n", ok, (unsigned int)((ktime_get_ns() - t0) / 1000000u));
	return 0;
}

int usb_cmd_lsusb(int argc, char **argv)
{
	struct usb_hc *hc;
	struct usb_device *dev;
	unsigned int n = 0;

	if (argc == 3 && !strcmp(argv[1], "-r")) {
		unsigned long rounds;

		if (cmdline_parse_uint(argv[2], 1, USB_REREAD_MAX, &rounds)) {
			cprintf("lsusb: -r takes 1-%u\n", USB_REREAD_MAX);
			return -EINVAL;
		}
		return reread(rounds);
	}
	if (argc != 1) {
		cprintf("usage: lsusb [-r N]\n");
		return -EINVAL;
	}
	for (unsigned int i = 0; (hc = usb_hc_at(i)) != NULL; i++) {
		hc->ops->show(hc);
		show_watch(hc);
	}
	if (!usb_hc_at(0))
		cprintf("no USB host controller\n");
	for (unsigned int d = 0; (dev = usb_device_at(d)) != NULL; d++, n++)
		show_device(dev);
	cprintf("%u device%s\n", n, n == 1 ? "" : "s");
	return 0;
}
