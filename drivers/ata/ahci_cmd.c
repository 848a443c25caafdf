/*
 * ahci_cmd.c - the command engine of the AHCI driver: one non-queued
 * command per port in slot 0, as AHCI 1.3.1 section 5.5 describes it
 * (build the command FIS, PRD table and command header, set PxCI), with
 * kernel/irq's IRQ expecting around every command, completion by the
 * interrupt handler, a core poll or the driver's own check, and the
 * non-queued error recovery of section 6.2.2.1. docs/ahci.md has the
 * state diagram; ahci_internal.h the concurrency rules.
 *
 *   issue (thread): PxTFD not busy, ST on; header, FIS, PRDs written; with
 *     interrupts off: active = cmd, state WAITING, expect_irq, PxCI = 1.
 *   completion (handler, interrupts off; for an interrupt, a replay, or a
 *     core poll while expecting): PxIS read and cleared; an error bit ->
 *     FAILED; PxCI bit 0 clear -> the command is done: PxTFD and PRDBC
 *     read, unexpect_irq, DONE (or FAILED when the device set ERR/DF or
 *     moved fewer bytes than asked); PxCI still set with a FIS received ->
 *     progress (PIO setup of IDENTIFY), the bracket is renewed.
 *   wait (thread): sleep until the command leaves WAITING. After
 *     AHCI_IRQ_WAIT_MS without it, PxCI and PxIS are read: done or failed
 *     means the interrupt was lost (unexpect_irq(timedout), watch_irq, the
 *     driver completes it); still busy beyond the time-out -> -ETIMEDOUT.
 *   recovery (thread, ahci_exec): any failure restarts the port (ST off,
 *     SError and PxIS cleared, COMRESET if the device is stuck or the
 *     command timed out, ST on); a time-out or an HBA error is retried once.
 *
 * Whoever takes the command out of WAITING (interrupts disabled, the
 * host's lock held: ahci.c) completes it; nobody else touches it after, so it completes once, and a
 * failure is never turned into success (state FAILED is final).
 */
#include "ahci_internal.h"
#include <asm/cpu.h>
#include <kernel/errno.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <irq/trace.h>
#include <time/time.h>

#define NS_PER_MS 1000000ull
/* Sanity bound on the wake-ups of one wait: a clock that stopped cannot hang a command. */
#define AHCI_WAIT_PASSES_MAX (30ull * 1000 * 1000)
#define SLOT0 1u   /* PxCI bit of the one slot used */

/* ---- Expect brackets and completion (interrupts disabled) ------------------------- */

/*
 * "ahci_cmd" events of the interrupt core's trace (docs/trace.md) on the HBA's line: begin =
 * the ATA opcode, end = the result (0, or the negative errno as an unsigned value). The name
 * is registered at the first traced command (thread context: issue()).
 */
static unsigned int ahci_trace_tag;

static void ahci_trace(const struct ahci_port *p, bool begin, uint32_t value)
{
	if (!irq_trace_enabled() || p->host->line < 0)
		return;
	if (begin && !ahci_trace_tag)
		ahci_trace_tag = irq_trace_tag("ahci_cmd");
	if (ahci_trace_tag)
		irq_trace_drv(ahci_trace_tag, (unsigned int)p->host->line,
			      begin ? IRQ_TDRV_BEGIN : IRQ_TDRV_END, value);
}

static void open_bracket(struct ahci_port *p)
{
	p->issue_ns = ktime_get_ns();
	if (!p->expecting) {
		p->expecting = true;
		p->stats.brackets++;
		ata_fault_cpustall();
		expect_irq(p->expect);
	}
}

static void close_bracket(struct ahci_port *p, bool timedout)
{
	if (p->expecting) {
		p->expecting = false;
		p->stats.brackets_timed_out += timedout;
		unexpect_irq(p->expect, timedout);
	}
}

