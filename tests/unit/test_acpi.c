/*
 * test_acpi.c - host tests for arch/x86/acpi.c: what the ACPI tables SeaBIOS
 * builds under QEMU 7.2 (tests/fixtures/, see its README) parse to, checked
 * against /work/shared/QEMU-FACTS.md, and what happens to corrupted copies
 * made in the test: no crash, one clear problem naming the table and its
 * address, and the other tables still parsed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/errno.h>
#include <firmware.h>

#include "../fixtures/fixture.h"

/* Where SeaBIOS put things in the captured machines (tests/fixtures/README). */
enum pc_layout {
	PC_RSDP = 0xF59C0,
	PC_RSDT = 0x7FE1A70,
	PC_FACP = 0x7FE1924,
	PC_MADT = 0x7FE1998,
	PC_MADT_LEN = 120,
	PC_HPET = 0x7FE1A10,
	PC_WAET = 0x7FE1A48,
	PC_ACPI_DUMP = 0x7FE0000,     /* mem-07fe0000.bin, 8 KiB */
	PC_ACPI_DUMP_LEN = 0x2000,
	ACPI_CHECKSUM = 9,            /* header checksum byte */
	ACPI_LENGTH = 4,
	RSDP_CHECKSUM = 8,
	RSDP_RSDT = 16,
	MADT_FIRST_OVERRIDE = 64,     /* offsets of the pc MADT's entries */
	MADT_LAPIC_NMI = 114,
	SYNTH_BASE = 0x10000000,      /* free physical space for synthetic tables */
};

static struct fw_platform *parse(struct fw_fixture *fx, const char *config, int *err)
{
	struct fw_platform *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	fixture_load(fx, config);
	*err = acpi_parse(&fx->window, p);
	return p;
}

static void done(struct fw_fixture *fx, struct fw_platform *p)
{
	free(p);
	fixture_free(fx);
}

static void assert_override(const struct fw_platform *p, uint32_t i, uint8_t irq, uint32_t gsi,
                            uint8_t polarity, uint8_t trigger)
{
	assert_true(i < p->overrides.count);
	assert_int_equal(p->overrides.entry[i].isa_irq, irq);
	assert_int_equal(p->overrides.entry[i].gsi, gsi);
	assert_int_equal(p->overrides.entry[i].polarity, polarity);
	assert_int_equal(p->overrides.entry[i].trigger, trigger);
}

/* The MADT content common to pc, q35 and q35 -no-acpi (one CPU). */
static void assert_qemu_madt(const struct fw_platform *p)
{
	assert_true(p->acpi.madt_found);
	assert_int_equal(p->lapic_address, 0xFEE00000);
	assert_true(p->pcat_compat);
	assert_int_equal(p->ioapics.count, 1);
	assert_int_equal(p->ioapics.entry[0].id, 0);
	assert_int_equal(p->ioapics.entry[0].address, 0xFEC00000);
	assert_int_equal(p->ioapics.entry[0].gsi_base, 0);
	assert_true(p->ioapics.entry[0].enabled);
	assert_int_equal(p->overrides.count, 5);
	assert_override(p, 0, 0, 2, FW_POLARITY_CONFORMS, FW_TRIGGER_CONFORMS);
	assert_override(p, 1, 5, 5, FW_POLARITY_HIGH, FW_TRIGGER_LEVEL);
	assert_override(p, 2, 9, 9, FW_POLARITY_HIGH, FW_TRIGGER_LEVEL);
	assert_override(p, 3, 10, 10, FW_POLARITY_HIGH, FW_TRIGGER_LEVEL);
	assert_override(p, 4, 11, 11, FW_POLARITY_HIGH, FW_TRIGGER_LEVEL);
	assert_int_equal(p->nmi_sources.count, 0);
	assert_int_equal(p->lints.count, 1);
	assert_true(p->lints.entry[0].all_cpus);
	assert_int_equal(p->lints.entry[0].lint, 1);
	assert_int_equal(p->lints.entry[0].kind, FW_INT_NMI);
	assert_int_equal(p->lints.entry[0].polarity, FW_POLARITY_CONFORMS);
	assert_int_equal(p->lints.entry[0].trigger, FW_TRIGGER_CONFORMS);
}

static void assert_qemu_hpet(const struct fw_platform *p, uint32_t table_addr)
{
	assert_true(p->hpet.present);
	assert_int_equal(p->hpet.table_addr, table_addr);
	assert_int_equal(p->hpet.address, 0xFED00000);
	assert_int_equal(p->hpet.block_id, 0x8086A201);
	assert_int_equal(p->hpet.comparators, 3);
	assert_true(p->hpet.counter_64bit);
	assert_true(p->hpet.legacy_capable);
	assert_int_equal(p->hpet.pci_vendor, 0x8086);
	assert_int_equal(p->hpet.hw_revision, 1);
	assert_int_equal(p->hpet.number, 0);
	assert_int_equal(p->hpet.min_tick, 0);
}

