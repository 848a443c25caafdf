/*
 * multiboot2.c - the multiboot2 boot information (Multiboot2 specification
 * 2.0, section 3.6), read as untrusted input. Pure logic: mb2_parse() gets a
 * pointer and how many bytes behind it may be read, and fills struct
 * boot_info (include/kernel/bootinfo.h); the host unit tests
 * (tests/unit/test_multiboot2.c) and the fuzz target
 * (tests/fuzz/fuzz_multiboot2.c) call it on their own bytes, the kernel on
 * the loader's (arch/x86/multiboot.c, which also reads multiboot 1).
 *
 * The structure: u32 total_size, u32 reserved, then tags, each 8-byte
 * aligned: u32 type, u32 size (header included, padding not), contents; a
 * tag of type 0 and size 8 ends the list. Every size is checked before a
 * field behind it is read: a tag whose size is below its header or runs
 * past total_size ends the walk (the next tag cannot be found), a tag too
 * short for its own fields or with impossible contents is reported and
 * skipped, a second copy of a tag that must be unique is reported and
 * ignored. What is kept is copied; nothing points into the loader's memory.
 *
 * Tags read: command line (1), loader name (2), basic memory sizes (4),
 * memory map (6), framebuffer (8), EFI 32/64-bit system table (11, 12),
 * ACPI old/new RSDP (14, 15), EFI memory map (17). The others are known
 * and not needed; unknown ones are skipped as the specification says.
 */
#include <stddef.h>
#include <stdint.h>
#include <asm/multiboot2.h>
#include <kernel/bootinfo.h>
#include <kernel/errno.h>
#include <kernel/string.h>

/* Limits on what a tag may claim, each with its reason. */
enum mb2_sanity {
	MB2_FB_MAX_DIM = 16384,          /* pixels per side: 16K displays exist, more is nonsense */
	MB2_FB_MAX_PITCH = 1u << 20,     /* bytes per line: 16384 pixels x 8 bytes, rounded up */
	MB2_FB_MAX_BYTES = 1u << 30,     /* a framebuffer bigger than 1 GiB is nonsense */
	MB2_FB_MAX_CHANNEL = 16,         /* bits per colour channel (10-bit panels use 10) */
	MB2_EGA_MAX_DIM = 255,           /* text rows and columns */
	MB2_EFI_DESC_MAX = 4096,         /* bytes per EFI memory descriptor (48 today) */
	MB2_MMAP_ENTRY_MAX = 4096,       /* bytes per multiboot memory map entry (24 today) */
	RSDP_V1_BYTES = 20,              /* ACPI 1.0 RSDP: the least a copy must hold */
};

/* UEFI 2.10 table 7-5, EFI_MEMORY_TYPE: what each becomes once boot services are gone. */
enum efi_memory_type {
	EFI_LOADER_CODE = 1, EFI_LOADER_DATA = 2, EFI_BOOT_SERVICES_CODE = 3, EFI_BOOT_SERVICES_DATA = 4,
	EFI_CONVENTIONAL_MEMORY = 7, EFI_UNUSABLE_MEMORY = 8, EFI_ACPI_RECLAIM_MEMORY = 9,
	EFI_ACPI_MEMORY_NVS = 10,
};

#define TYPE_BIT(t) (1u << (t))
/* Tags that must come at most once; a second copy is reported and ignored. */
#define MB2_UNIQUE_TAGS (TYPE_BIT(MB2_TAG_CMDLINE) | TYPE_BIT(MB2_TAG_LOADER_NAME) |          \
	TYPE_BIT(MB2_TAG_BASIC_MEMINFO) | TYPE_BIT(MB2_TAG_MMAP) | TYPE_BIT(MB2_TAG_FRAMEBUFFER) | \
	TYPE_BIT(MB2_TAG_ACPI_OLD) | TYPE_BIT(MB2_TAG_ACPI_NEW) | TYPE_BIT(MB2_TAG_EFI_MMAP))

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)le16(p) | (uint32_t)le16(p + 2) << 16; }
static uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

/* One tag being read: where it is and how many bytes it really has. */
struct mb2_tag {
	struct boot_info *bi;
	const uint8_t *p;        /* the tag's first byte */
	uint32_t type, size;     /* size: checked to lie inside the structure */
	uint32_t off;            /* offset in the structure, for reports */
};

static void note(const struct mb2_tag *t, const char *what)
{
	boot_info_note(t->bi, t->type, t->off, what);
}

