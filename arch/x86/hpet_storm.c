/*
 * hpet_storm.c - the fault `hpet-storm[:HZ[/slow]]`: a storm of claimed
 * interrupts from a real device. A spare HPET comparator (not the clock
 * event's; IA-PC HPET specification 1.0a, section 2.3.9: periodic mode)
 * runs periodically at HZ (default 200,000 a second) edge-triggered on a
 * free IOAPIC input (q35: one of GSIs 16-23 that no PCI function uses; the
 * pc machine's HPET can reach only GSI 2, the PIT's, so there is none).
 * Its driver here is a proper one: each interrupt whose period has come is
 * its device's work (it counts the periods, as a tick driver would) and
 * is claimed. Nothing is wrong with the delivery; the device is simply far
 * faster than is useful, and at 200 kHz it takes most of the CPU: the case
 * kernel/irq's claimed-storm defence is for (spurious.c, issue 19). The
 * defence throttles the line (masks it, polls the handler every 1 ms: the
 * handler then counts all the periods gone by, nothing is lost).
 *
 * `inject off hpet-storm` stops the comparator and keeps the driver (its
 * handler stays on the line, as a driver whose device went quiet), so the
 * line's recovery can be watched: after its back-off the defence re-enables
 * it and, a storm window later, declares the claimed storm over.
 *
 * With "/slow" the driver also registers a storm callback
 * (irq_set_storm_handler) that slows its device itself, to HPET_STORM_SLOW_HZ,
 * and the line stays on interrupts. See also hpet.c (the comparator) and
 * docs/storms.md.
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/x86_irq.h>
#include <irq/interrupt.h>
#include <irq/irqchip.h>
#include <kernel/cmdline.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <time/time.h>
#include <hpet.h>

/* The fault's tunables. */
enum hpet_storm_tunables {
	/* Interrupts a second without HZ: 200,000, above the irqkit profile's bound of 150,000 claimed a second. */
	HPET_STORM_DEFAULT_HZ = 200000,
	/* Slowest: below this nobody would call it a storm. */
	HPET_STORM_MIN_HZ = 100,
	/* Fastest: a period of 100 ticks of QEMU's 100 MHz HPET; more leaves TCG nothing else. */
	HPET_STORM_MAX_HZ = 1000000,
	/* The rate the "/slow" driver's storm callback slows its device to. */
	HPET_STORM_SLOW_HZ = 1000,
	/*
	 * The storm has begun at its rate when this many interrupts came within
	 * HPET_STORM_RATE_NS, or within HPET_STORM_RATE_PERIODS of its periods
	 * when that is longer (5,000 a second brings 5 a millisecond): QEMU
	 * 7.2's comparator delivers one interrupt at once and the periodic ones
	 * only about 0.6 s (of guest time, -icount) later, so the time from the
	 * injection is not the storm's.
	 */
	HPET_STORM_RATE_RUN = 8,
	HPET_STORM_RATE_NS = 1000000,
	HPET_STORM_RATE_PERIODS = 2 * HPET_STORM_RATE_RUN,
	/* Longest argument looked at ("200000/slow"). */
	HPET_STORM_ARG_MAX = 24,
};

static struct {
	bool on;
	bool registered;       /* the handler is on the line (from the first injection on) */
	bool slow;             /* the storm callback is registered */
	int timer;             /* the spare comparator */
	unsigned int gsi;      /* its line */
	uint32_t hz;
	uint32_t period;       /* in HPET ticks */
	uint32_t next_match;   /* counter value of the next period's match */
	uint64_t started_ns;
	uint64_t calls;        /* handler calls (interrupts and polls) */
	uint64_t claimed;      /* of them, claimed: at least one period had come */
	uint64_t early;        /* of them, before the next period (IRQ_NONE) */
	uint64_t periods;      /* periods counted */
	uint64_t slowed;       /* storm callbacks that slowed the device */
	uint64_t recent[HPET_STORM_RATE_RUN]; /* the last interrupts' times, until the storm is at its rate */
	bool at_rate;          /* it is (said once, with the first of that run) */
} storm = { .timer = -1 };

