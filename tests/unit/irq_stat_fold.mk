# kernel/irq's per-CPU counters with 32-bit words on the 64-bit host
# (IRQ_STAT_TEST_NARROW), so that the fold a 32-bit CPU makes every 2^31
# counts runs in a unit test (tests/unit/test_irq_stat_fold.c).
UNIT_TESTS += irq_stat_fold
UNIT_irq_stat_fold_SRCS := tests/unit/test_irq_stat_fold.c $(sort $(wildcard kernel/irq/*.c)) \
	tests/host/irq_port_host.c tests/unit/test_irq_fake_chip.c
UNIT_irq_stat_fold_CFLAGS := -DIRQ_STAT_TEST_NARROW
$(BUILD)/host/unit/irq_stat_fold: tests/unit/test_irq_fake_chip.h
