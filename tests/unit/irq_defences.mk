# Host tests of kernel/irq's three defences (expecting, watching, flood
# polling) in the virtual-time simulator tests/unit/sim/: the real core
# (every kernel/irq/*.c) on the host port, the SIM controller model and the
# device models. One binary per concern; each runs every scenario once per
# profile where the profiles differ (cases named "scenario/irqkit" ...).
IRQ_SIM_SRCS := tests/unit/sim/sim.c tests/unit/sim/sim_dev.c
IRQ_SIM_HDRS := tests/unit/sim/sim.h tests/unit/sim/sim_cmocka.h
IRQ_DEFENCE_CASES := expect watch spurious sim storm stall

UNIT_TESTS += $(addprefix irq_,$(IRQ_DEFENCE_CASES))
$(foreach c,$(IRQ_DEFENCE_CASES),$(eval UNIT_irq_$(c)_SRCS := tests/unit/test_irq_$(c).c \
	$(sort $(wildcard kernel/irq/*.c)) tests/host/irq_port_host.c $(IRQ_SIM_SRCS)))
$(foreach c,$(IRQ_DEFENCE_CASES),$(eval UNIT_irq_$(c)_CFLAGS := -Itests/unit))
$(foreach c,$(IRQ_DEFENCE_CASES),$(eval UNIT_irq_$(c)_FLAVOUR := full))
$(foreach c,$(IRQ_DEFENCE_CASES),$(eval $(BUILD)/host/unit/irq_$(c): $(IRQ_SIM_HDRS)))
