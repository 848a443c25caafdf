/*
 * The kernel's address space (arch/x86/paging.c): 4 GiB identity-mapped,
 * uncached outside RAM, and device memory for drivers through mmio_map().
 */
#ifndef ASM_PAGING_H
#define ASM_PAGING_H

#define PAGE_SIZE 4096u
/* From here to 4 GiB the identity map is always uncached (PCI, APIC, HPET MMIO), RAM or not;
 * kernel RAM that devices reach by DMA lies below it. */
#define PAGING_UNCACHED_START 0xC0000000u

#ifndef __ASSEMBLY__
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * paging_init - build the identity map (PAE when the CPU has it and `nopae`
 * is not given, else 32-bit paging with 4 MiB pages), choose the MMIO window
 * from the memory map, turn paging on. Page 0 and the boot stack's guard
 * page stay unmapped. CONTEXT: boot, once, after multiboot_parse() and
 * params_parse(), before any other CPU starts (they copy CR3 and CR4).
 */
void paging_init(void);

/*
 * paging_unmap_guard - unmap the 4 KiB page at @addr (a stack's guard page),
 * which must lie in the first 4 MiB (the part mapped with 4 KiB pages).
 * CONTEXT: boot, before any other CPU uses the page tables' cached copy of
 * it (an AP loads CR3 after; this CPU's TLB entry is flushed here).
 * RETURNS 0; -EINVAL (not page-aligned or not in the first 4 MiB).
 */
int paging_unmap_guard(uint32_t addr);

/* paging_pae - paging_init chose PAE (64-bit entries). */
bool paging_pae(void);

/* paging_param_nopae - the `nopae` boot parameter: 32-bit paging even on a CPU with PAE. */
int paging_param_nopae(const char *v, void *arg);

/*
 * mmio_map - a kernel address for [@phys, @phys + @len) of device memory
 * (a BAR, an MSI-X table, the framebuffer), mapped uncached: the identity
 * address below 4 GiB, else (PAE) a place in the MMIO window, shared by
 * every caller that maps the same pages. There is no unmap: drivers keep
 * their BARs. CONTEXT: thread or boot, after paging_init; takes a spinlock.
 * RETURNS 0 and *@virt; -EINVAL (empty or wrapping range); -EFAULT (below
 * 4 GiB but sharing a page with RAM); -ERANGE (above 4 GiB without PAE);
 * -EOVERFLOW (beyond the CPU's physical address width); -ENOSPC (no window,
 * or it is full). mmio_map_error() says it in a sentence for the log.
 */
int mmio_map(uint64_t phys, uint64_t len, uintptr_t *virt);

/* mmio_map_error - why mmio_map() refused with @err ("it lies above 4 GiB and ..."). */
const char *mmio_map_error(int err);

/* mmio_describe - how @phys is mapped now, for lspci ("identity-mapped, uncached", "mapped at 0x... (PAE window)"). */
void mmio_describe(uint64_t phys, char *buf, size_t len);
#endif

#endif
