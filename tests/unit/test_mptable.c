/*
 * test_mptable.c - host tests for arch/x86/mptable.c: the MP 1.4 tables
 * SeaBIOS builds under QEMU 7.2 (tests/fixtures/) parse to what
 * /work/shared/QEMU-FACTS.md says (one IOAPIC, ID 0 at 0xFEC00000; PCI
 * entries with source IRQ device << 2 | (INTx - 1) and destination pin =
 * Interrupt Line; ISA identity except IRQ 0 -> pin 2; LINT0 ExtINT, LINT1
 * NMI), and corrupted copies are reported and survived.
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

enum pc_mp_layout {
	PC_MPF = 0xF5B90,            /* floating pointer in the pc dump */
	PC_MPC = 0xF5BA0,            /* its configuration table */
	PC_MPC_LEN = 216,
	MPF_CHECKSUM = 10,
	MPF_SPEC_REV = 9,
	MPF_FEATURE1 = 11,
	MPF_CONFIG = 4,
	MPC_BASE_LENGTH = 4,
	MPC_SPEC_REV = 6,
	MPC_CHECKSUM = 7,
	MPC_COUNT = 34,
	MPC_EXT_LENGTH = 40,
	MPC_EXT_CHECKSUM = 42,
	MPC_HEADER = 44,
	PC_FIRST_PCI_IRQ = 88,       /* offsets of entries in the pc table */
	PC_FIRST_ISA_IRQ = 112,
	PC_LINT0 = 200,
	PC_LINT1 = 208,
};

static struct fw_platform *parse(struct fw_fixture *fx, const char *config, int *err)
{
	struct fw_platform *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	fixture_load(fx, config);
	*err = mptable_parse(&fx->window, p);
	return p;
}

static void done(struct fw_fixture *fx, struct fw_platform *p)
{
	free(p);
	fixture_free(fx);
}

static void assert_pci_irq(const struct fw_platform *p, uint32_t i, uint8_t dev, char intx, uint8_t pin)
{
	const struct fw_mp_irq *irq;

	assert_true(i < p->pci_irqs.count);
	irq = &p->pci_irqs.entry[i];
	assert_int_equal(irq->bus, 0);
	assert_int_equal(irq->pci_device, dev);
	assert_int_equal(irq->pci_pin, intx - 'A');
	assert_int_equal(irq->bus_irq, dev << 2 | (intx - 'A'));
	assert_int_equal(irq->ioapic_id, 0);
	assert_int_equal(irq->ioapic_pin, pin);
	assert_int_equal(irq->kind, FW_INT_VECTORED);
	assert_int_equal(irq->polarity, FW_POLARITY_HIGH);
	assert_int_equal(irq->trigger, FW_TRIGGER_CONFORMS);
}

/* What SeaBIOS lists on every machine: CPU 0, buses, IOAPIC, ISA, LINTs. */
static void assert_seabios_common(const struct fw_platform *p)
{
	static const uint8_t isa_irqs[] = { 0, 1, 3, 4, 6, 7, 8, 12, 13, 14, 15 };
	uint32_t i;

	assert_int_equal(p->source, FW_SOURCE_MP);
	assert_int_equal(p->mp.spec_rev, 4);
	assert_int_equal(p->mp.default_config, 0);
	assert_false(p->mp.imcr_present);
	assert_string_equal(p->mp.oem_id, "BOCHSCPU");
	assert_string_equal(p->mp.product_id, "0.1");
	assert_int_equal(p->lapic_address, 0xFEE00000);
	assert_true(p->cpus.count >= 1);
	assert_int_equal(p->cpus.entry[0].apic_id, 0);
	assert_true(p->cpus.entry[0].enabled);
	assert_true(p->cpus.entry[0].bsp);
	assert_int_equal(p->buses.count, 2);
	assert_int_equal(p->buses.entry[0].id, 0);
	assert_int_equal(p->buses.entry[0].type, FW_BUS_PCI);
	assert_string_equal(p->buses.entry[0].name, "PCI");
	assert_int_equal(p->buses.entry[1].id, 1);
	assert_int_equal(p->buses.entry[1].type, FW_BUS_ISA);
	assert_int_equal(p->ioapics.count, 1);
	assert_int_equal(p->ioapics.entry[0].id, 0);
	assert_int_equal(p->ioapics.entry[0].version, 0x11);
	assert_true(p->ioapics.entry[0].enabled);
	assert_int_equal(p->ioapics.entry[0].address, 0xFEC00000);
	assert_int_equal(p->ioapics.entry[0].gsi_base, FW_GSI_BASE_UNKNOWN);
	assert_int_equal(p->bus_irqs.count, sizeof(isa_irqs));
	for (i = 0; i < sizeof(isa_irqs); i++) {
		const struct fw_mp_irq *irq = &p->bus_irqs.entry[i];

		assert_int_equal(irq->bus, 1);
		assert_int_equal(irq->bus_irq, isa_irqs[i]);
		assert_int_equal(irq->ioapic_id, 0);
		assert_int_equal(irq->ioapic_pin, isa_irqs[i] == 0 ? 2 : isa_irqs[i]);
		assert_int_equal(irq->kind, FW_INT_VECTORED);
		assert_int_equal(irq->polarity, FW_POLARITY_CONFORMS);
		assert_int_equal(irq->trigger, FW_TRIGGER_CONFORMS);
	}
	assert_int_equal(p->lints.count, 2);
	assert_int_equal(p->lints.entry[0].kind, FW_INT_EXTINT);
	assert_int_equal(p->lints.entry[0].lint, 0);
	assert_false(p->lints.entry[0].all_cpus);
	assert_false(p->lints.entry[0].cpu_is_uid);
	assert_int_equal(p->lints.entry[0].cpu, 0);
	assert_int_equal(p->lints.entry[1].kind, FW_INT_NMI);
	assert_int_equal(p->lints.entry[1].lint, 1);
	assert_true(p->lints.entry[1].all_cpus);
	assert_false(p->hpet.present);
	assert_int_equal(p->mp.extended_entries, 0);
}