static void finish(struct ahci_port *p, struct ahci_cmd *cmd, enum ata_cmd_state state, int result)
{
	if (cmd->noirq && state == ATA_CMD_DONE) {
		/* No interrupt was raised: this is how long the completion went unnoticed, at most. */
		uint64_t lat = ktime_get_ns() - p->issue_ns;

		p->stats.noirq_done++;
		p->stats.noirq_lat_total_ns += lat;
		if (lat > p->stats.noirq_lat_max_ns)
			p->stats.noirq_lat_max_ns = lat;
		/* A handler run that found it still running came before the completion. */
		lat = ktime_get_ns() - (p->last_look_ns > p->issue_ns ? p->last_look_ns : p->issue_ns);
		if (lat > p->stats.noirq_unseen_max_ns)
			p->stats.noirq_unseen_max_ns = lat;
	}
	close_bracket(p, false);
	ahci_trace(p, false, (uint32_t)result);
	cmd->result = result;
	p->active = NULL;
	cmd->state = state;
}

/* collect - what the HBA says about a command that left PxCI (or failed). */
static void collect(struct ahci_port *p, struct ahci_cmd *cmd, uint32_t is)
{
	cmd->is |= is;
	cmd->tfd = ahci_port_read(p, AHCI_PxTFD);
	cmd->done = p->clb[0].prdbc;
}

/* complete_done - PxCI is clear: judge the result. The device's status decides, then the count. */
static void complete_done(struct ahci_port *p, struct ahci_cmd *cmd, uint32_t is)
{
	uint8_t status;

	collect(p, cmd, is);
	status = (uint8_t)(cmd->tfd & AHCI_PxTFD_STS_MASK);
	p->stats.serviced++;
	if (status & (ATA_SR_ERR | ATA_SR_DF)) {
		p->stats.device_errors++;
		finish(p, cmd, ATA_CMD_FAILED, -EIO);
	} else if (status & (ATA_SR_BSY | ATA_SR_DRQ)) {
		finish(p, cmd, ATA_CMD_FAILED, -EPROTO);    /* done, yet the device still busy */
	} else if (cmd->len && (cmd->atapi ? cmd->done > cmd->len : cmd->done != cmd->len)) {
		finish(p, cmd, ATA_CMD_FAILED, -EPROTO);    /* a short (or long) transfer */
	} else {
		finish(p, cmd, ATA_CMD_DONE, 0);
	}
}

/*
 * service_port - look at @p for the handler (an interrupt or a poll).
 * RETURNS true when it found something of @p's to service (a completion,
 * an error, progress, or stray status it cleared).
 */
static bool service_port(struct ahci_port *p)
{
	struct ahci_cmd *cmd = p->active;
	uint32_t is = ahci_port_read(p, AHCI_PxIS), ci;

	if (is == 0xFFFFFFFFu)
		return false;                   /* the HBA is gone: reads float */
	if (!cmd || cmd->state != ATA_CMD_WAITING) {
		if (!is)
			return false;
		/* Status with no command waiting (a D2H FIS after COMRESET, hot-plug): clear it, or a
		 * level line would stay asserted. PCS/PRCS only clear with SError's X/N bits. */
		if (is & (AHCI_PxIS_PCS | AHCI_PxIS_PRCS))
			ahci_port_write(p, AHCI_PxSERR, AHCI_SERR_ALL);
		ahci_port_write(p, AHCI_PxIS, is);
		p->stats.strays++;
		return true;
	}
	ahci_isgap(p);
	ci = ahci_port_read(p, AHCI_PxCI);
	/*
	 * PxIS was read before PxCI: a command that completed between the two reads
	 * shows PxCI clear with its status not seen (QEMU clears the slot and posts
	 * DHRS in one step, between any two register reads; the host descheduling the
	 * vCPU between them makes it likely). Read PxIS again, or that status stays
	 * set, and the interrupt it raised would find it with no command waiting (a
	 * stray) or under the next command (a false "progress"). Test: ahci-isgap.
	 * Not when the first read already held a FIS that ends a command
	 * (AHCI_PxIS_DONE_FIS): the completion was seen, a second read finds nothing.
	 */
	if (!(ci & SLOT0) && !(is & AHCI_PxIS_DONE_FIS))
		is |= ahci_port_read(p, AHCI_PxIS);
	if (is & AHCI_PxIS_ERRORS) {
		ahci_port_write(p, AHCI_PxIS, is);
		cmd->serr = ahci_port_read(p, AHCI_PxSERR);
		collect(p, cmd, is);
		if (is & AHCI_PxIS_ERRORS & ~AHCI_PxIS_TFES) {
			p->stats.hba_errors++;
			finish(p, cmd, ATA_CMD_FAILED, -EPROTO);
		} else {
			p->stats.device_errors++;
			finish(p, cmd, ATA_CMD_FAILED, -EIO);
		}
		return true;
	}
	if (ci & SLOT0) {
		if (!is) {
			p->last_look_ns = ktime_get_ns();
			return false;           /* still running, nothing to say */
		}
		ahci_port_write(p, AHCI_PxIS, is);
		cmd->is |= is;
		p->stats.progress++;
		close_bracket(p, false);       /* this interrupt came; the completion's is next */
		open_bracket(p);
		return true;
	}
	if (is)
		ahci_port_write(p, AHCI_PxIS, is);
	complete_done(p, cmd, is);
	return true;
}

