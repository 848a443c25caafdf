/*
 * internals.h - PRIVATE to kernel/irq/: nothing outside this directory may
 * include it (host unit tests of kernel/irq excepted). Drivers use
 * <irq/interrupt.h>, controllers <irq/irqchip.h>, the shell <irq/stats.h>.
 *
 * The line descriptor, the status flags, and the functions the parts of the
 * core use to talk to each other:
 *   irqdesc.c  descriptor table, chip/flow/trigger setup, action pool
 *   manage.c   driver API: request/free/enable/disable/synchronize
 *   chip.c     flow handlers (edge, level, fasteoi) and chip-call helpers
 *   handle.c   running the handlers, replay, polls, generic_handle_irq
 *   spurious.c note_interrupt: accounting, the design essay of the three
 *              defences, and the flood (spurious interrupt) defence
 *   expect.c   IRQ expecting (expect tokens)
 *   watch.c    IRQ watching
 *   poll.c     the per-line poll timer: when to poll, irqfixup, irqpoll
 *   policy.c   the profiles' tunables and the boot switches
 *   health.c   announcements, reminders, the "IRQ health" summary
 *   stats.c    statistics for the shell
 *
 * Locking: each line has one lock, desc->lock, taken with interrupts
 * disabled. It protects every field of the descriptor and the action list.
 * A function named __something expects the caller to hold it. Handlers run
 * with the lock dropped; IRQS_INPROGRESS (set and cleared under the lock)
 * is what keeps a line's handlers from running twice at once, and whoever
 * set it "owns the run" until it clears it.
 *
 * Layer 0, the base's private header: may use layer 0 only; what needs a
 * layer above is in core.h (layer 1) and irq_sched.h (layer 2)
 * (docs/irq-layers.md).
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
	 * A claimed interrupt's quick path (spurious.c, irq_flood_account):
	 * set by the full accounting, so that until one of these is reached a
	 * claimed interrupt only counts. Zero (as in every fresh segment):
	 * the next interrupt takes the full path.
	 */
	uint64_t quick_until_ns;     /* the end of this segment by time (UINT64_MAX: none) */
	uint64_t quick_storm_until_ns; /* the end of the storm window (UINT64_MAX: no storm defence) */
	uint32_t quick_window_ns;    /* storm_window_ns, for starting the next window quickly (0: too long, full path) */
	uint32_t quick_samples;      /* the sample count at which the segment is judged */
	uint32_t quick_claimed;      /* the storm window's count at which the full path looks (UINT32_MAX: no storms) */
	uint32_t quick_claimed_fresh; /* the same for a window the quick path starts (the CPU-time test not begun) */
	uint32_t quick_gen;          /* __irq_switches.gen they were worked out at (a profile change redoes them) */
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
	/* The poll timer's current expiry came stall_ns late or more (poll.c; stall.c's marks read it). */
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
	/* ---- the flood defence and the claimed-storm defence (spurious.c) ---- */
	bool flood_off;                /* disabled at the chip for flooding; polled instead */
	bool flood_testing;            /* re-enabled to test; the next judged segment decides */
	/*
	 * Storms of claimed interrupts (spurious.c): the line is off (flood_off,
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
	/* ---- the claimed-storm defence (spurious.c) ---- */
	uint64_t storm_slowed_ns;      /* when a driver's storm callback last slowed its device (0: never); owner of the run */
	uint32_t claimed_storms;       /* claimed-storm episodes since boot; failed tests apart */
	/*
	 * The CPU-time test of claimed storms (spurious.c, storm_cpu_pct):
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
	/* The defences' state (spurious.c, expect.c, watch.c, poll.c, health.c). */
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

/* ---- irqdesc.c ---------------------------------------------------------- */

/* irq_flow_fits_chip - whether @chip has the operations @flow calls. */
bool irq_flow_fits_chip(const struct irq_chip *chip, irq_flow_handler_t flow);

/* irq_action_alloc - a zeroed action from the pool, or NULL. CONTEXT: no desc lock held. */
struct irqaction *irq_action_alloc(void);

