# Host unit test for the heap allocator (kernel/heap.c) over static arrays.
UNIT_TESTS += heap
UNIT_heap_SRCS := tests/unit/test_heap.c kernel/heap.c
