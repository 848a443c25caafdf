/* Identity paging of the 4 GiB physical address space (arch/x86/paging.c). */
#ifndef ASM_PAGING_H
#define ASM_PAGING_H

#define PAGE_SIZE 4096u
/* From here to 4 GiB: PCI, APIC and HPET MMIO, mapped uncached (cache disable). */
#define PAGING_UNCACHED_START 0xC0000000u

/* paging_init - identity-map all 4 GiB, leave page 0 unmapped (NULL traps). */
void paging_init(void);

#endif
