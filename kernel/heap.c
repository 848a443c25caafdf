/*
 * heap.c - the kernel heap allocator (interface in include/kernel/heap.h):
 * a first-fit free list over caller-given regions, with boundary tags
 * (Knuth, TAOCP vol. 1, 2.5 "Dynamic Storage Allocation") so that a block
 * finds both neighbours in constant time and free blocks merge on free.
 *
 * Block layout. Each region is cut into blocks that tile it exactly:
 *
 *     +--------+---------------------------------------+--------+
 *     | header | payload (what heap_alloc returns)     | footer |
 *     +--------+---------------------------------------+--------+
 *     ^ block                                    block + size ^
 *
 * Header and footer are the same struct block_tag: the block's size (tags
 * included) and a check word. A free block keeps its free-list links at the
 * start of the payload. The check word is a state magic (used or free)
 * mixed with the block's address and size, so that
 *   - a pointer that never came from this heap almost never has a valid
 *     header in front of it,
 *   - a double free finds a "free" header (or, if the block has been merged,
 *     a wiped one) instead of a "used" one,
 *   - an overrun that tramples the next block's header is seen by the next
 *     heap_free() or heap_alloc() that reads it, and by heap_check().
 * Every tag is verified before it is trusted, and nothing is written until
 * the block being freed has passed the checks, so a bad free changes
 * nothing but the bad_frees counter.
 *
 * Invariants (checked by heap_check): blocks tile each region; no two free
 * blocks are adjacent (they are merged on free); the free list holds exactly
 * the free blocks; used and free_blocks match the blocks.
 */
#include <kernel/heap.h>
#include <kernel/errno.h>

#include <stdbool.h>

/* Marks an initialised struct heap ("HEAP"). */
#define HEAP_READY_MAGIC 0x48454150u
/* Check-word magics for the two block states ("USED", "FREE"). */
#define BLOCK_USED_MAGIC ((uintptr_t)0x55534544u)
#define BLOCK_FREE_MAGIC ((uintptr_t)0x46524545u)
/* Odd multiplier spreading the size over the check word (golden ratio, 32 bits). */
#define CHECK_SIZE_SCRAMBLE ((uintptr_t)0x9E3779B1u)
/* Largest request accepted: keeps size + tags + alignment from overflowing. */
#define HEAP_REQUEST_MAX (SIZE_MAX / 4)

/* Header and footer of every block. */
struct block_tag {
	size_t size;       /* whole block in bytes, tags included */
	uintptr_t check;   /* tag_check(state, block, size) */
};

/* Links of a free block, at the start of its payload. */
struct free_links {
	struct block_tag *next;
	struct block_tag *prev;
};

/* What a verified block is. */
enum block_state {
	BLOCK_INVALID,  /* tags do not check out: not a block, or corrupted */
	BLOCK_USED,
	BLOCK_FREE,
};

/* Bytes of one tag, and of a block's two tags. */
#define TAG_SIZE sizeof(struct block_tag)
#define TAGS_SIZE (2 * TAG_SIZE)
/* Smallest block: two tags plus room for the free-list links. */
#define MIN_BLOCK (((TAGS_SIZE + sizeof(struct free_links)) + HEAP_ALIGN_MIN - 1) & \
		   ~(size_t)(HEAP_ALIGN_MIN - 1))

_Static_assert(TAG_SIZE % HEAP_ALIGN_MIN == 0, "payloads must stay HEAP_ALIGN_MIN-aligned");

static uintptr_t align_up(uintptr_t v, uintptr_t align)
{
	return (v + align - 1) & ~(align - 1);
}

static uintptr_t tag_check(uintptr_t magic, const struct block_tag *block, size_t size)
{
	return magic ^ (uintptr_t)block ^ ((uintptr_t)size * CHECK_SIZE_SCRAMBLE);
}

static struct block_tag *footer_of(struct block_tag *block, size_t size)
{
	return (struct block_tag *)((uintptr_t)block + size - TAG_SIZE);
}

static struct free_links *links_of(struct block_tag *block)
{
	return (struct free_links *)(block + 1);
}

