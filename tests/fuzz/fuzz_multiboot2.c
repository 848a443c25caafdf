/*
 * fuzz_multiboot2.c - libFuzzer target for mb2_parse() (arch/x86/multiboot2.c):
 * the multiboot2 tag list a loader hands over, with bad sizes, overlapping
 * and truncated tags, no end tag, huge memory maps.
 *
 * Input: one control byte, then the structure. Control bit 0 rewrites its
 * total_size to the input's length, so that the fuzzer reaches the tags;
 * with it clear the header checks themselves are fuzzed. The structure is
 * copied into a buffer of exactly its length, so any read past it is an
 * AddressSanitizer report. After the parse the output must hold together:
 * strings terminated, counts within their arrays, regions not wrapping, a
 * kept framebuffer that fits its own figures. Seeds (tests/fuzz/corpus/multiboot2/):
 * GRUB's structures on SeaBIOS and OVMF (tools/capture-boot-info.py), and built
 * ones: a 5000-entry memory map, a tag whose size swallows the next, no end
 * tag, a tag size below the header, framebuffer + EFI + ACPI tags.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <kernel/bootinfo.h>

enum { CTRL_FIX_TOTAL = 1 };

static struct boot_info bi;

static void check(void)
{
	if (memchr(bi.cmdline, 0, sizeof(bi.cmdline)) == NULL || memchr(bi.loader, 0, sizeof(bi.loader)) == NULL)
		__builtin_trap();
	if (bi.nr_regions > BOOT_MAX_REGIONS || bi.rsdp_new_len > BOOT_RSDP_MAX || bi.rsdp_old_len > BOOT_RSDP_MAX)
		__builtin_trap();
	for (unsigned int i = 0; i < bi.nr_regions; i++)
		if (bi.regions[i].len == 0 || bi.regions[i].len - 1 > UINT64_MAX - bi.regions[i].base)
			__builtin_trap();
	if (bi.fb.kind == BOOT_FB_RGB &&
	    ((uint64_t)bi.fb.pitch * bi.fb.height > (1u << 30) || bi.fb.pitch < bi.fb.width * ((bi.fb.bpp + 7u) / 8u) ||
	     bi.fb.red_pos + bi.fb.red_size > bi.fb.bpp || bi.fb.addr == 0))
		__builtin_trap();
	if (bi.efi_bits && bi.efi_systab == 0)
		__builtin_trap();
	if (bi.valid != (bi.nr_regions > 0))
		__builtin_trap();
	for (unsigned int i = 0; i < bi.nr_problems && i < BOOT_MAX_PROBLEMS; i++)
		if (!bi.problems[i].what)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;
	size_t n;

	if (size < 1 || size > (1u << 20))
		return 0;
	n = size - 1;
	copy = malloc(n ? n : 1);
	memcpy(copy, data + 1, n);
	if ((data[0] & CTRL_FIX_TOTAL) && n >= 4) {
		uint32_t total = (uint32_t)n;

		memcpy(copy, &total, 4);
	}
	mb2_parse(n ? copy : NULL, (uint32_t)n, &bi);
	check();
	free(copy);
	return 0;
}
