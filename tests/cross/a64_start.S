/*
 * a64_start.S - entry and exception vectors of tests/cross/a64_run.c on
 * QEMU's Arm virt board, AArch64 at EL1. Assembly because the CPU demands
 * it: the stack pointer must be set before any C runs, and an exception
 * must save the registers C may clobber before calling C and return with
 * eret (Arm Architecture Reference Manual for A-profile, D1.10 exception
 * vectors: VBAR_EL1, 16 entries of 0x80 bytes, 2 KiB aligned).
 *
 * QEMU loads the ELF and starts every CPU at its entry at EL1h (no EL2 or
 * EL3 on virt without virtualization=on or secure=on), interrupts masked;
 * CPU 0 (MPIDR_EL1 affinity 0) runs the program, the others park.
 */
	.section .text.start, "ax"
	.globl a64_start
a64_start:
	mrs	x0, mpidr_el1
	and	x0, x0, #0xff
	cbnz	x0, 2f
	adrp	x0, a64_stack_top
	add	x0, x0, :lo12:a64_stack_top
	mov	sp, x0
	adrp	x0, a64_vectors
	add	x0, x0, :lo12:a64_vectors
	msr	vbar_el1, x0
	isb
	bl	a64_main
2:	wfe
	b	2b

/*
 * Save x0-x18, x29, x30 (the registers a C call may change, and the frame
 * pointer): 20 registers, 160 bytes, sp stays 16-byte aligned. ELR_EL1 and
 * SPSR_EL1 stay in their registers: exceptions do not nest here (the CPU
 * masks IRQs when it takes one, and the C code never unmasks them inside).
 */
.macro	SAVE
	sub	sp, sp, #160
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x9, [sp, #64]
	stp	x10, x11, [sp, #80]
	stp	x12, x13, [sp, #96]
	stp	x14, x15, [sp, #112]
	stp	x16, x17, [sp, #128]
	stp	x18, x29, [sp, #144]
	str	x30, [sp, #-16]!
.endm

.macro	RESTORE
	ldr	x30, [sp], #16
	ldp	x0, x1, [sp, #0]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x9, [sp, #64]
	ldp	x10, x11, [sp, #80]
	ldp	x12, x13, [sp, #96]
	ldp	x14, x15, [sp, #112]
	ldp	x16, x17, [sp, #128]
	ldp	x18, x29, [sp, #144]
	add	sp, sp, #160
.endm

/* An entry that reports the exception (its number @n) and stops: a64_fault does not return. */
.macro	FAULT n
	.balign	0x80
	mov	x0, #\n
	mrs	x1, esr_el1
	mrs	x2, elr_el1
	mrs	x3, far_el1
	b	a64_fault
.endm

	.text
	.balign	2048
	.globl a64_vectors
a64_vectors:
	/* Current EL with SP_EL0: never used (the program runs on SP_EL1). */
	FAULT	0
	FAULT	1
	FAULT	2
	FAULT	3
	/* Current EL with SP_ELx: synchronous, IRQ, FIQ, SError. */
	FAULT	4
	.balign	0x80
	SAVE
	bl	a64_irq
	RESTORE
	eret
	FAULT	6
	FAULT	7
	/* Lower EL, AArch64 and AArch32: no lower EL runs here. */
	FAULT	8
	FAULT	9
	FAULT	10
	FAULT	11
	FAULT	12
	FAULT	13
	FAULT	14
	FAULT	15
