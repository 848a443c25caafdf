/*
 * test_acpi_madt.c - host tests for the per-table entry points of
 * arch/x86/acpi.c, acpi_parse_madt() and acpi_parse_hpet(), on tables built
 * in the test: every MADT entry type we read, the entries the ACPI 6.5
 * specification tells the OS to ignore, malformed entries, and lists that
 * overflow their fixed size. The captured QEMU tables are in test_acpi.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/errno.h>
#include <firmware.h>

#include "../fixtures/fixture.h"

enum {
	ACPI_LENGTH = 4,
	ACPI_CHECKSUM = 9,
	MADT_HEADER = 44,
	MADT_MAX = 2048,
	HPET_LEN = 56,
};

/* A MADT under construction: header, then entries appended by the helpers. */
struct madt {
	uint8_t b[MADT_MAX];
	uint32_t len;
};

static void madt_begin(struct madt *m, uint32_t lapic, uint32_t flags)
{
	memset(m, 0, sizeof(*m));
	memcpy(m->b, "APIC", 4);
	m->b[8] = 4;
	memcpy(m->b + 10, "TESTOE", 6);
	put32(m->b + 36, lapic);
	put32(m->b + 40, flags);
	m->len = MADT_HEADER;
}

/* Append an entry of @len bytes; @body is what follows type and length. */
static void madt_entry(struct madt *m, uint8_t type, uint8_t len, const uint8_t *body)
{
	assert_true(m->len + len <= MADT_MAX);
	m->b[m->len] = type;
	m->b[m->len + 1] = len;
	if (len > 2)
		memcpy(m->b + m->len + 2, body, len - 2u);
	m->len += len;
}

static const uint8_t *madt_end(struct madt *m)
{
	put32(m->b + ACPI_LENGTH, m->len);
	fix_checksum(m->b, m->len, ACPI_CHECKSUM);
	return m->b;
}

static void add_lapic(struct madt *m, uint8_t uid, uint8_t id, uint32_t flags)
{
	uint8_t body[6] = { uid, id };

	put32(body + 2, flags);
	madt_entry(m, 0, 8, body);
}

static void add_ioapic(struct madt *m, uint8_t id, uint32_t addr, uint32_t gsi_base)
{
	uint8_t body[10] = { id, 0 };

	put32(body + 2, addr);
	put32(body + 6, gsi_base);
	madt_entry(m, 1, 12, body);
}

static void add_override(struct madt *m, uint8_t bus, uint8_t irq, uint32_t gsi, uint16_t flags)
{
	uint8_t body[8] = { bus, irq };

	put32(body + 2, gsi);
	put16(body + 6, flags);
	madt_entry(m, 2, 10, body);
}

static struct fw_platform *fresh(void)
{
	struct fw_platform *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	fw_platform_init(p, FW_SOURCE_ACPI);
	return p;
}

