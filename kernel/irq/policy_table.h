/*
 * policy_table.h - the table of policy.h: the tunables of kernel/irq's
 * defences (IRQ_POLICY_TUNABLES, one column per profile; what each row
 * means is said in the table and in policy.h's opening comment), the
 * profiles' and the switches' types, and the declarations of their data,
 * which tunables.c defines. policy.h includes it and adds the inline
 * readers of the switches (irq_policy(), irq_defences_active() ...); a
 * porter includes policy.h. Split out so that tunables.c, which defines
 * what those readers read, includes no header that reads it (no circle of
 * files: docs/irq-layers.md).
 *
 * Layer 0, the base: a public header; uses only irq_config.h and irq_errno.h.
 */
#ifndef IRQ_POLICY_TABLE_H
#define IRQ_POLICY_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "irq_config.h"
#include "irq_errno.h"

/* Units of the table (nanoseconds of irq_port_now_ns). */
#define IRQ_POLICY_US 1000ull
#define IRQ_POLICY_MS 1000000ull
#define IRQ_POLICY_S  1000000000ull
/* "Never": a back-off that never ends (the line stays off for good). */
#define IRQ_POLICY_FOREVER UINT64_MAX
/* Ratios in the spurious rows are parts per million of the segment's samples. */
#define IRQ_POLICY_PPM 1000000ull

/*
 * IRQ_POLICY_TUNABLES - the table. One row per tunable:
 *   T(field, irqkit, tejun2010, mainline, "meaning (unit)")
 * A value that a profile does not use (mainline has no expecting) is 0 and
 * the row's _on switch is 0. Booleans are 0/1.
 */
