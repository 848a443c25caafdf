/*
 * irqchip.h - the interrupt-controller side of the portable interrupt core
 * (kernel/irq/): describe a controller as a struct irq_chip, attach it to a
 * line together with a flow handler, and feed interrupts in. Include as
 * <irq/irqchip.h>. Modelled on Linux's genirq (Documentation/core-api/
 * genericirq.rst): the flow handler knows how a kind of line must be
 * acknowledged (edge, level, fasteoi) and calls the chip's operations; the
 * chip knows only its registers.
 *
 * Which chip operations each flow calls (pseudo-code in docs/porting.md):
 *   handle_edge_irq    ack, then the handlers; mask (mask_ack) if disabled
 *   handle_level_irq   mask_ack (or mask + ack), the handlers, unmask
 *   handle_fasteoi_irq the handlers, eoi; mask + eoi if disabled
 * The core tracks whether each line is masked and never masks a masked
 * line or unmasks an unmasked one.
 *
 * Locking: chip operations are called with the line's lock held and
 * interrupts disabled; they must not call back into the core, except
 * irq_set_handler() from set_type. A chip shared by many lines serialises
 * its own registers if lines can be handled on several CPUs.
 *
 * Layer 0, the base: a public header; uses only irq_errno.h (docs/irq-layers.md).
 */
#ifndef IRQ_IRQCHIP_H
#define IRQ_IRQCHIP_H

#include <stddef.h>
#include <stdint.h>

#include "irq_errno.h"

struct irq_desc;  /* one per line; private to kernel/irq (internals.h) */

/* What a chip operation is told about the line it acts on. */
/* A set of CPUs: bit n = CPU n (irq_port_cpu_id()). Ports have at most 32 (irq_config.h). */
typedef uint32_t irq_cpumask_t;

struct irq_data {
	unsigned int irq;     /* line number of kernel/irq */
	unsigned long hwirq;  /* the controller's own input number */
	void *chip_data;      /* the controller driver's cookie */
};

/* An interrupt controller. */
struct irq_chip {
	const char *name;                        /* "XT-PIC", "IO-APIC" ... */
	void (*mask)(struct irq_data *d);        /* required: stop the line */
	void (*unmask)(struct irq_data *d);      /* required: let it through */
	void (*ack)(struct irq_data *d);         /* edge/level flows: acknowledge */
	void (*mask_ack)(struct irq_data *d);    /* optional: mask + ack in one */
	void (*eoi)(struct irq_data *d);         /* fasteoi flow: end of interrupt */
	int (*set_type)(struct irq_data *d, unsigned int flow_type); /* optional; IRQ_TYPE_*; 0 or -errno */
	int (*irq_pending)(struct irq_data *d);  /* optional: see below */
	int (*irq_diagnose)(struct irq_data *d, char *buf, size_t len); /* optional: see below */
	int (*irq_set_affinity)(struct irq_data *d, irq_cpumask_t mask); /* optional: see below */
};

/*
 * irq_chip::irq_set_affinity - deliver this line's interrupts to one of the
 * CPUs in @mask from now on (bit n = CPU n as irq_port_cpu_id() numbers
 * them; never 0, never a bit at or past IRQ_NR_CPUS). OPTIONAL: a chip
 * without it cannot move its lines, and irq_set_affinity() says -ENODEV.
 * The chip chooses among the CPUs (it may deliver to the first one only).
 * Called with the line's lock held and interrupts off, maybe while the
 * line fires: the write must switch delivery atomically (an interrupt goes
 * to the old or the new CPU, never to none or both); the core's flows cope
 * with an interrupt arriving on the new CPU while the old one still runs
 * the handlers (IRQS_INPROGRESS: it is marked pending and replayed there).
 * RETURNS 0, or a negative error (-EINVAL: no CPU of @mask can take it).
 */