static void every_entry_type_we_read_lands_in_its_list(void **state)
{
	static struct madt m;
	struct fw_platform *p = fresh();
	uint8_t nmi_src[6], lapic_nmi[4] = { 7 }, addr_ovr[10] = { 0 }, x2[14] = { 0 }, x2nmi[10] = { 0 };

	(void)state;
	madt_begin(&m, 0xFEE00000, 0);
	add_lapic(&m, 0, 0, 1);
	add_ioapic(&m, 2, 0xFEC00000, 0);
	add_ioapic(&m, 3, 0xFEC01000, 24);
	add_override(&m, 0, 0, 2, 0x0000);
	add_override(&m, 0, 9, 20, 0x000F);     /* active low, level */
	put16(nmi_src, 0x0005);                 /* active high, edge */
	put32(nmi_src + 2, 30);
	madt_entry(&m, 3, 8, nmi_src);
	put16(lapic_nmi + 1, 0x0000);
	lapic_nmi[3] = 0;                       /* LINT0 of UID 7 */
	madt_entry(&m, 4, 6, lapic_nmi);
	put64(addr_ovr + 2, 0xFEE10000);
	madt_entry(&m, 5, 12, addr_ovr);
	put32(x2 + 2, 300);                     /* x2APIC ID */
	put32(x2 + 6, 1);                       /* enabled */
	put32(x2 + 10, 44);                     /* UID */
	madt_entry(&m, 9, 16, x2);
	put16(x2nmi, 0x000D);
	put32(x2nmi + 2, 0xFFFFFFFF);
	x2nmi[6] = 1;
	madt_entry(&m, 10, 12, x2nmi);
	assert_int_equal(acpi_parse_madt(madt_end(&m), m.len, p), 0);

	assert_int_equal(p->lapic_address, 0xFEE10000);
	assert_false(p->pcat_compat);
	assert_int_equal(p->cpus.count, 2);
	assert_int_equal(p->cpus.entry[1].apic_id, 300);
	assert_int_equal(p->cpus.entry[1].acpi_uid, 44);
	assert_true(p->cpus.entry[1].x2apic);
	assert_int_equal(p->ioapics.count, 2);
	assert_int_equal(p->ioapics.entry[1].id, 3);
	assert_int_equal(p->ioapics.entry[1].gsi_base, 24);
	assert_int_equal(p->overrides.count, 2);
	assert_int_equal(p->overrides.entry[1].gsi, 20);
	assert_int_equal(p->overrides.entry[1].polarity, FW_POLARITY_LOW);
	assert_int_equal(p->overrides.entry[1].trigger, FW_TRIGGER_LEVEL);
	assert_int_equal(p->nmi_sources.count, 1);
	assert_int_equal(p->nmi_sources.entry[0].gsi, 30);
	assert_int_equal(p->nmi_sources.entry[0].polarity, FW_POLARITY_HIGH);
	assert_int_equal(p->nmi_sources.entry[0].trigger, FW_TRIGGER_EDGE);
	assert_int_equal(p->lints.count, 2);
	assert_false(p->lints.entry[0].all_cpus);
	assert_true(p->lints.entry[0].cpu_is_uid);
	assert_int_equal(p->lints.entry[0].cpu, 7);
	assert_int_equal(p->lints.entry[0].lint, 0);
	assert_true(p->lints.entry[1].all_cpus);
	assert_int_equal(p->lints.entry[1].lint, 1);
	assert_int_equal(p->lints.entry[1].trigger, FW_TRIGGER_LEVEL);
	assert_int_equal(p->problems.count, 0);
	free(p);
}

static void cpu_neither_enabled_nor_online_capable_is_not_listed(void **state)
{
	static struct madt m;
	struct fw_platform *p = fresh();

	(void)state;
	madt_begin(&m, 0xFEE00000, 1);
	add_lapic(&m, 0, 0, 1);
	add_lapic(&m, 1, 1, 0);   /* ignored by the OS (ACPI 6.5 5.2.12.2) */
	add_lapic(&m, 2, 2, 2);   /* online capable */
	assert_int_equal(acpi_parse_madt(madt_end(&m), m.len, p), 0);
	assert_true(p->pcat_compat);
	assert_int_equal(p->cpus.count, 2);
	assert_int_equal(p->cpus.entry[1].apic_id, 2);
	assert_false(p->cpus.entry[1].enabled);
	assert_true(p->cpus.entry[1].online_capable);
	assert_int_equal(p->problems.count, 0);
	free(p);
}

/* Untrusted CPU entries (issue 16): the broadcast APIC ID names no CPU; a
 * disabled, not online-capable entry is not listed; duplicates keep the first. */
static void broadcast_apic_id_disabled_and_duplicate_cpus_are_skipped(void **state)
{
	static struct madt m;
	struct fw_platform *p = fresh();

	(void)state;
	madt_begin(&m, 0xFEE00000, 0);
	add_lapic(&m, 0, 0, 1);
	add_lapic(&m, 1, 0xFF, 1);     /* broadcast ID */
	add_lapic(&m, 2, 2, 0);        /* neither enabled nor online-capable */
	add_lapic(&m, 3, 0, 1);        /* duplicate of APIC ID 0 */
	add_lapic(&m, 4, 4, 1);
	assert_int_equal(acpi_parse_madt(madt_end(&m), m.len, p), 0);
	assert_int_equal(p->cpus.count, 2);
	assert_int_equal(p->cpus.entry[0].apic_id, 0);
	assert_int_equal(p->cpus.entry[1].apic_id, 4);
	assert_int_equal(p->problems.count, 2);
	assert_int_equal(p->problems.list[0].kind, FW_PROBLEM_BAD_ENTRY);
	assert_int_equal(p->problems.list[0].value, 0xFF);
	assert_int_equal(p->problems.list[1].kind, FW_PROBLEM_DUPLICATE);
	free(p);
}

