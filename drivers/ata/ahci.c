/*
 * ahci.c - AHCI host bus adapters (Serial ATA AHCI 1.3.1): find them on
 * PCI (class 01/06, prog-if 01), take them from the BIOS (10.6, BIOS/OS
 * handoff, where CAP2.BOH says there is one), reset them (10.4.3), bring
 * up each implemented port (10.1.2: engines stopped, command list and FIS
 * area programmed, FIS receive on, SError cleared, device present and not
 * busy, interrupts enabled, ST set), take the HBA's interrupt, identify
 * the devices and register them as block devices sda, sdb... (disks) and
 * sr0... (ATAPI). Port stop/start and COMRESET recovery (6.2.2) live here
 * too; the command engine is ahci_cmd.c, the device commands ahci_disk.c.
 *
 * Memory. The kernel maps all 4 GiB identity (arch/x86/paging.c), so a
 * kernel pointer is its physical address, RAM below PAGING_UNCACHED_START
 * is cached (x86 DMA snoops the caches) and ABAR, which firmware puts in
 * the PCI hole above it, is uncached: both are checked before use.
 * Everything the HBA says (CAP, PI, PxSIG, PxTFD, PxCI...) is input: every
 * wait on it is bounded and a port that misbehaves is reported and left.
 */
#include "ahci_internal.h"
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/paging.h>
#include <asm/smp.h>
#include <asm/spinlock.h>
#include <drivers/ahci.h>
#include <drivers/pci.h>
#include <drivers/pci_msi.h>
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/heap.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <time/time.h>

#define NS_PER_MS 1000000ull
#define US_PER_MS 1000u

struct ahci_host ahci_hosts[AHCI_MAX_HOSTS];
unsigned int ahci_nr_hosts;
static unsigned int nr_disks, nr_cdroms;

/* ---- Register access ---------------------------------------------------------------- */

uint32_t ahci_read(const struct ahci_host *h, unsigned int reg)
{
	return mmio_read32(h->abar + reg);
}

void ahci_write(const struct ahci_host *h, unsigned int reg, uint32_t value)
{
	mmio_write32(h->abar + reg, value);
}

uint32_t ahci_port_read(const struct ahci_port *p, unsigned int reg)
{
	return mmio_read32(p->regs + reg);
}

void ahci_port_write(const struct ahci_port *p, unsigned int reg, uint32_t value)
{
	mmio_write32(p->regs + reg, value);
}

/*
 * wait_bits - poll @read(@ctx, @reg) until (value & @mask) == @want, at most
 * @ms milliseconds (by the clock, and by a count of polls in case the
 * clock stands still). RETURNS 0, or -ETIMEDOUT with the last value in *@last.
 */
static int wait_bits(uint32_t (*read)(const void *ctx, unsigned int reg), const void *ctx,
		     unsigned int reg, uint32_t mask, uint32_t want, unsigned int ms, uint32_t *last)
{
	uint64_t deadline = ktime_get_ns() + (uint64_t)ms * NS_PER_MS;
	uint64_t polls = (uint64_t)ms * US_PER_MS / AHCI_POLL_INTERVAL_US + 1;
	uint32_t v = read(ctx, reg);

	for (uint64_t i = 0; (v & mask) != want && i < polls && ktime_get_ns() < deadline; i++) {
		udelay(AHCI_POLL_INTERVAL_US);
		v = read(ctx, reg);
	}
	if (last)
		*last = v;
	return (v & mask) == want ? 0 : -ETIMEDOUT;
}

static uint32_t host_reg(const void *ctx, unsigned int reg) { return ahci_read(ctx, reg); }
static uint32_t port_reg(const void *ctx, unsigned int reg) { return ahci_port_read(ctx, reg); }

/* ---- Port control ------------------------------------------------------------------------ */

int ahci_port_stop(struct ahci_port *p)
{
	uint32_t cmd = ahci_port_read(p, AHCI_PxCMD);

	if (cmd & AHCI_PxCMD_ST)
		ahci_port_write(p, AHCI_PxCMD, cmd & ~AHCI_PxCMD_ST);
	if (wait_bits(port_reg, p, AHCI_PxCMD, AHCI_PxCMD_CR, 0, AHCI_ENGINE_STOP_MS, &cmd)) {
		pr_err("%s: port %u: command list still running %u ms after ST was cleared (PxCMD %#x)\n",
		       p->host->name, p->index, (unsigned int)AHCI_ENGINE_STOP_MS, cmd);
		return -ETIMEDOUT;
	}
	return 0;
}

