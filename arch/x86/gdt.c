/*
 * gdt.c - the Global Descriptor Table: a flat 4 GiB ring-0 code and data
 * segment (Intel SDM 3A 3.4.5), and two task-state segments (SDM 3A 7.2):
 * the boot task's, loaded into TR so the CPU has somewhere to save the
 * running task on a task switch, and the double-fault task's, which vector
 * 8's task gate (idt.c) switches to with its own stack. The loader's GDT
 * is not guaranteed to survive (the multiboot spec says so), so we install
 * our own first thing. The double-fault report is in traps.c.
 *
 * Several CPUs: each CPU has its own GDT (a TSS descriptor is marked busy by
 * LTR, so two CPUs cannot share one; and vector 8's task gate names DF_TSS,
 * which must be the double-fault TSS of the CPU that faults), with its own
 * boot TSS, double-fault TSS and stack, and a sixth entry, PERCPU_SEL, whose
 * base is the CPU's struct cpu_data (asm/smp.h), loaded into %gs.
 */
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/trap.h>
#include <asm/smp.h>

/* Descriptor access bytes (SDM 3A table 3-1, figure 7-3). */
#define GDT_ACCESS_CODE 0x9A   /* present, ring 0, code, execute/read */
#define GDT_ACCESS_DATA 0x92   /* present, ring 0, data, read/write */
#define GDT_ACCESS_TSS  0x89   /* present, ring 0, system type 9: 32-bit TSS, available */
/* Flags nibble: 4 KiB granularity, 32-bit default operand size. */
#define GDT_FLAGS_4K_32 0xC
#define GDT_FLAGS_BYTE  0x0    /* byte granularity (a TSS's limit is in bytes) */
#define GDT_ENTRIES     6      /* null, code, data, boot TSS, double-fault TSS, per-CPU data */
#define EFLAGS_RESERVED 0x2u   /* bit 1 always reads 1; IF clear: the #DF task runs with interrupts off */

/* Stack of the double-fault task: printk and the report need a few hundred
 * bytes; 8 KiB leaves room for a nested exception's report too. */
#define DF_STACK_SIZE 8192u

struct gdt_ptr {
	uint16_t limit;
	uint32_t base;
} __attribute__((packed));

static uint64_t gdts[SMP_MAX_CPUS][GDT_ENTRIES] __attribute__((aligned(8)));
static struct x86_tss boot_tsss[SMP_MAX_CPUS], df_tsss[SMP_MAX_CPUS];
static uint8_t df_stacks[SMP_MAX_CPUS][DF_STACK_SIZE] __attribute__((aligned(16)));
static uint32_t task_cr3;   /* page directory of every double-fault task (paging_init) */
struct cpu_data cpu_data[SMP_MAX_CPUS];

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
static void df_tss_init(unsigned int cpu)
{
	struct x86_tss *df = &df_tsss[cpu];
	uint8_t *df_stack = df_stacks[cpu];

	df->eip = (uint32_t)(uintptr_t)x86_double_fault_task;
	df->esp = (uint32_t)(uintptr_t)(df_stack + DF_STACK_SIZE);
	df->ebp = 0;                     /* ends a backtrace of the #DF task */
	df->eflags = EFLAGS_RESERVED;
	df->cs = KERNEL_CS;
	df->ss = df->ds = df->es = df->fs = KERNEL_DS;
	df->gs = PERCPU_SEL;             /* smp_processor_id() works in the report */
	df->cr3 = task_cr3 ? task_cr3 : read_cr3();  /* paging_init() sets the real one */
	df->iomap_base = sizeof(struct x86_tss);
	boot_tsss[cpu].iomap_base = sizeof(struct x86_tss);
}

void gdt_set_task_cr3(uint32_t cr3)
{
	task_cr3 = cr3;
	for (unsigned int i = 0; i < SMP_MAX_CPUS; i++)
		df_tsss[i].cr3 = cr3;
}

/* The TSSes of the CPU this runs on (the #DF task runs on the CPU that faulted). */
const struct x86_tss *gdt_tss(uint16_t selector)
{
	unsigned int cpu = smp_processor_id();

	if (cpu >= SMP_MAX_CPUS)
		return 0;
	if ((selector & ~3u) == KERNEL_TSS)
		return &boot_tsss[cpu];
	if ((selector & ~3u) == DF_TSS)
		return &df_tsss[cpu];
	return 0;
}

void gdt_df_stack(uint32_t *lo, uint32_t *hi)
{
	unsigned int cpu = smp_processor_id() < SMP_MAX_CPUS ? smp_processor_id() : 0;

	*lo = (uint32_t)(uintptr_t)df_stacks[cpu];
	*hi = (uint32_t)(uintptr_t)(df_stacks[cpu] + DF_STACK_SIZE);
}

void gdt_init(void)
{
	gdt_init_cpu(0);
}

void gdt_init_cpu(unsigned int cpu)
{
	uint64_t *gdt = gdts[cpu];
	struct gdt_ptr p;

	cpu_data[cpu].self = &cpu_data[cpu];
	cpu_data[cpu].cpu = cpu;
	df_tss_init(cpu);
	gdt[0] = 0;
	gdt[KERNEL_CS / 8] = gdt_entry(0, 0xFFFFF, GDT_ACCESS_CODE, GDT_FLAGS_4K_32);
	gdt[KERNEL_DS / 8] = gdt_entry(0, 0xFFFFF, GDT_ACCESS_DATA, GDT_FLAGS_4K_32);
	gdt[KERNEL_TSS / 8] = gdt_entry((uint32_t)(uintptr_t)&boot_tsss[cpu], sizeof(struct x86_tss) - 1,
					GDT_ACCESS_TSS, GDT_FLAGS_BYTE);
	gdt[DF_TSS / 8] = gdt_entry((uint32_t)(uintptr_t)&df_tsss[cpu], sizeof(struct x86_tss) - 1,
				    GDT_ACCESS_TSS, GDT_FLAGS_BYTE);
	gdt[PERCPU_SEL / 8] = gdt_entry((uint32_t)(uintptr_t)&cpu_data[cpu], sizeof(struct cpu_data) - 1,
					GDT_ACCESS_DATA, GDT_FLAGS_BYTE);
	p.limit = sizeof(gdts[0]) - 1;
	p.base = (uint32_t)(uintptr_t)gdt;
	/* Reload every segment register: CS through a far jump, %gs with the
	 * per-CPU segment. Then TR: the boot task's TSS (marked busy by ltr)
	 * receives its state on a #DF. */
	__asm__ volatile(
		"lgdt %0\n\t"
		"ljmp %1, $1f\n"
		"1:\n\t"
		"movw %w2, %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%fs\n\t"
		"movw %%ax, %%ss\n\t"
		"movw %w4, %%ax\n\t"
		"movw %%ax, %%gs\n\t"
		"movw %w3, %%ax\n\t"
		"ltr %%ax\n\t"
		:: "m"(p), "i"(KERNEL_CS), "i"(KERNEL_DS), "i"(KERNEL_TSS), "i"(PERCPU_SEL) : "eax", "memory");
}
