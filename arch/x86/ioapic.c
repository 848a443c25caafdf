/*
 * ioapic.c - the I/O APICs, which turn device interrupt pins into messages
 * to a local APIC: each pin has a redirection table entry that says which
 * vector, which CPU, edge or level, active high or low, and whether the pin
 * is masked. Intel 82093AA I/O APIC data sheet (order 290566): section 3.1
 * (IOREGSEL / IOWIN indirect access), 3.2 (ID, version, redirection table).
 * The chipsets' IOAPICs (PIIX4/ICH, and QEMU's model of version 0x20)
 * follow it.
 *
 * Any number of IOAPICs, as the firmware tables list them; each owns a
 * range of GSIs (global system interrupts) from its base. kernel/irq line n
 * is GSI n, with vector IOAPIC_VECTOR_BASE + n. One irq_chip ("IO-APIC")
 * serves every pin: edge pins take handle_edge_irq with ack = LAPIC EOI,
 * level pins handle_fasteoi_irq with eoi = LAPIC EOI (the LAPIC's EOI is
 * broadcast to the IOAPICs, which clears a level pin's Remote IRR so the pin
 * may interrupt again; that is why a level pin the flow wants quiet must be
 * masked before the EOI, which kernel/irq/chip.c does).
 *
 * See also: lapic.c (the receiver), apic_setup.c (which ISA IRQ sits on
 * which GSI), i8259.c (the alternative), docs/apic.md.
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/spinlock.h>
#include <asm/smp.h>
#include <asm/io.h>
#include <asm/paging.h>
#include <asm/trap.h>
#include <asm/x86_irq.h>
#include <firmware.h>
#include <irq/irqchip.h>
#include <irq/irq_config.h>
#include <irq/stats.h>
#include <kernel/errno.h>
#include <kernel/printk.h>

/* Indirect register access (82093AA section 3.1). */
#define IOREGSEL                0x00   /* byte offset: register select */
#define IOWIN                   0x10   /* byte offset: data window of the selected register */

/* Registers behind IOWIN (82093AA section 3.2). */
#define IOAPIC_REG_ID           0x00   /* bits 27:24: IOAPIC ID */
#define IOAPIC_REG_VERSION      0x01   /* bits 7:0 version, 23:16 maximum redirection entry */
#define IOAPIC_REG_RTE_BASE     0x10   /* entry n: low half at 0x10 + 2n, high half at 0x11 + 2n */
#define IOAPIC_ID_SHIFT         24
#define IOAPIC_ID_MASK          0x0Fu  /* 4-bit ID on the 82093AA and its successors */
#define IOAPIC_VERSION_MASK     0xFFu
#define IOAPIC_MAX_REDIR_SHIFT  16
#define IOAPIC_MAX_REDIR_MASK   0xFFu  /* pins = maximum redirection entry + 1 */
#define IOAPIC_ABSENT           0xFFFFFFFFu  /* what a read returns where no chip decodes */

/* RTE halves as the chip sees them. */
#define RTE_LOW(rte)            ((uint32_t)(rte))
#define RTE_HIGH(rte)           ((uint32_t)((rte) >> 32))
#define RTE_DEST_HIGH_SHIFT     (IOAPIC_RTE_DEST_SHIFT - 32)  /* destination in the high half */
#define RTE_TYPE_BITS           ((uint32_t)(IOAPIC_RTE_LEVEL | IOAPIC_RTE_ACTIVE_LOW))

/*
 * paging.c maps physical memory uncached from here up (its MMIO_START);
 * an IOAPIC below would be cached, so it is refused.
 */
#define IOAPIC_UNCACHED_FLOOR   0xC0000000u
#define IOAPIC_MMIO_BYTES       0x20u   /* IOREGSEL at 0x00, IOWIN at 0x10 */

/* Every line's vector must stay below the selftest and LAPIC vectors. */
_Static_assert(IOAPIC_VECTOR_BASE + IRQ_NR_LINES <= SELFTEST_VECTOR,
	       "IRQ_NR_LINES too big: IOAPIC vectors would reach SELFTEST_VECTOR");

