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
 *   ahci-late[:SPREAD]  every command's interrupt given back just before
 *                       the driver's own recovery (below: the race of the
 *                       host's lock, docs/smp.md).
 *   ahci-isgap[:US]     right after issuing a command the driver looks
 *                       at its port (as a poll coming then would), and a
 *                       look that finds the command still running after
 *                       reading PxIS waits up to US us for the HBA to
 *                       complete it before reading PxCI: the completion
 *                       lands between the two reads, as when the host
 *                       deschedules the vCPU there or QEMU's I/O thread
 *                       holds its lock (docs/ahci.md).
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
#include <time/hrtimer.h>
#include <time/time.h>

#define LATE_NS_PER_US 1000ull
#define LATE_NS_PER_MS 1000000ull

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

/* ---- ahci-isgap ------------------------------------------------------------------------ */

/* Read by every service of a port (interrupts off, any CPU); written by the shell. A stale
 * value on another CPU only delays the change by one service: no ordering needed. */
static volatile unsigned int isgap_us;
static uint64_t isgap_waits, isgap_caught;

bool ahci_isgap_on(void)
{
	return isgap_us != 0;
}

void ahci_isgap(struct ahci_port *p)
{
	unsigned int us = isgap_us;

	if (!us || !(ahci_port_read(p, AHCI_PxCI) & 1u))
		return;
	/* The command is still running: wait up to US us by the kernel's clock for the HBA to
	 * complete it (a pass of a register read and udelay(1) can take several us under TCG), and
	 * at most US passes (each takes at least 1 us: the clock's deadline comes first). */
	const uint64_t end = ktime_get_ns() + (uint64_t)us * LATE_NS_PER_US;

	isgap_waits++;
	for (unsigned int i = 0; i < us && ktime_get_ns() < end; i++) {
		if (!(ahci_port_read(p, AHCI_PxCI) & 1u)) {
			isgap_caught++;
			return;
		}
		udelay(1);
	}
}

static int isgap_on(const char *arg)
{
	unsigned long us = AHCI_ISGAP_DEFAULT_US;

	if (arg && cmdline_parse_uint(arg, 1, AHCI_ISGAP_MAX_US, &us))
		return -EINVAL;
	if (ahci_nr_hosts == 0)
		return -ENODEV;
	isgap_waits = isgap_caught = 0;
	isgap_us = (unsigned int)us;
	return 0;
}

static int isgap_off(void)
{
	isgap_us = 0;
	cprintf("ahci-isgap: off: %llu looks found their command running after reading PxIS; in %llu of them it "
		"completed before PxCI was read\n", (unsigned long long)isgap_waits, (unsigned long long)isgap_caught);
	return 0;
}

FAULT(ahci_isgap, "ahci-isgap", "US",
      "the AHCI driver looks at a port right after issuing, and waits up to US us (default 2000) between that look's PxIS and PxCI reads for the command to complete",
      isgap_on, isgap_off);

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

/* ---- ahci-late ----------------------------------------------------------------------------- */

/*
 * ahci-late[:SPREAD_US]: the interrupt of every command arrives late, at the
 * moment the driver gives up waiting for it. The command is issued with PxIE
 * cleared (as ahci-noirq); a timer on CPU 0 gives PxIE back, the status left
 * set, so the HBA interrupts at once, `lead` us before the driver's
 * AHCI_IRQ_WAIT_MS ends. The interrupt is handled on the line's CPU (move
 * it off CPU 0 with `affinity`) while the waiter on CPU 0 wakes for its own
 * recovery (ahci_cmd.c, recover_lost): the two race for the one command, and
 * the host's lock must let exactly one of them complete it. `lead` starts
 * at AHCI_LATE_START_US (at most SPREAD) and moves after each command,
 * earlier when the driver's recovery won, later when the interrupt did, by
 * a step that starts at AHCI_LATE_FIRST_STEP_US and halves at each turn
 * down to AHCI_LATE_STEP_US: the aims find where the two meet and stay. With the defences on, kernel/irq's
 * expect polls find the completion long before (and the core serialises its
 * polls with the handler): boot with `noirqdebug` to race the driver's own
 * recovery. Each command then takes about AHCI_IRQ_WAIT_MS.
 */
