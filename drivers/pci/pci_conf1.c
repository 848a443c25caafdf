/*
 * pci_conf1.c - PCI configuration mechanism #1 (PCI Local Bus Specification
 * 3.0 section 3.2.2.3.2): a 32-bit address written to CONFIG_ADDRESS (I/O
 * 0xCF8) selects bus, device, function and dword; CONFIG_DATA (0xCFC-0xCFF)
 * then reads or writes that dword, or a byte/word of it at the byte lanes
 * 0xCFC + (offset & 3). Kernel only (port I/O); pci.c walks the buses
 * through the ops defined here, the host tests through a fake.
 *
 * The address/data pair is a two-step protocol, so each access runs with
 * interrupts off: an interrupt handler that touched configuration space
 * between the two steps would redirect the data access.
 */
#include <stddef.h>
#include <stdint.h>

#include <asm/cpu.h>
#include <asm/spinlock.h>
#include <asm/io.h>
#include <kernel/errno.h>
#include <kernel/printk.h>

#include "pci_internal.h"

enum conf1_ports {
	CONF1_ADDRESS_PORT = 0xCF8,  /* CONFIG_ADDRESS, 32-bit accesses only */
	CONF1_DATA_PORT = 0xCFC,     /* CONFIG_DATA, byte lanes 0xCFC-0xCFF */
};

/* CONFIG_ADDRESS then CONFIG_DATA is one access: with several CPUs another
 * must not move CONFIG_ADDRESS in between (asm/spinlock.h for the ordering). */
static spinlock_t conf1_lock = SPINLOCK_INIT;

/* CONFIG_ADDRESS fields (PCI 3.0 figure 3-2). */
enum conf1_address_bits {
	CONF1_ENABLE = 0x80000000u,  /* bit 31: turn the data port into configuration cycles */
	CONF1_BUS_SHIFT = 16,        /* bits 23:16 */
	CONF1_DEV_SHIFT = 11,        /* bits 15:11 */
	CONF1_FN_SHIFT = 8,          /* bits 10:8 */
	CONF1_REG_MASK = 0xFC,       /* bits 7:2: dword; bits 1:0 must be 0 (type 0 translation) */
	CONF1_LANE_MASK = 0x3,       /* offset bits that pick the byte lane */
};

static uint32_t conf1_address(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off)
{
	return CONF1_ENABLE | (uint32_t)bus << CONF1_BUS_SHIFT | (uint32_t)dev << CONF1_DEV_SHIFT |
	       (uint32_t)fn << CONF1_FN_SHIFT | (off & CONF1_REG_MASK);
}

static uint32_t conf1_read(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, uint8_t width)
{
	uint16_t lane = CONF1_DATA_PORT + (off & CONF1_LANE_MASK);
	unsigned long flags = spin_lock_irqsave(&conf1_lock);
	uint32_t v;

	(void)ctx;
	outl(CONF1_ADDRESS_PORT, conf1_address(bus, dev, fn, off));
	if (width == 1)
		v = inb(lane);
	else if (width == 2)
		v = inw(lane);
	else
		v = inl(CONF1_DATA_PORT);
	spin_unlock_irqrestore(&conf1_lock, flags);
	return v;
}

static void conf1_write(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, uint8_t width,
			uint32_t value)
{
	uint16_t lane = CONF1_DATA_PORT + (off & CONF1_LANE_MASK);
	unsigned long flags = spin_lock_irqsave(&conf1_lock);

	(void)ctx;
	outl(CONF1_ADDRESS_PORT, conf1_address(bus, dev, fn, off));
	if (width == 1)
		outb(lane, (uint8_t)value);
	else if (width == 2)
		outw(lane, (uint16_t)value);
	else
		outl(CONF1_DATA_PORT, value);
	spin_unlock_irqrestore(&conf1_lock, flags);
}

static unsigned long conf1_critical_begin(void *ctx)
{
	(void)ctx;
	/* Interrupts off only: the accesses inside take conf1_lock one by one. */
	return irq_save_flags();
}

static void conf1_critical_end(void *ctx, unsigned long flags)
{
	(void)ctx;
	irq_restore_flags(flags);
}

static const struct pci_config_ops conf1_ops = {
	.name = "configuration mechanism #1",
	.read = conf1_read,
	.write = conf1_write,
	.critical_begin = conf1_critical_begin,
	.critical_end = conf1_critical_end,
};

/*
 * Mechanism #1 is there when CONFIG_ADDRESS is a real 32-bit register:
 * the enable bit written reads back (a floating bus reads all ones, and a
 * mechanism #2 chipset has only byte registers at 0xCF8/0xCFA). The old
 * value is put back so nothing else notices.
 */
static bool conf1_present(void)
{
	unsigned long flags = spin_lock_irqsave(&conf1_lock);
	uint32_t saved = inl(CONF1_ADDRESS_PORT);
	bool present;

	outl(CONF1_ADDRESS_PORT, CONF1_ENABLE);
	present = inl(CONF1_ADDRESS_PORT) == CONF1_ENABLE;
	outl(CONF1_ADDRESS_PORT, saved);
	spin_unlock_irqrestore(&conf1_lock, flags);
	return present;
}

int pci_init(void)
{
	struct pci_walk_stats stats;
	int found;

	if (!conf1_present()) {
		pr_warn("pci: no configuration mechanism #1 at 0x%x (enable bit does not stick); no PCI\n",
			CONF1_ADDRESS_PORT);
		pci_scan(NULL, NULL);
		return -ENODEV;
	}
	found = pci_scan(&conf1_ops, &stats);
	pr_info("pci: %u functions on %u bus%s via %s (0x%x/0x%x)%s\n", stats.functions_found,
		stats.buses_scanned, stats.buses_scanned == 1 ? "" : "es", conf1_ops.name,
		CONF1_ADDRESS_PORT, CONF1_DATA_PORT,
		stats.bridges_refused ? "; some bridges not followed (see above)" : "");
	return found;
}
