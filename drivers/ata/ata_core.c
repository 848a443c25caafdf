/*
 * ata_core.c - the command engine of drivers/ata: interrupt-driven PIO as
 * ATA/ATAPI-6 (T13 1410D) section 9 describes it (PIO data-in 9.5, PIO
 * data-out 9.6, non-data 9.4, PACKET 9.8-9.10, software reset 9.2), with
 * the IRQ expecting of kernel/irq (issue 4) around every interrupt a
 * command waits for, lost-interrupt recovery, timeouts, and SRST with one
 * retry. docs/ata.md has the state diagram; ata_internal.h the rules.
 *
 * One command is in flight per channel (ch->active). Its life:
 *
 *   issue (thread): wait !BSY, select, program the taskfile, read Status
 *     once (a stale INTRQ of this channel goes away), then with interrupts
 *     off: active = cmd, state WAITING (or ISSUING for PIO out / PACKET,
 *     whose first block is sent by polling DRQ), open the expect bracket,
 *     write the command register.
 *   phase (interrupt handler, or a core poll while expecting): alternate
 *     status first, BSY -> IRQ_NONE; nothing WAITING -> IRQ_NONE; else read
 *     Status (acknowledges INTRQ), close the bracket, move one DRQ block,
 *     and either open the next bracket or complete the command.
 *   wait (thread): sleep until the command leaves WAITING. If a phase
 *     waited ATA_IRQ_WAIT_MS and the device is not busy, the interrupt was
 *     lost: the thread services the phase itself (unexpect_irq(timedout),
 *     watch_irq). If the device is busy beyond the busy timeout, the
 *     command fails with -ETIMEDOUT, and ata_exec() resets and retries.
 *
 * Every state change of a command happens with interrupts disabled on our
 * single CPU, so completion is decided exactly once.
 */
#include "ata_internal.h"
#include <kernel/errno.h>
#include <kernel/printk.h>

#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull
#define US_PER_MS 1000u
/* Alternate-status reads that make the 400 ns the registers need to settle (ATA/ATAPI-6 9.7). */
#define ATA_SETTLE_READS 4
#define BYTE_BITS 8
#define WORD_BYTES 2
/*
 * Sanity bound on the wake-ups of one wait: a phase ends by deadline, so
 * only a clock that stopped could need more (1 MHz of interrupts for the
 * longest timeout). Exceeding it fails the command instead of hanging.
 */
#define ATA_WAIT_PASSES_MAX (30ull * 1000 * 1000)

static inline uint16_t reg(const struct ata_channel *ch, unsigned int offset)
{
	return (uint16_t)(ch->cmd_base + offset);
}

uint8_t ata_read_alt_status(const struct ata_channel *ch)
{
	return ata_hw_inb(ch->ctl_port);
}

static void settle(const struct ata_channel *ch)
{
	for (int i = 0; i < ATA_SETTLE_READS; i++)
		(void)ata_read_alt_status(ch);
}

void ata_select(struct ata_channel *ch, unsigned int slot)
{
	if (ch->selected == (int)slot)
		return;
	ata_hw_outb(reg(ch, ATA_REG_DEVICE), ATA_DEV_OBSOLETE | (slot ? ATA_DEV_SLAVE : 0));
	settle(ch);
	ch->selected = (int)slot;
}

void ata_set_nien(struct ata_channel *ch, bool nien)
{
	ch->devctl = nien ? ATA_CTL_NIEN : 0;
	ata_hw_outb(ch->ctl_port, ch->devctl);
}

int ata_wait_not_busy(struct ata_channel *ch, unsigned int timeout_ms, uint8_t *status)
{
	uint64_t deadline = ata_hw_now_ns() + (uint64_t)timeout_ms * NS_PER_MS;
	uint64_t polls = (uint64_t)timeout_ms * US_PER_MS / ATA_POLL_INTERVAL_US + 1;
	uint8_t st = ata_read_alt_status(ch);

	for (uint64_t i = 0; (st & ATA_SR_BSY) && i < polls && ata_hw_now_ns() < deadline; i++) {
		ata_hw_delay_us(ATA_POLL_INTERVAL_US);
		st = ata_read_alt_status(ch);
	}
	if (status)
		*status = st;
	return (st & ATA_SR_BSY) ? -ETIMEDOUT : 0;
}