#define IRQ_POLICY_TUNABLES(T) \
	/* ---- polling rates (2010 values; mainline polls its disabled lines at 100 ms) */ \
	T(poll_slow_ns,            3 * IRQ_POLICY_S,    3 * IRQ_POLICY_S,    3 * IRQ_POLICY_S, \
	  "slow poll: verified expects and clean watches (ns)") \
	T(poll_normal_ns,          10 * IRQ_POLICY_MS,  10 * IRQ_POLICY_MS,  100 * IRQ_POLICY_MS, \
	  "normal poll of a line that needs it (ns)") \
	T(poll_quick_ns,           1 * IRQ_POLICY_MS,   1 * IRQ_POLICY_MS,   100 * IRQ_POLICY_MS, \
	  "quick poll (ns)") \
	T(poll_adaptive,           1,                   0,                   0, \
	  "after a poll found work, poll again quickly; empty polls double the gap up to normal") \
	/* ---- IRQ expecting (2010: goal 256, bad factor 10, quick after 1,024 samples at 80 %) */ \
	T(expect_on,               1,                   1,                   0, \
	  "expect_irq/unexpect_irq poll the line (mainline has no expecting)") \
	T(expect_verify_goal,      32,                  256,                 0, \
	  "good deliveries until a token is verified") \
	T(expect_verify_goal_max,  1024,                256,                 0, \
	  "each time a token distrusts its line its verify goal doubles, up to this; a verified spell as long as the goal halves it again (the goal itself: no back-off)") \
	T(expect_bad_factor,       8,                   10,                  0, \
	  "good deliveries one polled delivery costs") \
	T(expect_quick_samples,    0,                   1024,                0, \
	  "polled deliveries judged for quick mode (0: no quick mode)") \
	T(expect_quick_pct,        0,                   80,                  0, \
	  "percent of them found by the first poll that makes a token quick") \
	T(expect_latency_poll,     1,                   0,                   0, \
	  "first poll from the token's measured completion latency") \
	T(expect_latency_mult,     3,                   0,                   0, \
	  "first poll after this many times the typical latency") \
	T(expect_latency_samples,  8,                   0,                   0, \
	  "interrupt-delivered completions measured before the first poll follows their latency") \
	T(expect_first_poll_min_ns, 20 * IRQ_POLICY_US, 0,                   0, \
	  "earliest first poll after expect_irq (ns)") \
	T(expect_first_poll_max_ns, 400 * IRQ_POLICY_US, 0,                  0, \
	  "latest first poll after expect_irq, and the longest gap between polls of an expecting token, its safety poll included: with the recheck below it keeps a lost completion found within 1 ms (ns)") \
	T(expect_verified_mult,    4,                   0,                   0, \
	  "verified tokens: one safety poll after this many times the typical latency (0: slow poll only)") \
	T(expect_verified_min_ns,  100 * IRQ_POLICY_US, 0,                   0, \
	  "earliest safety poll of a verified token; bounds its cost to one timer event per this (ns)") \
	T(expect_verified_recheck_ns, 100 * IRQ_POLICY_MS, 0,                  0, \
	  "verified tokens of a busy line, on a host without irq_tick: once a poll timer expiry found nothing due, the next safety poll comes this much later (ns; 0: after every expect)") \
	T(expect_tick_look,        1,                   0,                   0, \
	  "verified tokens of a busy line are looked at by the host's tick (irq_tick), not by their poll timer, when the host has one") \
	T(expect_verified_learn_every, 8,               1,                   0, \
	  "verified tokens learn the latency of one interrupt-delivered completion in this many (0, 1: every one)") \
	T(expect_late_verdict,     1,                   0,                   0, \
	  "a completion found by polling is judged at the next one: late if an unclaimed interrupt came") \
	T(expect_unsure_cost,      1,                   0,                   0, \
	  "good deliveries it costs when the next one came by interrupt (maybe late, maybe lost)") \
	/* ---- IRQ watching (2010 values throughout) */ \
	T(watch_on,                1,                   1,                   0, \
	  "watch_irq polls the action (mainline has no watching)") \
	T(watch_interval_ns,       500 * IRQ_POLICY_MS, 500 * IRQ_POLICY_MS, 0, \
	  "first watch poll; the gap grows to poll_slow_ns while all is well (ns)") \
	T(watch_period_ns,         60 * IRQ_POLICY_S,   60 * IRQ_POLICY_S,   0, \
	  "watch period (ns)") \
	T(watch_wary_period_ns,    600 * IRQ_POLICY_S,  600 * IRQ_POLICY_S,  0, \
	  "watch period once wary (ns)") \
	T(watch_min_samples,       10,                  10,                  0, \
	  "deliveries a period needs to be judged") \
	T(watch_wary_pct,          1,                   1,                   0, \
	  "percent polled above which the action turns wary") \
	T(watch_bad_pct,           10,                  10,                  0, \
	  "percent polled above which it is bad for good") \
	T(watch_late_window_ns,    20 * IRQ_POLICY_MS,  0,                   0, \
	  "a watch poll's find counts as by interrupt if an unclaimed one follows within this (ns; 0: judged at once, as in 2010)") \
	T(watch_poll_max_ns,       2 * IRQ_POLICY_MS,   0,                   0, \
	  "an action on polling (a poll found work its interrupt should have delivered) is polled at least this often (ns; 0: up to poll_normal_ns)") \
	/* ---- spurious (flood) handling (2010: 9,900 of 10,000 in 10 s; mainline: 99,900 of 100,000) */ \
	T(spr_segment_samples,     100,                 10000,               100000, \
	  "interrupts per judged segment (irqkit: 500 before issue 19; two segments bound a flood's cost)") \
	T(spr_segment_ns,          50 * IRQ_POLICY_MS,  10 * IRQ_POLICY_S,   0, \
	  "segment length: irqkit judges then, 2010 calls longer segments good (ns; 0: none)") \
	T(spr_judge_on_time,       1,                   0,                   0, \
	  "a segment also ends when spr_segment_ns has passed") \
	T(spr_min_samples,         100,                 10000,               100000, \
	  "fewest interrupts a segment needs to be called a flood") \
	T(spr_bad_ppm,             950000,              990000,              999010, \
	  "unclaimed share that makes a segment a flood (ppm; mainline: more than 99,900)") \
	T(spr_unhandled_gap_ns,    0,                   0,                   100 * IRQ_POLICY_MS, \
	  "an unclaimed interrupt this long after the last restarts the count (ns; 0: never)") \
	T(spr_poll_ns,             10 * IRQ_POLICY_MS,  10 * IRQ_POLICY_MS,  100 * IRQ_POLICY_MS, \
	  "poll interval of a line disabled for flooding (ns)") \
	T(spr_backoff_min_ns,      100 * IRQ_POLICY_MS, 100 * IRQ_POLICY_S,  IRQ_POLICY_FOREVER, \
	  "first time off before a re-enable test (ns; 2010: 10,000 polls of 10 ms)") \
	T(spr_backoff_grow_shift,  1,                   3,                   0, \
	  "a failed test multiplies the back-off by 2^this") \
	T(spr_backoff_shrink_shift, 1,                  1,                   0, \
	  "a good segment divides it by 2^this") \
	T(spr_backoff_max_ns,      10 * IRQ_POLICY_S,   IRQ_POLICY_FOREVER,  IRQ_POLICY_FOREVER, \
	  "longest back-off (ns)") \
	/* ---- storms of claimed interrupts (issue 19; neither 2010 nor Linux has this defence: both 0) */ \
	T(storm_max_claimed,       1500,                0,                   0, \
	  "interrupts in one storm window (claimed, or mixed with unclaimed ones that make no flood) above which the line is throttled (0: no claimed-storm defence)") \
	T(storm_window_ns,         10 * IRQ_POLICY_MS,  0,                   0, \
	  "storm window: the interrupts of this long are counted, claimed or not (ns)") \
	T(storm_poll_ns,           1 * IRQ_POLICY_MS,   0,                   0, \
	  "a throttled line is masked and its handlers polled this often, never more (ns)") \
	T(storm_slow_grace_ns,     100 * IRQ_POLICY_MS, 0,                   0, \
	  "after a driver's storm callback slowed its device, a storm within this is throttled without asking (ns)") \
	T(storm_cpu_pct,           25,                  0,                   0, \
	  "a line whose interrupts' runs (flow and handlers) took more than this percent of a CPU in one storm window is a storm, whatever its rate (0: no such test)") \
	T(storm_cpu_after_irqs,    32,                  0,                   0, \
	  "interrupts in one storm window after which the line's runs are timed for that test (fewer cost nothing: at 3,200 a second a run would need 78 us to take 25 % of a CPU)") \
	T(storm_cpu_samples,       4,                   0,                   0, \
	  "runs timed per window for it; the shortest is the line's cost (a host stall inside one is not its cost)") \
	/* ---- a stalled CPU is not a lost interrupt (issue 28; 2010 and Linux judge by time alone: 0) */ \
	T(stall_ran_irqs,          3,                   0,                   0, \
	  "a completion a poll found is judged lost only once the CPU its line is routed to has finished this many interrupts since (one when the verdict runs on that CPU; 0: no such test)") \
	T(stall_ns,                2 * IRQ_POLICY_MS,   0,                   0, \
	  "a CPU that finished no interrupt for this long, or for two periods of the host's tick (irq_tick_start) if that is longer, was not running, and so was one whose poll timer fires that late: what its line's polls found meanwhile is late (CPU not running), not judged (ns)") \
	T(stall_gate,              3,                   0,                   0, \
	  "a verified token's safety poll of a line routed to another CPU waits until that CPU has finished this many interrupts since the poll was due (0: no wait)") \
	/* ---- irqpoll, reporting */ \
	T(irqpoll_interval_ns,     10 * IRQ_POLICY_MS,  10 * IRQ_POLICY_MS,  100 * IRQ_POLICY_MS, \
	  "irqpoll: poll every shared line this often (ns)") \
	T(health_remind_ns,        60 * IRQ_POLICY_S,   60 * IRQ_POLICY_S,   60 * IRQ_POLICY_S, \
	  "remind of a line or action on polling this often (ns; reporting is irqkit's in every profile)") \
	T(health_misroute_window_ns, 10 * IRQ_POLICY_S, 10 * IRQ_POLICY_S,   10 * IRQ_POLICY_S, \
	  "a line is listed misrouted until irqfixup claimed nothing for it for this long (ns)")