struct ioapic {
	uintptr_t base;         /* MMIO base */
	unsigned int fw_index;  /* position in the firmware's list: "IOAPIC[n]" */
	uint8_t table_id;       /* ID the tables use for it */
	uint8_t chip_id;        /* ID register as read */
	uint8_t version;        /* version register as read */
	uint32_t gsi_base;      /* first GSI */
	uint32_t pins;          /* redirection entries */
};

static struct ioapic chips[FW_MAX_IOAPICS];
static unsigned int nr_chips;
static uint8_t dest_apic_id;
/* Each line's destination APIC ID as last written (physical mode), so that
 * irq_pending knows whose IRR to trust without reading the entry. */
static uint8_t line_dest[IRQ_NR_LINES];

/* ------------------------------------------------------------------------
 * Register access. IOREGSEL and IOWIN form one pair for all pins: callers
 * keep interrupts off from the select to the data access, and with several
 * CPUs the pair is under ioapic_reg_lock too (one lock for all chips: the
 * accesses are rare and short), so another CPU cannot select a different
 * register between them. Its acquire/release (asm/spinlock.h) also order
 * the MMIO accesses (uncached, so never reordered by the CPU) against the
 * other CPU's.
 */
static spinlock_t ioapic_reg_lock = SPINLOCK_INIT;

static uint32_t reg_read(const struct ioapic *io, uint32_t reg)
{
	unsigned long flags = spin_lock_irqsave(&ioapic_reg_lock);
	uint32_t v;

	mmio_write32(io->base + IOREGSEL, reg);
	v = mmio_read32(io->base + IOWIN);
	spin_unlock_irqrestore(&ioapic_reg_lock, flags);
	return v;
}

static void reg_write(const struct ioapic *io, uint32_t reg, uint32_t value)
{
	unsigned long flags = spin_lock_irqsave(&ioapic_reg_lock);

	mmio_write32(io->base + IOREGSEL, reg);
	mmio_write32(io->base + IOWIN, value);
	spin_unlock_irqrestore(&ioapic_reg_lock, flags);
}

static uint32_t rte_reg(unsigned int pin)
{
	return IOAPIC_REG_RTE_BASE + 2 * pin;
}

static uint64_t rte_read(const struct ioapic *io, unsigned int pin)
{
	uint32_t low = reg_read(io, rte_reg(pin));

	return (uint64_t)reg_read(io, rte_reg(pin) + 1) << 32 | low;
}

/*
 * Write a whole entry so that the pin never delivers with a half-written
 * one: the chip acts on each 32-bit write at once, so mask (keeping the
 * rest of the old low half), write the high half, then the final low half.
 */
static void rte_write(const struct ioapic *io, unsigned int pin, uint64_t rte)
{
	uint32_t old_low = reg_read(io, rte_reg(pin));

	reg_write(io, rte_reg(pin), old_low | (uint32_t)IOAPIC_RTE_MASKED);
	reg_write(io, rte_reg(pin) + 1, RTE_HIGH(rte));
	reg_write(io, rte_reg(pin), RTE_LOW(rte));
}

/* Read-modify-write of the low half: clear @clear, set @set. */
static void rte_low_update(const struct ioapic *io, unsigned int pin, uint32_t clear, uint32_t set)
{
	uint32_t low = reg_read(io, rte_reg(pin));

	reg_write(io, rte_reg(pin), (low & ~clear) | set);
}

static struct ioapic *chip_of_gsi(unsigned int gsi, unsigned int *pin)
{
	for (unsigned int i = 0; i < nr_chips; i++) {
		if (gsi >= chips[i].gsi_base && gsi - chips[i].gsi_base < chips[i].pins) {
			*pin = gsi - chips[i].gsi_base;
			return &chips[i];
		}
	}
	return NULL;
}

