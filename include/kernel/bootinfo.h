/*
 * What the boot loader told us, validated and copied (arch/x86/multiboot.c for
 * multiboot 0.6.96, arch/x86/multiboot2.c for multiboot2, arch/x86/bootinfo.c
 * for what both share). Nothing here points into the loader's memory: the
 * strings, the memory map and the ACPI RSDP copies are copied, addresses
 * (EFI system table, framebuffer) are kept as numbers to be checked by whoever
 * uses them.
 */
#ifndef KERNEL_BOOTINFO_H
#define KERNEL_BOOTINFO_H

#include <stdint.h>
#include <stdbool.h>

/* Limits of what is kept; each says what happens past it. */
enum boot_info_limits {
	BOOT_MAX_REGIONS = 128,      /* memory map regions kept (adjacent ones of one type merged); more: truncated, reported */
	BOOT_CMDLINE_MAX = 1024,     /* bytes of command line kept (longer ones are cut and reported) */
	BOOT_LOADER_NAME_MAX = 64,   /* bytes of the loader's name kept (cut silently) */
	BOOT_RSDP_MAX = 64,          /* bytes of an RSDP copy kept: ACPI 6.5's is 36; a longer tag is cut and reported */
	BOOT_MAX_PROBLEMS = 8,       /* problems kept with their details; the rest are counted */
};

/* Memory map types (multiboot and E820 numbering). */
enum boot_mem_type {
	BOOT_MEM_USABLE = 1,         /* RAM free for the kernel */
	BOOT_MEM_RESERVED = 2,       /* anything else the firmware keeps */
	BOOT_MEM_ACPI = 3,           /* ACPI tables, reclaimable after reading them */
	BOOT_MEM_NVS = 4,            /* ACPI non-volatile storage */
	BOOT_MEM_BAD = 5,            /* defective RAM */
};

struct mem_region {
	uint64_t base;
	uint64_t len;
	uint32_t type;    /* enum boot_mem_type; an unknown type counts as reserved */
};

/* The framebuffer the loader set up (multiboot2 tag 8), checked for sense, not yet mapped. */
enum boot_fb_kind {
	BOOT_FB_NONE = 0,            /* no usable framebuffer tag */
	BOOT_FB_RGB = 1,             /* direct colour pixels */
	BOOT_FB_EGA_TEXT = 2,        /* VGA text mode: width x height character cells at addr */
};

struct boot_fb {
	uint8_t kind;                /* enum boot_fb_kind */
	uint8_t bpp;                 /* bits per pixel: 15, 16, 24 or 32 (RGB) */
	uint8_t red_pos, red_size, green_pos, green_size, blue_pos, blue_size;
	uint64_t addr;               /* physical address of the first pixel */
	uint32_t pitch;              /* bytes from one line to the next */
	uint32_t width, height;      /* pixels (RGB) or characters (EGA text) */
};

/* Where boot_info came from. */
enum boot_protocol {
	BOOT_PROTOCOL_NONE = 0,
	BOOT_PROTOCOL_MULTIBOOT1 = 1,
	BOOT_PROTOCOL_MULTIBOOT2 = 2,
};

/* One thing wrong with what the loader gave; the rest of its information is still used. */
struct boot_problem {
	uint32_t tag;                /* multiboot2 tag type, or 0 */
	uint32_t offset;             /* byte offset of the tag (or field) in the information structure */
	const char *what;            /* static text: what is wrong and what was done about it */
};

struct boot_info {
	bool valid;                      /* magic and structure checked */
	uint8_t protocol;                /* enum boot_protocol */
	char cmdline[BOOT_CMDLINE_MAX];
	bool cmdline_truncated;
	char loader[BOOT_LOADER_NAME_MAX];
	uint32_t mem_lower_kib, mem_upper_kib;
	struct mem_region regions[BOOT_MAX_REGIONS];
	unsigned int nr_regions;
	bool regions_truncated;
	bool regions_from_efi;           /* the map came from the EFI memory map tag alone */
	uint32_t efi_mmap_descs;         /* descriptors in the EFI memory map tag (0: none) */
	uint64_t usable_bytes;           /* sum of usable RAM */
	/* ACPI RSDP copies (multiboot2 tags 15 and 14); lengths 0 = no tag. Not yet checksummed. */
	uint8_t rsdp_new[BOOT_RSDP_MAX];
	uint32_t rsdp_new_len;
	uint8_t rsdp_old[BOOT_RSDP_MAX];
	uint32_t rsdp_old_len;
	/* EFI system table (multiboot2 tag 12 or 11): physical address, 64 or 32 (0: none). */
	uint64_t efi_systab;
	uint8_t efi_bits;
	struct boot_fb fb;
	const char *problem;             /* the first problem found, or NULL */
	struct boot_problem problems[BOOT_MAX_PROBLEMS];
	unsigned int nr_problems;        /* all problems found, also those not kept */
};

extern struct boot_info boot_info;

/*
 * multiboot_parse - validate the loader's hand-over (multiboot 1 or 2, told by
 * @magic) and fill boot_info. CONTEXT: boot, paging off (the information is
 * read at its physical address). RETURNS 0 or -EINVAL (boot_info.problem says
 * why).
 */
int multiboot_parse(uint32_t magic, uint32_t info_phys);
void boot_info_print(void);

/*
 * mb2_parse - the pure multiboot2 parser (arch/x86/multiboot2.c): read the
 * information structure at @info, of which @avail bytes may be read, into
 * @bi (cleared first). Bad, truncated or repeated tags are recorded in
 * bi->problems and skipped. CONTEXT: any; no allocation, no output.
 * RETURNS 0 (bi->valid); -EINVAL if the structure's own header is bad or
 * neither a memory map nor memory sizes came.
 */
int mb2_parse(const void *info, uint32_t avail, struct boot_info *bi);

/* Helpers both parsers share (arch/x86/bootinfo.c; pure). */
/* boot_info_note - record a problem (the first one also in bi->problem). */
void boot_info_note(struct boot_info *bi, uint32_t tag, uint32_t offset, const char *what);
/* boot_info_add_region - add a map entry; merged with the previous one when adjacent and of one type. */
void boot_info_add_region(struct boot_info *bi, uint64_t base, uint64_t len, uint32_t type);
/* boot_info_mem_type_name - "usable", "reserved", "ACPI", "ACPI NVS", "bad". */
const char *boot_info_mem_type_name(uint32_t type);
/*
 * boot_info_in_map - [@addr, @addr + @len) lies inside one region of the map
 * (of any type when @any_type, else usable RAM only). RETURNS true or false;
 * false for an empty or wrapping range.
 */
bool boot_info_in_map(const struct boot_info *bi, uint64_t addr, uint64_t len, bool any_type);

#endif
