/*
 * pci_route.c - which interrupt line each PCI function's INTx pin drives.
 * Sources, in order (docs/pci.md tells the whole story):
 *
 *  1. The MP table's PCI interrupt entries (MultiProcessor Specification
 *     1.4 section 4.3.4, appendix D.3: source bus IRQ = device << 2 | pin):
 *     (bus, device, pin) -> IOAPIC ID + INTIN#. IOAPIC mode only: in PIC
 *     mode those pins mean nothing.
 *  2. The $PIR table (PCI IRQ Routing Table Specification 1.0) with the
 *     chipset's PIRQ router: (bus, device, pin) -> link -> route register
 *     -> ISA IRQ. Used only when the function $PIR names as the router has
 *     the vendor/device ID of a router we know (pirq_router.c).
 *  3. The Interrupt Line register firmware wrote (an ISA IRQ on PCs).
 *
 * A device behind a PCI-PCI bridge whose bus the table does not describe
 * is looked up as its bridge: pin' = (pin - 1 + device) % 4 + 1 (PCI-to-PCI
 * Bridge Architecture Specification 1.2, table 9-1), up to a bus the table
 * has entries for. ISA IRQs become GSIs in IOAPIC mode through the ACPI
 * interrupt source overrides or the MP table's ISA entries (identity when
 * none is listed).
 *
 * pci_route_compute() is pure - it reads only its inputs - so the decisions
 * are tested on the host with captured firmware tables. pci_route_all()
 * feeds it the real table, $PIR and router registers.
 */
#include <stdarg.h>
#include <stddef.h>

#include <firmware.h>
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#include "pci_internal.h"

enum route_limits {
	ROUTE_LINE_MAX = 320,        /* one log line */
	ROUTE_REFUSAL_MAX = 128,     /* why the $PIR router cannot be trusted */
	PCI_PINS = 4,                /* INTA-D */
	ISA_IRQS = 16,               /* ISA IRQ 0-15 */
	PCI_LINE_UNKNOWN = 0xFF,     /* Interrupt Line "unknown / no connection" (PCI 3.0 6.2.4) */
};

/* Everything one run of pci_route_compute needs besides the device being routed. */
struct route_run {
	const struct pci_route_inputs *in;
	struct pci_dev *devs;
	unsigned int count;
	const struct pirq_router_type *pir_router;  /* non-NULL: $PIR usable */
	char pir_refusal[ROUTE_REFUSAL_MAX];        /* else why not, for the one verdict line */
	char pir_short[ROUTE_REFUSAL_MAX];          /* ... and in short, for each pin's reasons */
};

/* ------------------------------------------------------------------------
 * Small helpers
 */