/* The vector a pin gets: its line's, or 0 (never delivered: the pin stays masked) past the lines. */
static uint32_t gsi_vector(unsigned int gsi)
{
	return gsi < IRQ_NR_LINES ? IOAPIC_VECTOR_BASE + gsi : 0;
}

static uint64_t rte_make(unsigned int gsi, uint32_t type_bits, bool masked)
{
	if (gsi < IRQ_NR_LINES)
		line_dest[gsi] = dest_apic_id;
	return (uint64_t)dest_apic_id << IOAPIC_RTE_DEST_SHIFT | IOAPIC_RTE_DELIVERY_FIXED |
	       type_bits | (masked ? IOAPIC_RTE_MASKED : 0) | gsi_vector(gsi);
}

/* IRQ_TYPE_* to RTE trigger/polarity bits. RETURNS 0, or -EINVAL for "both edges" / none. */
static int type_bits(unsigned int type, uint32_t *bits)
{
	switch (type) {
	case IRQ_TYPE_EDGE_RISING:  *bits = 0; return 0;
	case IRQ_TYPE_EDGE_FALLING: *bits = (uint32_t)IOAPIC_RTE_ACTIVE_LOW; return 0;
	case IRQ_TYPE_LEVEL_HIGH:   *bits = (uint32_t)IOAPIC_RTE_LEVEL; return 0;
	case IRQ_TYPE_LEVEL_LOW:    *bits = (uint32_t)(IOAPIC_RTE_LEVEL | IOAPIC_RTE_ACTIVE_LOW); return 0;
	default:                    return -EINVAL;
	}
}

/* ------------------------------------------------------------------------
 * The irq_chip. Called with the line's lock held and interrupts off.
 */

static void ioapic_mask(struct irq_data *d)
{
	rte_low_update(d->chip_data, d->hwirq, 0, (uint32_t)IOAPIC_RTE_MASKED);
}

static void ioapic_unmask(struct irq_data *d)
{
	rte_low_update(d->chip_data, d->hwirq, (uint32_t)IOAPIC_RTE_MASKED, 0);
}

/* Edge ack and level EOI are both the LAPIC's EOI; it reaches the IOAPIC as a broadcast. */
static void ioapic_lapic_eoi(struct irq_data *d)
{
	(void)d;
	lapic_eoi();
}

/* Mask first: for a level pin, the EOI would otherwise let it fire again at once. */
static void ioapic_mask_ack(struct irq_data *d)
{
	ioapic_mask(d);
	lapic_eoi();
}

static int ioapic_set_type(struct irq_data *d, unsigned int type)
{
	uint32_t bits;

	if (type_bits(type, &bits))
		return -EINVAL;
	rte_low_update(d->chip_data, d->hwirq, RTE_TYPE_BITS, bits);
	return irq_set_handler(d->irq, (bits & IOAPIC_RTE_LEVEL) ? handle_fasteoi_irq : handle_edge_irq);
}

/*
 * irq_pending: the local APIC's IRR bit of the line's vector. The IRR bit
 * is set when the LAPIC accepts an interrupt and cleared when the CPU takes
 * it (moved to the ISR) - exactly "raised towards the CPU and not yet
 * taken" (Intel SDM vol. 3A 11.8.4; QEMU 7.2 hw/intc/apic.c sets it on
 * acceptance and clears it when the CPU fetches the vector), for edge and
 * level pins alike, and it stays set when the device's line drops.
 * The redirection entry's Remote IRR is not used: it exists only for level
 * pins, it is set from acceptance until the EOI (so it cannot tell pending
 * from in service), and a lost EOI would leave it set for ever - a
 * "pending" that never ends would hide every lost interrupt after it.
 * The entry is read for its mask and vector: a masked pin sends nothing,
 * and a pin whose entry carries another vector (the irq-misroute fault)
 * does not deliver this line's interrupt, whatever the IRR says: 0.
 * The IRR is per CPU: only the CPU the pin sends to has the request in its
 * IRR. Asked on another CPU (a poll on CPU 0 of a line routed to CPU 1, as
 * xv6 routes IRQ 14 to its last CPU), this CPU's IRR says nothing about it,
 * so the answer is "cannot tell" (-EAGAIN), never 0 (irqchip.h's contract).
 * Cost: one LAPIC read (ID) and the IRR; the entry (two MMIO pairs) only
 * when the IRR has the vector.
 */
