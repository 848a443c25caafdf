/*
 * nvme_core.c - the NVMe controller driver: probe, controller reset and
 * enable (NVMe 1.4 section 7.6.1), the admin queue and one I/O queue
 * pair, commands with completion by phase tag (4.6), interrupts by MSI-X
 * per queue with MSI and INTx as fallbacks (drivers/pci/msi.c), and the
 * IRQ expecting of kernel/irq around every command. Rules and formats are
 * in nvme_internal.h; nvme_blk.c makes namespaces block devices;
 * docs/nvme.md tells the story.
 *
 * A command's life (one in flight per queue):
 *   submit (thread, interrupts off): entry at the SQ tail with a fresh
 *     command ID, state WAITING, expect_irq(), SQ tail doorbell.
 *   complete (the queue's interrupt handler, a kernel/irq poll of the
 *     line, or the waiting thread): entries whose phase tag is the current
 *     one are new; the one whose ID is WAITING's completes it (DONE,
 *     unexpect_irq), any other is stray and dropped; the CQ head doorbell
 *     is written once per batch.
 *   wait (thread): idle until DONE; after NVME_IRQ_WAIT_MS look at the CQ
 *     itself (a completion found there is a lost interrupt: reported,
 *     unexpect_irq(timedout) and watch_irq); after the command's time-out
 *     the command is ABANDONED and the controller reset once.
 */
#include "nvme_internal.h"
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/paging.h>
#include <drivers/nvme.h>
#include <drivers/pci_msi.h>
#include <kernel/console.h>
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/heap.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <time/time.h>
#include <irq/trace.h>

#define FOUR_GIB 0x100000000ull
#define CID_INVALID 0xFFFFu       /* never handed out: "no command" */
#define STATUS_TEXT 96
#define REASON_TEXT 128

struct nvme_ctrl nvme_ctrls[NVME_MAX_CONTROLLERS];
unsigned int nvme_ctrl_count;

static const char *bdf_text(const struct pci_dev *d, char *buf, size_t len)
{
	ksnprintf(buf, len, "%02x:%02x.%x", d->bus, d->dev, d->fn);
	return buf;
}

/* ---- Registers ------------------------------------------------------------------------------ */

static uint32_t rd32(const struct nvme_ctrl *c, unsigned int reg) { return mmio_read32(c->regs + reg); }
static void wr32(const struct nvme_ctrl *c, unsigned int reg, uint32_t v) { mmio_write32(c->regs + reg, v); }

static uint64_t rd64(const struct nvme_ctrl *c, unsigned int reg)
{
	/* Two 32-bit reads, low first: the registers read here (CAP) do not change. */
	return (uint64_t)rd32(c, reg) | (uint64_t)rd32(c, reg + 4) << 32;
}

static void wr64(const struct nvme_ctrl *c, unsigned int reg, uint64_t v)
{
	wr32(c, reg, (uint32_t)v);
	wr32(c, reg + 4, (uint32_t)(v >> 32));
}

static void queue_doorbells(struct nvme_ctrl *c, struct nvme_queue *q)
{
	q->sq_doorbell = c->regs + NVME_REG_DOORBELL + (2 * q->qid) * c->dstrd_bytes;
	q->cq_doorbell = c->regs + NVME_REG_DOORBELL + (2 * q->qid + 1) * c->dstrd_bytes;
}

/* ---- Completions ---------------------------------------------------------------------------- */

static const char *queue_kind(const struct nvme_queue *q)
{
	return q->qid ? "I/O" : "admin";
}
/*
 * "nvme_cmd" events of the interrupt core's trace (docs/trace.md) on the queue's line: begin =
 * the opcode, end = the completion status. The name is registered at the first traced submit
 * (thread context); a completion before that records nothing.
 */
static unsigned int nvme_trace_tag;

static void nvme_trace(const struct nvme_queue *q, bool begin, uint32_t value)
{
	if (!irq_trace_enabled() || q->line < 0)
		return;
	if (begin && !nvme_trace_tag)
		nvme_trace_tag = irq_trace_tag("nvme_cmd");
	irq_trace_drv(nvme_trace_tag, (unsigned int)q->line, begin ? IRQ_TDRV_BEGIN : IRQ_TDRV_END, value);
}


/*
 * process_cq - take every new entry of @q's completion queue. @by_wait:
 * the waiting thread looks, no interrupt and no poll found it first.
 * CONTEXT: interrupts off (handler, poll, or thread with irq_save).
 * RETURNS the entries taken.
 */
