/*
 * usb_core.c - the USB core: host controllers, devices, enumeration,
 * transfers and class-driver binding (include/drivers/usb.h), following the
 * USB 2.0 specification chapter 9 (device states, standard requests) and
 * 7.1.7.5 (reset and recovery times). Enumeration runs in process context,
 * from kernel work queued by the controller driver (uhci.c) when a root
 * port changes; descriptors are checked by usb_desc.c before anything of
 * them is used. See docs/usb.md.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <asm/cpu.h>
#include <drivers/usb.h>
#include <kernel/errno.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <time/time.h>

/* Tunables of enumeration. */
enum usb_core_tunables {
	USB_ENUM_TRIES = 3,            /* attempts per connect (time-outs and wire errors are retried) */
	USB_ENUM_RETRY_MS = 100,       /* pause between attempts */
	USB_SET_ADDRESS_MS = 2,        /* USB 2.0 9.2.6.3: 2 ms SET_ADDRESS recovery */
	USB_STRING_READ_MAX = 255,     /* bytes asked of a string descriptor (bLength is 8 bits) */
	USB_ADDRESS_MAX = 127,         /* device addresses 1..127 */
	USB_DEVICE_DESC_HEAD = 8,      /* first read of the device descriptor, at max packet 8 */
	USB_LANGID_EN_US = 0x0409,     /* when the device lists no language */
};

#define NS_PER_MS 1000000ull
#define DESC_TYPE_SHIFT 8          /* wValue of GET_DESCRIPTOR: type << 8 | index */
#define FEATURE_ENDPOINT_HALT 0

static struct usb_hc *hcs[USB_MAX_HCS];
static unsigned int nr_hcs;
static struct usb_device devices[USB_MAX_DEVICES];
static struct usb_driver *drivers;

struct usb_hc *usb_hc_at(unsigned int index)
{
	return index < nr_hcs ? hcs[index] : NULL;
}

struct usb_device *usb_device_at(unsigned int index)
{
	for (unsigned int i = 0, n = 0; i < USB_MAX_DEVICES; i++)
		if (devices[i].present && n++ == index)
			return &devices[i];
	return NULL;
}

int usb_hc_register(struct usb_hc *hc)
{
	if (!hc || !hc->ops)
		return -EINVAL;
	if (nr_hcs >= USB_MAX_HCS) {
		pr_warn("usb: %s not registered: %u controllers already\n", hc->name, USB_MAX_HCS);
		return -ENOSPC;
	}
	hc->index = nr_hcs;
	hc->next_address = 1;
	hcs[nr_hcs++] = hc;
	return 0;
}

static const char *speed_name(enum usb_speed s)
{
	return s == USB_SPEED_LOW ? "low-speed" : "full-speed";
}

/* ---- transfers -------------------------------------------------------------------------------- */

static bool usable(const struct usb_device *dev)
{
	return dev && dev->present && !dev->gone && dev->hc && dev->hc->ops;
}

int usb_control_msg(struct usb_device *dev, uint8_t request_type, uint8_t request, uint16_t value,
		    uint16_t index, void *data, uint16_t len, uint32_t timeout_ms)
{
	struct usb_setup setup = { request_type, request, value, index, len };

	if (!dev)
		return -EINVAL;
	if (!usable(dev))
		return -ENODEV;
	if (len && !data)
		return -EINVAL;
	return dev->hc->ops->control(dev->hc, dev, &setup, data, timeout_ms ? timeout_ms : USB_CTRL_TIMEOUT_MS);
}

int usb_bulk_msg(struct usb_device *dev, const struct usb_endpoint *ep, void *buf, uint32_t len,
		 uint32_t timeout_ms)
{
	if (!dev || !ep || ep->type != USB_EP_BULK)
		return -EINVAL;
	if (!usable(dev))
		return -ENODEV;
	return dev->hc->ops->bulk(dev->hc, dev, ep, buf, len, timeout_ms ? timeout_ms : USB_BULK_TIMEOUT_MS);
}

