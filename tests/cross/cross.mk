# make cross: the portable interrupt core (kernel/irq/ with the template port
# kernel/irq/template/) and the timer wheel (kernel/time/timer_wheel.c)
# built as freestanding static libraries for CPUs other than irqkit's own,
# with Debian's cross compilers and warnings as errors. This proves the code
# has no x86 or irqkit assumption: no kernel header, no libc, no inline
# assembly outside the port, no type-size accident (printf formats, 64-bit
# atomics a 32-bit CPU lacks).
#
# For each architecture the libraries are built four times: with irq_config.h's
# defaults (no -D at all: what a porter gets), with CROSS_FEW_LINES lines,
# minimal (IRQ_MINIMAL=1: one defence profile, compact health report, 16
# lines), and with the irqkit kernel's values (IRQKIT_IRQ_CONFIG in the
# Makefile: 8 CPUs, 256 KiB trace rings); tests/cross/cross_report.py
# then links them into one image (any undefined symbol fails: the core
# needs nothing but the port, memset/memcpy and libgcc), and prints the code
# size (size -t of each archive), the static memory with the defaults and
# with irqkit's values (and fails where an architecture's CROSS_*_BSS_MAX says
# the defaults must fit and they do not), the sizes of the core's types (nm -S
# of tests/cross/cross_sizes.c compiled by that compiler) and the memory per
# interrupt line (the growth of every static table between the two builds).
# Then the size matrix (below): the Cortex-M3 with -Os, one build per set of
# the switches that leave defences and reports out (tests/cross/cross_matrix.py).
# Then the runs, each booted on QEMU and judged from outside:
#   - Cortex-M3 on mps2-an385 with real NVIC interrupts (tests/cross/m3_run.c, judged by
#     tests/cross/m3_check.py), on the runs' small build (CROSS_RUN_FLAGS, below), and again
#     on the minimal build with the event trace (the one run that records and dumps it);
#   - RV64 on virt with the PLIC and the NS16550A, in machine mode (-bios none)
#     and in supervisor mode under QEMU's OpenSBI (SBI timer), and again in
#     supervisor mode with Sstc's stimecmp as the alarm (tests/cross/rv64_run.c),
#     all three on the runs' small build;
#   - AArch64 at EL1 on virt with the PL011, GICv3 and GICv2 (tests/cross/a64_run.c), on
#     irq_config.h's defaults (no -D: what a porter gets, every part built);
#   the RV64 and AArch64 runs share their driver and scenario (tests/cross/proof.c),
#   every run its console (tests/cross/cross_console.c), and the judges their QEMU
#   boot (tests/cross/proof_check.py's run_qemu(), which m3_check.py uses too).
# A missing compiler or QEMU fails the target with the package to install.
# docs/porting.md explains the figures.

# Target architectures. Per architecture, in one place:
#   _PREFIX  the Debian cross toolchain (binaries $(PREFIX)gcc, ar, nm, size)
#   _PKG     the Debian package that provides it (tools/deps.sh installs it)
#   _CFLAGS  code generation for that CPU
#   _LFLAGS  what selects libgcc's multilib at the link
#   _PORT    what the template port must be told (RISC-V: the privilege mode)
#   _BSS_MAX (optional) most bytes of static memory (data + bss) the core and the template port
#            may have with irq_config.h's defaults; more fails the target
CROSS_ARCHS := cortex-m3 rv64imac aarch64 i686 x86_64
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
# The size builds and the machine-mode run: the template's machine-mode section.
CROSS_rv64imac_PORT   := -DIRQ_TEMPLATE_RISCV_M_MODE

# AArch64 (ARMv8.0-A) as a kernel at EL1 compiles it: no FP/SIMD registers
# (a kernel does not save them on every interrupt), no PIC (Debian's compiler
# defaults to PIE), and the atomics inline: Debian's GCC calls libgcc's
# out-of-line __aarch64_* helpers by default (-moutline-atomics), which need
# the C library's getauxval to choose between LL/SC and LSE; a kernel has none.
CROSS_aarch64_PREFIX := aarch64-linux-gnu-
CROSS_aarch64_PKG    := gcc-aarch64-linux-gnu
CROSS_aarch64_CFLAGS := -march=armv8-a -mgeneral-regs-only -mno-outline-atomics -fno-pic -fno-pie
CROSS_aarch64_LFLAGS := -no-pie

