/*
 * cpu_stall.h - stop CPU 1 for real, for the faults that show a healthy
 * device's interrupt waiting on a CPU that does not run (ata-cpustall,
 * nvme-cpustall; kernel/cpu_stall.c).
 *
 * A driver's fault hook calls cpu_stall_kick() as a command or phase opens:
 * CPU 1 gets a cpu_work (include/kernel/cpu_work.h) that turns interrupts
 * off and spins the fault's MS of TSC time, as under a vCPU its host keeps
 * off or an SMI; the caller goes on once CPU 1 spins (bounded wait), so the
 * device's interrupt, routed to CPU 1 by the test, waits. Not from CPU 1
 * itself, nor while CPU 1 still spins from the last kick.
 *
 *   static struct cpu_stall stall = CPU_STALL_INIT("ata-cpustall");
 *   on:   err = cpu_stall_on(&stall, arg);   // arg: MS or NULL
 *   hook: cpu_stall_kick(&stall);
 *   off:  cpu_stall_off(&stall);             // prints what it did
 */
#ifndef KERNEL_CPU_STALL_H
#define KERNEL_CPU_STALL_H

#include <stdbool.h>
#include <stdint.h>
#include <kernel/cpu_work.h>

struct cpu_stall {
	const char *name;            /* the fault's name, for its report */
	bool on;                     /* the switch (relaxed: nothing else is published by it) */
	uint32_t ms;                 /* how long each stop spins */
	struct cpu_work work;
	uint32_t spinning;           /* 1 while CPU 1 spins with interrupts off (release by CPU 1, acquire by the kicker) */
	uint64_t stalls, missed;     /* stops made; stops CPU 1 did not start within the bound */
};

#define CPU_STALL_INIT(fault_name) { .name = (fault_name) }

int cpu_stall_on(struct cpu_stall *s, const char *arg);   /* -EINVAL bad MS, -ENODEV no CPU 1 or TSC */
void cpu_stall_kick(struct cpu_stall *s);
void cpu_stall_off(struct cpu_stall *s);

#endif /* KERNEL_CPU_STALL_H */
