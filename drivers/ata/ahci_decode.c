/*
 * ahci_decode.c - the pure logic of the AHCI driver, apart so the host
 * unit tests (tests/unit/test_ahci_decode.c) check it without an HBA: the
 * Register Host to Device FIS of a command (Serial ATA 3.x 10.5.6), the
 * physical region descriptor table (AHCI 1.3.1 4.2.3.3), what PxIS, PxSERR
 * and PxTFD say when a command fails (AHCI 1.3.1 3.3.5, 3.3.12, 6.1), and
 * device signatures (3.3.9). Status/error decoding itself is the PIO
 * driver's (ata_decode.c): a SATA device reports exactly those registers.
 */
#include "ahci_internal.h"
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/string.h>

#define BYTE_BITS 8
#define FOUR_GIB (1ull << 32)

/* ---- Command FIS --------------------------------------------------------------- */

void ahci_build_h2d_fis(uint8_t fis[FIS_H2D_BYTES], const struct ata_taskfile *tf)
{
	memset(fis, 0, FIS_H2D_BYTES);
	fis[FIS_TYPE] = FIS_TYPE_REG_H2D;
	fis[FIS_FLAGS] = FIS_H2D_C;              /* a command, port multiplier port 0 */
	fis[FIS_COMMAND] = tf->command;
	fis[FIS_FEATURES] = tf->features;
	fis[FIS_LBA0] = (uint8_t)tf->lba;
	fis[FIS_LBA1] = (uint8_t)(tf->lba >> BYTE_BITS);
	fis[FIS_LBA2] = (uint8_t)(tf->lba >> (2 * BYTE_BITS));
	fis[FIS_DEVICE] = tf->lba_mode ? ATA_DEV_LBA : 0;
	if (tf->lba48) {
		fis[FIS_LBA3] = (uint8_t)(tf->lba >> (3 * BYTE_BITS));
		fis[FIS_LBA4] = (uint8_t)(tf->lba >> (4 * BYTE_BITS));
		fis[FIS_LBA5] = (uint8_t)(tf->lba >> (5 * BYTE_BITS));
		fis[FIS_COUNT_EXP] = (uint8_t)(tf->count >> BYTE_BITS);
	} else if (tf->lba_mode) {
		fis[FIS_DEVICE] |= (uint8_t)(tf->lba >> (3 * BYTE_BITS)) & ATA_DEV_LBA28_HIGH;
	}
	fis[FIS_COUNT] = (uint8_t)tf->count;
}

/* ---- PRD table -------------------------------------------------------------------- */

int ahci_fill_prdt(struct ahci_prd *prdt, unsigned int max, uint64_t addr, uint32_t len,
		   uint32_t piece)
{
	unsigned int n = 0;

	if (len == 0 || (len & 1) || (addr & 1) || addr + len > FOUR_GIB || piece < 2 ||
	    (piece & 1) || piece > AHCI_PRD_BYTES_MAX)
		return -EINVAL;
	while (len) {
		uint32_t take = len < piece ? len : piece;

		if (n >= max)
			return -E2BIG;
		prdt[n].dba = (uint32_t)addr;
		prdt[n].dbau = 0;
		prdt[n].reserved = 0;
		prdt[n].dbc = (take - 1) & AHCI_PRD_DBC_MASK;   /* the count minus one: odd */
		addr += take;
		len -= take;
		n++;
	}
	return (int)n;
}

/* ---- Messages ------------------------------------------------------------------------ */

struct bit_name32 {
	uint32_t bit;
	const char *name;
};

static const struct bit_name32 is_bits[] = {
	{ AHCI_PxIS_DHRS, "DHRS" }, { AHCI_PxIS_PSS, "PSS" }, { AHCI_PxIS_DSS, "DSS" },
	{ AHCI_PxIS_SDBS, "SDBS" }, { AHCI_PxIS_UFS, "UFS" }, { AHCI_PxIS_DPS, "DPS" },
	{ AHCI_PxIS_PCS, "PCS" }, { AHCI_PxIS_DMPS, "DMPS" }, { AHCI_PxIS_PRCS, "PRCS" },
	{ AHCI_PxIS_IPMS, "IPMS" }, { AHCI_PxIS_OFS, "OFS" }, { AHCI_PxIS_INFS, "INFS" },
	{ AHCI_PxIS_IFS, "IFS" }, { AHCI_PxIS_HBDS, "HBDS" }, { AHCI_PxIS_HBFS, "HBFS" },
	{ AHCI_PxIS_TFES, "TFES" }, { AHCI_PxIS_CPDS, "CPDS" },
};

