/*
 * test_ata_core.c - host unit tests of drivers/ata's command engine and
 * device code (ata_core.c, ata_identify.c, ata_disk.c, atapi.c) against
 * the simulated IDE channel of test_ata_sim.c: probing, every data
 * protocol, the expect brackets, lost interrupts with and without a core
 * that polls, nIEN, the handler's IRQ_NONE cases, one completion per
 * command, timeouts with SRST and one retry, protocol violations, decoded
 * device errors and ATAPI sense handling. Time is virtual, so the
 * 250 ms waits and 10 s timeouts cost nothing.
 */
#include "test_ata_sim.c"
#include <setjmp.h>
#include <cmocka.h>

#include <kernel/errno.h>

#define DISK_SECTORS 4096u
#define CD_BLOCKS 64u
#define MS 1000000ull

static struct ata_channel ch;

static void fill_random(uint8_t *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

static void put_string(uint16_t *w, unsigned int first, unsigned int words, const char *s)
{
	char padded[64];

	memset(padded, ' ', sizeof(padded));
	memcpy(padded, s, strlen(s));
	for (unsigned int i = 0; i < words; i++)
		w[first + i] = (uint16_t)((uint8_t)padded[2 * i] << 8 | (uint8_t)padded[2 * i + 1]);
}

/* add_disk - an ATA disk of @sectors with @backed of them stored from @base. */
static struct sim_drive *add_disk(unsigned int slot, uint64_t sectors, uint64_t base, uint64_t backed)
{
	struct sim_drive *d = &S.drive[slot];
	uint64_t lba28 = sectors < 0x0FFFFFFF ? sectors : 0x0FFFFFFF;

	d->present = true;
	d->block = 512;
	d->sectors = sectors;
	d->backed_base = base;
	d->backed_blocks = backed;
	d->media = malloc(backed * 512);
	fill_random(d->media, backed * 512, 7 + slot);
	d->status = ATA_SR_DRDY | ATA_SR_DSC;
	d->multiple_max = 16;
	d->id[ATA_ID_CONFIG] = 0x0040;
	put_string(d->id, ATA_ID_MODEL, ATA_ID_MODEL_WORDS, "SIM DISK");
	put_string(d->id, ATA_ID_SERIAL, ATA_ID_SERIAL_WORDS, "S1");
	d->id[ATA_ID_MULTIPLE_MAX] = 0x8010;
	d->id[ATA_ID_CAPABILITIES] = ATA_ID_CAP_LBA;
	d->id[ATA_ID_LBA28_SECTORS] = (uint16_t)lba28;
	d->id[ATA_ID_LBA28_SECTORS + 1] = (uint16_t)(lba28 >> 16);
	d->id[ATA_ID_COMMAND_SET_2] = ATA_ID_CMD2_VALID | ATA_ID_CMD2_LBA48 | ATA_ID_CMD2_FLUSH |
				       ATA_ID_CMD2_FLUSH_EXT;
	for (int i = 0; i < 4; i++)
		d->id[ATA_ID_LBA48_SECTORS + i] = (uint16_t)(sectors >> (16 * i));
	return d;
}

static struct sim_drive *add_cdrom(unsigned int slot)
{
	struct sim_drive *d = &S.drive[slot];

	d->present = true;
	d->atapi = true;
	d->block = 2048;
	d->sectors = CD_BLOCKS;
	d->backed_blocks = CD_BLOCKS;
	d->media = malloc(CD_BLOCKS * 2048);
	fill_random(d->media, CD_BLOCKS * 2048, 99);
	d->status = 0;
	d->id[ATA_ID_CONFIG] = 0x85C0;
	put_string(d->id, ATA_ID_MODEL, ATA_ID_MODEL_WORDS, "SIM CD");
	return d;
}

static int setup(void **state)
{
	(void)state;
	memset(&S, 0, sizeof(S));
	S.cpu_irq_on = true;
	S.latency_ns = 20000;           /* 20 us per block, like a fast disk */
	S.give_token = true;
	memset(&ch, 0, sizeof(ch));
	strcpy(ch.name, "ata0");
	ch.cmd_base = SIM_CMD;
	ch.ctl_port = SIM_CTL;
	ch.bm_base = SIM_BM_BASE;
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
	ata_hw_expect_init(&ch);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++)
		free(S.drive[i].media);
	return 0;
}

