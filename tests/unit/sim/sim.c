/*
 * sim.c - the virtual-time simulator's controller model and run loop (see
 * sim.h): a "SIM" irq_chip over struct sim_line, deliveries as host port
 * timer events, and the start of the defences with a profile.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"

/* Longest chip error message kept, bytes. */
#define SIM_ERROR_TEXT 256

static struct sim_line lines[IRQ_NR_LINES];
static unsigned int chip_errors;
static char chip_first_error[SIM_ERROR_TEXT];

static void __attribute__((format(printf, 1, 2))) sim_error(const char *fmt, ...)
{
	va_list ap;

	if (chip_errors++)
		return;
	va_start(ap, fmt);
	vsnprintf(chip_first_error, sizeof(chip_first_error), fmt, ap);
	va_end(ap);
}

unsigned int sim_chip_errors(void) { return chip_errors; }
const char *sim_chip_first_error(void) { return chip_first_error; }
uint64_t sim_now(void) { return irq_host_now_ns(); }

struct sim_line *sim_line(unsigned int irq)
{
	return irq < IRQ_NR_LINES ? &lines[irq] : NULL;
}

uint64_t sim_random(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

bool sim_chance(uint64_t *state, uint32_t ppm)
{
	return ppm && (sim_random(state) >> 11) % SIM_PPM < ppm;
}

/* Whether @l would interrupt the CPU now. */
static bool line_signals(const struct sim_line *l)
{
	if (l->masked)
		return false;
	return l->flow == SIM_EDGE ? l->latched : l->sources != 0;
}

/* Schedule the next delivery if the line signals and none is scheduled. */
static void line_kick(struct sim_line *l)
{
	uint64_t at, until;

	if (!line_signals(l) || irq_port_timer_pending(&l->deliver))
		return;
	at = irq_host_now_ns() + SIM_IRQ_COST_NS;
	if (l->take_delay_ns && sim_chance(&l->take_rng, l->take_delay_ppm)) {
		at += l->take_delay_ns;
		l->delayed_takes++;
	}
	/* Its CPU is not running then: the interrupt waits, pending, until it runs. */
	until = irq_host_cpu_stalled_until(l->cpu, at);
	if (until) {
		at = until;
		l->stalled_takes++;
	}
	irq_port_timer_arm(&l->deliver, at);
}

/* Delivery event: the controller interrupts the CPU for this line. */
static void line_deliver(void *arg)
{
	struct sim_line *l = arg;
	unsigned int irq = (unsigned int)(l - lines), cpu = l->cpu;
	uint64_t until;

	if (!line_signals(l))
		return;  /* masked or let go meanwhile */
	until = irq_host_cpu_stalled_until(cpu, irq_host_now_ns());
	if (until) {
		/* Its CPU stalled after the delivery was scheduled: taken once it runs again. */
		irq_port_timer_arm(&l->deliver, until);
		l->stalled_takes++;
		return;
	}
	l->latched = false;
	l->delivered++;
	if (cpu) {
		/* Taken on the line's CPU: the core sees that CPU's number, and it finishes an interrupt. */
		irq_host_set_cpu(cpu);
		irq_host_irq_enter();
		generic_handle_irq(irq);
		irq_host_irq_exit();
		irq_host_set_cpu(0);
	} else {
		generic_handle_irq(irq);  /* in the timer's own (CPU 0) interrupt context */
	}
	line_kick(l);  /* still asserted (or a new edge): again after the cost */
}

/* ---- the SIM chip (called with the line's lock held) ---------------------- */

/* Keep one mask change in the line's history. */
static void line_record(struct sim_line *l, bool masked)
{
	if (l->nr_history < SIM_MASK_HISTORY)
		l->history[l->nr_history++] = (struct sim_mask_event){ irq_host_now_ns(), masked, l->delivered };
}

static void chip_mask(struct irq_data *d)
{
	struct sim_line *l = &lines[d->irq];

	if (l->masked)
		sim_error("mask of line %u, which is masked", d->irq);
	l->masked = true;
	l->masks++;
	l->last_mask_ns = irq_host_now_ns();
	line_record(l, true);
}

static void chip_unmask(struct irq_data *d)
{
	struct sim_line *l = &lines[d->irq];

	if (!l->masked)
		sim_error("unmask of line %u, which is unmasked", d->irq);
	l->masked = false;
	l->unmasks++;
	l->last_unmask_ns = irq_host_now_ns();
	line_record(l, false);
	line_kick(l);
}

static void chip_ack(struct irq_data *d) { (void)d; }

static void chip_eoi(struct irq_data *d)
{
	line_kick(&lines[d->irq]);
}

static int chip_set_type(struct irq_data *d, unsigned int type)
{
	(void)d;
	(void)type;
	return 0;
}

/* irq_set_affinity: the line's interrupts go to the lowest CPU of @mask (as arch/x86's chips). */
static int chip_set_affinity(struct irq_data *d, irq_cpumask_t mask)
{
	struct sim_line *l = &lines[d->irq];
	unsigned int cpu = 0;

	while (cpu < 31 && !(mask & (1u << cpu)))
		cpu++;
	if (cpu >= IRQ_HOST_CPUS)
		return -IRQ_EINVAL;
	l->cpu = cpu;
	return 0;
}

/* irq_pending: raised (the line signals, its delivery scheduled) and not yet taken. */
static int chip_pending(struct irq_data *d)
{
	struct sim_line *l = &lines[d->irq];

	l->pending_calls++;
	return line_signals(l) && irq_port_timer_pending(&l->deliver);
}

static const struct irq_chip sim_chip = {
	.name = "SIM", .mask = chip_mask, .unmask = chip_unmask, .ack = chip_ack,
	.eoi = chip_eoi, .set_type = chip_set_type, .irq_set_affinity = chip_set_affinity,
};

static const struct irq_chip sim_chip_pending = {
	.name = "SIM-PEND", .mask = chip_mask, .unmask = chip_unmask, .ack = chip_ack,
	.eoi = chip_eoi, .set_type = chip_set_type, .irq_pending = chip_pending,
	.irq_set_affinity = chip_set_affinity,
};

/* ---- setup and stimulus ---------------------------------------------------- */

/* The simulated host's tick (sim_options.tick_ns). */
static struct irq_port_timer tick_timer;
static uint64_t tick_period_ns, tick_count;
static unsigned int sim_cpus = 1;
static bool tick_lent;  /* the tick is lent to the core (irq_tick); else it only ticks the other CPUs */

static void sim_tick(void *arg)
{
	unsigned int cpu;

	(void)arg;
	tick_count++;
	/* The other CPUs' ticks, at the same period (each finishes an interrupt), unless stalled. */
	for (cpu = 1; cpu < sim_cpus; cpu++)
		if (!irq_host_cpu_stalled_until(cpu, irq_host_now_ns()))
			irq_host_cpu_progress_add(cpu);
	if (tick_lent)
		irq_tick(irq_host_now_ns());  /* the tick's time, read by the host (not one of the core's reads) */
	/* On the ideal grid, like kernel/time's one-shot tick. */
	irq_port_timer_arm(&tick_timer, tick_timer.expires_ns + tick_period_ns);
}

uint64_t sim_ticks(void)
{
	return tick_count;
}

unsigned int sim_core_timers_pending(void)
{
	return irq_host_timers_pending() - (irq_port_timer_pending(&tick_timer) ? 1u : 0u);
}

void sim_reset(void)
{
	unsigned int i;

	irq_host_reset();  /* (drops the tick timer with every other) */
	tick_period_ns = 0;
	tick_count = 0;
	sim_cpus = 1;
	for (i = 0; i < IRQ_NR_LINES; i++)
		lines[i] = (struct sim_line){ 0 };
	chip_errors = 0;
	chip_first_error[0] = '\0';
	irq_core_init();
	/* Back to the boot defaults of the switches (irq_core_init stopped the defences). */
	irq_param_noirqdebug("0", NULL);
	irq_param_irqfixup("0", NULL);
	irq_param_irqpoll("0", NULL);
	irq_param_policy("irqkit", NULL);
	irq_host_log_clear();
}

int sim_start(const struct sim_options *opt)
{
	int err = 0;

	if (opt->noirqdebug)
		err = err ? err : irq_param_noirqdebug(NULL, NULL);
	if (opt->irqfixup)
		err = err ? err : irq_param_irqfixup(NULL, NULL);
	if (opt->irqpoll)
		err = err ? err : irq_param_irqpoll(NULL, NULL);
	err = err ? err : irq_param_policy(opt->policy ? opt->policy : "irqkit", NULL);
	sim_cpus = opt->cpus ? opt->cpus : 1;
	if (sim_cpus > IRQ_HOST_CPUS || sim_cpus > IRQ_NR_CPUS)
		err = -IRQ_EINVAL;
	if (!err && !opt->defences_off)
		irq_defences_start();
	/* Without the tick lent to the core, the other CPUs still tick (their own timers), unseen by it. */
	tick_lent = !opt->no_tick;
	if (!err && (tick_lent || sim_cpus > 1)) {
		tick_period_ns = opt->tick_ns ? opt->tick_ns : SIM_TICK_NS;
		irq_port_timer_init(&tick_timer, sim_tick, NULL);
		irq_port_timer_arm(&tick_timer, irq_host_now_ns() + tick_period_ns);
		if (tick_lent)
			irq_tick_start(tick_period_ns);
	}
	return err;
}

static int sim_line_setup_chip(unsigned int irq, enum sim_flow flow, const struct irq_chip *chip)
{
	static const irq_flow_handler_t flows[] = {
		[SIM_EDGE] = handle_edge_irq, [SIM_LEVEL] = handle_level_irq, [SIM_FASTEOI] = handle_fasteoi_irq,
	};
	struct sim_line *l = sim_line(irq);

	if (!l)
		return -IRQ_EINVAL;
	*l = (struct sim_line){ .used = true, .flow = flow, .masked = false };
	irq_port_timer_init(&l->deliver, line_deliver, l);
	/* The core masks the line when the chip is attached. */
	return irq_set_chip_and_handler(irq, chip, flows[flow], NULL, irq);
}

int sim_line_setup(unsigned int irq, enum sim_flow flow)
{
	return sim_line_setup_chip(irq, flow, &sim_chip);
}

int sim_line_setup_pending(unsigned int irq, enum sim_flow flow)
{
	return sim_line_setup_chip(irq, flow, &sim_chip_pending);
}

void sim_line_set_take_delay(unsigned int irq, uint64_t delay_ns, uint32_t ppm, uint64_t seed)
{
	struct sim_line *l = sim_line(irq);

	if (!l)
		return;
	l->take_delay_ns = delay_ns;
	l->take_delay_ppm = ppm;
	l->take_rng = seed ? seed : 3;
}

void sim_line_set_source(unsigned int irq, unsigned int source, bool on)
{
	struct sim_line *l = sim_line(irq);

	if (!l || source >= SIM_SOURCES_MAX)
		return;
	if (on)
		l->sources |= 1u << source;
	else
		l->sources &= ~(1u << source);
	line_kick(l);
}

void sim_line_edge(unsigned int irq)
{
	struct sim_line *l = sim_line(irq);

	if (!l)
		return;
	l->latched = true;
	line_kick(l);
}

void sim_cpu_stall(unsigned int cpu, uint64_t ns)
{
	uint64_t now = irq_host_now_ns();

	irq_host_cpu_stall(cpu, now, now + ns);
}

void sim_run_for(uint64_t ns)
{
	irq_host_advance_ns(ns);
}
