# irqkit — build, run and test.
#
#   make            kernel ELF and GRUB ISO (build/kernel.elf, build/irqkit.iso)
#   make run        build and boot the ISO in QEMU, serial console on this terminal
#   make debug      QEMU paused with a gdb stub; prints the gdb command line
#   make test       every test: unit, fuzz, docs, cross builds, QEMU and Bochs boot tests
#   make test-loaded  the QEMU tests beside one busy loop per core (tools/loaded.sh)
#   make bench      benchmarks (instruction counts, guest-time figures); prints figures
#   make cross      kernel/irq + timer wheel for other CPUs: sizes, runs on QEMU (M3, RV64 M/S, AArch64)
#   make cross-docs-write  rewrite the size tables of docs/porting.md and docs/irq-layers.md from make cross
#   make layers     kernel/irq's files in layers: graph, circles, check (strict: fails on a call up or a circle)
#   make prof-ata   guest instructions per function of an ATA block, healthy vs lost (tools/guestprof)
#   make trace SCENARIO=NAME  a scenario's interrupt timeline in build/trace/ (tools/trace, docs/trace.md)
#
# Host unit tests, benchmarks and fuzz targets are declared in fragments
# (tests/unit/*.mk, tests/bench/*.mk, tests/fuzz/*.mk) so that adding a test
# never means editing this file; see tests/README.md.

# ---------------------------------------------------------------------------
# Toolchain
CROSS    ?= i686-linux-gnu-
CC        = $(CROSS)gcc
LD        = $(CROSS)ld
OBJCOPY   = $(CROSS)objcopy
HOSTCC   ?= gcc
PYTHON   ?= /usr/bin/python3
QEMU     ?= qemu-system-i386
QEMU_ACCEL ?= tcg

BUILD    := build
GCC_INC  := $(shell $(CC) -print-file-name=include 2>/dev/null)

# kernel/irq's sizes for the irqkit kernel. kernel/irq/irq_config.h's defaults are
# a small kernel's (one CPU, a 4 KiB trace ring); irqkit is a large one. One table,
# used by the kernel and by every host build of the core that stands for it (unit
# tests, the simulator, benchmarks), so that all of them build the same core:
#   IRQ_NR_CPUS=8            smp.c starts at most SMP_MAX_CPUS (8) CPUs; arch/x86/irq_port.c
#                            stops the build if that outgrows this
#   IRQ_TRACE_ENTRIES=16384  events per CPU's trace ring (16 bytes each, 256 KiB): a whole
#                            flood episode several times over (docs/trace.md)
IRQKIT_IRQ_CONFIG := -DIRQ_NR_CPUS=8 -DIRQ_TRACE_ENTRIES=16384

# Freestanding kernel: only the compiler's own headers (stdint.h, stddef.h,
# stdbool.h, stdarg.h) besides our own.
KERNEL_INC    := -Iinclude -Ikernel -Iarch/x86/include
KERNEL_CFLAGS := -std=gnu11 -m32 -march=i686 -ffreestanding -fno-builtin -nostdinc \
                 -isystem $(GCC_INC) $(KERNEL_INC) $(IRQKIT_IRQ_CONFIG) \
                 -O2 -g -Wall -Wextra -Werror -fno-stack-protector -fno-pic -fno-pie \
                 -fno-omit-frame-pointer -fno-strict-aliasing -mno-sse -mno-mmx -mno-80387 \
                 -mgeneral-regs-only -MMD -MP
KERNEL_ASFLAGS := -m32 $(KERNEL_INC) -g -MMD -MP -D__ASSEMBLY__
KERNEL_LDFLAGS := -m elf_i386 -nostdlib -T linker.ld
LIBGCC        := $(shell $(CC) -m32 -print-libgcc-file-name 2>/dev/null)

