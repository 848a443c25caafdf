# libFuzzer target for the EFI system table walk (arch/x86/efi.c); seed in
# tests/fuzz/corpus/efi/ (OVMF's system table page from tests/fixtures/ovmf-q35/).
FUZZERS += efi
FUZZ_efi_SRCS := tests/fuzz/fuzz_efi.c arch/x86/efi.c arch/x86/fwmem.c kernel/crc32.c
FUZZ_efi_CFLAGS := -Iarch/x86/include
