# libFuzzer target for arch/x86/acpi.c; seeds in tests/fuzz/corpus/acpi_hpet/.
FUZZERS += acpi_hpet
FUZZ_acpi_hpet_SRCS := tests/fuzz/fuzz_acpi_hpet.c arch/x86/acpi.c arch/x86/fwmem.c
FUZZ_acpi_hpet_CFLAGS := -Iarch/x86/include