/*
 * irq_chip::irq_pending - "has this line's interrupt been raised towards
 * the CPU and not yet taken?" RETURNS 1 yes, 0 no, negative: cannot tell
 * now. OPTIONAL: a chip without it (NULL) keeps the defences' delayed
 * verdicts exactly as they were (docs/defences.md, "Pending at the poll").
 *
 * Called only for polls, never on the interrupt path: by the owner of a
 * poll's run of the line's handlers, with interrupts disabled, twice -
 * once just before the handlers run (the line's lock held) and once just
 * after they ran (the lock dropped; the run's IRQS_INPROGRESS keeps every
 * other run of the line out, and a chip shared by lines serialises its
 * registers as for every other operation). The handlers may have cleared
 * the device in between: a controller that follows the level (8259 in
 * level mode) then shows no request any more, one that latched it (LAPIC
 * IRR) still does; the core takes "pending at either sample".
 *
 * Must be cheap (a few register reads, no waiting) and must not change
 * what the controller does: no acknowledge, no EOI, nothing left selected
 * that another reader relies on. Answer 1 only when the line's own
 * request will reach the CPU once it takes interrupts again (say 0 when
 * the line is masked at the chip: a masked request is not on its way).
 * A wrong 1 hides a lost interrupt, so when in doubt answer negative.
 *
 * Several CPUs: the poll runs on whichever CPU its timer fires on, which
 * need not be the CPU the line is routed to. Where the request is latched
 * per CPU (the x86 local APIC's IRR), another CPU cannot see it: answer
 * negative ("cannot tell"), never 0, unless the chip can read the target
 * CPU's state from here. A global controller (8259, PLIC pending bits)
 * answers from anywhere.
 *
 * A 1 before the handlers on an unmasked line also makes the poll run no
 * handler and leave the work to that interrupt (irq_poll_line returns
 * -IRQ_EINPROGRESS), once per delivery: a request that is never taken
 * delays polling by one poll, no more.
 */

/*
 * irq_chip::irq_diagnose - "is anything at the controller or the device
 * keeping this line's interrupts from reaching the CPU?", read from the
 * hardware now, for the health report of a line on polling (a message
 * masked behind the core's back, a message or pin pointed at another
 * vector). RETURNS 1 with the reason in words in @buf (NUL-terminated,
 * at most @len bytes), 0 when the chip finds nothing wrong, negative when
 * it cannot tell. OPTIONAL. Called by irq_get_line_diagnosis() with the
 * line's lock held and interrupts disabled, never on the interrupt path;
 * reads only, like irq_pending.
 */

/* Trigger types: the IRQF_TRIGGER_* bits of <irq/interrupt.h> shifted right by 4. */
#define IRQ_TYPE_NONE         0x0u  /* not configured */
#define IRQ_TYPE_EDGE_RISING  0x1u  /* edge, low to high */
#define IRQ_TYPE_EDGE_FALLING 0x2u  /* edge, high to low */
#define IRQ_TYPE_EDGE_BOTH    0x3u  /* both edges */
#define IRQ_TYPE_LEVEL_HIGH   0x4u  /* level, active high */
#define IRQ_TYPE_LEVEL_LOW    0x8u  /* level, active low */
#define IRQ_TYPE_EDGE_MASK    0x3u  /* any edge type */
#define IRQ_TYPE_LEVEL_MASK   0xCu  /* any level type */
#define IRQ_TYPE_SENSE_MASK   0xFu  /* all trigger bits */
#define IRQ_TYPE_FROM_IRQF_SHIFT 4  /* IRQ_TYPE = (IRQF_TRIGGER_* & IRQF_TRIGGER_MASK) >> 4 */

/* A flow handler: called by generic_handle_irq() for its line. */
typedef void (*irq_flow_handler_t)(struct irq_desc *desc);

/* The flow handlers. CONTEXT: interrupt context, the line's lock not held. */
void handle_edge_irq(struct irq_desc *desc);     /* edge lines (8259, IOAPIC edge) */
void handle_level_irq(struct irq_desc *desc);    /* level lines acked at the chip (8259 ELCR) */
void handle_fasteoi_irq(struct irq_desc *desc);  /* lines ended by one EOI (IOAPIC level) */

