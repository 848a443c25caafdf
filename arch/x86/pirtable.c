/*
 * pirtable.c - the PCI IRQ Routing Table "$PIR" (PCI IRQ Routing Table
 * Specification 1.0, Microsoft): which interrupt router link each PCI
 * device's INTA-D pin is wired to, and which ISA IRQs each link may take.
 * drivers/pci/ uses it with the chipset's router (PIIX3/PIIX4 registers
 * 0x60-0x63, ICH9 PIRQA-H) when the MP table gives no PCI entries.
 *
 * The table is untrusted: signature, version 1.0, size (a multiple of 16
 * and more than the 32-byte header, inside the window) and checksum are
 * checked before any slot is read. The router it names is not checked here
 * (that needs PCI config space): on QEMU's q35 it names a PIIX3 at 00:01.0,
 * which is the VGA there, so the PCI code must compare vendor/device IDs.
 *
 * See also firmware.h (struct fw_pir), mptable.c.
 */
#include <firmware.h>

#include <kernel/errno.h>
#include <kernel/string.h>

/* Where to look (specification section 3). */
enum pir_search {
	PIR_SEARCH_BASE = 0xF0000,
	PIR_SEARCH_LEN = 0x10000,
};

/* Table layout (specification section 2). */
enum pir_layout {
	PIR_VERSION = 4,            /* 16 bits: 0x0100 = version 1.0 */
	PIR_SIZE = 6,               /* 16 bits: header plus slots */
	PIR_ROUTER_BUS = 8,
	PIR_ROUTER_DEVFN = 9,
	PIR_EXCLUSIVE_IRQS = 10,    /* 16-bit IRQ bitmap */
	PIR_COMPAT_VENDOR = 12,
	PIR_COMPAT_DEVICE = 14,
	PIR_MINIPORT = 16,
	PIR_HEADER_LEN = 32,
	PIR_SLOT_LEN = 16,
	PIR_SLOT_BUS = 0,
	PIR_SLOT_DEVFN = 1,
	PIR_SLOT_PINS = 2,          /* INTA-D: link byte then 16-bit bitmap, each */
	PIR_SLOT_PIN_LEN = 3,
	PIR_SLOT_NUMBER = 14,
	PIR_VERSION_1_0 = 0x0100,
};

static void pir_slot(const struct fw_walk *walk, uint32_t off, struct fw_pir *out, const uint8_t *e)
{
	struct fw_pir_slot *s = FW_LIST_ADD(walk, off, &out->slots,
	                                    "more slots than FW_MAX_PIR_SLOTS; the rest ignored");
	uint32_t pin;

	if (!s)
		return;
	s->bus = e[PIR_SLOT_BUS];
	s->devfn = e[PIR_SLOT_DEVFN];
	s->slot = e[PIR_SLOT_NUMBER];
	for (pin = 0; pin < FW_ARRAY_SIZE(s->pin); pin++) {
		const uint8_t *p = e + PIR_SLOT_PINS + pin * PIR_SLOT_PIN_LEN;

		s->pin[pin].link = p[0];
		s->pin[pin].irq_bitmap = fw_le16(p + 1);
	}
}

/* Check and parse a candidate into @out (problems added, nothing cleared). */
static int pir_parse(const struct fw_walk *walk, const uint8_t *t, uint32_t len, struct fw_pir *out)
{
	uint32_t size, off;

	if (len < PIR_HEADER_LEN || !t || !fw_signature_is(t, "$PIR")) {
		fw_report(walk, 0, FW_PROBLEM_BAD_LENGTH, len, "too short for a $PIR header or wrong signature; skipped");
		return -EINVAL;
	}
	if (fw_le16(t + PIR_VERSION) != PIR_VERSION_1_0) {
		fw_report(walk, PIR_VERSION, FW_PROBLEM_BAD_REVISION, fw_le16(t + PIR_VERSION),
		          "version is not 1.0; skipped");
		return -EINVAL;
	}
	size = fw_le16(t + PIR_SIZE);
	if (size <= PIR_HEADER_LEN || size % PIR_SLOT_LEN != 0) {
		fw_report(walk, PIR_SIZE, FW_PROBLEM_BAD_LENGTH, size,
		          "size not above 32 and a multiple of 16; skipped");
		return -EINVAL;
	}
	if (size > len) {
		fw_report(walk, PIR_SIZE, FW_PROBLEM_BAD_LENGTH, size, "size runs past the end of the data; skipped");
		return -EINVAL;
	}
	if (fw_checksum(t, size) != 0) {
		fw_report(walk, 0, FW_PROBLEM_BAD_CHECKSUM, fw_checksum(t, size), "checksum is not zero; skipped");
		return -EINVAL;
	}
	out->present = true;
	out->addr = walk->addr;
	out->version = fw_le16(t + PIR_VERSION);
	out->router_bus = t[PIR_ROUTER_BUS];
	out->router_devfn = t[PIR_ROUTER_DEVFN];
	out->exclusive_irqs = fw_le16(t + PIR_EXCLUSIVE_IRQS);
	out->compat_vendor = fw_le16(t + PIR_COMPAT_VENDOR);
	out->compat_device = fw_le16(t + PIR_COMPAT_DEVICE);
	out->miniport_data = fw_le32(t + PIR_MINIPORT);
	for (off = PIR_HEADER_LEN; off < size; off += PIR_SLOT_LEN)
		pir_slot(walk, off, out, t + off);
	return 0;
}

int pirtable_parse_table(const void *tbl, uint32_t len, uint32_t phys, struct fw_pir *out)
{
	const struct fw_walk walk = { &out->problems, FW_TABLE_PIR, phys };

	memset(out, 0, sizeof(*out));
	return pir_parse(&walk, tbl, len, out);
}

struct pir_search_ctx {
	const struct fw_window *w;
	struct fw_pir *out;
};

static bool pir_try(void *ctx, uint32_t phys)
{
	struct pir_search_ctx *s = ctx;
	const struct fw_walk walk = { &s->out->problems, FW_TABLE_PIR, phys };
	const uint8_t *t = fw_map(s->w, phys, PIR_HEADER_LEN);
	uint32_t size;

	if (!t) {
		fw_report(&walk, 0, FW_PROBLEM_NOT_IN_WINDOW, PIR_HEADER_LEN, "header cut off by the window; skipped");
		return false;
	}
	size = fw_le16(t + PIR_SIZE);
	if (size > PIR_HEADER_LEN && fw_map(s->w, phys, size))
		return pir_parse(&walk, fw_map(s->w, phys, size), size, s->out) == 0;
	if (size > PIR_HEADER_LEN && size % PIR_SLOT_LEN == 0) {
		fw_report(&walk, PIR_SIZE, FW_PROBLEM_NOT_IN_WINDOW, size, "table runs outside the allowed memory; skipped");
		return false;
	}
	return pir_parse(&walk, t, PIR_HEADER_LEN, s->out) == 0;
}

int pirtable_parse(const struct fw_window *w, struct fw_pir *out)
{
	struct pir_search_ctx s = { w, out };

	memset(out, 0, sizeof(*out));
	if (!fw_scan(w, PIR_SEARCH_BASE, PIR_SEARCH_LEN, "$PIR", pir_try, &s))
		return -ENOENT;
	return 0;
}
