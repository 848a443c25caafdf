/*
 * ata_shell.c - the shell's `ata` command (usage: include/drivers/ata.h,
 * output formats: docs/ata.md "Shell commands"). The data commands (crc,
 * write-pattern, verify-pattern, read) go through the block layer's
 * helpers, so `ata crc hda ...` and `blk crc hda ...` print the same line;
 * the rest shows and steers the driver: channels and counters, IDENTIFY,
 * resets, the command choice, raw commands the device must refuse itself,
 * and a throughput benchmark.
 */
#include "ata_internal.h"
#include <drivers/ahci.h>
#include <drivers/ata.h>
#include <irq/stats.h>
#include <kernel/errno.h>
#include <kernel/heap.h>
#include <kernel/pattern.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <time/time.h>

#define NS_PER_US 1000ull
#define RATE_HUNDREDTHS 100ull
#define SECTORS_PER_MIB 2048ull
#define BENCH_SEED 0xBE4C0000u   /* seed of the pattern `ata bench` writes */
#define RAW_MAX_BLOCKS 8u        /* blocks one `ata raw` command moves at most */

static const char *class_name(enum ata_class cls)
{
	switch (cls) {
	case ATA_CLASS_ATA: return "ATA disk";
	case ATA_CLASS_ATAPI: return "ATAPI";
	default: return "none";
	}
}

/* find_device - "hda".."hdd" that was identified, or NULL. */
static struct ata_device *find_device(const char *name)
{
	for (unsigned int c = 0; c < ATA_MAX_CHANNELS; c++)
		for (unsigned int s = 0; s < ATA_DEVICES_PER_CHANNEL; s++) {
			struct ata_device *d = &ata_channels[c].dev[s];

			if (d->cls != ATA_CLASS_NONE && strcmp(d->name, name) == 0)
				return d;
		}
	return NULL;
}

static struct ata_device *first_disk(void)
{
	for (unsigned int c = 0; c < ATA_MAX_CHANNELS; c++)
		for (unsigned int s = 0; s < ATA_DEVICES_PER_CHANNEL; s++)
			if (ata_channels[c].dev[s].cls == ATA_CLASS_ATA)
				return &ata_channels[c].dev[s];
	return NULL;
}

/* looks_like_device - "hd" and a letter: a device word, not a number. */
static bool looks_like_device(const char *w)
{
	return w[0] == 'h' && w[1] == 'd' && w[2] >= 'a' && w[2] <= 'z' && w[3] == 0;
}

/*
 * device_words - take an optional DEV word at argv[*i]. RETURNS the device,
 * or NULL after saying why (no such device, no disk at all).
 */
static struct ata_device *device_words(int argc, char **argv, int *i)
{
	struct ata_device *dev;

	if (*i < argc && looks_like_device(argv[*i])) {
		dev = find_device(argv[*i]);
		if (!dev)
			cprintf("ata: no device %s (`ata` lists them)\n", argv[*i]);
		(*i)++;
		return dev;
	}
	dev = first_disk();
	if (!dev)
		cprintf("ata: no ATA disk found\n");
	return dev;
}

static void print_stats(const struct ata_channel *ch)
{
	const struct ata_stats *s = &ch->stats;

	cprintf("  stats: commands=%llu handler=%llu busy=%llu idle=%llu strays=%llu serviced=%llu "
		"lost=%llu late=%llu timeouts=%llu resets=%llu retries=%llu errors=%llu dropped=%llu "
		"brackets=%llu brackets_timed_out=%llu\n",
		(unsigned long long)s->commands, (unsigned long long)s->handler_calls,
		(unsigned long long)s->not_ours_busy, (unsigned long long)s->not_ours_idle,
		(unsigned long long)s->strays, (unsigned long long)s->serviced,
		(unsigned long long)s->lost_recovered, (unsigned long long)s->late_recovered,
		(unsigned long long)s->timeouts,
		(unsigned long long)s->resets, (unsigned long long)s->retries,
		(unsigned long long)s->errors, (unsigned long long)s->dropped,
		(unsigned long long)s->brackets, (unsigned long long)s->brackets_timed_out);
}

static void print_device(const struct ata_device *d)
{
	if (d->cls == ATA_CLASS_ATA)
		cprintf("  %s: ATA disk \"%s\", %llu sectors (%llu MiB), %s%s, %s %u\n", d->name,
			d->id.model, (unsigned long long)d->sectors,
			(unsigned long long)(d->sectors / SECTORS_PER_MIB), d->id.lba48 ? "LBA48" : "LBA28",
			d->force_lba48 ? " (EXT commands always)" : "",
			d->multiple ? "multiple" : "single-sector, multiple", d->multiple);
	else if (d->cls == ATA_CLASS_ATAPI)
		cprintf("  %s: %s \"%s\", %llu blocks of 2048 bytes, last sense %x/%02x/%02x\n", d->name,
			d->blk.kind, d->id.model, (unsigned long long)d->sectors, d->sense_key,
			d->sense_asc, d->sense_ascq);
	else
		cprintf("  %s: none\n", d->name);
}

