/*
 * irq_config.h - the tunables of the portable interrupt core (kernel/irq/),
 * in one table. A port or a build may override any value with -DNAME=value;
 * a value outside its range stops the build with a message saying what to do.
 *
 * The defaults are sized for a small kernel: the core built with no -D at all
 * has at most 64 KiB of static memory (bss) on i686, which `make cross`
 * checks; a large kernel raises the CPU count and the trace ring (irqkit
 * does: IRQKIT_IRQ_CONFIG in the Makefile; docs/porting.md, section 1, has
 * the values for a small and a large kernel and what each costs).
 *
 * Why these values: 64 lines cover the 16 ISA IRQs and the 24 pins of one or
 * two IOAPICs (GSIs 0-47) with room to spare, and cost about 40 KiB of static
 * descriptors on i686 (a descriptor is about 600 bytes with the template
 * port's lock and timers, and a counter slot 64). 32 pooled actions is more
 * than the kernel's drivers register (each driver has one or two lines);
 * users with their own storage (request_irq_static) do not draw from the
 * pool at all. The limits on sharing, replay and nesting exist only to
 * bound every loop of the core: real hardware never comes near them, a
 * broken driver or a stuck line does.
 *
 * Layer 0, the base: a public header; uses nothing (docs/irq-layers.md).
 */
#ifndef IRQ_CONFIG_H
#define IRQ_CONFIG_H

/*
 * IRQ_MINIMAL - 1: the build for small kernels (docs/porting.md, "A minimal
 * build"): the defences keep their one profile, irqkit (no tejun2010 or
 * mainline columns, no printable table of tunables: irq_policy_rows is not
 * built), the health report prints one line per line on polling without its
 * actions, and the tables default to 16 lines, 8 pooled actions and 8 expect
 * tokens; any of them can still be set with -D (IRQ_TRACE_BUILD=0 leaves the
 * event trace out as well). The API and the defences' behaviour are the
 * same; `make cross` measures both builds and runs the minimal one.
 */
#ifndef IRQ_MINIMAL
#define IRQ_MINIMAL 0
#endif

/* Number of interrupt lines (descriptors): line numbers 0..IRQ_NR_LINES-1. */
#ifndef IRQ_NR_LINES
#if IRQ_MINIMAL
#define IRQ_NR_LINES 16
#else
#define IRQ_NR_LINES 64
#endif
#endif

/* Actions in the static pool used by request_irq(); request_irq_static() uses caller storage. */
#ifndef IRQ_NR_ACTIONS
#if IRQ_MINIMAL
#define IRQ_NR_ACTIONS 8
#else
#define IRQ_NR_ACTIONS 32
#endif
#endif

/* Most actions one line may carry (shared handlers); bounds the dispatch walk. */
#ifndef IRQ_MAX_SHARED
#define IRQ_MAX_SHARED 16
#endif

/*
 * Replays of a pending edge in one go (edge flow loop, end of a poll): after
 * this many back-to-back runs the rest is handed to the line's resend timer,
 * so an edge storm cannot keep one CPU in the dispatch loop for ever.
 */
#ifndef IRQ_EDGE_REPLAY_LIMIT
#define IRQ_EDGE_REPLAY_LIMIT 16
#endif

/* Deepest disable_irq() nesting accepted; deeper calls are refused with a warning. */
#ifndef IRQ_DEPTH_MAX
#define IRQ_DEPTH_MAX 1000u
#endif

/*
 * Longest time (ns of the port clock) free_irq/disable_irq/synchronize_irq
 * wait for a running handler before declaring a deadlock (for instance
 * free_irq called from the handler it frees) and panicking. Handlers run for
 * microseconds; one second means the handler can never finish.
 */
#ifndef IRQ_SYNC_TIMEOUT_NS
#define IRQ_SYNC_TIMEOUT_NS 1000000000ull
#endif

/* Longest action name kept in log messages, in characters (names are not copied). */
#ifndef IRQ_NAME_LOG_MAX
#define IRQ_NAME_LOG_MAX 32
#endif