/* ---- Expect brackets and completion (interrupts disabled) ----------------------- */

static void open_phase(struct ata_channel *ch)
{
	ch->phase_start_ns = ata_hw_now_ns();
	if (!ch->expecting) {
		ch->expecting = true;
		ch->stats.brackets++;
		ata_hw_expect(ch);
	}
}

static void close_phase(struct ata_channel *ch, bool timedout)
{
	if (ch->expecting) {
		ch->expecting = false;
		ch->stats.brackets_timed_out += timedout;
		ata_hw_unexpect(ch, timedout);
	}
}

static void finish(struct ata_channel *ch, struct ata_cmd *cmd, enum ata_cmd_state state,
		   uint8_t status, uint8_t error, int result)
{
	close_phase(ch, false);
	cmd->status = status;
	cmd->error = error;
	cmd->result = result;
	ch->active = NULL;
	cmd->state = state;
}

/* The device did something its protocol does not allow; ata_exec() logs and resets. */
static void protocol_failure(struct ata_channel *ch, struct ata_cmd *cmd, uint8_t status)
{
	finish(ch, cmd, ATA_CMD_FAILED, status, 0, -EPROTO);
}

/* ---- Phases (interrupts disabled) --------------------------------------------------- */

static void write_block(struct ata_channel *ch, struct ata_cmd *cmd)
{
	uint32_t n = cmd->len - cmd->done < cmd->block_bytes ? cmd->len - cmd->done : cmd->block_bytes;

	ata_hw_outsw(reg(ch, ATA_REG_DATA), cmd->buf + cmd->done, n / WORD_BYTES);
	cmd->done += n;
	settle(ch);
}

static void service_pio_in(struct ata_channel *ch, struct ata_cmd *cmd, uint8_t status)
{
	uint32_t n = cmd->len - cmd->done < cmd->block_bytes ? cmd->len - cmd->done : cmd->block_bytes;
	uint8_t alt;

	bool more = n < cmd->len - cmd->done;

	if (!(status & ATA_SR_DRQ) || n == 0) {
		protocol_failure(ch, cmd, status);
		return;
	}
	/* Expect before the transfer: the device starts on the next block as the last word goes. */
	if (more)
		open_phase(ch);
	ata_hw_insw(reg(ch, ATA_REG_DATA), cmd->buf + cmd->done, n / WORD_BYTES);
	cmd->done += n;
	if (more)
		return;
	settle(ch);
	alt = ata_read_alt_status(ch);
	if (alt & (ATA_SR_ERR | ATA_SR_DF))
		finish(ch, cmd, ATA_CMD_FAILED, alt, ata_hw_inb(reg(ch, ATA_REG_ERROR)), -EIO);
	else if (alt & ATA_SR_DRQ)
		protocol_failure(ch, cmd, alt);     /* more data than the command asked for */
	else
		finish(ch, cmd, ATA_CMD_DONE, alt, 0, 0);
}

static void service_pio_out(struct ata_channel *ch, struct ata_cmd *cmd, uint8_t status)
{
	if (cmd->done >= cmd->len) {
		if (status & ATA_SR_DRQ)
			protocol_failure(ch, cmd, status);
		else
			finish(ch, cmd, ATA_CMD_DONE, status, 0, 0);
		return;
	}
	if (!(status & ATA_SR_DRQ)) {
		protocol_failure(ch, cmd, status);
		return;
	}
	open_phase(ch);                 /* every block written is answered by an interrupt */
	write_block(ch, cmd);
}

/* packet_data - move one DRQ block of @bytes; the device decides the size. */
static void packet_data(struct ata_channel *ch, struct ata_cmd *cmd, uint32_t bytes, bool in)
{
	uint32_t words = (bytes + 1) / WORD_BYTES;
	uint32_t room = (cmd->len - cmd->done) / WORD_BYTES;
	uint32_t take = words < room ? words : room;
	uint16_t scratch = 0;

	if (in)
		ata_hw_insw(reg(ch, ATA_REG_DATA), cmd->buf + cmd->done, take);
	else
		ata_hw_outsw(reg(ch, ATA_REG_DATA), cmd->buf + cmd->done, take);
	cmd->done += take * WORD_BYTES;
	/* The device offers or wants more than the buffer: drain or pad (bounded by @bytes). */
	for (uint32_t i = take; i < words; i++) {
		if (in)
			ata_hw_insw(reg(ch, ATA_REG_DATA), &scratch, 1);
		else
			ata_hw_outsw(reg(ch, ATA_REG_DATA), &scratch, 1);
	}
}