/* irq_action_release - give a pooled action back. CONTEXT: no desc lock held. */
void irq_action_release(struct irqaction *action);

/*
 * __irq_set_type - program trigger @type at the chip (even if it is the type
 * recorded already) and record it. A chip without set_type accepts only the
 * type it has. RETURNS 0 or the chip's negative error (-EINVAL when the
 * chip cannot change the type). Logs nothing; the caller knows who asked.
 */
int __irq_set_type(struct irq_desc *desc, unsigned int type);

/* ---- chip.c ------------------------------------------------------------- */

/* Chip calls that keep IRQS_MASKED true to the hardware. Lock held. */
void __irq_mask(struct irq_desc *desc);
void __irq_unmask(struct irq_desc *desc);
void __irq_ack(struct irq_desc *desc);
void __irq_mask_ack(struct irq_desc *desc);
void __irq_eoi(struct irq_desc *desc);

/*
 * irq_trace_run_flow - generic_handle_irq's path when tracing is on
 * (trace.h): irq_entry, the traced copy of @flow, irq_exit. CONTEXT:
 * interrupt context, as a flow handler.
 */
void irq_trace_run_flow(struct irq_desc *desc, irq_flow_handler_t flow);

/* irq_trace_line_selected - whether the trace's filter lets line @irq through (trace.c). */
bool irq_trace_line_selected(unsigned int irq);

/* What irq_chip::irq_pending said (desc->def.poll_pending_*). */
enum irq_pending_answer {
	IRQ_PENDING_UNKNOWN = -1,  /* no such operation, or the chip could not tell */
	IRQ_PENDING_NO = 0,        /* the line's interrupt is not waiting for the CPU */
	IRQ_PENDING_YES = 1,       /* raised towards the CPU and not yet taken */
};

/*
 * __irq_chip_pending (chip_ops.h, inline) asks the chip whether the line's
 * interrupt is on its way (irq_chip::irq_pending; its contract in
 * irqchip.h): an enum irq_pending_answer. CONTEXT: the owner of a poll's run.
 */

/* ---- handle.c ----------------------------------------------------------- */

/*
 * __handle_irq_event - run the line's actions once: set IRQS_INPROGRESS,
 * drop the lock (restoring *@flags), call every action, call
 * note_interrupt(), retake the lock (updating *@flags), clear
 * IRQS_INPROGRESS. An interrupt run (not IRQS_POLLING) consumes
 * IRQS_PENDING. CONTEXT: lock held, IRQS_INPROGRESS clear, interrupts
 * disabled. RETURNS IRQ_HANDLED when any action claimed it.
 */
irqreturn_t __handle_irq_event(struct irq_desc *desc, unsigned long *flags);
/* The same with trace events (the copy traced interrupts and polls run, trace.h). */
irqreturn_t __handle_irq_event_traced(struct irq_desc *desc, unsigned long *flags);

/*
 * __irq_finish_pending - after a run of the handlers: deal with interrupts
 * that came meanwhile (IRQS_PENDING). An edge is replayed by running the
 * handlers again (at most IRQ_EDGE_REPLAY_LIMIT times, then the resend
 * timer takes over); for a level line the pending mark is dropped, because
 * the line stays asserted and unmasking re-delivers it. Finally unmasks the
 * line if it was masked and is enabled. A disabled line keeps its pending
 * edge for enable_irq. CONTEXT: lock held, IRQS_INPROGRESS clear.
 */
void __irq_finish_pending(struct irq_desc *desc, unsigned long *flags);
void __irq_finish_pending_traced(struct irq_desc *desc, unsigned long *flags);

/*
 * __irq_enable_line - the line's depth just reached 0 (enable_irq, or the
 * first request): clear IRQS_DISABLED, unmask, and schedule the replay of
 * an edge that came while it was off. CONTEXT: lock held, line has actions.
 */
void __irq_enable_line(struct irq_desc *desc);

