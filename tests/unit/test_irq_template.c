/*
 * test_irq_template.c - proves that the template port
 * (kernel/irq/template/) is complete and works: the core is built against
 * it alone (no host port on the include path) and a line is taken through
 * request, interrupt, disable with a held edge, enable and its replay from
 * the template's tick, and free. A plain program (exit status 0 = pass), run
 * by tests/unit/irq.mk whenever the irq unit tests are built, so the
 * template never rots.
 */
#include <stdio.h>

#include <irq/interrupt.h>
#include <irq/irqchip.h>
#include <irq/stats.h>
#include <irq_port_host.h>

/* Nanoseconds per template tick in this check. */
#define TICK_NS 1000000ull

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

int main(void)
{
	static int dev;
	struct irq_line_stats st;

	irq_core_init();
	expect(irq_set_chip_and_handler(1, &chip, handle_edge_irq, NULL, 1) == 0, "chip attached");
	expect(request_irq(1, handler, 0, "check", &dev) == 0, "request");
	expect(generic_handle_irq(1) == 0 && handled == 1, "interrupt ran the handler");
	disable_irq(1);
	expect(generic_handle_irq(1) == 0 && handled == 1, "disabled line held the edge");
	enable_irq(1);
	irq_template_tick(TICK_NS);
	expect(handled == 2, "held edge replayed from the tick");
	free_irq(1, &dev);
	expect(irq_get_line_stats(1, &st) == 0 && st.delivered == 2 && st.handled == 2, "statistics");
	expect(masks == unmasks + 1 && acks == 2, "chip calls paired");
	return failures ? 1 : 0;
}
