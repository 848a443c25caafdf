/*
 * fuzz_mptable.c - libFuzzer target for mptable_parse_config()
 * (arch/x86/mptable.c) and the boot-log lines of what it finds.
 *
 * Input: one control byte, then the configuration table (base and extended
 * entries). Control bit 0 rewrites the base length to the input size minus
 * the extended length, bit 1 fixes the base checksum, bit 2 the extended
 * checksum, so that mutations reach the entry walks. Seeds: the tables
 * captured from QEMU (tests/fuzz/corpus/mptable/).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <firmware.h>

enum {
	CTRL_FIX_LENGTH = 1, CTRL_FIX_CHECKSUM = 2, CTRL_FIX_EXT_CHECKSUM = 4,
	MPC_BASE_LENGTH = 4, MPC_CHECKSUM = 7, MPC_EXT_LENGTH = 40, MPC_EXT_CHECKSUM = 42, MPC_HEADER = 44,
};

static void check_line(void *ctx, const char *line)
{
	(void)ctx;
	if (strlen(line) >= FW_LINE_MAX)
		__builtin_trap();
}

static uint8_t sum(const uint8_t *p, size_t n)
{
	uint8_t s = 0;

	while (n--)
		s = (uint8_t)(s + *p++);
	return s;
}

static void fix_header(uint8_t *t, size_t len, uint8_t ctrl)
{
	size_t ext = (size_t)(t[MPC_EXT_LENGTH] | t[MPC_EXT_LENGTH + 1] << 8), base;

	if (ext > len - MPC_HEADER)
		ext = len - MPC_HEADER;
	base = len - ext;
	if (ctrl & CTRL_FIX_LENGTH) {
		t[MPC_BASE_LENGTH] = (uint8_t)base;
		t[MPC_BASE_LENGTH + 1] = (uint8_t)(base >> 8);
	} else {
		base = (size_t)(t[MPC_BASE_LENGTH] | t[MPC_BASE_LENGTH + 1] << 8);
		if (base > len)
			base = len;
	}
	if ((ctrl & CTRL_FIX_EXT_CHECKSUM) && base + ext <= len)
		t[MPC_EXT_CHECKSUM] = (uint8_t)(0x100 - sum(t + base, ext));
	if (ctrl & CTRL_FIX_CHECKSUM) {
		t[MPC_CHECKSUM] = 0;
		t[MPC_CHECKSUM] = (uint8_t)(0x100 - sum(t, base));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fw_platform p;
	uint8_t *t;
	size_t len;

	if (size < 1 || size > 0x20000)
		return 0;
	len = size - 1;
	t = malloc(len ? len : 1);
	if (!t)
		return 0;
	memcpy(t, data + 1, len);
	if (len >= MPC_HEADER)
		fix_header(t, len, data[0]);
	fw_platform_init(&p, FW_SOURCE_MP);
	mptable_parse_config(t, (uint32_t)len, &p);
	if (p.pci_irqs.count > FW_MAX_MP_PCI_IRQS || p.bus_irqs.count > FW_MAX_MP_BUS_IRQS ||
	    p.buses.count > FW_MAX_MP_BUSES || p.cpus.count > FW_MAX_CPUS)
		__builtin_trap();
	fw_platform_print(&p, check_line, NULL);
	free(t);
	return 0;
}