static unsigned int process_cq(struct nvme_queue *q, bool by_wait)
{
	unsigned int n = 0;

	while (n < q->depth) {
		volatile struct nvme_cqe *e = &q->cq[q->cq_head];
		uint16_t status = e->status;
		uint16_t cid, sq_head;
		uint32_t result;

		if ((status & NVME_CQE_PHASE) != q->phase)
			break;
		/*
		 * The controller writes the entry before (or with) its phase tag,
		 * and x86 keeps loads in order; the compiler must too: the fence
		 * pairs with the device's write order (NVMe 1.4 4.6: the phase
		 * tag marks a new, complete entry).
		 */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		cid = e->cid;
		sq_head = e->sq_head;
		result = e->result;
		n++;
		if (++q->cq_head == q->depth) {
			q->cq_head = 0;
			q->phase ^= NVME_CQE_PHASE;
		}
		if (sq_head < q->depth)
			q->sq_head = sq_head;
		if (q->state == NVME_CMD_WAITING && cid == q->cid) {
			q->status = status & (uint16_t)~NVME_CQE_PHASE;
			q->result = result;
			q->taken_by_wait = by_wait;
			q->done_ns = ktime_get_ns();
			q->state = NVME_CMD_DONE;
			if (by_wait)
				q->by_wait++;
			else
				q->by_irq_or_poll++;
			unexpect_irq(q->expect, by_wait);
			nvme_trace(q, false, q->status);
		} else {
			/* Late after a time-out, duplicated or bogus: never completes anything. */
			if (++q->stray <= NVME_STRAY_REPORT_MAX)
				pr_warn("%s: %s queue %u: completion for command ID 0x%04x, which is not in flight (%s); dropped\n",
					q->ctrl->name, queue_kind(q), q->qid, cid,
					q->state == NVME_CMD_ABANDONED ? "a command that timed out" : "stray or duplicate");
		}
	}
	if (n)
		mmio_write32(q->cq_doorbell, q->cq_head);
	else if (!by_wait && q->state == NVME_CMD_WAITING)
		q->last_look_ns = ktime_get_ns();  /* a look that found nothing: the completion comes after it */
	return n;
}

static irqreturn_t nvme_interrupt(unsigned int irq, void *dev_id)
{
	struct nvme_queue *q = dev_id;

	(void)irq;
	return process_cq(q, false) ? IRQ_HANDLED : IRQ_NONE;
}

/* ---- Submission and waiting ----------------------------------------------------------------- */

/* What keeps @q's interrupts away, as far as the controller and the driver can tell. */
static void lost_reason(const struct nvme_queue *q, char *buf, size_t len)
{
	const struct nvme_ctrl *c = q->ctrl;

	if (!q->cq_irq_enabled)
		ksnprintf(buf, len, "completion queue %u was created with interrupts disabled (IEN=0)", q->qid);
	else if (pci_irq_mode(c->pci) != PCI_IRQ_MODE_MSIX && (rd32(c, NVME_REG_INTMS) & (1u << q->vector)))
		ksnprintf(buf, len, "INTMS masks interrupt vector %u at the controller", q->vector);
	else if (pci_irq_is_msi(c->pci) && pci_msi_diagnose(c->pci, q->vector, buf, len) == 1)
		return;
	else
		ksnprintf(buf, len, "nothing visible at the controller or its %s vector", pci_irq_mode_name(pci_irq_mode(c->pci)));
}

static void report_lost(struct nvme_queue *q, uint64_t waited_ns)
{
	uint64_t now = ktime_get_ns();
	char why[REASON_TEXT];

	if (q->lost_reported >= NVME_LOST_REPORT_BURST &&
	    now - q->last_lost_report_ns < (uint64_t)NVME_LOST_REPORT_INTERVAL_MS * NSEC_PER_MSEC) {
		q->lost_unreported++;
		return;
	}
	lost_reason(q, why, sizeof(why));
	pr_warn("%s: lost interrupt: %s queue %u command 0x%04x completed, but line %d (%s vector %u) did not deliver it in %llu ms; "
		"the driver took it by polling (%llu so far, %llu not reported); reason: %s\n",
		q->ctrl->name, queue_kind(q), q->qid, q->cid, q->line, pci_irq_mode_name(pci_irq_mode(q->ctrl->pci)),
		q->vector, (unsigned long long)(waited_ns / NSEC_PER_MSEC), (unsigned long long)q->by_wait,
		(unsigned long long)q->lost_unreported, why);
	q->lost_reported++;
	q->last_lost_report_ns = now;
	q->lost_unreported = 0;
}

static void wake_up(struct timer *t)
{
	(void)t;   /* the timer interrupt itself ends time_idle() */
}

static struct timer wake_timer[NVME_MAX_CONTROLLERS][3];   /* per queue: admin, I/O, second I/O */

