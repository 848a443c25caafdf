/*
 * gdt.c - the Global Descriptor Table: a flat 4 GiB ring-0 code and data
 * segment (Intel SDM 3A 3.4.5). The loader's GDT is not guaranteed to
 * survive (the multiboot spec says so), so we install our own first thing.
 */
#include <stdint.h>
#include <asm/trap.h>

/* Descriptor access bytes (SDM 3A table 3-1). */
#define GDT_ACCESS_CODE 0x9A   /* present, ring 0, code, execute/read */
#define GDT_ACCESS_DATA 0x92   /* present, ring 0, data, read/write */
/* Flags nibble: 4 KiB granularity, 32-bit default operand size. */
#define GDT_FLAGS_4K_32 0xC

struct gdt_ptr {
	uint16_t limit;
	uint32_t base;
} __attribute__((packed));

static uint64_t gdt[3] __attribute__((aligned(8)));

static uint64_t gdt_entry(uint32_t base, uint32_t limit, uint8_t access, uint8_t flags)
{
	uint64_t d = limit & 0xFFFFu;
	d |= (uint64_t)(base & 0xFFFFFFu) << 16;
	d |= (uint64_t)access << 40;
	d |= (uint64_t)((limit >> 16) & 0xFu) << 48;
	d |= (uint64_t)(flags & 0xFu) << 52;
	d |= (uint64_t)(base >> 24) << 56;
	return d;
}

void gdt_init(void)
{
	struct gdt_ptr p;

	gdt[0] = 0;
	gdt[KERNEL_CS / 8] = gdt_entry(0, 0xFFFFF, GDT_ACCESS_CODE, GDT_FLAGS_4K_32);
	gdt[KERNEL_DS / 8] = gdt_entry(0, 0xFFFFF, GDT_ACCESS_DATA, GDT_FLAGS_4K_32);
	p.limit = sizeof(gdt) - 1;
	p.base = (uint32_t)(uintptr_t)gdt;
	/* Reload every segment register: CS through a far jump. */
	__asm__ volatile(
		"lgdt %0\n\t"
		"ljmp %1, $1f\n"
		"1:\n\t"
		"movw %w2, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%fs\n\t"
		"movw %%ax, %%gs\n\t"
		"movw %%ax, %%ss\n\t"
		:: "m"(p), "i"(KERNEL_CS), "i"(KERNEL_DS) : "eax", "memory");
}