irqreturn_t ahci_interrupt(unsigned int irq, void *dev_id)
{
	struct ahci_host *h = dev_id;
	uint32_t is = ahci_read(h, AHCI_IS);
	bool handled = false;

	(void)irq;
	h->handler_calls++;
	if (is == 0xFFFFFFFFu) {
		h->not_ours++;
		return IRQ_NONE;
	}
	for (unsigned int i = 0; i < AHCI_MAX_PORTS; i++) {
		struct ahci_port *p = &h->port[i];

		/* A poll comes with IS clear (the interrupt was lost): look at every busy port. */
		if (p->started && (((is >> i) & 1) || p->active))
			handled |= service_port(p);
	}
	/* After PxIS: IS is the OR of PxIS & PxIE and would come straight back (AHCI 1.3.1 10.7.2.1). */
	is &= h->pi;
	if (is)
		ahci_write(h, AHCI_IS, is);
	if (!handled)
		h->not_ours++;
	return handled ? IRQ_HANDLED : IRQ_NONE;
}

/* ---- Thread side --------------------------------------------------------------------- */

static const char *cmd_name(const struct ahci_cmd *cmd)
{
	return cmd->name ? cmd->name : "command";
}

static uint32_t timeout_ms(const struct ahci_cmd *cmd)
{
	return cmd->timeout_ms ? cmd->timeout_ms : AHCI_CMD_TIMEOUT_MS;
}

/* report_lost - log a lost completion: the first few, then at most one per interval. */
static void report_lost(struct ahci_port *p, const struct ahci_cmd *cmd, uint32_t is)
{
	uint64_t now = ktime_get_ns();
	char names[ATA_DECODE_LEN / 2];

	if (p->stats.lost_recovered > AHCI_LOST_REPORT_BURST &&
	    now - p->last_lost_report_ns < (uint64_t)AHCI_LOST_REPORT_INTERVAL_MS * NS_PER_MS) {
		p->lost_unreported++;
		return;
	}
	pr_warn("%s: %s: lost interrupt: %s is done (PxIS %s, PxIE %#x) but %s (line %d) did not "
		"come in %u ms; the driver completes it (%llu so far, %llu not reported)\n",
		p->host->name, p->name, cmd_name(cmd), ahci_is_names(is, names, sizeof(names)),
		ahci_port_read(p, AHCI_PxIE), p->host->irq_kind ? p->host->irq_kind : "the interrupt",
		p->host->line, (unsigned int)AHCI_IRQ_WAIT_MS,
		(unsigned long long)p->stats.lost_recovered, (unsigned long long)p->lost_unreported);
	p->last_lost_report_ns = now;
	p->lost_unreported = 0;
}