static int ioapic_irq_pending(struct irq_data *d)
{
	uint32_t low, high, vector = gsi_vector(d->irq), cpu;

	if (!d->chip_data || !vector || !lapic_ready())
		return -ENODEV;
	/* The IRR that counts is the line's destination CPU's (line_dest, kept by
	 * rte_make and ioapic_set_affinity): from another CPU we cannot tell. */
	cpu = this_cpu()->apic_id;
	if (d->irq < IRQ_NR_LINES && line_dest[d->irq] != cpu)
		return -EAGAIN;
	/* The IRR first: nothing requested on the vector is the usual answer, and needs no entry read. */
	if (!lapic_irr_set(vector))
		return 0;
	/* Requested: but by this pin only if the entry still carries the vector, unmasked, to this CPU. */
	low = reg_read(d->chip_data, rte_reg((unsigned int)d->hwirq));
	if ((low & (uint32_t)IOAPIC_RTE_MASKED) || (low & (uint32_t)IOAPIC_RTE_VECTOR_MASK) != vector)
		return 0;
	high = reg_read(d->chip_data, rte_reg((unsigned int)d->hwirq) + 1);
	if ((low & (uint32_t)IOAPIC_RTE_DEST_LOGICAL) || (high >> RTE_DEST_HIGH_SHIFT) != cpu)
		return -EAGAIN;
	return 1;
}

/*
 * irq_set_affinity: physical destination mode, to the first online CPU of
 * @mask. Why physical and not logical: logical flat mode names at most 8
 * CPUs and needs every LAPIC's LDR/DFR programmed alike, and its point,
 * lowest-priority delivery among several CPUs, is not something QEMU 7.2
 * models (it picks by its own rules, and the 82093AA's "lowest priority"
 * arbitration differs between chipsets); one fixed CPU per line is what
 * MSI messages carry too (address = destination APIC ID), so both kinds
 * of line move the same way and `irqs` shows exactly one column counting.
 * The destination is bits 63:56, alone in the entry's high half: one 32-bit
 * write switches it, so an interrupt the pin sends meanwhile carries the
 * old or the new destination, whole - never lost, never sent twice. A level
 * interrupt in service on the old CPU ends with that CPU's EOI, which the
 * IOAPIC matches by vector wherever it comes from.
 */
static int ioapic_set_affinity(struct irq_data *d, irq_cpumask_t mask)
{
	for (unsigned int cpu = 0; cpu < SMP_MAX_CPUS; cpu++) {
		uint8_t dest;

		if (!(mask & (1u << cpu)) || !smp_cpu_online(cpu))
			continue;
		dest = (uint8_t)cpu_data[cpu].apic_id;
		reg_write(d->chip_data, rte_reg((unsigned int)d->hwirq) + 1, (uint32_t)dest << (IOAPIC_RTE_DEST_SHIFT - 32));
		if (d->irq < IRQ_NR_LINES)
			line_dest[d->irq] = dest;
		return 0;
	}
	return -EINVAL;
}

static const struct irq_chip ioapic_chip = {
	.name = "IO-APIC",
	.mask = ioapic_mask,
	.unmask = ioapic_unmask,
	.ack = ioapic_lapic_eoi,
	.mask_ack = ioapic_mask_ack,
	.eoi = ioapic_lapic_eoi,
	.set_type = ioapic_set_type,
	.irq_pending = ioapic_irq_pending,
	.irq_set_affinity = ioapic_set_affinity,
};

/* ------------------------------------------------------------------------
 * Discovery
 */

static const char *table_name(const struct fw_platform *fw)
{
	return fw->source == FW_SOURCE_ACPI ? "MADT" : "MP table";
}

