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
#include <asm/smp.h>
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
#include <drivers/fbcon.h>
#include <drivers/pci.h>
#include <drivers/ahci.h>
#include <drivers/ata.h>
#include <drivers/nvme.h>
#include <drivers/usb.h>
#include <drivers/input.h>
#include <irq/policy.h>
#include <irq/stats.h>
#include <time/time.h>
#include <time/time.h>
#include <asm/apic.h>
#include <firmware.h>
#include <hpet.h>
#include <kernel/string.h>

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

static uint8_t bda_copy[FW_BDA_SIZE];
static struct fw_platform fw_acpi, fw_mp;
static struct fw_window fw_win;
static struct fw_pir fw_pir;
static bool fw_mp_valid, fw_acpi_valid;

static void fw_log(void *ctx, const char *line)
{
	(void)ctx;
	pr_info("%s\n", line);
}

/*
 * The window the table parsers read through: the BIOS areas, and every range
 * the memory map gives the firmware (reserved, ACPI, NVS: where ACPI tables
 * and the EFI system table live), from 1 MiB up to the MMIO window. Usable
 * RAM is not in it: the heap owns it by now. Neighbours are merged into one
 * range, so that a table crossing from one to the next is still readable.
 */
static void fw_window_setup(void)
{
	uint64_t start = 0, end = 0;

	fw_window_init(&fw_win);
	fw_window_add_legacy_bios(&fw_win, bda_copy);
	for (unsigned int i = 0; i <= boot_info.nr_regions; i++) {
		const struct mem_region *r = i < boot_info.nr_regions ? &boot_info.regions[i] : NULL;
		bool firmware = r && r->type != BOOT_MEM_USABLE && r->base >= 0x100000ull &&
			r->base < PAGING_UNCACHED_START;

		if (firmware && r->base == end && end != 0) {
			end = r->base + r->len;
			continue;
		}
		if (end > start) {
			if (end > PAGING_UNCACHED_START)
				end = PAGING_UNCACHED_START;
			if (fw_window_add_identity(&fw_win, (uint32_t)start, (uint32_t)(end - start)) == -ENOSPC)
				pr_warn("firmware: more firmware ranges than the table window holds (%u); the rest not searched\n",
					FW_WINDOW_MAX_REGIONS);
		}
		start = firmware ? r->base : 0;
		end = firmware ? r->base + r->len : 0;
	}
}

/* Firmware tables: ACPI (MADT) preferred, the MP table otherwise. */
static const struct fw_platform *firmware_discover(void)
{
	int a, m;

	fw_window_setup();
	a = acpi_find(&fw_win, &fw_acpi);
	m = mptable_parse(&fw_win, &fw_mp);
	fw_mp_valid = m == 0;
	fw_acpi_valid = a == 0;
	pirtable_parse(&fw_win, &fw_pir);
	if (a == 0 && fw_acpi.acpi.madt_found) {
		fw_platform_print(&fw_acpi, fw_log, NULL);
		return &fw_acpi;
	}
	if (m == 0) {
		fw_platform_print(&fw_mp, fw_log, NULL);
		return &fw_mp;
	}
	return NULL;
}

/* Route every PCI function's INTx pin and register its line with the interrupt controller. */
static void pci_routing_setup(void)
{
	bool ioapic = x86_irq_mode() == X86_IRQ_MODE_IOAPIC;

	pci_route_set_gsi_resolver(ioapic_resolve_gsi, NULL);
	/* Only the MP table lists PCI interrupts; with ACPI alone the $PIR path uses the MADT. */
	pci_route_all(fw_mp_valid ? &fw_mp : &fw_acpi, &fw_pir, ioapic);
	for (unsigned int i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device_at(i);
		if (d && d->route.source != PCI_ROUTE_NONE)
			x86_setup_pci_line(d->route.line, d->route.level, d->route.active_low);
	}
}

static const char banner[] = "irqkit " IRQKIT_VERSION ": an x86 kernel whose interrupt layer survives broken hardware";

/*
 * The screen: the loader's linear framebuffer (multiboot2 on UEFI) gets the
 * framebuffer console, drawn once paging can map it; otherwise the VGA text
 * mirror - on a BIOS, or when the loader said nothing (multiboot 1). Under
 * UEFI without a framebuffer there is no text mode to write to.
 */
static void screen_setup(void)
{
	if (boot_info.fb.kind == BOOT_FB_RGB)
		fbcon_early_init();
	else if (boot_info.fb.kind == BOOT_FB_EGA_TEXT || !boot_info.efi_bits)
		vga_text_init();
}

void kmain(uint32_t magic, uint32_t mbi_phys)
{
	const struct fw_platform *fw;
	int mb_err;

	gdt_init();           /* first: %gs = this CPU's data (smp_processor_id()) for every lock below */
	console_init();
	uart_early_init();
	mb_err = multiboot_parse(magic, mbi_phys);
	screen_setup();
	pr_info("%s\n", banner);
	idt_init();
	if (mb_err)
		panic("kmain: %s", boot_info.problem);
	boot_info_print();
	params_parse(boot_info.cmdline);
	memcpy(bda_copy, (const void *)0x400, FW_BDA_SIZE);
	paging_init();
	heap_setup();
	if (boot_info.fb.kind == BOOT_FB_RGB)
		fbcon_init(&boot_info.fb, banner);   /* maps the screen (maybe above 4 GiB): after paging and heap */

	irq_core_init();
	i8259_init();
	i8259_register_lines();
	fw = firmware_discover();
	x86_interrupt_setup(fw, apic_noapic);
	if (tsc_calibrate())
		printk_set_clock(tsc_ns);
	x86_time_init(param_hz);
	lapic_timer_init();
	smp_init(fw, fw_mp_valid ? &fw_mp : NULL);
	pci_init();
	pci_routing_setup();
	hpet_init(fw_acpi_valid ? &fw_acpi.hpet : NULL);
	x86_time_report();
	irq_defences_start();
	/* The tick looks at busy lines' verified expects: no poll timer per command (kernel/irq/tick_look.c). */
	if (time_tick_mode() != TICK_MODE_NONE) {
		time_set_tick_hook(irq_tick, irq_tick_wanted);
		irq_tick_start(NSEC_PER_SEC / tick_hz());
	}
	cpu_sti();
	uart_irq_init((unsigned int)isa_irq_to_line(UART_ISA_IRQ));
	ata_init();
	ahci_init();          /* SATA HBAs: disks sda..., ATAPI sr0... */
	nvme_init();
	usb_kbd_init();       /* USB class drivers first: devices are offered to them as they enumerate */
	usb_storage_init();
	uhci_init();          /* USB: controllers now, devices from work in the shell's idle loop */
	/* PS/2 after the USB controllers: their firmware keyboard emulation is off by now. */
	i8042_init(fw_acpi_valid ? &fw_acpi.fadt : NULL);

	irq_affinity_apply_boot();
	fault_apply_boot();
	irq_health_report();
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