/* wait_done - sleep until @q's command leaves WAITING, or abandon it. RETURNS 0 or -ETIMEDOUT. */
static int wait_done(struct nvme_queue *q, unsigned int timeout_ms)
{
	struct timer *t = &wake_timer[q->ctrl->index % NVME_MAX_CONTROLLERS][q->qid % 3];
	const uint64_t timeout_ns = (uint64_t)timeout_ms * NSEC_PER_MSEC;
	const uint64_t look_ns = (uint64_t)NVME_IRQ_WAIT_MS * NSEC_PER_MSEC;
	unsigned long flags = irq_save_flags();
	uint64_t passes = 0, next_look = q->submit_ns + look_ns;
	int err = 0;

	if (!t->fn)
		timer_setup(t, wake_up, q);
	while (q->state == NVME_CMD_WAITING) {
		uint64_t now = ktime_get_ns(), deadline;

		if (now >= next_look || ++passes > NVME_WAIT_PASSES_MAX || now - q->submit_ns >= timeout_ns) {
			if (process_cq(q, true) && q->state == NVME_CMD_DONE) {
				report_lost(q, now - q->submit_ns);
				q->lost_ns_total += now - q->submit_ns;
				if (now - q->submit_ns > q->lost_ns_max)
					q->lost_ns_max = now - q->submit_ns;
				if (q->irq_requested)
					watch_irq((unsigned int)q->line, q);
				break;
			}
			if (passes > NVME_WAIT_PASSES_MAX || now - q->submit_ns >= timeout_ns) {
				q->state = NVME_CMD_ABANDONED;
				q->timeouts++;
				unexpect_irq(q->expect, true);
				err = -ETIMEDOUT;
				break;
			}
			next_look = now + look_ns;
		}
		deadline = next_look < q->submit_ns + timeout_ns ? next_look : q->submit_ns + timeout_ns;
		if (!timer_pending(t) || t->expires_ns > deadline)
			timer_mod(t, deadline, 0);
		time_idle();     /* sti; hlt; returns with interrupts disabled again */
	}
	irq_restore_flags(flags);
	return err;
}

static const char *opcode_name(const struct nvme_queue *q, uint8_t op)
{
	if (q->qid == 0) {
		switch (op) {
		case NVME_ADMIN_DELETE_SQ: return "DELETE I/O SQ";
		case NVME_ADMIN_CREATE_SQ: return "CREATE I/O SQ";
		case NVME_ADMIN_DELETE_CQ: return "DELETE I/O CQ";
		case NVME_ADMIN_CREATE_CQ: return "CREATE I/O CQ";
		case NVME_ADMIN_IDENTIFY: return "IDENTIFY";
		case NVME_ADMIN_SET_FEATURES: return "SET FEATURES";
		default: return "admin command";
		}
	}
	switch (op) {
	case NVME_CMD_READ: return "READ";
	case NVME_CMD_WRITE: return "WRITE";
	case NVME_CMD_FLUSH: return "FLUSH";
	default: return "I/O command";
	}
}

static int nvme_reset(struct nvme_ctrl *c, const char *why);

/* submit - put @cmd on @q and ring the doorbell. RETURNS 0; -EBUSY (a command is in flight). */
static int submit(struct nvme_queue *q, struct nvme_sqe *cmd)
{
	unsigned long flags = irq_save_flags();
	uint16_t tail;

	if (q->state == NVME_CMD_WAITING) {
		irq_restore_flags(flags);
		return -EBUSY;
	}
	if (q->next_cid == CID_INVALID)
		q->next_cid = 0;
	cmd->cid = q->next_cid++;
	tail = q->sq_tail;
	q->sq[tail] = *cmd;
	q->sq_tail = (uint16_t)((tail + 1) % q->depth);
	q->cid = cmd->cid;
	q->status = 0;
	q->result = 0;
	q->taken_by_wait = false;
	q->last_look_ns = 0;
	q->state = NVME_CMD_WAITING;
	q->commands++;
	nvme_trace(q, true, cmd->opcode);
	expect_irq(q->expect);
	/* nvme-noirq:PERCENT (pin/MSI): this command's completion raises no interrupt. */
	if (q->mask_next)
		mmio_write32(q->ctrl->regs + NVME_REG_INTMS, 1u << q->vector);
	q->submit_ns = ktime_get_ns();
	/* The entry is in memory before the doorbell write makes the controller fetch it. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mmio_write32(q->sq_doorbell, q->sq_tail);
	irq_restore_flags(flags);
	return 0;
}

int nvme_exec(struct nvme_queue *q, struct nvme_sqe *cmd, unsigned int timeout_ms)
{
	struct nvme_ctrl *c = q->ctrl;
	char text[STATUS_TEXT];
	int err;

	if (c->dead)
		return -EIO;
	err = submit(q, cmd);
	if (err)
		return err;
	err = wait_done(q, timeout_ms);
	if (q->mask_next) {
		/* The completion was taken and the CQ head written: unmasking raises nothing late. */
		mmio_write32(c->regs + NVME_REG_INTMC, 1u << q->vector);
		q->mask_next = false;
	}
	if (err) {
		pr_err("%s: %s (%s queue %u, command 0x%04x) not completed in %u ms: the controller stopped answering\n",
		       c->name, opcode_name(q, cmd->opcode), queue_kind(q), q->qid, cmd->cid, timeout_ms);
		nvme_reset(c, "a command timed out");
		return err;
	}
	q->state = NVME_CMD_IDLE;
	err = nvme_status_errno(q->status);
	if (!err && q->qid) {
		uint64_t lat = q->done_ns - q->submit_ns;

		q->lat_count++;
		q->lat_total_ns += lat;
		if (lat > q->lat_max_ns)
			q->lat_max_ns = lat;
		lat = q->done_ns - (q->last_look_ns > q->submit_ns ? q->last_look_ns : q->submit_ns);
		if (lat > q->unnoticed_max_ns)
			q->unnoticed_max_ns = lat;
	}
	if (err) {
		q->errors++;
		pr_err("%s: %s failed: %s\n", c->name, opcode_name(q, cmd->opcode),
		       nvme_status_text(q->status, text, sizeof(text)));
	}
	return err;
}