/* the engine's invariants after any sequence of commands */
static void assert_engine_quiet(void)
{
	assert_null(ch.active);
	assert_false(ch.expecting);
	assert_false(S.expect_open);
	assert_int_equal(S.pairing_errors, 0);
	assert_int_equal(S.expects, S.unexpects);
	assert_int_equal(S.bad_ports, 0);
	assert_int_equal(S.data_underruns, 0);
	assert_int_equal(S.data_overruns, 0);
	assert_int_equal(S.media_violations, 0);
	assert_int_equal(S.wait_with_irqs_on, 0);
}

static struct ata_device *probe_one_disk(void)
{
	add_disk(0, DISK_SECTORS, 0, DISK_SECTORS);
	assert_int_equal(ata_identify_channel(&ch), 1);
	return &ch.dev[0];
}

/* ---- Probing ------------------------------------------------------------------------- */

static void probe_finds_the_disk_identifies_it_and_sets_multiple_16(void **state)
{
	struct ata_device *d;

	(void)state;
	d = probe_one_disk();
	assert_int_equal(d->cls, ATA_CLASS_ATA);
	assert_string_equal(d->id.model, "SIM DISK");
	assert_true(d->sectors == DISK_SECTORS);
	assert_int_equal(d->multiple, 16);
	assert_int_equal(S.drive[0].multiple, 16);
	assert_int_equal(S.commands[ATA_CMD_IDENTIFY], 1);
	assert_int_equal(S.commands[ATA_CMD_SET_MULTIPLE], 1);
	assert_int_equal(ch.dev[1].cls, ATA_CLASS_NONE);
	assert_non_null(strstr(S.log, "hda: ATA disk \"SIM DISK\""));
	assert_true(d->blk.nr_blocks == DISK_SECTORS && d->blk.block_size == 512);
	assert_engine_quiet();
}

static void identify_interrupting_during_the_command_write_is_not_lost(void **state)
{
	(void)state;
	S.latency_ns = 0;               /* QEMU: the interrupt comes during the OUT itself */
	probe_one_disk();
	assert_int_equal(ch.stats.lost_recovered, 0);
	assert_true(S.now < 10 * MS);
	assert_engine_quiet();
}

static void a_floating_bus_is_empty_without_any_command(void **state)
{
	(void)state;
	S.floating = true;
	assert_int_equal(ata_identify_channel(&ch), 0);
	for (int c = 0; c < 256; c++)
		assert_int_equal(S.commands[c], 0);
	assert_non_null(strstr(S.log, "floating bus"));
}

static void an_empty_channel_that_reads_zero_is_empty_quickly(void **state)
{
	(void)state;
	assert_int_equal(ata_identify_channel(&ch), 0);
	assert_int_equal(S.commands[ATA_CMD_IDENTIFY], 0);
	assert_true(S.now < 100 * MS);
}

static void a_cdrom_as_slave_is_found_by_its_signature(void **state)
{
	struct ata_device *cd;

	(void)state;
	add_disk(0, DISK_SECTORS, 0, DISK_SECTORS);
	add_cdrom(1);
	assert_int_equal(ata_identify_channel(&ch), 2);
	cd = &ch.dev[1];
	assert_int_equal(cd->cls, ATA_CLASS_ATAPI);
	assert_int_equal(S.commands[ATA_CMD_IDENTIFY_PACKET], 1);
	assert_true(cd->sectors == CD_BLOCKS);
	assert_true(cd->blk.read_only && cd->blk.removable);
	assert_string_equal(cd->blk.kind, "ATAPI CD-ROM");
	assert_engine_quiet();
}

/* ---- Data protocols with healthy interrupts ------------------------------------------------- */

static void read_multiple_moves_every_block_by_interrupt(void **state)
{
	struct ata_device *d;
	static uint8_t buf[100 * 512];

	(void)state;
	d = probe_one_disk();
	S.expects = S.unexpects = 0;
	assert_int_equal(ata_disk_rw(d, 1000, 100, buf, false, true), 0);
	assert_memory_equal(buf, S.drive[0].media + 1000 * 512, sizeof(buf));
	assert_int_equal(S.last_command, ATA_CMD_READ_MULTIPLE);
	assert_int_equal(S.expects, 7);           /* ceil(100 / 16) blocks, one interrupt each */
	assert_int_equal(S.unexpects_timedout, 0);
	assert_int_equal(ch.stats.lost_recovered, 0);
	assert_engine_quiet();
}

