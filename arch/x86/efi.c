/*
 * efi.c - the ACPI RSDP through the EFI system table, for UEFI machines
 * where it is in none of the BIOS areas acpi.c searches (UEFI 2.10 sections
 * 4.2 EFI_TABLE_HEADER, 4.3 EFI_SYSTEM_TABLE, 4.6 EFI_CONFIGURATION_TABLE;
 * ACPI 6.5 section 5.2.5.2, "Finding the RSDP on UEFI Enabled Systems").
 *
 * The loader tells where the system table is (multiboot2 tag 11 or 12,
 * arch/x86/multiboot2.c); after ExitBootServices() the table and its
 * configuration table stay in runtime services memory. Everything is
 * untrusted: the table is read only through the caller's window (the
 * firmware's ranges of the memory map, never the kernel's own RAM), its
 * signature, revision, header size and CRC32 are checked, the entry count is
 * bounded, the configuration table must lie in the window too, and a
 * pointer above 4 GiB is refused (the parsers read 32-bit physical
 * addresses). Then acpi_parse_at() checks the RSDP itself.
 *
 * Pure: no output, no hardware (tests/unit/test_efi.c reads OVMF's tables
 * captured in tests/fixtures/ovmf-q35/). See also firmware.h, acpi.c.
 */
#include <firmware.h>

#include <kernel/crc32.h>
#include <kernel/errno.h>
#include <kernel/string.h>

#define EFI_SYSTAB_SIGNATURE 0x5453595320494249ull   /* "IBI SYST" */

/* EFI_TABLE_HEADER and EFI_SYSTEM_TABLE layouts, and the sanity bounds on them. */
enum efi_layout {
	EFI_HDR_SIGNATURE = 0,        /* u64 */
	EFI_HDR_REVISION = 8,         /* u32: major << 16 | minor */
	EFI_HDR_SIZE = 12,            /* u32: bytes of the whole table, header included */
	EFI_HDR_CRC32 = 16,           /* u32: CRC32 of HeaderSize bytes with this field 0 */
	EFI_HDR_LEN = 24,
	EFI_ST64_ENTRIES = 104,       /* UINTN NumberOfTableEntries, 64-bit firmware */
	EFI_ST64_CONFIG = 112,        /* EFI_CONFIGURATION_TABLE *ConfigurationTable */
	EFI_ST64_LEN = 120,
	EFI_ST32_ENTRIES = 64,        /* the same, 32-bit firmware */
	EFI_ST32_CONFIG = 68,
	EFI_ST32_LEN = 72,
	EFI_CT64_ENTRY = 24,          /* EFI_GUID (16) + VOID* (8) */
	EFI_CT32_ENTRY = 20,          /* EFI_GUID (16) + VOID* (4) */
	EFI_GUID_LEN = 16,
	EFI_MAX_HEADER_SIZE = 4096,   /* a system table longer than a page is nonsense */
	EFI_MAX_CONFIG_ENTRIES = 1024, /* OVMF has ~12, a PC ~20 */
	EFI_MIN_MAJOR = 1,            /* EFI 1.10 had this layout already */
	EFI_MAX_MAJOR = 2,            /* UEFI 2.x; a 3 would be a new specification */
	EFI_REVISION_SHIFT = 16,
};

/* ACPI_20_TABLE_GUID 8868e871-e4f1-11d3-bc22-0080c73c8881 and ACPI_TABLE_GUID
 * eb9d2d30-2d88-11d3-9a16-0090273fc14d, as the bytes lie in memory. */
static const uint8_t acpi20_guid[EFI_GUID_LEN] = {
	0x71, 0xe8, 0x68, 0x88, 0xf1, 0xe4, 0xd3, 0x11, 0xbc, 0x22, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81,
};
static const uint8_t acpi10_guid[EFI_GUID_LEN] = {
	0x30, 0x2d, 0x9d, 0xeb, 0x88, 0x2d, 0xd3, 0x11, 0x9a, 0x16, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d,
};

/* CRC32 of @len bytes at @t with the header's CRC32 field taken as 0. */
static uint32_t header_crc(const uint8_t *t, uint32_t len)
{
	static const uint8_t zero[4];
	uint32_t crc = crc32(0, t, EFI_HDR_CRC32);

	crc = crc32(crc, zero, sizeof(zero));
	return crc32(crc, t + EFI_HDR_CRC32 + 4, len - EFI_HDR_CRC32 - 4);
}