static void duplicate_apic_ids_ioapics_and_overrides_keep_the_first(void **state)
{
	static struct madt m;
	struct fw_platform *p = fresh();

	(void)state;
	madt_begin(&m, 0xFEE00000, 0);
	add_lapic(&m, 0, 5, 1);
	add_lapic(&m, 1, 5, 1);
	add_ioapic(&m, 1, 0xFEC00000, 0);
	add_ioapic(&m, 1, 0xFEC10000, 24);
	add_ioapic(&m, 2, 0xFEC00000, 48);
	add_override(&m, 0, 0, 2, 0);
	add_override(&m, 0, 0, 5, 0);
	assert_int_equal(acpi_parse_madt(madt_end(&m), m.len, p), 0);
	assert_int_equal(p->cpus.count, 1);
	assert_int_equal(p->cpus.entry[0].acpi_uid, 0);
	assert_int_equal(p->ioapics.count, 1);
	assert_int_equal(p->overrides.count, 1);
	assert_int_equal(p->overrides.entry[0].gsi, 2);
	assert_int_equal(p->problems.count, 4);
	assert_int_equal(p->problems.list[0].kind, FW_PROBLEM_DUPLICATE);
	assert_int_equal(p->problems.list[0].offset, MADT_HEADER + 8);
	free(p);
}

static void override_for_a_non_isa_bus_or_irq_16_is_rejected(void **state)
{
	static struct madt m;
	struct fw_platform *p = fresh();

	(void)state;
	madt_begin(&m, 0xFEE00000, 0);
	add_override(&m, 1, 4, 4, 0);
	add_override(&m, 0, 16, 16, 0);
	add_override(&m, 0, 15, 15, 0);
	assert_int_equal(acpi_parse_madt(madt_end(&m), m.len, p), 0);
	assert_int_equal(p->overrides.count, 1);
	assert_int_equal(p->overrides.entry[0].isa_irq, 15);
	assert_int_equal(p->problems.count, 2);
	assert_int_equal(p->problems.list[0].kind, FW_PROBLEM_BAD_ENTRY);
	assert_int_equal(p->problems.list[0].value, 0x104);
	assert_int_equal(p->problems.list[1].value, 16);
	free(p);
}

static void reserved_polarity_and_trigger_codes_read_as_conforming(void **state)
{
	static struct madt m;
	struct fw_platform *p = fresh();

	(void)state;
	madt_begin(&m, 0xFEE00000, 0);
	add_override(&m, 0, 3, 3, 0x000A);   /* polarity 10b, trigger 10b */
	assert_int_equal(acpi_parse_madt(madt_end(&m), m.len, p), 0);
	assert_int_equal(p->overrides.count, 1);
	assert_int_equal(p->overrides.entry[0].polarity, FW_POLARITY_CONFORMS);
	assert_int_equal(p->overrides.entry[0].trigger, FW_TRIGGER_CONFORMS);
	assert_non_null(find_problem(&p->problems, FW_TABLE_MADT, FW_PROBLEM_BAD_FLAGS));
	free(p);
}

static void entry_shorter_than_its_type_is_skipped_and_the_walk_goes_on(void **state)
{
	static struct madt m;
	struct fw_platform *p = fresh();
	uint8_t short_ioapic[4] = { 9, 0, 0, 0 };
	const struct fw_problem *prob;

	(void)state;
	madt_begin(&m, 0xFEE00000, 0);
	madt_entry(&m, 1, 6, short_ioapic);
	add_ioapic(&m, 2, 0xFEC00000, 0);
	madt_entry(&m, 0x7F, 2, NULL);   /* unknown type: skipped quietly */
	add_lapic(&m, 0, 0, 1);
	assert_int_equal(acpi_parse_madt(madt_end(&m), m.len, p), 0);
	assert_int_equal(p->ioapics.count, 1);
	assert_int_equal(p->ioapics.entry[0].id, 2);
	assert_int_equal(p->cpus.count, 1);
	prob = find_problem(&p->problems, FW_TABLE_MADT, FW_PROBLEM_BAD_ENTRY_LENGTH);
	assert_non_null(prob);
	assert_int_equal(prob->offset, MADT_HEADER);
	assert_int_equal(prob->value, 6);
	assert_int_equal(p->problems.count, 1);
	free(p);
}

