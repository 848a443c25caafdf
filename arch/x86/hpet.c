/*
 * hpet.c - the High Precision Event Timer (IA-PC HPET specification 1.0a)
 * as a kernel/time clock source and clock event device.
 *
 * An HPET block is a free-running up-counter (the main counter, 32 or 64
 * bits, period in femtoseconds read from GCAP_ID) and 3-32 comparators.
 * Each comparator interrupts when the counter reaches its value, once
 * (one-shot) or every N ticks (periodic, where capable), on one of the
 * IOAPIC inputs its Tn_INT_ROUTE_CAP bits allow. Two other delivery
 * ways are not used: LegacyReplacement (timer 0 takes the PIT's IRQ 0 and
 * timer 1 the RTC's IRQ 8, silencing both chips) is kept off, and FSB
 * (MSI-style) delivery is not implemented.
 *
 * Used here:
 *   clock source  the main counter, "hpet", rating HPET_CS_RATING (below
 *                 the TSC: see hpet.h); 64-bit counters read hi/lo/hi
 *   clock event   one comparator in 32-bit mode, one-shot and (where
 *                 capable) periodic, edge-triggered on a GSI that no ISA
 *                 IRQ, PCI function (also through ICH9's PIRQ wiring) or
 *                 other handler uses, through
 *                 kernel/irq (request_irq). On QEMU's pc machine the only
 *                 GSI the comparators can use is 2, the PIT's IRQ 0: no
 *                 clock event there, and the boot log says why.
 *
 * The one-shot race. A comparator only fires when the counter *becomes*
 * equal to it. Program it too close, and the counter may be past the value
 * by the time the write lands: the event then comes only after the counter
 * wraps (43 s at 100 MHz for 32 bits). So set_next_event writes the
 * comparator, reads the counter back and returns -ETIME if it has already
 * passed; kernel/time then retries with a longer delay. (QEMU fires a
 * comparator written in the past at once instead, so there the race costs
 * an early event, which the interrupt handler recognises and drops.)
 *
 * All accesses are 32 bits wide (the spec allows 32-bit halves; QEMU wants
 * them). The block is mapped uncached by paging.c (all of 0xC0000000 up).
 *
 * See also: hpet_caps.c (pure logic), acpi.c (the table), x86_time.c (the
 * TSC and PIT, and the clocksource=/clockevent= parameters), ioapic.c,
 * kernel/time/clockevent.h (the contract), docs/time.md.
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/paging.h>
#include <asm/pit.h>
#include <asm/tsc.h>
#include <irq/interrupt.h>
#include <irq/irqchip.h>
#include <irq/stats.h>
#include <irq/irq_config.h>
#include <time/clockevent.h>
#include <time/clocksource.h>
#include <time/time.h>
#include <drivers/pci.h>
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/printk.h>
#include <firmware.h>
#include <hpet.h>

#define FIRST_NON_ISA_GSI 16u   /* GSIs 0-15 are the ISA IRQs' (and the 8259's) on a PC */
#define ISA_IRQS          16u

/* What the comparator was last told to do. */
enum hpet_ce_mode {
	HPET_CE_OFF = 0,        /* interrupts disabled */
	HPET_CE_ONESHOT,        /* one-shot, armed_cmp is the value written */
	HPET_CE_PERIODIC,       /* periodic */
};

static struct {
	uintptr_t base;                 /* MMIO base, 0 if no HPET in use */
	struct hpet_caps caps;
	int timer;                      /* comparator of the clock event, -1 if none */
	int gsi;                        /* its line, -1 if none */
	uint32_t conf_base;             /* Tn_CONF bits kept in every mode: 32-bit mode, route */
	bool periodic_capable;
	enum hpet_ce_mode mode;
	uint32_t armed_cmp;             /* one-shot comparator value */
	bool armed;                     /* one-shot: programmed, its match not taken yet */
	uint32_t next_match;            /* periodic: counter value of the next period's match */
	uint32_t period_ticks;          /* periodic: the period */
	struct hpet_stats stats;
} hpet = { .timer = -1, .gsi = -1 };

/* ------------------------------------------------------------------------
 * Register access: 32-bit loads and stores only.
 */
static uint32_t hpet_read(uint32_t reg)
{
	return mmio_read32(hpet.base + reg);
}

static void hpet_write(uint32_t reg, uint32_t value)
{
	mmio_write32(hpet.base + reg, value);
}

static uint32_t timer_reg(int timer, uint32_t reg)
{
	return HPET_REG_TIMER_BASE + (uint32_t)timer * HPET_REG_TIMER_STRIDE + reg;
}

