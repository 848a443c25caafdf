/*
 * uhci.c - the Universal Host Controller Interface driver: Intel's USB 1.1
 * host controller (PIIX3/PIIX4 00:01.2 on QEMU's pc machine, ICH9 UHCI on
 * q35), following the Intel UHCI Design Guide 1.1 (registers and data
 * structures are in uhci_regs.h) and the PIIX4 datasheet (legacy support).
 * The USB core (usb_core.c) drives it through struct usb_hc_ops; docs/usb.md
 * explains the schedule, the waiting and how IRQ watching is used.
 *
 * Schedule (one 4 KiB frame list of 1,024 entries, all pointing at QHs):
 *
 *   frame i -> int[k] -> ... -> int[1] -> int[0] -> control QH -> bulk QH -> T
 *
 * int[k] is the skeleton QH of interval 2^k frames (k = 0..7): frame i
 * enters the chain at int[k] with 2^k the largest power of two (at most 128)
 * that divides i, so int[k] is visited every 2^k frames. An interrupt pipe
 * gets its own QH, linked right after the skeleton of the largest 2^k not
 * above its bInterval. The control and bulk QHs hold at most one transfer
 * each (the kernel runs one process-context caller at a time). Control TDs
 * are linked depth first (Vf) so a whole transfer can run in one frame.
 *
 * Bulk and reclamation: bulk TDs are linked breadth first (no Vf), and while
 * a bulk piece runs the bulk QH links back to the control QH (the loop Linux
 * calls FSBR), so the controller takes one bulk TD per pass of the loop and
 * still fills the frame. Depth first is not safe for bulk: a device may
 * NAK a packet (usb-storage does while it fetches data), and Bochs 2.7's
 * UHCI then goes on to the next TDs of the chain in the same frame instead
 * of leaving the queue, its mass storage completes only the last of them
 * and the first stays active for ever (docs/usb.md, "Bulk: breadth first").
 * On QEMU the loop moves as many bytes per frame as depth first did.
 *
 * Memory: RAM is identity-mapped (arch/x86/paging.c maps all 4 GiB with
 * virtual == physical), so the address of a kernel object is the bus
 * address the controller uses: frame list, QHs, TDs and the callers'
 * buffers are handed over as they are.
 *
 * Completion is the interrupt handler's: it reads USBSTS, claims only its
 * own bits (the line is shared: the e1000 is on IRQ 11 too on pc), clears
 * them and scans the running transfers. Waiters sleep with the CPU idle and
 * wake on every interrupt and at least every UHCI_WAIT_RECHECK_MS, so when
 * the interrupt is lost and kernel/irq polls the handler instead (IRQ
 * watching: watch_irq() right after request_irq, as the 2010 patch did in
 * usb_add_hcd, and again after every time-out), they still see it.
 *
 * Several CPUs: the line may be delivered to another CPU (affinity,
 * docs/smp.md), so "interrupts off" no longer keeps the handler out. Each
 * controller has a lock (struct uhci.lock, a ticket lock: asm/spinlock.h
 * states its ordering) that the handler takes in uhci_hw_interrupt() and
 * the thread side takes wherever it used to disable interrupts against
 * the handler: publishing a transfer (start_xfer), waiting for it
 * (wait_xfer gives the lock up while it halts), linking, unlinking and
 * freeing interrupt pipes, and marking the controller running. What the
 * lock covers: the transfers' state (busy, done, status, the TD chain the
 * scan walks), the pipe slots and the QH links the thread and the handler
 * both change, u->running. A completion made on a CPU other than the
 * waiter's wakes it with the wake-up IPI. Not nested: kernel/irq polls the
 * handler only from its timers, which cannot run on a CPU that holds the
 * lock with interrupts off. Lock order: a controller's lock, then a pipe's
 * class driver's (usb_kbd.c), then kernel/irq's and kernel/time's, printk
 * and the console input ring innermost; the core runs the handler with the
 * line's lock dropped.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/apic.h>
#include <asm/smp.h>
#include <asm/spinlock.h>
#include <drivers/pci.h>
#include <drivers/usb.h>
#include <irq/interrupt.h>
#include <irq/policy.h>
#include <irq/trace.h>
#include <kernel/errno.h>
#include <kernel/heap.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <kernel/work.h>
#include <time/time.h>
#include "uhci_internal.h"


#define NS_PER_MS 1000000ull

struct uhci_pipe_slot {
	struct usb_intr_pipe *pipe;    /* NULL: free */
	struct uhci_qh *qh;
	struct uhci_qh *skel;          /* the skeleton it hangs after */
	struct uhci_td *td;
};

/* Memory the controller reads: frame list first (4 KiB aligned), then the pools. */
struct uhci_dma {
	volatile uint32_t frame_list[UHCI_FRAMES];
	struct uhci_qh qh[UHCI_QH_POOL];
	struct uhci_td td[UHCI_TD_POOL];
	struct usb_setup setup __attribute__((aligned(16)));
} __attribute__((aligned(UHCI_FRAME_LIST_ALIGN)));

struct uhci {
	struct usb_hc hc;
	struct pci_dev *pci;
	uint16_t io;                   /* BAR4 base */
	uint32_t io_size;
	struct uhci_dma *dma;
	struct uhci_qh *skel[UHCI_INTR_LEVELS];
	struct uhci_qh *ctrl_qh, *bulk_qh;
	struct uhci_xfer ctrl, bulk;
	struct uhci_pipe_slot pipes[UHCI_MAX_PIPES];
	bool irq_ok;                   /* request_irq succeeded */
	bool running;
	/* Root ports. */
	struct timer port_timer;
	struct work port_work;
	struct work reset_work;
	struct timer wake_timer;
	volatile uint32_t port_pending; /* bit n: port n changed, usb_port_changed not yet called */
	volatile uint32_t port_resetting;
	/* Statistics. */
	uint64_t irqs_handled;         /* handler calls that found our status bits */
	uint64_t irqs_none;            /* handler calls that did not (shared line, or a poll) */
	uint64_t transfers, errors, timeouts, unplugged;
	uint32_t hse_reports;
	uint16_t last_sts;             /* USBSTS at the last handler call that claimed */
	/* Several CPUs (top of file). */
	spinlock_t lock;               /* the handler against the thread side */
	uint32_t waiter_cpu;           /* the CPU in wait_xfer; written and read under lock */
};