/* stop_all - ST and then FRE off, both engines idle (AHCI 1.3.1 10.1.2 step 3). */
static int port_stop_all(struct ahci_port *p)
{
	uint32_t cmd;
	int err = ahci_port_stop(p);

	if (err)
		return err;
	cmd = ahci_port_read(p, AHCI_PxCMD);
	if (cmd & AHCI_PxCMD_FRE)
		ahci_port_write(p, AHCI_PxCMD, cmd & ~AHCI_PxCMD_FRE);
	if (wait_bits(port_reg, p, AHCI_PxCMD, AHCI_PxCMD_FR, 0, AHCI_ENGINE_STOP_MS, &cmd)) {
		pr_err("%s: port %u: FIS receive still running %u ms after FRE was cleared (PxCMD %#x)\n",
		       p->host->name, p->index, (unsigned int)AHCI_ENGINE_STOP_MS, cmd);
		return -ETIMEDOUT;
	}
	return 0;
}

void ahci_port_irq_enable(struct ahci_port *p, bool on)
{
	ahci_port_write(p, AHCI_PxIE, on ? AHCI_PxIE_DEFAULT : 0);
}

static bool link_up(const struct ahci_port *p)
{
	uint32_t ssts = ahci_port_read(p, AHCI_PxSSTS);

	return (ssts & AHCI_SSTS_DET_MASK) == AHCI_SSTS_DET_PRESENT &&
	       ((ssts >> AHCI_SSTS_IPM_SHIFT) & AHCI_SSTS_IPM_MASK) == AHCI_SSTS_IPM_ACTIVE;
}

/* comreset - AHCI 1.3.1 10.4.2: DET = 1 for 1 ms, DET = 0, wait for the PHY, clear SError. */
static int comreset(struct ahci_port *p)
{
	uint32_t sctl = ahci_port_read(p, AHCI_PxSCTL) & ~AHCI_SCTL_DET_MASK;
	uint32_t ssts;

	p->stats.comresets++;
	ahci_port_write(p, AHCI_PxSCTL, sctl | AHCI_SCTL_IPM_NONE | AHCI_SCTL_DET_COMRESET);
	if (msleep(AHCI_COMRESET_HOLD_MS))
		udelay(AHCI_COMRESET_HOLD_MS * US_PER_MS);
	ahci_port_write(p, AHCI_PxSCTL, sctl | AHCI_SCTL_IPM_NONE);
	if (wait_bits(port_reg, p, AHCI_PxSSTS, AHCI_SSTS_DET_MASK, AHCI_SSTS_DET_PRESENT,
		      AHCI_LINK_UP_MS, &ssts)) {
		pr_err("%s: port %u: no link %u ms after COMRESET (PxSSTS %#x)\n", p->host->name,
		       p->index, (unsigned int)AHCI_LINK_UP_MS, ssts);
		return -ENODEV;
	}
	ahci_port_write(p, AHCI_PxSERR, AHCI_SERR_ALL);
	return 0;
}

/* wait_device_ready - BSY and DRQ clear in PxTFD. RETURNS 0 or -ETIMEDOUT. */
static int wait_device_ready(struct ahci_port *p, uint32_t *tfd)
{
	return wait_bits(port_reg, p, AHCI_PxTFD, ATA_SR_BSY | ATA_SR_DRQ, 0, AHCI_DEVICE_READY_MS,
			 tfd);
}

/* port_start - ST on, once the device is not busy (AHCI 1.3.1 10.3.1). */
static int port_start(struct ahci_port *p)
{
	uint32_t tfd, cmd;

	if (wait_device_ready(p, &tfd)) {
		pr_err("%s: port %u: device still busy %u ms after reset (PxTFD %#x)\n", p->host->name,
		       p->index, (unsigned int)AHCI_DEVICE_READY_MS, tfd);
		return -ETIMEDOUT;
	}
	ahci_port_write(p, AHCI_PxSERR, AHCI_SERR_ALL);
	ahci_port_write(p, AHCI_PxIS, ahci_port_read(p, AHCI_PxIS));
	cmd = ahci_port_read(p, AHCI_PxCMD);
	ahci_port_write(p, AHCI_PxCMD, cmd | AHCI_PxCMD_FRE | AHCI_PxCMD_ST);
	return 0;
}

