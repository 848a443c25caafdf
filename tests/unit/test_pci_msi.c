/*
 * test_pci_msi.c - host unit tests for drivers/pci/msi_layout.c: the MSI
 * capability's register layout and the checks an MSI-X table and Pending
 * Bit Array must pass before drivers/pci/msi.c touches them (PCI Local Bus
 * 3.0 section 6.8). The good cases are QEMU 7.2's NVMe (BAR0 16 KiB, 65
 * entries at 0x2000, PBA at 0x3000) and e1000e (BAR3 16 KiB, 5 entries);
 * the bad ones are what a broken or hostile device may claim.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/errno.h>

#include "pci/msi_internal.h"

/* A function with one 16 KiB memory BAR at @bar_index, like QEMU's NVMe (BAR0) or e1000e (BAR3). */
static struct pci_dev dev_with_bar(unsigned int bar_index, uint64_t base, uint64_t size, uint8_t flags)
{
	struct pci_dev d;

	memset(&d, 0, sizeof(d));
	d.bar_count = 6;
	d.bar[bar_index].base = base;
	d.bar[bar_index].size = size;
	d.bar[bar_index].flags = flags;
	return d;
}

static int layout(const struct pci_dev *d, uint16_t ctl, uint32_t table, uint32_t pba, struct pci_msix_layout *l,
		  char *why)
{
	return pci_msix_layout(d, ctl, table, pba, l, why, 160);
}

static void qemu_nvme_table_is_accepted(void **state)
{
	struct pci_dev d = dev_with_bar(0, 0xfebd4000, 0x4000, PCI_BAR_MEM64);
	struct pci_msix_layout l;
	char why[160] = "";

	(void)state;
	assert_int_equal(layout(&d, 64, 0x2000, 0x3000, &l, why), 0);
	assert_int_equal(l.size, 65);
	assert_int_equal(l.table_addr, 0xfebd6000);
	assert_int_equal(l.pba_addr, 0xfebd7000);
}

static void e1000e_table_in_bar3_is_accepted(void **state)
{
	struct pci_dev d = dev_with_bar(3, 0xfebd0000, 0x4000, 0);
	struct pci_msix_layout l;
	char why[160] = "";

	(void)state;
	assert_int_equal(layout(&d, 4, 0x0003, 0x2003, &l, why), 0);
	assert_int_equal(l.size, 5);
	assert_int_equal(l.table_bir, 3);
	assert_int_equal(l.pba_addr, 0xfebd2000);
}

static void table_running_past_its_bar_is_refused(void **state)
{
	struct pci_dev d = dev_with_bar(0, 0xfebd4000, 0x4000, 0);
	struct pci_msix_layout l;
	char why[160] = "";

	(void)state;
	/* 2048 entries x 16 bytes = 32 KiB from 0x2000: past the 16 KiB BAR. */
	assert_int_equal(layout(&d, 0x7FF, 0x2000, 0x3000, &l, why), -EINVAL);
	assert_non_null(strstr(why, "does not fit in BAR0"));
	/* The last entry exactly at the end fits; one byte more does not. */
	assert_int_equal(layout(&d, 0, 0x3FF0, 0x0000, &l, why), 0);
	assert_int_equal(layout(&d, 1, 0x3FF0, 0x0000, &l, why), -EINVAL);
	/* An offset past the BAR with a huge value cannot wrap into it. */
	assert_int_equal(layout(&d, 0, 0xFFFFFFF8, 0x3000, &l, why), -EINVAL);
}

static void pba_outside_its_bar_is_refused(void **state)
{
	struct pci_dev d = dev_with_bar(0, 0xfebd4000, 0x4000, 0);
	struct pci_msix_layout l;
	char why[160] = "";

	(void)state;
	assert_int_equal(layout(&d, 64, 0x2000, 0x4000, &l, why), -EINVAL);
	assert_non_null(strstr(why, "PBA"));
}

static void missing_io_or_unassigned_bars_are_refused(void **state)
{
	struct pci_dev io = dev_with_bar(0, 0xc000, 0x100, PCI_BAR_IO);
	struct pci_dev unassigned = dev_with_bar(0, 0, 0x4000, PCI_BAR_MEM64);
	struct pci_dev none = dev_with_bar(0, 0xfebd4000, 0x4000, 0);
	struct pci_dev upper = dev_with_bar(1, 0, 0, PCI_BAR_UPPER_HALF);
	struct pci_msix_layout l;
	char why[160] = "";

	(void)state;
	assert_int_equal(layout(&io, 0, 0x0, 0x80, &l, why), -EINVAL);
	assert_non_null(strstr(why, "not a usable memory BAR"));
	assert_int_equal(layout(&unassigned, 0, 0x0, 0x1000, &l, why), -EINVAL);
	assert_non_null(strstr(why, "unassigned"));
	assert_int_equal(layout(&none, 0, 0x2, 0x1000, &l, why), -EINVAL);   /* BAR2: not implemented */
	assert_int_equal(layout(&none, 0, 0x7, 0x1000, &l, why), -EINVAL);   /* BIR 7: no such BAR */
	assert_non_null(strstr(why, "does not have"));
	assert_int_equal(layout(&upper, 0, 0x1, 0x1001, &l, why), -EINVAL);  /* upper half of a 64-bit BAR */
	none.bar_count = 2;                                                    /* a bridge: BARs 0-1 only */
	assert_int_equal(layout(&none, 0, 0x5, 0x1000, &l, why), -EINVAL);
}