static void service_packet(struct ata_channel *ch, struct ata_cmd *cmd, uint8_t status)
{
	uint8_t reason = ata_hw_inb(reg(ch, ATA_REG_COUNT)) & (ATAPI_IR_COD | ATAPI_IR_IO);
	uint32_t bytes;

	if (!(status & ATA_SR_DRQ)) {
		finish(ch, cmd, ATA_CMD_DONE, status, 0, 0);    /* the status phase */
		return;
	}
	bytes = ata_hw_inb(reg(ch, ATA_REG_LBA_MID)) |
		(uint32_t)ata_hw_inb(reg(ch, ATA_REG_LBA_HIGH)) << BYTE_BITS;
	/* A data block: CoD clear, and IO (to the host) must match the command's direction. */
	if (bytes == 0 || (reason & ATAPI_IR_COD) || (bool)(reason & ATAPI_IR_IO) == cmd->packet_to_device) {
		protocol_failure(ch, cmd, status);
		return;
	}
	open_phase(ch);                 /* a data block is always followed by another interrupt */
	packet_data(ch, cmd, bytes, !cmd->packet_to_device);
	settle(ch);
}

/* service - the device left BSY for the command in flight: do what it asks. */
static void service(struct ata_channel *ch, struct ata_cmd *cmd, uint8_t status)
{
	if (status & (ATA_SR_ERR | ATA_SR_DF)) {
		finish(ch, cmd, ATA_CMD_FAILED, status, ata_hw_inb(reg(ch, ATA_REG_ERROR)), -EIO);
		return;
	}
	switch (cmd->proto) {
	case ATA_PROTO_NODATA:
		if (status & ATA_SR_DRQ)
			protocol_failure(ch, cmd, status);
		else
			finish(ch, cmd, ATA_CMD_DONE, status, 0, 0);
		break;
	case ATA_PROTO_PIO_IN:
		service_pio_in(ch, cmd, status);
		break;
	case ATA_PROTO_PIO_OUT:
		service_pio_out(ch, cmd, status);
		break;
	case ATA_PROTO_PACKET:
		service_packet(ch, cmd, status);
		break;
	default:
		protocol_failure(ch, cmd, status);
		break;
	}
}

/*
 * clear_stray - no phase waits, so the interrupt is not a completion. Only
 * when the bus-master status proves that this channel's device asserted
 * INTRQ is Status read to lower it (on a shared level line it would
 * otherwise storm); without that proof the device is left alone: reading
 * Status would take an interrupt the next command issue clears anyway.
 */
static void clear_stray(struct ata_channel *ch)
{
	uint8_t bm;

	if (!ch->bm_base)
		return;
	bm = ata_hw_inb((uint16_t)(ch->bm_base + ATA_BM_STATUS));
	if (!(bm & ATA_BM_ST_INTR))
		return;
	(void)ata_hw_inb(reg(ch, ATA_REG_STATUS));
	ata_hw_outb((uint16_t)(ch->bm_base + ATA_BM_STATUS), (bm & ATA_BM_ST_DMA_CAP) | ATA_BM_ST_INTR);
	ch->stats.strays++;
}

/* ack_bus_master - clear the bus-master INTR bit of an interrupt we serviced. */
static void ack_bus_master(struct ata_channel *ch)
{
	uint8_t bm;

	if (!ch->bm_base)
		return;
	bm = ata_hw_inb((uint16_t)(ch->bm_base + ATA_BM_STATUS));
	if (bm & ATA_BM_ST_INTR)
		ata_hw_outb((uint16_t)(ch->bm_base + ATA_BM_STATUS),
			    (bm & ATA_BM_ST_DMA_CAP) | ATA_BM_ST_INTR);
}

