/*
 * ahci_disk.c - the devices behind AHCI ports: IDENTIFY (PACKET) DEVICE
 * (parsed by the PIO driver's ata_parse_identify), READ/WRITE DMA EXT
 * (ATA8-ACS 7.23/7.58; READ/WRITE DMA for a disk without 48-bit
 * addressing), FLUSH CACHE (EXT), and for ATAPI devices the PACKET command
 * by DMA (AHCI 1.3.1 5.5.1: the CDB in the command table's ACMD area)
 * with READ CAPACITY(10), READ(10) and REQUEST SENSE; the block-device
 * operations of "sda" and "sr0". The engine is ahci_cmd.c.
 */
#include "ahci_internal.h"
#include <asm/paging.h>
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/heap.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#define BYTE_BITS 8
#define SECTORS_PER_MIB 2048ull
#define CDB_LBA_OFFSET 2        /* READ(10): bytes 2-5, big-endian */
#define CDB_LENGTH_OFFSET 7     /* bytes 7-8: transfer length in blocks */
#define CDB_ALLOC_OFFSET 4      /* REQUEST SENSE: allocation length */
#define CAPACITY_BLOCK_OFFSET 4 /* READ CAPACITY data: block length after the last LBA */
#define LBA32_LIMIT (1ull << 32)

/* dma_ok - @buf can be handed to the HBA: cached RAM below the MMIO window, word aligned. */
static bool dma_ok(const void *buf, uint32_t len)
{
	uintptr_t a = (uintptr_t)buf;

	return a >= PAGE_SIZE && !(a & 1) && !(len & 1) && a + len > a &&
	       a + len <= PAGING_UNCACHED_START;
}

static int run(struct ahci_port *p, struct ahci_cmd *cmd, uint64_t lba, uint32_t count, bool quiet)
{
	char msg[ATA_DECODE_LEN * 2];
	int err;

	if (cmd->len && !dma_ok(cmd->buf, cmd->len))
		return -EINVAL;
	err = ahci_exec(p, cmd);
	if (err == -EIO && !cmd->atapi)
		err = ahci_decode_error(cmd->is, cmd->serr, cmd->tfd, msg, sizeof(msg));
	if (err && !quiet)
		ahci_log_failure(p, cmd, lba, count, err);
	return err;
}

/* ---- IDENTIFY ---------------------------------------------------------------------- */

static int packet(struct ahci_port *p, const uint8_t *cdb, const char *name, void *buf, uint32_t len,
		  bool quiet);

static int read_capacity(struct ahci_port *p)
{
	uint8_t cdb[ATAPI_PACKET_BYTES] = { SCSI_READ_CAPACITY_10 };
	uint8_t *data = kzalloc(SCSI_CAPACITY_BYTES);
	uint32_t last, block;
	int err;

	if (!data)
		return -ENOMEM;
	err = packet(p, cdb, "READ CAPACITY", data, SCSI_CAPACITY_BYTES, true);
	last = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
	block = (uint32_t)data[4] << 24 | (uint32_t)data[5] << 16 | (uint32_t)data[6] << 8 | data[7];
	kfree(data);
	if (err == -ENOMEDIUM || err == -EAGAIN) {
		p->sectors = 0;
		return 0;
	}
	if (err)
		return err;
	if (block != ATAPI_BLOCK_BYTES || last == 0xFFFFFFFFu) {
		pr_warn("%s: %s: READ CAPACITY says %u blocks of %u bytes; not used as a CD\n",
			p->host->name, p->name, last + 1, block);
		p->sectors = 0;
		return -EPROTO;
	}
	p->sectors = (uint64_t)last + 1;
	return 0;
}