int usb_clear_halt(struct usb_device *dev, const struct usb_endpoint *ep)
{
	int err;

	if (!dev || !ep)
		return -EINVAL;
	err = usb_control_msg(dev, USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_ENDPOINT, USB_REQ_CLEAR_FEATURE,
			      FEATURE_ENDPOINT_HALT, ep->address, NULL, 0, USB_CTRL_TIMEOUT_MS);
	if (err < 0)
		return err;
	/* USB 2.0 9.4.5: clearing the halt resets the endpoint's toggle to DATA0. */
	dev->toggle[(ep->address & USB_DIR_IN) ? 1 : 0] &= (uint16_t)~(1u << (ep->address & 0xF));
	return 0;
}

int usb_intr_submit(struct usb_intr_pipe *pipe)
{
	if (!pipe || !pipe->ep || pipe->ep->type != USB_EP_INTERRUPT || !(pipe->ep->address & USB_DIR_IN))
		return -EINVAL;
	if (!usable(pipe->dev))
		return -ENODEV;
	return pipe->dev->hc->ops->intr_start(pipe->dev->hc, pipe);
}

void usb_intr_kill(struct usb_intr_pipe *pipe)
{
	if (pipe && pipe->dev && pipe->dev->hc && pipe->dev->hc->ops)
		pipe->dev->hc->ops->intr_stop(pipe->dev->hc, pipe);
}

unsigned long usb_pipe_lock(struct usb_intr_pipe *pipe)
{
	struct usb_hc *hc = pipe && pipe->dev ? pipe->dev->hc : NULL;

	if (hc && hc->ops && hc->ops->lock)
		return hc->ops->lock(hc);
	return irq_save_flags();      /* no such controller: this CPU's interrupts are all there is */
}

void usb_pipe_unlock(struct usb_intr_pipe *pipe, unsigned long flags)
{
	struct usb_hc *hc = pipe && pipe->dev ? pipe->dev->hc : NULL;

	if (hc && hc->ops && hc->ops->unlock)
		hc->ops->unlock(hc, flags);
	else
		irq_restore_flags(flags);
}

/* ---- class drivers ------------------------------------------------------------------------------ */

static void offer(struct usb_device *dev, struct usb_interface *intf, struct usb_driver *only)
{
	struct usb_driver *drv = only ? only : drivers;
	unsigned int walked = 0;

	for (; drv && !intf->driver && walked < 64; drv = only ? NULL : drv->next, walked++) {
		int err = drv->probe ? drv->probe(dev, intf) : -ENODEV;

		if (err == 0) {
			intf->driver = drv;
			pr_info("usb: %s port %u: address %u interface %u (class %02x/%02x/%02x): driver %s\n",
				dev->hc->name, dev->port + 1, dev->address, intf->number, intf->class_code,
				intf->subclass, intf->protocol, drv->name);
		} else if (err != -ENODEV) {
			pr_warn("usb: %s port %u: address %u interface %u: driver %s failed: %s\n", dev->hc->name,
				dev->port + 1, dev->address, intf->number, drv->name, errno_name(err));
			if (!usable(dev))
				return;
		}
	}
}

int usb_register_driver(struct usb_driver *drv)
{
	struct usb_driver **pp = &drivers;

	if (!drv)
		return -EINVAL;
	for (unsigned int n = 0; *pp && n < 64; n++) {
		if (*pp == drv)
			return 0;
		pp = &(*pp)->next;
	}
	drv->next = NULL;
	*pp = drv;
	for (unsigned int i = 0; i < USB_MAX_DEVICES; i++) {
		struct usb_device *dev = &devices[i];

		if (!usable(dev) || !dev->config.value)
			continue;
		for (unsigned int k = 0; k < dev->config.num_interfaces; k++)
			offer(dev, &dev->config.intf[k], drv);
	}
	return 0;
}

/* ---- enumeration ------------------------------------------------------------------------------- */

static struct usb_device *device_on(const struct usb_hc *hc, unsigned int port)
{
	for (unsigned int i = 0; i < USB_MAX_DEVICES; i++)
		if (devices[i].present && devices[i].hc == hc && devices[i].port == port)
			return &devices[i];
	return NULL;
}

