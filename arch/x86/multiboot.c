/*
 * multiboot.c - what the boot loader hands over, read once at entry: the
 * magic in EAX says which protocol. Multiboot 0.6.96 (QEMU's -kernel, GRUB's
 * `multiboot`) is read here: we check the magic, honour only the flag bits
 * that are set, bound the command line and every memory map walk. Multiboot2
 * (GRUB's `multiboot2`, on BIOS and UEFI) is read by the pure parser in
 * multiboot2.c after its size is bounded here. Either way what we keep is
 * copied into boot_info before paging unmaps page 0 and the heap takes the
 * RAM where loaders put their structures.
 */
#include <stdint.h>
#include <stddef.h>
#include <asm/multiboot.h>
#include <asm/multiboot2.h>
#include <kernel/bootinfo.h>
#include <kernel/printk.h>
#include <kernel/errno.h>
#include <kernel/string.h>

#define MMAP_ENTRY_MIN 20u         /* bytes of an entry after its size field */
#define MMAP_MAX_BYTES (64 * 1024u) /* a memory map longer than this is nonsense */
#define MIB (1024u * 1024u)
#define MB2_INFO_MAX (1024 * 1024u)  /* multiboot2 bytes read at most: GRUB's are a few KiB, a PC's EFI map ~10 KiB */

struct boot_info boot_info;
static uint32_t mb2_info_phys, mb2_info_total;   /* where the multiboot2 information was, for the log */

static size_t copy_string(char *dst, size_t cap, uint32_t src_phys, bool *truncated)
{
	const char *src = (const char *)(uintptr_t)src_phys;
	size_t n = 0;

	while (n + 1 < cap && src[n])
		n++;
	memcpy(dst, src, n);
	dst[n] = 0;
	if (truncated)
		*truncated = src[n] != 0;
	return n;
}

static void parse_mmap(const struct multiboot_info *mbi)
{
	uint32_t off = 0, len = mbi->mmap_length;

	if (len > MMAP_MAX_BYTES) {
		boot_info_note(&boot_info, 0, 0, "memory map length is absurd; using only the first 64 KiB");
		len = MMAP_MAX_BYTES;
	}
	while (off + 4 + MMAP_ENTRY_MIN <= len) {
		const struct multiboot_mmap_entry *e =
			(const struct multiboot_mmap_entry *)(uintptr_t)(mbi->mmap_addr + off);
		if (e->size < MMAP_ENTRY_MIN || e->size > len) {
			boot_info_note(&boot_info, 0, off, "memory map entry with a bad size; rest of the map ignored");
			break;
		}
		boot_info_add_region(&boot_info, e->addr, e->len, e->type);
		off += e->size + 4;
	}
}

static int multiboot1_parse(uint32_t info_phys)
{
	const struct multiboot_info *mbi = (const struct multiboot_info *)(uintptr_t)info_phys;

	boot_info.protocol = BOOT_PROTOCOL_MULTIBOOT1;
	if (mbi->flags & MBI_FLAG_CMDLINE && mbi->cmdline)
		copy_string(boot_info.cmdline, sizeof(boot_info.cmdline), mbi->cmdline,
			    &boot_info.cmdline_truncated);
	if (mbi->flags & MBI_FLAG_LOADER && mbi->boot_loader_name)
		copy_string(boot_info.loader, sizeof(boot_info.loader), mbi->boot_loader_name, NULL);
	if (mbi->flags & MBI_FLAG_MEM) {
		boot_info.mem_lower_kib = mbi->mem_lower;
		boot_info.mem_upper_kib = mbi->mem_upper;
	}
	if (mbi->flags & MBI_FLAG_MMAP && mbi->mmap_addr)
		parse_mmap(mbi);
	if (boot_info.nr_regions == 0 && (mbi->flags & MBI_FLAG_MEM)) {
		/* No map: fall back to the two basic figures. */
		boot_info_add_region(&boot_info, 0, (uint64_t)boot_info.mem_lower_kib * 1024, BOOT_MEM_USABLE);
		boot_info_add_region(&boot_info, MIB, (uint64_t)boot_info.mem_upper_kib * 1024, BOOT_MEM_USABLE);
	}
	if (boot_info.nr_regions == 0) {
		boot_info_note(&boot_info, 0, 0, "the loader gave neither a memory map nor memory sizes");
		return -EINVAL;
	}
	boot_info.valid = true;
	return 0;
}

/*
 * The multiboot2 structure is read in place at its physical address (paging
 * is off); mb2_parse reads no further than its total_size, which is bounded
 * here first, and copies what it keeps.
 */
