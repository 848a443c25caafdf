/*
 * test_pci_scan.c - host unit tests for PCI enumeration (drivers/pci/pci.c),
 * the PIRQ router control (pirq_router.c) and the shell commands
 * (pci_shell.c), against a fake configuration space.
 *
 * The fake holds up to FAKE_MAX functions, each 256 bytes of configuration
 * space plus a write mask per byte (which bits a write changes), so a BAR
 * answers the all-ones sizing write the way hardware does: with its size.
 * It checks the rules the walk must keep - BARs are sized with I/O and
 * memory decoding off and inside a critical section, critical sections
 * pair up, every probe is counted so the walk is shown to be bounded.
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

#include "pci/pci_internal.h"

/* ------------------------------------------------------------------------
 * Output capture: printk (boot log) and cprintf (shell)
 */
enum { OUT_MAX = 16384, LINE_MAX_LEN = 400 };

static char klog[OUT_MAX], shell_out[OUT_MAX];
static size_t klog_len, shell_len;
static int klog_warnings;

static void append(char *buf, size_t *len, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf + *len, OUT_MAX - *len, fmt, ap);

	assert_true(n >= 0 && (size_t)n < OUT_MAX - *len);
	*len += (size_t)n;
}

int printk(int level, const char *fmt, ...)
{
	va_list ap;

	if (level <= 4)
		klog_warnings++;
	va_start(ap, fmt);
	append(klog, &klog_len, fmt, ap);
	va_end(ap);
	return 0;
}

int cprintf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	append(shell_out, &shell_len, fmt, ap);
	va_end(ap);
	return 0;
}

#define assert_in(buf, needle)                                                   \
	do {                                                                         \
		if (!strstr((buf), (needle)))                                            \
			fail_msg("missing \"%s\" in:\n%s", (needle), (buf));                 \
	} while (0)

/* ------------------------------------------------------------------------
 * The fake configuration space
 */
enum { FAKE_MAX = 300, CFG_LEN = 256 };

struct fake_fn {
	uint8_t bus, dev, fn;
	uint8_t cfg[CFG_LEN];
	uint8_t wmask[CFG_LEN];
};

static struct fake_fn fakes[FAKE_MAX];
static int fake_count;
static struct {
	unsigned long reads, writes;
	int critical_depth, critical_max;
	unsigned long sizing_writes;             /* all-ones writes to a BAR */
	unsigned long sizing_with_decode_on;     /* ... while I/O or memory decoding was on */
	unsigned long sizing_outside_critical;   /* ... outside critical_begin/end */
} fake_stats;

static struct fake_fn *fake_find(uint8_t bus, uint8_t dev, uint8_t fn)
{
	int i;

	for (i = 0; i < fake_count; i++)
		if (fakes[i].bus == bus && fakes[i].dev == dev && fakes[i].fn == fn)
			return &fakes[i];
	return NULL;
}

static uint32_t fake_read(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, uint8_t width)
{
	struct fake_fn *f = fake_find(bus, dev, fn);
	uint32_t v = 0;
	int i;

	(void)ctx;
	fake_stats.reads++;
	assert_true(off % width == 0 && off + width <= CFG_LEN);
	if (!f)
		return 0xFFFFFFFFu;
	for (i = width - 1; i >= 0; i--)
		v = v << 8 | f->cfg[off + i];
	return v;
}

static void fake_write(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, uint8_t width,
		       uint32_t value)
{
	struct fake_fn *f = fake_find(bus, dev, fn);
	int i;

	(void)ctx;
	fake_stats.writes++;
	assert_true(off % width == 0 && off + width <= CFG_LEN);
	if (!f)
		return;
	if (width == 4 && off >= PCI_BAR0 && off < PCI_BAR0 + 24 && value == 0xFFFFFFFFu) {
		fake_stats.sizing_writes++;
		if (f->cfg[PCI_COMMAND] & (PCI_COMMAND_IO | PCI_COMMAND_MEMORY))
			fake_stats.sizing_with_decode_on++;
		if (fake_stats.critical_depth == 0)
			fake_stats.sizing_outside_critical++;
	}
	for (i = 0; i < width; i++) {
		uint8_t b = (uint8_t)(value >> (8 * i));

		f->cfg[off + i] = (uint8_t)((f->cfg[off + i] & ~f->wmask[off + i]) | (b & f->wmask[off + i]));
	}
}

static unsigned long fake_critical_begin(void *ctx)
{
	(void)ctx;
	fake_stats.critical_depth++;
	if (fake_stats.critical_depth > fake_stats.critical_max)
		fake_stats.critical_max = fake_stats.critical_depth;
	return 0x5A;
}

static void fake_critical_end(void *ctx, unsigned long state)
{
	(void)ctx;
	assert_int_equal(state, 0x5A);
	assert_true(fake_stats.critical_depth > 0);
	fake_stats.critical_depth--;
}

static const struct pci_config_ops fake_ops = {
	.name = "fake", .read = fake_read, .write = fake_write,
	.critical_begin = fake_critical_begin, .critical_end = fake_critical_end,
};

static void put8(struct fake_fn *f, unsigned int off, uint8_t v) { f->cfg[off] = v; }
static void put16(struct fake_fn *f, unsigned int off, uint16_t v) { put8(f, off, (uint8_t)v); put8(f, off + 1, (uint8_t)(v >> 8)); }
static void put32(struct fake_fn *f, unsigned int off, uint32_t v) { put16(f, off, (uint16_t)v); put16(f, off + 2, (uint16_t)(v >> 16)); }
static uint32_t get32(const struct fake_fn *f, unsigned int off)
{
	return (uint32_t)f->cfg[off] | (uint32_t)f->cfg[off + 1] << 8 | (uint32_t)f->cfg[off + 2] << 16 |
	       (uint32_t)f->cfg[off + 3] << 24;
}

