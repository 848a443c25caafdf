/*
 * pci.h - PCI for drivers (drivers/pci/): configuration space access,
 * the table of functions found at boot, BARs, capabilities, decoding
 * enables, and the INTx line each function's interrupt pin was routed to.
 *
 * Follows the PCI Local Bus Specification 3.0 (chapter 3.2.2.3.2:
 * configuration mechanism #1; chapter 6: the configuration header, BARs,
 * capabilities), the PCI-to-PCI Bridge Architecture Specification 1.2
 * (type 1 headers; table 9-1: INTx swizzling behind a bridge), the PCI
 * Code and ID Assignment Specification 1.9 (class codes, capability IDs),
 * the Intel MultiProcessor Specification 1.4 (section 4.3.4, PCI interrupt
 * entries) and the PCI IRQ Routing Table Specification 1.0 ($PIR).
 *
 * Lifetime: pci_init() fills the table once at boot (no hot-plug);
 * pci_route_all() then decides every pin's line. Pointers into the table
 * stay valid for ever. Files: pci.c (walk, BARs, caps, helpers),
 * pci_conf1.c (ports 0xCF8/0xCFC, pci_init), pci_names.c, pci_route.c,
 * pirq_router.c (PIIX3/PIIX4/ICH9), pci_shell.c (lspci, routes);
 * docs/pci.md explains the routing order.
 */
#ifndef DRIVERS_PCI_H
#define DRIVERS_PCI_H

#include <stdbool.h>
#include <stdint.h>

struct fw_platform;   /* arch/x86/include/firmware.h */
struct fw_pir;

/* ------------------------------------------------------------------------
 * Limits
 */
enum pci_limits {
	PCI_MAX_DEVICES = 128,      /* functions recorded; more are counted and reported, not kept */
	PCI_BUS_COUNT = 256,        /* bus numbers 0-255 */
	PCI_DEVICES_PER_BUS = 32,   /* device numbers 0-31 */
	PCI_FUNCTIONS_PER_DEVICE = 8,
	PCI_CONFIG_SPACE_LEN = 256, /* what mechanism #1 reaches of each function */
	PCI_MAX_BARS = 6,           /* type 0 headers have 6, bridges 2, CardBus none here */
	PCI_MAX_CAPS = 16,          /* capabilities recorded per function */
	PCI_ROUTE_WHY_MAX = 160,    /* bytes of "why the earlier sources gave nothing" */
};

/* ------------------------------------------------------------------------
 * Configuration header registers (PCI 3.0 section 6.1), for pci_read*()
 */
enum pci_config_reg {
	PCI_VENDOR_ID = 0x00,       /* 16 bits; 0xFFFF = no function here */
	PCI_DEVICE_ID = 0x02,       /* 16 bits */
	PCI_COMMAND = 0x04,         /* 16 bits, see enum pci_command_bits */
	PCI_STATUS = 0x06,          /* 16 bits, error bits are write-1-to-clear */
	PCI_REVISION_ID = 0x08,
	PCI_PROG_IF = 0x09,         /* programming interface (e.g. UHCI 0x00, EHCI 0x20) */
	PCI_SUBCLASS = 0x0A,
	PCI_CLASS_CODE = 0x0B,
	PCI_HEADER_TYPE = 0x0E,     /* bits 6:0 layout, bit 7 multifunction */
	PCI_BAR0 = 0x10,            /* BARs 0-5: 0x10, 0x14, ... 0x24 */
	PCI_CARDBUS_CAP_PTR = 0x14, /* type 2: capabilities pointer */
	PCI_PRIMARY_BUS = 0x18,     /* types 1/2: bus the bridge sits on */
	PCI_SECONDARY_BUS = 0x19,   /* types 1/2: bus right behind it */
	PCI_SUBORDINATE_BUS = 0x1A, /* types 1/2: highest bus behind it */
	PCI_CAP_PTR = 0x34,         /* types 0/1: capabilities pointer */
	PCI_INTERRUPT_LINE = 0x3C,  /* what firmware wrote: ISA IRQ, 0xFF = unknown */
	PCI_INTERRUPT_PIN = 0x3D,   /* 0 none, 1 INTA ... 4 INTD */
};

/* Command register bits (PCI 3.0 section 6.2.2). */
enum pci_command_bits {
	PCI_COMMAND_IO = 1u << 0,            /* respond to I/O space accesses */
	PCI_COMMAND_MEMORY = 1u << 1,        /* respond to memory space accesses */
	PCI_COMMAND_MASTER = 1u << 2,        /* may master the bus (DMA, MSI) */
	PCI_COMMAND_INTX_DISABLE = 1u << 10, /* do not assert INTx# */
};

