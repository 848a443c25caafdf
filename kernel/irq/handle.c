/*
 * handle.c - running a line's handlers: the run of the action list with
 * the line's lock dropped (the flows of chip.c call it), replays
 * of edges that arrived while the line was busy or disabled, and polls
 * (running the handlers without an interrupt, for the defences).
 *
 * The exclusion rule of the whole core lives here: whoever sets
 * IRQS_INPROGRESS under the lock owns the run; every other interrupt, poll
 * or replay of the line that comes meanwhile either marks IRQS_PENDING for
 * the owner (interrupts) or skips (polls). The owner looks at IRQS_PENDING
 * before it lets go of the line (__irq_finish_pending), so nothing that
 * arrived is lost and no handler runs twice at once.
 *
 * Modelled on the dispatch path of Linux's genirq (kernel/irq/handle.c,
 * resend.c); written for irqkit. See also chip.c (flows), spurious.c
 * (note_interrupt), manage.c (the waits of free_irq/disable_irq).
 *
 * Layer 1, the dispatch core: may use layers 0-1, but not chip.c, which
 * calls it (the chip calls it needs are chip_ops.h's inline ones); it calls
 * up only through the hooks core.h was given, and note_interrupt()
 * (spurious.c), the one call up the layer check sanctions
 * (docs/irq-layers.md).
 */
#include "core.h"
#include "chip_ops.h"

#define IRQ_ALWAYS_INLINE static inline __attribute__((always_inline))

/*
 * Run every action once; @polled says which counter a claim goes to. @tr
 * (a constant): the copy that records each handler's return (trace.h).
 */
IRQ_ALWAYS_INLINE irqreturn_t irq_run_actions(struct irq_desc *desc, bool polled, const bool tr)
{
	unsigned int irq = desc->irq_data.irq;
	irqreturn_t combined = IRQ_NONE;
	struct irqaction *action = irq_action_load(&desc->action);
	unsigned int walked;

	for (walked = 0; action; walked++) {
		irqreturn_t ret;

		if (walked == IRQ_MAX_SHARED) {
			irq_port_log(IRQ_LOG_ERR, "irq %u: action list longer than %u: corrupt\n", irq,
				     (unsigned int)IRQ_MAX_SHARED);
			irq_port_panic("irq_run_actions: action list corrupt");
		}
		ret = action->handler(irq, action->dev_id);
		if (tr)
			irq_trace_record(IRQ_TEV_ACTION, irq,
					 ret == IRQ_HANDLED ? IRQ_TRET_HANDLED : ret == IRQ_NONE ? IRQ_TRET_NONE : IRQ_TRET_BAD,
					 walked | (polled ? IRQ_TRACE_ACTION_POLL : 0));
		if (ret == IRQ_HANDLED) {
			combined = IRQ_HANDLED;
			if (polled)
				action->polled_handled++;
			else
				action->handled++;
		} else if (ret != IRQ_NONE && irq_report_due(++action->bad_returns)) {
			irq_port_log(IRQ_LOG_WARN, "irq %u: handler \"%.*s\" returned %d, not IRQ_NONE/IRQ_HANDLED (%llu times); taken as IRQ_NONE\n",
				     irq, IRQ_NAME_LOG_MAX, action->name, (int)ret,
				     (unsigned long long)action->bad_returns);
		}
		action = irq_action_load(&action->next);
	}
	return combined;
}

