/*
 * trace_event.h - the event trace's format (trace.h): the event types and
 * their fields, the classes, one entry, the per-CPU rings, the switch byte
 * and irq_trace_record(), all of which trace_ring.c defines. trace.h
 * includes it and adds the hooks that read the switch (irq_trace_enabled(),
 * IRQ_TRACE, irq_trace_drv()) and the control; a porter or a driver
 * includes trace.h. Split out so that trace_ring.c, which defines what the
 * hooks read, includes no header that reads it (no circle of files:
 * docs/irq-layers.md).
 *
 * Layer 0, the base: a public header; uses only irq_config.h.
 */
#ifndef IRQ_TRACE_EVENT_H
#define IRQ_TRACE_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "irq_config.h"

/* The dump format's version (docs/trace.md, "Format"); tools/trace refuses others. */
#define IRQ_TRACE_FORMAT_VERSION 2

/* Record types. 0 marks a slot not (yet) written. Names: irq_trace_event_name(). */
enum irq_trace_type {
	IRQ_TEV_NONE = 0,
	IRQ_TEV_IRQ_ENTRY,   /* an interrupt entered the line's flow; sub = enum irq_trace_flow */
	IRQ_TEV_IRQ_EXIT,    /* the flow is done; sub = the flow again */
	IRQ_TEV_ACTION,      /* one handler returned; sub = enum irq_trace_ret, arg = index | IRQ_TRACE_ACTION_POLL */
	IRQ_TEV_CHIP,        /* a chip operation the core called; sub = enum irq_trace_chip_op */
	IRQ_TEV_POLL_START,  /* a poll of the line begins; sub = IRQ_TRACE_WHY_* bits */
	IRQ_TEV_POLL_END,    /* it ended; sub = enum irq_trace_poll_result */
	IRQ_TEV_EXPECT,      /* expect_irq; arg = token id */
	IRQ_TEV_UNEXPECT,    /* unexpect_irq; sub = enum irq_trace_unexpect, arg = token id */
	IRQ_TEV_VERDICT,     /* a verdict on a delivery; sub = enum irq_trace_verdict, arg = token id or count */
	IRQ_TEV_STATE,       /* a defence changed the line's state; sub = enum irq_trace_state, arg per state */
	IRQ_TEV_POLL_ARM,    /* the poll timer armed (sub 0, arg = us from now) or cancelled (sub 1) */
	IRQ_TEV_DRV,         /* a driver event; sub = enum irq_trace_drv_kind, arg = tag << 24 | value */
	IRQ_TEV_NR
};

/* Flows (IRQ_TEV_IRQ_ENTRY/EXIT sub). */
enum irq_trace_flow { IRQ_TFLOW_NONE, IRQ_TFLOW_EDGE, IRQ_TFLOW_LEVEL, IRQ_TFLOW_FASTEOI, IRQ_TFLOW_CUSTOM };

/* A handler's return (IRQ_TEV_ACTION sub). */
enum irq_trace_ret { IRQ_TRET_NONE, IRQ_TRET_HANDLED, IRQ_TRET_BAD };
#define IRQ_TRACE_ACTION_POLL 0x100u  /* arg bit: the run was a poll */

/* Chip operations (IRQ_TEV_CHIP sub). */
enum irq_trace_chip_op { IRQ_TCHIP_MASK, IRQ_TCHIP_UNMASK, IRQ_TCHIP_ACK, IRQ_TCHIP_MASK_ACK, IRQ_TCHIP_EOI };

/* Why a poll ran (IRQ_TEV_POLL_START sub, bits: every defence whose poll was due). */
#define IRQ_TRACE_WHY_EXPECT  0x01u  /* an expect token wanted it */
#define IRQ_TRACE_WHY_WATCH   0x02u  /* a watched action wanted it */
#define IRQ_TRACE_WHY_FLOOD   0x04u  /* the line is off (or on test) for flooding */
#define IRQ_TRACE_WHY_IRQPOLL 0x08u  /* irqpoll's periodic poll */
#define IRQ_TRACE_WHY_FIXUP   0x10u  /* irqfixup: another line's interrupt went unclaimed */
#define IRQ_TRACE_WHY_HEALTH  0x20u  /* health reporting (a misroute episode's end) */
#define IRQ_TRACE_WHY_HAND    0x40u  /* armed by hand with the defences off */
#define IRQ_TRACE_WHY_CALLER  0x80u  /* irq_poll(): a driver or fault asked for it */

/* What a poll found (IRQ_TEV_POLL_END sub): irq_poll_line's answer. */
enum irq_trace_poll_result {
	IRQ_TPOLL_NONE, IRQ_TPOLL_HANDLED, IRQ_TPOLL_BUSY, IRQ_TPOLL_NOACTION, IRQ_TPOLL_DISABLED,
	IRQ_TPOLL_DEFERRED, IRQ_TPOLL_OTHER
};

/* How an expect ended (IRQ_TEV_UNEXPECT sub). */
enum irq_trace_unexpect { IRQ_TUNEXP_IRQ, IRQ_TUNEXP_POLL, IRQ_TUNEXP_TIMEOUT };

