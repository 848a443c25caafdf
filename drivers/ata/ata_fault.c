/*
 * ata_fault.c - the faults drivers/ata can cause for real, for tests and
 * teaching (registry: include/kernel/fault.h; `fault=` and `inject`):
 *
 *   ata-drop:PERCENT  that share of commands (chosen by a hash of the
 *                     channel's command number, so the same ones each run)
 *                     runs with nIEN set in Device Control: the device does
 *                     not assert INTRQ at all (ATA/ATAPI-6 7.9.6).
 *   ata-mask          the channel's IOAPIC redirection entry (IOAPIC mode)
 *                     or 8259 input (PIC mode) is masked behind kernel/irq's
 *                     back: the device interrupts, nothing arrives.
 *   ata-misvector     the channel's IOAPIC entry is pointed at a vector no
 *                     line owns: the interrupt arrives, at the wrong place.
 *                     PIC mode cannot do this (see misvector_on).
 *   ata-cpustall:MS   each phase (PIO) or command (AHCI), as it opens, stops CPU 1
 *                     for MS ms (default 400): CPU 1 spins with interrupts
 *                     off, so a line routed there (`affinity 14 1`) has
 *                     its interrupt wait, as under a vCPU its host keeps
 *                     off or an SMI: the device is healthy and the
 *                     interrupt late, not lost. Skipped while CPU 1 still
 *                     spins from the last one.
 *
 * Each acts on every channel that has devices and an interrupt, and is
 * undone exactly by `inject off NAME`.
 */
#include "ata_internal.h"
#include <asm/apic.h>
#include <asm/i8259.h>
#include <asm/cpu.h>
#include <asm/smp.h>
#include <asm/tsc.h>
#include <asm/x86_irq.h>
#include <kernel/cpu_stall.h>
#include <kernel/cmdline.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/printk.h>

/* What a fault changed, per channel, to put it back. */
static struct {
	bool masked;           /* ata-mask is in force */
	bool mask_via_pic;     /* ... through i8259_force_mask (else the IOAPIC entry) */
	uint64_t masked_rte;   /* the entry before ata-mask */
	bool misvectored;      /* ata-misvector is in force */
	uint64_t vector_rte;   /* the entry before ata-misvector */
} saved[ATA_MAX_CHANNELS];

static bool channel_in_use(const struct ata_channel *ch)
{
	return ch->irq_requested && ch->line >= 0;
}

/* ---- ata-drop -------------------------------------------------------------------------------- */

static int drop_on(const char *arg)
{
	unsigned long percent = ATA_PERCENT_MAX;

	if (arg && cmdline_parse_uint(arg, 0, ATA_PERCENT_MAX, &percent))
		return -EINVAL;
	for (unsigned int i = 0; i < ATA_MAX_CHANNELS; i++)
		ata_channels[i].drop_percent = (unsigned int)percent;
	return 0;
}

static int drop_off(void)
{
	for (unsigned int i = 0; i < ATA_MAX_CHANNELS; i++)
		ata_channels[i].drop_percent = 0;
	return 0;
}

FAULT(ata_drop, "ata-drop", "PERCENT",
      "ATA commands run with nIEN: the device raises no interrupt for PERCENT % of them (default 100)",
      drop_on, drop_off);

/* ---- ata-mask ----------------------------------------------------------------------------------- */

static int mask_one(unsigned int i)
{
	struct ata_channel *ch = &ata_channels[i];
	uint64_t rte;
	int err;

	if (x86_irq_mode() != X86_IRQ_MODE_IOAPIC) {
		i8259_force_mask(ch->isa_irq, true);
		saved[i].mask_via_pic = true;
		saved[i].masked = true;
		return 0;
	}
	err = ioapic_pin_read((unsigned int)ch->line, &rte);
	if (!err)
		err = ioapic_pin_write((unsigned int)ch->line, rte | IOAPIC_RTE_MASKED);
	if (err)
		return err;
	saved[i].masked_rte = rte;
	saved[i].mask_via_pic = false;
	saved[i].masked = true;
	return 0;
}

static int mask_off(void)
{
	int err = 0;

	for (unsigned int i = 0; i < ATA_MAX_CHANNELS; i++) {
		if (!saved[i].masked)
			continue;
		if (saved[i].mask_via_pic) {
			i8259_force_mask(ata_channels[i].isa_irq, false);
		} else {
			uint64_t rte;
			int e = ioapic_pin_read((unsigned int)ata_channels[i].line, &rte);

			/* Unmask only what we masked; keep what else changed meanwhile. */
			if (!e && !(saved[i].masked_rte & IOAPIC_RTE_MASKED))
				e = ioapic_pin_write((unsigned int)ata_channels[i].line, rte & ~IOAPIC_RTE_MASKED);
			if (e)
				err = e;
		}
		saved[i].masked = false;
	}
	return err;
}