static int multiboot2_parse(uint32_t info_phys)
{
	uint32_t total, avail;

	if (info_phys == 0 || (info_phys & (MB2_TAG_ALIGN - 1))) {
		boot_info.protocol = BOOT_PROTOCOL_MULTIBOOT2;
		boot_info_note(&boot_info, 0, 0, "multiboot2 information pointer is NULL or not 8-byte aligned");
		return -EINVAL;
	}
	mb2_info_phys = info_phys;
	total = *(const volatile uint32_t *)(uintptr_t)info_phys;
	avail = total < MB2_INFO_MAX ? total : MB2_INFO_MAX;
	if (avail > UINT32_MAX - info_phys)
		avail = UINT32_MAX - info_phys;   /* the structure cannot run past 4 GiB */
	mb2_info_total = total;
	return mb2_parse((const void *)(uintptr_t)info_phys, avail, &boot_info);
}

int multiboot_parse(uint32_t magic, uint32_t info_phys)
{
	memset(&boot_info, 0, sizeof(boot_info));
	if (magic == MB2_BOOTLOADER_MAGIC)
		return multiboot2_parse(info_phys);
	if (magic != MULTIBOOT_BOOTLOADER_MAGIC) {
		boot_info_note(&boot_info, 0, 0, "not started by a multiboot loader (bad magic in EAX)");
		return -EINVAL;
	}
	if (info_phys == 0) {
		boot_info_note(&boot_info, 0, 0, "multiboot information pointer is NULL");
		return -EINVAL;
	}
	return multiboot1_parse(info_phys);
}

static void print_fb(void)
{
	const struct boot_fb *fb = &boot_info.fb;

	if (fb->kind == BOOT_FB_RGB)
		pr_info("boot: framebuffer %ux%u, %u bits per pixel (red %u@%u, green %u@%u, blue %u@%u), pitch %u, at %#llx\n",
			fb->width, fb->height, fb->bpp, fb->red_size, fb->red_pos, fb->green_size, fb->green_pos,
			fb->blue_size, fb->blue_pos, fb->pitch, (unsigned long long)fb->addr);
	else if (fb->kind == BOOT_FB_EGA_TEXT)
		pr_info("boot: VGA text mode %ux%u at %#llx\n", fb->width, fb->height, (unsigned long long)fb->addr);
	else if (boot_info.protocol == BOOT_PROTOCOL_MULTIBOOT2)
		pr_info("boot: no framebuffer from the loader\n");
}

static void print_multiboot2(void)
{
	pr_info("boot: multiboot2 information at %#x, %u bytes\n", mb2_info_phys, mb2_info_total);
	if (boot_info.efi_mmap_descs)
		pr_info("boot: EFI memory map: %u descriptors%s\n", boot_info.efi_mmap_descs,
			boot_info.regions_from_efi ? " (used as the memory map)" : "");
	if (boot_info.rsdp_new_len || boot_info.rsdp_old_len)
		pr_info("boot: ACPI RSDP copies from the loader:%s%s\n",
			boot_info.rsdp_new_len ? " ACPI 2.0+ (new)" : "", boot_info.rsdp_old_len ? " ACPI 1.0 (old)" : "");
	if (boot_info.efi_bits)
		pr_info("boot: EFI %u-bit system table at %#llx\n", boot_info.efi_bits,
			(unsigned long long)boot_info.efi_systab);
}

void boot_info_print(void)
{
	bool mb2 = boot_info.protocol == BOOT_PROTOCOL_MULTIBOOT2;
	unsigned int kept = boot_info.nr_problems < BOOT_MAX_PROBLEMS ? boot_info.nr_problems : BOOT_MAX_PROBLEMS;

	pr_info("boot: loaded by %s (%s), %u MiB usable RAM in %u regions%s\n",
		boot_info.loader[0] ? boot_info.loader : "an unnamed multiboot loader",
		mb2 ? "multiboot2" : "multiboot",
		(unsigned int)(boot_info.usable_bytes / MIB), boot_info.nr_regions,
		boot_info.regions_truncated ? " (memory map truncated)" : "");
	for (unsigned int i = 0; i < boot_info.nr_regions; i++) {
		const struct mem_region *r = &boot_info.regions[i];
		pr_info("boot:   [mem %#010llx-%#010llx] %s\n", (unsigned long long)r->base,
			(unsigned long long)(r->base + r->len - 1), boot_info_mem_type_name(r->type));
	}
	if (mb2)
		print_multiboot2();
	print_fb();
	for (unsigned int i = 0; i < kept; i++) {
		const struct boot_problem *p = &boot_info.problems[i];

		if (p->tag)
			pr_warn("boot: tag %u at +%u: %s\n", p->tag, p->offset, p->what);
		else
			pr_warn("boot: %s\n", p->what);
	}
	if (boot_info.nr_problems > kept)
		pr_warn("boot: %u more problems with the loader's information not kept\n", boot_info.nr_problems - kept);
	if (boot_info.cmdline_truncated)
		pr_warn("boot: command line longer than %u bytes; the rest is ignored\n", BOOT_CMDLINE_MAX - 1);
}
