/*
 * test_efi.c - host tests for the RSDP on UEFI: efi_find_rsdp() (arch/x86/efi.c)
 * and acpi_parse_at() / acpi_parse_from_rsdp() (arch/x86/acpi.c) on what OVMF
 * and GRUB really hand over under QEMU (tests/fixtures/ovmf-q35/ and
 * tests/fixtures/mb2/ovmf-q35.bin, tools/capture-boot-info.py), and on copies
 * corrupted here: every check of the system table and its configuration table
 * must refuse with one problem naming the table, and nothing is read outside
 * the window (ASan).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/bootinfo.h>
#include <kernel/crc32.h>
#include <kernel/errno.h>
#include <firmware.h>

#include "../fixtures/fixture.h"

/* Where OVMF (Debian 2022.11) put things in the captured q35 guest. */
enum ovmf_layout {
	OVMF_SYSTAB = 0x75eb018,
	OVMF_CONFIG = 0x75ebc98,
	OVMF_CONFIG_ENTRIES = 11,
	OVMF_RSDP20 = 0x777d014,      /* under the ACPI 2.0 GUID (entry 8) */
	OVMF_RSDP10 = 0x777d000,      /* under the ACPI 1.0 GUID (entry 7) */
	OVMF_XSDT = 0x777c0e8,
	ST_SIZE = 12, ST_CRC = 16, ST_ENTRIES = 104, ST_CONFIG = 112, ST64_LEN = 120,
	CT_ENTRY = 24,
	SYNTH_BASE = 0x20000000,      /* free physical space for synthetic tables */
};

static struct fw_fixture fx;
static struct fw_problems probs;
static struct fw_efi_rsdp e;

static int setup(void **state)
{
	(void)state;
	fixture_load(&fx, "ovmf-q35");
	memset(&probs, 0, sizeof(probs));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fixture_free(&fx);
	return 0;
}

/* Recompute the system table's CRC32 after a change, so a later check is reached. */
static void fix_crc(uint8_t *st, uint32_t size)
{
	put32(st + ST_CRC, 0);
	put32(st + ST_CRC, crc32(0, st, size));
}

static uint8_t *systab(void) { return fixture_bytes(&fx, OVMF_SYSTAB, ST64_LEN); }

static void only_problem(enum fw_table table, enum fw_problem_kind kind)
{
	assert_int_equal(probs.count, 1);
	assert_int_equal(probs.list[0].table, table);
	assert_int_equal(probs.list[0].kind, kind);
}

static void ovmf_system_table_names_the_acpi_2_rsdp(void **state)
{
	(void)state;
	assert_int_equal(efi_find_rsdp(&fx.window, OVMF_SYSTAB, 64, &e, &probs), 0);
	assert_int_equal(probs.count, 0);
	assert_int_equal(e.major, 2);
	assert_int_equal(e.minor, 70);
	assert_int_equal(e.entries, OVMF_CONFIG_ENTRIES);
	assert_int_equal(e.config, OVMF_CONFIG);
	assert_int_equal(e.rsdp, OVMF_RSDP20);
	assert_true(e.acpi20);
}

static void the_rsdp_it_names_leads_to_the_madt_with_two_cpus_and_the_hpet(void **state)
{
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	assert_int_equal(efi_find_rsdp(&fx.window, OVMF_SYSTAB, 64, &e, &probs), 0);
	assert_int_equal(acpi_parse_at(&fx.window, e.rsdp, p), 0);
	assert_int_equal(p->problems.count, 0);
	assert_int_equal(p->acpi.rsdp_addr, OVMF_RSDP20);
	assert_int_equal(p->acpi.rsdp_revision, 2);
	assert_true(p->acpi.root_is_xsdt);
	assert_int_equal(p->acpi.root_addr, OVMF_XSDT);
	assert_true(p->acpi.madt_found);
	assert_int_equal(p->cpus.count, 2);
	assert_int_equal(p->ioapics.count, 1);
	assert_int_equal(p->ioapics.entry[0].address, 0xFEC00000);
	assert_true(p->hpet.present);
	assert_int_equal(p->hpet.address, 0xFED00000);
	free(p);
}

