/*
 * apic_setup.c - which interrupt controller delivers device interrupts, and
 * on which kernel/irq line each ISA IRQ arrives. IOAPIC mode when the
 * firmware tables describe an IOAPIC (ACPI 6.5 section 5.2.12 MADT, or the
 * Intel MultiProcessor Specification 1.4 chapter 4), the chip answers and
 * `noapic` is not given; the 8259 pair alone otherwise.
 *
 * The rule for line numbers: line = GSI. In IOAPIC mode every IOAPIC pin
 * below IRQ_NR_LINES is a line (masked until requested); ISA IRQ n sits at
 * GSI n unless an ACPI interrupt source override or an MP I/O interrupt
 * entry says otherwise (QEMU and most PCs: ISA IRQ 0, the PIT, at GSI 2).
 * isa_irq_to_line() answers for the drivers; in PIC mode it is the
 * identity. ISA IRQ 2 is the 8259 cascade and reaches no line.
 *
 * Switching to IOAPIC mode (MP spec 3.6.2: from PIC or virtual-wire mode to
 * symmetric I/O mode): mask the 8259 and take its vectors away, except the
 * spurious IRQ 7 and 15 vectors, which still count the 8259's spurious
 * interrupts; set the IMCR to APIC mode if the MP table says there is one;
 * mask the LAPIC's LINT0 ExtINT wire; then lay out the IOAPIC lines.
 *
 * See also: lapic.c, ioapic.c, i8259.c, irq.c, docs/apic.md.
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/i8259.h>
#include <asm/io.h>
#include <asm/trap.h>
#include <asm/x86_irq.h>
#include <firmware.h>
#include <irq/irqchip.h>
#include <irq/irq_config.h>
#include <kernel/errno.h>
#include <kernel/printk.h>

/* Interrupt mode configuration register (MP spec 1.4 section 3.6.2.1). */
#define IMCR_SELECT_PORT        0x22   /* write the register number here */
#define IMCR_DATA_PORT          0x23   /* then its value here */
#define IMCR_REGISTER           0x70   /* the IMCR's number */
#define IMCR_APIC_MODE          0x01   /* 8259 INTR and NMI go through the local APIC */

#define ISA_DEFAULT_TYPE        IRQ_TYPE_EDGE_RISING  /* ISA: edge, active high */
#define PCI_DEFAULT_TYPE        IRQ_TYPE_LEVEL_LOW    /* PCI INTx: level, active low */
#define PIC_SPURIOUS_IRQ_MASTER 7      /* the master 8259's lowest-priority input */
#define PIC_SPURIOUS_IRQ_SLAVE  15     /* the slave's */
#define PIC_ALL_MASKED          0xFFFFu /* 8259 mask with all 16 inputs masked */

/* Where the route of an ISA IRQ came from. */
enum isa_route_source {
	ISA_ROUTE_IDENTITY,       /* no table entry: GSI = IRQ, edge, high */
	ISA_ROUTE_ACPI_OVERRIDE,  /* MADT interrupt source override */
	ISA_ROUTE_MP_ENTRY,       /* MP I/O interrupt entry on the ISA bus */
	ISA_ROUTE_NONE,           /* reaches no line */
};

static const char *const route_source_names[] = {
	[ISA_ROUTE_IDENTITY] = "identity (no table entry)",
	[ISA_ROUTE_ACPI_OVERRIDE] = "ACPI override",
	[ISA_ROUTE_MP_ENTRY] = "MP table entry",
	[ISA_ROUTE_NONE] = "not routed",
};

struct isa_route {
	int line;          /* kernel/irq line (= GSI in IOAPIC mode), -1 if none */
	unsigned int type; /* IRQ_TYPE_* */
	uint8_t source;    /* enum isa_route_source */
};

bool apic_noapic;
static enum x86_irq_mode mode = X86_IRQ_MODE_PIC;
static const char *mode_reason = "x86_interrupt_setup not called";
static struct isa_route isa_routes[PIC_NR_IRQS];
static bool routes_ready;         /* isa_routes filled in; before that, the identity */
static uint32_t pic_strays;

int apic_param_noapic(const char *value, void *arg)
{
	(void)arg;
	if (value)
		return -EINVAL;
	apic_noapic = true;
	return 0;
}

enum x86_irq_mode x86_irq_mode(void)
{
	return mode;
}

