# Host unit test for errno_name() (kernel/errno.c).
UNIT_TESTS += errno
UNIT_errno_SRCS := tests/unit/test_errno.c kernel/errno.c
