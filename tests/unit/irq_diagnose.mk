# Host unit test of irq_chip::irq_diagnose and irq_get_line_diagnosis()
# (kernel/irq/health.c): what the health report and `irqs` print for a line
# whose controller can say why its interrupts do not arrive.
UNIT_TESTS += irq_diagnose
UNIT_irq_diagnose_SRCS := tests/unit/test_irq_diagnose.c $(sort $(wildcard kernel/irq/*.c)) \
	tests/host/irq_port_host.c tests/unit/test_irq_fake_chip.c
$(BUILD)/host/unit/irq_diagnose: tests/unit/test_irq_fake_chip.h
UNIT_irq_diagnose_FLAVOUR := full