/*
 * print_health - what kernel/irq's defences think of this channel's action:
 * its expect token (verified or not), completions by interrupt and by
 * polling, time-outs, watching, and whether it runs on polling and why.
 */
static void print_health(const struct ata_channel *ch)
{
	struct irq_action_health ah;
	char causes[64];

	if (!ch->irq_requested)
		return;
	for (unsigned int i = 0; irq_get_action_health((unsigned int)ch->line, i, &ah) == 0; i++) {
		if (ah.dev_id != ch)
			continue;
		cprintf("  irq health: token %s, %llu by interrupt, %llu by polling, %llu timed out, "
			"watch %s, %s%s%s\n", ah.tokens == 0 ? "none" : ah.tokens_verified ? "verified"
								      : "unverified",
			(unsigned long long)ah.completions_irq, (unsigned long long)ah.completions_polled,
			(unsigned long long)ah.timeouts, ah.watch,
			ah.causes ? "on polling (" : "interrupts fine",
			ah.causes ? irq_health_cause_string(ah.causes, causes, sizeof(causes)) : "",
			ah.causes ? ")" : "");
		return;
	}
}

static int show_all(void)
{
	for (unsigned int c = 0; c < ATA_MAX_CHANNELS; c++) {
		const struct ata_channel *ch = &ata_channels[c];

		if (ch->cmd_base == 0) {
			cprintf("%s: not probed (ata_init did not run)\n", ch->name[0] ? ch->name : "ata");
			continue;
		}
		cprintf("%s: %s %#x/%#x bm %#x, IRQ %u line %d, handler %s, IRQ expecting %s, "
			"drop %u %%\n", ch->name, ch->native ? "native" : "legacy", ch->cmd_base,
			ch->ctl_port, ch->bm_base, ch->isa_irq, ch->line,
			ch->irq_requested ? "registered" : "none", ch->expect ? "on" : "off",
			ch->drop_percent);
		for (unsigned int s = 0; s < ATA_DEVICES_PER_CHANNEL; s++)
			print_device(&ch->dev[s]);
		print_stats(ch);
		print_health(ch);
	}
	return 0;
}

static int show_identify(struct ata_device *d)
{
	const struct ata_identity *id = &d->id;

	cprintf("%s: %s, model \"%s\", serial \"%s\", firmware \"%s\"\n", d->name, class_name(d->cls),
		id->model, id->serial, id->firmware);
	if (d->cls == ATA_CLASS_ATAPI) {
		cprintf("  device type %u, %s, 12-byte packets\n", id->atapi_type,
			id->removable ? "removable" : "fixed");
		return 0;
	}
	cprintf("  LBA28 sectors %llu, LBA48 %s sectors %llu, multiple max %u (in use %u), "
		"FLUSH CACHE %s, FLUSH CACHE EXT %s, IDENTIFY checksum %s\n",
		(unsigned long long)id->lba28_sectors, id->lba48 ? "yes" : "no",
		(unsigned long long)id->lba48_sectors, id->multiple_max, d->multiple,
		id->flush ? "yes" : "no", id->flush_ext ? "yes" : "no",
		!id->checksum_present ? "absent" : id->checksum_ok ? "ok" : "BAD");
	return 0;
}

static void print_rate(const char *what, const char *name, uint64_t lba, uint64_t count, uint64_t bytes,
		       uint64_t ns, const char *tail)
{
	uint64_t us = ns / NS_PER_US ? ns / NS_PER_US : 1;
	uint64_t hundredths = bytes * RATE_HUNDREDTHS / us;

	cprintf("bench %s %llu+%llu %s: %llu bytes in %llu us, %llu.%02llu MB/s%s\n", name,
		(unsigned long long)lba, (unsigned long long)count, what, (unsigned long long)bytes,
		(unsigned long long)us, (unsigned long long)(hundredths / RATE_HUNDREDTHS),
		(unsigned long long)(hundredths % RATE_HUNDREDTHS), tail);
}

