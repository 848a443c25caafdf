/*
 * test_pci_route.c - host unit tests for the INTx routing decision
 * (drivers/pci/pci_route.c, pci_route_compute) on the firmware tables
 * captured from QEMU 7.2 + SeaBIOS 1.16.2 (tests/fixtures/: pc, pc-noacpi,
 * q35, q35-noacpi), parsed by the real parsers (arch/x86/mptable.c,
 * pirtable.c, acpi.c), with the device lists those machines have (see
 * /work/shared/QEMU-FACTS.md) and the router registers SeaBIOS leaves
 * (PIRQA-D = 0a 0a 0b 0b). Synthetic tables cover what QEMU never shows:
 * bridges, missing entries, bogus routers, disabled PIRQs.
 *
 * Each test builds a device list, routes it, and checks the line, its
 * trigger/polarity, its source and the log line a kernel engineer reads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <firmware.h>
#include <kernel/errno.h>

#include "fixture.h"
#include "pci/pci_internal.h"

/* ------------------------------------------------------------------------
 * Log capture: pci_route_compute's print callback, and printk/cprintf for
 * the kernel code linked in (pirq_router.c, pci.c).
 */
enum { LOG_LINES = 64, LOG_LINE_LEN = 400 };

static char log_text[LOG_LINES][LOG_LINE_LEN];
static bool log_warning[LOG_LINES];
static int log_count;

static void log_reset(void)
{
	log_count = 0;
	memset(log_text, 0, sizeof(log_text));
}

static void capture(void *ctx, bool warning, const char *line)
{
	(void)ctx;
	assert_true(log_count < LOG_LINES);
	snprintf(log_text[log_count], LOG_LINE_LEN, "%s", line);
	log_warning[log_count] = warning;
	log_count++;
}

int printk(int level, const char *fmt, ...)
{
	char line[LOG_LINE_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	line[strcspn(line, "\n")] = '\0';
	if (log_count < LOG_LINES)
		capture(NULL, level <= 4, line);
	return (int)strlen(line);
}

int cprintf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintf(fmt, ap);
	va_end(ap);
	return n;
}

/* The index of the first captured line containing @needle, or -1. */
static int log_find(const char *needle)
{
	int i;

	for (i = 0; i < log_count; i++)
		if (strstr(log_text[i], needle))
			return i;
	return -1;
}

static void dump_log(void)
{
	int i;

	for (i = 0; i < log_count; i++)
		fprintf(stderr, "  log: %s\n", log_text[i]);
}

#define assert_logged(needle)                                   \
	do {                                                        \
		if (log_find(needle) < 0) {                             \
			dump_log();                                         \
			fail_msg("not logged: \"%s\"", (needle));           \
		}                                                       \
	} while (0)

/* ------------------------------------------------------------------------
 * Machines
 */
enum { MAX_DEVS = 16 };

struct machine {
	struct pci_dev dev[MAX_DEVS];
	unsigned int count;
	struct fw_fixture fx;
	bool fx_loaded;
	struct fw_platform fw;
	struct fw_pir pir;
	struct pirq_router_regs router;
};

static struct machine m;

static struct pci_dev *add_dev(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t vendor, uint16_t device,
			       uint8_t cls, uint8_t sub, uint8_t prog_if, uint8_t pin, uint8_t line)
{
	struct pci_dev *d;

	assert_true(m.count < MAX_DEVS);
	d = &m.dev[m.count++];
	memset(d, 0, sizeof(*d));
	d->bus = bus;
	d->dev = dev;
	d->fn = fn;
	d->vendor_id = vendor;
	d->device_id = device;
	d->class_code = cls;
	d->subclass = sub;
	d->prog_if = prog_if;
	d->irq_pin = pin;
	d->irq_line = line;
	d->parent = -1;
	return d;
}

static int index_of(const struct pci_dev *d)
{
	return (int)(d - m.dev);
}

static struct pci_dev *add_bridge(uint8_t bus, uint8_t dev, uint8_t secondary, uint8_t subordinate)
{
	struct pci_dev *b = add_dev(bus, dev, 0, 0x8086, 0x244E, 0x06, 0x04, 0x00, 0, 0xFF);

	b->header_kind = PCI_HEADER_BRIDGE;
	b->secondary_bus = secondary;
	b->subordinate_bus = subordinate;
	return b;
}

static struct pci_dev *find(uint8_t bus, uint8_t dev, uint8_t fn)
{
	unsigned int i;

	for (i = 0; i < m.count; i++)
		if (m.dev[i].bus == bus && m.dev[i].dev == dev && m.dev[i].fn == fn)
			return &m.dev[i];
	fail_msg("no device %02x:%02x.%u in the test machine", bus, dev, fn);
	return NULL;
}

