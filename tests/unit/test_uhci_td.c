/*
 * test_uhci_td.c - host unit tests of the UHCI transfer descriptors and
 * completion scan (drivers/usb/uhci_td.c). The test plays the controller:
 * it marks TDs inactive with an actual length and status bits as the UHCI
 * Design Guide (3.2) says the hardware does, then runs the scan the
 * interrupt handler runs, and checks what the driver concludes: errors,
 * short packets (a control transfer moves on to its STATUS stage), bytes
 * moved, data toggles, and what a cancel after a time-out recounts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/errno.h>
#include "../../drivers/usb/uhci_internal.h"

#define NTD 8

static struct uhci_td tds[NTD];
static struct uhci_qh qh;
static uint8_t buf[64];
static struct usb_device dev = { .present = true, .address = 5, .speed = USB_SPEED_FULL,
				 .desc = { .max_packet0 = 8 } };

/* The controller finished @td: @actual bytes, plus @status bits (0: success). */
static void hc_complete(struct uhci_td *td, unsigned int actual, uint32_t status)
{
	uint32_t actlen = actual ? actual - 1 : UHCI_LEN_NONE;

	td->ctrl = (td->ctrl & ~(UHCI_TD_ACTIVE | UHCI_TD_ACTLEN_MASK)) | actlen | status;
	/* A TD that completes without SPD stopping the queue advances the QH (design guide 3.3.2). */
	if (!status && !(td->pid == UHCI_PID_IN && actual < td->len && (td->ctrl & UHCI_TD_SPD)))
		qh.element = td->link;
}

/* A control transfer: SETUP, @ndata data TDs of 8 bytes (IN), STATUS. Returns the STATUS TD. */
static struct uhci_td *control_in(struct uhci_xfer *x, unsigned int ndata)
{
	struct uhci_td *prev = &tds[0];
	bool toggle = true;

	memset(tds, 0, sizeof(tds));
	memset(x, 0, sizeof(*x));
	uhci_td_fill(&tds[0], &dev, UHCI_PID_SETUP, 0, false, buf, 8, false);
	for (unsigned int i = 1; i <= ndata; i++) {
		uhci_td_fill(&tds[i], &dev, UHCI_PID_IN, 0, toggle, buf + 8 * (i - 1), 8, true);
		uhci_td_chain(prev, &tds[i]);
		prev = &tds[i];
		toggle = !toggle;
	}
	uhci_td_fill(&tds[ndata + 1], &dev, UHCI_PID_OUT, 0, true, NULL, 0, false);
	tds[ndata + 1].ctrl |= UHCI_TD_IOC;
	uhci_td_chain(prev, &tds[ndata + 1]);
	x->busy = true;
	x->qh = &qh;
	x->first = x->next_check = &tds[0];
	x->status_td = &tds[ndata + 1];
	x->in = true;
	qh.element = uhci_phys(&tds[0]);
	return x->status_td;
}

/* A bulk IN transfer of @n 8-byte TDs, toggles from @toggle. */
static void bulk_in(struct uhci_xfer *x, unsigned int n, bool toggle)
{
	memset(tds, 0, sizeof(tds));
	memset(x, 0, sizeof(*x));
	for (unsigned int i = 0; i < n; i++) {
		uhci_td_fill(&tds[i], &dev, UHCI_PID_IN, 1, toggle, buf + 8 * i, 8, true);
		if (i)
			uhci_td_chain(&tds[i - 1], &tds[i]);
		toggle = !toggle;
	}
	tds[n - 1].ctrl |= UHCI_TD_IOC;
	x->busy = true;
	x->qh = &qh;
	x->first = x->next_check = &tds[0];
	x->in = true;
	qh.element = uhci_phys(&tds[0]);
}

static void token_fields_follow_the_design_guide(void **state)
{
	uint32_t t = uhci_td_token(UHCI_PID_IN, 5, 1, true, 64);

	(void)state;
	assert_int_equal(t & 0xFF, UHCI_PID_IN);
	assert_int_equal((t >> 8) & 0x7F, 5);
	assert_int_equal((t >> 15) & 0xF, 1);
	assert_true(t & (1u << 19));
	assert_int_equal(t >> 21, 63);
	assert_int_equal(uhci_td_token(UHCI_PID_OUT, 0, 0, false, 0) >> 21, 0x7FF);   /* zero-length */
	assert_int_equal(uhci_td_actual(UHCI_LEN_NONE), 0);
	assert_int_equal(uhci_td_actual(0), 1);
	assert_int_equal(uhci_td_actual(63), 64);
}