static bool gsi_range_free(uint32_t base, uint32_t pins)
{
	for (unsigned int i = 0; i < nr_chips; i++)
		if (base < chips[i].gsi_base + chips[i].pins && chips[i].gsi_base < base + pins)
			return false;
	return true;
}

/* Mask every pin: edge, active high, fixed, physical, to the boot CPU. */
static void mask_all_pins(const struct ioapic *io)
{
	for (unsigned int pin = 0; pin < io->pins; pin++)
		rte_write(io, pin, rte_make(io->gsi_base + pin, 0, true));
}

/* Read the chip at @e; RETURNS true and fills @io if it answers. */
static bool probe_chip(const struct fw_platform *fw, unsigned int idx, struct ioapic *io)
{
	const struct fw_ioapic *e = &fw->ioapics.entry[idx];
	uint32_t ver;

	if (!e->enabled) {
		pr_warn("IOAPIC[%u]: id %u at 0x%08x is marked unusable in the %s; skipped\n", idx, e->id,
			e->address, table_name(fw));
		return false;
	}
	if (e->address < IOAPIC_UNCACHED_FLOOR) {
		pr_warn("IOAPIC[%u]: address 0x%08x is outside the uncached MMIO window (0x%08x up); skipped\n",
			idx, e->address, IOAPIC_UNCACHED_FLOOR);
		return false;
	}
	/* Identity in practice (chipsets put IOAPICs at 0xFEC00000 up); mmio_map says for sure. */
	if (mmio_map(e->address, IOAPIC_MMIO_BYTES, &io->base)) {
		pr_warn("IOAPIC[%u]: address 0x%08x cannot be mapped; skipped\n", idx, e->address);
		return false;
	}
	io->fw_index = idx;
	io->table_id = e->id;
	ver = reg_read(io, IOAPIC_REG_VERSION);
	if (ver == IOAPIC_ABSENT) {
		pr_warn("IOAPIC[%u]: nothing answers at 0x%08x (version register reads 0x%08x); skipped\n",
			idx, e->address, ver);
		return false;
	}
	io->version = ver & IOAPIC_VERSION_MASK;
	io->pins = ((ver >> IOAPIC_MAX_REDIR_SHIFT) & IOAPIC_MAX_REDIR_MASK) + 1;
	io->chip_id = (reg_read(io, IOAPIC_REG_ID) >> IOAPIC_ID_SHIFT) & IOAPIC_ID_MASK;
	return true;
}

static void report_chip(const struct fw_platform *fw, const struct ioapic *io, const struct fw_ioapic *e)
{
	pr_info("IOAPIC[%u]: id %u, version 0x%02x, address 0x%08x, GSI %u-%u\n", io->fw_index,
		io->table_id, io->version, (unsigned int)io->base, io->gsi_base,
		io->gsi_base + io->pins - 1);
	if (io->chip_id != io->table_id)
		pr_warn("IOAPIC[%u]: its ID register says %u but the %s says %u; routing uses the table's "
			"(the chip is left as it is)\n", io->fw_index, io->chip_id, table_name(fw), io->table_id);
	if (e->version && e->version != io->version)
		pr_info("IOAPIC[%u]: the %s lists version 0x%02x; the chip reports 0x%02x (the chip's is used)\n",
			io->fw_index, table_name(fw), e->version, io->version);
	if (io->gsi_base + io->pins > IRQ_NR_LINES)
		pr_warn("IOAPIC[%u]: GSIs from %u up are past the %u interrupt lines (IRQ_NR_LINES); they stay masked\n",
			io->fw_index, io->gsi_base > IRQ_NR_LINES ? io->gsi_base : IRQ_NR_LINES, IRQ_NR_LINES);
}