/* PIRQ route registers as SeaBIOS programs them: A/B -> IRQ 10, C/D -> IRQ 11. */
static void router_at(uint8_t bus, uint8_t devfn, uint16_t device)
{
	static const uint8_t seabios[PIRQ_LINKS_MAX] = { 0x0a, 0x0a, 0x0b, 0x0b, 0x0a, 0x0a, 0x0b, 0x0b };

	m.router.valid = true;
	m.router.bus = bus;
	m.router.devfn = devfn;
	m.router.type = pirq_router_lookup(0x8086, device);
	assert_non_null(m.router.type);
	memcpy(m.router.value, seabios, sizeof(seabios));
}

/* QEMU pc with -usb: i440FX, PIIX3 at 00:01.x, VGA, e1000 (00:01.3 only with ACPI). */
static void pc_devices(bool acpi)
{
	add_dev(0, 0, 0, 0x8086, 0x1237, 0x06, 0x00, 0x00, 0, 0x00);
	add_dev(0, 1, 0, 0x8086, 0x7000, 0x06, 0x01, 0x00, 0, 0x00)->multifunction = true;
	add_dev(0, 1, 1, 0x8086, 0x7010, 0x01, 0x01, 0x80, 0, 0x00);
	add_dev(0, 1, 2, 0x8086, 0x7020, 0x0C, 0x03, 0x00, 4, 11);
	if (acpi)
		add_dev(0, 1, 3, 0x8086, 0x7113, 0x06, 0x80, 0x00, 1, 9);
	add_dev(0, 2, 0, 0x1234, 0x1111, 0x03, 0x00, 0x00, 0, 0x00);
	add_dev(0, 3, 0, 0x8086, 0x100E, 0x02, 0x00, 0x00, 1, 11);
	router_at(0, 1 << 3, 0x7000);
}

/* QEMU q35 with -usb: VGA at 00:01.0 (where $PIR wrongly puts a PIIX), e1000e, UHCI 1d.0-2, ICH9. */
static void q35_devices(void)
{
	add_dev(0, 0, 0, 0x8086, 0x29C0, 0x06, 0x00, 0x00, 0, 0x00);
	add_dev(0, 1, 0, 0x1234, 0x1111, 0x03, 0x00, 0x00, 0, 0x00);
	add_dev(0, 2, 0, 0x8086, 0x10D3, 0x02, 0x00, 0x00, 1, 11);
	add_dev(0, 0x1d, 0, 0x8086, 0x2934, 0x0C, 0x03, 0x00, 1, 10)->multifunction = true;
	add_dev(0, 0x1d, 1, 0x8086, 0x2935, 0x0C, 0x03, 0x00, 2, 10);
	add_dev(0, 0x1d, 2, 0x8086, 0x2936, 0x0C, 0x03, 0x00, 3, 11);
	add_dev(0, 0x1d, 7, 0x8086, 0x293A, 0x0C, 0x03, 0x20, 4, 11);
	add_dev(0, 0x1f, 0, 0x8086, 0x2918, 0x06, 0x01, 0x00, 0, 0x00)->multifunction = true;
	add_dev(0, 0x1f, 2, 0x8086, 0x2922, 0x01, 0x06, 0x01, 1, 10);
	add_dev(0, 0x1f, 3, 0x8086, 0x2930, 0x0C, 0x05, 0x00, 1, 10);
	/* Only the ICH9's registers can be read on q35; $PIR names another address. */
	router_at(0, 0x1f << 3, 0x2918);
}

/* Parse the MP table and $PIR of fixture @config into m.fw / m.pir. */
static void load_tables(const char *config)
{
	fixture_load(&m.fx, config);
	m.fx_loaded = true;
	assert_int_equal(mptable_parse(&m.fx.window, &m.fw), 0);
	assert_int_equal(pirtable_parse(&m.fx.window, &m.pir), 0);
}

static int route(bool ioapic_mode, uint8_t choice)
{
	struct pci_route_inputs in = {
		.fw = &m.fw, .pir = &m.pir, .router = &m.router, .ioapic_mode = ioapic_mode,
		.choice = choice, .print = capture,
	};

	log_reset();
	return pci_route_compute(m.dev, m.count, &in);
}

static int setup(void **state)
{
	(void)state;
	memset(&m, 0, sizeof(m));
	log_reset();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (m.fx_loaded)
		fixture_free(&m.fx);
	return 0;
}

static void assert_route(const struct pci_dev *d, uint8_t source, bool is_gsi, uint32_t line, bool level,
			 bool active_low)
{
	if (d->route.source != source || d->route.line != line || d->route.is_gsi != is_gsi) {
		dump_log();
		fail_msg("%02x:%02x.%u: source %u line %u gsi %d; expected source %u line %u gsi %d (why: %s)",
			 d->bus, d->dev, d->fn, d->route.source, d->route.line, d->route.is_gsi, source, line,
			 is_gsi, d->route.why);
	}
	assert_int_equal(d->route.level, level);
	assert_int_equal(d->route.active_low, active_low);
}