# i686: 32-bit x86 as a kernel like xv6 or irqkit compiles it (no SSE/x87 code,
# no PIC, no stack protector); the template's x86 section (pushf/cli, pause).
CROSS_i686_PREFIX := i686-linux-gnu-
CROSS_i686_PKG    := gcc-i686-linux-gnu
CROSS_i686_CFLAGS := -m32 -march=i686 -mgeneral-regs-only -fno-pic -fno-stack-protector
CROSS_i686_LFLAGS := -m32
# Issue 32: the core built with no -D at all has at most 64 KiB of static memory on i686
# (it had 2,179,344 bytes with 8 CPUs' 256 KiB trace rings as the defaults).
CROSS_i686_BSS_MAX := 65536

# x86-64 as a 64-bit kernel compiles it (the kernel code model, no red zone: an
# interrupt would write below the stack pointer); the template's x86 section
# (pushf/pop of RFLAGS, cli). The host's own compiler and binutils.
CROSS_x86_64_PREFIX :=
CROSS_x86_64_PKG    := gcc
CROSS_x86_64_CFLAGS := -m64 -mcmodel=kernel -mno-red-zone -mgeneral-regs-only -fno-pic -fno-stack-protector
CROSS_x86_64_LFLAGS := -m64 -no-pie

# The line count of the second build (the smallest irq_config.h allows).
CROSS_FEW_LINES := 16

# Freestanding: only the compiler's own headers (-nostdinc + its include
# directory), no libc, no builtins, the kernel's warning set. No -D of
# irq_config.h: the builds measure and run its defaults (one CPU, a 256-event
# trace ring of 4 KiB), which is what a porter gets; the M3 board has 1 MiB of RAM.
CROSS_COMMON_CFLAGS := -std=gnu11 -O2 -ffreestanding -fno-builtin -nostdlib -nostdinc \
	-Wall -Wextra -Werror -Ikernel/irq/template -Ikernel

