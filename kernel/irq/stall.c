/*
 * stall.c - evidence that a CPU ran (issue 28): a stalled CPU is not a
 * lost interrupt.
 *
 * The defences poll on time, from wherever the poll timer runs; a line's
 * interrupt goes to the CPU the line is routed to, and that CPU may not be
 * running: a virtual CPU its host has descheduled, an SMI, a CPU spinning
 * with interrupts off. A poll then finds the device's work done and its
 * interrupt not taken - late, not lost. Judged by time alone (2010, Linux)
 * that is a lost interrupt, announced, and the line put on polling:
 * kernel/irq in an xv6 on a loaded host did exactly that, and so did
 * irqkit's own tests beside a compiler.
 *
 * The sign that a CPU ran is the count of interrupts it has finished
 * (irq_port_cpu_progress, port.h). A poll that finds work takes a mark of
 * the line's CPU (__irq_cpu_mark): which CPU, its count, when. The verdict
 * on that work may call it lost only once the CPU has finished
 * stall_ran_irqs (3) interrupts since the mark (__irq_cpu_ran): the first
 * ends whatever it was in, so it had interrupts enabled after; the second
 * is the one it took then - the line's own, had it been pending, unless
 * one of a higher priority (the tick) was pending beside it; the third
 * covers that one. Each count's advance is a release after the handlers'
 * stores (port.h), so a verdict that sees the third sees the unclaimed
 * interrupt the line's handlers counted, if it came - unless another CPU
 * ran the handlers then (a poll): the edge waits for that CPU's replay as
 * IRQS_PENDING, and the verdict with it (expect.c); a level interrupt is
 * not replayed, and the flow's count of interrupts it left to a run in
 * progress (irq_desc::busy_irqs, chip.c) is its trace. Asked on the line's
 * CPU itself, of a mark taken there, one is enough: the interrupt in which
 * the poll found the work has ended, and the CPU took what was pending
 * before it did anything else. Until then the verdict waits.
 *
 * A driver's own time-out is judged by the same count from the mark
 * expect_irq takes as the expect opens (expect.c, irq_expect_mark_open):
 * the earliest mark since the expect, there whether or not a poll ran;
 * and by the standstill rule below, from the looks the driver's own asks
 * took of that mark during its wait (__irq_cpu_ran_lately): it ran since
 * the open and did not stand still for the standstill window (below) up
 * to the time-out.
 *
 * A CPU that finished no interrupt for the standstill window as the looks
 * at it since a mark saw it - from the mark, or from the first look that
 * saw its count after it last moved - or a mark taken by a poll timer that
 * fired that window late (on one CPU:
 * the host stopped the whole machine, and the timer was as late as the
 * interrupt), shows the CPU was not running (__irq_cpu_stalled): what was
 * found is "late (CPU not running)" when the interrupt comes after all -
 * counted apart, not announced, neither a good delivery nor a bad one -
 * and lost as before when the CPU runs and it does not come. Counted from
 * the mark alone, a CPU that finished one interrupt after the find and
 * then stood still inside the line's handlers (lesson 5's loaded run: the
 * polls meanwhile found the line busy) never showed a stall, and the find
 * was judged unsure once it ran again. The looks are the polls (busy ones
 * too), the tick's looks and the verdicts (expect.c, watch.c).
 *
 * The standstill window (__irq_stall_window_ns) is stall_ns (2 ms) or two
 * periods of the host's tick (irq_tick_start), whichever is longer: 2 ms
 * at 1 kHz, 20 ms at 100 Hz; stall_ns alone without a tick. Why two: an
 * idle CPU finishes an interrupt (its tick) at least once a period; a look
 * sees a move late, never early (the time it keeps, m->seen_ns, is at or
 * after the move), so from it to the next move is at most one period of a
 * tick that keeps time exactly; the second period covers the tick's
 * jitter (a tick taken late behind a section with interrupts off, a
 * virtual CPU's timer interrupts delivered in a bunch). Each CPU must tick
 * at that period: the port's promise (port.h, irq_port_cpu_progress; on
 * x86 each AP's LAPIC timer runs periodic at hz=, as CPU 0's tick does).
 * A poll timer late by the window says the same of its CPU: a host whose
 * timers run at tick resolution fires them up to a period late.
 *
 * Memory ordering, lock-free across CPUs:
 *   writer                 what                          reader
 *   the line's CPU X       its handlers' stores (the     any CPU, under the
 *                          line's unclaimed count),      line's lock:
 *                          then its progress count       progress (acquire),
 *                          (release: port.h)             then the unclaimed
 *                                                        count (relaxed)
 * A reader that sees X's count moved sees every store X made before the
 * move; without the pairing a verdict could see the count of X's next
 * interrupt and not the unclaimed interrupt before it, and call a late
 * interrupt lost. The marks themselves are under the line's lock (what a
 * look saw, m->seen and m->seen_ns, too), but
 * for the expect's own (exp->open_mark): written by expect_irq without
 * the lock, before the seq_cst state RMW that publishes IRQ_EXP_EXPECTING,
 * read under the lock by the token's driver after its expect_irq, or by a
 * reader whose acquire load of the state saw this expect (expect.c). Its
 * looks (seen, seen_ns) are written only by the token's driver, under the
 * lock, after its expect_irq and before its unexpect_irq (irq_expect_cpu_ran,
 * the time-out's verdict), never by the polls or the tick: a look of theirs
 * could land on the next expect's mark while the driver writes it lock-free.
 * "After" is the driver's to keep: by program order (an NVMe queue's
 * waiter, the one CPU that submits to it), or by its own lock held around
 * both calls where another CPU may open the next expect (AHCI renews the
 * bracket from its handler under the host lock, PIO ATA per block under
 * the channel's lock).
 *
 * Layer 2, a service of the defences: may use layers 0-2 (docs/irq-layers.md).
 */