static void routes_reset_identity(void)
{
	for (unsigned int irq = 0; irq < PIC_NR_IRQS; irq++) {
		isa_routes[irq].line = irq == PIC_CASCADE_IRQ ? -1 : (int)irq;
		isa_routes[irq].type = ISA_DEFAULT_TYPE;
		isa_routes[irq].source = irq == PIC_CASCADE_IRQ ? ISA_ROUTE_NONE : ISA_ROUTE_IDENTITY;
	}
	routes_ready = true;
}

int isa_irq_to_line(unsigned int isa_irq)
{
	if (isa_irq >= PIC_NR_IRQS)
		return -EINVAL;
	if (!routes_ready)
		return isa_irq == PIC_CASCADE_IRQ ? -ENOENT : (int)isa_irq;
	return isa_routes[isa_irq].line >= 0 ? isa_routes[isa_irq].line : -ENOENT;
}

/* ------------------------------------------------------------------------
 * The ISA IRQ -> GSI map from the tables
 */

/* IRQ_TYPE_* for MPS INTI flags on an ISA source ("conforms" = ISA: edge, high). */
static unsigned int isa_type(uint8_t polarity, uint8_t trigger)
{
	bool low = polarity == FW_POLARITY_LOW;

	if (trigger == FW_TRIGGER_LEVEL)
		return low ? IRQ_TYPE_LEVEL_LOW : IRQ_TYPE_LEVEL_HIGH;
	return low ? IRQ_TYPE_EDGE_FALLING : IRQ_TYPE_EDGE_RISING;
}

static void routes_from_acpi(const struct fw_platform *fw)
{
	for (uint32_t i = 0; i < fw->overrides.count && i < FW_MAX_ISA_OVERRIDES; i++) {
		const struct fw_isa_override *o = &fw->overrides.entry[i];

		if (o->isa_irq >= PIC_NR_IRQS || o->isa_irq == PIC_CASCADE_IRQ)
			continue;  /* the parser rejects IRQs > 15; the cascade has no device */
		isa_routes[o->isa_irq].line = o->gsi > (uint32_t)INT32_MAX ? -1 : (int)o->gsi;
		isa_routes[o->isa_irq].type = isa_type(o->polarity, o->trigger);
		isa_routes[o->isa_irq].source = ISA_ROUTE_ACPI_OVERRIDE;
	}
}

static bool bus_is_isa(const struct fw_platform *fw, uint8_t bus_id)
{
	for (uint32_t i = 0; i < fw->buses.count && i < FW_MAX_MP_BUSES; i++)
		if (fw->buses.entry[i].id == bus_id)
			return fw->buses.entry[i].type == FW_BUS_ISA || fw->buses.entry[i].type == FW_BUS_EISA;
	return false;
}

static void routes_from_mp(const struct fw_platform *fw)
{
	for (uint32_t i = 0; i < fw->bus_irqs.count && i < FW_MAX_MP_BUS_IRQS; i++) {
		const struct fw_mp_irq *e = &fw->bus_irqs.entry[i];
		struct isa_route *r;
		int gsi;

		/* ExtINT entries describe the 8259's own path to pin 0; SMI/NMI have no line. */
		if (e->kind != FW_INT_VECTORED || !bus_is_isa(fw, e->bus) || e->bus_irq >= PIC_NR_IRQS ||
		    e->bus_irq == PIC_CASCADE_IRQ)
			continue;
		r = &isa_routes[e->bus_irq];
		if (r->source == ISA_ROUTE_MP_ENTRY) {
			pr_warn("MP table: a second entry for ISA IRQ %u (IOAPIC %u pin %u) ignored\n",
				e->bus_irq, e->ioapic_id, e->ioapic_pin);
			continue;
		}
		gsi = ioapic_gsi_of(e->ioapic_id, e->ioapic_pin);
		if (gsi < 0) {
			pr_warn("MP table: ISA IRQ %u goes to IOAPIC %u pin %u, which does not exist; IRQ not routed\n",
				e->bus_irq, e->ioapic_id, e->ioapic_pin);
			r->line = -1;
			r->source = ISA_ROUTE_NONE;
			continue;
		}
		r->line = gsi;
		r->type = isa_type(e->polarity, e->trigger);
		r->source = ISA_ROUTE_MP_ENTRY;
	}
}

