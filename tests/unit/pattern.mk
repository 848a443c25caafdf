# Host unit test of the seeded test pattern (kernel/pattern.c) against
# figures of its independent Python implementation (tests/qemu/diskimg.py).
UNIT_TESTS += pattern
UNIT_pattern_SRCS := tests/unit/test_pattern.c kernel/pattern.c kernel/crc32.c