static void disconnect(struct usb_device *dev)
{
	dev->gone = true;    /* from here every transfer fails -ENODEV */
	for (unsigned int k = 0; k < dev->config.num_interfaces && k < USB_MAX_INTERFACES; k++) {
		struct usb_interface *intf = &dev->config.intf[k];

		if (intf->driver && intf->driver->disconnect)
			intf->driver->disconnect(dev, intf);
		intf->driver = NULL;
		intf->driver_data = NULL;
	}
	if (dev->address)
		pr_info("usb: %s port %u: device %04x:%04x at address %u disconnected\n", dev->hc->name,
			dev->port + 1, dev->desc.vendor_id, dev->desc.product_id, dev->address);
	memset(dev, 0, sizeof(*dev));
}

static uint8_t pick_address(struct usb_hc *hc)
{
	for (unsigned int tries = 0; tries < USB_ADDRESS_MAX; tries++) {
		uint8_t a = hc->next_address;
		bool used = false;

		hc->next_address = (uint8_t)(a >= USB_ADDRESS_MAX ? 1 : a + 1);
		for (unsigned int i = 0; i < USB_MAX_DEVICES; i++)
			if (devices[i].present && devices[i].hc == hc && devices[i].address == a)
				used = true;
		if (!used)
			return a;
	}
	return 0;
}

static int get_descriptor(struct usb_device *dev, uint8_t type, uint8_t index, uint16_t lang, void *buf,
			  uint16_t len)
{
	return usb_control_msg(dev, USB_DIR_IN | USB_TYPE_STANDARD | USB_RECIP_DEVICE, USB_REQ_GET_DESCRIPTOR,
			       (uint16_t)(type << DESC_TYPE_SHIFT | index), lang, buf, len, USB_CTRL_TIMEOUT_MS);
}

/* read_string - string descriptor @index as ASCII ('?' for other characters) into @out. */
static int read_string(struct usb_device *dev, uint8_t index, uint16_t lang, char *out)
{
	static uint8_t buf[USB_STRING_READ_MAX];
	unsigned int n, chars, o = 0;
	int got;

	out[0] = 0;
	if (!index)
		return 0;
	got = get_descriptor(dev, USB_DT_STRING, index, lang, buf, sizeof(buf));
	if (got < 0)
		return got;
	if (got < 2 || buf[1] != USB_DT_STRING || buf[0] < 2)
		return -EPROTO;
	n = buf[0] < (unsigned int)got ? buf[0] : (unsigned int)got;
	chars = (n - 2) / 2;
	for (unsigned int i = 0; i < chars && o + 1 < USB_STRING_MAX; i++) {
		unsigned int c = buf[2 + 2 * i] | (unsigned int)buf[3 + 2 * i] << 8;

		out[o++] = (c >= 0x20 && c < 0x7F) ? (char)c : '?';
	}
	out[o] = 0;
	return 0;
}

static void read_strings(struct usb_device *dev)
{
	uint8_t lang_buf[4];
	uint16_t lang = USB_LANGID_EN_US;
	int got;

	if (!dev->desc.i_manufacturer && !dev->desc.i_product && !dev->desc.i_serial)
		return;
	got = get_descriptor(dev, USB_DT_STRING, 0, 0, lang_buf, sizeof(lang_buf));
	if (got >= 4 && lang_buf[1] == USB_DT_STRING && lang_buf[0] >= 4)
		lang = (uint16_t)(lang_buf[2] | lang_buf[3] << 8);
	else
		pr_info("usb: %s port %u: no language list (%s); asking for strings in 0x%04x\n", dev->hc->name,
			dev->port + 1, got < 0 ? errno_name(got) : "malformed", lang);
	if (read_string(dev, dev->desc.i_manufacturer, lang, dev->manufacturer) ||
	    read_string(dev, dev->desc.i_product, lang, dev->product) ||
	    read_string(dev, dev->desc.i_serial, lang, dev->serial))
		pr_info("usb: %s port %u: a string descriptor could not be read; left empty\n", dev->hc->name,
			dev->port + 1);
}