static struct uhci uhcis[UHCI_MAX_CONTROLLERS];
static unsigned int nr_uhcis;

/* ---- register access -------------------------------------------------------------------------- */

static uint16_t rd16(const struct uhci *u, unsigned int reg) { return inw((uint16_t)(u->io + reg)); }
static void wr16(const struct uhci *u, unsigned int reg, uint16_t v) { outw((uint16_t)(u->io + reg), v); }
static void wr32(const struct uhci *u, unsigned int reg, uint32_t v) { outl((uint16_t)(u->io + reg), v); }

static uint16_t portsc(const struct uhci *u, unsigned int port)
{
	return rd16(u, UHCI_PORTSC0 + 2 * port);
}

/* port_write - set PORTSC to @keep (its R/W bits) plus @w1c (write-1-to-clear bits to clear). */
static void port_write(const struct uhci *u, unsigned int port, uint16_t keep, uint16_t w1c)
{
	wr16(u, UHCI_PORTSC0 + 2 * port, (uint16_t)((keep & UHCI_PORT_RW) | (w1c & UHCI_PORT_W1C)));
}

static uint32_t qh_link(const struct uhci_qh *qh)
{
	return uhci_phys(qh) | UHCI_LINK_QH;
}

static struct uhci *to_uhci(struct usb_hc *hc)
{
	return hc ? (struct uhci *)hc->priv : NULL;
}

static unsigned long uhci_lock(struct uhci *u)
{
	unsigned long flags = irq_save_flags();

	spin_lock(&u->lock);
	return flags;
}

static void uhci_unlock(struct uhci *u, unsigned long flags)
{
	spin_unlock(&u->lock);
	irq_restore_flags(flags);
}

/* ---- pools -------------------------------------------------------------------------------------- */

static struct uhci_td *td_alloc(struct uhci *u)
{
	for (unsigned int i = 0; i < UHCI_TD_POOL; i++) {
		struct uhci_td *td = &u->dma->td[i];

		if (!(td->flags & UHCI_TDF_USED)) {
			memset(td, 0, sizeof(*td));
			td->flags = UHCI_TDF_USED;
			td->link = UHCI_LINK_TERMINATE;
			return td;
		}
	}
	return NULL;
}

static void td_free_chain(struct uhci_td *td)
{
	for (unsigned int n = 0; td && n < UHCI_TD_POOL; n++) {
		struct uhci_td *next = td->next;

		td->ctrl = 0;
		td->flags = 0;
		td->next = NULL;
		td = next;
	}
}

static struct uhci_qh *qh_alloc(struct uhci *u)
{
	for (unsigned int i = 0; i < UHCI_QH_POOL; i++) {
		struct uhci_qh *qh = &u->dma->qh[i];

		if (!qh->in_use) {
			qh->in_use = 1;
			qh->owner = NULL;
			qh->link = UHCI_LINK_TERMINATE;
			qh->element = UHCI_LINK_TERMINATE;
			return qh;
		}
	}
	return NULL;
}

/* ---- TDs ------------------------------------------------------------------------------------- */

static void pipe_arm(struct uhci_pipe_slot *s)
{
	struct usb_intr_pipe *p = s->pipe;
	struct usb_device *dev = p->dev;
	unsigned int num = p->ep->address & 0xF;
	unsigned int len = p->len < p->ep->max_packet ? p->len : p->ep->max_packet;
	bool toggle = dev->toggle[1] & (1u << num);

	uhci_td_fill(s->td, dev, UHCI_PID_IN, num, toggle, p->buf, len, true);
	s->td->ctrl |= UHCI_TD_IOC;
	s->qh->element = uhci_phys(s->td);
}

static void pipe_unlink(struct uhci *u, struct uhci_pipe_slot *s);

static void scan_pipe(struct uhci *u, struct uhci_pipe_slot *s)
{
	struct usb_intr_pipe *p = s->pipe;
	uint32_t ctrl = s->td->ctrl;
	unsigned int num, actual;
	int status;
	bool again;

	if (!p || !p->running)
		return;
	if (p->dev->gone) {
		s->td->ctrl &= ~UHCI_TD_ACTIVE;
		s->qh->element = UHCI_LINK_TERMINATE;
		p->running = false;
		p->complete(p, -ENODEV, 0);
		pipe_unlink(u, s);
		return;
	}
	if (ctrl & UHCI_TD_ACTIVE)
		return;
	s->qh->element = UHCI_LINK_TERMINATE;
	num = p->ep->address & 0xF;
	status = uhci_td_error(ctrl);
	actual = status ? 0 : uhci_td_actual(ctrl);
	if (actual > s->td->len)
		actual = s->td->len;
	if (!status)
		p->dev->toggle[1] ^= (uint16_t)(1u << num);
	again = p->complete(p, status, actual);
	if (again && p->running && s->pipe == p)
		pipe_arm(s);
	else if (s->pipe == p) {
		p->running = false;
		pipe_unlink(u, s);
	}
}

static void uhci_scan(struct uhci *u)
{
	uhci_scan_xfer(&u->ctrl);
	uhci_scan_xfer(&u->bulk);
	for (unsigned int i = 0; i < UHCI_MAX_PIPES; i++)
		if (u->pipes[i].pipe)
			scan_pipe(u, &u->pipes[i]);
}

/* fail_all - the controller stopped: end every transfer and pipe with @err. */
static void fail_all(struct uhci *u, int err)
{
	if (u->ctrl.busy && !u->ctrl.done)
		uhci_xfer_finish(&u->ctrl, err);
	if (u->bulk.busy && !u->bulk.done)
		uhci_xfer_finish(&u->bulk, err);
	for (unsigned int i = 0; i < UHCI_MAX_PIPES; i++) {
		struct uhci_pipe_slot *s = &u->pipes[i];
		struct usb_intr_pipe *p = s->pipe;

		if (!p || !p->running)
			continue;
		p->running = false;
		s->qh->element = UHCI_LINK_TERMINATE;
		p->complete(p, err, 0);
		pipe_unlink(u, s);
	}
}

