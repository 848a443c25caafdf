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
 *
 * Before any C runs, cpu_check makes sure this CPU can execute the kernel:
 * the C code is compiled with -march=i686 (the Makefile's KERNEL_CFLAGS),
 * so a Pentium or a 486 would meet a CMOV at the first message and, with no
 * IDT yet, triple-fault and reset without a word. cpu_check itself uses only
 * instructions a 386 has, and says what is missing on COM1 and on the VGA
 * text screen, then halts.
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
	movl %eax, %esi              /* loader magic, kept across cpu_check */
	movl %ebx, %edi              /* information structure */
	pushl $0                     /* EFLAGS = 0: IF, DF, AC, ID clear */
	popfl
	call cpu_check               /* returns only on a CPU that can run the kernel */
	xorl %ebp, %ebp              /* ends frame-pointer backtraces */
	pushl %edi                   /* multiboot info */
	pushl %esi                   /* loader magic */
	call kmain
	/* kmain does not return; if it ever did, stop here for good. */
1:	cli
	hlt
	jmp 1b
	.size _start, . - _start

/* ------------------------------------------------------------------------
 * cpu_check - what the C code needs of the CPU (Intel SDM 2A, CPUID; SDM 1
 * 19.1 on telling a 386 and a 486 without CPUID apart by EFLAGS bits).
 * Only 386 instructions from here to the end of the early console below.
 */
#define EFLAGS_AC   0x00040000   /* alignment check: a 386 cannot set it */
#define EFLAGS_ID   0x00200000   /* a CPU that can toggle it has CPUID */
#define CPUID1_EDX_PSE  (1 << 3)   /* 4 MiB pages: paging.c without PAE */
#define CPUID1_EDX_TSC  (1 << 4)   /* RDTSC: the clock (tsc.c, x86_time.c) */
#define CPUID1_EDX_CMOV (1 << 15)  /* CMOVcc: gcc's -march=i686 uses it everywhere */
#define CPU_NEEDS_EDX (CPUID1_EDX_PSE | CPUID1_EDX_TSC | CPUID1_EDX_CMOV)

	.type cpu_check, @function
cpu_check:
	pushl %ebx
	pushl %esi
	pushl %edi
	movl $EFLAGS_AC, %eax
	call eflags_bit_toggles
	jz .Lis_386
	movl $EFLAGS_ID, %eax
	call eflags_bit_toggles
	jz .Lno_cpuid
	xorl %eax, %eax
	cpuid
	cmpl $1, %eax
	jb .Lno_leaf1
	movl $1, %eax
	cpuid
	notl %edx
	andl $CPU_NEEDS_EDX, %edx    /* the features needed and absent */
	jnz .Lmissing
	popl %edi
	popl %esi
	popl %ebx
	ret
.Lis_386:
	movl $msg_386, %esi
	jmp .Lrefuse
.Lno_cpuid:
	movl $msg_no_cpuid, %esi
	jmp .Lrefuse
.Lno_leaf1:
	movl $msg_no_leaf1, %esi
	jmp .Lrefuse
.Lmissing:
	movl %edx, %ebx
	call early_console_init
	movl $msg_lacks, %esi
	call early_puts
	movl $cpu_feature_names, %edi
2:	movl (%edi), %eax            /* mask; 0 ends the table */
	testl %eax, %eax
	jz 3f
	testl %eax, %ebx
	jz 4f
	movl 4(%edi), %esi
	call early_puts
4:	addl $8, %edi
	jmp 2b
3:	movl $msg_newline, %esi
	call early_puts
	movl $msg_needs, %esi
	call early_puts
	jmp .Lhalt
.Lrefuse:
	pushl %esi
	call early_console_init
	movl $msg_cannot, %esi
	call early_puts
	popl %esi
	call early_puts
	movl $msg_needs, %esi
	call early_puts
.Lhalt:
	/* Halt, never reset: a reset would restart the loader and loop. */
	cli
	hlt
	jmp .Lhalt
	.size cpu_check, . - cpu_check

/* eflags_bit_toggles - ZF clear if the EFLAGS bit(s) in %eax can be flipped. Clobbers %ecx, %edx. */
	.type eflags_bit_toggles, @function
eflags_bit_toggles:
	movl %eax, %edx
	pushfl
	popl %ecx                    /* %ecx = EFLAGS as it was */
	movl %ecx, %eax
	xorl %edx, %eax
	pushl %eax
	popfl                        /* try the flipped value */
	pushfl
	popl %eax
	pushl %ecx
	popfl                        /* put EFLAGS back */
	xorl %ecx, %eax              /* the bits that did flip */
	testl %edx, %eax
	ret
	.size eflags_bit_toggles, . - eflags_bit_toggles

/* ------------------------------------------------------------------------
 * The early console: COM1 polled (16550: 115200 8N1, as drivers/serial) and
 * the VGA text screen at 0xB8000 (80x25, cleared first). Only for the
 * refusal above; every wait for the UART is bounded, so a PC without COM1
 * still gets the screen.
 */
#define COM1            0x3F8
#define UART_IER        1
#define UART_FCR        2
#define UART_LCR        3
#define UART_MCR        4
#define UART_LSR        5
#define UART_LCR_DLAB   0x80
#define UART_LCR_8N1    0x03
#define UART_FCR_ENABLE 0xC7         /* FIFOs on and cleared, 14-byte trigger */
#define UART_MCR_DTR_RTS 0x03
#define UART_LSR_THRE   0x20         /* transmit holding register empty */
#define UART_DIVISOR_115200 1
#define UART_SPINS      100000       /* LSR reads before giving up on one character */
#define VGA_TEXT        0xB8000
#define VGA_CELLS       (80 * 25)
#define VGA_LINE_BYTES  160
#define VGA_BLANK       0x0720       /* space, light grey on black */
#define VGA_ATTR        0x0F         /* bright white on black */

/* uart_out - write %al to COM1 register at offset %dx. */
#define UART_OUT(reg, value) movw $(COM1 + reg), %dx; movb $(value), %al; outb %al, %dx

	.type early_console_init, @function
early_console_init:
	UART_OUT(UART_IER, 0)
	UART_OUT(UART_LCR, UART_LCR_DLAB)
	UART_OUT(0, UART_DIVISOR_115200)
	UART_OUT(UART_IER, 0)
	UART_OUT(UART_LCR, UART_LCR_8N1)
	UART_OUT(UART_FCR, UART_FCR_ENABLE)
	UART_OUT(UART_MCR, UART_MCR_DTR_RTS)
	movl $VGA_TEXT, %edx
	movl $VGA_CELLS, %ecx
1:	movw $VGA_BLANK, (%edx)
	addl $2, %edx
	loop 1b
	movl $0, early_vga_pos
	ret
	.size early_console_init, . - early_console_init

/* early_puts - write the NUL-terminated string at %esi. Clobbers %eax, %ecx, %edx, %esi. */
	.type early_puts, @function
early_puts:
1:	movb (%esi), %al
	testb %al, %al
	jz 9f
	incl %esi
	/* COM1: wait (bounded) for room, then send. */
	movb %al, %ah
	movl $UART_SPINS, %ecx
	movw $(COM1 + UART_LSR), %dx
2:	inb %dx, %al
	testb $UART_LSR_THRE, %al
	jnz 3f
	loop 2b
3:	movb %ah, %al
	movw $COM1, %dx
	outb %al, %dx
	/* VGA: a newline moves to the start of the next line. */
	movl early_vga_pos, %ecx
	cmpb $'\n', %ah
	jne 4f
	movl %ecx, %eax
	xorl %edx, %edx
	movl $VGA_LINE_BYTES, %ecx
	divl %ecx
	incl %eax
	mull %ecx
	movl %eax, %ecx
	jmp 5f
4:	cmpl $(VGA_CELLS * 2), %ecx
	jae 1b                       /* screen full: serial only */
	movb %ah, VGA_TEXT(%ecx)
	movb $VGA_ATTR, VGA_TEXT + 1(%ecx)
	addl $2, %ecx
5:	movl %ecx, early_vga_pos
	jmp 1b
9:	ret
	.size early_puts, . - early_puts

	.section .rodata
msg_cannot:
	.asciz "irqkit: this CPU cannot run this kernel: "
msg_386:
	.asciz "it is a 386 (EFLAGS.AC cannot be set).\n"
msg_no_cpuid:
	.asciz "it has no CPUID instruction (EFLAGS.ID does not toggle: a 486 or older).\n"
msg_no_leaf1:
	.asciz "its CPUID has no feature leaf 1.\n"
msg_lacks:
	.asciz "irqkit: this CPU cannot run this kernel: CPUID.1:EDX lacks"
msg_newline:
	.asciz ".\n"
msg_needs:
	.ascii "irqkit: this kernel is built with -march=i686 and needs CPUID, 4 MiB pages (PSE),\n"
	.ascii "irqkit: the time-stamp counter (TSC) and conditional moves (CMOV):\n"
	.ascii "irqkit: a Pentium Pro, Pentium II or any later x86. Halted.\n"
	.byte 0
str_pse:
	.asciz " PSE (4 MiB pages)"
str_tsc:
	.asciz " TSC (time-stamp counter)"
str_cmov:
	.asciz " CMOV (conditional move)"
	.align 4
cpu_feature_names:
	.long CPUID1_EDX_PSE, str_pse
	.long CPUID1_EDX_TSC, str_tsc
	.long CPUID1_EDX_CMOV, str_cmov
	.long 0, 0

	.section .bss
	.align 4
early_vga_pos:
	.skip 4                      /* byte offset of the next cell on the early screen */

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
