/*
 * ata_probe.c - ata_init(): the IDE controller and its two channels. The
 * controller is the first PCI function of class 01/01 (mass storage, IDE);
 * its programming interface says per channel whether it runs in legacy
 * mode (ports 0x1F0/0x3F6 with ISA IRQ 14, 0x170/0x376 with IRQ 15) or in
 * PCI native mode (ports from BAR0-3, the function's routed INTx), as the
 * PCI IDE Controller Specification 1.0 section 2 defines; without PCI the
 * legacy ports are probed. Interrupt lines come from isa_irq_to_line()
 * (IOAPIC or PIC mode) or from the PCI routing. See ata_identify.c for
 * what happens on a channel, docs/ata.md for the whole driver.
 */
#include "ata_internal.h"
#include <asm/apic.h>
#include <drivers/ata.h>
#include <drivers/pci.h>
#include <kernel/errno.h>
#include <kernel/printk.h>
#include <kernel/string.h>

struct ata_channel ata_channels[ATA_MAX_CHANNELS];
static struct pci_dev *ata_pci;     /* the controller, NULL when probing legacy ports blind */

static const unsigned int legacy_irq[ATA_MAX_CHANNELS] = { ATA_LEGACY_IRQ_PRIMARY,
							   ATA_LEGACY_IRQ_SECONDARY };

/* channel_line - the kernel/irq line of @ch's interrupt, or a negative error. */
static int channel_line(struct ata_channel *ch)
{
	if (!ch->native) {
		ch->isa_irq = legacy_irq[ch->index];
		return isa_irq_to_line(ch->isa_irq);
	}
	if (!ata_pci || ata_pci->irq_pin == 0 || ata_pci->route.source == PCI_ROUTE_NONE)
		return -ENOENT;
	ch->isa_irq = ata_pci->route.line;
	return x86_setup_pci_line(ata_pci->route.line, ata_pci->route.level, ata_pci->route.active_low);
}

static void init_channel_struct(struct ata_channel *ch, unsigned int index)
{
	memset(ch, 0, sizeof(*ch));
	ch->index = index;
	ch->name[0] = 'a';
	ch->name[1] = 't';
	ch->name[2] = 'a';
	ch->name[3] = (char)('0' + index);
	ch->line = -1;
	ch->selected = ATA_SLOT_NONE;
	for (unsigned int slot = 0; slot < ATA_DEVICES_PER_CHANNEL; slot++) {
		ch->dev[slot].chan = ch;
		ch->dev[slot].slot = slot;
		ata_device_name(index, slot, ch->dev[slot].name);
	}
}

/* take_interrupt - request the channel's line; without it commands complete by polling. */
static void take_interrupt(struct ata_channel *ch)
{
	int err;

	if (ch->line < 0) {
		pr_warn("%s: no interrupt line (%s); every command will wait %u ms per phase\n", ch->name,
			errno_name(ch->line), (unsigned int)ATA_IRQ_WAIT_MS);
		return;
	}
	err = request_irq((unsigned int)ch->line, ata_hw_interrupt, IRQF_SHARED, ch->name, ch);
	if (err) {
		pr_warn("%s: request_irq(%d) failed: %s; every command will wait %u ms per phase\n",
			ch->name, ch->line, errno_name(err), (unsigned int)ATA_IRQ_WAIT_MS);
		return;
	}
	ch->irq_requested = true;
	ata_hw_expect_init(ch);
}

static void register_devices(struct ata_channel *ch)
{
	for (unsigned int slot = 0; slot < ATA_DEVICES_PER_CHANNEL; slot++) {
		struct ata_device *dev = &ch->dev[slot];
		int err;

		if (dev->cls != ATA_CLASS_ATA && dev->cls != ATA_CLASS_ATAPI)
			continue;
		err = blk_register(&dev->blk);
		dev->blk_registered = err == 0;
		if (err)
			pr_warn("%s: %s: not registered as a block device: %s\n", ch->name, dev->name,
				errno_name(err));
	}
}

/* setup_channel - ports, interrupt, devices of channel @index. RETURNS devices found. */
static int setup_channel(unsigned int index, uint8_t prog_if, const uint32_t *bars)
{
	struct ata_channel *ch = &ata_channels[index];
	int found, err;

	init_channel_struct(ch, index);
	err = ata_channel_layout(index, prog_if, bars, &ch->cmd_base, &ch->ctl_port, &ch->bm_base,
				 &ch->native);
	if (err) {
		pr_warn("%s: PCI native mode without usable I/O BARs; channel not used\n", ch->name);
		return 0;
	}
	if (ata_read_alt_status(ch) == ATA_SR_FLOATING) {
		pr_info("%s: %s ports %#x/%#x: nothing attached (floating bus)\n", ch->name,
			ch->native ? "native" : "legacy", ch->cmd_base, ch->ctl_port);
		return 0;
	}
	ch->line = channel_line(ch);
	take_interrupt(ch);
	found = ata_identify_channel(ch);
	pr_info("%s: %s ports %#x/%#x, bus master %#x, IRQ %u on line %d%s: %d device%s\n", ch->name,
		ch->native ? "native" : "legacy", ch->cmd_base, ch->ctl_port, ch->bm_base, ch->isa_irq,
		ch->line, ch->expect ? " (IRQ expecting on)" : "", found, found == 1 ? "" : "s");
	if (found == 0 && ch->irq_requested) {
		free_irq((unsigned int)ch->line, ch);       /* the expect token dies with the action */
		ch->irq_requested = false;
		ch->expect = NULL;
	}
	register_devices(ch);
	return found;
}

/* find_controller - the IDE function and its I/O BARs; RETURNS false without PCI IDE. */
static bool find_controller(uint8_t *prog_if, uint32_t bars[PCI_MAX_BARS])
{
	ata_pci = pci_find_class(PCI_CLASS_STORAGE, PCI_SUBCLASS_IDE, -1, NULL);
	if (!ata_pci)
		return false;
	*prog_if = ata_pci->prog_if;
	for (unsigned int i = 0; i < PCI_MAX_BARS; i++)
		bars[i] = (ata_pci->bar[i].flags & PCI_BAR_IO) ? (uint32_t)ata_pci->bar[i].base : 0;
	if (*prog_if & (ATA_PROGIF_PRIMARY_NATIVE | ATA_PROGIF_SECONDARY_NATIVE | ATA_PROGIF_BUS_MASTER))
		pci_enable(ata_pci, PCI_ENABLE_IO);
	pr_info("ata: IDE controller pci %02x:%02x.%u %04x:%04x, prog-if %#04x: primary %s, secondary %s%s\n",
		ata_pci->bus, ata_pci->dev, ata_pci->fn, ata_pci->vendor_id, ata_pci->device_id, *prog_if,
		(*prog_if & ATA_PROGIF_PRIMARY_NATIVE) ? "native" : "legacy",
		(*prog_if & ATA_PROGIF_SECONDARY_NATIVE) ? "native" : "legacy",
		(*prog_if & ATA_PROGIF_BUS_MASTER) ? ", bus master" : "");
	return true;
}

int ata_init(void)
{
	uint8_t prog_if = 0;
	uint32_t bars[PCI_MAX_BARS] = { 0 };
	bool pci = find_controller(&prog_if, bars);
	int found = 0;

	if (!pci)
		pr_info("ata: no PCI IDE controller; probing the legacy ports\n");
	for (unsigned int i = 0; i < ATA_MAX_CHANNELS; i++)
		found += setup_channel(i, prog_if, pci ? bars : NULL);
	pr_info("ata: %d device%s\n", found, found == 1 ? "" : "s");
	return found;
}
