/*
 * acpi.c - ACPI table discovery and the two tables the interrupt code needs:
 * the MADT ("APIC": local APICs, IOAPICs, interrupt source overrides, NMI
 * wiring) and the HPET table; of the FADT only its revision and
 * IAPC_BOOT_ARCH (is there an 8042 keyboard controller, drivers/input).
 * Follows ACPI 6.5 sections 5.2.5 (RSDP), 5.2.6 (header), 5.2.7/5.2.8
 * (RSDT/XSDT), 5.2.9 (FADT), 5.2.12 (MADT) and the IA-PC HPET 1.0a
 * specification section 3.2.4. No AML: PCI interrupt routing comes from the
 * MP table or $PIR (mptable.c, pirtable.c).
 *
 * Everything read here is untrusted. Each table's signature, length (at
 * least its fixed part, at most ACPI_TABLE_MAX_LEN, inside the window) and
 * checksum is checked before any field is used; each MADT entry's length is
 * checked against its type's size and the table end. A bad table or entry is
 * reported in out->problems and skipped, and the walk goes on where it can.
 *
 * See also firmware.h (the output), fwmem.c (the memory window).
 */
#include <firmware.h>

#include <kernel/errno.h>
#include <kernel/string.h>

/* Where the RSDP may be (ACPI 6.5 section 5.2.5.1). */
enum acpi_rsdp_search {
	ACPI_EBDA_SEARCH_LEN = 1024,     /* first KiB of the EBDA */
	ACPI_ROM_SEARCH_BASE = 0xE0000,  /* BIOS read-only area */
	ACPI_ROM_SEARCH_LEN = 0x20000,   /* up to 0xFFFFF */
};

/* RSDP layout (ACPI 6.5 table 5.3). */
enum acpi_rsdp_layout {
	RSDP_V1_LEN = 20,             /* ACPI 1.0 structure, covered by the first checksum */
	RSDP_OEM_ID = 9,              /* 6 bytes */
	RSDP_OEM_ID_LEN = 6,
	RSDP_REVISION = 15,           /* 0 = ACPI 1.0, 2 = ACPI 2.0 and later */
	RSDP_RSDT_ADDR = 16,          /* 32-bit RSDT pointer */
	RSDP_LENGTH = 20,             /* revision >= 2: length of the whole structure */
	RSDP_XSDT_ADDR = 24,          /* revision >= 2: 64-bit XSDT pointer */
	RSDP_V2_LEN = 36,             /* ACPI 2.0 structure, covered by the extended checksum */
	RSDP_MAX_LEN = 4096,          /* sanity bound for the length field */
	RSDP_FIRST_XSDT_REVISION = 2, /* revisions from here on have the XSDT fields */
};

/* System description table header (ACPI 6.5 table 5.4). */
enum acpi_header_layout {
	ACPI_HDR_SIGNATURE = 0,       /* 4 ASCII bytes */
	ACPI_HDR_SIGNATURE_LEN = 4,
	ACPI_HDR_LENGTH = 4,          /* whole table, header included */
	ACPI_HDR_REVISION = 8,
	ACPI_HDR_LEN = 36,            /* the header itself */
	ACPI_TABLE_MAX_LEN = 0x100000, /* 1 MiB: far beyond any MADT, RSDT or HPET table */
	ACPI_ROOT_MAX_ENTRIES = 256,  /* more tables than any firmware lists */
	ACPI_RSDT_ENTRY_LEN = 4,      /* 32-bit pointers */
	ACPI_XSDT_ENTRY_LEN = 8,      /* 64-bit pointers */
};

/* MADT layout (ACPI 6.5 section 5.2.12). */
enum acpi_madt_layout {
	MADT_LAPIC_ADDR = 36,         /* 32-bit local APIC address */
	MADT_FLAGS = 40,
	MADT_PCAT_COMPAT = 1u << 0,   /* flags: dual 8259 present as well */
	MADT_ENTRIES = 44,            /* first interrupt controller structure */
	MADT_ENTRY_HDR_LEN = 2,       /* type, length */
	MADT_UID_ALL = 0xFF,          /* type 4: processor UID meaning "all" */
	MADT_LINT_MAX = 1,            /* LINT0 or LINT1 */
	MADT_CPU_ENABLED = 1u << 0,   /* local APIC flags: usable now */
	MADT_CPU_ONLINE_CAPABLE = 1u << 1, /* may be enabled at run time */
	ISA_BUS = 0,                  /* override: the only bus ACPI defines */
	ISA_IRQ_COUNT = 16,
};

#define MADT_X2APIC_UID_ALL 0xFFFFFFFFu  /* type 10: processor UID meaning "all" */