static void assert_table(const struct fw_platform *p, uint32_t i, const char *sig, uint32_t addr, bool valid)
{
	assert_true(i < p->acpi.tables.count);
	assert_string_equal(p->acpi.tables.entry[i].signature, sig);
	assert_int_equal(p->acpi.tables.entry[i].addr, addr);
	assert_int_equal(p->acpi.tables.entry[i].valid, valid);
}

/* The problem's one-line message names the table and its address. */
static void assert_message_names(const struct fw_problem *prob, const char *table, const char *addr)
{
	char line[FW_LINE_MAX];

	assert_non_null(prob);
	fw_problem_format(prob, line, sizeof(line));
	assert_non_null(strstr(line, table));
	assert_non_null(strstr(line, addr));
}

/* ------------------------------------------------------------------------
 * Captured tables
 */

static void pc_rsdp_leads_to_rsdt_with_facp_madt_hpet_waet(void **state)
{
	struct fw_fixture fx;
	int err;
	struct fw_platform *p = parse(&fx, "pc", &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_int_equal(p->source, FW_SOURCE_ACPI);
	assert_int_equal(p->acpi.rsdp_addr, PC_RSDP);
	assert_int_equal(p->acpi.rsdp_revision, 0);
	assert_string_equal(p->acpi.oem_id, "BOCHS");
	assert_int_equal(p->acpi.root_addr, PC_RSDT);
	assert_false(p->acpi.root_is_xsdt);
	assert_int_equal(p->acpi.tables.count, 4);
	assert_table(p, 0, "FACP", PC_FACP, true);
	assert_table(p, 1, "APIC", PC_MADT, true);
	assert_table(p, 2, "HPET", PC_HPET, true);
	assert_table(p, 3, "WAET", PC_WAET, true);
	assert_int_equal(p->problems.count, 0);
	done(&fx, p);
}

static void pc_madt_has_one_cpu_ioapic_0_and_irq0_to_gsi2_plus_level_high_5_9_10_11(void **state)
{
	struct fw_fixture fx;
	int err;
	struct fw_platform *p = parse(&fx, "pc", &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_qemu_madt(p);
	assert_int_equal(p->cpus.count, 1);
	assert_int_equal(p->cpus.entry[0].apic_id, 0);
	assert_int_equal(p->cpus.entry[0].acpi_uid, 0);
	assert_true(p->cpus.entry[0].enabled);
	assert_false(p->cpus.entry[0].x2apic);
	done(&fx, p);
}

static void pc_hpet_table_gives_the_timer_block_at_fed00000_with_3_comparators(void **state)
{
	struct fw_fixture fx;
	int err;
	struct fw_platform *p = parse(&fx, "pc", &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_qemu_hpet(p, PC_HPET);
	done(&fx, p);
}

static void pc_without_acpi_has_no_rsdp_and_no_problem(void **state)
{
	struct fw_fixture fx;
	int err;
	struct fw_platform *p = parse(&fx, "pc-noacpi", &err);

	(void)state;
	assert_int_equal(err, -ENOENT);
	assert_int_equal(p->source, FW_SOURCE_NONE);
	assert_int_equal(p->problems.count, 0);
	assert_false(p->hpet.present);
	done(&fx, p);
}

static void q35_lists_mcfg_too_and_the_same_interrupt_layout(void **state)
{
	struct fw_fixture fx;
	int err;
	struct fw_platform *p = parse(&fx, "q35", &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_int_equal(p->acpi.root_addr, 0x7FE228A);
	assert_int_equal(p->acpi.tables.count, 5);
	assert_table(p, 0, "FACP", 0x7FE2082, true);
	assert_table(p, 1, "APIC", 0x7FE2176, true);
	assert_table(p, 2, "HPET", 0x7FE21EE, true);
	assert_table(p, 3, "MCFG", 0x7FE2226, true);
	assert_table(p, 4, "WAET", 0x7FE2262, true);
	assert_int_equal(p->acpi.tables.entry[0].revision, 3);
	assert_qemu_madt(p);
	assert_int_equal(p->cpus.count, 1);
	assert_qemu_hpet(p, 0x7FE21EE);
	assert_int_equal(p->problems.count, 0);
	done(&fx, p);
}

static void q35_without_acpi_still_has_seabios_own_rsdp_and_tables(void **state)
{
	struct fw_fixture fx;
	int err;
	struct fw_platform *p = parse(&fx, "q35-noacpi", &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_int_equal(p->acpi.rsdp_addr, PC_RSDP);
	assert_int_equal(p->acpi.root_addr, 0x7FFE360);
	assert_int_equal(p->acpi.tables.count, 5);
	assert_table(p, 0, "FACP", 0x7FFFF80, true);
	assert_table(p, 1, "SSDT", 0x7FFF700, true);
	assert_table(p, 2, "APIC", 0x7FFF610, true);
	assert_table(p, 3, "HPET", 0x7FFF5D0, true);
	assert_table(p, 4, "MCFG", 0x7FFF590, true);
	assert_qemu_madt(p);
	assert_qemu_hpet(p, 0x7FFF5D0);
	assert_int_equal(p->problems.count, 0);
	done(&fx, p);
}

static void pc_with_two_sockets_lists_apic_ids_0_and_1(void **state)
{
	struct fw_fixture fx;
	int err;
	struct fw_platform *p = parse(&fx, "pc-smp2", &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_int_equal(p->acpi.rsdp_addr, 0xF5970);
	assert_int_equal(p->cpus.count, 2);
	assert_int_equal(p->cpus.entry[0].apic_id, 0);
	assert_int_equal(p->cpus.entry[1].apic_id, 1);
	assert_int_equal(p->cpus.entry[1].acpi_uid, 1);
	assert_true(p->cpus.entry[1].enabled);
	assert_qemu_madt(p);
	assert_qemu_hpet(p, 0x7FE1A6B);
	done(&fx, p);
}

/* The FADT's IAPC_BOOT_ARCH (drivers/input/i8042.c decides from it whether to probe the 8042). */
static void pc_fadt_is_revision_1_whose_boot_arch_says_nothing(void **state)
{
	struct fw_fixture fx;
	int err;
	struct fw_platform *p = parse(&fx, "pc", &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_true(p->fadt.present);
	assert_int_equal(p->fadt.table_addr, PC_FACP);
	assert_int_equal(p->fadt.revision, 1);
	/* Revision 1 (ACPI 1.0) has a reserved 0 there: not "no 8042". */
	assert_false(p->fadt.boot_arch_valid);
	assert_int_equal(p->fadt.boot_arch, 0);
	done(&fx, p);
}

static void q35_fadt_is_revision_3_and_says_8042_present(void **state)
{
	struct fw_fixture fx;
	int err;
	struct fw_platform *p = parse(&fx, "q35", &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_true(p->fadt.present);
	assert_int_equal(p->fadt.table_addr, 0x7FE2082);
	assert_int_equal(p->fadt.revision, 3);
	assert_true(p->fadt.boot_arch_valid);
	assert_int_equal(p->fadt.boot_arch, FW_BOOT_ARCH_8042);
	done(&fx, p);
}

static void q35_fadt_with_the_8042_flag_clear_says_legacy_free(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint8_t *facp;

	(void)state;
	fixture_load(&fx, "q35");
	facp = fixture_bytes(&fx, 0x7FE2082, 244);
	facp[109] &= (uint8_t)~FW_BOOT_ARCH_8042;   /* what QEMU builds for -machine q35,i8042=off */
	fix_checksum(facp, 244, ACPI_CHECKSUM);
	assert_int_equal(acpi_parse(&fx.window, p), 0);
	assert_true(p->fadt.boot_arch_valid);
	assert_int_equal(p->fadt.boot_arch & FW_BOOT_ARCH_8042, 0);
	assert_int_equal(p->problems.count, 0);
	done(&fx, p);
}

static void fadt_shorter_than_acpi_1_is_refused_and_the_rest_parsed(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint8_t *facp;
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "q35");
	facp = fixture_bytes(&fx, 0x7FE2082, 244);
	put32(facp + ACPI_LENGTH, 100);            /* IAPC_BOOT_ARCH at 109 would be past its end */
	fix_checksum(facp, 100, ACPI_CHECKSUM);
	assert_int_equal(acpi_parse(&fx.window, p), 0);
	assert_false(p->fadt.present);
	assert_false(p->fadt.boot_arch_valid);
	prob = find_problem(&p->problems, FW_TABLE_FADT, FW_PROBLEM_BAD_LENGTH);
	assert_non_null(prob);
	assert_int_equal(prob->addr, 0x7FE2082);
	assert_message_names(prob, "FADT", "0x07fe2082");
	assert_true(p->acpi.madt_found);
	assert_true(p->hpet.present);
	done(&fx, p);
}

static void fadt_with_bad_checksum_is_not_used(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	fixture_load(&fx, "q35");
	fixture_bytes(&fx, 0x7FE2082 + 109, 1)[0] ^= FW_BOOT_ARCH_8042;
	assert_int_equal(acpi_parse(&fx.window, p), 0);
	assert_false(p->fadt.present);
	assert_non_null(find_problem(&p->problems, FW_TABLE_FADT, FW_PROBLEM_BAD_CHECKSUM));
	done(&fx, p);
}

static void rsdp_in_the_ebda_is_found_before_the_bios_rom_copy(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	fixture_load(&fx, "pc");
	memcpy(fixture_bytes(&fx, 0x9FC00 + 0x40, 20), fixture_bytes(&fx, PC_RSDP, 20), 20);
	assert_int_equal(acpi_parse(&fx.window, p), 0);
	assert_int_equal(p->acpi.rsdp_addr, 0x9FC40);
	assert_int_equal(p->acpi.root_addr, PC_RSDT);
	done(&fx, p);
}

/* ------------------------------------------------------------------------
 * Corrupted copies of the pc tables
 */

static void madt_with_bad_checksum_is_skipped_and_the_hpet_still_parsed(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	fixture_bytes(&fx, PC_MADT + 50, 1)[0] ^= 0x40;
	assert_int_equal(acpi_parse(&fx.window, p), 0);
	assert_false(p->acpi.madt_found);
	assert_int_equal(p->cpus.count, 0);
	assert_int_equal(p->ioapics.count, 0);
	assert_table(p, 1, "APIC", PC_MADT, false);
	assert_qemu_hpet(p, PC_HPET);
	assert_int_equal(p->problems.count, 1);
	prob = find_problem(&p->problems, FW_TABLE_MADT, FW_PROBLEM_BAD_CHECKSUM);
	assert_non_null(prob);
	assert_int_equal(prob->addr, PC_MADT);
	assert_message_names(prob, "MADT", "0x07fe1998");
	done(&fx, p);
}

static void madt_length_past_the_window_is_reported_and_the_rest_parsed(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint8_t *madt;
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	madt = fixture_bytes(&fx, PC_MADT, PC_MADT_LEN);
	/* Ends 16 bytes past the dump: the checksum cannot even be computed. */
	put32(madt + ACPI_LENGTH, PC_ACPI_DUMP + PC_ACPI_DUMP_LEN - PC_MADT + 16);
	assert_int_equal(acpi_parse(&fx.window, p), 0);
	assert_false(p->acpi.madt_found);
	prob = find_problem(&p->problems, FW_TABLE_MADT, FW_PROBLEM_NOT_IN_WINDOW);
	assert_non_null(prob);
	assert_int_equal(prob->addr, PC_MADT);
	assert_qemu_hpet(p, PC_HPET);
	assert_int_equal(p->acpi.tables.count, 4);
	done(&fx, p);
}

static void madt_length_below_its_fixed_part_is_rejected(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint8_t *madt;
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	madt = fixture_bytes(&fx, PC_MADT, PC_MADT_LEN);
	put32(madt + ACPI_LENGTH, 40);
	fix_checksum(madt, 40, ACPI_CHECKSUM);
	assert_int_equal(acpi_parse(&fx.window, p), 0);
	assert_false(p->acpi.madt_found);
	prob = find_problem(&p->problems, FW_TABLE_MADT, FW_PROBLEM_BAD_LENGTH);
	assert_non_null(prob);
	assert_int_equal(prob->addr, PC_MADT);
	assert_int_equal(prob->value, 40);
	assert_true(p->hpet.present);
	done(&fx, p);
}

static void madt_absurd_length_is_not_followed(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	fixture_load(&fx, "pc");
	put32(fixture_bytes(&fx, PC_MADT, PC_MADT_LEN) + ACPI_LENGTH, 0xFFFFFFF0);
	assert_int_equal(acpi_parse(&fx.window, p), 0);
	assert_false(p->acpi.madt_found);
	assert_non_null(find_problem(&p->problems, FW_TABLE_MADT, FW_PROBLEM_BAD_LENGTH));
	assert_true(p->hpet.present);
	done(&fx, p);
}

static void zero_length_madt_entry_stops_the_walk_after_the_entries_before_it(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint8_t *madt;
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	madt = fixture_bytes(&fx, PC_MADT, PC_MADT_LEN);
	madt[MADT_FIRST_OVERRIDE + 1] = 0;
	fix_checksum(madt, PC_MADT_LEN, ACPI_CHECKSUM);
	assert_int_equal(acpi_parse(&fx.window, p), 0);
	assert_true(p->acpi.madt_found);
	assert_int_equal(p->cpus.count, 1);
	assert_int_equal(p->ioapics.count, 1);
	assert_int_equal(p->overrides.count, 0);
	assert_int_equal(p->lints.count, 0);
	prob = find_problem(&p->problems, FW_TABLE_MADT, FW_PROBLEM_BAD_ENTRY_LENGTH);
	assert_non_null(prob);
	assert_int_equal(prob->addr, PC_MADT);
	assert_int_equal(prob->offset, MADT_FIRST_OVERRIDE);
	assert_int_equal(prob->value, 0);
	assert_int_equal(p->problems.count, 1);
	assert_true(p->hpet.present);
	done(&fx, p);
}

static void madt_entry_running_past_the_table_end_is_dropped_alone(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint8_t *madt;
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	madt = fixture_bytes(&fx, PC_MADT, PC_MADT_LEN);
	madt[MADT_LAPIC_NMI + 1] = 0xFF;
	fix_checksum(madt, PC_MADT_LEN, ACPI_CHECKSUM);
	assert_int_equal(acpi_parse(&fx.window, p), 0);
	assert_int_equal(p->overrides.count, 5);
	assert_int_equal(p->lints.count, 0);
	prob = find_problem(&p->problems, FW_TABLE_MADT, FW_PROBLEM_BAD_ENTRY_LENGTH);
	assert_non_null(prob);
	assert_int_equal(prob->offset, MADT_LAPIC_NMI);
	done(&fx, p);
}

static void rsdt_entry_pointing_outside_the_window_skips_only_that_table(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint8_t *rsdt;
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	rsdt = fixture_bytes(&fx, PC_RSDT, 52);
	put32(rsdt + 36 + 4, 0x50000000);   /* the APIC entry */
	fix_checksum(rsdt, 52, ACPI_CHECKSUM);
	assert_int_equal(acpi_parse(&fx.window, p), 0);
	assert_false(p->acpi.madt_found);
	assert_int_equal(p->acpi.tables.count, 3);
	assert_true(p->hpet.present);
	prob = find_problem(&p->problems, FW_TABLE_RSDT, FW_PROBLEM_NOT_IN_WINDOW);
	assert_non_null(prob);
	assert_int_equal(prob->addr, PC_RSDT);
	assert_int_equal(prob->offset, 40);
	assert_int_equal(prob->value, 0x50000000);
	assert_message_names(prob, "RSDT", "0x07fe1a70");
	done(&fx, p);
}

static void rsdp_pointing_to_an_rsdt_outside_the_window_fails_with_einval(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint8_t *rsdp;

	(void)state;
	fixture_load(&fx, "pc");
	rsdp = fixture_bytes(&fx, PC_RSDP, 20);
	put32(rsdp + RSDP_RSDT, 0x60000000);
	fix_checksum(rsdp, 20, RSDP_CHECKSUM);
	assert_int_equal(acpi_parse(&fx.window, p), -EINVAL);
	assert_non_null(find_problem(&p->problems, FW_TABLE_RSDT, FW_PROBLEM_NOT_IN_WINDOW));
	assert_non_null(find_problem(&p->problems, FW_TABLE_RSDP, FW_PROBLEM_MISSING));
	assert_false(p->acpi.madt_found);
	done(&fx, p);
}

static void rsdp_with_bad_checksum_is_reported_and_not_used(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	fixture_bytes(&fx, PC_RSDP, 20)[RSDP_RSDT] ^= 1;
	assert_int_equal(acpi_parse(&fx.window, p), -ENOENT);
	prob = find_problem(&p->problems, FW_TABLE_RSDP, FW_PROBLEM_BAD_CHECKSUM);
	assert_non_null(prob);
	assert_int_equal(prob->addr, PC_RSDP);
	done(&fx, p);
}

static void rsdt_with_bad_checksum_leaves_no_tables(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	fixture_load(&fx, "pc");
	fixture_bytes(&fx, PC_RSDT, 52)[44] ^= 1;
	assert_int_equal(acpi_parse(&fx.window, p), -EINVAL);
	assert_non_null(find_problem(&p->problems, FW_TABLE_RSDT, FW_PROBLEM_BAD_CHECKSUM));
	assert_int_equal(p->acpi.tables.count, 0);
	done(&fx, p);
}

static void rsdt_length_not_a_multiple_of_4_ignores_the_partial_entry(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint8_t *rsdt;

	(void)state;
	fixture_load(&fx, "pc");
	rsdt = fixture_bytes(&fx, PC_RSDT, 52);
	put32(rsdt + ACPI_LENGTH, 50);   /* WAET pointer cut in half */
	fix_checksum(rsdt, 50, ACPI_CHECKSUM);
	assert_int_equal(acpi_parse(&fx.window, p), 0);
	assert_int_equal(p->acpi.tables.count, 3);
	assert_true(p->acpi.madt_found);
	assert_non_null(find_problem(&p->problems, FW_TABLE_RSDT, FW_PROBLEM_BAD_LENGTH));
	done(&fx, p);
}

static void without_the_bios_data_area_the_rom_is_still_searched(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	fixture_load(&fx, "pc");
	fixture_drop(&fx, 0x400);
	assert_int_equal(acpi_parse(&fx.window, p), 0);
	assert_true(p->acpi.madt_found);
	assert_non_null(find_problem(&p->problems, FW_TABLE_BDA, FW_PROBLEM_NOT_IN_WINDOW));
	done(&fx, p);
}

/* ------------------------------------------------------------------------
 * ACPI 2.0 RSDP and XSDT, built around the captured pc tables
 */

/* A revision-2 RSDP naming @rsdt and @xsdt, both checksums right. */
static void build_rsdp_v2(uint8_t r[36], uint32_t rsdt, uint64_t xsdt)
{
	memset(r, 0, 36);
	memcpy(r, "RSD PTR ", 8);
	memcpy(r + 9, "TEST  ", 6);
	r[15] = 2;
	put32(r + RSDP_RSDT, rsdt);
	put32(r + 20, 36);
	put64(r + 24, xsdt);
	fix_checksum(r, 20, RSDP_CHECKSUM);
	fix_checksum(r, 36, 32);
}

/* An XSDT with @n 64-bit entries. RETURNS its length. */
static uint32_t build_xsdt(uint8_t *t, const uint64_t *entries, uint32_t n)
{
	uint32_t i, len = 36 + 8 * n;

	memset(t, 0, len);
	memcpy(t, "XSDT", 4);
	put32(t + ACPI_LENGTH, len);
	t[8] = 1;
	for (i = 0; i < n; i++)
		put64(t + 36 + 8 * i, entries[i]);
	fix_checksum(t, len, ACPI_CHECKSUM);
	return len;
}

static void xsdt_above_4g_falls_back_to_the_rsdt(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint8_t rsdp[36];
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	build_rsdp_v2(rsdp, PC_RSDT, 0x100000000ull);
	assert_int_equal(acpi_parse_from_rsdp(&fx.window, rsdp, sizeof(rsdp), 0xF0000, p), 0);
	assert_false(p->acpi.root_is_xsdt);
	assert_int_equal(p->acpi.root_addr, PC_RSDT);
	assert_true(p->acpi.madt_found);
	prob = find_problem(&p->problems, FW_TABLE_RSDP, FW_PROBLEM_ABOVE_4G);
	assert_non_null(prob);
	assert_int_equal(prob->value, 0x100000000ull);
	done(&fx, p);
}

static void xsdt_is_preferred_and_its_64bit_entries_followed(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	static uint8_t xsdt[128];
	const uint64_t entries[] = { PC_MADT, 0x200000000ull, PC_HPET };
	uint8_t rsdp[36];

	(void)state;
	fixture_load(&fx, "pc");
	fixture_add(&fx, SYNTH_BASE, build_xsdt(xsdt, entries, 3), xsdt);
	build_rsdp_v2(rsdp, PC_RSDT, SYNTH_BASE);
	assert_int_equal(acpi_parse_from_rsdp(&fx.window, rsdp, sizeof(rsdp), 0xF0000, p), 0);
	assert_true(p->acpi.root_is_xsdt);
	assert_int_equal(p->acpi.root_addr, SYNTH_BASE);
	assert_int_equal(p->acpi.rsdp_revision, 2);
	assert_string_equal(p->acpi.oem_id, "TEST");
	assert_int_equal(p->acpi.tables.count, 2);
	assert_qemu_madt(p);
	assert_qemu_hpet(p, PC_HPET);
	assert_non_null(find_problem(&p->problems, FW_TABLE_XSDT, FW_PROBLEM_ABOVE_4G));
	assert_int_equal(p->problems.count, 1);
	done(&fx, p);
}

static void bad_xsdt_falls_back_to_the_rsdt(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	static uint8_t xsdt[128];
	const uint64_t entries[] = { PC_MADT };
	uint8_t rsdp[36];

	(void)state;
	fixture_load(&fx, "pc");
	fixture_add(&fx, SYNTH_BASE, build_xsdt(xsdt, entries, 1), xsdt);
	xsdt[40] ^= 0x10;
	build_rsdp_v2(rsdp, PC_RSDT, SYNTH_BASE);
	assert_int_equal(acpi_parse_from_rsdp(&fx.window, rsdp, sizeof(rsdp), 0xF0000, p), 0);
	assert_false(p->acpi.root_is_xsdt);
	assert_int_equal(p->acpi.tables.count, 4);
	assert_non_null(find_problem(&p->problems, FW_TABLE_XSDT, FW_PROBLEM_BAD_CHECKSUM));
	done(&fx, p);
}

static void rsdp_v2_with_bad_extended_checksum_is_rejected(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint8_t rsdp[36];

	(void)state;
	fixture_load(&fx, "pc");
	build_rsdp_v2(rsdp, PC_RSDT, 0);
	rsdp[33] ^= 1;   /* reserved byte: only the extended checksum covers it */
	assert_int_equal(acpi_parse_from_rsdp(&fx.window, rsdp, sizeof(rsdp), 0xF0000, p), -EINVAL);
	assert_non_null(find_problem(&p->problems, FW_TABLE_RSDP, FW_PROBLEM_BAD_CHECKSUM));
	done(&fx, p);
}

static void rsdp_v2_found_by_the_scan_in_the_bios_rom(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	static uint8_t rom[64];

	(void)state;
	fixture_load(&fx, "pc-noacpi");
	/* pc -no-acpi has no RSDP: give it one in a ROM area of its own. */
	fixture_drop(&fx, 0xE0000);
	build_rsdp_v2(rom + 16, 0x12345678, 0);
	fixture_add(&fx, 0xE0000, sizeof(rom), rom);
	assert_int_equal(acpi_parse(&fx.window, p), -EINVAL);
	assert_int_equal(p->acpi.rsdp_addr, 0xE0010);
	assert_int_equal(p->acpi.rsdp_revision, 2);
	assert_non_null(find_problem(&p->problems, FW_TABLE_RSDT, FW_PROBLEM_NOT_IN_WINDOW));
	done(&fx, p);
}

static void second_madt_in_the_root_table_is_ignored(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	static uint8_t xsdt[128];
	const uint64_t entries[] = { PC_MADT, PC_MADT };
	uint8_t rsdp[36];

	(void)state;
	fixture_load(&fx, "pc");
	fixture_add(&fx, SYNTH_BASE, build_xsdt(xsdt, entries, 2), xsdt);
	build_rsdp_v2(rsdp, 0, SYNTH_BASE);
	assert_int_equal(acpi_parse_from_rsdp(&fx.window, rsdp, sizeof(rsdp), 0xF0000, p), 0);
	assert_int_equal(p->cpus.count, 1);
	assert_int_equal(p->overrides.count, 5);
	assert_non_null(find_problem(&p->problems, FW_TABLE_MADT, FW_PROBLEM_DUPLICATE));
	done(&fx, p);
}

static void absurd_root_entry_count_is_capped(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	enum { N = 300 };
	uint64_t *entries = calloc(N, sizeof(*entries));
	uint8_t *xsdt = calloc(1, 36 + 8 * N);
	uint8_t rsdp[36];
	uint32_t i;

	(void)state;
	for (i = 0; i < N; i++)
		entries[i] = PC_WAET;
	fixture_load(&fx, "pc");
	fixture_add(&fx, SYNTH_BASE, build_xsdt(xsdt, entries, N), xsdt);
	build_rsdp_v2(rsdp, 0, SYNTH_BASE);
	assert_int_equal(acpi_parse_from_rsdp(&fx.window, rsdp, sizeof(rsdp), 0xF0000, p), 0);
	assert_non_null(find_problem(&p->problems, FW_TABLE_XSDT, FW_PROBLEM_BAD_COUNT));
	assert_int_equal(p->acpi.tables.count, FW_MAX_ACPI_TABLES);
	assert_true(p->acpi.tables.truncated);
	assert_non_null(find_problem(&p->problems, FW_TABLE_XSDT, FW_PROBLEM_TOO_MANY));
	free(entries);
	free(xsdt);
	done(&fx, p);
}

/* ------------------------------------------------------------------------
 * The boot log
 */

struct lines {
	char text[64][FW_LINE_MAX];
	int count;
};

static void collect(void *ctx, const char *line)
{
	struct lines *l = ctx;

	assert_true(strlen(line) < FW_LINE_MAX);
	if (l->count < 64)
		snprintf(l->text[l->count++], FW_LINE_MAX, "%s", line);
}

static bool has_line(const struct lines *l, const char *want)
{
	int i;

	for (i = 0; i < l->count; i++)
		if (strcmp(l->text[i], want) == 0)
			return true;
	return false;
}

static void boot_log_of_pc_names_every_table_and_override(void **state)
{
	struct fw_fixture fx;
	struct lines *l = calloc(1, sizeof(*l));
	int err;
	struct fw_platform *p = parse(&fx, "pc", &err);

	(void)state;
	fw_platform_print(p, collect, l);
	assert_true(has_line(l, "ACPI: RSDP at 0x000f59c0 rev 0 (BOCHS), RSDT at 0x07fe1a70"));
	assert_true(has_line(l, "ACPI: APIC at 0x07fe1998, 120 bytes, rev 1"));
	assert_true(has_line(l, "ACPI: local APIC at 0xfee00000, dual 8259 present"));
	assert_true(has_line(l, "ACPI: CPU 0: APIC ID 0, UID 0, enabled"));
	assert_true(has_line(l, "ACPI: IOAPIC ID 0 at 0xfec00000, GSI base 0"));
	assert_true(has_line(l, "ACPI: ISA IRQ 0 -> GSI 2, polarity conforming, trigger conforming"));
	assert_true(has_line(l, "ACPI: ISA IRQ 9 -> GSI 9, polarity high, trigger level"));
	assert_true(has_line(l, "ACPI: LINT1 of all CPUs: NMI, polarity conforming, trigger conforming"));
	assert_true(has_line(l, "ACPI: HPET 0 at 0xfed00000: 3 comparators, 64-bit, legacy routing capable, "
	                        "vendor 0x8086, minimum tick 0"));
	assert_int_equal(l->count, 15);
	free(l);
	done(&fx, p);
}

static void boot_log_lists_problems_with_table_and_address(void **state)
{
	struct fw_fixture fx;
	struct lines *l = calloc(1, sizeof(*l));
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	fixture_load(&fx, "pc");
	fixture_bytes(&fx, PC_HPET + 40, 1)[0] = 1;   /* GAS: I/O space */
	fix_checksum(fixture_bytes(&fx, PC_HPET, 56), 56, ACPI_CHECKSUM);
	assert_int_equal(acpi_parse(&fx.window, p), 0);
	assert_false(p->hpet.present);
	fw_platform_print(p, collect, l);
	assert_true(has_line(l, "ACPI: problem: HPET table at 0x07fe1a10 +40: timer block not in memory space; "
	                        "HPET not used (value 0x1)"));
	free(l);
	done(&fx, p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pc_rsdp_leads_to_rsdt_with_facp_madt_hpet_waet),
		cmocka_unit_test(pc_madt_has_one_cpu_ioapic_0_and_irq0_to_gsi2_plus_level_high_5_9_10_11),
		cmocka_unit_test(pc_hpet_table_gives_the_timer_block_at_fed00000_with_3_comparators),
		cmocka_unit_test(pc_without_acpi_has_no_rsdp_and_no_problem),
		cmocka_unit_test(q35_lists_mcfg_too_and_the_same_interrupt_layout),
		cmocka_unit_test(q35_without_acpi_still_has_seabios_own_rsdp_and_tables),
		cmocka_unit_test(pc_with_two_sockets_lists_apic_ids_0_and_1),
		cmocka_unit_test(pc_fadt_is_revision_1_whose_boot_arch_says_nothing),
		cmocka_unit_test(q35_fadt_is_revision_3_and_says_8042_present),
		cmocka_unit_test(q35_fadt_with_the_8042_flag_clear_says_legacy_free),
		cmocka_unit_test(fadt_shorter_than_acpi_1_is_refused_and_the_rest_parsed),
		cmocka_unit_test(fadt_with_bad_checksum_is_not_used),
		cmocka_unit_test(rsdp_in_the_ebda_is_found_before_the_bios_rom_copy),
		cmocka_unit_test(madt_with_bad_checksum_is_skipped_and_the_hpet_still_parsed),
		cmocka_unit_test(madt_length_past_the_window_is_reported_and_the_rest_parsed),
		cmocka_unit_test(madt_length_below_its_fixed_part_is_rejected),
		cmocka_unit_test(madt_absurd_length_is_not_followed),
		cmocka_unit_test(zero_length_madt_entry_stops_the_walk_after_the_entries_before_it),
		cmocka_unit_test(madt_entry_running_past_the_table_end_is_dropped_alone),
		cmocka_unit_test(rsdt_entry_pointing_outside_the_window_skips_only_that_table),
		cmocka_unit_test(rsdp_pointing_to_an_rsdt_outside_the_window_fails_with_einval),
		cmocka_unit_test(rsdp_with_bad_checksum_is_reported_and_not_used),
		cmocka_unit_test(rsdt_with_bad_checksum_leaves_no_tables),
		cmocka_unit_test(rsdt_length_not_a_multiple_of_4_ignores_the_partial_entry),
		cmocka_unit_test(without_the_bios_data_area_the_rom_is_still_searched),
		cmocka_unit_test(xsdt_above_4g_falls_back_to_the_rsdt),
		cmocka_unit_test(xsdt_is_preferred_and_its_64bit_entries_followed),
		cmocka_unit_test(bad_xsdt_falls_back_to_the_rsdt),
		cmocka_unit_test(rsdp_v2_with_bad_extended_checksum_is_rejected),
		cmocka_unit_test(rsdp_v2_found_by_the_scan_in_the_bios_rom),
		cmocka_unit_test(second_madt_in_the_root_table_is_ignored),
		cmocka_unit_test(absurd_root_entry_count_is_capped),
		cmocka_unit_test(boot_log_of_pc_names_every_table_and_override),
		cmocka_unit_test(boot_log_lists_problems_with_table_and_address),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