/* ------------------------------------------------------------------------
 * Captured tables
 */

static void pc_routes_uhci_intd_and_e1000_inta_to_pin_11_and_pm_to_9(void **state)
{
	struct fw_fixture fx;
	int err;
	struct fw_platform *p = parse(&fx, "pc", &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_int_equal(p->mp.floating_addr, PC_MPF);
	assert_int_equal(p->mp.config_addr, PC_MPC);
	assert_seabios_common(p);
	assert_int_equal(p->cpus.count, 1);
	assert_int_equal(p->pci_irqs.count, 3);
	assert_pci_irq(p, 0, 1, 'D', 11);   /* 00:01.2 UHCI, Interrupt Line 11 */
	assert_pci_irq(p, 1, 1, 'A', 9);    /* 00:01.3 PIIX4 PM (ACPI only), SCI */
	assert_pci_irq(p, 2, 3, 'A', 11);   /* 00:03.0 e1000 */
	assert_int_equal(p->problems.count, 0);
	done(&fx, p);
}

static void pc_without_acpi_has_no_power_management_entry(void **state)
{
	struct fw_fixture fx;
	int err;
	struct fw_platform *p = parse(&fx, "pc-noacpi", &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_int_equal(p->mp.floating_addr, 0xF5BA0);
	assert_int_equal(p->mp.config_addr, 0xF5BB0);
	assert_seabios_common(p);
	assert_int_equal(p->pci_irqs.count, 2);
	assert_pci_irq(p, 0, 1, 'D', 11);
	assert_pci_irq(p, 1, 3, 'A', 11);
	assert_int_equal(p->problems.count, 0);
	done(&fx, p);
}

static void q35_routes_the_ich9_usb_functions_to_lines_10_and_11(void **state)
{
	static const char *const configs[] = { "q35", "q35-noacpi" };
	uint32_t c;

	(void)state;
	for (c = 0; c < 2; c++) {
		struct fw_fixture fx;
		int err;
		struct fw_platform *p = parse(&fx, configs[c], &err);

		assert_int_equal(err, 0);
		assert_int_equal(p->mp.floating_addr, 0xF5B80);
		assert_int_equal(p->mp.config_addr, 0xF5B90);
		assert_seabios_common(p);
		assert_int_equal(p->pci_irqs.count, 6);
		assert_pci_irq(p, 0, 2, 'A', 11);      /* e1000e */
		assert_pci_irq(p, 1, 0x1D, 'A', 10);   /* UHCI 00:1d.0 */
		assert_pci_irq(p, 2, 0x1D, 'B', 10);   /* UHCI 00:1d.1 */
		assert_pci_irq(p, 3, 0x1D, 'C', 11);   /* UHCI 00:1d.2 */
		assert_pci_irq(p, 4, 0x1D, 'D', 11);   /* EHCI 00:1d.7 */
		assert_pci_irq(p, 5, 0x1F, 'A', 10);   /* AHCI 00:1f.2 */
		assert_int_equal(p->problems.count, 0);
		done(&fx, p);
	}
}

static void two_sockets_list_two_processors_and_only_the_first_is_bsp(void **state)
{
	struct fw_fixture fx;
	int err;
	struct fw_platform *p = parse(&fx, "pc-smp2", &err);

	(void)state;
	assert_int_equal(err, 0);
	assert_seabios_common(p);
	assert_int_equal(p->cpus.count, 2);
	assert_int_equal(p->cpus.entry[1].apic_id, 1);
	assert_true(p->cpus.entry[1].enabled);
	assert_false(p->cpus.entry[1].bsp);
	done(&fx, p);
}

static void floating_pointer_in_the_ebda_wins_over_the_rom_copy(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	fixture_load(&fx, "pc");
	memcpy(fixture_bytes(&fx, 0x9FC20, 16), fixture_bytes(&fx, PC_MPF, 16), 16);
	assert_int_equal(mptable_parse(&fx.window, p), 0);
	assert_int_equal(p->mp.floating_addr, 0x9FC20);
	assert_int_equal(p->mp.config_addr, PC_MPC);
	done(&fx, p);
}

static void last_kib_of_base_memory_is_searched_when_there_is_no_ebda(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	static uint8_t top[1024];
	uint8_t *bda;

	(void)state;
	fixture_load(&fx, "pc");
	bda = fixture_bytes(&fx, 0x400, 0x100);
	put16(bda + 0x0E, 0);        /* no EBDA */
	put16(bda + 0x13, 638);      /* base memory ends at 0x9F800: last KiB at 0x9F400 */
	memcpy(top + 0x3F0, fixture_bytes(&fx, PC_MPF, 16), 16);
	fixture_add(&fx, 0x9F400, sizeof(top), top);
	assert_int_equal(mptable_parse(&fx.window, p), 0);
	assert_int_equal(p->mp.floating_addr, 0x9F7F0);
	assert_int_equal(p->problems.count, 0);
	done(&fx, p);
}

static void absurd_base_memory_size_falls_back_to_640k(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	fixture_load(&fx, "pc");
	put16(fixture_bytes(&fx, 0x413, 2), 4000);
	assert_int_equal(mptable_parse(&fx.window, p), 0);
	assert_non_null(find_problem(&p->problems, FW_TABLE_BDA, FW_PROBLEM_BAD_ENTRY));
	assert_int_equal(p->mp.floating_addr, PC_MPF);
	done(&fx, p);
}

/* ------------------------------------------------------------------------
 * Corrupted copies of the pc tables
 */

static uint8_t *pc_mpf(struct fw_fixture *fx) { return fixture_bytes(fx, PC_MPF, 16); }
static uint8_t *pc_mpc(struct fw_fixture *fx) { return fixture_bytes(fx, PC_MPC, PC_MPC_LEN); }

static void floating_pointer_with_bad_checksum_is_not_used(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	const struct fw_problem *prob;
	char line[FW_LINE_MAX];

	(void)state;
	fixture_load(&fx, "pc");
	pc_mpf(&fx)[MPF_CONFIG] ^= 0x20;
	assert_int_equal(mptable_parse(&fx.window, p), -ENOENT);
	prob = find_problem(&p->problems, FW_TABLE_MP_FLOATING, FW_PROBLEM_BAD_CHECKSUM);
	assert_non_null(prob);
	assert_int_equal(prob->addr, PC_MPF);
	fw_problem_format(prob, line, sizeof(line));
	assert_string_equal(line, "MP floating pointer at 0x000f5b90: checksum is not zero; skipped (value 0xe0)");
	done(&fx, p);
}

static void floating_pointer_of_unknown_revision_is_not_used(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	fixture_load(&fx, "pc");
	pc_mpf(&fx)[MPF_SPEC_REV] = 2;
	fix_checksum(pc_mpf(&fx), 16, MPF_CHECKSUM);
	assert_int_equal(mptable_parse(&fx.window, p), -ENOENT);
	assert_non_null(find_problem(&p->problems, FW_TABLE_MP_FLOATING, FW_PROBLEM_BAD_REVISION));
	done(&fx, p);
}

static void default_configuration_is_recognised_but_not_expanded(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	pc_mpf(&fx)[MPF_FEATURE1] = 5;
	pc_mpf(&fx)[12] = 0x80;   /* IMCR present */
	fix_checksum(pc_mpf(&fx), 16, MPF_CHECKSUM);
	assert_int_equal(mptable_parse(&fx.window, p), -ENODEV);
	assert_int_equal(p->source, FW_SOURCE_MP);
	assert_int_equal(p->mp.default_config, 5);
	assert_true(p->mp.imcr_present);
	assert_int_equal(p->ioapics.count, 0);
	prob = find_problem(&p->problems, FW_TABLE_MP_FLOATING, FW_PROBLEM_UNSUPPORTED);
	assert_non_null(prob);
	assert_int_equal(prob->value, 5);
	done(&fx, p);
}

static void floating_pointer_without_config_table_is_einval(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	fixture_load(&fx, "pc");
	put32(pc_mpf(&fx) + MPF_CONFIG, 0);
	fix_checksum(pc_mpf(&fx), 16, MPF_CHECKSUM);
	assert_int_equal(mptable_parse(&fx.window, p), -EINVAL);
	assert_non_null(find_problem(&p->problems, FW_TABLE_MP_FLOATING, FW_PROBLEM_MISSING));
	done(&fx, p);
}

static void config_table_outside_the_window_is_einval(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	put32(pc_mpf(&fx) + MPF_CONFIG, 0x00200000);
	fix_checksum(pc_mpf(&fx), 16, MPF_CHECKSUM);
	assert_int_equal(mptable_parse(&fx.window, p), -EINVAL);
	prob = find_problem(&p->problems, FW_TABLE_MP_CONFIG, FW_PROBLEM_NOT_IN_WINDOW);
	assert_non_null(prob);
	assert_int_equal(prob->addr, 0x00200000);
	done(&fx, p);
}

static void config_table_with_bad_checksum_is_einval(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	pc_mpc(&fx)[PC_FIRST_PCI_IRQ + 7] = 12;
	assert_int_equal(mptable_parse(&fx.window, p), -EINVAL);
	prob = find_problem(&p->problems, FW_TABLE_MP_CONFIG, FW_PROBLEM_BAD_CHECKSUM);
	assert_non_null(prob);
	assert_int_equal(prob->addr, PC_MPC);
	assert_int_equal(p->pci_irqs.count, 0);
	done(&fx, p);
}

static void config_length_below_the_header_is_einval(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	put16(pc_mpc(&fx) + MPC_BASE_LENGTH, 40);
	fix_checksum(pc_mpc(&fx), 40, MPC_CHECKSUM);
	assert_int_equal(mptable_parse(&fx.window, p), -EINVAL);
	prob = find_problem(&p->problems, FW_TABLE_MP_CONFIG, FW_PROBLEM_BAD_LENGTH);
	assert_non_null(prob);
	assert_int_equal(prob->value, 40);
	assert_int_equal(prob->addr, PC_MPC);
	done(&fx, p);
}

static void config_length_past_the_window_is_einval(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	fixture_load(&fx, "pc");
	put16(pc_mpc(&fx) + MPC_BASE_LENGTH, 0xFFFF);   /* 0xF5BA0 + 64 KiB passes 1 MiB */
	assert_int_equal(mptable_parse(&fx.window, p), -EINVAL);
	assert_non_null(find_problem(&p->problems, FW_TABLE_MP_CONFIG, FW_PROBLEM_NOT_IN_WINDOW));
	done(&fx, p);
}

static void config_of_unknown_revision_is_einval(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	fixture_load(&fx, "pc");
	pc_mpc(&fx)[MPC_SPEC_REV] = 3;
	fix_checksum(pc_mpc(&fx), PC_MPC_LEN, MPC_CHECKSUM);
	assert_int_equal(mptable_parse(&fx.window, p), -EINVAL);
	assert_non_null(find_problem(&p->problems, FW_TABLE_MP_CONFIG, FW_PROBLEM_BAD_REVISION));
	done(&fx, p);
}

static void absurd_entry_count_is_reported_and_every_entry_still_read(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	put16(pc_mpc(&fx) + MPC_COUNT, 0xFFFF);
	fix_checksum(pc_mpc(&fx), PC_MPC_LEN, MPC_CHECKSUM);
	assert_int_equal(mptable_parse(&fx.window, p), 0);
	assert_seabios_common(p);
	assert_int_equal(p->pci_irqs.count, 3);
	prob = find_problem(&p->problems, FW_TABLE_MP_CONFIG, FW_PROBLEM_BAD_COUNT);
	assert_non_null(prob);
	assert_int_equal(prob->value, 0xFFFF);
	assert_int_equal(p->problems.count, 1);
	done(&fx, p);
}

static void unknown_entry_type_ends_the_walk_after_what_came_before(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	pc_mpc(&fx)[PC_FIRST_ISA_IRQ] = 9;
	fix_checksum(pc_mpc(&fx), PC_MPC_LEN, MPC_CHECKSUM);
	assert_int_equal(mptable_parse(&fx.window, p), 0);
	assert_int_equal(p->ioapics.count, 1);
	assert_int_equal(p->pci_irqs.count, 3);
	assert_int_equal(p->bus_irqs.count, 0);
	assert_int_equal(p->lints.count, 0);
	prob = find_problem(&p->problems, FW_TABLE_MP_CONFIG, FW_PROBLEM_BAD_ENTRY_LENGTH);
	assert_non_null(prob);
	assert_int_equal(prob->offset, PC_FIRST_ISA_IRQ);
	assert_int_equal(prob->addr, PC_MPC);
	done(&fx, p);
}

static void entry_cut_by_the_base_table_end_is_dropped(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	put16(pc_mpc(&fx) + MPC_BASE_LENGTH, PC_MPC_LEN - 4);
	fix_checksum(pc_mpc(&fx), PC_MPC_LEN - 4, MPC_CHECKSUM);
	assert_int_equal(mptable_parse(&fx.window, p), 0);
	assert_int_equal(p->lints.count, 1);
	prob = find_problem(&p->problems, FW_TABLE_MP_CONFIG, FW_PROBLEM_BAD_ENTRY_LENGTH);
	assert_non_null(prob);
	assert_int_equal(prob->offset, PC_LINT1);
	assert_int_equal(p->problems.count, 1);
	done(&fx, p);
}

static void interrupt_on_an_undeclared_bus_is_kept_as_non_pci_and_reported(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	fixture_load(&fx, "pc");
	pc_mpc(&fx)[PC_FIRST_PCI_IRQ + 4] = 7;   /* source bus 7 */
	fix_checksum(pc_mpc(&fx), PC_MPC_LEN, MPC_CHECKSUM);
	assert_int_equal(mptable_parse(&fx.window, p), 0);
	assert_int_equal(p->pci_irqs.count, 2);
	assert_int_equal(p->bus_irqs.count, 12);
	assert_int_equal(p->bus_irqs.entry[0].bus, 7);
	assert_int_equal(p->bus_irqs.entry[0].bus_irq, 0x07);
	assert_non_null(find_problem(&p->problems, FW_TABLE_MP_CONFIG, FW_PROBLEM_BAD_ENTRY));
	done(&fx, p);
}

static void local_interrupt_on_lint2_is_rejected(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	const struct fw_problem *prob;

	(void)state;
	fixture_load(&fx, "pc");
	pc_mpc(&fx)[PC_LINT0 + 7] = 2;
	fix_checksum(pc_mpc(&fx), PC_MPC_LEN, MPC_CHECKSUM);
	assert_int_equal(mptable_parse(&fx.window, p), 0);
	assert_int_equal(p->lints.count, 1);
	assert_int_equal(p->lints.entry[0].kind, FW_INT_NMI);
	prob = find_problem(&p->problems, FW_TABLE_MP_CONFIG, FW_PROBLEM_BAD_ENTRY);
	assert_non_null(prob);
	assert_int_equal(prob->offset, PC_LINT0);
	done(&fx, p);
}

/* ------------------------------------------------------------------------
 * Extended entries and list limits, on copies of the pc table
 */

/* The pc table plus @ext_len bytes of extended entries, checksums right. */
static uint8_t *pc_with_extended(struct fw_fixture *fx, const uint8_t *ext, uint32_t ext_len)
{
	uint8_t *t = calloc(1, PC_MPC_LEN + ext_len);
	uint8_t sum = 0;
	uint32_t i;

	memcpy(t, pc_mpc(fx), PC_MPC_LEN);
	memcpy(t + PC_MPC_LEN, ext, ext_len);
	for (i = 0; i < ext_len; i++)
		sum = (uint8_t)(sum + ext[i]);
	put16(t + MPC_EXT_LENGTH, (uint16_t)ext_len);
	t[MPC_EXT_CHECKSUM] = (uint8_t)(0x100 - sum);
	fix_checksum(t, PC_MPC_LEN, MPC_CHECKSUM);
	return t;
}

static const uint8_t two_extended_entries[28] = {
	128, 20, 0, 1, 0, 0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0,   /* address space map */
	129, 8, 1, 0, 0, 0, 0, 0,                                            /* bus hierarchy */
};

static void extended_entries_are_walked_by_length(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint8_t *t;

	(void)state;
	fixture_load(&fx, "pc");
	t = pc_with_extended(&fx, two_extended_entries, sizeof(two_extended_entries));
	fw_platform_init(p, FW_SOURCE_MP);
	assert_int_equal(mptable_parse_config(t, PC_MPC_LEN + sizeof(two_extended_entries), p), 0);
	assert_int_equal(p->mp.extended_entries, 2);
	assert_int_equal(p->pci_irqs.count, 3);
	assert_int_equal(p->problems.count, 0);
	free(t);
	done(&fx, p);
}

static void extended_table_problems_leave_the_base_table_parsed(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint8_t ext[28], *t;
	uint32_t len = PC_MPC_LEN + sizeof(ext);

	(void)state;
	fixture_load(&fx, "pc");
	/* Bad checksum. */
	t = pc_with_extended(&fx, two_extended_entries, sizeof(ext));
	t[MPC_EXT_CHECKSUM] ^= 1;
	fix_checksum(t, PC_MPC_LEN, MPC_CHECKSUM);
	fw_platform_init(p, FW_SOURCE_MP);
	assert_int_equal(mptable_parse_config(t, len, p), 0);
	assert_int_equal(p->pci_irqs.count, 3);
	assert_non_null(find_problem(&p->problems, FW_TABLE_MP_EXTENDED, FW_PROBLEM_BAD_CHECKSUM));
	free(t);
	/* Zero-length second entry. */
	memcpy(ext, two_extended_entries, sizeof(ext));
	ext[21] = 0;
	t = pc_with_extended(&fx, ext, sizeof(ext));
	fw_platform_init(p, FW_SOURCE_MP);
	assert_int_equal(mptable_parse_config(t, len, p), 0);
	assert_int_equal(p->mp.extended_entries, 1);
	assert_int_equal(p->problems.list[0].kind, FW_PROBLEM_BAD_ENTRY_LENGTH);
	assert_int_equal(p->problems.list[0].offset, PC_MPC_LEN + 20);
	/* Extended length past the bytes given. */
	fw_platform_init(p, FW_SOURCE_MP);
	assert_int_equal(mptable_parse_config(t, len - 1, p), 0);
	assert_int_equal(p->mp.extended_entries, 0);
	assert_int_equal(p->problems.list[0].kind, FW_PROBLEM_BAD_LENGTH);
	assert_int_equal(p->problems.list[0].table, FW_TABLE_MP_EXTENDED);
	assert_int_equal(p->pci_irqs.count, 3);
	free(t);
	done(&fx, p);
}

static void more_pci_entries_than_fit_set_truncated(void **state)
{
	struct fw_platform *p = calloc(1, sizeof(*p));
	enum { N = 140 };
	uint32_t len = MPC_HEADER + 8 + 8 * N, i;
	uint8_t *t = calloc(1, len);

	(void)state;
	memcpy(t, "PCMP", 4);
	put16(t + MPC_BASE_LENGTH, (uint16_t)len);
	t[MPC_SPEC_REV] = 4;
	put16(t + MPC_COUNT, N + 1);
	memcpy(t + MPC_HEADER, (const uint8_t[]){ 1, 0, 'P', 'C', 'I', ' ', ' ', ' ' }, 8);
	for (i = 0; i < N; i++) {
		uint8_t *e = t + MPC_HEADER + 8 + 8 * i;

		e[0] = 3;
		e[5] = (uint8_t)(i & 0x7F);
		e[7] = (uint8_t)(16 + i % 8);
	}
	fix_checksum(t, len, MPC_CHECKSUM);
	fw_platform_init(p, FW_SOURCE_MP);
	assert_int_equal(mptable_parse_config(t, len, p), 0);
	assert_int_equal(p->pci_irqs.count, FW_MAX_MP_PCI_IRQS);
	assert_true(p->pci_irqs.truncated);
	assert_int_equal(p->problems.count, 1);
	assert_int_equal(p->problems.list[0].kind, FW_PROBLEM_TOO_MANY);
	free(t);
	free(p);
}

static void config_header_checks_reject_short_or_unsigned_data(void **state)
{
	struct fw_fixture fx;
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	fixture_load(&fx, "pc");
	fw_platform_init(p, FW_SOURCE_MP);
	assert_int_equal(mptable_parse_config(pc_mpc(&fx), 43, p), -EINVAL);
	assert_int_equal(mptable_parse_config(pc_mpc(&fx), PC_MPC_LEN - 1, p), -EINVAL);
	assert_int_equal(mptable_parse_config(NULL, 0, p), -EINVAL);
	assert_int_equal(mptable_parse_config(fixture_bytes(&fx, PC_MPF, 64), 64, p), -EINVAL);
	assert_int_equal(p->problems.count, 4);
	assert_int_equal(p->cpus.count, 0);
	done(&fx, p);
}

/* ------------------------------------------------------------------------
 * The boot log
 */

struct lines {
	char text[64][FW_LINE_MAX];
	int count;
};


/* A configuration table of processor entries only: (APIC ID, flags) pairs. */
static uint32_t mpc_of_processors(uint8_t *b, const uint8_t (*cpu)[2], unsigned int n)
{
	uint32_t len = MPC_HEADER + 20 * n;
	uint8_t sum = 0;

	memset(b, 0, len);
	memcpy(b, "PCMP", 4);
	b[MPC_BASE_LENGTH] = (uint8_t)len;
	b[MPC_BASE_LENGTH + 1] = (uint8_t)(len >> 8);
	b[MPC_SPEC_REV] = 4;
	memcpy(b + 8, "TESTOEM ", 8);
	memcpy(b + 16, "PROCESSORS  ", 12);
	b[MPC_COUNT] = (uint8_t)n;
	b[36] = 0x00; b[37] = 0x00; b[38] = 0xE0; b[39] = 0xFE;   /* LAPIC 0xFEE00000 */
	for (unsigned int i = 0; i < n; i++) {
		uint8_t *e = b + MPC_HEADER + 20 * i;

		e[0] = 0;              /* processor entry */
		e[1] = cpu[i][0];
		e[2] = 0x14;
		e[3] = cpu[i][1];
	}
	for (uint32_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + b[i]);
	b[MPC_CHECKSUM] = (uint8_t)(0x100 - sum);
	return len;
}

static bool has_problem(const struct fw_platform *p, enum fw_problem_kind kind, uint64_t value)
{
	for (uint32_t i = 0; i < p->problems.count && i < FW_MAX_PROBLEMS; i++)
		if (p->problems.list[i].kind == kind && p->problems.list[i].value == value)
			return true;
	return false;
}

/* Untrusted processor entries (issue 16): the broadcast ID, a second BSP, a
 * duplicate ID and a disabled entry are reported (or dropped) and skipped. */
static void broadcast_id_duplicate_and_second_bsp_processors_are_reported_and_skipped(void **state)
{
	static const uint8_t cpus[][2] = {
		{ 0, 3 },      /* enabled, BSP */
		{ 0xFF, 1 },   /* the broadcast ID: no CPU */
		{ 1, 3 },      /* enabled, claims BSP too */
		{ 1, 1 },      /* duplicate ID 1 */
		{ 2, 0 },      /* disabled: not listed */
		{ 3, 1 },
	};
	static uint8_t b[MPC_HEADER + 20 * 6];
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint32_t len = mpc_of_processors(b, cpus, 6);

	(void)state;
	assert_non_null(p);
	fw_platform_init(p, FW_SOURCE_MP);
	assert_int_equal(mptable_parse_config(b, len, p), 0);
	assert_int_equal(p->cpus.count, 3);
	assert_int_equal(p->cpus.entry[0].apic_id, 0);
	assert_true(p->cpus.entry[0].bsp);
	assert_int_equal(p->cpus.entry[1].apic_id, 1);
	assert_false(p->cpus.entry[1].bsp);
	assert_int_equal(p->cpus.entry[2].apic_id, 3);
	assert_true(has_problem(p, FW_PROBLEM_BAD_ENTRY, 0xFF));
	assert_true(has_problem(p, FW_PROBLEM_DUPLICATE, 1));
	assert_int_equal(p->problems.count, 3);
	free(p);
}

/* More processors than FW_MAX_CPUS: the list is cut and says so. */
static void more_processors_than_fit_set_truncated(void **state)
{
	static uint8_t cpus[FW_MAX_CPUS + 4][2];
	static uint8_t b[MPC_HEADER + 20 * (FW_MAX_CPUS + 4)];
	struct fw_platform *p = calloc(1, sizeof(*p));
	uint32_t len;

	(void)state;
	assert_non_null(p);
	for (unsigned int i = 0; i < FW_MAX_CPUS + 4; i++) {
		cpus[i][0] = (uint8_t)i;
		cpus[i][1] = i == 0 ? 3 : 1;
	}
	len = mpc_of_processors(b, (const uint8_t (*)[2])cpus, FW_MAX_CPUS + 4);
	fw_platform_init(p, FW_SOURCE_MP);
	assert_int_equal(mptable_parse_config(b, len, p), 0);
	assert_int_equal(p->cpus.count, FW_MAX_CPUS);
	assert_true(p->cpus.truncated);
	assert_true(has_problem(p, FW_PROBLEM_TOO_MANY, 0) || p->problems.list[0].kind == FW_PROBLEM_TOO_MANY);
	free(p);
}

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

static void boot_log_of_pc_shows_the_pci_and_isa_routing(void **state)
{
	struct fw_fixture fx;
	struct lines *l = calloc(1, sizeof(*l));
	int err;
	struct fw_platform *p = parse(&fx, "pc", &err);

	(void)state;
	fw_platform_print(p, collect, l);
	assert_true(has_line(l, "MP: floating pointer at 0x000f5b90, spec 1.4, config table at 0x000f5ba0 "
	                        "(BOCHSCPU 0.1), no IMCR"));
	assert_true(has_line(l, "MP: local APIC at 0xfee00000"));
	assert_true(has_line(l, "MP: CPU 0: APIC ID 0, enabled, BSP"));
	assert_true(has_line(l, "MP: IOAPIC ID 0 at 0xfec00000, version 0x11"));
	assert_true(has_line(l, "MP: LINT0 of APIC ID 0: ExtINT, polarity conforming, trigger conforming"));
	assert_true(has_line(l, "MP: LINT1 of all CPUs: NMI, polarity conforming, trigger conforming"));
	assert_true(has_line(l, "MP: bus 0 PCI"));
	assert_true(has_line(l, "MP: bus 1 IRQ 0 -> IOAPIC 0 pin 2, INT, polarity conforming, trigger conforming"));
	assert_true(has_line(l, "MP: PCI 00:01 INTD -> IOAPIC 0 pin 11, INT, polarity high, trigger conforming"));
	assert_true(has_line(l, "MP: PCI 00:03 INTA -> IOAPIC 0 pin 11, INT, polarity high, trigger conforming"));
	/* header, LAPIC, CPU, IOAPIC, 2 LINTs, 2 buses, 11 ISA, 3 PCI */
	assert_int_equal(l->count, 22);
	free(l);
	done(&fx, p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pc_routes_uhci_intd_and_e1000_inta_to_pin_11_and_pm_to_9),
		cmocka_unit_test(pc_without_acpi_has_no_power_management_entry),
		cmocka_unit_test(q35_routes_the_ich9_usb_functions_to_lines_10_and_11),
		cmocka_unit_test(two_sockets_list_two_processors_and_only_the_first_is_bsp),
		cmocka_unit_test(broadcast_id_duplicate_and_second_bsp_processors_are_reported_and_skipped),
		cmocka_unit_test(more_processors_than_fit_set_truncated),
		cmocka_unit_test(floating_pointer_in_the_ebda_wins_over_the_rom_copy),
		cmocka_unit_test(last_kib_of_base_memory_is_searched_when_there_is_no_ebda),
		cmocka_unit_test(absurd_base_memory_size_falls_back_to_640k),
		cmocka_unit_test(floating_pointer_with_bad_checksum_is_not_used),
		cmocka_unit_test(floating_pointer_of_unknown_revision_is_not_used),
		cmocka_unit_test(default_configuration_is_recognised_but_not_expanded),
		cmocka_unit_test(floating_pointer_without_config_table_is_einval),
		cmocka_unit_test(config_table_outside_the_window_is_einval),
		cmocka_unit_test(config_table_with_bad_checksum_is_einval),
		cmocka_unit_test(config_length_below_the_header_is_einval),
		cmocka_unit_test(config_length_past_the_window_is_einval),
		cmocka_unit_test(config_of_unknown_revision_is_einval),
		cmocka_unit_test(absurd_entry_count_is_reported_and_every_entry_still_read),
		cmocka_unit_test(unknown_entry_type_ends_the_walk_after_what_came_before),
		cmocka_unit_test(entry_cut_by_the_base_table_end_is_dropped),
		cmocka_unit_test(interrupt_on_an_undeclared_bus_is_kept_as_non_pci_and_reported),
		cmocka_unit_test(local_interrupt_on_lint2_is_rejected),
		cmocka_unit_test(extended_entries_are_walked_by_length),
		cmocka_unit_test(extended_table_problems_leave_the_base_table_parsed),
		cmocka_unit_test(more_pci_entries_than_fit_set_truncated),
		cmocka_unit_test(config_header_checks_reject_short_or_unsigned_data),
		cmocka_unit_test(boot_log_of_pc_shows_the_pci_and_isa_routing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