/* Check the system table; RETURNS it (HeaderSize bytes mapped) or NULL (reported). */
static const uint8_t *systab_map(const struct fw_window *w, const struct fw_walk *walk, uint32_t phys,
                                 unsigned int bits, struct fw_efi_rsdp *out)
{
	uint32_t need = bits == 64 ? EFI_ST64_LEN : EFI_ST32_LEN, size;
	const uint8_t *h = fw_map(w, phys, EFI_HDR_LEN), *t;

	if (!h) {
		fw_report(walk, 0, FW_PROBLEM_NOT_IN_WINDOW, phys,
		          "not in memory the map lists for the firmware; not read");
		return NULL;
	}
	if (fw_le64(h + EFI_HDR_SIGNATURE) != EFI_SYSTAB_SIGNATURE) {
		fw_report(walk, EFI_HDR_SIGNATURE, FW_PROBLEM_BAD_SIGNATURE, fw_le64(h + EFI_HDR_SIGNATURE),
		          "signature is not \"IBI SYST\"; not used");
		return NULL;
	}
	out->major = (uint16_t)(fw_le32(h + EFI_HDR_REVISION) >> EFI_REVISION_SHIFT);
	out->minor = (uint16_t)fw_le32(h + EFI_HDR_REVISION);
	if (out->major < EFI_MIN_MAJOR || out->major > EFI_MAX_MAJOR) {
		fw_report(walk, EFI_HDR_REVISION, FW_PROBLEM_BAD_REVISION, fw_le32(h + EFI_HDR_REVISION),
		          "revision is not EFI 1.x or UEFI 2.x; not used");
		return NULL;
	}
	size = fw_le32(h + EFI_HDR_SIZE);
	if (size < need || size > EFI_MAX_HEADER_SIZE) {
		fw_report(walk, EFI_HDR_SIZE, FW_PROBLEM_BAD_LENGTH, size,
		          "header size below the table's fields for this width, or absurd; not used");
		return NULL;
	}
	t = fw_map(w, phys, size);
	if (!t) {
		fw_report(walk, EFI_HDR_SIZE, FW_PROBLEM_NOT_IN_WINDOW, size,
		          "runs out of the memory the map lists; not used");
		return NULL;
	}
	if (header_crc(t, size) != fw_le32(t + EFI_HDR_CRC32)) {
		fw_report(walk, EFI_HDR_CRC32, FW_PROBLEM_BAD_CHECKSUM, fw_le32(t + EFI_HDR_CRC32),
		          "CRC32 does not match; not used");
		return NULL;
	}
	return t;
}

int efi_find_rsdp(const struct fw_window *w, uint64_t systab, unsigned int bits,
                  struct fw_efi_rsdp *out, struct fw_problems *problems)
{
	struct fw_walk walk = { problems, FW_TABLE_EFI_SYSTAB, (uint32_t)systab };
	uint32_t esize = bits == 64 ? EFI_CT64_ENTRY : EFI_CT32_ENTRY;
	const uint8_t *t, *ct;
	uint64_t entries, config, rsdp10 = 0, rsdp20 = 0, ptr;

	memset(out, 0, sizeof(*out));
	if (bits != 32 && bits != 64)
		return -EINVAL;
	if (systab == 0 || systab > UINT32_MAX) {
		fw_report(&walk, 0, FW_PROBLEM_ABOVE_4G, systab, "pointer is 0 or above 4 GiB; not read");
		return -EINVAL;
	}
	out->systab = (uint32_t)systab;
	t = systab_map(w, &walk, out->systab, bits, out);
	if (!t)
		return -EINVAL;
	entries = bits == 64 ? fw_le64(t + EFI_ST64_ENTRIES) : fw_le32(t + EFI_ST32_ENTRIES);
	config = bits == 64 ? fw_le64(t + EFI_ST64_CONFIG) : fw_le32(t + EFI_ST32_CONFIG);
	if (entries == 0 || entries > EFI_MAX_CONFIG_ENTRIES) {
		fw_report(&walk, bits == 64 ? EFI_ST64_ENTRIES : EFI_ST32_ENTRIES, FW_PROBLEM_BAD_COUNT, entries,
		          "configuration table entry count is 0 or absurd; not read");
		return -EINVAL;
	}
	walk.table = FW_TABLE_EFI_CONFIG;
	walk.addr = (uint32_t)config;
	if (config == 0 || config > UINT32_MAX) {
		fw_report(&walk, 0, FW_PROBLEM_ABOVE_4G, config, "pointer is 0 or above 4 GiB; not read");
		return -EINVAL;
	}
	out->entries = (uint32_t)entries;
	out->config = (uint32_t)config;
	ct = fw_map(w, out->config, out->entries * esize);
	if (!ct) {
		fw_report(&walk, 0, FW_PROBLEM_NOT_IN_WINDOW, out->entries * esize,
		          "not wholly in memory the map lists for the firmware; not read");
		return -EINVAL;
	}
	for (uint32_t i = 0; i < out->entries; i++) {
		const uint8_t *e = ct + i * esize;

		ptr = bits == 64 ? fw_le64(e + EFI_GUID_LEN) : fw_le32(e + EFI_GUID_LEN);
		if (memcmp(e, acpi20_guid, EFI_GUID_LEN) == 0 && !rsdp20)
			rsdp20 = ptr;
		else if (memcmp(e, acpi10_guid, EFI_GUID_LEN) == 0 && !rsdp10)
			rsdp10 = ptr;
	}
	ptr = rsdp20 ? rsdp20 : rsdp10;
	if (ptr == 0) {
		fw_report(&walk, 0, FW_PROBLEM_MISSING, out->entries, "no ACPI 2.0 or 1.0 entry; no RSDP from EFI");
		return -ENOENT;
	}
	if (ptr > UINT32_MAX) {
		fw_report(&walk, 0, FW_PROBLEM_ABOVE_4G, ptr, "the ACPI entry points above 4 GiB; not read");
		return -EINVAL;
	}
	out->rsdp = (uint32_t)ptr;
	out->acpi20 = rsdp20 != 0;
	return 0;
}
