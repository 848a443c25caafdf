/*
 * test_mmio_window.c - host unit tests for the pure parts of mapping device
 * memory (arch/x86/mmio_window.c): which identity pages hold RAM, where the
 * MMIO window for device memory above 4 GiB goes on real memory maps (GRUB's
 * on SeaBIOS and OVMF, tests/fixtures/mb2/) and on maps built to leave it no
 * room, and how its slots are shared and run out.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <asm/mmio_window.h>
#include <kernel/errno.h>

#ifndef MB2_FIXTURE_DIR
#error "MB2_FIXTURE_DIR must name tests/fixtures/mb2 (set by tests/unit/mmio_window.mk)"
#endif

#define MIB (1024ull * 1024)
#define WINDOW (64 * MIB)
#define LARGE (2 * MIB)
#define FLOOR (16 * MIB)
#define CEILING 0xFE000000ull

static struct boot_info bi;

static void load(const char *name)
{
	char path[512];
	static uint8_t b[65536];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.bin", MB2_FIXTURE_DIR, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	assert_int_equal(mb2_parse(b, (uint32_t)n, &bi), 0);
}

static void map(const uint64_t (*r)[3], unsigned int n)
{
	memset(&bi, 0, sizeof(bi));
	for (unsigned int i = 0; i < n; i++)
		boot_info_add_region(&bi, r[i][0], r[i][1], (uint32_t)r[i][2]);
}

static void on_ovmf_the_window_goes_right_above_ram_clear_of_everything(void **state)
{
	uint64_t at;

	(void)state;
	load("ovmf-q35");
	at = mmio_window_pick(&bi, WINDOW, LARGE, FLOOR, CEILING);
	assert_int_equal(at, 0x08000000);
	/* nothing in the map and not the framebuffer (0xc0000000, 3 MiB) */
	for (unsigned int i = 0; i < bi.nr_regions; i++)
		assert_true(bi.regions[i].base >= at + WINDOW || bi.regions[i].base + bi.regions[i].len <= at);
	assert_true(bi.fb.addr >= at + WINDOW);
	load("seabios-pc");
	assert_int_equal(mmio_window_pick(&bi, WINDOW, LARGE, FLOOR, CEILING), 0x08000000);
}

static void the_window_steps_over_regions_and_the_framebuffer(void **state)
{
	static const uint64_t m[][3] = {
		{ 0, 0x9fc00, 1 }, { 0x100000, 0x3FF00000, 1 },        /* 1 GiB of RAM */
		{ 0x40000000, 0x1000, 2 },                              /* a firmware page right above */
		{ 0x44000000, 0x100000, 4 },                            /* NVS in the next gap, 63 MiB on */
	};

	(void)state;
	map(m, 4);
	/* 0x40200000 + 64 MiB would reach the NVS at 0x44000000: the first fit is after it. */
	assert_int_equal(mmio_window_pick(&bi, WINDOW, LARGE, FLOOR, CEILING), 0x44200000);
	bi.fb = (struct boot_fb){ .kind = BOOT_FB_RGB, .addr = 0x44300000, .pitch = 4096, .height = 768 };
	assert_int_equal(mmio_window_pick(&bi, WINDOW, LARGE, FLOOR, CEILING), 0x44600000);
}

static void a_map_with_no_free_range_below_the_ceiling_gives_no_window(void **state)
{
	static const uint64_t m[][3] = { { 0, 0xFD000000, 1 }, { 0xFD000000, 0x3000000, 2 } };

	(void)state;
	map(m, 2);
	assert_int_equal(mmio_window_pick(&bi, WINDOW, LARGE, FLOOR, CEILING), 0);
	assert_int_equal(mmio_window_pick(&bi, 0, LARGE, FLOOR, CEILING), 0);
	assert_int_equal(mmio_window_pick(&bi, WINDOW, 3 * MIB, FLOOR, CEILING), 0);   /* not a power of 2 */
}

