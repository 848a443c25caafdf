# Host unit test for crc32() (kernel/crc32.c), compared with zlib's crc32().
UNIT_TESTS += crc32
UNIT_crc32_SRCS := tests/unit/test_crc32.c kernel/crc32.c
# Rename ours so that it does not replace zlib's crc32 at link time.
UNIT_crc32_CFLAGS := -Dcrc32=kernel_crc32
UNIT_crc32_LDLIBS := -lz