IRQ_ALWAYS_INLINE irqreturn_t handle_irq_event(struct irq_desc *desc, unsigned long *flags, const bool tr)
{
	bool polled = (desc->status & IRQS_POLLING) != 0;
	irqreturn_t ret;
	uint64_t now;

	/* A poll does not consume a pending interrupt: it is replayed after. */
	if (!polled)
		desc->status &= ~IRQS_PENDING;
	desc->status |= IRQS_INPROGRESS;
	/*
	 * Both read lock-free by expect_irq/unexpect_irq on any CPU (expect.c):
	 * atomic stores. run_clock_cpu is also IRQS_INPROGRESS's lock-free mirror.
	 */
	__atomic_store_n(&desc->run_is_poll, polled, __ATOMIC_RELAXED);
	/* The run's clock (__irq_run_now): read when first needed, or the poll's own reading (irq_poll_line_at). */
	__atomic_store_n(&desc->run_clock_cpu, irq_port_cpu_id() + 1, __ATOMIC_RELAXED);
	desc->run_clock_ns = polled ? desc->def.poll_clock_ns : 0;
	/* Polls only: was the line's interrupt on its way before the handlers ran (irq_chip::irq_pending)? */
	if (polled) {
		if (!desc->def.poll_pending_sampled)  /* irq_poll_line asked already, just now */
			desc->def.poll_pending_before = (int8_t)__irq_chip_pending(desc);
		desc->def.poll_pending = desc->def.poll_pending_before;
		desc->def.poll_pending_sampled = false;
	}
	irq_port_unlock_irqrestore(&desc->lock, *flags);

	ret = irq_run_actions(desc, polled, tr);
	if (polled) {
		/* ... and after them (a level request an 8259 follows is gone once the device is cleared). */
		int8_t after = (int8_t)__irq_chip_pending(desc), before = desc->def.poll_pending_before;

		desc->def.poll_pending = (before == IRQ_PENDING_YES || after == IRQ_PENDING_YES) ? IRQ_PENDING_YES
					 : (before == IRQ_PENDING_NO && after == IRQ_PENDING_NO) ? IRQ_PENDING_NO
					 : IRQ_PENDING_UNKNOWN;
		if (ret == IRQ_HANDLED && desc->def.poll_pending == IRQ_PENDING_YES)
			desc->def.poll_beat++;  /* the poll beat the line's pending interrupt to the work */
	}
	note_interrupt(desc, ret);
	__irq_poll_want_moved(desc);  /* the run may have changed any defence's state */

	*flags = irq_port_lock_irqsave(&desc->lock);
	now = polled && irq_line_claims_open(desc) ? __irq_run_clock_owner(desc) : 0;
	/* Before IRQS_INPROGRESS goes: this CPU owns the run's clock no more (internals.h). */
	__atomic_store_n(&desc->run_clock_cpu, 0, __ATOMIC_RELAXED);
	desc->status &= ~IRQS_INPROGRESS;
	if (polled && irq_line_claims_open(desc))
		__irq_hooks->poll_claims_done(desc, now);  /* expecting's (core.h) */
	return ret;
}

irqreturn_t __handle_irq_event(struct irq_desc *desc, unsigned long *flags)
{
	return handle_irq_event(desc, flags, false);
}

irqreturn_t __handle_irq_event_traced(struct irq_desc *desc, unsigned long *flags)
{
#if IRQ_TRACE_BUILD
	return handle_irq_event(desc, flags, true);
#else
	return __handle_irq_event(desc, flags);  /* the trace compiled out: no traced copy */
#endif
}

IRQ_ALWAYS_INLINE void finish_pending(struct irq_desc *desc, unsigned long *flags, const bool tr)
{
	unsigned int replays;

	for (replays = 0; desc->status & IRQS_PENDING; replays++) {
		if (!desc->action || (desc->status & IRQS_DISABLED))
			return;  /* kept for enable_irq, or cleared by free_irq */
		if (irq_desc_is_level(desc)) {
			desc->status &= ~IRQS_PENDING;
			break;
		}
		if (replays == IRQ_EDGE_REPLAY_LIMIT) {
			/* An edge storm: let go of this CPU, continue from the timer. */
			__irq_schedule_resend(desc);
			return;
		}
		if (tr)
			__handle_irq_event_traced(desc, flags);
		else
			__handle_irq_event(desc, flags);
	}
	if (desc->action && !(desc->status & IRQS_DISABLED))
		chip_unmask(desc, tr && IRQ_TRACE_BUILD);  /* the trace compiled out: the untraced copy */
}

void __irq_finish_pending(struct irq_desc *desc, unsigned long *flags)
{
	finish_pending(desc, flags, false);
}

void __irq_finish_pending_traced(struct irq_desc *desc, unsigned long *flags)
{
#if IRQ_TRACE_BUILD
	finish_pending(desc, flags, true);
#else
	__irq_finish_pending(desc, flags);  /* the trace compiled out: no traced copy */
#endif
}

void __irq_schedule_resend(struct irq_desc *desc)
{
	desc->status |= IRQS_REPLAY;
	irq_port_timer_arm(&desc->resend_timer, irq_port_now_ns());
}