/* __irq_schedule_resend - replay the pending edge soon, from timer context. Lock held. */
void __irq_schedule_resend(struct irq_desc *desc);

/*
 * __irq_account_no_action - an interrupt found no action: count it as
 * unhandled and spurious and warn (rate-limited). The caller has masked
 * the line. CONTEXT: lock held, IRQS_INPROGRESS clear.
 */
void __irq_account_no_action(struct irq_desc *desc);

/*
 * irq_poll_line - run the actions of @desc exactly as an interrupt would
 * (same exclusion, same accounting through note_interrupt, with
 * IRQS_POLLING set); the chip is only asked irq_pending. An interrupt that
 * arrives during the poll is held pending and replayed right after it.
 * CONTEXT: interrupt or timer context (interrupts disabled), lock not held.
 * RETURNS IRQ_HANDLED or IRQ_NONE when the actions ran; -EBUSY when the
 * handlers were already running (the poll is skipped); -ENOENT when the
 * line has no action; -EAGAIN when it is disabled; -EINPROGRESS when the
 * chip says the line's interrupt is pending (irq_chip::irq_pending) and the
 * poll left the work to it, running no handler (once per delivery).
 */
int irq_poll_line(struct irq_desc *desc);

/* irq_poll_line_traced - irq_poll_line between poll_start (@why: IRQ_TRACE_WHY_*) and poll_end events. */
int irq_poll_line_traced(struct irq_desc *desc, unsigned int why);

/*
 * irq_poll_line_at - irq_poll_line_traced by a caller that has just read
 * the clock (@now_ns, nonzero): the run's clock (__irq_run_now) starts from
 * that reading instead of none, so the run's handlers read no clock for
 * what needs the time of the poll (unexpect_irq of a completion it found).
 * With @locked (not NULL) the caller holds the line's lock, its
 * irq_port_lock_irqsave flags in *@locked, and holds it again on return
 * (the run in between lets go of it as any run does): for the poll timer,
 * whose bookkeeping before and after the poll needs the lock anyway, one
 * lock round per poll instead of three.
 */
int irq_poll_line_at(struct irq_desc *desc, unsigned int why, uint64_t now_ns, unsigned long *locked);

/*
 * __irq_run_now - the time, for the owner of the line's current run the
 * run's clock: read once and shared by unexpect_irq, expect_irq and
 * note_interrupt of that run, so an interrupt that completes one command
 * and starts the next reads the clock once, not three times. It is at most the run's length old (the
 * run's handlers, with interrupts off); callers that need the time of
 * this instant (expect_irq's start) use __irq_run_now_fresh.
 *
 * Ownership without the lock: run_clock_cpu is this CPU's number + 1 only
 * while this CPU owns the run (set under the lock with IRQS_INPROGRESS,
 * cleared by the owner before it lets go), so another CPU never takes it
 * for its own: it sees 0 or the owner's number, never its own stale one,
 * since it cleared that itself after its last run. A nested interrupt on
 * the owner's CPU (ports with priority nesting) may read the clock of the
 * run it interrupted, earlier than now by at most that run's length.
 * CONTEXT: any.
 */
static inline bool __irq_run_clock_mine(const struct irq_desc *desc)
{
	return __atomic_load_n(&desc->run_clock_cpu, __ATOMIC_RELAXED) == irq_port_cpu_id() + 1;
}

static inline uint64_t __irq_run_now(struct irq_desc *desc)
{
	uint64_t now;

	if (!__irq_run_clock_mine(desc))
		return irq_port_now_ns();
	if (desc->run_clock_ns)
		return desc->run_clock_ns;
	now = irq_port_now_ns();
	desc->run_clock_ns = now;
	return now;
}

/*
 * __irq_run_clock_owner - __irq_run_now for a caller that owns the run by
 * contract (note_interrupt, the end of the run in handle.c): no ownership
 * test. CONTEXT: the owner of the run.
 */
static inline uint64_t __irq_run_clock_owner(struct irq_desc *desc)
{
	if (!desc->run_clock_ns)
		desc->run_clock_ns = irq_port_now_ns();
	return desc->run_clock_ns;
}

