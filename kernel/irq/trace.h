/*
 * trace.h - the event trace of the portable interrupt core: what happened
 * on which line, on which CPU, when (irq_port_now_ns), recorded into a
 * fixed-size ring per CPU in static memory and read out as text in a
 * versioned format (docs/trace.md; tools/trace/ draws it).
 *
 * Events are named after the place they fire (irq_entry, poll_start,
 * verdict ...); their fields are fixed and documented in docs/trace.md and
 * in irq_trace_event_names below. The dump format carries
 * IRQ_TRACE_FORMAT_VERSION; change it with every change of a field.
 *
 * The cost when off: the hooks test one byte, irq_trace_on, with a
 * predictable branch. On the path of a handled interrupt there is exactly
 * one such test (generic_handle_irq); the flow handlers, the run of the
 * actions and the chip calls of a traced interrupt are a second copy of the
 * same code compiled with its hooks in (chip.c, handle.c), so an untraced
 * interrupt runs no hook at all. Measured in docs/trace.md ("Cost").
 *
 * Drivers record their own events (an ATA command, a USB transfer) with
 * irq_trace_tag() once and irq_trace_drv() per event.
 *
 * Layer 0, the base: a public header; uses irq_config.h and trace_event.h,
 * and its hooks read and call trace_ring.c (docs/irq-layers.md).
 */
#ifndef IRQ_TRACE_H
#define IRQ_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "irq_config.h"

/* The events, their format and the rings (trace_ring.c's data). */
#include "trace_event.h"

/* irq_trace_enabled - whether tracing is on: the one test of every hook (irq_trace_on, trace_event.h). */
static inline bool irq_trace_enabled(void)
{
#if IRQ_TRACE_BUILD
	return __builtin_expect(irq_trace_on != 0, 0);
#else
	return false;
#endif
}

/* IRQ_TRACE - the hook: one load and branch when tracing is off. */
#define IRQ_TRACE(type, line, sub, arg)                                                            \
	do {                                                                                       \
		if (irq_trace_enabled())                                                           \
			irq_trace_record((type), (line), (sub), (uint32_t)(arg));                  \
	} while (0)

/* The id a token (or any object) has in the trace: its address, cut to 32 bits. */
static inline uint32_t irq_trace_id(const void *p)
{
	return (uint32_t)(uintptr_t)p;
}

/* ---- control (shell, boot parameter) -------------------------------------- */

/*
 * irq_trace_parse_filter - parse FILTER ("all", or a comma list of line
 * numbers and class names irq, chip, poll, expect, state, drv) into a class
 * mask and a line bitmap (IRQ_NR_LINES bits). An empty list of lines means
 * every line, an empty list of classes every class. RETURNS 0, or
 * -IRQ_EINVAL naming nothing (the caller reports the text), or
 * -IRQ_ENODEV (IRQ_TRACE_BUILD 0: no filter is parsed).
 */
int irq_trace_parse_filter(const char *filter, uint32_t *classes, uint32_t lines[(IRQ_NR_LINES + 31) / 32]);

/*
 * irq_trace_start - switch tracing on with @filter (NULL: everything).
 * RETURNS 0, -IRQ_EINVAL (a bad filter) or -IRQ_ENODEV (IRQ_TRACE_BUILD 0).
 * CONTEXT: thread.
 */
int irq_trace_start(const char *filter);

/* irq_trace_stop - switch tracing off; the rings keep what they hold. CONTEXT: any. */
void irq_trace_stop(void);

/* irq_trace_clear - empty every ring and zero the counts (tracing is paused meanwhile). CONTEXT: thread. */
void irq_trace_clear(void);

/* What irq_trace_status reports. */
struct irq_trace_status {
	bool on;
	uint32_t classes;              /* the filter's classes */
	unsigned int lines_selected;   /* lines the filter lets through */
	uint64_t events;               /* recorded, all CPUs */
	uint64_t dropped;              /* not recorded: the ring was full (or the CPU number out of range) */
	unsigned int cpus_used;        /* CPUs with at least one event or drop */
	unsigned int ring_entries;     /* IRQ_TRACE_ENTRIES */
};
void irq_trace_get_status(struct irq_trace_status *st);

/*
 * irq_trace_dump - print the rings in the text format of docs/trace.md,
 * one line at a time through @out (which must not record trace events of
 * its own). Tracing goes on meanwhile; the dump covers what was recorded
 * when it began. CONTEXT: thread context.
 * RETURNS the number of events printed.
 */
unsigned long irq_trace_dump(void (*out)(void *ctx, const char *line), void *ctx);

/* irq_trace_event_name - "irq_entry", ... for a record type ("?" if unknown, and always with IRQ_TRACE_BUILD 0). */
const char *irq_trace_event_name(unsigned int type);

/* irq_trace_param - the boot parameter trace=FILTER|on|off (kernel/params.c). */
int irq_trace_param(const char *v, void *arg);

/* ---- drivers -------------------------------------------------------------- */

/*
 * irq_trace_tag - the tag of driver event @name (a static string, at most
 * 23 characters of [a-z0-9_]), registering it on first use. RETURNS a tag
 * 1..IRQ_TRACE_TAGS, or 0 when the table is full or the name bad (events
 * with tag 0 are not recorded). CONTEXT: thread context (driver init).
 */
unsigned int irq_trace_tag(const char *name);

/*
 * irq_trace_drv - a driver event on @line: @kind IRQ_TDRV_BEGIN / END /
 * MARK of @tag, with a @value of 24 bits (a command, a length). BEGIN and
 * END pair up per line and tag in the tools. CONTEXT: any.
 */
static inline void irq_trace_drv(unsigned int tag, unsigned int line, unsigned int kind, uint32_t value)
{
	if (irq_trace_enabled() && tag)
		irq_trace_record(IRQ_TEV_DRV, line, kind, (uint32_t)tag << 24 | (value & 0xFFFFFFu));
}

#endif /* IRQ_TRACE_H */
