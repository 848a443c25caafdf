/*
 * multiboot.c - reading the multiboot 0.6.96 information structure. The
 * loader's structure is untrusted: we check the magic, honour only the
 * flag bits that are set, bound the command line and every memory map
 * walk, and copy what we keep into boot_info before paging unmaps page 0
 * (where loaders may have placed it).
 */
#include <stdint.h>
#include <stddef.h>
#include <asm/multiboot.h>
#include <kernel/bootinfo.h>
#include <kernel/printk.h>
#include <kernel/errno.h>
#include <kernel/string.h>

#define MMAP_ENTRY_MIN 20u         /* bytes of an entry after its size field */
#define MMAP_MAX_BYTES (64 * 1024u) /* a memory map longer than this is nonsense */
#define MIB (1024u * 1024u)

struct boot_info boot_info;

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

static void add_region(uint64_t base, uint64_t len, uint32_t type)
{
	if (boot_info.nr_regions >= BOOT_MAX_REGIONS) {
		boot_info.regions_truncated = true;
		return;
	}
	boot_info.regions[boot_info.nr_regions++] = (struct mem_region){ base, len, type };
	if (type == MULTIBOOT_MEMORY_AVAILABLE)
		boot_info.usable_bytes += len;
}

static void parse_mmap(const struct multiboot_info *mbi)
{
	uint32_t off = 0, len = mbi->mmap_length;

	if (len > MMAP_MAX_BYTES) {
		boot_info.problem = "memory map length is absurd; using only the first 64 KiB";
		len = MMAP_MAX_BYTES;
	}
	while (off + 4 + MMAP_ENTRY_MIN <= len) {
		const struct multiboot_mmap_entry *e =
			(const struct multiboot_mmap_entry *)(uintptr_t)(mbi->mmap_addr + off);
		if (e->size < MMAP_ENTRY_MIN || e->size > len) {
			boot_info.problem = "memory map entry with a bad size; rest of the map ignored";
			break;
		}
		if (e->len)
			add_region(e->addr, e->len, e->type);
		off += e->size + 4;
	}
}

int multiboot_parse(uint32_t magic, uint32_t info_phys)
{
	const struct multiboot_info *mbi = (const struct multiboot_info *)(uintptr_t)info_phys;

	memset(&boot_info, 0, sizeof(boot_info));
	if (magic != MULTIBOOT_BOOTLOADER_MAGIC) {
		boot_info.problem = "not started by a multiboot loader (bad magic in EAX)";
		return -EINVAL;
	}
	if (info_phys == 0) {
		boot_info.problem = "multiboot information pointer is NULL";
		return -EINVAL;
	}
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
		add_region(0, (uint64_t)boot_info.mem_lower_kib * 1024, MULTIBOOT_MEMORY_AVAILABLE);
		add_region(MIB, (uint64_t)boot_info.mem_upper_kib * 1024, MULTIBOOT_MEMORY_AVAILABLE);
	}
	if (boot_info.nr_regions == 0) {
		boot_info.problem = "the loader gave neither a memory map nor memory sizes";
		return -EINVAL;
	}
	boot_info.valid = true;
	return 0;
}

void boot_info_print(void)
{
	pr_info("boot: loaded by %s, %u MiB usable RAM in %u regions%s\n",
		boot_info.loader[0] ? boot_info.loader : "an unnamed multiboot loader",
		(unsigned int)(boot_info.usable_bytes / MIB), boot_info.nr_regions,
		boot_info.regions_truncated ? " (memory map truncated)" : "");
	for (unsigned int i = 0; i < boot_info.nr_regions; i++) {
		const struct mem_region *r = &boot_info.regions[i];
		pr_info("boot:   [mem %#010llx-%#010llx] %s\n", (unsigned long long)r->base,
			(unsigned long long)(r->base + r->len - 1),
			r->type == MULTIBOOT_MEMORY_AVAILABLE ? "usable" : "reserved");
	}
	if (boot_info.problem)
		pr_warn("boot: %s\n", boot_info.problem);
	if (boot_info.cmdline_truncated)
		pr_warn("boot: command line longer than %u bytes; the rest is ignored\n", BOOT_CMDLINE_MAX - 1);
}
