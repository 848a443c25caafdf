# libFuzzer target for the multiboot2 tag list (arch/x86/multiboot2.c);
# seeds in tests/fuzz/corpus/multiboot2/ (GRUB's structures, tools/capture-boot-info.py).
FUZZERS += multiboot2
FUZZ_multiboot2_SRCS := tests/fuzz/fuzz_multiboot2.c arch/x86/multiboot2.c arch/x86/bootinfo.c
FUZZ_multiboot2_CFLAGS := -Iarch/x86/include
