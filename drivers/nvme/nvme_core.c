/*
 * nvme_core.c - the NVMe controller driver: probe, controller reset and
 * enable (NVMe 1.4 section 7.6.1), the admin queue and one I/O queue
 * pair per CPU (fewer, shared, when the controller grants fewer), commands with completion by phase tag (4.6), interrupts by MSI-X
 * per queue with MSI and INTx as fallbacks (drivers/pci/msi.c), and the
 * IRQ expecting of kernel/irq around every command. Rules and formats are
 * in nvme_internal.h; nvme_blk.c makes namespaces block devices;
 * docs/nvme.md tells the story.
 *
 * A command's life (one in flight per queue):
 *   claim (thread): the queue is the thread's until the command is over;
 *     a thread on another CPU that wants it halts until it is released.
 *   submit (thread, queue lock): entry at the SQ tail with a fresh
 *     command ID, state WAITING, expect_irq(), SQ tail doorbell.
 *   complete (the queue's interrupt handler, a kernel/irq poll of the
 *     line, or the waiting thread): entries whose phase tag is the current
 *     one are new; the one whose ID is WAITING's completes it (DONE,
 *     unexpect_irq), any other is stray and dropped; the CQ head doorbell
 *     is written once per batch.
 *   wait (thread): idle until DONE (a handler on another CPU wakes the
 *     waiter's CPU with the wake-up IPI); after NVME_IRQ_WAIT_MS look at the CQ
 *     itself (a completion found there is a lost interrupt: reported,
 *     unexpect_irq(timedout) and watch_irq); after the command's time-out
 *     the command is ABANDONED and the controller reset once.
 */
#include "nvme_internal.h"
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/paging.h>
#include <asm/smp.h>
#include <drivers/nvme.h>
#include <drivers/pci_msi.h>
#include <kernel/console.h>
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/heap.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <time/time.h>
#include <irq/irqchip.h>
#include <irq/trace.h>

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
			/* The waiter halts on its own CPU: a completion taken elsewhere wakes it. */
			if (q->waiter_cpu != smp_processor_id())
				smp_send_wakeup(q->waiter_cpu);
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
	unsigned long flags;
	unsigned int n;

	(void)irq;
	flags = spin_lock_irqsave(&q->lock);
	n = process_cq(q, false);
	spin_unlock_irqrestore(&q->lock, flags);
	return n ? IRQ_HANDLED : IRQ_NONE;
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

/*
 * report_late - the driver's wait found the completion after
 * NVME_IRQ_WAIT_MS, but the CPU the queue's vector is routed to did not run
 * meanwhile (irq_expect_cpu_ran): the interrupt is late, not lost, and the
 * controller healthy. Info level, rate-limited as report_lost.
 */
static void report_late(struct nvme_queue *q, uint64_t waited_ns)
{
	uint64_t now = ktime_get_ns();

	if (q->late > NVME_LOST_REPORT_BURST &&
	    now - q->last_late_report_ns < (uint64_t)NVME_LOST_REPORT_INTERVAL_MS * NSEC_PER_MSEC)
		return;
	pr_info("%s: %s queue %u line %d (%s vector %u) late: its CPU did not run in %llu ms (the host or firmware "
		"stopped it, or its interrupts were off); the driver took command 0x%04x by polling (%llu so far)\n",
		q->ctrl->name, queue_kind(q), q->qid, q->line, pci_irq_mode_name(pci_irq_mode(q->ctrl->pci)), q->vector,
		(unsigned long long)(waited_ns / NSEC_PER_MSEC), q->cid, (unsigned long long)q->late);
	q->last_late_report_ns = now;
}

static void wake_up(struct timer *t)
{
	(void)t;   /* the timer interrupt itself ends time_idle() */
}

/* CPU 0's wake-up timer: only the thread on CPU 0 (the shell) waits with it. */
static struct timer cpu0_wake;

/*
 * idle_until - halt this CPU until an interrupt, at the latest about
 * @deadline. On CPU 0 a timer bounds the halt (its tick may be stopped);
 * kernel/time's timers all run on CPU 0 (docs/time.md), so on another CPU
 * its own periodic LAPIC timer (hz=) bounds it, and a completion or release
 * on another CPU sends the wake-up IPI. CONTEXT: thread, interrupts off
 * (no lock held); off again on return.
 */
