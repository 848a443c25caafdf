/*
 * msi.c - message-signalled interrupts for PCI functions: the MSI and
 * MSI-X capabilities (PCI Local Bus 3.0 section 6.8), one kernel/irq line
 * and one CPU vector per message, an irq_chip that masks at the device,
 * and INTx as the fallback (include/drivers/pci_msi.h is the interface,
 * docs/msi.md the story).
 *
 * A message interrupt is a memory write the device makes on its own: the
 * address 0xFEExxxxx names a local APIC, the data the vector (Intel SDM
 * vol. 3A 11.11; arch/x86/vector.c composes both). Nothing in between
 * keeps state: no pin stays asserted, no IOAPIC remembers. So a message
 * the device did not send (masked, MSI disabled) or sent to the wrong
 * vector is gone, and only the device's own status says work is waiting.
 * That is why the drivers that use this bracket every command with
 * expect_irq()/unexpect_irq(), and why the chip below can diagnose.
 *
 * The chip of a message line ("PCI-MSI 00:1f.2", "PCI-MSI-X 00:04.0"):
 *   mask/unmask  MSI-X: the entry's vector control bit (PCI 3.0 6.8.2.9).
 *                MSI with per-vector masking: the mask bit (6.8.1.8).
 *                MSI without it (QEMU's ICH9 AHCI): no way to hold a
 *                message back, so mask clears MSI enable, with INTx
 *                disable set in the command register, or the function
 *                would fall back to its pin (6.8.1.3). Unlike a mask
 *                bit this does not remember: a message the device would
 *                have sent meanwhile is dropped, not sent at unmask
 *                (the PCI spec has no pending bit without masking). The
 *                core cannot know; a driver that expects the interrupt
 *                finds the work by its expect poll. Disabling such a
 *                line (disable_irq) is rare: the flood defence does it.
 *   ack          local APIC EOI: a message is an edge at the LAPIC.
 *   irq_pending  the LAPIC's IRR bit of the line's vector, believed only
 *                while the device still carries that vector unmasked,
 *                and only on the destination CPU (elsewhere: cannot
 *                tell); for MSI-X also the Pending Bit Array when the
 *                entry is unmasked (the message is on its way out).
 *   irq_set_affinity  the first online CPU of the mask: the message
 *                address alone is rewritten (retarget() says why nothing
 *                is lost or sent twice meanwhile).
 *   irq_diagnose compares what the device holds (enable bits, masks,
 *                message data) with what this file programmed.
 *
 * Untrusted input: the capability pointers come from the walk (bounded,
 * loop-checked: pci.c); MSI's layout must fit configuration space and
 * MSI-X's table and PBA must fit the memory BAR they name (msi_layout.c),
 * wherever it lies: both are mapped uncached with mmio_map() (arch/x86/
 * paging.c; above 4 GiB through the PAE window). Every MSI-X table access
 * is bounded by the checked size.
 *
 * Locking: allocation and freeing run in thread context with interrupts
 * off around each device change; chip operations run under the line's
 * lock with interrupts off (irqchip.h), which serialises them across CPUs
 * (a move against a mask, a diagnosis). dest_apic_id alone is also read
 * by irq_pending without it (see there).
 */
#include "msi_internal.h"
#include "pci_internal.h"
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/paging.h>
#include <asm/smp.h>
#include <asm/vector.h>
#include <asm/x86_irq.h>
#include <drivers/pci_msi.h>
#include <irq/interrupt.h>
#include <irq/irqchip.h>
#include <irq/irq_config.h>
#include <irq/stats.h>
#include <kernel/console.h>
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#define MSI_NAME_MAX 24        /* "PCI-MSI-X 00:04.0" and its NUL */
#define MSI_WHY_MAX 160        /* reasons of refusals and diagnoses */
#define MSI_LINES (IRQ_NR_LINES - PCI_MSI_FIRST_LINE)

_Static_assert(IRQ_NR_LINES > PCI_MSI_FIRST_LINE, "kernel/irq needs lines above the GSIs for messages");

/* One message vector. */
struct msi_vec {
	struct msi_dev *md;
	unsigned int nr;               /* MSI-X entry / MSI message number */
	unsigned int irq;              /* kernel/irq line */
	unsigned int vector;           /* CPU vector (vector.c) */
	unsigned int dest_apic_id;     /* the local APIC it goes to */
	bool masked;                   /* masked by the chip (the core's view) */
	struct x86_msi_msg msg;        /* what we programmed */
	struct irq_chip chip;          /* per vector, so `irqs` names the device */
	char name[MSI_NAME_MAX];
};

/* One function with vectors. */
struct msi_dev {
	struct pci_dev *dev;           /* NULL: slot free */
	enum pci_irq_mode mode;
	unsigned int nvec;
	unsigned int cap;              /* offset of the capability in use */
	struct pci_msi_layout msi;     /* MSI */
	struct pci_msix_layout msix;   /* MSI-X */
	int intx_line;                 /* INTx mode: the routed line */
	pci_msi_diagnose_fn diag_fn;   /* the driver's part of the diagnosis, or NULL */
	void *diag_ctx;
	struct msi_vec vec[PCI_MSI_MAX_VECTORS];
};

static struct msi_dev devs[PCI_MSI_MAX_DEVICES];
static bool line_taken[MSI_LINES];
static bool nomsi;

/* ---- Small helpers ------------------------------------------------------------------------- */