/* Drop routes to no line, and identity guesses that collide with a table's route. */
static void routes_check(void)
{
	for (unsigned int irq = 0; irq < PIC_NR_IRQS; irq++) {
		struct isa_route *r = &isa_routes[irq];

		if (r->line < 0)
			continue;
		if (r->line >= IRQ_NR_LINES || !ioapic_gsi_valid((unsigned int)r->line)) {
			pr_warn("ISA IRQ %u: GSI %d is on no IOAPIC or past IRQ_NR_LINES (%u); IRQ not routed\n",
				irq, r->line, IRQ_NR_LINES);
			r->line = -1;
			r->source = ISA_ROUTE_NONE;
			continue;
		}
		for (unsigned int other = 0; other < PIC_NR_IRQS; other++) {
			struct isa_route *o = &isa_routes[other];

			if (other == irq || o->line != r->line)
				continue;
			if (r->source == ISA_ROUTE_IDENTITY && o->source != ISA_ROUTE_IDENTITY) {
				r->line = -1;
				r->source = ISA_ROUTE_NONE;
				break;
			}
			if (other > irq && o->source != ISA_ROUTE_IDENTITY) {
				pr_warn("ISA IRQs %u and %u both go to GSI %d; IRQ %u not routed\n", irq, other,
					r->line, other);
				o->line = -1;
				o->source = ISA_ROUTE_NONE;
			}
		}
	}
}

static const char *type_trigger(unsigned int type)
{
	return type & IRQ_TYPE_LEVEL_MASK ? "level" : "edge";
}

static const char *type_polarity(unsigned int type)
{
	return type & (IRQ_TYPE_LEVEL_LOW | IRQ_TYPE_EDGE_FALLING) ? "low" : "high";
}

/* One boot-log line per override: every ACPI one, and MP entries that differ from the ISA default. */
static void routes_print_overrides(void)
{
	for (unsigned int irq = 0; irq < PIC_NR_IRQS; irq++) {
		const struct isa_route *r = &isa_routes[irq];
		bool differs = r->line != (int)irq || r->type != ISA_DEFAULT_TYPE;

		if (r->source == ISA_ROUTE_ACPI_OVERRIDE || (r->source == ISA_ROUTE_MP_ENTRY && differs))
			pr_info("ISA IRQ %u -> GSI %d (%s, %s)\n", irq, r->line, type_trigger(r->type),
				type_polarity(r->type));
	}
}

/* ------------------------------------------------------------------------
 * The switch to IOAPIC mode
 */

/*
 * The 8259's spurious vectors in IOAPIC mode. A spurious IRQ 7/15 is
 * counted by i8259_spurious() as in PIC mode. Anything else here is a real
 * request from an 8259 that should be fully masked (someone unmasked it):
 * end it at the 8259 so it cannot block lower inputs, and say so.
 */
static void pic_stray_vector(struct trap_frame *f)
{
	unsigned int irq = f->vector - PIC_VECTOR_BASE;

	if (i8259_spurious(irq))
		return;
	i8259_send_eoi(irq);
	if (++pic_strays <= APIC_PIC_STRAY_REPORTS)
		pr_warn("8259: real IRQ %u delivered in IO-APIC mode, where the 8259 is masked (%u so far)\n",
			irq, pic_strays);
}

static void silence_pic(void)
{
	i8259_disable();
	/* One vector per line in irq.c: the PIC's go, IOAPIC lines get 0x30 + GSI. */
	for (unsigned int v = PIC_VECTOR_BASE; v < PIC_VECTOR_BASE + PIC_NR_IRQS; v++)
		x86_irq_clear_vector(v);
	x86_set_system_vector(PIC_VECTOR_BASE + PIC_SPURIOUS_IRQ_MASTER, pic_stray_vector, "8259-spurious");
	x86_set_system_vector(PIC_VECTOR_BASE + PIC_SPURIOUS_IRQ_SLAVE, pic_stray_vector, "8259-spurious");
}

static void imcr_to_apic_mode(const struct fw_platform *fw)
{
	if (fw->source != FW_SOURCE_MP || !fw->mp.imcr_present)
		return;
	outb(IMCR_SELECT_PORT, IMCR_REGISTER);
	outb(IMCR_DATA_PORT, IMCR_APIC_MODE);
	pr_info("IMCR: switched from PIC mode to APIC mode (MP table feature byte 2)\n");
}