static irqreturn_t uhci_interrupt(unsigned int irq, void *dev_id)
{
	struct usb_hc *hc = dev_id;
	struct uhci *u = to_uhci(hc);
	uint16_t sts;

	(void)irq;
	if (!u || !u->running) {
		if (u)
			u->irqs_none++;
		return IRQ_NONE;
	}
	sts = rd16(u, UHCI_USBSTS);
	if (sts == 0xFFFF || !(sts & UHCI_STS_OURS)) {
		u->irqs_none++;             /* another device on the shared line, or a poll with nothing */
		return IRQ_NONE;
	}
	wr16(u, UHCI_USBSTS, sts & UHCI_STS_OURS);
	u->irqs_handled++;
	u->last_sts = sts;
	if (sts & (UHCI_STS_HSE | UHCI_STS_HCPE)) {
		if (u->hse_reports++ < UHCI_HSE_REPORTS)
			pr_err("%s: %s (USBSTS 0x%04x, USBCMD 0x%04x): the controller halted; failing transfers and resetting it\n",
			       hc->name, sts & UHCI_STS_HSE ? "host system error (PCI master/target abort or parity)"
							    : "host controller process error (bad schedule)",
			       sts, rd16(u, UHCI_USBCMD));
		wr16(u, UHCI_USBCMD, 0);
		u->running = false;
		fail_all(u, -EIO);
		work_queue(&u->reset_work);
		return IRQ_HANDLED;
	}
	uhci_scan(u);
	return IRQ_HANDLED;
}

/* The handler request_irq() is given: uhci_interrupt under the controller's lock; a
 * completion on a CPU other than the waiter's wakes it (it would halt until its wake timer). */
static irqreturn_t uhci_hw_interrupt(unsigned int irq, void *dev_id)
{
	struct uhci *u = to_uhci(dev_id);
	unsigned long flags;
	irqreturn_t ret;
	uint32_t waiter;

	if (!u)
		return IRQ_NONE;
	flags = uhci_lock(u);
	ret = uhci_interrupt(irq, dev_id);
	waiter = u->waiter_cpu;
	uhci_unlock(u, flags);
	if (ret == IRQ_HANDLED && waiter != smp_processor_id())
		smp_send_wakeup(waiter);
	return ret;
}

/* ---- waiting ----------------------------------------------------------------------------------- */

static void wake_up(struct timer *t)
{
	(void)t;   /* the timer interrupt itself ends time_idle() */
}

static bool port_connected(const struct uhci *u, unsigned int port)
{
	return port < u->hc.nports && (portsc(u, port) & UHCI_PORT_CCS);
}

/* frame_wait - let the controller finish the frame it is in (it may still read what we unlinked). */
static void frame_wait(struct uhci *u)
{
	uint16_t start = rd16(u, UHCI_FRNUM) & UHCI_FRNUM_MASK;

	if (rd16(u, UHCI_USBSTS) & UHCI_STS_HALTED)
		return;
	for (unsigned int i = 0; i < UHCI_FRAME_WAIT_TRIES; i++) {
		uint16_t now = rd16(u, UHCI_FRNUM) & UHCI_FRNUM_MASK;

		if (((now - start) & UHCI_FRNUM_MASK) >= 2)
			return;
		udelay(UHCI_HCRESET_POLL_US);
	}
}

/*
 * wait_xfer - sleep until @x is done, the device is unplugged, or @timeout_ms
 * passed. Never depends on the interrupt arriving: each interrupt (or poll
 * of the handler by kernel/irq, a timer interrupt) ends time_idle(), and a
 * wake-up timer ends it at least every UHCI_WAIT_RECHECK_MS.
 * RETURNS 0 when the scan finished it, or -ENODEV / -ETIMEDOUT (taken off).
 */
static int wait_xfer(struct uhci *u, struct uhci_xfer *x, uint32_t timeout_ms)
{
	uint64_t deadline = ktime_get_ns() + (uint64_t)timeout_ms * NS_PER_MS;
	unsigned long flags = uhci_lock(u);
	int err = 0;

	while (!x->done) {
		uint64_t now = ktime_get_ns(), wake;

		if (x->dev->gone || !port_connected(u, x->dev->port) || !u->running) {
			err = u->running ? -ENODEV : -EIO;
			break;
		}
		if (now >= deadline) {
			err = -ETIMEDOUT;
			break;
		}
		wake = now + (uint64_t)UHCI_WAIT_RECHECK_MS * NS_PER_MS;
		if (wake > deadline)
			wake = deadline;
		timer_mod(&u->wake_timer, wake, 0);
		u->waiter_cpu = smp_processor_id();
		/* Let the handler in on another CPU while we halt; a wake-up IPI sent before the
		 * hlt stays requested (interrupts are off) and ends the hlt at once. */
		spin_unlock(&u->lock);
		time_idle();           /* sti; hlt; returns with interrupts disabled again */
		spin_lock(&u->lock);
	}
	if (err) {
		uhci_xfer_cancel(x);
		/* Ended here: the scan (on any CPU) leaves it alone from now on, while finish_sync
		 * frees its TDs without the lock. The error, not x->status, is the result. */
		x->done = true;
	}
	uhci_unlock(u, flags);
	timer_cancel(&u->wake_timer);
	if (err) {
		frame_wait(u);
		uhci_recount(x);
		if (err == -ENODEV)
			u->unplugged++;
	}
	return err;
}

