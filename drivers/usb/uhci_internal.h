/*
 * uhci_internal.h - private to drivers/usb/uhci*.c: the transfer
 * descriptor helpers and the completion scan of uhci_td.c, which touch only
 * memory (TDs, QHs) and so also run in the host unit tests
 * (tests/unit/test_uhci_td.c), where the test plays the controller.
 */
#ifndef DRIVERS_USB_UHCI_INTERNAL_H
#define DRIVERS_USB_UHCI_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <drivers/usb.h>
#include "uhci_regs.h"

/* Tunables and limits of this driver. */
enum uhci_tunables {
	UHCI_MAX_CONTROLLERS = 4,     /* controllers taken over (PIIX: 1, ICH9: up to 6) */
	UHCI_MAX_PORTS = 8,           /* root ports looked for (BAR4 of 32 bytes holds 8) */
	UHCI_TD_POOL = 256,           /* TDs per controller (8 KiB) */
	UHCI_QH_POOL = 32,            /* QHs per controller: 8 skeletons, control, bulk, pipes */
	UHCI_INTR_LEVELS = 8,         /* skeleton QHs for intervals 1, 2, 4 ... 128 frames */
	UHCI_MAX_PIPES = 8,           /* interrupt-IN pipes at once per controller */
	UHCI_BULK_CHUNK_TDS = 64,     /* TDs queued per piece of a bulk transfer (4 KiB at 64 B) */
	UHCI_PORT_POLL_MS = 100,      /* root-port status check (the UHCI has no connect interrupt) */
	UHCI_PORT_RESET_MS = 50,      /* USB 2.0 7.1.7.5: root port reset at least 50 ms */
	UHCI_PORT_RECOVERY_MS = 10,   /* USB 2.0 7.1.7.5 TRSTRCY: 10 ms after reset before use */
	UHCI_PORT_ENABLE_TRIES = 10,  /* 1 ms apart: how long a port may take to enable */
	UHCI_GRESET_MS = 50,          /* global reset held (USB reset on every port; >= 10 ms) */
	UHCI_HCRESET_POLL_US = 100,   /* HCRESET clears itself: look this often ... */
	UHCI_HCRESET_TRIES = 100,     /* ... this many times (10 ms) */
	UHCI_HALT_TRIES = 50,         /* 100 us apart: time the controller has to halt / start */
	UHCI_WAIT_RECHECK_MS = 10,    /* a waiter wakes at least this often to look at the port */
	UHCI_FRAME_WAIT_TRIES = 40,   /* 100 us apart: waiting for the frame number to move on */
	UHCI_HSE_REPORTS = 8,         /* host system/process errors reported before going quiet */
};

/* TD software flags. */
#define UHCI_TDF_DATA 0x01u       /* a data-stage / bulk / interrupt TD (counts for toggle, length) */
#define UHCI_TDF_CANCELLED 0x02u  /* still active when we took it off the schedule */
#define UHCI_TDF_USED 0x04u       /* allocated */

/* One synchronous transfer (control or bulk) in flight on a QH. */
struct uhci_xfer {
	bool busy;                     /* the QH holds it */
	volatile bool done;            /* set by the scan when it ended */
	int status;                    /* 0 or an error, valid when done */
	uint32_t actual;               /* data bytes moved */
	struct usb_device *dev;
	struct uhci_qh *qh;
	struct uhci_td *first;         /* chain in order */
	struct uhci_td *next_check;    /* first TD the scan has not seen finish */
	struct uhci_td *status_td;     /* control: the STATUS stage (NULL for bulk) */
	bool in;                       /* data direction */
	bool toggle_valid;             /* a data TD completed: last_toggle holds */
	bool last_toggle;              /* the toggle of the last data TD that completed */
	bool finished_unseen;          /* after a time-out: every TD had completed, the interrupt was lost */
	uint32_t err_ctrl;             /* the failed TD's control/status word, for the log */
	uint8_t err_pid;               /* and its PID */
};


/* uhci_phys - the bus address of @p: the kernel maps RAM identity (arch/x86/paging.c). */
uint32_t uhci_phys(const volatile void *p);

/* TD words. uhci_td_token: the token of a @len-byte packet (0: zero-length). */
uint32_t uhci_td_token(uint8_t pid, uint8_t addr, unsigned int ep, bool toggle, unsigned int len);
bool uhci_td_toggle(const struct uhci_td *td);
/* uhci_td_actual - bytes a finished TD moved (ActLen decoded). */
unsigned int uhci_td_actual(uint32_t ctrl);
/* uhci_td_error - what a finished TD's status means: 0, -EOVERFLOW (babble), -EIO (CRC/time-out,
 * bit stuffing, data buffer), -EPIPE (STALL alone). */
int uhci_td_error(uint32_t ctrl);
const char *uhci_td_error_name(uint32_t ctrl);
/* uhci_td_fill - an active TD for @dev (low-speed bit from its speed; SPD on data INs). */
void uhci_td_fill(struct uhci_td *td, const struct usb_device *dev, uint8_t pid, unsigned int ep, bool toggle,
		  void *buf, unsigned int len, bool data);
/* uhci_td_chain - @td follows @prev, depth first. */
void uhci_td_chain(struct uhci_td *prev, struct uhci_td *td);
/* uhci_td_chain_breadth - @td follows @prev, breadth first: one TD of the queue per visit of its QH
 * (bulk: see uhci.c, "Bulk and reclamation", for why). */
void uhci_td_chain_breadth(struct uhci_td *prev, struct uhci_td *td);

/* The completion scan. CONTEXT: the controller's handler or with interrupts off. */
void uhci_xfer_finish(struct uhci_xfer *x, int status);
/* uhci_scan_xfer - walk @x from the first TD not seen finished: errors end it, a short IN ends a
 * bulk transfer and moves a control transfer on to its STATUS TD, the last TD ends it. */
void uhci_scan_xfer(struct uhci_xfer *x);
/* uhci_xfer_cancel - deactivate what is still active (flagged) and unlink it from the QH. */
void uhci_xfer_cancel(struct uhci_xfer *x);
bool uhci_td_done_ok(const struct uhci_td *td);
/* uhci_recount - after a cancel (and a frame): bytes moved, toggle, whether all had completed. */
void uhci_recount(struct uhci_xfer *x);

/* Schedule geometry. uhci_interval_level: skeleton k (interval 2^k) for a bInterval. */
unsigned int uhci_interval_level(unsigned int interval);

#endif /* DRIVERS_USB_UHCI_INTERNAL_H */
