/*
 * pci.c - PCI enumeration: the bus walk, BAR sizing, the capability list,
 * and the helpers drivers use (find, enable, configuration accessors).
 * PCI Local Bus Specification 3.0 chapter 6 (configuration header, BARs in
 * 6.2.5.1, capabilities in 6.7) and the PCI-to-PCI Bridge Architecture
 * Specification 1.2 chapter 3.2.5 (bus number registers).
 *
 * The walk starts at bus 0 and follows every bridge (type 1, and CardBus
 * type 2, whose bus registers sit at the same offsets) to the bus numbers
 * firmware programmed. Those numbers are untrusted: a secondary bus that
 * is not above the bridge's own bus, lies outside the parent bridge's
 * range, exceeds the subordinate number, or was reached before (a loop, or
 * two bridges claiming one bus) is reported and not followed. Each bus is
 * scanned at most once, so the walk ends after at most 256 x 32 x 8 probes.
 *
 * Configuration space is reached through struct pci_config_ops: mechanism
 * #1 in the kernel (pci_conf1.c), a fake in the host tests.
 * See also pci_route.c (which line each pin gets) and pci_shell.c.
 */
#include <stddef.h>

#include <kernel/errno.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#include "pci_internal.h"

/* Register layout details the walk needs (PCI 3.0 sections 6.1, 6.2.5.1, 6.7). */
enum pci_layout {
	PCI_HEADER_MULTIFUNCTION = 0x80, /* header type bit 7 (function 0): functions 1-7 may exist */
	PCI_HEADER_KIND_MASK = 0x7F,
	PCI_VENDOR_NONE = 0xFFFF,        /* what an absent function reads */
	PCI_VENDOR_INVALID = 0x0000,     /* never assigned; seen on broken devices */
	PCI_BAR_LEN = 4,
	PCI_BRIDGE_BARS = 2,             /* type 1 headers: BAR0 and BAR1 only */
	PCI_PIN_MAX = 4,                 /* INTD */
	PCI_CAP_FIRST = 0x40,            /* capabilities live after the 64-byte header */
	PCI_CAP_ALIGN_MASK = 0xFC,       /* the bottom two pointer bits are reserved */
	PCI_CAP_NEXT = 1,                /* offset of the next pointer inside a capability */
	/* Capabilities that fit between 0x40 and 0xFF, 4 bytes each: the walk's hard bound. */
	PCI_CAP_WALK_MAX = (PCI_CONFIG_SPACE_LEN - PCI_CAP_FIRST) / 4,
};

/* BAR low bits (PCI 3.0 section 6.2.5.1). */
enum pci_bar_bits {
	BAR_SPACE_IO = 0x1,              /* bit 0: 1 = I/O space */
	BAR_IO_ADDR_MASK = 0xFFFFFFFCu,  /* I/O: bits 1:0 are flags */
	BAR_MEM_TYPE_MASK = 0x6,         /* memory: bits 2:1 = locatable type */
	BAR_MEM_TYPE_32 = 0x0,           /* anywhere in 32-bit space */
	BAR_MEM_TYPE_1M = 0x2,           /* below 1 MiB (PCI 2.1, obsolete) */
	BAR_MEM_TYPE_64 = 0x4,           /* 64-bit: the next BAR holds the upper half */
	BAR_MEM_PREFETCH = 0x8,          /* bit 3: prefetchable */
	BAR_MEM_ADDR_MASK = 0xFFFFFFF0u, /* memory: bits 3:0 are flags */
	BAR_IO_16BIT_MASK = 0xFFFF0000u, /* I/O BARs of 16-bit decoders read 0 up here */
	BAR_SIZING_PATTERN = 0xFFFFFFFFu,/* written to learn which address bits are writable */
};

static const struct pci_config_ops *pci_ops;
static struct pci_dev pci_devs[PCI_MAX_DEVICES];
static unsigned int pci_count;

/* ------------------------------------------------------------------------
 * Checked access
 */