/* ---- Controller bring-up -------------------------------------------------------------------- */

/* wait_ready - CSTS.RDY reaches @ready within CAP.TO. RETURNS 0; -ETIMEDOUT; -EIO (fatal status / gone). */
static int wait_ready(struct nvme_ctrl *c, bool ready)
{
	uint64_t deadline = ktime_get_ns() + (uint64_t)c->ready_timeout_ms * NSEC_PER_MSEC;
	unsigned int polls = c->ready_timeout_ms / NVME_READY_POLL_MS + 1;
	uint32_t csts = 0;

	for (unsigned int i = 0; i <= polls; i++) {
		csts = rd32(c, NVME_REG_CSTS);
		if (csts == NVME_CSTS_NEVER)
			return -EIO;
		if (ready && (csts & NVME_CSTS_CFS))
			return -EIO;
		if (!!(csts & NVME_CSTS_RDY) == ready)
			return 0;
		if (ktime_get_ns() >= deadline)
			break;
		if (msleep(NVME_READY_POLL_MS))
			udelay(NVME_READY_POLL_MS * 1000u);
	}
	pr_err("%s: CSTS.RDY did not become %u within CAP.TO = %u ms (CSTS %08x)\n", c->name, ready,
	       c->ready_timeout_ms, csts);
	return -ETIMEDOUT;
}

static void queue_reset_state(struct nvme_queue *q)
{
	memset((void *)q->sq, 0, (size_t)q->depth * sizeof(struct nvme_sqe));
	memset((void *)q->cq, 0, (size_t)q->depth * sizeof(struct nvme_cqe));
	q->sq_tail = q->sq_head = q->cq_head = 0;
	q->phase = NVME_CQE_PHASE;
	q->state = NVME_CMD_IDLE;
}

/* enable - disable, program the admin queue, enable (NVMe 1.4 7.6.1). RETURNS 0 or an error (logged). */
static int enable(struct nvme_ctrl *c)
{
	int err;

	if (rd32(c, NVME_REG_CC) & NVME_CC_EN) {
		wr32(c, NVME_REG_CC, rd32(c, NVME_REG_CC) & ~NVME_CC_EN);
	}
	err = wait_ready(c, false);
	if (err)
		return err;
	queue_reset_state(&c->admin);
	wr32(c, NVME_REG_AQA, (uint32_t)(c->admin.depth - 1) << 16 | (uint32_t)(c->admin.depth - 1));
	wr64(c, NVME_REG_ASQ, (uint64_t)(uintptr_t)c->admin.sq);
	wr64(c, NVME_REG_ACQ, (uint64_t)(uintptr_t)c->admin.cq);
	/* INTMS is for pin and MSI interrupts: clear what the firmware may have left. */
	if (pci_irq_mode(c->pci) != PCI_IRQ_MODE_MSIX)
		wr32(c, NVME_REG_INTMC, 0xFFFFFFFFu);
	wr32(c, NVME_REG_CC, NVME_CC_EN | NVME_CC_CSS_NVM | (0u << NVME_CC_MPS_SHIFT) | NVME_CC_AMS_RR |
			     NVME_CC_IOSQES | NVME_CC_IOCQES);
	err = wait_ready(c, true);
	if (err)
		pr_err("%s: controller did not become ready (CSTS %08x)\n", c->name, rd32(c, NVME_REG_CSTS));
	return err;
}

int nvme_create_queue_pair(struct nvme_ctrl *c, struct nvme_queue *q, bool cq_irq)
{
	struct nvme_sqe cmd;
	int err;

	queue_reset_state(q);
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = NVME_ADMIN_CREATE_CQ;
	cmd.prp1 = (uint64_t)(uintptr_t)q->cq;
	cmd.cdw10 = (uint32_t)(q->depth - 1) << 16 | q->qid;
	cmd.cdw11 = (uint32_t)q->vector << 16 | NVME_QUEUE_PHYS_CONTIG | (cq_irq ? NVME_CQ_IRQ_ENABLED : 0);
	err = nvme_exec(&c->admin, &cmd, NVME_ADMIN_TIMEOUT_MS);
	if (err)
		return err;
	q->cq_irq_enabled = cq_irq;
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = NVME_ADMIN_CREATE_SQ;
	cmd.prp1 = (uint64_t)(uintptr_t)q->sq;
	cmd.cdw10 = (uint32_t)(q->depth - 1) << 16 | q->qid;
	cmd.cdw11 = (uint32_t)q->qid << 16 | NVME_QUEUE_PHYS_CONTIG;
	return nvme_exec(&c->admin, &cmd, NVME_ADMIN_TIMEOUT_MS);
}