static void idle_until(uint64_t deadline)
{
	if (smp_processor_id() != 0) {
		smp_idle_halt();
		return;
	}
	if (!cpu0_wake.fn)
		timer_setup(&cpu0_wake, wake_up, NULL);
	if (!timer_pending(&cpu0_wake) || cpu0_wake.expires_ns > deadline)
		timer_mod(&cpu0_wake, deadline, 0);
	time_idle();     /* sti; hlt; returns with interrupts disabled again */
}

/*
 * wait_done - sleep until @q's command leaves WAITING, or abandon it.
 * CONTEXT: the thread that holds @q (queue_claim). RETURNS 0; -ETIMEDOUT;
 * -EIO (a reset on another CPU abandoned it).
 */
static int wait_done(struct nvme_queue *q, unsigned int timeout_ms)
{
	const uint64_t timeout_ns = (uint64_t)timeout_ms * NSEC_PER_MSEC;
	const uint64_t look_ns = (uint64_t)NVME_IRQ_WAIT_MS * NSEC_PER_MSEC;
	const uint64_t cpu_look_ns = (uint64_t)NVME_CPU_LOOK_MS * NSEC_PER_MSEC;
	unsigned long flags = spin_lock_irqsave(&q->lock);
	uint64_t passes = 0, next_look = q->submit_ns + look_ns;
	int err = 0;

	while (q->state == NVME_CMD_WAITING) {
		uint64_t now = ktime_get_ns(), deadline;

		if (now >= next_look || ++passes > NVME_WAIT_PASSES_MAX || now - q->submit_ns >= timeout_ns) {
			bool ran;

			/*
			 * Lost only if the vector's CPU ran since the expect: asked
			 * before process_cq closes it (the core's mark is the open
			 * expect's), without q->lock (the question takes the line's
			 * lock; the handler takes q->lock inside the line's run).
			 */
			spin_unlock(&q->lock);
			ran = irq_expect_cpu_ran(q->expect);
			spin_lock(&q->lock);
			if (q->state != NVME_CMD_WAITING)
				break;
			if (process_cq(q, true) && q->state == NVME_CMD_DONE) {
				if (!ran) {
					q->by_wait--;   /* process_cq counted it found by the wait: it is late */
					q->late++;
					report_late(q, now - q->submit_ns);
					break;
				}
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
		if (now - q->submit_ns >= cpu_look_ns) {
			/*
			 * A long wait: look at the vector's CPU now and then, so that
			 * the time-out can tell a CPU that stopped lately from one
			 * that ran (irq_expect_cpu_ran's looks: kernel/irq/stall.c).
			 * Unlocked as the question above.
			 */
			spin_unlock(&q->lock);
			(void)irq_expect_cpu_ran(q->expect);
			spin_lock(&q->lock);
			if (q->state != NVME_CMD_WAITING)
				break;
			if (deadline > now + cpu_look_ns)
				deadline = now + cpu_look_ns;
		} else if (deadline > q->submit_ns + cpu_look_ns) {
			deadline = q->submit_ns + cpu_look_ns;   /* the first look, whatever the wake-ups */
		}
		/* Interrupts stay off from the unlock to the halt: a wake-up IPI sent meanwhile
		 * (the handler on another CPU took the completion) ends the halt at once. */
		spin_unlock(&q->lock);
		idle_until(deadline);
		spin_lock(&q->lock);
	}
	if (!err && q->state != NVME_CMD_DONE)
		err = -EIO;   /* abandoned by a reset another CPU ran */
	spin_unlock_irqrestore(&q->lock, flags);
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

/* submit - put @cmd on @q and ring the doorbell. RETURNS 0; -EBUSY (a command is in flight); -EIO (resetting). */
static int submit(struct nvme_queue *q, struct nvme_sqe *cmd)
{
	unsigned long flags = spin_lock_irqsave(&q->lock);
	uint16_t tail;

	if (q->state == NVME_CMD_WAITING || (q->ctrl->resetting && q->qid)) {
		int err = q->state == NVME_CMD_WAITING ? -EBUSY : -EIO;

		spin_unlock_irqrestore(&q->lock, flags);
		return err;
	}
	q->waiter_cpu = smp_processor_id();
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
	nvme_fault_cpustall();
	expect_irq(q->expect);
	/* nvme-noirq:PERCENT (pin/MSI): this command's completion raises no interrupt. */
	if (q->mask_next)
		mmio_write32(q->ctrl->regs + NVME_REG_INTMS, 1u << q->vector);
	q->submit_ns = ktime_get_ns();
	/* The entry is in memory before the doorbell write makes the controller fetch it. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mmio_write32(q->sq_doorbell, q->sq_tail);
	spin_unlock_irqrestore(&q->lock, flags);
	return 0;
}

/* ---- Owning a queue ------------------------------------------------------------------------- */

int nvme_queue_claim(struct nvme_queue *q)
{
	unsigned int me = smp_processor_id();
	uint64_t deadline = ktime_get_ns() + (uint64_t)NVME_CLAIM_TIMEOUT_MS * NSEC_PER_MSEC;
	unsigned long flags = spin_lock_irqsave(&q->lock);
	bool counted = false;
	int err = 0;

	while (q->owner) {
		if (q->owner == me + 1) {
			err = -EINPROGRESS;   /* this CPU's thread holds it already: a bug, not a wait */
			break;
		}
		if (ktime_get_ns() >= deadline) {
			err = -EBUSY;
			break;
		}
		if (!counted)
			q->claim_waits++;
		counted = true;
		q->claim_waiters |= 1u << me;
		/* Interrupts stay off to the halt: the release's wake-up IPI is not missed. */
		spin_unlock(&q->lock);
		idle_until(deadline);
		spin_lock(&q->lock);
	}
	if (!err)
		q->owner = me + 1;
	spin_unlock_irqrestore(&q->lock, flags);
	if (err)
		pr_err("%s: queue %u held by CPU %u for more than %u ms; CPU %u gives up (%d)\n", q->ctrl->name, q->qid,
		       q->owner ? q->owner - 1 : 0, (unsigned int)NVME_CLAIM_TIMEOUT_MS, me, err);
	return err;
}

void nvme_queue_release(struct nvme_queue *q)
{
	unsigned int me = smp_processor_id();
	unsigned long flags = spin_lock_irqsave(&q->lock);
	uint32_t waiters = q->claim_waiters;

	q->owner = 0;
	q->claim_waiters = 0;
	spin_unlock_irqrestore(&q->lock, flags);
	for (unsigned int cpu = 0; waiters && cpu < 32; cpu++)
		if ((waiters & (1u << cpu)) && cpu != me)
			smp_send_wakeup(cpu);
}

struct nvme_queue *nvme_cpu_queue(struct nvme_ctrl *c)
{
	unsigned int cpu = smp_processor_id();

	return &c->io[cpu < NVME_MAX_IO_QUEUES && c->cpu_queue[cpu] < c->nr_io ? c->cpu_queue[cpu] : 0];
}

int nvme_exec(struct nvme_queue *q, struct nvme_sqe *cmd, unsigned int timeout_ms)
{
	int err;

	/* This CPU's thread holds it already (the reset after one of its commands timed out). */
	if (q->owner == smp_processor_id() + 1)
		return nvme_exec_claimed(q, cmd, timeout_ms);
	err = nvme_queue_claim(q);
	if (err)
		return err;
	err = nvme_exec_claimed(q, cmd, timeout_ms);
	nvme_queue_release(q);
	return err;
}

int nvme_exec_claimed(struct nvme_queue *q, struct nvme_sqe *cmd, unsigned int timeout_ms)
{
	struct nvme_ctrl *c = q->ctrl;
	char text[STATUS_TEXT];
	uint32_t resets = c->resets;
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
	if (err && c->resetting && c->reset_cpu == smp_processor_id()) {
		/* One of the reset's own commands: the reset reports it and gives up. */
		pr_err("%s: %s (%s queue %u) not completed in %u ms during the reset\n", c->name,
		       opcode_name(q, cmd->opcode), queue_kind(q), q->qid, timeout_ms);
		return err;
	}
	if (err == -EIO || (err && (c->resetting || c->resets != resets))) {
		pr_err("%s: %s (%s queue %u, command 0x%04x) abandoned: the controller was reset meanwhile\n", c->name,
		       opcode_name(q, cmd->opcode), queue_kind(q), q->qid, cmd->cid);
		return -EIO;
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

/*
 * ready_pause - about NVME_READY_POLL_MS between two looks at CSTS. On CPU 0
 * msleep; on another CPU (a reset after a time-out there) no kernel/time
 * sleep, whose tick stop and restart are CPU 0's (docs/time.md): a halt
 * until the CPU's own periodic timer, repeated up to the pause.
 */
static void ready_pause(void)
{
	uint64_t end = ktime_get_ns() + (uint64_t)NVME_READY_POLL_MS * NSEC_PER_MSEC;
	unsigned long flags;

	if (smp_processor_id() == 0) {
		if (msleep(NVME_READY_POLL_MS))
			udelay(NVME_READY_POLL_MS * 1000u);
		return;
	}
	flags = irq_save_flags();
	while (ktime_get_ns() < end)
		smp_idle_halt();
	irq_restore_flags(flags);
}

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
		ready_pause();
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
	unsigned long flags;
	int err;

	flags = spin_lock_irqsave(&q->lock);
	queue_reset_state(q);
	spin_unlock_irqrestore(&q->lock, flags);
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

/* nvme_create_io_queues - every per-CPU I/O pair, CQ interrupts on (@cq_irq) or off. */
int nvme_create_io_queues(struct nvme_ctrl *c, bool cq_irq)
{
	for (unsigned int i = 0; i < c->nr_io; i++) {
		int err = nvme_create_queue_pair(c, &c->io[i], cq_irq);

		if (err)
			return err;
	}
	return 0;
}

/*
 * nvme_recreate_io_queues - delete every per-CPU I/O pair and create it
 * again with CQ interrupts on (@cq_irq) or off (nvme-noirq). Every pair is
 * claimed first and held throughout, so no other CPU has a command in
 * flight on it or submits to it while it does not exist.
 * CONTEXT: thread, holding none of them. RETURNS 0 or an error.
 */
int nvme_recreate_io_queues(struct nvme_ctrl *c, bool cq_irq)
{
	unsigned int held = 0;
	int err = 0;

	for (; held < c->nr_io && !err; held++) {
		err = nvme_queue_claim(&c->io[held]);
		if (err)
			break;
	}
	for (unsigned int i = 0; i < held && !err; i++)
		err = nvme_delete_queue_pair(c, &c->io[i]);
	for (unsigned int i = 0; i < held && !err; i++)
		err = nvme_create_queue_pair(c, &c->io[i], cq_irq);
	for (unsigned int i = 0; i < held; i++)
		nvme_queue_release(&c->io[i]);
	return err;
}

/*
 * abandon_in_flight - a reset is about to delete @q: its command in flight
 * (another CPU's) can no longer complete. Its waiter is told (ABANDONED,
 * woken) and returns -EIO; its expect bracket is closed as timed out.
 */
static void abandon_in_flight(struct nvme_queue *q)
{
	unsigned long flags = spin_lock_irqsave(&q->lock);

	if (q->state == NVME_CMD_WAITING) {
		q->state = NVME_CMD_ABANDONED;
		unexpect_irq(q->expect, true);
		if (q->waiter_cpu != smp_processor_id())
			smp_send_wakeup(q->waiter_cpu);
	}
	spin_unlock_irqrestore(&q->lock, flags);
}

/* nvme_reset - the controller stopped answering: reset it once; if that fails, it is dead. */
static int nvme_reset(struct nvme_ctrl *c, const char *why)
{
	int err;

	if (c->dead || __atomic_exchange_n(&c->resetting, true, __ATOMIC_ACQ_REL)) {
		/* Called again from the reset's own commands (or another CPU's reset is running). */
		if (!c->dead && c->reset_cpu == smp_processor_id()) {
			pr_err("%s: the reset itself failed: controller marked dead, every command now fails with -EIO\n",
			       c->name);
			c->dead = true;
		}
		return -EIO;
	}
	c->reset_cpu = smp_processor_id();
	c->resets++;
	pr_warn("%s: resetting the controller (%s), reset %u\n", c->name, why, c->resets);
	for (unsigned int i = 0; i < c->nr_io; i++)
		abandon_in_flight(&c->io[i]);
	if (c->io2_live)
		abandon_in_flight(&c->io2);
	err = enable(c);
	if (!err)
		err = nvme_create_io_queues(c, !c->noirq || c->intms_masked);
	if (!err && c->io2_live)
		err = nvme_create_queue_pair(c, &c->io2, false);
	if (!err && c->intms_masked)
		for (unsigned int i = 0; i < c->nr_io; i++)
			wr32(c, NVME_REG_INTMS, 1u << c->io[i].vector);
	if (err) {
		c->dead = true;
		pr_err("%s: reset failed (%d): controller marked dead, every command now fails with -EIO\n", c->name, err);
	} else {
		pr_warn("%s: controller reset and answering again\n", c->name);
	}
	__atomic_store_n(&c->resetting, false, __ATOMIC_RELEASE);
	return err;
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

/*
 * set_queue_count - Set Features, Number of Queues (FID 07h, NVMe 1.4
 * 5.21.1.7): ask for @want I/O SQs and CQs. The answer (DW0: NSQA 15:0,
 * NCQA 31:16, both 0-based) may be more or fewer than asked; more is
 * taken as what was asked. RETURNS the I/O queue pairs granted (>= 1: a
 * controller that fails the command is still tried with one pair).
 */
static uint32_t set_queue_count(struct nvme_ctrl *c, uint32_t want)
{
	struct nvme_sqe cmd;
	uint32_t nsqa, ncqa, granted;
	int err;

	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = NVME_ADMIN_SET_FEATURES;
	cmd.cdw10 = NVME_FEAT_NUM_QUEUES;
	cmd.cdw11 = (want - 1) << 16 | (want - 1);
	err = nvme_exec(&c->admin, &cmd, NVME_ADMIN_TIMEOUT_MS);
	if (err) {
		pr_warn("%s: SET FEATURES (number of queues) failed; trying one I/O queue pair anyway\n", c->name);
		return 1;
	}
	nsqa = (c->admin.result & 0xFFFFu) + 1;
	ncqa = (c->admin.result >> 16) + 1;
	granted = nsqa < ncqa ? nsqa : ncqa;
	return granted < want ? granted : want;
}

/* ---- Interrupts ----------------------------------------------------------------------------- */

/* The driver's part of a message line's diagnosis (drivers/pci/msi.c asks, under the line's lock). */
static int diagnose(void *ctx, unsigned int nr, char *buf, size_t len)
{
	struct nvme_ctrl *c = ctx;

	for (unsigned int i = 0; i < c->nr_io; i++) {
		const struct nvme_queue *q = &c->io[i];

		if (nr == q->vector && !q->cq_irq_enabled) {
			ksnprintf(buf, len, "%s: I/O completion queue %u was created with interrupts disabled (IEN=0)",
				  c->name, q->qid);
			return 1;
		}
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
	spin_lock_init(&q->lock);
	ksnprintf(q->name, sizeof(q->name), "%sq%u", c->name, qid);
	q->sq = kmalloc_aligned(NVME_PAGE_SIZE, NVME_PAGE_SIZE);
	q->cq = kmalloc_aligned(NVME_PAGE_SIZE, NVME_PAGE_SIZE);
	if (qid)
		q->prp_list = kmalloc_aligned(NVME_PAGE_SIZE, NVME_PAGE_SIZE);
	if (!q->sq || !q->cq || (qid && !q->prp_list))
		return -ENOMEM;
	queue_doorbells(c, q);
	queue_reset_state(q);
	return 0;
}

/*
 * nvme_io2_start - nvme-noirq:PERCENT with MSI-X: one more I/O queue pair
 * (qid nr_io + 1) on the first I/O queue's vector whose CQ is created with
 * IEN = 0, with its own action ("nvme0q2" with one CPU) and expect token on
 * that line; nvme_rw sends the chosen share of commands through it, from
 * whichever CPU. RETURNS 0 or an error (-ENOSPC: no pair granted for it).
 */
int nvme_io2_start(struct nvme_ctrl *c)
{
	int err;

	if (c->io2_live)
		return 0;
	if (!c->io2_possible)
		return -ENOSPC;
	c->io2.vector = c->io[0].vector;
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
	if (nvme_queue_claim(&c->io2) == 0) {
		if (nvme_delete_queue_pair(c, &c->io2))
			pr_warn("%s: deleting queue pair %u failed\n", c->name, c->io2.qid);
		c->io2_live = false;
		nvme_queue_release(&c->io2);
	}
	c->io2_live = false;
	if (c->io2.irq_requested)
		free_irq((unsigned int)c->io2.line, &c->io2);
	c->io2.irq_requested = false;
	c->io2.expect = NULL;
}

/* ---- Probe ---------------------------------------------------------------------------------- */

/*
 * check_bar - BAR0 must be an assigned memory BAR holding two doorbell pairs; it is mapped
 * uncached wherever the firmware put it (OVMF: 0xe000000000, through the PAE window, paging.c).
 */
static int check_bar(struct nvme_ctrl *c)
{
	const struct pci_bar *bar = &c->pci->bar[0];
	int err;

	if ((bar->flags & (PCI_BAR_IO | PCI_BAR_BAD)) || bar->size < NVME_BAR_MIN || bar->base == 0) {
		pr_err("%s: BAR0 is not an assigned memory BAR of at least %u bytes\n", c->name,
		       (unsigned int)NVME_BAR_MIN);
		return -ENODEV;
	}
	err = mmio_map(bar->base, bar->size, &c->regs);
	if (err) {
		pr_err("%s: BAR0 at 0x%llx is not reachable: %s\n", c->name, (unsigned long long)bar->base,
		       mmio_map_error(err));
		return -ENODEV;
	}
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

/* doorbell_pairs - the highest queue ID whose two doorbells BAR0 holds at CAP.DSTRD. */
static uint32_t doorbell_pairs(const struct nvme_ctrl *c)
{
	uint64_t size = c->pci->bar[0].size;

	return (uint32_t)((size - NVME_REG_DOORBELL) / (2u * c->dstrd_bytes)) - 1;
}

static void format_cpus(uint32_t mask, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned int cpu = 0; cpu < NVME_MAX_IO_QUEUES && at < len; cpu++)
		if (mask & (1u << cpu))
			at += (size_t)ksnprintf(buf + at, len - at, "%s%u", at ? "," : "", cpu);
}

/*
 * setup_io_queues - how many I/O pairs, which CPU uses which, their vectors
 * and lines: one pair per online CPU, bounded by what the controller
 * granted (@granted), the doorbells BAR0 holds, NVME_MAX_IO_QUEUES and,
 * with MSI-X, one vector per pair after the admin queue's (@nvec). With
 * fewer pairs than CPUs, CPU k (the k-th online) uses pair k mod nr_io;
 * with one vector (MSI, INTx, a one-entry MSI-X table) every pair shares
 * it and its line stays where it is. A pair with a vector of its own has
 * its line's affinity set to its CPUs. RETURNS 0 or -ENOMEM.
 */
static int setup_io_queues(struct nvme_ctrl *c, uint16_t depth, unsigned int cpus, uint32_t granted, int nvec)
{
	bool own_vectors = pci_irq_mode(c->pci) == PCI_IRQ_MODE_MSIX && nvec >= 2;
	uint32_t room = doorbell_pairs(c);
	unsigned int nr = cpus, k = 0;
	char list[24];

	c->fewer_why = NULL;
	if (granted < nr) {
		nr = granted;
		c->fewer_why = "the controller granted fewer (Set Features, Number of Queues)";
	}
	if (own_vectors && (unsigned int)(nvec - 1) < nr) {
		nr = (unsigned int)(nvec - 1);
		c->fewer_why = "fewer MSI-X vectors than CPUs (table size or the MSI layer's limit)";
	}
	if (room < nr) {
		nr = room;
		c->fewer_why = "BAR0 holds fewer doorbells";
	}
	if (nr > NVME_MAX_IO_QUEUES)
		nr = NVME_MAX_IO_QUEUES;
	if (nr < 1)
		nr = 1;   /* check_cap made sure queue 1's doorbells are in BAR0 */
	c->nr_io = nr;
	for (unsigned int i = 0; i < nr; i++) {
		if (alloc_queue(c, &c->io[i], i + 1, depth))
			return -ENOMEM;
		c->io[i].vector = own_vectors ? 1 + i : 0;
	}
	for (unsigned int cpu = 0; cpu < NVME_MAX_IO_QUEUES; cpu++) {
		c->cpu_queue[cpu] = 0;
		if (!smp_cpu_online(cpu))
			continue;
		c->cpu_queue[cpu] = (uint8_t)(k % nr);
		c->io[k % nr].cpus |= 1u << cpu;
		k++;
	}
	c->io2_possible = granted > nr && room > nr;
	if (c->io2_possible && alloc_queue(c, &c->io2, nr + 1, depth))
		return -ENOMEM;
	for (unsigned int i = 0; i < nr && nvec > 0; i++) {
		struct nvme_queue *q = &c->io[i];

		setup_queue_irq(c, q);
		format_cpus(q->cpus, list, sizeof(list));
		if (own_vectors && q->line >= 0 && q->cpus) {
			int err = irq_set_affinity((unsigned int)q->line, q->cpus);

			if (err)
				pr_warn("%s: line %d of %s stays where it is: affinity to CPU %s refused (%d)\n", c->name,
					q->line, q->name, list, err);
		}
		pr_info("%s: %s: I/O queue %u for CPU %s, vector %u, line %d%s\n", c->name, q->name, q->qid, list,
			q->vector, q->line, own_vectors ? "" : " (shared)");
	}
	if (c->fewer_why)
		pr_warn("%s: %u I/O queue pair%s for %u CPUs (%s; %u granted, %d vector%s): CPUs share pairs, one command at a time each\n",
			c->name, nr, nr == 1 ? "" : "s", cpus, c->fewer_why, granted, nvec, nvec == 1 ? "" : "s");
	return 0;
}

static int probe(struct nvme_ctrl *c)
{
	unsigned int cpus = 0;
	uint32_t granted;
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
	for (unsigned int cpu = 0; cpu < NVME_MAX_IO_QUEUES; cpu++)
		cpus += smp_cpu_online(cpu);
	if (cpus < 1)
		cpus = 1;
	depth = NVME_CAP_MQES(c->cap) + 1 < NVME_QUEUE_DEPTH ? (uint16_t)(NVME_CAP_MQES(c->cap) + 1) : NVME_QUEUE_DEPTH;
	c->identify = kmalloc_aligned(NVME_IDENTIFY_BYTES, NVME_PAGE_SIZE);
	if (!c->identify || alloc_queue(c, &c->admin, 0, depth)) {
		pr_err("%s: out of memory for queues\n", c->name);
		return -ENOMEM;
	}
	/* The admin queue's vector, then one per CPU's I/O pair. */
	n = pci_alloc_irq_vectors(c->pci, 1, (int)(1 + cpus), PCI_IRQ_MSIX | PCI_IRQ_MSI | PCI_IRQ_INTX);
	c->nvec = n;
	c->admin.vector = 0;
	err = enable(c);
	if (err)
		return err;
	if (n > 0) {
		setup_queue_irq(c, &c->admin);
		pci_msi_set_diagnose(c->pci, diagnose, c);
	} else {
		pr_warn("%s: no interrupt at all (%d): commands complete by the driver's own polling every %u ms\n",
			c->name, n, (unsigned int)NVME_IRQ_WAIT_MS);
	}
	/* One pair more than CPUs: nvme-noirq:PERCENT's pair. */
	granted = set_queue_count(c, cpus + 1);
	c->queues_granted = granted;
	err = setup_io_queues(c, depth, cpus, granted, n);
	if (err) {
		pr_err("%s: out of memory for queues\n", c->name);
		return err;
	}
	pr_info("%s: %s, CAP.TO %u ms, doorbell stride %u, queues of %u, interrupts: %s%s, lines %d/%d, %u I/O queue pair%s\n",
		c->name, bdf_text(c->pci, bdf, sizeof(bdf)), c->ready_timeout_ms, c->dstrd_bytes, depth,
		pci_irq_mode_name(pci_irq_mode(c->pci)), n >= 2 ? " per queue" : " shared by all queues", c->admin.line,
		c->io[0].line, c->nr_io, c->nr_io == 1 ? "" : "s");
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
	char list[24];

	if (q->commands || q->stray || q->timeouts)
		lost_reason(q, why, sizeof(why));
	format_cpus(q->cpus, list, sizeof(list));
	cprintf("  %s: %s queue %u, %u entries, line %d (vector %u)%s, CQ interrupts %s; commands %llu: %llu by interrupt or core poll, %llu found by the driver's wait (lost, max %llu us), late=%llu (found by the wait while its CPU did not run), %llu timed out, %llu failed, %llu stray completions dropped; latency avg %llu us max %llu us over %llu, unseen in the CQ at most %llu us; CPUs %s, %llu claims waited for another CPU\n",
		q->name, queue_kind(q), q->qid, q->depth, q->line, q->vector, q->irq_requested ? "" : " not requested",
		q->cq_irq_enabled ? "enabled" : "DISABLED (IEN=0)", (unsigned long long)q->commands,
		(unsigned long long)q->by_irq_or_poll, (unsigned long long)q->by_wait,
		(unsigned long long)(q->lost_ns_max / NSEC_PER_USEC), (unsigned long long)q->late,
		(unsigned long long)q->timeouts,
		(unsigned long long)q->errors, (unsigned long long)q->stray,
		(unsigned long long)(q->lat_count ? q->lat_total_ns / q->lat_count / NSEC_PER_USEC : 0),
		(unsigned long long)(q->lat_max_ns / NSEC_PER_USEC), (unsigned long long)q->lat_count,
		(unsigned long long)(q->unnoticed_max_ns / NSEC_PER_USEC), q->qid == 0 ? "any" : q->cpus ? list : "any (noirq share)",
		(unsigned long long)q->claim_waits);
}

void nvme_print_state(const struct nvme_ctrl *c)
{
	char bdf[8];

	cprintf("%s: %s \"%s\" serial \"%s\"%s, interrupts %s (%d vector%s), INTMS %08x, resets %u%s\n", c->name,
		bdf_text(c->pci, bdf, sizeof(bdf)), c->model, c->serial, c->dead ? " DEAD" : "",
		pci_irq_mode_name(pci_irq_mode(c->pci)), c->nvec, c->nvec == 1 ? "" : "s", rd32(c, NVME_REG_INTMS), c->resets,
		c->noirq ? ", nvme-noirq in force" : "");
	cprintf("  I/O queue pairs: %u for %u CPU%s (%u granted by the controller)%s%s\n", c->nr_io, smp_num_cpus(),
		smp_num_cpus() == 1 ? "" : "s", c->queues_granted, c->fewer_why ? ": fewer because " : "",
		c->fewer_why ? c->fewer_why : "");
	if (c->noirq_percent)
		cprintf("  nvme-noirq: %u %% of I/O commands raise no interrupt (%s)\n", c->noirq_percent,
			c->noirq_percent >= NVME_PERCENT_MAX ? (c->intms_masked ? "INTMS" : "the I/O CQs have IEN=0") :
			c->io2_live ? "sent through the extra queue pair, whose CQ has IEN=0" : "INTMS around each chosen command");
	print_queue(&c->admin);
	for (unsigned int i = 0; i < c->nr_io; i++)
		print_queue(&c->io[i]);
	if (c->io2_live)
		print_queue(&c->io2);
	if (c->blk_registered)
		cprintf("  %s: namespace %u, %llu blocks of %u bytes%s\n", c->blk.name, c->nsid,
			(unsigned long long)c->ns.blocks, c->ns.block_size, c->ns.read_only ? ", write protected" : "");
}

static void clear_queue_stats(struct nvme_queue *q)
{
	unsigned long flags = spin_lock_irqsave(&q->lock);

	q->commands = q->by_irq_or_poll = q->by_wait = q->timeouts = q->stray = q->errors = 0;
	q->lost_reported = q->lost_unreported = 0;
	q->late = q->last_late_report_ns = 0;
	q->lost_ns_max = q->lost_ns_total = 0;
	q->lat_count = q->lat_total_ns = q->lat_max_ns = q->unnoticed_max_ns = 0;
	q->claim_waits = 0;
	spin_unlock_irqrestore(&q->lock, flags);
}

void nvme_clear_stats(struct nvme_ctrl *c)
{
	clear_queue_stats(&c->admin);
	for (unsigned int i = 0; i < c->nr_io; i++)
		clear_queue_stats(&c->io[i]);
	clear_queue_stats(&c->io2);
}
