/*
 * pci_shell.c - the shell commands that show what drivers/pci/ found:
 * "lspci [-v]" (the functions, in the spirit of pciutils' lspci) and
 * "routes" (each pin's routing decision and the PIRQ router's registers
 * as they read now, so a fault injected with pirq_router_set shows up).
 * Output goes to the console with cprintf.
 */
#include <stdint.h>
#include <asm/paging.h>

#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#include "pci_internal.h"

/* lspci -v shows the MSI state when msi.c is linked in (the kernel); a weak reference is NULL otherwise. */
extern void pci_msi_print(const struct pci_dev *dev) __attribute__((weak));
/* ... and how a memory BAR is mapped when paging.c is (the kernel; not the host tests of this file). */
extern void mmio_describe(uint64_t phys, char *buf, size_t len) __attribute__((weak));

enum shell_limits {
	SIZE_TEXT_MAX = 24,          /* "[size 1023K]" and friends */
	MAP_TEXT_MAX = 96,           /* how a BAR is mapped: "mapped at 0x8000000 (PAE window), uncached" */
	TAIL_TEXT_MAX = 96,          /* ", INTD -> GSI 11 (MP table)" */
	CAPS_TEXT_MAX = 200,         /* "[dc] PM, [e4] PCIe, ..." */
	KIB_SHIFT = 10,              /* sizes are printed in the largest exact unit */
};

static const char *size_text(uint64_t size, char *buf, size_t len)
{
	static const char units[] = { 'G', 'M', 'K' };
	unsigned int i;

	for (i = 0; i < sizeof(units); i++) {
		unsigned int shift = (unsigned int)(sizeof(units) - i) * KIB_SHIFT;

		if (size >= (1ull << shift) && (size & ((1ull << shift) - 1)) == 0) {
			ksnprintf(buf, len, "%llu%c", (unsigned long long)(size >> shift), units[i]);
			return buf;
		}
	}
	ksnprintf(buf, len, "%llu", (unsigned long long)size);
	return buf;
}

static const char *line_text(const struct pci_route *r, char *buf, size_t len)
{
	ksnprintf(buf, len, "%s %u", r->is_gsi ? "GSI" : "IRQ", r->line);
	return buf;
}

/* ", INTD -> GSI 11 (MP table)" for the summary line; "" without a pin. */
static void route_tail(const struct pci_dev *d, bool routed, char *buf, size_t len)
{
	char line[SIZE_TEXT_MAX];

	buf[0] = '\0';
	if (!d->irq_pin)
		return;
	if (!routed)
		ksnprintf(buf, len, ", %s (Interrupt Line %u; not routed yet)", pci_pin_name(d->irq_pin),
			  d->irq_line);
	else if (d->route.source == PCI_ROUTE_NONE)
		ksnprintf(buf, len, ", %s -> no line", pci_pin_name(d->irq_pin));
	else
		ksnprintf(buf, len, ", %s -> %s (%s)", pci_pin_name(d->irq_pin),
			  line_text(&d->route, line, sizeof(line)), pci_route_source_name(d->route.source));
}

static void print_bar(unsigned int i, const struct pci_bar *bar)
{
	char size[SIZE_TEXT_MAX];

	if (bar->flags & PCI_BAR_UPPER_HALF)
		return;
	if (bar->flags & PCI_BAR_BAD) {
		cprintf("        BAR%u: unusable (reserved memory type or no room for a 64-bit BAR)\n", i);
		return;
	}
	if (bar->size == 0)
		return;
	size_text(bar->size, size, sizeof(size));
	if (bar->flags & PCI_BAR_IO)
		cprintf("        BAR%u: I/O ports at 0x%04llx [size %s]\n", i, (unsigned long long)bar->base, size);
	else {
		char how[MAP_TEXT_MAX] = "";

		if (mmio_describe) {
			how[0] = ',';
			how[1] = ' ';
			mmio_describe(bar->base, how + 2, sizeof(how) - 2);
		}
		cprintf("        BAR%u: memory at 0x%08llx (%s, %sprefetchable) [size %s]%s\n", i,
			(unsigned long long)bar->base,
			(bar->flags & PCI_BAR_MEM64) ? "64-bit" : (bar->flags & PCI_BAR_BELOW_1M) ? "below 1M" : "32-bit",
			(bar->flags & PCI_BAR_PREFETCH) ? "" : "non-", size, how);
	}
}

static void print_caps(const struct pci_dev *d)
{
	char text[CAPS_TEXT_MAX] = "";
	size_t used = 0;
	unsigned int i;

	if (d->cap_count == 0 && !d->caps_bad)
		return;
	for (i = 0; i < d->cap_count && used < sizeof(text); i++) {
		int n = ksnprintf(text + used, sizeof(text) - used, "%s[%02x] %s", i ? ", " : "",
				  d->cap[i].offset, pci_cap_name(d->cap[i].id));
		if (n > 0)
			used += (size_t)n;
	}
	cprintf("        capabilities: %s%s\n", text, d->caps_bad ? " (list broken: loop, bad pointer or too long)" : "");
}

