/*
 * pci_internal.h - private to drivers/pci/ (and its host tests): how
 * configuration space is reached (an ops table, so the walk, BAR sizing and
 * router access run on the host against a fake configuration space), the
 * walk itself, the pure routing function and the PIRQ router types.
 * Drivers include <drivers/pci.h> instead.
 */
#ifndef DRIVERS_PCI_INTERNAL_H
#define DRIVERS_PCI_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <drivers/pci.h>

/* ------------------------------------------------------------------------
 * Configuration space access
 */

/*
 * How configuration space is reached. read/write get checked arguments:
 * dev < 32, fn < 8, off < 256 and aligned to width (1, 2 or 4).
 * critical_begin/end bracket a sequence that must not be interrupted (BAR
 * sizing with decoding off); they nest and may be NULL.
 */
struct pci_config_ops {
	const char *name;
	uint32_t (*read)(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, uint8_t width);
	void (*write)(void *ctx, uint8_t bus, uint8_t dev, uint8_t fn, uint16_t off, uint8_t width,
		      uint32_t value);
	unsigned long (*critical_begin)(void *ctx);
	void (*critical_end)(void *ctx, unsigned long state);
	void *ctx;
};

/* pci_conf_read - checked access through the current ops. RETURNS all ones when invalid. */
uint32_t pci_conf_read(uint8_t bus, uint8_t dev, uint8_t fn, unsigned int off, unsigned int width);
/* pci_conf_write - checked access. RETURNS 0; -EINVAL for bad arguments; -ENODEV without ops. */
int pci_conf_write(uint8_t bus, uint8_t dev, uint8_t fn, unsigned int off, unsigned int width,
		   uint32_t value);

/* ------------------------------------------------------------------------
 * The walk
 */

/* What one walk found, for the summary line and the tests. */
struct pci_walk_stats {
	uint32_t buses_scanned;     /* buses whose 32 devices were probed */
	uint32_t functions_found;   /* present functions, also those not recorded */
	uint32_t functions_dropped; /* found when the table was full */
	uint32_t bridges_refused;   /* bridges whose bus numbers were bogus, or a bus reached twice */
};

/*
 * pci_scan - forget the table, use @ops from now on and walk every bus
 * reachable from bus 0 (breadth first, each bus at most once). Prints one
 * line per function and each problem.
 * CONTEXT: boot, single-threaded. RETURNS the functions recorded.
 */
int pci_scan(const struct pci_config_ops *ops, struct pci_walk_stats *stats);

enum { PCI_BDF_LEN = 8 };   /* "bb:dd.f" and its NUL */

/* pci_bdf - "00:01.2" for @dev into @buf (at least PCI_BDF_LEN bytes). RETURNS @buf. */
char *pci_bdf(const struct pci_dev *dev, char *buf);

/* The devfn byte $PIR uses: device << 3 | function. */
enum pci_devfn_bits {
	PCI_DEVFN_DEV_SHIFT = 3,
	PCI_DEVFN_FN_MASK = 0x7,
};

static inline uint8_t pci_devfn_dev(uint8_t devfn) { return devfn >> PCI_DEVFN_DEV_SHIFT; }
static inline uint8_t pci_devfn_fn(uint8_t devfn) { return devfn & PCI_DEVFN_FN_MASK; }
static inline uint8_t pci_devfn(uint8_t dev, uint8_t fn)
{
	return (uint8_t)(dev << PCI_DEVFN_DEV_SHIFT | (fn & PCI_DEVFN_FN_MASK));
}

/* ------------------------------------------------------------------------
 * PIRQ routers
 */

enum pirq_limits {
	PIRQ_LINKS_MAX = 8,          /* PIRQA-H */
	PIRQ_DISABLED = 0x80,        /* route register bit 7: IRQEN# (1 = not routed to ISA) */
	PIRQ_IRQ_MASK = 0x0F,        /* route register bits 3:0: the ISA IRQ */
	PIRQ_RESERVED_BITS = 0x70,   /* route register bits 6:4: reserved, read 0 */
	/* ISA IRQs a PIIX/ICH router may drive: 3-7, 9-12, 14, 15 (0-2, 8, 13 are reserved). */
	PIRQ_ROUTABLE_IRQS = 0xDEF8,
};

