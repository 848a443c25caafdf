/*
 * test_multiboot2.c - host unit tests for mb2_parse() (arch/x86/multiboot2.c)
 * and the boot_info helpers (arch/x86/bootinfo.c): the structures GRUB 2.06
 * really hands over (captured by tools/capture-boot-info.py into
 * tests/fixtures/mb2/), and tag lists built here that are wrong in every way
 * a loader or a corrupted structure can be wrong: sizes below a header, tags
 * running past total_size, a tag whose size swallows the next one, no end
 * tag, duplicates, strings without a NUL, impossible framebuffers, huge and
 * broken memory maps. Each case names what it pins down.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <asm/multiboot2.h>
#include <kernel/bootinfo.h>
#include <kernel/errno.h>

#ifndef MB2_FIXTURE_DIR
#error "MB2_FIXTURE_DIR must name tests/fixtures/mb2 (set by tests/unit/multiboot2.mk)"
#endif

/* ---- a tag list builder ------------------------------------------------------------------- */

enum { BUF_MAX = 1 << 20 };

struct mb2 {
	uint8_t *b;
	uint32_t len;
};

static struct boot_info bi;

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static struct mb2 *mb2_new(void)
{
	static struct mb2 m;

	free(m.b);
	m.b = calloc(1, BUF_MAX);
	assert_non_null(m.b);
	m.len = MB2_INFO_HEADER;
	return &m;
}

/* Append a tag of @type with @n content bytes; RETURNS a pointer to its content. */
static uint8_t *tag(struct mb2 *m, uint32_t type, const void *content, uint32_t n)
{
	uint8_t *t = m->b + m->len;

	assert_true(m->len + MB2_TAG_HEADER + n + 8 <= BUF_MAX);
	put32(t, type);
	put32(t + 4, MB2_TAG_HEADER + n);
	if (content)
		memcpy(t + MB2_TAG_HEADER, content, n);
	m->len += (MB2_TAG_HEADER + n + 7) & ~7u;
	return t + MB2_TAG_HEADER;
}

static void end_tag(struct mb2 *m) { tag(m, MB2_TAG_END, NULL, 0); }

/* Write total_size (= everything so far) and parse. */
static int parse(struct mb2 *m)
{
	put32(m->b, m->len);
	return mb2_parse(m->b, m->len, &bi);
}

static void mmap_tag(struct mb2 *m, const uint64_t (*e)[3], unsigned int n)
{
	uint8_t *t = tag(m, MB2_TAG_MMAP, NULL, 8 + n * 24);

	put32(t, 24);
	put32(t + 4, 0);
	for (unsigned int i = 0; i < n; i++) {
		put64(t + 8 + i * 24, e[i][0]);
		put64(t + 16 + i * 24, e[i][1]);
		put32(t + 24 + i * 24, (uint32_t)e[i][2]);
	}
}

static const uint64_t pc_map[][3] = {
	{ 0, 0x9fc00, 1 }, { 0x9fc00, 0x400, 2 }, { 0x100000, 0x7ee0000, 1 }, { 0xfffc0000, 0x40000, 2 },
};

static void cmdline_tag(struct mb2 *m, const char *s) { tag(m, MB2_TAG_CMDLINE, s, (uint32_t)strlen(s) + 1); }

static bool has_problem(const char *needle)
{
	for (unsigned int i = 0; i < bi.nr_problems && i < BOOT_MAX_PROBLEMS; i++)
		if (strstr(bi.problems[i].what, needle))
			return true;
	return false;
}

/* A minimal good list: a command line, a map, an end tag. */
static struct mb2 *good_list(void)
{
	struct mb2 *m = mb2_new();

	cmdline_tag(m, "loglevel=7");
	mmap_tag(m, pc_map, 4);
	return m;
}

/* ---- what GRUB gives ------------------------------------------------------------------------ */