/*
 * Until the storm runs at its rate: keep the interrupts' times and say,
 * once, when HPET_STORM_RATE_RUN of them came within the span
 * (HPET_STORM_RATE_NS, or HPET_STORM_RATE_PERIODS of the comparator's
 * periods if longer), from the first of them (make bench-storm measures
 * its containment from there). A clock read per interrupt until then,
 * none after.
 */
static void hpet_storm_note_rate(void)
{
	uint64_t now = ktime_get_ns_fast(), first;
	uint64_t span = (uint64_t)HPET_STORM_RATE_PERIODS * 1000000000u / storm.hz;
	unsigned int i = (unsigned int)(storm.calls % HPET_STORM_RATE_RUN);

	if (span < HPET_STORM_RATE_NS)
		span = HPET_STORM_RATE_NS;
	first = storm.recent[i];  /* the time HPET_STORM_RATE_RUN interrupts ago (0: not yet that many) */
	storm.recent[i] = now;
	if (storm.calls < HPET_STORM_RATE_RUN || now - first >= span)
		return;
	storm.at_rate = true;
	pr_info("hpet-storm: interrupts at its rate from %llu.%06llu s (%u within %llu us)\n",
		(unsigned long long)(first / 1000000000u), (unsigned long long)(first % 1000000000u / 1000u),
		(unsigned int)HPET_STORM_RATE_RUN, (unsigned long long)(span / 1000u));
}

/* Periods at 100 MHz for @hz, at least 1. */
static uint32_t period_of(uint32_t hz)
{
	uint32_t f = hpet_freq();

	return f / hz ? f / hz : 1;
}

/*
 * The handler: the periods gone by since the last call are this device's
 * work. Claimed when at least one came (always, for an interrupt on time;
 * a poll of the throttled line finds many). CONTEXT: the line's handler.
 */
static irqreturn_t hpet_storm_irq(unsigned int irq, void *dev_id)
{
	uint32_t now = hpet_counter32(), n;

	(void)irq;
	(void)dev_id;
	if (!storm.at_rate)  /* (before the defence throttles the line: no polls yet) */
		hpet_storm_note_rate();
	storm.calls++;
	if (!hpet_passed(now, storm.next_match)) {
		storm.early++;
		return IRQ_NONE;
	}
	/* Far behind (> 2^31 ticks, 21 s at 100 MHz): start over from now. */
	if (now - storm.next_match >= HPET_MAX_DELTA_TICKS)
		storm.next_match = now;
	n = (now - storm.next_match) / storm.period + 1;
	storm.next_match += n * storm.period;
	storm.periods += n;
	storm.claimed++;
	return IRQ_HANDLED;
}

/* The storm callback of "/slow": the device is slowed to HPET_STORM_SLOW_HZ. CONTEXT: the line's handler. */
static enum irq_storm_answer hpet_storm_slow_down(unsigned int irq, void *dev_id, unsigned int claimed,
						  uint64_t window_ns)
{
	uint32_t first;

	(void)dev_id;
	(void)claimed;
	(void)window_ns;
	if (storm.hz <= HPET_STORM_SLOW_HZ)
		return IRQ_STORM_THROTTLE;  /* slow already: nothing more this driver can do */
	storm.period = period_of(HPET_STORM_SLOW_HZ);
	if (hpet_spare_periodic(storm.timer, irq, storm.period, &first))
		return IRQ_STORM_THROTTLE;
	storm.hz = HPET_STORM_SLOW_HZ;
	storm.next_match = first;
	storm.slowed++;
	return IRQ_STORM_SLOWED;
}

