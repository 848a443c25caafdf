# Host unit tests of the time core (kernel/time/tick.c, time.c,
# clockevent.c) with a fake clock source and a fake clock event device:
# periodic, one-shot without drift, tickless, msleep/udelay, hand-over.
UNIT_TESTS += time_tick
UNIT_time_tick_SRCS := tests/unit/test_time_tick.c tests/unit/test_time_port.c \
	$(sort $(wildcard kernel/time/*.c))
