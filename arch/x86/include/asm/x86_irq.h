/* Vector <-> interrupt line bookkeeping of the x86 port (arch/x86/irq.c). */
#ifndef ASM_X86_IRQ_H
#define ASM_X86_IRQ_H

#include <stdint.h>
#include <asm/trap.h>

enum x86_irq_via {
	X86_IRQ_VIA_PIC,      /* delivered by the 8259 (spurious 7/15 check applies) */
	X86_IRQ_VIA_IOAPIC,   /* delivered by an IOAPIC through the local APIC */
	X86_IRQ_VIA_MSI,      /* a message-signalled interrupt written to the local APIC (vector.c) */
};

/* x86_irq_set_vector - deliveries on @vector belong to kernel/irq line @irq. */
void x86_irq_set_vector(unsigned int irq, unsigned int vector, enum x86_irq_via via);
void x86_irq_clear_vector(unsigned int vector);
int x86_vector_to_irq(unsigned int vector);   /* -1 when unassigned */
int x86_irq_to_vector(unsigned int irq);      /* -1 when unassigned */

/* System vectors (LAPIC timer, error, spurious, selftests) bypass kernel/irq. */
typedef void (*x86_vector_handler_t)(struct trap_frame *f);
void x86_set_system_vector(unsigned int vector, x86_vector_handler_t handler, const char *name);
/* x86_system_vector_name - the name given with a system vector's handler, NULL if none. */
const char *x86_system_vector_name(unsigned int vector);

/* x86_set_unexpected_vector_eoi - how to end an interrupt on an unowned vector (LAPIC EOI in APIC mode). */
void x86_set_unexpected_vector_eoi(void (*eoi)(void));
/* Interrupts seen on vectors nobody owns. */
uint32_t x86_unexpected_vectors(void);

/* Hard-interrupt nesting depth: > 0 while any interrupt handler runs. */
extern volatile uint32_t x86_irq_depth;

#endif