static void the_loaders_copy_parses_to_the_same_tables(void **state)
{
	static struct boot_info bi;
	struct fw_platform *p = calloc(1, sizeof(*p));
	char path[512];
	uint8_t info[16384];
	size_t n;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/mb2/ovmf-q35.bin", FW_FIXTURE_DIR);
	f = fopen(path, "rb");
	assert_non_null(f);
	n = fread(info, 1, sizeof(info), f);
	fclose(f);
	assert_int_equal(mb2_parse(info, (uint32_t)n, &bi), 0);
	assert_int_equal(bi.efi_systab, OVMF_SYSTAB);
	fw_platform_init(p, FW_SOURCE_NONE);
	assert_int_equal(acpi_parse_from_rsdp(&fx.window, bi.rsdp_new, bi.rsdp_new_len, 0, p), 0);
	assert_int_equal(p->acpi.root_addr, OVMF_XSDT);
	assert_int_equal(p->cpus.count, 2);
	assert_true(p->hpet.present);
	free(p);
}

static void without_the_acpi_2_entry_the_acpi_1_entry_is_used(void **state)
{
	uint8_t *ct = fixture_bytes(&fx, OVMF_CONFIG, OVMF_CONFIG_ENTRIES * CT_ENTRY);

	(void)state;
	ct[8 * CT_ENTRY] ^= 0xFF;                /* spoil entry 8's GUID */
	assert_int_equal(efi_find_rsdp(&fx.window, OVMF_SYSTAB, 64, &e, &probs), 0);
	assert_int_equal(e.rsdp, OVMF_RSDP10);
	assert_false(e.acpi20);
	ct[7 * CT_ENTRY] ^= 0xFF;                /* and entry 7's */
	assert_int_equal(efi_find_rsdp(&fx.window, OVMF_SYSTAB, 64, &e, &probs), -ENOENT);
	only_problem(FW_TABLE_EFI_CONFIG, FW_PROBLEM_MISSING);
}

static void a_system_table_pointer_outside_the_window_or_above_4g_is_not_read(void **state)
{
	(void)state;
	assert_int_equal(efi_find_rsdp(&fx.window, 0x30000000, 64, &e, &probs), -EINVAL);
	only_problem(FW_TABLE_EFI_SYSTAB, FW_PROBLEM_NOT_IN_WINDOW);
	memset(&probs, 0, sizeof(probs));
	assert_int_equal(efi_find_rsdp(&fx.window, 0x1075eb018ull, 64, &e, &probs), -EINVAL);
	only_problem(FW_TABLE_EFI_SYSTAB, FW_PROBLEM_ABOVE_4G);
	memset(&probs, 0, sizeof(probs));
	/* the last bytes of the dump: the header fits, the table does not */
	assert_int_equal(efi_find_rsdp(&fx.window, 0x75ebfe0, 64, &e, &probs), -EINVAL);
	assert_int_equal(probs.count, 1);
}

static void a_wrong_signature_is_refused(void **state)
{
	(void)state;
	systab()[0] = 'J';
	assert_int_equal(efi_find_rsdp(&fx.window, OVMF_SYSTAB, 64, &e, &probs), -EINVAL);
	only_problem(FW_TABLE_EFI_SYSTAB, FW_PROBLEM_BAD_SIGNATURE);
}

static void a_crc32_that_does_not_match_is_refused(void **state)
{
	(void)state;
	systab()[ST_ENTRIES] ^= 1;               /* one bit of the entry count, CRC not updated */
	assert_int_equal(efi_find_rsdp(&fx.window, OVMF_SYSTAB, 64, &e, &probs), -EINVAL);
	only_problem(FW_TABLE_EFI_SYSTAB, FW_PROBLEM_BAD_CHECKSUM);
}