static uint32_t counter_lo(void)
{
	return hpet_read(HPET_REG_MAIN_CNT_LO);
}

/* The 64-bit counter from two 32-bit halves: if the high half changed
 * while the low one was read, the low one wrapped; read it again. */
static uint64_t counter_read64(void)
{
	uint32_t hi = hpet_read(HPET_REG_MAIN_CNT_HI);
	uint32_t lo = hpet_read(HPET_REG_MAIN_CNT_LO);
	uint32_t hi2 = hpet_read(HPET_REG_MAIN_CNT_HI);

	if (hi2 != hi)
		lo = hpet_read(HPET_REG_MAIN_CNT_LO);
	return (uint64_t)hi2 << 32 | lo;
}

/* ------------------------------------------------------------------------
 * Clock source: the main counter
 */
static uint64_t hpet_cs_read(struct clocksource *cs)
{
	(void)cs;
	return hpet.caps.counter_64bit ? counter_read64() : counter_lo();
}

static struct clocksource hpet_clocksource = {
	.name = "hpet",
	.read = hpet_cs_read,
	.rating = HPET_CS_RATING,
};

/* ------------------------------------------------------------------------
 * Clock event: one comparator
 */
static void set_conf(uint32_t bits)
{
	hpet_write(timer_reg(hpet.timer, HPET_REG_TN_CONF), hpet.conf_base | bits);
}

static int hpet_ce_next_event(struct clock_event_device *dev, uint64_t delta_ns)
{
	uint32_t ticks, cmp;

	(void)dev;
	ticks = hpet_ns_to_ticks(delta_ns, hpet.caps.freq_hz, HPET_MAX_DELTA_TICKS);
	if (hpet.mode != HPET_CE_ONESHOT) {
		set_conf(HPET_TN_INT_ENABLE);
		hpet.mode = HPET_CE_ONESHOT;
	}
	cmp = counter_lo() + ticks;
	hpet.armed_cmp = cmp;
	hpet.armed = true;
	hpet_write(timer_reg(hpet.timer, HPET_REG_TN_CMP_LO), cmp);
	/* The race: if the counter is already past the value, this match is
	 * lost until the counter wraps. Tell kernel/time to try later. */
	if (hpet_passed(counter_lo(), cmp)) {
		hpet.stats.passed_on_write++;
		return -ETIME;
	}
	return 0;
}

static int hpet_ce_periodic(struct clock_event_device *dev, uint32_t hz)
{
	uint32_t period, lead, first;

	(void)dev;
	if (!hz || !hpet.periodic_capable)
		return -EINVAL;
	period = (hpet.caps.freq_hz + hz / 2) / hz;
	if (period == 0 || period > HPET_MAX_DELTA_TICKS)
		return -ERANGE;
	hpet.mode = HPET_CE_PERIODIC;
	lead = period;
	for (int i = 0; i < HPET_PERIODIC_TRIES; i++, lead *= 2) {
		/* With VAL_SET, the first comparator write sets the time of the
		 * first interrupt; the second sets the period added after each. */
		set_conf(HPET_TN_INT_ENABLE | HPET_TN_PERIODIC | HPET_TN_VAL_SET);
		first = counter_lo() + lead;
		hpet.next_match = first;
		hpet.period_ticks = period;
		hpet_write(timer_reg(hpet.timer, HPET_REG_TN_CMP_LO), first);
		hpet_write(timer_reg(hpet.timer, HPET_REG_TN_CMP_LO), period);
		if (!hpet_passed(counter_lo(), first))
			return 0;
		hpet.stats.passed_on_write++;
	}
	set_conf(0);
	hpet.mode = HPET_CE_OFF;
	return -ETIME;
}

static int hpet_ce_shutdown(struct clock_event_device *dev)
{
	(void)dev;
	hpet.armed = false;
	set_conf(0);
	hpet.mode = HPET_CE_OFF;
	return 0;
}

static struct clock_event_device hpet_clockevent = {
	.name = "hpet",
	.set_next_event = hpet_ce_next_event,
	.set_periodic = hpet_ce_periodic,
	.shutdown = hpet_ce_shutdown,
	.min_delta_ns = HPET_MIN_DELTA_NS,
	.rating = HPET_CE_RATING,
};