/* MADT interrupt controller structure types (ACPI 6.5 table 5.21). */
enum acpi_madt_type {
	MADT_LOCAL_APIC = 0,
	MADT_IOAPIC = 1,
	MADT_SOURCE_OVERRIDE = 2,
	MADT_NMI_SOURCE = 3,
	MADT_LAPIC_NMI = 4,
	MADT_LAPIC_ADDR_OVERRIDE = 5,
	MADT_X2APIC = 9,
	MADT_X2APIC_NMI = 10,
};

/* Fields and sizes of the MADT structures we read (ACPI 6.5 sections 5.2.12.2-5.2.12.13). */
enum acpi_madt_fields {
	LAPIC_UID = 2, LAPIC_ID = 3, LAPIC_FLAGS = 4, LAPIC_LEN = 8,
	IOAPIC_ID = 2, IOAPIC_ADDR = 4, IOAPIC_GSI_BASE = 8, IOAPIC_LEN = 12,
	ISO_BUS = 2, ISO_SOURCE = 3, ISO_GSI = 4, ISO_FLAGS = 8, ISO_LEN = 10,
	NMI_SRC_FLAGS = 2, NMI_SRC_GSI = 4, NMI_SRC_LEN = 8,
	LAPIC_NMI_UID = 2, LAPIC_NMI_FLAGS = 3, LAPIC_NMI_LINT = 5, LAPIC_NMI_LEN = 6,
	LAPIC_OVR_ADDR = 4, LAPIC_OVR_LEN = 12,
	X2APIC_ID = 4, X2APIC_FLAGS = 8, X2APIC_UID = 12, X2APIC_LEN = 16,
	X2APIC_NMI_FLAGS = 2, X2APIC_NMI_UID = 4, X2APIC_NMI_LINT = 8, X2APIC_NMI_LEN = 12,
};

/* HPET table layout (IA-PC HPET 1.0a table 3). */
enum acpi_hpet_layout {
	HPET_BLOCK_ID = 36,           /* Event Timer Block ID, as the capabilities register */
	HPET_GAS = 40,                /* generic address structure of the timer block */
	HPET_GAS_SPACE = 40,          /* address space ID */
	HPET_GAS_ADDRESS = 44,        /* 64-bit address */
	HPET_NUMBER = 52,
	HPET_MIN_TICK = 53,           /* 16 bits */
	HPET_PAGE_PROTECTION = 55,
	HPET_TABLE_LEN = 56,
	GAS_SPACE_MEMORY = 0,         /* system memory space */
	HPET_ID_REV_MASK = 0xFF,      /* bits 7:0 hardware revision */
	HPET_ID_LAST_TIMER_SHIFT = 8, /* bits 12:8 number of the last comparator (count - 1) */
	HPET_ID_LAST_TIMER_MASK = 0x1F,
	HPET_ID_COUNTER_64 = 1u << 13, /* 64-bit main counter */
	HPET_ID_LEGACY = 1u << 15,    /* LegacyReplacement routing capable */
	HPET_ID_VENDOR_SHIFT = 16,    /* bits 31:16 PCI vendor ID */
};

/* FADT layout (ACPI 6.5 table 5.9): only what irqkit reads. */
enum acpi_fadt_layout {
	FADT_IAPC_BOOT_ARCH = 109,    /* 16 bits; reserved (0) in revision 1 */
	FADT_V1_LEN = 116,            /* the ACPI 1.0 table: the shortest a FADT can be */
};

/* ------------------------------------------------------------------------
 * Table checks
 */

/*
 * Validate an ACPI table of @avail bytes at @t: header present, signature
 * @sig, length between @min_len and @avail, checksum 0. Sets *@len.
 */
static int acpi_check_table(const struct fw_walk *walk, const uint8_t *t, uint32_t avail,
                            const char *sig, uint32_t min_len, uint32_t *len)
{
	if (avail < ACPI_HDR_LEN || !t) {
		fw_report(walk, 0, FW_PROBLEM_BAD_LENGTH, avail, "shorter than a table header; skipped");
		return -EINVAL;
	}
	if (!fw_signature_is(t, sig)) {
		fw_report(walk, ACPI_HDR_SIGNATURE, FW_PROBLEM_BAD_SIGNATURE, fw_le32(t),
		          "wrong signature; skipped");
		return -EINVAL;
	}
	*len = fw_le32(t + ACPI_HDR_LENGTH);
	if (*len < min_len) {
		fw_report(walk, ACPI_HDR_LENGTH, FW_PROBLEM_BAD_LENGTH, *len,
		          "length below the table's fixed part; skipped");
		return -EINVAL;
	}
	if (*len > avail) {
		fw_report(walk, ACPI_HDR_LENGTH, FW_PROBLEM_BAD_LENGTH, *len,
		          "length runs past the end of the data; skipped");
		return -EINVAL;
	}
	if (fw_checksum(t, *len) != 0) {
		fw_report(walk, 0, FW_PROBLEM_BAD_CHECKSUM, fw_checksum(t, *len),
		          "checksum is not zero; skipped");
		return -EINVAL;
	}
	return 0;
}

