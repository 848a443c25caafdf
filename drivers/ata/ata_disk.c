/*
 * ata_disk.c - ATA disks: the data commands of ATA8-ACS (READ/WRITE SECTORS
 * 7.36/7.67, their EXT forms 7.37/7.68, READ/WRITE MULTIPLE (EXT)
 * 7.33-7.34/7.64-7.65 after SET MULTIPLE MODE 7.47, FLUSH CACHE (EXT)
 * 7.14-7.15), the choice between them, and the block-device operations
 * that make a disk "hda" for kernel/blk.c. The engine is ata_core.c.
 */
#include "ata_internal.h"
#include <kernel/errno.h>
#include <kernel/printk.h>
#include <kernel/string.h>

/* The four command choices of a transfer: [multiple][lba48]. */
static const struct { uint8_t code; const char *name; } rw_commands[2][2][2] = {
	/* read */
	{ { { ATA_CMD_READ_SECTORS, "READ SECTORS" }, { ATA_CMD_READ_SECTORS_EXT, "READ SECTORS EXT" } },
	  { { ATA_CMD_READ_MULTIPLE, "READ MULTIPLE" }, { ATA_CMD_READ_MULTIPLE_EXT, "READ MULTIPLE EXT" } } },
	/* write */
	{ { { ATA_CMD_WRITE_SECTORS, "WRITE SECTORS" }, { ATA_CMD_WRITE_SECTORS_EXT, "WRITE SECTORS EXT" } },
	  { { ATA_CMD_WRITE_MULTIPLE, "WRITE MULTIPLE" }, { ATA_CMD_WRITE_MULTIPLE_EXT, "WRITE MULTIPLE EXT" } } },
};

/* needs_lba48 - the range cannot be said in a 28-bit command (or the user asked for EXT). */
static bool needs_lba48(const struct ata_device *dev, uint64_t lba, uint32_t count)
{
	return dev->force_lba48 || count > ATA_LBA28_COUNT_MAX || lba > ATA_LBA28_LIMIT - count;
}

static void log_device_error(const struct ata_device *dev, const struct ata_cmd *cmd, uint64_t lba,
			     uint32_t count, int *err)
{
	char msg[ATA_DECODE_LEN];

	if (*err == -EIO)
		*err = ata_decode_error(cmd->status, cmd->error, msg, sizeof(msg));
	else
		msg[0] = 0;
	pr_err("%s: %s LBA %llu+%u failed: %s%s\n", dev->name, cmd->name, (unsigned long long)lba,
	       count, msg[0] ? msg : errno_name(*err), cmd->done ? "" : " (no data moved)");
}

int ata_disk_rw(struct ata_device *dev, uint64_t lba, uint32_t count, void *buf, bool write,
		bool check_range)
{
	struct ata_cmd cmd;
	bool lba48, multiple;
	int err;

	if (!dev || dev->cls != ATA_CLASS_ATA)
		return -ENODEV;
	if (!buf || count == 0 || count > ATA_SECTORS_PER_COMMAND)
		return -EINVAL;
	if (check_range && (lba >= dev->sectors || count > dev->sectors - lba))
		return -ERANGE;
	lba48 = needs_lba48(dev, lba, count);
	if (lba48 && (!dev->id.lba48 || lba > ATA_LBA48_LIMIT - count))
		return -ERANGE;
	multiple = dev->multiple > 0;
	memset(&cmd, 0, sizeof(cmd));
	cmd.tf.command = rw_commands[write][multiple][lba48].code;
	cmd.name = rw_commands[write][multiple][lba48].name;
	cmd.tf.count = (uint16_t)count;     /* 256 (28-bit) and 65536 (48-bit) wrap to 0, as meant */
	cmd.tf.lba = lba;
	cmd.tf.lba48 = lba48;
	cmd.tf.lba_mode = true;
	cmd.proto = write ? ATA_PROTO_PIO_OUT : ATA_PROTO_PIO_IN;
	cmd.buf = buf;
	cmd.len = count * ATA_SECTOR_BYTES;
	cmd.block_bytes = (multiple ? dev->multiple : 1) * ATA_SECTOR_BYTES;
	err = ata_exec(dev, &cmd);
	if (err)
		log_device_error(dev, &cmd, lba, count, &err);
	return err;
}