/* Index of the region holding address @addr, or -1. */
static int region_of(const struct heap *h, uintptr_t addr)
{
	size_t i;

	for (i = 0; i < h->nregions; i++) {
		if (addr >= h->regions[i].start && addr < h->regions[i].end)
			return (int)i;
	}
	return -1;
}

/* Write matching header and footer tags for a block in @magic's state. */
static void write_tags(struct block_tag *block, size_t size, uintptr_t magic)
{
	struct block_tag *footer = footer_of(block, size);

	block->size = size;
	block->check = tag_check(magic, block, size);
	footer->size = size;
	footer->check = block->check;
}

/* Destroy the tags of a block that has been merged into its neighbour. */
static void wipe_header(struct block_tag *block)
{
	block->size = 0;
	block->check = 0;
}

/*
 * Verify the block at @block, which must lie in region @r: a sane size that
 * stays inside the region, a header check word for one of the two states,
 * and a footer that repeats the header. Reads nothing outside the region.
 */
static enum block_state block_state(const struct heap_region *r, struct block_tag *block)
{
	uintptr_t at = (uintptr_t)block;

	if (at < r->start || at >= r->end || at % HEAP_ALIGN_MIN != 0 || r->end - at < MIN_BLOCK)
		return BLOCK_INVALID;

	size_t size = block->size;

	if (size < MIN_BLOCK || size % HEAP_ALIGN_MIN != 0 || size > r->end - at)
		return BLOCK_INVALID;

	const struct block_tag *footer = footer_of(block, size);
	enum block_state state;

	if (block->check == tag_check(BLOCK_USED_MAGIC, block, size))
		state = BLOCK_USED;
	else if (block->check == tag_check(BLOCK_FREE_MAGIC, block, size))
		state = BLOCK_FREE;
	else
		return BLOCK_INVALID;
	if (footer->size != size || footer->check != block->check)
		return BLOCK_INVALID;
	return state;
}

/* block_state() for a block in any region of @h. */
static enum block_state block_state_in(const struct heap *h, struct block_tag *block)
{
	int r = region_of(h, (uintptr_t)block);

	return r < 0 ? BLOCK_INVALID : block_state(&h->regions[r], block);
}

static void free_list_insert(struct heap *h, struct block_tag *block)
{
	struct free_links *links = links_of(block);
	struct block_tag *first = h->free_list;

	links->prev = NULL;
	links->next = first;
	if (first != NULL)
		links_of(first)->prev = block;
	h->free_list = block;
	h->free_blocks++;
}

static void free_list_remove(struct heap *h, struct block_tag *block)
{
	struct free_links *links = links_of(block);

	if (links->prev != NULL)
		links_of(links->prev)->next = links->next;
	else
		h->free_list = links->next;
	if (links->next != NULL)
		links_of(links->next)->prev = links->prev;
	h->free_blocks--;
}

/* Upper bound on the number of blocks: bounds every walk over the heap. */
static size_t max_blocks(const struct heap *h)
{
	return h->total / MIN_BLOCK + 1;
}

static bool heap_ready(const struct heap *h)
{
	return h != NULL && h->magic == HEAP_READY_MAGIC;
}

void heap_init(struct heap *h)
{
	if (h == NULL)
		return;
	*h = (struct heap){ .magic = HEAP_READY_MAGIC };
}

int heap_add_region(struct heap *h, void *base, size_t size)
{
	size_t i;

	if (!heap_ready(h) || base == NULL || (uintptr_t)base + size < (uintptr_t)base)
		return -EINVAL;

	uintptr_t start = align_up((uintptr_t)base, HEAP_ALIGN_MIN);
	uintptr_t end = ((uintptr_t)base + size) & ~(uintptr_t)(HEAP_ALIGN_MIN - 1);

	if (end <= start || end - start < MIN_BLOCK)
		return -EINVAL;
	for (i = 0; i < h->nregions; i++) {
		if (start < h->regions[i].end && h->regions[i].start < end)
			return -EEXIST;
	}
	if (h->nregions == HEAP_REGIONS_MAX)
		return -ENOSPC;

	h->regions[h->nregions++] = (struct heap_region){ .start = start, .end = end };
	h->total += end - start;
	write_tags((struct block_tag *)start, end - start, BLOCK_FREE_MAGIC);
	free_list_insert(h, (struct block_tag *)start);
	return 0;
}

