/*
 * plic_template.c (template port, RISC-V) - the RISC-V PLIC as an
 * irq_chip (plic_template.h says what and why; docs/porting.md, section
 * 11.3, for whom). Registers from the RISC-V PLIC Specification 1.0.0,
 * chapter 3: a priority word per source at 0, the pending bits at 0x1000,
 * the enable bits per context at 0x2000 + 0x80 * context, the threshold
 * and the claim/complete register per context at 0x200000 + 0x1000 *
 * context. Nothing here depends on the privilege mode: the mode is in
 * which contexts the port names. Plain C and MMIO: it compiles anywhere
 * (the host unit test runs it against a fake register file).
 */
#include "plic_template.h"

#include <irq/interrupt.h>
#include <irq/port.h>

#include <stdarg.h>

#define PLIC_PRIORITY(src)       (4ul * (src))
#define PLIC_PENDING(src)        (0x1000ul + 4ul * ((src) / 32))
#define PLIC_ENABLE(ctx, src)    (0x2000ul + 0x80ul * (ctx) + 4ul * ((src) / 32))
#define PLIC_THRESHOLD(ctx)      (0x200000ul + 0x1000ul * (ctx))
#define PLIC_CLAIM(ctx)          (0x200004ul + 0x1000ul * (ctx))
/* The specification's largest context number (15,871 contexts). */
#define PLIC_MAX_CONTEXT         15871u
/* Most claims one external interrupt takes before returning to the interrupted code. */
#define PLIC_CLAIMS_PER_INTERRUPT 16u
/* A source with no line (plic_line_of). */
#define PLIC_NO_LINE             0xffffu

static struct irq_template_plic_config plic;
/*
 * Per source: its kernel/irq line (PLIC_NO_LINE: none), written by attach
 * with a release store and read by the interrupt path with an acquire load
 * (the line's set-up is visible before its first claim is dispatched);
 * the CPU it is routed to, and whether the core has it unmasked (for
 * irq_diagnose), both under the line's lock or plic_route_lock.
 */
static uint16_t plic_line_of[IRQ_TEMPLATE_PLIC_MAX_SOURCES];
static uint8_t plic_cpu_of[IRQ_TEMPLATE_PLIC_MAX_SOURCES];
static uint32_t plic_unmasked[(IRQ_TEMPLATE_PLIC_MAX_SOURCES + 31) / 32];
/*
 * The enable words are shared by 32 sources: changing one (routing) is a
 * read-modify-write that lines on other harts could race; this lock
 * serialises it. Taken inside a line's lock (irq_set_affinity), never the
 * other way round, never on the interrupt path.
 */
static irq_port_lock_t plic_route_lock;

static inline uint32_t plic_read(unsigned long off)
{
	return *(volatile uint32_t *)(plic.base + off);
}

static inline void plic_write(unsigned long off, uint32_t v)
{
	*(volatile uint32_t *)(plic.base + off) = v;
}

static inline uint32_t plic_bit(unsigned long src)
{
	return 1u << (src % 32);
}

static bool plic_enabled_in(unsigned int ctx, unsigned long src)
{
	return plic_read(PLIC_ENABLE(ctx, src)) & plic_bit(src);
}

/* This CPU's context; a CPU the configuration does not name gets CPU 0's (a port bug, survived). */
static unsigned int plic_my_context(void)
{
	unsigned int cpu = irq_port_cpu_id();

	return plic.context[cpu < plic.nr_cpus ? cpu : 0];
}

/* Route @src to CPU @cpu's context and away from the others; route lock held. */
static void __plic_route(unsigned long src, unsigned int cpu)
{
	unsigned int i;

	/* The new context first: an interrupt is claimed by one of the two, never lost in between. */
	plic_write(PLIC_ENABLE(plic.context[cpu], src), plic_read(PLIC_ENABLE(plic.context[cpu], src)) | plic_bit(src));
	for (i = 0; i < plic.nr_cpus; i++)
		if (i != cpu)
			plic_write(PLIC_ENABLE(plic.context[i], src),
				   plic_read(PLIC_ENABLE(plic.context[i], src)) & ~plic_bit(src));
	plic_cpu_of[src] = (uint8_t)cpu;
}