int nvme_delete_queue_pair(struct nvme_ctrl *c, struct nvme_queue *q)
{
	struct nvme_sqe cmd;
	int err;

	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = NVME_ADMIN_DELETE_SQ;
	cmd.cdw10 = q->qid;
	err = nvme_exec(&c->admin, &cmd, NVME_ADMIN_TIMEOUT_MS);
	if (err)
		return err;
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = NVME_ADMIN_DELETE_CQ;
	cmd.cdw10 = q->qid;
	return nvme_exec(&c->admin, &cmd, NVME_ADMIN_TIMEOUT_MS);
}

int nvme_create_io_queues(struct nvme_ctrl *c, bool cq_irq)
{
	return nvme_create_queue_pair(c, &c->io, cq_irq);
}

int nvme_delete_io_queues(struct nvme_ctrl *c)
{
	return nvme_delete_queue_pair(c, &c->io);
}

static bool resetting[NVME_MAX_CONTROLLERS];

/* nvme_reset - the controller stopped answering: reset it once; if that fails, it is dead. */
static int nvme_reset(struct nvme_ctrl *c, const char *why)
{
	int err;

	if (resetting[c->index] || c->dead) {
		if (!c->dead)
			pr_err("%s: the reset itself failed: controller marked dead, every command now fails with -EIO\n",
			       c->name);
		c->dead = true;
		return -EIO;
	}
	resetting[c->index] = true;
	c->resets++;
	pr_warn("%s: resetting the controller (%s), reset %u\n", c->name, why, c->resets);
	err = enable(c);
	if (!err)
		err = nvme_create_io_queues(c, !c->noirq || c->intms_masked);
	resetting[c->index] = false;
	if (err) {
		c->dead = true;
		pr_err("%s: reset failed (%d): controller marked dead, every command now fails with -EIO\n", c->name, err);
		return err;
	}
	if (!err && c->io2_live)
		err = nvme_create_queue_pair(c, &c->io2, false);
	if (c->intms_masked)
		wr32(c, NVME_REG_INTMS, 1u << c->io.vector);
	if (err) {
		c->dead = true;
		pr_err("%s: reset failed (%d): controller marked dead, every command now fails with -EIO\n", c->name, err);
		return err;
	}
	pr_warn("%s: controller reset and answering again\n", c->name);
	return 0;
}

static void copy_string(char *dst, const uint8_t *src, size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7F) ? (char)src[i] : '?';
	dst[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (dst[i] != ' ')
			len = i + 1;
	dst[len] = '\0';
}

static int identify(struct nvme_ctrl *c, uint32_t cns, uint32_t nsid)
{
	struct nvme_sqe cmd;

	memset(c->identify, 0, NVME_IDENTIFY_BYTES);
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = NVME_ADMIN_IDENTIFY;
	cmd.nsid = nsid;
	cmd.prp1 = (uint64_t)(uintptr_t)c->identify;
	cmd.cdw10 = cns;
	return nvme_exec(&c->admin, &cmd, NVME_ADMIN_TIMEOUT_MS);
}

static int identify_controller(struct nvme_ctrl *c)
{
	int err = identify(c, NVME_IDENTIFY_CTRL, 0);
	uint8_t mdts;
	uint32_t nn;

	if (err)
		return err;
	copy_string(c->serial, c->identify + NVME_IDC_SN, 20);
	copy_string(c->model, c->identify + NVME_IDC_MN, 40);
	copy_string(c->firmware, c->identify + NVME_IDC_FR, 8);
	mdts = c->identify[NVME_IDC_MDTS];
	memcpy(&nn, c->identify + NVME_IDC_NN, sizeof(nn));
	c->nn = nn;
	c->vwc = c->identify[NVME_IDC_VWC] & 1;
	c->max_transfer = NVME_MAX_TRANSFER;
	/* MDTS: 2^n pages of CAP.MPSMIN (4 KiB here); 0 = no limit. Past 2^5 it is above ours anyway. */
	if (mdts && mdts < 6 && (NVME_PAGE_SIZE << mdts) < c->max_transfer)
		c->max_transfer = NVME_PAGE_SIZE << mdts;
	return 0;
}

