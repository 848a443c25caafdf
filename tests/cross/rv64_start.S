/*
 * rv64_start.S - entry and trap vector of tests/cross/rv64_run.c on QEMU's
 * RISC-V virt board, machine mode. Assembly because the CPU demands it: the
 * stack pointer must be set before any C runs, and a trap must save the
 * registers C may clobber before calling C and return with mret (RISC-V
 * Privileged Architecture 3.1.7 mtvec, 3.3.2 mret).
 */
	.section .text.start, "ax"
	.globl rv_start
rv_start:
	/* Only hart 0 runs the program; others (there are none with -smp 1) park. */
	csrr	t0, mhartid
	bnez	t0, 2f
	la	sp, rv_stack_top
	/* mtvec: direct mode (low bits 0), every trap to rv_trap_entry (4-byte aligned). */
	la	t0, rv_trap_entry
	csrw	mtvec, t0
	call	rv_main
2:	wfi
	j	2b

/*
 * Every trap: save the caller-saved registers (ra, t0-t6, a0-a7: 16 of
 * them, in 128 bytes, keeping sp 16-byte aligned), call rv_trap(mcause,
 * mepc), restore, mret. mstatus.MIE is off in here (the hart cleared it
 * when it took the trap; mret puts MPIE back), so traps do not nest.
 */
	.text
	.balign	4
	.globl rv_trap_entry
rv_trap_entry:
	addi	sp, sp, -128
	sd	ra, 0(sp)
	sd	t0, 8(sp)
	sd	t1, 16(sp)
	sd	t2, 24(sp)
	sd	t3, 32(sp)
	sd	t4, 40(sp)
	sd	t5, 48(sp)
	sd	t6, 56(sp)
	sd	a0, 64(sp)
	sd	a1, 72(sp)
	sd	a2, 80(sp)
	sd	a3, 88(sp)
	sd	a4, 96(sp)
	sd	a5, 104(sp)
	sd	a6, 112(sp)
	sd	a7, 120(sp)
	csrr	a0, mcause
	csrr	a1, mepc
	call	rv_trap
	ld	ra, 0(sp)
	ld	t0, 8(sp)
	ld	t1, 16(sp)
	ld	t2, 24(sp)
	ld	t3, 32(sp)
	ld	t4, 40(sp)
	ld	t5, 48(sp)
	ld	t6, 56(sp)
	ld	a0, 64(sp)
	ld	a1, 72(sp)
	ld	a2, 80(sp)
	ld	a3, 88(sp)
	ld	a4, 96(sp)
	ld	a5, 104(sp)
	ld	a6, 112(sp)
	ld	a7, 120(sp)
	addi	sp, sp, 128
	mret
