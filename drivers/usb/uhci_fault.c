/*
 * uhci_fault.c - faults that really break the UHCI's interrupt delivery at
 * the chipset (registry: include/kernel/fault.h; `fault=` and `inject`):
 *
 *   uhci-misroute  the PIRQ route register of the controller's INTx is
 *                  pointed at another ISA IRQ, one no driver requested and
 *                  no PCI function is routed to, so its line stays masked:
 *                  the interrupt arrives, at a place nobody listens. On
 *                  ICH9 (q35) the interrupt also always reaches IOAPIC GSI
 *                  16 + PIRQ (QEMU-FACTS), which nobody uses either.
 *   uhci-noroute   the route register gets IRQEN# (bit 7): on PIIX the
 *                  interrupt reaches no input at all; on ICH9 only the
 *                  ISA path goes and it still reaches GSI 16 + PIRQ.
 *
 * The routing tables (MP table, $PIR, Interrupt Line) keep naming the old
 * line: kernel/irq must find out by watching (uhci.c calls watch_irq).
 * `inject off NAME` writes back the value the register had.
 *
 * Which PIRQ: the $PIR link when the routing used it; else the chipset's
 * own wiring: on PIIX3/PIIX4 a bus-0 device's INTx drives PIRQ
 * (device + INTx - 1) mod 4, counting INTA as 0 (the i440FX board wiring
 * QEMU and SeaBIOS use: 00:01.2 INTD -> PIRQD, 00:03.0 INTA -> PIRQC);
 * on ICH9 the Device 29 Interrupt Route register (D29IR, chipset
 * configuration space at RCBA + 0x3108, ICH9 datasheet 10.1.71) says it.
 */
#include <stdint.h>
#include <asm/apic.h>
#include <asm/io.h>
#include <drivers/pci.h>
#include <drivers/usb.h>
#include <irq/stats.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/printk.h>

enum uhci_fault_consts {
	UHCI_FAULT_MAX = 4,              /* controllers a fault acts on */
	PIRQ_A = 0x60,                   /* route register of PIRQA; B-D follow */
	PIRQ_E = 0x68,                   /* ICH9: PIRQE; F-H follow */
	PIRQ_DISABLE = 0x80,             /* IRQEN#: route off */
	ICH9_LPC_RCBA = 0xF0,            /* LPC config: root complex base address */
	ICH9_RCBA_EN = 0x1,
	ICH9_RCBA_MASK = 0xFFFFC000u,
	ICH9_D29IR = 0x3108,             /* device 29 INTA-D route: 3 bits per pin, 4 apart */
	ICH9_UHCI_DEV = 29,
	PCI_VENDOR_INTEL = 0x8086,
	PIIX3_ISA = 0x7000,
	PIIX4_ISA = 0x7110,
	PIIX4_PM = 0x7113,               /* raises the ACPI SCI on IRQ 9 */
	ICH9_LPC = 0x2918,
};

/* Candidate ISA IRQs for the misroute, in order of preference (PIRQ-routable ones). */
static const uint8_t spare_irqs[] = { 5, 9, 10, 7, 3, 12, 14, 15, 4, 6 };

static struct {
	bool saved;          /* a fault changed this controller's route register */
	int link;
	uint8_t value;       /* what the register held before */
} state[UHCI_FAULT_MAX];

/* pirq_link - the route register offset of @d's INTx, or a negative error. */
static int pirq_link(const struct pci_dev *d, const char **how)
{
	struct pci_dev *lpc;

	if (d->irq_pin < 1 || d->irq_pin > 4)
		return -ENOENT;
	if (d->route.link >= PIRQ_A) {
		*how = "$PIR link";
		return d->route.link;
	}
	if ((pci_find_device(PCI_VENDOR_INTEL, PIIX3_ISA, NULL) || pci_find_device(PCI_VENDOR_INTEL, PIIX4_ISA, NULL)) &&
	    d->bus == 0) {
		*how = "PIIX wiring (device + INTx - 1) mod 4";
		return PIRQ_A + ((d->dev + (d->irq_pin - 1) - 1) & 3);
	}
	lpc = pci_find_device(PCI_VENDOR_INTEL, ICH9_LPC, NULL);
	if (lpc && d->bus == 0 && d->dev == ICH9_UHCI_DEV) {
		uint32_t rcba = pci_read32(lpc, ICH9_LPC_RCBA);
		unsigned int pirq;

		if (!(rcba & ICH9_RCBA_EN) || (rcba & ICH9_RCBA_MASK) == 0)
			return -ENODEV;
		pirq = (mmio_read32((rcba & ICH9_RCBA_MASK) + ICH9_D29IR) >> (4 * (d->irq_pin - 1))) & 7;
		*how = "ICH9 D29IR";
		return pirq < 4 ? PIRQ_A + (int)pirq : PIRQ_E + (int)(pirq - 4);
	}
	return -ENODEV;
}

