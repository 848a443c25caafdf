/*
 * rv64_start.S - entry and trap vector of tests/cross/rv64_run.c on QEMU's
 * RISC-V virt board, in the mode the build states (the same define as the
 * template's). Assembly because the CPU demands it: the stack pointer must
 * be set before any C runs, and a trap must save the registers C may
 * clobber before calling C and return with mret or sret (RISC-V Privileged
 * Architecture 3.1.7 mtvec / 4.1.2 stvec, 3.3.2 mret / sret).
 *
 * Machine mode (-bios none): QEMU starts every hart here at 0x80000000;
 * hart 0 runs the program (mhartid), the others park.
 * Supervisor mode (QEMU's default OpenSBI, fw_dynamic): OpenSBI starts one
 * hart here at 0x80200000 in S-mode with a0 = its hart id and a1 = the
 * device tree (SBI specification, "Binary Encoding"); it may be any hart,
 * the others wait for an SBI HSM start. S-mode cannot read mhartid, so the
 * hart id is kept in tp for the whole run (xv6's convention), where
 * rv_cpu_id() reads it.
 */
#if defined(IRQ_TEMPLATE_RISCV_M_MODE)
#define CSR_TVEC  mtvec
#define CSR_CAUSE mcause
#define CSR_EPC   mepc
#define CSR_TVAL  mtval
#define XRET      mret
#elif defined(IRQ_TEMPLATE_RISCV_S_MODE)
#define CSR_TVEC  stvec
#define CSR_CAUSE scause
#define CSR_EPC   sepc
#define CSR_TVAL  stval
#define XRET      sret
#else
#error "rv64_start.S is built for one mode: -DIRQ_TEMPLATE_RISCV_M_MODE or -DIRQ_TEMPLATE_RISCV_S_MODE"
#endif

	.section .text.start, "ax"
	.globl rv_start
rv_start:
#if defined(IRQ_TEMPLATE_RISCV_M_MODE)
	/* Only hart 0 runs the program; others (there are none with -smp 1) park. */
	csrr	a0, mhartid
	bnez	a0, 2f
#endif
	mv	tp, a0
	la	sp, rv_stack_top
	/* The trap vector: direct mode (low bits 0), every trap to rv_trap_entry (4-byte aligned). */
	la	t0, rv_trap_entry
	csrw	CSR_TVEC, t0
	call	rv_main
2:	wfi
	j	2b

/*
 * Every trap: save the caller-saved registers (ra, t0-t6, a0-a7: 16 of
 * them, in 128 bytes, keeping sp 16-byte aligned), call rv_trap(cause,
 * epc, tval), restore, return. The mode's interrupt-enable bit is off in
 * here (the hart cleared it when it took the trap; mret/sret put it back),
 * so traps do not nest.
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
	csrr	a0, CSR_CAUSE
	csrr	a1, CSR_EPC
	csrr	a2, CSR_TVAL
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
	XRET
