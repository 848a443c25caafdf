/*
 * bootinfo.c - what the two multiboot parsers share (multiboot.c for 0.6.96,
 * multiboot2.c for 2.0): the problem list and the memory map kept in
 * struct boot_info (include/kernel/bootinfo.h). Pure: no output, no
 * hardware, so the host tests and the fuzz target link it as it is.
 */
#include <kernel/bootinfo.h>

void boot_info_note(struct boot_info *bi, uint32_t tag, uint32_t offset, const char *what)
{
	if (bi->nr_problems < BOOT_MAX_PROBLEMS)
		bi->problems[bi->nr_problems] = (struct boot_problem){ tag, offset, what };
	if (bi->nr_problems < UINT32_MAX)
		bi->nr_problems++;
	if (!bi->problem)
		bi->problem = what;
}

void boot_info_add_region(struct boot_info *bi, uint64_t base, uint64_t len, uint32_t type)
{
	struct mem_region *last = bi->nr_regions ? &bi->regions[bi->nr_regions - 1] : 0;

	if (len > UINT64_MAX - base)
		len = UINT64_MAX - base;   /* a region past the end of the address space ends there */
	if (len == 0)
		return;
	/* Firmware lists neighbours of one type separately (EFI types that map to
	 * one multiboot type): one region is easier to read and to search. */
	if (last && last->type == type && last->base + last->len == base) {
		last->len += len;
	} else if (bi->nr_regions >= BOOT_MAX_REGIONS) {
		bi->regions_truncated = true;
		return;
	} else {
		bi->regions[bi->nr_regions++] = (struct mem_region){ base, len, type };
	}
	if (type == BOOT_MEM_USABLE)
		bi->usable_bytes += len;
}

const char *boot_info_mem_type_name(uint32_t type)
{
	switch (type) {
	case BOOT_MEM_USABLE: return "usable";
	case BOOT_MEM_ACPI: return "ACPI";
	case BOOT_MEM_NVS: return "ACPI NVS";
	case BOOT_MEM_BAD: return "bad";
	default: return "reserved";
	}
}

bool boot_info_in_map(const struct boot_info *bi, uint64_t addr, uint64_t len, bool any_type)
{
	if (len == 0 || len - 1 > UINT64_MAX - addr)
		return false;
	for (unsigned int i = 0; i < bi->nr_regions && i < BOOT_MAX_REGIONS; i++) {
		const struct mem_region *r = &bi->regions[i];

		if (!any_type && r->type != BOOT_MEM_USABLE)
			continue;
		/* As differences, so that nothing wraps. */
		if (addr >= r->base && len <= r->len && addr - r->base <= r->len - len)
			return true;
	}
	return false;
}
