/*
 * smp_trampoline.S - where an application processor (AP) starts.
 *
 * A startup IPI (SIPI) with vector V starts an AP in real mode at CS:IP =
 * V*0x100:0000, physical address V*4096 (Intel SDM 3A 8.4.4.1 and 9.1.4;
 * MP spec 1.4 appendix B.4). smp.c copies [smp_trampoline_start,
 * smp_trampoline_end) to SMP_TRAMPOLINE_PHYS (below 1 MiB) and sends
 * V = SMP_TRAMPOLINE_PHYS >> 12. The 16-bit part loads a small flat GDT of
 * its own (the kernel's GDTs are per CPU and this CPU has none yet), sets
 * CR0.PE and far-jumps straight into the kernel's text at smp_ap_start32,
 * which runs at its linked address (the kernel is identity-mapped, and
 * paging is still off here).
 *
 * smp_ap_start32 draws a slot with `lock xadd` on smp_ap_ticket: APs woken
 * together by a broadcast SIPI all run this code at once, and the slot is
 * what keeps their stacks apart. A slot at or past smp_ap_slots (maxcpus=,
 * or more CPUs than SMP_MAX_CPUS) parks the AP here with interrupts off,
 * without ever touching a stack. Otherwise the AP takes the stack
 * smp_ap_stack_top[slot], the boot CPU's CR4 and CR3, turns paging on
 * (CR0.PG, CR0.WP as paging.c does) and calls smp_ap_entry(slot) in smp.c,
 * which never returns.
 */
#include <asm/trap.h>
#include <asm/smp.h>

#define CR0_PE 0x00000001
#define CR0_PG_WP 0x80010000

	.section .text
	.code16
	.global smp_trampoline_start, smp_trampoline_end
smp_trampoline_start:
	cli
	cld
	movw %cs, %ax                   /* CS = SMP_TRAMPOLINE_PHYS >> 4: offsets below are from the start */
	movw %ax, %ds
	lgdtl tramp_gdtr - smp_trampoline_start
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl $KERNEL_CS, $smp_ap_start32

	.align 8
tramp_gdt:
	.quad 0                          /* null */
	.quad 0x00CF9A000000FFFF         /* KERNEL_CS: flat 4 GiB code, ring 0, 32-bit */
	.quad 0x00CF92000000FFFF         /* KERNEL_DS: flat 4 GiB data, ring 0 */
tramp_gdtr:
	.word 3 * 8 - 1
	.long SMP_TRAMPOLINE_PHYS + (tramp_gdt - smp_trampoline_start)
smp_trampoline_end:

	.code32
	.type smp_ap_start32, @function
smp_ap_start32:
	movw $KERNEL_DS, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movw %ax, %fs
	movw %ax, %gs
	movl $1, %eax
	lock xaddl %eax, smp_ap_ticket   /* eax = this AP's slot */
	cmpl smp_ap_slots, %eax
	jae 2f
	movl smp_ap_stack_top(,%eax,4), %esp
	movl smp_ap_cr4, %ecx
	movl %ecx, %cr4
	movl smp_ap_cr3, %ecx
	movl %ecx, %cr3
	movl %cr0, %ecx
	orl $CR0_PG_WP, %ecx
	movl %ecx, %cr0
	xorl %ebp, %ebp                  /* ends frame-pointer backtraces */
	pushl $0
	popfl
	pushl %eax
	call smp_ap_entry
	/* smp_ap_entry does not return. */
2:	cli
	hlt
	jmp 2b
	.size smp_ap_start32, . - smp_ap_start32

/* No executable stack: the kernel never runs code from its stack. */
.section .note.GNU-stack,"",@progbits
