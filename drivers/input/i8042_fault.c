/*
 * i8042_fault.c - faults that really break the PS/2 lines, for tests and
 * teaching (registry: include/kernel/fault.h; `fault=` and `inject`):
 *
 *   i8042-stuck[:N]       the keyboard's handler leaves the next byte (with
 *                         N: every Nth byte) in the controller and returns
 *                         as if it had taken it - the classic handler bug.
 *                         The output buffer stays full, the controller
 *                         raises no new edge, and without a defence the
 *                         keyboard is dead until reboot (`noirqdebug`);
 *                         with IRQ watching a watch poll takes the byte.
 *   i8042-aux-stuck[:N]   the same on the mouse's line.
 *   i8042-misroute        IRQ 1's route points elsewhere. IOAPIC mode: its
 *                         redirection entry gets a vector no line owns (the
 *                         interrupt arrives, where nobody listens: `irqs`
 *                         counts it under "vectors nobody owns"). PIC mode:
 *                         the 8259 gives its eight inputs consecutive
 *                         vectors from one base, so one input cannot be
 *                         pointed elsewhere; it is masked at the 8259
 *                         behind kernel/irq's back instead (the request is
 *                         latched and never delivered). As ata-misvector and
 *                         ata-mask do for the disk.
 *   i8042-aux-misroute    the same for IRQ 12.
 *
 * `inject off NAME` undoes each exactly (the entry's vector written back,
 * the forced mask lifted).
 */
#include <stdint.h>
#include <asm/apic.h>
#include <asm/i8259.h>
#include <asm/trap.h>
#include <asm/x86_irq.h>
#include <kernel/cmdline.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/printk.h>

#include "i8042_internal.h"

enum i8042_fault_limits {
	I8042_STUCK_EVERY_MAX = 1000000,   /* i8042-stuck:N, N at most */
};

/* What i8042-misroute changed, per port, to put it back. */
static struct {
	bool on;
	bool via_pic;       /* the 8259's forced mask, else the IOAPIC entry's vector */
	uint64_t vector;    /* the entry's vector field before */
} saved[2];

static unsigned int port_index(const struct i8042_port *p)
{
	return p->aux ? 1 : 0;
}

bool i8042_fault_leave_byte(struct i8042_port *p)
{
	if (p->stuck_waiting) {
		p->stuck_waiting = false;   /* the byte left last time, found by a poll: not a new one */
		return false;
	}
	if (!p->stuck_armed)
		return false;
	if (p->stuck_every) {
		if (++p->stuck_count % p->stuck_every)
			return false;
	} else {
		p->stuck_armed = false;     /* the next byte only */
	}
	p->stuck_left++;
	p->stuck_waiting = true;
	return true;
}

/* ---- i8042-stuck ------------------------------------------------------------------------------ */

static int stuck_on(struct i8042_port *p, const char *fault, const char *arg)
{
	unsigned long every = 0;
	unsigned long flags;

	if (arg && cmdline_parse_uint(arg, 1, I8042_STUCK_EVERY_MAX, &every))
		return -EINVAL;
	if (!p->irq_ok) {
		pr_warn("%s: the %s's line is not in use (`i8042` says why)\n", fault, p->what);
		return -ENODEV;
	}
	flags = i8042_lock();
	p->stuck_every = (uint32_t)every;
	p->stuck_count = 0;
	p->stuck_armed = true;
	i8042_unlock(flags);
	if (every)
		pr_info("%s: the %s's handler leaves every %lu%s byte in the controller (IRQ %u)\n", fault, p->what,
			every, every == 1 ? "st" : every == 2 ? "nd" : every == 3 ? "rd" : "th", p->isa_irq);
	else
		pr_info("%s: the %s's handler leaves its next byte in the controller (IRQ %u): no new edge after it\n",
			fault, p->what, p->isa_irq);
	return 0;
}

static int stuck_off(struct i8042_port *p)
{
	unsigned long flags = i8042_lock();

	p->stuck_armed = false;
	p->stuck_every = 0;
	i8042_unlock(flags);
	return 0;
}

static int kbd_stuck_on(const char *arg) { return stuck_on(&i8042.kbd, "i8042-stuck", arg); }
static int kbd_stuck_off(void) { return stuck_off(&i8042.kbd); }
static int aux_stuck_on(const char *arg) { return stuck_on(&i8042.aux, "i8042-aux-stuck", arg); }
static int aux_stuck_off(void) { return stuck_off(&i8042.aux); }

