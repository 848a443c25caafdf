/*
 * cpu_stall.c - stop CPU 1 for real: interrupts off, a spin of MS ms
 * (include/kernel/cpu_stall.h). Used by the faults ata-cpustall and
 * nvme-cpustall, which show that a driver's own time-out on a line whose
 * CPU did not run is "late", not "lost" (docs/defences.md, "A stalled CPU").
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/smp.h>
#include <asm/tsc.h>
#include <kernel/cmdline.h>
#include <kernel/cpu_stall.h>
#include <kernel/errno.h>
#include <kernel/printk.h>

/* Tunables of the CPU stop. */
enum {
	CPU_STALL_CPU = 1,            /* the CPU it stops (the tests route the line there) */
	CPU_STALL_DEFAULT_MS = 400,   /* longer than the drivers' own waits (ATA_IRQ_WAIT_MS, NVMe's): they end inside it */
	CPU_STALL_MAX_MS = 2000,      /* the longest stop (below the drivers' command time-outs) */
	CPU_STALL_START_WAIT_MS = 50, /* how long the kicker waits for CPU 1 to have interrupts off (bound) */
};
#define CPU_STALL_NS_PER_MS 1000000ull

/* On CPU 1 (its idle loop, interrupts on): interrupts off, then spin for the stop's MS of TSC time. */
static int cpu_stall_run(void *arg)
{
	struct cpu_stall *s = arg;
	unsigned long flags = irq_save_flags();
	uint64_t t0 = rdtsc(), ns = (uint64_t)s->ms * CPU_STALL_NS_PER_MS;

	__atomic_store_n(&s->spinning, 1, __ATOMIC_RELEASE);
	while (tsc_cycles_to_ns(rdtsc() - t0) < ns)
		__asm__ volatile("pause" ::: "memory");
	__atomic_store_n(&s->spinning, 0, __ATOMIC_RELEASE);
	irq_restore_flags(flags);
	return 0;
}

void cpu_stall_kick(struct cpu_stall *s)
{
	uint32_t st;
	uint64_t t0;

	/* Relaxed: the switch only; the work's state is read with acquire (cpu_work's contract). */
	if (!__atomic_load_n(&s->on, __ATOMIC_RELAXED) || smp_processor_id() == CPU_STALL_CPU ||
	    cpu_work_busy(CPU_STALL_CPU))
		return;
	st = __atomic_load_n(&s->work.state, __ATOMIC_ACQUIRE);
	if (st == CPU_WORK_QUEUED || st == CPU_WORK_RUNNING)
		return;
	cpu_work_init(&s->work, cpu_stall_run, s);
	if (cpu_work_queue(CPU_STALL_CPU, &s->work))
		return;
	/* Bounded: the caller's command goes out once CPU 1 has interrupts off, or after the bound. */
	t0 = rdtsc();
	while (!__atomic_load_n(&s->spinning, __ATOMIC_ACQUIRE)) {
		if (tsc_cycles_to_ns(rdtsc() - t0) >= (uint64_t)CPU_STALL_START_WAIT_MS * CPU_STALL_NS_PER_MS) {
			s->missed++;
			return;
		}
		__asm__ volatile("pause" ::: "memory");
	}
	s->stalls++;
}

int cpu_stall_on(struct cpu_stall *s, const char *arg)
{
	unsigned long ms = CPU_STALL_DEFAULT_MS;

	if (arg && cmdline_parse_uint(arg, 1, CPU_STALL_MAX_MS, &ms))
		return -EINVAL;
	if (!smp_cpu_online(CPU_STALL_CPU) || !tsc_hz())
		return -ENODEV;
	s->ms = (uint32_t)ms;
	__atomic_store_n(&s->on, true, __ATOMIC_RELAXED);
	return 0;
}

void cpu_stall_off(struct cpu_stall *s)
{
	__atomic_store_n(&s->on, false, __ATOMIC_RELAXED);
	pr_info("%s: CPU %u stopped %llu times (%llu did not start in %u ms)\n", s->name, (unsigned int)CPU_STALL_CPU,
		(unsigned long long)s->stalls, (unsigned long long)s->missed, (unsigned int)CPU_STALL_START_WAIT_MS);
}
