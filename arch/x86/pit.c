/*
 * pit.c - the Intel 8254 programmable interval timer (8254 data sheet).
 * Three 16-bit down counters clocked at 1.193182 MHz: channel 0 drives ISA
 * IRQ 0 (our periodic or one-shot clock event), channel 2 is gated by bit
 * 0 of port 0x61 and its output is readable in bit 5 there, which lets us
 * time a known interval without interrupts (TSC calibration, tsc.c).
 */
#include <stdint.h>
#include <asm/io.h>
#include <asm/cpu.h>
#include <asm/pit.h>

#define PIT_CH0      0x40   /* channel 0 data */
#define PIT_CH2      0x42   /* channel 2 data */
#define PIT_CMD      0x43   /* mode/command register */
#define PORT_61      0x61   /* system control port B (NMI status and control) */
#define P61_GATE2    0x01   /* channel 2 gate */
#define P61_SPEAKER  0x02   /* speaker data enable: keep it off */
#define P61_OUT2     0x20   /* channel 2 output state */

/* Command byte fields (8254 data sheet, control word format). */
#define CMD_CH0      0x00
#define CMD_CH2      0x80
#define CMD_LATCH    0x00   /* counter latch command (access bits 00) */
#define CMD_LOHI     0x30   /* access: low byte then high byte */
#define CMD_MODE0    0x00   /* interrupt on terminal count (one-shot) */
#define CMD_MODE2    0x04   /* rate generator (periodic) */
#define CMD_BINARY   0x00

#define PIT_MAX_COUNT 65536u          /* a count of 0 means 65536 */
#define CAL_SPIN_LIMIT 100000000u     /* polls of port 0x61 before giving up */

uint32_t pit_set_periodic(uint32_t hz)
{
	uint32_t div;

	if (hz == 0)
		hz = 1;
	div = (PIT_HZ + hz / 2) / hz;
	if (div < 2)
		div = 2;
	if (div > PIT_MAX_COUNT)
		div = PIT_MAX_COUNT;
	outb(PIT_CMD, CMD_CH0 | CMD_LOHI | CMD_MODE2 | CMD_BINARY);
	outb(PIT_CH0, div & 0xFF);
	outb(PIT_CH0, (div >> 8) & 0xFF);
	/* Actual rate in millihertz, so callers can report the rounding. */
	return (uint32_t)(((uint64_t)PIT_HZ * 1000u + div / 2) / div);
}

void pit_set_oneshot(uint32_t ticks)
{
	if (ticks < 1)
		ticks = 1;
	if (ticks > PIT_MAX_COUNT)
		ticks = PIT_MAX_COUNT;
	outb(PIT_CMD, CMD_CH0 | CMD_LOHI | CMD_MODE0 | CMD_BINARY);
	outb(PIT_CH0, ticks & 0xFF);
	outb(PIT_CH0, (ticks >> 8) & 0xFF);
}

void pit_stop(void)
{
	/* Mode 0 with a count written as low byte only never reaches terminal count
	 * before the next reprogramming: the simplest way to silence channel 0. */
	outb(PIT_CMD, CMD_CH0 | CMD_LOHI | CMD_MODE0 | CMD_BINARY);
	outb(PIT_CH0, 0);
}

uint16_t pit_read_counter0(void)
{
	unsigned long flags = irq_save_flags();
	uint16_t v;

	outb(PIT_CMD, CMD_CH0 | CMD_LATCH);
	v = inb(PIT_CH0);
	v |= (uint16_t)inb(PIT_CH0) << 8;
	irq_restore_flags(flags);
	return v;
}

void pit_wait_ticks(uint16_t ticks)
{
	uint8_t p = (inb(PORT_61) & ~(P61_SPEAKER | P61_GATE2));

	outb(PORT_61, p);                       /* gate low: counter holds */
	outb(PIT_CMD, CMD_CH2 | CMD_LOHI | CMD_MODE0 | CMD_BINARY);
	outb(PIT_CH2, ticks & 0xFF);
	outb(PIT_CH2, ticks >> 8);
	outb(PORT_61, p | P61_GATE2);           /* gate high: count down; OUT2 rises at 0 */
	for (uint32_t i = 0; i < CAL_SPIN_LIMIT; i++)
		if (inb(PORT_61) & P61_OUT2)
			break;
	outb(PORT_61, p);
}
