/*
 * work.c - deferred work run from the idle loop (see include/kernel/work.h).
 *
 * One singly linked FIFO, guarded by work_lock with interrupts off: work is
 * queued from interrupt handlers and timers, and a handler may run on any
 * CPU (a line moved by affinity, docs/smp.md). The work itself runs on CPU 0
 * (the shell's idle loop), so a CPU that queues some wakes CPU 0 with the
 * wake-up IPI. Innermost lock: nothing is called under it.
 */
#include <stddef.h>
#include <asm/cpu.h>
#include <asm/smp.h>
#include <asm/spinlock.h>
#include <kernel/work.h>

static struct work *head, *tail;
static spinlock_t work_lock = SPINLOCK_INIT;

void work_init(struct work *w, void (*fn)(struct work *w), void *arg)
{
	w->fn = fn;
	w->arg = arg;
	w->queued = false;
	w->next = NULL;
}

bool work_queue(struct work *w)
{
	unsigned long flags = spin_lock_irqsave(&work_lock);
	bool queued = false;

	if (!w->queued && w->fn) {
		w->queued = true;
		w->next = NULL;
		if (tail)
			tail->next = w;
		else
			head = w;
		tail = w;
		queued = true;
	}
	spin_unlock_irqrestore(&work_lock, flags);
	if (queued && smp_processor_id() != 0)
		smp_send_wakeup(0);
	return queued;
}

bool work_cancel(struct work *w)
{
	unsigned long flags = spin_lock_irqsave(&work_lock);
	struct work **pp = &head, *prev = NULL;
	bool found = false;

	while (*pp) {
		if (*pp == w) {
			*pp = w->next;
			if (tail == w)
				tail = prev;
			w->queued = false;
			w->next = NULL;
			found = true;
			break;
		}
		prev = *pp;
		pp = &(*pp)->next;
	}
	spin_unlock_irqrestore(&work_lock, flags);
	return found;
}

bool work_pending_any(void)
{
	return head != NULL;
}

unsigned int work_run(void)
{
	unsigned int ran = 0;

	while (ran < WORK_RUN_MAX) {
		unsigned long flags = spin_lock_irqsave(&work_lock);
		struct work *w = head;

		if (w) {
			head = w->next;
			if (!head)
				tail = NULL;
			w->next = NULL;
			w->queued = false;   /* it may queue itself again */
		}
		spin_unlock_irqrestore(&work_lock, flags);
		if (!w)
			break;
		w->fn(w);
		ran++;
	}
	return ran;
}