/*
 * The comparator's line is edge-triggered, so the status register tells
 * nothing (the spec says to ignore it in edge mode). An interrupt is a
 * match only if the counter has reached the value it was waiting for: in
 * one-shot mode the armed comparator, in periodic mode the next period's
 * match, which then moves on by whole periods (several, if interrupts were
 * held off that long). Anything else is not this comparator's match: the
 * spec's extra interrupt when a 32-bit one-shot counter wraps, an early
 * event after a -ETIME rewrite, another device on the wire, or QEMU's
 * periodic timer under -icount, which can fire a few microseconds early and
 * again on time. It goes back to kernel/irq as IRQ_NONE, so its spurious
 * accounting sees it.
 */
static bool is_match(uint32_t now)
{
	if (hpet.mode == HPET_CE_ONESHOT) {
		if (!hpet.armed || !hpet_passed(now, hpet.armed_cmp))
			return false;
		hpet.armed = false;  /* a further interrupt before the next program is not an event */
		return true;
	}
	if (hpet.mode == HPET_CE_PERIODIC && hpet.period_ticks) {
		if (!hpet_passed(now, hpet.next_match))
			return false;
		/* Skip the periods already gone; far behind (> 2^31 ticks), start over from now. */
		if ((uint32_t)(now - hpet.next_match) >= HPET_MAX_DELTA_TICKS)
			hpet.next_match = now;
		hpet.next_match += ((now - hpet.next_match) / hpet.period_ticks + 1) * hpet.period_ticks;
		return true;
	}
	return false;
}

static irqreturn_t hpet_interrupt(unsigned int irq, void *dev_id)
{
	struct clock_event_device *dev = dev_id;

	(void)irq;
	hpet.stats.interrupts++;
	if (!is_match(counter_lo())) {
		hpet.stats.not_matched++;
		return IRQ_NONE;
	}
	hpet.stats.events++;
	if (dev->event_handler)
		dev->event_handler(dev);
	return IRQ_HANDLED;
}

/* ------------------------------------------------------------------------
 * Set-up
 */

/* The ICH9 LPC bridge at 00:1f.0, or NULL on other chipsets. */
static struct pci_dev *find_ich9_lpc(void)
{
	for (unsigned int i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device_at(i);
		if (d && d->bus == 0 && d->dev == ICH9_LPC_SLOT && d->fn == 0 && d->vendor_id == 0x8086 &&
		    d->device_id >= ICH9_LPC_DEVICE_FIRST && d->device_id <= ICH9_LPC_DEVICE_LAST)
			return d;
	}
	return NULL;
}

/* DnnIR of @slot from the chipset configuration space at @rcba (32-bit reads). */
static uint16_t ich9_read_dir(uint32_t rcba, unsigned int slot)
{
	uint32_t off = ich9_dir_offset(slot);
	uint32_t word;

	if (!off)
		return 0;
	word = mmio_read32(rcba + (off & ~3u));
	return (uint16_t)(word >> ((off & 2u) * 8));
}

/*
 * GSIs 16-23 that enumerated PCI functions drive on ICH9 (16 + PIRQ), also
 * when irqkit routes them through ISA IRQs 10/11 as SeaBIOS's MP table says.
 * Functions behind a bridge: their PIRQ depends on the bridge's swizzle and
 * slot, so all eight count as taken. 0 on other chipsets (PIIX: PCI never
 * reaches 16-23).
 */
static uint32_t ich9_pci_gsis(void)
{
	struct pci_dev *lpc = find_ich9_lpc();
	uint32_t rcba, gsis = 0;

	if (!lpc)
		return 0;
	rcba = pci_read32(lpc, ICH9_LPC_RCBA);
	if (!(rcba & ICH9_RCBA_ENABLE) || (rcba & ICH9_RCBA_BASE_MASK) < PAGING_UNCACHED_START) {
		pr_info("HPET: ICH9 chipset configuration (RCBA %#x) not usable: GSIs 16-23 count as PCI's\n", rcba);
		return ((1u << ICH9_PIRQS) - 1) << ICH9_PIRQ_GSI_BASE;
	}
	rcba &= ICH9_RCBA_BASE_MASK;
	for (unsigned int i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device_at(i);
		int pirq;

		if (!d || d->irq_pin < 1 || d->irq_pin > 4)
			continue;
		if (d->bus != 0) {
			gsis |= ((1u << ICH9_PIRQS) - 1) << ICH9_PIRQ_GSI_BASE;
			continue;
		}
		pirq = hpet_ich9_pirq(d->dev, d->irq_pin, ich9_read_dir(rcba, d->dev));
		if (pirq >= 0)
			gsis |= 1u << (ICH9_PIRQ_GSI_BASE + pirq);
	}
	return gsis;
}

