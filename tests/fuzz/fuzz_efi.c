/*
 * fuzz_efi.c - libFuzzer target for efi_find_rsdp() (arch/x86/efi.c): the EFI
 * system table and its configuration table as a loader or broken firmware
 * might leave them.
 *
 * Input: one control byte, then a page of memory mapped at FUZZ_BASE, with the
 * system table at FUZZ_BASE + 0x18 (where OVMF puts it in its page). Control
 * bit 0 fixes the table's CRC32 over the header size it claims (when that
 * fits), so that the fuzzer gets past it to the entry walk; bit 1 reads the
 * table as a 32-bit firmware's. A found RSDP must lie inside the page's
 * physical range or anywhere else the pointer says - only the window decides
 * what is read, which ASan checks. Seed: OVMF's system table page
 * (tests/fuzz/corpus/efi/, from tests/fixtures/ovmf-q35/).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <firmware.h>
#include <kernel/crc32.h>

enum { FUZZ_BASE = 0x75eb000, SYSTAB_OFF = 0x18, CTRL_FIX_CRC = 1, CTRL_32BIT = 2, HDR_SIZE = 12, HDR_CRC = 16 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fw_window w;
	struct fw_problems probs;
	struct fw_efi_rsdp e;
	uint8_t *page;
	size_t n;

	if (size < 2 || size > 65536)
		return 0;
	n = size - 1;
	page = malloc(n);
	memcpy(page, data + 1, n);
	if ((data[0] & CTRL_FIX_CRC) && n >= SYSTAB_OFF + 24) {
		uint8_t *st = page + SYSTAB_OFF;
		uint32_t hs, crc;

		memcpy(&hs, st + HDR_SIZE, 4);
		if (hs >= 24 && hs <= n - SYSTAB_OFF) {
			memset(st + HDR_CRC, 0, 4);
			crc = crc32(0, st, hs);
			memcpy(st + HDR_CRC, &crc, 4);
		}
	}
	fw_window_init(&w);
	fw_window_add(&w, FUZZ_BASE, (uint32_t)n, page);
	memset(&probs, 0, sizeof(probs));
	if (efi_find_rsdp(&w, FUZZ_BASE + SYSTAB_OFF, (data[0] & CTRL_32BIT) ? 32 : 64, &e, &probs) == 0 &&
	    (e.rsdp == 0 || e.entries == 0))
		__builtin_trap();
	free(page);
	return 0;
}