#include "expect_state.h"
#include "internals.h"
#include "policy.h"
#include "stall.h"
#include "trace.h"

unsigned int __irq_line_cpu(const struct irq_desc *desc)
{
	/* Relaxed: expect_irq asks without the lock; irq_set_affinity stores it whole (irqdesc.c). */
	irq_cpumask_t mask = __atomic_load_n(&desc->affinity, __ATOMIC_RELAXED);
	unsigned int cpu;

	/* The lowest CPU of the mask: arch/x86's IOAPIC and MSI chips deliver there (irqchip.h). */
	for (cpu = 0; cpu + 1 < IRQ_NR_CPUS && mask && !(mask & 1u); cpu++)
		mask >>= 1;
	return mask ? cpu : 0;
}

void __irq_cpu_mark(struct irq_desc *desc, struct irq_cpu_mark *m, uint64_t now)
{
	unsigned int cpu = __irq_line_cpu(desc);

	m->at_ns = now;
	m->cpu = (uint16_t)cpu;
	m->here = cpu == irq_port_cpu_id();
	m->progress = irq_port_cpu_progress(cpu);
	/* The poll timer's expiry that runs this poll came the standstill window late (poll.c); under the lock. */
	m->late_poll = desc->def.poll_fired_late && (desc->status & IRQS_POLLING);
	m->seen = m->progress;
	m->seen_ns = now;
}

bool __irq_cpu_ran(const struct irq_cpu_mark *m)
{
	uint32_t need = (uint32_t)irq_policy()->stall_ran_irqs;

	if (!need)
		return true;  /* a profile without the test: judged by time, as in 2010 */
	if (m->here && m->cpu == irq_port_cpu_id())
		need = 1;
	need += m->late_poll;  /* after a late poll: one more, the CPU had only just started again */
	return irq_port_cpu_progress(m->cpu) - m->progress >= need;
}

/*
 * The host's tick period as the port gave it to irq_tick_start (0: no
 * tick), in ns; a period past 4.29 s is kept as UINT32_MAX (a 32-bit word:
 * no 64-bit atomics on the 32-bit ports), so the window stops at 8.6 s. Written by irq_tick_start in
 * every build (tick_look.c hands it on with IRQ_TICK_LOOK 0 too) and by
 * irq_defences_core_init (0); read by __irq_stall_window_ns from any CPU.
 * Relaxed both ways: a setting read whole, ordered with nothing else; a
 * look that reads the old period across a change judges by the old window,
 * which was the rule a moment before.
 */
static uint32_t irq_stall_tick_ns;

void __irq_stall_tick(uint64_t period_ns)
{
	uint32_t v = period_ns <= UINT32_MAX ? (uint32_t)period_ns : UINT32_MAX;

	__atomic_store_n(&irq_stall_tick_ns, v, __ATOMIC_RELAXED);
}