# Every .c/.S below these folders is part of the kernel. Files only for other
# hosts (the porting template) live outside them or are excluded here.
KERNEL_DIRS   := arch/x86 kernel drivers
KERNEL_EXCLUDE := kernel/irq/template/%
KERNEL_SRCS   := $(filter-out $(KERNEL_EXCLUDE),$(sort $(shell find $(KERNEL_DIRS) -name '*.c' -o -name '*.S')))
KERNEL_OBJS   := $(patsubst %,$(BUILD)/kernel/%.o,$(KERNEL_SRCS))

# Host builds (unit tests, simulator, benchmarks): the portable core and
# pure-logic parts compiled with the host compiler against the host port.
HOST_INC      := -Iinclude -Ikernel -Itests/host
# IRQ_POLL_WANT_CHECK: kernel/irq's poll timer checks its remembered poll time
# against a fresh computation and traps on a difference (internals.h).
HOST_CFLAGS   := -std=gnu11 -O1 -g -Wall -Wextra -Werror -DIRQKIT_HOST=1 -DIRQ_POLL_WANT_CHECK $(HOST_INC) \
                 $(IRQKIT_IRQ_CONFIG)
SAN_FLAGS     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
HOST_LDLIBS   := -lcmocka -lpthread

.PHONY: all kernel iso run debug test unit fuzz qemu-test docs-test cross bench deps clean help prof-ata
all: kernel iso

help:
	@sed -n '3,13p' Makefile

deps:
	@sh tools/deps.sh

# ---------------------------------------------------------------------------
# Kernel
kernel: $(BUILD)/kernel.elf
iso: $(BUILD)/irqkit.iso

$(BUILD)/kernel/%.c.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(BUILD)/kernel/%.S.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_ASFLAGS) -c $< -o $@

$(BUILD)/kernel.elf: $(KERNEL_OBJS) linker.ld
	$(LD) $(KERNEL_LDFLAGS) -o $@ $(KERNEL_OBJS) $(LIBGCC)
	@tools/check-multiboot.sh $@

$(BUILD)/irqkit.iso: $(BUILD)/kernel.elf iso/grub.cfg
	@rm -rf $(BUILD)/isodir && mkdir -p $(BUILD)/isodir/boot/grub
	cp $(BUILD)/kernel.elf $(BUILD)/isodir/boot/irqkit.elf
	cp iso/grub.cfg $(BUILD)/isodir/boot/grub/grub.cfg
	grub-mkrescue -o $@ $(BUILD)/isodir 2> $(BUILD)/grub-mkrescue.log || { cat $(BUILD)/grub-mkrescue.log; exit 1; }

# ---------------------------------------------------------------------------
# Running
# make run / make debug variables:
#   UI                         QEMU's display: none (the default: the serial console in this
#                              terminal only) or gtk (also a window with the VGA text mirror whose
#                              keys go to the PS/2 keyboard, drivers/input; needs a desktop, and
#                              tools/deps.sh installs qemu-system-gui for it)
#   RUN_EXTRA (or QEMU_EXTRA)  more QEMU options, e.g. "-no-acpi" or "-machine q35"
#   APPEND                     kernel parameters, e.g. "noapic loglevel=7"; make run then
#                              loads build/kernel.elf with -kernel -append (the ISO stays
#                              attached as the CD), because GRUB's menu line takes none
#   SMP=N                      N CPUs, each on a host thread of its own (-smp N -accel tcg,thread=multi);
#                              QEMU 7.2 refuses -accel beside -machine accel=, so SMP picks one form
#   RUN_QMP=PATH               also a QMP socket at PATH, for a tool that looks at the machine
#                              beside its console (tools/course types keys and reads `info irq` there:
#                              the console's monitor would print into the middle of the kernel's lines)
UI ?= none
QEMU_RUN_FLAGS := -machine pc -m 128M -serial mon:stdio -display $(UI) -no-reboot \
                  -device isa-debug-exit,iobase=0xf4,iosize=0x04