static void writable32(struct fake_fn *f, unsigned int off, uint32_t mask)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		f->wmask[off + i] = (uint8_t)(mask >> (8 * i));
}

/* A function with IDs, class and header type; command bits 0-2 and 10 and the Interrupt Line writable. */
static struct fake_fn *fake_add(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t vendor, uint16_t device,
				uint32_t class_rev, uint8_t header)
{
	struct fake_fn *f;

	assert_true(fake_count < FAKE_MAX);
	f = &fakes[fake_count++];
	memset(f, 0, sizeof(*f));
	f->bus = bus;
	f->dev = dev;
	f->fn = fn;
	put16(f, PCI_VENDOR_ID, vendor);
	put16(f, PCI_DEVICE_ID, device);
	put32(f, PCI_REVISION_ID, class_rev);   /* class << 24 | subclass << 16 | prog-if << 8 | rev */
	put8(f, PCI_HEADER_TYPE, header);
	f->wmask[PCI_COMMAND] = PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	f->wmask[PCI_COMMAND + 1] = PCI_COMMAND_INTX_DISABLE >> 8;
	f->wmask[PCI_INTERRUPT_LINE] = 0xFF;
	return f;
}

static void fake_irq(struct fake_fn *f, uint8_t pin, uint8_t line)
{
	put8(f, PCI_INTERRUPT_PIN, pin);
	put8(f, PCI_INTERRUPT_LINE, line);
}

/* A BAR at @value whose address bits above its size are writable (flag bits read-only). */
static void fake_bar(struct fake_fn *f, unsigned int i, uint32_t value, uint32_t writable)
{
	put32(f, PCI_BAR0 + 4 * i, value);
	writable32(f, PCI_BAR0 + 4 * i, writable);
}

static struct fake_fn *fake_bridge(uint8_t bus, uint8_t dev, uint8_t secondary, uint8_t subordinate)
{
	struct fake_fn *b = fake_add(bus, dev, 0, 0x8086, 0x244E, 0x06040001, PCI_HEADER_BRIDGE);

	put8(b, PCI_PRIMARY_BUS, bus);
	put8(b, PCI_SECONDARY_BUS, secondary);
	put8(b, PCI_SUBORDINATE_BUS, subordinate);
	return b;
}