int ata_disk_flush(struct ata_device *dev)
{
	struct ata_cmd cmd;
	int err;

	if (!dev || dev->cls != ATA_CLASS_ATA)
		return -ENODEV;
	if (!dev->id.flush && !dev->id.flush_ext)
		return 0;                 /* no write cache to flush (ATA-5 and older) */
	memset(&cmd, 0, sizeof(cmd));
	if (dev->id.lba48 && dev->id.flush_ext) {
		cmd.tf.command = ATA_CMD_FLUSH_CACHE_EXT;
		cmd.name = "FLUSH CACHE EXT";
	} else {
		cmd.tf.command = ATA_CMD_FLUSH_CACHE;
		cmd.name = "FLUSH CACHE";
	}
	cmd.proto = ATA_PROTO_NODATA;
	cmd.busy_timeout_ms = ATA_FLUSH_TIMEOUT_MS;
	err = ata_exec(dev, &cmd);
	if (err)
		log_device_error(dev, &cmd, 0, 0, &err);
	return err;
}

int ata_disk_set_multiple(struct ata_device *dev, unsigned int sectors)
{
	struct ata_cmd cmd;
	int err;

	if (!dev || dev->cls != ATA_CLASS_ATA)
		return -ENODEV;
	if (sectors > dev->id.multiple_max || (sectors & (sectors - 1)))
		return -EINVAL;   /* ATA8-ACS: a power of two the device supports */
	if (sectors == 0) {
		dev->multiple = 0;  /* single-sector commands need no device setting */
		return 0;
	}
	memset(&cmd, 0, sizeof(cmd));
	cmd.tf.command = ATA_CMD_SET_MULTIPLE;
	cmd.tf.count = (uint16_t)sectors;
	cmd.name = "SET MULTIPLE MODE";
	cmd.proto = ATA_PROTO_NODATA;
	cmd.no_retry = true;        /* also called from the reset path */
	err = ata_exec(dev, &cmd);
	if (err) {
		log_device_error(dev, &cmd, 0, 0, &err);
		dev->multiple = 0;
		return err;
	}
	dev->multiple = (uint8_t)sectors;
	return 0;
}

/* ---- Block device --------------------------------------------------------------------- */

static int disk_blk_read(struct blk_dev *blk, uint64_t lba, uint32_t count, void *buf)
{
	return ata_disk_rw(blk->driver_data, lba, count, buf, false, true);
}

static int disk_blk_write(struct blk_dev *blk, uint64_t lba, uint32_t count, const void *buf)
{
	/* The engine only reads a write's buffer. */
	return ata_disk_rw(blk->driver_data, lba, count, (void *)buf, true, true);
}

static int disk_blk_flush(struct blk_dev *blk)
{
	return ata_disk_flush(blk->driver_data);
}

static const struct blk_ops ata_disk_ops = {
	.read = disk_blk_read,
	.write = disk_blk_write,
	.flush = disk_blk_flush,
};

void ata_disk_init_blk(struct ata_device *dev)
{
	struct blk_dev *blk = &dev->blk;

	memset(blk, 0, sizeof(*blk));
	memcpy(blk->name, dev->name, sizeof(dev->name) < sizeof(blk->name) ? sizeof(dev->name)
									 : sizeof(blk->name));
	blk->name[sizeof(blk->name) - 1] = 0;
	blk->kind = "ATA disk";
	blk->model = dev->id.model;
	blk->block_size = ATA_SECTOR_BYTES;
	blk->nr_blocks = dev->sectors;
	blk->max_blocks = ATA_SECTORS_PER_COMMAND;
	blk->ops = &ata_disk_ops;
	blk->driver_data = dev;
}