/* Status register bits (PCI 3.0 section 6.2.3). */
enum pci_status_bits {
	PCI_STATUS_INTX = 1u << 3,           /* INTx# asserted by this function */
	PCI_STATUS_CAP_LIST = 1u << 4,       /* capabilities pointer is valid */
};

/* Header layouts (bits 6:0 of PCI_HEADER_TYPE). */
enum pci_header_kind {
	PCI_HEADER_NORMAL = 0,      /* type 0: endpoint */
	PCI_HEADER_BRIDGE = 1,      /* type 1: PCI-to-PCI bridge */
	PCI_HEADER_CARDBUS = 2,     /* type 2: CardBus bridge (BARs not decoded) */
};

/* Class codes drivers look for (PCI Code and ID Assignment 1.9, appendix D). */
enum pci_class {
	PCI_CLASS_STORAGE = 0x01,
	PCI_CLASS_NETWORK = 0x02,
	PCI_CLASS_DISPLAY = 0x03,
	PCI_CLASS_BRIDGE = 0x06,
	PCI_CLASS_SERIAL_BUS = 0x0C,
	PCI_SUBCLASS_IDE = 0x01,        /* with PCI_CLASS_STORAGE */
	PCI_SUBCLASS_SATA = 0x06,       /* with PCI_CLASS_STORAGE */
	PCI_SUBCLASS_PCI_BRIDGE = 0x04, /* with PCI_CLASS_BRIDGE */
	PCI_SUBCLASS_USB = 0x03,        /* with PCI_CLASS_SERIAL_BUS */
	PCI_PROGIF_UHCI = 0x00,         /* with PCI_SUBCLASS_USB */
	PCI_PROGIF_OHCI = 0x10,
	PCI_PROGIF_EHCI = 0x20,
	PCI_PROGIF_XHCI = 0x30,
};

/* ------------------------------------------------------------------------
 * The table of functions
 */

/* BAR flags. */
enum pci_bar_flags {
	PCI_BAR_IO = 1u << 0,          /* I/O ports (else memory) */
	PCI_BAR_MEM64 = 1u << 1,       /* 64-bit memory BAR: also uses the next BAR register */
	PCI_BAR_PREFETCH = 1u << 2,    /* prefetchable memory */
	PCI_BAR_BELOW_1M = 1u << 3,    /* legacy memory type "below 1 MiB" */
	PCI_BAR_UPPER_HALF = 1u << 4,  /* this register is the upper half of the previous BAR */
	PCI_BAR_BAD = 1u << 5,         /* reserved type, or a 64-bit BAR in the last register */
};

struct pci_bar {
	uint64_t base;              /* port or physical address as firmware assigned it */
	uint64_t size;              /* bytes decoded; 0 = register not implemented */
	uint8_t flags;              /* enum pci_bar_flags */
};

struct pci_cap {
	uint8_t id;                 /* capability ID (0x01 PM, 0x05 MSI, 0x10 PCIe, 0x11 MSI-X, ...) */
	uint8_t offset;             /* where it is in configuration space */
};

/* Where a function's interrupt line came from (and, for pci_route=, which source to use). */
enum pci_route_source {
	PCI_ROUTE_NONE = 0,         /* not routed (yet, or no source knew) */
	PCI_ROUTE_MPTABLE,          /* MP table PCI interrupt entry: IOAPIC ID + pin */
	PCI_ROUTE_PIR,              /* $PIR link + the chipset's PIRQ router register */
	PCI_ROUTE_LINE,             /* the Interrupt Line register firmware wrote */
	PCI_ROUTE_AUTO,             /* choice only: MP table, then $PIR, then Interrupt Line */
};

/* The routing decision for one function's pin (filled by pci_route_all). */
struct pci_route {
	uint8_t source;             /* enum pci_route_source; PCI_ROUTE_NONE = no line */
	bool is_gsi;                /* @line is a GSI (IOAPIC mode), else an ISA IRQ (PIC mode) */
	bool level;                 /* level-triggered (else edge) */
	bool active_low;            /* active low (else high); PIC mode: always false */
	uint32_t line;              /* GSI or ISA IRQ */
	uint8_t ioapic_id;          /* MP table: destination IOAPIC ID */
	uint8_t ioapic_pin;         /* MP table: destination INTIN# */
	uint8_t table_bus;          /* bus, device and pin (1-4) the table entry matched, */
	uint8_t table_dev;          /* after swizzling through bridges */
	uint8_t table_pin;
	uint8_t link;               /* $PIR link value of the pin, 0 = not known */
	uint8_t isa_irq;            /* $PIR and Interrupt Line: the ISA IRQ before ISA -> GSI */
	char why[PCI_ROUTE_WHY_MAX];/* why earlier sources gave no answer; "" if none */
};

