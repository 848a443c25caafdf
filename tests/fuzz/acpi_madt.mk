# libFuzzer target for arch/x86/acpi.c; seeds in tests/fuzz/corpus/acpi_madt/.
FUZZERS += acpi_madt
FUZZ_acpi_madt_SRCS := tests/fuzz/fuzz_acpi_madt.c arch/x86/acpi.c arch/x86/fwmem.c
FUZZ_acpi_madt_CFLAGS := -Iarch/x86/include