/* The ISA route arriving at @gsi, or NULL. */
static const struct isa_route *route_to(unsigned int gsi)
{
	for (unsigned int irq = 0; irq < PIC_NR_IRQS; irq++)
		if (isa_routes[irq].line == (int)gsi)
			return &isa_routes[irq];
	return NULL;
}

/* Every IOAPIC pin below IRQ_NR_LINES becomes a masked line. RETURNS lines set up. */
static unsigned int register_ioapic_lines(void)
{
	unsigned int lines = 0;

	for (unsigned int gsi = 0; gsi < IRQ_NR_LINES; gsi++) {
		const struct isa_route *r = route_to(gsi);
		unsigned int type = r ? r->type : gsi < PIC_NR_IRQS ? ISA_DEFAULT_TYPE : PCI_DEFAULT_TYPE;
		int err;

		if (!ioapic_gsi_valid(gsi)) {
			if (gsi < PIC_NR_IRQS && gsi != PIC_CASCADE_IRQ)
				pr_warn("line %u: on no IOAPIC; it keeps the masked 8259 chip and will never fire\n", gsi);
			continue;
		}
		err = ioapic_setup_line(gsi, type);
		if (err)
			pr_err("line %u: IO-APIC set-up failed (%d); the line stays as it was\n", gsi, err);
		else
			lines++;
	}
	return lines;
}

static int pic_mode(const struct fw_platform *fw, const char *why)
{
	mode = X86_IRQ_MODE_PIC;
	mode_reason = why;
	routes_reset_identity();
	/* The LAPIC (if it came up) passes the 8259 through LINT0 as a virtual wire. */
	lapic_setup_lints(fw, false);
	pr_info("interrupt mode: 8259 PIC (%s)\n", why);
	return X86_IRQ_MODE_PIC;
}

int x86_interrupt_setup(const struct fw_platform *fw, bool noapic)
{
	bool tables = fw && fw->source != FW_SOURCE_NONE;
	unsigned long flags = irq_save_flags();
	int lapic_err, ret;

	if (!tables)
		fw = NULL;
	lapic_err = lapic_init(fw);
	if (noapic)
		ret = pic_mode(fw, "noapic");
	else if (!tables)
		ret = pic_mode(fw, "no ACPI MADT or MP table found");
	else if (!fw->ioapics.count)
		ret = pic_mode(fw, fw->source == FW_SOURCE_ACPI ? "the MADT lists no IOAPIC" : "the MP table lists no IOAPIC");
	else if (lapic_err)
		ret = pic_mode(fw, "no usable local APIC");
	else if (ioapic_init(fw, (uint8_t)lapic_id()) == 0)
		ret = pic_mode(fw, "no listed IOAPIC answers");
	else {
		mode_reason = fw->source == FW_SOURCE_ACPI ? "from ACPI MADT" : "from MP table";
		silence_pic();
		imcr_to_apic_mode(fw);
		lapic_setup_lints(fw, true);
		routes_reset_identity();
		if (fw->source == FW_SOURCE_ACPI)
			routes_from_acpi(fw);
		else
			routes_from_mp(fw);
		routes_check();
		routes_print_overrides();
		mode = X86_IRQ_MODE_IOAPIC;
		pr_info("interrupt mode: IO-APIC (%s), %u lines, 8259 masked\n", mode_reason,
			register_ioapic_lines());
		ret = X86_IRQ_MODE_IOAPIC;
	}
	irq_restore_flags(flags);
	return ret;
}

/* ------------------------------------------------------------------------
 * PCI lines
 */

int x86_setup_pci_line(unsigned int gsi, bool level, bool active_low)
{
	unsigned int type;
	int err;

	if (mode == X86_IRQ_MODE_IOAPIC) {
		if (gsi >= IRQ_NR_LINES)
			return -ERANGE;
		if (!ioapic_gsi_valid(gsi))
			return -ENOENT;
		if (level)
			type = active_low ? IRQ_TYPE_LEVEL_LOW : IRQ_TYPE_LEVEL_HIGH;
		else
			type = active_low ? IRQ_TYPE_EDGE_FALLING : IRQ_TYPE_EDGE_RISING;
	} else {
		if (gsi >= PIC_NR_IRQS)
			return -ENOENT;
		if (gsi == PIC_CASCADE_IRQ)
			return -EINVAL;
		/* The PIRQ router inverts PCI's active-low INTx: the 8259 sees active high. */
		type = level ? IRQ_TYPE_LEVEL_HIGH : IRQ_TYPE_EDGE_RISING;
	}
	err = irq_set_trigger(gsi, type);
	return err ? err : (int)gsi;
}

