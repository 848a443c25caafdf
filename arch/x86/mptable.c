/*
 * mptable.c - the Intel MultiProcessor Specification 1.4 tables (chapter 4):
 * the floating pointer structure "_MP_" and the configuration table "PCMP"
 * with its processor, bus, IOAPIC, I/O interrupt assignment and local
 * interrupt assignment entries, plus the extended entries (skipped by their
 * length). This is where PCI INTx routing comes from when the kernel does
 * not interpret AML, and all the interrupt layout under -no-acpi.
 *
 * Everything read here is untrusted: the floating pointer's length, checksum
 * and revision are checked; the configuration table's signature, base length
 * (at least its header, inside the window), revision and checksum, then the
 * extended table's length and checksum. Base entries have fixed sizes by
 * type, so an unknown type ends the walk; the walk also stops at the entry
 * count or the base table end, whichever comes first. Problems go into
 * out->problems.
 *
 * Default configurations (feature byte 1 non-zero, chapter 5) are recognised
 * and reported, not expanded: no machine we run on uses one.
 *
 * See also firmware.h (the output), acpi.c (the other source), pirtable.c.
 */
#include <firmware.h>

#include <kernel/errno.h>
#include <kernel/string.h>

/* Where the floating pointer may be (MP 1.4 section 4). */
enum mp_search {
	MP_EBDA_SEARCH_LEN = 1024,      /* first KiB of the EBDA */
	MP_BASE_MEM_SEARCH_LEN = 1024,  /* last KiB of base memory */
	MP_ROM_SEARCH_BASE = 0xF0000,   /* BIOS ROM */
	MP_ROM_SEARCH_LEN = 0x10000,
};

/* Floating pointer structure (MP 1.4 table 4-1). */
enum mp_floating_layout {
	MPF_CONFIG_ADDR = 4,            /* physical address of the configuration table */
	MPF_LENGTH = 8,                 /* in paragraphs: always 1 */
	MPF_SPEC_REV = 9,
	MPF_FEATURE1 = 11,              /* 0 = configuration table present, N = default config N */
	MPF_FEATURE2 = 12,
	MPF_IMCR_PRESENT = 1u << 7,     /* feature byte 2: IMCR present, PIC mode implemented */
	MPF_LEN = 16,
	MPF_LENGTH_PARAGRAPHS = 1,
	MP_SPEC_REV_1_1 = 1,
	MP_SPEC_REV_1_4 = 4,
};

/* Configuration table header (MP 1.4 table 4-2). */
enum mp_config_layout {
	MPC_BASE_LENGTH = 4,            /* 16 bits: header plus base entries */
	MPC_SPEC_REV = 6,
	MPC_OEM_ID = 8,                 /* 8 bytes, space padded */
	MPC_OEM_ID_LEN = 8,
	MPC_PRODUCT_ID = 16,            /* 12 bytes, space padded */
	MPC_PRODUCT_ID_LEN = 12,
	MPC_ENTRY_COUNT = 34,           /* 16 bits: base entries */
	MPC_LAPIC_ADDR = 36,
	MPC_EXT_LENGTH = 40,            /* 16 bits: extended entries after the base table */
	MPC_EXT_CHECKSUM = 42,          /* sum of extended entries + this byte = 0 */
	MPC_HEADER_LEN = 44,
	MPC_EXT_ENTRY_HDR_LEN = 2,      /* extended entries: type, length */
};

/* Base entry types and sizes (MP 1.4 table 4-3). */
enum mp_entry_type {
	MP_ENTRY_PROCESSOR = 0,
	MP_ENTRY_BUS = 1,
	MP_ENTRY_IOAPIC = 2,
	MP_ENTRY_IO_INT = 3,
	MP_ENTRY_LOCAL_INT = 4,
	MP_PROCESSOR_LEN = 20,
	MP_SHORT_ENTRY_LEN = 8,         /* every other base entry */
};

