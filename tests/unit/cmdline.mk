# Host unit test for the kernel command line parser (kernel/cmdline.c); it
# formats its problem reports with kvsnprintf and names errors with errno_name.
UNIT_TESTS += cmdline
UNIT_cmdline_SRCS := tests/unit/test_cmdline.c kernel/cmdline.c kernel/vsprintf.c kernel/errno.c
