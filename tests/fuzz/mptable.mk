# libFuzzer target for arch/x86/mptable.c; seeds in tests/fuzz/corpus/mptable/.
FUZZERS += mptable
FUZZ_mptable_SRCS := tests/fuzz/fuzz_mptable.c arch/x86/mptable.c arch/x86/fwmem.c
FUZZ_mptable_CFLAGS := -Iarch/x86/include