FAULT(i8042_stuck, "i8042-stuck", "N",
      "the keyboard's handler leaves its next byte (every Nth) in the 8042: buffer full, no new edge (IRQ 1)",
      kbd_stuck_on, kbd_stuck_off);
FAULT(i8042_aux_stuck, "i8042-aux-stuck", "N",
      "the mouse's handler leaves its next byte (every Nth) in the 8042: buffer full, no new edge (IRQ 12)",
      aux_stuck_on, aux_stuck_off);

/* ---- i8042-misroute --------------------------------------------------------------------------- */

/* unowned_vector - the highest device vector no line owns: deliveries there reach nobody. */
static int unowned_vector(void)
{
	for (unsigned int v = SELFTEST_VECTOR - 1; v >= IOAPIC_VECTOR_BASE; v--)
		if (x86_vector_to_irq(v) < 0)
			return (int)v;
	return -ENOSPC;
}

static int misroute_on(struct i8042_port *p, const char *fault)
{
	unsigned int i = port_index(p);
	uint64_t rte;
	int vector, err;

	if (saved[i].on)
		return 0;
	if (!p->irq_ok || p->line < 0) {
		pr_warn("%s: the %s's line is not in use (`i8042` says why)\n", fault, p->what);
		return -ENODEV;
	}
	if (x86_irq_mode() != X86_IRQ_MODE_IOAPIC) {
		i8259_force_mask(p->isa_irq, true);
		saved[i].via_pic = true;
		saved[i].on = true;
		pr_info("%s: IRQ %u masked at the 8259 behind kernel/irq's back (PIC mode: one input cannot be "
			"given another vector); the %s's interrupts go nowhere\n", fault, p->isa_irq, p->what);
		return 0;
	}
	vector = unowned_vector();
	if (vector < 0)
		return vector;
	err = ioapic_pin_read((unsigned int)p->line, &rte);
	if (!err)
		err = ioapic_pin_write((unsigned int)p->line, (rte & ~IOAPIC_RTE_VECTOR_MASK) | (uint64_t)vector);
	if (err)
		return err;
	saved[i].vector = rte & IOAPIC_RTE_VECTOR_MASK;
	saved[i].via_pic = false;
	saved[i].on = true;
	pr_info("%s: GSI %d (the %s's IRQ %u) now delivers vector %#04x, which no line owns, instead of %#04x\n",
		fault, p->line, p->what, p->isa_irq, vector, (unsigned int)saved[i].vector);
	return 0;
}

static int misroute_off(struct i8042_port *p, const char *fault)
{
	unsigned int i = port_index(p);
	uint64_t rte;
	int err;

	if (!saved[i].on)
		return 0;
	if (saved[i].via_pic) {
		i8259_force_mask(p->isa_irq, false);
	} else {
		err = ioapic_pin_read((unsigned int)p->line, &rte);
		if (!err)
			err = ioapic_pin_write((unsigned int)p->line, (rte & ~IOAPIC_RTE_VECTOR_MASK) | saved[i].vector);
		if (err)
			return err;
	}
	saved[i].on = false;
	pr_info("%s: the %s's IRQ %u is routed as before\n", fault, p->what, p->isa_irq);
	return 0;
}

static int kbd_misroute_on(const char *arg) { (void)arg; return misroute_on(&i8042.kbd, "i8042-misroute"); }
static int kbd_misroute_off(void) { return misroute_off(&i8042.kbd, "i8042-misroute"); }
static int aux_misroute_on(const char *arg) { (void)arg; return misroute_on(&i8042.aux, "i8042-aux-misroute"); }
static int aux_misroute_off(void) { return misroute_off(&i8042.aux, "i8042-aux-misroute"); }

FAULT(i8042_misroute, "i8042-misroute", NULL,
      "IRQ 1 (keyboard) delivers a vector nobody owns (IOAPIC), or is masked at the 8259 behind the core's back (PIC)",
      kbd_misroute_on, kbd_misroute_off);
FAULT(i8042_aux_misroute, "i8042-aux-misroute", NULL,
      "IRQ 12 (mouse) delivers a vector nobody owns (IOAPIC), or is masked at the 8259 behind the core's back (PIC)",
      aux_misroute_on, aux_misroute_off);