int ahci_port_recover(struct ahci_port *p, bool comreset_wanted)
{
	uint32_t tfd;
	int err;

	p->stats.port_restarts++;
	err = ahci_port_stop(p);
	ahci_port_write(p, AHCI_PxSERR, AHCI_SERR_ALL);
	ahci_port_write(p, AHCI_PxIS, ahci_port_read(p, AHCI_PxIS));
	tfd = ahci_port_read(p, AHCI_PxTFD);
	if (err || comreset_wanted || (tfd & (ATA_SR_BSY | ATA_SR_DRQ))) {
		pr_warn("%s: %s: COMRESET of port %u (%s, PxTFD %#x)\n", p->host->name, p->name,
			p->index, err ? "the engine did not stop" : comreset_wanted ? "asked for (time-out or reset)"
								     : "device still BSY/DRQ", tfd);
		err = comreset(p);
		if (err)
			return err;
	}
	err = port_start(p);
	/* The device's D2H FIS after COMRESET set DHRS; the next command must not see it. */
	ahci_port_write(p, AHCI_PxIS, ahci_port_read(p, AHCI_PxIS));
	return err;
}

/* ---- Waiting ------------------------------------------------------------------------------- */

static struct timer wake_timer[AHCI_MAX_HOSTS][AHCI_MAX_PORTS];
static uint64_t wake_at_ns[AHCI_MAX_HOSTS][AHCI_MAX_PORTS];

static void wake_up(struct timer *t)
{
	(void)t;   /* the timer interrupt itself ends time_idle() */
}

/*
 * Several CPUs: "interrupts off" keeps the handler out only on this CPU,
 * and a message line may be delivered to another (affinity). So what
 * ahci_internal.h's "Concurrency" puts under interrupts off is also under
 * the host's lock: the thread side takes it in ahci_lock(), the handler in
 * ahci_hw_interrupt(), and ahci_wait() gives it up while it halts. A plain
 * ticket lock (asm/spinlock.h states its ordering): nothing that runs under
 * it takes it again - kernel/irq polls the handler only from its timers,
 * which cannot run on a CPU that holds the lock with interrupts off.
 * Lock order: the host's lock, then a kernel/irq line's lock
 * (expect/unexpect/watch), then kernel/time's; the core runs the handler
 * with the line's lock dropped. waiter_cpu is written by the waiter under
 * the lock and read by the handler under it.
 */
static spinlock_t host_lock[AHCI_MAX_HOSTS];       /* zero: unlocked (SPINLOCK_INIT) */
static uint32_t waiter_cpu[AHCI_MAX_HOSTS];

unsigned long ahci_lock(struct ahci_host *h)
{
	unsigned long flags = irq_save_flags();

	spin_lock(&host_lock[h->index % AHCI_MAX_HOSTS]);
	return flags;
}

void ahci_unlock(struct ahci_host *h, unsigned long flags)
{
	spin_unlock(&host_lock[h->index % AHCI_MAX_HOSTS]);
	irq_restore_flags(flags);
}

/* The handler kernel/irq runs: ahci_interrupt under the host's lock; a completion made on a
 * CPU other than the waiter's wakes it (it would otherwise halt until its wake timer). */
irqreturn_t ahci_hw_interrupt(unsigned int irq, void *dev_id)
{
	struct ahci_host *h = dev_id;
	unsigned long flags = ahci_lock(h);
	irqreturn_t ret = ahci_interrupt(irq, dev_id);
	uint32_t waiter = waiter_cpu[h->index % AHCI_MAX_HOSTS];

	ahci_unlock(h, flags);
	if (ret == IRQ_HANDLED && waiter != smp_processor_id())
		smp_send_wakeup(waiter);
	return ret;
}

void ahci_wait(struct ahci_port *p, uint64_t deadline_ns)
{
	unsigned int h = p->host->index % AHCI_MAX_HOSTS, i = p->index % AHCI_MAX_PORTS;
	struct timer *t = &wake_timer[h][i];

	if (!t->fn)
		timer_setup(t, wake_up, p);
	if (!timer_pending(t) || wake_at_ns[h][i] > deadline_ns) {
		timer_mod(t, deadline_ns, 0);
		wake_at_ns[h][i] = deadline_ns;
	}
	waiter_cpu[h] = smp_processor_id();
	/* Let the handler in on another CPU while we halt. A wake-up IPI it sends before the
	 * hlt stays requested (interrupts are off) and ends the hlt at once. */
	spin_unlock(&host_lock[h]);
	time_idle();          /* sti; hlt; returns with interrupts disabled again */
	spin_lock(&host_lock[h]);
}