static bool access_ok(uint8_t dev, uint8_t fn, unsigned int off, unsigned int width)
{
	if (dev >= PCI_DEVICES_PER_BUS || fn >= PCI_FUNCTIONS_PER_DEVICE)
		return false;
	if (width != 1 && width != 2 && width != 4)
		return false;
	return off < PCI_CONFIG_SPACE_LEN && off % width == 0;
}

static uint32_t all_ones(unsigned int width)
{
	return width >= 4 ? 0xFFFFFFFFu : (1u << (width * 8)) - 1;
}

uint32_t pci_conf_read(uint8_t bus, uint8_t dev, uint8_t fn, unsigned int off, unsigned int width)
{
	if (!pci_ops || !access_ok(dev, fn, off, width))
		return all_ones(width);
	return pci_ops->read(pci_ops->ctx, bus, dev, fn, (uint16_t)off, (uint8_t)width) & all_ones(width);
}

int pci_conf_write(uint8_t bus, uint8_t dev, uint8_t fn, unsigned int off, unsigned int width,
		   uint32_t value)
{
	if (!pci_ops)
		return -ENODEV;
	if (!access_ok(dev, fn, off, width))
		return -EINVAL;
	pci_ops->write(pci_ops->ctx, bus, dev, fn, (uint16_t)off, (uint8_t)width, value & all_ones(width));
	return 0;
}

static unsigned long critical_begin(void)
{
	return pci_ops && pci_ops->critical_begin ? pci_ops->critical_begin(pci_ops->ctx) : 0;
}

static void critical_end(unsigned long state)
{
	if (pci_ops && pci_ops->critical_end)
		pci_ops->critical_end(pci_ops->ctx, state);
}

uint8_t pci_read8(const struct pci_dev *d, unsigned int off)
{
	return d ? (uint8_t)pci_conf_read(d->bus, d->dev, d->fn, off, 1) : 0xFF;
}

uint16_t pci_read16(const struct pci_dev *d, unsigned int off)
{
	return d ? (uint16_t)pci_conf_read(d->bus, d->dev, d->fn, off, 2) : 0xFFFF;
}

uint32_t pci_read32(const struct pci_dev *d, unsigned int off)
{
	return d ? pci_conf_read(d->bus, d->dev, d->fn, off, 4) : 0xFFFFFFFFu;
}

int pci_write8(const struct pci_dev *d, unsigned int off, uint8_t value)
{
	return d ? pci_conf_write(d->bus, d->dev, d->fn, off, 1, value) : -EINVAL;
}

int pci_write16(const struct pci_dev *d, unsigned int off, uint16_t value)
{
	return d ? pci_conf_write(d->bus, d->dev, d->fn, off, 2, value) : -EINVAL;
}

int pci_write32(const struct pci_dev *d, unsigned int off, uint32_t value)
{
	return d ? pci_conf_write(d->bus, d->dev, d->fn, off, 4, value) : -EINVAL;
}

char *pci_bdf(const struct pci_dev *d, char *buf)
{
	static const char hex[] = "0123456789abcdef";

	buf[0] = hex[d->bus >> 4];
	buf[1] = hex[d->bus & 0xF];
	buf[2] = ':';
	buf[3] = hex[d->dev >> 4];
	buf[4] = hex[d->dev & 0xF];
	buf[5] = '.';
	buf[6] = (char)('0' + (d->fn & PCI_DEVFN_FN_MASK));
	buf[7] = '\0';
	return buf;
}

/* ------------------------------------------------------------------------
 * BARs
 */

/* Lowest writable address bit = the size (sizes are powers of two). */
static uint64_t lowest_bit(uint64_t mask)
{
	return mask & (~mask + 1);
}

/*
 * Size BAR @i: write all ones, read back which bits stuck, restore. A
 * 64-bit BAR sizes both halves together. RETURNS BAR registers consumed.
 */
