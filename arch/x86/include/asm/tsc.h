/* The time-stamp counter as a calibrated clock (arch/x86/tsc.c). */
#ifndef ASM_TSC_H
#define ASM_TSC_H

#include <stdint.h>

/* tsc_calibrate - measure the TSC against PIT channel 2. RETURNS Hz, 0 on failure. */
uint64_t tsc_calibrate(void);
uint64_t tsc_hz(void);
/* tsc_ns - nanoseconds since calibration, from the TSC (0 before it). */
uint64_t tsc_ns(void);
uint64_t tsc_cycles_to_ns(uint64_t cycles);

#endif