QEMU_EXTRA ?=
RUN_EXTRA ?= $(QEMU_EXTRA)
APPEND ?=
#   FIRMWARE                   bios (default: SeaBIOS) or uefi: Debian's 64-bit OVMF on q35 with
#                              qemu-system-x86_64, a copy of its variable store in build/, the ISO
#                              (GRUB x86_64-efi, multiboot2); APPEND goes in an SMBIOS OEM string
#                              that iso/grub.cfg reads (docs/boot.md); uefi32: the 32-bit OVMF
#                              (ovmf-ia32, GRUB i386-efi) with qemu-system-i386
FIRMWARE ?= bios
SMP ?=
OVMF_CODE ?= $(if $(filter uefi32,$(FIRMWARE)),/usr/share/OVMF/OVMF32_CODE_4M.secboot.fd,/usr/share/OVMF/OVMF_CODE_4M.fd)
OVMF_VARS ?= $(if $(filter uefi32,$(FIRMWARE)),/usr/share/OVMF/OVMF32_VARS_4M.fd,/usr/share/OVMF/OVMF_VARS_4M.fd)
comma := ,
RUN_ACCEL = $(if $(filter-out 0 1,$(SMP)),-accel $(QEMU_ACCEL)$(if $(filter tcg,$(QEMU_ACCEL)),$(comma)thread=multi) -smp $(SMP),-machine accel=$(QEMU_ACCEL))
SMBIOS_APPEND = -smbios "type=11,value=irqkit.append=$(subst $(comma),$(comma)$(comma),$(APPEND))"
RUN_BOOT = -cdrom $(BUILD)/irqkit.iso -boot d $(if $(strip $(APPEND)),-kernel $(BUILD)/kernel.elf -append "$(APPEND)",$(SMBIOS_APPEND))
RUN_SAY = $(if $(strip $(APPEND)),$(BUILD)/kernel.elf with "$(APPEND)",$(BUILD)/irqkit.iso)
RUN_QMP ?=
RUN_QMP_ARG = $(if $(strip $(RUN_QMP)),-qmp unix:$(RUN_QMP)$(comma)server=on$(comma)wait=off)
ifneq ($(filter uefi uefi32,$(FIRMWARE)),)
# The 32-bit OVMF Debian ships is its Secure Boot build, which needs SMM and a secure flash.
QEMU = $(if $(filter uefi32,$(FIRMWARE)),qemu-system-i386,qemu-system-x86_64)
QEMU_RUN_FLAGS += -machine q35 $(if $(filter uefi32,$(FIRMWARE)),-machine smm=on -global driver=cfi.pflash01$(comma)property=secure$(comma)value=on) \
                  -drive if=pflash,format=raw,readonly=on,file=$(OVMF_CODE) -drive if=pflash,format=raw,file=$(BUILD)/OVMF_VARS-$(FIRMWARE).fd
RUN_BOOT = -cdrom $(BUILD)/irqkit.iso $(SMBIOS_APPEND)
RUN_SAY = $(BUILD)/irqkit.iso with OVMF ($(FIRMWARE))$(if $(strip $(APPEND)), and "$(APPEND)")
run: ovmf-vars
endif
# OVMF keeps its boot entries in a copy of Debian's variable store (deps.sh installs ovmf), fresh for
# each run: entries left by another machine type (RUN_EXTRA="-machine pc") would miss the CD.
.PHONY: ovmf-vars
ovmf-vars: | deps
	@mkdir -p $(BUILD)
	cp $(OVMF_VARS) $(BUILD)/OVMF_VARS-$(FIRMWARE).fd

run: deps all
	@$(if $(filter gtk,$(UI)),sh tools/deps.sh gui)
	@echo 'irqkit: booting $(RUN_SAY); serial console here, Ctrl-A X quits QEMU'
	$(QEMU) $(RUN_ACCEL) $(QEMU_RUN_FLAGS) $(RUN_BOOT) $(RUN_EXTRA) $(RUN_QMP_ARG)