void __irq_enable_line(struct irq_desc *desc)
{
	if (irq_line_flood_off(desc))
		return;  /* off for flooding: the flood defence re-enables it (spurious.c) */
	desc->status &= ~IRQS_DISABLED;
	if (irq_trace_enabled())  /* as __irq_unmask (chip.c), which the flows' file keeps */
		chip_unmask(desc, true);
	else
		chip_unmask(desc, false);
	if (!(desc->status & IRQS_PENDING))
		return;
	if (irq_desc_is_level(desc))
		desc->status &= ~IRQS_PENDING;  /* unmasking re-delivers it */
	else
		__irq_schedule_resend(desc);
}

/* Resend timer: replay the pending edge in timer context. */
static void irq_resend_timer_fn(void *arg)
{
	struct irq_desc *desc = arg;
	unsigned long flags = irq_port_lock_irqsave(&desc->lock);

	if (desc->status & IRQS_REPLAY) {
		desc->status &= ~IRQS_REPLAY;
		/* If the handlers run right now, their owner replays it itself. */
		if (!(desc->status & IRQS_INPROGRESS) && irq_trace_enabled())
			__irq_finish_pending_traced(desc, &flags);
		else if (!(desc->status & IRQS_INPROGRESS))
			__irq_finish_pending(desc, &flags);
	}
	irq_port_unlock_irqrestore(&desc->lock, flags);
}

void irq_desc_timers_init(struct irq_desc *desc, void (*poll_fn)(void *desc))
{
	irq_port_timer_init(&desc->resend_timer, irq_resend_timer_fn, desc);
	/* Poll timer: the scheduler decides what to poll and when (poll.c, through core.h's hooks). */
	irq_port_timer_init(&desc->poll_timer, poll_fn, desc);
}

void __irq_account_no_action(struct irq_desc *desc)
{
	uint64_t spurious;

	irq_stat_inc(desc, IRQ_STAT_UNHANDLED, true);
	irq_stat_inc(desc, IRQ_STAT_SPURIOUS, true);
	spurious = __irq_stat_sum(desc, IRQ_STAT_SPURIOUS);  /* exact: every CPU counts it under the lock */
	if (irq_report_due(spurious))
		irq_port_log(IRQ_LOG_WARN, "irq %u: interrupt on a line without handler (%llu so far); line kept masked\n",
			     desc->irq_data.irq, (unsigned long long)spurious);
}

/*
 * Whether a poll should leave the line to its own interrupt: the chip says
 * it is pending (irq_chip::irq_pending), the line is not masked, so the
 * CPU takes it as soon as it may and it runs every handler of the line -
 * a poll now would only take its work first (and the defences would then
 * have to judge a race instead of a delivery). Once per delivery: if the
 * interrupt has still not been taken by the next poll (a controller that
 * keeps a request it never delivers, an ISR slot never ended), the poll
 * runs. Lock held.
 */
static bool __irq_poll_defer(struct irq_desc *desc)
{
	struct irq_defence_line *def = &desc->def;

	uint64_t delivered;

	if (desc->status & (IRQS_MASKED | IRQS_DISABLED))
		return false;
	/* The answer is also the poll's "before the handlers" sample (__handle_irq_event). */
	def->poll_pending_before = (int8_t)__irq_chip_pending(desc);
	def->poll_pending_sampled = true;
	if (def->poll_pending_before != IRQ_PENDING_YES)
		return false;
	/* Summed over the CPUs only now: a poll of a line that is not pending pays nothing for it. */
	delivered = __irq_stat_sum(desc, IRQ_STAT_DELIVERED);
	if (def->defer_delivered == delivered + 1)
		return false;  /* deferred before and nothing came since (on any CPU) */
	def->poll_pending_sampled = false;
	def->defer_delivered = delivered + 1;
	def->poll_deferred++;
	return true;
}

/*
 * irq_poll_line with the run's clock from @now (0: none). With @locked the
 * caller holds the lock (*@locked: its flags) and holds it again after;
 * without, it is taken and let go here.
 */
