/*
 * usb.h - the USB core (drivers/usb/) for host controller drivers and
 * class drivers: devices, their parsed descriptors, synchronous control and
 * bulk transfers, asynchronous interrupt pipes, class driver binding and
 * hot-plug.
 *
 * Follows the Universal Serial Bus Specification 1.1 / 2.0 chapter 9 (device
 * framework: standard requests and descriptors). Host controller drivers
 * (uhci.c) register a struct usb_hc and report root-port changes; the core
 * enumerates what is plugged in (in process context, from kernel work) and
 * offers each interface of the chosen configuration to the registered class
 * drivers (usb_kbd.c, usb_storage.c).
 *
 * Descriptors come from the device and are untrusted: every length, count
 * and index is checked by the parser (usb_desc.c) before anything is kept.
 *
 * CONTEXTS. usb_control_msg(), usb_bulk_msg(), usb_clear_halt() and the
 * class drivers' probe/disconnect run in process context (they wait,
 * idling the CPU, for the controller's interrupt or its poll). Interrupt
 * pipe completions run in interrupt context (the controller's handler, or
 * a poll of it by kernel/irq): short, no waiting.
 *
 * ERRORS (negative, kernel/errno.h): -EPIPE the endpoint stalled;
 * -ETIMEDOUT no answer within the time-out; -EIO CRC/bit-stuff/bus time-out
 * on the wire; -EOVERFLOW babble (device sent more than asked); -ENODEV the
 * device was unplugged (or is being removed); -EINVAL bad arguments;
 * -ENOMEM no transfer descriptors left. A short packet is not an error:
 * the transfer functions return the bytes actually moved.
 */
#ifndef DRIVERS_USB_H
#define DRIVERS_USB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pci_dev;

/* ------------------------------------------------------------------------
 * Limits (what the core keeps; more is reported and ignored)
 */
enum usb_limits {
	USB_MAX_HCS = 8,             /* host controllers registered */
	USB_MAX_DEVICES = 16,        /* devices present at once, all controllers */
	USB_MAX_INTERFACES = 8,      /* interfaces kept of the chosen configuration */
	USB_MAX_ENDPOINTS = 8,       /* endpoints kept per interface (endpoint 0 not counted) */
	USB_CONFIG_DESC_MAX = 512,   /* bytes of a configuration descriptor set we read */
	USB_STRING_MAX = 48,         /* bytes kept of a string descriptor, ASCII, with NUL */
	USB_EP0_MAXPACKET_DEFAULT = 8, /* what endpoint 0 takes before the device descriptor is read */
};

/* Standard time-outs (milliseconds), chosen from USB 2.0 9.2.6.4: a device
 * must answer a standard request within 500 ms (data stage), 50 ms (no data). */
enum usb_timeouts_ms {
	USB_CTRL_TIMEOUT_MS = 500,   /* any control transfer */
	USB_BULK_TIMEOUT_MS = 5000,  /* a bulk transfer of up to 64 KiB (mass storage) */
};

enum usb_speed {
	USB_SPEED_LOW = 0,           /* 1.5 Mbit/s */
	USB_SPEED_FULL = 1,          /* 12 Mbit/s */
};

/* bmRequestType (USB 2.0 table 9-2) */
enum usb_reqtype {
	USB_DIR_OUT = 0x00,
	USB_DIR_IN = 0x80,
	USB_TYPE_STANDARD = 0x00,
	USB_TYPE_CLASS = 0x20,
	USB_TYPE_VENDOR = 0x40,
	USB_RECIP_DEVICE = 0x00,
	USB_RECIP_INTERFACE = 0x01,
	USB_RECIP_ENDPOINT = 0x02,
};

/* Standard requests (USB 2.0 table 9-4) */
enum usb_request {
	USB_REQ_GET_STATUS = 0,
	USB_REQ_CLEAR_FEATURE = 1,
	USB_REQ_SET_FEATURE = 3,
	USB_REQ_SET_ADDRESS = 5,
	USB_REQ_GET_DESCRIPTOR = 6,
	USB_REQ_GET_CONFIGURATION = 8,
	USB_REQ_SET_CONFIGURATION = 9,
	USB_REQ_SET_INTERFACE = 11,
};