int pci_param_pci(const char *value, void *arg)
{
	(void)arg;
	if (!value || strcmp(value, "nomsi") != 0)
		return -EINVAL;
	nomsi = true;
	return 0;
}

bool pci_msi_disabled(void)
{
	return nomsi;
}

const char *pci_irq_mode_name(enum pci_irq_mode mode)
{
	switch (mode) {
	case PCI_IRQ_MODE_INTX: return "INTx";
	case PCI_IRQ_MODE_MSI: return "MSI";
	case PCI_IRQ_MODE_MSIX: return "MSI-X";
	default: return "none";
	}
}

static struct msi_dev *find_md(const struct pci_dev *dev)
{
	for (unsigned int i = 0; dev && i < PCI_MSI_MAX_DEVICES; i++)
		if (devs[i].dev == dev)
			return &devs[i];
	return NULL;
}

static int cap_offset(const struct pci_dev *dev, uint8_t id)
{
	for (unsigned int i = 0; i < dev->cap_count && i < PCI_MAX_CAPS; i++)
		if (dev->cap[i].id == id)
			return dev->cap[i].offset;
	return -ENOENT;
}

static int line_alloc(void)
{
	for (unsigned int i = 0; i < MSI_LINES; i++) {
		if (!line_taken[i]) {
			line_taken[i] = true;
			return (int)(PCI_MSI_FIRST_LINE + i);
		}
	}
	return -ENOSPC;
}

static void line_release(unsigned int irq)
{
	if (irq >= PCI_MSI_FIRST_LINE && irq < IRQ_NR_LINES)
		line_taken[irq - PCI_MSI_FIRST_LINE] = false;
}

/* MSI-X entry register @reg of vector @v. The table was checked to hold every entry. */
static uintptr_t entry_reg(const struct msi_vec *v, unsigned int reg)
{
	return v->md->msix.table_virt + (uintptr_t)v->nr * PCI_MSIX_ENTRY_SIZE + reg;
}

static bool pba_bit(const struct msi_vec *v)
{
	uintptr_t word = v->md->msix.pba_virt + (v->nr / 32u) * 4u;

	return (mmio_read32(word) >> (v->nr % 32u)) & 1u;
}

/* The INTx disable bit of the command register: set while messages are in use. */
static void intx_disable(const struct pci_dev *dev, bool off)
{
	uint16_t cmd = pci_read16(dev, PCI_COMMAND);
	uint16_t want = off ? (uint16_t)(cmd | PCI_COMMAND_INTX_DISABLE) : (uint16_t)(cmd & ~PCI_COMMAND_INTX_DISABLE);

	if (want != cmd)
		pci_write16(dev, PCI_COMMAND, want);
}

/* ---- Programming the device ---------------------------------------------------------------- */

/* msix_set_mask - vector control of @v's entry; the read flushes the posted write. */
static void msix_set_mask(const struct msi_vec *v, bool masked)
{
	uintptr_t ctrl = entry_reg(v, PCI_MSIX_ENTRY_CTRL);
	uint32_t val = mmio_read32(ctrl);

	val = masked ? (val | PCI_MSIX_ENTRY_CTRL_MASKED) : (val & ~PCI_MSIX_ENTRY_CTRL_MASKED);
	mmio_write32(ctrl, val);
	(void)mmio_read32(ctrl);
}

static void msi_set_enable(const struct msi_dev *md, bool on)
{
	uint16_t ctl = pci_read16(md->dev, md->cap + PCI_MSI_CTL);

	ctl = on ? (uint16_t)(ctl | PCI_MSI_CTL_ENABLE) : (uint16_t)(ctl & ~PCI_MSI_CTL_ENABLE);
	pci_write16(md->dev, md->cap + PCI_MSI_CTL, ctl);
}

/* msi_set_mask - MSI: the per-vector mask bit, or where there is none, MSI enable (see the top). */
static void msi_set_mask(const struct msi_vec *v, bool masked)
{
	const struct msi_dev *md = v->md;

	if (md->msi.pvm) {
		uint32_t bits = pci_read32(md->dev, md->msi.mask);

		bits = masked ? (bits | (1u << v->nr)) : (bits & ~(1u << v->nr));
		pci_write32(md->dev, md->msi.mask, bits);
	} else {
		msi_set_enable(md, !masked);
	}
}

static void vec_set_mask(const struct msi_vec *v, bool masked)
{
	if (v->md->mode == PCI_IRQ_MODE_MSIX)
		msix_set_mask(v, masked);
	else
		msi_set_mask(v, masked);
}

/* write_msg - put @v->msg into the device (the caller has the vector masked). */
static void write_msg(const struct msi_vec *v)
{
	const struct msi_dev *md = v->md;

	if (md->mode == PCI_IRQ_MODE_MSIX) {
		mmio_write32(entry_reg(v, PCI_MSIX_ENTRY_ADDR_LO), v->msg.address_lo);
		mmio_write32(entry_reg(v, PCI_MSIX_ENTRY_ADDR_HI), v->msg.address_hi);
		mmio_write32(entry_reg(v, PCI_MSIX_ENTRY_DATA), v->msg.data);
		(void)mmio_read32(entry_reg(v, PCI_MSIX_ENTRY_DATA));
		return;
	}
	pci_write32(md->dev, md->msi.addr_lo, v->msg.address_lo);
	if (md->msi.is64)
		pci_write32(md->dev, md->msi.addr_hi, v->msg.address_hi);
	pci_write16(md->dev, md->msi.data, (uint16_t)v->msg.data);
}

