/* What the boot loader told us, validated and copied (arch/x86/multiboot.c). */
#ifndef KERNEL_BOOTINFO_H
#define KERNEL_BOOTINFO_H

#include <stdint.h>
#include <stdbool.h>

#define BOOT_MAX_REGIONS   32     /* RAM regions kept from the memory map */
#define BOOT_CMDLINE_MAX   1024   /* bytes of command line kept (longer ones are cut and reported) */
#define BOOT_LOADER_NAME_MAX 64

struct mem_region {
	uint64_t base;
	uint64_t len;
	uint32_t type;    /* 1 = usable RAM (multiboot/E820 types) */
};

struct boot_info {
	bool valid;                      /* magic and structure checked */
	char cmdline[BOOT_CMDLINE_MAX];
	bool cmdline_truncated;
	char loader[BOOT_LOADER_NAME_MAX];
	uint32_t mem_lower_kib, mem_upper_kib;
	struct mem_region regions[BOOT_MAX_REGIONS];
	unsigned int nr_regions;
	bool regions_truncated;
	uint64_t usable_bytes;           /* sum of usable RAM */
	const char *problem;             /* first problem found, or NULL */
};

extern struct boot_info boot_info;

/* multiboot_parse - validate the loader's hand-over and fill boot_info. RETURNS 0 or -EINVAL. */
int multiboot_parse(uint32_t magic, uint32_t info_phys);
void boot_info_print(void);

#endif
