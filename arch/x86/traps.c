/*
 * traps.c - where every interrupt and exception arrives in C.
 *
 * entry.S calls x86_trap_dispatch() with the saved register frame. Vectors
 * 0-31 are CPU exceptions (Intel SDM 3A 6.15) and are reported here: the
 * vector's name, the error code, CR2 for a page fault, EIP/ESP/EFLAGS, all
 * general registers and a frame-pointer backtrace. Breakpoint (#BP) and NMI
 * are reported and resumed; every other exception is fatal and halts. All
 * other vectors are device or APIC interrupts and go on to irq.c.
 *
 * The fatal path never recurses: an exception raised while reporting one
 * prints a single line by polled serial output and halts.
 *
 * The double fault (#DF) does not come through entry.S: vector 8 is a task
 * gate (idt.c), so the CPU saves the faulting task's registers in its TSS
 * and starts x86_double_fault_task() on a stack of its own (gdt.c). That
 * is what turns a kernel stack overflow, which would otherwise fault again
 * on every push and end in a triple fault (a silent reset), into a report.
 */
#include <stdint.h>
#include <stdbool.h>
#include <asm/cpu.h>
#include <asm/trap.h>
#include <asm/smp.h>
#include <kernel/printk.h>
#include <kernel/panic.h>

static const char *const exception_names[X86_NR_EXCEPTIONS] = {
	[0] = "divide error (#DE)",
	[1] = "debug (#DB)",
	[2] = "non-maskable interrupt (NMI)",
	[3] = "breakpoint (#BP)",
	[4] = "overflow (#OF)",
	[5] = "BOUND range exceeded (#BR)",
	[6] = "invalid opcode (#UD)",
	[7] = "device not available (#NM)",
	[8] = "double fault (#DF)",
	[9] = "coprocessor segment overrun",
	[10] = "invalid TSS (#TS)",
	[11] = "segment not present (#NP)",
	[12] = "stack-segment fault (#SS)",
	[13] = "general protection (#GP)",
	[14] = "page fault (#PF)",
	[15] = "reserved vector 15",
	[16] = "x87 floating-point error (#MF)",
	[17] = "alignment check (#AC)",
	[18] = "machine check (#MC)",
	[19] = "SIMD floating-point (#XM)",
	[20] = "virtualization (#VE)",
	[21] = "control protection (#CP)",
	[22] = "reserved vector 22", [23] = "reserved vector 23",
	[24] = "reserved vector 24", [25] = "reserved vector 25",
	[26] = "reserved vector 26", [27] = "reserved vector 27",
	[28] = "hypervisor injection (#HV)",
	[29] = "VMM communication (#VC)",
	[30] = "security exception (#SX)",
	[31] = "reserved vector 31",
};

/* Page-fault error code bits (SDM 3A 4.7). */
#define PF_PRESENT (1u << 0)   /* 0: page not present; 1: protection violation */
#define PF_WRITE   (1u << 1)   /* the access was a write */
#define PF_USER    (1u << 2)   /* the access came from ring 3 */
#define PF_INSTR   (1u << 4)   /* instruction fetch */

#define BACKTRACE_MAX_FRAMES 16  /* frames printed at most */

static volatile uint32_t exception_depth;  /* exceptions being reported right now */
static uint32_t exception_counts[X86_NR_EXCEPTIONS];

uint32_t x86_exception_count(unsigned int vector)
{
	return vector < X86_NR_EXCEPTIONS ? exception_counts[vector] : 0;
}

const char *x86_exception_name(unsigned int vector)
{
	return vector < X86_NR_EXCEPTIONS ? exception_names[vector] : "not an exception";
}

static void print_registers(const struct trap_frame *f)
{
	pr_emerg("  EIP: %08x  CS: %04x  EFLAGS: %08x  ESP: %08x\n",
		 f->eip, f->cs & 0xFFFF, f->eflags, trap_frame_esp(f));
	pr_emerg("  EAX: %08x  EBX: %08x  ECX: %08x  EDX: %08x\n", f->eax, f->ebx, f->ecx, f->edx);
	pr_emerg("  ESI: %08x  EDI: %08x  EBP: %08x\n", f->esi, f->edi, f->ebp);
	pr_emerg("  DS: %04x  ES: %04x  FS: %04x  GS: %04x  CR0: %08x  CR3: %08x\n",
		 f->ds & 0xFFFF, f->es & 0xFFFF, f->fs & 0xFFFF, f->gs & 0xFFFF, read_cr0(), read_cr3());
}

static void report_exception(const struct trap_frame *f, bool fatal)
{
	unsigned int v = f->vector;

	pr_emerg("%s: %s at EIP %08x, error code %08x\n", fatal ? "FATAL exception" : "exception",
		 exception_names[v], f->eip, f->error);
	if (v == X86_TRAP_PF) {
		pr_emerg("  CR2: %08x (%s, %s access, %s mode%s)\n", read_cr2(),
			 f->error & PF_PRESENT ? "protection violation" : "page not present",
			 f->error & PF_WRITE ? "write" : "read",
			 f->error & PF_USER ? "user" : "kernel",
			 f->error & PF_INSTR ? ", instruction fetch" : "");
	}
	print_registers(f);
	print_backtrace(f->ebp, f->eip);
}