static void entry_header_cut_by_the_table_end_is_reported(void **state)
{
	static struct madt m;
	struct fw_platform *p = fresh();

	(void)state;
	madt_begin(&m, 0xFEE00000, 0);
	add_lapic(&m, 0, 0, 1);
	m.b[m.len++] = 0;   /* one stray byte: type without length */
	assert_int_equal(acpi_parse_madt(madt_end(&m), m.len, p), 0);
	assert_int_equal(p->cpus.count, 1);
	assert_non_null(find_problem(&p->problems, FW_TABLE_MADT, FW_PROBLEM_BAD_ENTRY_LENGTH));
	free(p);
}

static void lapic_nmi_on_lint2_and_ioapic_at_address_0_are_rejected(void **state)
{
	static struct madt m;
	struct fw_platform *p = fresh();
	uint8_t lapic_nmi[4] = { 0xFF, 0, 0, 2 };

	(void)state;
	madt_begin(&m, 0xFEE00000, 0);
	madt_entry(&m, 4, 6, lapic_nmi);
	add_ioapic(&m, 0, 0, 0);
	assert_int_equal(acpi_parse_madt(madt_end(&m), m.len, p), 0);
	assert_int_equal(p->lints.count, 0);
	assert_int_equal(p->ioapics.count, 0);
	assert_int_equal(p->problems.count, 2);
	free(p);
}

static void lapic_address_override_above_4g_keeps_the_32bit_address(void **state)
{
	static struct madt m;
	struct fw_platform *p = fresh();
	uint8_t addr_ovr[10] = { 0 };

	(void)state;
	madt_begin(&m, 0xFEE00000, 0);
	put64(addr_ovr + 2, 0x1FEE00000ull);
	madt_entry(&m, 5, 12, addr_ovr);
	assert_int_equal(acpi_parse_madt(madt_end(&m), m.len, p), 0);
	assert_int_equal(p->lapic_address, 0xFEE00000);
	assert_non_null(find_problem(&p->problems, FW_TABLE_MADT, FW_PROBLEM_ABOVE_4G));
	free(p);
}

static void seventy_cpus_fill_the_list_and_set_truncated_once(void **state)
{
	static struct madt m;
	struct fw_platform *p = fresh();
	uint32_t i;

	(void)state;
	madt_begin(&m, 0xFEE00000, 0);
	for (i = 0; i < 70; i++)
		add_lapic(&m, (uint8_t)i, (uint8_t)i, 1);
	add_ioapic(&m, 0, 0xFEC00000, 0);
	assert_int_equal(acpi_parse_madt(madt_end(&m), m.len, p), 0);
	assert_int_equal(p->cpus.count, FW_MAX_CPUS);
	assert_true(p->cpus.truncated);
	assert_int_equal(p->cpus.entry[FW_MAX_CPUS - 1].apic_id, FW_MAX_CPUS - 1);
	assert_int_equal(p->ioapics.count, 1);
	assert_int_equal(p->problems.count, 1);
	assert_int_equal(p->problems.list[0].kind, FW_PROBLEM_TOO_MANY);
	assert_int_equal(p->problems.list[0].offset, MADT_HEADER + 8 * FW_MAX_CPUS);
	free(p);
}

static void more_problems_than_kept_are_still_counted(void **state)
{
	static struct madt m;
	struct fw_platform *p = fresh();
	uint32_t i;

	(void)state;
	madt_begin(&m, 0xFEE00000, 0);
	for (i = 0; i < 40; i++)
		add_override(&m, 2, 1, 1, 0);
	assert_int_equal(acpi_parse_madt(madt_end(&m), m.len, p), 0);
	assert_int_equal(p->problems.count, 40);
	assert_int_equal(p->problems.list[FW_MAX_PROBLEMS - 1].offset, MADT_HEADER + 10 * (FW_MAX_PROBLEMS - 1));
	free(p);
}