static void only_pages_holding_usable_ram_count_as_ram(void **state)
{
	static const uint64_t m[][3] = { { 0, 0x9fc00, 1 }, { 0x9fc00, 0x400, 2 }, { 0x100000, 0x7ee0000, 1 },
					 { 0x7fe0000, 0x20000, 3 } };

	(void)state;
	map(m, 4);
	assert_true(mmio_overlaps_ram(&bi, 0x9f000, 0x1000));     /* RAM and the EBDA share it */
	assert_false(mmio_overlaps_ram(&bi, 0xA0000, 0x1000));    /* VGA */
	assert_false(mmio_overlaps_ram(&bi, 0x7fe0000, 0x20000)); /* ACPI tables */
	assert_true(mmio_overlaps_ram(&bi, 0x7e00000, 0x200000)); /* the 2 MiB page holding RAM's end */
	assert_false(mmio_overlaps_ram(&bi, 0xc0000000, 0x200000));
	assert_false(mmio_overlaps_ram(&bi, UINT64_MAX - 5, 100)); /* no wrap */
}

static struct mmio_window w;

static void fresh_window(void)
{
	memset(&w, 0, sizeof(w));
	w.virt = 0x08000000;
	w.large = LARGE;
	w.slots = 4;
}

static void a_bar_gets_a_slot_and_its_msix_table_shares_it(void **state)
{
	uint32_t virt;
	unsigned int first, count;

	(void)state;
	fresh_window();
	assert_int_equal(mmio_window_alloc(&w, 0xe000000000ull, 0x4000, &virt, &first, &count), 0);
	assert_int_equal(virt, 0x08000000);
	assert_int_equal(first, 0);
	assert_int_equal(count, 1);
	assert_int_equal(w.phys[0], 0xe000000000ull);
	/* the MSI-X table at BAR0 + 0x2000: the same slot, nothing new to map */
	assert_int_equal(mmio_window_alloc(&w, 0xe000002000ull, 0x410, &virt, &first, &count), 0);
	assert_int_equal(virt, 0x08002000);
	assert_int_equal(count, 0);
}

static void a_range_crossing_a_large_page_takes_two_adjacent_slots(void **state)
{
	uint32_t virt;
	unsigned int first, count;

	(void)state;
	fresh_window();
	assert_int_equal(mmio_window_alloc(&w, 0xe000000000ull, 0x1000, &virt, &first, &count), 0);
	assert_int_equal(mmio_window_alloc(&w, 0xf0001ff000ull, 0x2000, &virt, &first, &count), 0);
	assert_int_equal(first, 1);
	assert_int_equal(count, 2);
	assert_int_equal(virt, 0x08000000 + LARGE + 0x1ff000);
	assert_int_equal(w.phys[2], 0xf000200000ull);
}

static void a_full_window_refuses_and_bad_ranges_are_refused(void **state)
{
	uint32_t virt;
	unsigned int first, count;

	(void)state;
	fresh_window();
	assert_int_equal(mmio_window_alloc(&w, 0x100000000ull, 5 * LARGE, &virt, &first, &count), -ENOSPC);
	assert_int_equal(mmio_window_alloc(&w, 0x100000000ull, 4 * LARGE, &virt, &first, &count), 0);
	assert_int_equal(mmio_window_alloc(&w, 0x200000000ull, 1, &virt, &first, &count), -ENOSPC);
	assert_int_equal(mmio_window_alloc(&w, 0x200000000ull, 0, &virt, &first, &count), -EINVAL);
	assert_int_equal(mmio_window_alloc(&w, UINT64_MAX - 10, 100, &virt, &first, &count), -EINVAL);
	w.virt = 0;
	assert_int_equal(mmio_window_alloc(&w, 0x200000000ull, 1, &virt, &first, &count), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(on_ovmf_the_window_goes_right_above_ram_clear_of_everything),
		cmocka_unit_test(the_window_steps_over_regions_and_the_framebuffer),
		cmocka_unit_test(a_map_with_no_free_range_below_the_ceiling_gives_no_window),
		cmocka_unit_test(only_pages_holding_usable_ram_count_as_ram),
		cmocka_unit_test(a_bar_gets_a_slot_and_its_msix_table_shares_it),
		cmocka_unit_test(a_range_crossing_a_large_page_takes_two_adjacent_slots),
		cmocka_unit_test(a_full_window_refuses_and_bad_ranges_are_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
