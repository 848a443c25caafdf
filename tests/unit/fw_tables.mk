# Host unit tests for the firmware-table parsers (arch/x86/acpi.c, mptable.c,
# pirtable.c, fwmem.c), run against the QEMU dumps in tests/fixtures/.
FW_TABLES_CFLAGS := -Iarch/x86/include -DFW_FIXTURE_DIR=\"$(CURDIR)/tests/fixtures\"
FW_TABLES_SRCS := arch/x86/fwmem.c tests/fixtures/fixture.c

UNIT_TESTS += acpi
UNIT_acpi_SRCS := tests/unit/test_acpi.c arch/x86/acpi.c $(FW_TABLES_SRCS)
UNIT_acpi_CFLAGS := $(FW_TABLES_CFLAGS)

UNIT_TESTS += acpi_madt
UNIT_acpi_madt_SRCS := tests/unit/test_acpi_madt.c arch/x86/acpi.c $(FW_TABLES_SRCS)
UNIT_acpi_madt_CFLAGS := $(FW_TABLES_CFLAGS)

UNIT_TESTS += mptable
UNIT_mptable_SRCS := tests/unit/test_mptable.c arch/x86/mptable.c $(FW_TABLES_SRCS)
UNIT_mptable_CFLAGS := $(FW_TABLES_CFLAGS)

UNIT_TESTS += pir
UNIT_pir_SRCS := tests/unit/test_pir.c arch/x86/pirtable.c $(FW_TABLES_SRCS)
UNIT_pir_CFLAGS := $(FW_TABLES_CFLAGS)
