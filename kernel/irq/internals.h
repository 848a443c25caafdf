/*
 * internals.h - PRIVATE to kernel/irq/: nothing outside this directory may
 * include it (host unit tests of kernel/irq excepted). Drivers use
 * <irq/interrupt.h>, controllers <irq/irqchip.h>, the shell <irq/stats.h>.
 *
 * The shared private header below every file of kernel/irq: the line
 * descriptor (struct irq_desc, with each defence's per-line state under its
 * switch and the accessors that answer for a left-out part), the status
 * flags, the per-CPU counters' types, the ordering helpers (64-bit loads and
 * stores, the action list's links), the poll-time generation every layer
 * bumps, and the time and message helpers. What each part of kernel/irq
 * gives the others is in that part's own private header, included only by
 * the files that use it (issue 32, docs/irq-layers.md):
 *   core.h          the dispatch core (irqdesc.c, chip.c, handle.c) and
 *                   note_interrupt(), the one call up by name
 *   chip_ops.h      the chip calls inlined into the flows and the runs
 *   irq_sched.h     the poll scheduler (poll.c) and the defence table
 *   tick_set.h      the tick's set of lines (tick_look.c)
 *   episode.h       the episodes (episode.c)
 *   stall.h         the stall marks (stall.c)
 *   expect_state.h  an expect token's state bits
 *   trace_filter.h  the trace's filter (trace_ring.c's state, set by trace.c)
 *   expect.h        expecting (expect.c)
 *   watch.h         watching (watch.c)
 *   flood.h         the flood defence (flood.c) and the line off it shares
 *   storm.h         the claimed-storm defence (storm.c)
 *
 * Locking: each line has one lock, desc->lock, taken with interrupts
 * disabled. It protects every field of the descriptor and the action list.
 * A function named __something expects the caller to hold it. Handlers run
 * with the lock dropped; IRQS_INPROGRESS (set and cleared under the lock)
 * is what keeps a line's handlers from running twice at once, and whoever
 * set it "owns the run" until it clears it.
 *
 * Layer 0, the base's private header: may use layer 0 only; what needs a
 * layer above is in the headers above (docs/irq-layers.md).
 */
#ifndef IRQ_INTERNALS_H
#define IRQ_INTERNALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "interrupt.h"
#include "irq_config.h"
#include "irqchip.h"
#include "port.h"
#include "stats.h"

/*
 * IRQ_TEXT - a sentence of the health reports (announcements, reminders,
 * verdicts). With IRQ_HEALTH_TEXT 0 (irq_config.h) every one is the empty
 * string, so that the build carries none of them, and the reports print
 * numbers instead (health.c, docs/irq-layers.md "Terse reports"). Never
 * NULL: callers tell "silently" from "with a reason" by NULL.
 */
#if IRQ_HEALTH_TEXT
#define IRQ_TEXT(s) (s)
#else
#define IRQ_TEXT(s) ("")
#endif

/* Line status (desc->status), core-private. */
#define IRQS_INPROGRESS 0x0001u  /* the handlers are running (interrupt, replay or poll) */
#define IRQS_PENDING    0x0002u  /* an interrupt came while busy or disabled: replay it */
#define IRQS_DISABLED   0x0004u  /* depth > 0 (disable_irq, or no action): handlers must not run */
#define IRQS_POLLING    0x0008u  /* the current run is a poll, not an interrupt */
#define IRQS_REPLAY     0x0010u  /* a replay of the pending edge is scheduled (resend timer) */
#define IRQS_MASKED     0x0020u  /* the line is masked at its chip */
#define IRQS_KNOWN_MASK 0x003Fu  /* every bit above */

/*
 * A 64-bit field written without the lock on one CPU and read on another
 * (struct irq_expect::started_ns). Where the CPU loads and stores 64 bits
 * in one instruction (pointers of 64 bits: x86-64, RV64, AArch64) a relaxed
 * atomic, so there is no data race; on a 32-bit CPU (irqkit's i686, the
 * Cortex-M3) a 64-bit atomic would be a library call the freestanding
 * core does not have, so a plain access, which a reader on another CPU may
 * see torn: the only reader that can meet a concurrent write is the poll
 * timer working out when to poll next (__irq_expect_deadline), where a
 * torn time moves one poll, and the next expect_irq or poll works it out
 * again. A reader that saw the token's IRQ_EXP_EXPECTING set by the same
 * expect_irq (acquire) sees the value whole in either case.
 */
static inline uint64_t irq_load_u64(const uint64_t *p)
{
#if __SIZEOF_POINTER__ >= 8
	return __atomic_load_n(p, __ATOMIC_RELAXED);
#else
	return *(const volatile uint64_t *)p;
#endif
}

static inline void irq_store_u64(uint64_t *p, uint64_t v)
{
#if __SIZEOF_POINTER__ >= 8
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
#else
	*(volatile uint64_t *)p = v;
#endif
}