static void print_verbose(const struct pci_dev *d, bool routed)
{
	static const char *const kinds[] = { "normal", "PCI bridge", "CardBus bridge" };
	char line[SIZE_TEXT_MAX];
	unsigned int i;

	cprintf("        command 0x%04x, status 0x%04x, header %s%s\n", d->command, d->status,
		d->header_kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[d->header_kind] : "unknown",
		d->multifunction ? ", multifunction" : "");
	if (d->header_kind == PCI_HEADER_BRIDGE || d->header_kind == PCI_HEADER_CARDBUS)
		cprintf("        buses: secondary %02x, subordinate %02x (%s)\n", d->secondary_bus,
			d->subordinate_bus, d->bus_followed ? "scanned" : "not followed");
	for (i = 0; i < d->bar_count && i < PCI_MAX_BARS; i++)
		print_bar(i, &d->bar[i]);
	print_caps(d);
	if (pci_msi_print)   /* drivers/pci/msi.c; absent from host tests of this file */
		pci_msi_print(d);
	if (d->irq_pin && routed && d->route.source != PCI_ROUTE_NONE)
		cprintf("        route: %s -> %s, %s, %s, from %s\n", pci_pin_name(d->irq_pin),
			line_text(&d->route, line, sizeof(line)), d->route.level ? "level" : "edge",
			d->route.active_low ? "active-low" : "active-high", pci_route_source_name(d->route.source));
	if (d->irq_pin && routed && d->route.why[0])
		cprintf("        skipped: %s\n", d->route.why);
}

int pci_cmd_lspci(int argc, char **argv)
{
	bool verbose = false, routed = pci_routes_done(NULL);
	char bdf[PCI_BDF_LEN], tail[TAIL_TEXT_MAX];
	unsigned int i;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "-v") != 0)) {
		cprintf("usage: lspci [-v]\n");
		return -EINVAL;
	}
	verbose = argc == 2;
	if (pci_device_count() == 0)
		cprintf("lspci: no PCI functions (no configuration mechanism, or pci_init did not run)\n");
	for (i = 0; i < pci_device_count(); i++) {
		const struct pci_dev *d = pci_device_at(i);

		route_tail(d, routed, tail, sizeof(tail));
		cprintf("%s %04x:%04x %s (rev %02x)%s\n", pci_bdf(d, bdf), d->vendor_id, d->device_id,
			pci_class_name(d->class_code, d->subclass, d->prog_if), d->revision, tail);
		if (verbose)
			print_verbose(d, routed);
	}
	return 0;
}

static void print_route_row(const struct pci_dev *d)
{
	const struct pci_route *r = &d->route;
	char bdf[PCI_BDF_LEN], line[SIZE_TEXT_MAX];

	pci_bdf(d, bdf);
	if (r->source == PCI_ROUTE_NONE) {
		cprintf("  %s %s -> none\n", bdf, pci_pin_name(d->irq_pin));
	} else {
		cprintf("  %s %s -> %-7s %-5s %-11s %s", bdf, pci_pin_name(d->irq_pin),
			line_text(r, line, sizeof(line)), r->level ? "level" : "edge",
			r->is_gsi ? (r->active_low ? "active-low" : "active-high") : "-",
			pci_route_source_name(r->source));
		if (r->source == PCI_ROUTE_MPTABLE)
			cprintf(" (IOAPIC %u pin %u)", r->ioapic_id, r->ioapic_pin);
		else if (r->source == PCI_ROUTE_PIR)
			cprintf(" (link 0x%02x)", r->link);
		cprintf("\n");
	}
	if (r->why[0])
		cprintf("      skipped: %s\n", r->why);
}

static void print_router(void)
{
	const struct pirq_router_regs *router = pirq_router_current();
	unsigned int i;

	if (!router) {
		cprintf("router: no PIIX3/PIIX4/ICH9 PIRQ router found\n");
		return;
	}
	cprintf("router %02x:%02x.%u %04x:%04x %s, route registers now:\n", router->bus,
		pci_devfn_dev(router->devfn), pci_devfn_fn(router->devfn), router->type->vendor_id, router->type->device_id, router->type->name);
	for (i = 0; i < router->type->links && i < PIRQ_LINKS_MAX; i++) {
		uint8_t value = 0;
		int irq;

		if (pirq_router_get(router->type->reg[i], &value) < 0) {
			cprintf("  PIRQ%c (0x%02x): unreadable\n", 'A' + i, router->type->reg[i]);
			continue;
		}
		irq = pirq_route_irq(value);
		if (irq >= 0)
			cprintf("  PIRQ%c (0x%02x) = 0x%02x -> IRQ %d\n", 'A' + i, router->type->reg[i], value, irq);
		else
			cprintf("  PIRQ%c (0x%02x) = 0x%02x -> %s\n", 'A' + i, router->type->reg[i], value,
				irq == -EPERM ? "disabled" : "reserved value");
	}
}

int pci_cmd_routes(int argc, char **argv)
{
	bool ioapic_mode = false;
	unsigned int i;

	(void)argv;
	if (argc > 1) {
		cprintf("usage: routes\n");
		return -EINVAL;
	}
	if (!pci_routes_done(&ioapic_mode)) {
		cprintf("routes: PCI interrupts not routed yet (pci_route_all has not run)\n");
		return 0;
	}
	cprintf("pci routes, %s, pci_route=%s:\n", ioapic_mode ? "IOAPIC mode (GSIs)" : "PIC mode (ISA IRQs)",
		pci_route_choice_name(pci_route_choice()));
	for (i = 0; i < pci_device_count(); i++) {
		const struct pci_dev *d = pci_device_at(i);

		if (d->irq_pin)
			print_route_row(d);
	}
	print_router();
	return 0;
}
