/*
 * usb_kbd.c - the USB HID boot-protocol keyboard class driver ("usb-kbd"):
 * key reports from an interrupt-IN pipe become characters on the kernel
 * console (console_input_char), so the shell can be used from a USB
 * keyboard.
 *
 * Follows the Device Class Definition for HID 1.11: section 7.2 (class
 * requests SET_IDLE 0x0A and SET_PROTOCOL 0x0B), appendix B.1 (the boot
 * keyboard report). The translation of reports to characters is pure code
 * in usb_hid_keymap.c (see usb_hid.h for key-down detection, rollover and
 * repeat); this file binds to the interface, runs the pipe and the repeat
 * timer. Docs: docs/usb-classes.md.
 *
 * SET_IDLE duration 0 (USB_KBD_IDLE_RATE): the keyboard reports only when
 * its key state changes, and typematic repeat is done here with a
 * kernel/time timer. With a non-zero idle rate the device would resend an
 * unchanged report every 4*N ms, and repeats would then depend on the
 * device's clock, on reports the controller may lose or delay (a misrouted
 * interrupt is only found by polling), and on the device honouring the
 * request at all; a host timer repeats at the same rate on every keyboard.
 *
 * CONTEXT: probe/disconnect in process context (kernel work); the pipe
 * completion in interrupt context (the controller's handler, or a
 * kernel/irq poll of it); the repeat timer callback from the clock event
 * interrupt. All interrupt-context paths run with interrupts disabled on
 * irqkit's single CPU, so the state they share needs no lock.
 */
#include <drivers/usb.h>
#include <kernel/console.h>
#include <kernel/errno.h>
#include <kernel/heap.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <kernel/work.h>
#include <time/time.h>

#include <asm/cpu.h>

#include "usb_hid.h"

/* HID class codes and requests (HID 1.11 sections 4.2, 4.3, 7.2). */
enum hid_class {
	HID_SUBCLASS_BOOT = 1,
	HID_PROTOCOL_KEYBOARD = 1,
	HID_REQ_SET_IDLE = 0x0A,
	HID_REQ_SET_PROTOCOL = 0x0B,
	HID_PROTOCOL_VALUE_BOOT = 0,    /* wValue of SET_PROTOCOL */
};

/* Limits of the driver. */
enum usb_kbd_limits {
	USB_KBD_MAX = 4,                /* keyboards bound at once */
	USB_KBD_ERRORS_MAX = 16,        /* consecutive failed reports before the pipe is stopped */
};

struct usb_kbd {
	bool used;
	unsigned int index;
	struct usb_device *dev;
	struct usb_interface *intf;
	struct usb_intr_pipe pipe;
	uint8_t report[USB_HID_REPORT_LEN];
	struct usb_hid_kbd hid;
	struct timer repeat_timer;
	uint32_t repeat_gen;            /* hid.repeat_gen the timer was armed for */
	struct work clear_halt_work;    /* the pipe stalled: clear it in process context */
	unsigned int errors_in_row;
	/* statistics */
	uint32_t chars;
	uint32_t repeats;
	uint32_t errors;
	uint32_t stalls;
};

static struct usb_kbd keyboards[USB_KBD_MAX];

static void kbd_put(struct usb_kbd *k, uint8_t c, bool repeat)
{
	console_input_char(c);
	if (repeat)
		k->repeats++;
	else
		k->chars++;
	/* For latency measurements (docs/usb-classes.md): the raw TSC, which
	 * under QEMU -icount counts guest nanoseconds of the virtual clock. */
	pr_debug("usb-kbd%u: char 0x%02x%s at tsc %llu\n", k->index, c, repeat ? " (repeat)" : "",
		 (unsigned long long)rdtsc());
}

static uint64_t ms_to_ns(uint32_t ms)
{
	return (uint64_t)ms * NSEC_PER_MSEC;
}