/* bench_pass - write (pattern) or read+verify [lba, lba+count), timing only the I/O. */
static int bench_pass(struct blk_dev *blk, const char *name, bool disk, bool write, uint64_t lba,
		      uint64_t count, uint8_t *buf, uint64_t *io_ns, uint64_t *wrong)
{
	const uint32_t bs = blk->block_size, piece = BLK_SHELL_BUFFER_BYTES / bs;

	for (uint64_t done = 0; done < count;) {
		uint32_t n = count - done < piece ? (uint32_t)(count - done) : piece;
		uint64_t t0;
		int err;

		for (uint32_t i = 0; write && i < n; i++)
			pattern_fill(BENCH_SEED, lba + done + i, buf + (size_t)i * bs, bs);
		t0 = ktime_get_ns();
		err = write ? blk_write(blk, lba + done, n, buf) : blk_read(blk, lba + done, n, buf);
		*io_ns += ktime_get_ns() - t0;
		if (err) {
			cprintf("bench %s: %s at LBA %llu failed: %s\n", name, write ? "write" : "read",
				(unsigned long long)(lba + done), errno_name(err));
			return err;
		}
		for (uint32_t i = 0; !write && disk && i < n; i++)
			*wrong += pattern_check(BENCH_SEED, lba + done + i, buf + (size_t)i * bs, bs, NULL) != 0;
		done += n;
	}
	return 0;
}

int ata_shell_bench(struct blk_dev *blk, const char *name, bool disk, uint64_t lba, uint64_t count)
{
	uint64_t write_ns = 0, read_ns = 0, wrong = 0, bytes = count * blk->block_size;
	uint8_t *buf;
	int err = 0;

	if (count == 0 || lba >= blk->nr_blocks || count > blk->nr_blocks - lba) {
		cprintf("bench %s: %llu+%llu is outside the device\n", name, (unsigned long long)lba,
			(unsigned long long)count);
		return -ERANGE;
	}
	buf = kmalloc(BLK_SHELL_BUFFER_BYTES);
	if (!buf)
		return -ENOMEM;
	if (disk)
		err = bench_pass(blk, name, disk, true, lba, count, buf, &write_ns, &wrong);
	if (!err)
		err = bench_pass(blk, name, disk, false, lba, count, buf, &read_ns, &wrong);
	kfree(buf);
	if (err)
		return err;
	if (disk)
		print_rate("write", name, lba, count, bytes, write_ns, "");
	print_rate("read", name, lba, count, bytes, read_ns, !disk ? "" : wrong ? ", PATTERN WRONG" : ", pattern verified");
	return wrong ? -EIO : 0;
}

static int bench(struct ata_device *d, uint64_t lba, uint64_t count)
{
	const struct ata_stats before = d->chan->stats;
	const struct ata_stats *now = &d->chan->stats;
	int err = ata_shell_bench(&d->blk, d->name, d->cls == ATA_CLASS_ATA, lba, count);

	if (err && err != -EIO)
		return err;
	cprintf("bench %s %llu+%llu interrupts: serviced %llu, lost %llu, dropped commands %llu, "
		"timeouts %llu\n", d->name, (unsigned long long)lba, (unsigned long long)count,
		(unsigned long long)(now->serviced - before.serviced),
		(unsigned long long)(now->lost_recovered - before.lost_recovered),
		(unsigned long long)(now->dropped - before.dropped),
		(unsigned long long)(now->timeouts - before.timeouts));
	return err;
}

/* raw - one command straight to the device: no range and no read-only check. */
static int raw(struct ata_device *d, bool write, uint64_t lba, uint64_t count)
{
	const uint32_t bs = d->cls == ATA_CLASS_ATA ? ATA_SECTOR_BYTES : ATAPI_BLOCK_BYTES;
	uint8_t *buf;
	int err;

	if (count == 0 || count > RAW_MAX_BLOCKS)
		return -EINVAL;
	buf = kzalloc((size_t)count * bs);
	if (!buf)
		return -ENOMEM;
	for (uint32_t i = 0; write && i < count; i++)
		pattern_fill(BENCH_SEED, lba + i, buf + (size_t)i * bs, bs);
	err = d->cls == ATA_CLASS_ATA ? ata_disk_rw(d, lba, (uint32_t)count, buf, write, false)
				      : atapi_rw(d, lba, (uint32_t)count, buf, write);
	if (err)
		cprintf("raw %s %s %llu+%llu: refused: %s\n", d->name, write ? "write" : "read",
			(unsigned long long)lba, (unsigned long long)count, errno_name(err));
	else
		cprintf("raw %s %s %llu+%llu: ok\n", d->name, write ? "write" : "read",
			(unsigned long long)lba, (unsigned long long)count);
	kfree(buf);
	return err;
}

