/*
 * test_irq_template.c - proves that the template port
 * (kernel/irq/template/) is complete and works: the core is built against
 * it alone (no host port on the include path) and a line is taken through
 * request, interrupt, disable with a held edge, enable and its replay from
 * the template's timer interrupt, and free; then the same with a one-shot
 * alarm, which must be programmed for the resend timer's expiry and put
 * back to "never" once nothing is pending; then with an alarm per CPU, where
 * a timer armed on one CPU is served by that CPU's alarm only (each CPU's
 * comparator set for its own list); and the template's PLIC chip
 * (plic_template.c) against a fake register file: masking by priority,
 * routing by the enable bits of the CPU's context (and moving it),
 * completing to the claiming CPU's context, irq_pending across CPUs, what
 * irq_diagnose says. Built with -DIRQ_TEMPLATE_HOST_SIM
 * (the template's simulated CPU: a host program cannot disable interrupts);
 * the real CPU sections run on QEMU in make cross (tests/cross/). A plain
 * program (exit status 0 = pass), run by tests/unit/irq.mk whenever the irq
 * unit tests are built, so the template never rots.
 */
#include <stdio.h>
#include <string.h>

#include <irq/interrupt.h>
#include <irq/irqchip.h>
#include <irq/port.h>
#include <irq/stats.h>
#include <irq_port_host.h>
#include <plic_template.h>

/* Nanoseconds per template tick in this check. */
#define TICK_NS 1000000ull

/* The board's clock and alarm, simulated: a counter the check moves, the alarm it was given. */
static uint64_t clock_ns, alarm_ns = UINT64_MAX;
static unsigned int alarms;

static uint64_t board_clock(void) { return clock_ns; }
static void board_alarm(uint64_t expires_ns) { alarm_ns = expires_ns; alarms++; }

/* Two simulated CPUs, each with a comparator of its own (irq_template_set_cpu_alarm). */
static unsigned int this_cpu;
static uint64_t cpu_alarm_ns[2] = { UINT64_MAX, UINT64_MAX };

static unsigned int board_cpu_id(void) { return this_cpu; }
static void board_cpu_alarm(uint64_t expires_ns) { cpu_alarm_ns[this_cpu] = expires_ns; }

static unsigned int masks, unmasks, acks, handled;

static void chip_mask(struct irq_data *d) { (void)d; masks++; }
static void chip_unmask(struct irq_data *d) { (void)d; unmasks++; }
static void chip_ack(struct irq_data *d) { (void)d; acks++; }

static const struct irq_chip chip = {
	.name = "TEMPLATE-CHECK", .mask = chip_mask, .unmask = chip_unmask, .ack = chip_ack,
};

static irqreturn_t handler(unsigned int irq, void *dev_id)
{
	(void)irq;
	(void)dev_id;
	handled++;
	return IRQ_HANDLED;
}

static int failures;

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "template port check failed: %s\n", what);
		failures++;
	}
}

/* request, interrupt, disable with a held edge, enable and its replay from the timer. */
/* request, interrupt, disable with a held edge, enable and its replay from the timer. */
static void run_line(void)
{
	static int dev;

	expect(request_irq(1, handler, 0, "check", &dev) == 0, "request");
	expect(generic_handle_irq(1) == 0 && handled == 1, "interrupt ran the handler");
	disable_irq(1);
	expect(generic_handle_irq(1) == 0 && handled == 1, "disabled line held the edge");
	enable_irq(1);
	clock_ns += TICK_NS;
	irq_template_timer_interrupt();
	expect(handled == 2, "held edge replayed from the timer interrupt");
	free_irq(1, &dev);
}

/*
 * The template PLIC against a fake register file (plain memory: a read
 * returns what was last written, so the claim register returns the same
 * source until the test changes it). CPU 0 has context 1, CPU 1 context 3,
 * as supervisor mode on QEMU virt.
 */
#define FAKE_PLIC_WORDS ((0x200000 + 0x1000 * 4 + 8) / 4)
static uint32_t fake_plic[FAKE_PLIC_WORDS];
#define PLIC_REG(off) fake_plic[(off) / 4]
#define PLIC_SRC      10u
#define PLIC_LINE     20u

static unsigned int plic_handled;

static irqreturn_t plic_handler(unsigned int irq, void *dev_id)
{
	(void)irq;
	(void)dev_id;
	plic_handled++;
	return IRQ_HANDLED;
}

