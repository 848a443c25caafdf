/*
 * uhci_td.c - the UHCI's transfer descriptors and the completion scan
 * (Intel UHCI Design Guide 1.1, chapter 3.2: TD layout, status bits,
 * ActLen/MaxLen encoding, short packet detect). Only memory is touched
 * here, never a register, so the host unit tests (tests/unit/test_uhci_td.c)
 * run this file with the test playing the controller. uhci.c builds the
 * schedule, starts transfers and waits; see docs/usb.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <kernel/errno.h>
#include "uhci_internal.h"

uint32_t uhci_phys(const volatile void *p)
{
	/* Identity mapping (arch/x86/paging.c): the virtual address is the physical one. */
	return (uint32_t)(uintptr_t)p;
}

uint32_t uhci_td_token(uint8_t pid, uint8_t addr, unsigned int ep, bool toggle, unsigned int len)
{
	uint32_t maxlen = len ? (uint32_t)(len - 1) : UHCI_LEN_NONE;

	return maxlen << UHCI_TOKEN_MAXLEN_SHIFT | (toggle ? UHCI_TOKEN_TOGGLE : 0) |
	       (uint32_t)(ep & 0xF) << UHCI_TOKEN_EP_SHIFT | (uint32_t)(addr & 0x7F) << UHCI_TOKEN_ADDR_SHIFT | pid;
}

bool uhci_td_toggle(const struct uhci_td *td)
{
	return td->token & UHCI_TOKEN_TOGGLE;
}

unsigned int uhci_td_actual(uint32_t ctrl)
{
	unsigned int a = ctrl & UHCI_TD_ACTLEN_MASK;

	return a == UHCI_LEN_NONE ? 0 : a + 1;
}

/* uhci_td_error - the error a finished TD's status bits mean, or 0. */
int uhci_td_error(uint32_t ctrl)
{
	if (ctrl & UHCI_TD_BABBLE)
		return -EOVERFLOW;
	if (ctrl & (UHCI_TD_CRC_TIMEOUT | UHCI_TD_BITSTUFF | UHCI_TD_DBE))
		return -EIO;
	if (ctrl & UHCI_TD_STALLED)
		return -EPIPE;           /* a STALL handshake and nothing else */
	return 0;
}

const char *uhci_td_error_name(uint32_t ctrl)
{
	if (ctrl & UHCI_TD_BABBLE)
		return "babble";
	if (ctrl & UHCI_TD_CRC_TIMEOUT)
		return "CRC/time-out";
	if (ctrl & UHCI_TD_BITSTUFF)
		return "bit stuffing";
	if (ctrl & UHCI_TD_DBE)
		return "data buffer";
	if (ctrl & UHCI_TD_STALLED)
		return "STALL";
	return "none";
}

/* uhci_td_fill - one TD of @dev; linked depth-first to whatever follows later. */
void uhci_td_fill(struct uhci_td *td, const struct usb_device *dev, uint8_t pid, unsigned int ep,
		    bool toggle, void *buf, unsigned int len, bool data)
{
	uint32_t ctrl = UHCI_TD_ACTIVE | UHCI_TD_CERR_3;

	if (dev->speed == USB_SPEED_LOW)
		ctrl |= UHCI_TD_LS;
	if (pid == UHCI_PID_IN && data)
		ctrl |= UHCI_TD_SPD;
	td->len = (uint16_t)len;
	td->pid = pid;
	td->flags = (uint8_t)(UHCI_TDF_USED | (data ? UHCI_TDF_DATA : 0));
	td->buffer = len ? uhci_phys(buf) : 0;
	td->token = uhci_td_token(pid, dev->address, ep, toggle, len);
	td->link = UHCI_LINK_TERMINATE;
	td->ctrl = ctrl;
}

void uhci_td_chain(struct uhci_td *prev, struct uhci_td *td)
{
	prev->next = td;
	prev->link = uhci_phys(td) | UHCI_LINK_DEPTH;
}