/* Bit n set: GSI n must not carry a comparator. */
static uint32_t unusable_gsis(void)
{
	uint32_t unusable = (1u << FIRST_NON_ISA_GSI) - 1;  /* the ISA range, whoever uses it now */
	struct irq_line_stats s;

	for (unsigned int isa = 0; isa < ISA_IRQS; isa++) {
		int line = isa_irq_to_line(isa);
		if (line >= 0 && line < HPET_ROUTE_GSIS)
			unusable |= 1u << line;
	}
	for (unsigned int gsi = 0; gsi < HPET_ROUTE_GSIS; gsi++) {
		if (!ioapic_gsi_valid(gsi) || gsi >= IRQ_NR_LINES)
			unusable |= 1u << gsi;
		else if (irq_get_line_stats(gsi, &s) == 0 && s.nr_actions)
			unusable |= 1u << gsi;
	}
	for (unsigned int i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device_at(i);
		if (d && d->route.source != PCI_ROUTE_NONE && d->route.line < HPET_ROUTE_GSIS)
			unusable |= 1u << d->route.line;
	}
	return unusable | ich9_pci_gsis();
}

/* The ISA IRQ whose line is @gsi, or -1: for the log's "why not". */
static int isa_irq_at(unsigned int gsi)
{
	for (unsigned int isa = 0; isa < ISA_IRQS; isa++)
		if (isa_irq_to_line(isa) == (int)gsi)
			return (int)isa;
	return -1;
}

/* Say why comparator @timer with @cap gets no line. */
static void explain_no_route(int timer, uint32_t cap, uint32_t conf)
{
	char list[96];
	unsigned int n = 0;

	list[0] = 0;
	for (unsigned int gsi = 0; gsi < HPET_ROUTE_GSIS && n + 24 < sizeof(list); gsi++) {
		int isa;

		if (!(cap & (1u << gsi)))
			continue;
		isa = isa_irq_at(gsi);
		if (isa >= 0)
			n += (unsigned int)ksnprintf(list + n, sizeof(list) - n, "%s%u (ISA IRQ %d)",
						      n ? ", " : "", gsi, isa);
		else
			n += (unsigned int)ksnprintf(list + n, sizeof(list) - n, "%s%u (PCI's or taken)",
						      n ? ", " : "", gsi);
	}
	pr_info("HPET: timer %d can interrupt on GSI %s only%s\n", timer, n ? list : "(none)",
		conf & HPET_TN_FSB_CAP ? "; FSB delivery exists but is not implemented" : "");
}

/* Pick the comparator and its GSI. RETURNS the timer, or -ENOENT (logged). */
static int choose_comparator(int *gsi_out)
{
	uint32_t unusable = unusable_gsis();
	int best = -1, best_gsi = -1;
	bool best_periodic = false;

	for (int t = 0; t < hpet.caps.timers && t < HPET_MAX_TIMERS; t++) {
		uint32_t conf = hpet_read(timer_reg(t, HPET_REG_TN_CONF));
		uint32_t cap = hpet_read(timer_reg(t, HPET_REG_TN_ROUTE_CAP));
		int gsi = hpet_choose_gsi(cap, unusable);
		bool periodic = conf & HPET_TN_PERIODIC_CAP;

		if (gsi < 0) {
			explain_no_route(t, cap, conf);
			continue;
		}
		/* A periodic-capable comparator first, then the lowest number. */
		if (best < 0 || (periodic && !best_periodic)) {
			best = t;
			best_gsi = gsi;
			best_periodic = periodic;
		}
	}
	*gsi_out = best_gsi;
	return best >= 0 ? best : -ENOENT;
}

/* Stop the counter and every comparator, legacy routing off, counter to 0, start. */
static int start_counter(void)
{
	uint64_t t0;
	uint32_t c0;

	hpet_write(HPET_REG_GEN_CONF, hpet_read(HPET_REG_GEN_CONF) & ~(HPET_CONF_ENABLE | HPET_CONF_LEGACY));
	for (int t = 0; t < hpet.caps.timers && t < HPET_MAX_TIMERS; t++) {
		uint32_t conf = hpet_read(timer_reg(t, HPET_REG_TN_CONF));
		hpet_write(timer_reg(t, HPET_REG_TN_CONF),
			   conf & ~(HPET_TN_INT_ENABLE | HPET_TN_PERIODIC | HPET_TN_FSB_ENABLE | HPET_TN_LEVEL));
	}
	/* Write 1s to clear any level-mode status the firmware left (edge mode ignores it). */
	hpet_write(HPET_REG_GINTR_STA, 0xFFFFFFFFu);
	hpet_write(HPET_REG_MAIN_CNT_LO, 0);
	hpet_write(HPET_REG_MAIN_CNT_HI, 0);
	hpet_write(HPET_REG_GEN_CONF, hpet_read(HPET_REG_GEN_CONF) | HPET_CONF_ENABLE);
	c0 = counter_lo();
	t0 = tsc_ns();
	for (uint32_t reads = 0; counter_lo() == c0; reads++) {
		/* Bounded by TSC time, or by a read count if the TSC is not calibrated. */
		if (tsc_hz() ? tsc_ns() - t0 > HPET_RUN_CHECK_US * NSEC_PER_USEC : reads > HPET_RUN_CHECK_READS)
			return -EIO;
		cpu_relax();
	}
	return 0;
}

