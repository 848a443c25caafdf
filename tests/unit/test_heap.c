/*
 * test_heap.c - host unit tests for the kernel heap (kernel/heap.c) over
 * plain arrays. Long random alloc/free sequences write a pattern into every
 * allocation and check it and heap_check() as they go; the rest pins down
 * alignment, exhaustion, merging back to one block, several regions, and
 * that double, foreign and corrupted frees are refused without changing a
 * single byte of the heap.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/heap.h>
#include <kernel/errno.h>

/* Size of the main test arena. */
#define ARENA_SIZE (256 * 1024)
/* Live allocations tracked by the random test at most. */
#define MAX_LIVE 512
/* Operations of the random test. */
#define RANDOM_OPS 40000
/* Largest random request (bytes). */
#define RANDOM_SIZE_MAX 3000

static uint8_t arena[ARENA_SIZE] __attribute__((aligned(HEAP_ALIGN_MAX)));
static uint8_t snapshot[ARENA_SIZE];

static void fresh_heap(struct heap *h, size_t size)
{
	heap_init(h);
	assert_int_equal(heap_add_region(h, arena, size), 0);
	assert_int_equal(heap_check(h), 0);
}

static struct heap_stats stats_of(const struct heap *h)
{
	struct heap_stats st;

	heap_get_stats(h, &st);
	return st;
}

static void fresh_region_is_one_free_block_of_its_whole_size(void **state)
{
	struct heap h;

	(void)state;
	fresh_heap(&h, ARENA_SIZE);
	struct heap_stats st = stats_of(&h);

	assert_int_equal(st.total, ARENA_SIZE);
	assert_int_equal(st.used, 0);
	assert_int_equal(st.free, ARENA_SIZE);
	assert_int_equal(st.free_blocks, 1);
	assert_true(st.largest_free < ARENA_SIZE && st.largest_free > ARENA_SIZE - 64);
	/* largest_free is exact: that much fits, one byte more does not. */
	assert_null(heap_alloc(&h, st.largest_free + 1, HEAP_ALIGN_MIN));
	void *all = heap_alloc(&h, st.largest_free, HEAP_ALIGN_MIN);

	assert_non_null(all);
	memset(all, 0xEE, st.largest_free);
	assert_int_equal(heap_check(&h), 0);
	assert_null(heap_alloc(&h, 1, HEAP_ALIGN_MIN));
	assert_int_equal(stats_of(&h).free, 0);
	heap_free(&h, all);
	assert_int_equal(stats_of(&h).largest_free, st.largest_free);
}

struct live {
	uint8_t *p;
	size_t size;
	uint8_t fill;
};

static void fill_and_remember(struct live *l, void *p, size_t size, uint8_t fill)
{
	l->p = p;
	l->size = size;
	l->fill = fill;
	memset(p, fill, size);
}

static void assert_still_filled(const struct live *l)
{
	size_t i;

	for (i = 0; i < l->size; i++) {
		if (l->p[i] != l->fill)
			fail_msg("allocation %p byte %zu overwritten", (void *)l->p, i);
	}
}

static void random_allocs_and_frees_keep_heap_consistent_and_data_intact(void **state)
{
	static struct live live[MAX_LIVE];
	struct heap h;
	unsigned seed = 2024;
	size_t nlive = 0, i;
	int op;

	(void)state;
	fresh_heap(&h, ARENA_SIZE);
	for (op = 0; op < RANDOM_OPS; op++) {
		bool do_alloc = nlive == 0 || (nlive < MAX_LIVE && rand_r(&seed) % 100 < 55);

		if (do_alloc) {
			size_t size = 1 + (size_t)rand_r(&seed) % RANDOM_SIZE_MAX;
			size_t align = (size_t)1 << (3 + rand_r(&seed) % 10);  /* 8..4096 */
			uint8_t *p = heap_alloc(&h, size, align);

			if (p != NULL) {
				assert_int_equal((uintptr_t)p % align, 0);
				assert_true(p >= arena && p + size <= arena + ARENA_SIZE);
				fill_and_remember(&live[nlive++], p, size, (uint8_t)(op | 1));
			}
		} else {
			size_t victim = (size_t)rand_r(&seed) % nlive;

			assert_still_filled(&live[victim]);
			heap_free(&h, live[victim].p);
			live[victim] = live[--nlive];
		}
		if (heap_check(&h) != 0)
			fail_msg("heap_check failed after operation %d", op);
	}
	for (i = 0; i < nlive; i++) {
		assert_still_filled(&live[i]);
		heap_free(&h, live[i].p);
	}
	struct heap_stats st = stats_of(&h);

	assert_int_equal(st.used, 0);
	assert_int_equal(st.free_blocks, 1);
	assert_int_equal(st.bad_frees, 0);
	assert_int_equal(st.allocs, st.frees);
	assert_int_equal(heap_check(&h), 0);
}

