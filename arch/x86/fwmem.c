/*
 * fwmem.c - the memory window the firmware-table parsers read through, and
 * what they share: checksums, the problem list, fixed-list slots, INTI flag
 * decoding and the boot-log lines of a parsed description.
 *
 * The window is a short list of physical ranges, each with a pointer to its
 * bytes. fw_map() hands out a pointer only when the whole requested range
 * lies inside one of them, so a table pointer or length read from firmware
 * can never make a parser read memory the caller did not allow. In the
 * kernel the ranges are identity-mapped; in host tests they are dumps.
 *
 * See firmware.h for the data and the specifications; acpi.c, mptable.c and
 * pirtable.c are the parsers.
 */
#include <firmware.h>

#include <kernel/errno.h>
#include <kernel/string.h>

/* Legacy BIOS areas the table searches read (PC AT memory map). */
enum fw_legacy_area {
	FW_BDA_BASE = FW_BDA_PHYS,    /* BIOS data area */
	FW_BASE_MEM_TOP_BASE = 0x80000, /* EBDA and last KiB of base memory lie in 512-640 KiB */
	FW_BASE_MEM_TOP_SIZE = 0x20000,
	FW_BIOS_ROM_BASE = 0xE0000,   /* ACPI RSDP, MP floating pointer, $PIR */
	FW_BIOS_ROM_SIZE = 0x20000,
	FW_BDA_EBDA_SEGMENT = 0x40E,  /* word: real-mode segment of the EBDA */
	FW_BDA_BASE_MEM_KIB = 0x413,  /* word: KiB of base memory below the EBDA */
	FW_BASE_MEM_END = 0xA0000,    /* video memory starts here: base memory ends */
	FW_KIB = 1024,
	FW_DEFAULT_BASE_MEM_TOP = FW_BASE_MEM_END - FW_KIB, /* last KiB of 640 KiB */
	FW_SEGMENT_SHIFT = 4,         /* real-mode segment to physical address */
};

void fw_window_init(struct fw_window *w)
{
	memset(w, 0, sizeof(*w));
}

int fw_window_add(struct fw_window *w, uint32_t phys, uint32_t len, const void *data)
{
	if (len == 0 || data == NULL || len - 1 > UINT32_MAX - phys)
		return -EINVAL;
	if (w->count >= FW_WINDOW_MAX_REGIONS)
		return -ENOSPC;
	w->region[w->count].phys = phys;
	w->region[w->count].len = len;
	w->region[w->count].data = data;
	w->count++;
	return 0;
}

int fw_window_add_identity(struct fw_window *w, uint32_t phys, uint32_t len)
{
	/* Physical address 0 is a valid place (real-mode IVT) but not a valid
	 * pointer to hand around as NULL: no table starts there, refuse it. */
	if (phys == 0)
		return -EINVAL;
	return fw_window_add(w, phys, len, (const void *)(uintptr_t)phys);
}

int fw_window_add_legacy_bios(struct fw_window *w, const void *bda_copy)
{
	int err = bda_copy ? fw_window_add(w, FW_BDA_BASE, FW_BDA_SIZE, bda_copy) : 0;

	if (!err)
		err = fw_window_add_identity(w, FW_BASE_MEM_TOP_BASE, FW_BASE_MEM_TOP_SIZE);
	if (!err)
		err = fw_window_add_identity(w, FW_BIOS_ROM_BASE, FW_BIOS_ROM_SIZE);
	return err;
}

const void *fw_map(const struct fw_window *w, uint32_t phys, uint32_t len)
{
	uint32_t i, n = w->count < FW_WINDOW_MAX_REGIONS ? w->count : FW_WINDOW_MAX_REGIONS;

	if (len == 0)
		return NULL;
	for (i = 0; i < n; i++) {
		const struct fw_region *r = &w->region[i];

		/* Written as differences so that nothing can wrap around. */
		if (phys < r->phys || len > r->len || phys - r->phys > r->len - len)
			continue;
		return (const uint8_t *)r->data + (phys - r->phys);
	}
	return NULL;
}

/* ------------------------------------------------------------------------
 * Helpers for the parsers
 */

uint8_t fw_checksum(const void *p, uint32_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;
	uint32_t i;

	for (i = 0; i < len; i++)
		sum = (uint8_t)(sum + b[i]);
	return sum;
}

