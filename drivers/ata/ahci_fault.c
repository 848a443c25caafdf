/*
 * ahci_fault.c - faults the AHCI driver causes for real (registry:
 * include/kernel/fault.h; `fault=` and `inject`):
 *
 *   ahci-noirq:PERCENT  that share of commands (chosen by a hash of the
 *                       port's command number, ata_drop_decision, so the
 *                       same ones each run) is issued with the port's
 *                       interrupt enables PxIE cleared: the command
 *                       completes, PxIS records it, but IS.IPS stays clear
 *                       and the HBA raises no interrupt, pin or message
 *                       (AHCI 1.3.1 3.1.3 / 10.7.1). PxIE is restored, its
 *                       status cleared first, after each such command.
 *   ahci-misvector      INTx in IOAPIC mode: the HBA's IOAPIC redirection
 *                       entry is pointed at a vector no line owns: the
 *                       interrupt arrives, at the wrong place (as
 *                       ata-misvector does for IDE channels). With MSI the
 *                       message itself would have to change: msi-misvector.
 *
 * Each acts on every HBA with devices and is undone by `inject off NAME`.
 */
#include "ahci_internal.h"
#include <asm/apic.h>
#include <asm/x86_irq.h>
#include <kernel/cmdline.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/printk.h>

/* ---- ahci-noirq ------------------------------------------------------------------------ */

static void set_noirq(unsigned int percent)
{
	for (unsigned int h = 0; h < ahci_nr_hosts; h++)
		for (unsigned int i = 0; i < AHCI_MAX_PORTS; i++)
			ahci_hosts[h].port[i].noirq_percent = percent;
}

static int noirq_on(const char *arg)
{
	unsigned long percent = ATA_PERCENT_MAX;

	if (arg && cmdline_parse_uint(arg, 0, ATA_PERCENT_MAX, &percent))
		return -EINVAL;
	if (ahci_nr_hosts == 0)
		return -ENODEV;
	set_noirq((unsigned int)percent);
	return 0;
}

static int noirq_off(void)
{
	set_noirq(0);
	return 0;
}

FAULT(ahci_noirq, "ahci-noirq", "PERCENT",
      "AHCI commands issued with the port's interrupt enables (PxIE) cleared: no interrupt for PERCENT % of them (default 100)",
      noirq_on, noirq_off);

/* ---- ahci-misvector ----------------------------------------------------------------------- */

static struct {
	bool misvectored;
	uint64_t rte;          /* the entry before */
} saved[AHCI_MAX_HOSTS];

/* wrong_vector - the highest IOAPIC-range vector no line owns: deliveries there reach nobody. */
static int wrong_vector(void)
{
	for (unsigned int v = SELFTEST_VECTOR - 1; v >= IOAPIC_VECTOR_BASE; v--)
		if (x86_vector_to_irq(v) < 0)
			return (int)v;
	return -ENOSPC;
}

static int misvector_off(void)
{
	int err = 0;

	for (unsigned int n = 0; n < ahci_nr_hosts; n++) {
		struct ahci_host *h = &ahci_hosts[n];
		uint64_t rte;
		int e;

		if (!saved[n].misvectored)
			continue;
		e = ioapic_pin_read((unsigned int)h->line, &rte);
		if (!e)
			e = ioapic_pin_write((unsigned int)h->line, (rte & ~IOAPIC_RTE_VECTOR_MASK) |
							    (saved[n].rte & IOAPIC_RTE_VECTOR_MASK));
		if (e)
			err = e;
		saved[n].misvectored = false;
	}
	return err;
}

static int misvector_on(const char *arg)
{
	int vector = wrong_vector(), done = 0;

	(void)arg;
	if (x86_irq_mode() != X86_IRQ_MODE_IOAPIC) {
		pr_warn("ahci-misvector: needs IOAPIC mode (the 8259 gives its inputs consecutive vectors from one base)\n");
		return -EPERM;
	}
	if (vector < 0)
		return vector;
	for (unsigned int n = 0; n < ahci_nr_hosts; n++) {
		struct ahci_host *h = &ahci_hosts[n];
		uint64_t rte;
		int err;

		if (!h->irq_requested || saved[n].misvectored)
			continue;
		if (h->msi) {
			pr_warn("%s: ahci-misvector: the HBA signals by MSI, not by its pin; see msi-misvector\n",
				h->name);
			continue;
		}
		err = ioapic_pin_read((unsigned int)h->line, &rte);
		if (!err)
			err = ioapic_pin_write((unsigned int)h->line,
					       (rte & ~IOAPIC_RTE_VECTOR_MASK) | (uint64_t)vector);
		if (err) {
			misvector_off();
			return err;
		}
		saved[n].rte = rte;
		saved[n].misvectored = true;
		pr_info("%s: GSI %d now delivers vector %#04x instead of %#04x\n", h->name, h->line, vector,
			(unsigned int)(rte & IOAPIC_RTE_VECTOR_MASK));
		done++;
	}
	return done ? 0 : -ENODEV;
}

FAULT(ahci_misvector, "ahci-misvector", NULL,
      "the AHCI HBA's IOAPIC entry points at a vector nobody owns (INTx in IOAPIC mode only)",
      misvector_on, misvector_off);