/* QEMU pc with -usb, as far as the walk cares (QEMU-FACTS.md). */
static void fake_pc(void)
{
	struct fake_fn *f;

	fake_add(0, 0, 0, 0x8086, 0x1237, 0x06000002, 0);
	f = fake_add(0, 1, 0, 0x8086, 0x7000, 0x06010000, 0x80);
	f->wmask[0x60] = f->wmask[0x61] = f->wmask[0x62] = f->wmask[0x63] = 0x8F;
	put32(f, 0x60, 0x0b0b0a0a);
	f = fake_add(0, 1, 1, 0x8086, 0x7010, 0x01018000, 0);
	fake_bar(f, 4, 0xc061, 0xFFFFFFF0);
	put16(f, PCI_COMMAND, PCI_COMMAND_IO | PCI_COMMAND_MASTER);
	f = fake_add(0, 1, 2, 0x8086, 0x7020, 0x0C030001, 0);
	fake_bar(f, 4, 0xc041, 0xFFFFFFE0);
	fake_irq(f, 4, 11);
	put16(f, PCI_COMMAND, PCI_COMMAND_IO);
	f = fake_add(0, 1, 3, 0x8086, 0x7113, 0x06800003, 0);
	fake_irq(f, 1, 9);
	f = fake_add(0, 2, 0, 0x1234, 0x1111, 0x03000002, 0);
	fake_bar(f, 0, 0xfd000008, 0xFF000000);
	fake_bar(f, 2, 0xfebf0000, 0xFFFFF000);
	f = fake_add(0, 3, 0, 0x8086, 0x100E, 0x02000003, 0);
	fake_bar(f, 0, 0xfebc0000, 0xFFFE0000);
	fake_bar(f, 1, 0xc001, 0xFFFFFFC0);
	fake_irq(f, 1, 11);
	put16(f, PCI_COMMAND, PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
}

static int setup(void **state)
{
	(void)state;
	memset(fakes, 0, sizeof(fakes));
	fake_count = 0;
	memset(&fake_stats, 0, sizeof(fake_stats));
	klog_len = shell_len = 0;
	klog[0] = shell_out[0] = '\0';
	klog_warnings = 0;
	pci_scan(NULL, NULL);
	return 0;
}

static struct pci_dev *dev_at(uint8_t bus, uint8_t dev, uint8_t fn)
{
	unsigned int i;

	for (i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device_at(i);

		if (d->bus == bus && d->dev == dev && d->fn == fn)
			return d;
	}
	fail_msg("%02x:%02x.%u not in the table", bus, dev, fn);
	return NULL;
}

/* ------------------------------------------------------------------------
 * The walk
 */

static void walk_records_the_pc_functions_with_ids_class_and_pins(void **state)
{
	struct pci_walk_stats st;
	struct pci_dev *uhci;

	(void)state;
	fake_pc();
	assert_int_equal(pci_scan(&fake_ops, &st), 7);
	assert_int_equal(st.buses_scanned, 1);
	assert_int_equal(st.functions_found, 7);
	uhci = dev_at(0, 1, 2);
	assert_int_equal(uhci->vendor_id, 0x8086);
	assert_int_equal(uhci->device_id, 0x7020);
	assert_int_equal(uhci->class_code, 0x0C);
	assert_int_equal(uhci->subclass, 0x03);
	assert_int_equal(uhci->prog_if, 0x00);
	assert_int_equal(uhci->revision, 0x01);
	assert_int_equal(uhci->irq_pin, 4);
	assert_int_equal(uhci->irq_line, 11);
	assert_int_equal(uhci->command, PCI_COMMAND_IO);
	assert_int_equal(uhci->parent, -1);
	assert_true(dev_at(0, 1, 0)->multifunction);
	assert_in(klog, "pci 00:01.2 8086:7020 USB UHCI controller, INTD\n");
	assert_in(klog, "pci 00:03.0 8086:100e Ethernet controller, INTA\n");
	assert_in(klog, "pci 00:00.0 8086:1237 Host bridge\n");
	assert_in(klog, "pci 00:01.3 8086:7113 Bridge, INTA\n");
	assert_int_equal(klog_warnings, 0);
}

static void functions_1_to_7_are_probed_only_when_function_0_is_multifunction(void **state)
{
	(void)state;
	fake_add(0, 5, 0, 0x8086, 0x100E, 0x02000000, 0);
	fake_add(0, 5, 3, 0x8086, 0x100E, 0x02000000, 0);   /* a ghost: single-function device */
	fake_add(0, 6, 0, 0x8086, 0x7000, 0x06010000, 0x80);
	fake_add(0, 6, 7, 0x8086, 0x7020, 0x0C030000, 0);
	fake_add(0, 7, 2, 0x8086, 0x7020, 0x0C030000, 0);   /* no function 0: no device */
	assert_int_equal(pci_scan(&fake_ops, NULL), 3);
	assert_non_null(pci_find_device(0x8086, 0x7020, NULL));
	assert_int_equal(pci_find_device(0x8086, 0x7020, NULL)->fn, 7);
	assert_int_equal(pci_find_device(0x8086, 0x100E, NULL)->fn, 0);
	assert_null(pci_find_device(0x8086, 0x100E, pci_find_device(0x8086, 0x100E, NULL)));
}

static void walk_follows_bridges_to_the_buses_firmware_numbered(void **state)
{
	struct pci_walk_stats st;
	struct pci_dev *root, *inner, *nic;

	(void)state;
	fake_bridge(0, 0x1e, 1, 3);
	fake_bridge(1, 0, 2, 2);
	fake_add(2, 3, 0, 0x8086, 0x100E, 0x02000000, 0);
	fake_add(1, 5, 0, 0x8086, 0x7020, 0x0C030000, 0);
	fake_add(3, 0, 0, 0x8086, 0x7020, 0x0C030000, 0);   /* inside the range, but no bridge leads there */
	assert_int_equal(pci_scan(&fake_ops, &st), 4);
	assert_int_equal(st.buses_scanned, 3);
	root = dev_at(0, 0x1e, 0);
	inner = dev_at(1, 0, 0);
	nic = dev_at(2, 3, 0);
	assert_true(root->bus_followed);
	assert_int_equal(root->secondary_bus, 1);
	assert_int_equal(root->subordinate_bus, 3);
	assert_ptr_equal(pci_device_at((unsigned int)inner->parent), root);
	assert_ptr_equal(pci_device_at((unsigned int)nic->parent), inner);
	assert_int_equal(dev_at(1, 5, 0)->parent, inner->parent);
	assert_in(klog, "pci 00:1e.0 8086:244e PCI bridge, buses 01-03\n");
	/* 3 buses x 32 devices, each read once for its vendor ID (plus the functions' own reads). */
	assert_true(fake_stats.reads < 3 * 32 + 4 * 80);
}

static void bridges_with_bogus_bus_numbers_are_reported_and_not_followed(void **state)
{
	struct pci_walk_stats st;

	(void)state;
	fake_bridge(0, 1, 0, 0);     /* never configured */
	fake_bridge(0, 2, 3, 2);     /* subordinate below secondary */
	fake_bridge(0, 3, 4, 6);     /* good */
	fake_bridge(0, 4, 4, 4);     /* claims bus 4 again */
	fake_bridge(4, 0, 4, 4);     /* its own bus: would loop */
	fake_bridge(4, 1, 9, 9);     /* outside its parent's 4-6 */
	fake_bridge(4, 2, 5, 5);     /* good */
	fake_add(5, 0, 0, 0x8086, 0x100E, 0x02000000, 0);
	fake_add(9, 0, 0, 0x8086, 0x100E, 0x02000000, 0);   /* only reachable through the bogus one */
	assert_int_equal(pci_scan(&fake_ops, &st), 8);
	assert_int_equal(st.buses_scanned, 3);
	assert_int_equal(st.bridges_refused, 5);
	assert_in(klog, "pci 00:01.0: bridge to buses 00-00 not followed: not configured by firmware (buses 00-00)");
	assert_in(klog, "pci 00:02.0: bridge to buses 03-02 not followed: subordinate bus is below the secondary bus");
	assert_in(klog, "pci 00:04.0: bridge to buses 04-04 not followed: secondary bus already reached");
	assert_in(klog, "pci 04:00.0: bridge to buses 04-04 not followed: secondary bus is not above the bridge's own bus");
	assert_in(klog, "pci 04:01.0: bridge to buses 09-09 not followed: bus range lies outside the parent bridge's range");
	assert_true(dev_at(0, 3, 0)->bus_followed);
	assert_false(dev_at(0, 4, 0)->bus_followed);
}

static void every_bus_is_scanned_at_most_once_even_when_bridges_chain_to_255(void **state)
{
	struct pci_walk_stats st;
	unsigned int bus;

	(void)state;
	/* A chain 0 -> 1 -> ... -> 255, each bridge also claiming the whole rest. */
	for (bus = 0; bus < 255; bus++)
		fake_bridge((uint8_t)bus, 0, (uint8_t)(bus + 1), 255);
	assert_int_equal(pci_scan(&fake_ops, &st), 128);
	/* The bridge that did not fit is not followed: it has no entry to hang its bus off. */
	assert_int_equal(st.functions_dropped, 1);
	assert_int_equal(st.buses_scanned, 129);
	assert_true(fake_stats.reads < 129 * 32 + 129 * 100);
	assert_in(klog, "pci: table full (PCI_MAX_DEVICES = 128); functions not recorded: 1");
}

static void cardbus_bridge_is_named_and_its_bars_left_alone(void **state)
{
	struct fake_fn *f;
	struct pci_dev *d;

	(void)state;
	f = fake_add(0, 4, 0, 0x104C, 0xAC50, 0x06070000, PCI_HEADER_CARDBUS);
	put32(f, PCI_BAR0, 0xfe000000);
	writable32(f, PCI_BAR0, 0xFFFFF000);
	put16(f, PCI_STATUS, PCI_STATUS_CAP_LIST);
	put8(f, PCI_CARDBUS_CAP_PTR, 0x80);
	put8(f, 0x80, 0x01);
	assert_int_equal(pci_scan(&fake_ops, NULL), 1);
	d = dev_at(0, 4, 0);
	assert_int_equal(d->header_kind, PCI_HEADER_CARDBUS);
	assert_int_equal(d->bar_count, 0);
	assert_int_equal(fake_stats.sizing_writes, 0);
	assert_int_equal(d->cap_count, 1);
	assert_int_equal(d->cap[0].offset, 0x80);
	assert_in(klog, "CardBus bridge");
}

static void interrupt_pin_above_intd_is_treated_as_no_pin(void **state)
{
	struct fake_fn *f;

	(void)state;
	f = fake_add(0, 4, 0, 0x8086, 0x100E, 0x02000000, 0);
	fake_irq(f, 7, 11);
	pci_scan(&fake_ops, NULL);
	assert_int_equal(dev_at(0, 4, 0)->irq_pin, 0);
	assert_in(klog, "pci 00:04.0: Interrupt Pin reads 7 (only 0-4 exist); treated as no pin");
}

/* ------------------------------------------------------------------------
 * BARs
 */

static void bars_are_sized_from_the_all_ones_readback(void **state)
{
	struct fake_fn *f;
	struct pci_dev *d;

	(void)state;
	f = fake_add(0, 4, 0, 0x8086, 0x100E, 0x02000000, 0);
	fake_bar(f, 0, 0xc041, 0xFFFFFFE0);             /* I/O, 32 ports */
	fake_bar(f, 1, 0xe001, 0x0000FFF0);             /* I/O, 16 ports, 16-bit decoder (upper half reads 0) */
	fake_bar(f, 2, 0xfebc0000, 0xFFFE0000);         /* mem32, 128 KiB, non-prefetchable */
	fake_bar(f, 3, 0x0000000C, 0xFF000000);         /* mem64 prefetchable, 16 MiB ... */
	fake_bar(f, 4, 0x00000008, 0xFFFFFFFF);         /* ... at 0x8_0000_0000 */
	fake_bar(f, 5, 0, 0);                           /* not implemented */
	put16(f, PCI_COMMAND, PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	pci_scan(&fake_ops, NULL);
	d = dev_at(0, 4, 0);
	assert_int_equal(d->bar[0].flags, PCI_BAR_IO);
	assert_int_equal(d->bar[0].base, 0xc040);
	assert_int_equal(d->bar[0].size, 32);
	assert_int_equal(d->bar[1].flags, PCI_BAR_IO);
	assert_int_equal(d->bar[1].base, 0xe000);
	assert_int_equal(d->bar[1].size, 16);
	assert_int_equal(d->bar[2].flags, 0);
	assert_int_equal(d->bar[2].base, 0xfebc0000);
	assert_int_equal(d->bar[2].size, 128 * 1024);
	assert_int_equal(d->bar[3].flags, PCI_BAR_MEM64 | PCI_BAR_PREFETCH);
	assert_int_equal(d->bar[3].base, 0x800000000ull);
	assert_int_equal(d->bar[3].size, 16 * 1024 * 1024);
	assert_int_equal(d->bar[4].flags, PCI_BAR_UPPER_HALF);
	assert_int_equal(d->bar[5].size, 0);
}

static void sizing_restores_every_bar_and_the_command_register(void **state)
{
	struct fake_fn *f;
	uint32_t before[6];
	unsigned int i;

	(void)state;
	f = fake_add(0, 4, 0, 0x8086, 0x100E, 0x02000000, 0);
	fake_bar(f, 0, 0xfebc0000, 0xFFFE0000);
	fake_bar(f, 1, 0xc001, 0xFFFFFFC0);
	fake_bar(f, 2, 0xfe00000C, 0xFFFFC000);
	fake_bar(f, 3, 0x00000001, 0xFFFFFFFF);
	put16(f, PCI_COMMAND, PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	for (i = 0; i < 6; i++)
		before[i] = get32(f, PCI_BAR0 + 4 * i);
	pci_scan(&fake_ops, NULL);
	for (i = 0; i < 6; i++)
		assert_int_equal(get32(f, PCI_BAR0 + 4 * i), before[i]);
	assert_int_equal(f->cfg[PCI_COMMAND], PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	assert_int_equal(fake_stats.sizing_writes, 6);       /* BAR0, 1, 2+3 (64-bit), 4, 5 */
	assert_int_equal(fake_stats.sizing_with_decode_on, 0);
	assert_int_equal(fake_stats.sizing_outside_critical, 0);
	assert_int_equal(fake_stats.critical_depth, 0);
	assert_int_equal(dev_at(0, 4, 0)->bar[2].base, 0x1fe000000ull);
	assert_int_equal(dev_at(0, 4, 0)->bar[2].size, 16 * 1024);
}

static void sixty_four_bit_bar_above_4g_gets_its_size_from_the_upper_half(void **state)
{
	struct fake_fn *f;

	(void)state;
	f = fake_add(0, 4, 0, 0x1AF4, 0x1000, 0x02000000, 0);
	fake_bar(f, 0, 0x0000000C, 0x00000000);    /* 8 GiB: no writable bit in the low half */
	fake_bar(f, 1, 0x00000004, 0xFFFFFFFE);
	pci_scan(&fake_ops, NULL);
	assert_int_equal(dev_at(0, 4, 0)->bar[0].size, 8ull << 30);
	assert_int_equal(dev_at(0, 4, 0)->bar[0].base, 0x400000000ull);
}

static void sixty_four_bit_bar_in_the_last_register_is_marked_bad(void **state)
{
	struct fake_fn *f;

	(void)state;
	f = fake_add(0, 4, 0, 0x8086, 0x100E, 0x02000000, 0);
	fake_bar(f, 5, 0xfe000004, 0xFFFFF000);
	f = fake_add(0, 5, 0, 0x8086, 0x100E, 0x02000000, 0);
	fake_bar(f, 0, 0xfe000006, 0xFFFFF000);    /* memory type 11b: reserved */
	pci_scan(&fake_ops, NULL);
	assert_true(dev_at(0, 4, 0)->bar[5].flags & PCI_BAR_BAD);
	assert_int_equal(dev_at(0, 4, 0)->bar[5].size, 0);
	assert_true(dev_at(0, 5, 0)->bar[0].flags & PCI_BAR_BAD);
}

static void bridge_has_two_bars_only(void **state)
{
	struct fake_fn *b;

	(void)state;
	b = fake_bridge(0, 0x1e, 1, 1);
	fake_bar(b, 0, 0xfe800000, 0xFFFFF000);
	put32(b, PCI_BAR0 + 8, 0x01010100);    /* bus numbers live here in a type 1 header */
	writable32(b, PCI_BAR0 + 8, 0xFFFFFFFF);
	pci_scan(&fake_ops, NULL);
	assert_int_equal(dev_at(0, 0x1e, 0)->bar_count, 2);
	assert_int_equal(dev_at(0, 0x1e, 0)->bar[0].size, 4096);
	assert_int_equal(get32(b, PCI_BAR0 + 8), 0x01010100);
	assert_int_equal(fake_stats.sizing_writes, 2);
}

/* ------------------------------------------------------------------------
 * Capabilities
 */

static struct fake_fn *fake_with_caps(void)
{
	struct fake_fn *f = fake_add(0, 4, 0, 0x8086, 0x10D3, 0x02000000, 0);

	put16(f, PCI_STATUS, PCI_STATUS_CAP_LIST);
	put8(f, PCI_CAP_PTR, 0xC8);
	put8(f, 0xC8, 0x01); put8(f, 0xC9, 0xD0);    /* PM */
	put8(f, 0xD0, 0x05); put8(f, 0xD1, 0xE0);    /* MSI */
	put8(f, 0xE0, 0x10); put8(f, 0xE1, 0xA0);    /* PCIe */
	put8(f, 0xA0, 0x11); put8(f, 0xA1, 0x00);    /* MSI-X, end */
	return f;
}

static void capability_list_is_walked_in_order_with_names(void **state)
{
	struct pci_dev *d;

	(void)state;
	fake_with_caps();
	pci_scan(&fake_ops, NULL);
	d = dev_at(0, 4, 0);
	assert_int_equal(d->cap_count, 4);
	assert_false(d->caps_bad);
	assert_int_equal(d->cap[0].id, 0x01);
	assert_int_equal(d->cap[1].offset, 0xD0);
	assert_string_equal(pci_cap_name(d->cap[0].id), "PM");
	assert_string_equal(pci_cap_name(d->cap[1].id), "MSI");
	assert_string_equal(pci_cap_name(d->cap[2].id), "PCIe");
	assert_string_equal(pci_cap_name(d->cap[3].id), "MSI-X");
	assert_string_equal(pci_cap_name(0x09), "vendor");
	assert_string_equal(pci_cap_name(0xEE), "unknown");
}

static void capability_loop_is_cut_and_reported(void **state)
{
	struct fake_fn *f;

	(void)state;
	f = fake_with_caps();
	put8(f, 0xA1, 0xD2);    /* MSI-X points back at MSI (low bits ignored) */
	pci_scan(&fake_ops, NULL);
	assert_int_equal(dev_at(0, 4, 0)->cap_count, 4);
	assert_true(dev_at(0, 4, 0)->caps_bad);
	assert_in(klog, "pci 00:04.0: capability list loops");
}

static void capability_pointer_into_the_header_is_refused(void **state)
{
	struct fake_fn *f;

	(void)state;
	f = fake_with_caps();
	put8(f, 0xD1, 0x10);
	pci_scan(&fake_ops, NULL);
	assert_int_equal(dev_at(0, 4, 0)->cap_count, 2);
	assert_true(dev_at(0, 4, 0)->caps_bad);
}

static void capability_pointer_is_ignored_without_the_status_bit(void **state)
{
	struct fake_fn *f;

	(void)state;
	f = fake_with_caps();
	put16(f, PCI_STATUS, 0);
	pci_scan(&fake_ops, NULL);
	assert_int_equal(dev_at(0, 4, 0)->cap_count, 0);
}

static void long_capability_list_keeps_the_first_sixteen(void **state)
{
	struct fake_fn *f = fake_add(0, 4, 0, 0x8086, 0x10D3, 0x02000000, 0);
	unsigned int i;

	(void)state;
	put16(f, PCI_STATUS, PCI_STATUS_CAP_LIST);
	put8(f, PCI_CAP_PTR, 0x40);
	for (i = 0; i < 40; i++) {           /* 40 vendor capabilities, 4 bytes apart */
		put8(f, 0x40 + 4 * i, 0x09);
		put8(f, 0x41 + 4 * i, i + 1 < 40 ? (uint8_t)(0x44 + 4 * i) : 0);
	}
	pci_scan(&fake_ops, NULL);
	assert_int_equal(dev_at(0, 4, 0)->cap_count, PCI_MAX_CAPS);
	assert_true(dev_at(0, 4, 0)->caps_bad);
}

/* ------------------------------------------------------------------------
 * Helpers for drivers
 */

static void find_class_walks_matches_in_table_order(void **state)
{
	struct pci_dev *d, *not_ours = (struct pci_dev *)&fakes[0];

	(void)state;
	fake_add(0, 0x1d, 0, 0x8086, 0x2934, 0x0C030000, 0x80);
	fake_add(0, 0x1d, 1, 0x8086, 0x2935, 0x0C030000, 0);
	fake_add(0, 0x1d, 7, 0x8086, 0x293A, 0x0C032000, 0);
	pci_scan(&fake_ops, NULL);
	d = pci_find_class(PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, PCI_PROGIF_UHCI, NULL);
	assert_int_equal(d->fn, 0);
	d = pci_find_class(PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, PCI_PROGIF_UHCI, d);
	assert_int_equal(d->fn, 1);
	assert_null(pci_find_class(PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, PCI_PROGIF_UHCI, d));
	assert_int_equal(pci_find_class(PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, PCI_PROGIF_EHCI, NULL)->fn, 7);
	d = pci_find_class(PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, -1, NULL);
	d = pci_find_class(PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, -1, d);
	assert_int_equal(pci_find_class(PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, -1, d)->fn, 7);
	assert_null(pci_find_class(PCI_CLASS_STORAGE, PCI_SUBCLASS_IDE, -1, NULL));
	assert_null(pci_find_class(PCI_CLASS_SERIAL_BUS, PCI_SUBCLASS_USB, -1, not_ours));
	assert_null(pci_device_at(3));
}

static void enable_sets_only_the_requested_command_bits(void **state)
{
	struct fake_fn *f;
	struct pci_dev *d;

	(void)state;
	f = fake_add(0, 4, 0, 0x8086, 0x7020, 0x0C030000, 0);
	put16(f, PCI_COMMAND, PCI_COMMAND_INTX_DISABLE);
	pci_scan(&fake_ops, NULL);
	d = dev_at(0, 4, 0);
	assert_int_equal(pci_enable(d, PCI_ENABLE_IO | PCI_ENABLE_MASTER), 0);
	assert_int_equal(f->cfg[PCI_COMMAND], PCI_COMMAND_IO | PCI_COMMAND_MASTER);
	assert_int_equal(f->cfg[PCI_COMMAND + 1], PCI_COMMAND_INTX_DISABLE >> 8);
	assert_int_equal(d->command, PCI_COMMAND_IO | PCI_COMMAND_MASTER | PCI_COMMAND_INTX_DISABLE);
	assert_in(klog, "pci 00:04.0: command 0x0400 -> 0x0405, enabled I/O bus-master");
	assert_int_equal(pci_enable(d, PCI_ENABLE_MEM), 0);
	assert_int_equal(f->cfg[PCI_COMMAND], PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	assert_int_equal(pci_enable(NULL, PCI_ENABLE_IO), -EINVAL);
	assert_int_equal(pci_enable(d, 0), -EINVAL);
	assert_int_equal(pci_enable(d, 1u << 5), -EINVAL);
}

static void enable_reports_a_bit_that_does_not_stick(void **state)
{
	struct fake_fn *f;

	(void)state;
	f = fake_add(0, 4, 0, 0x8086, 0x7020, 0x0C030000, 0);
	f->wmask[PCI_COMMAND] = PCI_COMMAND_IO;    /* cannot master the bus */
	pci_scan(&fake_ops, NULL);
	assert_int_equal(pci_enable(dev_at(0, 4, 0), PCI_ENABLE_MASTER), -EIO);
	assert_in(klog, "did not take bits 0x0004");
}

static void accessors_use_the_right_byte_lanes_and_refuse_bad_offsets(void **state)
{
	struct fake_fn *f;
	struct pci_dev *d;

	(void)state;
	f = fake_add(0, 4, 0, 0x8086, 0x7020, 0x0C030000, 0);
	writable32(f, 0x40, 0xFFFFFFFF);
	put32(f, 0x40, 0x11223344);
	pci_scan(&fake_ops, NULL);
	d = dev_at(0, 4, 0);
	assert_int_equal(pci_read8(d, 0x41), 0x33);
	assert_int_equal(pci_read16(d, 0x42), 0x1122);
	assert_int_equal(pci_write8(d, 0x42, 0xAB), 0);
	assert_int_equal(get32(f, 0x40), 0x11AB3344);
	assert_int_equal(pci_write16(d, 0x40, 0xBEEF), 0);
	assert_int_equal(get32(f, 0x40), 0x11ABBEEF);
	assert_int_equal(pci_write32(d, 0x40, 0xCAFEF00D), 0);
	assert_int_equal(pci_read32(d, 0x40), 0xCAFEF00D);
	assert_int_equal(pci_read16(d, 0x41), 0xFFFF);
	assert_int_equal(pci_read32(d, 0x42), 0xFFFFFFFFu);
	assert_int_equal(pci_read8(d, 256), 0xFF);
	assert_int_equal(pci_read8(NULL, 0), 0xFF);
	assert_int_equal(pci_write16(d, 0x43, 1), -EINVAL);
	assert_int_equal(pci_write32(d, 0x100, 1), -EINVAL);
	assert_int_equal(pci_write8(NULL, 0x40, 1), -EINVAL);
	assert_int_equal(get32(f, 0x40), 0xCAFEF00D);
}

static void class_names_cover_the_qemu_devices(void **state)
{
	(void)state;
	assert_string_equal(pci_class_name(0x0C, 0x03, 0x00), "USB UHCI controller");
	assert_string_equal(pci_class_name(0x0C, 0x03, 0x20), "USB EHCI controller");
	assert_string_equal(pci_class_name(0x0C, 0x03, 0x77), "USB controller");
	assert_string_equal(pci_class_name(0x01, 0x06, 0x01), "SATA controller (AHCI)");
	assert_string_equal(pci_class_name(0x06, 0x01, 0x00), "ISA bridge");
	assert_string_equal(pci_class_name(0x06, 0x80, 0x00), "Bridge");
	assert_string_equal(pci_class_name(0x11, 0x80, 0x00), "Signal processing controller");
	assert_string_equal(pci_class_name(0xFF, 0x00, 0x00), "Unassigned class");
	assert_string_equal(pci_class_name(0x42, 0x00, 0x00), "Unknown class");
	assert_string_equal(pci_pin_name(4), "INTD");
	assert_string_equal(pci_pin_name(9), "bad");
}

/* ------------------------------------------------------------------------
 * PIRQ router control
 */

static struct fw_pir pir_naming(uint8_t bus, uint8_t devfn)
{
	struct fw_pir pir;

	memset(&pir, 0, sizeof(pir));
	pir.present = true;
	pir.router_bus = bus;
	pir.router_devfn = devfn;
	pir.slots.count = 2;
	pir.slots.entry[0].devfn = 1 << 3;
	pir.slots.entry[0].pin[3].link = 0x63;
	pir.slots.entry[1].devfn = 3 << 3;
	pir.slots.entry[1].pin[0].link = 0x62;
	return pir;
}

static void router_named_by_pir_is_read_and_can_be_rerouted(void **state)
{
	struct pirq_router_regs regs;
	struct fw_pir pir;
	uint8_t value = 0;

	(void)state;
	fake_pc();
	pci_scan(&fake_ops, NULL);
	pir = pir_naming(0, 1 << 3);
	assert_int_equal(pirq_router_probe(&pir, &regs), 0);
	assert_string_equal(regs.type->name, "PIIX3");
	assert_memory_equal(regs.value, "\x0a\x0a\x0b\x0b", 4);
	assert_int_equal(pirq_router_get(0x63, &value), 0);
	assert_int_equal(value, 0x0b);
	assert_int_equal(pirq_router_set(0x63, 0x80), 0);
	assert_int_equal(fakes[1].cfg[0x63], 0x80);
	assert_in(klog, "pirq: PIIX3 PIRQD (0x63) 0x0b -> 0x80 (disabled)");
	assert_int_equal(pirq_router_set(0x63, 0x0a), 0);
	assert_int_equal(fakes[1].cfg[0x63], 0x0a);
	assert_int_equal(pirq_router_get(0x68, &value), -EINVAL);     /* PIIX3 has no PIRQE */
	assert_int_equal(pirq_router_set(0x64, 0x0a), -EINVAL);
	assert_int_equal(pirq_router_set(0x60, 0x08), -EINVAL);       /* IRQ 8: reserved */
	assert_int_equal(pirq_router_set(0x60, 0x1a), -EINVAL);       /* reserved bit */
	assert_int_equal(pirq_router_get(0x60, NULL), -EINVAL);
}

static void router_write_that_does_not_stick_is_an_io_error(void **state)
{
	struct fw_pir pir;

	(void)state;
	fake_pc();
	fakes[1].wmask[0x61] = 0;
	pci_scan(&fake_ops, NULL);
	pir = pir_naming(0, 1 << 3);
	assert_int_equal(pirq_router_probe(&pir, NULL), 0);
	assert_int_equal(pirq_router_set(0x61, 0x0b), -EIO);
}

static void wrong_pir_router_falls_back_to_the_ich9_found_by_scan(void **state)
{
	struct pirq_router_regs regs;
	struct fake_fn *lpc;
	struct fw_pir pir;
	uint8_t value;

	(void)state;
	fake_add(0, 1, 0, 0x1234, 0x1111, 0x03000002, 0);   /* q35: VGA where $PIR says PIIX */
	lpc = fake_add(0, 0x1f, 0, 0x8086, 0x2918, 0x06010002, 0x80);
	put32(lpc, 0x60, 0x0b0b0a0a);
	put32(lpc, 0x68, 0x0b0b0a0a);
	writable32(lpc, 0x68, 0x8F8F8F8F);
	pci_scan(&fake_ops, NULL);
	pir = pir_naming(0, 1 << 3);
	assert_int_equal(pirq_router_probe(&pir, &regs), 0);
	assert_string_equal(regs.type->name, "ICH9");
	assert_int_equal(regs.devfn, 0x1f << 3);
	assert_int_equal(pirq_router_get(0x6B, &value), 0);
	assert_int_equal(value, 0x0b);
	assert_int_equal(pirq_router_set(0x68, 0x80), 0);
	assert_int_equal(lpc->cfg[0x68], 0x80);
}

static void no_router_means_no_router_control(void **state)
{
	uint8_t value;

	(void)state;
	fake_add(0, 0, 0, 0x8086, 0x1237, 0x06000002, 0);
	pci_scan(&fake_ops, NULL);
	assert_int_equal(pirq_router_probe(NULL, NULL), -ENODEV);
	assert_int_equal(pirq_router_get(0x60, &value), -ENODEV);
	assert_int_equal(pirq_router_set(0x60, 0x80), -ENODEV);
}

/* ------------------------------------------------------------------------
 * Shell commands and pci_route_all on the fake machine
 */

static char *argv_v[] = { "lspci", "-v", NULL };
static char *argv_plain[] = { "lspci", NULL };
static char *argv_bad[] = { "lspci", "-x", NULL };

static void lspci_prints_one_line_per_function_and_details_with_v(void **state)
{
	(void)state;
	fake_pc();
	pci_scan(&fake_ops, NULL);
	assert_int_equal(pci_cmd_lspci(1, argv_plain), 0);
	assert_in(shell_out, "00:00.0 8086:1237 Host bridge (rev 02)\n");
	assert_in(shell_out, "00:01.2 8086:7020 USB UHCI controller (rev 01), INTD (Interrupt Line 11; not routed yet)\n");
	shell_len = 0;
	assert_int_equal(pci_cmd_lspci(2, argv_v), 0);
	assert_in(shell_out, "        BAR4: I/O ports at 0xc040 [size 32]\n");
	assert_in(shell_out, "        BAR0: memory at 0xfebc0000 (32-bit, non-prefetchable) [size 128K]\n");
	assert_in(shell_out, "        BAR0: memory at 0xfd000000 (32-bit, prefetchable) [size 16M]\n");
	assert_in(shell_out, "        command 0x0007, status 0x0000, header normal\n");
	assert_int_equal(pci_cmd_lspci(2, argv_bad), -EINVAL);
	assert_in(shell_out, "usage: lspci [-v]");
}

static void route_all_then_routes_shows_decisions_and_live_router_registers(void **state)
{
	char *argv[] = { "routes", NULL };
	struct fw_pir pir;

	(void)state;
	fake_pc();
	pci_scan(&fake_ops, NULL);
	pir = pir_naming(0, 1 << 3);
	assert_int_equal(pci_route_all(NULL, &pir, false), 0);
	assert_in(klog, "pci 00:01.2: INTD -> IRQ 11 (level, from $PIR PIIX3 PIRQD)");
	assert_in(klog, "pci 00:01.3: INTA -> IRQ 9 (level, from Interrupt Line; $PIR: 00:01 INTA not connected)");
	assert_int_equal(pci_cmd_routes(1, argv), 0);
	assert_in(shell_out, "pci routes, PIC mode (ISA IRQs), pci_route=auto:\n");
	assert_in(shell_out, "  00:01.2 INTD -> IRQ 11  level -           $PIR (link 0x63)\n");
	assert_in(shell_out, "  PIRQD (0x63) = 0x0b -> IRQ 11\n");
	assert_int_equal(pirq_router_set(0x63, 0x80), 0);
	shell_len = 0;
	pci_cmd_routes(1, argv);
	assert_in(shell_out, "  PIRQD (0x63) = 0x80 -> disabled\n");
	shell_len = 0;
	pci_cmd_lspci(1, argv_plain);
	assert_in(shell_out, "00:01.2 8086:7020 USB UHCI controller (rev 01), INTD -> IRQ 11 ($PIR)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(walk_records_the_pc_functions_with_ids_class_and_pins, setup),
		cmocka_unit_test_setup(functions_1_to_7_are_probed_only_when_function_0_is_multifunction, setup),
		cmocka_unit_test_setup(walk_follows_bridges_to_the_buses_firmware_numbered, setup),
		cmocka_unit_test_setup(bridges_with_bogus_bus_numbers_are_reported_and_not_followed, setup),
		cmocka_unit_test_setup(every_bus_is_scanned_at_most_once_even_when_bridges_chain_to_255, setup),
		cmocka_unit_test_setup(cardbus_bridge_is_named_and_its_bars_left_alone, setup),
		cmocka_unit_test_setup(interrupt_pin_above_intd_is_treated_as_no_pin, setup),
		cmocka_unit_test_setup(bars_are_sized_from_the_all_ones_readback, setup),
		cmocka_unit_test_setup(sizing_restores_every_bar_and_the_command_register, setup),
		cmocka_unit_test_setup(sixty_four_bit_bar_above_4g_gets_its_size_from_the_upper_half, setup),
		cmocka_unit_test_setup(sixty_four_bit_bar_in_the_last_register_is_marked_bad, setup),
		cmocka_unit_test_setup(bridge_has_two_bars_only, setup),
		cmocka_unit_test_setup(capability_list_is_walked_in_order_with_names, setup),
		cmocka_unit_test_setup(capability_loop_is_cut_and_reported, setup),
		cmocka_unit_test_setup(capability_pointer_into_the_header_is_refused, setup),
		cmocka_unit_test_setup(capability_pointer_is_ignored_without_the_status_bit, setup),
		cmocka_unit_test_setup(long_capability_list_keeps_the_first_sixteen, setup),
		cmocka_unit_test_setup(find_class_walks_matches_in_table_order, setup),
		cmocka_unit_test_setup(enable_sets_only_the_requested_command_bits, setup),
		cmocka_unit_test_setup(enable_reports_a_bit_that_does_not_stick, setup),
		cmocka_unit_test_setup(accessors_use_the_right_byte_lanes_and_refuse_bad_offsets, setup),
		cmocka_unit_test_setup(class_names_cover_the_qemu_devices, setup),
		cmocka_unit_test_setup(router_named_by_pir_is_read_and_can_be_rerouted, setup),
		cmocka_unit_test_setup(router_write_that_does_not_stick_is_an_io_error, setup),
		cmocka_unit_test_setup(wrong_pir_router_falls_back_to_the_ich9_found_by_scan, setup),
		cmocka_unit_test_setup(no_router_means_no_router_control, setup),
		cmocka_unit_test_setup(lspci_prints_one_line_per_function_and_details_with_v, setup),
		cmocka_unit_test_setup(route_all_then_routes_shows_decisions_and_live_router_registers, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
