/*
 * test_irq_template.c - proves that the template port
 * (kernel/irq/template/) is complete and works: the core is built against
 * it alone (no host port on the include path) and a line is taken through
 * request, interrupt, disable with a held edge, enable and its replay from
 * the template's timer interrupt, and free; then the same with a one-shot
 * alarm, which must be programmed for the resend timer's expiry and put
 * back to "never" once nothing is pending; then with an alarm per CPU, where
 * a timer armed on one CPU is served by that CPU's alarm only (each CPU's
 * comparator set for its own list). Built with -DIRQ_TEMPLATE_HOST_SIM
 * (the template's simulated CPU: a host program cannot disable interrupts);
 * the real CPU sections run on QEMU in make cross (tests/cross/). A plain
 * program (exit status 0 = pass), run by tests/unit/irq.mk whenever the irq
 * unit tests are built, so the template never rots.
 */
#include <stdio.h>

#include <irq/interrupt.h>
#include <irq/irqchip.h>
#include <irq/port.h>
#include <irq/stats.h>
#include <irq_port_host.h>

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
	return failures ? 1 : 0;
}
