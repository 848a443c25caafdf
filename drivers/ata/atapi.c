/*
 * atapi.c - ATAPI packet devices (CD-ROMs): the PACKET command of
 * ATA/ATAPI-6 section 8.21 in PIO, carrying the SCSI commands of SPC-3 and
 * MMC-5 (TEST UNIT READY, REQUEST SENSE, READ CAPACITY(10), READ(10),
 * WRITE(10)), sense decoding with a retry after UNIT ATTENTION (a medium
 * change or a reset), and the block-device operations of a CD ("hdc").
 */
#include "ata_internal.h"
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#define BYTE_BITS 8
#define CDB_LBA_OFFSET 2        /* READ(10)/WRITE(10): bytes 2-5, big-endian */
#define CDB_LENGTH_OFFSET 7     /* bytes 7-8: transfer length in blocks, big-endian */
#define CDB_ALLOC_OFFSET 4      /* REQUEST SENSE: allocation length */
#define CAPACITY_BLOCK_OFFSET 4 /* READ CAPACITY data: block length after the last LBA */
#define LBA32_LIMIT (1ull << 32)
#define NAME_LEN 48             /* "READ(10) LBA 4294967295+32" */

static void put_be(uint8_t *p, uint32_t v, unsigned int bytes)
{
	for (unsigned int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (BYTE_BITS * (bytes - 1 - i)));
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int packet_once(struct ata_device *dev, const uint8_t *cdb, const char *name, void *buf,
		       uint32_t len, bool to_device, struct ata_cmd *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->tf.command = ATA_CMD_PACKET;
	cmd->tf.features = 0;                          /* PIO, not DMA */
	cmd->tf.lba = (uint64_t)ATAPI_BYTE_COUNT_LIMIT << BYTE_BITS;  /* LBA mid/high */
	cmd->proto = ATA_PROTO_PACKET;
	cmd->name = name;
	cmd->buf = buf;
	cmd->len = len;
	cmd->packet_to_device = to_device;
	memcpy(cmd->packet, cdb, ATAPI_PACKET_BYTES);
	return ata_exec(dev, cmd);
}

/* request_sense - why the last command ended in CHECK CONDITION. RETURNS 0 or error. */
static int request_sense(struct ata_device *dev, uint8_t *key, uint8_t *asc, uint8_t *ascq)
{
	uint8_t cdb[ATAPI_PACKET_BYTES] = { SCSI_REQUEST_SENSE };
	uint8_t sense[SCSI_SENSE_BYTES];
	struct ata_cmd cmd;
	int err;

	cdb[CDB_ALLOC_OFFSET] = SCSI_SENSE_BYTES;
	memset(sense, 0, sizeof(sense));
	err = packet_once(dev, cdb, "REQUEST SENSE", sense, sizeof(sense), false, &cmd);
	if (err)
		return err;
	*key = sense[SCSI_SENSE_KEY_BYTE] & SCSI_SENSE_KEY_MASK;
	*asc = sense[SCSI_SENSE_ASC_BYTE];
	*ascq = sense[SCSI_SENSE_ASCQ_BYTE];
	return 0;
}

int atapi_packet(struct ata_device *dev, const uint8_t *cdb, const char *name, void *buf,
		 uint32_t len, bool to_device, bool quiet)
{
	struct ata_cmd cmd;
	char msg[ATA_DECODE_LEN];

	if (!dev || dev->cls != ATA_CLASS_ATAPI)
		return -ENODEV;
	for (unsigned int attempt = 0; attempt <= ATAPI_UNIT_ATTENTION_RETRIES; attempt++) {
		uint8_t key, asc = 0, ascq = 0;
		int err = packet_once(dev, cdb, name, buf, len, to_device, &cmd);

		if (!err)
			return (int)cmd.done;
		if (err != -EIO || !(cmd.status & ATA_SR_ERR))
			return err;                        /* timeout, protocol: logged by the engine */
		if (request_sense(dev, &key, &asc, &ascq))
			key = (cmd.error & ATAPI_ER_SENSE_MASK) >> ATAPI_ER_SENSE_SHIFT;
		dev->sense_key = key;
		dev->sense_asc = asc;
		dev->sense_ascq = ascq;
		err = atapi_decode_sense(key, asc, ascq, msg, sizeof(msg));
		if (key == SENSE_RECOVERED_ERROR)
			return (int)cmd.done;              /* the device recovered: the data is good */
		if (key == SENSE_UNIT_ATTENTION) {
			dev->blk.media_changed = true;
			pr_info("%s: %s: %s; trying again\n", dev->name, name, msg);
			continue;
		}
		if (!quiet)
			pr_err("%s: %s failed: %s\n", dev->name, name, msg);
		if (err == -ENOMEDIUM)
			dev->sectors = dev->blk.nr_blocks = 0;   /* the next access revalidates */
		return err ? err : -EIO;
	}
	pr_err("%s: %s: still UNIT ATTENTION after %u tries\n", dev->name, name,
	       (unsigned int)ATAPI_UNIT_ATTENTION_RETRIES + 1);
	return -EAGAIN;
}

int atapi_read_capacity(struct ata_device *dev)
{
	uint8_t cdb[ATAPI_PACKET_BYTES] = { SCSI_READ_CAPACITY_10 };
	uint8_t cap[SCSI_CAPACITY_BYTES];
	uint32_t block;
	int n;

	memset(cap, 0, sizeof(cap));
	n = atapi_packet(dev, cdb, "READ CAPACITY", cap, sizeof(cap), false, true);
	if (n < 0) {
		dev->sectors = 0;
		return n;
	}
	if (n < (int)sizeof(cap)) {
		dev->sectors = 0;
		pr_err("%s: READ CAPACITY returned %d of %u bytes\n", dev->name, n,
		       (unsigned int)sizeof(cap));
		return -EPROTO;
	}
	block = get_be32(cap + CAPACITY_BLOCK_OFFSET);
	if (block != ATAPI_BLOCK_BYTES) {
		dev->sectors = 0;
		pr_err("%s: blocks of %u bytes; only %u-byte CD blocks are supported\n", dev->name, block,
		       (unsigned int)ATAPI_BLOCK_BYTES);
		return -EPROTO;
	}
	dev->sectors = (uint64_t)get_be32(cap) + 1;
	return 0;
}

int atapi_rw(struct ata_device *dev, uint64_t lba, uint32_t count, void *buf, bool write)
{
	uint8_t cdb[ATAPI_PACKET_BYTES] = { write ? SCSI_WRITE_10 : SCSI_READ_10 };
	char name[NAME_LEN];
	uint32_t len = count * ATAPI_BLOCK_BYTES;
	int n;

	if (!buf || count == 0 || count > ATAPI_BLOCKS_PER_COMMAND ||
	    lba > LBA32_LIMIT - count)
		return -EINVAL;
	put_be(cdb + CDB_LBA_OFFSET, (uint32_t)lba, sizeof(uint32_t));
	put_be(cdb + CDB_LENGTH_OFFSET, count, sizeof(uint16_t));
	ksnprintf(name, sizeof(name), "%s LBA %llu+%u", write ? "WRITE(10)" : "READ(10)",
		  (unsigned long long)lba, count);
	n = atapi_packet(dev, cdb, name, buf, len, write, false);
	if (n < 0)
		return n;
	if ((uint32_t)n != len) {
		pr_err("%s: %s moved %d of %u bytes\n", dev->name, name, n, len);
		return -EIO;
	}
	return 0;
}

/* ---- Block device ---------------------------------------------------------------------------- */

static int cd_blk_read(struct blk_dev *blk, uint64_t lba, uint32_t count, void *buf)
{
	return atapi_rw(blk->driver_data, lba, count, buf, false);
}

/*
 * cd_blk_revalidate - find out whether a disc is there and how big. After
 * a disc change drives answer "not ready" and then UNIT ATTENTION before
 * they work again (QEMU does exactly that, MMC-5 4.1.6), so TEST UNIT
 * READY is repeated a few times before READ CAPACITY.
 */
static int cd_blk_revalidate(struct blk_dev *blk)
{
	static const uint8_t tur[ATAPI_PACKET_BYTES] = { SCSI_TEST_UNIT_READY };
	struct ata_device *dev = blk->driver_data;
	int err = -ENOMEDIUM;

	for (unsigned int i = 0; i < ATAPI_READY_TRIES && (err == -ENOMEDIUM || err == -EAGAIN); i++)
		err = atapi_packet(dev, tur, "TEST UNIT READY", NULL, 0, false, true);
	if (err >= 0)
		err = atapi_read_capacity(dev);
	else
		dev->sectors = 0;
	blk->nr_blocks = dev->sectors;
	return err < 0 ? err : 0;
}

static const struct blk_ops atapi_ops = {
	.read = cd_blk_read,
	.revalidate = cd_blk_revalidate,
};

void atapi_init_blk(struct ata_device *dev)
{
	struct blk_dev *blk = &dev->blk;

	memset(blk, 0, sizeof(*blk));
	memcpy(blk->name, dev->name, sizeof(blk->name) < sizeof(dev->name) ? sizeof(blk->name)
									 : sizeof(dev->name));
	blk->name[sizeof(blk->name) - 1] = 0;
	blk->kind = dev->id.atapi_type == SCSI_TYPE_CDROM ? "ATAPI CD-ROM" : "ATAPI device";
	blk->model = dev->id.model;
	blk->block_size = ATAPI_BLOCK_BYTES;
	blk->nr_blocks = dev->sectors;
	blk->max_blocks = ATAPI_BLOCKS_PER_COMMAND;
	blk->read_only = true;
	blk->removable = true;
	blk->ops = &atapi_ops;
	blk->driver_data = dev;
}