static void single_sector_reads_after_multiple_is_switched_off(void **state)
{
	struct ata_device *d;
	static uint8_t buf[5 * 512];

	(void)state;
	d = probe_one_disk();
	assert_int_equal(ata_disk_set_multiple(d, 0), 0);
	S.expects = S.unexpects = 0;
	assert_int_equal(ata_disk_rw(d, 7, 5, buf, false, true), 0);
	assert_int_equal(S.last_command, ATA_CMD_READ_SECTORS);
	assert_int_equal(S.expects, 5);
	assert_memory_equal(buf, S.drive[0].media + 7 * 512, sizeof(buf));
	assert_int_equal(ata_disk_set_multiple(d, 3), -EINVAL);
	assert_int_equal(ata_disk_set_multiple(d, 32), -EINVAL);
	assert_engine_quiet();
}

static void a_write_sends_the_first_block_by_polling_and_the_rest_per_interrupt(void **state)
{
	struct ata_device *d;
	static uint8_t buf[40 * 512];

	(void)state;
	d = probe_one_disk();
	fill_random(buf, sizeof(buf), 5);
	S.expects = S.unexpects = 0;
	S.irqs_raised = 0;
	assert_int_equal(ata_disk_rw(d, 4096 - 40, 40, buf, true, true), 0);
	assert_int_equal(S.last_command, ATA_CMD_WRITE_MULTIPLE);
	assert_memory_equal(S.drive[0].media + (4096 - 40) * 512, buf, sizeof(buf));
	assert_int_equal(S.irqs_raised, 3);       /* after each of the 3 blocks, none before */
	assert_int_equal(S.expects, 3);
	assert_engine_quiet();
}

static void lba48_commands_carry_the_high_bytes_above_2_to_the_28(void **state)
{
	struct ata_device *d;
	static uint8_t buf[8 * 512];
	const uint64_t base = (1ull << 28) + 12345;

	(void)state;
	add_disk(0, (200ull << 30) / 512, base, 64);    /* a 200 GiB disk, 64 sectors stored */
	assert_int_equal(ata_identify_channel(&ch), 1);
	d = &ch.dev[0];
	assert_true(d->sectors == (200ull << 30) / 512);
	assert_int_equal(ata_disk_rw(d, base + 3, 8, buf, false, true), 0);
	assert_int_equal(S.last_command, ATA_CMD_READ_MULTIPLE_EXT);
	assert_true(S.last_lba == base + 3);
	assert_int_equal(S.last_count, 8);
	assert_memory_equal(buf, S.drive[0].media + 3 * 512, sizeof(buf));
	fill_random(buf, sizeof(buf), 11);
	assert_int_equal(ata_disk_rw(d, base + 50, 8, buf, true, true), 0);
	assert_int_equal(S.last_command, ATA_CMD_WRITE_MULTIPLE_EXT);
	assert_memory_equal(S.drive[0].media + 50 * 512, buf, sizeof(buf));
	assert_engine_quiet();
}

static void forced_ext_commands_are_used_below_2_to_the_28_too(void **state)
{
	struct ata_device *d;
	static uint8_t buf[2 * 512];

	(void)state;
	d = probe_one_disk();
	d->force_lba48 = true;
	assert_int_equal(ata_disk_rw(d, 300, 2, buf, false, true), 0);
	assert_int_equal(S.last_command, ATA_CMD_READ_MULTIPLE_EXT);
	assert_true(S.last_lba == 300);
	d->force_lba48 = false;
	assert_int_equal(ata_disk_rw(d, 300, 2, buf, false, true), 0);
	assert_int_equal(S.last_command, ATA_CMD_READ_MULTIPLE);
	assert_true(S.last_lba_mode);
}

static void a_256_sector_command_writes_count_zero_and_moves_all(void **state)
{
	struct ata_device *d;
	static uint8_t buf[256 * 512];

	(void)state;
	d = probe_one_disk();
	assert_int_equal(ata_disk_rw(d, 0, 256, buf, false, true), 0);
	assert_int_equal(S.last_count, 256);
	assert_memory_equal(buf, S.drive[0].media, sizeof(buf));
	assert_int_equal(ata_disk_rw(d, 0, 257, buf, false, true), -EINVAL);
}

