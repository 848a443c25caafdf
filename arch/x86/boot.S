/*
 * boot.S - the first instructions of irqkit.
 *
 * A multiboot (0.6.96) loader enters _start in 32-bit protected mode with
 * paging off, interrupts off, EAX = 0x2BADB002 and EBX = the physical
 * address of the multiboot information. We set up a stack and call
 * kmain(magic, info) in kernel/main.c; the GDT and IDT are ours from
 * there on (arch/x86/gdt.c, arch/x86/idt.c).
 */
#include <asm/multiboot.h>

#define BOOT_STACK_SIZE 16384   /* bytes of the boot (and only) kernel stack */
#define MB_FLAGS (MULTIBOOT_PAGE_ALIGN | MULTIBOOT_MEMORY_INFO)

	.section .multiboot, "a"
	.align 4
	.long MULTIBOOT_HEADER_MAGIC
	.long MB_FLAGS
	.long -(MULTIBOOT_HEADER_MAGIC + MB_FLAGS)

	.section .text.boot, "ax"
	.global _start
	.type _start, @function
_start:
	cli
	cld
	movl $boot_stack_top, %esp
	xorl %ebp, %ebp              /* ends frame-pointer backtraces */
	pushl $0                     /* EFLAGS = 0: IF, DF, AC clear */
	popfl
	pushl %ebx                   /* multiboot info */
	pushl %eax                   /* loader magic */
	call kmain
	/* kmain does not return; if it ever did, stop here for good. */
1:	cli
	hlt
	jmp 1b
	.size _start, . - _start

	/* The page under the stack is unmapped by paging_init(): a stack
	 * overflow page-faults there, which becomes a double fault, reported
	 * by the double-fault task (traps.c) instead of a triple fault. */
	.section .bss
	.align 4096
	.global boot_stack_guard, boot_stack_bottom, boot_stack_top
boot_stack_guard:
	.skip 4096
boot_stack_bottom:
	.skip BOOT_STACK_SIZE
boot_stack_top:

/* No executable stack: the kernel never runs code from its stack. */
.section .note.GNU-stack,"",@progbits
