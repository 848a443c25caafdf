/*
 * irq_selftest.c - in-kernel selftests (selftest=irq) of kernel/irq on real
 * hardware lines: the timer's handler runs at the configured rate; two
 * shared handlers on the serial line both run when the UART raises a real
 * interrupt; disable_irq() stops delivery and enable_irq() resumes it.
 * The UART raises IRQ 4 on demand when its "transmit holding register
 * empty" interrupt is enabled (drivers/serial/uart16550.c).
 */
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/tsc.h>
#include <irq/interrupt.h>
#include <irq/stats.h>
#include <time/time.h>
#include <kernel/selftest.h>
#include <time/clockevent.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <drivers/serial.h>

#define WAIT_NS        (100 * NSEC_PER_MSEC)  /* how long an expected interrupt may take */
#define QUIET_NS       (20 * NSEC_PER_MSEC)   /* how long we watch for an unwanted one */
#define RATE_WINDOW_NS (500 * NSEC_PER_MSEC)  /* window over which the tick rate is measured */
#define RATE_TOLERANCE_PCT 5

static volatile uint32_t hits_a, hits_b;

static irqreturn_t count_a(unsigned int irq, void *dev_id)
{
	(void)irq; (void)dev_id;
	hits_a++;
	return IRQ_NONE;     /* not our device: the UART's own handler claims it */
}

static irqreturn_t count_b(unsigned int irq, void *dev_id)
{
	(void)irq; (void)dev_id;
	hits_b++;
	return IRQ_NONE;
}

/* Spin with interrupts on until *@v exceeds @above or @ns pass. RETURNS whether it did. */
static bool wait_above(volatile uint32_t *v, uint32_t above, uint64_t ns)
{
	uint64_t t0 = tsc_ns();

	while (*v <= above && tsc_ns() - t0 < ns)
		cpu_relax();
	return *v > above;
}

SELFTEST(irq, shared_handlers_on_one_line_are_both_called)
{
	unsigned int line = uart_irq_line();
	uint32_t a0, b0;
	int ea = request_irq(line, count_a, IRQF_SHARED | IRQF_TRIGGER_RISING, "selftest-a", (void *)&hits_a);
	int eb = request_irq(line, count_b, IRQF_SHARED | IRQF_TRIGGER_RISING, "selftest-b", (void *)&hits_b);

	ST_EXPECT(t, ea == 0 && eb == 0, "request_irq: %d, %d", ea, eb);
	a0 = hits_a;
	b0 = hits_b;
	uart_raise_thre_interrupt();
	wait_above(&hits_a, a0, WAIT_NS);
	wait_above(&hits_b, b0, WAIT_NS);
	uart_stop_thre_interrupt();
	ST_EXPECT(t, hits_a > a0, "first shared handler not called (%u)", hits_a);
	ST_EXPECT(t, hits_b > b0, "second shared handler not called (%u)", hits_b);
	if (!ea)
		free_irq(line, (void *)&hits_a);
	if (!eb)
		free_irq(line, (void *)&hits_b);
}

SELFTEST(irq, disable_irq_stops_delivery_and_enable_irq_resumes_it)
{
	unsigned int line = uart_irq_line();
	uint32_t before, during;
	int err = request_irq(line, count_a, IRQF_SHARED | IRQF_TRIGGER_RISING, "selftest-a", (void *)&hits_a);

	ST_EXPECT(t, err == 0, "request_irq: %d", err);
	if (err)
		return;
	disable_irq(line);
	before = hits_a;
	uart_raise_thre_interrupt();
	wait_above(&hits_a, before, QUIET_NS);
	during = hits_a;
	uart_stop_thre_interrupt();
	enable_irq(line);
	/* Raise a fresh interrupt: an edge that came while masked may or may not be latched. */
	uart_raise_thre_interrupt();
	wait_above(&hits_a, during, WAIT_NS);
	uart_stop_thre_interrupt();
	ST_EXPECT(t, during == before, "handler ran %u times while the line was disabled", during - before);
	ST_EXPECT(t, hits_a > during, "handler not called after enable_irq");
	free_irq(line, (void *)&hits_a);
}