static void every_alignment_up_to_a_page_is_honoured(void **state)
{
	struct heap h;
	size_t align, size;

	(void)state;
	fresh_heap(&h, ARENA_SIZE);
	for (align = 1; align <= HEAP_ALIGN_MAX; align *= 2) {
		for (size = 1; size < 200; size += 37) {
			void *p = heap_alloc(&h, size, align);

			assert_non_null(p);
			/* Below HEAP_ALIGN_MIN the alignment is rounded up to it. */
			assert_int_equal((uintptr_t)p % (align < HEAP_ALIGN_MIN ? HEAP_ALIGN_MIN : align), 0);
			memset(p, 0x42, size);
		}
		assert_int_equal(heap_check(&h), 0);
	}
}

static void bad_requests_return_null_and_count_as_failures(void **state)
{
	static const size_t bad_aligns[] = { 0, 3, 24, 96, HEAP_ALIGN_MAX * 2 };
	struct heap h;
	size_t i;

	(void)state;
	fresh_heap(&h, ARENA_SIZE);
	for (i = 0; i < sizeof(bad_aligns) / sizeof(bad_aligns[0]); i++)
		assert_null(heap_alloc(&h, 16, bad_aligns[i]));
	assert_null(heap_alloc(&h, 0, HEAP_ALIGN_MIN));
	assert_null(heap_alloc(&h, SIZE_MAX, HEAP_ALIGN_MIN));
	assert_null(heap_alloc(&h, SIZE_MAX - 7, HEAP_ALIGN_MIN));
	assert_int_equal(stats_of(&h).failures, 8);
	assert_int_equal(stats_of(&h).allocs, 0);
	assert_int_equal(heap_check(&h), 0);
}

static void exhaustion_returns_null_and_freeing_everything_restores_capacity(void **state)
{
	static void *blocks[ARENA_SIZE / 64];
	struct heap h;
	size_t n = 0, again = 0, i;

	(void)state;
	fresh_heap(&h, ARENA_SIZE);
	while ((blocks[n] = heap_alloc(&h, 64, HEAP_ALIGN_MIN)) != NULL)
		n++;
	assert_true(n > ARENA_SIZE / 128);
	assert_int_equal(stats_of(&h).failures, 1);
	assert_int_equal(heap_check(&h), 0);
	for (i = 0; i < n; i++)
		heap_free(&h, blocks[i]);
	assert_int_equal(stats_of(&h).free_blocks, 1);
	while ((blocks[again] = heap_alloc(&h, 64, HEAP_ALIGN_MIN)) != NULL)
		again++;
	assert_int_equal(again, n);
}

static void freeing_in_any_order_merges_back_into_one_block(void **state)
{
	enum { COUNT = 300 };
	static void *blocks[COUNT];
	struct heap h;
	unsigned seed = 5;
	size_t i, order[COUNT];

	(void)state;
	fresh_heap(&h, ARENA_SIZE);
	size_t whole = stats_of(&h).largest_free;

	for (i = 0; i < COUNT; i++) {
		blocks[i] = heap_alloc(&h, 8 + (size_t)rand_r(&seed) % 500, HEAP_ALIGN_MIN);
		assert_non_null(blocks[i]);
		order[i] = i;
	}
	/* Shuffle, then free odd positions first so that holes appear and merge later. */
	for (i = COUNT - 1; i > 0; i--) {
		size_t j = (size_t)rand_r(&seed) % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 1; i < COUNT; i += 2)
		heap_free(&h, blocks[order[i]]);
	assert_true(stats_of(&h).free_blocks > 1);
	assert_int_equal(heap_check(&h), 0);
	for (i = 0; i < COUNT; i += 2)
		heap_free(&h, blocks[order[i]]);
	struct heap_stats st = stats_of(&h);

	assert_int_equal(st.free_blocks, 1);
	assert_int_equal(st.largest_free, whole);
	assert_int_equal(st.used, 0);
	assert_int_equal(heap_check(&h), 0);
}