static void setup_clockevent(void)
{
	uint32_t conf;
	int timer, gsi, err;

	if (x86_irq_mode() != X86_IRQ_MODE_IOAPIC) {
		pr_info("HPET: no clock event: comparators reach the CPU only through an IOAPIC"
			" (legacy replacement stays off) and the 8259 is in use\n");
		return;
	}
	timer = choose_comparator(&gsi);
	if (timer < 0) {
		pr_info("HPET: no clock event: no comparator can interrupt on a line of its own "
			"without taking the PIT's, RTC's or a device's; the main counter is still a clock source\n");
		return;
	}
	conf = hpet_read(timer_reg(timer, HPET_REG_TN_CONF));
	hpet.timer = timer;
	hpet.gsi = gsi;
	hpet.periodic_capable = conf & HPET_TN_PERIODIC_CAP;
	/* 32-bit mode: one comparator write programs an event. Edge, enabled per mode. */
	hpet.conf_base = ((conf & HPET_TN_SIZE_CAP) ? HPET_TN_32BIT : 0) |
			 ((uint32_t)gsi << HPET_TN_ROUTE_SHIFT);
	hpet_ce_shutdown(&hpet_clockevent);
	if (((hpet_read(timer_reg(timer, HPET_REG_TN_CONF)) >> HPET_TN_ROUTE_SHIFT) & HPET_TN_ROUTE_MASK) != (uint32_t)gsi) {
		pr_warn("HPET: timer %d did not take route GSI %d; no clock event\n", timer, gsi);
		goto fail;
	}
	err = ioapic_setup_line((unsigned int)gsi, IRQ_TYPE_EDGE_RISING);
	if (!err)
		err = request_irq((unsigned int)gsi, hpet_interrupt, IRQF_TRIGGER_RISING | IRQF_TIMER, "hpet", &hpet_clockevent);
	if (err) {
		pr_warn("HPET: cannot take GSI %d for timer %d: %s; no clock event\n", gsi, timer, errno_name(err));
		goto fail;
	}
	hpet_clockevent.features = CLOCK_EVT_FEAT_ONESHOT | (hpet.periodic_capable ? CLOCK_EVT_FEAT_PERIODIC : 0);
	hpet_clockevent.max_delta_ns = (uint64_t)HPET_MAX_DELTA_TICKS * NSEC_PER_SEC / hpet.caps.freq_hz;
	pr_info("HPET: timer %d is the clock event: GSI %d edge (free: no ISA IRQ, PCI function or handler on it),"
		" one-shot%s, 32-bit comparator\n", timer, gsi, hpet.periodic_capable ? " and periodic" : "");
	err = clockevent_register(&hpet_clockevent);
	if (err) {
		free_irq((unsigned int)gsi, &hpet_clockevent);
		goto fail;
	}
	hpet.stats.ce_timer = timer;
	hpet.stats.ce_gsi = gsi;
	hpet.stats.ce_periodic_capable = hpet.periodic_capable;
	return;
fail:
	hpet.timer = -1;
	hpet.gsi = -1;
}

