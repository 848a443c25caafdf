/*
 * sim.h - a deterministic virtual-time simulator for kernel/irq's defences
 * (expecting, watching, flood polling): the real core, through the host
 * port (tests/host/irq_port_host.[ch]) whose clock moves only when the
 * simulation advances it, a model interrupt controller, and device models.
 *
 * Everything that happens is an event on the host port's one-shot timers,
 * fired in time order by irq_host_advance_ns(): device completions, the
 * controller delivering an interrupt, and the core's own poll timers. So a
 * run of hours of virtual time costs only as much as the events in it.
 *
 * The controller model (struct sim_line, the "SIM" irq_chip): an edge line
 * latches edges (merging those that come before delivery, like an 8259's
 * request register) and delivers one interrupt per latch while unmasked; a
 * level line is the OR of its sources and keeps interrupting while any
 * source asserts it and it is unmasked: masking stops deliveries,
 * unmasking resumes them while still asserted. Each delivery takes
 * SIM_IRQ_COST_NS of virtual time, so a stuck line interrupts at
 * 1/SIM_IRQ_COST_NS per second (500,000/s), not infinitely often at one
 * instant. The chip checks that the core pairs its masks and unmasks.
 *
 * Used by tests/unit/test_irq_sim*.c, test_irq_expect*.c, test_irq_watch*.c,
 * test_irq_spurious*.c and the bench tests/bench/defences_bench.c. Plain C
 * and the host port; no cmocka, so the bench links it too.
 */
#ifndef IRQ_SIM_H
#define IRQ_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include <irq/episode.h>
#include <irq/expect.h>
#include <irq/flood.h>
#include <irq/stall.h>
#include <irq/storm.h>
#include <irq/tick_set.h>
#include <irq/watch.h>
#include <irq_port_host.h>

/* Virtual time units. */
#define SIM_US 1000ull
#define SIM_MS 1000000ull
#define SIM_S 1000000000ull
#define SIM_MIN (60ull * SIM_S)
#define SIM_HOUR (60ull * SIM_MIN)
/* Probabilities are parts per million. */
#define SIM_PPM 1000000u

/* Virtual time one delivered interrupt takes (entry, flow, handlers, exit). */
#define SIM_IRQ_COST_NS (2ull * SIM_US)
/* Most level sources on one line (bits of a mask). */
#define SIM_SOURCES_MAX 32

/* How the model controller treats a line, and which flow handler it gets. */
enum sim_flow {
	SIM_EDGE,     /* handle_edge_irq, edge latch */
	SIM_LEVEL,    /* handle_level_irq, level sources */
	SIM_FASTEOI,  /* handle_fasteoi_irq, level sources */
};

/* Mask/unmask calls kept per line, for tests of back-off timings. */
#define SIM_MASK_HISTORY 256

/* One mask or unmask of a line, and when. */
struct sim_mask_event {
	uint64_t at_ns;
	bool masked;
	uint64_t delivered;          /* interrupts delivered on the line before it */
};

/* One line of the model controller. */
struct sim_line {
	bool used;                   /* set up by sim_line_setup */
	enum sim_flow flow;
	bool masked;                 /* as the chip sees it */
	bool latched;                /* edge waiting for delivery */
	uint32_t sources;            /* level sources asserting the line */
	struct irq_port_timer deliver;  /* the next delivery */
	uint64_t delivered;          /* interrupts delivered to the core */
	uint64_t masks, unmasks;     /* chip calls */
	uint64_t last_mask_ns, last_unmask_ns;
	struct sim_mask_event history[SIM_MASK_HISTORY];  /* the first SIM_MASK_HISTORY changes */
	unsigned int nr_history;
	/* Interrupts raised but not yet taken (sim_line_set_take_delay): */
	uint64_t take_delay_ns;      /* a delivery is taken this much later than SIM_IRQ_COST_NS ... */
	uint32_t take_delay_ppm;     /* ... with this probability (a CPU busy elsewhere, a loaded host) */
	uint64_t take_rng;
	uint64_t delayed_takes;      /* deliveries scheduled late so */
	uint64_t pending_calls;      /* irq_pending calls (chips of sim_line_setup_pending) */
	unsigned int cpu;            /* the CPU its interrupts go to (irq_set_affinity: the lowest of the mask) */
	uint64_t stalled_takes;      /* deliveries held because that CPU was stalled (sim_cpu_stall) */
};