bool fw_signature_is(const void *p, const char *sig)
{
	return memcmp(p, sig, strlen(sig)) == 0;
}

void fw_copy_id(char *dst, const uint8_t *src, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		dst[i] = (src[i] >= ' ' && src[i] <= '~') ? (char)src[i] : '?';
	while (len > 0 && (dst[len - 1] == ' ' || src[len - 1] == 0))
		len--;
	dst[len] = '\0';
}

void fw_report(const struct fw_walk *walk, uint32_t offset, enum fw_problem_kind kind,
               uint64_t value, const char *what)
{
	struct fw_problems *probs = walk->problems;

	if (probs->count < FW_MAX_PROBLEMS) {
		struct fw_problem *p = &probs->list[probs->count];

		p->table = walk->table;
		p->kind = (uint8_t)kind;
		p->addr = walk->addr;
		p->offset = offset;
		p->value = value;
		p->what = what;
	}
	if (probs->count < UINT32_MAX)
		probs->count++;
}

void fw_problems_set_addr(struct fw_problems *probs, uint32_t first, uint32_t phys)
{
	uint32_t i;

	for (i = first; i < probs->count && i < FW_MAX_PROBLEMS; i++)
		if (probs->list[i].addr == 0)
			probs->list[i].addr = phys;
}

void *fw_list_slot(const struct fw_walk *walk, uint32_t offset, uint32_t *count, bool *truncated,
                   void *entries, size_t size, uint32_t limit, const char *what)
{
	uint8_t *slot;

	if (*count >= limit) {
		if (!*truncated)
			fw_report(walk, offset, FW_PROBLEM_TOO_MANY, limit, what);
		*truncated = true;
		return NULL;
	}
	slot = (uint8_t *)entries + (size_t)*count * size;
	memset(slot, 0, size);
	(*count)++;
	return slot;
}

/* MPS INTI flags (ACPI 6.5 table 5.50; MP 1.4 table 4-10): same encoding. */
enum fw_inti_flags {
	FW_INTI_POLARITY_MASK = 0x3,   /* bits 1:0 */
	FW_INTI_TRIGGER_SHIFT = 2,     /* bits 3:2 */
	FW_INTI_TRIGGER_MASK = 0x3,
	FW_INTI_RESERVED_CODE = 2,     /* "10" is reserved in both fields */
};

void fw_flags_decode(const struct fw_walk *walk, uint32_t offset, uint16_t flags,
                     uint8_t *polarity, uint8_t *trigger)
{
	uint8_t pol = flags & FW_INTI_POLARITY_MASK;
	uint8_t trig = (flags >> FW_INTI_TRIGGER_SHIFT) & FW_INTI_TRIGGER_MASK;

	if (pol == FW_INTI_RESERVED_CODE || trig == FW_INTI_RESERVED_CODE) {
		fw_report(walk, offset, FW_PROBLEM_BAD_FLAGS, flags,
		          "reserved polarity/trigger encoding; treated as conforming to the bus");
		if (pol == FW_INTI_RESERVED_CODE)
			pol = FW_POLARITY_CONFORMS;
		if (trig == FW_INTI_RESERVED_CODE)
			trig = FW_TRIGGER_CONFORMS;
	}
	*polarity = pol;
	*trigger = trig;
}

uint32_t fw_scan(const struct fw_window *w, uint32_t start, uint32_t len, const char *sig,
                 bool (*try_at)(void *ctx, uint32_t phys), void *ctx)
{
	uint32_t sig_len = (uint32_t)strlen(sig);
	uint32_t off;

	/* Candidates step by a paragraph; the bound keeps start + off in range. */
	for (off = 0; off < len && off <= UINT32_MAX - start; off += FW_PARAGRAPH) {
		const void *p = fw_map(w, start + off, sig_len);

		if (p && fw_signature_is(p, sig) && try_at(ctx, start + off))
			return start + off;
		if (len - off < FW_PARAGRAPH)
			break;
	}
	return 0;
}