/*
 * Map the table at @phys through the window: header, then the length it
 * claims (bounded). RETURNS the bytes and *@len, or NULL (reported).
 */
static const uint8_t *acpi_map_table(const struct fw_window *w, const struct fw_walk *walk,
                                     uint32_t phys, uint32_t *len)
{
	const uint8_t *t = fw_map(w, phys, ACPI_HDR_LEN);

	if (!t) {
		fw_report(walk, 0, FW_PROBLEM_NOT_IN_WINDOW, phys,
		          "header outside the allowed memory; skipped");
		return NULL;
	}
	*len = fw_le32(t + ACPI_HDR_LENGTH);
	if (*len < ACPI_HDR_LEN || *len > ACPI_TABLE_MAX_LEN) {
		fw_report(walk, ACPI_HDR_LENGTH, FW_PROBLEM_BAD_LENGTH, *len,
		          "absurd length; skipped");
		return NULL;
	}
	t = fw_map(w, phys, *len);
	if (!t)
		fw_report(walk, ACPI_HDR_LENGTH, FW_PROBLEM_NOT_IN_WINDOW, *len,
		          "table runs outside the allowed memory; skipped");
	return t;
}

/* ------------------------------------------------------------------------
 * MADT entries. Each handler gets an entry whose length is at least the
 * minimum listed for its type in madt_types[].
 */

struct madt_ctx {
	const struct fw_walk *walk;
	struct fw_platform *out;
	uint32_t off;               /* entry offset inside the MADT, for reports */
};

static bool cpu_id_taken(const struct fw_platform *out, uint32_t apic_id)
{
	uint32_t i;

	for (i = 0; i < out->cpus.count; i++)
		if (out->cpus.entry[i].apic_id == apic_id)
			return true;
	return false;
}

static void madt_add_cpu(const struct madt_ctx *c, uint32_t apic_id, uint32_t uid,
                         uint32_t flags, bool x2apic)
{
	struct fw_cpu *cpu;

	/* Neither enabled nor online-capable: the OS must ignore it (5.2.12.2). */
	if (!(flags & (MADT_CPU_ENABLED | MADT_CPU_ONLINE_CAPABLE)))
		return;
	/* The all-ones ID is the broadcast destination (xAPIC 0xFF, x2APIC
	 * 0xFFFFFFFF): an IPI to it reaches every CPU, so it names none. */
	if (apic_id == (x2apic ? 0xFFFFFFFFu : 0xFFu)) {
		fw_report(c->walk, c->off, FW_PROBLEM_BAD_ENTRY, apic_id,
		          "processor with the broadcast APIC ID, which names no CPU; ignored");
		return;
	}
	if (cpu_id_taken(c->out, apic_id)) {
		fw_report(c->walk, c->off, FW_PROBLEM_DUPLICATE, apic_id,
		          "second processor entry with this APIC ID; ignored");
		return;
	}
	cpu = FW_LIST_ADD(c->walk, c->off, &c->out->cpus, "more CPUs than FW_MAX_CPUS; the rest ignored");
	if (!cpu)
		return;
	cpu->apic_id = apic_id;
	cpu->acpi_uid = uid;
	cpu->enabled = flags & MADT_CPU_ENABLED;
	cpu->online_capable = !cpu->enabled && (flags & MADT_CPU_ONLINE_CAPABLE);
	cpu->x2apic = x2apic;
}

static void madt_local_apic(const struct madt_ctx *c, const uint8_t *e)
{
	madt_add_cpu(c, e[LAPIC_ID], e[LAPIC_UID], fw_le32(e + LAPIC_FLAGS), false);
}

static void madt_x2apic(const struct madt_ctx *c, const uint8_t *e)
{
	madt_add_cpu(c, fw_le32(e + X2APIC_ID), fw_le32(e + X2APIC_UID), fw_le32(e + X2APIC_FLAGS), true);
}

static void madt_ioapic(const struct madt_ctx *c, const uint8_t *e)
{
	struct fw_ioapic *io;
	uint32_t i, address = fw_le32(e + IOAPIC_ADDR);

	if (address == 0) {
		fw_report(c->walk, c->off, FW_PROBLEM_BAD_ENTRY, address, "IOAPIC at address 0; ignored");
		return;
	}
	for (i = 0; i < c->out->ioapics.count; i++) {
		if (c->out->ioapics.entry[i].id == e[IOAPIC_ID] || c->out->ioapics.entry[i].address == address) {
			fw_report(c->walk, c->off, FW_PROBLEM_DUPLICATE, e[IOAPIC_ID],
			          "second IOAPIC with this ID or address; ignored");
			return;
		}
	}
	io = FW_LIST_ADD(c->walk, c->off, &c->out->ioapics, "more IOAPICs than FW_MAX_IOAPICS; the rest ignored");
	if (!io)
		return;
	io->id = e[IOAPIC_ID];
	io->enabled = true;
	io->address = address;
	io->gsi_base = fw_le32(e + IOAPIC_GSI_BASE);
}