irqreturn_t ata_interrupt(unsigned int irq, void *dev_id)
{
	struct ata_channel *ch = dev_id;
	struct ata_cmd *cmd = ch->active;
	uint8_t status;

	(void)irq;
	ch->stats.handler_calls++;
	if (ata_read_alt_status(ch) & ATA_SR_BSY) {
		ch->stats.not_ours_busy++;
		return IRQ_NONE;
	}
	if (!cmd || cmd->state != ATA_CMD_WAITING) {
		ch->stats.not_ours_idle++;
		clear_stray(ch);
		return IRQ_NONE;
	}
	status = ata_hw_inb(reg(ch, ATA_REG_STATUS));
	ack_bus_master(ch);
	close_phase(ch, false);
	ch->stats.serviced++;
	service(ch, cmd, status);
	return IRQ_HANDLED;
}

/* ---- Thread side ------------------------------------------------------------------------ */

static uint32_t busy_timeout_ms(const struct ata_cmd *cmd)
{
	return cmd->busy_timeout_ms ? cmd->busy_timeout_ms : ATA_BUSY_TIMEOUT_MS;
}

static const char *cmd_name(const struct ata_cmd *cmd)
{
	return cmd->name ? cmd->name : "command";
}

static void write_taskfile(struct ata_channel *ch, const struct ata_device *dev,
			   const struct ata_taskfile *tf)
{
	uint8_t device = ATA_DEV_OBSOLETE | (dev->slot ? ATA_DEV_SLAVE : 0);

	if (tf->lba48) {
		/* High-order bytes first: each register is a two-deep FIFO (ATA8-ACS 4.13.2). */
		ata_hw_outb(reg(ch, ATA_REG_FEATURES), 0);
		ata_hw_outb(reg(ch, ATA_REG_COUNT), (uint8_t)(tf->count >> BYTE_BITS));
		ata_hw_outb(reg(ch, ATA_REG_LBA_LOW), (uint8_t)(tf->lba >> (3 * BYTE_BITS)));
		ata_hw_outb(reg(ch, ATA_REG_LBA_MID), (uint8_t)(tf->lba >> (4 * BYTE_BITS)));
		ata_hw_outb(reg(ch, ATA_REG_LBA_HIGH), (uint8_t)(tf->lba >> (5 * BYTE_BITS)));
	} else if (tf->lba_mode) {
		device |= (uint8_t)(tf->lba >> (3 * BYTE_BITS)) & ATA_DEV_LBA28_HIGH;
	}
	if (tf->lba_mode)
		device |= ATA_DEV_LBA;
	ata_hw_outb(reg(ch, ATA_REG_FEATURES), tf->features);
	ata_hw_outb(reg(ch, ATA_REG_COUNT), (uint8_t)tf->count);
	ata_hw_outb(reg(ch, ATA_REG_LBA_LOW), (uint8_t)tf->lba);
	ata_hw_outb(reg(ch, ATA_REG_LBA_MID), (uint8_t)(tf->lba >> BYTE_BITS));
	ata_hw_outb(reg(ch, ATA_REG_LBA_HIGH), (uint8_t)(tf->lba >> (2 * BYTE_BITS)));
	ata_hw_outb(reg(ch, ATA_REG_DEVICE), device);
}

/* send_first - PIO out and PACKET: poll for the first DRQ, send the block or packet. */
static void send_first(struct ata_channel *ch, struct ata_cmd *cmd)
{
	uint8_t st = 0;
	unsigned long flags;
	uint64_t deadline = ata_hw_now_ns() + (uint64_t)busy_timeout_ms(cmd) * NS_PER_MS;
	uint64_t polls = (uint64_t)busy_timeout_ms(cmd) * US_PER_MS / ATA_POLL_INTERVAL_US + 1;

	for (uint64_t i = 0; i < polls; i++) {
		st = ata_read_alt_status(ch);
		if (!(st & ATA_SR_BSY) && (st & (ATA_SR_DRQ | ATA_SR_ERR | ATA_SR_DF)))
			break;
		if (ata_hw_now_ns() >= deadline)
			break;
		ata_hw_delay_us(ATA_POLL_INTERVAL_US);
	}
	flags = ata_hw_irq_save();
	if (cmd->state != ATA_CMD_ISSUING) {
		ata_hw_irq_restore(flags);
		return;
	}
	/* Status, not alternate: lowers an INTRQ raised for the DRQ ("interrupt DRQ" devices). */
	st = ata_hw_inb(reg(ch, ATA_REG_STATUS));
	if (st & ATA_SR_BSY) {
		ch->stats.timeouts++;
		finish(ch, cmd, ATA_CMD_FAILED, st, 0, -ETIMEDOUT);
	} else if (st & (ATA_SR_ERR | ATA_SR_DF)) {
		finish(ch, cmd, ATA_CMD_FAILED, st, ata_hw_inb(reg(ch, ATA_REG_ERROR)), -EIO);
	} else if (!(st & ATA_SR_DRQ)) {
		protocol_failure(ch, cmd, st);
	} else {
		open_phase(ch);             /* before the device can start: it interrupts when done */
		if (cmd->proto == ATA_PROTO_PACKET)
			ata_hw_outsw(reg(ch, ATA_REG_DATA), cmd->packet, ATAPI_PACKET_BYTES / WORD_BYTES);
		else
			write_block(ch, cmd);
		settle(ch);
		cmd->state = ATA_CMD_WAITING;
	}
	ata_hw_irq_restore(flags);
}

