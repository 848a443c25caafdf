# make cross: the portable interrupt core (kernel/irq/ with the template port
# kernel/irq/template/) and the timer wheel (kernel/time/timer_wheel.c)
# built as freestanding static libraries for two CPUs that are not x86, with
# Debian's bare-metal cross compilers and warnings as errors. This proves
# the code has no x86 or irqkit assumption: no kernel header, no libc, no
# inline assembly outside the port, no type-size accident (printf formats,
# 64-bit atomics a 32-bit CPU lacks).
#
# For each architecture the libraries are built three times: with the default
# IRQ_NR_LINES, with CROSS_FEW_LINES lines, and minimal (IRQ_MINIMAL=1: one
# defence profile, compact health report, 16 lines); tests/cross/cross_report.py
# then links them into one image (any undefined symbol fails: the core
# needs nothing but the port, memset/memcpy and libgcc), and prints the code
# size (size -t of each archive), the sizes of the core's types (nm -S of
# tests/cross/cross_sizes.c compiled by that compiler) and the memory per
# interrupt line (the growth of every static table between the two builds).
# The Cortex-M3 build (minimal) is then run on QEMU's mps2-an385 board with
# real NVIC interrupts (tests/cross/m3_run.c, judged by tests/cross/m3_check.py),
# and the RV64 build (full) on QEMU's virt board with the PLIC and the UART
# (tests/cross/rv64_run.c, judged by tests/cross/rv64_check.py).
# A missing compiler or QEMU fails the target with the package to install.
# docs/porting.md explains the figures.

# Target architectures. Per architecture, in one place:
#   _PREFIX  the Debian cross toolchain (binaries $(PREFIX)gcc, ar, nm, size)
#   _PKG     the Debian package that provides it (tools/deps.sh installs it)
#   _CFLAGS  code generation for that CPU
#   _LFLAGS  what selects libgcc's multilib at the link
CROSS_ARCHS := cortex-m3 rv64imac i686
# Arm Cortex-M3: ARMv7-M, Thumb-2 only, 32-bit, no FPU, LDREX/STREX atomics, PRIMASK.
CROSS_cortex-m3_PREFIX := arm-none-eabi-
CROSS_cortex-m3_PKG    := gcc-arm-none-eabi
CROSS_cortex-m3_CFLAGS := -mcpu=cortex-m3 -mthumb -mfloat-abi=soft
CROSS_cortex-m3_LFLAGS := -mcpu=cortex-m3 -mthumb -mfloat-abi=soft
# RISC-V RV64IMAC: 64-bit, multiply, atomics (A), compressed; Zicsr for the
# CSR instructions of the template's interrupt save/restore (binutils 2.40
# no longer implies it). libgcc comes from the rv64imac/lp64 multilib.
CROSS_rv64imac_PREFIX := riscv64-unknown-elf-
CROSS_rv64imac_PKG    := gcc-riscv64-unknown-elf
CROSS_rv64imac_CFLAGS := -march=rv64imac_zicsr -mabi=lp64 -mcmodel=medany
CROSS_rv64imac_LFLAGS := -march=rv64imac -mabi=lp64 -mcmodel=medany
# The template port must be told the privilege mode: the size builds and the run are machine mode.
CROSS_rv64imac_PORT   := -DIRQ_TEMPLATE_RISCV_M_MODE

# i686: 32-bit x86 as a kernel like xv6 or irqkit compiles it (no SSE/x87 code,
# no PIC, no stack protector); the template's x86 section (pushf/cli, pause).
CROSS_i686_PREFIX := i686-linux-gnu-
CROSS_i686_PKG    := gcc-i686-linux-gnu
CROSS_i686_CFLAGS := -m32 -march=i686 -mgeneral-regs-only -fno-pic -fno-stack-protector
CROSS_i686_LFLAGS := -m32

# The line count of the second build (the smallest irq_config.h allows).
CROSS_FEW_LINES := 16