/* Entry fields (MP 1.4 sections 4.3.1-4.3.5). */
enum mp_entry_fields {
	MP_CPU_APIC_ID = 1,
	MP_CPU_FLAGS = 3,
	MP_CPU_ENABLED = 1u << 0,       /* EN: usable */
	MP_CPU_BSP = 1u << 1,           /* BP: the bootstrap processor */
	MP_BUS_ID = 1,
	MP_BUS_TYPE = 2,                /* 6 bytes, space padded */
	MP_BUS_TYPE_LEN = 6,
	MP_IOAPIC_ID = 1,
	MP_IOAPIC_VERSION = 2,
	MP_IOAPIC_FLAGS = 3,
	MP_IOAPIC_ENABLED = 1u << 0,
	MP_IOAPIC_ADDR = 4,
	MP_INT_TYPE = 1,                /* enum fw_int_kind */
	MP_INT_FLAGS = 2,               /* 16-bit MPS INTI flags */
	MP_INT_SRC_BUS = 4,
	MP_INT_SRC_IRQ = 5,
	MP_INT_DST_ID = 6,              /* IOAPIC or local APIC ID; 0xFF = all */
	MP_INT_DST_PIN = 7,             /* INTIN# or LINTIN# */
	MP_INT_KIND_MAX = FW_INT_EXTINT,
	MP_LINT_MAX = 1,                /* LINTIN0 or LINTIN1 */
	MP_PCI_IRQ_PIN_MASK = 0x3,      /* PCI source IRQ bits 1:0: 0 = INTA */
	MP_PCI_IRQ_DEV_SHIFT = 2,       /* bits 6:2: device number */
	MP_PCI_IRQ_DEV_MASK = 0x1F,
};

/* ------------------------------------------------------------------------
 * Base entries
 */

static uint32_t mp_base_entry_len(uint8_t type)
{
	switch (type) {
	case MP_ENTRY_PROCESSOR: return MP_PROCESSOR_LEN;
	case MP_ENTRY_BUS:
	case MP_ENTRY_IOAPIC:
	case MP_ENTRY_IO_INT:
	case MP_ENTRY_LOCAL_INT: return MP_SHORT_ENTRY_LEN;
	default: return 0;
	}
}

static const struct fw_mp_bus *mp_find_bus(const struct fw_platform *out, uint8_t id)
{
	uint32_t i;

	for (i = 0; i < out->buses.count; i++)
		if (out->buses.entry[i].id == id)
			return &out->buses.entry[i];
	return NULL;
}

static void mp_bus(const struct fw_walk *walk, uint32_t off, struct fw_platform *out, const uint8_t *e)
{
	struct fw_mp_bus *bus;

	if (mp_find_bus(out, e[MP_BUS_ID])) {
		fw_report(walk, off, FW_PROBLEM_DUPLICATE, e[MP_BUS_ID], "second bus entry with this ID; ignored");
		return;
	}
	bus = FW_LIST_ADD(walk, off, &out->buses, "more buses than FW_MAX_MP_BUSES; the rest ignored");
	if (!bus)
		return;
	bus->id = e[MP_BUS_ID];
	fw_copy_id(bus->name, e + MP_BUS_TYPE, MP_BUS_TYPE_LEN);
	if (strcmp(bus->name, "ISA") == 0)
		bus->type = FW_BUS_ISA;
	else if (strcmp(bus->name, "EISA") == 0)
		bus->type = FW_BUS_EISA;
	else if (strcmp(bus->name, "PCI") == 0)
		bus->type = FW_BUS_PCI;
	else
		bus->type = FW_BUS_OTHER;
}

static void mp_processor(const struct fw_walk *walk, uint32_t off, struct fw_platform *out, const uint8_t *e)
{
	struct fw_cpu *cpu;
	uint32_t i;

	bool bsp = e[MP_CPU_FLAGS] & MP_CPU_BSP;

	if (!(e[MP_CPU_FLAGS] & MP_CPU_ENABLED))
		return;   /* EN clear: the processor is unusable (4.3.1) */
	if (e[MP_CPU_APIC_ID] == FW_MP_ALL_APICS) {
		fw_report(walk, off, FW_PROBLEM_BAD_ENTRY, e[MP_CPU_APIC_ID],
		          "processor with the broadcast APIC ID 0xFF, which names no CPU; ignored");
		return;
	}
	for (i = 0; i < out->cpus.count; i++) {
		if (out->cpus.entry[i].apic_id == e[MP_CPU_APIC_ID]) {
			fw_report(walk, off, FW_PROBLEM_DUPLICATE, e[MP_CPU_APIC_ID],
			          "second processor with this APIC ID; ignored");
			return;
		}
		if (bsp && out->cpus.entry[i].bsp) {
			fw_report(walk, off, FW_PROBLEM_DUPLICATE, e[MP_CPU_APIC_ID],
			          "second bootstrap processor; its BSP flag ignored");
			bsp = false;
		}
	}
	cpu = FW_LIST_ADD(walk, off, &out->cpus, "more CPUs than FW_MAX_CPUS; the rest ignored");
	if (!cpu)
		return;
	cpu->apic_id = e[MP_CPU_APIC_ID];
	cpu->enabled = true;
	cpu->bsp = bsp;
}