static unsigned int size_bar(struct pci_dev *d, unsigned int i)
{
	unsigned int off = PCI_BAR0 + i * PCI_BAR_LEN;
	struct pci_bar *bar = &d->bar[i];
	uint32_t orig = pci_read32(d, off), probe, orig_hi, probe_hi;
	uint64_t mask;

	pci_write32(d, off, BAR_SIZING_PATTERN);
	probe = pci_read32(d, off);
	pci_write32(d, off, orig);
	if (orig & BAR_SPACE_IO) {
		mask = probe & BAR_IO_ADDR_MASK;
		if (mask && !(mask & BAR_IO_16BIT_MASK))
			mask |= BAR_IO_16BIT_MASK;
		bar->flags = PCI_BAR_IO;
		bar->base = orig & BAR_IO_ADDR_MASK;
		bar->size = lowest_bit(mask);
		return 1;
	}
	bar->base = orig & BAR_MEM_ADDR_MASK;
	bar->flags = (orig & BAR_MEM_PREFETCH) ? PCI_BAR_PREFETCH : 0;
	mask = probe & BAR_MEM_ADDR_MASK;
	switch (orig & BAR_MEM_TYPE_MASK) {
	case BAR_MEM_TYPE_1M:
		bar->flags |= PCI_BAR_BELOW_1M;
		__attribute__((fallthrough)); /* otherwise a 32-bit BAR */
	case BAR_MEM_TYPE_32:
		bar->size = lowest_bit(mask);
		return 1;
	case BAR_MEM_TYPE_64:
		if (i + 1 >= d->bar_count)
			break;
		orig_hi = pci_read32(d, off + PCI_BAR_LEN);
		pci_write32(d, off + PCI_BAR_LEN, BAR_SIZING_PATTERN);
		probe_hi = pci_read32(d, off + PCI_BAR_LEN);
		pci_write32(d, off + PCI_BAR_LEN, orig_hi);
		mask |= (uint64_t)probe_hi << 32;
		bar->base |= (uint64_t)orig_hi << 32;
		bar->flags |= PCI_BAR_MEM64;
		bar->size = lowest_bit(mask);
		d->bar[i + 1].flags = PCI_BAR_UPPER_HALF;
		return 2;
	default:
		break;
	}
	/* Reserved type, or a 64-bit BAR with no register left for its upper half. */
	bar->flags |= PCI_BAR_BAD;
	bar->size = 0;
	return 1;
}

/*
 * Decode and size all BARs with I/O and memory decoding off, so that the
 * all-ones pattern never makes the function answer at a wild address, and
 * without interruption (nobody may touch the device meanwhile).
 */
static void size_bars(struct pci_dev *d)
{
	uint16_t decode = PCI_COMMAND_IO | PCI_COMMAND_MEMORY;
	uint16_t cmd;
	unsigned long state;
	unsigned int i;

	if (d->bar_count == 0)
		return;
	state = critical_begin();
	cmd = pci_read16(d, PCI_COMMAND);
	if (cmd & decode)
		pci_write16(d, PCI_COMMAND, (uint16_t)(cmd & ~decode));
	for (i = 0; i < d->bar_count;)
		i += size_bar(d, i);
	if (cmd & decode)
		pci_write16(d, PCI_COMMAND, cmd);
	critical_end(state);
}

/* ------------------------------------------------------------------------
 * Capabilities
 */

static void walk_caps(struct pci_dev *d)
{
	uint8_t seen[PCI_CONFIG_SPACE_LEN / 4 / 8] = { 0 };
	unsigned int ptr, steps;

	if (!(d->status & PCI_STATUS_CAP_LIST))
		return;
	ptr = pci_read8(d, d->header_kind == PCI_HEADER_CARDBUS ? PCI_CARDBUS_CAP_PTR : PCI_CAP_PTR);
	ptr &= PCI_CAP_ALIGN_MASK;
	for (steps = 0; ptr != 0; steps++) {
		unsigned int slot = ptr / 4;

		if (ptr < PCI_CAP_FIRST || steps >= PCI_CAP_WALK_MAX || (seen[slot / 8] & (1u << (slot % 8)))) {
			d->caps_bad = true;
			return;
		}
		seen[slot / 8] |= (uint8_t)(1u << (slot % 8));
		if (d->cap_count < PCI_MAX_CAPS) {
			d->cap[d->cap_count].id = pci_read8(d, ptr);
			d->cap[d->cap_count].offset = (uint8_t)ptr;
			d->cap_count++;
		} else {
			d->caps_bad = true;
		}
		ptr = pci_read8(d, ptr + PCI_CAP_NEXT) & PCI_CAP_ALIGN_MASK;
	}
}