static struct {
	bool on;
	unsigned int spread_us;
	unsigned int lead_us;
	unsigned int step_us;
	bool last_recovered;
	uint64_t aimed, by_driver, by_irq;
} late;
static struct hrtimer late_timer[AHCI_MAX_HOSTS][AHCI_MAX_PORTS];
static struct ahci_port *late_port[AHCI_MAX_HOSTS][AHCI_MAX_PORTS];

static void late_fn(struct hrtimer *t)
{
	struct ahci_port *p = NULL;
	unsigned long flags;

	for (unsigned int h = 0; h < AHCI_MAX_HOSTS && !p; h++)
		for (unsigned int i = 0; i < AHCI_MAX_PORTS && !p; i++)
			if (&late_timer[h][i] == t)
				p = late_port[h][i];
	if (!p)
		return;
	/* Under the host's lock like every other PxIE write; the HBA raises the interrupt now. */
	flags = ahci_lock(p->host);
	ahci_port_irq_enable(p, true);
	ahci_unlock(p->host, flags);
}

bool ahci_late_on(void)
{
	return late.on;
}

void ahci_late_arm(struct ahci_port *p, uint64_t issue_ns)
{
	unsigned int h = p->host->index % AHCI_MAX_HOSTS, i = p->index % AHCI_MAX_PORTS;

	if (!late.on)
		return;
	if (!late_port[h][i]) {
		hrtimer_setup(&late_timer[h][i], late_fn, p);
		late_port[h][i] = p;
	}
	late.aimed++;
	hrtimer_start(&late_timer[h][i],
		      issue_ns + (uint64_t)AHCI_IRQ_WAIT_MS * LATE_NS_PER_MS - (uint64_t)late.lead_us * LATE_NS_PER_US);
}

void ahci_late_done(struct ahci_port *p, bool recovered)
{
	unsigned int h = p->host->index % AHCI_MAX_HOSTS, i = p->index % AHCI_MAX_PORTS;

	if (!late_port[h][i])
		return;
	hrtimer_cancel(&late_timer[h][i]);   /* a core poll may have completed the command early */
	if (!late.on)
		return;
	if (late.by_driver + late.by_irq && recovered != late.last_recovered)
		late.step_us = late.step_us / 2 > AHCI_LATE_STEP_US ? late.step_us / 2 : AHCI_LATE_STEP_US;
	late.last_recovered = recovered;
	if (recovered) {
		late.by_driver++;
		late.lead_us = late.lead_us + late.step_us > late.spread_us ? late.spread_us : late.lead_us + late.step_us;
	} else {
		late.by_irq++;
		late.lead_us = late.lead_us > late.step_us ? late.lead_us - late.step_us : 0;
	}
}

static int late_on(const char *arg)
{
	unsigned long spread = AHCI_LATE_DEFAULT_SPREAD_US;

	if (arg && cmdline_parse_uint(arg, 1, AHCI_LATE_MAX_SPREAD_US, &spread))
		return -EINVAL;
	if (ahci_nr_hosts == 0)
		return -ENODEV;
	late.spread_us = (unsigned int)spread;
	late.lead_us = AHCI_LATE_START_US < late.spread_us ? AHCI_LATE_START_US : late.spread_us;
	late.step_us = AHCI_LATE_FIRST_STEP_US;
	late.aimed = late.by_driver = late.by_irq = 0;
	late.on = true;
	return 0;
}

static int late_off(void)
{
	late.on = false;
	cprintf("ahci-late: off, spread %u us: %llu commands aimed: %llu completed by the driver's own recovery, "
		"%llu by the interrupt (the aim last %u us before the driver's %u ms)\n", late.spread_us,
		(unsigned long long)late.aimed, (unsigned long long)late.by_driver, (unsigned long long)late.by_irq,
		late.lead_us, (unsigned int)AHCI_IRQ_WAIT_MS);
	return 0;
}

FAULT(ahci_late, "ahci-late", "SPREAD_US",
      "every AHCI command's interrupt given back just before the driver's own 250 ms recovery (races the "
      "two; needs the line off CPU 0 and noirqdebug)",
      late_on, late_off);