void x86_exception(struct trap_frame *f)
{
	unsigned int v = f->vector;
	bool fatal = !(v == X86_TRAP_BP || v == X86_TRAP_NMI);

	exception_counts[v]++;
	this_cpu()->trap_depth++;   /* printk gives its lines a buffer of their own (kernel/printk.c) */
	if (++exception_depth > 1) {
		/* An exception while reporting one: say the least and stop. */
		panic_raw("nested exception while reporting an exception; halting");
	}
	report_exception(f, fatal);
	exception_depth--;
	if (!fatal) {
		pr_emerg("  resuming after %s\n", exception_names[v]);
		this_cpu()->trap_depth--;
		return;
	}
	halt_system("fatal exception");
}

extern char boot_stack_guard[], boot_stack_bottom[], boot_stack_top[];

/* The faulting task's registers, as the CPU saved them in its TSS. A task switch
 * saves no control registers: CR0 (TS now set by the switch) and CR3 are read here. */
static void print_task_registers(const struct x86_tss *t)
{
	pr_emerg("  EIP: %08x  CS: %04x  EFLAGS: %08x  ESP: %08x  SS: %04x\n",
		 t->eip, t->cs, t->eflags, t->esp, t->ss);
	pr_emerg("  EAX: %08x  EBX: %08x  ECX: %08x  EDX: %08x\n", t->eax, t->ebx, t->ecx, t->edx);
	pr_emerg("  ESI: %08x  EDI: %08x  EBP: %08x\n", t->esi, t->edi, t->ebp);
	pr_emerg("  DS: %04x  ES: %04x  FS: %04x  GS: %04x  CR0: %08x  CR3: %08x\n",
		 t->ds, t->es, t->fs, t->gs, read_cr0(), read_cr3());
}

void x86_double_fault_task(void)
{
	uint32_t stack_lo, stack_hi, error, cr2 = read_cr2();
	const struct x86_tss *self = gdt_tss(DF_TSS);
	const struct x86_tss *old = self ? gdt_tss(self->link) : 0;
	/* CPU 0 runs on boot.S's stack, every other CPU on its own (smp.c). */
	const struct cpu_data *me = this_cpu();
	uint32_t guard_lo = me->cpu ? (uint32_t)me->guard : (uint32_t)(uintptr_t)boot_stack_guard;
	uint32_t guard_hi = me->cpu ? (uint32_t)me->stack_lo : (uint32_t)(uintptr_t)boot_stack_bottom;
	uint32_t stack_top = me->cpu ? (uint32_t)me->stack_hi : (uint32_t)(uintptr_t)boot_stack_top;

	exception_counts[X86_TRAP_DF]++;
	exception_depth++;
	/* The CPU pushed the error code (always 0 for #DF) on this task's fresh stack. */
	gdt_df_stack(&stack_lo, &stack_hi);
	error = ((const volatile uint32_t *)(uintptr_t)stack_hi)[-1];
	if (!old) {
		panic_raw("double fault with no known previous task; halting");
	}
	pr_emerg("FATAL exception: %s at EIP %08x, error code %08x\n", exception_names[X86_TRAP_DF],
		 old->eip, error);
	pr_emerg("  a fault while delivering a fault; reported by the double-fault task "
		 "(TSS %04x, stack %08x-%08x) from the state saved in TSS %04x:\n",
		 DF_TSS, stack_lo, stack_hi, self->link);
	print_task_registers(old);
	pr_emerg("  CR2: %08x (last page-fault address)\n", cr2);
	if ((old->esp >= guard_lo && old->esp < guard_hi + 64) || (cr2 >= guard_lo && cr2 < guard_hi))
		pr_emerg("  kernel stack overflow: ESP %08x / CR2 %08x reached the guard page %08x-%08x "
			 "below the %s stack %08x-%08x (CPU %u)\n", old->esp, cr2, guard_lo, guard_hi - 1,
			 me->cpu ? "AP's" : "boot", guard_hi, stack_top, me->cpu);
	print_backtrace(old->ebp, old->eip);
	halt_system("double fault");
}

void x86_trap_dispatch(struct trap_frame *f)
{
	if (f->vector < X86_NR_EXCEPTIONS)
		x86_exception(f);
	else
		x86_irq_vector(f);
}

/* ------------------------------------------------------------------------
 * Selftests (selftest=traps)
 * ------------------------------------------------------------------------ */
#include <kernel/selftest.h>

SELFTEST(traps, breakpoint_resumes)
{
	uint32_t before = exception_counts[X86_TRAP_BP];
	volatile int reached = 0;

	__asm__ volatile("int3");
	reached = 1;
	ST_EXPECT(t, exception_counts[X86_TRAP_BP] == before + 1, "#BP count %u -> %u", before,
		  exception_counts[X86_TRAP_BP]);
	ST_EXPECT(t, reached, "execution did not continue after int3");
}
