/*
 * pirq_router.c - the chipset's PCI interrupt router: the function that
 * steers each PIRQ line (the wired-OR of some slots' INTx pins) onto an ISA
 * IRQ. Intel 82371SB PIIX3 datasheet section 2.2.1.7 (PIRQRC[A:D], config
 * 0x60-0x63 of the ISA bridge, function 0), 82371AB PIIX4 datasheet section
 * 3.2.9 (same registers) and the ICH9 datasheet sections 13.1.18/13.1.20
 * (PIRQ[A-D]_ROUT at 0x60-0x63 and PIRQ[E-H]_ROUT at 0x68-0x6B of the LPC
 * bridge, 00:1f.0). In every one of them a route register holds the ISA IRQ
 * in bits 3:0 and IRQEN# in bit 7 (set = the PIRQ reaches no ISA IRQ).
 *
 * The $PIR table names the router and gives each slot pin a "link value";
 * for these chips the link value is the route register's offset, which is
 * how pirq_router_get/set name a PIRQ. The router $PIR names is trusted
 * only when the function at that address has a router's vendor/device ID:
 * QEMU's q35 $PIR names 00:01.0, which is the VGA there.
 *
 * See also pci_route.c (uses the registers as a routing source).
 */
#include <stddef.h>

#include <firmware.h>
#include <kernel/errno.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#include "pci_internal.h"

/* Vendor ID of Intel, the only router vendor we know. */
#define PCI_VENDOR_INTEL 0x8086

/* Link values = route register offsets (datasheets above). */
enum pirq_regs {
	PIRQA_ROUT = 0x60,
	PIRQB_ROUT = 0x61,
	PIRQC_ROUT = 0x62,
	PIRQD_ROUT = 0x63,
	PIRQE_ROUT = 0x68,  /* ICH9 only */
	PIRQF_ROUT = 0x69,
	PIRQG_ROUT = 0x6A,
	PIRQH_ROUT = 0x6B,
};

static const struct pirq_router_type router_types[] = {
	{ PCI_VENDOR_INTEL, 0x122E, "PIIX", 4, { PIRQA_ROUT, PIRQB_ROUT, PIRQC_ROUT, PIRQD_ROUT } },
	{ PCI_VENDOR_INTEL, 0x7000, "PIIX3", 4, { PIRQA_ROUT, PIRQB_ROUT, PIRQC_ROUT, PIRQD_ROUT } },
	{ PCI_VENDOR_INTEL, 0x7110, "PIIX4", 4, { PIRQA_ROUT, PIRQB_ROUT, PIRQC_ROUT, PIRQD_ROUT } },
	{ PCI_VENDOR_INTEL, 0x2918, "ICH9", 8,
	  { PIRQA_ROUT, PIRQB_ROUT, PIRQC_ROUT, PIRQD_ROUT, PIRQE_ROUT, PIRQF_ROUT, PIRQG_ROUT, PIRQH_ROUT } },
};

static struct pirq_router_regs current_router;

const struct pirq_router_type *pirq_router_lookup(uint16_t vendor_id, uint16_t device_id)
{
	size_t i;

	for (i = 0; i < sizeof(router_types) / sizeof(router_types[0]); i++)
		if (router_types[i].vendor_id == vendor_id && router_types[i].device_id == device_id)
			return &router_types[i];
	return NULL;
}

int pirq_link_index(const struct pirq_router_type *type, int link)
{
	unsigned int i;

	if (!type)
		return -EINVAL;
	for (i = 0; i < type->links && i < PIRQ_LINKS_MAX; i++)
		if (type->reg[i] == link)
			return (int)i;
	return -EINVAL;
}

int pirq_route_irq(uint8_t value)
{
	unsigned int irq = value & PIRQ_IRQ_MASK;

	if (value & PIRQ_DISABLED)
		return -EPERM;
	if ((value & PIRQ_RESERVED_BITS) || !(PIRQ_ROUTABLE_IRQS & (1u << irq)))
		return -EINVAL;
	return (int)irq;
}

static struct pci_dev *find_at(uint8_t bus, uint8_t devfn)
{
	unsigned int i;

	for (i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device_at(i);

		if (d->bus == bus && pci_devfn(d->dev, d->fn) == devfn)
			return d;
	}
	return NULL;
}

static struct pci_dev *first_known_router(void)
{
	unsigned int i;

	for (i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device_at(i);

		if (pirq_router_lookup(d->vendor_id, d->device_id))
			return d;
	}
	return NULL;
}

int pirq_router_probe(const struct fw_pir *pir, struct pirq_router_regs *out)
{
	struct pci_dev *r = NULL;
	unsigned int i;

	memset(&current_router, 0, sizeof(current_router));
	if (pir && pir->present) {
		r = find_at(pir->router_bus, pir->router_devfn);
		if (r && !pirq_router_lookup(r->vendor_id, r->device_id))
			r = NULL;
	}
	if (!r)
		r = first_known_router();
	if (r) {
		current_router.valid = true;
		current_router.bus = r->bus;
		current_router.devfn = pci_devfn(r->dev, r->fn);
		current_router.type = pirq_router_lookup(r->vendor_id, r->device_id);
		for (i = 0; i < current_router.type->links; i++)
			current_router.value[i] = pci_read8(r, current_router.type->reg[i]);
	}
	if (out)
		*out = current_router;
	return r ? 0 : -ENODEV;
}

const struct pirq_router_regs *pirq_router_current(void)
{
	return current_router.valid ? &current_router : NULL;
}

static struct pci_dev *current_dev(void)
{
	return current_router.valid ? find_at(current_router.bus, current_router.devfn) : NULL;
}

int pirq_router_get(int link, uint8_t *value)
{
	struct pci_dev *r = current_dev();
	int index;

	if (!r)
		return -ENODEV;
	index = pirq_link_index(current_router.type, link);
	if (index < 0 || !value)
		return -EINVAL;
	*value = pci_read8(r, (unsigned int)link);
	current_router.value[index] = *value;
	return 0;
}

int pirq_router_set(int link, uint8_t value)
{
	struct pci_dev *r = current_dev();
	uint8_t before, after;
	int index;

	if (!r)
		return -ENODEV;
	index = pirq_link_index(current_router.type, link);
	if (index < 0 || (value & PIRQ_RESERVED_BITS))
		return -EINVAL;
	if (!(value & PIRQ_DISABLED) && pirq_route_irq(value) < 0)
		return -EINVAL;
	before = pci_read8(r, (unsigned int)link);
	pci_write8(r, (unsigned int)link, value);
	after = pci_read8(r, (unsigned int)link);
	current_router.value[index] = after;
	pr_info("pirq: %s PIRQ%c (0x%02x) 0x%02x -> 0x%02x%s\n", current_router.type->name,
		'A' + index, (unsigned int)link, before, after,
		(after & PIRQ_DISABLED) ? " (disabled)" : "");
	return after == value ? 0 : -EIO;
}