static void status_bits_map_to_errors(void **state)
{
	(void)state;
	assert_int_equal(uhci_td_error(0), 0);
	assert_int_equal(uhci_td_error(UHCI_TD_NAK), 0);
	assert_int_equal(uhci_td_error(UHCI_TD_STALLED), -EPIPE);
	assert_int_equal(uhci_td_error(UHCI_TD_STALLED | UHCI_TD_BABBLE), -EOVERFLOW);
	assert_int_equal(uhci_td_error(UHCI_TD_STALLED | UHCI_TD_CRC_TIMEOUT), -EIO);
	assert_int_equal(uhci_td_error(UHCI_TD_STALLED | UHCI_TD_BITSTUFF), -EIO);
	assert_int_equal(uhci_td_error(UHCI_TD_DBE), -EIO);
	assert_string_equal(uhci_td_error_name(UHCI_TD_STALLED), "STALL");
	assert_string_equal(uhci_td_error_name(UHCI_TD_STALLED | UHCI_TD_BABBLE), "babble");
}

static void fill_sets_low_speed_and_spd_only_where_due(void **state)
{
	struct usb_device slow = dev;

	(void)state;
	slow.speed = USB_SPEED_LOW;
	uhci_td_fill(&tds[0], &slow, UHCI_PID_IN, 1, false, buf, 8, true);
	assert_true(tds[0].ctrl & UHCI_TD_LS);
	assert_true(tds[0].ctrl & UHCI_TD_SPD);
	assert_true(tds[0].ctrl & UHCI_TD_ACTIVE);
	assert_int_equal(tds[0].ctrl & UHCI_TD_CERR_3, UHCI_TD_CERR_3);
	uhci_td_fill(&tds[1], &dev, UHCI_PID_IN, 0, true, NULL, 0, false);     /* a STATUS IN */
	assert_false(tds[1].ctrl & (UHCI_TD_LS | UHCI_TD_SPD));
	assert_int_equal(tds[1].buffer, 0);
	uhci_td_chain(&tds[0], &tds[1]);
	assert_int_equal(tds[0].link, uhci_phys(&tds[1]) | UHCI_LINK_DEPTH);
	assert_ptr_equal(tds[0].next, &tds[1]);
}

static void control_transfer_completes_after_its_status_stage(void **state)
{
	struct uhci_xfer x;
	struct uhci_td *st = control_in(&x, 2);

	(void)state;
	hc_complete(&tds[0], 8, 0);
	uhci_scan_xfer(&x);
	assert_false(x.done);                      /* data still active */
	uhci_scan_xfer(&x);                        /* a second look counts nothing twice */
	assert_int_equal(x.actual, 0);
	hc_complete(&tds[1], 8, 0);
	hc_complete(&tds[2], 8, 0);
	uhci_scan_xfer(&x);
	assert_false(x.done);
	assert_int_equal(x.actual, 16);
	hc_complete(st, 0, 0);
	uhci_scan_xfer(&x);
	assert_true(x.done);
	assert_int_equal(x.status, 0);
	assert_int_equal(x.actual, 16);
	assert_int_equal(qh.element, UHCI_LINK_TERMINATE);
}

static void short_packet_moves_control_on_to_status(void **state)
{
	struct uhci_xfer x;
	struct uhci_td *st = control_in(&x, 3);

	(void)state;
	hc_complete(&tds[0], 8, 0);
	hc_complete(&tds[1], 8, 0);
	hc_complete(&tds[2], 3, 0);                /* short: SPD stops the queue here */
	assert_int_equal(qh.element, uhci_phys(&tds[2]) | UHCI_LINK_DEPTH);   /* not advanced */
	uhci_scan_xfer(&x);
	assert_false(x.done);
	assert_int_equal(qh.element, uhci_phys(st));                          /* the driver moved it */
	assert_ptr_equal(x.next_check, st);
	assert_true(tds[3].ctrl & UHCI_TD_ACTIVE);                            /* skipped, never run */
	hc_complete(st, 0, 0);
	uhci_scan_xfer(&x);
	assert_true(x.done);
	assert_int_equal(x.status, 0);
	assert_int_equal(x.actual, 11);
}

static void stall_in_the_data_stage_is_epipe(void **state)
{
	struct uhci_xfer x;

	(void)state;
	control_in(&x, 2);
	hc_complete(&tds[0], 8, 0);
	hc_complete(&tds[1], 0, UHCI_TD_STALLED);
	uhci_scan_xfer(&x);
	assert_true(x.done);
	assert_int_equal(x.status, -EPIPE);
	assert_int_equal(x.err_pid, UHCI_PID_IN);
	assert_int_equal(qh.element, UHCI_LINK_TERMINATE);   /* nothing inactive left to re-interrupt */
}

