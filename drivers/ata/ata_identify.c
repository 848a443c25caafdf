/*
 * ata_identify.c - what is attached to a channel: software reset, device
 * selection, signatures (ATA/ATAPI-6 9.12), IDENTIFY DEVICE (ATA8-ACS
 * 7.16) or IDENTIFY PACKET DEVICE (7.17), then SET MULTIPLE MODE for disks
 * and READ CAPACITY for packet devices. Absent devices are recognised by
 * a status of 0 or 0xFF after selection (QEMU reads 0 for an empty slot, a
 * floating bus reads 0xFF) or by the 0xFF/0xFF signature.
 */
#include "ata_internal.h"
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#define SECTORS_PER_MIB 2048ull     /* 512-byte sectors */
#define CD_BLOCKS_PER_MIB 512ull    /* 2048-byte blocks */
#define MIB_PER_GIB 1024ull
#define BIG_DISK_MIB 10240ull       /* print GiB from 10 GiB up */

static const char *class_name(enum ata_class cls)
{
	switch (cls) {
	case ATA_CLASS_ATA: return "ATA";
	case ATA_CLASS_ATAPI: return "ATAPI";
	case ATA_CLASS_UNKNOWN: return "unknown";
	default: return "none";
	}
}

/*
 * detect - select @slot and read its signature. RETURNS what it appears to
 * be. A status of 0 is ambiguous: ATAPI devices leave DRDY clear after a
 * reset (ATA/ATAPI-6 9.12), but QEMU also reads 0 for a slot without a
 * device; the signature decides (absent: 0xFF/0xFF, or 0/0 without DRDY,
 * which no ATA disk shows after reset).
 */
static enum ata_class detect(struct ata_channel *ch, unsigned int slot, uint8_t *mid, uint8_t *high)
{
	enum ata_class cls;
	uint8_t st;

	ata_select(ch, slot);
	st = ata_read_alt_status(ch);
	if (st == ATA_SR_FLOATING)
		return ATA_CLASS_NONE;
	if (ata_wait_not_busy(ch, ATA_RESET_TIMEOUT_MS, &st)) {
		pr_warn("%s: device %u stays busy (status %#04x); ignored\n", ch->name, slot, st);
		return ATA_CLASS_NONE;
	}
	*mid = ata_hw_inb((uint16_t)(ch->cmd_base + ATA_REG_LBA_MID));
	*high = ata_hw_inb((uint16_t)(ch->cmd_base + ATA_REG_LBA_HIGH));
	cls = ata_classify_signature(*mid, *high);
	if (st == 0 && cls != ATA_CLASS_ATAPI)
		return ATA_CLASS_NONE;
	return cls;
}

static int identify_as(struct ata_device *dev, bool packet, uint16_t *words, struct ata_cmd *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->tf.command = packet ? ATA_CMD_IDENTIFY_PACKET : ATA_CMD_IDENTIFY;
	cmd->name = packet ? "IDENTIFY PACKET DEVICE" : "IDENTIFY DEVICE";
	cmd->proto = ATA_PROTO_PIO_IN;
	cmd->buf = (uint8_t *)words;
	cmd->len = ATA_ID_WORDS * sizeof(uint16_t);
	cmd->block_bytes = cmd->len;
	cmd->no_retry = true;
	return ata_exec(dev, cmd);
}

/*
 * identify - IDENTIFY the way the signature suggests; a disk signature
 * whose IDENTIFY aborts and then shows the packet signature is a packet
 * device (QEMU's CD-ROM answers so), an unknown one gets both.
 */
static int identify(struct ata_device *dev, enum ata_class guess, uint16_t *words)
{
	struct ata_channel *ch = dev->chan;
	struct ata_cmd cmd;
	int err = identify_as(dev, guess == ATA_CLASS_ATAPI, words, &cmd);

	if (err == -EIO && guess != ATA_CLASS_ATAPI && (cmd.error & ATA_ER_ABRT)) {
		uint8_t mid = ata_hw_inb((uint16_t)(ch->cmd_base + ATA_REG_LBA_MID));
		uint8_t high = ata_hw_inb((uint16_t)(ch->cmd_base + ATA_REG_LBA_HIGH));

		if (guess == ATA_CLASS_UNKNOWN || ata_classify_signature(mid, high) == ATA_CLASS_ATAPI)
			err = identify_as(dev, true, words, &cmd);
	}
	if (err) {
		char msg[ATA_DECODE_LEN];

		ata_decode_error(cmd.status, cmd.error, msg, sizeof(msg));
		pr_warn("%s: device %u (%s signature) does not answer %s: %s\n", ch->name, dev->slot,
			class_name(guess), cmd.name, err == -EIO ? msg : errno_name(err));
	}
	return err;
}