static void freed_memory_is_reused_first_fit(void **state)
{
	struct heap h;

	(void)state;
	fresh_heap(&h, ARENA_SIZE);
	void *a = heap_alloc(&h, 100, HEAP_ALIGN_MIN);
	void *b = heap_alloc(&h, 100, HEAP_ALIGN_MIN);

	assert_non_null(a);
	assert_non_null(b);
	heap_free(&h, a);
	void *c = heap_alloc(&h, 40, HEAP_ALIGN_MIN);

	assert_ptr_equal(c, a);
	assert_int_equal(heap_check(&h), 0);
}

/* Free @p and require that it was refused and left the arena byte for byte. */
static void assert_refused_without_change(struct heap *h, void *p)
{
	struct heap_stats before = stats_of(h), after;
	struct heap copy = *h;

	memcpy(snapshot, arena, sizeof(arena));
	heap_free(h, p);
	after = stats_of(h);
	assert_int_equal(after.bad_frees, before.bad_frees + 1);
	assert_int_equal(after.frees, before.frees);
	assert_int_equal(after.used, before.used);
	copy.bad_frees++;
	assert_memory_equal(&copy, h, sizeof(copy));
	assert_memory_equal(snapshot, arena, sizeof(arena));
}

static void double_free_is_detected_and_changes_nothing(void **state)
{
	struct heap h;

	(void)state;
	fresh_heap(&h, ARENA_SIZE);
	void *a = heap_alloc(&h, 64, HEAP_ALIGN_MIN);
	void *b = heap_alloc(&h, 64, HEAP_ALIGN_MIN);
	void *c = heap_alloc(&h, 64, HEAP_ALIGN_MIN);

	assert_non_null(c);
	/* b stays a block of its own: its neighbours are in use. */
	heap_free(&h, b);
	assert_refused_without_change(&h, b);
	/* a is merged with the free b after it: its header is gone. */
	heap_free(&h, a);
	assert_refused_without_change(&h, a);
	assert_refused_without_change(&h, b);
	assert_int_equal(heap_check(&h), 0);
	assert_int_equal(stats_of(&h).bad_frees, 3);
	heap_free(&h, c);
	assert_int_equal(stats_of(&h).free_blocks, 1);
}

static void foreign_and_interior_pointers_are_refused(void **state)
{
	struct heap h;
	uint64_t on_stack = 0;

	(void)state;
	fresh_heap(&h, ARENA_SIZE / 2);
	uint8_t *p = heap_alloc(&h, 256, HEAP_ALIGN_MIN);

	assert_non_null(p);
	memset(p, 0, 256);
	assert_refused_without_change(&h, &on_stack);
	assert_refused_without_change(&h, p + 8);
	assert_refused_without_change(&h, p + 1);
	assert_refused_without_change(&h, p + 128);
	assert_refused_without_change(&h, arena);
	assert_refused_without_change(&h, arena + ARENA_SIZE / 2);       /* just past the region */
	assert_refused_without_change(&h, arena + ARENA_SIZE / 2 - 8);   /* its last bytes */
	assert_refused_without_change(&h, (void *)(uintptr_t)8);
	assert_refused_without_change(&h, (void *)UINTPTR_MAX);
	heap_free(&h, NULL);  /* NULL is fine and not counted */
	assert_int_equal(stats_of(&h).bad_frees, 9);
	assert_int_equal(heap_check(&h), 0);
	heap_free(&h, p);
	assert_int_equal(stats_of(&h).frees, 1);
}

static void corrupted_header_is_caught_by_check_and_free(void **state)
{
	struct heap h;

	(void)state;
	fresh_heap(&h, ARENA_SIZE);
	uint8_t *a = heap_alloc(&h, 64, HEAP_ALIGN_MIN);
	uint8_t *b = heap_alloc(&h, 64, HEAP_ALIGN_MIN);

	assert_non_null(b);
	/* Flip one bit of a's header (just before the payload). */
	a[-1] ^= 0x10;
	assert_int_equal(heap_check(&h), -EFAULT);
	assert_refused_without_change(&h, a);
	a[-1] ^= 0x10;
	assert_int_equal(heap_check(&h), 0);
	heap_free(&h, a);
	assert_int_equal(stats_of(&h).frees, 1);
}

