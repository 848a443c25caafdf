/*
 * entry.S - the 256 interrupt/exception entry stubs and their common path.
 *
 * Each vector has a 16-byte stub that makes the stack look the same for
 * every vector (a dummy error code where the CPU pushes none, Intel SDM 3A
 * table 6-1), pushes its vector number and jumps to trap_common, which
 * saves the segment and general registers (struct trap_frame in
 * <asm/trap.h>) and calls x86_trap_dispatch() in traps.c. The path of an
 * interrupt continues there: traps.c -> irq.c -> the interrupt controller
 * (i8259.c / ioapic.c) -> kernel/irq/.
 */
#include <asm/trap.h>

/* Vectors for which the CPU pushes an error code: #DF #TS #NP #SS #GP #PF #AC #CP #VC #SX. */
#define HAS_ERRCODE(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || (v) == 29 || (v) == 30)

	.section .text
	.align X86_STUB_SIZE
	.global x86_vector_stubs
x86_vector_stubs:
	.set vec, 0
	.rept X86_NR_VECTORS
	.align X86_STUB_SIZE
	.if !HAS_ERRCODE(vec)
	pushl $0
	.endif
	pushl $vec
	jmp trap_common
	.set vec, vec + 1
	.endr

trap_common:
	pushal
	pushl %ds
	pushl %es
	pushl %fs
	pushl %gs
	movw $KERNEL_DS, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %fs
	/* %gs is left alone: it holds this CPU's per-CPU segment (PERCPU_SEL, gdt.c), never anything else. */
	cld                         /* C code assumes DF = 0 */
	pushl %esp                  /* struct trap_frame * */
	call x86_trap_dispatch
	addl $4, %esp
	popl %gs
	popl %fs
	popl %es
	popl %ds
	popal
	addl $8, %esp               /* vector and error code */
	iret

/* No executable stack: the kernel never runs code from its stack. */
.section .note.GNU-stack,"",@progbits