int ahci_identify(struct ahci_port *p)
{
	struct ahci_cmd cmd;
	uint16_t *words = kzalloc(ATA_ID_WORDS * 2);
	int err;

	if (!words)
		return -ENOMEM;
	memset(&cmd, 0, sizeof(cmd));
	cmd.tf.command = p->cls == ATA_CLASS_ATAPI ? ATA_CMD_IDENTIFY_PACKET : ATA_CMD_IDENTIFY;
	cmd.name = p->cls == ATA_CLASS_ATAPI ? "IDENTIFY PACKET DEVICE" : "IDENTIFY DEVICE";
	cmd.buf = (uint8_t *)words;
	cmd.len = ATA_ID_WORDS * 2;
	cmd.no_retry = false;
	err = run(p, &cmd, 0, 0, false);
	if (!err)
		err = ata_parse_identify(words, &p->id);
	kfree(words);
	if (err) {
		pr_err("%s: port %u (%s): %s failed: %s; port not used\n", p->host->name, p->index,
		       p->name, cmd.name, errno_name(err));
		p->cls = ATA_CLASS_UNKNOWN;
		return err;
	}
	if (p->cls == ATA_CLASS_ATAPI) {
		if (p->id.packet16) {
			pr_warn("%s: %s: 16-byte packets are not supported; not used\n", p->host->name, p->name);
			return -ENOSYS;
		}
		read_capacity(p);
		pr_info("%s: port %u: %s: ATAPI \"%s\", %llu blocks of 2048 bytes\n", p->host->name,
			p->index, p->name, p->id.model, (unsigned long long)p->sectors);
		return 0;
	}
	if (p->id.atapi || !p->id.lba || p->id.long_sectors) {
		pr_warn("%s: %s: \"%s\" is not a 512-byte-sector LBA disk; not used\n", p->host->name,
			p->name, p->id.model);
		return -ENOSYS;
	}
	p->sectors = p->id.lba48 ? p->id.lba48_sectors : p->id.lba28_sectors;
	if (p->sectors == 0 || p->sectors >= ATA_LBA48_LIMIT) {
		pr_warn("%s: %s: IDENTIFY gives %llu sectors; not used\n", p->host->name, p->name,
			(unsigned long long)p->sectors);
		return -EPROTO;
	}
	pr_info("%s: port %u: %s: ATA disk \"%s\", %llu sectors (%llu MiB), %s, DMA\n", p->host->name,
		p->index, p->name, p->id.model, (unsigned long long)p->sectors,
		(unsigned long long)(p->sectors / SECTORS_PER_MIB), p->id.lba48 ? "LBA48" : "LBA28");
	return 0;
}

/* ---- Disks --------------------------------------------------------------------------------- */

int ahci_disk_rw(struct ahci_port *p, uint64_t lba, uint32_t count, void *buf, bool write,
		 bool check_range)
{
	struct ahci_cmd cmd;
	bool lba48;

	if (!p || p->cls != ATA_CLASS_ATA)
		return -ENODEV;
	if (!buf || count == 0 || count > AHCI_SECTORS_PER_COMMAND)
		return -EINVAL;
	if (check_range && (lba >= p->sectors || count > p->sectors - lba))
		return -ERANGE;
	lba48 = p->id.lba48 || count > ATA_LBA28_COUNT_MAX || lba > ATA_LBA28_LIMIT - count;
	if (lba48 && (!p->id.lba48 || lba > ATA_LBA48_LIMIT - count))
		return -ERANGE;
	memset(&cmd, 0, sizeof(cmd));
	cmd.tf.command = write ? (lba48 ? ATA_CMD_WRITE_DMA_EXT : ATA_CMD_WRITE_DMA)
			       : (lba48 ? ATA_CMD_READ_DMA_EXT : ATA_CMD_READ_DMA);
	cmd.name = write ? (lba48 ? "WRITE DMA EXT" : "WRITE DMA") : (lba48 ? "READ DMA EXT" : "READ DMA");
	cmd.tf.count = (uint16_t)count;       /* 256 (28-bit) wraps to 0, as meant */
	cmd.tf.lba = lba;
	cmd.tf.lba48 = lba48;
	cmd.tf.lba_mode = true;
	cmd.buf = buf;
	cmd.len = count * ATA_SECTOR_BYTES;
	cmd.write = write;
	return run(p, &cmd, lba, count, false);
}

