/*
 * test_ata_sim.c - a simulated IDE channel for the host tests of
 * drivers/ata (test_ata_core.c): the ata_hw_* services of ata_internal.h
 * implemented over a virtual clock, two drives with the register
 * behaviour of ATA/ATAPI-6 (as QEMU 7.2 models it, see
 * /work/shared/QEMU-FACTS.md: an interrupt per PIO-in block and none after
 * the last, none before the first PIO-out block, nIEN suppresses INTRQ,
 * Status lowers it and Alternate Status does not, IDENTIFY on a packet
 * device aborts with the packet signature), and knobs that make the
 * device lose interrupts, hang, break the protocol or report errors.
 * test_ata_core.c includes this file and steers the simulation through the
 * global struct sim S.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../drivers/ata/ata_internal.h"

#define SIM_CMD 0x1F0             /* command block of the simulated channel */
#define SIM_CTL 0x3F6             /* its alternate status / device control */
#define SIM_BM_BASE 0xC040        /* its bus-master registers */
#define SIM_LINE 14               /* the kernel/irq line it interrupts on */
#define SIM_TICK_NS 1000000ull    /* a wait whose deadline passed ends at the next 1 ms tick */
#define SIM_BUF_BYTES (256 * 512) /* the device's sector buffer: one whole command */

enum sim_xfer { X_NONE, X_IN, X_OUT, X_CDB };

struct sim_drive {
	bool present, atapi;
	uint16_t id[256];             /* IDENTIFY (PACKET) DEVICE data */
	uint8_t *media;               /* backed blocks [backed_base, backed_base + backed_blocks) */
	uint64_t backed_base, backed_blocks;
	uint64_t sectors;             /* capacity the commands are checked against */
	uint32_t block;               /* 512 or 2048 */
	uint8_t status, error;
	uint8_t multiple, multiple_max;
	uint8_t sense_key, sense_asc;
};

struct sim {
	struct sim_drive drive[2];
	unsigned int sel;
	/* taskfile: each register keeps its previous byte too (the LBA48 "HOB" FIFO) */
	uint8_t devctl, feat, cnt, cnt_hob, lbal, lbal_hob, lbam, lbam_hob, lbah, lbah_hob, devreg;
	/* LBA mid/high as each drive holds them (a reset loads each drive's own signature) */
	uint8_t sig_mid[2], sig_high[2];
	enum sim_xfer xfer;
	uint8_t buf[SIM_BUF_BYTES];
	size_t pos, end;
	uint64_t lba;
	uint32_t left, block_sectors;
	uint8_t cdb[ATAPI_PACKET_BYTES], reply[64];
	size_t reply_pos;
	uint32_t packet_left, packet_limit;
	bool packet_is_read, in_packet;
	/* time and events */
	uint64_t now;
	bool event_pending;
	uint64_t event_at;
	void (*event_fn)(void);
	bool intrq, irq_pending, bm_intr, cpu_irq_on, in_handler;
	/* knobs */
	uint64_t latency_ns;          /* per DRQ block / completion */
	bool lose_irqs;               /* every interrupt is lost on the way to the CPU */
	unsigned int lose_first;      /* ... or only the first N */
	unsigned int hang_commands;   /* the next N commands leave BSY set until SRST */
	unsigned int break_protocol;  /* the next N data-in blocks come without DRQ */
	bool idnf_for_range;          /* an LBA past the end: IDNF (else ABRT, as QEMU) */
	bool floating;                /* nothing on the bus: everything reads 0xFF */
	bool multiple_survives_reset;
	unsigned int unit_attentions; /* the next N packet commands: UNIT ATTENTION */
	bool no_medium;
	bool irq_on_packet_drq;       /* "interrupt DRQ" packet device: INTRQ when it wants the packet */
	bool give_token;              /* ata_hw_expect_init hands out a token */
	bool cpu_stalled;             /* ata_hw_cpu_ran: the line's CPU did not run (irq_expect_cpu_ran's answer) */
	unsigned int cpu_asks;        /* ata_hw_cpu_ran calls (the verdicts: one per phase completed by the driver) */
	unsigned int cpu_looks;       /* ata_hw_cpu_look calls (the long wait's looks) */
	uint64_t poll_interval_ns;    /* the core polls the line this often while expecting */
	uint64_t tick_ns;             /* the CPU's tick ends a wait's halt this often (0: no tick) */
	bool poll_armed;
	uint64_t poll_at;
	/* what happened */
	unsigned int irqs_raised, irqs_suppressed, irqs_lost, irqs_delivered, polls, polls_while_masked;
	unsigned int handler_results[2], poll_results[2];  /* by irqreturn_t */
	unsigned int commands[256], packets[256], last_command, nien_commands;
	bool last_nien, last_lba_mode;
	uint64_t last_lba;
	uint32_t last_count;
	unsigned int srst_count, status_reads, alt_reads, bad_ports, data_underruns, data_overruns;
	unsigned int media_violations, waits, wait_with_irqs_on;
	unsigned int expects, unexpects, unexpects_timedout, watches, pairing_errors;
	bool expect_open;
	struct ata_channel *ch;
	char log[65536];
	size_t log_len;
};

