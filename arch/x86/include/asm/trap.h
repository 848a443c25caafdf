/*
 * The register frame every interrupt and exception stub in entry.S builds
 * on the stack before calling x86_trap_dispatch(), and the vector layout.
 */
#ifndef ASM_TRAP_H
#define ASM_TRAP_H

/* Vector layout of the IDT (Intel SDM 3A 6.2: 0-31 are CPU exceptions). */
#define X86_NR_EXCEPTIONS   32     /* vectors 0-31: CPU exceptions */
#define PIC_VECTOR_BASE     0x20   /* 8259 IRQ 0-15 -> vectors 0x20-0x2F */
#define IOAPIC_VECTOR_BASE  0x30   /* IOAPIC GSIs get vectors from here up */
#define SELFTEST_VECTOR     0xE0   /* software vector used by the selftests */
#define CONSOLE_SELFTEST_VECTOR 0xE2 /* software vector of the console's selftests (console_selftest.c) */
#define LAPIC_TIMER_VECTOR  0xEF   /* local APIC timer */
#define CALL_FUNCTION_VECTOR 0xFB  /* SMP IPI: run a function on this CPU (arch/x86/smp.c) */
#define RESCHEDULE_VECTOR   0xFC   /* SMP IPI: wake up / re-examine timers (arch/x86/smp.c) */
#define STOP_VECTOR         0xFD   /* SMP IPI: halt for good (a panic on another CPU) (arch/x86/smp.c) */
#define LAPIC_ERROR_VECTOR  0xFE   /* local APIC error */
#define LAPIC_SPURIOUS_VECTOR 0xFF /* local APIC spurious (low nibble must be 1111 on P6) */
#define X86_NR_VECTORS      256
#define X86_STUB_SIZE       16     /* bytes per entry stub in entry.S */

/* Exception vectors used by name in the code. */
#define X86_TRAP_DE  0   /* divide error */
#define X86_TRAP_NMI 2   /* non-maskable interrupt */
#define X86_TRAP_BP  3   /* breakpoint (int3) */
#define X86_TRAP_UD  6   /* invalid opcode */
#define X86_TRAP_DF  8   /* double fault */
#define X86_TRAP_GP 13   /* general protection */
#define X86_TRAP_PF 14   /* page fault */

#ifndef __ASSEMBLY__
#include <stdint.h>

struct trap_frame {
	uint32_t gs, fs, es, ds;                            /* pushed by the common stub */
	uint32_t edi, esi, ebp, esp_at_pusha, ebx, edx, ecx, eax; /* PUSHA order */
	uint32_t vector, error;                             /* pushed by the per-vector stub */
	uint32_t eip, cs, eflags;                           /* pushed by the CPU */
	/* No ESP/SS here: we run everything in ring 0, so the CPU does not switch stacks. */
};

/* The stack pointer of the interrupted code: just past the CPU's frame. */
static inline uint32_t trap_frame_esp(const struct trap_frame *f)
{
	return (uint32_t)(uintptr_t)(&f->eflags + 1);
}

void x86_trap_dispatch(struct trap_frame *f);
void x86_exception(struct trap_frame *f);
void x86_irq_vector(struct trap_frame *f);

/* Entry stubs from entry.S: stub for vector v is at x86_vector_stubs + v * X86_STUB_SIZE. */
extern const char x86_vector_stubs[];

void gdt_init(void);
/* gdt_init_cpu - load CPU @cpu's own GDT (its TSS, double-fault TSS, per-CPU %gs) and TR. */
void gdt_init_cpu(unsigned int cpu);
/* idt_load - load the (shared) IDT on this CPU. */
void idt_load(void);
void idt_init(void);
void idt_set_gate(unsigned int vector, uintptr_t handler, unsigned int dpl);

/*
 * A 32-bit task-state segment (Intel SDM 3A 7.2.1, figure 7-2). irqkit runs
 * one task, the boot task (KERNEL_TSS), and keeps a second one only for
 * double faults (DF_TSS): vector 8 is a task gate, so a #DF switches to a
 * fresh stack and address space even when the kernel stack is gone (a
 * stack overflow into the guard page under the boot stack). On that switch
 * the CPU saves every register of the faulting task into its TSS, which is
 * where the double-fault report reads them from.
 */
struct x86_tss {
	uint16_t link, reserved0;   /* previous task's selector (nested task switch) */
	uint32_t esp0;              /* ring-0 stack for privilege changes (unused: ring 0 only) */
	uint16_t ss0, reserved1;
	uint32_t esp1;
	uint16_t ss1, reserved2;
	uint32_t esp2;
	uint16_t ss2, reserved3;
	uint32_t cr3, eip, eflags;
	uint32_t eax, ecx, edx, ebx, esp, ebp, esi, edi;
	uint16_t es, reserved4, cs, reserved5, ss, reserved6;
	uint16_t ds, reserved7, fs, reserved8, gs, reserved9;
	uint16_t ldt, reserved10;
	uint16_t trap;              /* bit 0: debug trap on task switch */
	uint16_t iomap_base;        /* I/O permission bitmap offset; past the limit = none */
} __attribute__((packed));

_Static_assert(sizeof(struct x86_tss) == 104, "a 32-bit TSS is 104 bytes");

/* gdt_set_task_cr3 - page directory the double-fault task switches to. CONTEXT: boot (paging_init). */
void gdt_set_task_cr3(uint32_t cr3);
/* gdt_tss - the TSS selected by @selector (KERNEL_TSS or DF_TSS), or NULL. CONTEXT: any. */
const struct x86_tss *gdt_tss(uint16_t selector);
/* gdt_df_stack - the double-fault task's stack, [*lo, *hi). CONTEXT: any. */
void gdt_df_stack(uint32_t *lo, uint32_t *hi);
/* idt_set_task_gate - make @vector a task gate to TSS @selector (SDM 3A 6.11). */
void idt_set_task_gate(unsigned int vector, uint16_t selector);
/* x86_double_fault_task - entry of the double-fault task (traps.c); reports and halts. */
__attribute__((noreturn)) void x86_double_fault_task(void);

#endif /* !__ASSEMBLY__ */

#define KERNEL_CS 0x08   /* GDT entry 1: flat 4 GiB code, ring 0 */
#define KERNEL_DS 0x10   /* GDT entry 2: flat 4 GiB data, ring 0 */
#define KERNEL_TSS 0x18  /* GDT entry 3: TSS of the boot task (where a task switch saves it) */
#define DF_TSS    0x20   /* GDT entry 4: TSS of the double-fault task */
#define PERCPU_SEL 0x28  /* GDT entry 5: this CPU's struct cpu_data (asm/smp.h), held in %gs */

#endif
