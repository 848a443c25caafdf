/*
 * paging.c - identity paging (virtual == physical) for all 4 GiB, so MMIO
 * (IOAPIC, LAPIC, HPET) and RAM are reachable at their physical addresses,
 * with one exception: the first 4 KiB page stays unmapped, so a NULL
 * pointer dereference raises a page fault instead of reading the real-mode
 * interrupt vector table, and the guard page under the boot stack
 * (boot.S) is unmapped too, so a kernel stack overflow faults there instead
 * of overwriting whatever lies below. Intel SDM 3A 4.3 (32-bit paging);
 * the first 4 MiB use a page table, the rest 4 MiB pages (PSE,
 * CPUID.1:EDX bit 3).
 */
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/paging.h>
#include <asm/trap.h>
#include <kernel/printk.h>
#include <kernel/panic.h>
#include <kernel/errno.h>

#define PTE_PRESENT  0x001u   /* entry maps something */
#define PTE_WRITE    0x002u   /* writable */
#define PTE_PCD      0x010u   /* cache disable (MMIO region) */
#define PDE_PS       0x080u   /* this directory entry maps a 4 MiB page */
#define CR0_PG       0x80000000u  /* enable paging */
#define CR0_WP       0x00010000u  /* honour read-only pages in ring 0 too */
#define CR4_PSE      0x00000010u  /* allow 4 MiB pages */
#define CPUID1_EDX_PSE (1u << 3)
#define ENTRIES      1024u
#define LARGE_PAGE   0x400000u
#define MMIO_START   PAGING_UNCACHED_START  /* from here up: PCI/APIC/HPET MMIO, mapped uncached */

extern char boot_stack_guard[];

static uint32_t page_dir[ENTRIES] __attribute__((aligned(PAGE_SIZE)));
static uint32_t low_table[ENTRIES] __attribute__((aligned(PAGE_SIZE)));

void paging_init(void)
{
	uint32_t a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	if (!(d & CPUID1_EDX_PSE))
		panic("paging_init: this CPU has no 4 MiB pages (PSE); irqkit needs a Pentium or later");
	uint32_t guard = (uint32_t)(uintptr_t)boot_stack_guard;

	if ((guard & (PAGE_SIZE - 1)) || guard >= LARGE_PAGE)
		panic("paging_init: boot stack guard %#x is not a 4 KiB page inside the first 4 MiB", guard);
	low_table[0] = 0;  /* the NULL page */
	for (uint32_t i = 1; i < ENTRIES; i++)
		low_table[i] = (i * PAGE_SIZE) | PTE_PRESENT | PTE_WRITE;
	low_table[guard / PAGE_SIZE] = 0;  /* the stack's guard page */
	page_dir[0] = (uint32_t)(uintptr_t)low_table | PTE_PRESENT | PTE_WRITE;
	for (uint32_t i = 1; i < ENTRIES; i++) {
		uint32_t base = i * LARGE_PAGE;
		page_dir[i] = base | PTE_PRESENT | PTE_WRITE | PDE_PS | (base >= MMIO_START ? PTE_PCD : 0);
	}
	write_cr4(read_cr4() | CR4_PSE);
	write_cr3((uint32_t)(uintptr_t)page_dir);
	gdt_set_task_cr3((uint32_t)(uintptr_t)page_dir);
	write_cr0(read_cr0() | CR0_PG | CR0_WP);
	pr_info("paging: identity map of 4 GiB (4 MiB pages, uncached from 0x%08x), page 0 and the boot stack's guard page %#x unmapped\n",
		MMIO_START, guard);
}

int paging_unmap_guard(uint32_t addr)
{
	if ((addr & (PAGE_SIZE - 1)) || addr >= LARGE_PAGE || addr == 0)
		return -EINVAL;
	low_table[addr / PAGE_SIZE] = 0;
	__asm__ volatile("invlpg (%0)" :: "r"(addr) : "memory");
	return 0;
}