# SMP=N as for make run: gdb sees each CPU as a thread (`info threads`, `thread N`).
debug: deps all
	@echo "irqkit: QEMU waits for gdb on :1234. In another terminal:"
	@echo "  gdb-multiarch -ex 'set architecture i386' -ex 'file $(BUILD)/kernel.elf' -x tools/gdb/irqkit.py -ex 'target remote :1234' -ex 'break kmain' -ex 'continue'"
	@echo "  (tools/gdb/irqkit.py adds irqkit-irqs and irqkit-trace; docs/trace.md)"
	$(QEMU) $(RUN_ACCEL) $(QEMU_RUN_FLAGS) -kernel $(BUILD)/kernel.elf -append "$(APPEND)" -S -gdb tcp::1234 $(RUN_EXTRA)

# ---------------------------------------------------------------------------
# Host unit tests: each tests/unit/NAME.mk adds NAME to UNIT_TESTS and sets
# UNIT_NAME_SRCS (and optionally UNIT_NAME_CFLAGS / UNIT_NAME_LDLIBS, and UNIT_NAME_FLAVOUR:
# shared objects, below).
UNIT_TESTS :=
UNIT_FLAVOURS :=
BENCH_TARGETS :=
# The benchmarks' host programs: make test builds them (a benchmark that no longer builds fails it).
BENCH_HOST_BINS :=
FUZZERS :=
-include $(sort $(wildcard tests/unit/*.mk))
-include $(sort $(wildcard tests/bench/*.mk))
-include $(sort $(wildcard tests/fuzz/*.mk))
# make cross: the portable core built for other CPUs (tests/cross/cross.mk).
-include $(sort $(wildcard tests/cross/*.mk))
# make trace, trace-test, trace-pictures: the interrupt core's event trace (tools/trace/trace.mk).
-include tools/trace/trace.mk
# make course-transcripts, course-test: the course's transcripts, commands and pictures (tools/course/course.mk).
-include tools/course/course.mk
# make layers, layers-test: kernel/irq's files in layers, checked (tools/layers/layers.mk).
-include tools/layers/layers.mk

UNIT_BINS := $(patsubst %,$(BUILD)/host/unit/%,$(UNIT_TESTS))
UNIT_HDRS := $(shell find include kernel tests/host tests/unit -name '*.h')

# The interrupt core's binaries share their common sources: kernel/irq/*.c, the host port, the
# fake chip and the simulator are compiled once per flavour into $(BUILD)/host/uobj/FLAVOUR/ and
# linked into every binary of that flavour (UNIT_NAME_FLAVOUR; each flavour's flags in
# UNIT_FLAVOUR_F_CFLAGS, the same flags its binaries' own files are compiled with). Compiled once
# per binary, they were about 800 compilations under ASan/UBSan, 155 s of make test on 2 cores.
# A binary without a flavour compiles every source itself (irq_stat_fold: its narrow counters
# change the core).
UNIT_SHARED_SRCS := $(sort $(wildcard kernel/irq/*.c)) tests/host/irq_port_host.c \
	tests/unit/test_irq_fake_chip.c tests/unit/sim/sim.c tests/unit/sim/sim_dev.c
unit_inputs = $(if $(UNIT_$(1)_FLAVOUR),$(filter-out $(UNIT_SHARED_SRCS),$(UNIT_$(1)_SRCS)) \
	$(patsubst %.c,$(BUILD)/host/uobj/$(UNIT_$(1)_FLAVOUR)/%.o,$(filter $(UNIT_SHARED_SRCS),$(UNIT_$(1)_SRCS))),\
	$(UNIT_$(1)_SRCS))

define unit_flavour_rule
$(BUILD)/host/uobj/$(1)/%.o: %.c $$(UNIT_HDRS)
	@mkdir -p $$(dir $$@)
	$$(HOSTCC) $$(HOST_CFLAGS) $$(SAN_FLAGS) $$(UNIT_FLAVOUR_$(1)_CFLAGS) -c $$< -o $$@
endef
$(foreach f,$(UNIT_FLAVOURS),$(eval $(call unit_flavour_rule,$(f))))

define unit_rule
$(BUILD)/host/unit/$(1): $(call unit_inputs,$(1)) $$(UNIT_HDRS)
	@mkdir -p $$(dir $$@)
	$$(HOSTCC) $$(HOST_CFLAGS) $$(SAN_FLAGS) $$(UNIT_$(1)_CFLAGS) $(call unit_inputs,$(1)) -o $$@ $$(HOST_LDLIBS) $$(UNIT_$(1)_LDLIBS)
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_rule,$(t))))

unit: $(UNIT_BINS)
	@tools/run-unit.sh $(UNIT_BINS)

# Fuzz targets: each tests/fuzz/NAME.mk adds NAME to FUZZERS and sets
# FUZZ_NAME_SRCS (the LLVMFuzzerTestOneInput file plus the code under test).
# FUZZ_SECONDS: each fuzzer's run; FUZZ_JOBS: how many run at once (one per core: each gets
# its FUZZ_SECONDS of a core, as one at a time would on an idle machine).
FUZZ_SECONDS ?= 10
FUZZ_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
FUZZ_BINS := $(patsubst %,$(BUILD)/host/fuzz/%,$(FUZZERS))
define fuzz_rule
$(BUILD)/host/fuzz/$(1): $$(FUZZ_$(1)_SRCS)
	@mkdir -p $$(dir $$@)
	clang -std=gnu11 -g -O1 -Wall -Wextra -Werror -DIRQKIT_HOST=1 -DIRQ_POLL_WANT_CHECK $$(HOST_INC) $(IRQKIT_IRQ_CONFIG) -fsanitize=fuzzer,address,undefined $$(FUZZ_$(1)_CFLAGS) $$^ -o $$@
endef
$(foreach f,$(FUZZERS),$(eval $(call fuzz_rule,$(f))))

fuzz: $(FUZZ_BINS)
	@tools/run-fuzz.sh -j $(FUZZ_JOBS) $(FUZZ_SECONDS) $(FUZZ_BINS)

# ---------------------------------------------------------------------------
# QEMU boot tests (pytest harness in tests/qemu)
qemu-test: all $(BUILD)/host/vcpuwatch.so
	cd tests/qemu && $(PYTHON) -m pytest -q -rfE $(PYTEST_ARGS)

docs-test:
	$(PYTHON) -m pytest -q -rfE tests/docs

# Every cell of the scenario matrix (machine x firmware x mode x fault, tests/qemu/test_matrix.py);
# `make test` runs a representative subset of it.
.PHONY: test-matrix
test-matrix: all
	cd tests/qemu && IRQKIT_MATRIX=full $(PYTHON) -m pytest -q -rfE test_matrix.py $(PYTEST_ARGS)

# The long variant of the SMP race test (tests/qemu/test_smp_race.py): more data, every irqpolicy.
.PHONY: test-race
test-race: all $(BUILD)/host/vcpuwatch.so
	cd tests/qemu && IRQKIT_RACE=full $(PYTHON) -m pytest -q -rfE test_smp_race.py $(PYTEST_ARGS)

# The tests beside busy loops (tools/loaded.sh; issue 28): LOADED_TARGET (default qemu-test; `test`
# for everything) runs beside LOADED_N busy loops (default one per host core), which stop when it
# ends. Every test that judges time must pass so: it runs under -icount or judges with host
# evidence (tools/vcpuwatch). The load average before and after is printed.
LOADED_N ?=
LOADED_TARGET ?= qemu-test
.PHONY: test-loaded
test-loaded: all $(BUILD)/host/vcpuwatch.so
	tools/loaded.sh $(if $(LOADED_N),-n $(LOADED_N)) $(MAKE) --no-print-directory $(LOADED_TARGET)

# Bochs 2.7, a second PC model (tests/bochs; three boots, about 35 s).
.PHONY: test-bochs
test-bochs: all
	cd tests/bochs && $(PYTHON) -m pytest -q -rfE $(PYTEST_ARGS)

# The randomised fault soak (tests/soak/soak.py): make soak MINUTES=N SEED=S
# (SOAK_ARGS="--nvme --ahci --smp 2" adds an NVMe and an AHCI disk with their faults, and two CPUs
# with affinity moves; --move-usb moves the UHCI's line too). make test runs its short form,
# test-soak: 2 minutes, a fixed seed, everything.
MINUTES ?= 10
SEED ?= 20
SOAK_ARGS ?=
.PHONY: soak
soak: all
	$(PYTHON) tests/soak/soak.py --minutes $(MINUTES) --seed $(SEED) $(SOAK_ARGS)

.PHONY: test-soak
test-soak: all
	$(PYTHON) tests/soak/soak.py --minutes 2 --seed 20 --nvme --ahci --smp 2 --move-usb --out $(BUILD)/soak-short

# make test builds on every core: the kernel, the unit tests' binaries, the fuzzers and the cross
# builds (the unit and cross runs stay one at a time; the fuzzers run FUZZ_JOBS at once).
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
test: deps
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) all
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) $(UNIT_BINS) $(BENCH_HOST_BINS)
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) fuzz
	@$(MAKE) --no-print-directory docs-test
	@$(MAKE) --no-print-directory trace-test
	@$(MAKE) --no-print-directory layers-test
	@# Strict: a call or include up, a circle or an undeclared layer fails (tools/layers/layers.mk).
	@$(MAKE) --no-print-directory layers LAYERS_ARGS=--strict
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) cross
	@# After cross: docs/porting.md's session runs the RV64 build that cross made.
	@$(MAKE) --no-print-directory course-test
	@$(MAKE) --no-print-directory qemu-test
	@$(MAKE) --no-print-directory test-bochs
	@$(MAKE) --no-print-directory test-soak

# bench-start first and bench-table last (tests/bench/table.mk): make takes them in this order
bench: deps bench-start $(BENCH_TARGETS) bench-table

# Guest profile (tools/guestprof): a QEMU plugin counting the kernel's executed
# instructions per function; prof-ata compares an ATA DRQ block with healthy
# and with lost interrupts. A measuring tool, not a test or a benchmark figure.
$(BUILD)/host/guestprof.so: tools/guestprof/guestprof.c
	@mkdir -p $(dir $@)
	$(HOSTCC) -O2 -shared -fPIC -fvisibility=hidden -Wall -Wextra -Werror $< -o $@

# vcpuwatch (tools/vcpuwatch): a QEMU plugin sampling each vCPU's executed instructions and its
# host thread's scheduler figures, so that a guest stall can be told host from kernel
# (docs/smp.md, "What the long variant found"); the SMP race test runs under it.
$(BUILD)/host/vcpuwatch.so: tools/vcpuwatch/vcpuwatch.c
	@mkdir -p $(dir $@)
	$(HOSTCC) -O2 -shared -fPIC -fvisibility=hidden -pthread -Wall -Wextra -Werror $< -o $@

.PHONY: prof-ata
# The counts stay in $(BUILD)/prof/ata-counts.txt for tools/guestprof/callers.py.
prof-ata: $(BUILD)/kernel.elf $(BUILD)/host/guestprof.so
	@mkdir -p $(BUILD)/prof
	@$(PYTHON) tools/guestprof/prof_ata.py --keep $(BUILD)/prof/ata-counts.txt

clean:
	rm -rf $(BUILD)

-include $(KERNEL_OBJS:.o=.d)
