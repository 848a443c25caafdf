/*
 * x86_time.c - the PC's clocks as kernel/time sees them: the TSC (calibrated
 * by tsc.c) as the clock source, and PIT channel 0 (pit.c) as a clock event
 * device, periodic or one-shot, on ISA IRQ 0 through kernel/irq. Also the
 * small host glue kernel/time needs (time_port.h).
 */
#include <stdarg.h>
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/pit.h>
#include <asm/tsc.h>
#include <asm/x86_time.h>
#include <asm/apic.h>
#include <irq/interrupt.h>
#include <time/time.h>
#include <time/clockevent.h>
#include <time/clocksource.h>
#include <time/time_port.h>
#include <kernel/printk.h>
#include <kernel/format.h>
#include <kernel/errno.h>

#define TSC_RATING        300     /* best clock source here: fast to read, fine-grained */
#define TSC_SHIFT         24      /* cycles -> ns: ns = cycles * mult >> 24 */
#define PIT_CE_RATING     100     /* worst clock event: slow port I/O, 16-bit counter */
#define PIT_MAX_TICKS     65535u  /* one-shot counts (the 16-bit counter) */
#define PIT_MIN_DELTA_NS  2000u   /* shorter delays are not worth the reprogramming */

/* ---- time_port.h ---- */
unsigned long time_port_irq_save(void) { return irq_save_flags(); }
void time_port_irq_restore(unsigned long flags) { irq_restore_flags(flags); }
/* Wait for the next interrupt and return with interrupts off again, as time_port.h requires. */
void time_port_idle(void)
{
	cpu_sti_hlt();
	cpu_cli();
}

void time_port_log(int level, const char *fmt, ...)
{
	char line[200];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printk(level, "%s\n", line);
}

/* ---- TSC clock source ---- */
static uint64_t tsc_read(struct clocksource *cs)
{
	(void)cs;
	return rdtsc();
}

static struct clocksource tsc_clocksource = {
	.name = "tsc",
	.read = tsc_read,
	.mask = UINT64_MAX,
	.shift = TSC_SHIFT,
	.rating = TSC_RATING,
};

/* ---- PIT clock event ---- */
static int pit_ce_periodic(struct clock_event_device *dev, uint32_t hz)
{
	(void)dev;
	pit_set_periodic(hz);
	return 0;
}

static int pit_ce_next_event(struct clock_event_device *dev, uint64_t delta_ns)
{
	uint64_t ticks = (delta_ns * PIT_HZ + NSEC_PER_SEC - 1) / NSEC_PER_SEC;

	(void)dev;
	if (ticks > PIT_MAX_TICKS)
		return -ERANGE;
	pit_set_oneshot(ticks ? (uint32_t)ticks : 1u);
	return 0;
}

static int pit_ce_shutdown(struct clock_event_device *dev)
{
	(void)dev;
	pit_stop();
	return 0;
}

static struct clock_event_device pit_clockevent = {
	.name = "pit",
	.features = CLOCK_EVT_FEAT_PERIODIC | CLOCK_EVT_FEAT_ONESHOT,
	.set_periodic = pit_ce_periodic,
	.set_next_event = pit_ce_next_event,
	.shutdown = pit_ce_shutdown,
	.min_delta_ns = PIT_MIN_DELTA_NS,
	.max_delta_ns = (uint64_t)PIT_MAX_TICKS * NSEC_PER_SEC / PIT_HZ,
	.rating = PIT_CE_RATING,
};

/* IRQ 0: the PIT has no status register, so every IRQ 0 is its event. */
static irqreturn_t pit_interrupt(unsigned int irq, void *dev_id)
{
	struct clock_event_device *dev = dev_id;

	(void)irq;
	if (dev->event_handler)
		dev->event_handler(dev);
	return IRQ_HANDLED;
}

void x86_time_init(uint32_t hz)
{
	uint64_t khz = tsc_hz() / 1000;
	int isa_line = isa_irq_to_line(PIT_IRQ);
	unsigned int line = isa_line >= 0 ? (unsigned int)isa_line : PIT_IRQ;
	int err;

	time_init(hz);
	if (khz) {
		tsc_clocksource.mult = (uint32_t)((NSEC_PER_SEC << TSC_SHIFT) / tsc_hz());
		clocksource_register(&tsc_clocksource);
		pr_info("time: TSC at %u.%03u MHz (calibrated against PIT channel 2)\n",
			(unsigned int)(khz / 1000), (unsigned int)(khz % 1000));
	} else {
		pr_warn("time: TSC calibration failed; time comes from ticks only\n");
	}
	err = request_irq(line, pit_interrupt, IRQF_TRIGGER_RISING, "timer", &pit_clockevent);
	if (err)
		panic("x86_time_init: cannot get the timer's IRQ %u: %s", line, errno_name(err));
	clockevent_register(&pit_clockevent);
}
