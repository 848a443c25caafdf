/*
 * work.c - deferred work run from the idle loop (see include/kernel/work.h).
 *
 * One singly linked FIFO, guarded by disabling interrupts: the kernel runs
 * on one CPU, and work is queued from interrupt handlers and timers.
 */
#include <stddef.h>
#include <asm/cpu.h>
#include <kernel/work.h>

static struct work *head, *tail;

void work_init(struct work *w, void (*fn)(struct work *w), void *arg)
{
	w->fn = fn;
	w->arg = arg;
	w->queued = false;
	w->next = NULL;
}

bool work_queue(struct work *w)
{
	unsigned long flags = irq_save_flags();
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
	irq_restore_flags(flags);
	return queued;
}

bool work_cancel(struct work *w)
{
	unsigned long flags = irq_save_flags();
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
	irq_restore_flags(flags);
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
		unsigned long flags = irq_save_flags();
		struct work *w = head;

		if (w) {
			head = w->next;
			if (!head)
				tail = NULL;
			w->next = NULL;
			w->queued = false;   /* it may queue itself again */
		}
		irq_restore_flags(flags);
		if (!w)
			break;
		w->fn(w);
		ran++;
	}
	return ran;
}
