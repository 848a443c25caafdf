/*
 * nvme_fault.c - the fault `nvme-noirq` (registry: include/kernel/fault.h;
 * `fault=` and `inject`): the controller completes I/O commands and posts
 * their completions, but raises no interrupt for them, for real:
 *
 *   MSI-X   every I/O queue pair (one per CPU) is deleted and created
 *           again with the completion queue's interrupts disabled (CREATE
 *           I/O CQ with IEN = 0, NVMe 1.4 5.3), all pairs claimed
 *           meanwhile: the controller never signals those queues'
 *           vectors. INTMS does not apply to MSI-X (3.1.3).
 *   MSI, INTx  INTMS masks the I/O queues' interrupt vector at the
 *           controller (NVMe 1.4 3.1.3); with one vector the admin
 *           queue's completions go silent too.
 *
 * `nvme-noirq:PERCENT` (below 100) loses that share of I/O completions,
 * chosen by a hash of the command number: with MSI-X the chosen commands
 * go through one more I/O queue pair, after the per-CPU ones, whose CQ has
 * IEN = 0 (its own action, "nvme0q2" with one CPU, on the first pair's
 * line); with MSI or INTx the vector is masked in
 * INTMS from before the doorbell until the completion was taken.
 *
 * The data stays right because every command is expected: the core's
 * poll (or at worst the driver's own look after NVME_IRQ_WAIT_MS) takes
 * the completion. `inject off nvme-noirq` recreates the queues with IEN=1
 * or clears INTMS (INTMC).
 */
#include "nvme_internal.h"
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/smp.h>
#include <asm/tsc.h>
#include <drivers/pci_msi.h>
#include <kernel/cmdline.h>
#include <kernel/cpu_stall.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/printk.h>
#include <time/time.h>

/* io_vectors - the interrupt vectors of the I/O queue pairs (bit n = vector n: INTMS's layout). */
static uint32_t io_vectors(const struct nvme_ctrl *c)
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < c->nr_io; i++)
		v |= 1u << (c->io[i].vector & 31u);
	return v;
}

/* noirq_all - the 100 % form: every I/O completion of every I/O queue pair goes without an interrupt. */
static int noirq_all(struct nvme_ctrl *c, bool on)
{
	int err;

	if (pci_irq_mode(c->pci) == PCI_IRQ_MODE_MSIX) {
		err = nvme_recreate_io_queues(c, !on);
		if (err)
			return err;
		c->intms_masked = false;
		for (unsigned int i = 0; i < c->nr_io; i++)
			pr_warn("fault: %s: I/O completion queue %u recreated with IEN=%u: its completions %s line %d\n",
				c->name, c->io[i].qid, on ? 0 : 1, on ? "raise no interrupt on" : "interrupt again on",
				c->io[i].line);
	} else {
		uint32_t vectors = io_vectors(c);

		mmio_write32(c->regs + (on ? NVME_REG_INTMS : NVME_REG_INTMC), vectors);
		c->intms_masked = on;
		for (unsigned int v = 0; v < 32; v++)
			if (vectors & (1u << v))
				pr_warn("fault: %s: INTMS %s interrupt vector %u (%s, line %d)%s\n", c->name,
					on ? "masks" : "unmasks", v, pci_irq_mode_name(pci_irq_mode(c->pci)),
					v == c->admin.vector ? c->admin.line : c->io[0].line,
					on && v == c->admin.vector ? ": the admin queue shares it and goes silent too" : "");
	}
	return 0;
}

/* noirq_share - PERCENT < 100: the extra queue pair with IEN=0 (MSI-X), or INTMS around chosen commands. */
static int noirq_share(struct nvme_ctrl *c, unsigned int percent)
{
	int err = 0;

	if (pci_irq_mode(c->pci) == PCI_IRQ_MODE_MSIX) {
		err = nvme_io2_start(c);
		if (err)
			return err;
		pr_warn("fault: %s: %u %% of I/O commands go through queue pair %u, whose completion queue has IEN=0 (line %d)\n",
			c->name, percent, c->io2.qid, c->io2.line);
	} else {
		pr_warn("fault: %s: %u %% of I/O commands run with INTMS masking their queue's vector (%s, line %d)\n", c->name,
			percent, pci_irq_mode_name(pci_irq_mode(c->pci)), c->io[0].line);
	}
	return err;
}