/* ---- Bring-up -------------------------------------------------------------------------------- */

/* port_memory - one block for the command list, FIS area and command table, below 4 GiB, cached RAM. */
static int port_memory(struct ahci_port *p)
{
	uintptr_t a;

	p->mem = kmalloc_aligned(AHCI_MEM_BYTES, AHCI_MEM_ALIGN);
	if (!p->mem)
		return -ENOMEM;
	a = (uintptr_t)p->mem;
	if (a + AHCI_MEM_BYTES > PAGING_UNCACHED_START) {
		kfree(p->mem);
		p->mem = NULL;
		return -EFAULT;
	}
	memset(p->mem, 0, AHCI_MEM_BYTES);
	p->clb = (volatile struct ahci_cmd_header *)(p->mem + AHCI_MEM_CLB);
	p->fis = p->mem + AHCI_MEM_FB;
	p->ct = p->mem + AHCI_MEM_CT;
	return 0;
}

static void port_name(struct ahci_port *p)
{
	if (p->cls == ATA_CLASS_ATAPI && nr_cdroms < 10)
		ksnprintf(p->name, sizeof(p->name), "sr%u", nr_cdroms++);
	else if (p->cls == ATA_CLASS_ATA && nr_disks < AHCI_MAX_DISKS)
		ksnprintf(p->name, sizeof(p->name), "sd%c", 'a' + nr_disks++);
	else
		ksnprintf(p->name, sizeof(p->name), "p%u", p->index);
}

/*
 * port_setup - AHCI 1.3.1 10.1.2 steps 3-5 and 10.3.1 for one port: idle,
 * memory programmed, FIS receive on, a device there? RETURNS 0 with the
 * port started and p->cls set; -ENODEV (nothing attached); another error.
 */
static int port_setup(struct ahci_port *p)
{
	struct ahci_host *h = p->host;
	uint32_t cmd, ssts, tfd;
	int err;

	err = port_stop_all(p);
	if (err)
		return err;
	err = port_memory(p);
	if (err) {
		pr_err("%s: port %u: no memory for the command list: %s\n", h->name, p->index,
		       errno_name(err));
		return err;
	}
	ahci_port_write(p, AHCI_PxCLB, (uint32_t)(uintptr_t)p->clb);
	ahci_port_write(p, AHCI_PxCLBU, 0);
	ahci_port_write(p, AHCI_PxFB, (uint32_t)(uintptr_t)p->fis);
	ahci_port_write(p, AHCI_PxFBU, 0);
	ahci_port_irq_enable(p, false);
	cmd = ahci_port_read(p, AHCI_PxCMD);
	if (h->cap & AHCI_CAP_SSS)
		cmd |= AHCI_PxCMD_SUD | AHCI_PxCMD_POD;   /* spin up (staggered spin-up HBAs wait for this) */
	ahci_port_write(p, AHCI_PxCMD, cmd | AHCI_PxCMD_FRE);
	ahci_port_write(p, AHCI_PxSERR, AHCI_SERR_ALL);
	ssts = ahci_port_read(p, AHCI_PxSSTS);
	if ((ssts & AHCI_SSTS_DET_MASK) != AHCI_SSTS_DET_PRESENT) {
		/* Nothing attached (DET 0), or a device without link: one COMRESET decides. */
		if ((ssts & AHCI_SSTS_DET_MASK) == 0 || comreset(p))
			return -ENODEV;
	}
	if (!link_up(p))
		pr_warn("%s: port %u: link in power state %u, not active\n", h->name, p->index,
			(ahci_port_read(p, AHCI_PxSSTS) >> AHCI_SSTS_IPM_SHIFT) & AHCI_SSTS_IPM_MASK);
	if (wait_device_ready(p, &tfd)) {
		/* The device never sent its first D2H FIS, or hangs: COMRESET once (10.4.2). */
		if (comreset(p) || wait_device_ready(p, &tfd)) {
			pr_err("%s: port %u: device stays busy (PxTFD %#x); port not used\n", h->name,
			       p->index, tfd);
			return -ETIMEDOUT;
		}
	}
	p->sig = ahci_port_read(p, AHCI_PxSIG);
	p->cls = ahci_classify_signature(p->sig);
	if (p->cls == ATA_CLASS_NONE || p->cls == ATA_CLASS_UNKNOWN) {
		pr_info("%s: port %u: signature %#010x: %s; not used\n", h->name, p->index, p->sig,
			p->sig == AHCI_SIG_PM ? "a port multiplier (not supported)"
			: p->sig == AHCI_SIG_NONE ? "no device answered" : "not a disk or ATAPI device");
		return -ENODEV;
	}
	if (p->cls == ATA_CLASS_ATAPI)
		ahci_port_write(p, AHCI_PxCMD, ahci_port_read(p, AHCI_PxCMD) | AHCI_PxCMD_ATAPI);
	err = port_start(p);
	if (err)
		return err;
	ahci_port_write(p, AHCI_PxIS, ahci_port_read(p, AHCI_PxIS));
	ahci_port_irq_enable(p, true);
	p->started = true;
	return 0;
}

