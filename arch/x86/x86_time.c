/*
 * x86_time.c - the PC's clocks as kernel/time sees them: the TSC (calibrated
 * by tsc.c) as the clock source, and PIT channel 0 (pit.c) as a clock event
 * device, periodic or one-shot, on ISA IRQ 0 through kernel/irq. Also the
 * small host glue kernel/time needs (time_port.h), and the `clocksource=`
 * and `clockevent=` boot parameters.
 *
 * Who wins by rating: clock sources TSC (300) > HPET main counter (250,
 * hpet.h) > jiffies (1); clock events LAPIC timer (150 when calibrated,
 * lapic_timer.c) > PIT (100) > HPET comparator (90, opt-in: see hpet.h).
 * The TSC wins because rdtsc is one instruction and QEMU's TSC runs at a
 * constant rate, where the HPET is an uncached MMIO read; the LAPIC timer
 * wins because it is the CPU's own and needs no IOAPIC. The parameters override the ratings
 * through clocksource_prefer()/clockevent_prefer(); x86_time_report()
 * says at the end of boot which devices are in use and why.
 */
#include <stdarg.h>
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/smp.h>
#include <asm/spinlock.h>
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
#include <kernel/string.h>

#define TSC_RATING        300     /* best clock source here: fast to read, fine-grained */
#define TSC_SHIFT         24      /* cycles -> ns: ns = cycles * mult >> 24 */
#define PIT_CE_RATING     100     /* worst clock event: slow port I/O, 16-bit counter */
#define PIT_MAX_TICKS     65535u  /* one-shot counts (the 16-bit counter) */
#define PIT_MIN_DELTA_NS  2000u   /* shorter delays are not worth the reprogramming */

/* ---- clocksource= / clockevent= ---- */

/* The choices of the two parameters: what is typed, and the device's name in kernel/time. */
struct time_choice {
	const char *param;   /* value of the boot parameter */
	const char *device;  /* struct clocksource / clock_event_device name */
};

static const struct time_choice clocksource_choices[] = {
	{ "tsc", "tsc" },          /* the time stamp counter (tsc.c), default */
	{ "hpet", "hpet" },        /* the HPET main counter (hpet.c) */
	{ "jiffies", "jiffies" },  /* ticks only: kernel/time's built-in, tick-driven (periodic tick) */
};

static const struct time_choice clockevent_choices[] = {
	{ "lapic", "lapic-timer" }, /* the local APIC timer (lapic_timer.c), default */
	{ "hpet", "hpet" },         /* an HPET comparator (hpet.c), where it has a free line */
	{ "pit", "pit" },           /* PIT channel 0 on ISA IRQ 0 (pit.c) */
};

static const char *want_clocksource;  /* device name asked for, NULL = by rating */
static const char *want_clockevent;

static int choose(const struct time_choice *c, unsigned int n, const char *value, const char **out)
{
	if (!value)
		return -EINVAL;
	for (unsigned int i = 0; i < n; i++)
		if (strcmp(value, c[i].param) == 0) {
			*out = c[i].device;
			return 0;
		}
	return -EINVAL;
}

int x86_time_param_clocksource(const char *value, void *arg)
{
	(void)arg;
	return choose(clocksource_choices, sizeof(clocksource_choices) / sizeof(clocksource_choices[0]),
		      value, &want_clocksource);
}

int x86_time_param_clockevent(const char *value, void *arg)
{
	(void)arg;
	return choose(clockevent_choices, sizeof(clockevent_choices) / sizeof(clockevent_choices[0]),
		      value, &want_clockevent);
}