/* read_msg - what the device holds for @v now. */
static void read_msg(const struct msi_vec *v, struct x86_msi_msg *m)
{
	const struct msi_dev *md = v->md;

	if (md->mode == PCI_IRQ_MODE_MSIX) {
		m->address_lo = mmio_read32(entry_reg(v, PCI_MSIX_ENTRY_ADDR_LO));
		m->address_hi = mmio_read32(entry_reg(v, PCI_MSIX_ENTRY_ADDR_HI));
		m->data = mmio_read32(entry_reg(v, PCI_MSIX_ENTRY_DATA));
		return;
	}
	m->address_lo = pci_read32(md->dev, md->msi.addr_lo);
	m->address_hi = md->msi.is64 ? pci_read32(md->dev, md->msi.addr_hi) : 0;
	m->data = pci_read16(md->dev, md->msi.data);
}

/* device_masked - the device holds @v back now (whoever did it). */
static bool device_masked(const struct msi_vec *v)
{
	const struct msi_dev *md = v->md;

	if (md->mode == PCI_IRQ_MODE_MSIX) {
		uint16_t ctl = pci_read16(md->dev, md->cap + PCI_MSIX_CTL);

		return !(ctl & PCI_MSIX_CTL_ENABLE) || (ctl & PCI_MSIX_CTL_FMASK) ||
		       (mmio_read32(entry_reg(v, PCI_MSIX_ENTRY_CTRL)) & PCI_MSIX_ENTRY_CTRL_MASKED);
	}
	if (!(pci_read16(md->dev, md->cap + PCI_MSI_CTL) & PCI_MSI_CTL_ENABLE))
		return true;
	return md->msi.pvm && ((pci_read32(md->dev, md->msi.mask) >> v->nr) & 1u);
}

/* ---- The irq_chip -------------------------------------------------------------------------- */

static void msi_chip_mask(struct irq_data *d)
{
	struct msi_vec *v = d->chip_data;

	vec_set_mask(v, true);
	v->masked = true;
}

static void msi_chip_unmask(struct irq_data *d)
{
	struct msi_vec *v = d->chip_data;

	vec_set_mask(v, false);
	v->masked = false;
}

/* A message arrives at the LAPIC as an edge: one EOI ends it. */
static void msi_chip_ack(struct irq_data *d)
{
	(void)d;
	lapic_eoi();
}

static int msi_chip_pending(struct irq_data *d)
{
	struct msi_vec *v = d->chip_data;
	struct x86_msi_msg now;
	unsigned int vector;

	if (!v || !lapic_ready())
		return -ENODEV;
	/* A masked vector sends nothing, whatever is latched (irqchip.h: say 0). */
	if (v->masked || device_masked(v))
		return 0;
	/* MSI-X: a pending bit on an unmasked entry is a message leaving the device now. */
	if (v->md->mode == PCI_IRQ_MODE_MSIX && pba_bit(v))
		return 1;
	/* The IRR that counts is the destination's (retarget may move it meanwhile: relaxed load,
	 * old or new value; either way a CPU that is not it cannot tell, never says 0). */
	if (this_cpu()->apic_id != __atomic_load_n(&v->dest_apic_id, __ATOMIC_RELAXED))
		return -EAGAIN;
	if (lapic_irr_set(v->vector)) {
		/* Requested at the LAPIC: ours only if the device still sends this vector. */
		read_msg(v, &now);
		return x86_msi_decode(&now, &vector, NULL) && vector == v->vector ? 1 : 0;
	}
	return 0;
}

static int msi_diagnose_vec(struct msi_vec *v, char *buf, size_t len)
{
	const struct msi_dev *md = v->md;
	struct x86_msi_msg now;
	unsigned int vector = 0, dest = 0;
	bool sane;
	int owner;

	read_msg(v, &now);
	sane = x86_msi_decode(&now, &vector, &dest);
	if (!sane || vector != v->vector) {
		owner = x86_vector_to_irq(vector);
		if (owner >= 0)
			ksnprintf(buf, len, "%s entry %u sends vector 0x%02x (line %d's), not its own 0x%02x (address %08x data %04x)",
				  v->name, v->nr, vector, owner, v->vector, now.address_lo, now.data);
		else
			ksnprintf(buf, len, "%s entry %u sends vector 0x%02x, which nobody owns, not its own 0x%02x (address %08x data %04x)",
				  v->name, v->nr, vector, v->vector, now.address_lo, now.data);
		return 1;
	}
	if (dest != v->dest_apic_id) {
		ksnprintf(buf, len, "%s entry %u is addressed to APIC %u, not APIC %u", v->name, v->nr, dest,
			  v->dest_apic_id);
		return 1;
	}
	if (md->mode == PCI_IRQ_MODE_MSIX) {
		uint16_t ctl = pci_read16(md->dev, md->cap + PCI_MSIX_CTL);

		if (!(ctl & PCI_MSIX_CTL_ENABLE) || (ctl & PCI_MSIX_CTL_FMASK)) {
			ksnprintf(buf, len, "%s: MSI-X %s in the capability (control %04x)", v->name,
				  !(ctl & PCI_MSIX_CTL_ENABLE) ? "switched off" : "function mask set", ctl);
			return 1;
		}
		if (!v->masked && (mmio_read32(entry_reg(v, PCI_MSIX_ENTRY_CTRL)) & PCI_MSIX_ENTRY_CTRL_MASKED)) {
			ksnprintf(buf, len, "%s entry %u masked at the device (vector control) behind the core's back%s",
				  v->name, v->nr, pba_bit(v) ? "; a message waits in the Pending Bit Array" : "");
			return 1;
		}
		return md->diag_fn ? md->diag_fn(md->diag_ctx, v->nr, buf, len) : 0;
	}
	if (!v->masked && device_masked(v)) {
		bool enabled = pci_read16(md->dev, md->cap + PCI_MSI_CTL) & PCI_MSI_CTL_ENABLE;

		ksnprintf(buf, len, "%s message %u held back at the device behind the core's back (%s)%s", v->name,
			  v->nr, enabled ? "mask bit set" : "MSI enable cleared",
			  md->msi.pvm && ((pci_read32(md->dev, md->msi.pending) >> v->nr) & 1u) ?
			  "; its pending bit is set" : "");
		return 1;
	}
	return md->diag_fn ? md->diag_fn(md->diag_ctx, v->nr, buf, len) : 0;
}