int hpet_init(const struct fw_hpet *h)
{
	const char *why;
	uint32_t lo, hi;
	int err;

	hpet.stats.ce_timer = -1;
	hpet.stats.ce_gsi = -1;
	if (!h || !h->present) {
		pr_info("HPET: none (no ACPI HPET table; without ACPI the HPET cannot be found): "
			"the PIT and TSC serve\n");
		return -ENODEV;
	}
	if (h->address < PAGING_UNCACHED_START || (h->address & (HPET_BLOCK_BYTES - 1)) ||
	    h->address > 0xFFFFFFFFu - HPET_BLOCK_BYTES + 1) {
		pr_warn("HPET: block at %#x is not a 1 KiB aligned block in the uncached MMIO window "
			"(%#x and up); not used, the PIT serves\n", h->address, PAGING_UNCACHED_START);
		return -EINVAL;
	}
	if (mmio_map(h->address, HPET_BLOCK_BYTES, &hpet.base)) {
		pr_warn("HPET: block at %#x cannot be mapped; not used, the PIT serves\n", h->address);
		return -EINVAL;
	}
	lo = hpet_read(HPET_REG_GCAP_ID);
	hi = hpet_read(HPET_REG_GCAP_PERIOD);
	err = hpet_decode_gcap(lo, hi, &hpet.caps, &why);
	if (err) {
		pr_warn("HPET: at %#x: GCAP_ID %08x:%08x: %s; not used, the PIT serves\n", h->address, hi, lo, why);
		hpet.base = 0;
		return err;
	}
	if (lo != h->block_id)
		pr_warn("HPET: GCAP_ID %08x differs from the ACPI table's block ID %08x; trusting the chip\n",
			lo, h->block_id);
	err = start_counter();
	if (err) {
		pr_warn("HPET: main counter does not run after enabling; not used, the PIT serves\n");
		hpet.base = 0;
		return err;
	}
	pr_info("HPET: at %#x, rev %u, vendor %04x: %u.%06u MHz (period %u fs), %u timers, %s counter%s; "
		"legacy replacement off\n", h->address, hpet.caps.revision, hpet.caps.vendor,
		hpet.caps.freq_hz / 1000000u, hpet.caps.freq_hz % 1000000u, hpet.caps.period_fs,
		hpet.caps.timers, hpet.caps.counter_64bit ? "64-bit" : "32-bit",
		hpet.caps.legacy_capable ? " (legacy capable)" : "");
	hpet.stats.base = h->address;
	hpet.stats.caps = hpet.caps;
	hpet_clocksource.mask = hpet.caps.counter_64bit ? UINT64_MAX : 0xFFFFFFFFull;
	hpet_clocksource.freq_hz = hpet.caps.freq_hz;
	clocksource_register(&hpet_clocksource);
	setup_clockevent();
	return 0;
}

void hpet_get_stats(struct hpet_stats *out)
{
	unsigned long flags = irq_save_flags();

	*out = hpet.stats;
	irq_restore_flags(flags);
}

/* ------------------------------------------------------------------------
 * Selftests (selftest=hpet)
 */
#include <kernel/selftest.h>

#define ST_RATE_PIT_TICKS   11932u       /* ~10 ms of PIT cycles per window (as tsc.c) */
#define ST_RATE_RUNS        5            /* windows; the median is judged */
#define ST_RATE_TOLERANCE_PPM 10000u     /* 1%: a stated period that is wrong is off by far more */
#define ST_RATE_TSC_NS      20000000ull  /* 20 ms of TSC time for the printed comparison */
#define ST_ONESHOT_DELAY_NS 200000ull    /* 200 us ahead */
#define ST_WAIT_NS          20000000ull  /* give an event up to 20 ms */
#define ST_PERIODIC_HZ      1000u
#define ST_PERIODIC_WINDOW_TICKS_MS 20u  /* count periodic events over 20 ms of counter time */

/* HPET ticks during @pit_ticks of PIT channel 2 (polled; interrupts off). */
static uint64_t ticks_in_pit_window(uint16_t pit_ticks)
{
	unsigned long flags = irq_save_flags();
	uint64_t c0 = hpet_cs_read(&hpet_clocksource), c1;

	pit_wait_ticks(pit_ticks);
	c1 = hpet_cs_read(&hpet_clocksource);
	irq_restore_flags(flags);
	return (c1 - c0) & hpet_clocksource.mask;
}

/*
 * Against PIT channel 2, the reference the TSC and LAPIC timer were
 * calibrated against: the median of ST_RATE_RUNS windows, so that one
 * window in which the host descheduled QEMU between two reads does not
 * decide. The TSC's view is printed beside it.
 */