/* Find the action named @name; RETURNS its line or -1. */
static int find_action(const char *name, struct irq_action_stats *out)
{
	struct irq_line_stats ls;

	for (unsigned int irq = 0; irq_get_line_stats(irq, &ls) == 0; irq++)
		for (unsigned int i = 0; irq_get_action_stats(irq, i, out) == 0; i++)
			if (strcmp(out->name, name) == 0)
				return (int)irq;
	return -1;
}

/* What else the CPU served: interrupts and polls of every line but @skip. */
static void other_lines(int skip, uint64_t *delivered, uint64_t *polled)
{
	struct irq_line_stats ls;

	*delivered = *polled = 0;
	for (unsigned int irq = 0; irq_get_line_stats(irq, &ls) == 0; irq++) {
		if ((int)irq == skip)
			continue;
		*delivered += ls.delivered;
		*polled += ls.polled;
	}
}

SELFTEST(irq, timer_handler_runs_at_the_configured_rate)
{
	struct irq_action_stats a0, a1;
	struct time_stats s0, s1;
	uint64_t d0, p0, d1, p1;
	struct clock_event_device *tick = clockevent_current();
	/* The PIT's handler is a kernel/irq action; the LAPIC timer uses a system vector. */
	bool pit = tick && strcmp(tick->name, "pit") == 0;
	int line = find_action("timer", &a0);
	uint64_t j0 = jiffies_read(), t0 = tsc_ns(), elapsed, expected, ticks, calls, events;

	ST_EXPECT(t, line >= 0, "no action named timer");
	if (line < 0)
		return;
	time_get_stats(&s0);
	other_lines(line, &d0, &p0);
	while ((elapsed = tsc_ns() - t0) < RATE_WINDOW_NS)
		cpu_relax();
	/* Counts read in the same order at both ends: jiffies, the handler's calls, the events. */
	ticks = jiffies_read() - j0;
	irq_get_action_stats((unsigned int)line, 0, &a1);
	calls = a1.handled - a0.handled;
	time_get_stats(&s1);
	other_lines(line, &d1, &p1);
	expected = (uint64_t)tick_hz() * elapsed / NSEC_PER_SEC;
	pr_info("    # timer: %llu ticks, %llu handler calls in %llu us at hz=%u (expected %llu)\n",
		(unsigned long long)ticks, (unsigned long long)calls, (unsigned long long)(elapsed / 1000),
		tick_hz(), (unsigned long long)expected);
	/* The evidence a failure needs: what else ran, and how late the tick was. */
	events = s1.events - s0.events;
	pr_info("    # timer: %llu clock events, %llu late hrtimers (largest since boot %llu us); "
		"other lines: %llu interrupts, %llu polls\n",
		(unsigned long long)events,
		(unsigned long long)(s1.late_hrtimers - s0.late_hrtimers),
		(unsigned long long)(s1.max_late_ns / 1000),
		(unsigned long long)(d1 - d0), (unsigned long long)(p1 - p0));
	ST_EXPECT(t, ticks * 100 >= expected * (100 - RATE_TOLERANCE_PCT) &&
		     ticks * 100 <= expected * (100 + RATE_TOLERANCE_PCT) + 100,
		  "%llu ticks, expected %llu +-%d%%", (unsigned long long)ticks,
		  (unsigned long long)expected, RATE_TOLERANCE_PCT);
	/* Each clock event is one call of the PIT's handler (a tick between the two
	 * reads of either pair moves one count and not the other: +-1). Calls are
	 * not compared with ticks: in one-shot mode an event that comes more than a
	 * period late counts every tick due at once (kernel/time/tick.c), and in
	 * Bochs (4 M instructions a second, a tick's path a large part of 1 ms)
	 * some do; the tick count above still has to keep the rate. */
	ST_EXPECT(t, !pit || (calls + 1 >= events && calls <= events + 1),
		  "%llu handler calls for %llu clock events", (unsigned long long)calls,
		  (unsigned long long)events);
}