static void flush_is_a_nodata_command_with_one_interrupt(void **state)
{
	struct ata_device *d;

	(void)state;
	d = probe_one_disk();
	assert_int_equal(ata_disk_flush(d), 0);
	assert_int_equal(S.commands[ATA_CMD_FLUSH_CACHE_EXT], 1);
	assert_engine_quiet();
}

/* ---- Lost interrupts, nIEN and the core's polls ---------------------------------------------------- */

static void lost_interrupts_are_recovered_after_the_wait_and_reported(void **state)
{
	struct ata_device *d;
	static uint8_t buf[48 * 512];
	uint64_t t0;

	(void)state;
	d = probe_one_disk();
	S.lose_irqs = true;
	S.unexpects_timedout = 0;
	t0 = S.now;
	assert_int_equal(ata_disk_rw(d, 10, 48, buf, false, true), 0);
	assert_memory_equal(buf, S.drive[0].media + 10 * 512, sizeof(buf));
	assert_int_equal(ch.stats.lost_recovered, 3);
	assert_int_equal(S.unexpects_timedout, 3);  /* the core hears "timed out" for each */
	assert_int_equal(S.watches, 3);
	/* each block cost one ATA_IRQ_WAIT_MS, give or take a tick */
	assert_in_range(S.now - t0, 3 * ATA_IRQ_WAIT_MS * MS, 3 * (ATA_IRQ_WAIT_MS + 2) * MS);
	assert_non_null(strstr(S.log, "lost interrupt: READ MULTIPLE is ready"));
	assert_int_equal(S.cpu_asks, 3);            /* each asked whether the line's CPU ran: it did */
	assert_int_equal(ch.stats.late_recovered, 0);
	assert_engine_quiet();
}

/*
 * The same missing interrupts while the line's CPU did not run (the core's
 * irq_expect_cpu_ran says so): the driver still completes each phase
 * itself, but counts it late, says so at info level, never "lost", and
 * does not start watching the line. Asked of the open expect, before the
 * bracket closes (the fake counts a question without one as a pairing error).
 */
static void a_missing_interrupt_while_the_cpu_did_not_run_is_late_not_lost(void **state)
{
	struct ata_device *d;
	static uint8_t buf[48 * 512];

	(void)state;
	d = probe_one_disk();
	S.lose_irqs = true;
	S.cpu_stalled = true;
	S.unexpects_timedout = 0;
	S.log_len = 0;
	S.log[0] = 0;
	assert_int_equal(ata_disk_rw(d, 10, 48, buf, false, true), 0);
	assert_memory_equal(buf, S.drive[0].media + 10 * 512, sizeof(buf));
	assert_int_equal(ch.stats.late_recovered, 3);
	assert_int_equal(ch.stats.lost_recovered, 0);
	assert_int_equal(S.cpu_asks, 3);
	assert_int_equal(S.unexpects_timedout, 3);  /* the core still hears the time-out (and judges it late) */
	assert_int_equal(S.watches, 0);
	assert_null(strstr(S.log, "lost interrupt"));
	assert_non_null(strstr(S.log, "ata0: IRQ 14 late: its CPU did not run in 250 ms"));
	assert_non_null(strstr(S.log, "the driver completed READ MULTIPLE by polling (3 so far)"));
	assert_engine_quiet();
}

/*
 * The same lost interrupts with the CPU's tick ending the wait's halt each
 * millisecond, as on the kernel: a long wait looks at the line's CPU every
 * ATA_CPU_LOOK_MS (ata_hw_cpu_look), but asks the verdict (ata_hw_cpu_ran)
 * once per phase it completed itself, in recover_lost, no more:
 * tests/qemu/test_smp_race.py counts ata_hw_cpu_ran's runs as those phases.
 */
static void a_long_wait_looks_at_the_cpu_but_asks_the_verdict_once_per_phase(void **state)
{
	struct ata_device *d;
	static uint8_t buf[48 * 512];

	(void)state;
	d = probe_one_disk();
	S.lose_irqs = true;
	S.tick_ns = MS;
	S.cpu_asks = 0;
	S.cpu_looks = 0;
	assert_int_equal(ata_disk_rw(d, 10, 48, buf, false, true), 0);
	assert_memory_equal(buf, S.drive[0].media + 10 * 512, sizeof(buf));
	assert_int_equal(ch.stats.lost_recovered, 3);
	assert_int_equal(S.cpu_asks, 3);          /* the verdicts: one per phase completed here */
	/* the looks: from ATA_CPU_LOOK_MS into each 250 ms wait on, one every ATA_CPU_LOOK_MS at least */
	assert_in_range(S.cpu_looks, 3 * (ATA_IRQ_WAIT_MS / ATA_CPU_LOOK_MS - 1), 3 * ATA_IRQ_WAIT_MS);
	assert_int_equal(S.pairing_errors, 0);
	assert_engine_quiet();
}