static int parse_arg(const char *arg, unsigned long *hz, bool *slow)
{
	char buf[HPET_STORM_ARG_MAX];
	char *slash;

	*hz = HPET_STORM_DEFAULT_HZ;
	*slow = false;
	if (!arg || !*arg)
		return 0;
	if (strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strlcpy(buf, arg, sizeof(buf));
	slash = strchr(buf, '/');
	if (slash) {
		*slash = 0;
		if (strcmp(slash + 1, "slow"))
			return -EINVAL;
		*slow = true;
	}
	if (*buf && cmdline_parse_uint(buf, HPET_STORM_MIN_HZ, HPET_STORM_MAX_HZ, hz))
		return -EINVAL;
	return 0;
}

static int hpet_storm_on(const char *arg)
{
	unsigned long hz;
	uint32_t first;
	bool slow;
	int timer, gsi = -1, err;

	if (storm.on) {
		pr_warn("hpet-storm: already storming on GSI %u; `inject off hpet-storm` first\n", storm.gsi);
		return -EBUSY;
	}
	if (parse_arg(arg, &hz, &slow)) {
		pr_warn("hpet-storm: HPET-STORM[:HZ[/slow]], HZ %u-%u (default %u)\n", HPET_STORM_MIN_HZ,
			HPET_STORM_MAX_HZ, HPET_STORM_DEFAULT_HZ);
		return -EINVAL;
	}
	if (!storm.registered) {
		timer = hpet_spare_pick(&gsi);
		if (timer < 0) {
			pr_warn("hpet-storm: no spare HPET comparator with a free IOAPIC line (%s): needs q35 in IOAPIC mode\n",
				errno_name(timer));
			return timer;
		}
		err = ioapic_setup_line((unsigned int)gsi, IRQ_TYPE_EDGE_RISING);
		if (!err)
			err = request_irq((unsigned int)gsi, hpet_storm_irq, IRQF_TRIGGER_RISING, "hpet-storm", &storm);
		if (err) {
			pr_warn("hpet-storm: cannot take GSI %d: %s\n", gsi, errno_name(err));
			return err;
		}
		storm.timer = timer;
		storm.gsi = (unsigned int)gsi;
		storm.registered = true;
	}
	timer = storm.timer;
	storm.hz = (uint32_t)hz;
	storm.period = period_of(storm.hz);
	storm.slow = slow;
	storm.calls = storm.claimed = storm.early = storm.periods = storm.slowed = 0;
	storm.at_rate = false;
	memset(storm.recent, 0, sizeof(storm.recent));
	irq_set_storm_handler(storm.gsi, &storm, slow ? hpet_storm_slow_down : NULL);
	storm.started_ns = ktime_get_ns();
	storm.on = true;
	err = hpet_spare_periodic(timer, storm.gsi, storm.period, &first);
	if (err) {
		storm.on = false;
		pr_warn("hpet-storm: comparator %d did not start: %s\n", timer, errno_name(err));
		return err;
	}
	storm.next_match = first;
	pr_info("hpet-storm: HPET comparator %d periodic at %lu/s on GSI %u, edge; its driver claims every "
		"period%s\n", timer, hz, storm.gsi, slow ? "; its storm callback slows it to 1000/s" : "");
	return 0;
}

static int hpet_storm_off(void)
{
	uint64_t ms;

	if (!storm.on)
		return 0;
	hpet_spare_stop(storm.timer);
	storm.on = false;
	ms = (ktime_get_ns() - storm.started_ns) / 1000000u;
	pr_info("hpet-storm: stopped after %llu ms: %llu handler calls, %llu claimed, %llu early, %llu periods "
		"counted, slowed %llu times; the driver stays on GSI %u\n", (unsigned long long)ms, (unsigned long long)storm.calls,
		(unsigned long long)storm.claimed, (unsigned long long)storm.early,
		(unsigned long long)storm.periods, (unsigned long long)storm.slowed, storm.gsi);
	return 0;
}

FAULT(hpet_storm, "hpet-storm", "[HZ][/slow]",
      "a spare HPET comparator interrupts HZ times a second (default 200000), each claimed: a storm of "
      "claimed interrupts (q35, IOAPIC); /slow: its driver's storm callback slows it",
      hpet_storm_on, hpet_storm_off);
