/*
 * vector.h - the one allocator of dynamic interrupt vectors (arch/x86/vector.c)
 * and the x86 format of a message-signalled interrupt (Intel SDM vol. 3A
 * 11.11, "Message Signalled Interrupts": figure 11-24 the address, figure
 * 11-25 the data).
 *
 * Vector layout (asm/trap.h): 0x20-0x2F 8259, 0x30-0x4F IOAPIC GSIs 0-31,
 * 0x50-0xDF dynamic (this allocator: message-signalled lines, and any later
 * user that needs a vector that is not fixed), 0xE0-0xE1 selftests, 0xEF
 * LAPIC timer, 0xF0-0xFD SMP IPIs, 0xFE LAPIC error, 0xFF spurious.
 * Nobody outside this file picks a vector in 0x50-0xDF by hand.
 */
#ifndef ASM_VECTOR_H
#define ASM_VECTOR_H

#include <stdbool.h>
#include <stdint.h>

#define X86_DYN_VECTOR_FIRST 0x50  /* first vector the allocator hands out */
#define X86_DYN_VECTOR_LAST  0xDF  /* last one */
#define X86_DYN_VECTOR_COUNT (X86_DYN_VECTOR_LAST - X86_DYN_VECTOR_FIRST + 1)

/* MSI address register (SDM 3A figure 11-24): 0xFEE in bits 31:20. */
#define X86_MSI_ADDR_BASE       0xFEE00000u  /* bits 31:20 = 0xFEE: an interrupt message */
#define X86_MSI_ADDR_BASE_MASK  0xFFF00000u
#define X86_MSI_ADDR_DEST_SHIFT 12           /* bits 19:12: destination APIC ID */
#define X86_MSI_ADDR_DEST_MASK  0x000FF000u
#define X86_MSI_ADDR_RH         (1u << 3)    /* redirection hint (0: exactly the destination) */
#define X86_MSI_ADDR_DM_LOGICAL (1u << 2)    /* destination mode logical (0: physical) */
/* MSI data register (SDM 3A figure 11-25). */
#define X86_MSI_DATA_VECTOR_MASK 0x00FFu     /* bits 7:0: vector */
#define X86_MSI_DATA_DM_MASK    0x0700u      /* bits 10:8: delivery mode, 000 = fixed */
#define X86_MSI_DATA_LEVEL      (1u << 15)   /* trigger mode level (0: edge; MSI is edge) */
#define X86_MSI_DATA_ASSERT     (1u << 14)   /* level: assert (ignored for edge) */

/* A composed message: what a device writes where to raise one interrupt. */
struct x86_msi_msg {
	uint32_t address_lo;   /* 0xFEE00000 | destination << 12 */
	uint32_t address_hi;   /* 0: the LAPICs sit below 4 GiB */
	uint32_t data;         /* vector, fixed delivery, edge */
};

/*
 * x86_vector_alloc - take a free vector from 0x50-0xDF for @owner (a name
 * kept for `apic`-style listings; not copied, must stay valid). The lowest
 * free one is given, so a boot hands out the same vectors every time.
 * CONTEXT: thread context (interrupts are disabled inside).
 * RETURNS the vector; -ENOSPC when every dynamic vector is taken.
 */
int x86_vector_alloc(const char *owner);

/*
 * x86_vector_free - give @vector back. A vector outside the dynamic range
 * or not allocated is reported and ignored (never freed twice).
 * CONTEXT: thread context, after the vector's source was silenced.
 */
void x86_vector_free(unsigned int vector);

/* x86_vector_owner - who holds @vector (NULL: free, or outside the dynamic range). CONTEXT: any. */
const char *x86_vector_owner(unsigned int vector);

/* x86_vector_in_use - vectors of the dynamic range taken now. CONTEXT: any. */
unsigned int x86_vector_in_use(void);

/*
 * x86_vector_unused - a vector of the dynamic range that nobody owns and
 * no line is mapped to (for a fault that points a message at nowhere: the
 * msi-misvector fault). Taken from the top of the range so it stays clear
 * of what the allocator hands out next. RETURNS it, or -ENOSPC.
 */
int x86_vector_unused(void);

/*
 * x86_msi_compose - the message that delivers @vector to the local APIC
 * @dest_apic_id: physical destination, fixed delivery, edge (SDM 3A
 * 11.11.1/2). This is the one place that knows the format; the affinity
 * operation (irq_set_affinity, issue SMP) recomposes with another
 * destination. CONTEXT: any. RETURNS 0; -EINVAL for a vector below 0x20
 * or an APIC ID above 255 (the xAPIC format has 8 bits).
 */
int x86_msi_compose(unsigned int vector, unsigned int dest_apic_id, struct x86_msi_msg *msg);

/*
 * x86_msi_decode - the reverse, for diagnosis of what a device really
 * holds: *@vector and *@dest_apic_id from a message. RETURNS true when it
 * is a well-formed fixed, edge, physical message to 0xFEExxxxx below 4 GiB;
 * false otherwise (the fields are filled anyway where they can be).
 */
bool x86_msi_decode(const struct x86_msi_msg *msg, unsigned int *vector, unsigned int *dest_apic_id);

#endif