/* The repeat timer: the held key gives its character again. */
static void kbd_repeat(struct timer *t)
{
	struct usb_kbd *k = t->arg;
	unsigned long flags;
	int c;

	if (!k->used)
		return;
	/* The decoder's state is the completion's, which runs in the controller's handler on
	 * whichever CPU the line goes to; this timer runs on CPU 0: keep the completion out.
	 * The completion cancels and re-arms this timer under the same lock, which is safe
	 * because timer_cancel() does not wait for a running callback (hrtimer_cancel() does:
	 * this timer must not become an hrtimer cancelled under the lock). */
	flags = usb_pipe_lock(&k->pipe);
	if (k->hid.repeat_gen == k->repeat_gen) {
		c = usb_hid_kbd_repeat_char(&k->hid);
		if (c >= 0) {
			kbd_put(k, (uint8_t)c, true);
			timer_mod(&k->repeat_timer, ktime_get_ns() + ms_to_ns(usb_hid_kbd_repeat_period_ms()),
				  ms_to_ns(USB_KBD_REPEAT_SLACK_MS));
		}
	}
	usb_pipe_unlock(&k->pipe, flags);
}

/* After each report: (re)start the repeat delay for a new repeat key, stop for none. */
static void kbd_update_repeat(struct usb_kbd *k)
{
	if (usb_hid_kbd_repeat_char(&k->hid) < 0) {
		timer_cancel(&k->repeat_timer);
		return;
	}
	if (k->hid.repeat_gen == k->repeat_gen && timer_pending(&k->repeat_timer))
		return;
	if (k->hid.repeat_gen != k->repeat_gen) {
		k->repeat_gen = k->hid.repeat_gen;
		timer_mod(&k->repeat_timer, ktime_get_ns() + ms_to_ns(USB_KBD_REPEAT_DELAY_MS),
			  ms_to_ns(USB_KBD_REPEAT_SLACK_MS));
	}
}

static void kbd_clear_halt(struct work *w)
{
	struct usb_kbd *k = w->arg;
	int err;

	if (!k->used || k->dev->gone)
		return;
	err = usb_clear_halt(k->dev, k->pipe.ep);
	if (!err)
		err = usb_intr_submit(&k->pipe);
	if (err)
		pr_err("usb-kbd%u: pipe stalled and could not be restarted: %s\n", k->index,
		       errno_name(err));
	else
		pr_info("usb-kbd%u: pipe stalled; halt cleared, running again\n", k->index);
}

/* Interrupt-IN completion: CONTEXT interrupt. RETURNS true to keep the pipe running. */
static bool kbd_complete(struct usb_intr_pipe *pipe, int status, unsigned int actual)
{
	struct usb_kbd *k = pipe->context;
	uint8_t out[USB_HID_CHARS_MAX];
	int n;

	if (status == -ENODEV || !k->used)
		return false;
	if (status == -EPIPE) {
		k->stalls++;
		timer_cancel(&k->repeat_timer);
		work_queue(&k->clear_halt_work);
		return false;
	}
	if (status < 0) {
		k->errors++;
		if (++k->errors_in_row >= USB_KBD_ERRORS_MAX) {
			pr_err("usb-kbd%u: %u reports failed in a row (last %s); pipe stopped\n",
			       k->index, k->errors_in_row, errno_name(status));
			timer_cancel(&k->repeat_timer);
			return false;
		}
		return true;
	}
	k->errors_in_row = 0;
	n = usb_hid_kbd_feed(&k->hid, k->report, actual > sizeof(k->report) ? sizeof(k->report) : actual,
			     out, sizeof(out));
	if (n < 0) {
		k->errors++;
		return true;             /* a short report: counted in hid.bad, nothing typed */
	}
	for (int i = 0; i < n; i++)
		kbd_put(k, out[i], false);
	kbd_update_repeat(k);
	return true;
}

static struct usb_kbd *kbd_alloc(void)
{
	for (unsigned int i = 0; i < USB_KBD_MAX; i++)
		if (!keyboards[i].used) {
			memset(&keyboards[i], 0, sizeof(keyboards[i]));
			keyboards[i].index = i;
			return &keyboards[i];
		}
	return NULL;
}

static int kbd_class_request(struct usb_device *dev, struct usb_interface *intf, uint8_t request,
			     uint16_t value)
{
	return usb_control_msg(dev, USB_DIR_OUT | USB_TYPE_CLASS | USB_RECIP_INTERFACE, request, value,
			       intf->number, NULL, 0, USB_CTRL_TIMEOUT_MS);
}