static void mp_ioapic(const struct fw_walk *walk, uint32_t off, struct fw_platform *out, const uint8_t *e)
{
	struct fw_ioapic *io;
	uint32_t i, address = fw_le32(e + MP_IOAPIC_ADDR);

	if (address == 0) {
		fw_report(walk, off, FW_PROBLEM_BAD_ENTRY, address, "IOAPIC at address 0; ignored");
		return;
	}
	for (i = 0; i < out->ioapics.count; i++) {
		if (out->ioapics.entry[i].id == e[MP_IOAPIC_ID] || out->ioapics.entry[i].address == address) {
			fw_report(walk, off, FW_PROBLEM_DUPLICATE, e[MP_IOAPIC_ID],
			          "second IOAPIC with this ID or address; ignored");
			return;
		}
	}
	io = FW_LIST_ADD(walk, off, &out->ioapics, "more IOAPICs than FW_MAX_IOAPICS; the rest ignored");
	if (!io)
		return;
	io->id = e[MP_IOAPIC_ID];
	io->version = e[MP_IOAPIC_VERSION];
	io->enabled = e[MP_IOAPIC_FLAGS] & MP_IOAPIC_ENABLED;
	io->address = address;
	io->gsi_base = FW_GSI_BASE_UNKNOWN;
}

static void mp_io_int(const struct fw_walk *walk, uint32_t off, struct fw_platform *out, const uint8_t *e)
{
	const struct fw_mp_bus *bus = mp_find_bus(out, e[MP_INT_SRC_BUS]);
	bool pci = bus && bus->type == FW_BUS_PCI;
	struct fw_mp_irq *irq;

	if (e[MP_INT_TYPE] > MP_INT_KIND_MAX) {
		fw_report(walk, off, FW_PROBLEM_BAD_ENTRY, e[MP_INT_TYPE], "unknown interrupt type; entry ignored");
		return;
	}
	if (!bus)
		fw_report(walk, off, FW_PROBLEM_BAD_ENTRY, e[MP_INT_SRC_BUS],
		          "interrupt entry names a bus no bus entry declares; kept as non-PCI");
	if (pci)
		irq = FW_LIST_ADD(walk, off, &out->pci_irqs, "more PCI interrupt entries than FW_MAX_MP_PCI_IRQS; the rest ignored");
	else
		irq = FW_LIST_ADD(walk, off, &out->bus_irqs, "more non-PCI interrupt entries than FW_MAX_MP_BUS_IRQS; the rest ignored");
	if (!irq)
		return;
	irq->kind = e[MP_INT_TYPE];
	irq->bus = e[MP_INT_SRC_BUS];
	irq->bus_irq = e[MP_INT_SRC_IRQ];
	if (pci) {
		irq->pci_device = (e[MP_INT_SRC_IRQ] >> MP_PCI_IRQ_DEV_SHIFT) & MP_PCI_IRQ_DEV_MASK;
		irq->pci_pin = e[MP_INT_SRC_IRQ] & MP_PCI_IRQ_PIN_MASK;
	}
	irq->ioapic_id = e[MP_INT_DST_ID];
	irq->ioapic_pin = e[MP_INT_DST_PIN];
	fw_flags_decode(walk, off, fw_le16(e + MP_INT_FLAGS), &irq->polarity, &irq->trigger);
}