/* A tag's string: copied up to @cap - 1 bytes. RETURNS true if it was longer (cut). */
static bool tag_string(const struct mb2_tag *t, char *dst, uint32_t cap, bool printable)
{
	uint32_t avail = t->size - MB2_TAG_HEADER, n = 0;
	const uint8_t *s = t->p + MB2_TAG_HEADER;

	while (n < avail && s[n])
		n++;
	if (n == avail)
		note(t, "string not NUL-terminated inside its tag; cut at the tag's end");
	for (uint32_t i = 0; i < n && i + 1 < cap; i++)
		dst[i] = (printable && (s[i] < ' ' || s[i] > '~')) ? '?' : (char)s[i];
	dst[n + 1 < cap ? n : cap - 1] = '\0';
	return n + 1 > cap;
}

static void tag_meminfo(const struct mb2_tag *t)
{
	if (t->size < MB2_TAG_HEADER + 8) {
		note(t, "basic memory information tag too short; ignored");
		return;
	}
	t->bi->mem_lower_kib = le32(t->p + 8);
	t->bi->mem_upper_kib = le32(t->p + 12);
}

static void tag_mmap(const struct mb2_tag *t)
{
	uint32_t esize, n, off;

	if (t->size < MB2_MMAP_ENTRIES) {
		note(t, "memory map tag too short for its header; ignored");
		return;
	}
	esize = le32(t->p + 8);
	if (esize < MB2_MMAP_ENTRY_MIN || esize > MB2_MMAP_ENTRY_MAX || esize % 8) {
		note(t, "memory map entry size below 24, absurd or not a multiple of 8; map ignored");
		return;
	}
	n = (t->size - MB2_MMAP_ENTRIES) / esize;
	if ((t->size - MB2_MMAP_ENTRIES) % esize)
		note(t, "memory map tag ends inside an entry; the partial entry ignored");
	for (uint32_t i = 0; i < n; i++) {
		off = MB2_MMAP_ENTRIES + i * esize;
		boot_info_add_region(t->bi, le64(t->p + off), le64(t->p + off + 8), le32(t->p + off + 16));
	}
}

/* The multiboot type of an EFI memory type, read after ExitBootServices(). */
static uint32_t efi_type_to_boot(uint32_t efi)
{
	switch (efi) {
	case EFI_LOADER_CODE: case EFI_LOADER_DATA:
	case EFI_BOOT_SERVICES_CODE: case EFI_BOOT_SERVICES_DATA:
	case EFI_CONVENTIONAL_MEMORY:
		return BOOT_MEM_USABLE;
	case EFI_ACPI_RECLAIM_MEMORY: return BOOT_MEM_ACPI;
	case EFI_ACPI_MEMORY_NVS: return BOOT_MEM_NVS;
	case EFI_UNUSABLE_MEMORY: return BOOT_MEM_BAD;
	default: return BOOT_MEM_RESERVED;
	}
}

/* Check the EFI memory map tag; RETURNS its descriptor count (0: unusable). */
static uint32_t efi_mmap_check(const struct mb2_tag *t)
{
	uint32_t dsize;

	if (t->size < MB2_EFI_MMAP_DESCS) {
		note(t, "EFI memory map tag too short for its header; ignored");
		return 0;
	}
	dsize = le32(t->p + 8);
	if (dsize < EFI_MEMDESC_MIN || dsize > MB2_EFI_DESC_MAX || dsize % 8) {
		note(t, "EFI memory descriptor size below 40, absurd or not a multiple of 8; map ignored");
		return 0;
	}
	if ((t->size - MB2_EFI_MMAP_DESCS) % dsize)
		note(t, "EFI memory map tag ends inside a descriptor; the partial one ignored");
	return (t->size - MB2_EFI_MMAP_DESCS) / dsize;
}

/* Use the EFI memory map as the memory map (when the loader gave no multiboot one). */
static void efi_mmap_regions(const struct mb2_tag *t, uint32_t n)
{
	uint32_t dsize = le32(t->p + 8);
	bool bad = false;

	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *d = t->p + MB2_EFI_MMAP_DESCS + i * dsize;
		uint64_t base = le64(d + EFI_MEMDESC_PHYS), pages = le64(d + EFI_MEMDESC_PAGES);

		if ((base & (EFI_PAGE_SIZE - 1)) || pages > (UINT64_MAX - base) / EFI_PAGE_SIZE) {
			bad = true;
			continue;
		}
		boot_info_add_region(t->bi, base, pages * EFI_PAGE_SIZE, efi_type_to_boot(le32(d + EFI_MEMDESC_TYPE)));
	}
	if (bad)
		note(t, "EFI memory descriptor not page-aligned or running past 2^64; skipped");
	t->bi->regions_from_efi = true;
}

