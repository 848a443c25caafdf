# Host unit tests for the multiboot2 parser (arch/x86/multiboot2.c) and the
# boot_info helpers (arch/x86/bootinfo.c), on GRUB's real structures
# (tests/fixtures/mb2/, tools/capture-boot-info.py) and on built tag lists.
UNIT_TESTS += multiboot2
UNIT_multiboot2_SRCS := tests/unit/test_multiboot2.c arch/x86/multiboot2.c arch/x86/bootinfo.c
UNIT_multiboot2_CFLAGS := -Iarch/x86/include -DMB2_FIXTURE_DIR=\"$(CURDIR)/tests/fixtures/mb2\"