/* The options a simulation starts the defences with. */
struct sim_options {
	const char *policy;          /* "irqkit", "tejun2010", "mainline"; NULL: irqkit */
	bool noirqdebug, irqfixup, irqpoll;
	bool defences_off;           /* do not call irq_defences_start at all */
	/*
	 * The host's tick, lent to the defences (irq_tick_start, irq_tick): a
	 * port timer every tick_ns (0: SIM_TICK_NS, as irqkit's 1 kHz), unless
	 * no_tick (a host without a tick: the poll timers do it all).
	 */
	uint64_t tick_ns;
	bool no_tick;
	/*
	 * CPUs of the simulated machine (0: 1). Everything runs on CPU 0 (the
	 * timers, the drivers' threads) except a line's interrupts, which run
	 * on the CPU of its affinity; each other CPU takes its own tick at the
	 * tick period (irq_port_cpu_progress: it ran) unless stalled - also
	 * with no_tick, which only means the tick is not lent to the core.
	 */
	unsigned int cpus;
};

/* The simulated host's tick period unless a case asks for another (irqkit's hz=1000). */
#define SIM_TICK_NS (1ull * SIM_MS)

/* sim_ticks - ticks the simulated host has run since sim_start. */
uint64_t sim_ticks(void);

/* sim_core_timers_pending - armed timers other than the simulated host's tick. */
unsigned int sim_core_timers_pending(void);

/* sim_reset - fresh host port (clock 0), fresh core, no lines. */
void sim_reset(void);

/* sim_start - set the switches and profile of @opt, start the defences. RETURNS 0 or the setters' error. */
int sim_start(const struct sim_options *opt);

/* sim_line_setup - attach the SIM chip to @irq with @flow. RETURNS 0 or the core's error. */
int sim_line_setup(unsigned int irq, enum sim_flow flow);

/*
 * sim_line_setup_pending - the same with the "SIM-PEND" chip, which also
 * has irq_chip::irq_pending: 1 while the line signals and its delivery is
 * scheduled but not yet taken, else 0. That is an 8259's model: a level
 * request vanishes as soon as the handler lowers the device's source (the
 * delivery then finds nothing and no interrupt is taken), an edge stays
 * latched until taken.
 */
int sim_line_setup_pending(unsigned int irq, enum sim_flow flow);

/*
 * sim_line_set_take_delay - from now on each delivery of @irq is taken
 * @delay_ns late with probability @ppm (SIM_PPM: every one), drawn from
 * @seed: the interrupt is raised (pending at the controller) and the CPU
 * takes it later.
 */
void sim_line_set_take_delay(unsigned int irq, uint64_t delay_ns, uint32_t ppm, uint64_t seed);

/* The model's state of line @irq (NULL for a bad number). */
struct sim_line *sim_line(unsigned int irq);

/* A level source of @irq asserts (@on) or lets go of the line. */
void sim_line_set_source(unsigned int irq, unsigned int source, bool on);

/* An edge on @irq. */
void sim_line_edge(unsigned int irq);

/* Chip rule violations seen, and the first in words ("" when none). */
unsigned int sim_chip_errors(void);
const char *sim_chip_first_error(void);

/*
 * sim_cpu_stall - CPU @cpu does not run for @ns from now (a virtual CPU its
 * host descheduled, an SMI): it takes no interrupt (deliveries to it wait,
 * pending at the controller, until it runs again), finishes none, takes no
 * tick. CPU 0 is where the timers run: its stall holds every event (the
 * whole machine stopped, as a one-CPU guest whose host stops it).
 */
void sim_cpu_stall(unsigned int cpu, uint64_t ns);

/* sim_run_for - advance virtual time by @ns, running every event on the way. */
void sim_run_for(uint64_t ns);

/* sim_now - the virtual clock. */
uint64_t sim_now(void);

/* sim_random - the next number of the xorshift64* stream @state (never 0 state). */
uint64_t sim_random(uint64_t *state);

/* sim_chance - true with probability @ppm parts per million, from @state. */
bool sim_chance(uint64_t *state, uint32_t ppm);

/* ---- device models (sim_dev.c) ------------------------------------------- */

/*
 * A device with a driver: the driver starts an operation, the device
 * completes it after latency_ns (+ up to jitter_ns) and raises its
 * interrupt, which is lost with probability loss_ppm (the device's status
 * says "done" but nothing is signalled). The handler claims a completion
 * when the status says done, whether an interrupt or a poll called it, and
 * starts the next operation think_ns later. The driver gives up after
 * timeout_ns (if set) with unexpect_irq(..., true). With use_expect the
 * driver brackets every operation with expect_irq/unexpect_irq (unexpect
 * from the handler); with use_watch it calls watch_irq after attaching and
 * after every time-out.
 */
