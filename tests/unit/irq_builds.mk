# kernel/irq's reduced builds (irq_config.h's switches that leave a defence or a report out,
# issue 32; docs/irq-layers.md, "A defence left out"): the unit tests that apply to a build,
# compiled once more with its switches and run under ASan/UBSan like the full ones. A case that
# needs a part the build leaves out is not built into that binary (SIM_NEEDS_TEXT, SIM_NEEDS_TICK
# ... of tests/unit/sim/sim_cmocka.h), rather than skipped at run time. The builds are the size
# matrix's goal rows (tests/cross/cross.mk): the dispatch core alone, expecting alone, and the
# three defences (expecting, watching, the flood defence) with terse reports; each without irqfixup
# and irqpoll and without the
# event trace; and the minimal build (IRQ_MINIMAL=1: one profile, folded into the code; 64 lines
# and 32 pooled actions, as the cases assume). Binaries: build/host/unit/irqb_BUILD_CASE.
IRQ_BUILDS := core expect three min
IRQ_BUILD_OFF := -DIRQ_TRACE_BUILD=0 -DIRQ_HEALTH_TEXT=0 -DIRQ_TICK_LOOK=0 -DIRQ_STORM=0 -DIRQ_FIXUP=0
IRQ_BUILD_core_FLAGS   := $(IRQ_BUILD_OFF) -DIRQ_FLOOD=0 -DIRQ_WATCH=0 -DIRQ_EXPECT=0
IRQ_BUILD_core_CASES   := request flow depth stats affinity
IRQ_BUILD_expect_FLAGS := $(IRQ_BUILD_OFF) -DIRQ_FLOOD=0 -DIRQ_WATCH=0
IRQ_BUILD_expect_CASES := request flow expect stall
IRQ_BUILD_three_FLAGS  := $(IRQ_BUILD_OFF)
IRQ_BUILD_three_CASES  := request expect watch spurious stall
IRQ_BUILD_min_FLAGS    := -DIRQ_MINIMAL=1 -DIRQ_TRACE_BUILD=0 -DIRQ_NR_LINES=64 -DIRQ_NR_ACTIONS=32
IRQ_BUILD_min_CASES    := request flow depth stats

# The fake-chip cases (test_irq_fake_chip.c) and the simulator's (tests/unit/sim/).
IRQ_BUILD_FAKE_CHIP := request flow depth stats affinity concurrency
define irq_build_case
UNIT_TESTS += irqb_$(1)_$(2)
UNIT_irqb_$(1)_$(2)_SRCS := tests/unit/test_irq_$(2).c $(sort $(wildcard kernel/irq/*.c)) tests/host/irq_port_host.c \
	$(if $(filter $(2),$(IRQ_BUILD_FAKE_CHIP)),tests/unit/test_irq_fake_chip.c,tests/unit/sim/sim.c tests/unit/sim/sim_dev.c)
UNIT_irqb_$(1)_$(2)_CFLAGS := -Itests/unit $(IRQ_BUILD_$(1)_FLAGS)
UNIT_irqb_$(1)_$(2)_FLAVOUR := $(1)
$(BUILD)/host/unit/irqb_$(1)_$(2): tests/unit/test_irq_fake_chip.h tests/unit/sim/sim.h tests/unit/sim/sim_cmocka.h
endef
$(foreach b,$(IRQ_BUILDS),$(foreach c,$(IRQ_BUILD_$(b)_CASES),$(eval $(call irq_build_case,$(b),$(c)))))
# Each build's core, host port, fake chip and simulator are compiled once (the Makefile's unit
# flavours) with the same flags as its cases.
UNIT_FLAVOURS += $(IRQ_BUILDS)
$(foreach b,$(IRQ_BUILDS),$(eval UNIT_FLAVOUR_$(b)_CFLAGS := -Itests/unit $(IRQ_BUILD_$(b)_FLAGS)))