/* ------------------------------------------------------------------------
 * One function
 */

static void read_header(struct pci_dev *d, uint16_t vendor, int16_t parent)
{
	uint8_t header = pci_read8(d, PCI_HEADER_TYPE);

	d->vendor_id = vendor;
	d->device_id = pci_read16(d, PCI_DEVICE_ID);
	d->command = pci_read16(d, PCI_COMMAND);
	d->status = pci_read16(d, PCI_STATUS);
	d->revision = pci_read8(d, PCI_REVISION_ID);
	d->prog_if = pci_read8(d, PCI_PROG_IF);
	d->subclass = pci_read8(d, PCI_SUBCLASS);
	d->class_code = pci_read8(d, PCI_CLASS_CODE);
	d->header_kind = header & PCI_HEADER_KIND_MASK;
	d->multifunction = (header & PCI_HEADER_MULTIFUNCTION) != 0;
	d->irq_pin = pci_read8(d, PCI_INTERRUPT_PIN);
	d->irq_line = pci_read8(d, PCI_INTERRUPT_LINE);
	d->parent = parent;
	switch (d->header_kind) {
	case PCI_HEADER_NORMAL:
		d->bar_count = PCI_MAX_BARS;
		break;
	case PCI_HEADER_BRIDGE:
		d->bar_count = PCI_BRIDGE_BARS;
		break;
	default:
		d->bar_count = 0;   /* CardBus BARs are not decoded; unknown layouts not touched */
		break;
	}
	if (d->header_kind == PCI_HEADER_BRIDGE || d->header_kind == PCI_HEADER_CARDBUS) {
		d->secondary_bus = pci_read8(d, PCI_SECONDARY_BUS);
		d->subordinate_bus = pci_read8(d, PCI_SUBORDINATE_BUS);
	}
}

static void print_function(const struct pci_dev *d, uint8_t raw_pin)
{
	char bdf[PCI_BDF_LEN];
	const char *name = pci_class_name(d->class_code, d->subclass, d->prog_if);

	pci_bdf(d, bdf);
	if (d->header_kind == PCI_HEADER_BRIDGE || d->header_kind == PCI_HEADER_CARDBUS)
		pr_info("pci %s %04x:%04x %s, buses %02x-%02x%s%s\n", bdf, d->vendor_id, d->device_id,
			name, d->secondary_bus, d->subordinate_bus, d->irq_pin ? ", " : "",
			d->irq_pin ? pci_pin_name(d->irq_pin) : "");
	else if (d->irq_pin)
		pr_info("pci %s %04x:%04x %s, %s\n", bdf, d->vendor_id, d->device_id, name,
			pci_pin_name(d->irq_pin));
	else
		pr_info("pci %s %04x:%04x %s\n", bdf, d->vendor_id, d->device_id, name);
	if (raw_pin > PCI_PIN_MAX)
		pr_warn("pci %s: Interrupt Pin reads %u (only 0-4 exist); treated as no pin\n", bdf, raw_pin);
	if (d->header_kind > PCI_HEADER_CARDBUS)
		pr_warn("pci %s: unknown header type %u; BARs and bridges not decoded\n", bdf, d->header_kind);
	if (d->caps_bad)
		pr_warn("pci %s: capability list loops, points into the header or is too long; "
			"kept the first %u\n", bdf, d->cap_count);
}

/* Record the function at @bus:@dev.@fn. RETURNS its table index, or -1 if not kept. */
static int probe_function(uint8_t bus, uint8_t dev, uint8_t fn, uint16_t vendor, int16_t parent,
			  struct pci_walk_stats *stats)
{
	struct pci_dev *d;
	uint8_t raw_pin;

