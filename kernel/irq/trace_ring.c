/*
 * trace_ring.c - the event trace's rings and its recording (trace.h): one
 * ring of IRQ_TRACE_ENTRIES events per CPU in static memory, the filter's
 * state the recording reads, and irq_trace_record(), which every layer of
 * the core calls (the hook IRQ_TRACE). It calls only the port. The control
 * and the dump are trace.c's.
 *
 * Layer 0, the base: may use only the port and the public headers (docs/irq-layers.md).
 *
 * Lock-free recording, and why the order per CPU holds. Who writes: the
 * CPU whose number irq_port_cpu_id() gave, from thread, interrupt or timer
 * context; an interrupt may come in the middle of a record and record its
 * own events on the same ring. Who reads: irq_trace_dump (thread context,
 * any CPU) and a debugger on a halted machine.
 *   1. The writer reads the time, then takes the next slot with a
 *      compare-and-swap of ring->head from the value it read before the
 *      time. Any event recorded on the ring in between (a nested
 *      interrupt) moved head, so the swap fails and the writer reads the
 *      time again. Hence slots are taken in the order of their times: the
 *      timestamps of one ring never go back (bounded retries; after
 *      IRQ_TRACE_CAS_TRIES the event is dropped and counted).
 *   2. The writer fills the slot, then stores its type with RELEASE; the
 *      reader loads the type with ACQUIRE (pairs with it) and reads the
 *      fields only if it is not 0. A slot whose type is still 0 was taken
 *      but not yet filled: the dump counts it as "unwritten".
 *   3. irq_trace_clear switches recording off before it zeroes the slots
 *      and head; a writer that passed the switch just before may still
 *      land one event, which is harmless.
 * On a real CPU the compare-and-swap is the only atomic read-modify-write
 * per event; the slot's fields are plain stores.
 */
#include "internals.h"
#include "trace_event.h"
#include "trace_filter.h"

/* Attempts to take a slot before the event is dropped (each failure is a nested event). */
#define IRQ_TRACE_CAS_TRIES 16

uint8_t irq_trace_on;
struct irq_trace_ring irq_trace_rings[IRQ_NR_CPUS];
uint32_t irq_trace_classes = IRQ_TCLASS_ALL;
uint8_t irq_trace_line_sel[IRQ_NR_LINES];  /* the filter: 1 = record this line's events */
uint32_t irq_trace_bad_cpu;                /* events from a CPU number >= IRQ_NR_CPUS */

/* The class of each record type (for the filter). */
static const uint8_t irq_trace_type_class[IRQ_TEV_NR] = {
	[IRQ_TEV_IRQ_ENTRY] = IRQ_TCLASS_IRQ,     [IRQ_TEV_IRQ_EXIT] = IRQ_TCLASS_IRQ,
	[IRQ_TEV_ACTION] = IRQ_TCLASS_IRQ,        [IRQ_TEV_CHIP] = IRQ_TCLASS_CHIP,
	[IRQ_TEV_POLL_START] = IRQ_TCLASS_POLL,   [IRQ_TEV_POLL_END] = IRQ_TCLASS_POLL,
	[IRQ_TEV_EXPECT] = IRQ_TCLASS_EXPECT,     [IRQ_TEV_UNEXPECT] = IRQ_TCLASS_EXPECT,
	[IRQ_TEV_VERDICT] = IRQ_TCLASS_EXPECT,    [IRQ_TEV_STATE] = IRQ_TCLASS_STATE,
	[IRQ_TEV_POLL_ARM] = IRQ_TCLASS_POLL,     [IRQ_TEV_DRV] = IRQ_TCLASS_DRV,
};

bool irq_trace_line_selected(unsigned int irq)
{
	return irq >= IRQ_NR_LINES || __atomic_load_n(&irq_trace_line_sel[irq], __ATOMIC_RELAXED);
}

void irq_trace_record(unsigned int type, unsigned int line, unsigned int sub, uint32_t arg)
{
	unsigned int cpu = irq_port_cpu_id(), tries;
	struct irq_trace_ring *r;
	struct irq_trace_entry *e;
	uint32_t head;
	uint64_t now;

	if (!IRQ_TRACE_BUILD)
		return;  /* compiled out (irq_config.h): nothing is recorded, the rings stay empty */
	if (type == IRQ_TEV_NONE || type >= IRQ_TEV_NR ||
	    !(__atomic_load_n(&irq_trace_classes, __ATOMIC_RELAXED) & irq_trace_type_class[type]) ||
	    !irq_trace_line_selected(line))
		return;
	if (cpu >= IRQ_NR_CPUS) {
		__atomic_add_fetch(&irq_trace_bad_cpu, 1, __ATOMIC_RELAXED);
		return;
	}
	r = &irq_trace_rings[cpu];
	/* Step 1 of the top comment: the time, then the slot; a nested event in between makes us retry. */
	for (tries = 0;; tries++) {
		head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
		if (head >= IRQ_TRACE_ENTRIES || tries == IRQ_TRACE_CAS_TRIES) {
			__atomic_add_fetch(&r->dropped, 1, __ATOMIC_RELAXED);
			return;
		}
		now = irq_port_now_ns();
		if (__atomic_compare_exchange_n(&r->head, &head, head + 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	e = &r->e[head];
	e->ts_ns = now;
	e->arg = arg;
	e->line = (uint16_t)(line < IRQ_TRACE_NO_LINE ? line : IRQ_TRACE_NO_LINE);
	e->sub = (uint8_t)sub;
	/* Step 2: publish; pairs with the ACQUIRE load of the type in irq_trace_dump. */
	__atomic_store_n(&e->type, (uint8_t)type, __ATOMIC_RELEASE);
}
