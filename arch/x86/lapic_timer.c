/*
 * lapic_timer.c - the local APIC timer as a clock event device of
 * kernel/time (Intel SDM vol. 3A section 11.5.4 "APIC Timer": a 32-bit
 * down counter clocked by the bus or core crystal clock through the divide
 * configuration register; one-shot or periodic, interrupting through the
 * timer LVT). Its rate is not architecturally known, so it is measured
 * against PIT channel 2 (pit.c) the way tsc.c measures the TSC.
 *
 * Divide configuration: by 16. QEMU clocks the timer at 1 GHz before the
 * divider, real chipsets at 100-200 MHz (or the 25 MHz crystal on newer
 * cores): /16 gives 6-62 MHz, fine enough for microsecond events, and a
 * 32-bit count lasts 68 s or more, longer than any tick.
 *
 * Rating: above the PIT's (100, x86_time.c) and the HPET comparator's (90, hpet.c: opt-in
 * with clockevent=hpet), and only when the calibration runs agree; an unreliable
 * measurement registers the device below the PIT so it is listed but never drives the tick.
 *
 * See also: lapic.c (the registers), x86_time.c (the PIT clock event),
 * kernel/time/clockevent.h (the contract), docs/apic.md.
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/pit.h>
#include <asm/trap.h>
#include <asm/x86_irq.h>
#include <asm/smp.h>
#include <time/clockevent.h>
#include <time/time.h>
#include <kernel/errno.h>
#include <kernel/printk.h>

/* Tunables of the calibration and of the device, with their reasons. */
enum lapic_timer_tunables {
	LT_CAL_PIT_TICKS = 11932,       /* ~10 ms of PIT cycles per calibration run (as tsc.c) */
	LT_CAL_RUNS = 7,                /* runs at first; the lowest two give the rate and judge it */
	LT_CAL_RUNS_MAX = 49,           /* more (up to ~0.5 s) while the lowest two disagree: a busy host */
	LT_CAL_AGREE_PPM = 20000,       /* the lowest two runs agree within 2%: reliable */
	LT_MIN_HZ = 1000000,            /* a timer slower than 1 MHz after /16 is no real LAPIC */
	LT_RATING_RELIABLE = 150,       /* above the PIT's 100 and the HPET comparator's 90 */
	LT_RATING_UNRELIABLE = 50,      /* below the PIT: registered but never preferred */
	LT_MIN_DELTA_NS = 1000,         /* shortest one-shot worth programming (kernel/time's floor) */
};

#define LT_DIVIDE_BY_16     0x3u          /* divide configuration bits 3,1:0 = 0,11: divide by 16 */
#define LT_DIVIDER          16u           /* the divide that value selects */
#define LT_COUNT_MAX        0xFFFFFFFFu   /* the 32-bit initial count's largest value */
#define LT_STOP_COUNT       0u            /* writing initial count 0 stops the timer */
#define PPM                 1000000u

bool lapic_timer_disabled;
static uint32_t timer_hz;             /* counter decrements per second, after the divider */
static struct clockevent_conv timer_conv; /* ns -> counts at timer_hz, set after calibration */
/*
 * Whether the timer LVT holds one-shot mode with our vector, unmasked, and
 * the divide register /16, as lt_set_next_event() writes them: then arming
 * the next event is the initial count alone (a write to it restarts a
 * one-shot count, SDM 11.5.4), two register writes fewer per event. Every
 * write of the LVT or the divide register in this file clears it; outside
 * it only lapic.c's bring-up (mask_all_lvts() in lapic_init(), once, before
 * lapic_timer_init()) writes the timer LVT, so it cannot go stale.
 */
static bool oneshot_armed;

/* Whether the boot parameter `nolapic_timer` was given. */
int apic_param_nolapic_timer(const char *value, void *arg)
{
	(void)arg;
	if (value)
		return -EINVAL;
	lapic_timer_disabled = true;
	return 0;
}

uint32_t lapic_timer_hz(void)
{
	return timer_hz;
}

/* ------------------------------------------------------------------------
 * Calibration
 */

/* Counts the timer makes during LT_CAL_PIT_TICKS PIT cycles. Interrupts off. */
static uint32_t measure_once(void)
{
	uint32_t left;

	oneshot_armed = false;
	lapic_write(LAPIC_REG_LVT_TIMER, LAPIC_LVT_MASKED | LAPIC_TIMER_VECTOR);
	lapic_write(LAPIC_REG_TIMER_DIVIDE, LT_DIVIDE_BY_16);
	lapic_write(LAPIC_REG_TIMER_INITIAL, LT_COUNT_MAX);
	pit_wait_ticks(LT_CAL_PIT_TICKS);
	left = lapic_read(LAPIC_REG_TIMER_CURRENT);
	lapic_write(LAPIC_REG_TIMER_INITIAL, LT_STOP_COUNT);
	return LT_COUNT_MAX - left;
}

