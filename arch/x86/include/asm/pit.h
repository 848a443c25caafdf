/* The 8253/8254 programmable interval timer (arch/x86/pit.c). */
#ifndef ASM_PIT_H
#define ASM_PIT_H

#include <stdint.h>

#define PIT_HZ      1193182u   /* input clock of every PIT channel, Hz */
#define PIT_IRQ     0          /* channel 0 drives ISA IRQ 0 */

/* pit_set_periodic - channel 0 in mode 2 (rate generator) at @hz. RETURNS the real rate in mHz. */
uint32_t pit_set_periodic(uint32_t hz);
/* pit_set_oneshot - channel 0 in mode 0: one interrupt after @ticks PIT cycles (1..65536). */
void pit_set_oneshot(uint32_t ticks);
void pit_stop(void);
/* pit_wait_ticks - busy-wait @ticks PIT cycles on channel 2 (calibration; no interrupt). */
void pit_wait_ticks(uint16_t ticks);
uint16_t pit_read_counter0(void);

#endif
