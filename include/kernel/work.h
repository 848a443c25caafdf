/*
 * work.h - deferred work: run a function later in process context.
 *
 * Interrupt handlers and timer callbacks must not wait; when they find
 * something that needs waiting (a USB device plugged in must be reset and
 * enumerated, which takes tens of milliseconds of control transfers), they
 * queue a struct work, and the kernel's idle loop (the shell waiting for a
 * key, kernel/shell.c) runs it with interrupts enabled.
 *
 *   static void plug_fn(struct work *w) { ... may msleep, usb_control_msg ... }
 *   static struct work plug = WORK_INIT(plug_fn, NULL);
 *   work_queue(&plug);          // from an IRQ handler or a timer
 *
 * A work item is queued at most once: queueing one that is already queued
 * does nothing (its function runs once for both). It may queue itself again
 * from its own function. Items run in the order they were queued.
 */
#ifndef KERNEL_WORK_H
#define KERNEL_WORK_H

#include <stdbool.h>

struct work {
	void (*fn)(struct work *w);
	void *arg;                   /* for fn */
	bool queued;                 /* kept by work.c */
	struct work *next;           /* kept by work.c */
};

#define WORK_INIT(fn_, arg_) { (fn_), (arg_), false, 0 }

/* work_init - prepare @w to run @fn(w). */
void work_init(struct work *w, void (*fn)(struct work *w), void *arg);

/* work_queue - run @w later in process context. RETURNS true if queued now,
 * false if it was already queued. CONTEXT: any. */
bool work_queue(struct work *w);

/* work_cancel - take @w off the queue. RETURNS true if it was queued. CONTEXT: any. */
bool work_cancel(struct work *w);

/* work_pending_any - RETURNS true if some work is queued. CONTEXT: any
 * (the idle loop checks it with interrupts off before halting). */
bool work_pending_any(void);

/* work_run - run every item queued now (and those they queue), with
 * interrupts enabled, bounded by WORK_RUN_MAX items per call.
 * RETURNS how many ran. CONTEXT: process, never from an interrupt. */
unsigned int work_run(void);

enum work_limits {
	WORK_RUN_MAX = 64,           /* items one work_run() call runs before returning to the caller */
};

#endif /* KERNEL_WORK_H */
