/*
 * fuzz_pirtable.c - libFuzzer target for pirtable_parse_table()
 * (arch/x86/pirtable.c) and fw_pir_print().
 *
 * Input: one control byte, then the table. Control bit 0 rewrites the size
 * field to the input size, bit 1 fixes the checksum. Seeds: the $PIR tables
 * captured from QEMU (tests/fuzz/corpus/pirtable/).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <firmware.h>

enum { CTRL_FIX_SIZE = 1, CTRL_FIX_CHECKSUM = 2, PIR_SIZE = 6, PIR_CHECKSUM = 31, PIR_HEADER = 32 };

static void check_line(void *ctx, const char *line)
{
	(void)ctx;
	if (strlen(line) >= FW_LINE_MAX)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fw_pir pir;
	uint8_t *t, sum = 0;
	size_t len, i, covered;

	if (size < 1 || size > 0x10001)
		return 0;
	len = size - 1;
	t = malloc(len ? len : 1);
	if (!t)
		return 0;
	memcpy(t, data + 1, len);
	if (len >= PIR_HEADER) {
		if (data[0] & CTRL_FIX_SIZE) {
			t[PIR_SIZE] = (uint8_t)len;
			t[PIR_SIZE + 1] = (uint8_t)(len >> 8);
		}
		covered = (size_t)(t[PIR_SIZE] | t[PIR_SIZE + 1] << 8);
		if (covered > len)
			covered = len;
		if (data[0] & CTRL_FIX_CHECKSUM) {
			t[PIR_CHECKSUM] = 0;
			for (i = 0; i < covered; i++)
				sum = (uint8_t)(sum + t[i]);
			t[PIR_CHECKSUM] = (uint8_t)(0x100 - sum);
		}
	}
	if (pirtable_parse_table(t, (uint32_t)len, 0xF0000, &pir) == 0 &&
	    (!pir.present || pir.slots.count > FW_MAX_PIR_SLOTS))
		__builtin_trap();
	fw_pir_print(&pir, check_line, NULL);
	free(t);
	return 0;
}