static void lost_interrupt_reports_are_rate_limited(void **state)
{
	struct ata_device *d;
	static uint8_t buf[512];
	unsigned int reports = 0;

	(void)state;
	d = probe_one_disk();
	S.lose_irqs = true;
	S.log_len = 0;
	S.log[0] = 0;
	for (int i = 0; i < 30; i++)
		assert_int_equal(ata_disk_rw(d, (uint64_t)i, 1, buf, false, true), 0);
	for (const char *p = S.log; (p = strstr(p, "lost interrupt")) != NULL; p++)
		reports++;
	assert_int_equal(ch.stats.lost_recovered, 30);
	/* the first 3 at once, then one per 5 s: 30 losses x 250 ms = 7.5 s allow one more */
	assert_int_equal(reports, ATA_LOST_REPORT_BURST + 1);
	assert_non_null(strstr(S.log, "(23 so far, 19 not reported)"));
}

static void nien_commands_get_no_interrupt_and_the_register_is_restored(void **state)
{
	struct ata_device *d;
	static uint8_t buf[32 * 512];

	(void)state;
	d = probe_one_disk();
	ch.drop_percent = 100;
	S.irqs_suppressed = 0;
	S.irqs_delivered = 0;
	assert_int_equal(ata_disk_rw(d, 0, 32, buf, false, true), 0);
	assert_true(S.last_nien);
	assert_int_equal(S.irqs_delivered, 0);
	assert_int_equal(S.irqs_suppressed, 2);
	assert_int_equal(ch.stats.dropped, 1);
	assert_int_equal(S.devctl & ATA_CTL_NIEN, 0);   /* cleared after the command */
	ch.drop_percent = 0;
	assert_int_equal(ata_disk_rw(d, 0, 32, buf, false, true), 0);
	assert_false(S.last_nien);
	assert_memory_equal(buf, S.drive[0].media, sizeof(buf));
}

static void a_core_that_polls_while_expecting_completes_dropped_commands_fast(void **state)
{
	struct ata_device *d;
	static uint8_t buf[64 * 512];
	uint64_t t0;

	(void)state;
	d = probe_one_disk();
	ch.drop_percent = 100;
	S.poll_interval_ns = 100000;     /* 100 us */
	t0 = S.now;
	assert_int_equal(ata_disk_rw(d, 100, 64, buf, false, true), 0);
	assert_memory_equal(buf, S.drive[0].media + 100 * 512, sizeof(buf));
	assert_int_equal(ch.stats.lost_recovered, 0);   /* the driver never had to step in */
	assert_true(S.poll_results[IRQ_HANDLED] >= 4);
	assert_true(S.now - t0 < 5 * MS);
	assert_engine_quiet();
}

static void a_device_busy_longer_than_the_wait_is_not_a_lost_interrupt(void **state)
{
	struct ata_device *d;
	static uint8_t buf[512];

	(void)state;
	d = probe_one_disk();
	S.latency_ns = 600 * MS;         /* a disk spinning up */
	assert_int_equal(ata_disk_rw(d, 0, 1, buf, false, true), 0);
	assert_int_equal(ch.stats.lost_recovered, 0);
	assert_int_equal(ch.stats.timeouts, 0);
	assert_int_equal(S.handler_results[IRQ_HANDLED] >= 1, 1);
	assert_engine_quiet();
}

/* ---- The handler's answers and single completion -------------------------------------------------- */

static void the_handler_says_none_when_idle_and_leaves_the_device_alone(void **state)
{
	unsigned int reads;

	(void)state;
	probe_one_disk();
	ch.bm_base = 0;                  /* no bus-master status: no proof of ownership */
	reads = S.status_reads;
	assert_int_equal(ata_interrupt(SIM_LINE, &ch), IRQ_NONE);
	assert_int_equal(S.status_reads, reads);
	assert_int_equal(ch.stats.not_ours_idle, 1);
}