/* __irq_run_now_fresh - a new reading, kept as the run's clock when this CPU owns the run. CONTEXT: any. */
static inline uint64_t __irq_run_now_fresh(struct irq_desc *desc)
{
	uint64_t now = irq_port_now_ns();

	if (__irq_run_clock_mine(desc))
		desc->run_clock_ns = now;
	return now;
}

/* irq_poll_schedule - arm the line's poll timer to poll it at @at_ns. CONTEXT: any. */
void irq_poll_schedule(struct irq_desc *desc, uint64_t at_ns);

/* irq_poll_cancel - stop the poll timer. CONTEXT: any. RETURNS whether it was pending. */
bool irq_poll_cancel(struct irq_desc *desc);

/*
 * irq_wait_idle - wait, spinning with the lock dropped, until the line's
 * handlers do not run (IRQS_INPROGRESS clear). Panics after
 * IRQ_SYNC_TIMEOUT_NS, naming @caller. CONTEXT: thread context, lock not held.
 */
void irq_wait_idle(struct irq_desc *desc, const char *caller);

/*
 * irq_desc_timers_init - set up the line's resend timer and its poll timer,
 * which calls @poll_fn (the scheduler's, core.h's hooks). irq_core_init.
 */
void irq_desc_timers_init(struct irq_desc *desc, void (*poll_fn)(void *desc));

/* ---- spurious.c ---------------------------------------------------------- */

/*
 * note_interrupt - called after every run of a line's handlers with their
 * combined result (IRQ_HANDLED if any action returned it): interrupts,
 * replays and polls (desc->run_is_poll) alike. Does the line's accounting;
 * the defences of issue 4 plug in here.
 * CONTEXT: the owner of the run: IRQS_INPROGRESS set by the caller, the
 * lock NOT held (take it to change the line's state), interrupts disabled.
 */
void note_interrupt(struct irq_desc *desc, irqreturn_t ret);

/* Expect token state bits (struct irq_expect::state, changed atomically). */
#define IRQ_EXP_LIVE       0x0001u  /* bound to an action; cleared when it dies at free_irq */
#define IRQ_EXP_EXPECTING  0x0002u  /* between expect_irq and unexpect_irq */
#define IRQ_EXP_VERIFIED   0x0004u  /* deliveries by interrupt proved reliable: slow polling */
#define IRQ_EXP_QUICK      0x0008u  /* tejun2010 quick mode: poll at poll_quick_ns */
#define IRQ_EXP_USED       0x0010u  /* expected since the last poll (keeps the slow timer alive) */
#define IRQ_EXP_DISTRUSTED 0x0020u  /* lost interrupts seen and not verified since: reported */
#define IRQ_EXP_FIRST_POLL 0x0040u  /* the first poll of this expect has run */
#define IRQ_EXP_CLAIM      0x0080u  /* a completion found by polling awaits its verdict (late or lost) */

/* Watch state bits (struct irq_watch::flags, under the line's lock). */
#define IRQ_WAT_WATCHING 0x0001u  /* polled (slowly) to check delivery */
#define IRQ_WAT_POLLED   0x0002u  /* a poll found work the interrupt should have delivered */
#define IRQ_WAT_WARY     0x0004u  /* a middling period: the longer wary period applies */
#define IRQ_WAT_BAD      0x0008u  /* a bad period: watched (and polled) for good */
#define IRQ_WAT_KEEP     0x0010u  /* watch_irq_keep: a period that would end watching starts the next */

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

/* ---- trace_ring.c: the filter's state, set by trace.c, read by the recording ---- */
extern uint32_t irq_trace_classes;               /* IRQ_TCLASS_* bits recorded */
extern uint8_t irq_trace_line_sel[IRQ_NR_LINES]; /* 1 = record this line's events */
extern uint32_t irq_trace_bad_cpu;               /* events from a CPU number >= IRQ_NR_CPUS */

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

/* ---- spurious.c: the flood defence ---------------------------------------- */