	stats->functions_found++;
	if (pci_count >= PCI_MAX_DEVICES) {
		stats->functions_dropped++;
		return -1;
	}
	d = &pci_devs[pci_count];
	memset(d, 0, sizeof(*d));
	d->bus = bus;
	d->dev = dev;
	d->fn = fn;
	read_header(d, vendor, parent);
	raw_pin = d->irq_pin;
	if (raw_pin > PCI_PIN_MAX)
		d->irq_pin = 0;
	size_bars(d);
	walk_caps(d);
	print_function(d, raw_pin);
	return (int)pci_count++;
}

/* ------------------------------------------------------------------------
 * Buses
 */

struct bus_walk {
	uint8_t queue[PCI_BUS_COUNT];     /* buses to scan, in discovery order */
	int16_t queue_parent[PCI_BUS_COUNT];
	uint8_t visited[PCI_BUS_COUNT / 8];
	unsigned int head, tail;
	struct pci_walk_stats *stats;
};

static bool bus_visited(const struct bus_walk *w, uint8_t bus)
{
	return w->visited[bus / 8] & (1u << (bus % 8));
}

static void bus_push(struct bus_walk *w, uint8_t bus, int16_t parent)
{
	w->visited[bus / 8] |= (uint8_t)(1u << (bus % 8));
	w->queue[w->tail] = bus;
	w->queue_parent[w->tail] = parent;
	w->tail++;
}

/* Why the bus numbers of bridge @b (on the bus behind @parent) cannot be followed, or NULL. */
static const char *bridge_refusal(const struct bus_walk *w, const struct pci_dev *b,
				  const struct pci_dev *parent)
{
	if (b->secondary_bus == 0 && b->subordinate_bus == 0)
		return "not configured by firmware (buses 00-00)";
	if (b->secondary_bus <= b->bus)
		return "secondary bus is not above the bridge's own bus";
	if (b->subordinate_bus < b->secondary_bus)
		return "subordinate bus is below the secondary bus";
	if (parent && (b->secondary_bus <= parent->secondary_bus ||
		       b->subordinate_bus > parent->subordinate_bus))
		return "bus range lies outside the parent bridge's range";
	if (bus_visited(w, b->secondary_bus))
		return "secondary bus already reached (loop or two bridges claim it)";
	return NULL;
}

static void follow_bridge(struct bus_walk *w, int index)
{
	struct pci_dev *b = &pci_devs[index];
	const struct pci_dev *parent = b->parent >= 0 ? &pci_devs[b->parent] : NULL;
	const char *why;
	char bdf[PCI_BDF_LEN];

	if (b->header_kind != PCI_HEADER_BRIDGE && b->header_kind != PCI_HEADER_CARDBUS)
		return;
	why = bridge_refusal(w, b, parent);
	if (why) {
		w->stats->bridges_refused++;
		pr_warn("pci %s: bridge to buses %02x-%02x not followed: %s\n", pci_bdf(b, bdf),
			b->secondary_bus, b->subordinate_bus, why);
		return;
	}
	b->bus_followed = true;
	bus_push(w, b->secondary_bus, (int16_t)index);
}

static void scan_device(struct bus_walk *w, uint8_t bus, uint8_t dev, int16_t parent)
{
	uint8_t fn, fns = 1;

	for (fn = 0; fn < fns; fn++) {
		uint16_t vendor = (uint16_t)pci_conf_read(bus, dev, fn, PCI_VENDOR_ID, 2);
		int index;

		if (vendor == PCI_VENDOR_NONE || vendor == PCI_VENDOR_INVALID) {
			if (fn == 0)
				return;
			continue;
		}
		if (fn == 0 && (pci_conf_read(bus, dev, 0, PCI_HEADER_TYPE, 1) & PCI_HEADER_MULTIFUNCTION))
			fns = PCI_FUNCTIONS_PER_DEVICE;
		index = probe_function(bus, dev, fn, vendor, parent, w->stats);
		if (index >= 0)
			follow_bridge(w, index);
	}
}

