/*
 * heap.h - the kernel heap: a first-fit allocator over memory regions the
 * caller hands over (RAM above the kernel image, from the Multiboot memory
 * map). Design and block layout are described at the top of kernel/heap.c.
 *
 * Two layers:
 *   heap_*    - pure logic over a struct heap, no locking, no printing; the
 *               host unit tests run it on plain arrays.
 *   kmalloc & co (kernel/kmalloc.c) - one static kernel heap, interrupts
 *               disabled around every call, a log line when memory runs out.
 *
 * Every block carries boundary tags with check words, so heap_free() of a
 * pointer that is not a live allocation (double free, foreign or corrupted
 * pointer) is detected, changes nothing and is counted in bad_frees.
 */
#ifndef KERNEL_HEAP_H
#define KERNEL_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* Limits of a heap. */
enum heap_limits {
	/* Regions one heap can manage (the BIOS memory map rarely has more usable ones). */
	HEAP_REGIONS_MAX = 16,
	/* Alignment of every allocation (bytes); smaller requests are rounded up to it. */
	HEAP_ALIGN_MIN = 8,
	/* Largest alignment heap_alloc() accepts (bytes): one 4 KiB page. */
	HEAP_ALIGN_MAX = 4096,
};

/* One region under management: [start, end), both HEAP_ALIGN_MIN-aligned. */
struct heap_region {
	uintptr_t start;
	uintptr_t end;
};

/* A heap. Defined here so it can be static storage; touch it only via heap_*(). */
struct heap {
	uint32_t magic;                 /* HEAP_READY_MAGIC (heap.c) once heap_init() ran */
	size_t nregions;                /* entries used in regions[] */
	struct heap_region regions[HEAP_REGIONS_MAX];
	void *free_list;                /* first free block (heap.c's struct block_tag) */
	size_t total;                   /* bytes managed, tags included */
	size_t used;                    /* bytes in allocated blocks, tags included */
	size_t free_blocks;             /* blocks on the free list */
	size_t allocs;                  /* successful heap_alloc() calls */
	size_t frees;                   /* successful heap_free() calls */
	size_t failures;                /* heap_alloc() calls that returned NULL */
	size_t bad_frees;               /* heap_free() calls refused (double/foreign/corrupt) */
};

struct heap_stats {
	size_t total;         /* bytes managed, tags included */
	size_t used;          /* bytes in allocated blocks, tags included */
	size_t free;          /* total - used */
	size_t largest_free;  /* largest request heap_alloc(h, n, HEAP_ALIGN_MIN) can satisfy now */
	size_t allocs;        /* successful allocations */
	size_t frees;         /* successful frees */
	size_t failures;      /* allocations that returned NULL (out of memory or bad arguments) */
	size_t bad_frees;     /* frees refused: double free, foreign or corrupted pointer */
	size_t free_blocks;   /* free blocks (1 means no fragmentation) */
};

/* heap_init - make @h an empty heap with no regions. CONTEXT: any; caller serialises. */
void heap_init(struct heap *h);

/*
 * heap_add_region - give @size bytes at @base to @h; several regions are
 * allowed, they must not overlap. The ends are trimmed to HEAP_ALIGN_MIN.
 * CONTEXT: any; caller serialises all calls on @h.
 * RETURNS 0; -EINVAL for a NULL/uninitialised heap, NULL base, a region that
 * wraps around or is too small to hold one block; -EEXIST if it overlaps a
 * region already added; -ENOSPC if HEAP_REGIONS_MAX regions are in use.
 */
int heap_add_region(struct heap *h, void *base, size_t size);

/*
 * heap_alloc - allocate @size bytes aligned to @align (a power of two up to
 * HEAP_ALIGN_MAX; values below HEAP_ALIGN_MIN mean HEAP_ALIGN_MIN). The
 * memory is not cleared. First fit over the free list.
 * CONTEXT: any; caller serialises all calls on @h.
 * RETURNS the memory, or NULL when out of memory or for bad arguments
 * (size 0, align 0 or not a power of two or too large); NULL is counted in
 * failures.
 */
void *heap_alloc(struct heap *h, size_t size, size_t align);

/*
 * heap_free - give back @p from heap_alloc(h, ...); NULL is ignored. A @p
 * that is not a live allocation of @h is refused without touching anything
 * and counted in bad_frees. Neighbouring free blocks are merged.
 * CONTEXT: any; caller serialises all calls on @h.
 */
void heap_free(struct heap *h, void *p);

/* heap_get_stats - fill *@out with @h's figures. CONTEXT: any; caller serialises. */
void heap_get_stats(const struct heap *h, struct heap_stats *out);

/*
 * heap_check - walk every block of every region and the free list and
 * verify tags, sizes, links, the no-adjacent-free-blocks rule and the
 * counters. CONTEXT: any; caller serialises. O(blocks).
 * RETURNS 0 if the heap is consistent, -EFAULT at the first inconsistency
 * (or for a NULL/uninitialised heap).
 */
int heap_check(const struct heap *h);

/*
 * The kernel heap (kernel/kmalloc.c): one static struct heap; every call
 * disables interrupts around the heap operation, so all of these may be
 * called from any context, interrupt handlers included. kmalloc_add_region
 * works without kmalloc_init (the heap is set up on first use).
 */

/* kmalloc_init - start the kernel heap with one region (logs an error if unusable). */
void kmalloc_init(void *base, size_t size);
/* kmalloc_add_region - add a region to the kernel heap. RETURNS as heap_add_region(). */
int kmalloc_add_region(void *base, size_t size);
/*
 * kmalloc - @size bytes, HEAP_ALIGN_MIN-aligned, not cleared. RETURNS the
 * memory or NULL, after logging one line that says what was wanted and what
 * is left.
 */
void *kmalloc(size_t size);
/* kzalloc - kmalloc() and clear the memory. RETURNS as kmalloc(). */
void *kzalloc(size_t size);
/* kmalloc_aligned - kmalloc() with an alignment (see heap_alloc). RETURNS as kmalloc(). */
void *kmalloc_aligned(size_t size, size_t align);
/* kfree - give back kernel heap memory; NULL is ignored, bad pointers are logged. */
void kfree(void *p);
/* kmalloc_get_stats - the kernel heap's figures. */
void kmalloc_get_stats(struct heap_stats *out);

#endif
