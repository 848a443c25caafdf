/*
 * gdt.c - the Global Descriptor Table: a flat 4 GiB ring-0 code and data
 * segment (Intel SDM 3A 3.4.5), and two task-state segments (SDM 3A 7.2):
 * the boot task's, loaded into TR so the CPU has somewhere to save the
 * running task on a task switch, and the double-fault task's, which vector
 * 8's task gate (idt.c) switches to with its own stack. The loader's GDT
 * is not guaranteed to survive (the multiboot spec says so), so we install
 * our own first thing. The double-fault report is in traps.c.
 */
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/trap.h>

/* Descriptor access bytes (SDM 3A table 3-1, figure 7-3). */
#define GDT_ACCESS_CODE 0x9A   /* present, ring 0, code, execute/read */
#define GDT_ACCESS_DATA 0x92   /* present, ring 0, data, read/write */
#define GDT_ACCESS_TSS  0x89   /* present, ring 0, system type 9: 32-bit TSS, available */
/* Flags nibble: 4 KiB granularity, 32-bit default operand size. */
#define GDT_FLAGS_4K_32 0xC
#define GDT_FLAGS_BYTE  0x0    /* byte granularity (a TSS's limit is in bytes) */
#define GDT_ENTRIES     5      /* null, code, data, boot TSS, double-fault TSS */
#define EFLAGS_RESERVED 0x2u   /* bit 1 always reads 1; IF clear: the #DF task runs with interrupts off */

/* Stack of the double-fault task: printk and the report need a few hundred
 * bytes; 8 KiB leaves room for a nested exception's report too. */
#define DF_STACK_SIZE 8192u

struct gdt_ptr {
	uint16_t limit;
	uint32_t base;
} __attribute__((packed));

static uint64_t gdt[GDT_ENTRIES] __attribute__((aligned(8)));
static struct x86_tss boot_tss, df_tss;
static uint8_t df_stack[DF_STACK_SIZE] __attribute__((aligned(16)));

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

/* The double-fault task starts at x86_double_fault_task on its own stack,
 * with flat segments and interrupts off. The CPU pushes the #DF error code
 * onto this stack on the switch (SDM 3A 6.12.2), so ESP starts 16-aligned
 * at the top and the function finds the code at top - 4. */
static void df_tss_init(void)
{
	df_tss.eip = (uint32_t)(uintptr_t)x86_double_fault_task;
	df_tss.esp = (uint32_t)(uintptr_t)(df_stack + DF_STACK_SIZE);
	df_tss.ebp = 0;                     /* ends a backtrace of the #DF task */
	df_tss.eflags = EFLAGS_RESERVED;
	df_tss.cs = KERNEL_CS;
	df_tss.ss = df_tss.ds = df_tss.es = df_tss.fs = df_tss.gs = KERNEL_DS;
	df_tss.cr3 = read_cr3();            /* paging_init() sets the real one */
	df_tss.iomap_base = sizeof(struct x86_tss);
	boot_tss.iomap_base = sizeof(struct x86_tss);
}

void gdt_set_task_cr3(uint32_t cr3)
{
	df_tss.cr3 = cr3;
}

const struct x86_tss *gdt_tss(uint16_t selector)
{
	if ((selector & ~3u) == KERNEL_TSS)
		return &boot_tss;
	if ((selector & ~3u) == DF_TSS)
		return &df_tss;
	return 0;
}

void gdt_df_stack(uint32_t *lo, uint32_t *hi)
{
	*lo = (uint32_t)(uintptr_t)df_stack;
	*hi = (uint32_t)(uintptr_t)(df_stack + DF_STACK_SIZE);
}

void gdt_init(void)
{
	struct gdt_ptr p;

	df_tss_init();
	gdt[0] = 0;
	gdt[KERNEL_CS / 8] = gdt_entry(0, 0xFFFFF, GDT_ACCESS_CODE, GDT_FLAGS_4K_32);
	gdt[KERNEL_DS / 8] = gdt_entry(0, 0xFFFFF, GDT_ACCESS_DATA, GDT_FLAGS_4K_32);
	gdt[KERNEL_TSS / 8] = gdt_entry((uint32_t)(uintptr_t)&boot_tss, sizeof(boot_tss) - 1,
					GDT_ACCESS_TSS, GDT_FLAGS_BYTE);
	gdt[DF_TSS / 8] = gdt_entry((uint32_t)(uintptr_t)&df_tss, sizeof(df_tss) - 1,
				    GDT_ACCESS_TSS, GDT_FLAGS_BYTE);
	p.limit = sizeof(gdt) - 1;
	p.base = (uint32_t)(uintptr_t)gdt;
	/* Reload every segment register: CS through a far jump. Then TR: the
	 * boot task's TSS (marked busy by ltr) receives its state on a #DF. */
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
		"movw %w3, %%ax\n\t"
		"ltr %%ax\n\t"
		:: "m"(p), "i"(KERNEL_CS), "i"(KERNEL_DS), "i"(KERNEL_TSS) : "eax", "memory");
}