struct sim_dev {
	/* configuration */
	const char *name;
	unsigned int irq;            /* line the driver registers on */
	unsigned int raise_irq;      /* line the interrupt really arrives on (misrouting); 0: irq */
	bool misrouted;              /* use raise_irq (0 is a valid line) */
	unsigned int source;         /* its level source bit on a level line */
	bool level;                  /* asserts a level source; otherwise raises an edge */
	uint64_t latency_ns;
	uint64_t jitter_ns;
	uint32_t loss_ppm;
	uint64_t loss_change_at_ns;  /* 0: never; else from then on loss is loss_ppm_after */
	uint64_t loss_change_after_ops; /* 0: never; else operations after this many lose at loss_ppm_after */
	uint32_t loss_ppm_after;
	uint64_t think_ns;
	uint64_t handler_ns;         /* CPU time each call of its handler takes (irq_host_spend_ns; 0: none) */
	uint64_t lose_ops[2];        /* these operations' interrupts are lost, whatever loss_ppm says (0: none) */
	uint64_t late_irq_op;        /* this operation's interrupt comes late_irq_ns after it is done (0: none) */
	uint64_t late_irq_ns;
	uint64_t irq_delay_ns;       /* every interrupt comes this long after the operation is done (edge; 0: at once),
				      * like a UHCI that signals at its next frame: a poll meanwhile finds the work */
	bool start_in_handler;       /* the handler starts the next operation itself (think_ns 0), as PIO does */
	uint64_t timeout_ns;         /* 0: waits for ever */
	bool use_expect;
	bool static_token;           /* init_irq_expect_static instead of the pool */
	bool use_watch;
	uint64_t seed;
	/* state */
	struct irq_expect *exp;
	struct irq_expect exp_storage;
	bool attached, running, busy, done;
	uint64_t op, completed_op, op_started_ns;
	uint64_t rng;
	struct irq_port_timer complete_timer, next_timer, timeout_timer, late_irq_timer;
	/* results */
	uint64_t ops, completions, by_poll, by_irq, timeouts, double_completions, lost_irqs;
	uint64_t handler_calls, handler_polls;
	uint64_t latency_sum_ns, latency_max_ns;
	uint64_t poll_latency_sum_ns;  /* of the completions found by polling */
	/* optional hook at each completion */
	void (*on_complete)(struct sim_dev *dev, bool by_poll, uint64_t latency_ns);
	/* optional hook at each call of its handler, before it looks at the device (a poll's run: @polled) */
	void (*in_handler)(struct sim_dev *dev, bool polled);
	void *ctx;
};

/* sim_dev_attach - request_irq (shared) and, if asked, an expect token / watch_irq. RETURNS 0 or the error. */
int sim_dev_attach(struct sim_dev *dev);
/* sim_dev_start - the first operation @delay_ns from now. */
void sim_dev_start(struct sim_dev *dev, uint64_t delay_ns);
/* sim_dev_stop - no new operations after the one in flight. */
void sim_dev_stop(struct sim_dev *dev);
/* sim_dev_detach - stop, cancel the device's events, free_irq. */
void sim_dev_detach(struct sim_dev *dev);

/*
 * A source of interrupts without operations: a rogue device stuck
 * asserting a level line, a burst of spurious edges, or a busy healthy
 * device streaming interrupts. Between start_ns and stop_ns (0: for ever)
 * it asserts its level source (stuck) or raises an edge every period_ns.
 * With has_handler it registers a shared handler that claims each call with
 * probability claim_ppm (a stuck device's driver may "claim" without
 * clearing anything: the line stays asserted); with claims_own, only a call
 * after an edge of its own, which it then serves whether or not it claims
 * (a device on a shared line whose status says whether it signalled).
 */
enum sim_source_mode {
	SIM_STUCK_LEVEL,  /* asserts its level source from start to stop */
	SIM_EDGE_STREAM,  /* an edge every period_ns */
};

struct sim_source {
	const char *name;
	unsigned int irq;
	unsigned int source;
	enum sim_source_mode mode;
	uint64_t period_ns;
	uint64_t start_ns, stop_ns;
	bool has_handler;
	uint32_t claim_ppm;
	bool claims_own;             /* its handler claims only a call that follows an edge of its own */
	uint64_t handler_ns;         /* CPU time each call of its handler takes (irq_host_spend_ns; 0: none) */
	uint64_t seed;
	/* state and results */
	uint64_t rng;
	uint64_t unserved;           /* edges raised since its handler last looked (claims_own) */
	struct irq_port_timer timer;
	bool active;
	uint64_t raised, handler_calls, claimed;
};

/* sim_source_attach - register the handler (if any) and schedule the start. RETURNS 0 or the error. */
int sim_source_attach(struct sim_source *src);
/* sim_source_detach - stop now, free the handler. */
void sim_source_detach(struct sim_source *src);

#endif /* IRQ_SIM_H */
