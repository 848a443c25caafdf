/*
 * ata_race.c - the fault `ata-race[:SPREAD]`: make kernel/irq's
 * poll-against-interrupt race happen on purpose, thousands of times, so a
 * test can check that the core's exclusion holds on several CPUs
 * (tests/qemu/test_smp_race.py, docs/smp.md "The race test").
 *
 * The race: a poll of a line (a timer on CPU 0) runs the line's handlers
 * at the moment the line's interrupt arrives on another CPU. The core must
 * let exactly one of them run the handlers: the poll that finds the
 * interrupt's run in progress skips (kernel/irq's poll_busy), and the
 * interrupt that finds the poll's run in progress is marked pending and
 * replayed after it (poll_raced). The defences' own polls rarely meet an
 * interrupt: irqkit schedules them well after the typical latency. This
 * fault aims one more poll per interrupt waited for at the moment the
 * interrupt is due:
 *
 *   - the driver learns each channel's completion latency (the time from
 *     the expect_irq() of a phase to the handler claiming it, when an
 *     interrupt delivered it: an average over about the last 8), after
 *     RACE_LEARN_SAMPLES of them;
 *   - every expect_irq() (ata_hw_expect) then arms the channel's hrtimer
 *     (kernel/time: it runs on CPU 0) at that latency times a factor drawn
 *     evenly from [100 - SPREAD, 100 + SPREAD] % (a xorshift sequence,
 *     the same every boot; SPREAD default 50), so the polls sweep the time
 *     around the interrupt's arrival: before it (they find nothing), at it
 *     (the race), after it (nothing left to do);
 *   - the timer calls irq_poll(): the core's own poll path, the one the
 *     defences use. Nothing is simulated: the poll runs the real handler,
 *     which reads the real device.
 *
 * The outcomes are counted by what irq_poll() returned and printed by
 * `inject off ata-race` (and `ata`): a test adds them up against the
 * core's counters. With the channel's line on the same CPU as the timers
 * (CPU 0) the race cannot happen (the handler runs with interrupts off),
 * which the test uses as its control.
 */
#include "ata_internal.h"
#include <asm/cpu.h>
#include <asm/smp.h>
#include <irq/interrupt.h>
#include <kernel/cmdline.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/printk.h>
#include <time/hrtimer.h>
#include <time/time.h>

/* The fault's tunables. */
enum ata_race_tunables {
	RACE_DEFAULT_SPREAD = 50,   /* percent either side of the learned latency the polls are aimed at */
	RACE_MAX_SPREAD = 95,       /* at most: the earliest poll still after 5 % of the latency */
	RACE_LEARN_SAMPLES = 8,     /* completions by interrupt before the latency is trusted */
	RACE_AVG_SHIFT = 3,         /* the average weighs a new sample 1/2^3 (about the last 8) */
	RACE_MAX_AIM_US = 100000,   /* a latency above 100 ms is no interrupt worth racing: not aimed */
	RACE_SEED = 0x2545F491u,    /* the xorshift32 sequence's start (any non-zero value) */
};

#define RACE_NS_PER_US 1000u
#define RACE_PERCENT 100u

/* One channel's aiming. Written with ata_lock held (ata_hw_expect, the handler) or by the timer. */
struct race_chan {
	struct hrtimer timer;
	uint64_t phase_ns;        /* the start of the phase the timer is aimed at */
	uint64_t avg_ns;          /* learned latency (0: no sample yet) */
	uint32_t samples;         /* completions by interrupt learned from */
	volatile bool polling;    /* the timer's irq_poll() is running (so the handler is not learning from it) */
};

static struct {
	bool on;
	unsigned int spread;
	uint32_t rng;
	struct race_chan ch[ATA_MAX_CHANNELS];
	/* What the aimed polls got (irq_poll's return); written by the timer only (CPU 0). */
	uint64_t aimed, found, nothing, busy, deferred, refused;
	uint64_t started_ns;
} race;

static uint32_t race_next_random(void)
{
	uint32_t x = race.rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	race.rng = x;
	return x;
}

static void race_timer_fn(struct hrtimer *t)
{
	struct ata_channel *ch = t->arg;
	struct race_chan *rc = &race.ch[ch->index % ATA_MAX_CHANNELS];
	int ret;

	if (!race.on || ch->line < 0)
		return;
	rc->polling = true;
	ret = irq_poll((unsigned int)ch->line);
	rc->polling = false;
	race.aimed++;
	if (ret == IRQ_HANDLED)
		race.found++;
	else if (ret == IRQ_NONE)
		race.nothing++;
	else if (ret == -EBUSY)
		race.busy++;
	else if (ret == -EINPROGRESS)
		race.deferred++;
	else
		race.refused++;
}