/* finish_sync - common end of control and bulk: toggles, statistics, time-out handling. */
static int finish_sync(struct uhci *u, struct uhci_xfer *x, int err, const char *what, unsigned int ep,
		       bool toggle_kept)
{
	struct usb_device *dev = x->dev;
	int ret;

	if (toggle_kept && x->toggle_valid) {
		uint16_t bit = (uint16_t)(1u << ep);

		if (x->last_toggle)
			dev->toggle[x->in] &= (uint16_t)~bit;   /* next one is DATA0 */
		else
			dev->toggle[x->in] |= bit;
	}
	ret = err ? err : (x->status ? x->status : (int)x->actual);
	if (ret < 0 && ret != -ENODEV && (dev->gone || !port_connected(u, dev->port))) {
		/* The wire error was the device leaving (QEMU fails the TD with a time-out). */
		u->unplugged++;
		ret = -ENODEV;
	}
	if (err == -ETIMEDOUT) {
		u->timeouts++;
		pr_warn("%s: %s to device %u endpoint %u timed out (%u bytes moved%s)%s%u\n", u->hc.name, what,
			dev->address, ep, (unsigned int)x->actual,
			x->finished_unseen ? ", every TD had completed: its interrupt was lost" : "",
			irq_defences_active() ? "; watching IRQ " : "; no defences (noirqdebug) to check IRQ ",
			u->hc.irq);
		/* Issue 7 / the 2010 patch: a time-out may be a lost interrupt; let the core check. */
		if (u->irq_ok)
			watch_irq(u->hc.irq, &u->hc);
	}
	if (!err && x->status && x->err_ctrl)
		pr_debug("%s: %s TD of device %u failed (%s), status 0x%02x\n", u->hc.name,
			 x->err_pid == UHCI_PID_SETUP ? "SETUP" : x->err_pid == UHCI_PID_IN ? "IN" : "OUT", dev->address,
			 uhci_td_error_name(x->err_ctrl), (unsigned int)(x->err_ctrl >> 16) & 0xFF);
	if (ret < 0 && ret != -EPIPE)
		u->errors++;
	u->transfers++;
	td_free_chain(x->first);
	x->first = x->next_check = x->status_td = NULL;
	x->busy = false;
	return ret;
}

/* start_xfer - put the chain on @qh. The controller's lock around the publication. */
static void start_xfer(struct uhci *u, struct uhci_xfer *x, struct uhci_qh *qh, struct usb_device *dev,
		       struct uhci_td *first, struct uhci_td *status_td, bool in)
{
	unsigned long flags = uhci_lock(u);

	x->dev = dev;
	x->qh = qh;
	x->first = x->next_check = first;
	x->status_td = status_td;
	x->in = in;
	x->done = false;
	x->status = 0;
	x->actual = 0;
	x->toggle_valid = false;
	x->err_ctrl = 0;
	x->err_pid = 0;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* TDs complete in memory before the controller may see them */
	qh->element = uhci_phys(first);
	uhci_unlock(u, flags);
}

/* ---- control and bulk ------------------------------------------------------------------------- */

static int uhci_control(struct usb_hc *hc, struct usb_device *dev, const struct usb_setup *setup, void *data,
			uint32_t timeout_ms)
{
	struct uhci *u = to_uhci(hc);
	struct uhci_xfer *x;
	struct uhci_td *first, *prev, *status_td;
	bool in = setup->request_type & USB_DIR_IN, toggle = true;
	unsigned int mp = dev->desc.max_packet0 ? dev->desc.max_packet0 : USB_EP0_MAXPACKET_DEFAULT;
	unsigned int len = setup->length, done = 0;
	int err;

	if (!u || !u->running)
		return -EIO;
	if (len && !data)
		return -EINVAL;
	x = &u->ctrl;
	if (x->busy)
		return -EBUSY;
	x->busy = true;
	u->dma->setup = *setup;
	first = td_alloc(u);
	if (!first)
		goto nomem;
	uhci_td_fill(first, dev, UHCI_PID_SETUP, 0, false, &u->dma->setup, sizeof(*setup), false);
	x->first = first;          /* so that td_free_chain finds what was built on failure */
	prev = first;
	while (done < len) {
		unsigned int n = len - done < mp ? len - done : mp;
		struct uhci_td *td = td_alloc(u);

		if (!td)
			goto nomem;
		uhci_td_fill(td, dev, in ? UHCI_PID_IN : UHCI_PID_OUT, 0, toggle, (uint8_t *)data + done, n, true);
		uhci_td_chain(prev, td);
		prev = td;
		toggle = !toggle;
		done += n;
	}
	status_td = td_alloc(u);
	if (!status_td)
		goto nomem;
	/* STATUS: the other direction (IN when there is no data), always DATA1, zero length. */
	uhci_td_fill(status_td, dev, (in && len) ? UHCI_PID_OUT : UHCI_PID_IN, 0, true, NULL, 0, false);
	status_td->ctrl |= UHCI_TD_IOC;
	uhci_td_chain(prev, status_td);
	start_xfer(u, x, u->ctrl_qh, dev, first, status_td, in);
	err = wait_xfer(u, x, timeout_ms);
	return finish_sync(u, x, err, "control transfer", 0, false);
nomem:
	pr_warn("%s: no transfer descriptors left for a control transfer of %u bytes\n", hc->name, len);
	td_free_chain(x->first);
	x->first = NULL;
	x->busy = false;
	return -ENOMEM;
}

/* bulk_piece - up to UHCI_BULK_CHUNK_TDS packets of one bulk transfer. RETURNS bytes or an error. */
static int bulk_piece(struct uhci *u, struct usb_device *dev, const struct usb_endpoint *ep, uint8_t *buf,
		      uint32_t len, uint32_t timeout_ms)
{
	struct uhci_xfer *x = &u->bulk;
	bool in = ep->address & USB_DIR_IN;
	unsigned int num = ep->address & 0xF, mp = ep->max_packet, done = 0;
	bool toggle = dev->toggle[in] & (1u << num);
	struct uhci_td *first = NULL, *prev = NULL;
	int err;

	x->busy = true;
	x->first = NULL;
	/* A zero-length transfer still sends one (empty) packet. */
	for (unsigned int n = 0; n < UHCI_BULK_CHUNK_TDS && (done < len || !first); n++) {
		unsigned int size = len - done < mp ? len - done : mp;
		struct uhci_td *td = td_alloc(u);

		if (!td) {
			pr_warn("%s: no transfer descriptors left for a bulk transfer\n", u->hc.name);
			td_free_chain(first);
			x->busy = false;
			return -ENOMEM;
		}
		uhci_td_fill(td, dev, in ? UHCI_PID_IN : UHCI_PID_OUT, num, toggle, buf + done, size, true);
		if (prev)
			uhci_td_chain_breadth(prev, td);
		else
			first = x->first = td;
		prev = td;
		toggle = !toggle;
		done += size;
	}
	prev->ctrl |= UHCI_TD_IOC;
	/* Reclamation: while this piece runs the bulk QH links back to the control QH, so the
	 * controller keeps taking one TD per visit until the frame's bandwidth is used up or a pass
	 * moves nothing (both emulators stop a loop that did no work; a real UHCI runs it to the
	 * end of the frame). Taken out again at the end: an idle loop only costs bus cycles. */
	u->bulk_qh->link = qh_link(u->ctrl_qh);
	start_xfer(u, x, u->bulk_qh, dev, first, NULL, in);
	err = wait_xfer(u, x, timeout_ms);
	u->bulk_qh->link = UHCI_LINK_TERMINATE;
	return finish_sync(u, x, err, "bulk transfer", num, true);
}