int pci_scan(const struct pci_config_ops *ops, struct pci_walk_stats *stats)
{
	static struct bus_walk walk;    /* 1 KiB: kept off the boot stack */
	struct pci_walk_stats local;
	uint8_t dev;

	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	memset(&walk, 0, sizeof(walk));
	walk.stats = stats;
	pci_ops = ops;
	pci_count = 0;
	if (!ops)
		return 0;
	bus_push(&walk, 0, -1);
	while (walk.head < walk.tail) {
		uint8_t bus = walk.queue[walk.head];
		int16_t parent = walk.queue_parent[walk.head];

		walk.head++;
		stats->buses_scanned++;
		for (dev = 0; dev < PCI_DEVICES_PER_BUS; dev++)
			scan_device(&walk, bus, dev, parent);
	}
	if (stats->functions_dropped)
		pr_warn("pci: table full (PCI_MAX_DEVICES = %u); functions not recorded: %u\n",
			PCI_MAX_DEVICES, stats->functions_dropped);
	return (int)pci_count;
}

/* ------------------------------------------------------------------------
 * The table, for drivers
 */

unsigned int pci_device_count(void)
{
	return pci_count;
}

struct pci_dev *pci_device_at(unsigned int index)
{
	return index < pci_count ? &pci_devs[index] : NULL;
}

/* Index to continue after @start; pci_count when @start is not ours. */
static unsigned int first_after(const struct pci_dev *start)
{
	uintptr_t at = (uintptr_t)start, first = (uintptr_t)pci_devs;

	if (!start)
		return 0;
	if (at < first || at >= first + pci_count * sizeof(pci_devs[0]) || (at - first) % sizeof(pci_devs[0]))
		return pci_count;
	return (unsigned int)((at - first) / sizeof(pci_devs[0])) + 1;
}

struct pci_dev *pci_find_class(uint8_t class_code, uint8_t subclass, int prog_if,
			       const struct pci_dev *start)
{
	unsigned int i;

	for (i = first_after(start); i < pci_count; i++) {
		struct pci_dev *d = &pci_devs[i];

		if (d->class_code == class_code && d->subclass == subclass &&
		    (prog_if < 0 || d->prog_if == prog_if))
			return d;
	}
	return NULL;
}

struct pci_dev *pci_find_device(uint16_t vendor_id, uint16_t device_id, const struct pci_dev *start)
{
	unsigned int i;

	for (i = first_after(start); i < pci_count; i++)
		if (pci_devs[i].vendor_id == vendor_id && pci_devs[i].device_id == device_id)
			return &pci_devs[i];
	return NULL;
}

int pci_enable(struct pci_dev *d, unsigned int flags)
{
	const unsigned int known = PCI_ENABLE_IO | PCI_ENABLE_MEM | PCI_ENABLE_MASTER;
	uint16_t want = 0, cmd, now;
	char bdf[PCI_BDF_LEN];

	if (!d || (flags & ~known) || flags == 0)
		return -EINVAL;
	if (flags & PCI_ENABLE_IO)
		want |= PCI_COMMAND_IO;
	if (flags & PCI_ENABLE_MEM)
		want |= PCI_COMMAND_MEMORY;
	if (flags & PCI_ENABLE_MASTER)
		want |= PCI_COMMAND_MASTER;
	cmd = pci_read16(d, PCI_COMMAND);
	if ((cmd & want) != want)
		pci_write16(d, PCI_COMMAND, (uint16_t)(cmd | want));
	now = pci_read16(d, PCI_COMMAND);
	d->command = now;
	if ((now & want) != want) {
		pr_err("pci %s: command register 0x%04x did not take bits 0x%04x (reads 0x%04x)\n",
		       pci_bdf(d, bdf), cmd, want, now);
		return -EIO;
	}
	if (now != cmd)
		pr_info("pci %s: command 0x%04x -> 0x%04x, enabled%s%s%s\n", pci_bdf(d, bdf), cmd, now,
			(want & ~cmd & PCI_COMMAND_IO) ? " I/O" : "",
			(want & ~cmd & PCI_COMMAND_MEMORY) ? " memory" : "",
			(want & ~cmd & PCI_COMMAND_MASTER) ? " bus-master" : "");
	return 0;
}