/* ------------------------------------------------------------------------
 * QEMU pc
 */

static void pc_ioapic_mode_routes_uhci_and_e1000_to_gsi_11_from_the_mp_table(void **state)
{
	(void)state;
	load_tables("pc");
	pc_devices(true);
	assert_int_equal(route(true, PCI_ROUTE_AUTO), 0);
	assert_route(find(0, 1, 2), PCI_ROUTE_MPTABLE, true, 11, true, false);
	assert_route(find(0, 3, 0), PCI_ROUTE_MPTABLE, true, 11, true, false);
	assert_int_equal(find(0, 1, 2)->route.ioapic_pin, 11);
	assert_string_equal(find(0, 1, 2)->route.why, "");
	assert_logged("pci 00:01.2: INTD -> GSI 11 (level, active-high, from MP table)");
	assert_logged("pci 00:03.0: INTA -> GSI 11 (level, active-high, from MP table)");
	assert_logged("pci: routing INTx to GSIs (IOAPIC mode); sources: MP table, $PIR, Interrupt Line");
}

static void pc_acpi_power_management_function_gets_the_sci_line_9(void **state)
{
	(void)state;
	load_tables("pc");
	pc_devices(true);
	route(true, PCI_ROUTE_AUTO);
	assert_route(find(0, 1, 3), PCI_ROUTE_MPTABLE, true, 9, true, false);
	/* Functions without a pin get no decision and no log line. */
	assert_int_equal(find(0, 1, 1)->route.source, PCI_ROUTE_NONE);
	assert_int_equal(log_find("pci 00:01.1"), -1);
}

static void pc_noacpi_mp_table_still_routes_both_devices(void **state)
{
	(void)state;
	load_tables("pc-noacpi");
	pc_devices(false);
	assert_int_equal(route(true, PCI_ROUTE_AUTO), 0);
	assert_route(find(0, 1, 2), PCI_ROUTE_MPTABLE, true, 11, true, false);
	assert_route(find(0, 3, 0), PCI_ROUTE_MPTABLE, true, 11, true, false);
}

static void pc_pic_mode_ignores_mp_pins_and_asks_the_piix3_router(void **state)
{
	(void)state;
	load_tables("pc");
	pc_devices(true);
	assert_int_equal(route(false, PCI_ROUTE_AUTO), 0);
	/* UHCI 00:01.2 INTD -> $PIR link 0x63 = PIRQD -> 0x0b; e1000 00:03.0 INTA -> 0x62 = PIRQC -> 0x0b. */
	assert_route(find(0, 1, 2), PCI_ROUTE_PIR, false, 11, true, false);
	assert_int_equal(find(0, 1, 2)->route.link, 0x63);
	assert_route(find(0, 3, 0), PCI_ROUTE_PIR, false, 11, true, false);
	assert_int_equal(find(0, 3, 0)->route.link, 0x62);
	assert_logged("pci: $PIR router 00:01.0 PIIX3, PIRQA-D 0a 0a 0b 0b");
	assert_logged("pci 00:01.2: INTD -> IRQ 11 (level, from $PIR PIIX3 PIRQD)");
	assert_logged("pci 00:03.0: INTA -> IRQ 11 (level, from $PIR PIIX3 PIRQC)");
	assert_int_equal(log_find("MP table:"), -1);
}

static void pc_with_the_acpi_platform_uses_pir_and_the_madt_override_flags(void **state)
{
	(void)state;
	load_tables("pc");
	/* The ACPI description has no PCI entries but says IRQ 11 -> GSI 11, level, active-high. */
	assert_int_equal(acpi_parse(&m.fx.window, &m.fw), 0);
	pc_devices(true);
	assert_int_equal(route(true, PCI_ROUTE_AUTO), 0);
	assert_route(find(0, 1, 2), PCI_ROUTE_PIR, true, 11, true, false);
	assert_logged("pci 00:01.2: INTD -> GSI 11 (level, active-high, from $PIR PIIX3 PIRQD; MP table: no PCI entries)");
	assert_int_equal(log_find("pci 00:01.2: $PIR routes"), -1);
	/*
	 * The power management function has pin INTA, so $PIR says PIRQA ->
	 * IRQ 10, but QEMU wires its SCI to IRQ 9, as the Interrupt Line (and
	 * the MP table) say. The order is kept; the disagreement is a warning.
	 */
	assert_route(find(0, 1, 3), PCI_ROUTE_PIR, true, 10, true, false);
	assert_logged("pci 00:01.3: $PIR routes INTA to ISA IRQ 10 but firmware's Interrupt Line says 9; "
		      "using $PIR (pci_route=line picks the other)");
	assert_true(log_warning[log_find("pci 00:01.3: $PIR routes")]);
}