CROSS_CORE_SRCS  := $(sort $(wildcard kernel/irq/*.c))
CROSS_TEMPLATE_SRCS := kernel/irq/template/port_template.c kernel/irq/template/irq_format.c
CROSS_IRQ_SRCS   := $(CROSS_CORE_SRCS) $(CROSS_TEMPLATE_SRCS)
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

# The core without the template port: for a run whose port is built its own way.
$(BUILD)/cross/$(1)/$(2)/libirqcore.a: $(patsubst %.c,$(BUILD)/cross/$(1)/$(2)/%.o,$(CROSS_CORE_SRCS))
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
$$(eval $$(call cross_variant,$(1),kcfg,$(IRQKIT_IRQ_CONFIG)))
endef
$(foreach a,$(CROSS_ARCHS),$(eval $(call cross_arch,$(a))))

# The runs' small build (issue 32: the M3 and RV64 runs on the smallest build their checks can
# use). The dispatch core alone cannot run them: the program of each run (m3_run.c, proof.c)
# checks a lost completion found by polling (expecting), a flood contained (the flood defence),
# a claimed storm throttled (the claimed-storm defence) and the announcements' sentences (the
# judges read them). So: the minimal build (one profile, 16 lines) without the event trace,
# without watching and without the tick's look, which no run uses; the matrix's `runs` row
# measures it. Everything a run links is compiled with these switches (its board file too:
# the public types follow them).
CROSS_RUN_FLAGS := -DIRQ_MINIMAL=1 -DIRQ_TRACE_BUILD=0 -DIRQ_WATCH=0 -DIRQ_TICK_LOOK=0
$(eval $(call cross_variant,cortex-m3,small,$(CROSS_RUN_FLAGS)))
$(eval $(call cross_variant,rv64imac,small,$(CROSS_RUN_FLAGS)))

# ---- The size matrix (issue 32) ----------------------------------------------
# kernel/irq for one small CPU, -Os, one CPU (irq_config.h's default), built once
# per row of this table with the switches of irq_config.h that leave a defence or
# a report out, and once more with CROSS_MX_LINES lines (for the RAM per line: a count
# that no row has by default, since IRQ_MINIMAL's default is 16 lines and the others' 64).
# Per row: _BASE, the row it is compared with, and _FLAGS. tests/cross/cross_matrix.py
# prints per row the core's code (.text) and read-only data (.rodata: mostly the
# messages), its RAM and RAM per line, and what the row's switches changed against
# its base; a switch that is not wired yet builds the very same objects, and the
# row says so plainly instead of a saving. The goals (CROSS_MX_GOALS: code plus
# read-only data, and RAM per line) are printed as met or not, never failed on:
# the split of issue 32's second part is what meets them. Then what holds the size
# today, per file and per function (nm --size-sort) of the CROSS_MX_HOLD row.
CROSS_MX_ARCH  := cortex-m3
CROSS_MX_OPT   := -Os
CROSS_MX_ROWS  := full min notrace noexpect nowatch noflood nostorm notick nofixup terse three expect core runs
CROSS_MX_full_BASE := full
CROSS_MX_full_FLAGS :=
CROSS_MX_min_BASE := full
CROSS_MX_min_FLAGS := -DIRQ_MINIMAL=1
CROSS_MX_notrace_BASE := min
CROSS_MX_notrace_FLAGS := -DIRQ_MINIMAL=1 -DIRQ_TRACE_BUILD=0
# Each switch alone, on the minimal build without the trace.
CROSS_MX_noexpect_BASE := notrace
CROSS_MX_noexpect_FLAGS := $(CROSS_MX_notrace_FLAGS) -DIRQ_EXPECT=0 -DIRQ_TICK_LOOK=0
CROSS_MX_nowatch_BASE := notrace
CROSS_MX_nowatch_FLAGS := $(CROSS_MX_notrace_FLAGS) -DIRQ_WATCH=0
CROSS_MX_noflood_BASE := notrace
CROSS_MX_noflood_FLAGS := $(CROSS_MX_notrace_FLAGS) -DIRQ_FLOOD=0
CROSS_MX_nostorm_BASE := notrace
CROSS_MX_nostorm_FLAGS := $(CROSS_MX_notrace_FLAGS) -DIRQ_STORM=0
CROSS_MX_notick_BASE := notrace
CROSS_MX_notick_FLAGS := $(CROSS_MX_notrace_FLAGS) -DIRQ_TICK_LOOK=0
CROSS_MX_nofixup_BASE := notrace
CROSS_MX_nofixup_FLAGS := $(CROSS_MX_notrace_FLAGS) -DIRQ_FIXUP=0
CROSS_MX_terse_BASE := notrace
CROSS_MX_terse_FLAGS := $(CROSS_MX_notrace_FLAGS) -DIRQ_HEALTH_TEXT=0
# The goals' builds: the three defences (expecting, watching, the flood defence) with terse
# reports, without irqfixup and irqpoll (Linux's boot switches, no defence of the three);
# expecting alone; the dispatch core with no defence.
CROSS_MX_three_BASE := notrace
CROSS_MX_three_FLAGS := $(CROSS_MX_notrace_FLAGS) -DIRQ_STORM=0 -DIRQ_TICK_LOOK=0 -DIRQ_HEALTH_TEXT=0 -DIRQ_FIXUP=0
CROSS_MX_expect_BASE := three
CROSS_MX_expect_FLAGS := $(CROSS_MX_three_FLAGS) -DIRQ_WATCH=0 -DIRQ_FLOOD=0
CROSS_MX_core_BASE := expect
CROSS_MX_core_FLAGS := $(CROSS_MX_expect_FLAGS) -DIRQ_EXPECT=0
# The build the M3 and RV64 runs link (CROSS_RUN_FLAGS above), measured like the others.
CROSS_MX_runs_BASE := notrace
CROSS_MX_runs_FLAGS := $(CROSS_RUN_FLAGS)
# Issue 32's goals: code + read-only data of the core (bytes) per row, and RAM per line.
CROSS_MX_GOALS := three=16384 expect=8192
CROSS_MX_LINE_GOAL := 128
CROSS_MX_HOLD := notrace
CROSS_MX_LINES := 32

CROSS_MX_DIR := $(BUILD)/cross/$(CROSS_MX_ARCH)/mx
CROSS_MX_CORE_SRCS := $(sort $(wildcard kernel/irq/*.c))
# cross_mx_build(ROW, DIR, EXTRA): the core's objects and archive of one row.
define cross_mx_build
$(CROSS_MX_DIR)/$(2)/%.o: %.c $(CROSS_HDRS) | cross-tool-$(CROSS_MX_ARCH)
	@mkdir -p $$(dir $$@)
	@$(CROSS_$(CROSS_MX_ARCH)_PREFIX)gcc $(CROSS_COMMON_CFLAGS) -isystem $$(CROSS_$(CROSS_MX_ARCH)_GCC_INC) \
		$(CROSS_$(CROSS_MX_ARCH)_CFLAGS) $(CROSS_MX_OPT) $(CROSS_MX_$(1)_FLAGS) $(3) -c $$< -o $$@

$(CROSS_MX_DIR)/$(2)/libirq.a: $(patsubst %.c,$(CROSS_MX_DIR)/$(2)/%.o,$(CROSS_MX_CORE_SRCS))
	@rm -f $$@ && $(CROSS_$(CROSS_MX_ARCH)_PREFIX)ar rcs $$@ $$^

CROSS_MX_OUT += $(CROSS_MX_DIR)/$(2)/libirq.a
endef
CROSS_MX_OUT :=
$(foreach r,$(CROSS_MX_ROWS),$(eval $(call cross_mx_build,$(r),$(r),)))
$(foreach r,$(CROSS_MX_ROWS),$(eval $(call cross_mx_build,$(r),$(r)-lines,-DIRQ_NR_LINES=$(CROSS_MX_LINES))))

.PHONY: cross-matrix
cross-matrix: $(CROSS_MX_OUT) tests/cross/cross_matrix.py
	@$(PYTHON) tests/cross/cross_matrix.py --prefix $(CROSS_$(CROSS_MX_ARCH)_PREFIX) --dir $(CROSS_MX_DIR) \
		--title "$(CROSS_MX_ARCH) $(CROSS_$(CROSS_MX_ARCH)_CFLAGS) $(CROSS_MX_OPT), one CPU" \
		--lines $(CROSS_MX_LINES) --hold $(CROSS_MX_HOLD) --line-goal $(CROSS_MX_LINE_GOAL) --json $(CROSS_MX_DIR)/matrix.json \
		$(foreach g,$(CROSS_MX_GOALS),--goal $(g)) \
		$(foreach r,$(CROSS_MX_ROWS),--row "$(r)|$(CROSS_MX_$(r)_BASE)|$(strip $(CROSS_MX_$(r)_FLAGS))")

# Every run prints through tests/cross/cross_console.c (the irqkit printf, the core's
# log); its board supplies only cross_console_write().
CROSS_CONSOLE_SRC := tests/cross/cross_console.c

# The Cortex-M3 build also runs: tests/cross/m3_run.c (NVIC chip, SysTick tick, a
# start-up of its own; the irqkit printf kernel/vsprintf.c for the log) linked with the
# core and booted on QEMU's mps2-an385 board; tests/cross/m3_check.py judges its output.
# Twice: m3_run.elf with the runs' small build (CROSS_RUN_FLAGS: the smallest its checks can
# use), and m3_run_trace.elf with the minimal build (IRQ_MINIMAL=1), which keeps the event
# trace: the only run that records the trace and dumps it, on a CPU that is not x86.
CROSS_M3_DIR  := $(BUILD)/cross/cortex-m3
CROSS_M3_BUILDS := small min
CROSS_M3_small_ELF := $(CROSS_M3_DIR)/m3_run.elf
CROSS_M3_min_ELF := $(CROSS_M3_DIR)/m3_run_trace.elf
define cross_m3
CROSS_M3_$(1)_OBJS := $(CROSS_M3_DIR)/$(1)/tests/cross/m3_run.o $(CROSS_M3_DIR)/$(1)/$(CROSS_CONSOLE_SRC:.c=.o) \
	$(CROSS_M3_DIR)/$(1)/kernel/vsprintf.o $(CROSS_M3_DIR)/$(1)/$(CROSS_LIBC_SRCS:.c=.o)
$$(CROSS_M3_$(1)_OBJS): CROSS_EXTRA_INC := -Iinclude
$$(CROSS_M3_$(1)_OBJS): tests/cross/cross_console.h
$(CROSS_M3_$(1)_ELF): $$(CROSS_M3_$(1)_OBJS) $(CROSS_M3_DIR)/$(1)/libirq.a tests/cross/m3.ld
	$(CROSS_cortex-m3_PREFIX)gcc $(CROSS_cortex-m3_LFLAGS) -nostdlib -static -T tests/cross/m3.ld \
		$$(CROSS_M3_$(1)_OBJS) $(CROSS_M3_DIR)/$(1)/libirq.a -lgcc -o $$@
endef
$(foreach b,$(CROSS_M3_BUILDS),$(eval $(call cross_m3,$(b))))

# The runs with a real device (tests/cross/proof.c: the driver and the scenario;
# tests/cross/proof_check.py: the judge). Each board file and the shared
# objects see include/ for irqkit's printf (kernel/vsprintf.c) and string functions.
CROSS_PROOF_CHECK := tests/cross/proof_check.py

# RV64, machine mode: rv64_run.c with its entry and trap vector rv64_start.S, the
# runs' small build of the core (CROSS_RUN_FLAGS) and the template's machine-mode section
# (mstatus, the CLINT's mtime and mtimecmp), booted with -bios none at 0x80000000.
CROSS_RV_DIR  := $(BUILD)/cross/rv64imac
CROSS_RV_B    := $(CROSS_RV_DIR)/small
CROSS_RV_SHARED := $(CROSS_RV_B)/tests/cross/proof.o $(CROSS_RV_B)/$(CROSS_CONSOLE_SRC:.c=.o) \
	$(CROSS_RV_B)/kernel/vsprintf.o $(CROSS_RV_B)/$(CROSS_LIBC_SRCS:.c=.o)
# The template's PLIC chip (RISC-V boards only), compiled with each RV64 run's template.
CROSS_RV_PLIC_SRCS := kernel/irq/template/plic_template.c
CROSS_RV_OBJS := $(CROSS_RV_B)/tests/cross/rv64_run.o $(CROSS_RV_B)/tests/cross/rv64_start.o \
	$(patsubst %.c,$(CROSS_RV_B)/%.o,$(CROSS_RV_PLIC_SRCS)) $(CROSS_RV_SHARED)
$(CROSS_RV_OBJS): CROSS_EXTRA_INC := -Iinclude
$(CROSS_RV_B)/tests/cross/rv64_run.o: tests/cross/proof.h tests/cross/cross_console.h
$(CROSS_RV_B)/tests/cross/proof.o: tests/cross/proof.h tests/cross/cross_console.h
$(CROSS_RV_B)/$(CROSS_CONSOLE_SRC:.c=.o): tests/cross/cross_console.h
$(CROSS_RV_B)/tests/cross/rv64_start.o: tests/cross/rv64_start.S | cross-tool-rv64imac
	@mkdir -p $(dir $@)
	$(CROSS_rv64imac_PREFIX)gcc $(CROSS_rv64imac_CFLAGS) $(CROSS_rv64imac_PORT) -c $< -o $@
$(CROSS_RV_DIR)/rv64_run.elf: $(CROSS_RV_OBJS) $(CROSS_RV_B)/libirq.a tests/cross/rv64.ld
	$(CROSS_rv64imac_PREFIX)gcc $(CROSS_rv64imac_LFLAGS) -nostdlib -static -T tests/cross/rv64.ld \
		-Wl,--defsym=rv_load_addr=0x80000000 $(CROSS_RV_OBJS) $(CROSS_RV_B)/libirq.a -lgcc -o $@

# RV64, supervisor mode: the same board file, entry and core (the runs' small build), with
# the template's supervisor-mode section (sstatus, the time CSR, the SBI timer; with Sstc:
# stimecmp), linked at 0x80200000 where QEMU's default OpenSBI jumps. Only the
# mode-dependent files are compiled again, per variant (smode: SBI timer; sstc), with the
# runs' switches (CROSS_RUN_FLAGS).
CROSS_RVS_VARIANTS := smode sstc
CROSS_RVS_smode_PORT := -DIRQ_TEMPLATE_RISCV_S_MODE
CROSS_RVS_sstc_PORT  := -DIRQ_TEMPLATE_RISCV_S_MODE -DIRQ_TEMPLATE_RISCV_SSTC
define cross_rvs
CROSS_RVS_$(1)_OBJS := $(CROSS_RV_DIR)/$(1)/tests/cross/rv64_run.o $(CROSS_RV_DIR)/$(1)/tests/cross/rv64_start.o \
	$(patsubst %.c,$(CROSS_RV_DIR)/$(1)/%.o,$(CROSS_TEMPLATE_SRCS) $(CROSS_RV_PLIC_SRCS)) $(CROSS_RV_SHARED)
$(CROSS_RV_DIR)/$(1)/%.o: %.c $(CROSS_HDRS) tests/cross/proof.h tests/cross/cross_console.h | cross-tool-rv64imac
	@mkdir -p $$(dir $$@)
	$(CROSS_rv64imac_PREFIX)gcc $(CROSS_COMMON_CFLAGS) -isystem $$(CROSS_rv64imac_GCC_INC) $(CROSS_rv64imac_CFLAGS) \
		$(CROSS_RVS_$(1)_PORT) $(CROSS_RUN_FLAGS) -Iinclude -c $$< -o $$@
$(CROSS_RV_DIR)/$(1)/tests/cross/rv64_start.o: tests/cross/rv64_start.S | cross-tool-rv64imac
	@mkdir -p $$(dir $$@)
	$(CROSS_rv64imac_PREFIX)gcc $(CROSS_rv64imac_CFLAGS) $(CROSS_RVS_$(1)_PORT) -c $$< -o $$@
$(CROSS_RV_DIR)/rv64_run_$(1).elf: $$(CROSS_RVS_$(1)_OBJS) $(CROSS_RV_B)/libirqcore.a tests/cross/rv64.ld
	$(CROSS_rv64imac_PREFIX)gcc $(CROSS_rv64imac_LFLAGS) -nostdlib -static -T tests/cross/rv64.ld \
		-Wl,--defsym=rv_load_addr=0x80200000 $$(CROSS_RVS_$(1)_OBJS) $(CROSS_RV_B)/libirqcore.a -lgcc -o $$@
endef
$(foreach v,$(CROSS_RVS_VARIANTS),$(eval $(call cross_rvs,$(v))))

# AArch64 at EL1: a64_run.c with its entry and vectors a64_start.S, the default
# build of the core and the template's AArch64 section (DAIF, the generic
# timer), once per GIC version (the board file is compiled per version).
CROSS_A64_DIR := $(BUILD)/cross/aarch64
CROSS_A64_GICS := 3 2
CROSS_A64_SHARED := $(CROSS_A64_DIR)/std/tests/cross/proof.o $(CROSS_A64_DIR)/std/tests/cross/a64_start.o \
	$(CROSS_A64_DIR)/std/$(CROSS_CONSOLE_SRC:.c=.o) $(CROSS_A64_DIR)/std/kernel/vsprintf.o \
	$(CROSS_A64_DIR)/std/$(CROSS_LIBC_SRCS:.c=.o)
$(CROSS_A64_SHARED): CROSS_EXTRA_INC := -Iinclude
$(CROSS_A64_DIR)/std/tests/cross/proof.o: tests/cross/proof.h tests/cross/cross_console.h
$(CROSS_A64_DIR)/std/$(CROSS_CONSOLE_SRC:.c=.o): tests/cross/cross_console.h
$(CROSS_A64_DIR)/std/tests/cross/a64_start.o: tests/cross/a64_start.S | cross-tool-aarch64
	@mkdir -p $(dir $@)
	$(CROSS_aarch64_PREFIX)gcc $(CROSS_aarch64_CFLAGS) -c $< -o $@
define cross_a64
$(CROSS_A64_DIR)/gic$(1)/a64_run.o: tests/cross/a64_run.c tests/cross/proof.h tests/cross/cross_console.h $(CROSS_HDRS) | cross-tool-aarch64
	@mkdir -p $$(dir $$@)
	$(CROSS_aarch64_PREFIX)gcc $(CROSS_COMMON_CFLAGS) -isystem $$(CROSS_aarch64_GCC_INC) $(CROSS_aarch64_CFLAGS) \
		-DA64_GIC_VERSION=$(1) -Iinclude -c $$< -o $$@
$(CROSS_A64_DIR)/a64_run_gicv$(1).elf: $(CROSS_A64_DIR)/gic$(1)/a64_run.o $(CROSS_A64_SHARED) $(CROSS_A64_DIR)/std/libirq.a tests/cross/a64.ld
	$(CROSS_aarch64_PREFIX)gcc $(CROSS_aarch64_LFLAGS) -nostdlib -static -T tests/cross/a64.ld \
		$(CROSS_A64_DIR)/gic$(1)/a64_run.o $(CROSS_A64_SHARED) $(CROSS_A64_DIR)/std/libirq.a -lgcc -o $$@
endef
$(foreach g,$(CROSS_A64_GICS),$(eval $(call cross_a64,$(g))))

# What proof_check.py boots: board name (its table of QEMU command lines) and image.
CROSS_PROOF_RUNS := rv64-m:$(CROSS_RV_DIR)/rv64_run.elf \
	$(foreach v,$(CROSS_RVS_VARIANTS),rv64-s-$(v):$(CROSS_RV_DIR)/rv64_run_$(v).elf) \
	$(foreach g,$(CROSS_A64_GICS),a64-gicv$(g):$(CROSS_A64_DIR)/a64_run_gicv$(g).elf)

# The report links and measures; it fails on any undefined symbol. Then the runs.
cross: $(foreach a,$(CROSS_ARCHS),$(CROSS_$(a)_OUT)) tests/cross/cross_report.py \
		$(foreach b,$(CROSS_M3_BUILDS),$(CROSS_M3_$(b)_ELF)) tests/cross/m3_check.py $(CROSS_PROOF_CHECK) \
		$(foreach r,$(CROSS_PROOF_RUNS),$(lastword $(subst :, ,$(r)))) \
		$(CROSS_MX_OUT) tests/cross/cross_matrix.py
	@$(foreach a,$(CROSS_ARCHS),$(PYTHON) tests/cross/cross_report.py --arch $(a) \
		--prefix="$(CROSS_$(a)_PREFIX)" --cflags="$(CROSS_$(a)_CFLAGS)" --lflags="$(CROSS_$(a)_LFLAGS)" \
		--dir $(BUILD)/cross/$(a) --sizes $(CROSS_SIZES_SRC:.c=.o) --libc $(CROSS_LIBC_SRCS:.c=.o) \
		--kcfg="$(IRQKIT_IRQ_CONFIG)" $(if $(CROSS_$(a)_BSS_MAX),--bss-max $(CROSS_$(a)_BSS_MAX)) \
		--json $(BUILD)/cross/$(a)/report.json && ) true
	@$(foreach b,$(CROSS_M3_BUILDS),echo "cross cortex-m3: running $(CROSS_M3_$(b)_ELF) on qemu-system-arm -machine mps2-an385" && \
		$(PYTHON) tests/cross/m3_check.py $(CROSS_M3_$(b)_ELF) && ) true
	@$(foreach r,$(CROSS_PROOF_RUNS),$(PYTHON) $(CROSS_PROOF_CHECK) $(subst :, ,$(r)) && ) true
	@$(MAKE) --no-print-directory cross-matrix
	@$(MAKE) --no-print-directory cross-docs

# The size tables of docs/porting.md and docs/irq-layers.md (between `<!-- sizes: NAME -->` and
# `<!-- /sizes -->`) are what make cross measured: tests/cross/docs_sizes.py renders them from the
# JSON the reports above wrote and fails on a table that differs; `make cross-docs-write` runs
# make cross with CROSS_DOCS_MODE=--write, which rewrites them instead. Tables measured with other
# compilers than this machine's are reported, not compared.
CROSS_DOCS := docs/porting.md docs/irq-layers.md
CROSS_DOCS_MODE ?= --check
.PHONY: cross-docs cross-docs-write
cross-docs:
	@$(PYTHON) tests/cross/docs_sizes.py $(CROSS_DOCS_MODE) \
		$(foreach a,$(CROSS_ARCHS),--report $(a)=$(BUILD)/cross/$(a)/report.json) \
		--matrix $(CROSS_MX_DIR)/matrix.json $(CROSS_DOCS)
cross-docs-write:
	@$(MAKE) --no-print-directory cross CROSS_DOCS_MODE=--write