static void babble_and_crc_errors_end_a_bulk_transfer(void **state)
{
	struct uhci_xfer x;

	(void)state;
	bulk_in(&x, 3, false);
	hc_complete(&tds[0], 8, UHCI_TD_STALLED | UHCI_TD_BABBLE);
	uhci_scan_xfer(&x);
	assert_true(x.done);
	assert_int_equal(x.status, -EOVERFLOW);
	bulk_in(&x, 3, false);
	hc_complete(&tds[0], 8, 0);
	hc_complete(&tds[1], 0, UHCI_TD_STALLED | UHCI_TD_CRC_TIMEOUT);
	uhci_scan_xfer(&x);
	assert_true(x.done);
	assert_int_equal(x.status, -EIO);
	assert_int_equal(x.actual, 8);
	assert_true(x.toggle_valid);
	assert_false(x.last_toggle);                 /* only the DATA0 packet went through */
}

static void bulk_toggles_follow_the_last_completed_packet(void **state)
{
	struct uhci_xfer x;

	(void)state;
	bulk_in(&x, 3, true);                        /* DATA1, DATA0, DATA1 */
	for (unsigned int i = 0; i < 3; i++)
		hc_complete(&tds[i], 8, 0);
	uhci_scan_xfer(&x);
	assert_true(x.done);
	assert_int_equal(x.actual, 24);
	assert_true(x.last_toggle);
	bulk_in(&x, 3, true);
	hc_complete(&tds[0], 8, 0);
	hc_complete(&tds[1], 5, 0);                  /* short: the transfer ends there */
	uhci_scan_xfer(&x);
	assert_true(x.done);
	assert_int_equal(x.status, 0);
	assert_int_equal(x.actual, 13);
	assert_false(x.last_toggle);
	assert_true(tds[2].ctrl & UHCI_TD_ACTIVE);
}

static void cancel_recounts_what_really_moved(void **state)
{
	struct uhci_xfer x;

	(void)state;
	bulk_in(&x, 3, false);
	hc_complete(&tds[0], 8, 0);
	uhci_xfer_cancel(&x);                        /* time-out with two packets outstanding */
	assert_int_equal(qh.element, UHCI_LINK_TERMINATE);
	assert_false(tds[1].ctrl & UHCI_TD_ACTIVE);
	assert_true(tds[1].flags & UHCI_TDF_CANCELLED);
	assert_false(tds[0].flags & UHCI_TDF_CANCELLED);
	uhci_recount(&x);
	assert_int_equal(x.actual, 8);
	assert_true(x.toggle_valid);
	assert_false(x.last_toggle);
	assert_false(x.finished_unseen);

	bulk_in(&x, 2, false);                       /* everything done, only the interrupt was lost */
	hc_complete(&tds[0], 8, 0);
	hc_complete(&tds[1], 8, 0);
	uhci_xfer_cancel(&x);
	uhci_recount(&x);
	assert_int_equal(x.actual, 16);
	assert_true(x.finished_unseen);

	control_in(&x, 2);                           /* control: the STATUS stage decides */
	hc_complete(&tds[0], 8, 0);
	hc_complete(&tds[1], 2, 0);                  /* short, then STATUS never ran */
	uhci_xfer_cancel(&x);
	uhci_recount(&x);
	assert_int_equal(x.actual, 2);
	assert_false(x.finished_unseen);
}

static void intervals_map_to_skeleton_levels(void **state)
{
	static const unsigned int in[] = { 0, 1, 2, 3, 4, 7, 8, 10, 16, 32, 64, 127, 128, 255 };
	static const unsigned int want[] = { 0, 0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 6, 7, 7 };

	(void)state;
	for (unsigned int i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		assert_int_equal(uhci_interval_level(in[i]), want[i]);
	for (unsigned int i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		assert_true((1u << uhci_interval_level(in[i])) <= (in[i] ? in[i] : 1));   /* never slower than asked */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(token_fields_follow_the_design_guide),
		cmocka_unit_test(status_bits_map_to_errors),
		cmocka_unit_test(fill_sets_low_speed_and_spd_only_where_due),
		cmocka_unit_test(control_transfer_completes_after_its_status_stage),
		cmocka_unit_test(short_packet_moves_control_on_to_status),
		cmocka_unit_test(stall_in_the_data_stage_is_epipe),
		cmocka_unit_test(babble_and_crc_errors_end_a_bulk_transfer),
		cmocka_unit_test(bulk_toggles_follow_the_last_completed_packet),
		cmocka_unit_test(cancel_recounts_what_really_moved),
		cmocka_unit_test(intervals_map_to_skeleton_levels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