static void disabled_pirq_falls_back_to_the_interrupt_line_and_says_so(void **state)
{
	(void)state;
	load_tables("pc");
	pc_devices(true);
	m.router.value[3] = 0x80;   /* PIRQD: IRQEN# set, as after reset */
	assert_int_equal(route(false, PCI_ROUTE_AUTO), 0);
	assert_route(find(0, 1, 2), PCI_ROUTE_LINE, false, 11, true, false);
	assert_string_equal(find(0, 1, 2)->route.why, "$PIR: PIRQD disabled in the PIIX3 (0x80)");
	/* The e1000 is on PIRQC, which still works. */
	assert_route(find(0, 3, 0), PCI_ROUTE_PIR, false, 11, true, false);
	assert_logged("pci 00:01.2: INTD -> IRQ 11 (level, from Interrupt Line; $PIR: PIRQD disabled in the PIIX3 (0x80))");
}

static void pirq_routed_to_a_reserved_irq_is_not_trusted(void **state)
{
	(void)state;
	load_tables("pc");
	pc_devices(true);
	m.router.value[2] = 0x02;   /* PIRQC -> IRQ 2: the cascade, reserved in the router */
	route(false, PCI_ROUTE_AUTO);
	assert_route(find(0, 3, 0), PCI_ROUTE_LINE, false, 11, true, false);
	assert_string_equal(find(0, 3, 0)->route.why, "$PIR: PIRQC routed to a reserved IRQ in the PIIX3 (0x02)");
}

static void device_missing_from_the_mp_table_falls_back_to_pir(void **state)
{
	(void)state;
	load_tables("pc");
	pc_devices(true);
	/* A NIC in slot 5 that the captured MP table knows nothing about; $PIR lists slot 5. */
	add_dev(0, 5, 0, 0x8086, 0x100E, 0x02, 0x00, 0x00, 1, 10);
	assert_int_equal(route(true, PCI_ROUTE_AUTO), 0);
	/* $PIR: 00:05 INTA -> link 0x60 = PIRQA -> IRQ 10; no MP ISA entry for 10, so GSI 10. */
	assert_route(find(0, 5, 0), PCI_ROUTE_PIR, true, 10, true, false);
	assert_string_equal(find(0, 5, 0)->route.why, "MP table: no entry for 00:05 INTA");
	assert_logged("pci 00:05.0: INTA -> GSI 10 (level, active-high, from $PIR PIIX3 PIRQA; MP table: no entry for 00:05 INTA)");
}

static void bogus_pir_router_id_is_refused_and_the_line_register_used(void **state)
{
	(void)state;
	load_tables("pc");
	pc_devices(true);
	/* Make 00:01.0 something that is not a router (registers "read" anyway). */
	find(0, 1, 0)->device_id = 0x7001;
	assert_int_equal(route(false, PCI_ROUTE_AUTO), 0);
	assert_route(find(0, 1, 2), PCI_ROUTE_LINE, false, 11, true, false);
	assert_route(find(0, 3, 0), PCI_ROUTE_LINE, false, 11, true, false);
	assert_logged("pci: $PIR not used: router 00:01.0 is not a PIRQ router: it is 8086:7001 (ISA bridge)");
	assert_logged("pci 00:03.0: INTA -> IRQ 11 (level, from Interrupt Line; $PIR: router 00:01.0 is not a PIRQ router)");
}

static void pir_router_that_does_not_exist_is_refused(void **state)
{
	(void)state;
	load_tables("pc");
	pc_devices(true);
	m.pir.router_devfn = 7 << 3;   /* 00:07.0: nothing there */
	route(false, PCI_ROUTE_AUTO);
	assert_route(find(0, 1, 2), PCI_ROUTE_LINE, false, 11, true, false);
	assert_logged("pci: $PIR not used: router 00:07.0 does not exist");
}

static void unset_interrupt_line_leaves_the_pin_unrouted_with_every_reason(void **state)
{
	(void)state;
	load_tables("pc");
	pc_devices(true);
	add_dev(0, 9, 0, 0x8086, 0x100E, 0x02, 0x00, 0x00, 1, 0xFF);  /* no MP entry, not in $PIR */
	assert_int_equal(route(true, PCI_ROUTE_AUTO), 1);
	assert_int_equal(find(0, 9, 0)->route.source, PCI_ROUTE_NONE);
	assert_int_equal(find(0, 9, 0)->route.line, 0);
	assert_logged("pci 00:09.0: INTA not routed (MP table: no entry for 00:09 INTA; $PIR: 00:09 INTA not listed; "
		      "Interrupt Line 0xff: firmware did not set it)");
	assert_true(log_warning[log_find("pci 00:09.0")]);
}

