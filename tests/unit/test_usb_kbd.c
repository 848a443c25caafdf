/*
 * test_usb_kbd.c - host tests of the keyboard class driver
 * (drivers/usb/usb_kbd.c) with a fake USB core and a fake clock: what it
 * binds to, the class requests it sends (SET_PROTOCOL boot, SET_IDLE 0),
 * reports through the pipe completion becoming console characters, the
 * repeat timer (first repeat after USB_KBD_REPEAT_DELAY_MS, then every
 * 33 ms, stopped by release or by another key), a stalled pipe restarted
 * from work, errors in a row stopping the pipe, and disconnect.
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
#include <kernel/printk.h>
#include <kernel/work.h>
#include <time/time.h>

#include "../../drivers/usb/usb_hid.h"

static struct {
	char typed[4096];
	size_t ntyped;
	uint64_t now;
	struct timer *timer;            /* the one timer the driver arms */
	bool timer_armed;
	uint64_t timer_at;
	struct work *work;
	bool work_queued;
	struct usb_intr_pipe *pipe;
	bool pipe_running;
	unsigned int submits, kills, clear_halts;
	uint8_t req[8];
	uint16_t val[8];
	unsigned int nreq;
	int set_idle_result;
	char log[16384];
	size_t log_len;
} F;

static struct usb_driver *drv;
static struct usb_hc hc = {.name = "sim0"};
static struct usb_device dev;
static struct usb_interface intf;

/* ---- fakes ------------------------------------------------------------------------ */