/* enumerate - one attempt; on failure @step names what failed. RETURNS 0 or an error. */
static int enumerate(struct usb_device *dev, const char **step)
{
	static uint8_t cfg_buf[USB_CONFIG_DESC_MAX];
	struct usb_hc *hc = dev->hc;
	char why[96];
	unsigned int total;
	uint8_t addr;
	int got;

	*step = "port reset";
	got = hc->ops->port_reset(hc, dev->port, &dev->speed);
	if (got)
		return got;
	pr_debug("usb: %s port %u: reset, %s\n", hc->name, dev->port + 1, speed_name(dev->speed));
	dev->address = 0;
	dev->desc.max_packet0 = USB_EP0_MAXPACKET_DEFAULT;
	memset(dev->toggle, 0, sizeof(dev->toggle));

	*step = "GET_DESCRIPTOR(device, 8) at address 0";
	got = get_descriptor(dev, USB_DT_DEVICE, 0, 0, &dev->desc, USB_DEVICE_DESC_HEAD);
	if (got < 0)
		return got;
	if (got < USB_DEVICE_DESC_HEAD || dev->desc.type != USB_DT_DEVICE ||
	    (dev->desc.max_packet0 != 8 && dev->desc.max_packet0 != 16 && dev->desc.max_packet0 != 32 &&
	     dev->desc.max_packet0 != 64)) {
		pr_warn("usb: %s port %u: first device descriptor bytes are bad (%d bytes, type %u, max packet %u)\n",
			hc->name, dev->port + 1, got, dev->desc.type, dev->desc.max_packet0);
		return -EPROTO;
	}

	pr_debug("usb: %s port %u: endpoint 0 takes %u bytes\n", hc->name, dev->port + 1, dev->desc.max_packet0);
	*step = "SET_ADDRESS";
	addr = pick_address(hc);
	if (!addr)
		return -ENOSPC;
	got = usb_control_msg(dev, USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_DEVICE, USB_REQ_SET_ADDRESS, addr, 0,
			      NULL, 0, USB_CTRL_TIMEOUT_MS);
	if (got < 0)
		return got;
	msleep(USB_SET_ADDRESS_MS);
	dev->address = addr;
	pr_debug("usb: %s port %u: address %u\n", hc->name, dev->port + 1, addr);

	*step = "GET_DESCRIPTOR(device, 18)";
	got = get_descriptor(dev, USB_DT_DEVICE, 0, 0, &dev->desc, sizeof(dev->desc));
	if (got < 0)
		return got;
	if (usb_check_device_desc(&dev->desc, (size_t)got, why, sizeof(why))) {
		pr_warn("usb: %s port %u: %s\n", hc->name, dev->port + 1, why);
		return -EPROTO;
	}
	if (dev->desc.device_class == USB_CLASS_HUB) {
		*step = "hub";
		pr_warn("usb: %s port %u: %04x:%04x is a hub; irqkit drives no hubs (QEMU: give devices port=1/port=2)\n",
			hc->name, dev->port + 1, dev->desc.vendor_id, dev->desc.product_id);
		return -ENOSYS;
	}

	*step = "GET_DESCRIPTOR(configuration, 9)";
	got = get_descriptor(dev, USB_DT_CONFIG, 0, 0, cfg_buf, 9);
	if (got < 0)
		return got;
	if (got < 9) {
		pr_warn("usb: %s port %u: configuration header of %d bytes\n", hc->name, dev->port + 1, got);
		return -EPROTO;
	}
	total = cfg_buf[2] | (unsigned int)cfg_buf[3] << 8;
	if (total > USB_CONFIG_DESC_MAX) {
		pr_warn("usb: %s port %u: configuration set of %u bytes; irqkit reads at most %u\n", hc->name,
			dev->port + 1, total, USB_CONFIG_DESC_MAX);
		return -EMSGSIZE;
	}
	pr_debug("usb: %s port %u: %04x:%04x USB %x.%02x, configuration set of %u bytes\n", hc->name, dev->port + 1,
		 dev->desc.vendor_id, dev->desc.product_id, dev->desc.bcd_usb >> 8, dev->desc.bcd_usb & 0xFF, total);
	*step = "GET_DESCRIPTOR(configuration, full)";
	got = get_descriptor(dev, USB_DT_CONFIG, 0, 0, cfg_buf, (uint16_t)(total < 9 ? 9 : total));
	if (got < 0)
		return got;
	if (usb_parse_config(cfg_buf, (size_t)got, &dev->config, why, sizeof(why))) {
		pr_warn("usb: %s port %u: configuration refused: %s\n", hc->name, dev->port + 1, why);
		return -EPROTO;
	}
	if (why[0])
		pr_info("usb: %s port %u: %s\n", hc->name, dev->port + 1, why);

	*step = "string descriptors";
	read_strings(dev);
	if (!usable(dev))
		return -ENODEV;

	pr_debug("usb: %s port %u: '%s' '%s' '%s'\n", hc->name, dev->port + 1, dev->manufacturer, dev->product,
		 dev->serial);
	*step = "SET_CONFIGURATION";
	got = usb_control_msg(dev, USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_DEVICE, USB_REQ_SET_CONFIGURATION,
			      dev->config.value, 0, NULL, 0, USB_CTRL_TIMEOUT_MS);
	if (got < 0) {
		dev->config.num_interfaces = 0;
		return got;
	}
	memset(dev->toggle, 0, sizeof(dev->toggle));   /* USB 2.0 9.1.1.5: configuring resets toggles */
	return 0;
}

