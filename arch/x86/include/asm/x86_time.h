/* The x86 clocks under kernel/time (arch/x86/x86_time.c). */
#ifndef ASM_X86_TIME_H
#define ASM_X86_TIME_H

#include <stdint.h>

/* x86_time_init - register the TSC clock source and the PIT clock event, start time at @hz. */
void x86_time_init(uint32_t hz);

/*
 * x86_time_param_clocksource / x86_time_param_clockevent - setters of the
 * `clocksource=tsc|hpet|jiffies` and `clockevent=lapic|hpet|pit` rows of
 * kernel/params.c: the device x86_time_init() asks kernel/time to prefer
 * over the ratings. RETURNS 0, or -EINVAL for another value.
 */
int x86_time_param_clocksource(const char *value, void *arg);
int x86_time_param_clockevent(const char *value, void *arg);

/*
 * x86_time_report - one boot-log line naming the clock source and the tick
 * device in use, whether by rating or by parameter, and a warning for a
 * parameter whose device never registered.
 * CONTEXT: boot, after every time driver registered.
 */
void x86_time_report(void);

#endif