/* Descriptor types (USB 2.0 table 9-5) */
enum usb_desc_type {
	USB_DT_DEVICE = 1,
	USB_DT_CONFIG = 2,
	USB_DT_STRING = 3,
	USB_DT_INTERFACE = 4,
	USB_DT_ENDPOINT = 5,
	USB_DT_HID = 0x21,
};

/* Endpoint bmAttributes bits 1:0 */
enum usb_ep_type {
	USB_EP_CONTROL = 0,
	USB_EP_ISOCHRONOUS = 1,
	USB_EP_BULK = 2,
	USB_EP_INTERRUPT = 3,
};

/* Class codes of interfaces (usb.org class codes) */
enum usb_class {
	USB_CLASS_HID = 0x03,
	USB_CLASS_MASS_STORAGE = 0x08,
	USB_CLASS_HUB = 0x09,
};

/* The 8-byte SETUP packet (USB 2.0 table 9-2), little-endian on the wire. */
struct usb_setup {
	uint8_t request_type;
	uint8_t request;
	uint16_t value;
	uint16_t index;
	uint16_t length;
} __attribute__((packed));

/* The device descriptor as it comes off the wire (USB 2.0 table 9-8). */
struct usb_device_desc {
	uint8_t length;
	uint8_t type;
	uint16_t bcd_usb;
	uint8_t device_class;
	uint8_t device_subclass;
	uint8_t device_protocol;
	uint8_t max_packet0;
	uint16_t vendor_id;
	uint16_t product_id;
	uint16_t bcd_device;
	uint8_t i_manufacturer;
	uint8_t i_product;
	uint8_t i_serial;
	uint8_t num_configurations;
} __attribute__((packed));

/* ------------------------------------------------------------------------
 * Parsed configuration (filled by usb_parse_config from untrusted bytes)
 */
struct usb_endpoint {
	uint8_t address;             /* bit 7 = IN, bits 3:0 = number (1-15) */
	uint8_t type;                /* enum usb_ep_type */
	uint16_t max_packet;         /* bytes, 1..64 (full speed), 1..8 (low speed interrupt) */
	uint8_t interval;            /* bInterval, frames (interrupt endpoints) */
};

struct usb_device;
struct usb_driver;

struct usb_interface {
	uint8_t number;              /* bInterfaceNumber */
	uint8_t alt_setting;         /* only alternate setting 0 is kept */
	uint8_t class_code;
	uint8_t subclass;
	uint8_t protocol;
	uint8_t num_endpoints;       /* entries used in ep[] */
	struct usb_endpoint ep[USB_MAX_ENDPOINTS];
	/* Kept by the core. */
	const struct usb_driver *driver;   /* bound class driver, or NULL */
	void *driver_data;                 /* the class driver's */
};

struct usb_config {
	uint8_t value;               /* bConfigurationValue for SET_CONFIGURATION */
	uint8_t attributes;
	uint8_t max_power_2ma;       /* bMaxPower, units of 2 mA */
	uint8_t num_interfaces;      /* entries used in intf[] */
	uint16_t total_length;       /* wTotalLength the device claimed */
	struct usb_interface intf[USB_MAX_INTERFACES];
};

/*
 * usb_parse_config - check and parse a configuration descriptor set
 * (configuration, interface, endpoint and class descriptors) of @len bytes.
 * Every descriptor's bLength is checked against its type's minimum and the
 * bytes left; wTotalLength against @len; interface and endpoint counts
 * against what is really there and against the limits above; endpoint
 * numbers and max packet sizes against the USB rules. Unknown descriptors
 * are skipped by their length. On any violation @out is left describing
 * nothing (num_interfaces 0) and a one-line reason is written to @why.
 * On success @why is "" or a note of what was checked but not kept
 * (interfaces beyond USB_MAX_INTERFACES, endpoints beyond USB_MAX_ENDPOINTS,
 * isochronous endpoints), for the caller to log.
 * CONTEXT: any; pure (host-testable, fuzzed).
 * RETURNS 0 or -EINVAL.
 */
int usb_parse_config(const uint8_t *buf, size_t len, struct usb_config *out,
		     char *why, size_t why_len);