/* SError (AHCI 1.3.1 3.3.12): ERR 15:0, DIAG 31:16. */
static const struct bit_name32 serr_bits[] = {
	{ 1u << 0, "I(recovered data integrity)" }, { 1u << 1, "M(recovered communication)" },
	{ 1u << 8, "T(transient data integrity)" }, { 1u << 9, "C(persistent communication)" },
	{ 1u << 10, "P(protocol)" }, { 1u << 11, "E(internal)" },
	{ 1u << 16, "N(PhyRdy change)" }, { 1u << 17, "I(PHY internal)" }, { 1u << 18, "W(COMWAKE)" },
	{ 1u << 19, "B(10b to 8b decode)" }, { 1u << 20, "D(disparity)" }, { 1u << 21, "C(CRC)" },
	{ 1u << 22, "H(handshake)" }, { 1u << 23, "S(link sequence)" },
	{ 1u << 24, "T(transport state)" }, { 1u << 25, "F(unknown FIS)" }, { 1u << 26, "X(exchanged)" },
};

static const char *bit_names(uint32_t value, const struct bit_name32 *names, size_t count,
			     char *buf, size_t len)
{
	size_t used = 0;

	if (!buf || len == 0)
		return "";
	buf[0] = 0;
	for (size_t i = 0; i < count; i++) {
		int n;

		if (!(value & names[i].bit))
			continue;
		n = ksnprintf(buf + used, len - used, "%s%s", used ? " " : "", names[i].name);
		if (n < 0 || (size_t)n >= len - used)
			break;               /* truncated: what fitted stays */
		used += (size_t)n;
	}
	if (used == 0)
		ksnprintf(buf, len, "none");
	return buf;
}

const char *ahci_is_names(uint32_t is, char *buf, size_t len)
{
	return bit_names(is, is_bits, sizeof(is_bits) / sizeof(is_bits[0]), buf, len);
}

const char *ahci_serr_names(uint32_t serr, char *buf, size_t len)
{
	return bit_names(serr, serr_bits, sizeof(serr_bits) / sizeof(serr_bits[0]), buf, len);
}

/* hba_error_text - what the HBA's own error bits mean, most serious first. */
static const char *hba_error_text(uint32_t is)
{
	if (is & AHCI_PxIS_HBFS)
		return "host bus fatal error: the HBA could not reach the memory a command names";
	if (is & AHCI_PxIS_HBDS)
		return "host bus data error while the HBA moved data";
	if (is & AHCI_PxIS_IFS)
		return "interface fatal error on the SATA link";
	if (is & AHCI_PxIS_OFS)
		return "overflow: the device sent more data than the PRD table holds";
	if (is & AHCI_PxIS_IPMS)
		return "incorrect port multiplier status";
	if (is & AHCI_PxIS_UFS)
		return "unknown FIS received";
	return "interface non-fatal error on the SATA link";
}

int ahci_decode_error(uint32_t is, uint32_t serr, uint32_t tfd, char *msg, size_t len)
{
	uint8_t status = (uint8_t)(tfd & AHCI_PxTFD_STS_MASK);
	uint8_t error = (uint8_t)(tfd >> AHCI_PxTFD_ERR_SHIFT);
	uint32_t hba = is & AHCI_PxIS_ERRORS & ~AHCI_PxIS_TFES;
	char names[ATA_DECODE_LEN / 2], serrs[ATA_DECODE_LEN];

	if (hba) {
		ksnprintf(msg, len, "%s (PxIS %s, PxSERR %#x: %s)", hba_error_text(hba),
			  ahci_is_names(is, names, sizeof(names)), serr,
			  ahci_serr_names(serr, serrs, sizeof(serrs)));
		return -EPROTO;
	}
	if ((is & AHCI_PxIS_TFES) || (status & (ATA_SR_ERR | ATA_SR_DF)))
		return ata_decode_error(status | ((is & AHCI_PxIS_TFES) && !(status & ATA_SR_DF) ?
						  ATA_SR_ERR : 0), error, msg, len);
	ksnprintf(msg, len, "no error reported (PxIS %s, status %#04x)",
		  ahci_is_names(is, names, sizeof(names)), status);
	return 0;
}

enum ata_class ahci_classify_signature(uint32_t sig)
{
	switch (sig) {
	case AHCI_SIG_ATA:
		return ATA_CLASS_ATA;
	case AHCI_SIG_ATAPI:
		return ATA_CLASS_ATAPI;
	case AHCI_SIG_NONE:
		return ATA_CLASS_NONE;
	default:
		return ATA_CLASS_UNKNOWN;   /* port multiplier, enclosure bridge: not driven */
	}
}