int printk(int level, const char *fmt, ...)
{
	va_list ap;
	int n;
	size_t room = sizeof(F.log) - F.log_len;

	if (level > LOG_INFO)
		return 0;               /* the per-character debug lines */
	va_start(ap, fmt);
	n = vsnprintf(F.log + F.log_len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		F.log_len += (size_t)n < room ? (size_t)n : room - 1;
	return n;
}

void console_input_char(uint8_t c)
{
	if (F.ntyped + 1 < sizeof(F.typed))
		F.typed[F.ntyped++] = (char)c;
}

uint64_t ktime_get_ns(void) { return F.now; }

void timer_setup(struct timer *t, void (*fn)(struct timer *t), void *arg)
{
	t->fn = fn;
	t->arg = arg;
	F.timer = t;
	F.timer_armed = false;
}

int timer_mod(struct timer *t, uint64_t expires_ns, uint64_t slack_ns)
{
	int was = F.timer_armed;

	assert_ptr_equal(t, F.timer);
	assert_int_equal(slack_ns, USB_KBD_REPEAT_SLACK_MS * NSEC_PER_MSEC);
	F.timer_armed = true;
	F.timer_at = expires_ns;
	return was;
}

bool timer_cancel(struct timer *t)
{
	bool was = F.timer_armed;

	(void)t;
	F.timer_armed = false;
	return was;
}

bool timer_pending(const struct timer *t)
{
	(void)t;
	return F.timer_armed;
}

void work_init(struct work *w, void (*fn)(struct work *w), void *arg)
{
	w->fn = fn;
	w->arg = arg;
	F.work = w;
}

bool work_queue(struct work *w)
{
	assert_ptr_equal(w, F.work);
	F.work_queued = true;
	return true;
}

bool work_cancel(struct work *w)
{
	(void)w;
	F.work_queued = false;
	return false;
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

int usb_control_msg(struct usb_device *d, uint8_t type, uint8_t req, uint16_t value,
		    uint16_t index, void *data, uint16_t len, uint32_t timeout_ms)
{
	(void)d; (void)data; (void)timeout_ms;
	assert_int_equal(type, 0x21);   /* class, interface, host-to-device */
	assert_int_equal(index, intf.number);
	assert_int_equal(len, 0);
	assert_true(F.nreq < 8);
	F.req[F.nreq] = req;
	F.val[F.nreq++] = value;
	return req == 0x0A ? F.set_idle_result : 0;
}

int usb_intr_submit(struct usb_intr_pipe *p)
{
	F.pipe = p;
	F.pipe_running = true;
	F.submits++;
	return 0;
}

void usb_intr_kill(struct usb_intr_pipe *p)
{
	assert_ptr_equal(p, F.pipe);
	F.pipe_running = false;
	F.kills++;
}

/* The controller's lock (the kernel: uhci.c's): taken by the repeat timer, never nested. */
static bool pipe_locked;

unsigned long usb_pipe_lock(struct usb_intr_pipe *p)
{
	assert_ptr_equal(p, F.pipe);
	assert_false(pipe_locked);
	pipe_locked = true;
	return 0x1234;
}

void usb_pipe_unlock(struct usb_intr_pipe *p, unsigned long flags)
{
	assert_ptr_equal(p, F.pipe);
	assert_true(pipe_locked);
	assert_int_equal(flags, 0x1234);
	pipe_locked = false;
}

int usb_clear_halt(struct usb_device *d, const struct usb_endpoint *ep)
{
	(void)d;
	assert_int_equal(ep->address, 0x81);
	F.clear_halts++;
	return 0;
}

/* ---- helpers -------------------------------------------------------------------------- */

void usb_kbd_init(void);

static int setup(void **state)
{
	(void)state;
	memset(&F, 0, sizeof(F));
	F.now = 1000 * NSEC_PER_MSEC;
	memset(&dev, 0, sizeof(dev));
	dev.hc = &hc;
	memset(&intf, 0, sizeof(intf));
	intf.number = 0;
	intf.class_code = 3;
	intf.subclass = 1;
	intf.protocol = 1;
	intf.num_endpoints = 1;
	intf.ep[0] = (struct usb_endpoint){.address = 0x81, .type = USB_EP_INTERRUPT, .max_packet = 8,
					   .interval = 10};
	usb_kbd_init();
	assert_non_null(drv);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (intf.driver_data)
		drv->disconnect(&dev, &intf);
	return 0;
}

static void bind(void)
{
	assert_int_equal(drv->probe(&dev, &intf), 0);
	assert_true(F.pipe_running);
}

/* One report through the pipe as the controller would deliver it. RETURNS keep-running. */
static bool report(uint8_t mods, uint8_t k0, uint8_t k1)
{
	uint8_t r[8] = {mods, 0, k0, k1};

	memcpy(F.pipe->buf, r, 8);
	return F.pipe->complete(F.pipe, 0, 8);
}

/* Advance the fake clock to @ms after the start, running the timer when due. */
static void run_until(uint64_t ms)
{
	uint64_t end = 1000 * NSEC_PER_MSEC + ms * NSEC_PER_MSEC;

	while (F.timer_armed && F.timer_at <= end) {
		F.now = F.timer_at;
		F.timer_armed = false;
		F.timer->fn(F.timer);
	}
	F.now = end;
}

static size_t count(char c)
{
	size_t n = 0;

	for (size_t i = 0; i < F.ntyped; i++)
		n += F.typed[i] == c;
	return n;
}

/* ---- tests ------------------------------------------------------------------------------ */

static void a_boot_keyboard_gets_boot_protocol_idle_zero_and_its_pipe(void **state)
{
	(void)state;
	bind();
	assert_int_equal(F.nreq, 2);
	assert_int_equal(F.req[0], 0x0B);   /* SET_PROTOCOL */
	assert_int_equal(F.val[0], 0);      /* boot */
	assert_int_equal(F.req[1], 0x0A);   /* SET_IDLE */
	assert_int_equal(F.val[1], 0);      /* duration 0, all reports */
	assert_int_equal(F.pipe->len, 8);
	assert_ptr_equal(F.pipe->ep, &intf.ep[0]);
	assert_non_null(strstr(F.log, "usb-kbd0: boot keyboard on sim0 port 1 (interface 0, "
				      "endpoint 0x81 every 10 ms), repeat after 500 ms at 30/s"));
}

static void other_interfaces_are_not_taken_and_a_refused_set_idle_is_tolerated(void **state)
{
	(void)state;
	intf.protocol = 2;                  /* boot mouse */
	assert_int_equal(drv->probe(&dev, &intf), -ENODEV);
	intf.protocol = 1;
	intf.subclass = 0;                  /* report-protocol-only keyboard */
	assert_int_equal(drv->probe(&dev, &intf), -ENODEV);
	intf.subclass = 1;
	intf.ep[0].address = 0x01;          /* no interrupt-IN endpoint */
	assert_int_equal(drv->probe(&dev, &intf), -EINVAL);
	intf.ep[0].address = 0x81;
	F.set_idle_result = -EPIPE;
	bind();
	assert_non_null(strstr(F.log, "SET_IDLE refused"));
}

static void reports_become_console_characters(void **state)
{
	(void)state;
	bind();
	assert_true(report(0, 0x0B, 0));    /* h */
	assert_true(report(0, 0, 0));
	assert_true(report(0x02, 0x0C, 0)); /* shift i */
	assert_true(report(0, 0, 0));
	assert_true(report(0, 0x28, 0));    /* Enter */
	assert_true(report(0, 0, 0));
	assert_int_equal(F.ntyped, 3);
	assert_memory_equal(F.typed, "hI\r", 3);
	/* a short report types nothing and keeps the pipe */
	assert_true(F.pipe->complete(F.pipe, 0, 3));
	assert_int_equal(F.ntyped, 3);
}

static void a_held_key_repeats_after_500_ms_every_33_ms_until_released(void **state)
{
	(void)state;
	bind();
	report(0, 0x04, 0);                 /* a down at t = 0 */
	run_until(499);
	assert_int_equal(count('a'), 1);
	run_until(500);
	assert_int_equal(count('a'), 2);
	run_until(500 + 33 * 10);
	assert_int_equal(count('a'), 12);
	report(0x02, 0x04, 0);              /* shift while held: repeats in upper case */
	run_until(500 + 33 * 11);
	assert_int_equal(count('A'), 1);
	report(0, 0, 0);                    /* released */
	assert_false(F.timer_armed);
	run_until(5000);
	assert_int_equal(count('a') + count('A'), 13);
}

static void a_second_key_takes_over_the_repeat_and_restarts_the_delay(void **state)
{
	(void)state;
	bind();
	report(0, 0x04, 0);                 /* a */
	run_until(400);
	report(0, 0x04, 0x05);              /* b down at 400 ms */
	run_until(899);
	assert_int_equal(count('a'), 1);
	assert_int_equal(count('b'), 1);
	run_until(900);
	assert_int_equal(count('b'), 2);
	report(0, 0x04, 0);                 /* b up, a still held: nothing repeats */
	run_until(3000);
	assert_int_equal(count('a'), 1);
	assert_int_equal(count('b'), 2);
}

static void a_stalled_pipe_is_restarted_from_work(void **state)
{
	(void)state;
	bind();
	report(0, 0x04, 0);
	assert_false(F.pipe->complete(F.pipe, -EPIPE, 0));
	assert_false(F.timer_armed);        /* no repeats from a dead pipe */
	assert_true(F.work_queued);
	F.pipe_running = false;
	F.work->fn(F.work);
	assert_int_equal(F.clear_halts, 1);
	assert_true(F.pipe_running);
	assert_int_equal(F.submits, 2);
}

static void errors_in_a_row_stop_the_pipe_and_unplug_stops_it_at_once(void **state)
{
	(void)state;
	bind();
	for (int i = 0; i < 15; i++)
		assert_true(F.pipe->complete(F.pipe, -EIO, 0));
	assert_true(report(0, 0x04, 0));    /* a good report resets the count */
	for (int i = 0; i < 15; i++)
		assert_true(F.pipe->complete(F.pipe, -ETIMEDOUT, 0));
	assert_false(F.pipe->complete(F.pipe, -ETIMEDOUT, 0));
	assert_non_null(strstr(F.log, "16 reports failed in a row (last ETIMEDOUT); pipe stopped"));
	assert_false(F.pipe->complete(F.pipe, -ENODEV, 0));
}

static void disconnect_kills_the_pipe_and_the_repeat(void **state)
{
	(void)state;
	bind();
	report(0, 0x04, 0);
	assert_true(F.timer_armed);
	drv->disconnect(&dev, &intf);
	assert_false(F.pipe_running);
	assert_false(F.timer_armed);
	assert_null(intf.driver_data);
	assert_non_null(strstr(F.log, "usb-kbd0: disconnected (1 characters, 0 repeats, 1 reports"));
	/* the slot is free again */
	bind();
	assert_non_null(strstr(F.log + F.log_len / 2, "usb-kbd0: boot keyboard"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_boot_keyboard_gets_boot_protocol_idle_zero_and_its_pipe, setup, teardown),
		cmocka_unit_test_setup_teardown(other_interfaces_are_not_taken_and_a_refused_set_idle_is_tolerated, setup, teardown),
		cmocka_unit_test_setup_teardown(reports_become_console_characters, setup, teardown),
		cmocka_unit_test_setup_teardown(a_held_key_repeats_after_500_ms_every_33_ms_until_released, setup, teardown),
		cmocka_unit_test_setup_teardown(a_second_key_takes_over_the_repeat_and_restarts_the_delay, setup, teardown),
		cmocka_unit_test_setup_teardown(a_stalled_pipe_is_restarted_from_work, setup, teardown),
		cmocka_unit_test_setup_teardown(errors_in_a_row_stop_the_pipe_and_unplug_stops_it_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(disconnect_kills_the_pipe_and_the_repeat, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