/* The profiles, in the order of the table's columns (the minimal build keeps the first only). */
enum irq_policy_id {
	IRQ_POLICY_IRQKIT,     /* ours (default) */
#if !IRQ_MINIMAL
	IRQ_POLICY_TEJUN2010,  /* Tejun Heo's 2010 patch set */
	IRQ_POLICY_MAINLINE,   /* Linux today */
#endif
	IRQ_POLICY_COUNT,
};

/* One profile: its name and one field per row of IRQ_POLICY_TUNABLES. */
struct irq_policy {
	const char *name;
#define IRQ_POLICY_FIELD(field, irqkit, tejun2010, mainline, what) uint64_t field;
	IRQ_POLICY_TUNABLES(IRQ_POLICY_FIELD)
#undef IRQ_POLICY_FIELD
};

/* One row of the table described for printing (bench, shell, docs). */
struct irq_policy_row {
	const char *field;   /* "spr_segment_samples" */
	const char *what;    /* its meaning and unit */
	size_t offset;       /* of the field in struct irq_policy */
};

#if !IRQ_MINIMAL
/* The three profiles, indexed by enum irq_policy_id (the minimal build has no table: below). */
extern const struct irq_policy irq_policies[IRQ_POLICY_COUNT];
#endif

#if IRQ_MINIMAL
/*
 * The minimal build's one profile, irqkit's, visible to every file: its
 * irq_policy() is this constant (policy.h), so each tunable the code reads
 * is an immediate, not a load, and what another profile would need is
 * dead code.
 */