static int msi_chip_diagnose(struct irq_data *d, char *buf, size_t len)
{
	return d->chip_data ? msi_diagnose_vec(d->chip_data, buf, len) : -ENODEV;
}

/*
 * retarget - send @v's messages to local APIC @apic_id from now on. Only
 * the address changes: vectors are global (one IDT for every CPU, one
 * vector -> line map in arch/x86/irq.c, vector.c hands each vector out
 * once), so the data word, and with it the vector, stays as it is, and
 * the high address word stays 0 (an xAPIC ID fits bits 19:12). The one
 * word that changes is written by one 32-bit write, and what the
 * device may send meanwhile is:
 *   MSI-X  the entry is masked around the write, as PCI 3.0 6.8.2.9
 *          demands (6.8.3.5: changing an unmasked entry's address is
 *          undefined). A message the device raises while it is masked
 *          sets the entry's Pending Bit and goes out once, to the new
 *          address, when the mask comes off (6.8.3.5, 6.8.2.10). The vector control
 *          word is put back as it was: a mask set behind the core's back
 *          (msi-mask) stays.
 *   MSI with per-vector masking: the same with the mask bit and the
 *          pending bits (6.8.1.8, 6.8.1.9, 6.8.3.5).
 *   MSI without it (QEMU's ICH9 AHCI): nothing can hold a message back
 *          (clearing MSI enable would drop one, see the top), so the
 *          address is changed live by that single 32-bit configuration
 *          write. A configuration write is one transaction at the
 *          function, and QEMU reads the address when it sends (under its
 *          global lock): a message carries the old address whole or the
 *          new one whole, never a mix, and is sent once. This relies on
 *          the vector not changing; PCI gives such a function no
 *          stronger guarantee and this is the honest fallback.
 * A message already accepted by the old CPU's LAPIC is taken there; one
 * that reaches the new CPU while the old one still runs the handlers
 * finds the line in progress (kernel/irq's edge flow marks it pending and
 * the old CPU replays it). CONTEXT: the line's lock held, interrupts off.
 */
static int retarget(struct msi_vec *v, unsigned int apic_id)
{
	const struct msi_dev *md = v->md;
	struct x86_msi_msg msg;

	if (x86_msi_compose(v->vector, apic_id, &msg) || msg.address_hi != v->msg.address_hi ||
	    msg.data != v->msg.data)
		return -EINVAL;
	if (md->mode == PCI_IRQ_MODE_MSIX) {
		uintptr_t ctrl = entry_reg(v, PCI_MSIX_ENTRY_CTRL);
		uint32_t was = mmio_read32(ctrl);

		if (!(was & PCI_MSIX_ENTRY_CTRL_MASKED))
			mmio_write32(ctrl, was | PCI_MSIX_ENTRY_CTRL_MASKED);
		mmio_write32(entry_reg(v, PCI_MSIX_ENTRY_ADDR_LO), msg.address_lo);
		(void)mmio_read32(entry_reg(v, PCI_MSIX_ENTRY_ADDR_LO));   /* flush before the unmask */
		if (!(was & PCI_MSIX_ENTRY_CTRL_MASKED))
			mmio_write32(ctrl, was);
	} else if (md->mode == PCI_IRQ_MODE_MSI && md->msi.pvm) {
		uint32_t was = pci_read32(md->dev, md->msi.mask);

		if (!(was & (1u << v->nr)))
			pci_write32(md->dev, md->msi.mask, was | (1u << v->nr));
		pci_write32(md->dev, md->msi.addr_lo, msg.address_lo);
		if (!(was & (1u << v->nr)))
			pci_write32(md->dev, md->msi.mask, was);
	} else if (md->mode == PCI_IRQ_MODE_MSI) {
		pci_write32(md->dev, md->msi.addr_lo, msg.address_lo);
	} else {
		return -EINVAL;
	}
	v->msg = msg;
	/* Read without the line's lock by irq_pending's second call: one aligned word, old or new. */
	__atomic_store_n(&v->dest_apic_id, apic_id, __ATOMIC_RELAXED);
	return 0;
}

/*
 * irq_set_affinity: physical destination, the first online CPU of @mask,
 * as the IOAPIC chip does (docs/smp.md, "Affinity": one fixed CPU per
 * line; an MSI address names one APIC in physical mode).
 */
static int msi_chip_set_affinity(struct irq_data *d, irq_cpumask_t mask)
{
	struct msi_vec *v = d->chip_data;

	if (!v)
		return -ENODEV;
	for (unsigned int cpu = 0; cpu < SMP_MAX_CPUS; cpu++)
		if ((mask & (1u << cpu)) && smp_cpu_online(cpu))
			return retarget(v, cpu_data[cpu].apic_id);
	return -EINVAL;
}