uint64_t __irq_stall_window_ns(void)
{
	uint64_t w = irq_policy()->stall_ns;
	uint64_t two_ticks = 2 * (uint64_t)__atomic_load_n(&irq_stall_tick_ns, __ATOMIC_RELAXED);

	if (!w)
		return 0;  /* stall_ns 0 keeps its meaning: no late-poll mark, no settle spacing, any standstill counts */
	return two_ticks > w ? two_ticks : w;
}

bool __irq_cpu_stalled(struct irq_cpu_mark *m, uint64_t now)
{
	const struct irq_policy *p = irq_policy();
	uint32_t count;

	if (!p->stall_ran_irqs)
		return false;
	if (m->late_poll)
		return true;
	count = irq_port_cpu_progress(m->cpu);
	if (count != m->seen) {  /* it moved since the last look: it stands still from here at most */
		m->seen = count;
		m->seen_ns = now;
		return false;
	}
	return now >= m->seen_ns && now - m->seen_ns >= __irq_stall_window_ns();
}

/*
 * A driver's time-out (the open mark, @m): the line's CPU ran since the
 * expect (__irq_cpu_ran) - and lately: a look now does not find it
 * standing still for the standstill window (__irq_cpu_stalled: the count as the looks
 * since the open saw it). Counted from the open alone, a CPU that finished
 * its three interrupts early in the wait and was then descheduled for the
 * rest passed for running, and the late interrupt pending there was
 * judged lost. A healthy idle CPU is not standing still: its tick moves
 * the count every tick period (the window is two of them at least). Asked on
 * the line's CPU itself the CPU runs (the asker), so no look counts: its
 * count may stand while the asker waits with interrupts off. A standstill
 * is seen only if a look came while the CPU stood still, at least the
 * window before now: the looks at the open mark are the driver's asks during its
 * wait (irq_expect_cpu_ran; the drivers ask every *_CPU_LOOK_MS of a long
 * wait) and this verdict's own; with none since the count last moved the
 * answer is the open mark's alone, as before. Only the token's own driver
 * looks (lock held; program order after its expect_irq, which wrote the
 * mark without the lock: the ordering above), so the looks never race
 * the next expect's mark.
 */
bool __irq_cpu_ran_lately(struct irq_cpu_mark *m, uint64_t now)
{
	bool still = m->cpu != irq_port_cpu_id() && __irq_cpu_stalled(m, now);

	return __irq_cpu_ran(m) && !still;
}

uint32_t __irq_cpu_finished(const struct irq_cpu_mark *m)
{
	return irq_port_cpu_progress(m->cpu) - m->progress;  /* (a count that wraps: by difference) */
}

/*
 * The question a driver's own time-out asks before it calls its wait lost
 * (interrupt.h). The same evidence as the core's verdict on that time-out
 * (expect.c, __irq_expect_timeout_stalled), so that the driver's message
 * and the core's count agree: the line's handlers running for an
 * interrupt on another CPU that has not finished it; else the mark
 * expect_irq took of the line's CPU as the expect opened (exp->open_mark,
 * the earliest since the expect: there whether or not a poll ran since),
 * and whether that CPU stood still for the standstill window up to now as this ask and
 * the earlier ones of this expect saw it (__irq_cpu_ran_lately): each ask
 * is also a look, so a driver asks now and then during a long wait.
 * Takes the line's lock. Ordering: the acquire load of the state that
 * sees this expect's IRQ_EXP_EXPECTING sees its mark (expect.c,
 * irq_expect_mark_open); the progress count as above.
 */
bool irq_expect_cpu_ran(struct irq_expect *exp)
{
	struct irq_desc *desc;
	unsigned long flags;
	uint64_t now;
	uint32_t st;
	bool ran;

	if (!exp || !irq_policy()->stall_ran_irqs)
		return true;
	st = __atomic_load_n(&exp->state, __ATOMIC_ACQUIRE);
	desc = exp->desc;
	if (!(st & IRQ_EXP_LIVE) || !(st & IRQ_EXP_EXPECTING) || !desc)
		return true;
	now = irq_port_now_ns();
	flags = irq_port_lock_irqsave(&desc->lock);
	if ((desc->status & IRQS_INPROGRESS) && !__atomic_load_n(&desc->run_is_poll, __ATOMIC_RELAXED) &&
	    __atomic_load_n(&desc->run_clock_cpu, __ATOMIC_RELAXED) != irq_port_cpu_id() + 1)
		ran = false;
	else
		ran = __irq_cpu_ran_lately(&exp->open_mark, now);  /* also a look: asked during the wait, too */
	irq_port_unlock_irqrestore(&desc->lock, flags);
	return ran;
}
