/*
 * kmalloc.c - the kernel heap: one static struct heap (kernel/heap.c) with
 * interrupts disabled around every heap operation, so that kmalloc/kfree
 * may be called from interrupt handlers too (irqkit runs on one CPU; on SMP
 * this would also need a spinlock). This file holds the kernel-only glue:
 * locking and log lines. The allocator itself is tested on the host.
 */
#include <kernel/heap.h>
#include <kernel/errno.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#include <asm/cpu.h>
#include <asm/spinlock.h>

#include <stdbool.h>

/* Bad frees reported one by one before the rest are only counted. */
#define KFREE_REPORTS_MAX 8

static struct heap kernel_heap;
static bool kernel_heap_ready;
static unsigned int kfree_reports;

/* Set the heap up on first use. CONTEXT: interrupts disabled. */
/* The heap is one for all CPUs: its state is under this lock (with
 * interrupts off, so an interrupt handler's kmalloc cannot deadlock against
 * the thread it interrupted; ordering in asm/spinlock.h). */
static spinlock_t kmalloc_lock = SPINLOCK_INIT;

static void kernel_heap_start(void)
{
	if (!kernel_heap_ready) {
		heap_init(&kernel_heap);
		kernel_heap_ready = true;
	}
}

/*
 * kmalloc_add_region - give [@base, @base + @size) to the kernel heap.
 * CONTEXT: any. RETURNS as heap_add_region().
 */
int kmalloc_add_region(void *base, size_t size)
{
	unsigned long flags = spin_lock_irqsave(&kmalloc_lock);
	int err;

	kernel_heap_start();
	err = heap_add_region(&kernel_heap, base, size);
	spin_unlock_irqrestore(&kmalloc_lock, flags);
	return err;
}

/*
 * kmalloc_init - start the kernel heap with the region @base/@size (if the
 * heap already has regions, this one is added). An unusable region is
 * logged; the heap then simply has less memory. CONTEXT: any.
 */
void kmalloc_init(void *base, size_t size)
{
	int err = kmalloc_add_region(base, size);

	if (err != 0)
		pr_err("kmalloc: cannot use %zu bytes at %p as heap: %s\n", size, base,
		       errno_name(err));
}

/*
 * kmalloc_aligned - @size bytes aligned to @align (see heap_alloc()).
 * CONTEXT: any. RETURNS the memory, or NULL after one log line saying what
 * was wanted and what the heap has left.
 */
void *kmalloc_aligned(size_t size, size_t align)
{
	struct heap_stats st;
	unsigned long flags = spin_lock_irqsave(&kmalloc_lock);
	void *p;

	kernel_heap_start();
	p = heap_alloc(&kernel_heap, size, align);
	if (p == NULL)
		heap_get_stats(&kernel_heap, &st);
	spin_unlock_irqrestore(&kmalloc_lock, flags);

	if (p != NULL)
		return p;
	/* Print outside the critical section: printk takes its own lock. */
	if (size == 0 || align == 0 || (align & (align - 1)) != 0 || align > HEAP_ALIGN_MAX)
		pr_err("kmalloc: bad request: %zu bytes (align %zu), called from %p\n",
		       size, align, __builtin_return_address(0));
	else
		pr_err("kmalloc: out of memory: wanted %zu bytes (align %zu), largest free block %zu of %zu free\n",
		       size, align, st.largest_free, st.free);
	return NULL;
}

/* kmalloc - @size bytes, HEAP_ALIGN_MIN-aligned. CONTEXT: any. RETURNS as kmalloc_aligned(). */
void *kmalloc(size_t size)
{
	return kmalloc_aligned(size, HEAP_ALIGN_MIN);
}

/* kzalloc - @size cleared bytes. CONTEXT: any. RETURNS as kmalloc_aligned(). */
void *kzalloc(size_t size)
{
	void *p = kmalloc_aligned(size, HEAP_ALIGN_MIN);

	if (p != NULL)
		memset(p, 0, size);
	return p;
}

/*
 * kfree - give back memory from kmalloc & co; NULL is ignored. A pointer
 * the heap refuses (double free, not from kmalloc, corrupted block) leaves
 * the heap unchanged and is logged with its caller, the first
 * KFREE_REPORTS_MAX times. CONTEXT: any.
 */
void kfree(void *p)
{
	unsigned long flags;
	size_t bad_before;
	unsigned int report = KFREE_REPORTS_MAX + 1;  /* none */

	if (p == NULL)
		return;
	flags = spin_lock_irqsave(&kmalloc_lock);
	kernel_heap_start();
	bad_before = kernel_heap.bad_frees;
	heap_free(&kernel_heap, p);
	/* Decide about the report here, so that nested kfree()s count right. */
	if (kernel_heap.bad_frees != bad_before && kfree_reports <= KFREE_REPORTS_MAX)
		report = kfree_reports++;
	spin_unlock_irqrestore(&kmalloc_lock, flags);

	if (report < KFREE_REPORTS_MAX)
		pr_err("kfree: refused %p from %p: double free, or not a kmalloc block, or its header is corrupted; heap unchanged\n",
		       p, __builtin_return_address(0));
	else if (report == KFREE_REPORTS_MAX)
		pr_err("kfree: more bad frees; no longer reported one by one (see `mem`)\n");
}

/* kmalloc_get_stats - the kernel heap's figures. CONTEXT: any. */
void kmalloc_get_stats(struct heap_stats *out)
{
	unsigned long flags = spin_lock_irqsave(&kmalloc_lock);

	kernel_heap_start();
	heap_get_stats(&kernel_heap, out);
	spin_unlock_irqrestore(&kmalloc_lock, flags);
}
