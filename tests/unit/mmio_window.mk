# Host unit tests for where the MMIO window goes and how its slots are shared
# (arch/x86/mmio_window.c, the pure part of arch/x86/paging.c's mmio_map).
UNIT_TESTS += mmio_window
UNIT_mmio_window_SRCS := tests/unit/test_mmio_window.c arch/x86/mmio_window.c arch/x86/multiboot2.c arch/x86/bootinfo.c
UNIT_mmio_window_CFLAGS := -Iarch/x86/include -DMB2_FIXTURE_DIR=\"$(CURDIR)/tests/fixtures/mb2\"