/*
 * __irq_flood_poll_due - the poll timer fired on a line at @now: re-enable
 * a line that was off for flooding when its back-off is over, end a
 * passed re-enable test. Either is due when its time is at most @due_by:
 * the timer is armed early by its measured lateness (poll.c), and an
 * expiry that came early for a re-enable it did not take would be due
 * again at once, at the same instant, for as long as the lateness lasts.
 * Lock held.
 */
void __irq_flood_poll_due(struct irq_desc *desc, uint64_t now, uint64_t due_by);

/* __irq_flood_deadline - when the flood defence wants the line polled (0: no need). Lock held. */
uint64_t __irq_flood_deadline(const struct irq_desc *desc, uint64_t now);

/* ---- expect.c ------------------------------------------------------------ */

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

#if IRQ_EXPECT
/* __irq_expect_deadline - earliest poll the expect tokens of @action want (0: none). Lock held. */
uint64_t __irq_expect_deadline(struct irq_desc *desc, struct irqaction *action, uint64_t now);

/*
 * __irq_expect_mark_polled - the poll timer polled the line from @poll_ns:
 * tokens expecting since before then had their first poll (strictly before: one that began at
 * that very instant is taken to have begun inside the poll) (those whose
 * expect_irq came during the poll, from the handler, had none). Lock held.
 */
void __irq_expect_mark_polled(struct irqaction *action, uint64_t poll_ns);

/* __irq_expect_any_verified - whether any token of the line's actions is verified. Lock held. */
bool __irq_expect_any_verified(struct irq_desc *desc);

/* __irq_expect_age - after rescheduling at a poll: tokens not expecting lose their "in use" mark. Lock held. */
void __irq_expect_age(struct irq_desc *desc, struct irqaction *action);

/*
 * __irq_expect_tick_look - the tick's look at the tokens of @action
 * (tick_look.c): sets *@keep if a verified token expected since the last
 * look or expects now (the line stays in the tick's set), ages the others
 * (__irq_expect_age), RETURNS whether a verified token has been expecting
 * for its safety delay or longer at @now. Lock held.
 */
bool __irq_expect_tick_look(struct irq_desc *desc, struct irqaction *action, uint64_t now, bool *keep);

/* __irq_expect_tick_keeps - whether a verified token of the line expects or expected since the last look. Lock held. */
bool __irq_expect_tick_keeps(struct irq_desc *desc);

/* irq_expect_pool_init - every pooled token free again (irq_core_init). */
void irq_expect_pool_init(void);

/*
 * __irq_expect_poll_done - a poll's run of the handlers is over and set
 * tokens to IRQ_EXP_CLAIM (desc->def.poll_claims_open): judge them late at
 * once if the line's interrupt was pending (desc->def.poll_pending), else
 * leave them to the delayed verdict. Lock held.
 */
void __irq_expect_poll_done(struct irq_desc *desc, uint64_t now);

/* __irq_expect_kill_all - the action leaves (free_irq): its tokens die. Lock held. */
void __irq_expect_kill_all(struct irq_desc *desc, struct irqaction *action);
#else
/* Expecting left out (IRQ_EXPECT 0): no action has tokens (expect.c). */
static inline uint64_t __irq_expect_deadline(struct irq_desc *desc, struct irqaction *action, uint64_t now)
{
	(void)desc;
	(void)action;
	(void)now;
	return 0;
}
static inline void __irq_expect_mark_polled(struct irqaction *action, uint64_t poll_ns)
{
	(void)action;
	(void)poll_ns;
}
static inline bool __irq_expect_any_verified(struct irq_desc *desc)
{
	(void)desc;
	return false;
}
static inline void __irq_expect_age(struct irq_desc *desc, struct irqaction *action)
{
	(void)desc;
	(void)action;
}
static inline void irq_expect_pool_init(void)
{
}
static inline void __irq_expect_poll_done(struct irq_desc *desc, uint64_t now)
{
	(void)desc;
	(void)now;
}
static inline void __irq_expect_kill_all(struct irq_desc *desc, struct irqaction *action)
{
	(void)desc;
	(void)action;
}
#endif /* IRQ_EXPECT */