static void madt_header_checks_reject_without_adding_anything(void **state)
{
	static struct madt m;
	struct fw_platform *p = fresh();
	const uint8_t *t;

	(void)state;
	madt_begin(&m, 0xFEE00000, 0);
	add_lapic(&m, 0, 0, 1);
	t = madt_end(&m);
	assert_int_equal(acpi_parse_madt(t, 20, p), -EINVAL);        /* not even a header */
	assert_int_equal(acpi_parse_madt(t, m.len - 1, p), -EINVAL); /* length past the data */
	assert_int_equal(acpi_parse_madt(NULL, 0, p), -EINVAL);
	m.b[0] = 'X';
	assert_int_equal(acpi_parse_madt(t, m.len, p), -EINVAL);     /* signature */
	assert_int_equal(p->cpus.count, 0);
	assert_false(p->acpi.madt_found);
	assert_int_equal(p->problems.list[0].kind, FW_PROBLEM_BAD_LENGTH);
	assert_int_equal(p->problems.list[1].kind, FW_PROBLEM_BAD_LENGTH);
	assert_int_equal(p->problems.list[3].kind, FW_PROBLEM_BAD_SIGNATURE);
	free(p);
}

/* ------------------------------------------------------------------------
 * HPET table
 */

static void build_hpet(uint8_t t[HPET_LEN], uint32_t block_id, uint8_t space, uint64_t addr)
{
	memset(t, 0, HPET_LEN);
	memcpy(t, "HPET", 4);
	put32(t + ACPI_LENGTH, HPET_LEN);
	t[8] = 1;
	put32(t + 36, block_id);
	t[40] = space;
	put64(t + 44, addr);
	t[52] = 1;
	put16(t + 53, 0x37EE);
	t[55] = 0x10;
	fix_checksum(t, HPET_LEN, ACPI_CHECKSUM);
}

static void hpet_block_id_fields_are_decoded(void **state)
{
	struct fw_platform *p = fresh();
	uint8_t t[HPET_LEN];

	(void)state;
	/* Vendor 0x1002, 32-bit counter, no legacy routing, last timer 7, rev 2. */
	build_hpet(t, 0x10020702, 0, 0xFED00000);
	assert_int_equal(acpi_parse_hpet(t, HPET_LEN, p), 0);
	assert_true(p->hpet.present);
	assert_int_equal(p->hpet.comparators, 8);
	assert_false(p->hpet.counter_64bit);
	assert_false(p->hpet.legacy_capable);
	assert_int_equal(p->hpet.pci_vendor, 0x1002);
	assert_int_equal(p->hpet.hw_revision, 2);
	assert_int_equal(p->hpet.number, 1);
	assert_int_equal(p->hpet.min_tick, 0x37EE);
	assert_int_equal(p->hpet.page_protection, 0x10);
	free(p);
}

static void hpet_in_io_space_or_above_4g_or_at_0_is_not_used(void **state)
{
	struct fw_platform *p = fresh();
	uint8_t t[HPET_LEN];

	(void)state;
	build_hpet(t, 0x8086A201, 1, 0xFED00000);
	assert_int_equal(acpi_parse_hpet(t, HPET_LEN, p), -EINVAL);
	build_hpet(t, 0x8086A201, 0, 0x1FED00000ull);
	assert_int_equal(acpi_parse_hpet(t, HPET_LEN, p), -EINVAL);
	build_hpet(t, 0x8086A201, 0, 0);
	assert_int_equal(acpi_parse_hpet(t, HPET_LEN, p), -EINVAL);
	assert_false(p->hpet.present);
	assert_int_equal(p->problems.count, 3);
	assert_int_equal(p->problems.list[0].kind, FW_PROBLEM_UNSUPPORTED);
	assert_int_equal(p->problems.list[1].kind, FW_PROBLEM_ABOVE_4G);
	assert_int_equal(p->problems.list[2].kind, FW_PROBLEM_BAD_ENTRY);
	free(p);
}