int ioapic_init(const struct fw_platform *fw, uint8_t dest)
{
	uint32_t next_gsi = 0;
	unsigned long flags;

	nr_chips = 0;
	dest_apic_id = dest;
	if (!fw)
		return 0;
	flags = irq_save_flags();
	for (unsigned int i = 0; i < fw->ioapics.count && i < FW_MAX_IOAPICS; i++) {
		const struct fw_ioapic *e = &fw->ioapics.entry[i];
		struct ioapic *io = &chips[nr_chips];

		if (!probe_chip(fw, i, io))
			continue;
		/* ACPI gives each IOAPIC its GSI base; the MP table does not, so number them in order. */
		io->gsi_base = e->gsi_base != FW_GSI_BASE_UNKNOWN ? e->gsi_base : next_gsi;
		if (io->gsi_base > (uint32_t)INT32_MAX - io->pins || !gsi_range_free(io->gsi_base, io->pins)) {
			pr_warn("IOAPIC[%u]: GSI %u-%u overlap another IOAPIC's (or pass 2^31); skipped\n", i,
				io->gsi_base, io->gsi_base + io->pins - 1);
			continue;
		}
		next_gsi = io->gsi_base + io->pins;
		mask_all_pins(io);
		nr_chips++;
		report_chip(fw, io, e);
	}
	irq_restore_flags(flags);
	return (int)nr_chips;
}

unsigned int ioapic_count(void)
{
	return nr_chips;
}

int ioapic_gsi_of(unsigned int table_id, unsigned int pin)
{
	for (unsigned int i = 0; i < nr_chips; i++) {
		bool named = chips[i].table_id == table_id || (table_id == FW_MP_ALL_APICS && nr_chips == 1);

		if (named)
			return pin < chips[i].pins ? (int)(chips[i].gsi_base + pin) : -ENOENT;
	}
	return -ENOENT;
}

int ioapic_resolve_gsi(void *ctx, uint8_t ioapic_id, uint8_t pin, uint32_t *gsi)
{
	int g = ioapic_gsi_of(ioapic_id, pin);

	(void)ctx;
	if (g < 0)
		return g;
	*gsi = (uint32_t)g;
	return 0;
}

bool ioapic_gsi_valid(unsigned int gsi)
{
	unsigned int pin;

	return chip_of_gsi(gsi, &pin) != NULL;
}

int ioapic_setup_line(unsigned int gsi, unsigned int type)
{
	struct irq_line_stats line;
	struct ioapic *io;
	unsigned int pin;
	unsigned long flags;
	uint32_t bits;
	int err;

	if (type_bits(type, &bits))
		return -EINVAL;
	if (gsi >= IRQ_NR_LINES)
		return -ERANGE;
	io = chip_of_gsi(gsi, &pin);
	if (!io)
		return -ENOENT;
	/* Do not touch a pin whose line is in use: the core would refuse the chip anyway. */
	if (irq_get_line_stats(gsi, &line) == 0 && line.nr_actions)
		return -EBUSY;
	flags = irq_save_flags();
	rte_write(io, pin, rte_make(gsi, bits, true));
	irq_restore_flags(flags);
	err = irq_set_chip_and_handler(gsi, &ioapic_chip,
				       (bits & IOAPIC_RTE_LEVEL) ? handle_fasteoi_irq : handle_edge_irq, io, pin);
	if (!err)
		err = irq_set_trigger(gsi, type);
	if (err)
		return err;
	x86_irq_set_vector(gsi, gsi_vector(gsi), X86_IRQ_VIA_IOAPIC);
	return 0;
}

int ioapic_pin_read(unsigned int gsi, uint64_t *rte)
{
	unsigned int pin;
	struct ioapic *io = chip_of_gsi(gsi, &pin);
	unsigned long flags;

	if (!rte)
		return -EINVAL;
	if (!io)
		return -ENOENT;
	flags = irq_save_flags();
	*rte = rte_read(io, pin);
	irq_restore_flags(flags);
	return 0;
}