/* ---- watch.c ------------------------------------------------------------- */

#if IRQ_WATCH

/*
 * __irq_watch_update - a poll of a line with watched actions ran: count the
 * actions' deliveries since the last look, judge finished periods. Called
 * by note_interrupt (the run's owner, so the counters are stable) with the
 * lock held.
 */
void __irq_watch_update(struct irq_desc *desc, uint64_t now);

/* __irq_watch_deadline - when watching @action wants the line polled (0: none). Lock held. */
uint64_t __irq_watch_deadline(const struct irq_desc *desc, const struct irqaction *action, uint64_t now);

/* __irq_watch_stop - the action leaves: stop watching it. Lock held. */
void __irq_watch_stop(struct irq_desc *desc, struct irqaction *action);

/*
 * __irq_watch_unclaimed - an interrupt of the line was claimed by no action
 * while watched actions have poll finds awaiting their verdict
 * (desc->def.watch_late_open): the interrupt was late, not lost; those
 * deliveries count as by interrupt. Called by note_interrupt with the lock
 * held (after stats.unhandled was counted).
 */
void __irq_watch_unclaimed(struct irq_desc *desc, uint64_t now);
#else
/* Watching left out (IRQ_WATCH 0): no action is ever watched (watch.c). */
static inline void __irq_watch_update(struct irq_desc *desc, uint64_t now)
{
	(void)desc;
	(void)now;
}
static inline uint64_t __irq_watch_deadline(const struct irq_desc *desc, const struct irqaction *action, uint64_t now)
{
	(void)desc;
	(void)action;
	(void)now;
	return 0;
}
static inline void __irq_watch_stop(struct irq_desc *desc, struct irqaction *action)
{
	(void)desc;
	(void)action;
}
static inline void __irq_watch_unclaimed(struct irq_desc *desc, uint64_t now)
{
	(void)desc;
	(void)now;
}
#endif /* IRQ_WATCH */

/* ---- stall.c: evidence that a CPU ran ------------------------------------ */

/*
 * __irq_line_cpu - the CPU line @desc's interrupts go to: the lowest CPU of
 * its affinity mask, CPU 0 while none was set (arch/x86's chips deliver
 * to the first CPU of the mask; irqchip.h). Any context (the mask read
 * relaxed: expect_irq asks without the lock).
 */
unsigned int __irq_line_cpu(const struct irq_desc *desc);

/* __irq_cpu_mark - where the line's CPU stands at @now (a poll found work, a safety poll came due). Lock held. */
void __irq_cpu_mark(struct irq_desc *desc, struct irq_cpu_mark *m, uint64_t now);

/*
 * __irq_cpu_ran - whether the CPU of @m has run since @m enough for a lost
 * verdict: finished stall_ran_irqs interrupts (1 asked on it of a mark
 * taken on it; one more after a late poll). True in profiles without the
 * test. Lock held (the ordering: stall.c).
 */
bool __irq_cpu_ran(const struct irq_cpu_mark *m);

/*
 * __irq_cpu_stalled - whether the CPU of @m was not running: looks at it
 * since @m saw it finish no interrupt for stall_ns (from @m, or from the
 * first look after its count last moved: each call is such a look and
 * keeps what it saw in @m), or @m was taken by a poll timer that fired
 * that late. Lock held.
 */
bool __irq_cpu_stalled(struct irq_cpu_mark *m, uint64_t now);

/* __irq_cpu_finished - how many interrupts the CPU of @m has finished since @m. Lock held. */
uint32_t __irq_cpu_finished(const struct irq_cpu_mark *m);

/* ---- poll.c -------------------------------------------------------------- */

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
/* IRQ_POLL_COUNT - count one of the scheduler's host-only evidence counters (struct irq_defence_line). */
#ifdef IRQ_POLL_WANT_CHECK
#define IRQ_POLL_COUNT(field) ((field)++)
#else
#define IRQ_POLL_COUNT(field) ((void)0)
#endif

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