uint32_t fw_bios_ebda(const struct fw_window *w, struct fw_problems *problems)
{
	const struct fw_walk walk = { problems, FW_TABLE_BDA, FW_BDA_BASE };
	const uint8_t *word = fw_map(w, FW_BDA_EBDA_SEGMENT, 2);
	uint32_t ebda;

	if (!word) {
		fw_report(&walk, FW_BDA_EBDA_SEGMENT - FW_BDA_BASE, FW_PROBLEM_NOT_IN_WINDOW, 0,
		          "EBDA pointer not readable; EBDA not searched");
		return 0;
	}
	ebda = (uint32_t)fw_le16(word) << FW_SEGMENT_SHIFT;
	if (ebda == 0)
		return 0;
	if (ebda < FW_BDA_BASE + FW_BDA_SIZE || ebda > FW_BASE_MEM_END - FW_KIB) {
		fw_report(&walk, FW_BDA_EBDA_SEGMENT - FW_BDA_BASE, FW_PROBLEM_BAD_ENTRY, ebda,
		          "EBDA pointer outside base memory; EBDA not searched");
		return 0;
	}
	return ebda;
}

uint32_t fw_bios_base_mem_top(const struct fw_window *w, struct fw_problems *problems)
{
	const struct fw_walk walk = { problems, FW_TABLE_BDA, FW_BDA_BASE };
	const uint8_t *word = fw_map(w, FW_BDA_BASE_MEM_KIB, 2);
	uint32_t kib;

	if (!word) {
		fw_report(&walk, FW_BDA_BASE_MEM_KIB - FW_BDA_BASE, FW_PROBLEM_NOT_IN_WINDOW, 0,
		          "base memory size not readable; assuming 640 KiB");
		return FW_DEFAULT_BASE_MEM_TOP;
	}
	kib = fw_le16(word);
	if (kib < 1 || kib > FW_BASE_MEM_END / FW_KIB) {
		fw_report(&walk, FW_BDA_BASE_MEM_KIB - FW_BDA_BASE, FW_PROBLEM_BAD_ENTRY, kib,
		          "absurd base memory size; assuming 640 KiB");
		return FW_DEFAULT_BASE_MEM_TOP;
	}
	return kib * FW_KIB - FW_KIB;
}

void fw_platform_init(struct fw_platform *out, enum fw_source source)
{
	memset(out, 0, sizeof(*out));
	out->source = (uint8_t)source;
}

/* ------------------------------------------------------------------------
 * Names
 */

static const char *const fw_table_names[FW_TABLE_COUNT] = {
	[FW_TABLE_BDA] = "BIOS data area",
	[FW_TABLE_RSDP] = "RSDP",
	[FW_TABLE_RSDT] = "RSDT",
	[FW_TABLE_XSDT] = "XSDT",
	[FW_TABLE_MADT] = "MADT",
	[FW_TABLE_HPET] = "HPET table",
	[FW_TABLE_FADT] = "FADT",
	[FW_TABLE_ACPI_OTHER] = "ACPI table",
	[FW_TABLE_MP_FLOATING] = "MP floating pointer",
	[FW_TABLE_MP_CONFIG] = "MP config table",
	[FW_TABLE_MP_EXTENDED] = "MP extended table",
	[FW_TABLE_PIR] = "$PIR table",
	[FW_TABLE_EFI_SYSTAB] = "EFI system table",
	[FW_TABLE_EFI_CONFIG] = "EFI configuration table",
};

const char *fw_table_name(enum fw_table table)
{
	if ((unsigned int)table >= FW_TABLE_COUNT)
		return "firmware table";
	return fw_table_names[table];
}

const char *fw_polarity_name(uint8_t polarity)
{
	switch (polarity) {
	case FW_POLARITY_HIGH: return "high";
	case FW_POLARITY_LOW: return "low";
	default: return "conforming";
	}
}

const char *fw_trigger_name(uint8_t trigger)
{
	switch (trigger) {
	case FW_TRIGGER_EDGE: return "edge";
	case FW_TRIGGER_LEVEL: return "level";
	default: return "conforming";
	}
}

const char *fw_int_kind_name(uint8_t kind)
{
	switch (kind) {
	case FW_INT_VECTORED: return "INT";
	case FW_INT_NMI: return "NMI";
	case FW_INT_SMI: return "SMI";
	case FW_INT_EXTINT: return "ExtINT";
	default: return "?";
	}
}