/*
 * The line counters (their meaning: <irq/stats.h>), kept per CPU (stats.c):
 * each CPU counts into its own slot, with interrupts disabled, so a slot
 * has one writer at a time and the hot path takes no lock and no atomic
 * read-modify-write for them; a reader sums the slots (irq_get_line_stats).
 */
enum irq_stat {
	IRQ_STAT_DELIVERED,  /* by the flow handlers (lock held) */
	IRQ_STAT_HANDLED,    /* by the run's owner (note_interrupt) */
	IRQ_STAT_UNHANDLED,  /* by the run's owner, or under the lock when no action */
	IRQ_STAT_SPURIOUS,   /* under the lock */
	IRQ_STAT_POLLED,     /* by the run's owner */
	IRQ_STAT_NR
};

/*
 * One CPU's share of one line's counters: native words, which every CPU
 * loads and stores whole with one instruction (relaxed atomics: no data
 * race with a reader on another CPU, no libatomic). A 32-bit word would
 * wrap after 2^32 interrupts; there, a word whose top bit is set is folded
 * into the 64-bit @folded under the line's lock (once per 2^31 counts), so
 * the sums stay 64-bit and exact. 64-bit CPUs never fold.
 */
#ifndef IRQ_STAT_TEST_NARROW
typedef unsigned long irq_stat_t;
#define IRQ_STAT_FOLDS (__SIZEOF_LONG__ < 8)
#else  /* host unit test only (tests/unit/test_irq_stat_fold.c): a 32-bit CPU's words, to run the fold */
typedef uint32_t irq_stat_t;
#define IRQ_STAT_FOLDS 1
#endif
/*
 * Slot size: with more than one CPU, a power of two (the hot path indexes
 * with a shift), 64 bytes = one cache line of x86, so that no two CPUs'
 * slots share a line. With one CPU nothing is shared: the slot is only as
 * large as its counters (RAM per line: 60 bytes on i686, 64 where a
 * 64-bit word is aligned to 8 as on Arm, 40 on a 64-bit CPU).
 */
#define IRQ_STAT_SLOT_BYTES 64
#if IRQ_NR_CPUS > 1
struct irq_cpu_counters {
	union {
		struct {
			irq_stat_t n[IRQ_STAT_NR];
#if IRQ_STAT_FOLDS
			uint64_t folded[IRQ_STAT_NR];  /* under the line's lock */
#endif
		};
		unsigned char pad[IRQ_STAT_SLOT_BYTES];
	};
};
_Static_assert(sizeof(struct irq_cpu_counters) == IRQ_STAT_SLOT_BYTES, "a counter slot outgrew IRQ_STAT_SLOT_BYTES");
#else
struct irq_cpu_counters {
	irq_stat_t n[IRQ_STAT_NR];
#if IRQ_STAT_FOLDS
	uint64_t folded[IRQ_STAT_NR];  /* under the line's lock */
#endif
};
_Static_assert(sizeof(struct irq_cpu_counters) <= IRQ_STAT_SLOT_BYTES, "a counter slot outgrew IRQ_STAT_SLOT_BYTES");
#endif

/*
 * Slots per line: IRQ_NR_CPUS rounded up to a power of two, so that the
 * hot path picks the slot with a mask: a CPU number at or past
 * IRQ_NR_CPUS (a port's bug, irq_port_cpu_id) then writes no memory
 * outside the table and loses no count (see irq_stat_inc); its counts
 * only show under another CPU's number.
 */
#define IRQ_STAT_SLOTS (IRQ_NR_CPUS <= 1 ? 1 : IRQ_NR_CPUS <= 2 ? 2 : IRQ_NR_CPUS <= 4 ? 4 : IRQ_NR_CPUS <= 8 ? 8 : \
			IRQ_NR_CPUS <= 16 ? 16 : IRQ_NR_CPUS <= 32 ? 32 : IRQ_NR_CPUS <= 64 ? 64 : IRQ_NR_CPUS <= 128 ? 128 : 256)

/*
 * The flood defence's accounting segment (spurious.c): written only by the
 * owner of a run of the line's handlers (note_interrupt of an interrupt, not
 * a poll), so it needs no lock; the runs of one line never overlap.
 */
struct irq_flood_segment {
	uint64_t start_ns;           /* when the segment began */
	uint32_t samples;            /* interrupts in it */
	uint32_t unhandled;          /* of those, claimed by no action */
	uint64_t last_unhandled_ns;  /* the latest unclaimed one (mainline's 100 ms rule) */
	/*
	 * The accounting's quick path (spurious.c, irq_flood_account): set by
	 * the full accounting, so that until one of these is reached a
	 * claimed interrupt (and an unclaimed one, if quick_unclaimed) only
	 * counts. Zero (as in every fresh segment):
	 * the next interrupt takes the full path.
	 */
	uint64_t quick_until_ns;     /* the end of this segment by time (UINT64_MAX: none) */
	uint64_t quick_storm_until_ns; /* the end of the storm window (UINT64_MAX: no storm defence) */
	uint32_t quick_window_ns;    /* storm_window_ns, for starting the next window quickly (0: too long, full path) */
	uint32_t quick_samples;      /* the sample count at which the segment is judged */
	uint32_t quick_claimed;      /* the storm window's count at which the full path looks (UINT32_MAX: no storms) */
	uint32_t quick_claimed_fresh; /* the same for a window the quick path starts (the CPU-time test not begun) */
	uint32_t quick_gen;          /* __irq_switches.gen they were worked out at (a profile change redoes them) */
	bool quick_unclaimed;        /* an unclaimed interrupt may take the quick path too (no irqfixup, no gap rule) */
};