static void an_idle_stray_proven_ours_by_bus_master_status_is_lowered(void **state)
{
	unsigned int reads;

	(void)state;
	probe_one_disk();
	S.bm_intr = true;
	S.intrq = true;
	reads = S.status_reads;
	assert_int_equal(ata_interrupt(SIM_LINE, &ch), IRQ_NONE);
	assert_int_equal(S.status_reads, reads + 1);
	assert_false(S.intrq);
	assert_false(S.bm_intr);
	assert_int_equal(ch.stats.strays, 1);
}

static void the_handler_says_none_while_the_device_is_busy(void **state)
{
	struct ata_device *d;
	static uint8_t buf[512];

	(void)state;
	d = probe_one_disk();
	assert_int_equal(ata_disk_rw(d, 0, 1, buf, false, true), 0);   /* device 0 selected */
	S.drive[0].status = ATA_SR_BSY;
	assert_int_equal(ata_interrupt(SIM_LINE, &ch), IRQ_NONE);
	assert_int_equal(ch.stats.not_ours_busy, 1);
	S.drive[0].status = ATA_SR_DRDY | ATA_SR_DSC;
	assert_int_equal(ata_disk_rw(d, 0, 1, buf, false, true), 0);
}

/* A shared line: every delivery also runs our handler a second time, and the core polls too. */
static void extra_handler_runs_never_complete_a_command_twice(void **state)
{
	struct ata_device *d;
	static uint8_t buf[48 * 512];
	uint64_t serviced;

	(void)state;
	d = probe_one_disk();
	S.poll_interval_ns = 5000;       /* polls between the interrupts, racing them */
	assert_int_equal(ata_disk_rw(d, 200, 48, buf, false, true), 0);
	serviced = ch.stats.serviced;
	for (int i = 0; i < 5; i++)
		assert_int_equal(ata_interrupt(SIM_LINE, &ch), IRQ_NONE);
	assert_true(ch.stats.serviced == serviced);
	assert_memory_equal(buf, S.drive[0].media + 200 * 512, sizeof(buf));
	assert_int_equal(S.data_underruns, 0);
	assert_engine_quiet();
}

/* ---- Timeouts, resets, protocol violations, device errors ---------------------------------------- */

static void a_hung_device_is_reset_and_the_command_retried_once(void **state)
{
	struct ata_device *d;
	static uint8_t buf[16 * 512];
	unsigned int resets;

	(void)state;
	d = probe_one_disk();
	S.hang_commands = 1;
	resets = S.srst_count;
	assert_int_equal(ata_disk_rw(d, 64, 16, buf, false, true), 0);
	assert_memory_equal(buf, S.drive[0].media + 64 * 512, sizeof(buf));
	assert_int_equal(S.srst_count, resets + 1);
	assert_int_equal(ch.stats.timeouts, 1);
	assert_int_equal(ch.stats.retries, 1);
	/* the reset restored multiple mode before the retry */
	assert_int_equal(S.commands[ATA_CMD_SET_MULTIPLE], 2);
	assert_int_equal(S.last_command, ATA_CMD_READ_MULTIPLE);
	assert_non_null(strstr(S.log, "READ MULTIPLE timed out"));
	assert_non_null(strstr(S.log, "resetting the channel (SRST) and retrying"));
	assert_engine_quiet();
}

static void a_device_that_hangs_again_fails_with_etimedout_after_one_retry(void **state)
{
	struct ata_device *d;
	static uint8_t buf[512];
	uint64_t t0;

	(void)state;
	d = probe_one_disk();
	S.hang_commands = 5;
	t0 = S.now;
	assert_int_equal(ata_disk_rw(d, 0, 1, buf, false, true), -ETIMEDOUT);
	assert_int_equal(ch.stats.retries, 1);
	assert_int_equal(ch.stats.errors, 2);     /* the read and the SET MULTIPLE of the reset */
	/*
	 * Three busy timeouts and no more: the command, SET MULTIPLE restoring
	 * the mode after the reset, the retry. The caller hears back in 30 s.
	 */
	assert_in_range(S.now - t0, 3 * ATA_BUSY_TIMEOUT_MS * MS, (3 * ATA_BUSY_TIMEOUT_MS + 100) * MS);
	assert_int_equal(d->multiple, 0);         /* the restore failed: single-sector commands */
	assert_engine_quiet();
	S.hang_commands = 0;
	ata_channel_reset(&ch);
	assert_int_equal(ata_disk_rw(d, 0, 1, buf, false, true), 0);
}

