/*
 * boot.S - the first instructions of irqkit.
 *
 * The image carries two headers, so that either loader protocol starts it:
 * multiboot 0.6.96 (QEMU's -kernel, GRUB's `multiboot`; EAX = 0x2BADB002)
 * and multiboot2 (GRUB's `multiboot2`, the default entry of iso/grub.cfg,
 * on BIOS and on UEFI; EAX = 0x36D76289). Either enters _start in 32-bit
 * protected mode with paging and interrupts off and EBX = the physical
 * address of its information structure. kmain(magic, info) in kernel/main.c
 * tells the two apart (arch/x86/multiboot.c); the GDT and IDT are ours from
 * there on (arch/x86/gdt.c, arch/x86/idt.c).
 */
#include <asm/multiboot.h>
#include <asm/multiboot2.h>

#define BOOT_STACK_SIZE 16384   /* bytes of the boot (and only) kernel stack */
#define MB_FLAGS (MULTIBOOT_PAGE_ALIGN | MULTIBOOT_MEMORY_INFO)

/* The screen irqkit asks a multiboot2 loader for (optional: any mode, or none, also boots). */
#define MB2_FB_WANT_WIDTH  1024
#define MB2_FB_WANT_HEIGHT 768
#define MB2_FB_WANT_DEPTH  32

	.section .multiboot, "a"
	.align 8
	/* Multiboot 0.6.96 header (spec 3.1.1): magic, flags, checksum. */
	.long MULTIBOOT_HEADER_MAGIC
	.long MB_FLAGS
	.long -(MULTIBOOT_HEADER_MAGIC + MB_FLAGS)

	/* Multiboot2 header (spec 3.1): magic, architecture, length, checksum, tags. */
	.align 8
mb2_header:
	.long MB2_HEADER_MAGIC
	.long MB2_ARCH_I386
	.long mb2_header_end - mb2_header
	.long -(MB2_HEADER_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	/* The information irqkit reads (optional: GRUB gives all of it anyway). */
	.align 8
mb2_info_request:
	.short MB2_HTAG_INFO_REQUEST
	.short MB2_HTAG_OPTIONAL
	.long mb2_info_request_end - mb2_info_request
	.long MB2_TAG_CMDLINE, MB2_TAG_LOADER_NAME, MB2_TAG_BASIC_MEMINFO, MB2_TAG_MMAP
	.long MB2_TAG_FRAMEBUFFER, MB2_TAG_EFI32, MB2_TAG_EFI64, MB2_TAG_ACPI_OLD
	.long MB2_TAG_ACPI_NEW, MB2_TAG_EFI_MMAP
mb2_info_request_end:
	/* A linear framebuffer: under UEFI there is no VGA text mode, and without
	 * this tag GRUB leaves the kernel no screen at all. On BIOS iso/grub.cfg
	 * sets gfxpayload=text, so the VGA text screen stays. */
	.align 8
	.short MB2_HTAG_FRAMEBUFFER
	.short MB2_HTAG_OPTIONAL
	.long 20
	.long MB2_FB_WANT_WIDTH, MB2_FB_WANT_HEIGHT, MB2_FB_WANT_DEPTH
	.align 8
	.short MB2_HTAG_END
	.short 0
	.long 8
mb2_header_end:

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

	.section .bss
	/* The page under the stack is unmapped by paging_init(): a stack
	 * overflow page-faults there, which becomes a double fault, reported
	 * by the double-fault task (traps.c) instead of a triple fault. */
	.align 4096
	.global boot_stack_guard, boot_stack_bottom, boot_stack_top
boot_stack_guard:
	.skip 4096
boot_stack_bottom:
	.skip BOOT_STACK_SIZE
boot_stack_top:

/* No executable stack: the kernel never runs code from its stack. */
.section .note.GNU-stack,"",@progbits