/* ------------------------------------------------------------------------
 * Line building: a bounded buffer and three appenders, enough for the log
 * lines below without a printf (which the host tests would have to link).
 */

struct fw_line {
	char text[FW_LINE_MAX];
	uint32_t len;
};

/* How numbers look in the log lines. */
enum fw_line_format {
	HEX_ADDR_DIGITS = 8,        /* physical addresses: 0x000f5c80 */
	HEX_ID_DIGITS = 4,          /* PCI vendor/device IDs, IRQ bitmaps */
	HEX_BYTE_DIGITS = 2,        /* link values, versions */
	PCI_DEVFN_DEVICE_SHIFT = 3, /* devfn = device << 3 | function */
	PCI_DEVFN_FUNCTION_MASK = 7,
};

static void line_str(struct fw_line *l, const char *s)
{
	while (*s && l->len < FW_LINE_MAX - 1)
		l->text[l->len++] = *s++;
	l->text[l->len] = '\0';
}

/* Hex digits of @v after "0x", at least @digits of them. */
static void line_hex(struct fw_line *l, uint64_t v, unsigned int digits)
{
	static const char hex[] = "0123456789abcdef";
	enum { MAX_HEX_DIGITS = 16 };
	char buf[MAX_HEX_DIGITS + 1];
	unsigned int n = 0;

	do {
		buf[MAX_HEX_DIGITS - 1 - n] = hex[v & 0xF];
		v >>= 4;
		n++;
	} while ((v != 0 || n < digits) && n < MAX_HEX_DIGITS);
	buf[MAX_HEX_DIGITS] = '\0';
	line_str(l, "0x");
	line_str(l, &buf[MAX_HEX_DIGITS - n]);
}

static void line_dec(struct fw_line *l, uint32_t v)
{
	enum { MAX_DEC_DIGITS = 10 };
	char buf[MAX_DEC_DIGITS + 1];
	unsigned int n = 0;

	do {
		buf[MAX_DEC_DIGITS - 1 - n] = (char)('0' + v % 10);
		v /= 10;
		n++;
	} while (v != 0 && n < MAX_DEC_DIGITS);
	buf[MAX_DEC_DIGITS] = '\0';
	line_str(l, &buf[MAX_DEC_DIGITS - n]);
}

/* Two hex digits without prefix, for bus:device notation. */
static void line_hex2(struct fw_line *l, uint8_t v)
{
	static const char hex[] = "0123456789abcdef";
	char buf[3] = { hex[v >> 4], hex[v & 0xF], '\0' };

	line_str(l, buf);
}

static void line_reset(struct fw_line *l, const char *prefix)
{
	l->len = 0;
	l->text[0] = '\0';
	line_str(l, prefix);
}

static void line_problem(struct fw_line *l, const struct fw_problem *p)
{
	line_str(l, fw_table_name((enum fw_table)p->table));
	line_str(l, " at ");
	line_hex(l, p->addr, HEX_ADDR_DIGITS);
	if (p->offset) {
		line_str(l, " +");
		line_dec(l, p->offset);
	}
	line_str(l, ": ");
	line_str(l, p->what ? p->what : "problem");
	line_str(l, " (value ");
	line_hex(l, p->value, 1);
	line_str(l, ")");
}

char *fw_problem_format(const struct fw_problem *p, char *buf, size_t size)
{
	struct fw_line l;

	if (size == 0)
		return buf;
	line_reset(&l, "");
	line_problem(&l, p);
	if (l.len >= size)
		l.len = (uint32_t)size - 1;
	memcpy(buf, l.text, l.len);
	buf[l.len] = '\0';
	return buf;
}

typedef void (*fw_print_fn)(void *ctx, const char *line);

static void print_problems(const struct fw_problems *probs, const char *prefix,
                           fw_print_fn print, void *ctx)
{
	struct fw_line l;
	uint32_t i, kept = probs->count < FW_MAX_PROBLEMS ? probs->count : FW_MAX_PROBLEMS;

	for (i = 0; i < kept; i++) {
		line_reset(&l, prefix);
		line_str(&l, "problem: ");
		line_problem(&l, &probs->list[i]);
		print(ctx, l.text);
	}
	if (probs->count > kept) {
		line_reset(&l, prefix);
		line_dec(&l, probs->count - kept);
		line_str(&l, " more problems not kept");
		print(ctx, l.text);
	}
}

