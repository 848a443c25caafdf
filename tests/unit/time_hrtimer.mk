# Host unit tests of the hrtimer queue (kernel/time/hrtimer.c) and of
# hrtimers on a fake one-shot clock event device through the time core.
UNIT_TESTS += time_hrtimer
UNIT_time_hrtimer_SRCS := tests/unit/test_time_hrtimer.c tests/unit/test_time_port.c \
	$(sort $(wildcard kernel/time/*.c))