static bool irq_claimed(unsigned int isa_irq)
{
	struct irq_action_stats a;
	int line = isa_irq_to_line(isa_irq);

	if (line >= 0 && irq_get_action_stats((unsigned int)line, 0, &a) == 0)
		return true;      /* some driver listens there */
	for (unsigned int i = 0; i < pci_device_count(); i++) {
		const struct pci_dev *p = pci_device_at(i);

		if (p && p->route.source != PCI_ROUTE_NONE && (p->route.isa_irq == isa_irq || p->route.line == isa_irq))
			return true;  /* another PCI interrupt arrives there */
	}
	if (isa_irq == 9 && (pci_find_device(PCI_VENDOR_INTEL, PIIX4_PM, NULL) ||
			     pci_find_device(PCI_VENDOR_INTEL, ICH9_LPC, NULL)))
		return true;      /* the ACPI SCI */
	return false;
}

static int spare_irq(void)
{
	for (unsigned int i = 0; i < sizeof(spare_irqs); i++)
		if (!irq_claimed(spare_irqs[i]))
			return spare_irqs[i];
	return -ENOSPC;
}

static bool is_uhci(const struct usb_hc *hc)
{
	return hc->pci && hc->pci->class_code == PCI_CLASS_SERIAL_BUS && hc->pci->subclass == PCI_SUBCLASS_USB &&
	       hc->pci->prog_if == PCI_PROGIF_UHCI;
}

static int restore(void)
{
	int err = 0;

	for (unsigned int i = 0; i < UHCI_FAULT_MAX; i++) {
		if (!state[i].saved)
			continue;
		int e = pirq_router_set(state[i].link, state[i].value);

		if (e)
			err = e;
		state[i].saved = false;
	}
	return err;
}

/* reroute - point every UHCI's PIRQ at @value (a spare IRQ when @value is negative). */
static int reroute(int value, const char *what)
{
	unsigned int done = 0;
	struct usb_hc *hc;

	for (unsigned int i = 0; (hc = usb_hc_at(i)) != NULL && i < UHCI_FAULT_MAX; i++) {
		const char *how = "";
		int link, target = value, err;
		uint8_t old;

		if (!is_uhci(hc))
			continue;
		link = pirq_link(hc->pci, &how);
		if (link < 0) {
			pr_warn("%s: %s: cannot tell which PIRQ its %s drives (%s)\n", hc->name, what,
				pci_pin_name(hc->pci->irq_pin), errno_name(link));
			continue;
		}
		err = pirq_router_get(link, &old);
		if (err)
			return err;
		if (!state[i].saved && (old & PIRQ_DISABLE ? true : (old & 0xF) != hc->pci->route.isa_irq &&
					(old & 0xF) != hc->pci->route.line)) {
			/* The register does not drive the line we use: it is not ours to break. */
			pr_warn("%s: %s: PIRQ register %#x holds 0x%02x, not the IRQ %u routing found; left alone\n",
				hc->name, what, (unsigned int)link, old, hc->pci->route.line);
			continue;
		}
		if (!state[i].saved) {
			state[i].saved = true;
			state[i].link = link;
			state[i].value = old;
		}
		if (target < 0) {
			target = spare_irq();
			if (target < 0) {
				pr_warn("%s: %s: no ISA IRQ is free to misroute to\n", hc->name, what);
				return target;
			}
		}
		err = pirq_router_set(link, (uint8_t)target);
		if (err)
			return err;
		if (target & PIRQ_DISABLE)
			pr_info("%s: %s: PIRQ%c (register %#x, from %s) disabled; tables still say line %u\n", hc->name, what,
				'A' + (link >= PIRQ_E ? link - PIRQ_E + 4 : link - PIRQ_A), (unsigned int)link, how, hc->irq);
		else
			pr_info("%s: %s: PIRQ%c (register %#x, from %s) now drives ISA IRQ %d (no handler, masked); tables still say line %u\n",
				hc->name, what, 'A' + (link >= PIRQ_E ? link - PIRQ_E + 4 : link - PIRQ_A), (unsigned int)link,
				how, target, hc->irq);
		done++;
	}
	return done ? 0 : -ENODEV;
}

static int misroute_on(const char *arg)
{
	(void)arg;
	return reroute(-1, "uhci-misroute");
}

static int noroute_on(const char *arg)
{
	(void)arg;
	return reroute(PIRQ_DISABLE, "uhci-noroute");
}

FAULT(uhci_misroute, "uhci-misroute", NULL,
      "the UHCI's PIRQ route register points at an unused, masked ISA IRQ (tables keep the old line)",
      misroute_on, restore);
FAULT(uhci_noroute, "uhci-noroute", NULL,
      "the UHCI's PIRQ route is disabled (bit 7): on PIIX its interrupt reaches nothing",
      noroute_on, restore);