static const struct irq_chip msi_chip_template = {
	.name = "PCI-MSI",
	.mask = msi_chip_mask,
	.unmask = msi_chip_unmask,
	.ack = msi_chip_ack,
	.irq_pending = msi_chip_pending,
	.irq_diagnose = msi_chip_diagnose,
	.irq_set_affinity = msi_chip_set_affinity,
};

/* ---- Allocation ---------------------------------------------------------------------------- */

/* vec_release - give back what vec_setup took (the line has no actions). */
static void vec_release(struct msi_vec *v)
{
	if (v->vector) {
		x86_irq_clear_vector(v->vector);
		x86_vector_free(v->vector);
	}
	if (v->irq)
		line_release(v->irq);
	v->vector = 0;
	v->irq = 0;
}

/*
 * vec_setup - line, CPU vector, message and chip for vector @nr of @md;
 * the device side is written masked. RETURNS 0 or a negative error
 * (everything taken is given back).
 */
static int vec_setup(struct msi_dev *md, unsigned int nr)
{
	struct msi_vec *v = &md->vec[nr];
	char bdf[PCI_BDF_LEN];
	int line, vector, err;

	memset(v, 0, sizeof(*v));
	v->md = md;
	v->nr = nr;
	ksnprintf(v->name, sizeof(v->name), "%s %s", md->mode == PCI_IRQ_MODE_MSIX ? "PCI-MSI-X" : "PCI-MSI",
		  pci_bdf(md->dev, bdf));
	line = line_alloc();
	if (line < 0)
		return line;
	v->irq = (unsigned int)line;
	vector = x86_vector_alloc(v->name);
	if (vector < 0) {
		vec_release(v);
		return vector;
	}
	v->vector = (unsigned int)vector;
	v->dest_apic_id = lapic_id();
	err = x86_msi_compose(v->vector, v->dest_apic_id, &v->msg);
	if (err) {
		vec_release(v);
		return err;
	}
	vec_set_mask(v, true);
	v->masked = true;
	write_msg(v);
	v->chip = msi_chip_template;
	v->chip.name = v->name;
	err = irq_set_chip_and_handler(v->irq, &v->chip, handle_edge_irq, v, nr);
	if (err) {
		pr_warn("pci %s: line %u for message %u refused by kernel/irq (%d)\n", bdf, v->irq, nr, err);
		vec_release(v);
		return err;
	}
	x86_irq_set_vector(v->irq, v->vector, X86_IRQ_VIA_MSI);
	return 0;
}

static void release_all(struct msi_dev *md, unsigned int count)
{
	for (unsigned int i = 0; i < count; i++)
		vec_release(&md->vec[i]);
}

static unsigned int free_lines(void)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < MSI_LINES; i++)
		n += !line_taken[i];
	return n;
}

/* try_msix - MSI-X with @min..@max vectors. RETURNS the count, or a negative error (logged). */
static int try_msix(struct msi_dev *md, unsigned int min, unsigned int max)
{
	struct pci_dev *dev = md->dev;
	char bdf[PCI_BDF_LEN], why[MSI_WHY_MAX] = "";
	int cap = cap_offset(dev, PCI_CAP_ID_MSIX);
	unsigned int n, i;
	uint16_t ctl;
	unsigned long flags;
	int err;

	pci_bdf(dev, bdf);
	if (cap < 0)
		return -ENODEV;
	if ((unsigned int)cap + PCI_MSIX_CAP_LEN > PCI_CONFIG_SPACE_LEN) {
		pr_warn("pci %s: MSI-X capability at 0x%02x runs past configuration space: not used\n", bdf, cap);
		return -EINVAL;
	}
	ctl = pci_read16(dev, (unsigned int)cap + PCI_MSIX_CTL);
	if (pci_msix_layout(dev, ctl, pci_read32(dev, (unsigned int)cap + PCI_MSIX_TABLE),
			    pci_read32(dev, (unsigned int)cap + PCI_MSIX_PBA), &md->msix, why, sizeof(why))) {
		pr_warn("pci %s: %s: MSI-X not used\n", bdf, why);
		return -EINVAL;
	}
	err = mmio_map(md->msix.table_addr, (uint64_t)md->msix.size * PCI_MSIX_ENTRY_SIZE, &md->msix.table_virt);
	if (!err)
		err = mmio_map(md->msix.pba_addr, ((md->msix.size + 63u) / 64u) * 8u, &md->msix.pba_virt);
	if (err) {
		pr_warn("pci %s: MSI-X table at 0x%llx is not reachable: %s; MSI-X not used\n", bdf,
			(unsigned long long)md->msix.table_addr, mmio_map_error(err));
		return -ENODEV;
	}
	n = max;
	if (n > md->msix.size)
		n = md->msix.size;
	if (n > PCI_MSI_MAX_VECTORS)
		n = PCI_MSI_MAX_VECTORS;
	if (n > free_lines())
		n = free_lines();
	if (n > X86_DYN_VECTOR_COUNT - x86_vector_in_use())
		n = X86_DYN_VECTOR_COUNT - x86_vector_in_use();
	if (n < min) {
		pr_warn("pci %s: MSI-X can give %u vectors (table %u, lines and CPU vectors free), %u wanted\n", bdf,
			n, md->msix.size, min);
		return -ENOSPC;
	}
	err = pci_enable(dev, PCI_ENABLE_MEM | PCI_ENABLE_MASTER);
	if (err)
		return err;
	md->mode = PCI_IRQ_MODE_MSIX;
	md->cap = (unsigned int)cap;
	flags = irq_save_flags();
	/* Function mask while entries change (PCI 3.0 6.8.2.3): nothing goes out half-written. */
	pci_write16(dev, md->cap + PCI_MSIX_CTL, (uint16_t)(ctl | PCI_MSIX_CTL_ENABLE | PCI_MSIX_CTL_FMASK));
	irq_restore_flags(flags);
	for (i = 0; i < n; i++) {
		err = vec_setup(md, i);
		if (err)
			break;
	}
	if (i < min) {
		release_all(md, i);
		pci_write16(dev, md->cap + PCI_MSIX_CTL, (uint16_t)(ctl & ~(PCI_MSIX_CTL_ENABLE | PCI_MSIX_CTL_FMASK)));
		md->mode = PCI_IRQ_MODE_NONE;
		pr_warn("pci %s: MSI-X vector %u could not be set up (%d)\n", bdf, i, err);
		return err ? err : -ENOSPC;
	}
	md->nvec = i;
	flags = irq_save_flags();
	intx_disable(dev, true);
	pci_write16(dev, md->cap + PCI_MSIX_CTL, (uint16_t)((ctl | PCI_MSIX_CTL_ENABLE) & ~PCI_MSIX_CTL_FMASK));
	irq_restore_flags(flags);
	return (int)i;
}