static int irq_poll_line_clock(struct irq_desc *desc, uint64_t now, unsigned long *locked)
{
	unsigned long flags = locked ? *locked : irq_port_lock_irqsave(&desc->lock);
	int ret;

	if (desc->status & IRQS_INPROGRESS) {
		desc->def.poll_busy++;  /* the race lost: the running side does the work */
		ret = -IRQ_EBUSY;
	} else if (!desc->action) {
		ret = -IRQ_ENOENT;
	} else if (!__irq_polls_allowed(desc)) {
		ret = -IRQ_EAGAIN;  /* disabled (a line off for flooding is polled instead) */
	} else if (__irq_poll_defer(desc)) {
		ret = -IRQ_EINPROGRESS;  /* the line's interrupt is on its way: it does the work */
	} else {
		bool tr = irq_trace_enabled();

		desc->status |= IRQS_POLLING;
		desc->def.poll_clock_ns = now;  /* taken by this run alone: under the lock until it starts */
		ret = tr ? __handle_irq_event_traced(desc, &flags) : __handle_irq_event(desc, &flags);
		desc->def.poll_clock_ns = 0;
		desc->status &= ~IRQS_POLLING;
		if (desc->status & IRQS_PENDING)
			desc->def.poll_raced++;  /* an interrupt came while the poll held the line */
		/* A real interrupt that came during the poll runs now, as itself. */
		if (tr)
			__irq_finish_pending_traced(desc, &flags);
		else
			__irq_finish_pending(desc, &flags);
	}
	if (locked)
		*locked = flags;
	else
		irq_port_unlock_irqrestore(&desc->lock, flags);
	return ret;
}

int irq_poll_line(struct irq_desc *desc)
{
	return irq_poll_line_clock(desc, 0, NULL);
}

int irq_poll_line_at(struct irq_desc *desc, unsigned int why, uint64_t now_ns, unsigned long *locked)
{
	unsigned int irq = desc->irq_data.irq, res;
	int ret;

	if (!irq_trace_enabled())
		return irq_poll_line_clock(desc, now_ns, locked);
	irq_trace_record(IRQ_TEV_POLL_START, irq, why, 0);
	ret = irq_poll_line_clock(desc, now_ns, locked);
	res = ret == IRQ_HANDLED ? IRQ_TPOLL_HANDLED : ret == IRQ_NONE ? IRQ_TPOLL_NONE
	      : ret == -IRQ_EBUSY ? IRQ_TPOLL_BUSY : ret == -IRQ_ENOENT ? IRQ_TPOLL_NOACTION
	      : ret == -IRQ_EAGAIN ? IRQ_TPOLL_DISABLED : ret == -IRQ_EINPROGRESS ? IRQ_TPOLL_DEFERRED : IRQ_TPOLL_OTHER;
	irq_trace_record(IRQ_TEV_POLL_END, irq, res, 0);
	return ret;
}

int irq_poll_line_traced(struct irq_desc *desc, unsigned int why)
{
	return irq_poll_line_at(desc, why, 0, NULL);
}

int irq_poll(unsigned int irq)
{
	struct irq_desc *desc = irq_to_desc(irq);

	if (!desc)
		return -IRQ_EINVAL;
	return irq_poll_line_traced(desc, IRQ_TRACE_WHY_CALLER);
}

void irq_poll_schedule(struct irq_desc *desc, uint64_t at_ns)
{
	irq_port_timer_arm(&desc->poll_timer, at_ns);
}

bool irq_poll_cancel(struct irq_desc *desc)
{
	return irq_port_timer_cancel(&desc->poll_timer);
}

void irq_wait_idle(struct irq_desc *desc, const char *caller)
{
	uint64_t start = irq_port_now_ns();

	for (;;) {
		unsigned long flags = irq_port_lock_irqsave(&desc->lock);
		bool busy = (desc->status & IRQS_INPROGRESS) != 0;

		irq_port_unlock_irqrestore(&desc->lock, flags);
		if (!busy)
			return;
		if (irq_port_now_ns() - start > IRQ_SYNC_TIMEOUT_NS) {
			irq_port_log(IRQ_LOG_ERR, "irq %u: %s waited %llu ms for the line's handler; called from that handler?\n",
				     desc->irq_data.irq, caller,
				     (unsigned long long)(IRQ_SYNC_TIMEOUT_NS / 1000000u));
			irq_port_panic("irq_wait_idle: handler never finished");
		}
		irq_port_cpu_relax();
	}
}

void irq_account_spurious(unsigned int irq)
{
	struct irq_desc *desc = irq_to_desc(irq);
	unsigned long flags;

	if (!desc)
		return;
	flags = irq_port_lock_irqsave(&desc->lock);
	irq_stat_inc(desc, IRQ_STAT_SPURIOUS, true);
	irq_port_unlock_irqrestore(&desc->lock, flags);
}