void uhci_td_chain_breadth(struct uhci_td *prev, struct uhci_td *td)
{
	prev->next = td;
	prev->link = uhci_phys(td);   /* no Vf: after this TD the controller goes on to the next QH */
}

/* ---- the scan (interrupt context, or a waiter with interrupts off) ------------------------------ */

void uhci_xfer_finish(struct uhci_xfer *x, int status)
{
	x->qh->element = UHCI_LINK_TERMINATE;   /* an inactive TD left there would interrupt every frame */
	x->status = status;
	x->done = true;
}

void uhci_scan_xfer(struct uhci_xfer *x)
{
	struct uhci_td *td = x->next_check;

	if (!x->busy || x->done)
		return;
	for (unsigned int n = 0; td && n < UHCI_TD_POOL; n++) {
		uint32_t ctrl = td->ctrl;
		struct uhci_td *next = td->next;
		unsigned int actual;

		if (ctrl & UHCI_TD_ACTIVE)
			return;                       /* still running */
		x->next_check = next;
		if (ctrl & UHCI_TD_ERRORS) {
			x->err_ctrl = ctrl;
			x->err_pid = td->pid;
			uhci_xfer_finish(x, uhci_td_error(ctrl));
			return;
		}
		if (td->flags & UHCI_TDF_DATA) {
			actual = uhci_td_actual(ctrl);
			if (actual > td->len)
				actual = td->len;        /* cannot be: the controller stops at MaxLen */
			x->actual += actual;
			x->toggle_valid = true;
			x->last_toggle = uhci_td_toggle(td);
			if (td->pid == UHCI_PID_IN && actual < td->len) {
				/* Short packet: with SPD the queue stopped here. */
				if (!x->status_td) {
					uhci_xfer_finish(x, 0);
					return;
				}
				next = x->next_check = x->status_td;   /* control: on to the STATUS stage */
				x->qh->element = uhci_phys(next);
			}
		}
		td = next;
	}
	if (!td)
		uhci_xfer_finish(x, 0);
}

/* uhci_xfer_cancel - take a transfer off its QH safely. Interrupts off. */
void uhci_xfer_cancel(struct uhci_xfer *x)
{
	for (struct uhci_td *td = x->first; td; td = td->next) {
		uint32_t ctrl = td->ctrl;

		if (ctrl & UHCI_TD_ACTIVE) {
			td->flags |= UHCI_TDF_CANCELLED;
			td->ctrl = ctrl & ~UHCI_TD_ACTIVE;
		}
	}
	x->qh->element = UHCI_LINK_TERMINATE;
}

bool uhci_td_done_ok(const struct uhci_td *td)
{
	return !(td->flags & UHCI_TDF_CANCELLED) && !(td->ctrl & (UHCI_TD_ERRORS | UHCI_TD_ACTIVE));
}

/* uhci_recount - after a cancel: what really moved, from the TDs that finished before it. */
void uhci_recount(struct uhci_xfer *x)
{
	bool ended = true;     /* the data stage ran to its end (or to a short packet) */

	x->actual = 0;
	x->toggle_valid = false;
	for (struct uhci_td *td = x->first; td && td != x->status_td; td = td->next) {
		if (!uhci_td_done_ok(td)) {
			ended = false;
			break;
		}
		if (!(td->flags & UHCI_TDF_DATA))
			continue;
		x->actual += uhci_td_actual(td->ctrl) < td->len ? uhci_td_actual(td->ctrl) : td->len;
		x->toggle_valid = true;
		x->last_toggle = uhci_td_toggle(td);
		if (td->pid == UHCI_PID_IN && uhci_td_actual(td->ctrl) < td->len)
			break;             /* short packet: what follows never ran */
	}
	/* Everything had completed and nobody noticed: the interrupt (and any poll of it) was lost. */
	x->finished_unseen = ended && (!x->status_td || uhci_td_done_ok(x->status_td));
}

unsigned int uhci_interval_level(unsigned int interval)
{
	unsigned int k = 0;

	while (k + 1 < UHCI_INTR_LEVELS && (2u << k) <= interval)
		k++;
	return k;
}