static int uhci_bulk(struct usb_hc *hc, struct usb_device *dev, const struct usb_endpoint *ep, void *buf,
		     uint32_t len, uint32_t timeout_ms)
{
	struct uhci *u = to_uhci(hc);
	uint64_t deadline = ktime_get_ns() + (uint64_t)timeout_ms * NS_PER_MS;
	uint32_t done = 0;
	uint32_t piece_max;

	if (!u || !u->running)
		return -EIO;
	if (!ep || ep->type != USB_EP_BULK || ep->max_packet == 0 || (len && !buf))
		return -EINVAL;
	if (u->bulk.busy)
		return -EBUSY;
	piece_max = (uint32_t)ep->max_packet * UHCI_BULK_CHUNK_TDS;
	do {
		uint32_t want = len - done < piece_max ? len - done : piece_max;
		uint64_t now = ktime_get_ns();
		uint32_t left_ms = now >= deadline ? 0 : (uint32_t)((deadline - now + NS_PER_MS - 1) / NS_PER_MS);
		int n;

		n = bulk_piece(u, dev, ep, (uint8_t *)buf + done, want, left_ms ? left_ms : 1);
		if (n < 0)
			return n;
		done += (uint32_t)n;
		if ((uint32_t)n < want)
			break;               /* short packet: the device has no more */
	} while (done < len);
	return (int)done;
}

/* ---- interrupt pipes -------------------------------------------------------------------------- */

static void pipe_unlink(struct uhci *u, struct uhci_pipe_slot *s)
{
	struct uhci_qh *prev = s->skel;
	uint32_t want;

	(void)u;
	if (!s->pipe)
		return;                /* already unlinked (killed from its own completion) */
	want = qh_link(s->qh);

	/* Walk the skeleton's chain to the QH before ours (bounded by the pool). */
	for (unsigned int n = 0; n < UHCI_QH_POOL; n++) {
		if (prev->link == want) {
			prev->link = s->qh->link;
			break;
		}
		if (prev->link & UHCI_LINK_TERMINATE)
			break;
		prev = (struct uhci_qh *)(uintptr_t)(prev->link & UHCI_LINK_PTR_MASK);
	}
	s->pipe->hc_private = NULL;
	s->pipe = NULL;
	/* The QH and TD go back to the pools once the controller is past this frame:
	 * intr_start waits for that before it takes them again (see reclaim). */
}

/* reclaim - free the QH/TD of slots unlinked at least one frame ago. Process context. */
static void reclaim(struct uhci *u)
{
	bool any = false;

	for (unsigned int i = 0; i < UHCI_MAX_PIPES; i++)
		if (!u->pipes[i].pipe && u->pipes[i].qh)
			any = true;
	if (!any)
		return;
	frame_wait(u);
	for (unsigned int i = 0; i < UHCI_MAX_PIPES; i++) {
		struct uhci_pipe_slot *s = &u->pipes[i];
		unsigned long flags = uhci_lock(u);

		if (!s->pipe && s->qh) {
			s->qh->in_use = 0;
			s->qh->owner = NULL;
			td_free_chain(s->td);
			s->qh = NULL;
			s->td = NULL;
		}
		uhci_unlock(u, flags);
	}
}

static int uhci_intr_start(struct usb_hc *hc, struct usb_intr_pipe *pipe)
{
	struct uhci *u = to_uhci(hc);
	struct uhci_pipe_slot *s = NULL;
	unsigned long flags;

	if (!u || !u->running)
		return -EIO;
	if (!pipe || !pipe->ep || !pipe->buf || !pipe->len || !pipe->complete || pipe->ep->type != USB_EP_INTERRUPT ||
	    !(pipe->ep->address & USB_DIR_IN))
		return -EINVAL;
	if (pipe->running)
		return -EBUSY;
	reclaim(u);
	flags = uhci_lock(u);
	for (unsigned int i = 0; i < UHCI_MAX_PIPES; i++)
		if (!u->pipes[i].pipe && !u->pipes[i].qh) {
			s = &u->pipes[i];
			break;
		}
	if (s) {
		s->qh = qh_alloc(u);
		s->td = s->qh ? td_alloc(u) : NULL;
	}
	if (!s || !s->qh || !s->td) {
		if (s && s->qh) {
			s->qh->in_use = 0;
			s->qh = NULL;
		}
		uhci_unlock(u, flags);
		pr_warn("%s: no room for another interrupt pipe\n", hc->name);
		return -ENOMEM;
	}
	s->pipe = pipe;
	s->qh->owner = s;
	s->skel = u->skel[uhci_interval_level(pipe->ep->interval)];
	pipe->hc_private = s;
	pipe->running = true;
	pipe_arm(s);
	s->qh->link = s->skel->link;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	s->skel->link = qh_link(s->qh);
	uhci_unlock(u, flags);
	return 0;
}

static void uhci_intr_stop(struct usb_hc *hc, struct usb_intr_pipe *pipe)
{
	struct uhci *u = to_uhci(hc);
	unsigned long flags;
	struct uhci_pipe_slot *s;

	if (!u || !pipe)
		return;
	flags = uhci_lock(u);
	s = pipe->hc_private;
	if (s && s->pipe == pipe) {
		s->td->ctrl &= ~UHCI_TD_ACTIVE;
		s->qh->element = UHCI_LINK_TERMINATE;
		pipe->running = false;
		pipe_unlink(u, s);
	}
	pipe->running = false;
	uhci_unlock(u, flags);
}

/* ---- root ports ------------------------------------------------------------------------------- */