static bool worth_retrying(int err)
{
	return err == -ETIMEDOUT || err == -EIO || err == -EPIPE || err == -EOVERFLOW || err == -EPROTO;
}

void usb_port_changed(struct usb_hc *hc, unsigned int port, bool connected)
{
	struct usb_device *dev = hc ? device_on(hc, port) : NULL;
	const char *step = "";
	int err = 0;

	if (!hc || port >= hc->nports)
		return;
	if (dev)
		disconnect(dev);
	if (!connected) {
		hc->ops->port_disable(hc, port);
		return;
	}
	for (unsigned int attempt = 1; attempt <= USB_ENUM_TRIES; attempt++) {
		uint64_t t0 = ktime_get_ns();

		dev = NULL;
		for (unsigned int i = 0; i < USB_MAX_DEVICES && !dev; i++)
			if (!devices[i].present)
				dev = &devices[i];
		if (!dev) {
			pr_warn("usb: %s port %u: device ignored: %u devices present already\n", hc->name, port + 1,
				USB_MAX_DEVICES);
			hc->ops->port_disable(hc, port);
			return;
		}
		memset(dev, 0, sizeof(*dev));
		dev->present = true;
		dev->hc = hc;
		dev->port = port;
		err = enumerate(dev, &step);
		if (!err) {
			unsigned int ms = (unsigned int)((ktime_get_ns() - t0) / NS_PER_MS);

			pr_info("usb: %s port %u: %s device %04x:%04x '%s' address %u, config %u, %u interface%s (enumerated in %u ms)\n",
				hc->name, port + 1, speed_name(dev->speed), dev->desc.vendor_id, dev->desc.product_id,
				dev->product[0] ? dev->product : "?", dev->address, dev->config.value,
				dev->config.num_interfaces, dev->config.num_interfaces == 1 ? "" : "s", ms);
			for (unsigned int k = 0; k < dev->config.num_interfaces; k++) {
				offer(dev, &dev->config.intf[k], NULL);
				if (!usable(dev))
					break;
				if (!dev->config.intf[k].driver)
					pr_info("usb: %s port %u: address %u interface %u (class %02x/%02x/%02x): no driver\n",
						hc->name, port + 1, dev->address, dev->config.intf[k].number,
						dev->config.intf[k].class_code, dev->config.intf[k].subclass,
						dev->config.intf[k].protocol);
			}
			return;
		}
		pr_warn("usb: %s port %u: enumeration attempt %u of %u failed at %s: %s\n", hc->name, port + 1,
			attempt, USB_ENUM_TRIES, step, errno_name(err));
		memset(dev, 0, sizeof(*dev));
		hc->ops->port_disable(hc, port);
		if (err == -ENODEV || !worth_retrying(err))
			break;
		msleep(USB_ENUM_RETRY_MS);
	}
	pr_err("usb: %s port %u: device not usable (%s at %s)\n", hc->name, port + 1, errno_name(err), step);
}