/* report_lost - log a lost interrupt: the first few, then at most one per interval. */
static void report_lost(struct ata_channel *ch, const struct ata_cmd *cmd, uint8_t status)
{
	uint64_t now = ata_hw_now_ns();
	char names[ATA_DECODE_LEN / 2];

	if (ch->stats.lost_recovered > ATA_LOST_REPORT_BURST &&
	    now - ch->last_lost_report_ns < (uint64_t)ATA_LOST_REPORT_INTERVAL_MS * NS_PER_MS) {
		ch->lost_unreported++;
		return;
	}
	pr_warn("%s: lost interrupt: %s is ready (status %s) but IRQ %u did not come in %u ms; "
		"the driver completes it by polling (%llu so far, %llu not reported)\n",
		ch->name, cmd_name(cmd), ata_status_names(status, names, sizeof(names)), ch->isa_irq,
		(unsigned int)ATA_IRQ_WAIT_MS, (unsigned long long)ch->stats.lost_recovered,
		(unsigned long long)ch->lost_unreported);
	ch->last_lost_report_ns = now;
	ch->lost_unreported = 0;
}

/*
 * report_late - the phase's interrupt did not come in ATA_IRQ_WAIT_MS, but
 * the CPU it is routed to did not run meanwhile (irq_expect_cpu_ran): the
 * interrupt is late, not lost, and the disk is healthy. Said at info
 * level, rate-limited as report_lost.
 */
static void report_late(struct ata_channel *ch, const struct ata_cmd *cmd)
{
	uint64_t now = ata_hw_now_ns();

	if (ch->stats.late_recovered > ATA_LOST_REPORT_BURST &&
	    now - ch->last_late_report_ns < (uint64_t)ATA_LOST_REPORT_INTERVAL_MS * NS_PER_MS)
		return;
	pr_info("%s: IRQ %u late: its CPU did not run in %u ms (the host or firmware stopped it, or its "
		"interrupts were off); the driver completed %s by polling (%llu so far)\n",
		ch->name, ch->isa_irq, (unsigned int)ATA_IRQ_WAIT_MS, cmd_name(cmd),
		(unsigned long long)ch->stats.late_recovered);
	ch->last_late_report_ns = now;
}

/*
 * recover_lost - the phase's interrupt did not come but the device is
 * ready: service it. Lost only if the line's CPU ran meanwhile (asked
 * before the bracket closes: the core's mark is the open expect's).
 */
static void recover_lost(struct ata_channel *ch, struct ata_cmd *cmd)
{
	uint8_t status = ata_hw_inb(reg(ch, ATA_REG_STATUS));
	bool ran = !ch->expecting || ata_hw_cpu_ran(ch);

	close_phase(ch, true);
	if (ran) {
		ch->stats.lost_recovered++;
		report_lost(ch, cmd, status);
		ata_hw_watch(ch);
	} else {
		ch->stats.late_recovered++;
		report_late(ch, cmd);
	}
	service(ch, cmd, status);
}