int ioapic_pin_write(unsigned int gsi, uint64_t rte)
{
	unsigned int pin;
	struct ioapic *io = chip_of_gsi(gsi, &pin);
	unsigned long flags;

	if (!io)
		return -ENOENT;
	flags = irq_save_flags();
	rte_write(io, pin, rte);
	irq_restore_flags(flags);
	return 0;
}

/* ------------------------------------------------------------------------
 * Print-out for the shell
 */

static void print_pin(const struct ioapic *io, unsigned int pin, uint64_t rte)
{
	static const char *const modes[8] = { "fixed", "lowest", "SMI", "reserved", "NMI", "INIT",
					      "reserved", "ExtINT" };
	cprintf("  GSI %3u  IOAPIC[%u] pin %2u  vector 0x%02x  %-6s %-8s dest %3u  %-5s %-4s %-8s%s%s\n",
		io->gsi_base + pin, io->fw_index, pin, (unsigned int)(rte & IOAPIC_RTE_VECTOR_MASK),
		modes[(rte & IOAPIC_RTE_DELIVERY_MASK) >> IOAPIC_RTE_DELIVERY_SHIFT],
		rte & IOAPIC_RTE_DEST_LOGICAL ? "logical" : "physical",
		(unsigned int)(rte >> IOAPIC_RTE_DEST_SHIFT), rte & IOAPIC_RTE_LEVEL ? "level" : "edge",
		rte & IOAPIC_RTE_ACTIVE_LOW ? "low" : "high", rte & IOAPIC_RTE_MASKED ? "masked" : "unmasked",
		rte & IOAPIC_RTE_REMOTE_IRR ? "  remote-IRR" : "", rte & IOAPIC_RTE_PENDING ? "  pending" : "");
}

int ioapic_print_routes(void)
{
	int printed = 0;

	if (!nr_chips) {
		cprintf("IOAPIC: none in use\n");
		return 0;
	}
	for (unsigned int i = 0; i < nr_chips; i++) {
		const struct ioapic *io = &chips[i];

		cprintf("IOAPIC[%u]: id %u, version 0x%02x, address 0x%08x, GSI %u-%u\n", io->fw_index,
			io->table_id, io->version, (unsigned int)io->base, io->gsi_base,
			io->gsi_base + io->pins - 1);
		for (unsigned int pin = 0; pin < io->pins; pin++) {
			unsigned long flags = irq_save_flags();
			uint64_t rte = rte_read(io, pin);

			irq_restore_flags(flags);
			print_pin(io, pin, rte);
			printed++;
		}
	}
	return printed;
}

/* ------------------------------------------------------------------------
 * Selftests (selftest=ioapic)
 */
#include <kernel/selftest.h>

#define ST_TEST_VECTOR 0x99u  /* a vector no line uses, written to an idle pin and taken back */

SELFTEST(ioapic, pins_without_handlers_are_masked_and_routed_to_boot_cpu)
{
	unsigned int checked = 0;

	if (!nr_chips) {
		selftest_skip(t, "not in IOAPIC mode");
		return;
	}
	for (unsigned int i = 0; i < nr_chips; i++) {
		for (unsigned int pin = 0; pin < chips[i].pins; pin++) {
			unsigned int gsi = chips[i].gsi_base + pin;
			struct irq_line_stats line;
			uint64_t rte;

			if (gsi >= IRQ_NR_LINES || irq_get_line_stats(gsi, &line) || ioapic_pin_read(gsi, &rte))
				continue;
			checked++;
			ST_EXPECT(t, (rte & IOAPIC_RTE_VECTOR_MASK) == IOAPIC_VECTOR_BASE + gsi,
				  "GSI %u: vector 0x%02x", gsi, (unsigned int)(rte & IOAPIC_RTE_VECTOR_MASK));
			ST_EXPECT(t, (rte >> IOAPIC_RTE_DEST_SHIFT) == lapic_id(), "GSI %u: destination %u",
				  gsi, (unsigned int)(rte >> IOAPIC_RTE_DEST_SHIFT));
			ST_EXPECT(t, (rte & IOAPIC_RTE_DELIVERY_MASK) == IOAPIC_RTE_DELIVERY_FIXED &&
				  !(rte & IOAPIC_RTE_DEST_LOGICAL), "GSI %u: not fixed/physical", gsi);
			if (!line.nr_actions)
				ST_EXPECT(t, rte & IOAPIC_RTE_MASKED, "GSI %u has no handler but is unmasked", gsi);
		}
	}
	ST_EXPECT(t, checked > 0, "no pin checked");
}