/*
 * The defences' state of one line (issue 4). Fields are under desc->lock
 * unless they say otherwise. Each defence's part exists only in a build
 * that has the defence (irq_config.h's switches): code that reads
 * one of them is under the same #if, or asks an accessor below that answers
 * for a left-out defence. What stays in every build is the poll scheduler's
 * state (poll.c, irq_sched.h) and the bookkeeping of the polls' runs
 * (handle.c): irqpoll and irqfixup poll a line with no defence built.
 * Fields are ordered by size within each part, so that no bool costs a
 * padded word; the widths are said where they are narrower than the
 * quantity's type elsewhere.
 */
struct irq_defence_line {
	/* ---- the poll scheduler (poll.c): every build ---- */
	uint64_t poll_at_ns;           /* when the poll timer is armed for (0: not armed) */
	uint64_t last_poll_ns;         /* when the poll timer last polled the line */
	/*
	 * What the poll timer was armed for, so its expiry need not work it
	 * out again (poll.c, __irq_poll_want_moved): the wanted time (before
	 * the lateness is taken off; 0: none cached) and the generation it
	 * was computed at (armed_gen, below).
	 */
	uint64_t armed_want_ns;
	uint64_t poll_gap_ns;          /* adaptive gap of the fast polls (poll_adaptive) */
	uint64_t poll_late_ns;         /* how late its callbacks run after that, on average (poll.c) */
	uint64_t irqpoll_from_ns;      /* when irqpoll first wanted the line polled (its first poll's base); irqpoll_from_set */
	struct irq_health_episode misroute; /* irqfixup claims work of this line on other lines' interrupts */
	uint64_t fixup_last_ns;        /* the latest such claim (the misroute episode ends a window after) */
	/*
	 * No reminder (health.c) and no misroute end is due before this
	 * (0: work it out at the next poll): a lower bound, lowered by every
	 * episode that begins and worked out again by __irq_health_remind when
	 * reached, so that the reminders cost a poll one compare.
	 */
	uint64_t remind_at_ns;
	uint64_t polls;                /* poll timer expiries that polled the line */
	uint64_t poll_skips;           /* expiries that found no poll due yet and only re-armed */
	uint64_t fixup_claims;         /* unclaimed interrupts elsewhere that this line's handlers claimed (irqfixup) */
#ifdef IRQ_POLL_WANT_CHECK
	/*
	 * The scheduler's shortcuts at work, as the unit tests' evidence (host
	 * builds with IRQ_POLL_WANT_CHECK only): no reader or report shows
	 * them, so a real build does not keep them per line.
	 */
	uint64_t poll_arms;            /* times the poll timer was armed or moved */
	uint64_t poll_want_reused;     /* expiries that used the time they were armed for (nothing moved) */
	uint64_t poll_reruns;          /* polls run at once after one that found work (no timer) */
	uint64_t fixup_rescues;        /* unclaimed interrupts of this line that irqfixup found a claimer for */
	uint64_t quick_unclaimed_counts; /* unclaimed interrupts the accounting's quick path counted (spurious.c) */
#endif
	/* ---- the runs of the polls (handle.c): every build ---- */
	/* Written by the run's owner without the lock: */
	uint64_t polled_claims;        /* polls of the line that some action claimed */
	uint64_t poll_beat;            /* polls that found work while the line's interrupt was pending */
	/* Under the lock (handle.c, irq_poll_line): */
	uint64_t poll_deferred;        /* polls that left the work to the line's pending interrupt (ran no handler) */
	/* The poll-against-interrupt race, counted where it is decided (irq_poll_line): */
	uint64_t poll_busy;            /* polls that found the line's handlers running (an interrupt's run; on SMP another CPU's) */
	uint64_t poll_raced;           /* interrupts that arrived while a poll ran the handlers: replayed after it (edge) or re-asserted (level) */
	uint64_t defer_delivered;      /* stats.delivered + 1 at the latest such poll (0: none yet) */
	uint64_t poll_clock_ns;        /* irq_poll_line_at's reading, for the run it starts (0: none) */
	/* The same as poll_at_ns for expect_irq's lock-free path, in one 32-bit
	 * word that even a 32-bit CPU reads atomically (irq_poll_word_encode).
	 * Written under the lock. */
	uint32_t poll_at_word;
	uint32_t armed_gen;            /* the generation armed_want_ns was computed at */
	uint32_t want_gen;             /* bumped by every change that may move the wanted poll time */
#ifdef IRQ_POLL_WANT_CHECK
	uint32_t want_changing;        /* lock-free changes begun and not yet bumped (the check's own, host only) */
#endif
	/* The poll timer's current expiry came the standstill window late or more (poll.c, __irq_stall_window_ns; stall.c's marks read it). */
	bool poll_fired_late;
	/* The poll timer's poll runs and reschedules the timer when it is over,
	 * so an expect_irq from its handlers need not (expect.c). */
	bool timer_poll_running;
	bool irqpoll_from_set;         /* irqpoll_from_ns is set */
	bool last_claim_by_poll;       /* whether the latest claimed run was a poll (run's owner) */
	/* irq_chip::irq_pending around the current (or latest) poll's run, by its owner (handle.c): */
	int8_t poll_pending_before;    /* enum irq_pending_answer, sampled before the handlers ran */
	int8_t poll_pending;           /* YES if either sample said so, NO if both did, else UNKNOWN */
	bool poll_pending_sampled;     /* poll_pending_before was just asked by irq_poll_line */
#if IRQ_FLOOD || IRQ_STORM
	/* ---- the flood defence and the claimed-storm defence (flood.c, storm.c; spurious.c counts) ---- */
	bool flood_off;                /* disabled at the chip for flooding; polled instead */
	bool flood_testing;            /* re-enabled to test; the next judged segment decides */
	/*
	 * Storms of claimed interrupts (storm.c): the line is off (flood_off,
	 * flood_testing, the back-off) because its handlers claimed too many,
	 * not because nobody claimed them.
	 */
	bool off_claimed;
	struct irq_flood_segment seg;  /* owner of the run only, see above */
	uint64_t flood_off_since_ns;   /* start of the current time off */
	uint64_t flood_reenable_at_ns; /* the next re-enable test (IRQ_POLICY_FOREVER: none) */
	uint64_t flood_backoff_ns;     /* the next time off (grows on failed tests, shrinks on good segments) */
	struct irq_health_episode storm;  /* the flood (or claimed storm) episode, for health reporting */
	uint32_t floods;               /* flood episodes (storms) since boot; failed tests apart */
	uint32_t failed_tests;         /* re-enable tests that flooded again, this episode */
	uint32_t failed_tests_total;   /* the same since boot */
	/*
	 * Written by the owner of the run only (like seg): the storm window.
	 * The flood defence's quick path keeps it going without the storm
	 * defence, so that a profile with one finds it counted.
	 */
	uint64_t storm_win_start_ns;
	uint32_t storm_win_irqs;       /* interrupts in the window, claimed or not (the bound counts these) */
	uint32_t storm_win_claimed;    /* of them, claimed (for the report) */
#endif
#if IRQ_STORM
	/* ---- the claimed-storm defence (storm.c) ---- */
	uint64_t storm_slowed_ns;      /* when a driver's storm callback last slowed its device (0: never); owner of the run */
	uint32_t claimed_storms;       /* claimed-storm episodes since boot; failed tests apart */
	/*
	 * The CPU-time test of claimed storms (storm.c, storm_cpu_pct):
	 * irq_storm_timed_flow stands in for the line's flow while a window's
	 * runs are timed. storm_cpu_state and the fields the stand-in writes
	 * are atomics (it runs after the run's owner let go of the line).
	 */
	irq_flow_handler_t storm_flow;  /* the line's own flow while timed */
	uint32_t storm_cpu_state;       /* enum irq_storm_cpu_state, this window */
	uint32_t storm_timed_left;      /* runs still to time */
	uint32_t storm_run_min_ns;      /* the shortest timed run so far (UINT32_MAX: none) */
	uint32_t storm_cpu_limit;       /* the window's count at which its runs take storm_cpu_pct of it (0: not known) */
	uint32_t storm_cpu_pct_seen;    /* the share of a CPU the tripping window's runs took (for the message) */
	uint32_t storms_by_cpu;         /* claimed storms judged by the CPU time (since boot) */
#endif
#if IRQ_EXPECT
	/* ---- expecting (expect.c) ---- */
	/*
	 * When the poll timer last fired and found no poll due (a busy line's
	 * verified tokens are then looked at again only a recheck later:
	 * expect.c), and that recheck time for expect_irq's lock-free path in
	 * one 32-bit word as poll_at_word (0: none; a real poll clears it).
	 * Written under the lock.
	 */
	uint64_t verified_check_ns;
	uint32_t recheck_word;
	uint32_t poll_claims_open;     /* tokens set to IRQ_EXP_CLAIM in this run (expect.c settles them) */
#endif
#if IRQ_TICK_LOOK
	/* ---- the tick's look (tick_look.c) ---- */
	/*
	 * The host's tick: when a tick last found one of the line's verified
	 * tokens expecting past its safety delay (0: never; __irq_expect_deadline
	 * makes such a token due), the ticks that looked at the line, and those
	 * that found a token due.
	 */
	uint64_t tick_due_ns;
	uint64_t tick_looks;
	uint64_t tick_polls;
	/* Of the tick's looks, those that put a due safety poll off: the line's CPU had not run (stall_gate). */
	uint64_t tick_stall_waits;
#endif
#if IRQ_WATCH
	/* ---- watching (watch.c) ---- */
	unsigned int watching;         /* actions being watched (their counters are looked at on polls) */
	unsigned int watch_late_open;  /* watched actions with finds awaiting the late verdict (watch.c) */
#endif
};

