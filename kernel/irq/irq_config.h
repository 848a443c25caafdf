/*
 * irq_config.h - the tunables of the portable interrupt core (kernel/irq/),
 * in one table. A port or a build may override any value with -DNAME=value;
 * a value outside its range stops the build with a message saying what to do.
 *
 * Why these values: 64 lines cover the 16 ISA IRQs and the 24 pins of one or
 * two IOAPICs (GSIs 0-47) with room to spare, and cost about 10 KiB of static
 * descriptors. 32 pooled actions is more than the kernel's drivers register
 * (each driver has one or two lines); users with their own storage
 * (request_irq_static) do not draw from the pool at all. The limits on
 * sharing, replay and nesting exist only to bound every loop of the core:
 * real hardware never comes near them, a broken driver or a stuck line does.
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
 * CPUs the core keeps per-CPU data for (the event trace's rings): CPU
 * numbers 0..IRQ_NR_CPUS-1 from irq_port_cpu_id(). 8 covers the machines
 * irqkit boots on (QEMU -smp up to 8); a port with one CPU sets 1.
 */
#ifndef IRQ_NR_CPUS
#define IRQ_NR_CPUS 8
#endif

/*
 * The event trace (trace.c, docs/trace.md). IRQ_TRACE_BUILD 0 compiles every
 * hook out. IRQ_TRACE_ENTRIES is the size of each CPU's ring in events of
 * 16 bytes: 16384 (256 KiB per CPU) holds a whole flood episode (1,000
 * interrupts of about five events each, the polls and the re-enable test)
 * several times over; a small port (the Cortex-M3 run) sets a few dozen.
 */
#ifndef IRQ_TRACE_BUILD
#define IRQ_TRACE_BUILD 1
#endif
#ifndef IRQ_TRACE_ENTRIES
#if IRQ_TRACE_BUILD
#define IRQ_TRACE_ENTRIES 16384
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

#endif /* IRQ_CONFIG_H */