/*
 * irq_core_init - set every line to "no chip, no action, masked" and empty
 * the action pool. Once per boot, before any other function of the core
 * (host tests call it again between test cases, when nothing runs).
 * CONTEXT: thread context, single-threaded.
 */
void irq_core_init(void);

/*
 * irq_set_chip_and_handler - attach controller @chip with flow handler
 * @flow to line @irq; the chip sees (@hwirq, @chip_data) in its irq_data.
 * Masks the line at the new chip and sets the default trigger type from the
 * flow (edge flow: IRQ_TYPE_EDGE_RISING; level and fasteoi: LEVEL_HIGH;
 * irq_set_trigger() changes it). The chip must have mask and unmask; the
 * edge and level flows need ack (level uses mask_ack too if present),
 * fasteoi needs eoi.
 * CONTEXT: thread context.
 * RETURNS 0; -EINVAL (no such line, NULL chip/flow, chip lacks what the
 * flow needs); -EBUSY (the line has actions: free them first).
 */
int irq_set_chip_and_handler(unsigned int irq, const struct irq_chip *chip, irq_flow_handler_t flow,
			     void *chip_data, unsigned long hwirq);

/*
 * irq_set_handler - change the flow handler of line @irq (a controller
 * whose set_type switched the line between edge and level does this).
 * CONTEXT: thread context or from irq_chip::set_type (it takes no lock:
 * the flow pointer is swapped atomically; an interrupt already in its old
 * flow finishes there).
 * RETURNS 0, or -EINVAL (no such line, no chip, or the chip lacks what the
 * flow needs; logged).
 */
int irq_set_handler(unsigned int irq, irq_flow_handler_t flow);

/*
 * irq_set_trigger - set the trigger type of line @irq (IRQ_TYPE_*, one
 * edge or level kind), through the chip's set_type when it has one. Used by
 * the controller setup (ELCR, MADT overrides). CONTEXT: thread context.
 * RETURNS 0; -EINVAL (no such line, no chip, bad type, or set_type's
 * error); -EBUSY (the line has actions and the type differs).
 */
int irq_set_trigger(unsigned int irq, unsigned int type);

/*
 * irq_set_affinity - deliver line @irq's interrupts to the CPUs in @mask
 * (bit n = CPU n) from now on, through the chip's irq_set_affinity; the
 * line's requested mask is remembered (irq_get_affinity) and may be set
 * before or after request_irq. Safe while the line fires (see the chip op).
 * CONTEXT: thread context.
 * RETURNS 0; -EINVAL (no such line, @mask empty or naming CPUs at or past
 * IRQ_NR_CPUS, or the chip refused it); -ENODEV (no chip, or a chip that
 * cannot move lines).
 */
int irq_set_affinity(unsigned int irq, irq_cpumask_t mask);

/* irq_get_affinity - the mask last set on line @irq (all CPUs before any; 0: no such line). */
irq_cpumask_t irq_get_affinity(unsigned int irq);

/*
 * generic_handle_irq - an interrupt arrived on line @irq: run its flow
 * handler. Called by the arch's interrupt entry code.
 * CONTEXT: interrupt context (interrupts disabled).
 * RETURNS 0; -EINVAL when @irq is not a line; -ENODEV when the line has no
 * chip (the caller must then end the interrupt at its controller itself).
 */
int generic_handle_irq(unsigned int irq);

/*
 * irq_account_spurious - the controller found that an interrupt it signalled
 * on @irq had no cause (8259 IRQ 7/15 with the ISR bit clear). Counted in
 * the line's "spurious" statistic; nothing runs. Unknown lines are ignored.
 * CONTEXT: interrupt context.
 */
void irq_account_spurious(unsigned int irq);

#endif /* IRQ_IRQCHIP_H */