static void header_sizes_below_the_fields_or_absurd_are_refused(void **state)
{
	uint8_t *st = systab();

	(void)state;
	put32(st + ST_SIZE, ST64_LEN - 8);
	fix_crc(st, ST64_LEN - 8);
	assert_int_equal(efi_find_rsdp(&fx.window, OVMF_SYSTAB, 64, &e, &probs), -EINVAL);
	only_problem(FW_TABLE_EFI_SYSTAB, FW_PROBLEM_BAD_LENGTH);
	memset(&probs, 0, sizeof(probs));
	put32(st + ST_SIZE, 0x100000);
	assert_int_equal(efi_find_rsdp(&fx.window, OVMF_SYSTAB, 64, &e, &probs), -EINVAL);
	only_problem(FW_TABLE_EFI_SYSTAB, FW_PROBLEM_BAD_LENGTH);
}

static void a_revision_that_is_not_efi_1_or_uefi_2_is_refused(void **state)
{
	uint8_t *st = systab();

	(void)state;
	put32(st + 8, 3u << 16);
	fix_crc(st, ST64_LEN);
	assert_int_equal(efi_find_rsdp(&fx.window, OVMF_SYSTAB, 64, &e, &probs), -EINVAL);
	only_problem(FW_TABLE_EFI_SYSTAB, FW_PROBLEM_BAD_REVISION);
}

static void an_absurd_entry_count_is_refused(void **state)
{
	uint8_t *st = systab();

	(void)state;
	put64(st + ST_ENTRIES, 1u << 20);
	fix_crc(st, ST64_LEN);
	assert_int_equal(efi_find_rsdp(&fx.window, OVMF_SYSTAB, 64, &e, &probs), -EINVAL);
	only_problem(FW_TABLE_EFI_SYSTAB, FW_PROBLEM_BAD_COUNT);
}

static void a_configuration_table_outside_the_window_or_above_4g_is_not_read(void **state)
{
	uint8_t *st = systab();

	(void)state;
	put64(st + ST_CONFIG, 0x30000000);
	fix_crc(st, ST64_LEN);
	assert_int_equal(efi_find_rsdp(&fx.window, OVMF_SYSTAB, 64, &e, &probs), -EINVAL);
	only_problem(FW_TABLE_EFI_CONFIG, FW_PROBLEM_NOT_IN_WINDOW);
	memset(&probs, 0, sizeof(probs));
	put64(st + ST_CONFIG, 0x1075ebc98ull);
	fix_crc(st, ST64_LEN);
	assert_int_equal(efi_find_rsdp(&fx.window, OVMF_SYSTAB, 64, &e, &probs), -EINVAL);
	only_problem(FW_TABLE_EFI_CONFIG, FW_PROBLEM_ABOVE_4G);
	/* a count that runs the table past the window */
	memset(&probs, 0, sizeof(probs));
	put64(st + ST_CONFIG, OVMF_CONFIG);
	put64(st + ST_ENTRIES, 1000);
	fix_crc(st, ST64_LEN);
	assert_int_equal(efi_find_rsdp(&fx.window, OVMF_SYSTAB, 64, &e, &probs), -EINVAL);
	only_problem(FW_TABLE_EFI_CONFIG, FW_PROBLEM_NOT_IN_WINDOW);
}

static void an_acpi_entry_above_4g_is_refused(void **state)
{
	uint8_t *ct = fixture_bytes(&fx, OVMF_CONFIG, OVMF_CONFIG_ENTRIES * CT_ENTRY);

	(void)state;
	put64(ct + 8 * CT_ENTRY + 16, 0x10777d014ull);
	assert_int_equal(efi_find_rsdp(&fx.window, OVMF_SYSTAB, 64, &e, &probs), -EINVAL);
	only_problem(FW_TABLE_EFI_CONFIG, FW_PROBLEM_ABOVE_4G);
}

