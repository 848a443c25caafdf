/*
 * irq.c - from an interrupt vector to a kernel/irq line.
 *
 * traps.c hands every vector >= 32 here. System vectors (local APIC timer,
 * error and spurious vectors, selftest vectors) have a direct handler.
 * Device vectors map to a line number of kernel/irq (an ISA IRQ in PIC mode,
 * a GSI in IOAPIC mode); for the 8259, IRQ 7 and 15 are first checked for
 * being spurious (i8259.c). Then generic_handle_irq() runs the line's flow
 * handler (kernel/irq/chip.c), which acks/EOIs through the line's chip.
 */
#include <stdint.h>
#include <asm/trap.h>
#include <asm/x86_irq.h>
#include <asm/i8259.h>
#include <asm/smp.h>
#include <irq/irqchip.h>
#include <kernel/printk.h>

#define UNEXPECTED_REPORTS_MAX 10   /* unexpected vectors reported before going quiet */

struct vector_slot {
	int16_t irq;                    /* -1: not a device vector */
	uint8_t via;                    /* enum x86_irq_via */
	x86_vector_handler_t handler;   /* system vector handler, or NULL */
	const char *name;
};

static struct vector_slot vectors[X86_NR_VECTORS];
static int16_t irq_vector[256];
static uint32_t unexpected_count;
static void (*unexpected_eoi)(void);
static uint8_t table_ready;
volatile uint32_t x86_irq_depth;

static void table_init(void)
{
	for (unsigned int v = 0; v < X86_NR_VECTORS; v++)
		vectors[v].irq = -1;
	for (unsigned int i = 0; i < 256; i++)
		irq_vector[i] = -1;
	table_ready = 1;
}

void x86_irq_set_vector(unsigned int irq, unsigned int vector, enum x86_irq_via via)
{
	if (!table_ready)
		table_init();
	if (vector < X86_NR_EXCEPTIONS || vector >= X86_NR_VECTORS || irq >= 256)
		panic("x86_irq_set_vector: vector %u / irq %u out of range", vector, irq);
	if (irq_vector[irq] >= 0 && vectors[irq_vector[irq]].irq == (int)irq)
		vectors[irq_vector[irq]].irq = -1;
	vectors[vector].irq = (int16_t)irq;
	vectors[vector].via = (uint8_t)via;
	irq_vector[irq] = (int16_t)vector;
}

void x86_irq_clear_vector(unsigned int vector)
{
	if (!table_ready || vector >= X86_NR_VECTORS)
		return;
	if (vectors[vector].irq >= 0)
		irq_vector[vectors[vector].irq] = -1;
	vectors[vector].irq = -1;
}

int x86_vector_to_irq(unsigned int vector)
{
	return (table_ready && vector < X86_NR_VECTORS) ? vectors[vector].irq : -1;
}

int x86_irq_to_vector(unsigned int irq)
{
	return (table_ready && irq < 256) ? irq_vector[irq] : -1;
}

void x86_set_system_vector(unsigned int vector, x86_vector_handler_t handler, const char *name)
{
	if (!table_ready)
		table_init();
	if (vector < X86_NR_EXCEPTIONS || vector >= X86_NR_VECTORS)
		panic("x86_set_system_vector: vector %u out of range", vector);
	vectors[vector].handler = handler;
	vectors[vector].name = name;
}

const char *x86_system_vector_name(unsigned int vector)
{
	return (table_ready && vector < X86_NR_VECTORS && vectors[vector].handler) ? vectors[vector].name : NULL;
}

void x86_set_unexpected_vector_eoi(void (*eoi)(void))
{
	unexpected_eoi = eoi;
}

uint32_t x86_unexpected_vectors(void)
{
	return unexpected_count;
}

void x86_irq_vector(struct trap_frame *f)
{
	struct vector_slot *s = &vectors[f->vector];

	x86_irq_depth++;
	smp_irq_enter(f->vector);
	if (table_ready && s->handler) {
		s->handler(f);
	} else if (table_ready && s->irq >= 0) {
		if (!(s->via == X86_IRQ_VIA_PIC && i8259_spurious((unsigned int)s->irq)))
			generic_handle_irq((unsigned int)s->irq);
	} else {
		/* In APIC mode an unowned vector still occupies the local APIC's ISR: end it. */
		if (unexpected_eoi)
			unexpected_eoi();
		if (++unexpected_count <= UNEXPECTED_REPORTS_MAX)
			pr_warn("irq: interrupt on vector 0x%02x, which no line or handler owns (%u so far%s)\n",
				f->vector, unexpected_count,
				unexpected_count == UNEXPECTED_REPORTS_MAX ? "; not reporting further ones" : "");
	}
	smp_irq_exit();
	x86_irq_depth--;
}
