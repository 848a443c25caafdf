/*
 * fuzz_acpi_hpet.c - libFuzzer target for acpi_parse_hpet() (arch/x86/acpi.c).
 *
 * Input: one control byte, then the table; bit 0 rewrites the header length
 * to the input size, bit 1 fixes the checksum (see fuzz_acpi_madt.c).
 * Seeds: the HPET tables captured from QEMU (tests/fuzz/corpus/acpi_hpet/).
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fw_platform p;
	uint8_t *t, sum = 0;
	size_t len, i;
	int err;

	if (size < 1 || size > 0x1000)
		return 0;
	len = size - 1;
	t = malloc(len ? len : 1);
	if (!t)
		return 0;
	memcpy(t, data + 1, len);
	if (len >= ACPI_HEADER && (data[0] & CTRL_FIX_LENGTH)) {
		t[ACPI_LENGTH] = (uint8_t)len;
		t[ACPI_LENGTH + 1] = (uint8_t)(len >> 8);
		t[ACPI_LENGTH + 2] = t[ACPI_LENGTH + 3] = 0;
	}
	if (len >= ACPI_HEADER && (data[0] & CTRL_FIX_CHECKSUM)) {
		t[ACPI_CHECKSUM] = 0;
		for (i = 0; i < len; i++)
			sum = (uint8_t)(sum + t[i]);
		t[ACPI_CHECKSUM] = (uint8_t)(0x100 - sum);
	}
	fw_platform_init(&p, FW_SOURCE_ACPI);
	err = acpi_parse_hpet(t, (uint32_t)len, &p);
	/* A usable HPET is present exactly when the parser says so. */
	if ((err == 0) != p.hpet.present || (p.hpet.present && p.hpet.address == 0))
		__builtin_trap();
	fw_platform_print(&p, check_line, NULL);
	free(t);
	return 0;
}