static void an_rsdp_pointer_to_something_else_is_refused_by_acpi_parse_at(void **state)
{
	struct fw_platform *p = calloc(1, sizeof(*p));

	(void)state;
	assert_int_equal(acpi_parse_at(&fx.window, OVMF_XSDT, p), -ENOENT);   /* an XSDT, not an RSDP */
	assert_non_null(find_problem(&p->problems, FW_TABLE_RSDP, FW_PROBLEM_BAD_SIGNATURE));
	assert_int_equal(acpi_parse_at(&fx.window, 0x30000000, p), -ENOENT);  /* outside the window */
	fixture_bytes(&fx, OVMF_RSDP20 + 8, 1)[0] ^= 1;                        /* the RSDP's checksum */
	assert_int_equal(acpi_parse_at(&fx.window, OVMF_RSDP20, p), -ENOENT);
	assert_non_null(find_problem(&p->problems, FW_TABLE_RSDP, FW_PROBLEM_BAD_CHECKSUM));
	free(p);
}

/* A 32-bit firmware's table (UEFI on an IA-32 machine): 4-byte pointers, 20-byte entries. */
static void a_32_bit_system_table_is_read_with_its_own_layout(void **state)
{
	static uint8_t mem[0x1000];
	static const uint8_t acpi20[16] = { 0x71, 0xe8, 0x68, 0x88, 0xf1, 0xe4, 0xd3, 0x11,
					   0xbc, 0x22, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81 };
	uint8_t *st = mem, *ct = mem + 0x100;

	(void)state;
	memset(mem, 0, sizeof(mem));
	memcpy(st, "IBI SYST", 8);
	put32(st + 8, 2u << 16 | 80);
	put32(st + ST_SIZE, 72);
	put32(st + 64, 2);                       /* NumberOfTableEntries */
	put32(st + 68, SYNTH_BASE + 0x100);      /* ConfigurationTable */
	memcpy(ct + 20, acpi20, 16);             /* entry 1 */
	put32(ct + 20 + 16, OVMF_RSDP20);
	fix_crc(st, 72);
	fixture_add(&fx, SYNTH_BASE, sizeof(mem), mem);
	assert_int_equal(efi_find_rsdp(&fx.window, SYNTH_BASE, 32, &e, &probs), 0);
	assert_int_equal(e.rsdp, OVMF_RSDP20);
	assert_int_equal(e.minor, 80);
	/* read as a 64-bit table it is too short for its header size */
	assert_int_equal(efi_find_rsdp(&fx.window, SYNTH_BASE, 64, &e, &probs), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(ovmf_system_table_names_the_acpi_2_rsdp, setup, teardown),
		cmocka_unit_test_setup_teardown(the_rsdp_it_names_leads_to_the_madt_with_two_cpus_and_the_hpet, setup, teardown),
		cmocka_unit_test_setup_teardown(the_loaders_copy_parses_to_the_same_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(without_the_acpi_2_entry_the_acpi_1_entry_is_used, setup, teardown),
		cmocka_unit_test_setup_teardown(a_system_table_pointer_outside_the_window_or_above_4g_is_not_read, setup, teardown),
		cmocka_unit_test_setup_teardown(a_wrong_signature_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(a_crc32_that_does_not_match_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(header_sizes_below_the_fields_or_absurd_are_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(a_revision_that_is_not_efi_1_or_uefi_2_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(an_absurd_entry_count_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(a_configuration_table_outside_the_window_or_above_4g_is_not_read, setup, teardown),
		cmocka_unit_test_setup_teardown(an_acpi_entry_above_4g_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(an_rsdp_pointer_to_something_else_is_refused_by_acpi_parse_at, setup, teardown),
		cmocka_unit_test_setup_teardown(a_32_bit_system_table_is_read_with_its_own_layout, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
