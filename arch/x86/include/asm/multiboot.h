/*
 * Multiboot specification 0.6.96 (the "multiboot 1" protocol spoken by GRUB 2
 * and by QEMU's -kernel loader): the header the kernel carries and the
 * information structure the loader hands over in EBX.
 */
#ifndef ASM_MULTIBOOT_H
#define ASM_MULTIBOOT_H

#define MULTIBOOT_HEADER_MAGIC     0x1BADB002u  /* in the kernel image */
#define MULTIBOOT_BOOTLOADER_MAGIC 0x2BADB002u  /* in EAX at entry */

/* Header flags: what we ask the loader for. */
#define MULTIBOOT_PAGE_ALIGN   (1u << 0)  /* load modules on 4 KiB boundaries */
#define MULTIBOOT_MEMORY_INFO  (1u << 1)  /* fill mem_lower/upper and the memory map */

/* Info flags: which fields of struct multiboot_info are valid. */
#define MBI_FLAG_MEM      (1u << 0)   /* mem_lower, mem_upper */
#define MBI_FLAG_CMDLINE  (1u << 2)   /* cmdline */
#define MBI_FLAG_MMAP     (1u << 6)   /* mmap_length, mmap_addr */
#define MBI_FLAG_LOADER   (1u << 9)   /* boot_loader_name */

#ifndef __ASSEMBLY__
#include <stdint.h>

struct multiboot_info {
	uint32_t flags;
	uint32_t mem_lower;          /* KiB of memory below 1 MiB */
	uint32_t mem_upper;          /* KiB of memory above 1 MiB (up to the first hole) */
	uint32_t boot_device;
	uint32_t cmdline;            /* physical address of a NUL-terminated string */
	uint32_t mods_count;
	uint32_t mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length;        /* bytes of memory map */
	uint32_t mmap_addr;          /* physical address of the first entry */
	uint32_t drives_length;
	uint32_t drives_addr;
	uint32_t config_table;
	uint32_t boot_loader_name;   /* physical address of a NUL-terminated string */
} __attribute__((packed));

/* One memory map entry; `size` does not count itself. */
struct multiboot_mmap_entry {
	uint32_t size;
	uint64_t addr;
	uint64_t len;
	uint32_t type;
} __attribute__((packed));

#define MULTIBOOT_MEMORY_AVAILABLE 1u  /* usable RAM; every other type is reserved */
#endif

#endif
