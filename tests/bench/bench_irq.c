/*
 * bench_irq.c - the hot paths of kernel/irq, for callgrind instruction
 * counts (tests/bench/irq.mk runs it): one handled interrupt through
 * generic_handle_irq() in steady state, per flow (edge, fasteoi, level),
 * one poll through irq_poll_line(), and one lock/unlock pair of the host
 * port (to separate the port's cost from the core's).
 *
 *   bench_irq MODE N    MODE: edge | fasteoi | level | poll | lockpair | edge-traced | record
 *
 * edge-traced is edge with the event trace on (kernel/irq/trace.h), record
 * one irq_trace_record() call; both print "events_per_op E" (events the
 * rings hold after the run, per operation). The bench is built with rings
 * large enough that nothing is dropped (irq.mk).
 *
 * Each mode runs a warm-up first, then bench_irq_measure() runs the mode's
 * loop N times; it is the only function callgrind collects
 * (--toggle-collect=bench_irq_measure). The program prints the port locks
 * taken per operation: "locks_per_op L".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irq/episode.h>
#include <irq/expect.h>
#include <irq/flood.h>
#include <irq/stall.h>
#include <irq/storm.h>
#include <irq/tick_set.h>
#include <irq/watch.h>
#include <irq_port_host.h>

/* Interrupts run before measuring: caches, branch history, lazy binding. */
#define WARMUP_OPS 1000
/* Lines used by the modes (any free lines). */
#define EDGE_LINE 1
#define FASTEOI_LINE 2
#define LEVEL_LINE 3

static volatile unsigned long handled;

static void chip_nop(struct irq_data *d) { (void)d; }

/* A chip that does nothing, so only the core (and the port) is measured. */
static const struct irq_chip bench_chip = {
	.name = "BENCH", .mask = chip_nop, .unmask = chip_nop, .ack = chip_nop, .eoi = chip_nop,
};

static irqreturn_t bench_handler(unsigned int irq, void *dev_id)
{
	(void)irq;
	(void)dev_id;
	handled++;
	return IRQ_HANDLED;
}

/* Kept as one real function each, so callgrind can find it by name. */
#ifdef __clang__
#define MEASURED __attribute__((noinline))
#else
#define MEASURED __attribute__((noinline, noclone))
#endif

MEASURED void bench_irq_run_edge(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		generic_handle_irq(EDGE_LINE);
}

MEASURED void bench_irq_run_fasteoi(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		generic_handle_irq(FASTEOI_LINE);
}

MEASURED void bench_irq_run_level(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		generic_handle_irq(LEVEL_LINE);
}

MEASURED void bench_irq_run_poll(unsigned long n)
{
	struct irq_desc *desc = irq_to_desc(EDGE_LINE);

	for (unsigned long i = 0; i < n; i++)
		irq_poll_line(desc);
}

MEASURED void bench_irq_run_record(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		irq_trace_record(IRQ_TEV_DRV, EDGE_LINE, IRQ_TDRV_MARK, (uint32_t)i);
}

static irq_port_lock_t bench_lock;

MEASURED void bench_irq_run_lockpair(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		irq_port_unlock_irqrestore(&bench_lock, irq_port_lock_irqsave(&bench_lock));
}

/* The measured call: everything under it is counted, the warm-up is not. */
MEASURED void bench_irq_measure(void (*run)(unsigned long n), unsigned long n)
{
	run(n);
}

static void setup_line(unsigned int irq, irq_flow_handler_t flow)
{
	static int dev[IRQ_NR_LINES];

	if (irq_set_chip_and_handler(irq, &bench_chip, flow, NULL, irq) ||
	    request_irq(irq, bench_handler, 0, "bench", &dev[irq])) {
		fprintf(stderr, "bench_irq: cannot set up line %u\n", irq);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(unsigned long n);
	} modes[] = {
		{ "edge", bench_irq_run_edge },
		{ "fasteoi", bench_irq_run_fasteoi },
		{ "level", bench_irq_run_level },
		{ "poll", bench_irq_run_poll },
		{ "lockpair", bench_irq_run_lockpair },
		{ "edge-traced", bench_irq_run_edge },
		{ "record", bench_irq_run_record },
	};
	bool traced;
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	uint64_t locks_before;
	size_t m;

	for (m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		if (argc > 1 && strcmp(argv[1], modes[m].name) == 0)
			break;
	if (m == sizeof(modes) / sizeof(modes[0]) || n == 0) {
		fprintf(stderr, "usage: bench_irq edge|fasteoi|level|poll|lockpair|edge-traced|record N\n");
		return 2;
	}
	irq_host_reset();
	irq_core_init();
	irq_port_lock_init(&bench_lock);
	setup_line(EDGE_LINE, handle_edge_irq);
	setup_line(FASTEOI_LINE, handle_fasteoi_irq);
	setup_line(LEVEL_LINE, handle_level_irq);

	traced = strcmp(modes[m].name, "edge-traced") == 0 || strcmp(modes[m].name, "record") == 0;
	if (traced && irq_trace_start("all")) {
		fprintf(stderr, "bench_irq: irq_trace_start failed\n");
		return 1;
	}
	irq_host_irq_enter();  /* the arch entry code calls in with interrupts off */
	modes[m].run(WARMUP_OPS);
	locks_before = irq_host_lock_count();
	bench_irq_measure(modes[m].run, n);
	printf("locks_per_op %.2f\n", (double)(irq_host_lock_count() - locks_before) / (double)n);
	irq_host_irq_exit();
	if (traced) {
		struct irq_trace_status st;

		irq_trace_get_status(&st);
		printf("events_per_op %.2f\n", (double)st.events / (double)(WARMUP_OPS + n));
		if (st.dropped) {
			fprintf(stderr, "bench_irq: %llu trace events dropped: rings too small\n",
				(unsigned long long)st.dropped);
			return 1;
		}
		if (m == 5)
			m = 0;  /* the handler-call check below */
	}
	if (m < 4 && handled != (WARMUP_OPS + n)) {
		fprintf(stderr, "bench_irq: %lu handler calls, expected %lu\n", handled, WARMUP_OPS + n);
		return 1;
	}
	return 0;
}
