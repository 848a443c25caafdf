/* The `cpuload` shell command (kernel/cpuload.c): the share of CPU time interrupts take. */
#ifndef KERNEL_CPULOAD_H
#define KERNEL_CPULOAD_H

/*
 * cpuload_cmd - shell "cpuload [MS]": run a busy loop for MS ms (default
 * 500) of TSC time with interrupts on, and for a quarter of that with them
 * off; the loop's speed with interrupts on relative to its speed without is
 * the share of the CPU left to the shell, the rest went to interrupts.
 * Prints both rates, the share lost and the interrupts delivered meanwhile.
 * RETURNS 0; -EINVAL for a bad MS; -ENODEV without a calibrated TSC.
 */
int cpuload_cmd(int argc, char **argv);

#endif