/* Verdicts (IRQ_TEV_VERDICT sub). */
enum irq_trace_verdict {
	IRQ_TVERD_LATE,          /* expect: a polled completion's interrupt came after all (arg token) */
	IRQ_TVERD_UNSURE,        /* expect: next completion by interrupt, no late one seen (arg token) */
	IRQ_TVERD_LOST,          /* expect: the interrupt never came (arg token) */
	IRQ_TVERD_BEAT,          /* expect: the poll beat a pending interrupt - late at once (arg token) */
	IRQ_TVERD_WATCH_LATE,    /* watch: finds whose interrupt came after (arg count) */
	IRQ_TVERD_WATCH_POLLED,  /* watch: finds no interrupt followed (arg count) */
	IRQ_TVERD_STALLED,       /* expect: found while the line's CPU was not running - late, not judged (arg token) */
	IRQ_TVERD_WATCH_STALLED, /* watch: the same for finds of a watch poll (arg count) */
};

/* State changes (IRQ_TEV_STATE sub). */
enum irq_trace_state {
	IRQ_TSTATE_VERIFIED,     /* an expect token's deliveries proved reliable (arg token) */
	IRQ_TSTATE_DISTRUSTED,   /* an expect token distrusted: polled while expected (arg token) */
	IRQ_TSTATE_FLOOD_OFF,    /* line disabled for flooding (arg: ms until the re-enable test) */
	IRQ_TSTATE_REENABLE,     /* re-enabled to test whether the flood stopped */
	IRQ_TSTATE_FLOOD_OVER,   /* the test passed: back on interrupts */
	IRQ_TSTATE_WATCH_BAD,    /* watch: a bad period, polled for good */
	IRQ_TSTATE_WATCH_END,    /* watch: ended (healthy or too few to judge) */
	IRQ_TSTATE_HEALTH_BEGIN, /* an episode on polling begins (arg: IRQ_HEALTH_* cause) */
	IRQ_TSTATE_HEALTH_END,   /* it ends (arg: its cause) */
};

/* Driver events (IRQ_TEV_DRV sub). */
enum irq_trace_drv_kind { IRQ_TDRV_BEGIN, IRQ_TDRV_END, IRQ_TDRV_MARK };

/* Event classes, for the filter (irq_trace_start). */
#define IRQ_TCLASS_IRQ    0x01u  /* irq_entry, irq_exit, action */
#define IRQ_TCLASS_CHIP   0x02u  /* chip */
#define IRQ_TCLASS_POLL   0x04u  /* poll_start, poll_end, poll_arm */
#define IRQ_TCLASS_EXPECT 0x08u  /* expect, unexpect, verdict */
#define IRQ_TCLASS_STATE  0x10u  /* state */
#define IRQ_TCLASS_DRV    0x20u  /* drv */
#define IRQ_TCLASS_ALL    0x3Fu

/* The line number of an event that belongs to no line. */
#define IRQ_TRACE_NO_LINE 0xFFFFu

/* One event: 16 bytes. @type is written last (see trace.c). */
struct irq_trace_entry {
	uint64_t ts_ns;   /* irq_port_now_ns() */
	uint32_t arg;     /* per type, above */
	uint16_t line;    /* the line, or IRQ_TRACE_NO_LINE */
	uint8_t sub;      /* per type, above */
	uint8_t type;     /* enum irq_trace_type; 0 = slot not written */
};

/*
 * irq_trace_on - tracing is switched on. The one byte every hook tests
 * first: a compare of memory with 0 and a branch predicted not taken (two
 * instructions on x86: cmpb $0,irq_trace_on; jne). A plain read on
 * purpose: GCC turns a relaxed __atomic_load_n (or a volatile read) of a
 * byte into a load, a test and the branch, three instructions. A byte read
 * is single-copy atomic on every CPU the core runs on, and every hook sits
 * next to a call the compiler cannot see through, so it is read afresh
 * each time; a hook that misses the switch by one event loses that event,
 * nothing else. Written only with __atomic stores (trace.c).
 */
extern uint8_t irq_trace_on;

/*
 * irq_trace_record - record one event on this CPU's ring (if its class and
 * line pass the filter). Lock-free; may be called with or without any
 * lock. CONTEXT: any, including interrupt and timer context.
 */
void irq_trace_record(unsigned int type, unsigned int line, unsigned int sub, uint32_t arg);

/* For the debugger (tools/gdb/irqkit.py) and tests: the rings and the tag names. */
struct irq_trace_ring {
	uint32_t head;      /* slots taken; may run past IRQ_TRACE_ENTRIES by racing writers */
	uint32_t dropped;   /* events not recorded because the ring was full */
	struct irq_trace_entry e[IRQ_TRACE_ENTRIES];
};
extern struct irq_trace_ring irq_trace_rings[IRQ_NR_CPUS];
extern const char *irq_trace_tag_names[IRQ_TRACE_TAGS + 1];

#endif /* IRQ_TRACE_EVENT_H */