static void mp_entry_naming_an_unknown_ioapic_is_not_used(void **state)
{
	(void)state;
	load_tables("pc-noacpi");
	pc_devices(false);
	for (uint32_t i = 0; i < m.fw.pci_irqs.count; i++)
		if (m.fw.pci_irqs.entry[i].pci_device == 3)
			m.fw.pci_irqs.entry[i].ioapic_id = 7;
	route(true, PCI_ROUTE_AUTO);
	assert_route(find(0, 3, 0), PCI_ROUTE_PIR, true, 11, true, false);
	assert_string_equal(find(0, 3, 0)->route.why, "MP table: IOAPIC 7 is not in the table");
}

/* ------------------------------------------------------------------------
 * QEMU q35
 */

static void q35_ioapic_mode_follows_the_mp_table_which_lists_lines_10_and_11(void **state)
{
	(void)state;
	/*
	 * QEMU delivers q35 PCI interrupts at GSI 16 + PIRQ and, while the
	 * PIRQ route is enabled, also at ISA IRQ 10/11. SeaBIOS's MP table
	 * lists the ISA path (pin = Interrupt Line), and we follow the table.
	 */
	load_tables("q35");
	q35_devices();
	assert_int_equal(route(true, PCI_ROUTE_AUTO), 0);
	assert_route(find(0, 0x1d, 0), PCI_ROUTE_MPTABLE, true, 10, true, false);
	assert_route(find(0, 0x1d, 1), PCI_ROUTE_MPTABLE, true, 10, true, false);
	assert_route(find(0, 0x1d, 2), PCI_ROUTE_MPTABLE, true, 11, true, false);
	assert_route(find(0, 0x1d, 7), PCI_ROUTE_MPTABLE, true, 11, true, false);
	assert_route(find(0, 0x1f, 2), PCI_ROUTE_MPTABLE, true, 10, true, false);
	assert_logged("pci 00:1d.2: INTC -> GSI 11 (level, active-high, from MP table)");
}

static void q35_noacpi_mp_table_routes_the_same(void **state)
{
	(void)state;
	load_tables("q35-noacpi");
	q35_devices();
	assert_int_equal(route(true, PCI_ROUTE_AUTO), 0);
	assert_route(find(0, 0x1d, 0), PCI_ROUTE_MPTABLE, true, 10, true, false);
	assert_route(find(0, 0x1d, 2), PCI_ROUTE_MPTABLE, true, 11, true, false);
}

static void q35_pir_naming_the_vga_as_router_is_refused_in_pic_mode(void **state)
{
	(void)state;
	load_tables("q35");
	q35_devices();
	assert_int_equal(m.pir.router_devfn, 1 << 3);   /* the captured $PIR really says 00:01.0 */
	assert_int_equal(route(false, PCI_ROUTE_AUTO), 0);
	assert_logged("pci: $PIR not used: router 00:01.0 is not a PIRQ router: it is 1234:1111 "
		      "(VGA compatible controller)");
	assert_route(find(0, 0x1d, 0), PCI_ROUTE_LINE, false, 10, true, false);
	assert_route(find(0, 0x1d, 1), PCI_ROUTE_LINE, false, 10, true, false);
	assert_route(find(0, 0x1d, 2), PCI_ROUTE_LINE, false, 11, true, false);
	assert_logged("pci 00:1d.0: INTA -> IRQ 10 (level, from Interrupt Line; $PIR: router 00:01.0 is not a PIRQ router)");
}

static void forced_pir_on_q35_routes_nothing_and_says_why(void **state)
{
	(void)state;
	load_tables("q35");
	q35_devices();
	assert_int_equal(route(true, PCI_ROUTE_PIR), 7);
	assert_int_equal(find(0, 0x1d, 0)->route.source, PCI_ROUTE_NONE);
	assert_logged("sources: $PIR only (pci_route=pir)");
	assert_logged("pci 00:1d.0: INTA not routed ($PIR: router 00:01.0 is not a PIRQ router)");
	assert_int_equal(log_find("MP table:"), -1);
}

static void forced_line_in_ioapic_mode_uses_the_line_register_as_gsi(void **state)
{
	(void)state;
	load_tables("q35");
	q35_devices();
	assert_int_equal(route(true, PCI_ROUTE_LINE), 0);
	assert_route(find(0, 0x1d, 2), PCI_ROUTE_LINE, true, 11, true, false);
	assert_logged("pci 00:1d.2: INTC -> GSI 11 (level, active-high, from Interrupt Line)");
}

static void forced_mptable_in_pic_mode_refuses_ioapic_pins(void **state)
{
	(void)state;
	load_tables("pc");
	pc_devices(true);
	assert_int_equal(route(false, PCI_ROUTE_MPTABLE), 3);
	assert_string_equal(find(0, 1, 2)->route.why, "MP table: IOAPIC pins mean nothing in PIC mode");
}

/* ------------------------------------------------------------------------
 * Bridges (synthetic tables)
 */