void ata_race_aim(struct ata_channel *ch)
{
	struct race_chan *rc = &race.ch[ch->index % ATA_MAX_CHANNELS];
	uint64_t lo, span, at;

	if (!race.on || rc->samples < RACE_LEARN_SAMPLES || rc->avg_ns > RACE_MAX_AIM_US * (uint64_t)RACE_NS_PER_US)
		return;
	rc->phase_ns = ch->phase_start_ns;
	lo = rc->avg_ns * (RACE_PERCENT - race.spread) / RACE_PERCENT;
	span = rc->avg_ns * 2 * race.spread / RACE_PERCENT + 1;
	at = ch->phase_start_ns + lo + race_next_random() % span;
	hrtimer_start(&rc->timer, at);
}

void ata_race_learn(struct ata_channel *ch, irqreturn_t ret)
{
	struct race_chan *rc = &race.ch[ch->index % ATA_MAX_CHANNELS];
	uint64_t now, lat;

	/* Only claims an interrupt delivered (not this fault's poll, which would teach its own aim). */
	if (!race.on || ret != IRQ_HANDLED || (rc->polling && smp_processor_id() == 0))
		return;
	now = ktime_get_ns();
	if (!ch->phase_start_ns || now < ch->phase_start_ns)
		return;
	lat = now - ch->phase_start_ns;
	if (!rc->avg_ns)
		rc->avg_ns = lat;
	else if (lat >= rc->avg_ns)
		rc->avg_ns += (lat - rc->avg_ns) >> RACE_AVG_SHIFT;
	else
		rc->avg_ns -= (rc->avg_ns - lat) >> RACE_AVG_SHIFT;
	if (rc->samples < RACE_LEARN_SAMPLES)
		rc->samples++;
}

void ata_race_print(void)
{
	if (!race.on && !race.aimed)
		return;
	cprintf("ata-race: %s, spread %u %%: %llu polls aimed: %llu found the completion, %llu found nothing, "
		"%llu found the handler running, %llu left it to a pending interrupt, %llu refused\n",
		race.on ? "on" : "off", race.spread, (unsigned long long)race.aimed, (unsigned long long)race.found,
		(unsigned long long)race.nothing, (unsigned long long)race.busy, (unsigned long long)race.deferred,
		(unsigned long long)race.refused);
	for (unsigned int i = 0; i < ATA_MAX_CHANNELS; i++)
		if (race.ch[i].samples)
			cprintf("ata-race: %s learned latency %llu us\n", ata_channels[i].name,
				(unsigned long long)(race.ch[i].avg_ns / RACE_NS_PER_US));
}

static int race_on(const char *arg)
{
	unsigned long spread = RACE_DEFAULT_SPREAD, flags;
	unsigned int used = 0;

	if (arg && cmdline_parse_uint(arg, 0, RACE_MAX_SPREAD, &spread)) {
		pr_warn("ata-race: SPREAD is 0-%u (percent either side of the learned latency)\n", RACE_MAX_SPREAD);
		return -EINVAL;
	}
	if (race.on)
		return -EBUSY;
	flags = ata_hw_irq_save();
	race.spread = (unsigned int)spread;
	race.rng = RACE_SEED;
	race.aimed = race.found = race.nothing = race.busy = race.deferred = race.refused = 0;
	for (unsigned int i = 0; i < ATA_MAX_CHANNELS; i++) {
		struct ata_channel *ch = &ata_channels[i];

		race.ch[i] = (struct race_chan){ 0 };
		hrtimer_setup(&race.ch[i].timer, race_timer_fn, ch);
		used += ch->irq_requested && ch->line >= 0;
	}
	race.started_ns = ktime_get_ns();
	race.on = used != 0;
	ata_hw_irq_restore(flags);
	if (!used)
		return -ENODEV;
	pr_info("ata-race: a poll of each channel's line aimed at its learned completion latency +-%lu %% "
		"(after %u completions by interrupt)\n", spread, RACE_LEARN_SAMPLES);
	return 0;
}

static int race_off(void)
{
	unsigned long flags;

	if (!race.on)
		return 0;
	flags = ata_hw_irq_save();
	race.on = false;
	for (unsigned int i = 0; i < ATA_MAX_CHANNELS; i++)
		hrtimer_cancel(&race.ch[i].timer);
	ata_hw_irq_restore(flags);
	pr_info("ata-race: stopped after %llu ms\n", (unsigned long long)((ktime_get_ns() - race.started_ns) / 1000000u));
	ata_race_print();
	return 0;
}

FAULT(ata_race, "ata-race", "SPREAD",
      "a poll of the ATA line aimed at each interrupt's learned arrival +-SPREAD % (default 50): the poll-vs-interrupt race on purpose",
      race_on, race_off);
