/*
 * vector.c - the one allocator of the dynamic interrupt vectors 0x50-0xDF
 * and the x86 format of message-signalled interrupts.
 *
 * An IOAPIC pin's vector is fixed (0x30 + GSI) and the system vectors are
 * fixed (asm/trap.h); everything else that needs a vector - the lines of
 * MSI and MSI-X (drivers/pci/msi.c) first - takes one here, so two users
 * can never be handed the same vector. A message interrupt is a memory
 * write of `data` to `address`; the chipset turns a write to 0xFEExxxxx
 * into an interrupt message to the local APIC named in the address bits
 * 19:12 with the vector in data bits 7:0 (Intel SDM vol. 3A 11.11).
 *
 * See also: asm/vector.h (the interface), irq.c (vector -> line),
 * drivers/pci/msi.c (the user), docs/msi.md.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/trap.h>
#include <asm/vector.h>
#include <asm/x86_irq.h>
#include <kernel/errno.h>
#include <kernel/printk.h>

#define APIC_ID_MAX 0xFFu   /* xAPIC destinations are 8 bits */

_Static_assert(X86_DYN_VECTOR_FIRST >= IOAPIC_VECTOR_BASE + 32, "dynamic vectors start above the 32 GSI vectors");
_Static_assert(X86_DYN_VECTOR_LAST < SELFTEST_VECTOR, "dynamic vectors end below the selftest vectors");

/* Who holds each dynamic vector; NULL = free. Changed with interrupts off (one CPU). */
static const char *owner[X86_DYN_VECTOR_COUNT];
static unsigned int in_use;

int x86_vector_alloc(const char *who)
{
	unsigned long flags = irq_save_flags();
	int vector = -ENOSPC;

	for (unsigned int i = 0; i < X86_DYN_VECTOR_COUNT; i++) {
		/* A vector a line is still mapped to (not through us) is not free either. */
		if (owner[i] || x86_vector_to_irq(X86_DYN_VECTOR_FIRST + i) >= 0)
			continue;
		owner[i] = who ? who : "?";
		in_use++;
		vector = (int)(X86_DYN_VECTOR_FIRST + i);
		break;
	}
	irq_restore_flags(flags);
	if (vector < 0)
		pr_warn("vector: all %u dynamic vectors (0x%02x-0x%02x) are taken; %s gets none\n",
			(unsigned int)X86_DYN_VECTOR_COUNT, X86_DYN_VECTOR_FIRST, X86_DYN_VECTOR_LAST,
			who ? who : "?");
	return vector;
}

void x86_vector_free(unsigned int vector)
{
	unsigned long flags;

	if (vector < X86_DYN_VECTOR_FIRST || vector > X86_DYN_VECTOR_LAST ||
	    !owner[vector - X86_DYN_VECTOR_FIRST]) {
		pr_warn("vector: free of vector 0x%02x, which the allocator did not hand out: ignored\n", vector);
		return;
	}
	flags = irq_save_flags();
	owner[vector - X86_DYN_VECTOR_FIRST] = NULL;
	in_use--;
	irq_restore_flags(flags);
}

const char *x86_vector_owner(unsigned int vector)
{
	if (vector < X86_DYN_VECTOR_FIRST || vector > X86_DYN_VECTOR_LAST)
		return NULL;
	return owner[vector - X86_DYN_VECTOR_FIRST];
}

unsigned int x86_vector_in_use(void)
{
	return in_use;
}

int x86_vector_unused(void)
{
	for (unsigned int v = X86_DYN_VECTOR_LAST; v >= X86_DYN_VECTOR_FIRST; v--)
		if (!owner[v - X86_DYN_VECTOR_FIRST] && x86_vector_to_irq(v) < 0)
			return (int)v;
	return -ENOSPC;
}

int x86_msi_compose(unsigned int vector, unsigned int dest_apic_id, struct x86_msi_msg *msg)
{
	if (!msg || vector < X86_NR_EXCEPTIONS || vector >= X86_NR_VECTORS || dest_apic_id > APIC_ID_MAX)
		return -EINVAL;
	/* Physical destination, no redirection hint: exactly this CPU (SDM 3A 11.11.1). */
	msg->address_lo = X86_MSI_ADDR_BASE | (dest_apic_id << X86_MSI_ADDR_DEST_SHIFT);
	msg->address_hi = 0;
	/* Fixed delivery (000), edge trigger: the only mode a PCI message has (SDM 3A 11.11.2). */
	msg->data = vector & X86_MSI_DATA_VECTOR_MASK;
	return 0;
}

bool x86_msi_decode(const struct x86_msi_msg *msg, unsigned int *vector, unsigned int *dest_apic_id)
{
	if (!msg)
		return false;
	if (vector)
		*vector = msg->data & X86_MSI_DATA_VECTOR_MASK;
	if (dest_apic_id)
		*dest_apic_id = (msg->address_lo & X86_MSI_ADDR_DEST_MASK) >> X86_MSI_ADDR_DEST_SHIFT;
	return msg->address_hi == 0 &&
	       (msg->address_lo & X86_MSI_ADDR_BASE_MASK) == X86_MSI_ADDR_BASE &&
	       !(msg->address_lo & (X86_MSI_ADDR_DM_LOGICAL | X86_MSI_ADDR_RH)) &&
	       !(msg->data & (X86_MSI_DATA_DM_MASK | X86_MSI_DATA_LEVEL)) &&
	       (msg->data & X86_MSI_DATA_VECTOR_MASK) >= X86_NR_EXCEPTIONS;
}