/*
 * plic_unmasked: 32 lines to a word, each changed under its own line's lock
 * on any hart, so the bits change with atomic and/or (relaxed: the bitmap
 * is only read by irq_diagnose, under the line's lock, for that line).
 */
static void plic_mask(struct irq_data *d)
{
	plic_write(PLIC_PRIORITY(d->hwirq), 0);
	__atomic_fetch_and(&plic_unmasked[d->hwirq / 32], ~plic_bit(d->hwirq), __ATOMIC_RELAXED);
}

/* A priority write also makes QEMU's PLIC look at its pending bits again (an enable write does not). */
static void plic_unmask(struct irq_data *d)
{
	__atomic_fetch_or(&plic_unmasked[d->hwirq / 32], plic_bit(d->hwirq), __ATOMIC_RELAXED);
	plic_write(PLIC_PRIORITY(d->hwirq), plic.priority);
}

/* Complete to this CPU's context: the flow runs on the hart that claimed. */
static void plic_eoi(struct irq_data *d)
{
	plic_write(PLIC_CLAIM(plic_my_context()), (uint32_t)d->hwirq);
}

/*
 * On its way to a hart: pending at the gateway, not masked, and enabled in
 * some CPU's context whose threshold is below its priority. Global
 * registers only, so any hart answers; a claimed source is not pending.
 */
static int plic_irq_pending(struct irq_data *d)
{
	uint32_t prio;
	unsigned int i;

	if (d->hwirq == 0 || d->hwirq >= plic.nr_sources)
		return -1;
	prio = plic_read(PLIC_PRIORITY(d->hwirq));
	if (!prio || !(plic_read(PLIC_PENDING(d->hwirq)) & plic_bit(d->hwirq)))
		return 0;
	for (i = 0; i < plic.nr_cpus; i++)
		if (plic_enabled_in(plic.context[i], d->hwirq) && prio > plic_read(PLIC_THRESHOLD(plic.context[i])))
			return 1;
	return 0;
}

static int plic_say(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	irq_template_vformat(buf, len, fmt, ap);
	va_end(ap);
	return 1;
}

/* What at the PLIC keeps the source's interrupts away: routing, a mask behind the core's back, the threshold. */
static int plic_irq_diagnose(struct irq_data *d, char *buf, size_t len)
{
	unsigned int src = (unsigned int)d->hwirq, cpu = plic_cpu_of[d->hwirq % IRQ_TEMPLATE_PLIC_MAX_SOURCES], i;
	uint32_t prio, thr;
	bool routed = false;

	if (src == 0 || src >= plic.nr_sources || !buf || !len)
		return -1;
	for (i = 0; i < plic.nr_cpus; i++)
		routed |= plic_enabled_in(plic.context[i], src);
	if (!routed)
		return plic_say(buf, len, "PLIC source %u: enabled in no hart's context (routed nowhere)", src);
	prio = plic_read(PLIC_PRIORITY(src));
	if (!prio && (__atomic_load_n(&plic_unmasked[src / 32], __ATOMIC_RELAXED) & plic_bit(src)))
		return plic_say(buf, len, "PLIC source %u: priority 0 although unmasked (masked behind the core's back)", src);
	thr = plic_read(PLIC_THRESHOLD(plic.context[cpu]));
	if (prio && prio <= thr)
		return plic_say(buf, len, "PLIC source %u: priority %u not above the threshold %u of context %u",
				src, (unsigned int)prio, (unsigned int)thr, plic.context[cpu]);
	return 0;
}

/* Deliver to the first CPU of @mask the configuration names. Line lock held. */
static int plic_set_affinity(struct irq_data *d, irq_cpumask_t mask)
{
	unsigned long flags;
	unsigned int cpu;

	for (cpu = 0; cpu < plic.nr_cpus && !(mask & (1u << cpu)); cpu++)
		;
	if (cpu == plic.nr_cpus || d->hwirq == 0 || d->hwirq >= plic.nr_sources)
		return -IRQ_EINVAL;
	flags = irq_port_lock_irqsave(&plic_route_lock);
	__plic_route(d->hwirq, cpu);
	irq_port_unlock_irqrestore(&plic_route_lock, flags);
	return 0;
}

const struct irq_chip irq_template_plic_chip = {
	.name = "PLIC", .mask = plic_mask, .unmask = plic_unmask, .eoi = plic_eoi,
	.irq_pending = plic_irq_pending, .irq_diagnose = plic_irq_diagnose,
	.irq_set_affinity = plic_set_affinity,
};