static int mask_on(const char *arg)
{
	unsigned int done = 0;

	(void)arg;
	for (unsigned int i = 0; i < ATA_MAX_CHANNELS; i++) {
		int err;

		if (!channel_in_use(&ata_channels[i]) || saved[i].masked)
			continue;
		err = mask_one(i);
		if (err) {
			mask_off();
			return err;
		}
		pr_info("%s: IRQ %u masked at the %s behind kernel/irq's back\n", ata_channels[i].name,
			ata_channels[i].isa_irq, saved[i].mask_via_pic ? "8259" : "IOAPIC");
		done++;
	}
	return done ? 0 : -ENODEV;
}

FAULT(ata_mask, "ata-mask", NULL,
      "the ATA channels' interrupt input is masked at the IOAPIC/8259 behind the core's back",
      mask_on, mask_off);

/* ---- ata-misvector -------------------------------------------------------------------------- */

/* wrong_vector - the highest device vector no line owns: deliveries there reach nobody. */
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

	for (unsigned int i = 0; i < ATA_MAX_CHANNELS; i++) {
		uint64_t rte;
		int e;

		if (!saved[i].misvectored)
			continue;
		e = ioapic_pin_read((unsigned int)ata_channels[i].line, &rte);
		if (!e)
			e = ioapic_pin_write((unsigned int)ata_channels[i].line,
					     (rte & ~IOAPIC_RTE_VECTOR_MASK) |
						     (saved[i].vector_rte & IOAPIC_RTE_VECTOR_MASK));
		if (e)
			err = e;
		saved[i].misvectored = false;
	}
	return err;
}

/*
 * misvector_on - in PIC mode the 8259 derives every input's vector from
 * one base per chip (ICW2), so one line cannot be sent elsewhere without
 * moving the other seven: refused. In IOAPIC mode each pin has its own
 * vector field.
 */
static int misvector_on(const char *arg)
{
	int vector = wrong_vector(), done = 0;

	(void)arg;
	if (x86_irq_mode() != X86_IRQ_MODE_IOAPIC) {
		pr_warn("ata-misvector: needs IOAPIC mode; the 8259 gives its 8 inputs consecutive "
			"vectors from one base, so one line cannot be pointed elsewhere\n");
		return -EPERM;
	}
	if (vector < 0)
		return vector;
	for (unsigned int i = 0; i < ATA_MAX_CHANNELS; i++) {
		struct ata_channel *ch = &ata_channels[i];
		uint64_t rte;
		int err;

		if (!channel_in_use(ch) || saved[i].misvectored)
			continue;
		err = ioapic_pin_read((unsigned int)ch->line, &rte);
		if (!err)
			err = ioapic_pin_write((unsigned int)ch->line,
					       (rte & ~IOAPIC_RTE_VECTOR_MASK) | (uint64_t)vector);
		if (err) {
			misvector_off();
			return err;
		}
		saved[i].vector_rte = rte;
		saved[i].misvectored = true;
		pr_info("%s: GSI %d now delivers vector %#04x instead of %#04x\n", ch->name, ch->line,
			vector, (unsigned int)(rte & IOAPIC_RTE_VECTOR_MASK));
		done++;
	}
	return done ? 0 : -ENODEV;
}

FAULT(ata_misvector, "ata-misvector", NULL,
      "the ATA channels' IOAPIC entry points at a vector nobody owns (IOAPIC mode only)",
      misvector_on, misvector_off);

/* ---- ata-cpustall ------------------------------------------------------------------------------- */

static struct cpu_stall cpustall = CPU_STALL_INIT("ata-cpustall");

/* The hook: each PIO phase or AHCI command, as it opens, first stops CPU 1 (kernel/cpu_stall.c). */
void ata_fault_cpustall(void)
{
	cpu_stall_kick(&cpustall);
}

static int cpustall_on(const char *arg)
{
	return cpu_stall_on(&cpustall, arg);
}

static int cpustall_off(void)
{
	cpu_stall_off(&cpustall);
	return 0;
}

FAULT(ata_cpustall, "ata-cpustall", "MS",
      "each ATA phase or AHCI command first stops CPU 1 for MS ms (default 400), interrupts off: its lines' interrupts wait",
      cpustall_on, cpustall_off);