/* try_msi - one MSI message. RETURNS 1, or a negative error (logged). */
static int try_msi(struct msi_dev *md)
{
	struct pci_dev *dev = md->dev;
	char bdf[PCI_BDF_LEN], why[MSI_WHY_MAX] = "";
	int cap = cap_offset(dev, PCI_CAP_ID_MSI), err;
	uint16_t ctl;

	pci_bdf(dev, bdf);
	if (cap < 0)
		return -ENODEV;
	ctl = pci_read16(dev, (unsigned int)cap + PCI_MSI_CTL);
	if (pci_msi_cap_layout((unsigned int)cap, ctl, &md->msi, why, sizeof(why))) {
		pr_warn("pci %s: %s: MSI not used\n", bdf, why);
		return -EINVAL;
	}
	if (free_lines() == 0)
		return -ENOSPC;
	err = pci_enable(dev, PCI_ENABLE_MASTER);
	if (err)
		return err;
	md->mode = PCI_IRQ_MODE_MSI;
	md->cap = (unsigned int)cap;
	/* Off, and one message (multiple message enable 0) before anything else changes. */
	pci_write16(dev, md->cap + PCI_MSI_CTL, (uint16_t)(ctl & ~(PCI_MSI_CTL_ENABLE | PCI_MSI_CTL_MME_MASK)));
	/* INTx off first: with no mask bits, "masked" is MSI enable clear, and the pin must stay quiet. */
	intx_disable(dev, true);
	err = vec_setup(md, 0);
	if (err) {
		intx_disable(dev, false);
		md->mode = PCI_IRQ_MODE_NONE;
		pr_warn("pci %s: MSI vector could not be set up (%d)\n", bdf, err);
		return err;
	}
	md->nvec = 1;
	/* With mask bits the message is held by its mask bit; enable now. Without, unmask enables. */
	if (md->msi.pvm)
		msi_set_enable(md, true);
	return 1;
}

static int try_intx(struct msi_dev *md)
{
	struct pci_dev *dev = md->dev;
	int line;

	if (dev->irq_pin == 0 || dev->route.source == PCI_ROUTE_NONE)
		return -ENODEV;
	line = x86_setup_pci_line(dev->route.line, dev->route.level, dev->route.active_low);
	if (line < 0)
		return line;
	intx_disable(dev, false);
	md->mode = PCI_IRQ_MODE_INTX;
	md->intx_line = line;
	md->nvec = 1;
	return 1;
}

int pci_alloc_irq_vectors(struct pci_dev *dev, unsigned int min, unsigned int max, unsigned int flags)
{
	struct msi_dev *md = NULL;
	char bdf[PCI_BDF_LEN];
	bool messages = !nomsi && lapic_ready();
	int n = -ENOSPC;

	if (!dev || min == 0 || min > max || !(flags & PCI_IRQ_ALL_TYPES))
		return -EINVAL;
	if (find_md(dev))
		return -EBUSY;
	for (unsigned int i = 0; i < PCI_MSI_MAX_DEVICES && !md; i++)
		if (!devs[i].dev)
			md = &devs[i];
	if (!md) {
		pr_warn("pci %s: more than %u functions with interrupt vectors\n", pci_bdf(dev, bdf),
			(unsigned int)PCI_MSI_MAX_DEVICES);
		return -ENOSPC;
	}
	memset(md, 0, sizeof(*md));
	md->dev = dev;
	md->intx_line = -1;
	if (messages && (flags & PCI_IRQ_MSIX))
		n = try_msix(md, min, max);
	if (n < 0 && messages && (flags & PCI_IRQ_MSI) && min == 1)
		n = try_msi(md);
	if (n < 0 && (flags & PCI_IRQ_INTX) && min == 1)
		n = try_intx(md);
	pci_bdf(dev, bdf);
	if (n < 0) {
		md->dev = NULL;
		pr_warn("pci %s: no interrupt vectors (%u-%u wanted, kinds%s%s%s%s): %d\n", bdf, min, max,
			flags & PCI_IRQ_MSIX ? " MSI-X" : "", flags & PCI_IRQ_MSI ? " MSI" : "",
			flags & PCI_IRQ_INTX ? " INTx" : "", nomsi ? ", pci=nomsi" : "", n);
		return n;
	}
	if (md->mode == PCI_IRQ_MODE_INTX)
		pr_info("pci %s: INTx, line %d%s\n", bdf, md->intx_line,
			nomsi ? " (pci=nomsi)" : !lapic_ready() ? " (no local APIC for messages)" : "");
	else
		pr_info("pci %s: %s, %u vector%s: lines %u-%u, CPU vectors 0x%02x-0x%02x, to APIC %u\n", bdf,
			pci_irq_mode_name(md->mode), md->nvec, md->nvec == 1 ? "" : "s", md->vec[0].irq,
			md->vec[md->nvec - 1].irq, md->vec[0].vector, md->vec[md->nvec - 1].vector,
			md->vec[0].dest_apic_id);
	return n;
}