/*
 * Find where in free block @block (of @size bytes) a block of @need bytes
 * whose payload is @align-aligned can start. The gap in front must be 0 or
 * big enough to stay a free block of its own.
 * RETURNS true and the offset in *@lead if it fits.
 */
static bool fit_in_block(struct block_tag *block, size_t size, size_t need, size_t align,
			 size_t *lead)
{
	uintptr_t payload = (uintptr_t)block + TAG_SIZE;
	uintptr_t aligned = align_up(payload, align);

	if (aligned != payload && aligned - payload < MIN_BLOCK)
		aligned = align_up(payload + MIN_BLOCK, align);
	*lead = aligned - payload;
	return *lead <= size && size - *lead >= need;
}

/* Cut a used block of @need bytes at @lead into free block @block (@size bytes). */
static struct block_tag *carve(struct heap *h, struct block_tag *block, size_t size,
			       size_t lead, size_t need)
{
	struct block_tag *used = (struct block_tag *)((uintptr_t)block + lead);
	size_t rest = size - lead - need;

	free_list_remove(h, block);
	if (lead > 0) {
		write_tags(block, lead, BLOCK_FREE_MAGIC);
		free_list_insert(h, block);
	}
	/* A tail too small to be a block stays inside the allocation. */
	if (rest >= MIN_BLOCK) {
		struct block_tag *tail = (struct block_tag *)((uintptr_t)used + need);

		write_tags(tail, rest, BLOCK_FREE_MAGIC);
		free_list_insert(h, tail);
	} else {
		need += rest;
	}
	write_tags(used, need, BLOCK_USED_MAGIC);
	h->used += need;
	return used;
}

static bool valid_request(size_t size, size_t align)
{
	return size > 0 && size <= HEAP_REQUEST_MAX && align > 0 &&
	       (align & (align - 1)) == 0 && align <= HEAP_ALIGN_MAX;
}

void *heap_alloc(struct heap *h, size_t size, size_t align)
{
	if (!heap_ready(h))
		return NULL;
	if (!valid_request(size, align)) {
		h->failures++;
		return NULL;
	}
	if (align < HEAP_ALIGN_MIN)
		align = HEAP_ALIGN_MIN;

	size_t need = align_up(size, HEAP_ALIGN_MIN) + TAGS_SIZE;
	struct block_tag *block = h->free_list;
	size_t steps;

	if (need < MIN_BLOCK)
		need = MIN_BLOCK;
	/* A corrupted list (bad tag, cycle) ends the search instead of following it. */
	for (steps = 0; block != NULL && steps < max_blocks(h); steps++) {
		if (block_state_in(h, block) != BLOCK_FREE)
			break;

		size_t lead;

		if (fit_in_block(block, block->size, need, align, &lead)) {
			h->allocs++;
			return carve(h, block, block->size, lead, need) + 1;
		}
		block = links_of(block)->next;
	}
	h->failures++;
	return NULL;
}

/* Merge the free block after @block (@size bytes, in region @r) into it. RETURNS the new size. */
static size_t merge_next(struct heap *h, const struct heap_region *r,
			 struct block_tag *block, size_t size)
{
	struct block_tag *next = (struct block_tag *)((uintptr_t)block + size);

	if ((uintptr_t)next >= r->end || block_state(r, next) != BLOCK_FREE)
		return size;
	free_list_remove(h, next);
	size += next->size;
	wipe_header(next);
	return size;
}

/* Merge @block into the free block before it, if any. RETURNS the merged block. */
static struct block_tag *merge_prev(struct heap *h, const struct heap_region *r,
				    struct block_tag *block, size_t *size)
{
	if ((uintptr_t)block - r->start < MIN_BLOCK)
		return block;

	const struct block_tag *prev_footer = block - 1;
	size_t prev_size = prev_footer->size;

	if (prev_size < MIN_BLOCK || prev_size > (uintptr_t)block - r->start)
		return block;