/*
 * report_late - the completion's interrupt did not come in AHCI_IRQ_WAIT_MS,
 * but the CPU it is routed to did not run meanwhile (irq_expect_cpu_ran):
 * late, not lost. Info level, rate-limited as report_lost.
 */
static void report_late(struct ahci_port *p, const struct ahci_cmd *cmd)
{
	uint64_t now = ktime_get_ns();

	if (p->stats.late_recovered > AHCI_LOST_REPORT_BURST &&
	    now - p->last_late_report_ns < (uint64_t)AHCI_LOST_REPORT_INTERVAL_MS * NS_PER_MS)
		return;
	pr_info("%s: %s: %s (line %d) late: its CPU did not run in %u ms (the host or firmware stopped it, or its "
		"interrupts were off); the driver completed %s (%llu so far)\n",
		p->host->name, p->name, p->host->irq_kind ? p->host->irq_kind : "the interrupt", p->host->line,
		(unsigned int)AHCI_IRQ_WAIT_MS, cmd_name(cmd), (unsigned long long)p->stats.late_recovered);
	p->last_late_report_ns = now;
}

/*
 * recover_lost - the command left PxCI (or failed) and no interrupt told us:
 * complete it. Lost only if the line's CPU ran meanwhile (asked before the
 * bracket closes: the core's mark is the open expect's).
 */
static void recover_lost(struct ahci_port *p, struct ahci_cmd *cmd)
{
	uint32_t is = ahci_port_read(p, AHCI_PxIS);
	bool ran = !p->expecting || irq_expect_cpu_ran(p->expect);

	close_bracket(p, true);
	if (ran) {
		p->stats.lost_recovered++;
		report_lost(p, cmd, is);
		if (p->host->irq_requested)
			watch_irq((unsigned int)p->host->line, p->host);
	} else {
		p->stats.late_recovered++;
		report_late(p, cmd);
	}
	(void)service_port(p);
}

/* wait_done - sleep until @cmd leaves WAITING, recovering lost completions, or time out. */
static void wait_done(struct ahci_port *p, struct ahci_cmd *cmd, uint64_t start_ns)
{
	const uint64_t wait_ns = (uint64_t)AHCI_IRQ_WAIT_MS * NS_PER_MS;
	const uint64_t cpu_look_ns = (uint64_t)AHCI_CPU_LOOK_MS * NS_PER_MS;
	const uint64_t limit_ns = (uint64_t)timeout_ms(cmd) * NS_PER_MS;
	unsigned long flags = ahci_lock(p->host);
	uint64_t passes = 0;

	while (cmd->state == ATA_CMD_WAITING) {
		uint64_t now = ktime_get_ns(), deadline;

		if (++passes > AHCI_WAIT_PASSES_MAX || now - start_ns >= limit_ns) {
			close_bracket(p, true);
			p->stats.timeouts++;
			cmd->serr = ahci_port_read(p, AHCI_PxSERR);
			collect(p, cmd, ahci_port_read(p, AHCI_PxIS));
			finish(p, cmd, ATA_CMD_FAILED, -ETIMEDOUT);
			break;
		}
		if (now - p->issue_ns >= wait_ns) {
			if (!(ahci_port_read(p, AHCI_PxCI) & SLOT0) ||
			    (ahci_port_read(p, AHCI_PxIS) & AHCI_PxIS_ERRORS)) {
				recover_lost(p, cmd);
				continue;
			}
			deadline = now + wait_ns;        /* still running: look again later */
		} else {
			deadline = p->issue_ns + wait_ns;
		}
		if (p->expecting && now - p->issue_ns >= cpu_look_ns) {
			/* A long wait: look at the line's CPU now and then, so that the
			 * time-out can tell a CPU that stopped lately from one that ran
			 * (irq_expect_cpu_ran's looks: kernel/irq/stall.c). */
			(void)irq_expect_cpu_ran(p->expect);
			if (deadline > now + cpu_look_ns)
				deadline = now + cpu_look_ns;
		} else if (p->expecting && deadline > p->issue_ns + cpu_look_ns) {
			deadline = p->issue_ns + cpu_look_ns;   /* the first look, whatever the wake-ups */
		}
		if (deadline > start_ns + limit_ns)
			deadline = start_ns + limit_ns;
		ahci_wait(p, deadline);
	}
	ahci_unlock(p->host, flags);
}