/* One interrupt line. */
struct irq_desc {
	irq_port_lock_t lock;
	struct irq_data irq_data;        /* what the chip operations see */
	const struct irq_chip *chip;     /* NULL until irq_set_chip_and_handler */
	irq_flow_handler_t handle_irq;   /* flow handler; read and swapped atomically */
	struct irqaction *action;        /* first action; list linked by ->next */
	unsigned int depth;              /* disable nesting (at most IRQ_DEPTH_MAX); 1 while the line has no action */
	irq_cpumask_t affinity;          /* CPUs it may be delivered to (irq_set_affinity); 0 = never set: all */
	/*
	 * Narrow fields, side by side so that they share one word (RAM per
	 * line). Each width holds every value the field can take:
	 */
	uint16_t status;                 /* IRQS_*: IRQS_KNOWN_MASK is 6 bits */
	uint8_t trigger;                 /* IRQ_TYPE_* now programmed: IRQ_TYPE_SENSE_MASK is 4 bits */
	uint8_t nr_actions;              /* length of the action list: at most IRQ_MAX_SHARED (64) */
	/*
	 * Misuse counts that only pace a warning (irq_report_due: the 1st,
	 * 2nd, 4th ... is said): 16 bits, since a wrap after 65,536 misuses
	 * only starts the powers of two again (16 more warnings per 65,536
	 * misuses of one line, still paced).
	 */
	uint16_t unbalanced_enables;     /* enable_irq at depth 0 (rate-limits the warning) */
	uint16_t bad_line_enables;       /* enable_irq on a line without action */
	/* The current run of the handlers is a poll. Set under the lock by the
	 * run's owner, read by it alone without the lock (note_interrupt). */
	bool run_is_poll;
	/*
	 * Interrupts a flow took while another run of the line's handlers was
	 * in progress (IRQS_INPROGRESS, on another CPU or a poll's): left to
	 * that run as IRQS_PENDING (chip.c, __irq_cannot_run and flow_edge).
	 * An edge is replayed by the run's owner, and its replay counts as
	 * any interrupt does; a level interrupt is not (the owner unmasks, and
	 * the line interrupts again only while the device still asserts it),
	 * so once a poll has cleared the device this count is the only trace
	 * that the interrupt came. The verdicts on work polls found (expect.c,
	 * watch.c) read it: a late interrupt left so is not a lost one.
	 * Compared for equality only: 16 bits, in the padding after
	 * run_is_poll (no RAM per line); the wrap hides them from a verdict
	 * only if exactly a multiple of 65,536 came while it waited. Written
	 * by the flows under the line's lock, read under it: a plain field.
	 */
	uint16_t busy_irqs;
	/*
	 * The counters are per CPU: irq_cpu_stats (above), irq_stat_inc(), __irq_stat_sum().
	 * Beside them, the line's unclaimed runs once more as one word
	 * (irq_stat_inc counts both), for the late/lost verdict of expecting
	 * (expect.c), which asks at every completion found by a poll whether
	 * an unclaimed interrupt came since the last one: a change of this
	 * word, where summing every CPU's slot took about 114 guest
	 * instructions per ask (make prof-ata). Only compared for equality,
	 * so its wrap at 2^32 matters only if exactly a multiple of 2^32
	 * unclaimed runs came between two asks. Written by a run's owner or
	 * under the lock (IRQ_STAT_UNHANDLED), which on free_irq's race (an
	 * interrupt that finds no action while the last run still accounts)
	 * may be two CPUs at once: a relaxed atomic add, so neither count is
	 * lost. Relaxed is enough: the verdict reads it under the lock, and
	 * needs no order against anything else (a count that lands just after
	 * the read is seen by the next verdict, as an interrupt coming later).
	 */
	uint32_t unhandled_word;
	/*
	 * The run's clock (__irq_run_now): one reading of irq_port_now_ns()
	 * shared by what the run's owner does (unexpect_irq, expect_irq and
	 * note_interrupt of one interrupt). run_clock_cpu is the owner's
	 * irq_port_cpu_id() + 1 while the run is in progress, 0 otherwise;
	 * run_clock_ns the reading (0: none yet). Written only by the owner,
	 * under the lock at the run's start and end.
	 * run_clock_cpu is also IRQS_INPROGRESS's mirror for the lock-free
	 * readers on other CPUs (expect_irq, unexpect_irq: expect.c), which
	 * may not read desc->status: that is written with plain
	 * read-modify-writes under the lock, and a lock-free read next to
	 * those is a data race. Stored atomically, after IRQS_INPROGRESS is
	 * set and before it is cleared.
	 */
	uint32_t run_clock_cpu;
	uint64_t run_clock_ns;
	/* Replays a pending edge from timer context (after enable_irq, or when
	 * the replay loop hit IRQ_EDGE_REPLAY_LIMIT). Owned by handle.c. */
	struct irq_port_timer resend_timer;
	/* One poll timer per line for the defences (issue 4): when it fires,
	 * the line's actions run through irq_poll_line(). Arm and cancel it
	 * with irq_poll_schedule()/irq_poll_cancel(); the core never arms it. */
	struct irq_port_timer poll_timer;
	/* The defences' state (spurious.c, flood.c, storm.c, expect.c, watch.c, poll.c, health.c). */
	struct irq_defence_line def;
};

