/*
 * The pure parts of irqkit's device memory mapping (arch/x86/mmio_window.c,
 * used by arch/x86/paging.c): which identity-mapped pages stay cached, where
 * the window for device memory mapped away from identity goes, and how its
 * slots are handed out. No page tables here, so the host tests
 * (tests/unit/test_mmio_window.c) run them on any memory map.
 */
#ifndef ASM_MMIO_WINDOW_H
#define ASM_MMIO_WINDOW_H

#include <stdbool.h>
#include <stdint.h>
#include <kernel/bootinfo.h>

enum mmio_window_limits {
	MMIO_WINDOW_MAX_SLOTS = 32,   /* large pages the window can hold: 64 MiB of 2 MiB pages */
};

/*
 * The window: MMIO_WINDOW_MAX_SLOTS (or fewer) large pages of virtual space
 * from @virt, each mapping one large page of physical device memory anywhere
 * in the CPU's physical address space.
 */
struct mmio_window {
	uint32_t virt;                          /* first virtual address; 0: no window */
	uint32_t large;                         /* bytes per slot (the large page: 2 or 4 MiB) */
	unsigned int slots;                     /* slots in use for the window (<= MMIO_WINDOW_MAX_SLOTS) */
	uint64_t phys[MMIO_WINDOW_MAX_SLOTS];   /* physical large page a used slot maps */
	bool used[MMIO_WINDOW_MAX_SLOTS];
};

/*
 * mmio_overlaps_ram - [@base, @base + @len) shares a byte with a region the
 * memory map in @bi calls usable RAM. CONTEXT: any (pure). RETURNS true/false.
 */
bool mmio_overlaps_ram(const struct boot_info *bi, uint64_t base, uint64_t len);

/*
 * mmio_window_pick - the lowest @align-aligned range of @size bytes in
 * [@floor, @ceiling) that no memory map region (of any type) and not the
 * loader's framebuffer touches: physical addresses nothing is known to
 * decode there, so their identity mapping can give way to the window.
 * CONTEXT: any (pure). RETURNS its start, or 0 if there is none.
 */
uint64_t mmio_window_pick(const struct boot_info *bi, uint64_t size, uint64_t align, uint64_t floor,
                          uint64_t ceiling);

/*
 * mmio_window_alloc - slots for [@phys, @phys + @len) in @w: a run that
 * already maps exactly these large pages is reused (an MSI-X table inside a
 * mapped BAR), otherwise the first run of free slots is taken.
 * CONTEXT: any; the caller serialises calls on @w (paging.c's lock).
 * RETURNS 0 with *@virt = the address of @phys, and *@first, *@count = the
 * slots the caller must now point at their pages (*@count 0 when reused);
 * -EINVAL (empty or wrapping range, no window); -ENOSPC (no free run).
 */
int mmio_window_alloc(struct mmio_window *w, uint64_t phys, uint64_t len, uint32_t *virt,
                      unsigned int *first, unsigned int *count);

#endif
