/*
 * idt.c - the Interrupt Descriptor Table (Intel SDM 3A 6.10-6.11): all 256
 * vectors point at their stub in entry.S as 32-bit interrupt gates, so the
 * CPU clears IF on entry and every handler starts with interrupts disabled.
 * What happens next is in traps.c (x86_trap_dispatch). The exception is
 * vector 8, the double fault: a task gate (SDM 3A 6.11, 7.3) to the
 * double-fault task of gdt.c, because a #DF often means the kernel stack
 * itself is unusable and an interrupt gate would push onto it again.
 */
#include <stdint.h>
#include <asm/trap.h>

/* Gate type/attribute byte: present, DPL, 32-bit interrupt gate (type 0xE). */
#define IDT_PRESENT       0x80
#define IDT_TYPE_INTR32   0x0E
#define IDT_TYPE_TASK     0x05  /* task gate: the selector names a TSS, the offset is unused */
#define IDT_DPL_SHIFT     5

struct idt_gate {
	uint16_t offset_lo;
	uint16_t selector;
	uint8_t zero;
	uint8_t type_attr;
	uint16_t offset_hi;
} __attribute__((packed));

struct idt_ptr {
	uint16_t limit;
	uint32_t base;
} __attribute__((packed));

static struct idt_gate idt[X86_NR_VECTORS] __attribute__((aligned(8)));

void idt_set_gate(unsigned int vector, uintptr_t handler, unsigned int dpl)
{
	struct idt_gate *g = &idt[vector & 0xFF];

	g->offset_lo = handler & 0xFFFF;
	g->selector = KERNEL_CS;
	g->zero = 0;
	g->type_attr = IDT_PRESENT | IDT_TYPE_INTR32 | ((dpl & 3) << IDT_DPL_SHIFT);
	g->offset_hi = (handler >> 16) & 0xFFFF;
}

void idt_set_task_gate(unsigned int vector, uint16_t selector)
{
	struct idt_gate *g = &idt[vector & 0xFF];

	g->offset_lo = 0;
	g->selector = selector;
	g->zero = 0;
	g->type_attr = IDT_PRESENT | IDT_TYPE_TASK;
	g->offset_hi = 0;
}

void idt_init(void)
{
	for (unsigned int v = 0; v < X86_NR_VECTORS; v++)
		idt_set_gate(v, (uintptr_t)x86_vector_stubs + v * X86_STUB_SIZE, 0);
	idt_set_task_gate(X86_TRAP_DF, DF_TSS);
	idt_load();
}

/* One IDT for every CPU: the gates are the same everywhere (DF_TSS names
 * each CPU's own double-fault TSS through its own GDT). */
void idt_load(void)
{
	struct idt_ptr p;

	p.limit = sizeof(idt) - 1;
	p.base = (uint32_t)(uintptr_t)idt;
	__asm__ volatile("lidt %0" :: "m"(p) : "memory");
}