/* wait_done - sleep until @cmd leaves WAITING, recovering lost interrupts, or time out. */
static void wait_done(struct ata_channel *ch, struct ata_cmd *cmd)
{
	const uint64_t wait_ns = (uint64_t)ATA_IRQ_WAIT_MS * NS_PER_MS;
	const uint64_t cpu_look_ns = (uint64_t)ATA_CPU_LOOK_MS * NS_PER_MS;
	const uint64_t busy_ns = (uint64_t)busy_timeout_ms(cmd) * NS_PER_MS;
	unsigned long flags = ata_hw_irq_save();
	uint64_t passes = 0;

	while (cmd->state == ATA_CMD_WAITING) {
		uint64_t now = ata_hw_now_ns(), waited = now - ch->phase_start_ns, deadline;
		uint8_t alt;

		if (++passes > ATA_WAIT_PASSES_MAX || waited >= busy_ns) {
			alt = ata_read_alt_status(ch);
			close_phase(ch, true);
			ch->stats.timeouts++;
			finish(ch, cmd, ATA_CMD_FAILED, alt, 0, -ETIMEDOUT);
			break;
		}
		if (waited >= wait_ns) {
			alt = ata_read_alt_status(ch);
			if (!(alt & ATA_SR_BSY)) {
				recover_lost(ch, cmd);
				continue;
			}
			deadline = now + wait_ns;     /* still busy: look again later */
		} else {
			deadline = ch->phase_start_ns + wait_ns;
		}
		if (ch->expecting && waited >= cpu_look_ns) {
			/* A long wait: look at the line's CPU now and then, so that the
			 * time-out can tell a CPU that stopped lately from one that ran
			 * (irq_expect_cpu_ran's looks: kernel/irq/stall.c). Not
			 * ata_hw_cpu_ran: that one is the verdict, asked once per
			 * phase completed here (recover_lost). */
			ata_hw_cpu_look(ch);
			if (deadline > now + cpu_look_ns)
				deadline = now + cpu_look_ns;
		} else if (ch->expecting && deadline > ch->phase_start_ns + cpu_look_ns) {
			deadline = ch->phase_start_ns + cpu_look_ns;   /* the first look, whatever the wake-ups */
		}
		if (deadline > ch->phase_start_ns + busy_ns)
			deadline = ch->phase_start_ns + busy_ns;
		ata_hw_wait(ch, deadline);
	}
	ata_hw_irq_restore(flags);
}

/* issue - one attempt of @cmd. RETURNS 0 or cmd->result. */
static int issue(struct ata_device *dev, struct ata_cmd *cmd)
{
	struct ata_channel *ch = dev->chan;
	unsigned long flags;
	uint8_t st;

	cmd->state = ATA_CMD_IDLE;
	cmd->done = 0;
	cmd->status = cmd->error = 0;
	cmd->result = 0;
	ata_select(ch, dev->slot);
	if (ata_wait_not_busy(ch, busy_timeout_ms(cmd), &st)) {
		cmd->status = st;
		return cmd->result = -ETIMEDOUT;
	}
	if (st & ATA_SR_DRQ) {              /* the device still wants data from before */
		cmd->status = st;
		return cmd->result = -EPROTO;
	}
	cmd->dropped = ata_drop_decision(ch->seq++, ch->drop_percent);
	if (cmd->dropped) {
		ata_set_nien(ch, true);
		ch->stats.dropped++;
	}
	ata_hw_trace_cmd(ch, false, cmd->tf.command);
	write_taskfile(ch, dev, &cmd->tf);
	(void)ata_hw_inb(reg(ch, ATA_REG_STATUS));   /* a stale INTRQ of ours goes away */
	flags = ata_hw_irq_save();
	ch->active = cmd;
	if (cmd->proto == ATA_PROTO_PIO_OUT || cmd->proto == ATA_PROTO_PACKET) {
		cmd->state = ATA_CMD_ISSUING;
	} else {
		cmd->state = ATA_CMD_WAITING;
		open_phase(ch);                          /* IDENTIFY may interrupt during the OUT */
	}
	ata_hw_outb(reg(ch, ATA_REG_COMMAND), cmd->tf.command);
	settle(ch);
	ata_hw_irq_restore(flags);
	ch->stats.commands++;
	if (cmd->state == ATA_CMD_ISSUING)
		send_first(ch, cmd);
	wait_done(ch, cmd);
	ata_hw_trace_cmd(ch, true, cmd->status | (cmd->state == ATA_CMD_DONE ? 0u : 0x100u));
	if (cmd->dropped)
		ata_set_nien(ch, false);
	return cmd->state == ATA_CMD_DONE ? 0 : cmd->result;
}