/* prepare - command header, FIS, ACMD and PRD table of slot 0. RETURNS 0 or -EINVAL/-E2BIG. */
static int prepare(struct ahci_port *p, struct ahci_cmd *cmd)
{
	uint8_t fis[FIS_H2D_BYTES];
	struct ahci_prd prdt[AHCI_PRDT_ENTRIES];
	volatile struct ahci_cmd_header *hdr = &p->clb[0];
	volatile uint8_t *ct = p->ct;
	int n = 0;

	if (cmd->len) {
		n = ahci_fill_prdt(prdt, AHCI_PRDT_ENTRIES, (uintptr_t)cmd->buf, cmd->len,
				   AHCI_PRD_PIECE_BYTES);
		if (n < 0)
			return n;
	}
	ahci_build_h2d_fis(fis, &cmd->tf);
	for (unsigned int i = 0; i < AHCI_CT_PRDT; i++)
		ct[i] = 0;
	for (unsigned int i = 0; i < FIS_H2D_BYTES; i++)
		ct[AHCI_CT_CFIS + i] = fis[i];
	for (unsigned int i = 0; cmd->atapi && i < AHCI_ACMD_BYTES; i++)
		ct[AHCI_CT_ACMD + i] = cmd->cdb[i];
	for (int i = 0; i < n; i++) {
		volatile struct ahci_prd *d = (volatile struct ahci_prd *)(ct + AHCI_CT_PRDT) + i;

		d->dba = prdt[i].dba;
		d->dbau = prdt[i].dbau;
		d->reserved = 0;
		d->dbc = prdt[i].dbc;
	}
	hdr->flags = (FIS_H2D_DWORDS & AHCI_CH_CFL_MASK) | (cmd->write ? AHCI_CH_WRITE : 0) |
		     (cmd->atapi ? AHCI_CH_ATAPI : 0) | ((uint32_t)n << AHCI_CH_PRDTL_SHIFT);
	hdr->prdbc = 0;
	hdr->ctba = (uint32_t)(uintptr_t)ct;
	hdr->ctbau = 0;
	return 0;
}

/* issue - one attempt of @cmd. RETURNS 0 or cmd->result. */
static int issue(struct ahci_port *p, struct ahci_cmd *cmd)
{
	unsigned long flags;
	uint64_t start, lost;
	uint32_t tfd = ahci_port_read(p, AHCI_PxTFD);
	int err;

	cmd->state = ATA_CMD_IDLE;
	cmd->is = cmd->serr = cmd->done = 0;
	cmd->tfd = tfd;
	cmd->result = 0;
	if ((tfd & (ATA_SR_BSY | ATA_SR_DRQ)) || !(ahci_port_read(p, AHCI_PxCMD) & AHCI_PxCMD_ST) ||
	    (ahci_port_read(p, AHCI_PxCI) & SLOT0))
		return cmd->result = -EPROTO;    /* the port is not ready: ahci_exec recovers it */
	err = prepare(p, cmd);
	if (err)
		return cmd->result = err;
	cmd->noirq = ata_drop_decision(p->seq++, p->noirq_percent) || ahci_late_on();
	if (cmd->noirq) {
		ahci_port_irq_enable(p, false);
		p->stats.noirq++;
	}
	flags = ahci_lock(p->host);
	p->active = cmd;
	cmd->state = ATA_CMD_WAITING;
	ahci_trace(p, true, cmd->tf.command);
	open_bracket(p);
	start = p->issue_ns;
	/* The table and header above are ordinary (cached, snooped) stores; x86 keeps them
	 * before the uncached PxCI store, the compiler must too. */
	__asm__ volatile("" ::: "memory");
	ahci_port_write(p, AHCI_PxCI, SLOT0);
	if (ahci_isgap_on())
		(void)service_port(p);   /* ahci-isgap: a look now, as a poll coming now would take */
	ahci_unlock(p->host, flags);
	p->stats.commands++;
	if (cmd->noirq)
		ahci_late_arm(p, start);
	lost = p->stats.lost_recovered + p->stats.late_recovered;
	wait_done(p, cmd, start);
	if (cmd->noirq) {
		ahci_late_done(p, p->stats.lost_recovered + p->stats.late_recovered != lost);
		/* Cleared status first: re-enabling with bits left would raise a stale interrupt. */
		flags = ahci_lock(p->host);
		ahci_port_write(p, AHCI_PxIS, ahci_port_read(p, AHCI_PxIS));
		ahci_port_irq_enable(p, true);
		ahci_unlock(p->host, flags);
	}
	return cmd->state == ATA_CMD_DONE ? 0 : cmd->result;
}