static void a_protocol_violation_is_reset_and_retried(void **state)
{
	struct ata_device *d;
	static uint8_t buf[32 * 512];

	(void)state;
	d = probe_one_disk();
	S.break_protocol = 1;
	assert_int_equal(ata_disk_rw(d, 0, 32, buf, false, true), 0);
	assert_memory_equal(buf, S.drive[0].media, sizeof(buf));
	assert_int_equal(ch.stats.retries, 1);
	assert_non_null(strstr(S.log, "broke the PIO protocol"));
	assert_engine_quiet();
}

static void an_aborted_command_is_decoded_and_not_retried(void **state)
{
	struct ata_device *d;
	static uint8_t buf[512];

	(void)state;
	d = probe_one_disk();
	assert_int_equal(ata_disk_rw(d, DISK_SECTORS, 1, buf, false, true), -ERANGE);
	assert_int_equal(S.commands[ATA_CMD_READ_MULTIPLE], 0);   /* checked before the device */
	assert_int_equal(ata_disk_rw(d, DISK_SECTORS, 1, buf, false, false), -EIO);
	assert_int_equal(ch.stats.retries, 0);
	assert_non_null(strstr(S.log, "READ MULTIPLE LBA 4096+1 failed: status 0x51 (DRDY DSC ERR), "
				      "error 0x04 (ABRT: command aborted)"));
	S.idnf_for_range = true;
	assert_int_equal(ata_disk_rw(d, DISK_SECTORS, 1, buf, true, false), -ERANGE);
	assert_non_null(strstr(S.log, "IDNF"));
	assert_engine_quiet();
	assert_int_equal(ata_disk_rw(d, 0, 1, buf, false, true), 0);   /* still usable */
}

/* ---- ATAPI ------------------------------------------------------------------------------------- */

static struct ata_device *probe_cdrom(void)
{
	add_cdrom(0);
	assert_int_equal(ata_identify_channel(&ch), 1);
	return &ch.dev[0];
}

static void a_cd_reads_through_packet_commands_block_by_block(void **state)
{
	struct ata_device *cd;
	static uint8_t buf[10 * 2048];

	(void)state;
	cd = probe_cdrom();
	S.expects = S.unexpects = 0;
	assert_int_equal(atapi_rw(cd, 5, 10, buf, false), 0);
	assert_memory_equal(buf, S.drive[0].media + 5 * 2048, sizeof(buf));
	assert_int_equal(S.packets[SCSI_READ_10], 1);
	assert_int_equal(S.expects, 11);          /* 10 data blocks and the status phase */
	assert_engine_quiet();
}

static void a_write_to_the_cd_is_refused_by_the_device_with_sense_decoded(void **state)
{
	struct ata_device *cd;
	static uint8_t buf[2048];

	(void)state;
	cd = probe_cdrom();
	assert_int_equal(atapi_rw(cd, 0, 1, buf, true), -ENOSYS);
	assert_int_equal(S.packets[SCSI_REQUEST_SENSE], 1);
	assert_non_null(strstr(S.log, "WRITE(10) LBA 0+1 failed: ILLEGAL REQUEST: invalid command "
				      "operation code (sense 5/20/00)"));
	assert_int_equal(cd->sense_key, SENSE_ILLEGAL_REQUEST);
	assert_int_equal(atapi_rw(cd, CD_BLOCKS - 1, 2, buf, false), -ERANGE);
	assert_engine_quiet();
}

static void unit_attention_marks_a_media_change_and_the_command_is_repeated(void **state)
{
	struct ata_device *cd;
	static uint8_t buf[2048];

	(void)state;
	cd = probe_cdrom();
	cd->blk.media_changed = false;
	S.unit_attentions = 1;
	assert_int_equal(atapi_rw(cd, 3, 1, buf, false), 0);
	assert_memory_equal(buf, S.drive[0].media + 3 * 2048, sizeof(buf));
	assert_true(cd->blk.media_changed);
	assert_int_equal(S.packets[SCSI_READ_10], 2);
	S.unit_attentions = 10;
	assert_int_equal(atapi_rw(cd, 3, 1, buf, false), -EAGAIN);
	assert_int_equal(S.packets[SCSI_READ_10], 2 + 1 + ATAPI_UNIT_ATTENTION_RETRIES);
}