int pci_irq_vector(struct pci_dev *dev, unsigned int nr)
{
	struct msi_dev *md = find_md(dev);

	if (!md || nr >= md->nvec)
		return -EINVAL;
	return md->mode == PCI_IRQ_MODE_INTX ? md->intx_line : (int)md->vec[nr].irq;
}

void pci_free_irq_vectors(struct pci_dev *dev)
{
	struct msi_dev *md = find_md(dev);
	struct irq_line_stats st;
	char bdf[PCI_BDF_LEN];
	unsigned long flags;
	bool kept = false;

	if (!md)
		return;
	pci_bdf(dev, bdf);
	for (unsigned int i = 0; md->mode != PCI_IRQ_MODE_INTX && i < md->nvec; i++) {
		struct msi_vec *v = &md->vec[i];

		if (irq_get_line_stats(v->irq, &st) == 0 && st.nr_actions) {
			pr_warn("pci %s: line %u still has a handler: free_irq() it first; vector kept\n", bdf, v->irq);
			kept = true;
			continue;
		}
		flags = irq_save_flags();
		vec_set_mask(v, true);
		v->masked = true;
		irq_restore_flags(flags);
	}
	if (kept)
		return;
	flags = irq_save_flags();
	if (md->mode == PCI_IRQ_MODE_MSIX)
		pci_write16(dev, md->cap + PCI_MSIX_CTL,
			    (uint16_t)(pci_read16(dev, md->cap + PCI_MSIX_CTL) & ~(PCI_MSIX_CTL_ENABLE | PCI_MSIX_CTL_FMASK)));
	else if (md->mode == PCI_IRQ_MODE_MSI)
		msi_set_enable(md, false);
	if (md->mode != PCI_IRQ_MODE_INTX)
		intx_disable(dev, false);
	irq_restore_flags(flags);
	if (md->mode != PCI_IRQ_MODE_INTX)
		release_all(md, md->nvec);
	md->dev = NULL;
	md->mode = PCI_IRQ_MODE_NONE;
	md->nvec = 0;
}

bool pci_irq_is_msi(struct pci_dev *dev)
{
	struct msi_dev *md = find_md(dev);

	return md && (md->mode == PCI_IRQ_MODE_MSI || md->mode == PCI_IRQ_MODE_MSIX);
}

enum pci_irq_mode pci_irq_mode(struct pci_dev *dev)
{
	struct msi_dev *md = find_md(dev);

	return md ? md->mode : PCI_IRQ_MODE_NONE;
}

int pci_msi_diagnose(struct pci_dev *dev, unsigned int nr, char *buf, size_t len)
{
	struct msi_dev *md = find_md(dev);
	unsigned long flags;
	int r;

	if (!md || md->mode == PCI_IRQ_MODE_INTX || nr >= md->nvec || !buf || !len)
		return -EINVAL;
	flags = irq_save_flags();
	r = msi_diagnose_vec(&md->vec[nr], buf, len);
	irq_restore_flags(flags);
	if (!r)
		buf[0] = '\0';
	return r;
}

int pci_msi_set_diagnose(struct pci_dev *dev, pci_msi_diagnose_fn fn, void *ctx)
{
	struct msi_dev *md = find_md(dev);
	unsigned long flags;

	if (!md || (md->mode != PCI_IRQ_MODE_MSI && md->mode != PCI_IRQ_MODE_MSIX))
		return -EINVAL;
	flags = irq_save_flags();
	md->diag_fn = fn;
	md->diag_ctx = ctx;
	irq_restore_flags(flags);
	return 0;
}

/* ---- Fault hooks (msi_fault.c) ------------------------------------------------------------- */

unsigned int msi_fault_for_each(const char *only, void (*fn)(struct msi_vec *v, void *ctx), void *ctx)
{
	char bdf[PCI_BDF_LEN];
	unsigned int n = 0;

	for (unsigned int i = 0; i < PCI_MSI_MAX_DEVICES; i++) {
		struct msi_dev *md = &devs[i];

		if (!md->dev || (md->mode != PCI_IRQ_MODE_MSI && md->mode != PCI_IRQ_MODE_MSIX))
			continue;
		if (only && strcmp(only, pci_bdf(md->dev, bdf)) != 0)
			continue;
		for (unsigned int j = 0; j < md->nvec; j++) {
			unsigned long flags = irq_save_flags();

			fn(&md->vec[j], ctx);
			irq_restore_flags(flags);
			n++;
		}
	}
	return n;
}

void msi_fault_device_mask(struct msi_vec *v, bool on)
{
	vec_set_mask(v, on ? true : v->masked);
}

