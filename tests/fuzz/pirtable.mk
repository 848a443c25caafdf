# libFuzzer target for arch/x86/pirtable.c; seeds in tests/fuzz/corpus/pirtable/.
FUZZERS += pirtable
FUZZ_pirtable_SRCS := tests/fuzz/fuzz_pirtable.c arch/x86/pirtable.c arch/x86/fwmem.c
FUZZ_pirtable_CFLAGS := -Iarch/x86/include
