/*
 * e1000_storm.c - the fault `e1000-storm`: the shared-line storm of the 2010
 * mail ("irq: better lost/spurious irq handling"), made for real with the
 * Intel 82540EM gigabit controller QEMU emulates as `e1000` (8086:100E).
 * irqkit has no e1000 driver, so nobody ever asked for this device's
 * interrupt; the fault makes the device assert it anyway, and keep it
 * asserted, on the level line it shares with others (on QEMU's pc machine
 * INTA of 00:03.0 -> PIRQC -> IRQ 11, shared with the UHCI's INTD).
 *
 * Registers (Intel PCI/PCI-X Family of Gigabit Ethernet Controllers
 * Software Developer's Manual, 8254x, section 13.4.17-13.4.21): ICR holds
 * the interrupt causes and is cleared by reading it; ICS sets causes as if
 * the hardware had; IMS enables causes (write 1 to set), IMC disables them
 * (write 1 to clear). The device asserts INTA# while ICR & IMS is not zero
 * (section 7.4). So: enable one cause in IMS, set it in ICS, and never read
 * ICR - the line stays asserted until `inject off e1000-storm`, which
 * clears the mask (IMC) and then reads ICR to clear the causes, as a driver
 * would. QEMU-FACTS.md: on the 8259 in level mode this is a true livelock
 * without a defence; QEMU's IOAPIC delays re-delivery by 10 ms after
 * 10,000 EOIs that find the line still high, so there it is a throttled one.
 *
 * What the storm does depends on the line, not on this file: a line
 * nobody has requested stays masked at its controller (kernel/irq masks
 * lines without actions), so the storm is invisible and harmless until a
 * driver of another device on the line requests it; then kernel/irq's
 * flood defence (kernel/irq/spurious.c) has to contain it. The fault says
 * which case it is in when switched on. docs/storms.md tells the story.
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/paging.h>
#include <drivers/pci.h>
#include <irq/stats.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <time/time.h>

/* 8254x identity (QEMU's `-device e1000`, also its default NIC on pc and q35 `-nic`). */
#define E1000_VENDOR_INTEL   0x8086
#define E1000_DEVICE_82540EM 0x100E

/* Registers of BAR0 (memory), byte offsets (SDM 8254x table 13-2). */
#define E1000_REG_STATUS 0x0008   /* device status; reads all ones when the BAR does not decode */
#define E1000_REG_ICR    0x00C0   /* interrupt cause read: reading clears every cause */
#define E1000_REG_ICS    0x00C8   /* interrupt cause set: write 1 to raise a cause */
#define E1000_REG_IMS    0x00D0   /* interrupt mask set/read: write 1 to enable a cause */
#define E1000_REG_IMC    0x00D8   /* interrupt mask clear: write 1 to disable a cause */
#define E1000_MMIO_NEEDED 0x0100  /* bytes of BAR0 this file touches (up to IMC) */

/*
 * The cause the storm raises: TXQE, "transmit queue empty" (bit 1). With no
 * driver nothing transmits, so the device never raises or clears it by
 * itself; what the line does is only the fault's doing.
 */
#define E1000_STORM_CAUSE 0x00000002u
#define E1000_ALL_CAUSES  0xFFFFFFFFu   /* IMC: disable every cause */

/*
 * Telling a storm from its absence. Not every IOAPIC re-delivers a level
 * input that is still high at EOI: QEMU's does (it is a storm), Bochs 2.7's
 * does nothing at EOI, so a held line interrupts once per rising edge and
 * then never again (QEMU-FACTS.md, Bochs). After switching the storm on, on
 * a line with handlers in IOAPIC mode, the fault watches the line for a
 * moment; an 8259 in level mode always re-delivers, so it is not probed.
 */
enum {
	E1000_STORM_PROBE_MS = 100,       /* how long to watch: the flood defence decides within 100 ms */
	E1000_STORM_MIN_INTERRUPTS = 1000, /* fewer deliveries than this in the probe (10 kHz, the
					    * flood defence's own bound) and no flood trip is no storm.
					    * Measured: QEMU trips at its first 100 interrupts, >10,000
					    * with noirqdebug; Bochs 58-114, one per UHCI frame that
					    * touches the shared line, never a trip */
};