static void line_flags(struct fw_line *l, uint8_t polarity, uint8_t trigger)
{
	line_str(l, "polarity ");
	line_str(l, fw_polarity_name(polarity));
	line_str(l, ", trigger ");
	line_str(l, fw_trigger_name(trigger));
}

/* ------------------------------------------------------------------------
 * Boot-log lines of a fw_platform
 */

static void print_acpi_tables(const struct fw_platform *p, fw_print_fn print, void *ctx)
{
	const struct fw_acpi_info *a = &p->acpi;
	struct fw_line l;
	uint32_t i;

	if (a->rsdp_addr) {
		line_reset(&l, "ACPI: RSDP at ");
		line_hex(&l, a->rsdp_addr, HEX_ADDR_DIGITS);
	} else {
		line_reset(&l, "ACPI: RSDP (the loader's copy)");
	}
	line_str(&l, " rev ");
	line_dec(&l, a->rsdp_revision);
	line_str(&l, " (");
	line_str(&l, a->oem_id);
	line_str(&l, "), ");
	line_str(&l, a->root_is_xsdt ? "XSDT" : "RSDT");
	line_str(&l, " at ");
	line_hex(&l, a->root_addr, HEX_ADDR_DIGITS);
	print(ctx, l.text);
	for (i = 0; i < a->tables.count; i++) {
		const struct fw_acpi_table *t = &a->tables.entry[i];

		line_reset(&l, "ACPI: ");
		line_str(&l, t->signature);
		line_str(&l, " at ");
		line_hex(&l, t->addr, HEX_ADDR_DIGITS);
		line_str(&l, ", ");
		line_dec(&l, t->length);
		line_str(&l, " bytes, rev ");
		line_dec(&l, t->revision);
		if (!t->valid)
			line_str(&l, ", INVALID (skipped)");
		print(ctx, l.text);
	}
}

static void print_mp_header(const struct fw_platform *p, fw_print_fn print, void *ctx)
{
	const struct fw_mp_info *m = &p->mp;
	struct fw_line l;

	line_reset(&l, "MP: floating pointer at ");
	line_hex(&l, m->floating_addr, HEX_ADDR_DIGITS);
	line_str(&l, ", spec 1.");
	line_dec(&l, m->spec_rev);
	if (m->default_config) {
		line_str(&l, ", default configuration ");
		line_dec(&l, m->default_config);
	} else {
		line_str(&l, ", config table at ");
		line_hex(&l, m->config_addr, HEX_ADDR_DIGITS);
		line_str(&l, " (");
		line_str(&l, m->oem_id);
		line_str(&l, " ");
		line_str(&l, m->product_id);
		line_str(&l, ")");
	}
	line_str(&l, m->imcr_present ? ", IMCR present" : ", no IMCR");
	print(ctx, l.text);
}

static void print_cpus_and_ioapics(const struct fw_platform *p, const char *tag,
                                   fw_print_fn print, void *ctx)
{
	struct fw_line l;
	uint32_t i;

	line_reset(&l, tag);
	line_str(&l, "local APIC at ");
	line_hex(&l, p->lapic_address, HEX_ADDR_DIGITS);
	if (p->source == FW_SOURCE_ACPI)
		line_str(&l, p->pcat_compat ? ", dual 8259 present" : ", no 8259");
	print(ctx, l.text);
	for (i = 0; i < p->cpus.count; i++) {
		const struct fw_cpu *c = &p->cpus.entry[i];

		line_reset(&l, tag);
		line_str(&l, "CPU ");
		line_dec(&l, i);
		line_str(&l, c->x2apic ? ": x2APIC ID " : ": APIC ID ");
		line_dec(&l, c->apic_id);
		if (p->source == FW_SOURCE_ACPI) {
			line_str(&l, ", UID ");
			line_dec(&l, c->acpi_uid);
		}
		line_str(&l, c->enabled ? ", enabled" : (c->online_capable ? ", online-capable" : ", disabled"));
		if (c->bsp)
			line_str(&l, ", BSP");
		print(ctx, l.text);
	}
	for (i = 0; i < p->ioapics.count; i++) {
		const struct fw_ioapic *io = &p->ioapics.entry[i];

		line_reset(&l, tag);
		line_str(&l, "IOAPIC ID ");
		line_dec(&l, io->id);
		line_str(&l, " at ");
		line_hex(&l, io->address, HEX_ADDR_DIGITS);
		if (io->gsi_base != FW_GSI_BASE_UNKNOWN) {
			line_str(&l, ", GSI base ");
			line_dec(&l, io->gsi_base);
		}
		if (p->source == FW_SOURCE_MP) {
			line_str(&l, ", version ");
			line_hex(&l, io->version, HEX_BYTE_DIGITS);
		}
		if (!io->enabled)
			line_str(&l, ", DISABLED");
		print(ctx, l.text);
	}
}