static void hpet_table_shorter_than_56_bytes_is_rejected(void **state)
{
	struct fw_platform *p = fresh();
	uint8_t t[HPET_LEN];

	(void)state;
	build_hpet(t, 0x8086A201, 0, 0xFED00000);
	put32(t + ACPI_LENGTH, 52);
	fix_checksum(t, 52, ACPI_CHECKSUM);
	assert_int_equal(acpi_parse_hpet(t, HPET_LEN, p), -EINVAL);
	assert_int_equal(acpi_parse_hpet(t, 30, p), -EINVAL);
	assert_false(p->hpet.present);
	assert_int_equal(p->problems.list[0].value, 52);
	free(p);
}

/* ------------------------------------------------------------------------
 * The memory window itself
 */

static void window_never_maps_a_range_that_wraps_or_leaves_a_region(void **state)
{
	struct fw_window w;
	static uint8_t high[32], low[16];

	(void)state;
	fw_window_init(&w);
	assert_int_equal(fw_window_add(&w, 0xFFFFFFE0, 32, high), 0);
	assert_int_equal(fw_window_add(&w, 0x1000, 16, low), 0);
	assert_int_equal(fw_window_add(&w, 0xFFFFFFF0, 32, high), -EINVAL);   /* passes 4 GiB */
	assert_int_equal(fw_window_add(&w, 0x2000, 0, high), -EINVAL);
	assert_int_equal(fw_window_add(&w, 0x2000, 4, NULL), -EINVAL);
	assert_ptr_equal(fw_map(&w, 0xFFFFFFE0, 32), high);
	assert_ptr_equal(fw_map(&w, 0xFFFFFFFF, 1), high + 31);
	assert_null(fw_map(&w, 0xFFFFFFF0, 0x20));
	assert_null(fw_map(&w, 0xFFFFFFFF, 0xFFFFFFFF));
	assert_ptr_equal(fw_map(&w, 0x1008, 8), low + 8);
	assert_null(fw_map(&w, 0x1008, 9));
	assert_null(fw_map(&w, 0x0FFF, 2));
	assert_null(fw_map(&w, 0x1000, 0));
	assert_null(fw_map(&w, 0x5000, 1));
}

static void window_refuses_more_regions_than_it_holds(void **state)
{
	struct fw_window w;
	static uint8_t byte;
	uint32_t i;

	(void)state;
	fw_window_init(&w);
	for (i = 0; i < FW_WINDOW_MAX_REGIONS; i++)
		assert_int_equal(fw_window_add(&w, 0x1000 * (i + 1), 1, &byte), 0);
	assert_int_equal(fw_window_add(&w, 0x100000, 1, &byte), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_entry_type_we_read_lands_in_its_list),
		cmocka_unit_test(cpu_neither_enabled_nor_online_capable_is_not_listed),
		cmocka_unit_test(duplicate_apic_ids_ioapics_and_overrides_keep_the_first),
		cmocka_unit_test(broadcast_apic_id_disabled_and_duplicate_cpus_are_skipped),
		cmocka_unit_test(override_for_a_non_isa_bus_or_irq_16_is_rejected),
		cmocka_unit_test(reserved_polarity_and_trigger_codes_read_as_conforming),
		cmocka_unit_test(entry_shorter_than_its_type_is_skipped_and_the_walk_goes_on),
		cmocka_unit_test(entry_header_cut_by_the_table_end_is_reported),
		cmocka_unit_test(lapic_nmi_on_lint2_and_ioapic_at_address_0_are_rejected),
		cmocka_unit_test(lapic_address_override_above_4g_keeps_the_32bit_address),
		cmocka_unit_test(seventy_cpus_fill_the_list_and_set_truncated_once),
		cmocka_unit_test(more_problems_than_kept_are_still_counted),
		cmocka_unit_test(madt_header_checks_reject_without_adding_anything),
		cmocka_unit_test(hpet_block_id_fields_are_decoded),
		cmocka_unit_test(hpet_in_io_space_or_above_4g_or_at_0_is_not_used),
		cmocka_unit_test(hpet_table_shorter_than_56_bytes_is_rejected),
		cmocka_unit_test(window_never_maps_a_range_that_wraps_or_leaves_a_region),
		cmocka_unit_test(window_refuses_more_regions_than_it_holds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