void ahci_log_failure(const struct ahci_port *p, const struct ahci_cmd *cmd, uint64_t lba,
		      uint32_t count, int err)
{
	char msg[ATA_DECODE_LEN * 2], names[ATA_DECODE_LEN / 2];

	if (err == -ETIMEDOUT)
		pr_err("%s: %s: %s LBA %llu+%u timed out after %u ms (PxCI still set, PxIS %s, PxTFD %#x)\n",
		       p->host->name, p->name, cmd_name(cmd), (unsigned long long)lba, count,
		       timeout_ms(cmd), ahci_is_names(cmd->is, names, sizeof(names)), cmd->tfd);
	else if (err == -EPROTO && !(cmd->is & AHCI_PxIS_ERRORS))
		pr_err("%s: %s: %s LBA %llu+%u: the HBA broke the protocol (PxIS %s, PxTFD %#x, "
		       "%u of %u bytes moved)\n", p->host->name, p->name, cmd_name(cmd),
		       (unsigned long long)lba, count, ahci_is_names(cmd->is, names, sizeof(names)),
		       cmd->tfd, cmd->done, cmd->len);
	else if (err == -EINVAL || err == -E2BIG)
		pr_err("%s: %s: %s: a buffer at %p (%u bytes) the HBA cannot reach\n", p->host->name,
		       p->name, cmd_name(cmd), (void *)cmd->buf, cmd->len);
	else {
		ahci_decode_error(cmd->is, cmd->serr, cmd->tfd, msg, sizeof(msg));
		pr_err("%s: %s: %s LBA %llu+%u failed: %s\n", p->host->name, p->name, cmd_name(cmd),
		       (unsigned long long)lba, count, msg);
	}
}

int ahci_exec(struct ahci_port *p, struct ahci_cmd *cmd)
{
	int err = -ENODEV;

	if (!p || !p->started || !cmd)
		return -ENODEV;
	if (cmd->len && !cmd->buf)
		return -EINVAL;
	for (unsigned int attempt = 0;; attempt++) {
		err = issue(p, cmd);
		if (err == 0)
			return 0;
		if (err == -EINVAL || err == -E2BIG)
			break;                      /* nothing was issued */
		/* The device refused (TFES/ERR): its decision, not a glitch. After TFES the HBA
		 * stops fetching commands until ST is cleared and set again (6.2.2.1). */
		if (err == -EIO) {
			ahci_port_recover(p, false);
			break;
		}
		if (cmd->no_retry || attempt >= AHCI_RETRIES) {
			ahci_port_recover(p, err == -ETIMEDOUT);
			break;
		}
		ahci_log_failure(p, cmd, cmd->tf.lba, cmd->tf.count, err);
		pr_warn("%s: %s: resetting port %u and retrying %s\n", p->host->name, p->name, p->index,
			cmd_name(cmd));
		p->stats.retries++;
		if (ahci_port_recover(p, err == -ETIMEDOUT))
			break;
	}
	p->stats.errors++;
	return err;
}