static int set_queue_count(struct nvme_ctrl *c)
{
	struct nvme_sqe cmd;
	int err;

	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = NVME_ADMIN_SET_FEATURES;
	cmd.cdw10 = NVME_FEAT_NUM_QUEUES;
	cmd.cdw11 = 1u << 16 | 1u;  /* two SQs and two CQs (0-based): the second pair serves nvme-noirq:PERCENT */
	err = nvme_exec(&c->admin, &cmd, NVME_ADMIN_TIMEOUT_MS);
	if (err)
		pr_warn("%s: SET FEATURES (number of queues) failed; trying to create the queue anyway\n", c->name);
	return 0;
}

/* ---- Interrupts ----------------------------------------------------------------------------- */

/* The driver's part of a message line's diagnosis (drivers/pci/msi.c asks, under the line's lock). */
static int diagnose(void *ctx, unsigned int nr, char *buf, size_t len)
{
	struct nvme_ctrl *c = ctx;

	if (nr == c->io.vector && !c->io.cq_irq_enabled) {
		ksnprintf(buf, len, "%s: I/O completion queue %u was created with interrupts disabled (IEN=0)", c->name,
			  c->io.qid);
		return 1;
	}
	if (pci_irq_mode(c->pci) != PCI_IRQ_MODE_MSIX && (rd32(c, NVME_REG_INTMS) & (1u << nr))) {
		ksnprintf(buf, len, "%s: INTMS masks interrupt vector %u at the controller", c->name, nr);
		return 1;
	}
	return 0;
}

static int setup_queue_irq(struct nvme_ctrl *c, struct nvme_queue *q)
{
	int line = pci_irq_vector(c->pci, q->vector), err;

	q->line = line;
	if (line < 0)
		return line;
	/* Shared: INTx lines are shared, and with one vector both queues sit on it. */
	err = request_irq((unsigned int)line, nvme_interrupt, IRQF_SHARED, q->name, q);
	if (err) {
		pr_warn("%s: request_irq(%d) for %s failed (%d): its commands complete by the driver's own polling\n",
			c->name, line, q->name, err);
		return err;
	}
	q->irq_requested = true;
	q->expect = init_irq_expect((unsigned int)line, q);
	return 0;
}

static int alloc_queue(struct nvme_ctrl *c, struct nvme_queue *q, unsigned int qid, uint16_t depth)
{
	q->ctrl = c;
	q->qid = qid;
	q->depth = depth;
	q->line = -1;
	q->next_cid = 0;
	q->cq_irq_enabled = true;
	ksnprintf(q->name, sizeof(q->name), "%sq%u", c->name, qid);
	q->sq = kmalloc_aligned(NVME_PAGE_SIZE, NVME_PAGE_SIZE);
	q->cq = kmalloc_aligned(NVME_PAGE_SIZE, NVME_PAGE_SIZE);
	if (!q->sq || !q->cq)
		return -ENOMEM;
	queue_doorbells(c, q);
	queue_reset_state(q);
	return 0;
}

/*
 * nvme_io2_start - nvme-noirq:PERCENT with MSI-X: a second I/O queue pair
 * (qid 2) on the I/O queue's vector whose CQ is created with IEN = 0, with
 * its own action ("nvme0q2") and expect token on that line; nvme_rw sends
 * the chosen share of commands through it. RETURNS 0 or an error.
 */
int nvme_io2_start(struct nvme_ctrl *c)
{
	int err;

	if (c->io2_live)
		return 0;
	if (NVME_REG_DOORBELL + 6u * c->dstrd_bytes > c->pci->bar[0].size)
		return -ENOSPC;
	c->io2.vector = c->io.vector;
	err = nvme_create_queue_pair(c, &c->io2, false);
	if (err)
		return err;
	setup_queue_irq(c, &c->io2);
	c->io2_live = true;
	return 0;
}

void nvme_io2_stop(struct nvme_ctrl *c)
{
	if (!c->io2_live)
		return;
	if (nvme_delete_queue_pair(c, &c->io2))
		pr_warn("%s: deleting queue pair 2 failed\n", c->name);
	if (c->io2.irq_requested)
		free_irq((unsigned int)c->io2.line, &c->io2);
	c->io2.irq_requested = false;
	c->io2.expect = NULL;
	c->io2_live = false;
}

/* ---- Probe ---------------------------------------------------------------------------------- */

/* check_bar - BAR0 must be a memory BAR we can reach uncached below 4 GiB and hold two doorbell pairs. */
static int check_bar(struct nvme_ctrl *c)
{
	const struct pci_bar *bar = &c->pci->bar[0];

	if ((bar->flags & (PCI_BAR_IO | PCI_BAR_BAD)) || bar->size < NVME_BAR_MIN) {
		pr_err("%s: BAR0 is not a memory BAR of at least %u bytes\n", c->name, (unsigned int)NVME_BAR_MIN);
		return -ENODEV;
	}
	if (bar->base < PAGING_UNCACHED_START || bar->base >= FOUR_GIB || bar->size > FOUR_GIB - bar->base) {
		pr_err("%s: BAR0 at 0x%llx is not in the uncached window 0x%08x-4 GiB this kernel maps\n", c->name,
		       (unsigned long long)bar->base, PAGING_UNCACHED_START);
		return -ENODEV;
	}
	c->regs = (uintptr_t)bar->base;
	return 0;
}