static void overrun_into_the_next_block_is_caught_by_check(void **state)
{
	struct heap h;
	uint8_t saved[64 + 64];

	(void)state;
	fresh_heap(&h, ARENA_SIZE);
	uint8_t *a = heap_alloc(&h, 64, HEAP_ALIGN_MIN);
	uint8_t *b = heap_alloc(&h, 64, HEAP_ALIGN_MIN);

	assert_non_null(b);
	memcpy(saved, a, sizeof(saved));
	/* Write well past a's 64 bytes, over its footer and into b's header. */
	memset(a, 0x77, 64 + 48);
	assert_int_equal(heap_check(&h), -EFAULT);
	/* Neither block is freed into a corrupt list, and nothing crashes. */
	assert_refused_without_change(&h, b);
	memcpy(a, saved, sizeof(saved));
	assert_int_equal(heap_check(&h), 0);
}

static void corrupted_free_list_fails_allocation_instead_of_following_it(void **state)
{
	struct heap h;

	(void)state;
	fresh_heap(&h, ARENA_SIZE);
	uint8_t *a = heap_alloc(&h, 64, HEAP_ALIGN_MIN);
	uint8_t *b = heap_alloc(&h, 64, HEAP_ALIGN_MIN);

	assert_non_null(b);
	heap_free(&h, a);
	/* A use after free scribbles over the free block's links. */
	memset(a, 0xC3, 2 * sizeof(void *));
	assert_int_equal(heap_check(&h), -EFAULT);
	/* The list head (a) is still valid, but its next link leads nowhere. */
	assert_null(heap_alloc(&h, 4096, HEAP_ALIGN_MIN));
	struct heap_stats st = stats_of(&h);

	assert_int_equal(st.failures, 1);
}

static void several_regions_are_used_and_kept_apart(void **state)
{
	static uint8_t second[8192] __attribute__((aligned(16)));
	static uint8_t third[4096] __attribute__((aligned(16)));
	struct heap h;
	int from_second = 0, from_third = 0;
	void *p;

	(void)state;
	heap_init(&h);
	assert_int_equal(heap_add_region(&h, arena, 16384), 0);
	assert_int_equal(heap_add_region(&h, second, sizeof(second)), 0);
	assert_int_equal(heap_add_region(&h, third, sizeof(third)), 0);
	assert_int_equal(stats_of(&h).total, 16384 + sizeof(second) + sizeof(third));
	assert_int_equal(stats_of(&h).free_blocks, 3);
	/* Larger than any single region: no block spans two regions. */
	assert_null(heap_alloc(&h, 16384, HEAP_ALIGN_MIN));
	while ((p = heap_alloc(&h, 100, HEAP_ALIGN_MIN)) != NULL) {
		from_second += (uint8_t *)p >= second && (uint8_t *)p < second + sizeof(second);
		from_third += (uint8_t *)p >= third && (uint8_t *)p < third + sizeof(third);
	}
	assert_true(from_second > 0);
	assert_true(from_third > 0);
	assert_int_equal(heap_check(&h), 0);
}

static void add_region_rejects_bad_regions(void **state)
{
	static uint8_t small[64] __attribute__((aligned(16)));
	struct heap h;
	int i;

	(void)state;
	heap_init(&h);
	assert_int_equal(heap_add_region(&h, NULL, 4096), -EINVAL);
	assert_int_equal(heap_add_region(&h, small, 8), -EINVAL);
	assert_int_equal(heap_add_region(&h, (void *)(UINTPTR_MAX - 64), 4096), -EINVAL);
	assert_int_equal(heap_add_region(&h, arena, 4096), 0);
	assert_int_equal(heap_add_region(&h, arena + 2048, 4096), -EEXIST);
	assert_int_equal(heap_add_region(&h, arena, 4096), -EEXIST);
	/* Adjacent is not overlapping. */
	assert_int_equal(heap_add_region(&h, arena + 4096, 4096), 0);
	for (i = 2; i < HEAP_REGIONS_MAX; i++)
		assert_int_equal(heap_add_region(&h, arena + 4096 * (size_t)i, 4096), 0);
	assert_int_equal(heap_add_region(&h, arena + 4096 * HEAP_REGIONS_MAX, 4096), -ENOSPC);
	assert_int_equal(heap_check(&h), 0);
	/* Adjacent regions stay separate blocks. */
	assert_int_equal(stats_of(&h).free_blocks, HEAP_REGIONS_MAX);
}

