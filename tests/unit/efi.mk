# Host unit tests for the RSDP on UEFI (arch/x86/efi.c, acpi_parse_at in
# arch/x86/acpi.c) on OVMF's tables captured in tests/fixtures/ovmf-q35/ and
# GRUB's multiboot2 structure in tests/fixtures/mb2/ (tools/capture-boot-info.py).
UNIT_TESTS += efi
UNIT_efi_SRCS := tests/unit/test_efi.c arch/x86/efi.c arch/x86/acpi.c arch/x86/fwmem.c \
	arch/x86/multiboot2.c arch/x86/bootinfo.c kernel/crc32.c tests/fixtures/fixture.c
UNIT_efi_CFLAGS := -Iarch/x86/include -DFW_FIXTURE_DIR=\"$(CURDIR)/tests/fixtures\"