static int noirq_set(struct nvme_ctrl *c, unsigned int percent)
{
	int err = 0;

	if (c->dead || !c->blk_registered)
		return -ENODEV;
	/* Undo what is in force first: the share may change kind (100 % vs less). */
	if (c->noirq_percent >= NVME_PERCENT_MAX)
		err = noirq_all(c, false);
	else if (c->noirq_percent)
		nvme_io2_stop(c);
	c->noirq_percent = 0;
	c->noirq = false;
	if (err || percent == 0)
		return err;
	err = percent >= NVME_PERCENT_MAX ? noirq_all(c, true) : noirq_share(c, percent);
	if (err)
		return err;
	c->noirq_percent = percent;
	c->noirq = true;
	return 0;
}

static int noirq_on(const char *arg)
{
	unsigned long percent = NVME_PERCENT_MAX;
	unsigned int done = 0;
	int err = -ENODEV;

	if (arg && cmdline_parse_uint(arg, 0, NVME_PERCENT_MAX, &percent))
		return -EINVAL;
	for (unsigned int i = 0; i < nvme_ctrl_count; i++) {
		err = noirq_set(&nvme_ctrls[i], (unsigned int)percent);
		done += err == 0;
	}
	return done ? 0 : err;
}

static int noirq_off(void)
{
	int err = 0;

	for (unsigned int i = 0; i < nvme_ctrl_count; i++) {
		int e = nvme_ctrls[i].noirq ? noirq_set(&nvme_ctrls[i], 0) : 0;

		if (e)
			err = e;
	}
	return err;
}

FAULT(nvme_noirq, "nvme-noirq", "PERCENT",
      "PERCENT % (default 100) of NVMe I/O completions raise no interrupt: CQ with IEN=0 (MSI-X) or vector masked in INTMS",
      noirq_on, noirq_off);

/*
 * nvme-disable: the controller is disabled behind the driver's back (CC.EN
 * cleared, NVMe 1.4 3.1.5: the controller stops processing commands and
 * deletes its queues). The next command is never completed: the driver
 * abandons it after NVME_IO_TIMEOUT_MS, reports that the controller stopped
 * answering, and resets it (enable, queues again); later commands work. It
 * is a one-shot fault: there is nothing to switch off.
 */
static int disable_on(const char *arg)
{
	unsigned int done = 0;

	(void)arg;
	for (unsigned int i = 0; i < nvme_ctrl_count; i++) {
		struct nvme_ctrl *c = &nvme_ctrls[i];
		uint32_t cc;

		if (c->dead || !c->blk_registered)
			continue;
		cc = mmio_read32(c->regs + NVME_REG_CC);
		mmio_write32(c->regs + NVME_REG_CC, cc & ~NVME_CC_EN);
		pr_warn("fault: %s: CC.EN cleared behind the driver's back (CC %08x -> %08x): the controller stops answering\n",
			c->name, cc, cc & ~NVME_CC_EN);
		done++;
	}
	return done ? 0 : -ENODEV;
}

static int disable_off(void)
{
	return 0;   /* the driver's reset already brought the controller back */
}

FAULT(nvme_disable, "nvme-disable", NULL,
      "NVMe controllers disabled behind the driver's back (CC.EN = 0): the next command times out and the driver resets",
      disable_on, disable_off);

/*
 * ---- nvme-cpustall -----------------------------------------------------------------------------
 *
 * `nvme-cpustall:MS`: each command, as its expect opens (submit), first
 * stops CPU 1 for MS ms (default 400), for real: CPU 1 spins with
 * interrupts off (cpu_work, as ata-cpustall), so a queue whose vector is
 * routed there (`affinity LINE 1`) has its completion interrupt wait, as
 * under a vCPU its host keeps off or an SMI: the controller is healthy and
 * the interrupt late, not lost. The command goes out once CPU 1 has its
 * interrupts off (bounded). Not from CPU 1 itself, nor while CPU 1 still
 * spins from the last one.
 */

static struct cpu_stall cpustall = CPU_STALL_INIT("nvme-cpustall");

/* The hook: each command, as its expect opens (submit), first stops CPU 1 (kernel/cpu_stall.c). */
void nvme_fault_cpustall(void)
{
	cpu_stall_kick(&cpustall);
}

static int cpustall_on(const char *arg)
{
	if (!nvme_ctrl_count)
		return -ENODEV;
	return cpu_stall_on(&cpustall, arg);
}

static int cpustall_off(void)
{
	cpu_stall_off(&cpustall);
	return 0;
}

FAULT(nvme_cpustall, "nvme-cpustall", "MS",
      "each NVMe command first stops CPU 1 for MS ms (default 400), interrupts off: its queues' interrupts wait",
      cpustall_on, cpustall_off);
