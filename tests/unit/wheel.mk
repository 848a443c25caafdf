# Host unit tests of the hierarchical timer wheel (kernel/time/timer_wheel.c):
# boundaries, slack, wrap, long jumps, callback rules. The wheel needs no port.
UNIT_TESTS += wheel
UNIT_wheel_SRCS := tests/unit/test_wheel.c kernel/time/timer_wheel.c