struct pci_dev {
	uint8_t bus, dev, fn;
	uint16_t vendor_id, device_id;
	uint8_t class_code, subclass, prog_if, revision;
	uint8_t header_kind;        /* enum pci_header_kind (or another value, reported) */
	bool multifunction;         /* header type bit 7 of function 0 */
	uint16_t command, status;   /* as found by the walk */
	uint8_t irq_pin;            /* 0 = none, 1 = INTA ... 4 = INTD (bogus values become 0) */
	uint8_t irq_line;           /* Interrupt Line register as firmware left it */
	uint8_t secondary_bus;      /* bridges: bus numbers firmware programmed */
	uint8_t subordinate_bus;
	bool bus_followed;          /* bridges: the walk scanned the bus behind it */
	int16_t parent;             /* table index of the bridge whose bus this is; -1 = root bus */
	uint8_t bar_count;          /* BAR registers of this header type (6, 2 or 0) */
	struct pci_bar bar[PCI_MAX_BARS];
	uint8_t cap_count;          /* capabilities recorded */
	bool caps_bad;              /* the list looped, pointed into the header or was too long */
	struct pci_cap cap[PCI_MAX_CAPS];
	struct pci_route route;
};

/* Flags for pci_enable(). */
enum pci_enable_flags {
	PCI_ENABLE_IO = 1u << 0,       /* decode the function's I/O BARs */
	PCI_ENABLE_MEM = 1u << 1,      /* decode its memory BARs */
	PCI_ENABLE_MASTER = 1u << 2,   /* let it master the bus (DMA) */
};

/*
 * pci_init - probe configuration mechanism #1, walk every bus reachable
 * from bus 0 and fill the table; print one line per function
 * ("pci 00:01.2 8086:7020 USB UHCI controller, INTD") and a summary.
 * CONTEXT: boot, once, before any other pci_ call.
 * RETURNS the number of functions recorded; -ENODEV if the mechanism is
 * not there (nothing recorded).
 */
int pci_init(void);

/* pci_device_count - functions in the table. CONTEXT: any after pci_init. */
unsigned int pci_device_count(void);

/* pci_device_at - the @index-th function (walk order). RETURNS it, NULL past the end. */
struct pci_dev *pci_device_at(unsigned int index);

/*
 * pci_find_class - next function after @start (NULL: from the first) whose
 * class and subclass match and whose prog-if is @prog_if, or any prog-if
 * when @prog_if is -1. CONTEXT: any after pci_init.
 * RETURNS the function, or NULL when there is none (also for a @start that
 * is not in the table).
 */
struct pci_dev *pci_find_class(uint8_t class_code, uint8_t subclass, int prog_if,
			       const struct pci_dev *start);

/* pci_find_device - as pci_find_class, matching vendor and device ID. */
struct pci_dev *pci_find_device(uint16_t vendor_id, uint16_t device_id,
				const struct pci_dev *start);

/*
 * pci_enable - turn on the decoding/mastering @flags (PCI_ENABLE_*) ask for
 * in @dev's command register; other bits are kept. Logs what it changed.
 * CONTEXT: thread context. RETURNS 0; -EINVAL for NULL @dev or unknown
 * flags; -EIO if the bits did not stick (read back).
 */
int pci_enable(struct pci_dev *dev, unsigned int flags);

/*
 * pci_read8/16/32 - read configuration register @off of @dev. @off must be
 * below 256 and aligned to the access width. CONTEXT: any (each access is
 * atomic with respect to interrupts).
 * RETURNS the value; all ones for a NULL @dev or a bad @off (as an absent
 * function reads).
 */
uint8_t pci_read8(const struct pci_dev *dev, unsigned int off);
uint16_t pci_read16(const struct pci_dev *dev, unsigned int off);
uint32_t pci_read32(const struct pci_dev *dev, unsigned int off);

/* pci_write8/16/32 - write @value there. RETURNS 0; -EINVAL for a NULL @dev or bad @off. */
int pci_write8(const struct pci_dev *dev, unsigned int off, uint8_t value);
int pci_write16(const struct pci_dev *dev, unsigned int off, uint16_t value);
int pci_write32(const struct pci_dev *dev, unsigned int off, uint32_t value);

/* ------------------------------------------------------------------------
 * INTx routing
 */

