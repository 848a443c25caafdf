/*
 * sim_dev.c - device models of the virtual-time simulator (see sim.h): a
 * device with a driver that completes operations and may lose their
 * interrupts, and interrupt sources without operations (a rogue device
 * stuck asserting a level line, bursts of spurious edges, a busy healthy
 * device). Every device event is a host port timer.
 */
#include "sim.h"

/* The line the device's interrupt really arrives on. */
static unsigned int dev_raise_line(const struct sim_dev *d)
{
	return d->misrouted ? d->raise_irq : d->irq;
}

/* The interrupt of the current loss probability: lost? */
static bool dev_loses_irq(struct sim_dev *d)
{
	bool changed = (d->loss_change_at_ns && irq_host_now_ns() >= d->loss_change_at_ns) ||
		       (d->loss_change_after_ops && d->op > d->loss_change_after_ops);
	uint32_t ppm = changed ? d->loss_ppm_after : d->loss_ppm;

	if (d->op && (d->op == d->lose_ops[0] || d->op == d->lose_ops[1]))
		return true;
	return sim_chance(&d->rng, ppm);
}

/* Let go of the line (level) after the handler serviced the device. */
static void dev_lower(struct sim_dev *d)
{
	if (d->level)
		sim_line_set_source(dev_raise_line(d), d->source, false);
}

/* Event: a late interrupt finally comes (the handler may have been polled meanwhile). */
static void dev_late_irq(void *arg)
{
	struct sim_dev *d = arg;

	if (!d->level)
		sim_line_edge(dev_raise_line(d));
}

/* Event: the device finished the operation. */
static void dev_complete(void *arg)
{
	struct sim_dev *d = arg;

	if (!d->busy)
		return;
	d->done = true;
	if (dev_loses_irq(d)) {
		d->lost_irqs++;
		return;
	}
	if (d->late_irq_op && d->op == d->late_irq_op && !d->level) {
		irq_port_timer_arm(&d->late_irq_timer, irq_host_now_ns() + d->late_irq_ns);
		return;
	}
	if (d->irq_delay_ns && !d->level) {
		irq_port_timer_arm(&d->late_irq_timer, irq_host_now_ns() + d->irq_delay_ns);
		return;
	}
	if (d->level)
		sim_line_set_source(dev_raise_line(d), d->source, true);
	else
		sim_line_edge(dev_raise_line(d));
}

/* Event: the driver starts the next operation. */
static void dev_next(void *arg)
{
	struct sim_dev *d = arg;
	uint64_t now = irq_host_now_ns(), latency = d->latency_ns;

	if (!d->running || d->busy)
		return;
	if (d->jitter_ns)
		latency += sim_random(&d->rng) % (d->jitter_ns + 1);
	d->op++;
	d->ops++;
	d->busy = true;
	d->done = false;
	d->op_started_ns = now;
	expect_irq(d->exp);
	irq_port_timer_arm(&d->complete_timer, now + latency);
	if (d->timeout_ns)
		irq_port_timer_arm(&d->timeout_timer, now + d->timeout_ns);
}

/* The operation is over (completed or abandoned): the next one after think_ns. */
static void dev_finish(struct sim_dev *d)
{
	d->busy = false;
	d->done = false;
	irq_port_timer_cancel(&d->timeout_timer);
	if (d->running)
		irq_port_timer_arm(&d->next_timer, irq_host_now_ns() + d->think_ns);
}

/* Event: the driver gave up waiting. */
static void dev_timeout(void *arg)
{
	struct sim_dev *d = arg;

	if (!d->busy)
		return;
	d->timeouts++;
	unexpect_irq(d->exp, true);
	irq_port_timer_cancel(&d->complete_timer);
	dev_lower(d);
	if (d->use_watch)
		watch_irq(d->irq, d);
	dev_finish(d);
}