static bool fb_rgb_ok(const struct mb2_tag *t, struct boot_fb *fb)
{
	const uint8_t *f = t->p + MB2_FB_RGB_FIELDS;
	uint32_t bytes_pp = (fb->bpp + 7u) / 8u;

	if (t->size < MB2_FB_RGB_LEN) {
		note(t, "direct-colour framebuffer tag too short for its colour fields; no screen console");
		return false;
	}
	if (fb->bpp != 15 && fb->bpp != 16 && fb->bpp != 24 && fb->bpp != 32) {
		note(t, "framebuffer depth not 15, 16, 24 or 32 bits; no screen console");
		return false;
	}
	for (unsigned int c = 0; c < 3; c++) {
		uint8_t pos = f[2 * c], size = f[2 * c + 1];

		if (size == 0 || size > MB2_FB_MAX_CHANNEL || pos + size > fb->bpp) {
			note(t, "framebuffer colour field empty or outside the pixel; no screen console");
			return false;
		}
	}
	fb->red_pos = f[0], fb->red_size = f[1];
	fb->green_pos = f[2], fb->green_size = f[3];
	fb->blue_pos = f[4], fb->blue_size = f[5];
	if (fb->width == 0 || fb->height == 0 || fb->width > MB2_FB_MAX_DIM || fb->height > MB2_FB_MAX_DIM ||
	    fb->pitch < fb->width * bytes_pp || fb->pitch > MB2_FB_MAX_PITCH ||
	    (uint64_t)fb->pitch * fb->height > MB2_FB_MAX_BYTES) {
		note(t, "framebuffer size, pitch or dimensions impossible; no screen console");
		return false;
	}
	return true;
}

static void tag_framebuffer(const struct mb2_tag *t)
{
	struct boot_fb fb = { 0 };
	uint8_t type;

	if (t->size < MB2_FB_COMMON_LEN) {
		note(t, "framebuffer tag too short; no screen console");
		return;
	}
	fb.addr = le64(t->p + MB2_FB_ADDR);
	fb.pitch = le32(t->p + MB2_FB_PITCH);
	fb.width = le32(t->p + MB2_FB_WIDTH);
	fb.height = le32(t->p + MB2_FB_HEIGHT);
	fb.bpp = t->p[MB2_FB_BPP];
	type = t->p[MB2_FB_TYPE];
	if (fb.addr == 0 || (uint64_t)fb.pitch * fb.height > UINT64_MAX - fb.addr) {
		note(t, "framebuffer at address 0 or running past 2^64; no screen console");
		return;
	}
	switch (type) {
	case MB2_FB_TYPE_RGB:
		if (!fb_rgb_ok(t, &fb))
			return;
		fb.kind = BOOT_FB_RGB;
		break;
	case MB2_FB_TYPE_EGA_TEXT:
		if (fb.width == 0 || fb.height == 0 || fb.width > MB2_EGA_MAX_DIM || fb.height > MB2_EGA_MAX_DIM) {
			note(t, "EGA text console with impossible dimensions; ignored");
			return;
		}
		fb.kind = BOOT_FB_EGA_TEXT;
		break;
	case MB2_FB_TYPE_INDEXED:
		note(t, "indexed-colour (palette) framebuffer: not supported; no screen console");
		return;
	default:
		note(t, "framebuffer of an unknown type; no screen console");
		return;
	}
	t->bi->fb = fb;
}

static void tag_rsdp(const struct mb2_tag *t, uint8_t *dst, uint32_t *len)
{
	uint32_t n = t->size - MB2_TAG_HEADER;

	if (n < RSDP_V1_BYTES) {
		note(t, "ACPI RSDP copy shorter than 20 bytes; ignored");
		return;
	}
	if (n > BOOT_RSDP_MAX) {
		note(t, "ACPI RSDP copy longer than 64 bytes; the rest cut");
		n = BOOT_RSDP_MAX;
	}
	memcpy(dst, t->p + MB2_TAG_HEADER, n);
	*len = n;
}

static void tag_efi_systab(const struct mb2_tag *t)
{
	bool is64 = t->type == MB2_TAG_EFI64;
	uint64_t addr;

	if (t->size < MB2_TAG_HEADER + (is64 ? 8u : 4u)) {
		note(t, "EFI system table tag too short; ignored");
		return;
	}
	if (t->bi->efi_bits) {
		note(t, "second EFI system table tag; ignored");
		return;
	}
	addr = is64 ? le64(t->p + 8) : le32(t->p + 8);
	if (addr == 0) {
		note(t, "EFI system table pointer is 0; ignored");
		return;
	}
	t->bi->efi_systab = addr;
	t->bi->efi_bits = is64 ? 64 : 32;
}