static struct {
	bool on;                  /* the storm is being held */
	struct pci_dev *dev;      /* the NIC */
	volatile uint32_t *mmio;  /* BAR0 through the identity map */
	uint16_t command_before;  /* PCI command register before the fault, put back by off */
} storm;

static uint32_t e1000_read(uint32_t reg)
{
	return storm.mmio[reg / sizeof(uint32_t)];
}

static void e1000_write(uint32_t reg, uint32_t value)
{
	storm.mmio[reg / sizeof(uint32_t)] = value;
}

/* find_nic - the first 82540EM with a usable memory BAR0. RETURNS 0 or a negative errno (logged). */
static int find_nic(void)
{
	struct pci_dev *d = pci_find_device(E1000_VENDOR_INTEL, E1000_DEVICE_82540EM, NULL);
	const struct pci_bar *bar;
	uintptr_t regs;
	int err;

	if (!d) {
		pr_warn("e1000-storm: no e1000 (8086:100e) on PCI; give QEMU `-device e1000`\n");
		return -ENODEV;
	}
	bar = &d->bar[0];
	if (d->bar_count < 1 || (bar->flags & (PCI_BAR_IO | PCI_BAR_BAD | PCI_BAR_UPPER_HALF)) ||
	    bar->size < E1000_MMIO_NEEDED) {
		pr_warn("e1000-storm: pci %02x:%02x.%u: BAR0 is not a memory BAR of at least %u bytes\n",
			d->bus, d->dev, d->fn, E1000_MMIO_NEEDED);
		return -ENXIO;
	}
	err = mmio_map(bar->base, bar->size, &regs);
	if (err) {
		pr_warn("e1000-storm: BAR0 at %#llx is not reachable: %s; refused\n", (unsigned long long)bar->base,
			mmio_map_error(err));
		return err;
	}
	if (d->irq_pin == 0) {
		pr_warn("e1000-storm: the NIC has no interrupt pin\n");
		return -ENXIO;
	}
	storm.dev = d;
	storm.mmio = (volatile uint32_t *)regs;
	return 0;
}

/* The line's counts just before the storm starts, for probe_redelivery. */
struct line_counts {
	bool valid;
	uint64_t delivered;
	uint32_t floods, failed_tests;
};

static void line_counts(unsigned int line, struct line_counts *c)
{
	struct irq_line_stats s;
	struct irq_line_health h;

	c->valid = irq_get_line_stats(line, &s) == 0 && irq_get_line_health(line, &h) == 0;
	c->delivered = c->valid ? s.delivered : 0;
	c->floods = c->valid ? h.floods : 0;
	c->failed_tests = c->valid ? h.failed_tests_total : 0;
}

/*
 * probe_redelivery - is there a storm at all? Watch the line for
 * E1000_STORM_PROBE_MS from just before the storm started: on an IOAPIC
 * that re-delivers a held level line at EOI it floods, so the flood
 * defence trips (or, with the defences off, thousands arrive); on one that
 * does not, a few interrupts come and the line stays quiet and enabled.
 * CONTEXT: process (sleeps).
 */
static void probe_redelivery(const struct pci_dev *d, const struct line_counts *before)
{
	struct line_counts after;
	struct irq_line_health h;
	unsigned int line = d->route.line;
	uint64_t n;

	if (!before->valid || msleep(E1000_STORM_PROBE_MS) != 0)
		return;
	line_counts(line, &after);
	if (!after.valid || irq_get_line_health(line, &h) != 0)
		return;
	n = after.delivered - before->delivered;
	/* Not PCI status' INTx bit: Bochs's e1000 never sets it. ICR was never read, so the
	 * cause is still pending and the pin asserted (8254x SDM 7.4). */
	if (n >= E1000_STORM_MIN_INTERRUPTS || h.flood_off || after.floods != before->floods ||
	    after.failed_tests != before->failed_tests)
		return;
	pr_warn("e1000-storm: no storm: this IOAPIC does not re-deliver a held level line (%llu interrupts "
		"on GSI %u in %u ms with the cause pending, and no flood; only its other devices' "
		"activity reaches the CPU); with `noapic` the 8259 re-delivers it\n", (unsigned long long)n, line,
		(unsigned int)E1000_STORM_PROBE_MS);
}