static void run_plic(void)
{
	struct irq_template_plic_config cfg = {
		.base = (unsigned long)fake_plic, .nr_sources = 32, .nr_cpus = 2, .context = { 1, 3 },
		.priority = 1, .edge_only = true,
	};
	static int dev;
	char why[160];

	this_cpu = 0;
	PLIC_REG(4 * PLIC_SRC) = 7;                  /* stale state the init must clear */
	PLIC_REG(0x2000 + 0x80 * 3) = 0xffffffffu;
	expect(irq_template_plic_init(&cfg) == 0, "PLIC init");
	expect(PLIC_REG(4 * PLIC_SRC) == 0 && PLIC_REG(0x2000 + 0x80 * 3) == 0, "PLIC init masks and unroutes every source");
	cfg.nr_cpus = 0;
	expect(irq_template_plic_init(&cfg) != 0, "PLIC init refuses no CPUs");
	cfg.nr_cpus = 2;
	expect(irq_template_plic_init(&cfg) == 0, "PLIC init again");

	/* Attached to CPU 1: routed to context 3 only, masked until requested. */
	expect(irq_template_plic_attach(PLIC_LINE, PLIC_SRC, 1) == 0, "PLIC attach");
	expect((PLIC_REG(0x2000 + 0x80 * 3) & (1u << PLIC_SRC)) && !(PLIC_REG(0x2000 + 0x80 * 1) & (1u << PLIC_SRC)),
	       "PLIC routes by the enable bit of the CPU's context");
	expect(request_irq(PLIC_LINE, plic_handler, 0, "plic", &dev) == 0, "PLIC request");
	expect(PLIC_REG(4 * PLIC_SRC) == 1, "PLIC unmasks by the priority");
	disable_irq(PLIC_LINE);
	expect(PLIC_REG(4 * PLIC_SRC) == 0 && (PLIC_REG(0x2000 + 0x80 * 3) & (1u << PLIC_SRC)),
	       "PLIC masks by the priority, not by the enable bit");

	/* irq_pending from CPU 0 about a line routed to CPU 1: global registers. */
	{
		struct irq_data d = { .irq = PLIC_LINE, .hwirq = PLIC_SRC };

		PLIC_REG(0x1000) = 1u << PLIC_SRC;       /* pending at the gateway */
		expect(irq_template_plic_chip.irq_pending(&d) == 0, "PLIC irq_pending: a masked source is not on its way");
		enable_irq(PLIC_LINE);
		expect(irq_template_plic_chip.irq_pending(&d) == 1, "PLIC irq_pending: pending, unmasked, routed (asked on another CPU)");
		PLIC_REG(0x200000 + 0x1000 * 3) = 1;     /* context 3's threshold up to the priority */
		expect(irq_template_plic_chip.irq_pending(&d) == 0, "PLIC irq_pending: not above the threshold");
		expect(irq_get_line_diagnosis(PLIC_LINE, why, sizeof(why)) == 1 && strstr(why, "threshold"),
		       "PLIC irq_diagnose names the threshold");
		PLIC_REG(0x200000 + 0x1000 * 3) = 0;
		PLIC_REG(0x1000) = 0;
	}

	/* A claim on CPU 1: handled through the line, completed to CPU 1's context; the loop is bounded. */
	this_cpu = 1;
	PLIC_REG(0x200004 + 0x1000 * 3) = PLIC_SRC;
	PLIC_REG(0x200004 + 0x1000 * 1) = 0;
	plic_handled = 0;
	{
		uint32_t p0 = irq_port_cpu_progress(0), p1 = irq_port_cpu_progress(1);

		irq_template_plic_interrupt();
		expect(irq_port_cpu_progress(1) - p1 == plic_handled && plic_handled >= 1 && irq_port_cpu_progress(0) == p0,
		       "PLIC interrupt counts each claim as a finished interrupt, on the claiming CPU only (irq_port_cpu_progress)");
	}
	expect(plic_handled >= 1 && plic_handled <= 16, "PLIC claim loop ran the handler, bounded");
	expect(PLIC_REG(0x200004 + 0x1000 * 3) == PLIC_SRC && PLIC_REG(0x200004 + 0x1000 * 1) == 0,
	       "PLIC completes to the claiming CPU's context only");
	PLIC_REG(0x200004 + 0x1000 * 3) = 0;
	this_cpu = 0;

	/* Moved to CPU 0: context 1 gets the enable bit, context 3 loses it. */
	expect(irq_set_affinity(PLIC_LINE, 1u << 0) == 0, "PLIC affinity");
	expect((PLIC_REG(0x2000 + 0x80 * 1) & (1u << PLIC_SRC)) && !(PLIC_REG(0x2000 + 0x80 * 3) & (1u << PLIC_SRC)),
	       "PLIC affinity moves the enable bit");

	/* What irq_diagnose says about faults behind the core's back. */
	expect(irq_get_line_diagnosis(PLIC_LINE, why, sizeof(why)) == 0, "PLIC irq_diagnose: nothing wrong");
	PLIC_REG(4 * PLIC_SRC) = 0;
	expect(irq_get_line_diagnosis(PLIC_LINE, why, sizeof(why)) == 1 && strstr(why, "behind the core's back"),
	       "PLIC irq_diagnose: priority 0 on an unmasked line");
	PLIC_REG(4 * PLIC_SRC) = 1;
	PLIC_REG(0x2000 + 0x80 * 1) = 0;
	expect(irq_get_line_diagnosis(PLIC_LINE, why, sizeof(why)) == 1 && strstr(why, "routed nowhere"),
	       "PLIC irq_diagnose: enabled in no context");
	PLIC_REG(0x2000 + 0x80 * 1) = 1u << PLIC_SRC;
	free_irq(PLIC_LINE, &dev);
	expect(PLIC_REG(4 * PLIC_SRC) == 0, "PLIC: the last free masks the line");
}

