# Host unit tests of kernel/irq's event trace (kernel/irq/trace.c): recording,
# order, drops, filter, driver tags, the dump format (docs/trace.md).
UNIT_TESTS += irq_trace
UNIT_irq_trace_SRCS := tests/unit/test_irq_trace.c $(sort $(wildcard kernel/irq/*.c)) \
	tests/host/irq_port_host.c tests/unit/test_irq_fake_chip.c
$(BUILD)/host/unit/irq_trace: tests/unit/test_irq_fake_chip.h
UNIT_irq_trace_FLAVOUR := full
