/*
 * usb_shell.c - the `lsusb` shell command: controllers (with the IRQ
 * watching state kernel/irq keeps for their interrupt action), root ports
 * and devices with their descriptors and bound drivers.
 *
 *   lsusb             everything
 *   lsusb -r N        re-read every device's device and configuration
 *                     descriptors N times (a control-transfer loop: for
 *                     tests of unplugging in the middle of transfers)
 *   lsusb -g ADDR TYPE INDEX LEN
 *                     GET_DESCRIPTOR(TYPE, INDEX) of LEN bytes from device
 *                     ADDR, printed raw with the bytes moved or the error
 *                     (a STALL is EPIPE): the controller's error paths
 *   lsusb -p ADDR N   run an interrupt-IN pipe on the first interrupt-IN
 *                     endpoint of device ADDR (an interface no driver has
 *                     bound) until N reports came or USB_PIPE_WAIT_MS
 *                     passed, and print each report: a check of the
 *                     controller's interrupt transfers and their toggles
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
	USB_PIPE_REPORTS_MAX = 64,     /* lsusb -p: reports kept and printed */
	USB_PIPE_REPORT_BYTES = 8,     /* bytes asked per report (a boot keyboard's) */
	USB_PIPE_WAIT_MS = 10000,      /* lsusb -p: longest wait for the reports */
	USB_PIPE_POLL_MS = 5,          /* how often the shell looks at the count */
};

static struct usb_device *device_by_address(unsigned long addr)
{
	struct usb_device *d;

	for (unsigned int i = 0; (d = usb_device_at(i)) != NULL; i++)
		if (d->address == addr && !d->gone)
			return d;
	return NULL;
}

static int get_raw(unsigned long addr, unsigned long type, unsigned long index, unsigned long len)
{
	static uint8_t buf[USB_CONFIG_DESC_MAX];
	struct usb_device *dev = device_by_address(addr);
	int got;

	if (!dev) {
		cprintf("lsusb: no such device\n");
		return -ENODEV;
	}
	got = usb_control_msg(dev, USB_DIR_IN | USB_TYPE_STANDARD | USB_RECIP_DEVICE, USB_REQ_GET_DESCRIPTOR,
			      (uint16_t)(type << 8 | index), 0, buf, (uint16_t)len, USB_CTRL_TIMEOUT_MS);
	if (got < 0) {
		cprintf("lsusb: GET_DESCRIPTOR(%lu, %lu): %s\n", type, index, errno_name(got));
		return got;
	}
	cprintf("lsusb: GET_DESCRIPTOR(%lu, %lu): %d of %lu bytes:", type, index, got, len);
	for (int i = 0; i < got && i < (int)sizeof(buf); i++)
		cprintf("%s%02x", i % 16 ? " " : "\n  ", buf[i]);
	cprintf("\n");
	return 0;
}

/* lsusb -p: what the completion (interrupt context) leaves for the shell. */
static struct {
	uint8_t buf[USB_PIPE_REPORT_BYTES];
	uint8_t report[USB_PIPE_REPORTS_MAX][USB_PIPE_REPORT_BYTES];
	uint8_t len[USB_PIPE_REPORTS_MAX];
	uint64_t at_ns[USB_PIPE_REPORTS_MAX];
	volatile unsigned int count, wanted;
	volatile int error;
} pipe_log;

static bool pipe_complete(struct usb_intr_pipe *pipe, int status, unsigned int actual)
{
	unsigned int n = pipe_log.count;

	(void)pipe;
	if (status) {
		pipe_log.error = status;
		return false;
	}
	if (n < USB_PIPE_REPORTS_MAX) {
		memcpy(pipe_log.report[n], pipe_log.buf, actual < USB_PIPE_REPORT_BYTES ? actual : USB_PIPE_REPORT_BYTES);
		pipe_log.len[n] = (uint8_t)actual;
		pipe_log.at_ns[n] = ktime_get_ns();
	}
	pipe_log.count = n + 1;
	return pipe_log.count < pipe_log.wanted;
}