/*
 * usb_check_device_desc - validate the 18-byte device descriptor (@len bytes
 * read): length, type, bcdUSB, bMaxPacketSize0 in {8, 16, 32, 64}, at least
 * one configuration. RETURNS 0 or -EINVAL with the reason in @why.
 */
int usb_check_device_desc(const struct usb_device_desc *d, size_t len, char *why, size_t why_len);

/* ------------------------------------------------------------------------
 * Host controllers
 */
struct usb_hc;

/* Interrupt-IN pipe: polled by the controller every @ep->interval frames. */
struct usb_intr_pipe {
	struct usb_device *dev;
	const struct usb_endpoint *ep;
	void *buf;                   /* receives each report, up to @len bytes */
	uint16_t len;
	/*
	 * Called in interrupt context after each completed transaction (@status
	 * 0 with @actual bytes in @buf, or a negative error). Return true to
	 * keep the pipe running (it is re-armed with the right data toggle),
	 * false to stop it.
	 */
	bool (*complete)(struct usb_intr_pipe *pipe, int status, unsigned int actual);
	void *context;               /* the class driver's */
	/* Kept by the controller driver. */
	void *hc_private;
	bool running;
};

struct usb_hc_ops {
	/* Control transfer to endpoint 0 of @dev (address dev->address; 0 while
	 * enumerating): SETUP, optional DATA stage of setup->length bytes in the
	 * direction of setup->request_type, STATUS. RETURNS data bytes moved or
	 * an error. CONTEXT: process. */
	int (*control)(struct usb_hc *hc, struct usb_device *dev, const struct usb_setup *setup,
		       void *data, uint32_t timeout_ms);
	/* Bulk transfer of @len bytes on endpoint @ep (direction from its address),
	 * in max_packet pieces, keeping the device's data toggle. RETURNS bytes
	 * moved (a short packet ends it) or an error. CONTEXT: process. */
	int (*bulk)(struct usb_hc *hc, struct usb_device *dev, const struct usb_endpoint *ep,
		    void *buf, uint32_t len, uint32_t timeout_ms);
	/* Start / stop an interrupt-IN pipe. CONTEXT: process (start), any (stop). */
	int (*intr_start)(struct usb_hc *hc, struct usb_intr_pipe *pipe);
	void (*intr_stop)(struct usb_hc *hc, struct usb_intr_pipe *pipe);
	/* Reset root port @port (0-based) and enable it. RETURNS 0 with *@speed
	 * set, -ENODEV if nothing is connected any more, -EIO if it will not
	 * enable. CONTEXT: process (takes tens of ms). */
	int (*port_reset)(struct usb_hc *hc, unsigned int port, enum usb_speed *speed);
	/* Disable root port @port. CONTEXT: process. */
	void (*port_disable)(struct usb_hc *hc, unsigned int port);
	/* Print the controller's state and ports for `lsusb`. */
	void (*show)(struct usb_hc *hc);
	/* Keep the controller's completions (its interrupt handler, on whichever CPU its line
	 * is delivered to) out until unlock: interrupts off here and the controller's lock.
	 * RETURNS what unlock needs. CONTEXT: any but a completion callback (which already
	 * runs under it); not nested. */
	unsigned long (*lock)(struct usb_hc *hc);
	void (*unlock)(struct usb_hc *hc, unsigned long flags);
};

struct usb_hc {
	char name[12];               /* "uhci0" */
	const struct usb_hc_ops *ops;
	void *priv;                  /* the controller driver's */
	struct pci_dev *pci;         /* the PCI function, or NULL */
	unsigned int irq;            /* kernel/irq line it requested */
	unsigned int nports;         /* root ports */
	/* Kept by the core. */
	unsigned int index;
	uint8_t next_address;        /* for SET_ADDRESS, 1..127 */
};

/* usb_hc_register - make @hc known; the core then waits for port changes.
 * RETURNS 0 or -ENOSPC. CONTEXT: process. */
int usb_hc_register(struct usb_hc *hc);

/*
 * usb_port_changed - the controller driver saw root port @port connect
 * (@connected) or disconnect. The core disconnects any device on that port
 * at once (its class drivers' disconnect, pending transfers fail -ENODEV)
 * and, if connected, enumerates it: reset, address, descriptors, a
 * configuration, class drivers. CONTEXT: process (kernel work).
 */