/* Puts @v into the sorted @runs[0..@n) (ascending). */
static void insert_run(uint32_t *runs, int n, uint32_t v)
{
	int j = n;

	for (; j > 0 && v < runs[j - 1]; j--)
		runs[j] = runs[j - 1];
	runs[j] = v;
}

/* How far the second lowest of the sorted @runs lies above the lowest, in ppm of the lowest. */
static uint32_t low_spread_ppm(const uint32_t *runs)
{
	return runs[0] ? (uint32_t)((uint64_t)(runs[1] - runs[0]) * PPM / runs[0]) : PPM;
}

/*
 * Measures the rate; RETURNS Hz (0 if the counter does not move), *spread_ppm of the lowest runs.
 * A run counts the timer from its start, before the PIT's gate opens, to the moment the CPU
 * reads it after seeing the PIT's output rise: a CPU that stands still in between (a virtual
 * CPU its host deschedules, an SMI) only adds counts, never takes any away. So the lowest runs
 * are the true ones, and the rest were stretched by stalls (by a random amount: two stretched
 * runs seldom agree): the lowest gives the rate, and the next one must agree with it. While it
 * does not (a busy host stretched most runs), more runs are made, up to LT_CAL_RUNS_MAX; a quiet
 * host (or QEMU under -icount) agrees after the first 7. A PIT wait cut short by its spin limit
 * (a broken PIT) gives one low run that the next does not confirm: unreliable.
 */
static uint32_t calibrate(uint32_t *spread_ppm)
{
	uint32_t runs[LT_CAL_RUNS_MAX];
	unsigned long flags = irq_save_flags();
	int n = 0;

	while (n < LT_CAL_RUNS || (n < LT_CAL_RUNS_MAX && low_spread_ppm(runs) > LT_CAL_AGREE_PPM)) {
		insert_run(runs, n, measure_once());
		n++;
	}
	irq_restore_flags(flags);
	*spread_ppm = low_spread_ppm(runs);
	return (uint32_t)((uint64_t)runs[0] * PIT_HZ / LT_CAL_PIT_TICKS);
}

/* ------------------------------------------------------------------------
 * The clock event device
 */

/* Never early (clockevent_ns_to_counts: at most one count late), no division for delays below 4.3 s. */
static uint32_t ns_to_counts(uint64_t ns)
{
	uint64_t counts = clockevent_ns_to_counts(&timer_conv, ns);

	return counts ? (counts > LT_COUNT_MAX ? LT_COUNT_MAX : (uint32_t)counts) : 1u;
}

/* Periodic mode at @hz on the LAPIC of the CPU this runs on. */
static int lt_periodic_here(uint32_t hz)
{
	uint32_t counts;

	if (hz == 0)
		return -EINVAL;
	counts = (timer_hz + hz / 2) / hz;
	lapic_write(LAPIC_REG_LVT_TIMER, LAPIC_LVT_TIMER_PERIODIC | LAPIC_TIMER_VECTOR);
	lapic_write(LAPIC_REG_TIMER_DIVIDE, LT_DIVIDE_BY_16);
	lapic_write(LAPIC_REG_TIMER_INITIAL, counts ? counts : 1u);
	return 0;
}

/*
 * The clock event device below is CPU 0's LAPIC timer: kernel/time runs
 * every timer on CPU 0 (docs/time.md, "Several CPUs"). Its operations write
 * the LAPIC of the CPU they run on, so they must run on CPU 0; one that is
 * called on another CPU (an hrtimer armed there, e.g. by an interrupt
 * handler) leaves the hardware alone and sends CPU 0 the wake-up IPI, whose
 * handler (lapic_timer_kick) runs the event handler there: it runs what is
 * due and programs CPU 0's timer for the earliest expiry, the new one
 * included (kernel/time's state is under its lock, so CPU 0 sees it).
 */
static int lt_set_periodic(struct clock_event_device *dev, uint32_t hz)
{
	(void)dev;
	if (smp_processor_id() != 0)
		return -EPERM;   /* the tick mode is chosen at boot, on CPU 0 */
	oneshot_armed = false;
	return lt_periodic_here(hz);
}

static int lt_set_next_event(struct clock_event_device *dev, uint64_t delta_ns)
{
	if (delta_ns > dev->max_delta_ns)
		return -ERANGE;
	if (smp_processor_id() != 0) {
		smp_send_wakeup(0);
		return 0;
	}
	if (!oneshot_armed) {
		/* One-shot mode: the LVT timer mode bits 00. */
		lapic_write(LAPIC_REG_LVT_TIMER, LAPIC_TIMER_VECTOR);
		lapic_write(LAPIC_REG_TIMER_DIVIDE, LT_DIVIDE_BY_16);
		oneshot_armed = true;
	}
	lapic_write(LAPIC_REG_TIMER_INITIAL, ns_to_counts(delta_ns));
	return 0;
}