static void no_medium_is_reported_as_enomedium_and_capacity_zero(void **state)
{
	struct ata_device *cd;
	static uint8_t buf[2048];

	(void)state;
	S.no_medium = true;
	cd = probe_cdrom();
	assert_true(cd->sectors == 0);
	assert_non_null(strstr(S.log, "no medium"));
	assert_int_equal(atapi_rw(cd, 0, 1, buf, false), -ENOMEDIUM);
	S.no_medium = false;
	assert_int_equal(atapi_read_capacity(cd), 0);
	assert_true(cd->sectors == CD_BLOCKS);
}

static void an_interrupt_asking_for_the_packet_is_left_to_the_issuing_thread(void **state)
{
	struct ata_device *cd;
	static uint8_t buf[2 * 2048];

	(void)state;
	cd = probe_cdrom();
	S.irq_on_packet_drq = true;
	S.handler_results[IRQ_NONE] = 0;
	assert_int_equal(atapi_rw(cd, 7, 2, buf, false), 0);
	assert_memory_equal(buf, S.drive[0].media + 7 * 2048, sizeof(buf));
	assert_int_equal(S.handler_results[IRQ_NONE], 1);   /* not a completion: not ours to serve */
	assert_int_equal(ch.stats.retries, 0);
	assert_engine_quiet();
}

static void lost_interrupts_on_packet_commands_are_recovered_too(void **state)
{
	struct ata_device *cd;
	static uint8_t buf[4 * 2048];

	(void)state;
	cd = probe_cdrom();
	S.lose_irqs = true;
	assert_int_equal(atapi_rw(cd, 0, 4, buf, false), 0);
	assert_memory_equal(buf, S.drive[0].media, sizeof(buf));
	assert_int_equal(ch.stats.lost_recovered, 5);
	assert_engine_quiet();
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(probe_finds_the_disk_identifies_it_and_sets_multiple_16),
		T(identify_interrupting_during_the_command_write_is_not_lost),
		T(a_floating_bus_is_empty_without_any_command),
		T(an_empty_channel_that_reads_zero_is_empty_quickly),
		T(a_cdrom_as_slave_is_found_by_its_signature),
		T(read_multiple_moves_every_block_by_interrupt),
		T(single_sector_reads_after_multiple_is_switched_off),
		T(a_write_sends_the_first_block_by_polling_and_the_rest_per_interrupt),
		T(lba48_commands_carry_the_high_bytes_above_2_to_the_28),
		T(forced_ext_commands_are_used_below_2_to_the_28_too),
		T(a_256_sector_command_writes_count_zero_and_moves_all),
		T(flush_is_a_nodata_command_with_one_interrupt),
		T(lost_interrupts_are_recovered_after_the_wait_and_reported),
		T(a_missing_interrupt_while_the_cpu_did_not_run_is_late_not_lost),
		T(a_long_wait_looks_at_the_cpu_but_asks_the_verdict_once_per_phase),
		T(lost_interrupt_reports_are_rate_limited),
		T(nien_commands_get_no_interrupt_and_the_register_is_restored),
		T(a_core_that_polls_while_expecting_completes_dropped_commands_fast),
		T(a_device_busy_longer_than_the_wait_is_not_a_lost_interrupt),
		T(the_handler_says_none_when_idle_and_leaves_the_device_alone),
		T(an_idle_stray_proven_ours_by_bus_master_status_is_lowered),
		T(the_handler_says_none_while_the_device_is_busy),
		T(extra_handler_runs_never_complete_a_command_twice),
		T(a_hung_device_is_reset_and_the_command_retried_once),
		T(a_device_that_hangs_again_fails_with_etimedout_after_one_retry),
		T(a_protocol_violation_is_reset_and_retried),
		T(an_aborted_command_is_decoded_and_not_retried),
		T(a_cd_reads_through_packet_commands_block_by_block),
		T(a_write_to_the_cd_is_refused_by_the_device_with_sense_decoded),
		T(unit_attention_marks_a_media_change_and_the_command_is_repeated),
		T(no_medium_is_reported_as_enomedium_and_capacity_zero),
		T(an_interrupt_asking_for_the_packet_is_left_to_the_issuing_thread),
		T(lost_interrupts_on_packet_commands_are_recovered_too),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