/*
 * pci_route_all - decide the line of every function's interrupt pin and
 * log each decision with its source ("pci 00:01.2: INTD -> GSI 11 (level,
 * active-high, from MP table)"). @ioapic_mode: the caller will use the
 * IOAPIC (lines are GSIs, the MP table is consulted) or the 8259 alone
 * (lines are ISA IRQs, MP table pins mean nothing). @fw should be the MP
 * table's description (it holds the PCI entries; an ACPI one has none, but
 * its ISA overrides are then used for ISA IRQ -> GSI); @fw and @pir may be
 * NULL. Sources are tried in the order of pci_route= (default auto).
 * CONTEXT: boot, after pci_init; may run again (e.g. after a mode change).
 * RETURNS 0 when every pin got a line; -ENOENT when some did not (logged);
 * -ENODEV when pci_init found no PCI.
 */
int pci_route_all(const struct fw_platform *fw, const struct fw_pir *pir, bool ioapic_mode);

/*
 * pci_param_route - boot parameter pci_route=auto|mptable|pir|line: the
 * routing source to use (auto: MP table, $PIR, Interrupt Line in turn; the
 * others: that source alone, a pin it cannot route stays unrouted).
 * CONTEXT: boot, before pci_route_all. RETURNS 0; -EINVAL for another value.
 */
int pci_param_route(const char *value, void *arg);

/*
 * pci_route_set_gsi_resolver - how to turn (IOAPIC ID, pin) into a GSI for
 * MP tables, whose IOAPICs carry no GSI base: the IOAPIC driver numbers
 * them after reading each chip's redirection count. Without a resolver
 * (@fn NULL), an ACPI GSI base is used when known, else the first IOAPIC
 * in the table starts at GSI 0 and pins of the others stay unresolved.
 * @fn returns 0 and *@gsi, or a negative code. CONTEXT: boot, before
 * pci_route_all.
 */
void pci_route_set_gsi_resolver(int (*fn)(void *ctx, uint8_t ioapic_id, uint8_t pin, uint32_t *gsi),
				void *ctx);

/* pci_route_source_name - "MP table", "$PIR", "Interrupt Line", ... RETURNS a static string. */
const char *pci_route_source_name(unsigned int source);

/* ------------------------------------------------------------------------
 * PIRQ router (PIIX3 8086:7000, PIIX4 8086:7110, ICH9 LPC 8086:2918)
 */

/*
 * pirq_router_get - read the route register of PIRQ @link, named by its
 * $PIR link value (0x60-0x63 = PIRQA-D; ICH9 also 0x68-0x6B = PIRQE-H;
 * struct pci_route.link holds the one a pin uses). Bit 7 set = disabled,
 * bits 3:0 = ISA IRQ. CONTEXT: thread context, after pci_route_all.
 * RETURNS 0; -ENODEV when no known router was found; -EINVAL for a link
 * value the router does not have or a NULL @value.
 */
int pirq_router_get(int link, uint8_t *value);

/*
 * pirq_router_set - write @value (0x80 = disabled, or an ISA IRQ the
 * router can take: 3-7, 9-12, 14, 15) to PIRQ @link's route register, for
 * fault injection (issue 7 "uhci-misroute"). Logs the change.
 * CONTEXT: thread context. RETURNS 0; -ENODEV as pirq_router_get; -EINVAL
 * for a bad link or value; -EIO if the register did not take the value.
 */
int pirq_router_set(int link, uint8_t value);

/* ------------------------------------------------------------------------
 * Names and shell commands
 */

/* pci_class_name - "USB UHCI controller", "Host bridge", ... RETURNS a static string. */
const char *pci_class_name(uint8_t class_code, uint8_t subclass, uint8_t prog_if);

/* pci_cap_name - "PM", "MSI", "PCIe", "MSI-X", "vendor", ... RETURNS a static string. */
const char *pci_cap_name(uint8_t id);

/* pci_pin_name - "INTA" ... "INTD" for 1-4, "none" for 0, "bad" otherwise. */
const char *pci_pin_name(uint8_t pin);

/*
 * pci_cmd_lspci - shell "lspci [-v]": one line per function (bus:dev.fn,
 * vendor:device, class, pin -> line and source); -v adds command/status,
 * bridge buses, BARs and capabilities. RETURNS 0; -EINVAL for bad arguments.
 */
int pci_cmd_lspci(int argc, char **argv);

/*
 * pci_cmd_routes - shell "routes": each function's pin -> line, trigger,
 * polarity and source, then the PIRQ router's registers as they read now.
 * RETURNS 0; -EINVAL for arguments.
 */
int pci_cmd_routes(int argc, char **argv);

#endif