static void print_acpi_interrupts(const struct fw_platform *p, fw_print_fn print, void *ctx)
{
	struct fw_line l;
	uint32_t i;

	for (i = 0; i < p->overrides.count; i++) {
		const struct fw_isa_override *o = &p->overrides.entry[i];

		line_reset(&l, "ACPI: ISA IRQ ");
		line_dec(&l, o->isa_irq);
		line_str(&l, " -> GSI ");
		line_dec(&l, o->gsi);
		line_str(&l, ", ");
		line_flags(&l, o->polarity, o->trigger);
		print(ctx, l.text);
	}
	for (i = 0; i < p->nmi_sources.count; i++) {
		const struct fw_nmi_source *n = &p->nmi_sources.entry[i];

		line_reset(&l, "ACPI: NMI source GSI ");
		line_dec(&l, n->gsi);
		line_str(&l, ", ");
		line_flags(&l, n->polarity, n->trigger);
		print(ctx, l.text);
	}
}

static void print_lints(const struct fw_platform *p, const char *tag, fw_print_fn print, void *ctx)
{
	struct fw_line l;
	uint32_t i;

	for (i = 0; i < p->lints.count; i++) {
		const struct fw_lint *li = &p->lints.entry[i];

		line_reset(&l, tag);
		line_str(&l, "LINT");
		line_dec(&l, li->lint);
		if (li->all_cpus) {
			line_str(&l, " of all CPUs");
		} else {
			line_str(&l, li->cpu_is_uid ? " of CPU UID " : " of APIC ID ");
			line_dec(&l, li->cpu);
		}
		line_str(&l, ": ");
		line_str(&l, fw_int_kind_name(li->kind));
		line_str(&l, ", ");
		line_flags(&l, li->polarity, li->trigger);
		print(ctx, l.text);
	}
}

static void print_hpet(const struct fw_hpet *h, fw_print_fn print, void *ctx)
{
	struct fw_line l;

	if (!h->present)
		return;
	line_reset(&l, "ACPI: HPET ");
	line_dec(&l, h->number);
	line_str(&l, " at ");
	line_hex(&l, h->address, HEX_ADDR_DIGITS);
	line_str(&l, ": ");
	line_dec(&l, h->comparators);
	line_str(&l, " comparators, ");
	line_str(&l, h->counter_64bit ? "64-bit" : "32-bit");
	line_str(&l, h->legacy_capable ? ", legacy routing capable" : "");
	line_str(&l, ", vendor ");
	line_hex(&l, h->pci_vendor, HEX_ID_DIGITS);
	line_str(&l, ", minimum tick ");
	line_dec(&l, h->min_tick);
	print(ctx, l.text);
}

static void print_mp_irq(const struct fw_mp_irq *irq, bool pci, fw_print_fn print, void *ctx)
{
	struct fw_line l;

	if (pci) {
		line_reset(&l, "MP: PCI ");
		line_hex2(&l, irq->bus);
		line_str(&l, ":");
		line_hex2(&l, irq->pci_device);
		line_str(&l, " INT");
		line_str(&l, (const char[]){ (char)('A' + irq->pci_pin), '\0' });
	} else {
		line_reset(&l, "MP: bus ");
		line_dec(&l, irq->bus);
		line_str(&l, " IRQ ");
		line_dec(&l, irq->bus_irq);
	}
	line_str(&l, " -> IOAPIC ");
	if (irq->ioapic_id == FW_MP_ALL_APICS)
		line_str(&l, "(all)");
	else
		line_dec(&l, irq->ioapic_id);
	line_str(&l, " pin ");
	line_dec(&l, irq->ioapic_pin);
	line_str(&l, ", ");
	line_str(&l, fw_int_kind_name(irq->kind));
	line_str(&l, ", ");
	line_flags(&l, irq->polarity, irq->trigger);
	print(ctx, l.text);
}

