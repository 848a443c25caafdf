# Host unit tests of clock sources and ktime (kernel/time/clocksource.c),
# built with all of kernel/time and the host port in test_time_port.c.
UNIT_TESTS += time_clocksource
UNIT_time_clocksource_SRCS := tests/unit/test_time_clocksource.c tests/unit/test_time_port.c \
	$(sort $(wildcard kernel/time/*.c))
