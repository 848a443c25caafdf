# libFuzzer target for the table searches and pointer walks of arch/x86/acpi.c,
# mptable.c and pirtable.c; seeds in tests/fuzz/corpus/fw_discovery/.
FUZZERS += fw_discovery
FUZZ_fw_discovery_SRCS := tests/fuzz/fuzz_fw_discovery.c arch/x86/acpi.c arch/x86/mptable.c \
	arch/x86/pirtable.c arch/x86/fwmem.c
FUZZ_fw_discovery_CFLAGS := -Iarch/x86/include
