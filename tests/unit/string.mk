# Host unit test for kernel/string.c, renamed to kmemcpy, kstrlen, ... so it
# can be compared with the host C library in the same program.
UNIT_TESTS += string
UNIT_string_SRCS := tests/unit/test_string.c kernel/string.c
UNIT_string_CFLAGS := -DKSTRING_PREFIX
