/*
 * cpuload.c - `cpuload [MS]`: how much of the CPU interrupts take right now,
 * measured from the outside of the interrupt path. The same busy loop runs
 * once with interrupts disabled (nothing can steal from it: its speed is the
 * CPU's) and once with them enabled for MS ms of TSC time; every cycle an
 * interrupt entry, a handler, a poll or a timer callback takes is a cycle the
 * loop does not run. lost = 1 - speed(on) / speed(off). Under QEMU's -icount
 * the TSC counts executed instructions, so the figure is the share of guest
 * instructions spent outside the loop and is the same on every run;
 * tests/bench/storm_bench.py uses it for the storm benchmark (docs/storms.md).
 */
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/tsc.h>
#include <irq/stats.h>
#include <kernel/cmdline.h>
#include <kernel/cpuload.h>
#include <kernel/errno.h>
#include <kernel/printk.h>

/* Tunables of the measurement. */
enum cpuload_tunables {
	CPULOAD_DEFAULT_MS = 500,    /* measuring window with interrupts on */
	CPULOAD_MIN_MS = 10,         /* shorter windows are dominated by one tick */
	CPULOAD_MAX_MS = 60000,      /* the longest window the shell waits for */
	CPULOAD_OFF_DIVISOR = 4,     /* the interrupts-off run lasts MS / this ... */
	CPULOAD_OFF_MIN_MS = 10,     /* ... but at least this (its rate is the reference) */
	CPULOAD_OFF_MAX_MS = 100,    /* ... and at most this: ticks are held back meanwhile */
	CPULOAD_BATCH = 64,          /* loop steps between two TSC reads */
	CPULOAD_PERMILLE = 1000,     /* the share is printed in tenths of a per cent */
};

#define CPULOAD_NS_PER_MS 1000000ull

/* spin - busy-loop for @ns of TSC time. RETURNS the batches run. */
static uint64_t spin(uint64_t ns)
{
	uint64_t t0 = rdtsc(), batches = 0;

	do {
		for (unsigned int i = 0; i < CPULOAD_BATCH; i++)
			__asm__ volatile("" ::: "memory");
		batches++;
	} while (tsc_cycles_to_ns(rdtsc() - t0) < ns);
	return batches;
}

/* delivered_total - interrupts delivered on every line so far. */
static uint64_t delivered_total(void)
{
	struct irq_line_stats s;
	uint64_t sum = 0;

	for (unsigned int irq = 0; irq_get_line_stats(irq, &s) == 0; irq++)
		sum += s.delivered;
	return sum;
}

int cpuload_cmd(int argc, char **argv)
{
	unsigned long ms = CPULOAD_DEFAULT_MS, flags;
	uint64_t off_ms, off_batches, on_batches, d0, d1, lost_pm, expect;

	if (argc > 2 || (argc == 2 && cmdline_parse_uint(argv[1], CPULOAD_MIN_MS, CPULOAD_MAX_MS, &ms)))
		return -EINVAL;
	if (!tsc_hz()) {
		cprintf("cpuload: the TSC is not calibrated\n");
		return -ENODEV;
	}
	off_ms = ms / CPULOAD_OFF_DIVISOR;
	if (off_ms < CPULOAD_OFF_MIN_MS)
		off_ms = CPULOAD_OFF_MIN_MS;
	if (off_ms > CPULOAD_OFF_MAX_MS)
		off_ms = CPULOAD_OFF_MAX_MS;
	flags = irq_save_flags();
	off_batches = spin(off_ms * CPULOAD_NS_PER_MS);
	irq_restore_flags(flags);
	d0 = delivered_total();
	on_batches = spin((uint64_t)ms * CPULOAD_NS_PER_MS);
	d1 = delivered_total();
	/* What the loop would have done in ms without interrupts. */
	expect = off_batches * ms / off_ms;
	lost_pm = on_batches >= expect || !expect ? 0 : (expect - on_batches) * CPULOAD_PERMILLE / expect;
	cprintf("cpuload: %lu ms: loop at %llu batches/ms with interrupts on, %llu with them off: "
		"%llu.%llu %% of the CPU lost to interrupts (%llu delivered, %llu/s)\n", ms,
		(unsigned long long)(on_batches / ms), (unsigned long long)(off_batches / off_ms),
		(unsigned long long)(lost_pm / 10), (unsigned long long)(lost_pm % 10),
		(unsigned long long)(d1 - d0), (unsigned long long)((d1 - d0) * 1000 / ms));
	return 0;
}