static int uhci_port_reset(struct usb_hc *hc, unsigned int port, enum usb_speed *speed)
{
	struct uhci *u = to_uhci(hc);
	uint16_t sc;
	int err = -EIO;

	if (!u || port >= hc->nports)
		return -EINVAL;
	if (!port_connected(u, port))
		return -ENODEV;
	__atomic_or_fetch(&u->port_resetting, 1u << port, __ATOMIC_SEQ_CST);
	sc = portsc(u, port);
	port_write(u, port, (uint16_t)((sc & ~UHCI_PORT_PED) | UHCI_PORT_PR), 0);
	msleep(UHCI_PORT_RESET_MS);
	sc = portsc(u, port);
	port_write(u, port, (uint16_t)(sc & ~UHCI_PORT_PR), 0);
	udelay(50);
	for (unsigned int i = 0; i < UHCI_PORT_ENABLE_TRIES; i++) {
		sc = portsc(u, port);
		if (!(sc & UHCI_PORT_CCS)) {
			err = -ENODEV;
			break;
		}
		if (sc & UHCI_PORT_PED) {
			err = 0;
			break;
		}
		/* Clear the change bits the reset left, and enable. */
		port_write(u, port, (uint16_t)(sc | UHCI_PORT_PED), UHCI_PORT_CSC | UHCI_PORT_PEDC);
		msleep(1);
	}
	sc = portsc(u, port);
	port_write(u, port, sc, UHCI_PORT_CSC | UHCI_PORT_PEDC);
	__atomic_and_fetch(&u->port_pending, ~(1u << port), __ATOMIC_SEQ_CST);
	__atomic_and_fetch(&u->port_resetting, ~(1u << port), __ATOMIC_SEQ_CST);
	if (err) {
		pr_warn("%s: port %u: %s after reset (PORTSC 0x%04x)\n", hc->name, port + 1,
			err == -ENODEV ? "device gone" : "will not enable", sc);
		return err;
	}
	*speed = (sc & UHCI_PORT_LSDA) ? USB_SPEED_LOW : USB_SPEED_FULL;
	msleep(UHCI_PORT_RECOVERY_MS);
	return 0;
}

static void uhci_port_disable(struct usb_hc *hc, unsigned int port)
{
	struct uhci *u = to_uhci(hc);

	if (!u || port >= hc->nports)
		return;
	port_write(u, port, (uint16_t)(portsc(u, port) & ~UHCI_PORT_PED), 0);
}

/* port_check - the root-port timer (interrupt context): note connect changes, queue the work. */
static void port_check(struct timer *t)
{
	struct uhci *u = t->arg;
	bool changed = false;

	for (unsigned int p = 0; p < u->hc.nports; p++) {
		uint16_t sc = portsc(u, p);

		if (sc == 0xFFFF || !(sc & (UHCI_PORT_CSC | UHCI_PORT_PEDC)))
			continue;
		if (u->port_resetting & (1u << p))
			continue;            /* port_reset clears what its own reset changes */
		port_write(u, p, sc, sc & (UHCI_PORT_CSC | UHCI_PORT_PEDC));
		if (sc & UHCI_PORT_CSC) {
			__atomic_or_fetch(&u->port_pending, 1u << p, __ATOMIC_SEQ_CST);
			changed = true;
		}
	}
	if (changed)
		work_queue(&u->port_work);
	timer_mod(t, ktime_get_ns() + (uint64_t)UHCI_PORT_POLL_MS * NS_PER_MS, (uint64_t)UHCI_PORT_POLL_MS * NS_PER_MS / 4);
}

/* port_work_fn - process context: tell the core which ports changed (reads the state now). */
static void port_work_fn(struct work *w)
{
	struct uhci *u = w->arg;

	for (unsigned int p = 0; p < u->hc.nports; p++) {
		if (!(__atomic_fetch_and(&u->port_pending, ~(1u << p), __ATOMIC_SEQ_CST) & (1u << p)))
			continue;
		usb_port_changed(&u->hc, p, port_connected(u, p));
	}
}

/* ---- bring-up ---------------------------------------------------------------------------------- */

static bool wait_halted(struct uhci *u, bool halted)
{
	for (unsigned int i = 0; i < UHCI_HALT_TRIES; i++) {
		if (!!(rd16(u, UHCI_USBSTS) & UHCI_STS_HALTED) == halted)
			return true;
		udelay(UHCI_HCRESET_POLL_US);
	}
	return false;
}

static void build_schedule(struct uhci *u)
{
	struct uhci_dma *d = u->dma;

	memset(d, 0, sizeof(*d));
	for (unsigned int k = 0; k < UHCI_INTR_LEVELS; k++)
		u->skel[k] = qh_alloc(u);
	u->ctrl_qh = qh_alloc(u);
	u->bulk_qh = qh_alloc(u);
	u->bulk_qh->link = UHCI_LINK_TERMINATE;
	u->ctrl_qh->link = qh_link(u->bulk_qh);
	u->skel[0]->link = qh_link(u->ctrl_qh);
	for (unsigned int k = 1; k < UHCI_INTR_LEVELS; k++)
		u->skel[k]->link = qh_link(u->skel[k - 1]);
	for (unsigned int i = 0; i < UHCI_FRAMES; i++) {
		/* Trailing zero bits of i, capped at the top level (frame 0 has all of them). */
		unsigned int k = (unsigned int)__builtin_ctz(i | (1u << (UHCI_INTR_LEVELS - 1)));

		d->frame_list[i] = qh_link(u->skel[k]);
	}
	memset(u->pipes, 0, sizeof(u->pipes));
	memset(&u->ctrl, 0, sizeof(u->ctrl));
	memset(&u->bulk, 0, sizeof(u->bulk));
}

/* hc_reset_start - global reset, HCRESET, schedule, run. RETURNS 0 or -EIO. CONTEXT: process. */
static int hc_reset_start(struct uhci *u)
{
	unsigned long flags;

	wr16(u, UHCI_USBINTR, 0);
	wr16(u, UHCI_USBCMD, 0);
	wait_halted(u, true);
	wr16(u, UHCI_USBCMD, UHCI_CMD_GRESET);
	msleep(UHCI_GRESET_MS);
	wr16(u, UHCI_USBCMD, 0);
	udelay(UHCI_HCRESET_POLL_US);
	wr16(u, UHCI_USBCMD, UHCI_CMD_HCRESET);
	for (unsigned int i = 0; (rd16(u, UHCI_USBCMD) & UHCI_CMD_HCRESET); i++) {
		if (i >= UHCI_HCRESET_TRIES) {
			pr_err("%s: HCRESET did not complete (USBCMD 0x%04x)\n", u->hc.name, rd16(u, UHCI_USBCMD));
			return -EIO;
		}
		udelay(UHCI_HCRESET_POLL_US);
	}
	build_schedule(u);
	wr16(u, UHCI_USBSTS, UHCI_STS_CLEAR_ALL);
	outb((uint16_t)(u->io + UHCI_SOFMOD), UHCI_SOFMOD_DEFAULT);
	wr32(u, UHCI_FRBASEADD, uhci_phys(u->dma->frame_list));
	wr16(u, UHCI_FRNUM, 0);
	wr16(u, UHCI_USBINTR, UHCI_INTR_TOCRC | UHCI_INTR_IOC | UHCI_INTR_SP);
	wr16(u, UHCI_USBCMD, UHCI_CMD_RS | UHCI_CMD_CF | UHCI_CMD_MAXP);
	if (!wait_halted(u, false)) {
		pr_err("%s: the controller does not start (USBSTS 0x%04x)\n", u->hc.name, rd16(u, UHCI_USBSTS));
		return -EIO;
	}
	/* The handler reads running under the lock: the schedule built above is published with it. */
	flags = uhci_lock(u);
	u->running = true;
	uhci_unlock(u, flags);
	return 0;
}

