# Host unit tests of the portable interrupt core (kernel/irq/), built with
# the host port (tests/host/irq_port_host.c) and the fake irq_chip
# (tests/unit/test_irq_fake_chip.c). One binary per concern.
IRQ_CORE_SRCS := $(sort $(wildcard kernel/irq/*.c))
IRQ_TEST_SUPPORT := tests/host/irq_port_host.c tests/unit/test_irq_fake_chip.c
IRQ_UNIT_CASES := request flow depth concurrency

UNIT_TESTS += $(addprefix irq_,$(IRQ_UNIT_CASES))
$(foreach c,$(IRQ_UNIT_CASES),$(eval UNIT_irq_$(c)_SRCS := tests/unit/test_irq_$(c).c $(IRQ_CORE_SRCS) $(IRQ_TEST_SUPPORT)))
$(foreach c,$(IRQ_UNIT_CASES),$(eval $(BUILD)/host/unit/irq_$(c): tests/unit/test_irq_fake_chip.h))