static void emit(const struct route_run *run, bool warning, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void emit(const struct route_run *run, bool warning, const char *fmt, ...)
{
	char line[ROUTE_LINE_MAX];
	va_list ap;

	if (!run->in->print)
		return;
	va_start(ap, fmt);
	kvsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	run->in->print(run->in->print_ctx, warning, line);
}

/* Append "; <reason>" to r->why, truncating at its size. */
static void why_add(struct pci_route *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void why_add(struct pci_route *r, const char *fmt, ...)
{
	size_t used = strnlen(r->why, sizeof(r->why));
	va_list ap;

	if (used && used + 2 < sizeof(r->why)) {
		r->why[used++] = ';';
		r->why[used++] = ' ';
		r->why[used] = '\0';
	}
	if (used + 1 >= sizeof(r->why))
		return;
	va_start(ap, fmt);
	kvsnprintf(r->why + used, sizeof(r->why) - used, fmt, ap);
	va_end(ap);
}

static uint8_t swizzle(uint8_t pin, uint8_t dev)
{
	return (uint8_t)((pin - 1 + dev) % PCI_PINS + 1);
}

static bool uses(const struct route_run *run, uint8_t source)
{
	return run->in->choice == PCI_ROUTE_AUTO || run->in->choice == source;
}

/* ------------------------------------------------------------------------
 * IOAPIC pins and ISA IRQs to GSIs
 */

static int ioapic_gsi(const struct route_run *run, uint8_t id, uint8_t pin, uint32_t *gsi,
		      struct pci_route *r, const char *who)
{
	const struct fw_platform *fw = run->in->fw;
	uint32_t i;

	for (i = 0; i < fw->ioapics.count && i < FW_MAX_IOAPICS; i++)
		if (fw->ioapics.entry[i].id == id || id == FW_MP_ALL_APICS)
			break;
	if (i >= fw->ioapics.count || i >= FW_MAX_IOAPICS) {
		why_add(r, "%s: IOAPIC %u is not in the table", who, id);
		return -ENOENT;
	}
	if (!fw->ioapics.entry[i].enabled) {
		why_add(r, "%s: IOAPIC %u is marked unusable", who, id);
		return -ENODEV;
	}
	if (fw->ioapics.entry[i].gsi_base != FW_GSI_BASE_UNKNOWN) {
		*gsi = fw->ioapics.entry[i].gsi_base + pin;
		return 0;
	}
	if (run->in->gsi_of && run->in->gsi_of(run->in->gsi_ctx, fw->ioapics.entry[i].id, pin, gsi) == 0)
		return 0;
	if (!run->in->gsi_of && i == 0) {
		*gsi = pin;
		return 0;
	}
	why_add(r, "%s: no GSI known for IOAPIC %u pin %u", who, id, pin);
	return -ENOENT;
}

/* Apply MPS-style flags; conforming means what a PCI interrupt via the router is: level, high. */
static void isa_flags(struct pci_route *r, uint8_t polarity, uint8_t trigger)
{
	r->level = trigger != FW_TRIGGER_EDGE;
	r->active_low = polarity == FW_POLARITY_LOW;
}

static const struct fw_mp_irq *mp_isa_entry(const struct fw_platform *fw, uint8_t irq)
{
	uint32_t i, b;

	for (i = 0; i < fw->bus_irqs.count && i < FW_MAX_MP_BUS_IRQS; i++) {
		const struct fw_mp_irq *e = &fw->bus_irqs.entry[i];

		if (e->kind != FW_INT_VECTORED || e->bus_irq != irq)
			continue;
		for (b = 0; b < fw->buses.count && b < FW_MAX_MP_BUSES; b++)
			if (fw->buses.entry[b].id == e->bus && fw->buses.entry[b].type == FW_BUS_ISA)
				return e;
	}
	return NULL;
}

/* Turn ISA IRQ @irq into r->line for the mode. RETURNS true when it has a line. */
static bool isa_to_line(const struct route_run *run, struct pci_route *r, uint8_t irq, const char *who)
{
	const struct fw_platform *fw = run->in->fw;
	uint32_t i;

	r->is_gsi = run->in->ioapic_mode;
	r->isa_irq = irq;
	r->line = irq;
	r->level = true;
	r->active_low = false;
	if (!run->in->ioapic_mode || !fw)
		return true;
	if (fw->source == FW_SOURCE_ACPI) {
		for (i = 0; i < fw->overrides.count && i < FW_MAX_ISA_OVERRIDES; i++) {
			const struct fw_isa_override *o = &fw->overrides.entry[i];

			if (o->isa_irq == irq) {
				r->line = o->gsi;
				isa_flags(r, o->polarity, o->trigger);
				break;
			}
		}
	} else if (fw->source == FW_SOURCE_MP) {
		const struct fw_mp_irq *e = mp_isa_entry(fw, irq);

		if (e) {
			if (ioapic_gsi(run, e->ioapic_id, e->ioapic_pin, &r->line, r, who) < 0)
				return false;
			isa_flags(r, e->polarity, e->trigger);
		}
	}
	return true;
}

/* ------------------------------------------------------------------------
 * Source 1: MP table
 */

static bool mp_bus_described(const struct fw_platform *fw, uint8_t bus)
{
	uint32_t i;

	for (i = 0; i < fw->pci_irqs.count && i < FW_MAX_MP_PCI_IRQS; i++)
		if (fw->pci_irqs.entry[i].bus == bus)
			return true;
	return false;
}

static const struct fw_mp_irq *mp_pci_entry(const struct fw_platform *fw, uint8_t bus, uint8_t dev,
					    uint8_t pin)
{
	uint32_t i;

	for (i = 0; i < fw->pci_irqs.count && i < FW_MAX_MP_PCI_IRQS; i++) {
		const struct fw_mp_irq *e = &fw->pci_irqs.entry[i];

		if (e->kind == FW_INT_VECTORED && e->bus == bus && e->pci_device == dev &&
		    e->pci_pin == pin - 1)
			return e;
	}
	return NULL;
}

/*
 * Walk from @d up through its bridges to a bus @described says the table
 * covers, swizzling the pin. RETURNS true with *@bus/@dev/@pin set, or
 * false (reason added) when the chain ends first.
 */
static bool climb_to_described(const struct route_run *run, const struct pci_dev *d,
			       bool (*described)(const void *table, uint8_t bus), const void *table,
			       uint8_t *bus, uint8_t *dev, uint8_t *pin, struct pci_route *r, const char *who)
{
	const struct pci_dev *cur = d;
	unsigned int depth;

	*bus = d->bus;
	*dev = d->dev;
	*pin = d->irq_pin;
	for (depth = 0; depth < PCI_BUS_COUNT; depth++) {
		if (described(table, *bus))
			return true;
		if (cur->parent < 0 || (unsigned int)cur->parent >= run->count ||
		    &run->devs[cur->parent] == cur) {
			why_add(r, "%s: no entries for bus %02x", who, *bus);
			return false;
		}
		*pin = swizzle(*pin, *dev);
		cur = &run->devs[cur->parent];
		*bus = cur->bus;
		*dev = cur->dev;
	}
	why_add(r, "%s: bridge chain longer than %u", who, (unsigned int)PCI_BUS_COUNT);
	return false;
}

static bool mp_described(const void *table, uint8_t bus)
{
	return mp_bus_described(table, bus);
}

static bool route_mptable(const struct route_run *run, const struct pci_dev *d, struct pci_route *r)
{
	const struct fw_platform *fw = run->in->fw;
	const struct fw_mp_irq *e;
	uint8_t bus, dev, pin;

	if (!run->in->ioapic_mode) {
		if (run->in->choice == PCI_ROUTE_MPTABLE)
			why_add(r, "MP table: IOAPIC pins mean nothing in PIC mode");
		return false;
	}
	if (!fw || fw->source != FW_SOURCE_MP || fw->pci_irqs.count == 0) {
		why_add(r, "MP table: no PCI entries");
		return false;
	}
	if (!climb_to_described(run, d, mp_described, fw, &bus, &dev, &pin, r, "MP table"))
		return false;
	e = mp_pci_entry(fw, bus, dev, pin);
	if (!e) {
		why_add(r, "MP table: no entry for %02x:%02x %s", bus, dev, pci_pin_name(pin));
		return false;
	}
	if (ioapic_gsi(run, e->ioapic_id, e->ioapic_pin, &r->line, r, "MP table") < 0)
		return false;
	r->is_gsi = true;
	r->ioapic_id = e->ioapic_id;
	r->ioapic_pin = e->ioapic_pin;
	/* Conforming, on a PCI bus, means level and active low (MP 1.4 table 4-10). */
	r->level = e->trigger != FW_TRIGGER_EDGE;
	r->active_low = e->polarity != FW_POLARITY_HIGH;
	r->table_bus = bus;
	r->table_dev = dev;
	r->table_pin = pin;
	return true;
}

/* ------------------------------------------------------------------------
 * Source 2: $PIR + router
 */

static bool pir_described(const void *table, uint8_t bus)
{
	const struct fw_pir *pir = table;
	uint32_t i;

	for (i = 0; i < pir->slots.count && i < FW_MAX_PIR_SLOTS; i++)
		if (pir->slots.entry[i].bus == bus)
			return true;
	return false;
}

static const struct fw_pir_slot *pir_slot(const struct fw_pir *pir, uint8_t bus, uint8_t dev)
{
	uint32_t i;

	for (i = 0; i < pir->slots.count && i < FW_MAX_PIR_SLOTS; i++)
		if (pir->slots.entry[i].bus == bus && pci_devfn_dev(pir->slots.entry[i].devfn) == dev)
			return &pir->slots.entry[i];
	return NULL;
}

static bool route_pir(const struct route_run *run, const struct pci_dev *d, struct pci_route *r)
{
	const struct fw_pir *pir = run->in->pir;
	const struct fw_pir_slot *slot;
	uint8_t bus, dev, pin, value;
	int index, irq;

	if (!run->pir_router) {
		why_add(r, "$PIR: %s", run->pir_short);
		return false;
	}
	if (!climb_to_described(run, d, pir_described, pir, &bus, &dev, &pin, r, "$PIR"))
		return false;
	slot = pir_slot(pir, bus, dev);
	if (!slot || slot->pin[pin - 1].link == 0) {
		why_add(r, "$PIR: %02x:%02x %s %s", bus, dev, pci_pin_name(pin),
			slot ? "not connected" : "not listed");
		return false;
	}
	r->link = slot->pin[pin - 1].link;
	index = pirq_link_index(run->pir_router, r->link);
	if (index < 0) {
		why_add(r, "$PIR: link 0x%02x is not a %s PIRQ", r->link, run->pir_router->name);
		return false;
	}
	value = run->in->router->value[index];
	irq = pirq_route_irq(value);
	if (irq < 0) {
		why_add(r, "$PIR: PIRQ%c %s in the %s (0x%02x)", 'A' + index,
			irq == -EPERM ? "disabled" : "routed to a reserved IRQ", run->pir_router->name, value);
		return false;
	}
	r->table_bus = bus;
	r->table_dev = dev;
	r->table_pin = pin;
	return isa_to_line(run, r, (uint8_t)irq, "$PIR");
}

/* Decide once whether the $PIR and its router can be used; say why not. */
static void refuse_pir(struct route_run *run, const struct fw_pir *pir, const char *short_why,
		       const char *detail)
{
	ksnprintf(run->pir_short, sizeof(run->pir_short), "router %02x:%02x.%u %s", pir->router_bus,
		  pci_devfn_dev(pir->router_devfn), pci_devfn_fn(pir->router_devfn), short_why);
	ksnprintf(run->pir_refusal, sizeof(run->pir_refusal), "%s%s", run->pir_short, detail);
}

/* Decide once whether the $PIR and its router can be used; say why not. */
static void check_pir_router(struct route_run *run)
{
	const struct fw_pir *pir = run->in->pir;
	const struct pirq_router_regs *regs = run->in->router;
	const struct pci_dev *found = NULL;
	char detail[ROUTE_REFUSAL_MAX];
	unsigned int i;

	run->pir_router = NULL;
	if (!pir || !pir->present) {
		ksnprintf(run->pir_short, sizeof(run->pir_short), "no table");
		ksnprintf(run->pir_refusal, sizeof(run->pir_refusal), "no table");
		return;
	}
	for (i = 0; i < run->count && !found; i++)
		if (run->devs[i].bus == pir->router_bus &&
		    pci_devfn(run->devs[i].dev, run->devs[i].fn) == pir->router_devfn)
			found = &run->devs[i];
	if (!found) {
		refuse_pir(run, pir, "does not exist", "");
		return;
	}
	if (!pirq_router_lookup(found->vendor_id, found->device_id)) {
		ksnprintf(detail, sizeof(detail), ": it is %04x:%04x (%s)", found->vendor_id, found->device_id,
			  pci_class_name(found->class_code, found->subclass, found->prog_if));
		refuse_pir(run, pir, "is not a PIRQ router", detail);
		return;
	}
	if (!regs || !regs->valid || regs->bus != pir->router_bus || regs->devfn != pir->router_devfn ||
	    regs->type != pirq_router_lookup(found->vendor_id, found->device_id)) {
		refuse_pir(run, pir, "registers not read", "");
		return;
	}
	run->pir_router = regs->type;
}

static void print_pir_verdict(const struct route_run *run)
{
	const struct pirq_router_regs *regs = run->in->router;
	const struct fw_pir *pir = run->in->pir;
	char values[3 * PIRQ_LINKS_MAX + 1] = "";
	unsigned int i;

	if (!uses(run, PCI_ROUTE_PIR) || !pir || !pir->present)
		return;
	if (!run->pir_router) {
		emit(run, false, "pci: $PIR not used: %s", run->pir_refusal);
		return;
	}
	for (i = 0; i < run->pir_router->links && i < PIRQ_LINKS_MAX; i++)
		ksnprintf(values + 3 * i, sizeof(values) - 3 * i, " %02x", regs->value[i]);
	emit(run, false, "pci: $PIR router %02x:%02x.%u %s, PIRQA-%c%s", regs->bus,
	     pci_devfn_dev(regs->devfn), pci_devfn_fn(regs->devfn), run->pir_router->name,
	     'A' + run->pir_router->links - 1, values);
}

/* ------------------------------------------------------------------------
 * Source 3: Interrupt Line
 */

static bool route_line(const struct route_run *run, const struct pci_dev *d, struct pci_route *r)
{
	if (d->irq_line == PCI_LINE_UNKNOWN) {
		why_add(r, "Interrupt Line 0xff: firmware did not set it");
		return false;
	}
	if (d->irq_line >= ISA_IRQS || !(PIRQ_ROUTABLE_IRQS & (1u << d->irq_line))) {
		why_add(r, "Interrupt Line %u is no ISA IRQ a PCI pin can drive", d->irq_line);
		return false;
	}
	return isa_to_line(run, r, d->irq_line, "Interrupt Line");
}

/* ------------------------------------------------------------------------
 * One function, and all of them
 */

static void print_decision(const struct route_run *run, const struct pci_dev *d)
{
	const struct pci_route *r = &d->route;
	char bdf[PCI_BDF_LEN], via[48] = "";
	const char *sep = r->why[0] ? "; " : "";

	pci_bdf(d, bdf);
	if (r->source == PCI_ROUTE_NONE) {
		emit(run, true, "pci %s: %s not routed (%s)", bdf, pci_pin_name(d->irq_pin),
		     r->why[0] ? r->why : "no source allowed");
		return;
	}
	if (r->source == PCI_ROUTE_PIR)
		ksnprintf(via, sizeof(via), " %s PIRQ%c", run->pir_router->name,
			  'A' + pirq_link_index(run->pir_router, r->link));
	if (r->source != PCI_ROUTE_LINE && (r->table_bus != d->bus || r->table_dev != d->dev))
		ksnprintf(via + strlen(via), sizeof(via) - strlen(via), ", as %02x:%02x %s behind bridges",
			  r->table_bus, r->table_dev, pci_pin_name(r->table_pin));
	if (r->is_gsi)
		emit(run, false, "pci %s: %s -> GSI %u (%s, %s, from %s%s%s%s)", bdf, pci_pin_name(d->irq_pin),
		     r->line, r->level ? "level" : "edge", r->active_low ? "active-low" : "active-high",
		     pci_route_source_name(r->source), via, sep, r->why);
	else
		emit(run, false, "pci %s: %s -> IRQ %u (%s, from %s%s%s%s)", bdf, pci_pin_name(d->irq_pin),
		     r->line, r->level ? "level" : "edge", pci_route_source_name(r->source), via, sep, r->why);
	/*
	 * Firmware that programmed the router also wrote the Interrupt Line;
	 * when the two disagree one of them is wrong (QEMU pc: the PIIX4 power
	 * management function's SCI is wired to IRQ 9, not to its slot's PIRQ).
	 */
	if (r->source == PCI_ROUTE_PIR && d->irq_line < ISA_IRQS && d->irq_line != r->isa_irq)
		emit(run, true, "pci %s: $PIR routes %s to ISA IRQ %u but firmware's Interrupt Line says %u; "
		     "using $PIR (pci_route=line picks the other)", bdf, pci_pin_name(d->irq_pin), r->isa_irq,
		     d->irq_line);
}

static bool route_one(const struct route_run *run, struct pci_dev *d)
{
	struct pci_route *r = &d->route;

	memset(r, 0, sizeof(*r));
	if (d->irq_pin < 1 || d->irq_pin > PCI_PINS)
		return true;
	if (uses(run, PCI_ROUTE_MPTABLE) && route_mptable(run, d, r))
		r->source = PCI_ROUTE_MPTABLE;
	else if (uses(run, PCI_ROUTE_PIR) && route_pir(run, d, r))
		r->source = PCI_ROUTE_PIR;
	else if (uses(run, PCI_ROUTE_LINE) && route_line(run, d, r))
		r->source = PCI_ROUTE_LINE;
	if (r->source == PCI_ROUTE_NONE) {
		/* Keep only the reasons: a half-filled answer must not look like one. */
		char why[PCI_ROUTE_WHY_MAX];

		memcpy(why, r->why, sizeof(why));
		memset(r, 0, sizeof(*r));
		memcpy(r->why, why, sizeof(why));
	}
	print_decision(run, d);
	return r->source != PCI_ROUTE_NONE;
}

static void print_header(const struct route_run *run)
{
	static const char *const sources[] = {
		[PCI_ROUTE_AUTO] = NULL,
		[PCI_ROUTE_MPTABLE] = "MP table only (pci_route=mptable)",
		[PCI_ROUTE_PIR] = "$PIR only (pci_route=pir)",
		[PCI_ROUTE_LINE] = "Interrupt Line only (pci_route=line)",
	};
	uint8_t choice = run->in->choice;
	const char *list = choice < sizeof(sources) / sizeof(sources[0]) ? sources[choice] : NULL;

	if (!list)
		list = run->in->ioapic_mode ? "MP table, $PIR, Interrupt Line" : "$PIR, Interrupt Line";
	emit(run, false, "pci: routing INTx to %s; sources: %s",
	     run->in->ioapic_mode ? "GSIs (IOAPIC mode)" : "ISA IRQs (PIC mode)", list);
}

int pci_route_compute(struct pci_dev *devs, unsigned int count, const struct pci_route_inputs *in)
{
	struct route_run run = { .in = in, .devs = devs, .count = count };
	unsigned int i;
	int left = 0;

	if (!devs || !in)
		return -EINVAL;
	if (in->choice < PCI_ROUTE_MPTABLE || in->choice > PCI_ROUTE_AUTO)
		return -EINVAL;
	print_header(&run);
	check_pir_router(&run);
	print_pir_verdict(&run);
	for (i = 0; i < count; i++)
		if (!route_one(&run, &devs[i]))
			left++;
	return left;
}

/* ------------------------------------------------------------------------
 * Kernel side: the boot parameter and pci_route_all
 */

static uint8_t route_choice = PCI_ROUTE_AUTO;
static bool routes_done, routes_ioapic;
static pci_gsi_fn gsi_resolver;
static void *gsi_resolver_ctx;

const char *pci_route_source_name(unsigned int source)
{
	static const char *const names[] = {
		[PCI_ROUTE_NONE] = "nothing",
		[PCI_ROUTE_MPTABLE] = "MP table",
		[PCI_ROUTE_PIR] = "$PIR",
		[PCI_ROUTE_LINE] = "Interrupt Line",
		[PCI_ROUTE_AUTO] = "auto",
	};

	return source < sizeof(names) / sizeof(names[0]) ? names[source] : "?";
}

/* The values pci_route= takes. */
static const struct { const char *name; uint8_t source; } route_choices[] = {
	{ "auto", PCI_ROUTE_AUTO },
	{ "mptable", PCI_ROUTE_MPTABLE },
	{ "pir", PCI_ROUTE_PIR },
	{ "line", PCI_ROUTE_LINE },
};

const char *pci_route_choice_name(uint8_t choice)
{
	size_t i;

	for (i = 0; i < sizeof(route_choices) / sizeof(route_choices[0]); i++)
		if (route_choices[i].source == choice)
			return route_choices[i].name;
	return "?";
}

int pci_param_route(const char *value, void *arg)
{
	size_t i;

	(void)arg;
	if (!value)
		return -EINVAL;
	for (i = 0; i < sizeof(route_choices) / sizeof(route_choices[0]); i++) {
		if (strcmp(value, route_choices[i].name) == 0) {
			route_choice = route_choices[i].source;
			return 0;
		}
	}
	return -EINVAL;
}

uint8_t pci_route_choice(void)
{
	return route_choice;
}

bool pci_routes_done(bool *ioapic_mode)
{
	if (ioapic_mode)
		*ioapic_mode = routes_ioapic;
	return routes_done;
}

void pci_route_set_gsi_resolver(int (*fn)(void *ctx, uint8_t ioapic_id, uint8_t pin, uint32_t *gsi),
				void *ctx)
{
	gsi_resolver = fn;
	gsi_resolver_ctx = ctx;
}

static void log_line(void *ctx, bool warning, const char *line)
{
	(void)ctx;
	printk(warning ? LOG_WARN : LOG_INFO, "%s\n", line);
}

int pci_route_all(const struct fw_platform *fw, const struct fw_pir *pir, bool ioapic_mode)
{
	struct pirq_router_regs regs;
	struct pci_route_inputs in = {
		.fw = fw, .pir = pir, .router = &regs, .ioapic_mode = ioapic_mode,
		.choice = route_choice, .gsi_of = gsi_resolver, .gsi_ctx = gsi_resolver_ctx,
		.print = log_line,
	};
	int left;

	if (pci_device_count() == 0)
		return -ENODEV;
	pirq_router_probe(pir, &regs);
	left = pci_route_compute(pci_device_at(0), pci_device_count(), &in);
	routes_done = true;
	routes_ioapic = ioapic_mode;
	return left == 0 ? 0 : -ENOENT;
}