/* A chipset interrupt router we know how to program. */
struct pirq_router_type {
	uint16_t vendor_id, device_id;
	const char *name;            /* "PIIX3" */
	uint8_t links;               /* PIRQs it has: 4 (A-D) or 8 (A-H) */
	uint8_t reg[PIRQ_LINKS_MAX]; /* configuration register of PIRQA, B, ... = its $PIR link value */
};

/* pirq_router_lookup - the router type with these IDs. RETURNS it or NULL. */
const struct pirq_router_type *pirq_router_lookup(uint16_t vendor_id, uint16_t device_id);

/* pirq_link_index - PIRQ index (0 = A) of $PIR link value @link on @type. RETURNS it or -EINVAL. */
int pirq_link_index(const struct pirq_router_type *type, int link);

/* pirq_route_irq - the ISA IRQ route register value @value selects. RETURNS it; -EPERM if
 * disabled (bit 7); -EINVAL if reserved bits are set or the IRQ is not routable. */
int pirq_route_irq(uint8_t value);

/* The route registers of one router, read at one moment (an input of the routing). */
struct pirq_router_regs {
	bool valid;                  /* the rest is filled */
	uint8_t bus, devfn;          /* where the router is */
	const struct pirq_router_type *type;
	uint8_t value[PIRQ_LINKS_MAX];
};

/*
 * pirq_router_probe - choose the router: the one $PIR names when the
 * function there really is a router we know, else the first known router
 * in the table (for router control and `routes` only). Reads its route
 * registers into @out and remembers it for pirq_router_get/set.
 * CONTEXT: boot. RETURNS 0; -ENODEV when there is no known router.
 */
int pirq_router_probe(const struct fw_pir *pir, struct pirq_router_regs *out);

/* pirq_router_current - the router pirq_router_probe chose. RETURNS it or NULL. */
const struct pirq_router_regs *pirq_router_current(void);

/* ------------------------------------------------------------------------
 * Routing (pure: no configuration space access, no printk)
 */

/*
 * pci_gsi_fn - GSI of pin @pin of the IOAPIC with ID @ioapic_id, for MP
 * tables whose IOAPICs carry no GSI base. RETURNS 0 and *@gsi, or a
 * negative code when unknown.
 */
typedef int (*pci_gsi_fn)(void *ctx, uint8_t ioapic_id, uint8_t pin, uint32_t *gsi);

struct pci_route_inputs {
	const struct fw_platform *fw;          /* NULL = no MP/ACPI description */
	const struct fw_pir *pir;              /* NULL = no $PIR */
	const struct pirq_router_regs *router; /* NULL or the router's registers */
	bool ioapic_mode;                      /* lines are GSIs (else ISA IRQs) */
	uint8_t choice;                        /* enum pci_route_source: AUTO or one source */
	pci_gsi_fn gsi_of;                     /* NULL: table bases, else the first IOAPIC from 0 */
	void *gsi_ctx;
	/* one log line, no newline (@warning: a pin left without a line); may be NULL */
	void (*print)(void *ctx, bool warning, const char *line);
	void *print_ctx;
};

/*
 * pci_route_compute - fill devs[i].route for every function with a pin,
 * from the sources @in allows, in order, and print one line per decision
 * (plus one about the $PIR router). @devs[].parent must index @devs.
 * CONTEXT: any; reads only its arguments. RETURNS the number of pins left
 * without a line; -EINVAL for NULL @devs or @in.
 */
int pci_route_compute(struct pci_dev *devs, unsigned int count, const struct pci_route_inputs *in);

/* pci_route_choice - the source pci_route= picked (PCI_ROUTE_AUTO by default). */
uint8_t pci_route_choice(void);

/* pci_route_choice_name - the pci_route= word for @choice ("auto", "pir", ...). */
const char *pci_route_choice_name(uint8_t choice);

/* Mode and state of the last pci_route_all, for `routes`. */
bool pci_routes_done(bool *ioapic_mode);

#endif