int ahci_disk_flush(struct ahci_port *p)
{
	struct ahci_cmd cmd;

	if (!p || p->cls != ATA_CLASS_ATA)
		return -ENODEV;
	if (!p->id.flush && !p->id.flush_ext)
		return 0;                 /* no write cache to flush */
	memset(&cmd, 0, sizeof(cmd));
	cmd.tf.command = p->id.lba48 && p->id.flush_ext ? ATA_CMD_FLUSH_CACHE_EXT : ATA_CMD_FLUSH_CACHE;
	cmd.name = p->id.lba48 && p->id.flush_ext ? "FLUSH CACHE EXT" : "FLUSH CACHE";
	cmd.timeout_ms = AHCI_FLUSH_TIMEOUT_MS;
	return run(p, &cmd, 0, 0, false);
}

/* ---- ATAPI ---------------------------------------------------------------------------------- */

static int packet_once(struct ahci_port *p, const uint8_t *cdb, const char *name, void *buf,
		       uint32_t len, struct ahci_cmd *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->tf.command = ATA_CMD_PACKET;
	cmd->tf.features = len ? ATAPI_FEATURE_DMA : 0;
	cmd->tf.lba = (uint64_t)ATAPI_BYTE_COUNT_LIMIT << BYTE_BITS;   /* byte count limit (PIO) */
	cmd->atapi = true;
	cmd->name = name;
	cmd->buf = buf;
	cmd->len = len;
	memcpy(cmd->cdb, cdb, ATAPI_PACKET_BYTES);
	if (len && !dma_ok(buf, len))
		return -EINVAL;
	return ahci_exec(p, cmd);
}

static int request_sense(struct ahci_port *p, uint8_t *key, uint8_t *asc, uint8_t *ascq)
{
	uint8_t cdb[ATAPI_PACKET_BYTES] = { SCSI_REQUEST_SENSE };
	uint8_t *sense = kzalloc(SCSI_SENSE_BYTES);
	struct ahci_cmd cmd;
	int err;

	if (!sense)
		return -ENOMEM;
	cdb[CDB_ALLOC_OFFSET] = SCSI_SENSE_BYTES;
	err = packet_once(p, cdb, "REQUEST SENSE", sense, SCSI_SENSE_BYTES, &cmd);
	*key = sense[SCSI_SENSE_KEY_BYTE] & SCSI_SENSE_KEY_MASK;
	*asc = sense[SCSI_SENSE_ASC_BYTE];
	*ascq = sense[SCSI_SENSE_ASCQ_BYTE];
	kfree(sense);
	return err;
}

/* packet - a PACKET command; CHECK CONDITION fetches the sense, UNIT ATTENTION repeats it. */
static int packet(struct ahci_port *p, const uint8_t *cdb, const char *name, void *buf, uint32_t len,
		  bool quiet)
{
	struct ahci_cmd cmd;
	char msg[ATA_DECODE_LEN];

	for (unsigned int attempt = 0; attempt <= ATAPI_UNIT_ATTENTION_RETRIES; attempt++) {
		uint8_t key, asc = 0, ascq = 0;
		int err = packet_once(p, cdb, name, buf, len, &cmd);

		if (!err)
			return 0;
		if (err != -EIO) {
			if (!quiet)
				ahci_log_failure(p, &cmd, 0, 0, err);
			return err;
		}
		/* CHECK CONDITION: the sense key is in the error register's high nibble. */
		key = (uint8_t)((cmd.tfd >> AHCI_PxTFD_ERR_SHIFT) & ATAPI_ER_SENSE_MASK) >> ATAPI_ER_SENSE_SHIFT;
		if (request_sense(p, &key, &asc, &ascq))
			key = (uint8_t)((cmd.tfd >> AHCI_PxTFD_ERR_SHIFT) & ATAPI_ER_SENSE_MASK) >>
			      ATAPI_ER_SENSE_SHIFT;
		p->sense_key = key;
		p->sense_asc = asc;
		p->sense_ascq = ascq;
		err = atapi_decode_sense(key, asc, ascq, msg, sizeof(msg));
		if (err == 0)
			return 0;
		if (key == SENSE_UNIT_ATTENTION)
			continue;
		if (!quiet)
			pr_err("%s: %s: %s failed: %s\n", p->host->name, p->name, name, msg);
		return err;
	}
	return -EAGAIN;
}