static void add_mp_pci_entry(uint8_t bus, uint8_t dev, uint8_t pin, uint8_t ioapic_pin, uint8_t polarity)
{
	struct fw_mp_irq *e = &m.fw.pci_irqs.entry[m.fw.pci_irqs.count++];

	memset(e, 0, sizeof(*e));
	e->kind = FW_INT_VECTORED;
	e->bus = bus;
	e->pci_device = dev;
	e->pci_pin = (uint8_t)(pin - 1);
	e->bus_irq = (uint8_t)(dev << 2 | (pin - 1));
	e->ioapic_id = 2;
	e->ioapic_pin = ioapic_pin;
	e->polarity = polarity;
	e->trigger = FW_TRIGGER_CONFORMS;
}

static void synthetic_mp_platform(void)
{
	fw_platform_init(&m.fw, FW_SOURCE_MP);
	m.fw.ioapics.count = 1;
	m.fw.ioapics.entry[0].id = 2;
	m.fw.ioapics.entry[0].enabled = true;
	m.fw.ioapics.entry[0].gsi_base = FW_GSI_BASE_UNKNOWN;
}

static void device_behind_two_bridges_uses_the_swizzled_pin_of_the_root_bridge(void **state)
{
	struct pci_dev *b0, *b1, *nic;

	(void)state;
	synthetic_mp_platform();
	add_mp_pci_entry(0, 0x1e, 3, 18, FW_POLARITY_CONFORMS);   /* 00:1e INTC -> pin 18 */
	add_mp_pci_entry(0, 0x1e, 1, 16, FW_POLARITY_CONFORMS);
	b0 = add_bridge(0, 0x1e, 1, 2);
	b1 = add_bridge(1, 0, 2, 2);
	b1->parent = (int16_t)index_of(b0);
	nic = add_dev(2, 1, 0, 0x8086, 0x100E, 0x02, 0x00, 0x00, 2, 0xFF);
	nic->parent = (int16_t)index_of(b1);
	/* 02:01 INTB -> (1 + 1) % 4 = INTC at 01:00 -> (2 + 0) % 4 = INTC at 00:1e. */
	assert_int_equal(route(true, PCI_ROUTE_AUTO), 0);
	assert_route(nic, PCI_ROUTE_MPTABLE, true, 18, true, true);
	assert_int_equal(nic->route.table_bus, 0);
	assert_int_equal(nic->route.table_dev, 0x1e);
	assert_int_equal(nic->route.table_pin, 3);
	assert_logged("pci 02:01.0: INTB -> GSI 18 (level, active-low, from MP table, as 00:1e INTC behind bridges)");
}

static void bus_the_mp_table_describes_is_looked_up_without_swizzling(void **state)
{
	struct pci_dev *bridge, *nic;

	(void)state;
	synthetic_mp_platform();
	add_mp_pci_entry(0, 0x1e, 1, 16, FW_POLARITY_LOW);
	add_mp_pci_entry(1, 4, 1, 21, FW_POLARITY_HIGH);
	bridge = add_bridge(0, 0x1e, 1, 1);
	nic = add_dev(1, 4, 0, 0x8086, 0x100E, 0x02, 0x00, 0x00, 1, 0xFF);
	nic->parent = (int16_t)index_of(bridge);
	assert_int_equal(route(true, PCI_ROUTE_AUTO), 0);
	assert_route(nic, PCI_ROUTE_MPTABLE, true, 21, true, false);
	assert_int_equal(nic->route.table_bus, 1);
}

static void device_behind_a_bridge_is_routed_through_the_pir_slot_of_the_bridge(void **state)
{
	struct pci_dev *bridge, *nic;

	(void)state;
	load_tables("pc-noacpi");
	pc_devices(false);
	bridge = add_bridge(0, 4, 1, 1);      /* $PIR slot 00:04: INTA 0x63 INTB 0x60 INTC 0x61 INTD 0x62 */
	nic = add_dev(1, 3, 0, 0x8086, 0x100E, 0x02, 0x00, 0x00, 1, 0xFF);
	nic->parent = (int16_t)index_of(bridge);
	/* 01:03 INTA -> (0 + 3) % 4 = INTD at 00:04 -> link 0x62 = PIRQC -> IRQ 11. */
	assert_int_equal(route(false, PCI_ROUTE_AUTO), 0);
	assert_route(nic, PCI_ROUTE_PIR, false, 11, true, false);
	assert_int_equal(nic->route.link, 0x62);
	assert_logged("pci 01:03.0: INTA -> IRQ 11 (level, from $PIR PIIX3 PIRQC, as 00:04 INTD behind bridges)");
}