/* OVMF puts QEMU's NVMe BAR0 at 0xe000000000: the table is there too, msi.c maps it (PAE window). */
static void a_table_in_a_bar_above_4_gib_is_accepted(void **state)
{
	struct pci_dev high = dev_with_bar(0, 0xe000000000ull, 0x4000, PCI_BAR_MEM64);
	struct pci_msix_layout l;
	char why[160] = "";

	(void)state;
	assert_int_equal(layout(&high, 64, 0x2000, 0x3000, &l, why), 0);
	assert_int_equal(l.table_addr, 0xe000002000ull);
	assert_int_equal(l.pba_addr, 0xe000003000ull);
	assert_int_equal(l.table_virt, 0);
}

static void overlapping_table_and_pba_are_refused(void **state)
{
	struct pci_dev d = dev_with_bar(0, 0xfebd4000, 0x4000, 0);
	struct pci_msix_layout l;
	char why[160] = "";

	(void)state;
	assert_int_equal(layout(&d, 64, 0x2000, 0x2100, &l, why), -EINVAL);
	assert_non_null(strstr(why, "overlap"));
	assert_int_equal(layout(&d, 64, 0x2000, 0x2410, &l, why), 0);   /* 65 x 16 = 0x410: just after */
}

static void msi_layouts_follow_the_control_word(void **state)
{
	struct pci_msi_layout m;
	char why[160] = "";

	(void)state;
	/* QEMU's ICH9 AHCI: 64-bit, no per-vector masking, one message. */
	assert_int_equal(pci_msi_cap_layout(0x80, 0x0080, &m, why, sizeof(why)), 0);
	assert_true(m.is64);
	assert_false(m.pvm);
	assert_int_equal(m.data, 0x8C);
	assert_int_equal(m.mask, 0);
	assert_int_equal(m.messages, 1);
	/* 32-bit with masking, 8 messages capable. */
	assert_int_equal(pci_msi_cap_layout(0x50, 0x0106, &m, why, sizeof(why)), 0);
	assert_int_equal(m.data, 0x58);
	assert_int_equal(m.mask, 0x5C);
	assert_int_equal(m.pending, 0x60);
	assert_int_equal(m.messages, 8);
	/* 64-bit with masking: the mask at 0x10, pending at 0x14; reserved MMC 7 reads as 32. */
	assert_int_equal(pci_msi_cap_layout(0x40, 0x018E, &m, why, sizeof(why)), 0);
	assert_int_equal(m.mask, 0x50);
	assert_int_equal(m.pending, 0x54);
	assert_int_equal(m.messages, 32);
}

static void msi_capability_past_config_space_is_refused(void **state)
{
	struct pci_msi_layout m;
	char why[160] = "";

	(void)state;
	assert_int_equal(pci_msi_cap_layout(0xF0, 0x0180, &m, why, sizeof(why)), -EINVAL);   /* 24 bytes from 0xF0 */
	assert_int_equal(pci_msi_cap_layout(0xE8, 0x0180, &m, why, sizeof(why)), 0);         /* exactly to 0x100 */
	assert_int_equal(pci_msi_cap_layout(0x20, 0x0000, &m, why, sizeof(why)), -EINVAL);   /* inside the header */
	assert_int_equal(pci_msi_cap_layout(0x41, 0x0000, &m, why, sizeof(why)), -EINVAL);   /* misaligned */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(qemu_nvme_table_is_accepted),
		cmocka_unit_test(e1000e_table_in_bar3_is_accepted),
		cmocka_unit_test(table_running_past_its_bar_is_refused),
		cmocka_unit_test(pba_outside_its_bar_is_refused),
		cmocka_unit_test(missing_io_or_unassigned_bars_are_refused),
		cmocka_unit_test(a_table_in_a_bar_above_4_gib_is_accepted),
		cmocka_unit_test(overlapping_table_and_pba_are_refused),
		cmocka_unit_test(msi_layouts_follow_the_control_word),
		cmocka_unit_test(msi_capability_past_config_space_is_refused),
	};
	return cmocka_run_group_tests_name("pci_msi", tests, NULL, NULL);
}
