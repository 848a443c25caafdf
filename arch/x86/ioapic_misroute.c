/*
 * ioapic_misroute.c - the fault `irq-misroute:FROM/TO`: the IOAPIC pin of
 * line FROM is pointed at the vector of line TO (IOAPIC_VECTOR_BASE + TO),
 * so FROM's device interrupts arrive as TO's: the case irqfixup exists for
 * (a firmware table or router that sends a device's interrupt to the wrong
 * line, where someone else's handler finds nothing to do). Only the vector
 * field of FROM's redirection entry (82093AA data sheet section 3.2.4) is
 * changed; `inject off irq-misroute` writes the old vector back.
 *
 * Both lines must be IOAPIC lines of the same trigger kind with handlers,
 * TO edge-triggered: a level interrupt arriving on an edge line's vector
 * would leave FROM's remote IRR set for ever (the LAPIC sends no EOI
 * broadcast for an edge vector), which is another fault. PIC mode is
 * refused: the 8259 gives its inputs consecutive vectors from one base.
 * drivers/ata/ata_fault.c's ata-misvector sends a pin to a vector nobody
 * owns instead; see docs/storms.md for the scenarios.
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/apic.h>
#include <asm/x86_irq.h>
#include <irq/stats.h>
#include <kernel/cmdline.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/printk.h>
#include <kernel/string.h>

/* Bytes of the argument "FROM/TO". */
#define MISROUTE_ARG_MAX 16

static struct {
	bool on;
	unsigned int from, to;
	uint64_t old_vector;   /* FROM's vector field before the fault */
} mis;

/* edge_line_with_handlers - @line is an IOAPIC edge line someone requested. */
static bool edge_line_with_handlers(unsigned int line, uint64_t *rte)
{
	struct irq_line_stats s;

	return irq_get_line_stats(line, &s) == 0 && s.nr_actions > 0 && ioapic_pin_read(line, rte) == 0 &&
	       !(*rte & IOAPIC_RTE_LEVEL) && x86_irq_to_vector(line) >= IOAPIC_VECTOR_BASE;
}

static int parse(const char *arg, unsigned long *from, unsigned long *to)
{
	char buf[MISROUTE_ARG_MAX];
	char *slash;

	if (!arg || strlen(arg) >= sizeof(buf) || !strchr(arg, '/'))
		return -EINVAL;
	strlcpy(buf, arg, sizeof(buf));
	slash = strchr(buf, '/');
	*slash = 0;
	if (cmdline_parse_uint(buf, 0, UINT32_MAX, from) || cmdline_parse_uint(slash + 1, 0, UINT32_MAX, to))
		return -EINVAL;
	return *from == *to ? -EINVAL : 0;
}

static int misroute_on(const char *arg)
{
	unsigned long from, to;
	uint64_t rte_from, rte_to;
	int err;

	if (mis.on)
		return -EBUSY;
	if (x86_irq_mode() != X86_IRQ_MODE_IOAPIC) {
		pr_warn("irq-misroute: needs IOAPIC mode; the 8259 gives its 8 inputs consecutive vectors "
			"from one base, so one line cannot be pointed at another\n");
		return -EPERM;
	}
	if (parse(arg, &from, &to)) {
		pr_warn("irq-misroute: give two different lines: irq-misroute:FROM/TO, e.g. irq-misroute:14/4\n");
		return -EINVAL;
	}
	if (!edge_line_with_handlers((unsigned int)from, &rte_from) ||
	    !edge_line_with_handlers((unsigned int)to, &rte_to)) {
		pr_warn("irq-misroute: lines %lu and %lu must both be edge-triggered IOAPIC lines with handlers\n",
			from, to);
		return -EINVAL;
	}
	mis.from = (unsigned int)from;
	mis.to = (unsigned int)to;
	mis.old_vector = rte_from & IOAPIC_RTE_VECTOR_MASK;
	err = ioapic_pin_write(mis.from, (rte_from & ~IOAPIC_RTE_VECTOR_MASK) |
						 (uint64_t)x86_irq_to_vector(mis.to));
	if (err)
		return err;
	mis.on = true;
	pr_info("irq-misroute: GSI %u now delivers vector %#04x (line %u's) instead of %#04x\n", mis.from,
		(unsigned int)x86_irq_to_vector(mis.to), mis.to, (unsigned int)mis.old_vector);
	return 0;
}

static int misroute_off(void)
{
	uint64_t rte;
	int err;

	if (!mis.on)
		return 0;
	err = ioapic_pin_read(mis.from, &rte);
	if (!err)
		err = ioapic_pin_write(mis.from, (rte & ~IOAPIC_RTE_VECTOR_MASK) | mis.old_vector);
	if (err)
		return err;
	mis.on = false;
	pr_info("irq-misroute: GSI %u delivers vector %#04x again\n", mis.from, (unsigned int)mis.old_vector);
	return 0;
}

FAULT(irq_misroute, "irq-misroute", "FROM/TO",
      "line FROM's IOAPIC pin delivers line TO's vector: FROM's interrupts arrive on TO (IOAPIC mode)",
      misroute_on, misroute_off);