void x86_time_report(void)
{
	const struct clocksource *cs = clocksource_current();
	const struct clock_event_device *ce = clockevent_current();

	pr_info("time: clock source %s (rating %d%s); tick on %s (rating %d%s), %s at %u Hz\n",
		cs ? cs->name : "none", cs ? cs->rating : 0,
		want_clocksource && cs && strcmp(cs->name, want_clocksource) == 0 ? ", chosen by clocksource=" : ", best rated",
		ce ? ce->name : "nothing", ce ? ce->rating : 0,
		want_clockevent && ce && strcmp(ce->name, want_clockevent) == 0 ? ", chosen by clockevent=" : ", best rated",
		time_tick_mode_name(time_tick_mode()), tick_hz());
	if (want_clocksource && (!cs || strcmp(cs->name, want_clocksource) != 0))
		pr_warn("time: clocksource=%s asked for, but there is no such clock source here (see above); using %s\n",
			want_clocksource, cs ? cs->name : "none");
	if (want_clockevent && (!ce || strcmp(ce->name, want_clockevent) != 0))
		pr_warn("time: clockevent=%s asked for, but there is no such clock event device here (see above); the tick runs on %s\n",
			want_clockevent, ce ? ce->name : "nothing");
}

/* ---- time_port.h ---- */
/*
 * kernel/time's critical sections on several CPUs: interrupts off on this
 * CPU and one recursive spin lock for all of kernel/time (its calls nest:
 * a timer callback run under it arms timers, ktime_get_ns() is called
 * inside). The owner is the CPU number, taken with the ticket lock's
 * acquire and given up with its release (asm/spinlock.h); `time_owner` and
 * `time_depth` are only written by the owner, and read by another CPU only
 * to compare with its own number, which it can never equal by mistake: a
 * CPU sees either a stale owner (someone else) or its own number, set by
 * itself. time_port_idle() gives the lock up while it halts (kernel/time
 * calls it from msleep's wait with the lock held) and takes it back after.
 */
#define TIME_NO_OWNER 0xFFFFFFFFu
static spinlock_t time_lock = SPINLOCK_INIT;
static volatile uint32_t time_owner = TIME_NO_OWNER;
static uint32_t time_depth;

unsigned long time_port_irq_save(void)
{
	unsigned long flags = irq_save_flags();
	uint32_t me = smp_processor_id();

	if (time_owner != me) {
		spin_lock(&time_lock);
		time_owner = me;
	}
	time_depth++;
	return flags;
}

void time_port_irq_restore(unsigned long flags)
{
	if (--time_depth == 0) {
		time_owner = TIME_NO_OWNER;
		spin_unlock(&time_lock);
	}
	irq_restore_flags(flags);
}

/* Give the lock up whole (whatever its depth) around a callback; interrupts stay off. */
unsigned long time_port_callback_begin(void)
{
	unsigned long depth = 0;

	if (time_owner == smp_processor_id()) {
		depth = time_depth;
		time_depth = 0;
		time_owner = TIME_NO_OWNER;
		spin_unlock(&time_lock);
	}
	return depth;
}

void time_port_callback_end(unsigned long depth)
{
	if (depth) {
		spin_lock(&time_lock);
		time_owner = smp_processor_id();
		time_depth = (uint32_t)depth;
	}
}

unsigned int time_port_cpu_id(void)
{
	return smp_processor_id();
}

/* Wait for the next interrupt and return with interrupts off again, as time_port.h requires. */
void time_port_idle(void)
{
	uint32_t depth = 0, me = smp_processor_id();

	if (time_owner == me) {
		depth = time_depth;
		time_depth = 0;
		time_owner = TIME_NO_OWNER;
		spin_unlock(&time_lock);
	}
	smp_idle_halt();
	if (depth) {
		spin_lock(&time_lock);
		time_owner = me;
		time_depth = depth;
	}
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
	if (want_clocksource)
		clocksource_prefer(want_clocksource);
	if (want_clockevent)
		clockevent_prefer(want_clockevent);
	if (khz) {
		tsc_clocksource.mult = (uint32_t)((NSEC_PER_SEC << TSC_SHIFT) / tsc_hz());
		clocksource_register(&tsc_clocksource);
		pr_info("time: TSC at %u.%03u MHz (calibrated against PIT channel 2)\n",
			(unsigned int)(khz / 1000), (unsigned int)(khz % 1000));
	} else {
		pr_warn("time: TSC calibration failed; time comes from ticks only\n");
	}
	err = request_irq(line, pit_interrupt, IRQF_TRIGGER_RISING | IRQF_TIMER, "timer", &pit_clockevent);
	if (err)
		panic("x86_time_init: cannot get the timer's IRQ %u: %s", line, errno_name(err));
	clockevent_register(&pit_clockevent);
}