void msi_fault_set_vector(struct msi_vec *v, unsigned int want)
{
	struct msi_vec tmp = *v;

	if (want)
		x86_msi_compose(want, v->dest_apic_id, &tmp.msg);
	vec_set_mask(v, true);
	write_msg(&tmp);
	if (!v->masked)
		vec_set_mask(v, false);
}

void msi_fault_describe(const struct msi_vec *v, char *buf, size_t len)
{
	ksnprintf(buf, len, "line %u (%s %s %u, vector 0x%02x)", v->irq, v->name,
		  v->md->mode == PCI_IRQ_MODE_MSIX ? "entry" : "message", v->nr, v->vector);
}

/* ---- lspci -v ------------------------------------------------------------------------------ */

static void print_msi_cap(const struct pci_dev *dev, unsigned int cap, const struct msi_dev *md)
{
	uint16_t ctl = pci_read16(dev, cap + PCI_MSI_CTL);
	struct pci_msi_layout l;
	char why[MSI_WHY_MAX] = "";

	if (pci_msi_cap_layout(cap, ctl, &l, why, sizeof(why))) {
		cprintf("        MSI: %s\n", why);
		return;
	}
	cprintf("        MSI: %s, %s, %s per-vector masking, %u message%s capable, %u enabled",
		ctl & PCI_MSI_CTL_ENABLE ? "enabled" : "disabled", l.is64 ? "64-bit" : "32-bit", l.pvm ? "with" : "no",
		l.messages, l.messages == 1 ? "" : "s", 1u << ((ctl & PCI_MSI_CTL_MME_MASK) >> 4));
	if (l.pvm)
		cprintf(", mask %08x pending %08x", pci_read32(dev, l.mask), pci_read32(dev, l.pending));
	cprintf(", address %08x:%08x data %04x\n", l.is64 ? pci_read32(dev, l.addr_hi) : 0u, pci_read32(dev, l.addr_lo),
		pci_read16(dev, l.data));
	if (md && md->mode == PCI_IRQ_MODE_MSI)
		cprintf("          message 0: vector 0x%02x -> line %u, APIC %u, %s\n", md->vec[0].vector,
			md->vec[0].irq, md->vec[0].dest_apic_id, md->vec[0].masked ? "masked" : "unmasked");
}

static void print_msix_cap(const struct pci_dev *dev, unsigned int cap, const struct msi_dev *md)
{
	uint16_t ctl;
	struct pci_msix_layout l;
	char why[MSI_WHY_MAX] = "";

	if (cap + PCI_MSIX_CAP_LEN > PCI_CONFIG_SPACE_LEN) {
		cprintf("        MSI-X: capability runs past configuration space\n");
		return;
	}
	ctl = pci_read16(dev, cap + PCI_MSIX_CTL);
	if (pci_msix_layout(dev, ctl, pci_read32(dev, cap + PCI_MSIX_TABLE), pci_read32(dev, cap + PCI_MSIX_PBA),
			    &l, why, sizeof(why))) {
		cprintf("        MSI-X: %s, %u entries; %s\n", ctl & PCI_MSIX_CTL_ENABLE ? "enabled" : "disabled",
			(ctl & PCI_MSIX_CTL_SIZE_MASK) + 1u, why);
		return;
	}
	cprintf("        MSI-X: %s, function mask %s, %u entries, table BAR%u+0x%x, PBA BAR%u+0x%x\n",
		ctl & PCI_MSIX_CTL_ENABLE ? "enabled" : "disabled", ctl & PCI_MSIX_CTL_FMASK ? "on" : "off", l.size,
		l.table_bir, l.table_off, l.pba_bir, l.pba_off);
	if (!md || md->mode != PCI_IRQ_MODE_MSIX)
		return;
	for (unsigned int i = 0; i < md->nvec; i++) {
		const struct msi_vec *v = &md->vec[i];

		cprintf("          entry %u: vector 0x%02x -> line %u, APIC %u, %s; device: address %08x data %04x %s%s\n", i,
			v->vector, v->irq, v->dest_apic_id, v->masked ? "masked" : "unmasked",
			mmio_read32(entry_reg(v, PCI_MSIX_ENTRY_ADDR_LO)), mmio_read32(entry_reg(v, PCI_MSIX_ENTRY_DATA)),
			mmio_read32(entry_reg(v, PCI_MSIX_ENTRY_CTRL)) & PCI_MSIX_ENTRY_CTRL_MASKED ? "masked" : "unmasked",
			pba_bit(v) ? ", pending" : "");
	}
}

void pci_msi_print(const struct pci_dev *dev)
{
	const struct msi_dev *md = find_md(dev);
	int msi = dev ? cap_offset(dev, PCI_CAP_ID_MSI) : -1;
	int msix = dev ? cap_offset(dev, PCI_CAP_ID_MSIX) : -1;

	if (!dev)
		return;
	if (msi >= 0)
		print_msi_cap(dev, (unsigned int)msi, md);
	if (msix >= 0)
		print_msix_cap(dev, (unsigned int)msix, md);
	if (md)
		cprintf("        interrupts: %s, %u vector%s%s\n", pci_irq_mode_name(md->mode), md->nvec,
			md->nvec == 1 ? "" : "s", nomsi ? " (pci=nomsi)" : "");
	else if (msi >= 0 || msix >= 0)
		cprintf("        interrupts: no vectors allocated (no driver asked)%s\n", nomsi ? " (pci=nomsi)" : "");
}