static void looping_parent_chain_ends_at_the_depth_bound(void **state)
{
	struct pci_dev *a, *b, *nic;

	(void)state;
	synthetic_mp_platform();
	add_mp_pci_entry(0, 1, 1, 16, FW_POLARITY_LOW);
	a = add_bridge(3, 0, 4, 4);
	b = add_bridge(4, 0, 3, 3);
	a->parent = (int16_t)index_of(b);
	b->parent = (int16_t)index_of(a);
	nic = add_dev(4, 2, 0, 0x8086, 0x100E, 0x02, 0x00, 0x00, 1, 0xFF);
	nic->parent = (int16_t)index_of(a);
	assert_int_equal(route(true, PCI_ROUTE_MPTABLE), 1);
	assert_int_equal(nic->route.source, PCI_ROUTE_NONE);
	assert_string_equal(nic->route.why, "MP table: bridge chain longer than 256");
}

static void second_mp_ioapic_without_gsi_base_needs_the_resolver(void **state)
{
	struct pci_dev *nic;

	(void)state;
	synthetic_mp_platform();
	m.fw.ioapics.count = 2;
	m.fw.ioapics.entry[1] = m.fw.ioapics.entry[0];
	m.fw.ioapics.entry[0].id = 1;     /* entry for IOAPIC 2 is now the second one */
	add_mp_pci_entry(0, 6, 1, 3, FW_POLARITY_LOW);
	nic = add_dev(0, 6, 0, 0x8086, 0x100E, 0x02, 0x00, 0x00, 1, 0xFF);
	assert_int_equal(route(true, PCI_ROUTE_MPTABLE), 1);
	assert_string_equal(nic->route.why, "MP table: no GSI known for IOAPIC 2 pin 3");
}

static int gsi_after_24(void *ctx, uint8_t ioapic_id, uint8_t pin, uint32_t *gsi)
{
	(void)ctx;
	*gsi = (ioapic_id == 2 ? 24u : 0u) + pin;
	return 0;
}

static void resolver_numbers_the_second_ioapic(void **state)
{
	struct pci_route_inputs in = { 0 };
	struct pci_dev *nic;

	(void)state;
	synthetic_mp_platform();
	m.fw.ioapics.count = 2;
	m.fw.ioapics.entry[1] = m.fw.ioapics.entry[0];
	m.fw.ioapics.entry[0].id = 1;
	add_mp_pci_entry(0, 6, 1, 3, FW_POLARITY_LOW);
	nic = add_dev(0, 6, 0, 0x8086, 0x100E, 0x02, 0x00, 0x00, 1, 0xFF);
	in.fw = &m.fw;
	in.ioapic_mode = true;
	in.choice = PCI_ROUTE_AUTO;
	in.gsi_of = gsi_after_24;
	in.print = capture;
	log_reset();
	assert_int_equal(pci_route_compute(m.dev, m.count, &in), 0);
	assert_route(nic, PCI_ROUTE_MPTABLE, true, 27, true, true);
}

/* ------------------------------------------------------------------------
 * Inputs and the boot parameter
 */

static void route_compute_refuses_null_inputs_and_unknown_choices(void **state)
{
	struct pci_route_inputs in = { .choice = PCI_ROUTE_AUTO };

	(void)state;
	assert_int_equal(pci_route_compute(NULL, 0, &in), -EINVAL);
	assert_int_equal(pci_route_compute(m.dev, 0, NULL), -EINVAL);
	in.choice = PCI_ROUTE_NONE;
	assert_int_equal(pci_route_compute(m.dev, 0, &in), -EINVAL);
	in.choice = PCI_ROUTE_AUTO + 1;
	assert_int_equal(pci_route_compute(m.dev, 0, &in), -EINVAL);
}

static void no_tables_at_all_still_use_the_interrupt_line(void **state)
{
	struct pci_route_inputs in = { .ioapic_mode = false, .choice = PCI_ROUTE_AUTO, .print = capture };

	(void)state;
	pc_devices(false);
	log_reset();
	assert_int_equal(pci_route_compute(m.dev, m.count, &in), 0);
	assert_route(find(0, 1, 2), PCI_ROUTE_LINE, false, 11, true, false);
	assert_string_equal(find(0, 1, 2)->route.why, "$PIR: no table");
}

static void pci_route_parameter_accepts_the_four_sources_only(void **state)
{
	(void)state;
	assert_int_equal(pci_param_route("pir", NULL), 0);
	assert_int_equal(pci_route_choice(), PCI_ROUTE_PIR);
	assert_int_equal(pci_param_route("mptable", NULL), 0);
	assert_int_equal(pci_route_choice(), PCI_ROUTE_MPTABLE);
	assert_int_equal(pci_param_route("line", NULL), 0);
	assert_int_equal(pci_route_choice(), PCI_ROUTE_LINE);
	assert_int_equal(pci_param_route("acpi", NULL), -EINVAL);
	assert_int_equal(pci_param_route("", NULL), -EINVAL);
	assert_int_equal(pci_param_route(NULL, NULL), -EINVAL);
	assert_int_equal(pci_param_route("PIR", NULL), -EINVAL);
	assert_int_equal(pci_route_choice(), PCI_ROUTE_LINE);   /* bad values change nothing */
	assert_int_equal(pci_param_route("auto", NULL), 0);
	assert_int_equal(pci_route_choice(), PCI_ROUTE_AUTO);
}