/* bios_handoff - AHCI 1.3.1 10.6.3: ask for ownership (OOS), wait for the BIOS to let go. */
static void bios_handoff(struct ahci_host *h)
{
	uint32_t bohc;

	if (!(h->cap2 & AHCI_CAP2_BOH))
		return;
	bohc = ahci_read(h, AHCI_BOHC);
	ahci_write(h, AHCI_BOHC, bohc | AHCI_BOHC_OOS);
	if (wait_bits(host_reg, h, AHCI_BOHC, AHCI_BOHC_BOS, 0, AHCI_HANDOFF_MS, &bohc) == 0)
		goto owned;
	if ((bohc & AHCI_BOHC_BB) &&
	    wait_bits(host_reg, h, AHCI_BOHC, AHCI_BOHC_BOS, 0, AHCI_HANDOFF_BUSY_MS, &bohc) == 0)
		goto owned;
	pr_warn("%s: BIOS did not release the HBA (BOHC %#x); taking it anyway\n", h->name, bohc);
	return;
owned:
	pr_info("%s: BIOS/OS handoff done (BOHC %#x)\n", h->name, bohc);
}

/* hba_reset - AHCI 1.3.1 10.4.3: AE, HR, wait for HR to clear, AE again. */
static int hba_reset(struct ahci_host *h)
{
	uint32_t ghc;

	ahci_write(h, AHCI_GHC, ahci_read(h, AHCI_GHC) | AHCI_GHC_AE);
	ahci_write(h, AHCI_GHC, ahci_read(h, AHCI_GHC) | AHCI_GHC_AE | AHCI_GHC_HR);
	if (wait_bits(host_reg, h, AHCI_GHC, AHCI_GHC_HR, 0, AHCI_HBA_RESET_MS, &ghc)) {
		pr_err("%s: HBA reset did not finish in %u ms (GHC %#x)\n", h->name,
		       (unsigned int)AHCI_HBA_RESET_MS, ghc);
		return -ETIMEDOUT;
	}
	ahci_write(h, AHCI_GHC, AHCI_GHC_AE);
	return 0;
}

int ahci_diagnose(const struct ahci_host *h, char *buf, size_t len)
{
	if (!(ahci_read(h, AHCI_GHC) & AHCI_GHC_IE)) {
		ksnprintf(buf, len, "%s: GHC.IE is clear: the HBA interrupts nobody", h->name);
		return 1;
	}
	for (unsigned int i = 0; i < AHCI_MAX_PORTS; i++) {
		const struct ahci_port *p = &h->port[i];
		uint32_t ie;

		if (!p->started)
			continue;
		ie = ahci_port_read(p, AHCI_PxIE);
		if (p->noirq_percent) {
			ksnprintf(buf, len, "%s port %u (%s): ahci-noirq: %u %% of commands issued with PxIE "
				  "cleared (%llu of %llu so far; PxIE now %#x)", h->name, i, p->name,
				  p->noirq_percent, (unsigned long long)p->stats.noirq,
				  (unsigned long long)p->stats.commands, ie);
			return 1;
		}
		if (ie != AHCI_PxIE_DEFAULT) {
			ksnprintf(buf, len, "%s port %u (%s): PxIE is %#x, not the %#x the driver set",
				  h->name, i, p->name, ie, AHCI_PxIE_DEFAULT);
			return 1;
		}
	}
	return 0;
}

/* msi_diagnose - ahci_diagnose() for the MSI layer (pci_msi_set_diagnose): lock held, irqs off. */
static int msi_diagnose(void *ctx, unsigned int nr, char *buf, size_t len)
{
	(void)nr;
	return ahci_diagnose(ctx, buf, len);
}

