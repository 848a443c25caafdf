/*
 * stats.h - what the portable interrupt core (kernel/irq/) counts, for the
 * kernel's "irqs" shell command (in the spirit of Linux's /proc/interrupts)
 * and for tests. Include as <irq/stats.h>.
 *
 * Line counters:
 *   delivered  interrupts that came in from the controller on the line
 *   handled    runs of the handlers for an interrupt (or its replay) that
 *              some action claimed (IRQ_HANDLED)
 *   unhandled  such runs that nobody claimed, plus interrupts that found
 *              no action at all
 *   spurious   interrupts that found no action, plus those the controller
 *              reported as spurious (irq_account_spurious)
 *   polled     runs of the handlers started by a poll instead of an interrupt
 * Edges that arrive while the line is busy or disabled are merged into one
 * replay, so delivered may exceed handled + unhandled.
 *
 * The line counters are kept per CPU: each CPU counts the interrupts it
 * takes (and the runs and polls it makes) in its own slot, without a lock
 * or an atomic read-modify-write, and irq_get_line_stats() sums the slots;
 * irq_get_line_cpu_stats() gives one CPU's share (the per-CPU columns of
 * a /proc/interrupts). Each slot is a native word read and written whole,
 * folded into a 64-bit sum before it can wrap on a 32-bit CPU, so a read
 * on any CPU sees whole, 64-bit counts (internals.h, irq_stat_inc).
 *
 * Layer 0, the base: a public header; uses only irq_errno.h (docs/irq-layers.md).
 */
#ifndef IRQ_STATS_H
#define IRQ_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "irq_errno.h"

/* The state of one line. */
struct irq_line_stats {
	unsigned int irq;
	const char *chip_name;  /* "XT-PIC", or "none" */
	const char *trigger;    /* "edge", "level" or "none" */
	const char *flow;       /* "edge", "level", "fasteoi", "custom" or "none" */
	unsigned int depth;     /* disable nesting; 1 on a line without actions */
	unsigned int status;    /* IRQS_* bits; irq_status_string() names them */
	uint64_t delivered, handled, unhandled, spurious, polled;
	unsigned int nr_actions;
};

/* One CPU's share of a line's counters (the same meanings). */
struct irq_line_cpu_stats {
	uint64_t delivered, handled, unhandled, spurious, polled;
};

/*
 * irq_get_line_cpu_stats - copy CPU @cpu's share of line @irq's counters to
 * @out. @cpu is irq_port_cpu_id()'s number, below IRQ_NR_CPUS (a port that
 * gave a number out of range - its bug - has those counts under the number
 * modulo a power of two at or above IRQ_NR_CPUS: counted, never lost).
 * CONTEXT: any; takes the line's lock briefly.
 * RETURNS 0, or -EINVAL (no such line or slot, NULL @out).
 */
int irq_get_line_cpu_stats(unsigned int irq, unsigned int cpu, struct irq_line_cpu_stats *out);

/* One action (registered handler) of a line. */
struct irq_action_stats {
	const char *name;
	void *dev_id;
	uint64_t handled;         /* interrupts it claimed */
	uint64_t polled_handled;  /* polls it claimed */
	unsigned long flags;      /* IRQF_* as requested */
};

/*
 * irq_get_line_stats - copy the state of line @irq to @out. Works for lines
 * without chip or action too (zeros, "none").
 * CONTEXT: any; takes the line's lock briefly.
 * RETURNS 0, or -EINVAL (no such line, NULL @out).
 */
int irq_get_line_stats(unsigned int irq, struct irq_line_stats *out);

/*
 * irq_get_action_stats - copy the @index-th action (0 = first registered)
 * of line @irq to @out. CONTEXT: any; takes the line's lock briefly.
 * RETURNS 0; -EINVAL (no such line, NULL @out); -ENOENT (past the last).
 */
int irq_get_action_stats(unsigned int irq, unsigned int index, struct irq_action_stats *out);