static struct sim S;

/* ---- Logging the driver does ----------------------------------------------------------- */

int printk(int level, const char *fmt, ...)
{
	va_list ap;
	int n;
	size_t room = sizeof(S.log) - S.log_len;

	(void)level;
	va_start(ap, fmt);
	n = vsnprintf(S.log + S.log_len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		S.log_len += (size_t)n < room ? (size_t)n : room - 1;
	return n;
}

int cprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

void *kmalloc(size_t size) { return malloc(size); }
void *kzalloc(size_t size) { return calloc(1, size); }
void kfree(void *p) { free(p); }

/* ---- The drive model -------------------------------------------------------------------- */

static struct sim_drive *cur(void) { return &S.drive[S.sel]; }

static void raise_intrq(void)
{
	bool edge = !S.intrq;

	S.intrq = true;
	S.irqs_raised++;
	if (S.devctl & ATA_CTL_NIEN) {
		S.irqs_suppressed++;
		return;
	}
	S.bm_intr = true;
	if (!edge)
		return;                /* still asserted: no new edge on an edge-triggered line */
	if (S.lose_irqs || (S.lose_first && S.irqs_lost < S.lose_first)) {
		S.irqs_lost++;
		return;
	}
	S.irq_pending = true;
}

static void schedule(void (*fn)(void), uint64_t delay_ns)
{
	S.event_fn = fn;
	S.event_at = S.now + delay_ns;
	S.event_pending = true;
}

static uint64_t taskfile_lba(bool lba48)
{
	if (lba48)
		return (uint64_t)S.lbal | (uint64_t)S.lbam << 8 | (uint64_t)S.lbah << 16 |
		       (uint64_t)S.lbal_hob << 24 | (uint64_t)S.lbam_hob << 32 | (uint64_t)S.lbah_hob << 40;
	return (uint64_t)S.lbal | (uint64_t)S.lbam << 8 | (uint64_t)S.lbah << 16 |
	       (uint64_t)(S.devreg & 0x0F) << 24;
}

static uint8_t *media_at(struct sim_drive *d, uint64_t lba)
{
	if (lba < d->backed_base || lba >= d->backed_base + d->backed_blocks) {
		S.media_violations++;
		return NULL;
	}
	return d->media + (lba - d->backed_base) * d->block;
}

static void abort_command(uint8_t error)
{
	struct sim_drive *d = cur();

	d->status = ATA_SR_DRDY | ATA_SR_DSC | ATA_SR_ERR;
	d->error = error;
	S.xfer = X_NONE;
	raise_intrq();
}

/* Data-in: one block ready (after the latency), with an interrupt. */
static void read_block_ready(void)
{
	struct sim_drive *d = cur();
	uint32_t n = S.left < S.block_sectors ? S.left : S.block_sectors;

	for (uint32_t i = 0; i < n; i++) {
		uint8_t *src = media_at(d, S.lba + i);

		if (src)
			memcpy(S.buf + (size_t)i * d->block, src, d->block);
	}
	S.pos = 0;
	S.end = n * d->block;
	S.lba += n;
	S.left -= n;
	S.xfer = X_IN;
	if (S.break_protocol) {
		S.break_protocol--;
		d->status = ATA_SR_DRDY | ATA_SR_DSC;     /* "ready", but no DRQ: nonsense */
		S.xfer = X_NONE;
	} else {
		d->status = ATA_SR_DRDY | ATA_SR_DSC | ATA_SR_DRQ;
	}
	raise_intrq();
}

static void write_block_done(void)
{
	struct sim_drive *d = cur();

	for (uint32_t i = 0; i < S.end / d->block; i++) {
		uint8_t *dst = media_at(d, S.lba + i);

		if (dst)
			memcpy(dst, S.buf + (size_t)i * d->block, d->block);
	}
	S.lba += S.end / d->block;
	S.pos = 0;
	if (S.left) {
		S.end = (S.left < S.block_sectors ? S.left : S.block_sectors) * d->block;
		S.left -= S.end / d->block;
		S.xfer = X_OUT;
		d->status = ATA_SR_DRDY | ATA_SR_DSC | ATA_SR_DRQ;
	} else {
		S.xfer = X_NONE;
		d->status = ATA_SR_DRDY | ATA_SR_DSC;
	}
	raise_intrq();
}

static void nodata_done(void)
{
	cur()->status = ATA_SR_DRDY | ATA_SR_DSC;
	raise_intrq();
}

static void start_transfer(bool write, uint64_t lba, uint32_t count, uint32_t block_sectors)
{
	struct sim_drive *d = cur();

	if (lba + count > d->sectors) {
		abort_command(S.idnf_for_range ? ATA_ER_IDNF : ATA_ER_ABRT);
		return;
	}
	S.lba = lba;
	S.left = count;
	S.block_sectors = block_sectors;
	if (write) {
		S.end = (count < block_sectors ? count : block_sectors) * d->block;
		S.left -= S.end / d->block;
		S.pos = 0;
		S.xfer = X_OUT;
		d->status = ATA_SR_DRDY | ATA_SR_DSC | ATA_SR_DRQ;   /* first block: no interrupt */
		return;
	}
	d->status = ATA_SR_BSY;
	schedule(read_block_ready, S.latency_ns);
}

static void identify_ready(void)
{
	memcpy(S.buf, cur()->id, sizeof(cur()->id));
	S.pos = 0;
	S.end = sizeof(cur()->id);
	S.left = 0;
	S.xfer = X_IN;
	cur()->status = ATA_SR_DRDY | ATA_SR_DSC | ATA_SR_DRQ;
	raise_intrq();
}

static void set_signature(struct sim_drive *d)
{
	int i = (int)(d - S.drive);

	S.cnt = S.lbal = 1;
	S.sig_mid[i] = d->present ? (d->atapi ? ATA_SIG_ATAPI_MID : 0) : 0xFF;
	S.sig_high[i] = d->present ? (d->atapi ? ATA_SIG_ATAPI_HIGH : 0) : 0xFF;
	S.lbam = S.sig_mid[S.sel];
	S.lbah = S.sig_high[S.sel];
}

/* set_lba_mid_high - the device puts values there (byte counts): both copies, like a write. */
static void set_lba_mid_high(uint8_t mid, uint8_t high)
{
	S.lbam = S.sig_mid[0] = S.sig_mid[1] = mid;
	S.lbah = S.sig_high[0] = S.sig_high[1] = high;
}

/* ---- ATAPI -------------------------------------------------------------------------------- */

static void packet_check_condition(uint8_t key, uint8_t asc)
{
	struct sim_drive *d = cur();

	d->sense_key = key;
	d->sense_asc = asc;
	S.in_packet = false;
	d->status = ATA_SR_DRDY | ATA_SR_ERR;
	d->error = (uint8_t)(key << ATAPI_ER_SENSE_SHIFT);
	S.cnt = ATAPI_IR_COD | ATAPI_IR_IO;
	S.xfer = X_NONE;
	raise_intrq();
}

static void packet_status_phase(void)
{
	S.in_packet = false;
	cur()->status = ATA_SR_DRDY;
	S.cnt = ATAPI_IR_COD | ATAPI_IR_IO;
	S.xfer = X_NONE;
	raise_intrq();
}

/* packet_data_ready - the next DRQ block of a data-in packet command. */
static void packet_data_ready(void)
{
	uint32_t n = S.packet_left < S.packet_limit ? S.packet_left : S.packet_limit;

	if (S.packet_left == 0) {
		packet_status_phase();
		return;
	}
	if (S.packet_is_read) {
		n = n < cur()->block ? n : cur()->block;   /* QEMU: one CD block per DRQ */
		memcpy(S.buf, media_at(cur(), S.lba), n);
		S.lba++;
	} else {
		memcpy(S.buf, S.reply + S.reply_pos, n);
		S.reply_pos += n;
	}
	S.packet_left -= n;
	S.pos = 0;
	S.end = n;
	set_lba_mid_high((uint8_t)n, (uint8_t)(n >> 8));
	S.cnt = ATAPI_IR_IO;
	S.xfer = X_IN;
	cur()->status = ATA_SR_DRDY | ATA_SR_DRQ;
	raise_intrq();
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

static void packet_execute(void)
{
	struct sim_drive *d = cur();
	const uint8_t *cdb = S.cdb;

	S.packets[cdb[0]]++;
	S.in_packet = true;
	S.reply_pos = 0;
	S.packet_is_read = false;
	if (cdb[0] == SCSI_REQUEST_SENSE) {
		memset(S.reply, 0, SCSI_SENSE_BYTES);
		S.reply[0] = 0x70;
		S.reply[SCSI_SENSE_KEY_BYTE] = d->sense_key;
		S.reply[SCSI_SENSE_ASC_BYTE] = d->sense_asc;
		d->sense_key = d->sense_asc = 0;
		S.packet_left = cdb[4] < SCSI_SENSE_BYTES ? cdb[4] : SCSI_SENSE_BYTES;
	} else if (S.unit_attentions) {
		S.unit_attentions--;
		packet_check_condition(SENSE_UNIT_ATTENTION, ASC_MEDIUM_MAY_HAVE_CHANGED);
		return;
	} else if (S.no_medium && (cdb[0] == SCSI_READ_10 || cdb[0] == SCSI_READ_CAPACITY_10)) {
		packet_check_condition(SENSE_NOT_READY, ASC_MEDIUM_NOT_PRESENT);
		return;
	} else if (cdb[0] == SCSI_READ_CAPACITY_10) {
		uint32_t last = (uint32_t)d->sectors - 1;

		memset(S.reply, 0, 8);
		S.reply[0] = (uint8_t)(last >> 24); S.reply[1] = (uint8_t)(last >> 16);
		S.reply[2] = (uint8_t)(last >> 8); S.reply[3] = (uint8_t)last;
		S.reply[6] = (uint8_t)(d->block >> 8);
		S.packet_left = 8;
	} else if (cdb[0] == SCSI_READ_10) {
		uint32_t lba = be32(cdb + 2), count = (uint32_t)cdb[7] << 8 | cdb[8];

		if ((uint64_t)lba + count > d->sectors) {
			packet_check_condition(SENSE_ILLEGAL_REQUEST, ASC_LBA_OUT_OF_RANGE);
			return;
		}
		S.lba = lba;
		S.packet_is_read = true;
		S.packet_left = count * d->block;
	} else {
		packet_check_condition(SENSE_ILLEGAL_REQUEST, ASC_INVALID_OPCODE);
		return;
	}
	packet_data_ready();
}

/* ---- Commands ----------------------------------------------------------------------------- */

static void command(uint8_t code)
{
	struct sim_drive *d = cur();
	bool lba48 = false, multiple = false, write = false;
	uint32_t count;

	S.commands[code]++;
	S.last_command = code;
	S.last_nien = S.devctl & ATA_CTL_NIEN;
	if (S.last_nien)
		S.nien_commands++;
	S.intrq = false;                    /* writing the command register clears INTRQ */
	if (!d->present || (d->status & ATA_SR_BSY))
		return;
	d->error = 0;
	if (S.hang_commands) {
		S.hang_commands--;
		d->status = ATA_SR_BSY;         /* and it stays so until SRST */
		return;
	}
	switch (code) {
	case ATA_CMD_IDENTIFY:
	case ATA_CMD_IDENTIFY_PACKET:
		if ((code == ATA_CMD_IDENTIFY) == d->atapi) {
			set_signature(d);
			abort_command(ATA_ER_ABRT);
			return;
		}
		d->status = ATA_SR_BSY;
		if (S.latency_ns)
			schedule(identify_ready, S.latency_ns);
		else
			identify_ready();            /* QEMU: the interrupt comes during the OUT */
		return;
	case ATA_CMD_SET_MULTIPLE:
		if (d->atapi || S.cnt == 0 || S.cnt > d->multiple_max || (S.cnt & (S.cnt - 1))) {
			abort_command(ATA_ER_ABRT);
			return;
		}
		d->multiple = S.cnt;
		d->status = ATA_SR_BSY;
		schedule(nodata_done, S.latency_ns);
		return;
	case ATA_CMD_FLUSH_CACHE:
	case ATA_CMD_FLUSH_CACHE_EXT:
		d->status = ATA_SR_BSY;
		schedule(nodata_done, S.latency_ns);
		return;
	case ATA_CMD_PACKET:
		if (!d->atapi) {
			abort_command(ATA_ER_ABRT);
			return;
		}
		S.packet_limit = (uint32_t)S.lbam | (uint32_t)S.lbah << 8;
		S.pos = 0;
		S.end = ATAPI_PACKET_BYTES;
		S.xfer = X_CDB;
		S.cnt = ATAPI_IR_COD;
		d->status = ATA_SR_DRDY | ATA_SR_DRQ;
		if (S.irq_on_packet_drq)
			raise_intrq();
		return;
	case ATA_CMD_READ_SECTORS_EXT: case ATA_CMD_WRITE_SECTORS_EXT:
	case ATA_CMD_READ_MULTIPLE_EXT: case ATA_CMD_WRITE_MULTIPLE_EXT:
		lba48 = true;
		/* fall through */
	case ATA_CMD_READ_SECTORS: case ATA_CMD_WRITE_SECTORS:
	case ATA_CMD_READ_MULTIPLE: case ATA_CMD_WRITE_MULTIPLE:
		break;
	default:
		abort_command(ATA_ER_ABRT);
		return;
	}
	if (d->atapi) {
		abort_command(ATA_ER_ABRT);
		return;
	}
	multiple = code == ATA_CMD_READ_MULTIPLE || code == ATA_CMD_WRITE_MULTIPLE ||
		   code == ATA_CMD_READ_MULTIPLE_EXT || code == ATA_CMD_WRITE_MULTIPLE_EXT;
	write = code == ATA_CMD_WRITE_SECTORS || code == ATA_CMD_WRITE_SECTORS_EXT ||
		code == ATA_CMD_WRITE_MULTIPLE || code == ATA_CMD_WRITE_MULTIPLE_EXT;
	if (multiple && d->multiple == 0) {
		abort_command(ATA_ER_ABRT);
		return;
	}
	count = lba48 ? ((uint32_t)S.cnt_hob << 8 | S.cnt) : S.cnt;
	if (count == 0)
		count = lba48 ? 65536 : 256;
	S.last_lba = taskfile_lba(lba48);
	S.last_count = count;
	S.last_lba_mode = S.devreg & ATA_DEV_LBA;
	start_transfer(write, S.last_lba, count, multiple ? d->multiple : 1);
}

static void srst(bool on)
{
	if (on) {
		S.srst_count++;
		S.event_pending = false;
		S.xfer = X_NONE;
		for (int i = 0; i < 2; i++)
			S.drive[i].status = S.drive[i].present ? ATA_SR_BSY : 0;
		return;
	}
	S.sel = 0;
	S.devreg = 0;
	for (int i = 0; i < 2; i++) {
		struct sim_drive *d = &S.drive[i];

		if (d->present)
			d->status = d->atapi ? 0 : ATA_SR_DRDY | ATA_SR_DSC;
		d->multiple = S.multiple_survives_reset ? d->multiple : 0;
	}
	set_signature(&S.drive[1]);
	set_signature(&S.drive[0]);
}

/* ---- Port I/O -------------------------------------------------------------------------------- */

static uint8_t status_of_selected(void)
{
	if (S.floating)
		return ATA_SR_FLOATING;
	if (!cur()->present)
		return 0;                      /* QEMU: an empty slot reads 0 */
	return cur()->status;
}

uint8_t ata_hw_inb(uint16_t port)
{
	if (S.floating && port != SIM_BM_BASE + ATA_BM_STATUS)
		return 0xFF;
	switch (port) {
	case SIM_CTL:
		S.alt_reads++;
		return status_of_selected();
	case SIM_CMD + ATA_REG_STATUS:
		S.status_reads++;
		S.intrq = false;
		return status_of_selected();
	case SIM_CMD + ATA_REG_ERROR: return cur()->error;
	case SIM_CMD + ATA_REG_COUNT: return S.cnt;
	case SIM_CMD + ATA_REG_LBA_LOW: return S.lbal;
	case SIM_CMD + ATA_REG_LBA_MID: return S.sig_mid[S.sel];
	case SIM_CMD + ATA_REG_LBA_HIGH: return S.sig_high[S.sel];
	case SIM_CMD + ATA_REG_DEVICE: return S.devreg;
	case SIM_BM_BASE + ATA_BM_STATUS: return S.bm_intr ? ATA_BM_ST_INTR : 0;
	default:
		S.bad_ports++;
		return 0xFF;
	}
}

void ata_hw_outb(uint16_t port, uint8_t v)
{
	switch (port) {
	case SIM_CTL:
		if ((v & ATA_CTL_SRST) != (S.devctl & ATA_CTL_SRST))
			srst(v & ATA_CTL_SRST);
		S.devctl = v;
		return;
	case SIM_CMD + ATA_REG_FEATURES: S.feat = v; return;
	case SIM_CMD + ATA_REG_COUNT: S.cnt_hob = S.cnt; S.cnt = v; return;
	case SIM_CMD + ATA_REG_LBA_LOW: S.lbal_hob = S.lbal; S.lbal = v; return;
	case SIM_CMD + ATA_REG_LBA_MID:
		S.lbam_hob = S.lbam;
		set_lba_mid_high(v, S.lbah);
		return;
	case SIM_CMD + ATA_REG_LBA_HIGH:
		S.lbah_hob = S.lbah;
		set_lba_mid_high(S.lbam, v);
		return;
	case SIM_CMD + ATA_REG_DEVICE:
		S.devreg = v;
		S.sel = (v & ATA_DEV_SLAVE) ? 1 : 0;
		return;
	case SIM_CMD + ATA_REG_COMMAND: command(v); return;
	case SIM_BM_BASE + ATA_BM_STATUS:
		if (v & ATA_BM_ST_INTR)
			S.bm_intr = false;
		return;
	default:
		S.bad_ports++;
	}
}

static void data_done(void)
{
	struct sim_drive *d = cur();

	if (S.xfer == X_IN) {
		if (S.in_packet) {
			d->status = ATA_SR_BSY;
			schedule(packet_data_ready, S.latency_ns);
		} else if (S.left) {
			d->status = ATA_SR_BSY;
			schedule(read_block_ready, S.latency_ns);
		} else {
			S.xfer = X_NONE;
			d->status = ATA_SR_DRDY | ATA_SR_DSC;   /* no interrupt after the last block */
		}
	} else if (S.xfer == X_OUT) {
		d->status = ATA_SR_BSY;
		schedule(write_block_done, S.latency_ns);
	} else if (S.xfer == X_CDB) {
		memcpy(S.cdb, S.buf, ATAPI_PACKET_BYTES);
		d->status = ATA_SR_BSY;
		schedule(packet_execute, S.latency_ns);
	}
}

void ata_hw_insw(uint16_t port, void *buf, size_t words)
{
	uint8_t *p = buf;

	if (port != SIM_CMD + ATA_REG_DATA)
		S.bad_ports++;
	for (size_t i = 0; i < words; i++) {
		if (S.xfer != X_IN || S.pos >= S.end) {
			S.data_underruns++;
			p[2 * i] = p[2 * i + 1] = 0xFF;
			continue;
		}
		p[2 * i] = S.buf[S.pos++];
		p[2 * i + 1] = S.buf[S.pos++];
		if (S.pos == S.end)
			data_done();
	}
}

void ata_hw_outsw(uint16_t port, const void *buf, size_t words)
{
	const uint8_t *p = buf;

	if (port != SIM_CMD + ATA_REG_DATA)
		S.bad_ports++;
	for (size_t i = 0; i < words; i++) {
		if ((S.xfer != X_OUT && S.xfer != X_CDB) || S.pos >= S.end) {
			S.data_overruns++;
			continue;
		}
		S.buf[S.pos++] = p[2 * i];
		S.buf[S.pos++] = p[2 * i + 1];
		if (S.pos == S.end)
			data_done();
	}
}

/* ---- Time, interrupts, the core ---------------------------------------------------------------- */

static void deliver(void)
{
	if (!S.cpu_irq_on || !S.irq_pending || !S.ch)
		return;
	S.irq_pending = false;
	S.cpu_irq_on = false;
	S.in_handler = true;
	S.handler_results[ata_interrupt(SIM_LINE, S.ch)]++;
	S.in_handler = false;
	S.cpu_irq_on = true;
	S.irqs_delivered++;
}

static void core_poll(void)
{
	bool was = S.cpu_irq_on;

	S.cpu_irq_on = false;
	S.polls++;
	S.poll_results[ata_interrupt(SIM_LINE, S.ch)]++;
	S.cpu_irq_on = was;
}

/* advance - let virtual time run to @t: device events, interrupts, core polls. */
static void advance(uint64_t t)
{
	for (int guard = 0; guard < 1000000; guard++) {
		uint64_t next = t;
		bool ev = S.event_pending && S.event_at <= next;
		bool poll = S.poll_armed && S.poll_at <= next && (!ev || S.poll_at < S.event_at);

		if (poll)
			next = S.poll_at;
		else if (ev)
			next = S.event_at;
		else
			break;
		if (next > S.now)
			S.now = next;
		if (poll) {
			S.poll_at += S.poll_interval_ns;
			if (S.cpu_irq_on)
				core_poll();
			else
				S.polls_while_masked++;
		} else {
			S.event_pending = false;
			S.event_fn();
			deliver();
		}
	}
	if (t > S.now)
		S.now = t;
}

uint64_t ata_hw_now_ns(void) { return S.now; }

void ata_hw_delay_us(unsigned int us)
{
	advance(S.now + (uint64_t)us * 1000);
}

void ata_hw_sleep_ms(unsigned int ms)
{
	advance(S.now + (uint64_t)ms * 1000000);
}

unsigned long ata_hw_irq_save(void)
{
	unsigned long old = S.cpu_irq_on;

	S.cpu_irq_on = false;
	return old;
}

void ata_hw_irq_restore(unsigned long flags)
{
	S.cpu_irq_on = flags;
	deliver();
}

void ata_hw_wait(struct ata_channel *ch, uint64_t deadline_ns)
{
	uint64_t wake = deadline_ns > S.now ? deadline_ns : S.now + SIM_TICK_NS;

	(void)ch;
	S.waits++;
	if (S.cpu_irq_on)
		S.wait_with_irqs_on++;
	S.cpu_irq_on = true;               /* sti; hlt */
	deliver();
	if (S.event_pending && S.event_at < wake)
		wake = S.event_at;
	if (S.poll_armed && S.poll_at < wake)
		wake = S.poll_at;
	if (S.tick_ns && (S.now / S.tick_ns + 1) * S.tick_ns < wake)
		wake = (S.now / S.tick_ns + 1) * S.tick_ns;
	advance(wake);
	S.cpu_irq_on = false;
}

bool ata_hw_expect_init(struct ata_channel *ch)
{
	ch->expect = S.give_token ? (struct irq_expect *)&S : NULL;
	return ch->expect != NULL;
}

void ata_hw_expect(struct ata_channel *ch)
{
	(void)ch;
	if (S.expect_open)
		S.pairing_errors++;
	S.expect_open = true;
	S.expects++;
	if (S.poll_interval_ns) {
		S.poll_armed = true;
		S.poll_at = S.now + S.poll_interval_ns;
	}
}

bool ata_hw_cpu_ran(struct ata_channel *ch)
{
	(void)ch;
	if (!S.expect_open)
		S.pairing_errors++;   /* asked of the open expect only, before it closes */
	S.cpu_asks++;
	return !S.cpu_stalled;
}

void ata_hw_cpu_look(struct ata_channel *ch)
{
	(void)ch;
	if (!S.expect_open)
		S.pairing_errors++;   /* looked at during the open expect only */
	S.cpu_looks++;
}

void ata_hw_trace_cmd(struct ata_channel *ch, bool end, uint32_t value)
{
	(void)ch;
	(void)end;
	(void)value;
}

void ata_hw_unexpect(struct ata_channel *ch, bool timedout)
{
	(void)ch;
	if (!S.expect_open)
		S.pairing_errors++;
	S.expect_open = false;
	S.unexpects++;
	S.unexpects_timedout += timedout;
	S.poll_armed = false;
}

void ata_hw_watch(struct ata_channel *ch)
{
	(void)ch;
	S.watches++;
}