/*
 * irq_line_flood_off - whether the flood (or claimed-storm) defence has the
 * line disabled at its chip and polled instead; never in a build without
 * either defence (the field is not there). Lock held, or the run's owner.
 */
static inline bool irq_line_flood_off(const struct irq_desc *desc)
{
#if IRQ_FLOOD || IRQ_STORM
	return desc->def.flood_off;
#else
	(void)desc;
	return false;
#endif
}

/* irq_line_flood_testing - whether the line is re-enabled to test after a flood; never without the defences. Lock held. */
static inline bool irq_line_flood_testing(const struct irq_desc *desc)
{
#if IRQ_FLOOD || IRQ_STORM
	return desc->def.flood_testing;
#else
	(void)desc;
	return false;
#endif
}

/*
 * irq_busy_irqs_before_find - desc->busy_irqs for the snapshot of a find a
 * poll made inside its run: one less when a flow has already left an
 * interrupt to this very run (IRQS_PENDING while IRQS_INPROGRESS, not a
 * disabled line's nor one waiting for its resend). Such an interrupt came
 * during the run that found the work and may be that work's late one;
 * counted in the snapshot, the verdict could not see it and called the
 * find lost (test_loaded, AHCI on its level INTx line beside busy loops:
 * CPU 1 took the line while CPU 0's poll ran, between the handler's find
 * and the claim, which waited for the lock CPU 1's flow held). One less
 * is enough: the verdicts compare for equality (expect.c, watch.c). Lock held.
 */