static int check_cap(struct nvme_ctrl *c)
{
	uint64_t cap = rd64(c, NVME_REG_CAP);
	uint32_t to;

	c->cap = cap;
	if (rd32(c, NVME_REG_CSTS) == NVME_CSTS_NEVER) {
		pr_err("%s: registers read all ones: the controller does not answer\n", c->name);
		return -ENODEV;
	}
	if (!(cap & NVME_CAP_CSS_NVM) || NVME_CAP_MPSMIN(cap) != 0) {
		pr_err("%s: CAP %016llx: needs the NVM command set and 4 KiB pages\n", c->name, (unsigned long long)cap);
		return -ENODEV;
	}
	c->dstrd_bytes = 4u << NVME_CAP_DSTRD(cap);
	if (NVME_REG_DOORBELL + 4u * c->dstrd_bytes > c->pci->bar[0].size) {
		pr_err("%s: doorbell stride %u bytes puts queue 1's doorbells outside BAR0\n", c->name, c->dstrd_bytes);
		return -ENODEV;
	}
	to = NVME_CAP_TO(cap) ? NVME_CAP_TO(cap) * NVME_CAP_TO_UNIT_MS : NVME_CAP_TO_UNIT_MS;
	c->ready_timeout_ms = to > NVME_READY_TIMEOUT_MAX_MS ? NVME_READY_TIMEOUT_MAX_MS : to;
	if (NVME_CAP_MQES(cap) < 1) {
		pr_err("%s: CAP.MQES says queues of %u entries; at least 2 are needed\n", c->name, NVME_CAP_MQES(cap) + 1);
		return -ENODEV;
	}
	return 0;
}

static int setup_namespace(struct nvme_ctrl *c)
{
	char why[128];
	int err;

	if (c->nn == 0) {
		pr_warn("%s: no namespaces\n", c->name);
		return -ENODEV;
	}
	c->nsid = 1;
	err = identify(c, NVME_IDENTIFY_NS, c->nsid);
	if (err)
		return err;
	if (nvme_ns_parse(c->identify, &c->ns, why, sizeof(why))) {
		pr_err("%s: namespace %u refused: %s\n", c->name, c->nsid, why);
		return -EINVAL;
	}
	return nvme_blk_register(c);
}

static int probe(struct nvme_ctrl *c)
{
	uint16_t depth;
	char bdf[8];
	int err, n;

	err = check_bar(c);
	if (!err)
		err = pci_enable(c->pci, PCI_ENABLE_MEM | PCI_ENABLE_MASTER);
	if (!err)
		err = check_cap(c);
	if (err)
		return err;
	depth = NVME_CAP_MQES(c->cap) + 1 < NVME_QUEUE_DEPTH ? (uint16_t)(NVME_CAP_MQES(c->cap) + 1) : NVME_QUEUE_DEPTH;
	c->prp_list = kmalloc_aligned(NVME_PAGE_SIZE, NVME_PAGE_SIZE);
	c->identify = kmalloc_aligned(NVME_IDENTIFY_BYTES, NVME_PAGE_SIZE);
	if (!c->prp_list || !c->identify || alloc_queue(c, &c->admin, 0, depth) || alloc_queue(c, &c->io, 1, depth) ||
	    alloc_queue(c, &c->io2, 2, depth)) {
		pr_err("%s: out of memory for queues\n", c->name);
		return -ENOMEM;
	}
	n = pci_alloc_irq_vectors(c->pci, 1, 2, PCI_IRQ_MSIX | PCI_IRQ_MSI | PCI_IRQ_INTX);
	c->nvec = n;
	c->admin.vector = 0;
	c->io.vector = n >= 2 ? 1 : 0;
	err = enable(c);
	if (err)
		return err;
	if (n > 0) {
		setup_queue_irq(c, &c->admin);
		setup_queue_irq(c, &c->io);
		pci_msi_set_diagnose(c->pci, diagnose, c);
	} else {
		pr_warn("%s: no interrupt at all (%d): commands complete by the driver's own polling every %u ms\n",
			c->name, n, (unsigned int)NVME_IRQ_WAIT_MS);
	}
	pr_info("%s: %s, CAP.TO %u ms, doorbell stride %u, queues of %u, interrupts: %s%s, lines %d/%d\n", c->name,
		bdf_text(c->pci, bdf, sizeof(bdf)), c->ready_timeout_ms, c->dstrd_bytes, depth,
		pci_irq_mode_name(pci_irq_mode(c->pci)), n >= 2 ? " per queue" : " shared by both queues",
		c->admin.line, c->io.line);
	err = set_queue_count(c);
	if (!err)
		err = identify_controller(c);
	if (!err)
		err = nvme_create_io_queues(c, true);
	if (err)
		return err;
	pr_info("%s: \"%s\" serial \"%s\" firmware \"%s\", %u namespace%s, max transfer %u KiB%s\n", c->name, c->model,
		c->serial, c->firmware, c->nn, c->nn == 1 ? "" : "s", c->max_transfer / 1024,
		c->vwc ? ", volatile write cache" : "");
	return setup_namespace(c);
}