/*
 * CPUs the core keeps per-CPU data for: CPU numbers 0..IRQ_NR_CPUS-1 from
 * irq_port_cpu_id(). Each CPU costs an event-trace ring (IRQ_TRACE_ENTRIES
 * x 16 bytes) and, per line, a 64-byte counter slot (the slots are rounded
 * up to a power of two of CPUs). The default, 1, is a uniprocessor kernel's;
 * a kernel that runs on several CPUs sets its count (irqkit sets 8, the
 * most smp.c starts: IRQKIT_IRQ_CONFIG in the Makefile, checked against
 * SMP_MAX_CPUS in arch/x86/irq_port.c). A CPU number at or past it is
 * counted under another CPU's slot and its trace events are dropped and
 * counted (stats.h, trace.h): nothing is written out of bounds.
 */
#ifndef IRQ_NR_CPUS
#define IRQ_NR_CPUS 1
#endif

/*
 * The event trace (trace.c, docs/trace.md). IRQ_TRACE_BUILD 0 compiles every
 * hook out. IRQ_TRACE_ENTRIES is the size of each CPU's ring in events of
 * 16 bytes. The default, 256 (4 KiB per CPU), holds a lost interrupt's whole
 * story (expect, polls, verdict: about ten events) many times over, or the
 * start of a flood (about fifty interrupts of five events each): enough for
 * a small kernel to see what went wrong first, which is what the ring keeps
 * (it fills and then drops). irqkit sets 16384 (256 KiB per CPU: a whole
 * flood episode of 1,000 interrupts, the polls and the re-enable test,
 * several times over; IRQKIT_IRQ_CONFIG in the Makefile).
 */
#ifndef IRQ_TRACE_BUILD
#define IRQ_TRACE_BUILD 1
#endif
#ifndef IRQ_TRACE_ENTRIES
#if IRQ_TRACE_BUILD
#define IRQ_TRACE_ENTRIES 256
#else
#define IRQ_TRACE_ENTRIES 16  /* compiled out: the smallest rings, never written */
#endif
#endif
/* Driver event names (irq_trace_tag) the trace can hold. */
#ifndef IRQ_TRACE_TAGS
#define IRQ_TRACE_TAGS 16
#endif
/* Longest reason irq_chip::irq_diagnose may give (bytes with the NUL), for the health report. */
#ifndef IRQ_DIAGNOSIS_MAX
#define IRQ_DIAGNOSIS_MAX 160
#endif

/*
 * The parts of the core a build may leave out (issue 32, docs/irq-layers.md):
 * each defence and each report, 1 (built) by default. A 0 leaves the part's
 * code and strings out of the build, and its API stays: its calls are no-ops
 * a caller can test for (irq_defences_built() in policy.h gives the parts
 * built; init_irq_expect returns NULL, as under noirqdebug; watch_irq does
 * nothing; irq_set_storm_handler returns -IRQ_ENODEV; docs/irq-layers.md,
 * "A defence left out"). `make cross-matrix` measures each on the Cortex-M3.
 */
/* IRQ expecting (expect.c): init_irq_expect, expect_irq, unexpect_irq; the driver says when an interrupt is due. */
#ifndef IRQ_EXPECT
#define IRQ_EXPECT 1
#endif
/* IRQ watching (watch.c): watch_irq; the line is polled slowly to check that its interrupts come. */
#ifndef IRQ_WATCH
#define IRQ_WATCH 1
#endif
/* The flood defence (spurious.c): a line flooding with unclaimed interrupts is disabled, polled, retried.
 * With IRQ_STORM 0 as well, no interrupt is counted at all (irqfixup still works). */
#ifndef IRQ_FLOOD
#define IRQ_FLOOD 1
#endif
/* The claimed-storm defence (spurious.c): a line interrupting faster than is useful is throttled. */
#ifndef IRQ_STORM
#define IRQ_STORM 1
#endif
/* The tick's look (tick_look.c): the host's tick looks at verified expect tokens instead of the poll timer. */
#ifndef IRQ_TICK_LOOK
#define IRQ_TICK_LOOK 1
#endif
/* irqfixup and irqpoll (poll.c, the boot switches of Linux's for misrouted interrupts): an unclaimed
 * interrupt tries the other shared lines' handlers, every shared line is polled. 0 leaves them and the
 * misroute episode out; irq_param_irqfixup() and irq_param_irqpoll() then refuse "on" (-IRQ_ENODEV). */