int main(void)
{
	struct irq_line_stats st;

	/* A periodic tick serves the timers (no alarm). */
	irq_template_set_clock(board_clock, NULL);
	irq_core_init();
	expect(irq_set_chip_and_handler(1, &chip, handle_edge_irq, NULL, 1) == 0, "chip attached");
	run_line();
	expect(irq_get_line_stats(1, &st) == 0 && st.delivered == 2 && st.handled == 2, "statistics");
	expect(masks == unmasks + 1 && acks == 2, "chip calls paired");

	/* The same with a one-shot alarm: armed for the resend, then "never" again. */
	irq_template_set_clock(board_clock, board_alarm);
	expect(irq_set_chip_and_handler(2, &chip, handle_edge_irq, NULL, 2) == 0, "chip attached (alarm)");
	handled = 0;
	{
		static int dev2;

		expect(request_irq(2, handler, 0, "check2", &dev2) == 0, "request (alarm)");
		disable_irq(2);
		expect(generic_handle_irq(2) == 0 && handled == 0, "disabled line held the edge (alarm)");
		enable_irq(2);
		expect(alarms >= 1 && alarm_ns <= clock_ns + TICK_NS, "the resend armed the alarm");
		expect(handled == 0, "nothing ran before the alarm");
		clock_ns = alarm_ns;
		irq_template_timer_interrupt();
		expect(handled == 1, "the alarm's interrupt replayed the edge");
		expect(alarm_ns == UINT64_MAX, "nothing pending: the alarm is off");
		free_irq(2, &dev2);
	}

	/* A comparator per CPU: the timer fires on the CPU that armed it, and only there. */
	irq_template_set_cpu_id(board_cpu_id);
	irq_template_set_cpu_alarm(board_cpu_alarm);
	this_cpu = 1;
	expect(irq_port_cpu_id() == 1, "the port's CPU number is used");
	{
		static int dev3;

		expect(irq_set_chip_and_handler(3, &chip, handle_edge_irq, NULL, 3) == 0, "chip attached (per CPU)");
		handled = 0;
		this_cpu = 0;
		expect(request_irq(3, handler, 0, "check3", &dev3) == 0, "request (per CPU)");
		disable_irq(3);
		expect(generic_handle_irq(3) == 0 && handled == 0, "disabled line held the edge (per CPU)");
		this_cpu = 1;
		enable_irq(3);  /* on CPU 1: the resend timer goes on CPU 1's list */
		expect(cpu_alarm_ns[1] <= clock_ns + TICK_NS && cpu_alarm_ns[0] == UINT64_MAX,
		       "the resend armed CPU 1's comparator, not CPU 0's");
		clock_ns += TICK_NS;
		this_cpu = 0;
		irq_template_timer_interrupt();
		expect(handled == 0, "CPU 0's alarm did not run CPU 1's timer");
		this_cpu = 1;
		irq_template_timer_interrupt();
		expect(handled == 1, "CPU 1's alarm replayed the edge");
		expect(cpu_alarm_ns[1] == UINT64_MAX, "nothing pending on CPU 1: its alarm is off");
		this_cpu = 0;
		free_irq(3, &dev3);
	}
	run_plic();
	return failures ? 1 : 0;
}