static int lt_shutdown(struct clock_event_device *dev)
{
	(void)dev;
	if (smp_processor_id() != 0)
		return -EPERM;
	oneshot_armed = false;
	lapic_write(LAPIC_REG_LVT_TIMER, LAPIC_LVT_MASKED | LAPIC_TIMER_VECTOR);
	lapic_write(LAPIC_REG_TIMER_INITIAL, LT_STOP_COUNT);
	return 0;
}

static struct clock_event_device lapic_clockevent = {
	.name = "lapic-timer",
	.features = CLOCK_EVT_FEAT_PERIODIC | CLOCK_EVT_FEAT_ONESHOT,
	.set_periodic = lt_set_periodic,
	.set_next_event = lt_set_next_event,
	.shutdown = lt_shutdown,
	.min_delta_ns = LT_MIN_DELTA_NS,
};

/* The timer's vector: a system vector of irq.c, not a kernel/irq line (it is per CPU, never shared). */
static void lapic_timer_interrupt(struct trap_frame *f)
{
	(void)f;
	this_cpu()->ticks++;
	/* Only CPU 0's timer is kernel/time's device; an AP's counts its ticks. */
	if (smp_processor_id() == 0 && lapic_clockevent.event_handler)
		lapic_clockevent.event_handler(&lapic_clockevent);
	lapic_eoi();
}

void lapic_timer_kick(void)
{
	/* In periodic mode the next tick is never more than a period away, and
	 * an extra call would count a tick that did not happen. */
	if (smp_processor_id() == 0 && lapic_clockevent.state == CLOCKEVENT_ONESHOT &&
	    lapic_clockevent.event_handler)
		lapic_clockevent.event_handler(&lapic_clockevent);
}

int lapic_timer_start_ap(uint32_t hz)
{
	if (!timer_hz || smp_processor_id() == 0)
		return -ENODEV;
	return lt_periodic_here(hz);
}

int lapic_timer_init(void)
{
	uint32_t spread_ppm;
	bool reliable;
	int err;

	if (lapic_timer_disabled) {
		pr_info("LAPIC timer: not used (nolapic_timer)\n");
		return -ENODEV;
	}
	if (!lapic_ready()) {
		pr_info("LAPIC timer: no local APIC in use\n");
		return -ENODEV;
	}
	timer_hz = calibrate(&spread_ppm);
	if (timer_hz < LT_MIN_HZ) {
		pr_warn("LAPIC timer: counts at %u Hz after /%u, which no real LAPIC does; not used\n",
			timer_hz, LT_DIVIDER);
		timer_hz = 0;
		return -EIO;
	}
	clockevent_conv_init(&timer_conv, timer_hz);
	reliable = spread_ppm <= LT_CAL_AGREE_PPM;
	lapic_clockevent.rating = reliable ? LT_RATING_RELIABLE : LT_RATING_UNRELIABLE;
	lapic_clockevent.max_delta_ns = (uint64_t)LT_COUNT_MAX * NSEC_PER_SEC / timer_hz;
	x86_set_system_vector(LAPIC_TIMER_VECTOR, lapic_timer_interrupt, "lapic-timer");
	pr_info("LAPIC timer: %u.%03u MHz (bus clock /%u, against PIT channel 2, runs within %u ppm%s)\n",
		timer_hz / 1000000u, (timer_hz / 1000u) % 1000u, LT_DIVIDER, spread_ppm,
		reliable ? "" : ": unreliable, rated below the PIT");
	err = clockevent_register(&lapic_clockevent);
	if (err)
		x86_set_system_vector(LAPIC_TIMER_VECTOR, NULL, NULL);
	return err;
}

/* ------------------------------------------------------------------------
 * Selftests (selftest=lapic_timer)
 */
#include <kernel/selftest.h>
#include <asm/tsc.h>

#define ST_WAIT_NS     50000000ull  /* give the timer up to 50 ms of TSC time to fire */

SELFTEST(lapic_timer, drives_the_tick_when_rated_above_the_pit)
{
	uint64_t e0, t0;

	if (!timer_hz || lapic_clockevent.rating != LT_RATING_RELIABLE) {
		selftest_skip(t, "LAPIC timer not in use or unreliable");
		return;
	}
	if (clockevent_preferred() && clockevent_current() != &lapic_clockevent) {
		selftest_skip(t, "clockevent= chose another device for the tick");
		return;
	}
	ST_EXPECT(t, clockevent_current() == &lapic_clockevent, "the tick runs on %s",
		  clockevent_current() ? clockevent_current()->name : "nothing");
	e0 = lapic_clockevent.events;
	t0 = tsc_ns();
	while (lapic_clockevent.events == e0 && tsc_ns() - t0 < ST_WAIT_NS)
		cpu_relax();
	ST_EXPECT(t, lapic_clockevent.events > e0, "no LAPIC timer event in %llu ms",
		  (unsigned long long)(ST_WAIT_NS / NSEC_PER_MSEC));
}