SELFTEST(hpet, main_counter_advances_at_its_stated_rate_against_the_pit)
{
	uint64_t runs[ST_RATE_RUNS], expected, diff, median, t0, t1, c0, c1;

	if (!hpet.base) {
		selftest_skip(t, "no HPET in use");
		return;
	}
	for (int r = 0; r < ST_RATE_RUNS; r++)
		runs[r] = ticks_in_pit_window(ST_RATE_PIT_TICKS);
	for (int i = 1; i < ST_RATE_RUNS; i++)
		for (int j = i; j > 0 && runs[j] < runs[j - 1]; j--) {
			uint64_t x = runs[j];
			runs[j] = runs[j - 1];
			runs[j - 1] = x;
		}
	median = runs[ST_RATE_RUNS / 2];
	expected = (uint64_t)ST_RATE_PIT_TICKS * hpet.caps.freq_hz / PIT_HZ;
	diff = median > expected ? median - expected : expected - median;
	c0 = hpet_cs_read(&hpet_clocksource);
	t0 = tsc_ns();
	do {
		cpu_relax();
		t1 = tsc_ns();
	} while (tsc_hz() && t1 - t0 < ST_RATE_TSC_NS);
	c1 = hpet_cs_read(&hpet_clocksource);
	pr_info("hpet selftest: median %llu ticks in %u PIT cycles, expected %llu (%llu ppm off); "
		"%llu ticks in %llu ns of TSC time\n", (unsigned long long)median, ST_RATE_PIT_TICKS,
		(unsigned long long)expected, (unsigned long long)(diff * 1000000u / expected),
		(unsigned long long)((c1 - c0) & hpet_clocksource.mask), (unsigned long long)(t1 - t0));
	ST_EXPECT(t, diff * 1000000u <= (uint64_t)ST_RATE_TOLERANCE_PPM * expected,
		  "median %llu ticks where %llu were due", (unsigned long long)median, (unsigned long long)expected);
}

SELFTEST(hpet, a_comparator_written_behind_the_counter_is_reported_with_etime)
{
	unsigned long flags;
	uint64_t before;
	int rc;

	if (hpet.timer < 0) {
		selftest_skip(t, "no HPET clock event");
		return;
	}
	if (clockevent_current() == &hpet_clockevent) {
		selftest_skip(t, "the HPET drives the tick; not reprogrammed under it");
		return;
	}
	flags = irq_save_flags();
	before = hpet.stats.passed_on_write;
	/* 1 ns is one tick: the counter passes it before the read-back. */
	rc = hpet_ce_next_event(&hpet_clockevent, 1);
	hpet_ce_shutdown(&hpet_clockevent);
	irq_restore_flags(flags);
	ST_EXPECT(t, rc == -ETIME, "set_next_event(1 ns) returned %d", rc);
	ST_EXPECT(t, hpet.stats.passed_on_write == before + 1, "passed_on_write not counted");
}

SELFTEST(hpet, a_oneshot_comparator_interrupts_once_and_never_early)
{
	uint64_t e0, t0;
	uint32_t armed;
	unsigned long flags;
	int rc;

	if (hpet.timer < 0 || clockevent_current() == &hpet_clockevent) {
		selftest_skip(t, hpet.timer < 0 ? "no HPET clock event" : "the HPET drives the tick");
		return;
	}
	flags = irq_save_flags();
	e0 = hpet.stats.events;
	rc = hpet_ce_next_event(&hpet_clockevent, ST_ONESHOT_DELAY_NS);
	armed = hpet.armed_cmp;
	irq_restore_flags(flags);
	ST_EXPECT(t, rc == 0, "set_next_event(200 us) returned %d", rc);
	t0 = tsc_ns();
	while (hpet.stats.events == e0 && tsc_ns() - t0 < ST_WAIT_NS)
		cpu_relax();
	ST_EXPECT(t, hpet.stats.events == e0 + 1, "%llu events in 20 ms, wanted 1",
		  (unsigned long long)(hpet.stats.events - e0));
	ST_EXPECT(t, hpet_passed(counter_lo(), armed), "event before the counter reached the comparator");
	t0 = tsc_ns();
	while (tsc_ns() - t0 < ST_ONESHOT_DELAY_NS * 4)
		cpu_relax();
	ST_EXPECT(t, hpet.stats.events == e0 + 1, "a one-shot comparator fired %llu times",
		  (unsigned long long)(hpet.stats.events - e0));
	flags = irq_save_flags();
	hpet_ce_shutdown(&hpet_clockevent);
	irq_restore_flags(flags);
}