static void madt_source_override(const struct madt_ctx *c, const uint8_t *e)
{
	struct fw_isa_override *o;
	uint32_t i;

	if (e[ISO_BUS] != ISA_BUS || e[ISO_SOURCE] >= ISA_IRQ_COUNT) {
		fw_report(c->walk, c->off, FW_PROBLEM_BAD_ENTRY, (uint32_t)e[ISO_BUS] << 8 | e[ISO_SOURCE],
		          "override for something other than ISA IRQ 0-15 (value bus<<8|irq); ignored");
		return;
	}
	for (i = 0; i < c->out->overrides.count; i++) {
		if (c->out->overrides.entry[i].isa_irq == e[ISO_SOURCE]) {
			fw_report(c->walk, c->off, FW_PROBLEM_DUPLICATE, e[ISO_SOURCE],
			          "second override for this ISA IRQ; ignored");
			return;
		}
	}
	o = FW_LIST_ADD(c->walk, c->off, &c->out->overrides, "more overrides than FW_MAX_ISA_OVERRIDES; the rest ignored");
	if (!o)
		return;
	o->isa_irq = e[ISO_SOURCE];
	o->gsi = fw_le32(e + ISO_GSI);
	fw_flags_decode(c->walk, c->off, fw_le16(e + ISO_FLAGS), &o->polarity, &o->trigger);
}

static void madt_nmi_source(const struct madt_ctx *c, const uint8_t *e)
{
	struct fw_nmi_source *n = FW_LIST_ADD(c->walk, c->off, &c->out->nmi_sources,
	                                      "more NMI sources than FW_MAX_NMI_SOURCES; the rest ignored");

	if (!n)
		return;
	n->gsi = fw_le32(e + NMI_SRC_GSI);
	fw_flags_decode(c->walk, c->off, fw_le16(e + NMI_SRC_FLAGS), &n->polarity, &n->trigger);
}

static void madt_add_lint(const struct madt_ctx *c, uint32_t uid, bool all, uint16_t flags, uint8_t lint)
{
	struct fw_lint *li;

	if (lint > MADT_LINT_MAX) {
		fw_report(c->walk, c->off, FW_PROBLEM_BAD_ENTRY, lint, "local APIC NMI on a LINT pin other than 0/1; ignored");
		return;
	}
	li = FW_LIST_ADD(c->walk, c->off, &c->out->lints, "more LINT entries than FW_MAX_LINTS; the rest ignored");
	if (!li)
		return;
	li->cpu = all ? 0 : uid;
	li->all_cpus = all;
	li->cpu_is_uid = true;
	li->lint = lint;
	li->kind = FW_INT_NMI;
	fw_flags_decode(c->walk, c->off, flags, &li->polarity, &li->trigger);
}

static void madt_lapic_nmi(const struct madt_ctx *c, const uint8_t *e)
{
	madt_add_lint(c, e[LAPIC_NMI_UID], e[LAPIC_NMI_UID] == MADT_UID_ALL, fw_le16(e + LAPIC_NMI_FLAGS),
	              e[LAPIC_NMI_LINT]);
}

static void madt_x2apic_nmi(const struct madt_ctx *c, const uint8_t *e)
{
	uint32_t uid = fw_le32(e + X2APIC_NMI_UID);

	madt_add_lint(c, uid, uid == MADT_X2APIC_UID_ALL, fw_le16(e + X2APIC_NMI_FLAGS), e[X2APIC_NMI_LINT]);
}

static void madt_lapic_addr_override(const struct madt_ctx *c, const uint8_t *e)
{
	uint64_t address = fw_le64(e + LAPIC_OVR_ADDR);

	if (address > UINT32_MAX || address == 0) {
		fw_report(c->walk, c->off, FW_PROBLEM_ABOVE_4G, address,
		          "local APIC address override not below 4 GiB; 32-bit address kept");
		return;
	}
	c->out->lapic_address = (uint32_t)address;
}

struct madt_entry_type {
	uint8_t type;               /* enum acpi_madt_type */
	uint8_t min_len;            /* bytes the handler reads */
	void (*handle)(const struct madt_ctx *c, const uint8_t *e);
};