#ifndef IRQ_FIXUP
#define IRQ_FIXUP 1
#endif
/* The health reports in sentences (health.c); 0: terse numeric ones: an episode's begin, reminder and end
 * print its IRQ_HEALTH_* cause bits and counts, the report one line of numbers per line; no prose. */
#ifndef IRQ_HEALTH_TEXT
#define IRQ_HEALTH_TEXT 1
#endif

/* ---- range checks -------------------------------------------------------- */
#if IRQ_MINIMAL != 0 && IRQ_MINIMAL != 1
#error "IRQ_MINIMAL must be 0 (the full build) or 1 (the minimal build for small kernels)"
#endif
#if IRQ_NR_LINES < 16 || IRQ_NR_LINES > 1024
#error "IRQ_NR_LINES must be 16..1024: at least the 16 ISA IRQs; more than 1024 wastes memory"
#endif
#if IRQ_NR_ACTIONS < 1 || IRQ_NR_ACTIONS > 4096
#error "IRQ_NR_ACTIONS must be 1..4096 (use request_irq_static for more handlers)"
#endif
#if IRQ_MAX_SHARED < 1 || IRQ_MAX_SHARED > 64
#error "IRQ_MAX_SHARED must be 1..64: more handlers on one line make every interrupt slow"
#endif
#if IRQ_EDGE_REPLAY_LIMIT < 1 || IRQ_EDGE_REPLAY_LIMIT > 1000
#error "IRQ_EDGE_REPLAY_LIMIT must be 1..1000 back-to-back replays"
#endif
#if IRQ_DEPTH_MAX < 1 || IRQ_DEPTH_MAX > 1000000
#error "IRQ_DEPTH_MAX must be 1..1000000 nested disables"
#endif
#if IRQ_SYNC_TIMEOUT_NS < 1000000 || IRQ_SYNC_TIMEOUT_NS > 60000000000
#error "IRQ_SYNC_TIMEOUT_NS must be 1 ms..60 s (in nanoseconds)"
#endif
#if IRQ_NAME_LOG_MAX < 8 || IRQ_NAME_LOG_MAX > 256
#error "IRQ_NAME_LOG_MAX must be 8..256 characters"
#endif

#if IRQ_NR_CPUS < 1 || IRQ_NR_CPUS > 256
#error "IRQ_NR_CPUS must be 1..256 CPUs"
#endif
#if IRQ_TRACE_BUILD != 0 && IRQ_TRACE_BUILD != 1
#error "IRQ_TRACE_BUILD must be 0 (hooks compiled out) or 1"
#endif
#if IRQ_TRACE_ENTRIES < 16 || IRQ_TRACE_ENTRIES > 1048576
#error "IRQ_TRACE_ENTRIES must be 16..1048576 events per CPU (16 bytes each)"
#endif
#if IRQ_TRACE_TAGS < 1 || IRQ_TRACE_TAGS > 255
#error "IRQ_TRACE_TAGS must be 1..255 driver event names"
#endif
#if IRQ_DIAGNOSIS_MAX < 32 || IRQ_DIAGNOSIS_MAX > 1024
#error "IRQ_DIAGNOSIS_MAX must be 32..1024 bytes"
#endif
#if (IRQ_EXPECT != 0 && IRQ_EXPECT != 1) || (IRQ_WATCH != 0 && IRQ_WATCH != 1) || \
    (IRQ_FLOOD != 0 && IRQ_FLOOD != 1) || (IRQ_STORM != 0 && IRQ_STORM != 1) || \
    (IRQ_TICK_LOOK != 0 && IRQ_TICK_LOOK != 1) || (IRQ_HEALTH_TEXT != 0 && IRQ_HEALTH_TEXT != 1) || \
    (IRQ_FIXUP != 0 && IRQ_FIXUP != 1)
#error "IRQ_EXPECT, IRQ_WATCH, IRQ_FLOOD, IRQ_STORM, IRQ_TICK_LOOK, IRQ_HEALTH_TEXT and IRQ_FIXUP must each be 0 (left out) or 1 (built)"
#endif
#if IRQ_TICK_LOOK && !IRQ_EXPECT
#error "IRQ_TICK_LOOK=1 needs IRQ_EXPECT=1: the tick looks at expect tokens; set IRQ_TICK_LOOK=0 too"
#endif

#endif /* IRQ_CONFIG_H */