#define IRQ_POLICY_COL_IRQKIT(field, irqkit, tejun2010, mainline, what) .field = (irqkit),
static const struct irq_policy irq_policy_minimal = { .name = "irqkit", IRQ_POLICY_TUNABLES(IRQ_POLICY_COL_IRQKIT) };
#endif
/* The rows, in table order; irq_policy_rows_count of them (not in the minimal build). */
extern const struct irq_policy_row irq_policy_rows[];
extern const size_t irq_policy_rows_count;

/*
 * Pool of expect tokens for init_irq_expect() (init_irq_expect_static()
 * needs none), and the most tokens one action may carry (bounds the walks
 * of its list). A build may override them with -DNAME=value.
 */
#ifndef IRQ_NR_EXPECTS
#if IRQ_MINIMAL
#define IRQ_NR_EXPECTS 8
#else
#define IRQ_NR_EXPECTS 32
#endif
#endif
#ifndef IRQ_EXPECTS_PER_ACTION
#define IRQ_EXPECTS_PER_ACTION 8
#endif
#if IRQ_NR_EXPECTS < 1 || IRQ_NR_EXPECTS > 4096
#error "IRQ_NR_EXPECTS must be 1..4096 (init_irq_expect_static needs no pool)"
#endif
#if IRQ_EXPECTS_PER_ACTION < 1 || IRQ_EXPECTS_PER_ACTION > 64
#error "IRQ_EXPECTS_PER_ACTION must be 1..64 tokens per handler"
#endif

/*
 * The profile and the switches in force, set by the boot parameters below.
 * Private to kernel/irq: read them through irq_policy(),
 * irq_defences_active(), irq_fixup_enabled() and irq_poll_all_enabled().
 * They are inline because the poll path asks several times per poll.
 */
struct irq_switches {
#if !IRQ_MINIMAL
	const struct irq_policy *policy;  /* the profile in force (irq_policies[]; the minimal build's is a constant) */
#endif
	bool started;                     /* irq_defences_start ran (since the last irq_core_init) */
	bool noirqdebug;                  /* noirqdebug: the defences off */
	bool irqfixup;                    /* irqfixup: unclaimed interrupts try the other shared lines */
	bool irqpoll;                     /* irqpoll: irqfixup, and every shared line polled */
	uint32_t gen;                     /* bumped by every change above after boot (poll.c's cached poll times) */
};
extern struct irq_switches __irq_switches;

#if !IRQ_MINIMAL
/*
 * irq_policy_by_name - the profile called @name ("irqkit", "tejun2010",
 * "mainline"). CONTEXT: any. RETURNS it, or NULL for an unknown name.
 * Not in the minimal build, which has one profile and no table of them.
 */
const struct irq_policy *irq_policy_by_name(const char *name);
#endif

#endif /* IRQ_POLICY_TABLE_H */