SELFTEST(hpet, a_periodic_comparator_interrupts_at_its_rate)
{
	uint64_t e0, e1, c0, c1, window, expected;
	unsigned long flags;
	int rc;

	if (hpet.timer < 0 || !hpet.periodic_capable || clockevent_current() == &hpet_clockevent) {
		selftest_skip(t, hpet.timer < 0 ? "no HPET clock event" :
			      !hpet.periodic_capable ? "comparator not periodic-capable" : "the HPET drives the tick");
		return;
	}
	window = (uint64_t)hpet.caps.freq_hz * ST_PERIODIC_WINDOW_TICKS_MS / 1000u;
	flags = irq_save_flags();
	rc = hpet_ce_periodic(&hpet_clockevent, ST_PERIODIC_HZ);
	irq_restore_flags(flags);
	ST_EXPECT(t, rc == 0, "set_periodic(%u) returned %d", ST_PERIODIC_HZ, rc);
	e0 = hpet.stats.events;
	c0 = counter_lo();
	do {
		cpu_relax();
		c1 = counter_lo();
	} while ((uint32_t)(c1 - c0) < window);
	e1 = hpet.stats.events;
	flags = irq_save_flags();
	hpet_ce_shutdown(&hpet_clockevent);
	irq_restore_flags(flags);
	/* Counted in the counter's own time: one event per period, +1 at the
	 * ends. Fewer are possible when the host stalls QEMU, which then
	 * coalesces the periods it missed into one interrupt; a quarter still
	 * shows a running periodic comparator, and a wrong period (10x) fails.
	 * More than one per period would be early or foreign interrupts taken
	 * for matches. */
	expected = ST_PERIODIC_WINDOW_TICKS_MS * ST_PERIODIC_HZ / 1000u;
	pr_info("hpet selftest: %llu periodic events in %u ms of counter time at %u Hz\n",
		(unsigned long long)(e1 - e0), ST_PERIODIC_WINDOW_TICKS_MS, ST_PERIODIC_HZ);
	ST_EXPECT(t, e1 - e0 >= expected / 4 && e1 - e0 <= expected + 1,
		  "%llu periodic events in %u ms of counter time, wanted %llu",
		  (unsigned long long)(e1 - e0), ST_PERIODIC_WINDOW_TICKS_MS, (unsigned long long)expected);
}

/* ------------------------------------------------------------------------
 * A spare comparator, for the hpet-storm fault (hpet_storm.c): a device
 * that really interrupts too fast. Not the clock event's comparator.
 */

int hpet_spare_pick(int *gsi_out)
{
	uint32_t unusable;

	if (!hpet.base)
		return -ENODEV;
	if (x86_irq_mode() != X86_IRQ_MODE_IOAPIC)
		return -EPERM;
	unusable = unusable_gsis();
	if (hpet.gsi >= 0)
		unusable |= 1u << hpet.gsi;
	for (int t = 0; t < hpet.caps.timers && t < HPET_MAX_TIMERS; t++) {
		uint32_t conf = hpet_read(timer_reg(t, HPET_REG_TN_CONF));
		int gsi;

		if (t == hpet.timer || !(conf & HPET_TN_PERIODIC_CAP))
			continue;
		gsi = hpet_choose_gsi(hpet_read(timer_reg(t, HPET_REG_TN_ROUTE_CAP)), unusable);
		if (gsi >= 0) {
			*gsi_out = gsi;
			return t;
		}
	}
	return -ENOENT;
}

int hpet_spare_periodic(int timer, unsigned int gsi, uint32_t period_ticks, uint32_t *first_out)
{
	uint32_t conf, base, first;

	if (!hpet.base || timer < 0 || timer >= hpet.caps.timers || timer == hpet.timer || !period_ticks ||
	    period_ticks > HPET_MAX_DELTA_TICKS || gsi > HPET_TN_ROUTE_MASK)
		return -EINVAL;
	conf = hpet_read(timer_reg(timer, HPET_REG_TN_CONF));
	base = ((conf & HPET_TN_SIZE_CAP) ? HPET_TN_32BIT : 0) | (gsi << HPET_TN_ROUTE_SHIFT);
	/* As hpet_ce_periodic: with VAL_SET the first write is the first match, the second the period. */
	hpet_write(timer_reg(timer, HPET_REG_TN_CONF), base | HPET_TN_INT_ENABLE | HPET_TN_PERIODIC | HPET_TN_VAL_SET);
	first = counter_lo() + period_ticks;
	hpet_write(timer_reg(timer, HPET_REG_TN_CMP_LO), first);
	hpet_write(timer_reg(timer, HPET_REG_TN_CMP_LO), period_ticks);
	*first_out = first;
	if (((hpet_read(timer_reg(timer, HPET_REG_TN_CONF)) >> HPET_TN_ROUTE_SHIFT) & HPET_TN_ROUTE_MASK) != gsi) {
		hpet_write(timer_reg(timer, HPET_REG_TN_CONF), 0);
		return -EIO;
	}
	return 0;
}

void hpet_spare_stop(int timer)
{
	if (hpet.base && timer >= 0 && timer < hpet.caps.timers && timer != hpet.timer)
		hpet_write(timer_reg(timer, HPET_REG_TN_CONF), 0);
}

uint32_t hpet_counter32(void)
{
	return hpet.base ? counter_lo() : 0;
}

uint32_t hpet_freq(void)
{
	return hpet.base ? hpet.caps.freq_hz : 0;
}