/* describe_line - what the storm will do there: the line's handlers decide it. */
static void describe_line(const struct pci_dev *d, uint16_t status, const struct line_counts *before)
{
	struct irq_line_stats s;
	bool routed = d->route.source != PCI_ROUTE_NONE;

	pr_info("e1000-storm: pci %02x:%02x.%u %s held asserted (PCI status INTx %s), routed to %s %u\n",
		d->bus, d->dev, d->fn, pci_pin_name(d->irq_pin),
		(status & PCI_STATUS_INTX) ? "set" : "NOT set", d->route.is_gsi ? "GSI" : "IRQ",
		routed ? (unsigned int)d->route.line : 0u);
	if (!routed) {
		pr_warn("e1000-storm: the pin has no route: the storm reaches no line\n");
		return;
	}
	if (irq_get_line_stats(d->route.line, &s) == 0 && s.nr_actions == 0) {
		pr_warn("e1000-storm: line %u has no handler, so it stays masked: the storm is invisible "
			"and harmless until a driver of a device sharing it requests the line\n",
			(unsigned int)d->route.line);
		return;
	}
	pr_info("e1000-storm: line %u has %u handler(s), none of them the e1000's: every interrupt "
		"is unclaimed\n", (unsigned int)d->route.line, s.nr_actions);
	if (d->route.is_gsi)
		probe_redelivery(d, before);
}

static int storm_on(const char *arg)
{
	struct line_counts before = { .valid = false };
	uint16_t command;
	int err;

	(void)arg;
	if (storm.on)
		return 0;
	err = find_nic();
	if (err)
		return err;
	command = pci_read16(storm.dev, PCI_COMMAND);
	storm.command_before = command;
	err = pci_enable(storm.dev, PCI_ENABLE_MEM);
	if (err)
		return err;
	if (command & PCI_COMMAND_INTX_DISABLE) {
		/* Firmware may have silenced INTx; the scenario is a device that does interrupt. */
		pci_write16(storm.dev, PCI_COMMAND, (uint16_t)(pci_read16(storm.dev, PCI_COMMAND) &
							     ~PCI_COMMAND_INTX_DISABLE));
	}
	if (e1000_read(E1000_REG_STATUS) == E1000_ALL_CAUSES) {
		pr_warn("e1000-storm: BAR0 reads all ones: the NIC does not decode its registers\n");
		pci_write16(storm.dev, PCI_COMMAND, storm.command_before);
		return -EIO;
	}
	if (storm.dev->route.source != PCI_ROUTE_NONE)
		line_counts(storm.dev->route.line, &before);
	/* Said before the writes: on a requested line the storm (and its containment) starts at once. */
	pr_info("e1000-storm: writing IMS and ICS %#x at BAR0 %#llx; nobody will read ICR\n",
		E1000_STORM_CAUSE, (unsigned long long)storm.dev->bar[0].base);
	e1000_write(E1000_REG_IMS, E1000_STORM_CAUSE);
	e1000_write(E1000_REG_ICS, E1000_STORM_CAUSE);
	storm.on = true;
	pr_info("e1000-storm: IMS reads %#x\n", e1000_read(E1000_REG_IMS));
	describe_line(storm.dev, pci_read16(storm.dev, PCI_STATUS), &before);
	return 0;
}

static int storm_off(void)
{
	uint32_t icr;
	uint16_t status;

	if (!storm.on)
		return 0;
	/* As a driver would: mask every cause first, then read ICR, which clears them. */
	e1000_write(E1000_REG_IMC, E1000_ALL_CAUSES);
	icr = e1000_read(E1000_REG_ICR);
	status = pci_read16(storm.dev, PCI_STATUS);
	/* Decoding and INTx disable as the fault found them. */
	pci_write16(storm.dev, PCI_COMMAND, storm.command_before);
	storm.on = false;
	pr_info("e1000-storm: IMC written, ICR read %#x (cleared); INTx %s\n", icr,
		(status & PCI_STATUS_INTX) ? "STILL asserted" : "released");
	return (status & PCI_STATUS_INTX) ? -EIO : 0;
}

FAULT(e1000_storm, "e1000-storm", NULL,
      "the e1000 (no driver) holds its shared level line asserted: IMS+ICS written, ICR never read",
      storm_on, storm_off);
