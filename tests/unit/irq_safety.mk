# The safety delay of a verified token (issue 28): a device whose status says
# "done" before its interrupt comes, in the virtual-time simulator
# (tests/unit/sim/); the real core on the host port. docs/defences.md, "The tick".
UNIT_TESTS += irq_safety
UNIT_irq_safety_SRCS := tests/unit/test_irq_safety.c $(sort $(wildcard kernel/irq/*.c)) tests/host/irq_port_host.c \
	$(IRQ_SIM_SRCS)
UNIT_irq_safety_CFLAGS := -Itests/unit
$(BUILD)/host/unit/irq_safety: $(IRQ_SIM_HDRS)
UNIT_irq_safety_FLAVOUR := full