static int kbd_probe(struct usb_device *dev, struct usb_interface *intf)
{
	const struct usb_endpoint *ep;
	struct usb_kbd *k;
	int err;

	if (intf->class_code != USB_CLASS_HID || intf->subclass != HID_SUBCLASS_BOOT ||
	    intf->protocol != HID_PROTOCOL_KEYBOARD)
		return -ENODEV;
	ep = usb_find_endpoint(intf, USB_EP_INTERRUPT, true);
	if (!ep) {
		pr_err("usb-kbd: boot keyboard interface %u has no interrupt-IN endpoint\n", intf->number);
		return -EINVAL;
	}
	k = kbd_alloc();
	if (!k) {
		pr_err("usb-kbd: more than %d keyboards; this one is not used\n", USB_KBD_MAX);
		return -ENOSPC;
	}
	/* HID 7.2.6: a boot device starts in report protocol after reset only if
	 * it says so; ask for the boot protocol so the 8-byte layout holds. */
	err = kbd_class_request(dev, intf, HID_REQ_SET_PROTOCOL, HID_PROTOCOL_VALUE_BOOT);
	if (err < 0) {
		pr_err("usb-kbd: SET_PROTOCOL(boot) failed: %s\n", errno_name(err));
		return err;
	}
	/* HID 7.2.4: wValue high byte = duration (4 ms units), low byte = report ID 0 (all). */
	err = kbd_class_request(dev, intf, HID_REQ_SET_IDLE, (uint16_t)(USB_KBD_IDLE_RATE << 8));
	if (err == -EPIPE)
		pr_info("usb-kbd: SET_IDLE refused (stall); the keyboard keeps its own idle rate\n");
	else if (err < 0) {
		pr_err("usb-kbd: SET_IDLE failed: %s\n", errno_name(err));
		return err;
	}
	k->used = true;
	k->dev = dev;
	k->intf = intf;
	timer_setup(&k->repeat_timer, kbd_repeat, k);
	work_init(&k->clear_halt_work, kbd_clear_halt, k);
	k->pipe.dev = dev;
	k->pipe.ep = ep;
	k->pipe.buf = k->report;
	k->pipe.len = ep->max_packet < sizeof(k->report) ? ep->max_packet : sizeof(k->report);
	k->pipe.complete = kbd_complete;
	k->pipe.context = k;
	err = usb_intr_submit(&k->pipe);
	if (err < 0) {
		pr_err("usb-kbd: interrupt pipe on endpoint 0x%02x would not start: %s\n", ep->address,
		       errno_name(err));
		k->used = false;
		return err;
	}
	intf->driver_data = k;
	pr_info("usb-kbd%u: boot keyboard on %s port %u (interface %u, endpoint 0x%02x every %u ms), "
		"repeat after %d ms at %d/s\n", k->index, dev->hc->name, dev->port + 1, intf->number,
		ep->address, ep->interval, USB_KBD_REPEAT_DELAY_MS, USB_KBD_REPEAT_RATE_HZ);
	return 0;
}

static void kbd_disconnect(struct usb_device *dev, struct usb_interface *intf)
{
	struct usb_kbd *k = intf->driver_data;

	(void)dev;
	if (!k)
		return;
	/* Pipe first: once it is stopped no completion can arm the repeat
	 * timer again. A repeat that fires before timer_cancel() re-arms
	 * itself and is then cancelled; after timer_cancel() none runs. */
	usb_intr_kill(&k->pipe);
	timer_cancel(&k->repeat_timer);
	work_cancel(&k->clear_halt_work);
	k->used = false;
	intf->driver_data = NULL;
	pr_info("usb-kbd%u: disconnected (%u characters, %u repeats, %u reports, %u failed, "
		"%u rollover)\n", k->index, k->chars, k->repeats, k->hid.reports, k->errors,
		k->hid.rollover);
}

static struct usb_driver usb_kbd_driver = {
	.name = "usb-kbd",
	.probe = kbd_probe,
	.disconnect = kbd_disconnect,
};

void usb_kbd_init(void)
{
	usb_register_driver(&usb_kbd_driver);
}
