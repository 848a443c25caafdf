/*
 * ata_engine.c - bench-ata's host part: instructions drivers/ata itself
 * spends (the simulated device of tests/unit/test_ata_sim.c excluded by
 * the Makefile fragment, which sums callgrind's self cost of the functions
 * in drivers/ata/) per operation:
 *
 *   read16    one READ MULTIPLE of 16 sectors (one DRQ block) with its interrupt
 *   read256   one READ MULTIPLE of 256 sectors (16 blocks, 16 interrupts)
 *   lost16    read16 whose interrupt is lost: the driver completes it after its wait
 *   idle      one handler call with nothing in flight (a shared line's other device)
 *
 * Usage: ata_engine MODE OPS. Only bench_ata_measure() is counted
 * (--toggle-collect); the probe runs outside it.
 */
#include "../unit/test_ata_sim.c"

#define DISK_SECTORS 4096u

static struct ata_channel ch;
static uint8_t buf[256 * 512];

static void disk_setup(void)
{
	struct sim_drive *d = &S.drive[0];

	memset(&S, 0, sizeof(S));
	S.cpu_irq_on = true;
	S.latency_ns = 20000;
	d->present = true;
	d->block = 512;
	d->sectors = d->backed_blocks = DISK_SECTORS;
	d->media = calloc(DISK_SECTORS, 512);
	d->status = ATA_SR_DRDY | ATA_SR_DSC;
	d->multiple_max = 16;
	d->id[ATA_ID_CONFIG] = 0x0040;
	d->id[ATA_ID_MODEL] = 0x4141;
	d->id[ATA_ID_MULTIPLE_MAX] = 0x8010;
	d->id[ATA_ID_CAPABILITIES] = ATA_ID_CAP_LBA;
	d->id[ATA_ID_LBA28_SECTORS] = DISK_SECTORS;
	memset(&ch, 0, sizeof(ch));
	strcpy(ch.name, "ata0");
	ch.cmd_base = SIM_CMD;
	ch.ctl_port = SIM_CTL;
	ch.line = SIM_LINE;
	ch.isa_irq = SIM_LINE;
	ch.irq_requested = true;
	ch.selected = ATA_SLOT_NONE;
	for (unsigned int s = 0; s < 2; s++) {
		ch.dev[s].chan = &ch;
		ch.dev[s].slot = s;
		ata_device_name(0, s, ch.dev[s].name);
	}
	S.ch = &ch;
}

/* The measured region: callgrind counts only while this function runs. */
__attribute__((noinline)) static int bench_ata_measure(const char *mode, unsigned int ops)
{
	int bad = 0;

	for (unsigned int i = 0; i < ops; i++) {
		uint64_t lba = (i * 16u) % (DISK_SECTORS - 256);

		if (strcmp(mode, "read256") == 0)
			bad |= ata_disk_rw(&ch.dev[0], lba, 256, buf, false, true);
		else if (strcmp(mode, "idle") == 0)
			bad |= ata_interrupt(SIM_LINE, &ch) != IRQ_NONE;
		else
			bad |= ata_disk_rw(&ch.dev[0], lba, 16, buf, false, true);
	}
	return bad;
}

int main(int argc, char **argv)
{
	unsigned int ops = argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 10) : 1000;
	const char *mode = argc > 1 ? argv[1] : "read16";

	disk_setup();
	if (ata_identify_channel(&ch) != 1) {
		fprintf(stderr, "ata_engine: the simulated disk was not found\n%s", S.log);
		return 1;
	}
	S.lose_irqs = strcmp(mode, "lost16") == 0;
	if (bench_ata_measure(mode, ops)) {
		fprintf(stderr, "ata_engine: %s failed\n%s", mode, S.log);
		return 1;
	}
	printf("%s %u ops, lost %llu, serviced %llu\n", mode, ops,
	       (unsigned long long)ch.stats.lost_recovered, (unsigned long long)ch.stats.serviced);
	free(S.drive[0].media);
	return 0;
}
