/*
 * tsc.c - the time-stamp counter (Intel SDM 3B 17.17) calibrated against
 * PIT channel 2: we time a known number of PIT cycles several times and
 * take the median, which discards runs disturbed by an SMI or, under
 * emulation, by the host descheduling us.
 */
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/pit.h>
#include <asm/tsc.h>
#include <kernel/printk.h>

#define CAL_PIT_TICKS   11932   /* ~10 ms of PIT cycles per calibration run */
#define CAL_RUNS        5       /* runs; the median wins */
#define NS_PER_SEC      1000000000ull
#define TSC_SHIFT       16      /* fixed-point shift of the cycles->ns multiplier: 15 ppm at 1 GHz, no overflow below 2^32 cycles per split half */

static uint64_t hz;
static uint64_t base_tsc;
static uint64_t mult;           /* ns per cycle << TSC_SHIFT */

uint64_t tsc_calibrate(void)
{
	uint64_t runs[CAL_RUNS];
	unsigned long flags = irq_save_flags();

	for (int r = 0; r < CAL_RUNS; r++) {
		uint64_t t0 = rdtsc();
		pit_wait_ticks(CAL_PIT_TICKS);
		runs[r] = rdtsc() - t0;
	}
	irq_restore_flags(flags);
	/* Insertion sort of five values, then the middle one. */
	for (int i = 1; i < CAL_RUNS; i++)
		for (int j = i; j > 0 && runs[j] < runs[j - 1]; j--) {
			uint64_t t = runs[j]; runs[j] = runs[j - 1]; runs[j - 1] = t;
		}
	hz = runs[CAL_RUNS / 2] * PIT_HZ / CAL_PIT_TICKS;
	if (hz == 0)
		return 0;
	mult = (NS_PER_SEC << TSC_SHIFT) / hz;
	base_tsc = rdtsc();
	return hz;
}

uint64_t tsc_hz(void)
{
	return hz;
}

uint64_t tsc_cycles_to_ns(uint64_t cycles)
{
	/* Split to keep cycles * mult inside 64 bits for long uptimes. */
	uint64_t hi = cycles >> 32, lo = cycles & 0xFFFFFFFFu;
	return ((hi * mult) << (32 - TSC_SHIFT)) + ((lo * mult) >> TSC_SHIFT);
}

uint64_t tsc_ns(void)
{
	return hz ? tsc_cycles_to_ns(rdtsc() - base_tsc) : 0;
}
