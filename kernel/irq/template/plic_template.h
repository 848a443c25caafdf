/*
 * plic_template.h (template port, RISC-V) - the RISC-V Platform-Level
 * Interrupt Controller as an irq_chip, for a kernel in machine or
 * supervisor mode on one hart or several: copy it with the rest of
 * kernel/irq/template/ if your board has a PLIC (QEMU virt, SiFive, most
 * RISC-V SoCs). docs/porting.md, section 11.3, says why it is built the way
 * it is; tests/cross/rv64_run.c runs it on QEMU in both modes, and
 * tests/unit/test_irq_template.c checks its register writes.
 *
 * What it does (RISC-V PLIC Specification 1.0.0):
 *   - mask and unmask by the source's priority (0: never interrupts), one
 *     store to a register that is the source's alone: no read-modify-write
 *     of the per-context enable words 32 sources share, so no lock between
 *     harts on the interrupt path;
 *   - the enable bits are the routing: a line goes to one hart's context
 *     (irq_template_plic_attach, irq_set_affinity), changed under the
 *     template PLIC's own lock;
 *   - eoi completes to the context of the hart that claimed (the flow runs
 *     there); irq_pending reads the global pending bits and answers for
 *     every hart, so a poll on any hart can ask; irq_diagnose says when a
 *     source is routed nowhere, masked behind the core's back, or below
 *     its context's threshold;
 *   - the lines are declared edge-triggered when the gateways take
 *     requests rather than levels (@edge_only: QEMU's PLIC; section 4 of
 *     docs/porting.md says what the fasteoi flow then needs).
 *
 * The contexts: each hart has one per privilege mode; which number is
 * whose is the board's (the device tree's PLIC node lists them in
 * interrupts-extended: (hart, 11) machine, (hart, 9) supervisor). QEMU
 * virt: hart h has machine context 2h and supervisor context 2h + 1.
 */
#ifndef IRQ_TEMPLATE_PLIC_H
#define IRQ_TEMPLATE_PLIC_H

#include <stdbool.h>
#include <stdint.h>

#include <irq/irqchip.h>

/* Most CPUs (harts) the template PLIC routes to, numbered as irq_port_cpu_id() numbers them. */
#ifndef IRQ_TEMPLATE_PLIC_MAX_CPUS
#define IRQ_TEMPLATE_PLIC_MAX_CPUS 8
#endif
/* Most sources (the specification allows 1023; QEMU virt has 95, numbered 1-95). */
#ifndef IRQ_TEMPLATE_PLIC_MAX_SOURCES
#define IRQ_TEMPLATE_PLIC_MAX_SOURCES 128
#endif
#if IRQ_TEMPLATE_PLIC_MAX_CPUS < 1 || IRQ_TEMPLATE_PLIC_MAX_CPUS > 32
#error "IRQ_TEMPLATE_PLIC_MAX_CPUS must be 1..32 (irq_cpumask_t has 32 bits)"
#endif
#if IRQ_TEMPLATE_PLIC_MAX_SOURCES < 2 || IRQ_TEMPLATE_PLIC_MAX_SOURCES > 1024
#error "IRQ_TEMPLATE_PLIC_MAX_SOURCES must be 2..1024 (the PLIC numbers sources 1..1023)"
#endif

struct irq_template_plic_config {
	unsigned long base;        /* the PLIC's registers, as your kernel maps them */
	unsigned int nr_sources;   /* sources 1 .. nr_sources - 1 (the device tree's riscv,ndev + 1) */
	unsigned int nr_cpus;      /* CPUs 0 .. nr_cpus - 1 take its interrupts */
	unsigned int context[IRQ_TEMPLATE_PLIC_MAX_CPUS];  /* CPU n's context in your kernel's mode */
	uint32_t priority;         /* an unmasked source's priority: 1 .. the PLIC's highest */
	bool edge_only;            /* the gateways take requests, not levels: QEMU 7.2's PLIC */
};

/*
 * irq_template_plic_init - take the PLIC described by @cfg (copied): every
 * source masked (priority 0) and routed nowhere in the CPUs' contexts, each
 * context's threshold 0.
 * CONTEXT: thread context, after irq_core_init(), before any attach.
 * RETURNS 0; -EINVAL for a configuration out of range.
 */
int irq_template_plic_init(const struct irq_template_plic_config *cfg);

/*
 * irq_template_plic_attach - make kernel/irq line @irq the PLIC's @source:
 * the chip and the fasteoi flow, the trigger (edge when @edge_only, else
 * level), routed to CPU @cpu's context. The line stays masked until
 * request_irq().
 * CONTEXT: thread context. RETURNS 0, or the error of
 * irq_set_chip_and_handler() / irq_set_trigger(), or -EINVAL.
 */
int irq_template_plic_attach(unsigned int irq, unsigned int source, unsigned int cpu);

/*
 * irq_template_plic_interrupt - the external interrupt of this CPU's mode
 * (machine: mcause 11; supervisor: scause 9): claim from this CPU's
 * context, run each source's line through generic_handle_irq(), complete
 * the claim itself only when the core took no line (no such line or no
 * chip), up to a bounded number of claims, and calls
 * irq_template_interrupt_done() after each (the hart's finished
 * interrupts, which irq_port_cpu_progress() returns), so a trap handler
 * that hands its external interrupt here needs no call of its own.
 * CONTEXT: interrupt context (the trap handler), interrupts off.
 */
void irq_template_plic_interrupt(void);

extern const struct irq_chip irq_template_plic_chip;

#endif /* IRQ_TEMPLATE_PLIC_H */
