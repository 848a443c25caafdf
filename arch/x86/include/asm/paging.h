/* Identity paging of the 4 GiB physical address space (arch/x86/paging.c). */
#ifndef ASM_PAGING_H
#define ASM_PAGING_H

#define PAGE_SIZE 4096u
/* From here to 4 GiB: PCI, APIC and HPET MMIO, mapped uncached (cache disable). */
#define PAGING_UNCACHED_START 0xC0000000u

/* paging_init - identity-map all 4 GiB, leave page 0 unmapped (NULL traps). */
void paging_init(void);

#include <stdint.h>
/*
 * paging_unmap_guard - unmap the 4 KiB page at @addr (a stack's guard page),
 * which must lie in the first 4 MiB (the part mapped with 4 KiB pages).
 * CONTEXT: boot, before any other CPU uses the page tables' cached copy of
 * it (an AP loads CR3 after; this CPU's TLB entry is flushed here).
 * RETURNS 0; -EINVAL (not page-aligned or not in the first 4 MiB).
 */
int paging_unmap_guard(uint32_t addr);

#endif