/* ------------------------------------------------------------------------
 * Print-out for the shell's `routes`
 */

int apic_print_routes(void)
{
	struct i8259_stats pic;

	cprintf("interrupt mode: %s (%s)\n", mode == X86_IRQ_MODE_IOAPIC ? "IO-APIC" : "8259 PIC", mode_reason);
	for (unsigned int irq = 0; irq < PIC_NR_IRQS; irq++) {
		const struct isa_route *r = &isa_routes[irq];

		if (r->line < 0)
			cprintf("  ISA IRQ %2u -> no line (%s)\n", irq,
				irq == PIC_CASCADE_IRQ ? "8259 cascade" : route_source_names[r->source]);
		else
			cprintf("  ISA IRQ %2u -> line %2d, %s, %s, %s\n", irq, r->line, type_trigger(r->type),
				type_polarity(r->type), route_source_names[r->source]);
	}
	i8259_get_stats(&pic);
	cprintf("8259: mask %04x, ELCR %04x, spurious IRQ7 %u / IRQ15 %u, stray requests in IO-APIC mode %u\n",
		pic.imr, pic.elcr, pic.spurious7, pic.spurious15, pic_strays);
	ioapic_print_routes();
	lapic_print_state();
	return 0;
}

/* ------------------------------------------------------------------------
 * Selftests (selftest=apic_setup)
 */
#include <kernel/selftest.h>

SELFTEST(apic_setup, ioapic_mode_keeps_the_8259_fully_masked)
{
	struct i8259_stats pic;

	if (mode != X86_IRQ_MODE_IOAPIC) {
		selftest_skip(t, "PIC mode");
		return;
	}
	i8259_get_stats(&pic);
	ST_EXPECT(t, pic.imr == PIC_ALL_MASKED, "8259 mask %04x in IO-APIC mode", pic.imr);
	ST_EXPECT(t, x86_vector_to_irq(PIC_VECTOR_BASE) < 0, "vector 0x%02x still maps to line %d",
		  PIC_VECTOR_BASE, x86_vector_to_irq(PIC_VECTOR_BASE));
}

SELFTEST(apic_setup, every_isa_line_has_the_vector_of_its_gsi)
{
	for (unsigned int irq = 0; irq < PIC_NR_IRQS; irq++) {
		int line = isa_irq_to_line(irq);
		int want;

		if (line < 0)
			continue;
		want = mode == X86_IRQ_MODE_IOAPIC ? IOAPIC_VECTOR_BASE + line : PIC_VECTOR_BASE + line;
		ST_EXPECT(t, x86_irq_to_vector((unsigned int)line) == want, "ISA IRQ %u: line %d has vector %d, want %d",
			  irq, line, x86_irq_to_vector((unsigned int)line), want);
	}
	ST_EXPECT(t, isa_irq_to_line(PIC_CASCADE_IRQ) == -ENOENT, "the cascade IRQ 2 has a line");
	ST_EXPECT(t, isa_irq_to_line(PIC_NR_IRQS) == -EINVAL, "ISA IRQ 16 accepted");
}

/*
 * A real level-triggered line: QEMU's e1000 (pc machine, 00:03.0) holds its
 * INTA asserted while a cause bit is set in ICR and enabled in IMS; reading
 * ICR clears it (QEMU-FACTS.md). That makes it a level source we control:
 * one assertion must give one interrupt (the flow EOIs after the handler
 * cleared the cause), a disabled line must stay quiet while asserted (masked
 * before the EOI), and enabling it must deliver the interrupt still pending.
 */
#include <irq/interrupt.h>
#include <irq/stats.h>
#include <asm/tsc.h>
#include <drivers/pci.h>