int irq_template_plic_init(const struct irq_template_plic_config *cfg)
{
	unsigned int i, src;

	if (!cfg || !cfg->base || cfg->nr_sources < 2 || cfg->nr_sources > IRQ_TEMPLATE_PLIC_MAX_SOURCES ||
	    !cfg->nr_cpus || cfg->nr_cpus > IRQ_TEMPLATE_PLIC_MAX_CPUS || !cfg->priority) {
		irq_port_log(IRQ_LOG_ERR, "irq: PLIC: configuration refused (sources, CPUs or priority out of range)\n");
		return -IRQ_EINVAL;
	}
	for (i = 0; i < cfg->nr_cpus; i++)
		if (cfg->context[i] > PLIC_MAX_CONTEXT) {
			irq_port_log(IRQ_LOG_ERR, "irq: PLIC: context %u of CPU %u out of range\n", cfg->context[i], i);
			return -IRQ_EINVAL;
		}
	plic = *cfg;
	irq_port_lock_init(&plic_route_lock);
	for (src = 0; src < IRQ_TEMPLATE_PLIC_MAX_SOURCES; src++) {
		__atomic_store_n(&plic_line_of[src], PLIC_NO_LINE, __ATOMIC_RELAXED);
		plic_cpu_of[src] = 0;
	}
	for (src = 0; src < (IRQ_TEMPLATE_PLIC_MAX_SOURCES + 31) / 32; src++)
		__atomic_store_n(&plic_unmasked[src], 0, __ATOMIC_RELAXED);
	for (src = 1; src < plic.nr_sources; src++)
		plic_write(PLIC_PRIORITY(src), 0);
	for (i = 0; i < plic.nr_cpus; i++) {
		for (src = 0; src < plic.nr_sources; src += 32)
			plic_write(PLIC_ENABLE(plic.context[i], src), 0);
		plic_write(PLIC_THRESHOLD(plic.context[i]), 0);
	}
	return 0;
}

int irq_template_plic_attach(unsigned int irq, unsigned int source, unsigned int cpu)
{
	unsigned long flags;
	int err;

	if (source == 0 || source >= plic.nr_sources || cpu >= plic.nr_cpus || irq >= PLIC_NO_LINE)
		return -IRQ_EINVAL;
	err = irq_set_chip_and_handler(irq, &irq_template_plic_chip, handle_fasteoi_irq, NULL, source);
	if (!err)
		err = irq_set_trigger(irq, plic.edge_only ? IRQ_TYPE_EDGE_RISING : IRQ_TYPE_LEVEL_HIGH);
	if (err)
		return err;
	flags = irq_port_lock_irqsave(&plic_route_lock);
	__plic_route(source, cpu);
	irq_port_unlock_irqrestore(&plic_route_lock, flags);
	/* Release: pairs with the acquire in irq_template_plic_interrupt (the line is set up before it is dispatched). */
	__atomic_store_n(&plic_line_of[source], (uint16_t)irq, __ATOMIC_RELEASE);
	return 0;
}

void irq_template_plic_interrupt(void)
{
	unsigned int ctx = plic_my_context(), claims;

	for (claims = 0; claims < PLIC_CLAIMS_PER_INTERRUPT; claims++) {
		uint32_t src = plic_read(PLIC_CLAIM(ctx));
		uint16_t line;

		if (!src)
			break;
		line = src < plic.nr_sources ? __atomic_load_n(&plic_line_of[src], __ATOMIC_ACQUIRE) : PLIC_NO_LINE;
		/*
		 * No line, no chip (-ENODEV) or no such line (-EINVAL): the core ran
		 * no flow and sent no completion, so complete the claim here, or the
		 * gateway never forwards the source again.
		 */
		if (line == PLIC_NO_LINE || generic_handle_irq(line) != 0)
			plic_write(PLIC_CLAIM(ctx), src);
		/*
		 * That interrupt is finished, its handlers ran: this hart's count
		 * of finished interrupts moves on (irq_port_cpu_progress, the
		 * defences' sign that the hart ran; a release store after the
		 * handlers' stores). Once per claim, so the count keeps up with
		 * the lines' own counts however many claims one trap takes.
		 */
		irq_template_interrupt_done();
	}
}