static void misaligned_region_ends_are_trimmed(void **state)
{
	struct heap h;

	(void)state;
	heap_init(&h);
	assert_int_equal(heap_add_region(&h, arena + 3, 1000), 0);
	/* [arena+8, arena+1000): the 5 bytes in front and 3 at the end are unused. */
	assert_int_equal(stats_of(&h).total, 992);
	void *p = heap_alloc(&h, 10, HEAP_ALIGN_MIN);

	assert_non_null(p);
	assert_int_equal((uintptr_t)p % HEAP_ALIGN_MIN, 0);
	assert_int_equal(heap_check(&h), 0);
}

static void uninitialised_heap_is_refused_everywhere(void **state)
{
	struct heap h;
	struct heap_stats st;

	(void)state;
	memset(&h, 0xAB, sizeof(h));
	assert_int_equal(heap_add_region(&h, arena, 4096), -EINVAL);
	assert_null(heap_alloc(&h, 16, HEAP_ALIGN_MIN));
	heap_free(&h, arena + 64);
	assert_int_equal(heap_check(&h), -EFAULT);
	assert_int_equal(heap_check(NULL), -EFAULT);
	assert_null(heap_alloc(NULL, 16, HEAP_ALIGN_MIN));
	heap_free(NULL, arena);
	heap_get_stats(&h, &st);
	assert_int_equal(st.total, 0);
	assert_int_equal(heap_add_region(NULL, arena, 4096), -EINVAL);
}

static void counters_follow_the_calls(void **state)
{
	struct heap h;

	(void)state;
	fresh_heap(&h, ARENA_SIZE);
	void *a = heap_alloc(&h, 10, HEAP_ALIGN_MIN);
	void *b = heap_alloc(&h, 20, 64);

	assert_null(heap_alloc(&h, ARENA_SIZE, HEAP_ALIGN_MIN));
	heap_free(&h, a);
	heap_free(&h, a);
	struct heap_stats st = stats_of(&h);

	assert_int_equal(st.allocs, 2);
	assert_int_equal(st.frees, 1);
	assert_int_equal(st.failures, 1);
	assert_int_equal(st.bad_frees, 1);
	assert_true(st.used >= 20 && st.used < 128);
	assert_int_equal(st.free, st.total - st.used);
	heap_free(&h, b);
	assert_int_equal(stats_of(&h).used, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fresh_region_is_one_free_block_of_its_whole_size),
		cmocka_unit_test(random_allocs_and_frees_keep_heap_consistent_and_data_intact),
		cmocka_unit_test(every_alignment_up_to_a_page_is_honoured),
		cmocka_unit_test(bad_requests_return_null_and_count_as_failures),
		cmocka_unit_test(exhaustion_returns_null_and_freeing_everything_restores_capacity),
		cmocka_unit_test(freeing_in_any_order_merges_back_into_one_block),
		cmocka_unit_test(freed_memory_is_reused_first_fit),
		cmocka_unit_test(double_free_is_detected_and_changes_nothing),
		cmocka_unit_test(foreign_and_interior_pointers_are_refused),
		cmocka_unit_test(corrupted_header_is_caught_by_check_and_free),
		cmocka_unit_test(overrun_into_the_next_block_is_caught_by_check),
		cmocka_unit_test(corrupted_free_list_fails_allocation_instead_of_following_it),
		cmocka_unit_test(several_regions_are_used_and_kept_apart),
		cmocka_unit_test(add_region_rejects_bad_regions),
		cmocka_unit_test(misaligned_region_ends_are_trimmed),
		cmocka_unit_test(uninitialised_heap_is_refused_everywhere),
		cmocka_unit_test(counters_follow_the_calls),
	};
	return cmocka_run_group_tests_name("heap", tests, NULL, NULL);
}