static inline uint16_t irq_busy_irqs_before_find(const struct irq_desc *desc)
{
	const uint32_t mask = IRQS_INPROGRESS | IRQS_PENDING | IRQS_DISABLED | IRQS_REPLAY;

	return (uint16_t)(desc->busy_irqs - ((desc->status & mask) == (IRQS_INPROGRESS | IRQS_PENDING)));
}

/* irq_line_claims_open - tokens a poll's run set to IRQ_EXP_CLAIM (0 without expecting). The run's owner, lock held. */
static inline uint32_t irq_line_claims_open(const struct irq_desc *desc)
{
#if IRQ_EXPECT
	return desc->def.poll_claims_open;
#else
	(void)desc;
	return 0;
#endif
}

/* irq_line_watching - actions being watched on the line (0 without watching). Any context (relaxed). */
static inline unsigned int irq_line_watching(const struct irq_desc *desc)
{
#if IRQ_WATCH
	return __atomic_load_n(&desc->def.watching, __ATOMIC_RELAXED);
#else
	(void)desc;
	return 0;
#endif
}

/* irq_line_watch_late_open - watched actions with finds awaiting the late verdict (0 without watching). Any context (relaxed). */
static inline unsigned int irq_line_watch_late_open(const struct irq_desc *desc)
{
#if IRQ_WATCH
	return __atomic_load_n(&desc->def.watch_late_open, __ATOMIC_RELAXED);
#else
	(void)desc;
	return 0;
#endif
}

/* irq_stats_reset - every line's counters of every CPU to 0 (irq_core_init). */
void irq_stats_reset(void);

/* __irq_stat_sum - counter @which of @desc over every CPU. Lock held. */
uint64_t __irq_stat_sum(const struct irq_desc *desc, enum irq_stat which);
/* __irq_slot_count - one CPU slot's count of @which (irqdesc.c). Lock held. */
uint64_t __irq_slot_count(const struct irq_cpu_counters *slot, enum irq_stat which);

/*
 * __irq_unhandled_word - the line's unclaimed runs as one 32-bit word (see
 * struct irq_desc): cheap to read, for comparing two readings only. CONTEXT: any.
 */
static inline uint32_t __irq_unhandled_word(const struct irq_desc *desc)
{
	return __atomic_load_n(&desc->unhandled_word, __ATOMIC_RELAXED);
}