static void mp_local_int(const struct fw_walk *walk, uint32_t off, struct fw_platform *out, const uint8_t *e)
{
	struct fw_lint *li;

	if (e[MP_INT_TYPE] > MP_INT_KIND_MAX || e[MP_INT_DST_PIN] > MP_LINT_MAX) {
		fw_report(walk, off, FW_PROBLEM_BAD_ENTRY, (uint32_t)e[MP_INT_TYPE] << 8 | e[MP_INT_DST_PIN],
		          "local interrupt with unknown type or LINT pin (value type<<8|pin); ignored");
		return;
	}
	li = FW_LIST_ADD(walk, off, &out->lints, "more LINT entries than FW_MAX_LINTS; the rest ignored");
	if (!li)
		return;
	li->all_cpus = e[MP_INT_DST_ID] == FW_MP_ALL_APICS;
	li->cpu = li->all_cpus ? 0 : e[MP_INT_DST_ID];
	li->cpu_is_uid = false;
	li->lint = e[MP_INT_DST_PIN];
	li->kind = e[MP_INT_TYPE];
	fw_flags_decode(walk, off, fw_le16(e + MP_INT_FLAGS), &li->polarity, &li->trigger);
}

/*
 * First pass over the base entries: check that each has a known type and
 * fits, and collect the buses (interrupt entries refer to them, whatever the
 * order). RETURNS the offset where the checked entries end.
 */
static uint32_t mp_check_entries(const struct fw_walk *walk, struct fw_platform *out,
                                 const uint8_t *t, uint32_t base_len)
{
	uint32_t count = fw_le16(t + MPC_ENTRY_COUNT), off = MPC_HEADER_LEN, i;

	for (i = 0; i < count && off < base_len; i++) {
		uint32_t elen = mp_base_entry_len(t[off]);

		if (elen == 0) {
			fw_report(walk, off, FW_PROBLEM_BAD_ENTRY_LENGTH, t[off],
			          "unknown base entry type, size unknown; rest of the table ignored");
			return off;
		}
		if (elen > base_len - off) {
			fw_report(walk, off, FW_PROBLEM_BAD_ENTRY_LENGTH, elen,
			          "entry runs past the base table end; rest ignored");
			return off;
		}
		if (t[off] == MP_ENTRY_BUS)
			mp_bus(walk, off, out, t + off);
		off += elen;
	}
	if (i < count)
		fw_report(walk, MPC_ENTRY_COUNT, FW_PROBLEM_BAD_COUNT, count,
		          "entry count larger than the base table holds; extra count ignored");
	return off;
}

static void mp_parse_entries(const struct fw_walk *walk, struct fw_platform *out,
                             const uint8_t *t, uint32_t end)
{
	uint32_t off = MPC_HEADER_LEN;

	/* mp_check_entries vouched for every entry in [header, end). */
	while (off < end) {
		const uint8_t *e = t + off;

		switch (e[0]) {
		case MP_ENTRY_PROCESSOR: mp_processor(walk, off, out, e); break;
		case MP_ENTRY_IOAPIC: mp_ioapic(walk, off, out, e); break;
		case MP_ENTRY_IO_INT: mp_io_int(walk, off, out, e); break;
		case MP_ENTRY_LOCAL_INT: mp_local_int(walk, off, out, e); break;
		default: break;   /* buses: done in the first pass */
		}
		off += mp_base_entry_len(e[0]);
	}
}

/* Check the extended entries after the base table; none carries what we use. */
static void mp_check_extended(const struct fw_walk *base_walk, struct fw_platform *out,
                              const uint8_t *t, uint32_t base_len, uint32_t avail)
{
	const struct fw_walk walk = { base_walk->problems, FW_TABLE_MP_EXTENDED, base_walk->addr };
	uint32_t ext_len = fw_le16(t + MPC_EXT_LENGTH), off, elen;
	const uint8_t *ext = t + base_len;

	if (ext_len == 0)
		return;
	if (ext_len > avail - base_len) {
		fw_report(&walk, MPC_EXT_LENGTH, FW_PROBLEM_BAD_LENGTH, ext_len,
		          "extended entries run past the data; ignored");
		return;
	}
	if ((uint8_t)(fw_checksum(ext, ext_len) + t[MPC_EXT_CHECKSUM]) != 0) {
		fw_report(&walk, MPC_EXT_CHECKSUM, FW_PROBLEM_BAD_CHECKSUM,
		          (uint8_t)(fw_checksum(ext, ext_len) + t[MPC_EXT_CHECKSUM]),
		          "extended table checksum is not zero; ignored");
		return;
	}
	for (off = 0; off < ext_len; off += elen) {
		elen = ext_len - off >= MPC_EXT_ENTRY_HDR_LEN ? ext[off + 1] : 0;
		if (elen < MPC_EXT_ENTRY_HDR_LEN || elen > ext_len - off) {
			fw_report(&walk, base_len + off, FW_PROBLEM_BAD_ENTRY_LENGTH, elen,
			          "extended entry length below 2 or past the end; rest ignored");
			return;
		}
		out->mp.extended_entries++;
	}
}

