# A port's first boot in the order of docs/porting.md's checklist, with and
# without irq_defences_start(): leaving it out must warn and name the fix
# (issue 21). The real core on the host port and the fake chip.
UNIT_TESTS += irq_first_boot
UNIT_irq_first_boot_SRCS := tests/unit/test_irq_first_boot.c $(sort $(wildcard kernel/irq/*.c)) \
	tests/host/irq_port_host.c tests/unit/test_irq_fake_chip.c
$(BUILD)/host/unit/irq_first_boot: tests/unit/test_irq_fake_chip.h
UNIT_irq_first_boot_FLAVOUR := full