# Freestanding: only the compiler's own headers (-nostdinc + its include
# directory), no libc, no builtins, the kernel's warning set.
# One CPU and a 256-event trace ring (irq_config.h, 4 KiB): the M3 board has 1 MiB of RAM.
CROSS_COMMON_CFLAGS := -std=gnu11 -O2 -ffreestanding -fno-builtin -nostdlib -nostdinc \
	-Wall -Wextra -Werror -Ikernel/irq/template -Ikernel -DIRQ_NR_CPUS=1 -DIRQ_TRACE_ENTRIES=256

CROSS_IRQ_SRCS   := $(sort $(wildcard kernel/irq/*.c)) kernel/irq/template/port_template.c \
	kernel/irq/template/irq_format.c
CROSS_WHEEL_SRCS := kernel/time/timer_wheel.c
# What a host supplies besides the port: the four functions GCC may call
# even in freestanding code. irqkit's own, as any kernel has them.
CROSS_LIBC_SRCS  := kernel/string.c
CROSS_SIZES_SRC  := tests/cross/cross_sizes.c
CROSS_HDRS := $(wildcard kernel/irq/*.h kernel/irq/template/*.h kernel/time/timer_wheel.h include/kernel/string.h)

.PHONY: cross $(addprefix cross-tool-,$(CROSS_ARCHS))

# cross_variant(ARCH,VARIANT,EXTRA_CFLAGS): the objects and archives of one build.
define cross_variant
$(BUILD)/cross/$(1)/$(2)/%.o: %.c $(CROSS_HDRS) | cross-tool-$(1)
	@mkdir -p $$(dir $$@)
	$(CROSS_$(1)_PREFIX)gcc $(CROSS_COMMON_CFLAGS) -isystem $$(CROSS_$(1)_GCC_INC) $(CROSS_$(1)_CFLAGS) $(CROSS_$(1)_PORT) $(3) $$(CROSS_EXTRA_INC) -c $$< -o $$@

$(BUILD)/cross/$(1)/$(2)/libirq.a: $(patsubst %.c,$(BUILD)/cross/$(1)/$(2)/%.o,$(CROSS_IRQ_SRCS))
	rm -f $$@ && $(CROSS_$(1)_PREFIX)ar rcs $$@ $$^

$(BUILD)/cross/$(1)/$(2)/libwheel.a: $(patsubst %.c,$(BUILD)/cross/$(1)/$(2)/%.o,$(CROSS_WHEEL_SRCS))
	rm -f $$@ && $(CROSS_$(1)_PREFIX)ar rcs $$@ $$^

# Only the host's string functions see include/ (the core must not need it).
$(BUILD)/cross/$(1)/$(2)/$(CROSS_LIBC_SRCS:.c=.o): CROSS_EXTRA_INC := -Iinclude

CROSS_$(1)_OUT += $(BUILD)/cross/$(1)/$(2)/libirq.a $(BUILD)/cross/$(1)/$(2)/libwheel.a \
	$(BUILD)/cross/$(1)/$(2)/$(CROSS_SIZES_SRC:.c=.o) $(BUILD)/cross/$(1)/$(2)/$(CROSS_LIBC_SRCS:.c=.o)
endef

# cross_arch(ARCH): the compiler check and both builds.
define cross_arch
cross-tool-$(1): deps
	@command -v $(CROSS_$(1)_PREFIX)gcc >/dev/null 2>&1 || { \
		echo "cross: $(CROSS_$(1)_PREFIX)gcc not found: the $(1) build needs the Debian package $(CROSS_$(1)_PKG) (make deps installs it as root)" >&2; exit 1; }

CROSS_$(1)_GCC_INC = $$(shell $(CROSS_$(1)_PREFIX)gcc -print-file-name=include)
CROSS_$(1)_OUT :=
$$(eval $$(call cross_variant,$(1),std,))
$$(eval $$(call cross_variant,$(1),few,-DIRQ_NR_LINES=$(CROSS_FEW_LINES)))
$$(eval $$(call cross_variant,$(1),min,-DIRQ_MINIMAL=1))
endef
$(foreach a,$(CROSS_ARCHS),$(eval $(call cross_arch,$(a))))

# The Cortex-M3 build also runs: tests/cross/m3_run.c (NVIC chip, SysTick tick, a
# start-up of its own; the irqkit printf kernel/vsprintf.c for the log) linked with the
# core and booted on QEMU's mps2-an385 board; tests/cross/m3_check.py judges its output.
# It is linked with the minimal build of the core (IRQ_MINIMAL=1), so that build runs too.
CROSS_M3_DIR  := $(BUILD)/cross/cortex-m3
CROSS_M3_OBJS := $(CROSS_M3_DIR)/min/tests/cross/m3_run.o $(CROSS_M3_DIR)/min/kernel/vsprintf.o \
	$(CROSS_M3_DIR)/min/$(CROSS_LIBC_SRCS:.c=.o)
$(CROSS_M3_OBJS): CROSS_EXTRA_INC := -Iinclude
$(CROSS_M3_DIR)/m3_run.elf: $(CROSS_M3_OBJS) $(CROSS_M3_DIR)/min/libirq.a tests/cross/m3.ld
	$(CROSS_cortex-m3_PREFIX)gcc $(CROSS_cortex-m3_LFLAGS) -nostdlib -static -T tests/cross/m3.ld \
		$(CROSS_M3_OBJS) $(CROSS_M3_DIR)/min/libirq.a -lgcc -o $@

# The RV64 build runs too: tests/cross/rv64_run.c (the PLIC as the chip, the
# board's NS16550 UART as the device; the template's RISC-V section gives
# the lock, the interrupt state, the CLINT clock and alarm) with its entry and
# trap vector tests/cross/rv64_start.S, booted on QEMU's virt board in machine
# mode; tests/cross/rv64_check.py judges its output.
CROSS_RV_DIR  := $(BUILD)/cross/rv64imac
CROSS_RV_OBJS := $(CROSS_RV_DIR)/std/tests/cross/rv64_run.o $(CROSS_RV_DIR)/std/tests/cross/rv64_start.o \
	$(CROSS_RV_DIR)/std/kernel/vsprintf.o $(CROSS_RV_DIR)/std/$(CROSS_LIBC_SRCS:.c=.o)
$(CROSS_RV_OBJS): CROSS_EXTRA_INC := -Iinclude
$(CROSS_RV_DIR)/std/tests/cross/rv64_start.o: tests/cross/rv64_start.S | cross-tool-rv64imac
	@mkdir -p $(dir $@)
	$(CROSS_rv64imac_PREFIX)gcc $(CROSS_rv64imac_CFLAGS) -c $< -o $@
$(CROSS_RV_DIR)/rv64_run.elf: $(CROSS_RV_OBJS) $(CROSS_RV_DIR)/std/libirq.a tests/cross/rv64.ld
	$(CROSS_rv64imac_PREFIX)gcc $(CROSS_rv64imac_LFLAGS) -nostdlib -static -T tests/cross/rv64.ld \
		$(CROSS_RV_OBJS) $(CROSS_RV_DIR)/std/libirq.a -lgcc -o $@

# The report links and measures; it fails on any undefined symbol.
cross: $(foreach a,$(CROSS_ARCHS),$(CROSS_$(a)_OUT)) tests/cross/cross_report.py \
		$(CROSS_M3_DIR)/m3_run.elf tests/cross/m3_check.py $(CROSS_RV_DIR)/rv64_run.elf tests/cross/rv64_check.py
	@$(foreach a,$(CROSS_ARCHS),$(PYTHON) tests/cross/cross_report.py --arch $(a) \
		--prefix $(CROSS_$(a)_PREFIX) --cflags="$(CROSS_$(a)_CFLAGS)" --lflags="$(CROSS_$(a)_LFLAGS)" \
		--dir $(BUILD)/cross/$(a) --sizes $(CROSS_SIZES_SRC:.c=.o) --libc $(CROSS_LIBC_SRCS:.c=.o) && ) true
	@echo "cross cortex-m3: running $(CROSS_M3_DIR)/m3_run.elf on qemu-system-arm -machine mps2-an385"
	@$(PYTHON) tests/cross/m3_check.py $(CROSS_M3_DIR)/m3_run.elf
	@echo "cross rv64imac: running $(CROSS_RV_DIR)/rv64_run.elf on qemu-system-riscv64 -machine virt (machine mode)"
	@$(PYTHON) tests/cross/rv64_check.py $(CROSS_RV_DIR)/rv64_run.elf