#define E1000_VENDOR     0x8086u
#define E1000_DEVICE     0x100Eu      /* 82540EM, QEMU's "e1000" */
#define E1000_ICR        0xC0u        /* interrupt cause read (read clears) */
#define E1000_ICS        0xC8u        /* interrupt cause set */
#define E1000_IMS        0xD0u        /* interrupt mask set (enable causes) */
#define E1000_IMC        0xD8u        /* interrupt mask clear */
#define E1000_CAUSE_LSC  0x04u        /* link status change: a cause nothing else raises here */
#define E1000_ALL_CAUSES 0xFFFFFFFFu
#define ST_LEVEL_WAIT_NS 20000000ull  /* 20 ms of TSC time for an interrupt to arrive */

struct st_level_ctx {
	uintptr_t regs;
	volatile uint32_t calls;
	volatile uint32_t last_icr;
};

static irqreturn_t st_e1000_interrupt(unsigned int irq, void *dev_id)
{
	struct st_level_ctx *c = dev_id;
	uint32_t icr = mmio_read32(c->regs + E1000_ICR);

	(void)irq;
	c->calls++;
	c->last_icr = icr;
	return icr ? IRQ_HANDLED : IRQ_NONE;
}

static void st_wait_tsc(uint64_t ns)
{
	uint64_t t0 = tsc_ns();

	while (tsc_ns() - t0 < ns)
		cpu_relax();
}

static uint64_t st_delivered(unsigned int line)
{
	struct irq_line_stats s;

	return irq_get_line_stats(line, &s) == 0 ? s.delivered : 0;
}

SELFTEST(apic_setup, level_line_fires_once_per_assertion_and_stays_masked_while_disabled)
{
	struct pci_dev *dev = pci_find_device(E1000_VENDOR, E1000_DEVICE, NULL);
	static struct st_level_ctx ctx;
	uint32_t calls_first, calls_disabled;
	uint64_t d0, d_first, d_disabled;
	int line, err;

	if (!dev || !dev->irq_pin || !dev->bar[0].size || dev->bar[0].base >= UINT32_MAX) {
		selftest_skip(t, "no QEMU e1000 (8086:100e) with an interrupt pin and a memory BAR");
		return;
	}
	ctx.regs = (uintptr_t)dev->bar[0].base;
	ctx.calls = 0;
	pci_enable(dev, PCI_ENABLE_MEM);
	mmio_write32(ctx.regs + E1000_IMC, E1000_ALL_CAUSES);
	(void)mmio_read32(ctx.regs + E1000_ICR);
	line = x86_setup_pci_line(dev->irq_line, true, false);
	ST_EXPECT(t, line >= 0, "x86_setup_pci_line(%u): %d", dev->irq_line, line);
	if (line < 0)
		return;
	err = request_irq((unsigned int)line, st_e1000_interrupt, IRQF_SHARED, "apic-selftest-e1000", &ctx);
	ST_EXPECT(t, err == 0, "request_irq(%d): %d", line, err);
	if (err)
		return;

	d0 = st_delivered((unsigned int)line);
	mmio_write32(ctx.regs + E1000_IMS, E1000_CAUSE_LSC);
	mmio_write32(ctx.regs + E1000_ICS, E1000_CAUSE_LSC);
	st_wait_tsc(ST_LEVEL_WAIT_NS);
	calls_first = ctx.calls;
	d_first = st_delivered((unsigned int)line) - d0;

	disable_irq((unsigned int)line);
	mmio_write32(ctx.regs + E1000_ICS, E1000_CAUSE_LSC);
	st_wait_tsc(ST_LEVEL_WAIT_NS);
	calls_disabled = ctx.calls - calls_first;
	d_disabled = st_delivered((unsigned int)line) - d0 - d_first;
	enable_irq((unsigned int)line);
	st_wait_tsc(ST_LEVEL_WAIT_NS);

	mmio_write32(ctx.regs + E1000_IMC, E1000_ALL_CAUSES);
	(void)mmio_read32(ctx.regs + E1000_ICR);
	free_irq((unsigned int)line, &ctx);

	ST_EXPECT(t, calls_first == 1 && d_first == 1,
		  "one assertion on line %d gave %u handler calls, %llu deliveries", line, calls_first,
		  (unsigned long long)d_first);
	ST_EXPECT(t, calls_disabled == 0 && d_disabled <= 1,
		  "disabled and asserted: %u handler calls, %llu deliveries (masked before the EOI?)",
		  calls_disabled, (unsigned long long)d_disabled);
	ST_EXPECT(t, ctx.calls == calls_first + 1, "enable_irq did not deliver the pending level interrupt "
		  "(%u calls in all)", ctx.calls);
}
