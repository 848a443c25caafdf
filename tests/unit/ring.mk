# Host unit test for the SPSC byte ring (kernel/ring.c), with a two-thread
# producer/consumer stress run (pthread is linked by the root Makefile).
UNIT_TESTS += ring
UNIT_ring_SRCS := tests/unit/test_ring.c kernel/ring.c