/*
 * irq_status_string - write the names of the IRQS_* bits in @status into
 * @buf as a comma-separated list ("disabled,masked"; "" for none; unknown
 * bits as "0x..."), truncated to fit @len bytes including the NUL.
 * CONTEXT: any. RETURNS @buf (or "" when @buf is NULL or @len is 0).
 */
const char *irq_status_string(unsigned int status, char *buf, size_t len);

/* ==========================================================================
 * Health of the defences (kernel/irq/health.c): which lines and actions run
 * on polling because their interrupts are lost or flooding, since when, and
 * how many completions came by polling. The kernel prints
 * irq_health_report() at the end of boot; the "irqs" command shows these.
 * ========================================================================== */

/* Why a line or action runs on polling (bits; several may hold at once). */
#define IRQ_HEALTH_LOST_EXPECT 0x01u  /* expecting: completions came by polling or timed out */
#define IRQ_HEALTH_WATCH_BAD   0x02u  /* watching: polls found work the interrupt should have delivered */
#define IRQ_HEALTH_STORM       0x04u  /* a flood of unclaimed interrupts: line disabled and polled */
#define IRQ_HEALTH_IRQPOLL     0x08u  /* irqpoll: polled because the boot command line says so */
#define IRQ_HEALTH_MISROUTED   0x10u  /* irqfixup found this line's work on other lines' interrupts lately */
#define IRQ_HEALTH_CLAIMED_STORM 0x20u /* a storm of claimed interrupts: line throttled (masked, polled at a bounded rate) */

/* The defences' view of one line. */
struct irq_line_health {
	unsigned int irq;
	unsigned int causes;          /* IRQ_HEALTH_* of the line and its actions now; 0: healthy */
	uint64_t since_ns;            /* start of the oldest of those episodes (0 when healthy) */
	uint64_t polled_completions;  /* polls that found work since then (all of them when healthy) */
	bool flood_off;               /* disabled at the chip for flooding right now */
	uint32_t floods;              /* flood episodes (storms) since boot */
	uint32_t failed_tests_total;  /* re-enable tests that flooded again, since boot */
	uint32_t failed_tests;        /* re-enable tests that flooded again, this episode */
	uint64_t backoff_ns;          /* the time off the next flood gets */
	uint64_t reenable_at_ns;      /* while off: the next re-enable test (UINT64_MAX: never) */
	uint64_t next_poll_ns;        /* when the poll timer fires next (0: not armed) */
	uint64_t polls;               /* poll timer expiries since boot */
	uint64_t poll_skips;          /* poll timer expiries that polled nothing (only moved the timer) */
	uint64_t tick_looks;          /* ticks that looked at the line's verified expects (tick_look.c) */
	uint64_t tick_polls;          /* of those, ticks that found one past its safety delay and had it polled */
	uint64_t tick_stall_waits;    /* of those, ticks that put one off: the line's CPU had not run since it was due */
	uint64_t stalled;             /* completions and watch finds late while the line's CPU was not running (not judged) */
	unsigned int cpu;             /* the CPU the line's interrupts go to (the lowest of its affinity mask) */
	uint64_t poll_runs;           /* runs of the handlers by a poll since boot (timer, irqfixup) */
	uint64_t poll_found;          /* of those, runs some handler claimed: polls that found work */
	uint64_t poll_beat;           /* of those, found while the line's interrupt was pending at the chip (irq_pending) */
	uint64_t poll_deferred;       /* polls that ran no handler: the line's interrupt was pending, it did the work */
	uint64_t poll_busy;           /* polls that found the handlers running for an interrupt (on SMP: on another CPU) */
	uint64_t poll_raced;          /* interrupts that arrived while a poll ran the handlers (replayed after it) */
	uint64_t fixup_claims;        /* other lines' unclaimed interrupts this line's handlers claimed (since boot) */
	uint64_t fixup_last_ns;       /* the latest of them (0: none); misrouted while recent */
	unsigned int nr_actions;
};

