# Host tests of irq_chip::irq_pending and its use by the defences
# (tests/unit/test_irq_pending.c): the simulator's SIM-PEND chip and the
# fake chip, with the real core.
UNIT_TESTS += irq_pending
UNIT_irq_pending_SRCS := tests/unit/test_irq_pending.c tests/unit/test_irq_fake_chip.c \
	$(sort $(wildcard kernel/irq/*.c)) tests/host/irq_port_host.c $(IRQ_SIM_SRCS)
UNIT_irq_pending_CFLAGS := -Itests/unit
$(BUILD)/host/unit/irq_pending: $(IRQ_SIM_HDRS) tests/unit/test_irq_fake_chip.h
UNIT_irq_pending_FLAVOUR := full