static void parse_tag(const struct mb2_tag *t)
{
	struct boot_info *bi = t->bi;

	switch (t->type) {
	case MB2_TAG_CMDLINE:
		bi->cmdline_truncated = tag_string(t, bi->cmdline, sizeof(bi->cmdline), false);
		break;
	case MB2_TAG_LOADER_NAME:
		tag_string(t, bi->loader, sizeof(bi->loader), true);
		break;
	case MB2_TAG_BASIC_MEMINFO: tag_meminfo(t); break;
	case MB2_TAG_MMAP: tag_mmap(t); break;
	case MB2_TAG_FRAMEBUFFER: tag_framebuffer(t); break;
	case MB2_TAG_EFI32:
	case MB2_TAG_EFI64: tag_efi_systab(t); break;
	case MB2_TAG_ACPI_OLD: tag_rsdp(t, bi->rsdp_old, &bi->rsdp_old_len); break;
	case MB2_TAG_ACPI_NEW: tag_rsdp(t, bi->rsdp_new, &bi->rsdp_new_len); break;
	default: break;   /* EFI memory map: after the walk; the rest: not needed */
	}
}

int mb2_parse(const void *info, uint32_t avail, struct boot_info *bi)
{
	const uint8_t *b = info;
	struct mb2_tag t = { .bi = bi }, efi_map = { .bi = bi };
	uint32_t total, seen = 0;
	uint64_t off;
	bool ended = false, have_mmap = false;

	memset(bi, 0, sizeof(*bi));
	bi->protocol = BOOT_PROTOCOL_MULTIBOOT2;
	if (!b || avail < MB2_INFO_HEADER + MB2_TAG_HEADER) {
		boot_info_note(bi, 0, 0, "multiboot2 information shorter than its header and an end tag");
		return -EINVAL;
	}
	total = le32(b);
	if (total < MB2_INFO_HEADER + MB2_TAG_HEADER) {
		boot_info_note(bi, 0, 0, "multiboot2 total_size smaller than its header and an end tag");
		return -EINVAL;
	}
	if (total > avail) {
		boot_info_note(bi, 0, 0, "multiboot2 total_size larger than the kernel reads; tags read up to that");
		total = avail;
	}
	for (off = MB2_INFO_HEADER; off + MB2_TAG_HEADER <= total; off += (t.size + MB2_TAG_ALIGN - 1) & ~(MB2_TAG_ALIGN - 1)) {
		t.p = b + off;
		t.off = (uint32_t)off;
		t.type = le32(t.p);
		t.size = le32(t.p + 4);
		if (t.size < MB2_TAG_HEADER || t.size > total - off) {
			note(&t, "tag size below 8 or past total_size; this tag and the rest of the list ignored");
			break;
		}
		if (t.type == MB2_TAG_END) {
			if (t.size != MB2_TAG_HEADER)
				note(&t, "end tag with a size other than 8");
			ended = true;
			break;
		}
		if (t.type < 32 && (MB2_UNIQUE_TAGS & TYPE_BIT(t.type))) {
			if (seen & TYPE_BIT(t.type)) {
				note(&t, "second tag of this type; ignored");
				continue;
			}
			seen |= TYPE_BIT(t.type);
		}
		if (t.type == MB2_TAG_MMAP)
			have_mmap = true;
		if (t.type == MB2_TAG_EFI_MMAP)
			efi_map = t;
		parse_tag(&t);
	}
	if (!ended)
		boot_info_note(bi, 0, off > total ? total : (uint32_t)off, "no end tag: the list was read up to total_size");
	if (efi_map.p) {
		bi->efi_mmap_descs = efi_mmap_check(&efi_map);
		/* GRUB's multiboot map is made from the EFI one; use the EFI map only without it. */
		if (!have_mmap && bi->nr_regions == 0 && bi->efi_mmap_descs)
			efi_mmap_regions(&efi_map, bi->efi_mmap_descs);
	}
	if (bi->nr_regions == 0 && (seen & TYPE_BIT(MB2_TAG_BASIC_MEMINFO))) {
		/* No map: fall back to the two basic figures, as with multiboot 1. */
		boot_info_add_region(bi, 0, (uint64_t)bi->mem_lower_kib * 1024, BOOT_MEM_USABLE);
		boot_info_add_region(bi, 1024 * 1024, (uint64_t)bi->mem_upper_kib * 1024, BOOT_MEM_USABLE);
	}
	if (bi->nr_regions == 0) {
		boot_info_note(bi, 0, 0, "the loader gave neither a memory map nor memory sizes");
		return -EINVAL;
	}
	bi->valid = true;
	return 0;
}