static void router_tables_know_piix3_piix4_and_ich9_links(void **state)
{
	const struct pirq_router_type *ich9 = pirq_router_lookup(0x8086, 0x2918);

	(void)state;
	assert_non_null(pirq_router_lookup(0x8086, 0x7000));
	assert_non_null(pirq_router_lookup(0x8086, 0x7110));
	assert_null(pirq_router_lookup(0x1234, 0x1111));
	assert_non_null(ich9);
	assert_int_equal(pirq_link_index(ich9, 0x60), 0);
	assert_int_equal(pirq_link_index(ich9, 0x63), 3);
	assert_int_equal(pirq_link_index(ich9, 0x68), 4);
	assert_int_equal(pirq_link_index(ich9, 0x6B), 7);
	assert_int_equal(pirq_link_index(ich9, 0x64), -EINVAL);
	assert_int_equal(pirq_link_index(pirq_router_lookup(0x8086, 0x7000), 0x68), -EINVAL);
	assert_int_equal(pirq_route_irq(0x0b), 11);
	assert_int_equal(pirq_route_irq(0x8b), -EPERM);
	assert_int_equal(pirq_route_irq(0x08), -EINVAL);   /* RTC */
	assert_int_equal(pirq_route_irq(0x1b), -EINVAL);   /* reserved bit 4 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(pc_ioapic_mode_routes_uhci_and_e1000_to_gsi_11_from_the_mp_table, setup, teardown),
		cmocka_unit_test_setup_teardown(pc_acpi_power_management_function_gets_the_sci_line_9, setup, teardown),
		cmocka_unit_test_setup_teardown(pc_noacpi_mp_table_still_routes_both_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(pc_pic_mode_ignores_mp_pins_and_asks_the_piix3_router, setup, teardown),
		cmocka_unit_test_setup_teardown(pc_with_the_acpi_platform_uses_pir_and_the_madt_override_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(disabled_pirq_falls_back_to_the_interrupt_line_and_says_so, setup, teardown),
		cmocka_unit_test_setup_teardown(pirq_routed_to_a_reserved_irq_is_not_trusted, setup, teardown),
		cmocka_unit_test_setup_teardown(device_missing_from_the_mp_table_falls_back_to_pir, setup, teardown),
		cmocka_unit_test_setup_teardown(bogus_pir_router_id_is_refused_and_the_line_register_used, setup, teardown),
		cmocka_unit_test_setup_teardown(pir_router_that_does_not_exist_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(unset_interrupt_line_leaves_the_pin_unrouted_with_every_reason, setup, teardown),
		cmocka_unit_test_setup_teardown(mp_entry_naming_an_unknown_ioapic_is_not_used, setup, teardown),
		cmocka_unit_test_setup_teardown(q35_ioapic_mode_follows_the_mp_table_which_lists_lines_10_and_11, setup, teardown),
		cmocka_unit_test_setup_teardown(q35_noacpi_mp_table_routes_the_same, setup, teardown),
		cmocka_unit_test_setup_teardown(q35_pir_naming_the_vga_as_router_is_refused_in_pic_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(forced_pir_on_q35_routes_nothing_and_says_why, setup, teardown),
		cmocka_unit_test_setup_teardown(forced_line_in_ioapic_mode_uses_the_line_register_as_gsi, setup, teardown),
		cmocka_unit_test_setup_teardown(forced_mptable_in_pic_mode_refuses_ioapic_pins, setup, teardown),
		cmocka_unit_test_setup_teardown(device_behind_two_bridges_uses_the_swizzled_pin_of_the_root_bridge, setup, teardown),
		cmocka_unit_test_setup_teardown(bus_the_mp_table_describes_is_looked_up_without_swizzling, setup, teardown),
		cmocka_unit_test_setup_teardown(device_behind_a_bridge_is_routed_through_the_pir_slot_of_the_bridge, setup, teardown),
		cmocka_unit_test_setup_teardown(looping_parent_chain_ends_at_the_depth_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(second_mp_ioapic_without_gsi_base_needs_the_resolver, setup, teardown),
		cmocka_unit_test_setup_teardown(resolver_numbers_the_second_ioapic, setup, teardown),
		cmocka_unit_test_setup_teardown(route_compute_refuses_null_inputs_and_unknown_choices, setup, teardown),
		cmocka_unit_test_setup_teardown(no_tables_at_all_still_use_the_interrupt_line, setup, teardown),
		cmocka_unit_test_setup_teardown(pci_route_parameter_accepts_the_four_sources_only, setup, teardown),
		cmocka_unit_test_setup_teardown(router_tables_know_piix3_piix4_and_ich9_links, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
