/* The x86 clocks under kernel/time (arch/x86/x86_time.c). */
#ifndef ASM_X86_TIME_H
#define ASM_X86_TIME_H

#include <stdint.h>

/* x86_time_init - register the TSC clock source and the PIT clock event, start time at @hz. */
void x86_time_init(uint32_t hz);

#endif
