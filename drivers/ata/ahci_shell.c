/*
 * ahci_shell.c - the shell's `ata` command on AHCI devices ("sda", "sr0"):
 * the same subcommands and result lines as for the PIO driver's devices
 * (ata_shell.c, docs/ata.md), since the data commands go through the block
 * layer's helpers; `ata` alone lists the HBAs and ports after the IDE
 * channels (docs/ahci.md, "Shell").
 */
#include "ahci_internal.h"
#include <drivers/ahci.h>
#include <drivers/pci.h>
#include <irq/stats.h>
#include <kernel/errno.h>
#include <kernel/heap.h>
#include <kernel/pattern.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <time/time.h>

#define SECTORS_PER_MIB 2048ull
#define BENCH_SEED 0xBE4C0000u   /* seed of the pattern `ata bench` writes (as for PIO disks) */
#define RAW_MAX_BLOCKS 8u        /* blocks one `ata raw` command moves at most */

static bool name_like(const char *w)
{
	return w && w[0] == 's' && (w[1] == 'd' || w[1] == 'r') && w[2] && !w[3];
}

bool ahci_is_device_word(const char *w)
{
	return name_like(w) && ahci_find_port(w) != NULL;
}

static struct ahci_port *first_disk(void)
{
	for (unsigned int h = 0; h < ahci_nr_hosts; h++)
		for (unsigned int i = 0; i < AHCI_MAX_PORTS; i++)
			if (ahci_hosts[h].port[i].started && ahci_hosts[h].port[i].cls == ATA_CLASS_ATA)
				return &ahci_hosts[h].port[i];
	return NULL;
}

bool ahci_have_disk(void)
{
	return first_disk() != NULL;
}

static void print_stats(const struct ahci_port *p)
{
	const struct ahci_stats *s = &p->stats;

	cprintf("    stats: commands=%llu serviced=%llu progress=%llu lost=%llu late=%llu timeouts=%llu "
		"errors=%llu device_errors=%llu hba_errors=%llu restarts=%llu comresets=%llu "
		"retries=%llu noirq=%llu strays=%llu brackets=%llu brackets_timed_out=%llu "
		"noirq_latency_avg_us=%llu noirq_latency_max_us=%llu noirq_unseen_max_us=%llu\n",
		(unsigned long long)s->commands, (unsigned long long)s->serviced,
		(unsigned long long)s->progress, (unsigned long long)s->lost_recovered,
		(unsigned long long)s->late_recovered,
		(unsigned long long)s->timeouts, (unsigned long long)s->errors,
		(unsigned long long)s->device_errors, (unsigned long long)s->hba_errors,
		(unsigned long long)s->port_restarts, (unsigned long long)s->comresets,
		(unsigned long long)s->retries, (unsigned long long)s->noirq,
		(unsigned long long)s->strays, (unsigned long long)s->brackets,
		(unsigned long long)s->brackets_timed_out,
		(unsigned long long)(s->noirq_done ? s->noirq_lat_total_ns / s->noirq_done / 1000u : 0),
		(unsigned long long)(s->noirq_lat_max_ns / 1000u), (unsigned long long)(s->noirq_unseen_max_ns / 1000u));
}

