# Host unit test for kvsnprintf()/ksnprintf() (kernel/vsprintf.c), compared
# with the host C library's vsnprintf.
UNIT_TESTS += vsprintf
UNIT_vsprintf_SRCS := tests/unit/test_vsprintf.c kernel/vsprintf.c
