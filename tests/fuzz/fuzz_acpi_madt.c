/*
 * fuzz_acpi_madt.c - libFuzzer target for acpi_parse_madt() (arch/x86/acpi.c)
 * and the boot-log lines of what it finds.
 *
 * Input: one control byte, then the table. Control bit 0 rewrites the
 * header length to the input size, bit 1 fixes the checksum, so that the
 * fuzzer gets past the header checks and into the entry walk; with both
 * clear the header checks themselves are fuzzed. Seeds: the MADTs captured
 * from QEMU (tests/fuzz/corpus/acpi_madt/, made by tools/capture-fw-tables.sh).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <firmware.h>

enum { CTRL_FIX_LENGTH = 1, CTRL_FIX_CHECKSUM = 2, ACPI_LENGTH = 4, ACPI_CHECKSUM = 9, ACPI_HEADER = 36 };

static void check_line(void *ctx, const char *line)
{
	(void)ctx;
	if (strlen(line) >= FW_LINE_MAX)
		__builtin_trap();
}

static void fix_header(uint8_t *t, size_t len, uint8_t ctrl)
{
	uint8_t sum = 0;
	size_t i;

	if (len < ACPI_HEADER)
		return;
	if (ctrl & CTRL_FIX_LENGTH) {
		t[ACPI_LENGTH] = (uint8_t)len;
		t[ACPI_LENGTH + 1] = (uint8_t)(len >> 8);
		t[ACPI_LENGTH + 2] = (uint8_t)(len >> 16);
		t[ACPI_LENGTH + 3] = (uint8_t)(len >> 24);
	}
	if (ctrl & CTRL_FIX_CHECKSUM) {
		t[ACPI_CHECKSUM] = 0;
		for (i = 0; i < len; i++)
			sum = (uint8_t)(sum + t[i]);
		t[ACPI_CHECKSUM] = (uint8_t)(0x100 - sum);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fw_platform p;
	uint8_t *t;
	size_t len;

	if (size < 1 || size > 0x10000)
		return 0;
	len = size - 1;
	t = malloc(len ? len : 1);   /* exact size: ASan sees any overread */
	if (!t)
		return 0;
	memcpy(t, data + 1, len);
	fix_header(t, len, data[0]);
	fw_platform_init(&p, FW_SOURCE_ACPI);
	acpi_parse_madt(t, (uint32_t)len, &p);
	if (p.cpus.count > FW_MAX_CPUS || p.ioapics.count > FW_MAX_IOAPICS ||
	    p.overrides.count > FW_MAX_ISA_OVERRIDES || p.lints.count > FW_MAX_LINTS ||
	    p.nmi_sources.count > FW_MAX_NMI_SOURCES)
		__builtin_trap();
	fw_platform_print(&p, check_line, NULL);
	free(t);
	return 0;
}