static int run_pipe(unsigned long addr, unsigned long wanted)
{
	struct usb_intr_pipe pipe = { 0 };
	const struct usb_endpoint *ep = NULL;
	struct usb_device *dev = NULL, *d;
	uint64_t t0;
	int err;

	for (unsigned int i = 0; (d = usb_device_at(i)) != NULL && !ep; i++) {
		if (d->address != addr || d->gone)
			continue;
		dev = d;
		for (unsigned int k = 0; k < d->config.num_interfaces && !ep; k++)
			if (!d->config.intf[k].driver)
				ep = usb_find_endpoint(&d->config.intf[k], USB_EP_INTERRUPT, true);
	}
	if (!ep) {
		cprintf("lsusb: %s\n", dev ? "no interrupt-IN endpoint on an interface without a driver" : "no such device");
		return -ENODEV;
	}
	memset((void *)&pipe_log, 0, sizeof(pipe_log));
	pipe_log.wanted = (unsigned int)wanted;
	pipe.dev = dev;
	pipe.ep = ep;
	pipe.buf = pipe_log.buf;
	pipe.len = ep->max_packet < USB_PIPE_REPORT_BYTES ? ep->max_packet : USB_PIPE_REPORT_BYTES;
	pipe.complete = pipe_complete;
	t0 = ktime_get_ns();
	err = usb_intr_submit(&pipe);
	if (err) {
		cprintf("lsusb: pipe not started: %s\n", errno_name(err));
		return err;
	}
	cprintf("lsusb: pipe on device %u endpoint %#04x, every %u frames, waiting for %lu reports\n", dev->address,
		ep->address, ep->interval, wanted);
	while (pipe_log.count < wanted && !pipe_log.error && pipe.running &&
	       ktime_get_ns() - t0 < (uint64_t)USB_PIPE_WAIT_MS * 1000000u)
		msleep(USB_PIPE_POLL_MS);
	usb_intr_kill(&pipe);
	for (unsigned int n = 0; n < pipe_log.count && n < USB_PIPE_REPORTS_MAX; n++) {
		cprintf("report %u at %u ms:", n + 1, (unsigned int)((pipe_log.at_ns[n] - t0) / 1000000u));
		for (unsigned int b = 0; b < pipe_log.len[n] && b < USB_PIPE_REPORT_BYTES; b++)
			cprintf(" %02x", pipe_log.report[n][b]);
		cprintf("\n");
	}
	cprintf("lsusb: %u reports%s%s\n", pipe_log.count, pipe_log.error ? ", ended by " : "",
		pipe_log.error ? errno_name(pipe_log.error) : "");
	return pipe_log.error;
}

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
	if (argc == 6 && !strcmp(argv[1], "-g")) {
		unsigned long addr, type, index, len;

		if (cmdline_parse_uint(argv[2], 1, 127, &addr) || cmdline_parse_uint(argv[3], 0, 255, &type) ||
		    cmdline_parse_uint(argv[4], 0, 255, &index) || cmdline_parse_uint(argv[5], 1, USB_CONFIG_DESC_MAX, &len)) {
			cprintf("lsusb: -g takes ADDR 1-127, TYPE 0-255, INDEX 0-255, LEN 1-%u\n", USB_CONFIG_DESC_MAX);
			return -EINVAL;
		}
		return get_raw(addr, type, index, len);
	}
	if (argc == 4 && !strcmp(argv[1], "-p")) {
		unsigned long addr, wanted;

		if (cmdline_parse_uint(argv[2], 1, 127, &addr) ||
		    cmdline_parse_uint(argv[3], 1, USB_PIPE_REPORTS_MAX, &wanted)) {
			cprintf("lsusb: -p takes an address 1-127 and 1-%u reports\n", USB_PIPE_REPORTS_MAX);
			return -EINVAL;
		}
		return run_pipe(addr, wanted);
	}
	if (argc != 1) {
		cprintf("usage: lsusb [-r N | -g ADDR TYPE INDEX LEN | -p ADDR N]\n");
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