static unsigned int count_ports(struct uhci *u)
{
	unsigned int n = 0;

	while (n < UHCI_MAX_PORTS && UHCI_PORTSC0 + 2 * (n + 1) <= u->io_size) {
		uint16_t sc = portsc(u, n);

		/* Bit 7 always reads 1 on a real port; all ones is no register at all. */
		if (sc == 0xFFFF || !(sc & UHCI_PORT_VALID))
			break;
		n++;
	}
	return n;
}

/* reset_work_fn - after a host system/process error: reset, restart, enumerate again. */
static void reset_work_fn(struct work *w)
{
	struct uhci *u = w->arg;

	for (unsigned int p = 0; p < u->hc.nports; p++)
		usb_port_changed(&u->hc, p, false);
	if (hc_reset_start(u)) {
		pr_err("%s: reset after a controller error failed; the controller stays off\n", u->hc.name);
		return;
	}
	pr_warn("%s: controller reset after an error; ports are enumerated again\n", u->hc.name);
	for (unsigned int p = 0; p < u->hc.nports; p++)
		if (port_connected(u, p))
			__atomic_or_fetch(&u->port_pending, 1u << p, __ATOMIC_SEQ_CST);
	work_queue(&u->port_work);
}

static void uhci_show(struct usb_hc *hc);

static unsigned long uhci_hc_lock(struct usb_hc *hc)
{
	return uhci_lock(to_uhci(hc));
}

static void uhci_hc_unlock(struct usb_hc *hc, unsigned long flags)
{
	uhci_unlock(to_uhci(hc), flags);
}

/*
 * Each transfer between "uhci_xfer" begin and end events of the event trace
 * (kernel/irq/trace.h; docs/trace.md): value = the length asked for at the
 * begin (bit 16: bulk), the bytes moved or 0xFFFFFF on an error at the end.
 */
#define UHCI_TRACE_BULK 0x10000u
#define UHCI_TRACE_ERROR 0xFFFFFFu

static unsigned int uhci_trace_tag(void)
{
	static unsigned int tag;

	if (!tag && irq_trace_enabled())
		tag = irq_trace_tag("uhci_xfer");
	return tag;
}

static int uhci_control_traced(struct usb_hc *hc, struct usb_device *dev, const struct usb_setup *setup, void *data,
			       uint32_t timeout_ms)
{
	unsigned int tag = uhci_trace_tag();
	int r;

	irq_trace_drv(tag, hc->irq, IRQ_TDRV_BEGIN, setup->length);
	r = uhci_control(hc, dev, setup, data, timeout_ms);
	irq_trace_drv(tag, hc->irq, IRQ_TDRV_END, r < 0 ? UHCI_TRACE_ERROR : (uint32_t)r);
	return r;
}

static int uhci_bulk_traced(struct usb_hc *hc, struct usb_device *dev, const struct usb_endpoint *ep, void *buf,
			    uint32_t len, uint32_t timeout_ms)
{
	unsigned int tag = uhci_trace_tag();
	int r;

	irq_trace_drv(tag, hc->irq, IRQ_TDRV_BEGIN, UHCI_TRACE_BULK | (len & 0xFFFFu));
	r = uhci_bulk(hc, dev, ep, buf, len, timeout_ms);
	irq_trace_drv(tag, hc->irq, IRQ_TDRV_END, r < 0 ? UHCI_TRACE_ERROR : (uint32_t)r);
	return r;
}

static const struct usb_hc_ops uhci_ops = {
	.control = uhci_control_traced,
	.bulk = uhci_bulk_traced,
	.intr_start = uhci_intr_start,
	.intr_stop = uhci_intr_stop,
	.port_reset = uhci_port_reset,
	.port_disable = uhci_port_disable,
	.show = uhci_show,
	.lock = uhci_hc_lock,
	.unlock = uhci_hc_unlock,
};

static int take_interrupt(struct uhci *u)
{
	struct pci_dev *d = u->pci;
	int line, err;

	if (d->irq_pin == 0 || d->route.source == PCI_ROUTE_NONE) {
		pr_warn("%s: interrupt pin not routed; the controller is not used\n", u->hc.name);
		return -ENOENT;
	}
	line = x86_setup_pci_line(d->route.line, d->route.level, d->route.active_low);
	if (line < 0) {
		pr_warn("%s: line for %s %u: %s\n", u->hc.name, d->route.is_gsi ? "GSI" : "IRQ", d->route.line,
			errno_name(line));
		return line;
	}
	u->hc.irq = (unsigned int)line;
	err = request_irq(u->hc.irq, uhci_hw_interrupt, IRQF_SHARED, u->hc.name, &u->hc);
	if (err) {
		pr_warn("%s: request_irq(%u): %s\n", u->hc.name, u->hc.irq, errno_name(err));
		return err;
	}
	u->irq_ok = true;
	/* As usb_add_hcd() in the 2010 patch: a controller whose interrupt may be misrouted is
	 * watched from the start; the transfers below complete through polls if need be. */
	watch_irq(u->hc.irq, &u->hc);
	return 0;
}