static void print_size(char *buf, size_t len, uint64_t mib)
{
	if (mib >= BIG_DISK_MIB)
		ksnprintf(buf, len, "%llu GiB", (unsigned long long)(mib / MIB_PER_GIB));
	else
		ksnprintf(buf, len, "%llu MiB", (unsigned long long)mib);
}

static int setup_disk(struct ata_device *dev)
{
	const struct ata_identity *id = &dev->id;
	unsigned int want = id->multiple_max < ATA_MULTIPLE_LIMIT ? id->multiple_max : ATA_MULTIPLE_LIMIT;
	char size[24];

	if (!id->lba || id->long_sectors) {
		pr_warn("%s: %s \"%s\": %s; not used\n", dev->chan->name, dev->name, id->model,
			!id->lba ? "CHS-only disks are not supported"
				 : "logical sectors longer than 512 bytes are not supported");
		return -ENODEV;
	}
	dev->sectors = id->lba48 && id->lba48_sectors ? id->lba48_sectors : id->lba28_sectors;
	if (dev->sectors == 0)
		return -ENODEV;
	while (want & (want - 1))
		want &= want - 1;                      /* a power of two */
	if (want >= 2)
		ata_disk_set_multiple(dev, want);
	ata_disk_init_blk(dev);
	print_size(size, sizeof(size), dev->sectors / SECTORS_PER_MIB);
	pr_info("%s: %s: ATA disk \"%s\" serial %s firmware %s: %llu sectors (%s), %s, %s%u\n",
		dev->chan->name, dev->name, id->model, id->serial[0] ? id->serial : "(none)",
		id->firmware[0] ? id->firmware : "(none)", (unsigned long long)dev->sectors, size, id->lba48 ? "LBA48" : "LBA28",
		dev->multiple ? "multiple " : "single-sector PIO", dev->multiple);
	return 0;
}

static int setup_atapi(struct ata_device *dev)
{
	const struct ata_identity *id = &dev->id;
	char size[24];
	int err;

	if (id->packet16) {
		pr_warn("%s: %s \"%s\": 16-byte packets are not supported; not used\n", dev->chan->name,
			dev->name, id->model);
		return -ENODEV;
	}
	atapi_init_blk(dev);
	err = atapi_read_capacity(dev);
	dev->blk.nr_blocks = dev->sectors;
	dev->blk.media_changed = false;
	print_size(size, sizeof(size), dev->sectors / CD_BLOCKS_PER_MIB);
	if (dev->sectors)
		pr_info("%s: %s: %s \"%s\" firmware %s: %llu blocks of 2048 bytes (%s)\n",
			dev->chan->name, dev->name, dev->blk.kind, id->model, id->firmware,
			(unsigned long long)dev->sectors, size);
	else
		pr_info("%s: %s: %s \"%s\" firmware %s: no medium (%s)\n", dev->chan->name, dev->name,
			dev->blk.kind, id->model, id->firmware, errno_name(err));
	return 0;
}

int ata_identify_channel(struct ata_channel *ch)
{
	uint16_t words[ATA_ID_WORDS];
	uint8_t mid[ATA_DEVICES_PER_CHANNEL] = { 0 }, high[ATA_DEVICES_PER_CHANNEL] = { 0 };
	enum ata_class guess[ATA_DEVICES_PER_CHANNEL];
	int found = 0;

	if (ata_read_alt_status(ch) == ATA_SR_FLOATING) {
		pr_info("%s: no devices (floating bus)\n", ch->name);
		return 0;
	}
	ata_reset_raw(ch);
	/*
	 * Both signatures first: both devices latch every register write, so
	 * the first command to device 0 would overwrite device 1's signature.
	 */
	for (unsigned int slot = 0; slot < ATA_DEVICES_PER_CHANNEL; slot++)
		guess[slot] = detect(ch, slot, &mid[slot], &high[slot]);
	for (unsigned int slot = 0; slot < ATA_DEVICES_PER_CHANNEL; slot++) {
		struct ata_device *dev = &ch->dev[slot];
		int err;

		dev->cls = ATA_CLASS_NONE;
		if (guess[slot] == ATA_CLASS_NONE)
			continue;
		if (identify(dev, guess[slot], words) || ata_parse_identify(words, &dev->id)) {
			pr_warn("%s: device %u (signature %02x/%02x) gave no usable IDENTIFY data; not used\n",
				ch->name, slot, mid[slot], high[slot]);
			continue;
		}
		dev->cls = dev->id.atapi ? ATA_CLASS_ATAPI : ATA_CLASS_ATA;
		err = dev->cls == ATA_CLASS_ATA ? setup_disk(dev) : setup_atapi(dev);
		if (err)
			dev->cls = ATA_CLASS_NONE;
		else
			found++;
	}
	return found;
}