int mptable_parse_config(const void *cfg, uint32_t len, struct fw_platform *out)
{
	const struct fw_walk walk = { &out->problems, FW_TABLE_MP_CONFIG, 0 };
	const uint8_t *t = cfg;
	uint32_t base_len, end;

	if (len < MPC_HEADER_LEN || !t || !fw_signature_is(t, "PCMP")) {
		fw_report(&walk, 0, FW_PROBLEM_BAD_SIGNATURE, len, "no PCMP header; skipped");
		return -EINVAL;
	}
	base_len = fw_le16(t + MPC_BASE_LENGTH);
	if (base_len < MPC_HEADER_LEN || base_len > len) {
		fw_report(&walk, MPC_BASE_LENGTH, FW_PROBLEM_BAD_LENGTH, base_len,
		          "base table length below the 44-byte header or past the data; skipped");
		return -EINVAL;
	}
	if (t[MPC_SPEC_REV] != MP_SPEC_REV_1_1 && t[MPC_SPEC_REV] != MP_SPEC_REV_1_4) {
		fw_report(&walk, MPC_SPEC_REV, FW_PROBLEM_BAD_REVISION, t[MPC_SPEC_REV],
		          "specification revision neither 1.1 nor 1.4; skipped");
		return -EINVAL;
	}
	if (fw_checksum(t, base_len) != 0) {
		fw_report(&walk, 0, FW_PROBLEM_BAD_CHECKSUM, fw_checksum(t, base_len),
		          "base table checksum is not zero; skipped");
		return -EINVAL;
	}
	fw_copy_id(out->mp.oem_id, t + MPC_OEM_ID, MPC_OEM_ID_LEN);
	fw_copy_id(out->mp.product_id, t + MPC_PRODUCT_ID, MPC_PRODUCT_ID_LEN);
	out->lapic_address = fw_le32(t + MPC_LAPIC_ADDR);
	end = mp_check_entries(&walk, out, t, base_len);
	mp_parse_entries(&walk, out, t, end);
	mp_check_extended(&walk, out, t, base_len, len);
	return 0;
}

/* ------------------------------------------------------------------------
 * Discovery
 */

struct mp_search_ctx {
	const struct fw_window *w;
	struct fw_problems *problems;
};

static bool mpf_try(void *ctx, uint32_t phys)
{
	struct mp_search_ctx *s = ctx;
	const struct fw_walk walk = { s->problems, FW_TABLE_MP_FLOATING, phys };
	const uint8_t *f = fw_map(s->w, phys, MPF_LEN);

	if (!f) {
		fw_report(&walk, 0, FW_PROBLEM_NOT_IN_WINDOW, MPF_LEN, "cut off by the window; skipped");
		return false;
	}
	if (f[MPF_LENGTH] != MPF_LENGTH_PARAGRAPHS) {
		fw_report(&walk, MPF_LENGTH, FW_PROBLEM_BAD_LENGTH, f[MPF_LENGTH], "length is not 1 paragraph; skipped");
		return false;
	}
	if (fw_checksum(f, MPF_LEN) != 0) {
		fw_report(&walk, 0, FW_PROBLEM_BAD_CHECKSUM, fw_checksum(f, MPF_LEN), "checksum is not zero; skipped");
		return false;
	}
	if (f[MPF_SPEC_REV] != MP_SPEC_REV_1_1 && f[MPF_SPEC_REV] != MP_SPEC_REV_1_4) {
		fw_report(&walk, MPF_SPEC_REV, FW_PROBLEM_BAD_REVISION, f[MPF_SPEC_REV],
		          "specification revision neither 1.1 nor 1.4; skipped");
		return false;
	}
	return true;
}