int nvme_init(void)
{
	struct pci_dev *d = NULL;
	int found = 0;

	while ((d = pci_find_class(PCI_CLASS_STORAGE, NVME_PCI_SUBCLASS, NVME_PCI_PROGIF, d)) != NULL) {
		struct nvme_ctrl *c;

		if (nvme_ctrl_count >= NVME_MAX_CONTROLLERS) {
			pr_warn("nvme: more than %u controllers; the rest are not used\n", (unsigned int)NVME_MAX_CONTROLLERS);
			break;
		}
		c = &nvme_ctrls[nvme_ctrl_count];
		memset(c, 0, sizeof(*c));
		c->index = nvme_ctrl_count++;
		c->pci = d;
		ksnprintf(c->name, sizeof(c->name), "nvme%u", c->index);
		if (probe(c) == 0)
			found++;
		else
			pr_warn("%s: not usable\n", c->name);
	}
	return found;
}

/* ---- State for the shell -------------------------------------------------------------------- */

static void print_queue(const struct nvme_queue *q)
{
	char why[REASON_TEXT] = "";

	if (q->commands || q->stray || q->timeouts)
		lost_reason(q, why, sizeof(why));
	cprintf("  %s: %s queue %u, %u entries, line %d (vector %u)%s, CQ interrupts %s; commands %llu: %llu by interrupt or core poll, %llu found by the driver's wait (lost, max %llu us), %llu timed out, %llu failed, %llu stray completions dropped; latency avg %llu us max %llu us over %llu, unseen in the CQ at most %llu us\n",
		q->name, queue_kind(q), q->qid, q->depth, q->line, q->vector, q->irq_requested ? "" : " not requested",
		q->cq_irq_enabled ? "enabled" : "DISABLED (IEN=0)", (unsigned long long)q->commands,
		(unsigned long long)q->by_irq_or_poll, (unsigned long long)q->by_wait,
		(unsigned long long)(q->lost_ns_max / NSEC_PER_USEC), (unsigned long long)q->timeouts,
		(unsigned long long)q->errors, (unsigned long long)q->stray,
		(unsigned long long)(q->lat_count ? q->lat_total_ns / q->lat_count / NSEC_PER_USEC : 0),
		(unsigned long long)(q->lat_max_ns / NSEC_PER_USEC), (unsigned long long)q->lat_count,
		(unsigned long long)(q->unnoticed_max_ns / NSEC_PER_USEC));
}

void nvme_print_state(const struct nvme_ctrl *c)
{
	char bdf[8];

	cprintf("%s: %s \"%s\" serial \"%s\"%s, interrupts %s (%d vector%s), INTMS %08x, resets %u%s\n", c->name,
		bdf_text(c->pci, bdf, sizeof(bdf)), c->model, c->serial, c->dead ? " DEAD" : "",
		pci_irq_mode_name(pci_irq_mode(c->pci)), c->nvec, c->nvec == 1 ? "" : "s", rd32(c, NVME_REG_INTMS), c->resets,
		c->noirq ? ", nvme-noirq in force" : "");
	if (c->noirq_percent)
		cprintf("  nvme-noirq: %u %% of I/O commands raise no interrupt (%s)\n", c->noirq_percent,
			c->noirq_percent >= NVME_PERCENT_MAX ? (c->intms_masked ? "INTMS" : "the I/O CQ has IEN=0") :
			c->io2_live ? "sent through queue pair 2, whose CQ has IEN=0" : "INTMS around each chosen command");
	print_queue(&c->admin);
	print_queue(&c->io);
	if (c->io2_live)
		print_queue(&c->io2);
	if (c->blk_registered)
		cprintf("  %s: namespace %u, %llu blocks of %u bytes%s\n", c->blk.name, c->nsid,
			(unsigned long long)c->ns.blocks, c->ns.block_size, c->ns.read_only ? ", write protected" : "");
}

static void clear_queue_stats(struct nvme_queue *q)
{
	unsigned long flags = irq_save_flags();

	q->commands = q->by_irq_or_poll = q->by_wait = q->timeouts = q->stray = q->errors = 0;
	q->lost_reported = q->lost_unreported = 0;
	q->lost_ns_max = q->lost_ns_total = 0;
	q->lat_count = q->lat_total_ns = q->lat_max_ns = q->unnoticed_max_ns = 0;
	irq_restore_flags(flags);
}

void nvme_clear_stats(struct nvme_ctrl *c)
{
	clear_queue_stats(&c->admin);
	clear_queue_stats(&c->io);
	clear_queue_stats(&c->io2);
}