/* print_health - what kernel/irq's defences think of the HBA's action (all its ports' tokens). */
static void print_health(const struct ahci_host *h)
{
	struct irq_action_health ah;
	char causes[64];

	if (!h->irq_requested)
		return;
	for (unsigned int i = 0; irq_get_action_health((unsigned int)h->line, i, &ah) == 0; i++) {
		if (ah.dev_id != h)
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

void ahci_show(void)
{
	char why[ATA_DECODE_LEN];

	for (unsigned int n = 0; n < ahci_nr_hosts; n++) {
		const struct ahci_host *h = &ahci_hosts[n];

		cprintf("%s: pci %02x:%02x.%u ABAR %#llx, CAP %#x, PI %#x, %u slots, %s line %d, "
			"handler %s, calls %llu, not ours %llu\n", h->name, h->pci->bus, h->pci->dev,
			h->pci->fn, (unsigned long long)h->abar_phys, h->cap, h->pi, h->slots,
			h->irq_kind ? h->irq_kind : "no interrupt", h->line,
			h->irq_requested ? "registered" : "none", (unsigned long long)h->handler_calls,
			(unsigned long long)h->not_ours);
		for (unsigned int i = 0; i < AHCI_MAX_PORTS; i++) {
			const struct ahci_port *p = &h->port[i];

			if (!p->started)
				continue;
			if (p->cls == ATA_CLASS_ATA)
				cprintf("  %s: port %u, ATA disk \"%s\", %llu sectors (%llu MiB), %s, "
					"IRQ expecting %s, noirq %u %%\n", p->name, i, p->id.model,
					(unsigned long long)p->sectors,
					(unsigned long long)(p->sectors / SECTORS_PER_MIB),
					p->id.lba48 ? "LBA48" : "LBA28", p->expect ? "on" : "off",
					p->noirq_percent);
			else
				cprintf("  %s: port %u, %s \"%s\", %llu blocks of 2048 bytes, last sense "
					"%x/%02x/%02x, IRQ expecting %s, noirq %u %%\n", p->name, i,
					p->cls == ATA_CLASS_ATAPI ? "ATAPI" : "device", p->id.model,
					(unsigned long long)p->sectors, p->sense_key, p->sense_asc,
					p->sense_ascq, p->expect ? "on" : "off", p->noirq_percent);
			print_stats(p);
		}
		print_health(h);
		if (ahci_diagnose(h, why, sizeof(why)) == 1)
			cprintf("  diagnosis: %s\n", why);
	}
}

static int show_identify(const struct ahci_port *p)
{
	const struct ata_identity *id = &p->id;

	cprintf("%s: %s, model \"%s\", serial \"%s\", firmware \"%s\"\n", p->name,
		p->cls == ATA_CLASS_ATAPI ? "ATAPI" : "ATA disk", id->model, id->serial, id->firmware);
	if (p->cls == ATA_CLASS_ATAPI)
		return 0;
	cprintf("  LBA28 sectors %llu, LBA48 %s sectors %llu, FLUSH CACHE %s, FLUSH CACHE EXT %s, "
		"IDENTIFY checksum %s\n", (unsigned long long)id->lba28_sectors, id->lba48 ? "yes" : "no",
		(unsigned long long)id->lba48_sectors, id->flush ? "yes" : "no",
		id->flush_ext ? "yes" : "no",
		!id->checksum_present ? "absent" : id->checksum_ok ? "ok" : "BAD");
	return 0;
}

static int bench(struct ahci_port *p, uint64_t lba, uint64_t count)
{
	const struct ahci_stats before = p->stats;
	int err = ata_shell_bench(&p->blk, p->name, p->cls == ATA_CLASS_ATA, lba, count);

	if (err && err != -EIO)
		return err;
	cprintf("bench %s %llu+%llu interrupts: commands %llu, serviced %llu, lost %llu, noirq commands "
		"%llu, timeouts %llu\n", p->name, (unsigned long long)lba, (unsigned long long)count,
		(unsigned long long)(p->stats.commands - before.commands),
		(unsigned long long)(p->stats.serviced - before.serviced),
		(unsigned long long)(p->stats.lost_recovered - before.lost_recovered),
		(unsigned long long)(p->stats.noirq - before.noirq),
		(unsigned long long)(p->stats.timeouts - before.timeouts));
	return err;
}

/* raw - one command straight to the device: no range check; the device must refuse it. */
static int raw(struct ahci_port *p, bool write, uint64_t lba, uint64_t count)
{
	const uint32_t bs = p->cls == ATA_CLASS_ATA ? ATA_SECTOR_BYTES : ATAPI_BLOCK_BYTES;
	uint8_t *buf;
	int err;

	if (count == 0 || count > RAW_MAX_BLOCKS || (write && p->cls != ATA_CLASS_ATA))
		return -EINVAL;
	buf = kzalloc((size_t)count * bs);
	if (!buf)
		return -ENOMEM;
	for (uint32_t i = 0; write && i < count; i++)
		pattern_fill(BENCH_SEED, lba + i, buf + (size_t)i * bs, bs);
	err = p->cls == ATA_CLASS_ATA ? ahci_disk_rw(p, lba, (uint32_t)count, buf, write, false)
				      : ahci_atapi_rw(p, lba, (uint32_t)count, buf);
	if (err)
		cprintf("raw %s %s %llu+%llu: refused: %s\n", p->name, write ? "write" : "read",
			(unsigned long long)lba, (unsigned long long)count, errno_name(err));
	else
		cprintf("raw %s %s %llu+%llu: ok\n", p->name, write ? "write" : "read",
			(unsigned long long)lba, (unsigned long long)count);
	kfree(buf);
	return err;
}

static int reset(struct ahci_port *p)
{
	int err = ahci_port_recover(p, true);
	/* A device that went through COMRESET answers with a D2H FIS carrying its diagnostic
	 * code in the error byte (01h: passed, ATA8-ACS 9.13); until the next command PxTFD shows it. */
	uint32_t tfd = ahci_port_read(p, AHCI_PxTFD);

	cprintf("%s: port %u reset (COMRESET) %s, PxTFD %#x (diagnostic %#04x)\n", p->name, p->index,
		err ? errno_name(err) : "ok", tfd, (tfd >> AHCI_PxTFD_ERR_SHIFT) & 0xFF);
	return err;
}

int ahci_ata_cmd(int argc, char **argv)
{
	static const struct { const char *name; unsigned int numbers; } subs[] = {
		{ "identify", 0 }, { "read", 1 }, { "crc", 2 }, { "write-pattern", 3 },
		{ "verify-pattern", 3 }, { "flush", 0 }, { "bench", 2 }, { "reset", 0 },
	};
	struct ahci_port *p;
	uint64_t v[3];
	int i = 2, k;

	if (argc < 2)
		return -EINVAL;
	if (strcmp(argv[1], "raw") == 0) {
		if (argc != 6 || !(p = ahci_find_port(argv[2])) ||
		    (strcmp(argv[3], "read") != 0 && strcmp(argv[3], "write") != 0) ||
		    ata_shell_numbers(argc, argv, 4, 2, v))
			return -EINVAL;
		return raw(p, argv[3][0] == 'w', v[0], v[1]);
	}
	for (k = 0; k < (int)(sizeof(subs) / sizeof(subs[0])); k++)
		if (strcmp(argv[1], subs[k].name) == 0)
			break;
	if (k == (int)(sizeof(subs) / sizeof(subs[0])))
		return -EINVAL;
	if (i < argc && name_like(argv[i])) {
		p = ahci_find_port(argv[i++]);
		if (!p) {
			cprintf("ata: no device %s (`ata` lists them)\n", argv[i - 1]);
			return -ENODEV;
		}
	} else if (!(p = first_disk())) {
		cprintf("ata: no ATA disk found\n");
		return -ENODEV;
	}
	if (ata_shell_numbers(argc, argv, i, subs[k].numbers, v))
		return -EINVAL;
	if (subs[k].numbers == 3 && v[0] > UINT32_MAX)
		return -EINVAL;
	switch (k) {
	case 0: return show_identify(p);
	case 1: return blk_print_block(&p->blk, v[0]);
	case 2: return blk_print_crc(&p->blk, v[0], v[1]);
	case 3: return blk_print_write_pattern(&p->blk, (uint32_t)v[0], v[1], v[2]);
	case 4: return blk_print_verify_pattern(&p->blk, (uint32_t)v[0], v[1], v[2]);
	case 5: {
		int err = blk_flush(&p->blk);

		cprintf("flush %s: %s\n", p->name, err ? errno_name(err) : "ok");
		return err;
	}
	case 6: return bench(p, v[0], v[1]);
	default: return reset(p);
	}
}