static void log_engine_failure(const struct ata_device *dev, const struct ata_cmd *cmd, int err)
{
	char names[ATA_DECODE_LEN / 2];

	ata_status_names(cmd->status, names, sizeof(names));
	if (err == -ETIMEDOUT)
		pr_err("%s: %s: %s timed out: the device stayed busy (status %#04x %s)\n",
		       dev->chan->name, dev->name, cmd_name(cmd), cmd->status, names);
	else if (err == -EPROTO)
		pr_err("%s: %s: %s: the device broke the PIO protocol (status %#04x %s after %u of %u bytes)\n",
		       dev->chan->name, dev->name, cmd_name(cmd), cmd->status, names, cmd->done, cmd->len);
	else
		pr_err("%s: %s: %s: device fault (status %#04x %s)\n", dev->chan->name, dev->name,
		       cmd_name(cmd), cmd->status, names);
}

int ata_exec(struct ata_device *dev, struct ata_cmd *cmd)
{
	struct ata_channel *ch = dev ? dev->chan : NULL;
	int err = -ENODEV;

	if (!ch || !cmd || (cmd->len && !cmd->buf) || cmd->len % WORD_BYTES)
		return ch ? -EINVAL : -ENODEV;
	if (cmd->proto != ATA_PROTO_NODATA && cmd->proto != ATA_PROTO_PACKET && cmd->block_bytes == 0)
		return -EINVAL;
	for (unsigned int attempt = 0;; attempt++) {
		err = issue(dev, cmd);
		if (err == 0)
			return 0;
		/* The device answered with an error: its decision, not a glitch to retry. */
		if (err == -EIO && !(cmd->status & ATA_SR_DF))
			break;
		log_engine_failure(dev, cmd, err);
		if (cmd->no_retry || attempt >= ATA_RETRIES)
			break;
		pr_warn("%s: %s: resetting the channel (SRST) and retrying %s\n", ch->name, dev->name,
			cmd_name(cmd));
		ch->stats.retries++;
		if (ata_channel_reset(ch))
			break;
	}
	ch->stats.errors++;
	return err;
}

/* ---- Software reset ------------------------------------------------------------------------ */

static bool slot_answers(struct ata_channel *ch)
{
	uint8_t st = ata_read_alt_status(ch);

	return st != 0 && st != ATA_SR_FLOATING;
}

int ata_reset_raw(struct ata_channel *ch)
{
	int err = 0;
	uint8_t st;

	ch->stats.resets++;
	ata_hw_outb(ch->ctl_port, ch->devctl | ATA_CTL_SRST);
	ata_hw_delay_us(ATA_SRST_HOLD_US);
	ata_hw_outb(ch->ctl_port, ch->devctl);
	ata_hw_sleep_ms(ATA_RESET_SETTLE_MS);
	ch->selected = 0;                       /* SRST clears the DEV bit: device 0 is selected */
	for (unsigned int slot = 0; slot < ATA_DEVICES_PER_CHANNEL; slot++) {
		ata_select(ch, slot);
		if (!slot_answers(ch))
			continue;
		if (ata_wait_not_busy(ch, ATA_RESET_TIMEOUT_MS, &st)) {
			pr_err("%s: device %u still busy %u ms after reset (status %#04x)\n", ch->name,
			       slot, (unsigned int)ATA_RESET_TIMEOUT_MS, st);
			err = -ETIMEDOUT;
		}
	}
	return err;
}

int ata_channel_reset(struct ata_channel *ch)
{
	int err = ata_reset_raw(ch);

	pr_info("%s: software reset %s\n", ch->name, err ? "left a device busy" : "done");
	for (unsigned int slot = 0; slot < ATA_DEVICES_PER_CHANNEL && !err; slot++) {
		struct ata_device *dev = &ch->dev[slot];

		/* SRST may return the device to its power-on multiple setting. */
		if (dev->cls == ATA_CLASS_ATA && dev->multiple)
			ata_disk_set_multiple(dev, dev->multiple);
	}
	return err;
}
