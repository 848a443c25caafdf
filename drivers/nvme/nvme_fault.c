/*
 * nvme_fault.c - the fault `nvme-noirq` (registry: include/kernel/fault.h;
 * `fault=` and `inject`): the controller completes I/O commands and posts
 * their completions, but raises no interrupt for them, for real:
 *
 *   MSI-X   the I/O queue pair is deleted and created again with the
 *           completion queue's interrupts disabled (CREATE I/O CQ with
 *           IEN = 0, NVMe 1.4 5.3): the controller never signals that
 *           queue's vector. INTMS does not apply to MSI-X (3.1.3).
 *   MSI, INTx  INTMS masks the I/O queue's interrupt vector at the
 *           controller (NVMe 1.4 3.1.3); with one vector the admin
 *           queue's completions go silent too.
 *
 * The data stays right because every command is expected: the core's
 * poll (or at worst the driver's own look after NVME_IRQ_WAIT_MS) takes
 * the completion. `inject off nvme-noirq` recreates the queues with IEN=1
 * or clears INTMS (INTMC).
 */
#include "nvme_internal.h"
#include <asm/io.h>
#include <drivers/pci_msi.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/printk.h>

static int noirq_set(struct nvme_ctrl *c, bool on)
{
	int err;

	if (c->dead || !c->blk_registered)
		return -ENODEV;
	if (pci_irq_mode(c->pci) == PCI_IRQ_MODE_MSIX) {
		err = nvme_delete_io_queues(c);
		if (!err)
			err = nvme_create_io_queues(c, !on);
		if (err)
			return err;
		c->intms_masked = false;
		pr_warn("fault: %s: I/O completion queue %u recreated with IEN=%u: its completions %s\n", c->name, c->io.qid,
			on ? 0 : 1, on ? "raise no interrupt on line (MSI-X)" : "interrupt again");
	} else {
		mmio_write32(c->regs + (on ? NVME_REG_INTMS : NVME_REG_INTMC), 1u << c->io.vector);
		c->intms_masked = on;
		pr_warn("fault: %s: INTMS %s interrupt vector %u (%s, line %d)%s\n", c->name, on ? "masks" : "unmasks",
			c->io.vector, pci_irq_mode_name(pci_irq_mode(c->pci)), c->io.line,
			on && c->io.vector == c->admin.vector ? ": the admin queue shares it and goes silent too" : "");
	}
	c->noirq = on;
	return 0;
}

static int noirq_on(const char *arg)
{
	unsigned int done = 0;
	int err = -ENODEV;

	(void)arg;
	for (unsigned int i = 0; i < nvme_ctrl_count; i++) {
		if (nvme_ctrls[i].noirq)
			continue;
		err = noirq_set(&nvme_ctrls[i], true);
		done += err == 0;
	}
	return done ? 0 : err;
}

static int noirq_off(void)
{
	int err = 0;

	for (unsigned int i = 0; i < nvme_ctrl_count; i++) {
		if (!nvme_ctrls[i].noirq)
			continue;
		int e = noirq_set(&nvme_ctrls[i], false);
		if (e)
			err = e;
	}
	return err;
}

FAULT(nvme_noirq, "nvme-noirq", NULL,
      "NVMe I/O completions raise no interrupt: the CQ recreated with IEN=0 (MSI-X) or its vector masked in INTMS (MSI/INTx)",
      noirq_on, noirq_off);