/* irq_desc_is_level - whether the line is level-triggered (lock held or stable). */
static inline bool irq_desc_is_level(const struct irq_desc *desc)
{
	return (desc->trigger & IRQ_TYPE_LEVEL_MASK) != 0;
}

/* irq_type_valid - @type is one edge kind (or both edges) or one level kind. */
static inline bool irq_type_valid(unsigned int type)
{
	return type == IRQ_TYPE_EDGE_RISING || type == IRQ_TYPE_EDGE_FALLING ||
	       type == IRQ_TYPE_EDGE_BOTH || type == IRQ_TYPE_LEVEL_HIGH || type == IRQ_TYPE_LEVEL_LOW;
}

/* irq_flags_to_type - the IRQ_TYPE_* that request_irq @flags ask for (0: keep). */
static inline unsigned int irq_flags_to_type(unsigned long flags)
{
	return (unsigned int)((flags & IRQF_TRIGGER_MASK) >> IRQ_TYPE_FROM_IRQF_SHIFT);
}

/* The action list is walked without the lock, so links are published in order. */
static inline struct irqaction *irq_action_load(struct irqaction *const *link)
{
	return __atomic_load_n(link, __ATOMIC_ACQUIRE);
}

static inline void irq_action_store(struct irqaction **link, struct irqaction *action)
{
	__atomic_store_n(link, action, __ATOMIC_RELEASE);
}

/*
 * irq_report_due - rate limit for repeated warnings: true for the 1st, 2nd,
 * 4th, 8th ... occurrence (@count is the number of occurrences so far,
 * including this one).
 */
static inline bool irq_report_due(uint64_t count)
{
	return count != 0 && (count & (count - 1)) == 0;
}

/* irq_report_next - the occurrence after @count (a due one) whose message comes next: 2 * @count. */
static inline uint64_t irq_report_next(uint64_t count)
{
	return count ? 2 * count : 1;
}

/* What irq_chip::irq_pending said (desc->def.poll_pending_*). */
enum irq_pending_answer {
	IRQ_PENDING_UNKNOWN = -1,  /* no such operation, or the chip could not tell */
	IRQ_PENDING_NO = 0,        /* the line's interrupt is not waiting for the CPU */
	IRQ_PENDING_YES = 1,       /* raised towards the CPU and not yet taken */
};

/*
 * __irq_poll_pending_counts - whether what a poll of the line finds now may
 * be judged by the line's pending interrupt (desc->def.poll_pending YES,
 * one action on the line). Run owner or lock held.
 */
static inline bool __irq_poll_pending_counts(const struct irq_desc *desc, int8_t answer)
{
	/* On a shared line the pending request may be another device's: no verdict from it. */
	return answer == IRQ_PENDING_YES && desc->nr_actions == 1;
}

/*
 * __irq_poll_left_irq_counts - whether a CPU took the line's level
 * interrupt during the poll's run that just ended and left it to the run
 * (IRQS_PENDING, chip.c): the line delivered while the poll found the
 * work, the same evidence as the chip's "pending" answer, and more often
 * there (QEMU handles a stalled main loop's device completion and CPU 0's
 * poll timer at once: test_loaded's AHCI on INTx beside busy loops had 31
 * finds so in one read, each then judged unsure, and the token distrusted).
 * An edge left so is replayed, and its replay is judged (expect.c). Not on
 * a shared line (another device's interrupt), nor a disabled line's kept
 * request. The run's owner, lock held, after IRQS_INPROGRESS is cleared
 * and before the pending request is let go (handle.c).
 */
static inline bool __irq_poll_left_irq_counts(const struct irq_desc *desc)
{
	return irq_desc_is_level(desc) && desc->nr_actions == 1 &&
	       (desc->status & (IRQS_PENDING | IRQS_DISABLED | IRQS_REPLAY)) == IRQS_PENDING;
}

/*
 * __irq_chip_pending (chip_ops.h, inline) asks the chip whether the line's
 * interrupt is on its way (irq_chip::irq_pending; its contract in
 * irqchip.h): an enum irq_pending_answer. CONTEXT: the owner of a poll's run.
 */

/* Health causes are the IRQ_HEALTH_* bits of <irq/stats.h>. */

/*
 * The poll timer's expiry as one atomic 32-bit word: bit 0 set while armed,
 * bits 1-31 the expiry in units of 2^IRQ_POLL_WORD_SHIFT ns (about 1 us),
 * wrapping every 36 minutes. Comparisons use the wrapped difference, which
 * is right for times less than 18 minutes apart; poll times are seconds
 * ahead at most.
 */
#define IRQ_POLL_WORD_SHIFT 10
#define IRQ_POLL_WORD_ARMED 1u

static inline uint32_t irq_poll_word_encode(uint64_t at_ns)
{
	return (uint32_t)(at_ns >> IRQ_POLL_WORD_SHIFT) << 1 | IRQ_POLL_WORD_ARMED;
}