static uint8_t *load_capture(const char *name, uint32_t *len)
{
	char path[512];
	FILE *f;
	long n;
	uint8_t *b;

	snprintf(path, sizeof(path), "%s/%s.bin", MB2_FIXTURE_DIR, name);
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "missing fixture %s (tools/capture-boot-info.py)\n", path);
		abort();
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n);
	assert_true(fread(b, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	*len = (uint32_t)n;
	return b;
}

static void grub_on_ovmf_gives_acpi_copies_the_efi_table_and_a_framebuffer(void **state)
{
	uint32_t len;
	uint8_t *b = load_capture("ovmf-q35", &len);

	(void)state;
	assert_int_equal(mb2_parse(b, len, &bi), 0);
	assert_true(bi.valid);
	assert_int_equal(bi.protocol, BOOT_PROTOCOL_MULTIBOOT2);
	assert_int_equal(bi.nr_problems, 0);
	assert_string_equal(bi.loader, "GRUB 2.06-13+deb12u2");
	assert_int_equal(bi.efi_bits, 64);
	assert_true(bi.efi_systab > 0x100000 && bi.efi_systab < 0x8000000);
	assert_int_equal(bi.rsdp_new_len, 36);
	assert_memory_equal(bi.rsdp_new, "RSD PTR ", 8);
	assert_int_equal(bi.rsdp_new[15], 2);
	assert_int_equal(bi.rsdp_old_len, 20);
	assert_true(bi.efi_mmap_descs > 50);
	assert_false(bi.regions_from_efi);   /* GRUB's own map is used, made from the EFI one */
	assert_int_equal(bi.fb.kind, BOOT_FB_RGB);
	assert_int_equal(bi.fb.width, 1024);
	assert_int_equal(bi.fb.height, 768);
	assert_int_equal(bi.fb.bpp, 32);
	assert_int_equal(bi.fb.pitch, 4096);
	assert_int_equal(bi.fb.red_pos, 16);
	assert_int_equal(bi.fb.blue_pos, 0);
	/* 128 MiB guest: a bit under 128 MiB usable, 0x8000 (the SMP trampoline) among it. */
	assert_true(bi.usable_bytes > 100u << 20 && bi.usable_bytes < 128u << 20);
	assert_true(boot_info_in_map(&bi, 0x8000, 0x1000, false));
	assert_true(boot_info_in_map(&bi, bi.efi_systab, 120, true));
	assert_false(boot_info_in_map(&bi, bi.efi_systab, 120, false));
	free(b);
}

static void grub_on_seabios_gives_the_old_rsdp_and_vga_text(void **state)
{
	uint32_t len;
	uint8_t *b = load_capture("seabios-pc", &len);

	(void)state;
	assert_int_equal(mb2_parse(b, len, &bi), 0);
	assert_int_equal(bi.nr_problems, 0);
	assert_int_equal(bi.efi_bits, 0);
	assert_int_equal(bi.rsdp_new_len, 0);
	assert_int_equal(bi.rsdp_old_len, 20);
	assert_int_equal(bi.rsdp_old[15], 0);
	assert_int_equal(bi.fb.kind, BOOT_FB_EGA_TEXT);   /* gfxpayload=text in iso/grub.cfg */
	assert_int_equal(bi.fb.addr, 0xB8000);
	assert_int_equal(bi.fb.width, 80);
	assert_int_equal(bi.fb.height, 25);
	assert_int_equal(bi.nr_regions, 6);
	free(b);
}

/* Every prefix of a real structure, as total_size claims and as the bytes there are: never a read
 * past what was given (ASan), never a crash, and a problem named whenever the list is cut. */
static void every_truncation_of_a_real_structure_is_survived_and_reported(void **state)
{
	uint32_t len;
	uint8_t *b = load_capture("ovmf-q35", &len);

	(void)state;
	for (uint32_t n = 0; n <= len; n++) {
		uint8_t *copy = malloc(n ? n : 1);

		memcpy(copy, b, n);
		int err = mb2_parse(copy, n, &bi);
		if (n < len)
			assert_true(err != 0 || bi.nr_problems > 0);
		free(copy);
	}
	free(b);
}

/* ---- sizes ---------------------------------------------------------------------------------- */

static void a_structure_shorter_than_header_and_end_tag_is_refused(void **state)
{
	uint8_t b[16] = { 8 };

	(void)state;
	assert_int_equal(mb2_parse(b, 15, &bi), -EINVAL);
	assert_int_equal(mb2_parse(NULL, 16, &bi), -EINVAL);
	put32(b, 12);
	assert_int_equal(mb2_parse(b, 16, &bi), -EINVAL);
	assert_false(bi.valid);
	assert_non_null(bi.problem);
}

static void total_size_larger_than_what_may_be_read_is_cut_and_reported(void **state)
{
	struct mb2 *m = good_list();

	(void)state;
	end_tag(m);
	put32(m->b, 0x7FFFFFF0);
	assert_int_equal(mb2_parse(m->b, m->len, &bi), 0);
	assert_true(has_problem("total_size larger"));
	assert_string_equal(bi.cmdline, "loglevel=7");
	assert_int_equal(bi.nr_regions, 4);
}

static void a_tag_size_below_its_header_ends_the_walk_and_keeps_what_came_before(void **state)
{
	struct mb2 *m = good_list();
	uint8_t *t;

	(void)state;
	t = m->b + m->len;
	tag(m, MB2_TAG_LOADER_NAME, "GRUB", 5);
	put32(t + 4, 4);                          /* size 4: below the 8-byte header */
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_true(has_problem("tag size below 8"));
	assert_int_equal(bi.problems[0].tag, MB2_TAG_LOADER_NAME);
	assert_string_equal(bi.loader, "");
	assert_string_equal(bi.cmdline, "loglevel=7");
}

static void a_tag_running_past_total_size_is_not_read(void **state)
{
	struct mb2 *m = good_list();
	uint8_t *t;

	(void)state;
	t = m->b + m->len;
	tag(m, MB2_TAG_CMDLINE + 1, "GRUB", 5);
	put32(t + 4, 0x1000);                     /* claims 4 KiB, the structure ends long before */
	assert_int_equal(parse(m), 0);
	assert_true(has_problem("past total_size"));
	assert_string_equal(bi.loader, "");
}

static void a_tag_whose_size_covers_the_next_one_hides_it_and_nothing_is_read_twice(void **state)
{
	struct mb2 *m = mb2_new();
	uint8_t *t = m->b + m->len;

	(void)state;
	cmdline_tag(m, "first");
	tag(m, MB2_TAG_LOADER_NAME, "hidden loader", 14);
	mmap_tag(m, pc_map, 4);
	/* The command line's size now spans the loader tag: the loader tag is content, not a tag. */
	put32(t + 4, MB2_TAG_HEADER + 8 + MB2_TAG_HEADER + 14);
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_string_equal(bi.cmdline, "first");
	assert_string_equal(bi.loader, "");
	assert_int_equal(bi.nr_regions, 4);
}

static void a_list_without_end_tag_is_read_to_total_size_and_reported(void **state)
{
	struct mb2 *m = good_list();

	(void)state;
	assert_int_equal(parse(m), 0);
	assert_true(has_problem("no end tag"));
	assert_string_equal(bi.cmdline, "loglevel=7");
	assert_int_equal(bi.nr_regions, 4);
}

static void tags_after_the_end_tag_are_not_read(void **state)
{
	struct mb2 *m = mb2_new();

	(void)state;
	mmap_tag(m, pc_map, 4);
	end_tag(m);
	cmdline_tag(m, "after the end");
	assert_int_equal(parse(m), 0);
	assert_string_equal(bi.cmdline, "");
	assert_int_equal(bi.nr_problems, 0);
}

static void a_second_tag_of_a_unique_type_is_ignored_and_reported(void **state)
{
	struct mb2 *m = good_list();

	(void)state;
	cmdline_tag(m, "second");
	mmap_tag(m, pc_map, 1);
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_string_equal(bi.cmdline, "loglevel=7");
	assert_int_equal(bi.nr_regions, 4);
	assert_int_equal(bi.nr_problems, 2);
	assert_true(has_problem("second tag of this type"));
}

static void unknown_tags_are_skipped_quietly(void **state)
{
	struct mb2 *m = mb2_new();
	uint8_t junk[13] = { 1, 2, 3 };

	(void)state;
	tag(m, 0x7777, junk, sizeof(junk));
	tag(m, MB2_TAG_MODULE, junk, sizeof(junk));
	mmap_tag(m, pc_map, 4);
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_int_equal(bi.nr_problems, 0);
	assert_int_equal(bi.nr_regions, 4);
}

static void problems_past_the_kept_ones_are_counted(void **state)
{
	struct mb2 *m = good_list();

	(void)state;
	for (int i = 0; i < 20; i++)
		cmdline_tag(m, "again");
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_int_equal(bi.nr_problems, 20);
	assert_non_null(bi.problems[BOOT_MAX_PROBLEMS - 1].what);
}

/* ---- strings -------------------------------------------------------------------------------- */

static void a_string_without_nul_is_cut_at_its_tag_and_reported(void **state)
{
	struct mb2 *m = mb2_new();

	(void)state;
	tag(m, MB2_TAG_CMDLINE, "abcdefgh", 8);   /* no NUL inside the tag */
	mmap_tag(m, pc_map, 4);
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_string_equal(bi.cmdline, "abcdefgh");
	assert_true(has_problem("not NUL-terminated"));
}

static void a_command_line_longer_than_kept_is_cut_and_flagged(void **state)
{
	struct mb2 *m = mb2_new();
	char *s = malloc(5000);

	(void)state;
	memset(s, 'x', 4999);
	s[4999] = 0;
	cmdline_tag(m, s);
	mmap_tag(m, pc_map, 4);
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_true(bi.cmdline_truncated);
	assert_int_equal(strlen(bi.cmdline), BOOT_CMDLINE_MAX - 1);
	free(s);
}

static void control_characters_in_the_loader_name_are_shown_as_question_marks(void **state)
{
	struct mb2 *m = good_list();

	(void)state;
	tag(m, MB2_TAG_LOADER_NAME, "GR\x1b[2JUB", 9);
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_string_equal(bi.loader, "GR?[2JUB");
}

/* ---- memory maps ---------------------------------------------------------------------------- */

static void adjacent_regions_of_one_type_are_merged(void **state)
{
	static const uint64_t map[][3] = {
		{ 0, 0x1000, 1 }, { 0x1000, 0x1000, 1 }, { 0x2000, 0x1000, 2 }, { 0x3000, 0x1000, 2 }, { 0x5000, 0x1000, 2 },
	};
	struct mb2 *m = mb2_new();

	(void)state;
	mmap_tag(m, map, 5);
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_int_equal(bi.nr_regions, 3);
	assert_int_equal(bi.regions[0].len, 0x2000);
	assert_int_equal(bi.regions[1].len, 0x2000);
	assert_int_equal(bi.usable_bytes, 0x2000);
}

static void a_huge_memory_map_is_truncated_and_its_kept_part_counted(void **state)
{
	enum { N = 20000 };
	uint64_t (*map)[3] = calloc(N, sizeof(*map));
	struct mb2 *m = mb2_new();

	(void)state;
	for (unsigned int i = 0; i < N; i++) {   /* alternating types, never mergeable */
		map[i][0] = (uint64_t)i * 0x2000;
		map[i][1] = 0x1000;
		map[i][2] = 1 + (i & 1);
	}
	mmap_tag(m, (const uint64_t (*)[3])map, N);
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_int_equal(bi.nr_regions, BOOT_MAX_REGIONS);
	assert_true(bi.regions_truncated);
	assert_int_equal(bi.usable_bytes, (uint64_t)BOOT_MAX_REGIONS / 2 * 0x1000);
	free(map);
}

static void memory_map_entry_sizes_that_cannot_be_are_refused(void **state)
{
	static const uint32_t bad_sizes[] = { 0, 8, 20, 28, 0x10000 };

	(void)state;
	for (unsigned int i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		struct mb2 *m = mb2_new();
		uint8_t *t;

		tag(m, MB2_TAG_BASIC_MEMINFO, (uint32_t[]){ 639, 130048 }, 8);
		t = m->b + m->len;
		mmap_tag(m, pc_map, 4);
		put32(t + MB2_TAG_HEADER, bad_sizes[i]);
		end_tag(m);
		assert_int_equal(parse(m), 0);
		assert_true(has_problem("entry size"));
		/* the basic sizes stand in */
		assert_int_equal(bi.nr_regions, 2);
		assert_int_equal(bi.regions[1].len, 130048ull * 1024);
	}
}

static void a_map_ending_inside_an_entry_drops_only_that_entry(void **state)
{
	struct mb2 *m = mb2_new();
	uint8_t *t = m->b + m->len;

	(void)state;
	mmap_tag(m, pc_map, 4);
	put32(t + 4, MB2_MMAP_ENTRIES + 3 * 24 + 10);
	m->len = (uint32_t)(t - m->b) + ((MB2_MMAP_ENTRIES + 3 * 24 + 10 + 7) & ~7u);
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_int_equal(bi.nr_regions, 3);
	assert_true(has_problem("partial entry"));
}

/* The last one found by the fuzz target: a region starting at 2^64 - 1 became one of length 0. */
static void a_region_running_past_2_to_the_64_ends_there(void **state)
{
	static const uint64_t map[][3] = { { 0xFFFFFFFFFFFF0000ull, 0x100000, 1 }, { UINT64_MAX, 0x10, 2 } };
	struct mb2 *m = mb2_new();

	(void)state;
	mmap_tag(m, map, 2);
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_int_equal(bi.nr_regions, 1);
	assert_int_equal(bi.regions[0].len, 0xFFFF);
	assert_false(boot_info_in_map(&bi, 0xFFFFFFFFFFFFFFF0ull, 0x20, true));
}

static void no_map_and_no_sizes_is_refused(void **state)
{
	struct mb2 *m = mb2_new();

	(void)state;
	cmdline_tag(m, "x");
	end_tag(m);
	assert_int_equal(parse(m), -EINVAL);
	assert_false(bi.valid);
	assert_true(has_problem("neither a memory map"));
}

/* EFI memory descriptors (UEFI 2.10 7.2): type, pad, physical start, virtual start, pages, attributes. */
static uint8_t *efi_map_tag(struct mb2 *m, uint32_t dsize, const uint64_t (*d)[3], unsigned int n)
{
	uint8_t *t = tag(m, MB2_TAG_EFI_MMAP, NULL, 8 + n * dsize);

	put32(t, dsize);
	put32(t + 4, 1);
	for (unsigned int i = 0; i < n; i++) {
		put32(t + 8 + i * dsize, (uint32_t)d[i][0]);
		put64(t + 8 + i * dsize + 8, d[i][1]);
		put64(t + 8 + i * dsize + 24, d[i][2]);
	}
	return t;
}

static void the_efi_map_alone_becomes_the_memory_map_with_types_converted(void **state)
{
	static const uint64_t d[][3] = {
		{ 7, 0, 0xA0 },            /* conventional */
		{ 4, 0x100000, 0x100 },    /* boot services data: free after ExitBootServices */
		{ 6, 0x200000, 0x10 },     /* runtime services data: kept by firmware */
		{ 9, 0x210000, 0x10 },     /* ACPI reclaim */
		{ 10, 0x220000, 0x10 },    /* ACPI NVS */
		{ 7, 0x300001, 0x10 },     /* not page-aligned: skipped */
		{ 7, 0xFFFFFFFFFFFFF000ull, 2 },  /* past 2^64: skipped */
	};
	struct mb2 *m = mb2_new();

	(void)state;
	efi_map_tag(m, 48, d, 7);
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_true(bi.regions_from_efi);
	assert_int_equal(bi.efi_mmap_descs, 7);
	assert_int_equal(bi.nr_regions, 5);
	assert_int_equal(bi.regions[2].type, BOOT_MEM_RESERVED);
	assert_int_equal(bi.regions[3].type, BOOT_MEM_ACPI);
	assert_int_equal(bi.regions[4].type, BOOT_MEM_NVS);
	assert_int_equal(bi.usable_bytes, 0xA0000 + 0x100000);
	assert_true(has_problem("not page-aligned"));
}

static void the_multiboot_map_wins_over_the_efi_map_in_either_order(void **state)
{
	static const uint64_t d[][3] = { { 7, 0, 0x10 } };
	struct mb2 *m = mb2_new();

	(void)state;
	efi_map_tag(m, 48, d, 1);
	mmap_tag(m, pc_map, 4);
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_false(bi.regions_from_efi);
	assert_int_equal(bi.nr_regions, 4);
	assert_int_equal(bi.efi_mmap_descs, 1);
}

static void efi_descriptor_sizes_that_cannot_be_are_refused(void **state)
{
	static const uint64_t d[][3] = { { 7, 0, 0x10 } };
	static const uint32_t bad[] = { 0, 24, 44, 8192 };

	(void)state;
	for (unsigned int i = 0; i < 4; i++) {
		struct mb2 *m = mb2_new();

		tag(m, MB2_TAG_BASIC_MEMINFO, (uint32_t[]){ 639, 1024 }, 8);
		put32(efi_map_tag(m, 48, d, 1), bad[i]);
		end_tag(m);
		assert_int_equal(parse(m), 0);
		assert_int_equal(bi.efi_mmap_descs, 0);
		assert_false(bi.regions_from_efi);
		assert_true(has_problem("descriptor size"));
	}
}

/* ---- ACPI and EFI -------------------------------------------------------------------------- */

static void rsdp_copies_are_kept_and_bad_lengths_refused(void **state)
{
	uint8_t rsdp[80] = "RSD PTR ";
	struct mb2 *m = good_list();

	(void)state;
	tag(m, MB2_TAG_ACPI_OLD, rsdp, 19);           /* too short */
	tag(m, MB2_TAG_ACPI_NEW, rsdp, 80);           /* longer than kept */
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_int_equal(bi.rsdp_old_len, 0);
	assert_int_equal(bi.rsdp_new_len, BOOT_RSDP_MAX);
	assert_true(has_problem("shorter than 20"));
	assert_true(has_problem("longer than 64"));
}

static void efi_system_table_tags_keep_the_first_nonzero_pointer(void **state)
{
	uint64_t p64 = 0x123456789ull, zero = 0;
	uint32_t p32 = 0x7654000;
	struct mb2 *m = good_list();

	(void)state;
	tag(m, MB2_TAG_EFI64, &zero, 8);
	tag(m, MB2_TAG_EFI64, &p64, 4);               /* too short for a 64-bit pointer */
	tag(m, MB2_TAG_EFI32, &p32, 4);
	tag(m, MB2_TAG_EFI64, &p64, 8);
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_int_equal(bi.efi_bits, 32);
	assert_int_equal(bi.efi_systab, 0x7654000);
	assert_true(has_problem("pointer is 0"));
	assert_true(has_problem("too short"));
	assert_true(has_problem("second EFI system table"));
}

/* ---- framebuffers --------------------------------------------------------------------------- */

struct fb_desc {
	uint64_t addr;
	uint32_t pitch, width, height;
	uint8_t bpp, type;
	uint8_t rgb[6];
};

static void fb_tag(struct mb2 *m, const struct fb_desc *f, uint32_t content_len)
{
	uint8_t c[64] = { 0 };

	put64(c, f->addr);
	put32(c + 8, f->pitch);
	put32(c + 12, f->width);
	put32(c + 16, f->height);
	c[20] = f->bpp;
	c[21] = f->type;
	memcpy(c + 24, f->rgb, 6);
	tag(m, MB2_TAG_FRAMEBUFFER, c, content_len);
}

static int fb_parse(const struct fb_desc *f, uint32_t content_len)
{
	struct mb2 *m = good_list();

	fb_tag(m, f, content_len);
	end_tag(m);
	assert_int_equal(parse(m), 0);
	return bi.fb.kind;
}

static const struct fb_desc good_fb = { 0xC0000000, 4096, 1024, 768, 32, 1, { 16, 8, 8, 8, 0, 8 } };

static void a_direct_colour_framebuffer_is_kept(void **state)
{
	(void)state;
	assert_int_equal(fb_parse(&good_fb, 30), BOOT_FB_RGB);
	assert_int_equal(bi.fb.addr, 0xC0000000);
	assert_int_equal(bi.fb.green_pos, 8);
	assert_int_equal(bi.nr_problems, 0);
}

static void framebuffers_that_cannot_be_are_refused(void **state)
{
	struct fb_desc f;

	(void)state;
	assert_int_equal(fb_parse(&good_fb, 24), BOOT_FB_NONE);         /* no colour fields */
	assert_int_equal(fb_parse(&good_fb, 23), BOOT_FB_NONE);         /* shorter than the common part */
	f = good_fb, f.bpp = 12;
	assert_int_equal(fb_parse(&f, 30), BOOT_FB_NONE);
	f = good_fb, f.pitch = 1024 * 4 - 1;                            /* a line does not fit its pitch */
	assert_int_equal(fb_parse(&f, 30), BOOT_FB_NONE);
	f = good_fb, f.width = 0;
	assert_int_equal(fb_parse(&f, 30), BOOT_FB_NONE);
	f = good_fb, f.height = 100000;
	assert_int_equal(fb_parse(&f, 30), BOOT_FB_NONE);
	f = good_fb, f.addr = 0;
	assert_int_equal(fb_parse(&f, 30), BOOT_FB_NONE);
	f = good_fb, f.addr = 0xFFFFFFFFFFFFF000ull;                    /* runs past 2^64 */
	assert_int_equal(fb_parse(&f, 30), BOOT_FB_NONE);
	f = good_fb, f.rgb[0] = 30;                                     /* red field outside the pixel */
	assert_int_equal(fb_parse(&f, 30), BOOT_FB_NONE);
	f = good_fb, f.rgb[3] = 0;                                      /* empty green field */
	assert_int_equal(fb_parse(&f, 30), BOOT_FB_NONE);
	f = good_fb, f.type = 0;                                        /* palette */
	assert_int_equal(fb_parse(&f, 30), BOOT_FB_NONE);
	assert_true(has_problem("indexed-colour"));
	f = good_fb, f.type = 9;
	assert_int_equal(fb_parse(&f, 30), BOOT_FB_NONE);
}

static void ega_text_is_kept_within_sane_dimensions(void **state)
{
	struct fb_desc f = { 0xB8000, 160, 80, 25, 16, 2, { 0 } };

	(void)state;
	assert_int_equal(fb_parse(&f, 24), BOOT_FB_EGA_TEXT);
	f.width = 1000;
	assert_int_equal(fb_parse(&f, 24), BOOT_FB_NONE);
}

/* ---- helpers -------------------------------------------------------------------------------- */

static void in_map_checks_whole_ranges_inside_one_region(void **state)
{
	struct mb2 *m = good_list();

	(void)state;
	end_tag(m);
	assert_int_equal(parse(m), 0);
	assert_true(boot_info_in_map(&bi, 0x100000, 0x1000, false));
	assert_false(boot_info_in_map(&bi, 0x9f000, 0x2000, false));   /* crosses into reserved */
	assert_true(boot_info_in_map(&bi, 0x9fc00, 0x400, true));
	assert_false(boot_info_in_map(&bi, 0x9fc00, 0x400, false));
	assert_false(boot_info_in_map(&bi, 0xA0000, 1, true));          /* in no region */
	assert_false(boot_info_in_map(&bi, 0x1000, 0, true));           /* empty */
	assert_false(boot_info_in_map(&bi, UINT64_MAX, 2, true));       /* wraps */
	assert_string_equal(boot_info_mem_type_name(3), "ACPI");
	assert_string_equal(boot_info_mem_type_name(77), "reserved");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(grub_on_ovmf_gives_acpi_copies_the_efi_table_and_a_framebuffer),
		cmocka_unit_test(grub_on_seabios_gives_the_old_rsdp_and_vga_text),
		cmocka_unit_test(every_truncation_of_a_real_structure_is_survived_and_reported),
		cmocka_unit_test(a_structure_shorter_than_header_and_end_tag_is_refused),
		cmocka_unit_test(total_size_larger_than_what_may_be_read_is_cut_and_reported),
		cmocka_unit_test(a_tag_size_below_its_header_ends_the_walk_and_keeps_what_came_before),
		cmocka_unit_test(a_tag_running_past_total_size_is_not_read),
		cmocka_unit_test(a_tag_whose_size_covers_the_next_one_hides_it_and_nothing_is_read_twice),
		cmocka_unit_test(a_list_without_end_tag_is_read_to_total_size_and_reported),
		cmocka_unit_test(tags_after_the_end_tag_are_not_read),
		cmocka_unit_test(a_second_tag_of_a_unique_type_is_ignored_and_reported),
		cmocka_unit_test(unknown_tags_are_skipped_quietly),
		cmocka_unit_test(problems_past_the_kept_ones_are_counted),
		cmocka_unit_test(a_string_without_nul_is_cut_at_its_tag_and_reported),
		cmocka_unit_test(a_command_line_longer_than_kept_is_cut_and_flagged),
		cmocka_unit_test(control_characters_in_the_loader_name_are_shown_as_question_marks),
		cmocka_unit_test(adjacent_regions_of_one_type_are_merged),
		cmocka_unit_test(a_huge_memory_map_is_truncated_and_its_kept_part_counted),
		cmocka_unit_test(memory_map_entry_sizes_that_cannot_be_are_refused),
		cmocka_unit_test(a_map_ending_inside_an_entry_drops_only_that_entry),
		cmocka_unit_test(a_region_running_past_2_to_the_64_ends_there),
		cmocka_unit_test(no_map_and_no_sizes_is_refused),
		cmocka_unit_test(the_efi_map_alone_becomes_the_memory_map_with_types_converted),
		cmocka_unit_test(the_multiboot_map_wins_over_the_efi_map_in_either_order),
		cmocka_unit_test(efi_descriptor_sizes_that_cannot_be_are_refused),
		cmocka_unit_test(rsdp_copies_are_kept_and_bad_lengths_refused),
		cmocka_unit_test(efi_system_table_tags_keep_the_first_nonzero_pointer),
		cmocka_unit_test(a_direct_colour_framebuffer_is_kept),
		cmocka_unit_test(framebuffers_that_cannot_be_are_refused),
		cmocka_unit_test(ega_text_is_kept_within_sane_dimensions),
		cmocka_unit_test(in_map_checks_whole_ranges_inside_one_region),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