/* The driver's interrupt handler (also called by polls). */
static irqreturn_t dev_handler(unsigned int irq, void *dev_id)
{
	struct sim_dev *d = dev_id;
	bool polled = irq_to_desc(irq)->run_is_poll;
	uint64_t latency;

	d->handler_calls++;
	d->handler_polls += polled;
	if (d->in_handler)
		d->in_handler(d, polled);
	if (d->handler_ns)
		irq_host_spend_ns(d->handler_ns);
	if (!d->done)
		return IRQ_NONE;
	latency = irq_host_now_ns() - d->op_started_ns;
	d->done = false;
	dev_lower(d);
	if (d->completed_op == d->op)
		d->double_completions++;
	d->completed_op = d->op;
	d->completions++;
	if (polled) {
		d->by_poll++;
		d->poll_latency_sum_ns += latency;
	} else {
		d->by_irq++;
	}
	d->latency_sum_ns += latency;
	if (latency > d->latency_max_ns)
		d->latency_max_ns = latency;
	unexpect_irq(d->exp, false);
	if (d->on_complete)
		d->on_complete(d, polled, latency);
	dev_finish(d);
	if (d->start_in_handler && d->running) {
		irq_port_timer_cancel(&d->next_timer);
		dev_next(d);
	}
	return IRQ_HANDLED;
}

int sim_dev_attach(struct sim_dev *d)
{
	int err;

	d->rng = d->seed ? d->seed : 1;
	irq_port_timer_init(&d->complete_timer, dev_complete, d);
	irq_port_timer_init(&d->next_timer, dev_next, d);
	irq_port_timer_init(&d->timeout_timer, dev_timeout, d);
	irq_port_timer_init(&d->late_irq_timer, dev_late_irq, d);
	err = request_irq(d->irq, dev_handler, IRQF_SHARED, d->name, d);
	if (err)
		return err;
	d->attached = true;
	if (d->use_expect)
		d->exp = d->static_token ? init_irq_expect_static(&d->exp_storage, d->irq, d)
					 : init_irq_expect(d->irq, d);
	if (d->use_watch)
		watch_irq(d->irq, d);
	return 0;
}

void sim_dev_start(struct sim_dev *d, uint64_t delay_ns)
{
	d->running = true;
	irq_port_timer_arm(&d->next_timer, irq_host_now_ns() + delay_ns);
}

void sim_dev_stop(struct sim_dev *d)
{
	d->running = false;
	irq_port_timer_cancel(&d->next_timer);
}

void sim_dev_detach(struct sim_dev *d)
{
	sim_dev_stop(d);
	irq_port_timer_cancel(&d->complete_timer);
	irq_port_timer_cancel(&d->timeout_timer);
	irq_port_timer_cancel(&d->late_irq_timer);
	dev_lower(d);
	if (d->attached)
		free_irq(d->irq, d);
	d->attached = false;
}

/* ---- interrupt sources ------------------------------------------------------ */

/* Event: start, next edge, or stop of a source. */
static void source_event(void *arg)
{
	struct sim_source *s = arg;
	uint64_t now = irq_host_now_ns();

	if (s->stop_ns && now >= s->stop_ns) {
		s->active = false;
		if (s->mode == SIM_STUCK_LEVEL)
			sim_line_set_source(s->irq, s->source, false);
		return;
	}
	s->active = true;
	if (s->mode == SIM_STUCK_LEVEL) {
		sim_line_set_source(s->irq, s->source, true);
		s->raised++;
		if (s->stop_ns)
			irq_port_timer_arm(&s->timer, s->stop_ns);
		return;
	}
	sim_line_edge(s->irq);
	s->raised++;
	s->unserved++;
	irq_port_timer_arm(&s->timer, now + s->period_ns);
}

static irqreturn_t source_handler(unsigned int irq, void *dev_id)
{
	struct sim_source *s = dev_id;

	(void)irq;
	s->handler_calls++;
	if (s->handler_ns)
		irq_host_spend_ns(s->handler_ns);
	if (s->claims_own) {
		if (!s->unserved)
			return IRQ_NONE;
		s->unserved = 0;
	}
	if (!s->active || !sim_chance(&s->rng, s->claim_ppm))
		return IRQ_NONE;
	s->claimed++;
	return IRQ_HANDLED;
}

int sim_source_attach(struct sim_source *s)
{
	int err = 0;

	s->rng = s->seed ? s->seed : 7;
	irq_port_timer_init(&s->timer, source_event, s);
	if (s->has_handler)
		err = request_irq(s->irq, source_handler, IRQF_SHARED, s->name, s);
	if (!err)
		irq_port_timer_arm(&s->timer, s->start_ns);
	return err;
}

void sim_source_detach(struct sim_source *s)
{
	irq_port_timer_cancel(&s->timer);
	if (s->mode == SIM_STUCK_LEVEL)
		sim_line_set_source(s->irq, s->source, false);
	s->active = false;
	if (s->has_handler)
		free_irq(s->irq, s);
}
