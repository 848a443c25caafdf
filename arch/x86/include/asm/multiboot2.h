/*
 * Multiboot2 specification 2.0 (GNU GRUB's "multiboot2" command; GRUB 2.06
 * on BIOS and on UEFI, x86_64-efi and i386-efi): the header the kernel
 * carries (section 3.1) and the boot information tags the loader hands over
 * in EBX (section 3.6). Everything the loader writes is untrusted:
 * arch/x86/multiboot2.c checks every size before it reads a field.
 * See also asm/multiboot.h (multiboot 0.6.96, which the kernel speaks too).
 */
#ifndef ASM_MULTIBOOT2_H
#define ASM_MULTIBOOT2_H

#define MB2_HEADER_MAGIC      0xE85250D6  /* in the kernel image, 8-byte aligned, first 32 KiB */
#define MB2_BOOTLOADER_MAGIC  0x36D76289  /* in EAX at entry */
#define MB2_ARCH_I386         0           /* 32-bit protected mode entry */
#define MB2_SEARCH_BYTES      32768       /* the header must lie in this many first bytes */

/* Header tags (spec 3.1.3-3.1.13): what the kernel asks of the loader. */
#define MB2_HTAG_END          0
#define MB2_HTAG_INFO_REQUEST 1    /* a list of information tag types wanted */
#define MB2_HTAG_FRAMEBUFFER  5    /* a linear framebuffer of this width, height, depth (0 = any) */
#define MB2_HTAG_OPTIONAL     1    /* header tag flag: boot anyway if the loader cannot honour it */

/* Information tags (spec 3.6): type numbers. */
#define MB2_TAG_END           0
#define MB2_TAG_CMDLINE       1    /* NUL-terminated command line */
#define MB2_TAG_LOADER_NAME   2    /* NUL-terminated name of the boot loader */
#define MB2_TAG_MODULE        3
#define MB2_TAG_BASIC_MEMINFO 4    /* KiB below 1 MiB and above 1 MiB */
#define MB2_TAG_BOOTDEV       5
#define MB2_TAG_MMAP          6    /* the memory map (E820 types) */
#define MB2_TAG_VBE           7
#define MB2_TAG_FRAMEBUFFER   8    /* the framebuffer the loader set up */
#define MB2_TAG_ELF_SECTIONS  9
#define MB2_TAG_APM           10
#define MB2_TAG_EFI32         11   /* 32-bit EFI system table pointer */
#define MB2_TAG_EFI64         12   /* 64-bit EFI system table pointer */
#define MB2_TAG_SMBIOS        13
#define MB2_TAG_ACPI_OLD      14   /* a copy of the ACPI 1.0 RSDP */
#define MB2_TAG_ACPI_NEW      15   /* a copy of the ACPI 2.0+ RSDP */
#define MB2_TAG_NETWORK       16
#define MB2_TAG_EFI_MMAP      17   /* the UEFI memory map (EFI_MEMORY_DESCRIPTORs) */
#define MB2_TAG_EFI_BS        18   /* boot services were not terminated */
#define MB2_TAG_EFI32_IH      19
#define MB2_TAG_EFI64_IH      20
#define MB2_TAG_LOAD_BASE     21

/* Layout of the information structure (all little-endian, tags 8-byte aligned). */
#define MB2_INFO_HEADER       8    /* u32 total_size, u32 reserved */
#define MB2_TAG_HEADER        8    /* u32 type, u32 size (size counts the header, not the padding) */
#define MB2_TAG_ALIGN         8

/* Framebuffer tag (type 8): offsets from the tag's start. */
#define MB2_FB_ADDR           8    /* u64 physical address */
#define MB2_FB_PITCH          16   /* u32 bytes per line */
#define MB2_FB_WIDTH          20   /* u32 pixels (or characters for EGA text) */
#define MB2_FB_HEIGHT         24   /* u32 lines (or character rows) */
#define MB2_FB_BPP            28   /* u8 bits per pixel */
#define MB2_FB_TYPE           29   /* u8: 0 indexed, 1 direct RGB, 2 EGA text */
#define MB2_FB_COMMON_LEN     32   /* with the u16 reserved field */
#define MB2_FB_RGB_FIELDS     32   /* type 1: red pos, red size, green pos, green size, blue pos, blue size */
#define MB2_FB_RGB_LEN        38
#define MB2_FB_TYPE_INDEXED   0
#define MB2_FB_TYPE_RGB       1
#define MB2_FB_TYPE_EGA_TEXT  2

/* Memory map tag (type 6): u32 entry_size, u32 entry_version, then entries. */
#define MB2_MMAP_ENTRIES      16
#define MB2_MMAP_ENTRY_MIN    24   /* u64 base, u64 length, u32 type, u32 reserved */

/* EFI memory map tag (type 17): u32 descriptor size, u32 descriptor version, then descriptors. */
#define MB2_EFI_MMAP_DESCS    16
#define EFI_MEMDESC_MIN       40   /* u32 type, pad, u64 physical start, u64 virtual, u64 pages, u64 attributes */
#define EFI_MEMDESC_TYPE      0
#define EFI_MEMDESC_PHYS      8
#define EFI_MEMDESC_PAGES     24
#define EFI_PAGE_SIZE         4096

#endif
