# Host unit tests of the portable interrupt core (kernel/irq/), built with
# the host port (tests/host/irq_port_host.c) and the fake irq_chip
# (tests/unit/test_irq_fake_chip.c). One binary per concern; irq_port tests
# the host port alone.
IRQ_CORE_SRCS := $(sort $(wildcard kernel/irq/*.c))
IRQ_TEST_SUPPORT := tests/host/irq_port_host.c tests/unit/test_irq_fake_chip.c
IRQ_UNIT_CASES := request flow depth concurrency stats affinity

UNIT_TESTS += $(addprefix irq_,$(IRQ_UNIT_CASES)) irq_port
$(foreach c,$(IRQ_UNIT_CASES),$(eval UNIT_irq_$(c)_SRCS := tests/unit/test_irq_$(c).c $(IRQ_CORE_SRCS) $(IRQ_TEST_SUPPORT)))
$(foreach c,$(IRQ_UNIT_CASES),$(eval $(BUILD)/host/unit/irq_$(c): tests/unit/test_irq_fake_chip.h))
UNIT_irq_port_SRCS := tests/unit/test_irq_port.c tests/host/irq_port_host.c
# The full core's shared objects (the Makefile's unit flavours): these binaries, the defences',
# and the other kernel/irq tests built with the default configuration link them.
UNIT_FLAVOURS += full
UNIT_FLAVOUR_full_CFLAGS := -Itests/unit
$(foreach c,$(IRQ_UNIT_CASES),$(eval UNIT_irq_$(c)_FLAVOUR := full))

# The template port must build and work on its own: the core compiled
# against kernel/irq/template/ only (its irq_port_host.h first on the path),
# run once; the irq_port test binary depends on the result so that every
# unit build checks it. Two CPUs (irq_config.h's default is one): the check
# plays two, each with a comparator of its own, and routes a PLIC line to each.
IRQ_TEMPLATE_CHECK := $(BUILD)/host/irq_template_check
$(IRQ_TEMPLATE_CHECK): tests/unit/test_irq_template.c kernel/irq/template/port_template.c kernel/irq/template/irq_format.c \
		kernel/irq/template/plic_template.c $(IRQ_CORE_SRCS) $(wildcard kernel/irq/*.h kernel/irq/template/*.h)
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -DIRQ_TEMPLATE_HOST_SIM -DIRQ_NR_CPUS=2 -Ikernel/irq/template -Ikernel \
		$(SAN_FLAGS) tests/unit/test_irq_template.c kernel/irq/template/port_template.c kernel/irq/template/irq_format.c \
		kernel/irq/template/plic_template.c $(IRQ_CORE_SRCS) -o $@.bin
	$@.bin
	@# A CPU the template does not know stops its build with the #error that says what to add
	@# (the host compiler with its CPU macros taken away plays the unknown CPU).
	@! $(HOSTCC) -std=gnu11 -ffreestanding -fsyntax-only -U__x86_64__ -U__i386__ -Ikernel/irq/template \
		-Ikernel kernel/irq/template/port_template.c > $@.cpu.log 2>&1 || \
		{ echo "template port check failed: an unknown CPU compiled" >&2; exit 1; }
	@grep -q "no interrupt save/restore for this CPU" $@.cpu.log || \
		{ cat $@.cpu.log; echo "template port check failed: no #error for an unknown CPU" >&2; exit 1; }
	@# A RISC-V build that does not say its privilege mode stops too (M-mode code in an S-mode
	@# kernel compiles and traps at the first lock): the host compiler plays a RISC-V compiler
	@# (-fsyntax-only never assembles the RISC-V instructions).
	@! $(HOSTCC) -std=gnu11 -ffreestanding -fsyntax-only -U__x86_64__ -U__i386__ -D__riscv -D__riscv_atomic \
		-D__riscv_xlen=64 -Ikernel/irq/template -Ikernel kernel/irq/template/port_template.c > $@.mode.log 2>&1 || \
		{ echo "template port check failed: a RISC-V build without a mode compiled" >&2; exit 1; }
	@grep -q "say which privilege mode your RISC-V kernel runs in" $@.mode.log || \
		{ cat $@.mode.log; echo "template port check failed: no #error for a RISC-V build without a mode" >&2; exit 1; }
	@touch $@
$(BUILD)/host/unit/irq_port: $(IRQ_TEMPLATE_CHECK)

# The concurrency cases once more under ThreadSanitizer (it cannot be mixed
# with ASan in one binary): a data race in the core fails the unit build
# even when the race did no visible harm in the ASan run.
IRQ_TSAN_CHECK := $(BUILD)/host/irq_concurrency_tsan
$(IRQ_TSAN_CHECK): tests/unit/test_irq_concurrency.c $(IRQ_CORE_SRCS) $(IRQ_TEST_SUPPORT) \
		   $(wildcard kernel/irq/*.h) tests/host/irq_port_host.h tests/unit/test_irq_fake_chip.h
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) -fsanitize=thread tests/unit/test_irq_concurrency.c $(IRQ_CORE_SRCS) \
		$(IRQ_TEST_SUPPORT) -o $@.bin $(HOST_LDLIBS)
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" $@.bin > $@.log 2>&1 || { cat $@.log; exit 1; }
	@touch $@
$(BUILD)/host/unit/irq_concurrency: $(IRQ_TSAN_CHECK)