void usb_port_changed(struct usb_hc *hc, unsigned int port, bool connected);

/* ------------------------------------------------------------------------
 * Devices
 */
struct usb_device {
	bool present;                /* slot in use */
	bool gone;                   /* unplugged: every transfer fails -ENODEV */
	uint8_t address;             /* 0 until SET_ADDRESS */
	enum usb_speed speed;
	struct usb_hc *hc;
	unsigned int port;           /* root port, 0-based */
	struct usb_device_desc desc;
	struct usb_config config;    /* the configuration set (config.value != 0) */
	uint16_t toggle[2];          /* data toggles: [0] OUT, [1] IN, bit n = endpoint n */
	char manufacturer[USB_STRING_MAX];
	char product[USB_STRING_MAX];
	char serial[USB_STRING_MAX];
};

/* usb_device_at - the @index-th present device, or NULL past the end. */
struct usb_device *usb_device_at(unsigned int index);
/* usb_hc_at - the @index-th registered controller, or NULL. */
struct usb_hc *usb_hc_at(unsigned int index);

/* Transfers (CONTEXT: process). RETURNS bytes moved or a negative error. */
int usb_control_msg(struct usb_device *dev, uint8_t request_type, uint8_t request,
		    uint16_t value, uint16_t index, void *data, uint16_t len, uint32_t timeout_ms);
int usb_bulk_msg(struct usb_device *dev, const struct usb_endpoint *ep, void *buf, uint32_t len,
		 uint32_t timeout_ms);
/* usb_clear_halt - CLEAR_FEATURE(ENDPOINT_HALT) on @ep and reset its toggle. */
int usb_clear_halt(struct usb_device *dev, const struct usb_endpoint *ep);
/* usb_intr_submit / usb_intr_kill - run or stop an interrupt-IN pipe. */
int usb_intr_submit(struct usb_intr_pipe *pipe);
void usb_intr_kill(struct usb_intr_pipe *pipe);

/*
 * usb_pipe_lock / usb_pipe_unlock - keep @pipe's completion callback out
 * (the host controller's lock: the callback runs in its interrupt handler,
 * maybe on another CPU), for a class driver's state that a timer also
 * touches. CONTEXT: any but the completion itself; not nested.
 */
unsigned long usb_pipe_lock(struct usb_intr_pipe *pipe);
void usb_pipe_unlock(struct usb_intr_pipe *pipe, unsigned long flags);

/* usb_find_endpoint - the first endpoint of @intf with @type and direction
 * (@in), or NULL. */
const struct usb_endpoint *usb_find_endpoint(const struct usb_interface *intf, uint8_t type, bool in);

/* ------------------------------------------------------------------------
 * Class drivers
 */
struct usb_driver {
	const char *name;            /* "usb-kbd" */
	/* Offered each interface of a newly configured device. RETURNS 0 if it
	 * took @intf (set intf->driver_data), -ENODEV if not its kind, another
	 * error if it is but setup failed (logged by the core). CONTEXT: process. */
	int (*probe)(struct usb_device *dev, struct usb_interface *intf);
	/* The device is gone (or being removed): stop pipes, fail waiters, free.
	 * Transfers to @dev already fail with -ENODEV. CONTEXT: process. */
	void (*disconnect)(struct usb_device *dev, struct usb_interface *intf);
	struct usb_driver *next;     /* kept by the core */
};

/* usb_register_driver - add @drv (before or after controllers register;
 * present devices are offered to it). RETURNS 0. CONTEXT: process. */
int usb_register_driver(struct usb_driver *drv);

/* ------------------------------------------------------------------------
 * Bring-up and the shell
 */
/* usb_kbd_init / usb_storage_init - register the class drivers (main.c, before uhci_init). */
void usb_kbd_init(void);
void usb_storage_init(void);
/* uhci_init - find, take over and start every UHCI controller (PCI class 0C/03/00).
 * RETURNS the number started. CONTEXT: process, after pci_routing_setup and sti. */
int uhci_init(void);
/* usb_cmd_lsusb - the `lsusb` shell command. */
int usb_cmd_lsusb(int argc, char **argv);

#endif /* DRIVERS_USB_H */