static const struct madt_entry_type madt_types[] = {
	{ MADT_LOCAL_APIC, LAPIC_LEN, madt_local_apic },
	{ MADT_IOAPIC, IOAPIC_LEN, madt_ioapic },
	{ MADT_SOURCE_OVERRIDE, ISO_LEN, madt_source_override },
	{ MADT_NMI_SOURCE, NMI_SRC_LEN, madt_nmi_source },
	{ MADT_LAPIC_NMI, LAPIC_NMI_LEN, madt_lapic_nmi },
	{ MADT_LAPIC_ADDR_OVERRIDE, LAPIC_OVR_LEN, madt_lapic_addr_override },
	{ MADT_X2APIC, X2APIC_LEN, madt_x2apic },
	{ MADT_X2APIC_NMI, X2APIC_NMI_LEN, madt_x2apic_nmi },
};

static void madt_entry(const struct madt_ctx *c, const uint8_t *e, uint8_t len)
{
	uint32_t i;

	for (i = 0; i < FW_ARRAY_SIZE(madt_types); i++) {
		if (madt_types[i].type != e[0])
			continue;
		if (len < madt_types[i].min_len) {
			fw_report(c->walk, c->off, FW_PROBLEM_BAD_ENTRY_LENGTH, len,
			          "entry shorter than its type's size; entry skipped");
			return;
		}
		madt_types[i].handle(c, e);
		return;
	}
	/* Other types (GIC, SAPIC, wakeup, ...) say nothing an x86 IOAPIC kernel uses. */
}

int acpi_parse_madt(const void *madt, uint32_t len, struct fw_platform *out)
{
	const struct fw_walk walk = { &out->problems, FW_TABLE_MADT, 0 };
	struct madt_ctx c = { &walk, out, 0 };
	const uint8_t *t = madt;
	uint32_t tlen, off, elen;

	if (acpi_check_table(&walk, t, len, "APIC", MADT_ENTRIES, &tlen))
		return -EINVAL;
	out->lapic_address = fw_le32(t + MADT_LAPIC_ADDR);
	out->pcat_compat = fw_le32(t + MADT_FLAGS) & MADT_PCAT_COMPAT;
	/* Every step advances by at least MADT_ENTRY_HDR_LEN: the walk ends. */
	for (off = MADT_ENTRIES; off < tlen; off += elen) {
		if (tlen - off < MADT_ENTRY_HDR_LEN) {
			fw_report(&walk, off, FW_PROBLEM_BAD_ENTRY_LENGTH, tlen - off,
			          "entry header cut off by the table end; rest ignored");
			break;
		}
		elen = t[off + 1];
		if (elen < MADT_ENTRY_HDR_LEN) {
			fw_report(&walk, off, FW_PROBLEM_BAD_ENTRY_LENGTH, elen,
			          "entry length below 2; rest of the table ignored");
			break;
		}
		if (elen > tlen - off) {
			fw_report(&walk, off, FW_PROBLEM_BAD_ENTRY_LENGTH, elen,
			          "entry runs past the table end; rest ignored");
			break;
		}
		c.off = off;
		madt_entry(&c, t + off, (uint8_t)elen);
	}
	out->acpi.madt_found = true;
	return 0;
}

int acpi_parse_hpet(const void *tbl, uint32_t len, struct fw_platform *out)
{
	const struct fw_walk walk = { &out->problems, FW_TABLE_HPET, 0 };
	const uint8_t *t = tbl;
	struct fw_hpet *h = &out->hpet;
	uint32_t tlen, id;
	uint64_t address;

	if (acpi_check_table(&walk, t, len, "HPET", HPET_TABLE_LEN, &tlen))
		return -EINVAL;
	address = fw_le64(t + HPET_GAS_ADDRESS);
	if (t[HPET_GAS_SPACE] != GAS_SPACE_MEMORY) {
		fw_report(&walk, HPET_GAS_SPACE, FW_PROBLEM_UNSUPPORTED, t[HPET_GAS_SPACE],
		          "timer block not in memory space; HPET not used");
		return -EINVAL;
	}
	if (address == 0 || address > UINT32_MAX) {
		fw_report(&walk, HPET_GAS_ADDRESS, address ? FW_PROBLEM_ABOVE_4G : FW_PROBLEM_BAD_ENTRY,
		          address, "timer block address is 0 or above 4 GiB; HPET not used");
		return -EINVAL;
	}
	id = fw_le32(t + HPET_BLOCK_ID);
	memset(h, 0, sizeof(*h));
	h->present = true;
	h->address = (uint32_t)address;
	h->block_id = id;
	h->number = t[HPET_NUMBER];
	h->hw_revision = id & HPET_ID_REV_MASK;
	/* The field holds the last comparator's number, as NUM_TIM_CAP does. */
	h->comparators = (uint8_t)(((id >> HPET_ID_LAST_TIMER_SHIFT) & HPET_ID_LAST_TIMER_MASK) + 1);
	h->counter_64bit = id & HPET_ID_COUNTER_64;
	h->legacy_capable = id & HPET_ID_LEGACY;
	h->pci_vendor = (uint16_t)(id >> HPET_ID_VENDOR_SHIFT);
	h->min_tick = fw_le16(t + HPET_MIN_TICK);
	h->page_protection = t[HPET_PAGE_PROTECTION];
	return 0;
}