/*
 * take_interrupt - one vector for the HBA from the MSI layer: its MSI
 * message by default, its INTx pin (as the PCI routing decided; on q35
 * through the ICH9's PIRQ routing) with pci=nomsi or when MSI cannot be
 * had. Without a line the commands still complete, by the driver's own
 * AHCI_IRQ_WAIT_MS check.
 */
static void take_interrupt(struct ahci_host *h)
{
	struct pci_dev *d = h->pci;
	static char kind[AHCI_MAX_HOSTS][24];
	int n, line, err;

	h->line = -1;
	n = pci_alloc_irq_vectors(d, 1, 1, PCI_IRQ_MSI | PCI_IRQ_INTX);
	if (n < 0) {
		pr_warn("%s: no interrupt (%s); commands complete only by the driver's %u ms checks\n",
			h->name, errno_name(n), (unsigned int)AHCI_IRQ_WAIT_MS);
		return;
	}
	line = pci_irq_vector(d, 0);
	h->msi = pci_irq_is_msi(d);
	if (h->msi) {
		ksnprintf(kind[h->index], sizeof(kind[0]), "MSI");
	} else {
		h->intx = d->route.line;
		ksnprintf(kind[h->index], sizeof(kind[0]), "INTx %s %u", d->route.is_gsi ? "GSI" : "IRQ",
			  d->route.line);
	}
	h->irq_kind = kind[h->index];
	err = line < 0 ? line : request_irq((unsigned int)line, ahci_hw_interrupt, IRQF_SHARED,
					    h->action_name, h);
	if (err) {
		pr_warn("%s: request_irq(%d): %s\n", h->name, line, errno_name(err));
		pci_free_irq_vectors(d);
		return;
	}
	h->line = line;
	h->irq_requested = true;
	if (h->msi)
		pci_msi_set_diagnose(d, msi_diagnose, h);   /* the MSI line's health report asks us too */
}

/* release_interrupt - the line and its vector back (no device to drive). */
static void release_interrupt(struct ahci_host *h)
{
	if (!h->irq_requested)
		return;
	ahci_write(h, AHCI_GHC, AHCI_GHC_AE);
	if (h->msi)
		pci_msi_set_diagnose(h->pci, NULL, NULL);
	free_irq((unsigned int)h->line, h);          /* the expect tokens die with the action */
	pci_free_irq_vectors(h->pci);
	h->irq_requested = false;
	h->line = -1;
}

static void setup_ports(struct ahci_host *h)
{
	unsigned int nports = (h->cap & AHCI_CAP_NP_MASK) + 1;

	for (unsigned int i = 0; i < AHCI_MAX_PORTS; i++) {
		struct ahci_port *p = &h->port[i];

		p->host = h;
		p->index = i;
		p->regs = h->abar + AHCI_PORT_BASE + i * AHCI_PORT_STRIDE;
		p->implemented = (h->pi >> i) & 1;
		if (!p->implemented)
			continue;
		if (AHCI_PORT_BASE + (i + 1) * AHCI_PORT_STRIDE > h->pci->bar[AHCI_BAR_ABAR].size) {
			pr_warn("%s: port %u lies beyond BAR5 (%llu bytes); skipped\n", h->name, i,
				(unsigned long long)h->pci->bar[AHCI_BAR_ABAR].size);
			continue;
		}
		if (i >= nports)
			pr_warn("%s: PI names port %u beyond CAP.NP (%u ports); trying it\n", h->name, i,
				nports);
		if (port_setup(p) == 0) {
			port_name(p);
			if (h->irq_requested)
				p->expect = init_irq_expect((unsigned int)h->line, h);
		}
	}
}

static void identify_ports(struct ahci_host *h)
{
	for (unsigned int i = 0; i < AHCI_MAX_PORTS; i++) {
		struct ahci_port *p = &h->port[i];
		int err;

		if (!p->started)
			continue;
		if (ahci_identify(p)) {
			ahci_port_irq_enable(p, false);   /* a device we cannot use stays quiet */
			ahci_port_stop(p);
			p->started = false;
			continue;
		}
		ahci_init_blk(p);
		err = blk_register(&p->blk);
		p->blk_registered = err == 0;
		if (err)
			pr_warn("%s: %s: not registered as a block device: %s\n", h->name, p->name,
				errno_name(err));
	}
}