static int probe_one(struct pci_dev *d)
{
	struct uhci *u = &uhcis[nr_uhcis];
	const struct pci_bar *bar = &d->bar[UHCI_PCI_BAR_IO];
	int err;

	memset(u, 0, sizeof(*u));
	spin_lock_init(&u->lock);
	u->hc.name[0] = 'u'; u->hc.name[1] = 'h'; u->hc.name[2] = 'c'; u->hc.name[3] = 'i';
	u->hc.name[4] = (char)('0' + nr_uhcis);
	u->hc.ops = &uhci_ops;
	u->hc.priv = u;
	u->hc.pci = d;
	u->pci = d;
	if (!(bar->flags & PCI_BAR_IO) || bar->base == 0 || bar->base > 0xFFFF - UHCI_IO_MIN_SIZE ||
	    bar->size < UHCI_IO_MIN_SIZE) {
		pr_warn("%s: %02x:%02x.%u: BAR4 is no usable I/O range (base %#llx size %llu)\n", u->hc.name, d->bus,
			d->dev, d->fn, (unsigned long long)bar->base, (unsigned long long)bar->size);
		return -ENODEV;
	}
	u->io = (uint16_t)bar->base;
	u->io_size = bar->size > 0x20 ? 0x20 : (uint32_t)bar->size;
	err = pci_enable(d, PCI_ENABLE_IO | PCI_ENABLE_MASTER);
	if (err)
		return err;
	/* Take it from the BIOS: no SMIs, no keyboard emulation traps, status cleared (PIIX4 11.1.5). */
	pci_write16(d, UHCI_PCI_LEGSUP, UHCI_LEGSUP_TAKEOVER);
	if (rd16(u, UHCI_USBCMD) == 0xFFFF) {
		pr_warn("%s: registers at %#x read all ones; no controller there\n", u->hc.name, u->io);
		return -ENODEV;
	}
	u->dma = kmalloc_aligned(sizeof(*u->dma), UHCI_FRAME_LIST_ALIGN);
	if (!u->dma)
		return -ENOMEM;
	timer_setup(&u->wake_timer, wake_up, u);
	timer_setup(&u->port_timer, port_check, u);
	work_init(&u->port_work, port_work_fn, u);
	work_init(&u->reset_work, reset_work_fn, u);
	err = hc_reset_start(u);
	if (err)
		goto fail;
	u->hc.nports = count_ports(u);
	err = take_interrupt(u);
	if (err)
		goto fail;
	/* Only now may the interrupt leave on PIRQD (LEGSUP bit 13). */
	pci_write16(d, UHCI_PCI_LEGSUP, UHCI_LEGSUP_PIRQ_EN);
	err = usb_hc_register(&u->hc);
	if (err)
		goto fail;
	pr_info("%s: %02x:%02x.%u %04x:%04x UHCI at I/O %#x, %s %u, %u root ports, frame list at %#x\n",
		u->hc.name, d->bus, d->dev, d->fn, d->vendor_id, d->device_id, u->io,
		x86_irq_mode() == X86_IRQ_MODE_IOAPIC ? "GSI" : "IRQ", u->hc.irq, u->hc.nports,
		uhci_phys(u->dma->frame_list));
	for (unsigned int p = 0; p < u->hc.nports; p++)
		if (port_connected(u, p))
			__atomic_or_fetch(&u->port_pending, 1u << p, __ATOMIC_SEQ_CST);
	if (u->port_pending)
		work_queue(&u->port_work);
	timer_mod(&u->port_timer, ktime_get_ns() + (uint64_t)UHCI_PORT_POLL_MS * NS_PER_MS, 0);
	nr_uhcis++;
	return 0;
fail:
	wr16(u, UHCI_USBINTR, 0);
	wr16(u, UHCI_USBCMD, 0);
	u->running = false;
	if (u->irq_ok)
		free_irq(u->hc.irq, &u->hc);
	wait_halted(u, true);
	kfree(u->dma);
	u->dma = NULL;
	pr_warn("%s: not used: %s\n", u->hc.name, errno_name(err));
	return err;
}

int uhci_init(void)
{
	struct pci_dev *d = NULL;
	unsigned int seen = 0;

	while ((d = pci_find_class(PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, PCI_PROGIF_UHCI, d)) != NULL) {
		seen++;
		if (nr_uhcis >= UHCI_MAX_CONTROLLERS) {
			pr_warn("uhci: %02x:%02x.%u ignored: irqkit drives at most %u controllers\n", d->bus, d->dev,
				d->fn, UHCI_MAX_CONTROLLERS);
			continue;
		}
		probe_one(d);
	}
	if (!seen)
		pr_info("uhci: no UHCI controller (QEMU: -usb on pc, or -device piix3-usb-uhci / ich9-usb-uhci1)\n");
	return (int)nr_uhcis;
}

/* ---- lsusb ---------------------------------------------------------------------------------------- */

static void uhci_show(struct usb_hc *hc)
{
	struct uhci *u = to_uhci(hc);

	if (!u)
		return;
	cprintf("%s: %02x:%02x.%u I/O %#x, line %u%s, USBCMD 0x%04x USBSTS 0x%04x frame %u, %s\n", hc->name,
		u->pci->bus, u->pci->dev, u->pci->fn, u->io, hc->irq, u->irq_ok ? "" : " (not requested)",
		rd16(u, UHCI_USBCMD), rd16(u, UHCI_USBSTS), rd16(u, UHCI_FRNUM) & UHCI_FRNUM_MASK,
		u->running ? "running" : "stopped");
	cprintf("  handler: %llu interrupts claimed, %llu calls not ours; transfers %llu, errors %llu, time-outs %llu, cut by unplug %llu\n",
		(unsigned long long)u->irqs_handled, (unsigned long long)u->irqs_none, (unsigned long long)u->transfers,
		(unsigned long long)u->errors, (unsigned long long)u->timeouts, (unsigned long long)u->unplugged);
	for (unsigned int p = 0; p < hc->nports; p++) {
		uint16_t sc = portsc(u, p);

		cprintf("  port %u: PORTSC 0x%04x %s%s%s%s\n", p + 1, sc, sc & UHCI_PORT_CCS ? "connected" : "empty",
			sc & UHCI_PORT_PED ? ", enabled" : "", (sc & UHCI_PORT_CCS) && (sc & UHCI_PORT_LSDA) ? ", low-speed" : "",
			sc & UHCI_PORT_SUSP ? ", suspended" : "");
	}
}