static uint32_t mp_find_floating(const struct fw_window *w, struct fw_problems *problems)
{
	struct mp_search_ctx s = { w, problems };
	uint32_t ebda = fw_bios_ebda(w, problems);
	uint32_t top = fw_bios_base_mem_top(w, problems);
	uint32_t phys = 0;

	if (ebda)
		phys = fw_scan(w, ebda, MP_EBDA_SEARCH_LEN, "_MP_", mpf_try, &s);
	if (!phys && top != ebda)
		phys = fw_scan(w, top, MP_BASE_MEM_SEARCH_LEN, "_MP_", mpf_try, &s);
	if (!phys)
		phys = fw_scan(w, MP_ROM_SEARCH_BASE, MP_ROM_SEARCH_LEN, "_MP_", mpf_try, &s);
	return phys;
}

/* Map the configuration table: header, base table and extended entries. */
static const uint8_t *mp_map_config(const struct fw_window *w, const struct fw_walk *walk, uint32_t *len)
{
	const uint8_t *t = fw_map(w, walk->addr, MPC_HEADER_LEN);
	uint32_t base_len, ext_len;

	if (!t) {
		fw_report(walk, 0, FW_PROBLEM_NOT_IN_WINDOW, walk->addr, "header outside the allowed memory; skipped");
		return NULL;
	}
	base_len = fw_le16(t + MPC_BASE_LENGTH);
	ext_len = fw_le16(t + MPC_EXT_LENGTH);
	if (base_len < MPC_HEADER_LEN)
		base_len = MPC_HEADER_LEN;   /* mptable_parse_config reports it */
	*len = base_len + ext_len;
	if (fw_map(w, walk->addr, *len))
		return t;
	*len = base_len;
	if (!fw_map(w, walk->addr, *len)) {
		fw_report(walk, MPC_BASE_LENGTH, FW_PROBLEM_NOT_IN_WINDOW, base_len,
		          "base table runs outside the allowed memory; skipped");
		return NULL;
	}
	return t;   /* the extended part is then reported as past the data */
}

int mptable_parse(const struct fw_window *w, struct fw_platform *out)
{
	struct fw_walk walk = { &out->problems, FW_TABLE_MP_FLOATING, 0 };
	const uint8_t *f, *cfg;
	uint32_t len, before;
	int err;

	fw_platform_init(out, FW_SOURCE_NONE);
	walk.addr = mp_find_floating(w, &out->problems);
	if (!walk.addr)
		return -ENOENT;
	f = fw_map(w, walk.addr, MPF_LEN);
	out->source = FW_SOURCE_MP;
	out->mp.floating_addr = walk.addr;
	out->mp.spec_rev = f[MPF_SPEC_REV];
	out->mp.default_config = f[MPF_FEATURE1];
	out->mp.imcr_present = f[MPF_FEATURE2] & MPF_IMCR_PRESENT;
	out->mp.config_addr = fw_le32(f + MPF_CONFIG_ADDR);
	if (out->mp.default_config) {
		fw_report(&walk, MPF_FEATURE1, FW_PROBLEM_UNSUPPORTED, out->mp.default_config,
		          "default configuration (MP 1.4 chapter 5) not expanded; no MP routing");
		return -ENODEV;
	}
	if (out->mp.config_addr == 0) {
		fw_report(&walk, MPF_CONFIG_ADDR, FW_PROBLEM_MISSING, 0,
		          "no configuration table and no default configuration");
		return -EINVAL;
	}
	walk.table = FW_TABLE_MP_CONFIG;
	walk.addr = out->mp.config_addr;
	cfg = mp_map_config(w, &walk, &len);
	if (!cfg)
		return -EINVAL;
	before = out->problems.count;
	err = mptable_parse_config(cfg, len, out);
	fw_problems_set_addr(&out->problems, before, walk.addr);
	return err;
}
