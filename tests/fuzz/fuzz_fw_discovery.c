/*
 * fuzz_fw_discovery.c - libFuzzer target for the discovery paths of
 * arch/x86/acpi.c, mptable.c and pirtable.c: the paragraph scans, RSDP ->
 * RSDT/XSDT -> table pointers, MP floating pointer -> configuration table,
 * all through a memory window built from the input, plus the boot-log lines.
 *
 * Input: u16 length of the ROM part, u32 physical base of the RAM part, then
 * the ROM part (mapped at 0xF5000, where SeaBIOS puts its tables) and the RAM
 * part (the ACPI tables). A fixed BIOS data area names the EBDA at 0x9FC00,
 * which is not mapped: the scans must cope. Seeds: the pc/q35 dumps
 * (tests/fuzz/corpus/fw_discovery/).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <firmware.h>

enum {
	INPUT_HEADER = 6,
	ROM_BASE = 0xF5000,
	ROM_MAX = 0x100000 - ROM_BASE,
	BDA_EBDA_SEGMENT = 0x0E,
	BDA_BASE_KIB = 0x13,
};

static void check_line(void *ctx, const char *line)
{
	(void)ctx;
	if (strlen(line) >= FW_LINE_MAX)
		__builtin_trap();
}

static uint8_t *copy(const uint8_t *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);   /* exact size: ASan sees any overread */

	if (c)
		memcpy(c, p, n);
	return c;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fw_platform acpi, mp;
	static struct fw_pir pir;
	static uint8_t bda[FW_BDA_SIZE];
	struct fw_window w;
	size_t rom_len, ram_len;
	uint32_t ram_base;
	uint8_t *rom, *ram;

	if (size < INPUT_HEADER)
		return 0;
	rom_len = (size_t)(data[0] | data[1] << 8);
	ram_base = (uint32_t)data[2] | (uint32_t)data[3] << 8 | (uint32_t)data[4] << 16 | (uint32_t)data[5] << 24;
	if (rom_len > size - INPUT_HEADER)
		rom_len = size - INPUT_HEADER;
	if (rom_len > ROM_MAX)
		rom_len = ROM_MAX;
	ram_len = size - INPUT_HEADER - rom_len;
	rom = copy(data + INPUT_HEADER, rom_len);
	ram = copy(data + INPUT_HEADER + rom_len, ram_len);
	bda[BDA_EBDA_SEGMENT] = 0xC0;
	bda[BDA_EBDA_SEGMENT + 1] = 0x9F;
	bda[BDA_BASE_KIB] = 0x7F;
	bda[BDA_BASE_KIB + 1] = 0x02;
	fw_window_init(&w);
	fw_window_add(&w, FW_BDA_PHYS, FW_BDA_SIZE, bda);
	if (rom && rom_len)
		fw_window_add(&w, ROM_BASE, (uint32_t)rom_len, rom);
	if (ram && ram_len)
		fw_window_add(&w, ram_base, (uint32_t)ram_len, ram);   /* refused if it passes 4 GiB */
	acpi_parse(&w, &acpi);
	mptable_parse(&w, &mp);
	pirtable_parse(&w, &pir);
	fw_platform_print(&acpi, check_line, NULL);
	fw_platform_print(&mp, check_line, NULL);
	fw_pir_print(&pir, check_line, NULL);
	free(rom);
	free(ram);
	return 0;
}