/* abar_ok - BAR5 is an assigned memory BAR big enough for the registers of every port. */
static bool abar_ok(const struct pci_dev *d)
{
	const struct pci_bar *b = &d->bar[AHCI_BAR_ABAR];

	return !(b->flags & (PCI_BAR_IO | PCI_BAR_BAD)) && b->base != 0 && b->size >= AHCI_ABAR_MIN_SIZE &&
	       b->base + b->size > b->base;
}

static int probe_host(struct pci_dev *d)
{
	struct ahci_host *h = &ahci_hosts[ahci_nr_hosts];
	const struct pci_bar *abar = &d->bar[AHCI_BAR_ABAR];
	unsigned int found = 0;
	int err;

	memset(h, 0, sizeof(*h));
	h->index = ahci_nr_hosts;
	h->pci = d;
	h->line = -1;
	ksnprintf(h->name, sizeof(h->name), "ahci%u", h->index);
	ksnprintf(h->action_name, sizeof(h->action_name), "ahci%u %02x:%02x.%u", h->index, d->bus,
		  d->dev, d->fn);
	if (!abar_ok(d)) {
		pr_warn("%s: %02x:%02x.%u: BAR5 is not a usable memory BAR (base %#llx size %llu); not used\n",
			h->name, d->bus, d->dev, d->fn, (unsigned long long)abar->base, (unsigned long long)abar->size);
		return -ENODEV;
	}
	/* Uncached wherever the firmware put it: identity below 4 GiB, the PAE window above (paging.c). */
	err = mmio_map(abar->base, abar->size, &h->abar);
	if (err) {
		pr_warn("%s: %02x:%02x.%u: BAR5 at %#llx is not reachable: %s; not used\n", h->name, d->bus, d->dev,
			d->fn, (unsigned long long)abar->base, mmio_map_error(err));
		return -ENODEV;
	}
	h->abar_phys = abar->base;
	err = pci_enable(d, PCI_ENABLE_MEM | PCI_ENABLE_MASTER);
	if (err)
		return err;
	h->cap = ahci_read(h, AHCI_CAP);
	h->vs = ahci_read(h, AHCI_VS);
	h->cap2 = h->vs >= 0x00010200 ? ahci_read(h, AHCI_CAP2) : 0;   /* CAP2 since AHCI 1.2 */
	if (h->cap == 0xFFFFFFFFu) {
		pr_warn("%s: registers read all ones; not used\n", h->name);
		return -ENODEV;
	}
	bios_handoff(h);
	err = hba_reset(h);
	if (err)
		return err;
	h->cap = ahci_read(h, AHCI_CAP);
	h->pi = ahci_read(h, AHCI_PI);
	h->slots = ((h->cap >> AHCI_CAP_NCS_SHIFT) & AHCI_CAP_NCS_MASK) + 1;
	ahci_nr_hosts++;
	take_interrupt(h);
	setup_ports(h);
	ahci_write(h, AHCI_IS, ahci_read(h, AHCI_IS));
	ahci_write(h, AHCI_GHC, AHCI_GHC_AE | AHCI_GHC_IE);
	identify_ports(h);
	for (unsigned int i = 0; i < AHCI_MAX_PORTS; i++)
		found += h->port[i].started;
	if (found == 0)
		release_interrupt(h);        /* nothing to drive: give the (maybe shared) line back */
	pr_info("%s: pci %02x:%02x.%u %04x:%04x AHCI version %#x at %#llx: %u slots, ports %#x, %s on line %d%s: %u device%s\n",
		h->name, d->bus, d->dev, d->fn, d->vendor_id, d->device_id, h->vs, (unsigned long long)h->abar_phys,
		h->slots, h->pi,
		h->irq_kind ? h->irq_kind : "no interrupt", h->line,
		h->irq_requested ? " (IRQ expecting per port)" : "", found, found == 1 ? "" : "s");
	return 0;
}

int ahci_init(void)
{
	struct pci_dev *d = NULL;
	int found = 0;

	while (ahci_nr_hosts < AHCI_MAX_HOSTS &&
	       (d = pci_find_class(PCI_CLASS_STORAGE, PCI_SUBCLASS_SATA, AHCI_PROGIF, d)) != NULL)
		if (probe_host(d) == 0)
			found++;
	if (found == 0)
		pr_info("ahci: no AHCI controller\n");
	return found;
}