static void print_mp_routing(const struct fw_platform *p, fw_print_fn print, void *ctx)
{
	struct fw_line l;
	uint32_t i;

	for (i = 0; i < p->buses.count; i++) {
		line_reset(&l, "MP: bus ");
		line_dec(&l, p->buses.entry[i].id);
		line_str(&l, " ");
		line_str(&l, p->buses.entry[i].name);
		print(ctx, l.text);
	}
	for (i = 0; i < p->bus_irqs.count; i++)
		print_mp_irq(&p->bus_irqs.entry[i], false, print, ctx);
	for (i = 0; i < p->pci_irqs.count; i++)
		print_mp_irq(&p->pci_irqs.entry[i], true, print, ctx);
}

void fw_platform_print(const struct fw_platform *p, fw_print_fn print, void *ctx)
{
	const char *tag = p->source == FW_SOURCE_MP ? "MP: " :
	                  p->source == FW_SOURCE_ACPI ? "ACPI: " : "firmware: ";

	if (p->source == FW_SOURCE_ACPI)
		print_acpi_tables(p, print, ctx);
	else if (p->source == FW_SOURCE_MP)
		print_mp_header(p, print, ctx);
	else
		print(ctx, "firmware: no tables parsed");
	if (p->source != FW_SOURCE_NONE && (p->cpus.count || p->ioapics.count))
		print_cpus_and_ioapics(p, tag, print, ctx);
	print_acpi_interrupts(p, print, ctx);
	print_lints(p, tag, print, ctx);
	print_hpet(&p->hpet, print, ctx);
	print_mp_routing(p, print, ctx);
	print_problems(&p->problems, tag, print, ctx);
}

void fw_pir_print(const struct fw_pir *pir, fw_print_fn print, void *ctx)
{
	struct fw_line l;
	uint32_t i, pin;

	if (pir->present) {
		line_reset(&l, "$PIR: at ");
		line_hex(&l, pir->addr, HEX_ADDR_DIGITS);
		line_str(&l, ", router ");
		line_hex2(&l, pir->router_bus);
		line_str(&l, ":");
		line_hex2(&l, pir->router_devfn >> PCI_DEVFN_DEVICE_SHIFT);
		line_str(&l, ".");
		line_dec(&l, pir->router_devfn & PCI_DEVFN_FUNCTION_MASK);
		line_str(&l, " compatible with ");
		line_hex(&l, pir->compat_vendor, HEX_ID_DIGITS);
		line_str(&l, ":");
		line_hex(&l, pir->compat_device, HEX_ID_DIGITS);
		line_str(&l, ", exclusive IRQs ");
		line_hex(&l, pir->exclusive_irqs, HEX_ID_DIGITS);
		line_str(&l, ", ");
		line_dec(&l, pir->slots.count);
		line_str(&l, " slots");
		print(ctx, l.text);
	}
	for (i = 0; i < pir->slots.count; i++) {
		const struct fw_pir_slot *s = &pir->slots.entry[i];

		line_reset(&l, "$PIR: ");
		line_hex2(&l, s->bus);
		line_str(&l, ":");
		line_hex2(&l, s->devfn >> PCI_DEVFN_DEVICE_SHIFT);
		line_str(&l, " slot ");
		line_dec(&l, s->slot);
		for (pin = 0; pin < FW_ARRAY_SIZE(s->pin); pin++) {
			line_str(&l, (const char[]){ ' ', 'I', 'N', 'T', (char)('A' + pin), ' ', '\0' });
			line_hex(&l, s->pin[pin].link, HEX_BYTE_DIGITS);
			line_str(&l, "/");
			line_hex(&l, s->pin[pin].irq_bitmap, HEX_ID_DIGITS);
		}
		print(ctx, l.text);
	}
	print_problems(&pir->problems, "$PIR: ", print, ctx);
}
