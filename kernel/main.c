/*
 * main.c - kmain(), where boot.S hands over: the order in which irqkit
 * brings itself up. Each step prints one or two lines, so the boot log
 * reads as the story of this function.
 */
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/trap.h>
#include <asm/paging.h>
#include <asm/i8259.h>
#include <asm/tsc.h>
#include <asm/x86_time.h>
#include <irq/irqchip.h>
#include <kernel/bootinfo.h>
#include <kernel/console.h>
#include <kernel/printk.h>
#include <kernel/log.h>
#include <kernel/panic.h>
#include <kernel/params.h>
#include <kernel/heap.h>
#include <kernel/selftest.h>
#include <kernel/shell.h>
#include <kernel/crash.h>
#include <kernel/fault.h>
#include <kernel/version.h>
#include <kernel/errno.h>
#include <drivers/serial.h>
#include <drivers/pci.h>
#include <time/time.h>

#define MIB (1024u * 1024u)
#define HEAP_MIN_BYTES (1u * MIB)   /* refuse to run with less heap than this */
#define FOUR_GIB 0x100000000ull

extern char __kernel_start[], __kernel_end[];

/* Give every usable RAM region above the kernel image (and below 4 GiB) to the heap. */
static void heap_setup(void)
{
	uint64_t floor = (uint64_t)(uintptr_t)__kernel_end;
	uint64_t given = 0;

	for (unsigned int i = 0; i < boot_info.nr_regions; i++) {
		const struct mem_region *r = &boot_info.regions[i];
		uint64_t lo = r->base, hi = r->base + r->len;

		if (r->type != 1)
			continue;
		if (lo < floor)
			lo = floor;
		if (hi > FOUR_GIB)
			hi = FOUR_GIB;
		if (hi <= lo || hi - lo < 4096)
			continue;
		if (kmalloc_add_region((void *)(uintptr_t)lo, (size_t)(hi - lo)) == 0)
			given += hi - lo;
	}
	if (given < HEAP_MIN_BYTES)
		panic("heap_setup: only %u KiB of RAM above the kernel; irqkit needs at least %u KiB",
		      (unsigned int)(given / 1024), HEAP_MIN_BYTES / 1024);
	pr_info("heap: %u KiB from %#x up\n", (unsigned int)(given / 1024), (unsigned int)floor);
}

void kmain(uint32_t magic, uint32_t mbi_phys)
{
	int mb_err;

	console_init();
	uart_early_init();
	vga_text_init();
	mb_err = multiboot_parse(magic, mbi_phys);
	pr_info("irqkit %s: an x86 kernel whose interrupt layer survives broken hardware\n",
		IRQKIT_VERSION);
	gdt_init();
	idt_init();
	if (mb_err)
		panic("kmain: %s", boot_info.problem);
	boot_info_print();
	params_parse(boot_info.cmdline);
	paging_init();
	heap_setup();

	irq_core_init();
	i8259_init();
	i8259_register_lines();
	if (tsc_calibrate())
		printk_set_clock(tsc_ns);
	x86_time_init(param_hz);
	pci_init();
	cpu_sti();
	uart_irq_init(UART_ISA_IRQ);

	fault_apply_boot();
	pr_info("boot: complete in %u ms\n", (unsigned int)(ktime_get_ns() / 1000000u));
	if (param_selftest[0]) {
		int failed = selftest_run(param_selftest);
		if (debugexit_port)
			kernel_exit(failed ? KEXIT_FAIL : KEXIT_PASS);
	}
	if (param_crash[0] && crash_raise(param_crash) == -EINVAL)
		pr_warn("crash=%s: unknown exception name\n", param_crash);
	shell_run();
}