SELFTEST(ioapic, irq_pending_cannot_tell_for_a_line_routed_to_another_cpu)
{
	struct irq_data d;
	uint8_t saved;
	int here, elsewhere;

	if (!nr_chips || !lapic_ready()) {
		selftest_skip(t, "not in IOAPIC mode");
		return;
	}
	/* The last pin of the first IOAPIC, as the chip driver sees it; nothing is wired there on PCs. */
	d = (struct irq_data){ .irq = chips[0].gsi_base + chips[0].pins - 1, .hwirq = chips[0].pins - 1,
			       .chip_data = &chips[0] };
	if (d.irq >= IRQ_NR_LINES) {
		selftest_skip(t, "the last pin is no line");
		return;
	}
	saved = line_dest[d.irq];
	here = ioapic_irq_pending(&d);
	/* Routed to another CPU (the driver's record of every line's destination): this IRR cannot tell. */
	line_dest[d.irq] = (uint8_t)(lapic_current_id() + 1);
	elsewhere = ioapic_irq_pending(&d);
	line_dest[d.irq] = saved;
	ST_EXPECT(t, here == 0, "an idle pin routed here: irq_pending %d, expected 0", here);
	ST_EXPECT(t, elsewhere < 0, "a pin routed to APIC ID %u, asked on %u: irq_pending %d, expected negative",
		  (unsigned int)(lapic_current_id() + 1), (unsigned int)lapic_current_id(), elsewhere);
}

SELFTEST(ioapic, pin_write_then_read_gives_the_entry_back)
{
	const struct ioapic *io = &chips[0];
	unsigned int gsi;
	uint64_t saved, probe, seen, restored;
	const uint64_t writable = IOAPIC_RTE_VECTOR_MASK | IOAPIC_RTE_DELIVERY_MASK | IOAPIC_RTE_DEST_LOGICAL |
				  IOAPIC_RTE_ACTIVE_LOW | IOAPIC_RTE_LEVEL | IOAPIC_RTE_MASKED |
				  IOAPIC_RTE_DEST_MASK;

	if (!nr_chips) {
		selftest_skip(t, "not in IOAPIC mode");
		return;
	}
	/* The last pin: on PCs nothing but a PCI PIRQ is wired there, and it stays masked. */
	gsi = io->gsi_base + io->pins - 1;
	ST_EXPECT(t, ioapic_pin_read(gsi, &saved) == 0, "read GSI %u", gsi);
	probe = IOAPIC_RTE_MASKED | IOAPIC_RTE_LEVEL | IOAPIC_RTE_ACTIVE_LOW | ST_TEST_VECTOR |
		(uint64_t)lapic_id() << IOAPIC_RTE_DEST_SHIFT;
	ST_EXPECT(t, ioapic_pin_write(gsi, probe) == 0, "write GSI %u", gsi);
	ioapic_pin_read(gsi, &seen);
	ioapic_pin_write(gsi, saved);
	ioapic_pin_read(gsi, &restored);
	ST_EXPECT(t, (seen & writable) == probe, "wrote 0x%016llx, read 0x%016llx",
		  (unsigned long long)probe, (unsigned long long)seen);
	ST_EXPECT(t, (restored & writable) == (saved & writable), "restore: 0x%016llx, now 0x%016llx",
		  (unsigned long long)saved, (unsigned long long)restored);
	ST_EXPECT(t, ioapic_pin_read(io->gsi_base + io->pins + 1000, &seen) == -ENOENT,
		  "a GSI on no IOAPIC was accepted");
}
