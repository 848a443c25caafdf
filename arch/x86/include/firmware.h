/*
 * firmware.h - what the PC firmware tables say about the interrupt hardware,
 * and the parsers that read it: ACPI (RSDP, RSDT/XSDT, MADT, HPET; ACPI 6.5
 * sections 5.2.5-5.2.12 and the IA-PC HPET 1.0a specification, section 3.2.4),
 * the Intel MultiProcessor Specification 1.4 tables (chapter 4) and the PCI
 * IRQ Routing Table ($PIR, Microsoft/PCI-SIG "PCI IRQ Routing Table
 * Specification" 1.0).
 *
 * The parsers never touch memory themselves: they read through a memory
 * window (struct fw_window) that maps physical ranges the caller allows to
 * readable bytes. In the kernel those are identity-mapped BIOS areas and RAM
 * ranges; in host tests they are memory dumps captured from QEMU
 * (tests/fixtures/). Every table is untrusted; a bad one is recorded in the
 * problem list (which table, where, what is wrong) and skipped.
 *
 * Output: struct fw_platform (from ACPI or from the MP table; each parse
 * fills one from scratch) and struct fw_pir. The drivers take it from here:
 * arch/x86/lapic.c, arch/x86/ioapic.c, drivers/pci/ and kernel/time/hpet.
 *
 * Where the RSDP comes from: a copy the boot loader made (multiboot2 tags,
 * handed to acpi_parse_from_rsdp()), the EFI system table's configuration
 * table (efi_find_rsdp(), then acpi_parse_at()), or the BIOS areas
 * (acpi_parse()); kernel/main.c tries them in that order.
 *
 * Files: fwmem.c (window, problem list, boot-log lines), acpi.c, efi.c,
 * mptable.c, pirtable.c.
 */