/* Whether @word says "armed, and fires by @deadline_ns" (up to one unit late). */
static inline bool irq_poll_word_fires_by(uint32_t word, uint64_t deadline_ns)
{
	uint32_t deadline = irq_poll_word_encode(deadline_ns);

	return (word & IRQ_POLL_WORD_ARMED) && (int32_t)(word - deadline) <= 0;
}

/* ---- policy.c ------------------------------------------------------------ */

/*
 * irq_defences_unstarted - whether irq_defences_start() has not run since
 * irq_core_init(); if so, warns (rate-limited) that @caller on line @irq
 * is not defended and names the fix. CONTEXT: any, no desc lock held.
 */
bool irq_defences_unstarted(unsigned int irq, const char *caller);

/* Milliseconds per second, for "12.345 s" in messages. */
#define IRQ_MS_PER_S 1000ull
/* Nanoseconds per millisecond and per second (policy.h's IRQ_POLICY_MS and _S; this header is below it). */
#define IRQ_NS_PER_MS 1000000ull
#define IRQ_NS_PER_S  1000000000ull

/* Whole seconds and the millisecond remainder of @ns, for "%llu.%03llu s". */
static inline unsigned long long irq_secs(uint64_t ns)
{
	return (unsigned long long)(ns / IRQ_NS_PER_S);
}

static inline unsigned long long irq_msecs(uint64_t ns)
{
	return (unsigned long long)(ns / IRQ_NS_PER_MS % IRQ_MS_PER_S);
}

/* Freestanding string equality (no libc in the core). */
static inline bool irq_str_equal(const char *a, const char *b)
{
	size_t i;

	for (i = 0; a[i] && a[i] == b[i]; i++)
		;
	return a[i] == b[i];
}

/* Calls of irq_defences_unstarted so far (rate-limits its warning; tunables.c). */
extern uint32_t irq_defences_unstarted_calls;

/* irq_defences_core_init - defences stopped, token pool empty (from irq_core_init). */
void irq_defences_core_init(void);

/* ---- the poll-time generation (poll.c's cache; every layer bumps it) ------ */

/*
 * The line's poll-time generation. The poll timer remembers what it was
 * armed for and the generation it was computed at; at expiry, an unchanged
 * generation means nothing that __irq_poll_want looks at has changed, so
 * the remembered time is used instead of walking every defence again (the
 * expiry of a line whose interrupts are lost, where nothing happens between
 * two polls). Everything outside the poll timer's own path that changes the
 * defences' state calls __irq_poll_want_moved: expect_irq and unexpect_irq
 * (also their lock-free paths), every run of the handlers and
 * note_interrupt, the watch and health updates, irqfixup's claims, the
 * flood defence's re-enable, a profile change (__irq_switches.gen). Host
 * builds with IRQ_POLL_WANT_CHECK compute the time anyway and trap when
 * the two differ, so the unit tests prove no change was missed.
 */
static inline void __irq_poll_want_moved(struct irq_desc *desc)
{
	__atomic_add_fetch(&desc->def.want_gen, 1, __ATOMIC_SEQ_CST);
}

/*
 * Around a lock-free change of what __irq_poll_want looks at (expect_irq,
 * unexpect_irq): from before the first change to after the bump. Only host
 * builds with IRQ_POLL_WANT_CHECK count them: there the check at the poll
 * timer's expiry, which recomputes the wish under the lock while another
 * CPU may be between its change and its bump, must not call that a missed
 * bump. Nothing in a real build.
 */
static inline void __irq_poll_want_change_begin(struct irq_desc *desc)
{
#ifdef IRQ_POLL_WANT_CHECK
	__atomic_add_fetch(&desc->def.want_changing, 1, __ATOMIC_SEQ_CST);
#else
	(void)desc;
#endif
}

static inline void __irq_poll_want_change_end(struct irq_desc *desc)
{
#ifdef IRQ_POLL_WANT_CHECK
	__atomic_sub_fetch(&desc->def.want_changing, 1, __ATOMIC_SEQ_CST);
#else
	(void)desc;
#endif
}

/* irq_log_ms - @ns as milliseconds for messages (whole ms, rounded down). */
static inline unsigned long long irq_log_ms(uint64_t ns)
{
	return (unsigned long long)(ns / IRQ_NS_PER_MS);
}

/* irq_action_find - the action of @desc registered with @dev_id, or NULL. Lock held. */
static inline struct irqaction *__irq_action_find(struct irq_desc *desc, void *dev_id)
{
	struct irqaction *a = desc->action;
	unsigned int walked;

	for (walked = 0; a && walked < IRQ_MAX_SHARED; a = a->next, walked++)
		if (a->dev_id == dev_id)
			return a;
	return NULL;
}

/* ---- stats.c ------------------------------------------------------------- */

/* irq_flow_name - "edge", "level", "fasteoi", "custom" or "none". */
const char *irq_flow_name(irq_flow_handler_t flow);

#endif /* IRQ_INTERNALS_H */