int ahci_atapi_rw(struct ahci_port *p, uint64_t lba, uint32_t count, void *buf)
{
	uint8_t cdb[ATAPI_PACKET_BYTES] = { SCSI_READ_10 };

	if (!p || p->cls != ATA_CLASS_ATAPI)
		return -ENODEV;
	if (!buf || count == 0 || count > AHCI_ATAPI_BLOCKS_PER_COMMAND || lba + count > LBA32_LIMIT)
		return -EINVAL;
	for (unsigned int i = 0; i < 4; i++)
		cdb[CDB_LBA_OFFSET + i] = (uint8_t)(lba >> (BYTE_BITS * (3 - i)));
	cdb[CDB_LENGTH_OFFSET] = (uint8_t)(count >> BYTE_BITS);
	cdb[CDB_LENGTH_OFFSET + 1] = (uint8_t)count;
	return packet(p, cdb, "READ(10)", buf, count * ATAPI_BLOCK_BYTES, false);
}

/* ---- Block devices ---------------------------------------------------------------------------- */

static int blk_read_op(struct blk_dev *blk, uint64_t lba, uint32_t count, void *buf)
{
	struct ahci_port *p = blk->driver_data;

	return p->cls == ATA_CLASS_ATAPI ? ahci_atapi_rw(p, lba, count, buf)
					 : ahci_disk_rw(p, lba, count, buf, false, true);
}

static int blk_write_op(struct blk_dev *blk, uint64_t lba, uint32_t count, const void *buf)
{
	/* The HBA only reads a write's buffer. */
	return ahci_disk_rw(blk->driver_data, lba, count, (void *)buf, true, true);
}

static int blk_flush_op(struct blk_dev *blk)
{
	return ahci_disk_flush(blk->driver_data);
}

static int blk_revalidate_op(struct blk_dev *blk)
{
	struct ahci_port *p = blk->driver_data;
	int err = read_capacity(p);

	blk->nr_blocks = p->sectors;
	return err;
}

static const struct blk_ops disk_ops = {
	.read = blk_read_op,
	.write = blk_write_op,
	.flush = blk_flush_op,
};

static const struct blk_ops cd_ops = {
	.read = blk_read_op,
	.revalidate = blk_revalidate_op,
};

void ahci_init_blk(struct ahci_port *p)
{
	struct blk_dev *blk = &p->blk;

	memset(blk, 0, sizeof(*blk));
	ksnprintf(blk->name, sizeof(blk->name), "%s", p->name);
	blk->model = p->id.model;
	blk->nr_blocks = p->sectors;
	blk->driver_data = p;
	if (p->cls == ATA_CLASS_ATAPI) {
		blk->kind = "AHCI ATAPI CD-ROM";
		blk->block_size = ATAPI_BLOCK_BYTES;
		blk->max_blocks = AHCI_ATAPI_BLOCKS_PER_COMMAND;
		blk->read_only = true;
		blk->removable = true;
		blk->ops = &cd_ops;
	} else {
		blk->kind = "AHCI disk";
		blk->block_size = ATA_SECTOR_BYTES;
		blk->max_blocks = AHCI_SECTORS_PER_COMMAND;
		blk->ops = &disk_ops;
	}
}

struct ahci_port *ahci_find_port(const char *name)
{
	for (unsigned int h = 0; h < ahci_nr_hosts; h++)
		for (unsigned int i = 0; i < AHCI_MAX_PORTS; i++) {
			struct ahci_port *p = &ahci_hosts[h].port[i];

			if (p->started && p->name[0] && strcmp(p->name, name) == 0)
				return p;
		}
	return NULL;
}