/* The defences' view of one action. */
struct irq_action_health {
	const char *name;
	void *dev_id;
	unsigned int causes;          /* IRQ_HEALTH_LOST_EXPECT and/or _WATCH_BAD now; 0: healthy */
	uint64_t since_ns;            /* when the current episode began (0 when healthy) */
	uint64_t polled_completions;  /* polls it claimed since then (all of them when healthy) */
	unsigned int tokens;          /* live expect tokens */
	unsigned int tokens_verified; /* of those, verified */
	uint64_t completions_irq;     /* over its tokens: completions delivered by interrupt */
	uint64_t completions_polled;  /* ... by polling */
	uint64_t timeouts;            /* ... timed out */
	uint64_t completions_late;    /* ... found by polling, judged late: their interrupt came after */
	uint64_t completions_unsure;  /* ... found by polling, followed by one by interrupt: maybe late */
	uint64_t completions_beat;    /* ... of the late ones, found while the interrupt was pending at the chip */
	uint64_t completions_stalled; /* ... found by polling while the line's CPU was not running: late, not judged */
	uint64_t safety_waits;        /* ... safety polls put off: the line's CPU had not run since they were due */
	const char *watch;            /* "off", "watching", "polled", "wary" or "bad" */
	uint64_t watch_late;          /* watch polls' finds whose interrupt came within the window (since boot) */
	uint64_t watch_beat;          /* of watch_late, found while the interrupt was pending at the chip (since boot) */
	uint64_t watch_polled;        /* watch polls' finds no interrupt followed: counted polled (since boot) */
	uint32_t watch_pending;       /* finds awaiting that verdict now */
	uint64_t watch_stalled;       /* watch polls' finds late while the line's CPU was not running (since boot; not judged) */
};

/*
 * irq_get_line_health - copy the defences' state of line @irq to @out.
 * CONTEXT: any; takes the line's lock briefly.
 * RETURNS 0, or -EINVAL (no such line, NULL @out).
 */
int irq_get_line_health(unsigned int irq, struct irq_line_health *out);

/*
 * irq_get_action_health - the same for the @index-th action of line @irq.
 * Only the built defences' fields are filled (the others stay 0; watch is
 * "off" without IRQ_WATCH).
 * RETURNS 0; -EINVAL (no such line, NULL @out); -ENOENT (past the last);
 * -ENODEV (neither IRQ_EXPECT nor IRQ_WATCH built: an action has no health).
 */
int irq_get_action_health(unsigned int irq, unsigned int index, struct irq_action_health *out);

/*
 * irq_health_cause_string - the IRQ_HEALTH_* bits of @causes as words
 * ("storm,lost-expect"; "" for none) in @buf of @len bytes (truncated);
 * with IRQ_HEALTH_TEXT 0 the bits in hex ("0x5"), as the terse reports say them.
 * CONTEXT: any. RETURNS @buf (or "" for a NULL/empty buffer).
 */
const char *irq_health_cause_string(unsigned int causes, char *buf, size_t len);

/*
 * irq_get_line_diagnosis - ask line @irq's chip what, if anything, keeps
 * its interrupts from arriving (irq_chip::irq_diagnose), e.g. "PCI-MSI-X
 * 00:04.0 entry 1: masked at the device behind the core's back".
 * CONTEXT: thread context; takes the line's lock briefly.
 * RETURNS 1 and the reason in @buf; 0 nothing found; -EINVAL (no such
 * line, no buffer); -ENODEV (no chip, or the chip cannot diagnose).
 */
int irq_get_line_diagnosis(unsigned int irq, char *buf, size_t len);

/*
 * irq_health_report - print the "IRQ health" summary through irq_port_log:
 * one line per line that runs on polling (why, which drivers, since when,
 * completions by polling), or one line saying all lines deliver by
 * interrupt; and the defences' mode. Every line on polling is listed and no
 * healthy one. The kernel calls it at the end of boot.
 * CONTEXT: thread context.
 * RETURNS the number of lines listed as running on polling.
 */
unsigned int irq_health_report(void);

#endif /* IRQ_STATS_H */