#ifndef X86_FIRMWARE_H
#define X86_FIRMWARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------
 * Limits. Each list in struct fw_platform / fw_pir holds at most this many
 * entries; a table that lists more sets the list's `truncated` flag and
 * records one FW_PROBLEM_TOO_MANY. The values cover real PCs with room to
 * spare (QEMU's pc machine uses 1 IOAPIC, 5 overrides, 1 LINT entry).
 */
enum fw_limits {
	FW_WINDOW_MAX_REGIONS = 64,  /* BIOS areas + the firmware's ranges of a memory map (a PC's EFI map has ~30) */
	FW_MAX_CPUS = 64,            /* local APIC / x2APIC / MP processor entries */
	FW_MAX_IOAPICS = 8,          /* big servers have 4-6 */
	FW_MAX_ISA_OVERRIDES = 16,   /* at most one per ISA IRQ 0-15 */
	FW_MAX_NMI_SOURCES = 8,      /* MADT type 3 entries */
	FW_MAX_LINTS = 16,           /* MADT type 4/10 or MP type 4 entries */
	FW_MAX_ACPI_TABLES = 32,     /* tables listed in the RSDT/XSDT that we remember */
	FW_MAX_MP_BUSES = 32,        /* MP bus entries */
	FW_MAX_MP_PCI_IRQS = 128,    /* MP I/O interrupt entries on PCI buses */
	FW_MAX_MP_BUS_IRQS = 48,     /* MP I/O interrupt entries on other buses (ISA, EISA...) */
	FW_MAX_PIR_SLOTS = 64,       /* $PIR slot entries */
	FW_MAX_PROBLEMS = 16,        /* problems kept with their details; the rest are counted */
	FW_LINE_MAX = 160,           /* one boot-log line, NUL included */
};

/* ------------------------------------------------------------------------
 * Memory window
 */

/* One physical range the parsers may read, and where its bytes are. */
struct fw_region {
	uint32_t phys;     /* physical address of the first byte */
	uint32_t len;      /* bytes; phys + len never exceeds 4 GiB */
	const void *data;  /* the bytes (kernel: identity-mapped phys) */
};

struct fw_window {
	uint32_t count;                                  /* regions in use */
	struct fw_region region[FW_WINDOW_MAX_REGIONS];
};

/*
 * fw_window_init - empty window. CONTEXT: any. RETURNS nothing.
 */
void fw_window_init(struct fw_window *w);

/*
 * fw_window_add - allow [@phys, @phys + @len), readable at @data.
 * CONTEXT: boot, single-threaded; no allocation.
 * RETURNS 0; -EINVAL if @len is 0, @data is NULL or the range passes 4 GiB;
 * -ENOSPC if all FW_WINDOW_MAX_REGIONS are in use.
 */
int fw_window_add(struct fw_window *w, uint32_t phys, uint32_t len, const void *data);

/*
 * fw_window_add_identity - allow a range that is identity-mapped (kernel).
 * CONTEXT, RETURNS: as fw_window_add.
 */
int fw_window_add_identity(struct fw_window *w, uint32_t phys, uint32_t len);

/*
 * fw_window_add_legacy_bios - allow the areas the table searches read: the
 * BIOS data area (0x400-0x4FF) from @bda_copy, and, identity-mapped, the top
 * of base memory where the EBDA lives (0x80000-0x9FFFF) and the BIOS ROM
 * area (0xE0000-0xFFFFF). irqkit leaves page 0 unmapped (paging.c), so the
 * BDA cannot be read in place: pass FW_BDA_SIZE bytes copied from 0x400
 * before paging_init(), or NULL to leave it out (then the EBDA is not
 * searched and base memory is taken as 640 KiB; SeaBIOS's tables are in the
 * ROM area anyway). ACPI tables live in RAM: add those ranges as well.
 * CONTEXT, RETURNS: as fw_window_add (the first error stops it).
 */
int fw_window_add_legacy_bios(struct fw_window *w, const void *bda_copy);

/* The BIOS data area: where it is and how much of it fw_window_add_legacy_bios takes. */
#define FW_BDA_PHYS 0x400u
#define FW_BDA_SIZE 0x100u

/*
 * fw_map - the bytes of [@phys, @phys + @len) if one region holds all of
 * them. Overflow-safe for any @phys and @len.
 * CONTEXT: any. RETURNS a pointer to the first byte, or NULL when the range
 * is empty or not wholly inside one allowed region.
 */
const void *fw_map(const struct fw_window *w, uint32_t phys, uint32_t len);

/* ------------------------------------------------------------------------
 * Problems found in the tables
 */

/* Which table a problem is about. */
enum fw_table {
	FW_TABLE_BDA,           /* BIOS data area (EBDA pointer, base memory size) */
	FW_TABLE_RSDP,          /* ACPI Root System Description Pointer */
	FW_TABLE_RSDT,          /* ACPI root table with 32-bit pointers */
	FW_TABLE_XSDT,          /* ACPI root table with 64-bit pointers */
	FW_TABLE_MADT,          /* ACPI "APIC" table */
	FW_TABLE_HPET,          /* ACPI "HPET" table */
	FW_TABLE_FADT,          /* ACPI "FACP" table (Fixed ACPI Description Table) */
	FW_TABLE_ACPI_OTHER,    /* any other table listed in the RSDT/XSDT */
	FW_TABLE_MP_FLOATING,   /* MP floating pointer structure "_MP_" */
	FW_TABLE_MP_CONFIG,     /* MP configuration table "PCMP", base part */
	FW_TABLE_MP_EXTENDED,   /* MP configuration table, extended entries */
	FW_TABLE_PIR,           /* PCI IRQ routing table "$PIR" */
	FW_TABLE_EFI_SYSTAB,    /* EFI system table "IBI SYST" */
	FW_TABLE_EFI_CONFIG,    /* EFI configuration table (GUID, pointer pairs) */
	FW_TABLE_COUNT
};

/* What is wrong. The consequence is spelled out in the problem's text. */
enum fw_problem_kind {
	FW_PROBLEM_NOT_IN_WINDOW,    /* lies (partly) outside the memory the caller allowed */
	FW_PROBLEM_BAD_CHECKSUM,     /* byte sum is not 0; value = the sum */
	FW_PROBLEM_BAD_LENGTH,       /* length field below the minimum, absurd, or past the data */
	FW_PROBLEM_BAD_REVISION,     /* revision/version field we do not know */
	FW_PROBLEM_BAD_SIGNATURE,    /* a pointer leads to something with the wrong signature */
	FW_PROBLEM_BAD_ENTRY_LENGTH, /* entry length 0, below its type's size or past the end */
	FW_PROBLEM_BAD_ENTRY,        /* entry contents impossible (bus not ISA, LINT 2, ...) */
	FW_PROBLEM_BAD_FLAGS,        /* reserved polarity/trigger encoding, treated as conforming */
	FW_PROBLEM_BAD_COUNT,        /* entry count disagrees with the length */
	FW_PROBLEM_TOO_MANY,         /* more entries than our fixed list holds */
	FW_PROBLEM_ABOVE_4G,         /* 64-bit address beyond what a 32-bit kernel reaches */
	FW_PROBLEM_DUPLICATE,        /* second copy of something that must be unique */
	FW_PROBLEM_UNSUPPORTED,      /* valid but not handled here (MP default configuration) */
	FW_PROBLEM_MISSING,          /* a required pointer or table is absent */
	FW_PROBLEM_KIND_COUNT
};

struct fw_problem {
	uint8_t table;      /* enum fw_table */
	uint8_t kind;       /* enum fw_problem_kind */
	uint32_t addr;      /* physical address of the table */
	uint32_t offset;    /* byte offset of the bad field or entry inside it */
	uint64_t value;     /* the offending value (length, sum, count, address...) */
	const char *what;   /* static text: what is wrong and what we did about it */
};

struct fw_problems {
	uint32_t count;                              /* all problems found, also those not kept */
	struct fw_problem list[FW_MAX_PROBLEMS];     /* the first FW_MAX_PROBLEMS of them */
};

/* ------------------------------------------------------------------------
 * The parsed description
 */

/* Where a fw_platform came from. */
enum fw_source {
	FW_SOURCE_NONE = 0,  /* nothing parsed (yet) */
	FW_SOURCE_ACPI = 1,  /* RSDP -> RSDT/XSDT -> MADT, HPET */
	FW_SOURCE_MP = 2,    /* MP floating pointer -> configuration table */
};

/* Interrupt input polarity, as encoded in the MPS INTI flags (bits 1:0). */
enum fw_polarity {
	FW_POLARITY_CONFORMS = 0,  /* as the bus specification says (ISA high, PCI low) */
	FW_POLARITY_HIGH = 1,      /* active high */
	FW_POLARITY_LOW = 3,       /* active low (2 is reserved) */
};

/* Interrupt input trigger mode, as encoded in the MPS INTI flags (bits 3:2). */
enum fw_trigger {
	FW_TRIGGER_CONFORMS = 0,   /* as the bus specification says (ISA edge, PCI level) */
	FW_TRIGGER_EDGE = 1,       /* edge triggered */
	FW_TRIGGER_LEVEL = 3,      /* level triggered (2 is reserved) */
};

/* Interrupt type of an MP I/O or local interrupt entry (MP 1.4 table 4-11). */
enum fw_int_kind {
	FW_INT_VECTORED = 0,  /* INT: vectored, vector from the redirection entry */
	FW_INT_NMI = 1,       /* non-maskable interrupt */
	FW_INT_SMI = 2,       /* system management interrupt */
	FW_INT_EXTINT = 3,    /* ExtINT: vector from an external 8259 */
};

/* Bus types named in the MP bus entries that the routing code cares about. */
enum fw_bus_type {
	FW_BUS_UNKNOWN = 0,  /* not declared by a bus entry */
	FW_BUS_ISA,          /* "ISA   " */
	FW_BUS_EISA,         /* "EISA  " */
	FW_BUS_PCI,          /* "PCI   " */
	FW_BUS_OTHER,        /* any other name (MCA, VL, PCMCIA, ...) */
};

struct fw_cpu {
	uint32_t apic_id;       /* local APIC (or x2APIC) ID */
	uint32_t acpi_uid;      /* ACPI processor UID; 0 from the MP table */
	bool enabled;           /* usable now */
	bool online_capable;    /* ACPI: may be enabled later */
	bool bsp;               /* MP: the bootstrap processor */
	bool x2apic;            /* came from an x2APIC structure */
};

struct fw_ioapic {
	uint8_t id;             /* IOAPIC ID the tables use to name it */
	uint8_t version;        /* MP: version byte as listed; 0 from ACPI */
	bool enabled;           /* MP: the usable flag; always true from ACPI */
	uint32_t address;       /* MMIO base */
	uint32_t gsi_base;      /* ACPI: first GSI; MP: FW_GSI_BASE_UNKNOWN */
};

/*
 * MP tables give no GSI bases: the IOAPIC driver numbers them in table order
 * from 0 after reading each chip's redirection count.
 */
#define FW_GSI_BASE_UNKNOWN 0xFFFFFFFFu

struct fw_isa_override {        /* ACPI interrupt source override */
	uint8_t isa_irq;            /* ISA IRQ 0-15 */
	uint8_t polarity;           /* enum fw_polarity */
	uint8_t trigger;            /* enum fw_trigger */
	uint32_t gsi;               /* where it really arrives */
};

struct fw_nmi_source {          /* ACPI NMI source: a GSI wired to NMI */
	uint8_t polarity;           /* enum fw_polarity */
	uint8_t trigger;            /* enum fw_trigger */
	uint32_t gsi;
};

struct fw_lint {                /* what a local APIC LINT pin is wired to */
	uint32_t cpu;               /* ACPI UID or APIC ID (see cpu_is_uid) unless all_cpus */
	bool all_cpus;              /* applies to every processor */
	bool cpu_is_uid;            /* ACPI entries name processors by UID, MP by APIC ID */
	uint8_t lint;               /* 0 = LINT0, 1 = LINT1 */
	uint8_t kind;               /* enum fw_int_kind: ACPI entries are always NMI */
	uint8_t polarity;           /* enum fw_polarity */
	uint8_t trigger;            /* enum fw_trigger */
};

struct fw_hpet {
	bool present;               /* a valid HPET table was found */
	uint32_t table_addr;        /* physical address of the HPET table */
	uint32_t address;           /* MMIO base of the timer block */
	uint32_t block_id;          /* Event Timer Block ID as listed */
	uint8_t number;             /* HPET sequence number */
	uint8_t comparators;        /* number of comparators in the block */
	uint8_t hw_revision;        /* hardware revision ID */
	bool counter_64bit;         /* main counter is 64 bits wide */
	bool legacy_capable;        /* LegacyReplacement IRQ routing capable */
	uint16_t pci_vendor;        /* vendor ID of the timer block */
	uint16_t min_tick;          /* minimum clock tick in periodic mode, in counter ticks */
	uint8_t page_protection;    /* page protection / OEM attributes byte */
};

/* IAPC_BOOT_ARCH flags of the FADT (ACPI 6.5 table 5.11). */
#define FW_BOOT_ARCH_LEGACY_DEVICES 0x0001u  /* ISA/LPC devices the OS cannot enumerate (serial, parallel) */
#define FW_BOOT_ARCH_8042           0x0002u  /* an 8042 keyboard controller (or its emulation) at 0x60/0x64 */

/* The first FADT revision whose IAPC_BOOT_ARCH means something (ACPI 2.0; in ACPI 1.0, revision 1,
 * the bytes were reserved and read 0: QEMU's pc machine still builds a revision 1 FADT). */
#define FW_FADT_BOOT_ARCH_REVISION 3

struct fw_fadt {
	bool present;               /* a valid FADT ("FACP") was found */
	uint32_t table_addr;        /* its physical address */
	uint8_t revision;           /* header revision: 1 = ACPI 1.0, 3 = ACPI 2.0, later more */
	bool boot_arch_valid;       /* revision >= FW_FADT_BOOT_ARCH_REVISION: boot_arch can be trusted */
	uint16_t boot_arch;         /* IAPC_BOOT_ARCH (FW_BOOT_ARCH_*), 0 when not valid */
};

struct fw_acpi_table {          /* a table the RSDT/XSDT lists */
	char signature[5];          /* NUL-terminated; non-printable bytes shown as '?' */
	uint8_t revision;
	bool valid;                 /* header and checksum good */
	uint32_t addr;
	uint32_t length;
};

struct fw_acpi_info {
	uint32_t rsdp_addr;         /* where the RSDP was found; 0 for a loader's copy */
	uint8_t rsdp_revision;      /* 0 = ACPI 1.0, 2 = ACPI 2.0+ */
	char oem_id[7];             /* RSDP OEM ID, NUL-terminated */
	uint32_t root_addr;         /* RSDT or XSDT used */
	bool root_is_xsdt;
	bool madt_found;            /* a valid MADT was parsed */
	struct {
		uint32_t count;
		bool truncated;
		struct fw_acpi_table entry[FW_MAX_ACPI_TABLES];
	} tables;
};

struct fw_mp_info {
	uint32_t floating_addr;     /* where the "_MP_" structure was found */
	uint32_t config_addr;       /* configuration table, 0 if none */
	uint8_t spec_rev;           /* 1 = MP 1.1, 4 = MP 1.4 */
	uint8_t default_config;     /* feature byte 1: non-zero = default configuration N */
	bool imcr_present;          /* feature byte 2 bit 7: IMCR present (PIC mode) */
	char oem_id[9];             /* NUL-terminated, trailing spaces removed */
	char product_id[13];        /* NUL-terminated, trailing spaces removed */
	uint32_t extended_entries;  /* extended entries walked (checked, not used) */
};

struct fw_mp_bus {
	uint8_t id;                 /* bus ID other entries refer to */
	uint8_t type;               /* enum fw_bus_type */
	char name[7];               /* the type string, trailing spaces removed */
};

struct fw_mp_irq {              /* MP I/O interrupt assignment entry */
	uint8_t kind;               /* enum fw_int_kind */
	uint8_t polarity;           /* enum fw_polarity */
	uint8_t trigger;            /* enum fw_trigger */
	uint8_t bus;                /* source bus ID */
	uint8_t bus_irq;            /* source bus IRQ as listed (PCI: device << 2 | pin) */
	uint8_t pci_device;         /* PCI buses only: device number */
	uint8_t pci_pin;            /* PCI buses only: 0 = INTA ... 3 = INTD */
	uint8_t ioapic_id;          /* destination IOAPIC ID; FW_MP_ALL_IOAPICS = every one */
	uint8_t ioapic_pin;         /* destination INTIN# */
};

/* MP destination ID meaning "all IOAPICs" / "all local APICs". */
#define FW_MP_ALL_APICS 0xFF

struct fw_platform {
	uint8_t source;             /* enum fw_source */
	uint32_t lapic_address;     /* local APIC MMIO base (after any override) */
	bool pcat_compat;           /* ACPI: a dual 8259 is present too */

	struct fw_acpi_info acpi;   /* FW_SOURCE_ACPI only */
	struct fw_mp_info mp;       /* FW_SOURCE_MP only */

	struct { uint32_t count; bool truncated; struct fw_cpu entry[FW_MAX_CPUS]; } cpus;
	struct { uint32_t count; bool truncated; struct fw_ioapic entry[FW_MAX_IOAPICS]; } ioapics;
	struct { uint32_t count; bool truncated; struct fw_isa_override entry[FW_MAX_ISA_OVERRIDES]; } overrides;
	struct { uint32_t count; bool truncated; struct fw_nmi_source entry[FW_MAX_NMI_SOURCES]; } nmi_sources;
	struct { uint32_t count; bool truncated; struct fw_lint entry[FW_MAX_LINTS]; } lints;
	struct fw_hpet hpet;
	struct fw_fadt fadt;        /* ACPI only: the FADT's fields irqkit reads */

	/* MP only: buses, and the I/O interrupt entries split by source bus. */
	struct { uint32_t count; bool truncated; struct fw_mp_bus entry[FW_MAX_MP_BUSES]; } buses;
	struct { uint32_t count; bool truncated; struct fw_mp_irq entry[FW_MAX_MP_PCI_IRQS]; } pci_irqs;
	struct { uint32_t count; bool truncated; struct fw_mp_irq entry[FW_MAX_MP_BUS_IRQS]; } bus_irqs;

	struct fw_problems problems;
};

/* One $PIR slot entry: a PCI device and where its INTA-D pins go. */
struct fw_pir_slot {
	uint8_t bus;                /* PCI bus number */
	uint8_t devfn;              /* device << 3 (function bits are 0) */
	uint8_t slot;               /* physical slot number, 0 = on-board */
	struct {
		uint8_t link;           /* router link value (PIIX: config register 0x60-0x63), 0 = not connected */
		uint16_t irq_bitmap;    /* ISA IRQs this link may be routed to (bit n = IRQ n) */
	} pin[4];                   /* INTA ... INTD */
};

struct fw_pir {
	bool present;               /* a valid $PIR was parsed */
	uint32_t addr;              /* where it was found */
	uint16_t version;           /* 0x0100 */
	uint8_t router_bus;         /* PCI interrupt router location */
	uint8_t router_devfn;
	uint16_t exclusive_irqs;    /* IRQs reserved for PCI (bit n = IRQ n) */
	uint16_t compat_vendor;     /* router this one is compatible with, or 0 */
	uint16_t compat_device;
	uint32_t miniport_data;
	struct { uint32_t count; bool truncated; struct fw_pir_slot entry[FW_MAX_PIR_SLOTS]; } slots;
	struct fw_problems problems;
};

/* ------------------------------------------------------------------------
 * Parsers. None of them prints; problems go into the output's list.
 */

/*
 * acpi_parse - find the RSDP (first KiB of the EBDA, then 0xE0000-0xFFFFF),
 * then the RSDT or XSDT and the MADT and HPET tables it lists. Fills @out
 * from scratch (source FW_SOURCE_ACPI once an RSDP is found).
 * CONTEXT: boot, single-threaded; reads only through @w.
 * RETURNS 0 when a root table was walked (check out->acpi.madt_found and
 * out->hpet.present); -ENOENT if there is no valid RSDP; -EINVAL if the RSDP
 * leads to no usable RSDT/XSDT.
 */
int acpi_parse(const struct fw_window *w, struct fw_platform *out);

/*
 * acpi_parse_from_rsdp - as acpi_parse, starting from an RSDP found
 * elsewhere (a multiboot copy): @rsdp holds @len bytes, @rsdp_phys is only
 * used in messages. CONTEXT: as acpi_parse.
 * RETURNS 0; -EINVAL if the RSDP is bad or leads to no usable root table.
 */
int acpi_parse_from_rsdp(const struct fw_window *w, const void *rsdp, uint32_t len,
                         uint32_t rsdp_phys, struct fw_platform *out);

/*
 * acpi_parse_madt - add what the MADT at @madt (@len bytes available) lists
 * to @out: local APIC address and flags, CPUs, IOAPICs, overrides, NMI
 * sources, LINT entries. Bad entries are recorded and skipped.
 * CONTEXT: any; @out must have been set up (acpi_parse does it; otherwise
 * fw_platform_init).
 * RETURNS 0; -EINVAL if the header, length or checksum is bad (nothing added).
 */
int acpi_parse_madt(const void *madt, uint32_t len, struct fw_platform *out);

/*
 * acpi_parse_hpet - fill out->hpet from the HPET table at @tbl (@len bytes).
 * CONTEXT: as acpi_parse_madt.
 * RETURNS 0; -EINVAL if the table is bad or the timer block is not in
 * memory space below 4 GiB (out->hpet.present stays false).
 */
int acpi_parse_hpet(const void *tbl, uint32_t len, struct fw_platform *out);

/*
 * acpi_parse_fadt - fill out->fadt from the FADT at @tbl (@len bytes): its
 * revision and, from revision 3 (ACPI 2.0) on, IAPC_BOOT_ARCH, which says
 * whether the machine has an 8042 keyboard controller.
 * CONTEXT: as acpi_parse_madt.
 * RETURNS 0; -EINVAL if the table is bad (out->fadt.present stays false).
 */
int acpi_parse_fadt(const void *tbl, uint32_t len, struct fw_platform *out);

/*
 * acpi_parse_at - as acpi_parse, with the RSDP at @rsdp_phys (named by the
 * EFI configuration table): it must lie in the window and pass the same
 * checks as a found one. CONTEXT: as acpi_parse.
 * RETURNS 0; -ENOENT if there is no valid RSDP there; -EINVAL if it leads
 * to no usable root table.
 */
int acpi_parse_at(const struct fw_window *w, uint32_t rsdp_phys, struct fw_platform *out);

/* What efi_find_rsdp() found on its way (for the boot log). */
struct fw_efi_rsdp {
	uint32_t systab;            /* physical address of the EFI system table */
	uint16_t major, minor;      /* its revision (UEFI 2.70 = 2, 70) */
	uint32_t entries;           /* configuration table entries */
	uint32_t config;            /* physical address of the configuration table */
	uint32_t rsdp;              /* the RSDP the configuration table names, 0 if none */
	bool acpi20;                /* named by the ACPI 2.0 GUID (else the ACPI 1.0 one) */
};

/*
 * efi_find_rsdp - read the EFI system table at @systab (@bits 32 or 64, as
 * the loader's tag said) and its configuration table through @w, and find
 * the RSDP under the ACPI 2.0 GUID, else the ACPI 1.0 one (UEFI 2.10
 * sections 4.3, 4.6; ACPI 6.5 section 5.2.5.2). Checked: both tables lie in
 * the window (memory the map lists, not the kernel's RAM) and below 4 GiB,
 * the signature, revision, header size and CRC32, the entry count; a bad
 * table is reported in @problems. CONTEXT: boot; reads only through @w.
 * RETURNS 0 with out->rsdp set; -EINVAL (table bad or unreachable);
 * -ENOENT (no ACPI entry).
 */
int efi_find_rsdp(const struct fw_window *w, uint64_t systab, unsigned int bits,
                  struct fw_efi_rsdp *out, struct fw_problems *problems);

/*
 * acpi_find - the kernel's RSDP search (acpi_find.c): the boot loader's
 * copies, then the EFI system table, then the BIOS areas (acpi_parse), the
 * first that parses wins and the boot log names it. Fills @out.
 * CONTEXT: boot (prints). RETURNS 0, or the last source's error.
 */
int acpi_find(const struct fw_window *w, struct fw_platform *out);
/* acpi_param_rsdp_from - the rsdp_from=auto|loader|efi|bios boot parameter. */
int acpi_param_rsdp_from(const char *v, void *arg);

/*
 * mptable_parse - find the MP floating pointer (first KiB of the EBDA, last
 * KiB of base memory, 0xF0000-0xFFFFF) and parse its configuration table.
 * Fills @out from scratch (source FW_SOURCE_MP once a pointer is found).
 * CONTEXT: boot, single-threaded; reads only through @w.
 * RETURNS 0; -ENOENT if there is no valid floating pointer; -ENODEV if it
 * names a default configuration (out->mp.default_config; not expanded);
 * -EINVAL if the configuration table is missing or bad.
 */
int mptable_parse(const struct fw_window *w, struct fw_platform *out);

/*
 * mptable_parse_config - add the MP configuration table at @cfg (@len bytes
 * available: base table plus extended entries) to @out.
 * CONTEXT: as acpi_parse_madt.
 * RETURNS 0; -EINVAL if the header, length or base checksum is bad.
 */
int mptable_parse_config(const void *cfg, uint32_t len, struct fw_platform *out);

/*
 * pirtable_parse - find the $PIR table in 0xF0000-0xFFFFF and parse it into
 * @out (filled from scratch).
 * CONTEXT: boot, single-threaded; reads only through @w.
 * RETURNS 0; -ENOENT if there is no valid $PIR table (bad candidates are in
 * out->problems).
 */
int pirtable_parse(const struct fw_window *w, struct fw_pir *out);

/*
 * pirtable_parse_table - parse the $PIR table at @tbl (@len bytes available)
 * into @out (filled from scratch); @phys is used in messages.
 * CONTEXT: any. RETURNS 0; -EINVAL if signature, version, size or checksum is bad.
 */
int pirtable_parse_table(const void *tbl, uint32_t len, uint32_t phys, struct fw_pir *out);

/*
 * fw_platform_init - empty description from @source. CONTEXT: any.
 */
void fw_platform_init(struct fw_platform *out, enum fw_source source);

/*
 * fw_platform_print - the boot-log lines for @p (tables found, CPUs,
 * IOAPICs, overrides, LINTs, HPET, MP buses and interrupt entries,
 * problems), one call of @print per line, without a trailing newline.
 * CONTEXT: any; @print decides where lines go.
 */
void fw_platform_print(const struct fw_platform *p,
                       void (*print)(void *ctx, const char *line), void *ctx);

/* fw_pir_print - the boot-log lines for @pir, as fw_platform_print. */
void fw_pir_print(const struct fw_pir *pir,
                  void (*print)(void *ctx, const char *line), void *ctx);

/*
 * fw_problem_format - one line for @p: "<table> at 0x<addr> +<offset>: <what>
 * (value 0x<value>)". RETURNS @buf (always NUL-terminated when @size > 0).
 */
char *fw_problem_format(const struct fw_problem *p, char *buf, size_t size);

/* fw_table_name - "MADT", "MP config table", ... RETURNS a static string. */
const char *fw_table_name(enum fw_table table);

/* fw_polarity_name / fw_trigger_name / fw_int_kind_name - short names for logs. */
const char *fw_polarity_name(uint8_t polarity);
const char *fw_trigger_name(uint8_t trigger);
const char *fw_int_kind_name(uint8_t kind);

/* ------------------------------------------------------------------------
 * Helpers shared by acpi.c, mptable.c and pirtable.c (defined in fwmem.c).
 * Not meant for drivers.
 */

/* Little-endian field readers: tables are byte arrays with unaligned fields. */
static inline uint16_t fw_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t fw_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t fw_le64(const uint8_t *p) { return fw_le32(p) | (uint64_t)fw_le32(p + 4) << 32; }

/* fw_checksum - 8-bit sum of @len bytes (tables are valid when it is 0). */
uint8_t fw_checksum(const void *p, uint32_t len);

/* fw_signature_is - the first strlen(@sig) bytes at @p spell @sig. */
bool fw_signature_is(const void *p, const char *sig);

/* fw_copy_id - copy a space-padded ID field of @len bytes to @dst (@len + 1 bytes), trimmed. */
void fw_copy_id(char *dst, const uint8_t *src, uint32_t len);

/* Where a parser is reading, for the problems it reports. */
struct fw_walk {
	struct fw_problems *problems;
	uint8_t table;     /* enum fw_table */
	uint32_t addr;     /* physical address of the table */
};

/*
 * fw_problems_set_addr - give problems [@first, count) that carry address 0
 * the address @phys: the per-table entry points do not know where their
 * table is, the discovery code does.
 */
void fw_problems_set_addr(struct fw_problems *probs, uint32_t first, uint32_t phys);

/* fw_report - record a problem at @offset of the table @walk is reading. */
void fw_report(const struct fw_walk *walk, uint32_t offset, enum fw_problem_kind kind,
               uint64_t value, const char *what);

/*
 * fw_list_slot - next free element of a fixed list (count, truncated,
 * entry[limit]), zeroed; NULL when full, which sets *@truncated and reports
 * FW_PROBLEM_TOO_MANY (once per list). Use through FW_LIST_ADD.
 */
void *fw_list_slot(const struct fw_walk *walk, uint32_t offset, uint32_t *count, bool *truncated,
                   void *entries, size_t size, uint32_t limit, const char *what);

#define FW_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FW_LIST_ADD(walk, offset, list, what)                                            \
	((__typeof__(&(list)->entry[0]))fw_list_slot((walk), (offset), &(list)->count,       \
		&(list)->truncated, (list)->entry, sizeof((list)->entry[0]),                     \
		FW_ARRAY_SIZE((list)->entry), (what)))

/* fw_flags_decode - split MPS INTI flags into polarity/trigger, reporting reserved values. */
void fw_flags_decode(const struct fw_walk *walk, uint32_t offset, uint16_t flags,
                     uint8_t *polarity, uint8_t *trigger);

/* Paragraph scan: the tables' search granularity (16 bytes). */
#define FW_PARAGRAPH 16u

/*
 * fw_scan - offer every 16-byte boundary in [@start, @start + @len) that is
 * inside the window and begins with @sig to @try_at, in address order, until
 * it accepts one. RETURNS the accepted address, or 0 if none was accepted.
 */
uint32_t fw_scan(const struct fw_window *w, uint32_t start, uint32_t len, const char *sig,
                 bool (*try_at)(void *ctx, uint32_t phys), void *ctx);

/*
 * fw_bios_ebda - physical address of the EBDA from the BIOS data area word at
 * 0x40E. RETURNS it, or 0 when the BDA is not in the window or the pointer is
 * 0 or outside base memory (reported through @problems).
 */
uint32_t fw_bios_ebda(const struct fw_window *w, struct fw_problems *problems);

/*
 * fw_bios_base_mem_top - start of the last KiB of base memory, from the BDA
 * word at 0x413 (KiB of base memory); 0x9FC00 when the BDA is not in the
 * window or the value is absurd (reported through @problems).
 */
uint32_t fw_bios_base_mem_top(const struct fw_window *w, struct fw_problems *problems);

#endif