int acpi_parse_fadt(const void *tbl, uint32_t len, struct fw_platform *out)
{
	const struct fw_walk walk = { &out->problems, FW_TABLE_FADT, 0 };
	const uint8_t *t = tbl;
	struct fw_fadt *f = &out->fadt;
	uint32_t tlen;

	if (acpi_check_table(&walk, t, len, "FACP", FADT_V1_LEN, &tlen))
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	f->present = true;
	f->revision = t[ACPI_HDR_REVISION];
	/* Before ACPI 2.0 the field was reserved: a 0 there says nothing about an 8042. */
	if (f->revision >= FW_FADT_BOOT_ARCH_REVISION) {
		f->boot_arch_valid = true;
		f->boot_arch = fw_le16(t + FADT_IAPC_BOOT_ARCH);
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * RSDP and root table
 */

/* Validate an RSDP of @avail bytes. RETURNS 0 or -EINVAL (reported). */
static int rsdp_check(const struct fw_walk *walk, const uint8_t *r, uint32_t avail)
{
	uint32_t len;

	if (avail < RSDP_V1_LEN || !r || !fw_signature_is(r, "RSD PTR ")) {
		fw_report(walk, 0, FW_PROBLEM_BAD_LENGTH, avail, "too short or wrong signature; skipped");
		return -EINVAL;
	}
	if (fw_checksum(r, RSDP_V1_LEN) != 0) {
		fw_report(walk, 0, FW_PROBLEM_BAD_CHECKSUM, fw_checksum(r, RSDP_V1_LEN),
		          "checksum of the first 20 bytes is not zero; skipped");
		return -EINVAL;
	}
	if (r[RSDP_REVISION] < RSDP_FIRST_XSDT_REVISION)
		return 0;
	len = avail >= RSDP_V2_LEN ? fw_le32(r + RSDP_LENGTH) : 0;
	if (len < RSDP_V2_LEN || len > RSDP_MAX_LEN || len > avail) {
		fw_report(walk, RSDP_LENGTH, FW_PROBLEM_BAD_LENGTH, len,
		          "revision 2+ RSDP with a bad length; skipped");
		return -EINVAL;
	}
	if (fw_checksum(r, len) != 0) {
		fw_report(walk, 0, FW_PROBLEM_BAD_CHECKSUM, fw_checksum(r, len),
		          "extended checksum is not zero; skipped");
		return -EINVAL;
	}
	return 0;
}

struct rsdp_search {
	const struct fw_window *w;
	struct fw_problems *problems;
};

static bool rsdp_try(void *ctx, uint32_t phys)
{
	struct rsdp_search *s = ctx;
	const struct fw_walk walk = { s->problems, FW_TABLE_RSDP, phys };
	const uint8_t *r = fw_map(s->w, phys, RSDP_V1_LEN);
	uint32_t avail = RSDP_V1_LEN;

	if (!r) {
		fw_report(&walk, 0, FW_PROBLEM_NOT_IN_WINDOW, RSDP_V1_LEN, "cut off by the window; skipped");
		return false;
	}
	if (r[RSDP_REVISION] >= RSDP_FIRST_XSDT_REVISION) {
		const uint8_t *full = fw_map(s->w, phys, RSDP_V2_LEN);
		uint32_t len = full ? fw_le32(full + RSDP_LENGTH) : 0;

		if (full && len >= RSDP_V2_LEN && len <= RSDP_MAX_LEN && fw_map(s->w, phys, len))
			avail = len;
		else if (full)
			avail = RSDP_V2_LEN;
	}
	return rsdp_check(&walk, r, avail) == 0;
}

/* Record a table the root lists; a full list only loses the listing. */
static void note_table(const struct fw_walk *walk, uint32_t off, struct fw_platform *out,
                       const uint8_t *hdr, uint32_t phys, bool valid)
{
	struct fw_acpi_table *t = FW_LIST_ADD(walk, off, &out->acpi.tables,
	                                      "more tables than FW_MAX_ACPI_TABLES; not all listed");

	if (!t)
		return;
	fw_copy_id(t->signature, hdr, ACPI_HDR_SIGNATURE_LEN);
	t->revision = hdr[ACPI_HDR_REVISION];
	t->valid = valid;
	t->addr = phys;
	t->length = fw_le32(hdr + ACPI_HDR_LENGTH);
}

/* Parse one table the root lists, if it is one we read. */
static void acpi_parse_listed(const struct fw_window *w, struct fw_platform *out,
                              const struct fw_walk *root, uint32_t off, uint32_t phys)
{
	struct fw_walk walk = { &out->problems, FW_TABLE_ACPI_OTHER, phys };
	const uint8_t *hdr = fw_map(w, phys, ACPI_HDR_LEN);
	const uint8_t *t;
	uint32_t len, before;
	int err;

	if (!hdr) {
		fw_report(root, off, FW_PROBLEM_NOT_IN_WINDOW, phys,
		          "entry points outside the allowed memory; skipped");
		return;
	}
	if (fw_signature_is(hdr, "APIC"))
		walk.table = FW_TABLE_MADT;
	else if (fw_signature_is(hdr, "HPET"))
		walk.table = FW_TABLE_HPET;
	else if (fw_signature_is(hdr, "FACP"))
		walk.table = FW_TABLE_FADT;
	t = acpi_map_table(w, &walk, phys, &len);
	if (t && fw_checksum(t, len) != 0) {
		fw_report(&walk, 0, FW_PROBLEM_BAD_CHECKSUM, fw_checksum(t, len), "checksum is not zero; skipped");
		t = NULL;
	}
	note_table(root, off, out, hdr, phys, t != NULL);
	if (!t || walk.table == FW_TABLE_ACPI_OTHER)
		return;
	if ((walk.table == FW_TABLE_MADT && out->acpi.madt_found) ||
	    (walk.table == FW_TABLE_HPET && out->hpet.present) ||
	    (walk.table == FW_TABLE_FADT && out->fadt.present)) {
		fw_report(&walk, 0, FW_PROBLEM_DUPLICATE, phys, "second table with this signature; ignored");
		return;
	}
	before = out->problems.count;
	if (walk.table == FW_TABLE_MADT)
		err = acpi_parse_madt(t, len, out);
	else if (walk.table == FW_TABLE_HPET)
		err = acpi_parse_hpet(t, len, out);
	else
		err = acpi_parse_fadt(t, len, out);
	fw_problems_set_addr(&out->problems, before, phys);
	if (!err && walk.table == FW_TABLE_HPET)
		out->hpet.table_addr = phys;
	if (!err && walk.table == FW_TABLE_FADT)
		out->fadt.table_addr = phys;
}

/* Map and check the RSDT (@xsdt false) or XSDT at @phys. RETURNS entries or NULL. */
static const uint8_t *acpi_map_root(const struct fw_window *w, struct fw_platform *out,
                                    uint32_t phys, bool xsdt, uint32_t *len)
{
	const struct fw_walk walk = { &out->problems, xsdt ? FW_TABLE_XSDT : FW_TABLE_RSDT, phys };
	const uint8_t *t = acpi_map_table(w, &walk, phys, len);

	if (!t || acpi_check_table(&walk, t, *len, xsdt ? "XSDT" : "RSDT", ACPI_HDR_LEN, len))
		return NULL;
	return t;
}

static void acpi_walk_root(const struct fw_window *w, struct fw_platform *out,
                           const uint8_t *t, uint32_t len)
{
	const struct fw_walk walk = { &out->problems, out->acpi.root_is_xsdt ? FW_TABLE_XSDT : FW_TABLE_RSDT,
	                              out->acpi.root_addr };
	uint32_t esize = out->acpi.root_is_xsdt ? ACPI_XSDT_ENTRY_LEN : ACPI_RSDT_ENTRY_LEN;
	uint32_t i, n = (len - ACPI_HDR_LEN) / esize;

	if ((len - ACPI_HDR_LEN) % esize)
		fw_report(&walk, ACPI_HDR_LENGTH, FW_PROBLEM_BAD_LENGTH, len,
		          "length not a whole number of entries; partial entry ignored");
	if (n > ACPI_ROOT_MAX_ENTRIES) {
		fw_report(&walk, ACPI_HDR_LENGTH, FW_PROBLEM_BAD_COUNT, n,
		          "absurd number of entries; only the first 256 read");
		n = ACPI_ROOT_MAX_ENTRIES;
	}
	for (i = 0; i < n; i++) {
		uint32_t off = ACPI_HDR_LEN + i * esize;
		uint64_t phys = esize == ACPI_XSDT_ENTRY_LEN ? fw_le64(t + off) : fw_le32(t + off);

		if (phys == 0 || phys > UINT32_MAX) {
			fw_report(&walk, off, phys ? FW_PROBLEM_ABOVE_4G : FW_PROBLEM_BAD_ENTRY, phys,
			          "entry is 0 or above 4 GiB; skipped");
			continue;
		}
		acpi_parse_listed(w, out, &walk, off, (uint32_t)phys);
	}
}

int acpi_parse_from_rsdp(const struct fw_window *w, const void *rsdp, uint32_t len,
                         uint32_t rsdp_phys, struct fw_platform *out)
{
	const struct fw_walk walk = { &out->problems, FW_TABLE_RSDP, rsdp_phys };
	const uint8_t *r = rsdp, *root = NULL;
	uint32_t root_len = 0;
	bool v2;

	if (rsdp_check(&walk, r, len))
		return -EINVAL;
	out->source = FW_SOURCE_ACPI;
	out->acpi.rsdp_addr = rsdp_phys;
	out->acpi.rsdp_revision = r[RSDP_REVISION];
	fw_copy_id(out->acpi.oem_id, r + RSDP_OEM_ID, RSDP_OEM_ID_LEN);
	v2 = r[RSDP_REVISION] >= RSDP_FIRST_XSDT_REVISION;
	if (v2 && fw_le64(r + RSDP_XSDT_ADDR) > UINT32_MAX) {
		fw_report(&walk, RSDP_XSDT_ADDR, FW_PROBLEM_ABOVE_4G, fw_le64(r + RSDP_XSDT_ADDR),
		          "XSDT above 4 GiB; using the RSDT");
	} else if (v2 && fw_le64(r + RSDP_XSDT_ADDR) != 0) {
		out->acpi.root_addr = fw_le32(r + RSDP_XSDT_ADDR);
		out->acpi.root_is_xsdt = true;
		root = acpi_map_root(w, out, out->acpi.root_addr, true, &root_len);
	}
	if (!root && fw_le32(r + RSDP_RSDT_ADDR) != 0) {
		out->acpi.root_addr = fw_le32(r + RSDP_RSDT_ADDR);
		out->acpi.root_is_xsdt = false;
		root = acpi_map_root(w, out, out->acpi.root_addr, false, &root_len);
	}
	if (!root) {
		fw_report(&walk, RSDP_RSDT_ADDR, FW_PROBLEM_MISSING, out->acpi.root_addr,
		          "no usable RSDT or XSDT; ACPI tables not read");
		return -EINVAL;
	}
	acpi_walk_root(w, out, root, root_len);
	return 0;
}

/* Parse from the RSDP at @phys, which rsdp_try accepted (so it is mapped and its length sane). */
static int acpi_parse_accepted(const struct fw_window *w, uint32_t phys, struct fw_platform *out)
{
	const uint8_t *r = fw_map(w, phys, RSDP_V1_LEN);

	if (r[RSDP_REVISION] >= RSDP_FIRST_XSDT_REVISION) {
		uint32_t len = fw_le32(fw_map(w, phys, RSDP_V2_LEN) + RSDP_LENGTH);

		return acpi_parse_from_rsdp(w, fw_map(w, phys, len), len, phys, out);
	}
	return acpi_parse_from_rsdp(w, r, RSDP_V1_LEN, phys, out);
}

int acpi_parse(const struct fw_window *w, struct fw_platform *out)
{
	struct rsdp_search s = { w, &out->problems };
	uint32_t ebda, phys = 0;

	fw_platform_init(out, FW_SOURCE_NONE);
	ebda = fw_bios_ebda(w, &out->problems);
	if (ebda)
		phys = fw_scan(w, ebda, ACPI_EBDA_SEARCH_LEN, "RSD PTR ", rsdp_try, &s);
	if (!phys)
		phys = fw_scan(w, ACPI_ROM_SEARCH_BASE, ACPI_ROM_SEARCH_LEN, "RSD PTR ", rsdp_try, &s);
	if (!phys)
		return -ENOENT;
	return acpi_parse_accepted(w, phys, out);
}

int acpi_parse_at(const struct fw_window *w, uint32_t rsdp_phys, struct fw_platform *out)
{
	struct rsdp_search s = { w, &out->problems };

	fw_platform_init(out, FW_SOURCE_NONE);
	/* The same checks as a scan's candidate: signature, window, checksums, length. */
	if (!fw_map(w, rsdp_phys, 8) || !fw_signature_is(fw_map(w, rsdp_phys, 8), "RSD PTR ")) {
		const struct fw_walk walk = { &out->problems, FW_TABLE_RSDP, rsdp_phys };

		fw_report(&walk, 0, FW_PROBLEM_BAD_SIGNATURE, rsdp_phys,
		          "no \"RSD PTR \" where the pointer leads, or outside the allowed memory; skipped");
		return -ENOENT;
	}
	if (!rsdp_try(&s, rsdp_phys))
		return -ENOENT;
	return acpi_parse_accepted(w, rsdp_phys, out);
}