	struct block_tag *prev = (struct block_tag *)((uintptr_t)block - prev_size);

	if (block_state(r, prev) != BLOCK_FREE)
		return block;
	free_list_remove(h, prev);
	*size += prev_size;
	wipe_header(block);
	return prev;
}

void heap_free(struct heap *h, void *p)
{
	if (p == NULL || !heap_ready(h))
		return;

	struct block_tag *block = (struct block_tag *)((uintptr_t)p - TAG_SIZE);
	int r = region_of(h, (uintptr_t)p);

	/* Verify everything before writing anything. */
	if (r < 0 || block_state(&h->regions[r], block) != BLOCK_USED) {
		h->bad_frees++;
		return;
	}

	const struct heap_region *region = &h->regions[r];
	size_t size = block->size;

	h->used -= size;
	h->frees++;
	size = merge_next(h, region, block, size);
	block = merge_prev(h, region, block, &size);
	write_tags(block, size, BLOCK_FREE_MAGIC);
	free_list_insert(h, block);
}

void heap_get_stats(const struct heap *h, struct heap_stats *out)
{
	struct block_tag *block;
	size_t steps, largest = 0;

	if (out == NULL)
		return;
	*out = (struct heap_stats){ 0 };
	if (!heap_ready(h))
		return;
	block = h->free_list;
	for (steps = 0; block != NULL && steps < h->free_blocks; steps++) {
		if (block_state_in(h, block) != BLOCK_FREE)
			break;  /* corrupted: heap_check() will say so */
		if (block->size > largest)
			largest = block->size;
		block = links_of(block)->next;
	}
	*out = (struct heap_stats){
		.total = h->total,
		.used = h->used,
		.free = h->total - h->used,
		.largest_free = largest >= TAGS_SIZE ? largest - TAGS_SIZE : 0,
		.allocs = h->allocs,
		.frees = h->frees,
		.failures = h->failures,
		.bad_frees = h->bad_frees,
		.free_blocks = h->free_blocks,
	};
}

/* Totals found by walking the blocks. */
struct walk_totals {
	size_t used;
	size_t free_blocks;
};

/* Walk region @r block by block. RETURNS 0 or -EFAULT. */
static int check_region(const struct heap *h, const struct heap_region *r,
			struct walk_totals *totals)
{
	uintptr_t at = r->start;
	bool prev_free = false;
	size_t steps;

	for (steps = 0; at < r->end && steps < max_blocks(h); steps++) {
		struct block_tag *block = (struct block_tag *)at;
		enum block_state state = block_state(r, block);

		if (state == BLOCK_INVALID)
			return -EFAULT;
		if (state == BLOCK_FREE) {
			if (prev_free)
				return -EFAULT;  /* should have been merged */
			totals->free_blocks++;
		} else {
			totals->used += block->size;
		}
		prev_free = state == BLOCK_FREE;
		at += block->size;
	}
	return at == r->end ? 0 : -EFAULT;
}

/* Follow the free list: every entry a free block, links consistent. */
static int check_free_list(const struct heap *h)
{
	struct block_tag *block = h->free_list, *prev = NULL;
	size_t count = 0;

	while (block != NULL) {
		if (count == h->free_blocks)
			return -EFAULT;  /* longer than counted: a cycle or a stray */
		if (block_state_in(h, block) != BLOCK_FREE || links_of(block)->prev != prev)
			return -EFAULT;
		prev = block;
		block = links_of(block)->next;
		count++;
	}
	return count == h->free_blocks ? 0 : -EFAULT;
}

int heap_check(const struct heap *h)
{
	struct walk_totals totals = { 0, 0 };
	size_t i, total = 0;

	if (!heap_ready(h) || h->nregions > HEAP_REGIONS_MAX)
		return -EFAULT;
	for (i = 0; i < h->nregions; i++) {
		const struct heap_region *r = &h->regions[i];

		if (r->end <= r->start || check_region(h, r, &totals) != 0)
			return -EFAULT;
		total += r->end - r->start;
	}
	if (total != h->total || totals.used != h->used || totals.free_blocks != h->free_blocks)
		return -EFAULT;
	return check_free_list(h);
}