static int set(struct ata_device *d, const char *key, const char *value)
{
	uint64_t n;
	int err;

	if (d->cls != ATA_CLASS_ATA)
		return -ENODEV;
	if (strcmp(key, "lba48") == 0 && (strcmp(value, "on") == 0 || strcmp(value, "off") == 0)) {
		if (!d->id.lba48 && value[1] == 'n')
			return -ENODEV;
		d->force_lba48 = value[1] == 'n';
		cprintf("%s: EXT (48-bit) commands %s\n", d->name,
			d->force_lba48 ? "always" : "only where 28 bits do not reach");
		return 0;
	}
	if (strcmp(key, "multiple") != 0 || blk_parse_number(value, UINT8_MAX, &n))
		return -EINVAL;
	err = ata_disk_set_multiple(d, (unsigned int)n);
	if (err == -EINVAL)
		cprintf("%s: multiple must be 0 or a power of two up to %u\n", d->name, d->id.multiple_max);
	else if (!err)
		cprintf("%s: %s\n", d->name, d->multiple ? "READ/WRITE MULTIPLE" : "READ/WRITE SECTORS");
	return err == -EINVAL ? -ERANGE : err;
}

static int reset(struct ata_device *d)
{
	int err = ata_channel_reset(d->chan);

	cprintf("%s: software reset %s\n", d->chan->name, err ? errno_name(err) : "ok");
	return err;
}

int ata_shell_numbers(int argc, char **argv, int i, unsigned int n, uint64_t *out)
{
	if (argc - i != (int)n)
		return -EINVAL;
	for (unsigned int k = 0; k < n; k++)
		if (blk_parse_number(argv[i + (int)k], UINT64_MAX, &out[k]))
			return -EINVAL;
	return 0;
}

/* data_command - the subcommands that take [DEV] and numbers; RETURNS -ENOENT if not one. */
static int data_command(const char *sub, int argc, char **argv)
{
	static const struct { const char *name; unsigned int numbers; } subs[] = {
		{ "identify", 0 }, { "read", 1 }, { "crc", 2 }, { "write-pattern", 3 },
		{ "verify-pattern", 3 }, { "flush", 0 }, { "bench", 2 }, { "reset", 0 },
	};
	uint64_t v[3];
	int i = 2, k;
	struct ata_device *d;

	for (k = 0; k < (int)(sizeof(subs) / sizeof(subs[0])); k++)
		if (strcmp(sub, subs[k].name) == 0)
			break;
	if (k == (int)(sizeof(subs) / sizeof(subs[0])))
		return -ENOENT;
	d = device_words(argc, argv, &i);
	if (!d)
		return -ENODEV;
	if (ata_shell_numbers(argc, argv, i, subs[k].numbers, v))
		return -EINVAL;
	if (subs[k].numbers == 3 && v[0] > UINT32_MAX)
		return -EINVAL;
	switch (k) {
	case 0: return show_identify(d);
	case 1: return blk_print_block(&d->blk, v[0]);
	case 2: return blk_print_crc(&d->blk, v[0], v[1]);
	case 3: return blk_print_write_pattern(&d->blk, (uint32_t)v[0], v[1], v[2]);
	case 4: return blk_print_verify_pattern(&d->blk, (uint32_t)v[0], v[1], v[2]);
	case 5: {
		int err = blk_flush(&d->blk);

		cprintf("flush %s: %s\n", d->name, err ? errno_name(err) : "ok");
		return err;
	}
	case 6: return bench(d, v[0], v[1]);
	default: return reset(d);
	}
}

int ata_cmd(int argc, char **argv)
{
	struct ata_device *d;
	uint64_t v[2];
	int err;

	if (argc == 1) {
		show_all();
		ahci_show();
		return 0;
	}
	/* AHCI devices ("sda", "sr0"), and the default device when no IDE disk exists. */
	if ((argc >= 3 && ahci_is_device_word(argv[2])) || (!first_disk() && ahci_have_disk()))
		return ahci_ata_cmd(argc, argv);
	err = data_command(argv[1], argc, argv);
	if (err != -ENOENT)
		return err;
	if (argc < 3 || !looks_like_device(argv[2]))
		return -EINVAL;
	d = find_device(argv[2]);
	if (!d) {
		cprintf("ata: no device %s (`ata` lists them)\n", argv[2]);
		return -ENODEV;
	}
	if (strcmp(argv[1], "raw") == 0 && argc == 6 &&
	    (strcmp(argv[3], "read") == 0 || strcmp(argv[3], "write") == 0) &&
	    ata_shell_numbers(argc, argv, 4, 2, v) == 0)
		return raw(d, argv[3][0] == 'w', v[0], v[1]);
	if (strcmp(argv[1], "set") == 0 && argc == 5)
		return set(d, argv[3], argv[4]);
	return -EINVAL;
}
