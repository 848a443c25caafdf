/*
 * mmio_window.c - the pure parts of mapping device memory (asm/mmio_window.h):
 * which pages of the identity map hold RAM (and stay cached), where the
 * window for device memory that cannot be identity-mapped goes, and its slot
 * allocator. paging.c turns the answers into page table entries.
 */
#include <asm/mmio_window.h>
#include <kernel/errno.h>

bool mmio_overlaps_ram(const struct boot_info *bi, uint64_t base, uint64_t len)
{
	uint64_t end = len > UINT64_MAX - base ? UINT64_MAX : base + len;

	for (unsigned int i = 0; i < bi->nr_regions && i < BOOT_MAX_REGIONS; i++) {
		const struct mem_region *r = &bi->regions[i];

		if (r->type == BOOT_MEM_USABLE && r->base < end && base < r->base + r->len)
			return true;
	}
	return false;
}

/* The end of the first thing in [@base, @base + @size) the window must not cover, or 0. */
static uint64_t first_obstacle_end(const struct boot_info *bi, uint64_t base, uint64_t size)
{
	uint64_t end = base + size;

	for (unsigned int i = 0; i < bi->nr_regions && i < BOOT_MAX_REGIONS; i++) {
		const struct mem_region *r = &bi->regions[i];

		if (r->base < end && base < r->base + r->len)
			return r->base + r->len;
	}
	if (bi->fb.kind != BOOT_FB_NONE) {
		uint64_t fb_len = (uint64_t)bi->fb.pitch * bi->fb.height;

		if (bi->fb.addr < end && base < bi->fb.addr + fb_len)
			return bi->fb.addr + fb_len;
	}
	return 0;
}

uint64_t mmio_window_pick(const struct boot_info *bi, uint64_t size, uint64_t align, uint64_t floor,
                          uint64_t ceiling)
{
	uint64_t base;

	if (size == 0 || align == 0 || (align & (align - 1)))
		return 0;
	base = (floor + align - 1) & ~(align - 1);
	/* Each step passes one obstacle; a map has at most BOOT_MAX_REGIONS of them and a framebuffer. */
	for (unsigned int steps = 0; steps <= BOOT_MAX_REGIONS + 1 && base >= floor && base <= ceiling &&
	     size <= ceiling - base; steps++) {
		uint64_t past = first_obstacle_end(bi, base, size);

		if (past == 0)
			return base;
		if (past > UINT64_MAX - align)
			return 0;
		base = (past + align - 1) & ~(align - 1);
	}
	return 0;
}

int mmio_window_alloc(struct mmio_window *w, uint64_t phys, uint64_t len, uint32_t *virt,
                      unsigned int *first, unsigned int *count)
{
	uint64_t page, last;
	unsigned int n, i, j, slots = w->slots < MMIO_WINDOW_MAX_SLOTS ? w->slots : MMIO_WINDOW_MAX_SLOTS;

	if (!w->virt || !w->large || len == 0 || len - 1 > UINT64_MAX - phys)
		return -EINVAL;
	page = phys & ~(uint64_t)(w->large - 1);
	last = (phys + len - 1) & ~(uint64_t)(w->large - 1);
	if ((last - page) / w->large >= slots)
		return -ENOSPC;
	n = (unsigned int)((last - page) / w->large) + 1;
	for (i = 0; i + n <= slots; i++) {          /* already mapped? */
		for (j = 0; j < n && w->used[i + j] && w->phys[i + j] == page + (uint64_t)j * w->large; j++)
			;
		if (j == n) {
			*virt = w->virt + i * w->large + (uint32_t)(phys - page);
			*first = i;
			*count = 0;
			return 0;
		}
	}
	for (i = 0; i + n <= slots; i++) {          /* a free run */
		for (j = 0; j < n && !w->used[i + j]; j++)
			;
		if (j < n)
			continue;
		for (j = 0; j < n; j++) {
			w->used[i + j] = true;
			w->phys[i + j] = page + (uint64_t)j * w->large;
		}
		*virt = w->virt + i * w->large + (uint32_t)(phys - page);
		*first = i;
		*count = n;
		return 0;
	}
	return -ENOSPC;
}