/* irq_poll_timer_expired - the line's poll timer fired (irq_sched_hooks' callback). CONTEXT: timer context. */
void irq_poll_timer_expired(struct irq_desc *desc);

/*
 * __irq_poll_reschedule - (re)arm the line's poll timer for the earliest
 * time any defence wants it polled, or cancel it when none does. Lock held.
 */
void __irq_poll_reschedule(struct irq_desc *desc, uint64_t now);

/* __irq_poll_gap - the gap of the next fast poll of a broken line (adaptive or fixed). Lock held. */
uint64_t __irq_poll_gap(const struct irq_desc *desc, uint64_t base_ns);

/*
 * irq_fixup_try_others - irqfixup: an interrupt of @desc was unclaimed;
 * poll every other line with shared actions. CONTEXT: the owner of @desc's
 * run (note_interrupt), no lock held. RETURNS whether some handler claimed work.
 */
bool irq_fixup_try_others(struct irq_desc *desc);

/* Hooks of manage.c (through irq_sched_hooks): an action joined / is leaving the line. Lock held. */
void __irq_defences_action_added(struct irq_desc *desc, struct irqaction *action);
void __irq_defences_action_removed(struct irq_desc *desc, struct irqaction *action);

/* __irq_polls_allowed - whether a poll may run the handlers: enabled, or off only for flooding. Lock held. */
static inline bool __irq_polls_allowed(const struct irq_desc *desc)
{
	return !(desc->status & IRQS_DISABLED) || (irq_line_flood_off(desc) && desc->depth == 0);
}

/* ---- episode.c (the episodes) and health.c ------------------------------ */

/*
 * __irq_health_begin / __irq_health_end - an episode of running on polling
 * starts (announced at once, naming the line, the driver and @why) or ends
 * (recovery announced). @action is NULL for the line itself (storms).
 * Lock held.
 */
void __irq_health_begin_say(struct irq_desc *desc, struct irqaction *action, struct irq_health_episode *ep,
			    unsigned int cause, const char *why, uint64_t now);
void __irq_health_end_say(struct irq_desc *desc, struct irqaction *action, struct irq_health_episode *ep,
			  const char *how, uint64_t now);
/* The sentences go through IRQ_TEXT: a terse build (IRQ_HEALTH_TEXT 0) has none of them. */
#define __irq_health_begin(desc, action, ep, cause, why, now) \
	__irq_health_begin_say(desc, action, ep, cause, IRQ_TEXT(why), now)
#define __irq_health_end(desc, action, ep, how, now) __irq_health_end_say(desc, action, ep, IRQ_TEXT(how), now)

/*
 * __irq_health_remind - from the poll timer: remind of the line's episodes
 * at the policy's low rate, and end a misroute episode whose evidence is
 * older than health_misroute_window_ns. Lock held.
 */
void __irq_health_remind(struct irq_desc *desc, uint64_t now);

/*
 * __irq_health_fixup_claim - irqfixup: this line's handlers claimed an
 * unclaimed interrupt of line @from_irq. Counts it, starts (announces) the
 * misroute episode or extends it, reschedules the poll timer for its end.
 * Lock of @desc held.
 */
void __irq_health_fixup_claim(struct irq_desc *desc, unsigned int from_irq, uint64_t now);

/* __irq_health_deadline - when health reporting wants the line looked at (a misroute's end; 0: never). Lock held. */
uint64_t __irq_health_deadline(const struct irq_desc *desc);

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

/* irq_storm_flow_of - @flow, or the flow it stands in for while the line's runs are timed (spurious.c). */
irq_flow_handler_t irq_storm_flow_of(const struct irq_desc *desc, irq_flow_handler_t flow);

/* ---- stats.c ------------------------------------------------------------- */

/* irq_flow_name - "edge", "level", "fasteoi", "custom" or "none". */
const char *irq_flow_name(irq_flow_handler_t flow);

#endif /* IRQ_INTERNALS_H */
