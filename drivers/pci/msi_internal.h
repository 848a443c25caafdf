/*
 * msi_internal.h - private to drivers/pci/msi*.c and its host tests: the
 * register layout of the MSI and MSI-X capabilities (PCI Local Bus 3.0
 * section 6.8) and the pure checks that turn what a device claims into a
 * layout the driver may use. Everything in a capability is untrusted
 * input: a table that does not fit its BAR, a BAR that is I/O or above
 * 4 GiB, a capability that runs off the end of configuration space is
 * refused with the reason in words.
 */
#ifndef DRIVERS_PCI_MSI_INTERNAL_H
#define DRIVERS_PCI_MSI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <drivers/pci.h>
#include <drivers/pci_msi.h>

/* Capability IDs (PCI Code and ID Assignment 1.9, table H-1). */
#define PCI_CAP_ID_MSI   0x05
#define PCI_CAP_ID_MSIX  0x11

/* MSI capability (PCI 3.0 6.8.1): offsets from the capability. */
#define PCI_MSI_CTL          0x02   /* 16 bits: message control */
#define PCI_MSI_ADDR_LO      0x04   /* message address bits 31:2 */
#define PCI_MSI_ADDR_HI      0x08   /* 64-bit capable: address bits 63:32 */
#define PCI_MSI_DATA_32      0x08   /* 16 bits: message data (32-bit layout) */
#define PCI_MSI_DATA_64      0x0C   /* 16 bits: message data (64-bit layout) */
#define PCI_MSI_MASK_32      0x0C   /* per-vector masking: mask bits (32-bit layout) */
#define PCI_MSI_MASK_64      0x10   /* ... (64-bit layout) */
#define PCI_MSI_PENDING_32   0x10   /* per-vector masking: pending bits (32-bit layout) */
#define PCI_MSI_PENDING_64   0x14   /* ... (64-bit layout) */
#define PCI_MSI_CTL_ENABLE   0x0001u   /* bit 0: MSI enable */
#define PCI_MSI_CTL_MMC_MASK 0x000Eu   /* bits 3:1: multiple message capable (log2) */
#define PCI_MSI_CTL_MME_MASK 0x0070u   /* bits 6:4: multiple message enable (log2) */
#define PCI_MSI_CTL_64BIT    0x0080u   /* bit 7: 64-bit address capable */
#define PCI_MSI_CTL_PVM      0x0100u   /* bit 8: per-vector masking capable */
#define PCI_MSI_CTL_MMC_SHIFT 1

/* MSI-X capability (PCI 3.0 6.8.2): offsets from the capability. */
#define PCI_MSIX_CTL         0x02   /* 16 bits: message control */
#define PCI_MSIX_TABLE       0x04   /* 32 bits: table offset (31:3) and BIR (2:0) */
#define PCI_MSIX_PBA         0x08   /* 32 bits: PBA offset (31:3) and BIR (2:0) */
#define PCI_MSIX_CAP_LEN     12     /* bytes of the capability */
#define PCI_MSIX_CTL_SIZE_MASK 0x07FFu /* bits 10:0: table size - 1 */
#define PCI_MSIX_CTL_FMASK   0x4000u   /* bit 14: function mask (every vector masked) */
#define PCI_MSIX_CTL_ENABLE  0x8000u   /* bit 15: MSI-X enable */
#define PCI_MSIX_BIR_MASK    0x7u      /* BAR indicator: which BAR holds the structure */
#define PCI_MSIX_OFFSET_MASK 0xFFFFFFF8u
/* One table entry (PCI 3.0 6.8.2.6-9). */
#define PCI_MSIX_ENTRY_ADDR_LO 0x0
#define PCI_MSIX_ENTRY_ADDR_HI 0x4
#define PCI_MSIX_ENTRY_DATA    0x8
#define PCI_MSIX_ENTRY_CTRL    0xC
#define PCI_MSIX_ENTRY_CTRL_MASKED 0x1u  /* vector control bit 0: masked */
#define PCI_MSIX_PBA_BITS_PER_QWORD 64   /* the PBA is an array of 64-bit words */

/* Where an MSI capability keeps each register (pci_msi_cap_layout). */
struct pci_msi_layout {
	bool is64;              /* 64-bit address layout */
	bool pvm;               /* per-vector mask and pending bits exist */
	uint8_t messages;       /* messages the function can ask for (1, 2, 4 ... 32) */
	uint8_t addr_lo, addr_hi, data, mask, pending;  /* configuration offsets (0 = absent) */
};

/*
 * pci_msi_cap_layout - the layout of the MSI capability at @cap whose
 * control word is @ctl. RETURNS 0; -EINVAL with the reason in @why when
 * the capability would run past configuration space or @cap sits in the
 * header.
 */
int pci_msi_cap_layout(unsigned int cap, uint16_t ctl, struct pci_msi_layout *out, char *why, size_t len);

/* Where an MSI-X table and Pending Bit Array are (pci_msix_layout). */
struct pci_msix_layout {
	uint16_t size;          /* entries, 1-2048 */
	uint8_t table_bir, pba_bir;
	uint32_t table_off, pba_off;   /* from the start of their BARs */
	uint64_t table_addr, pba_addr; /* physical addresses, anywhere */
	uintptr_t table_virt, pba_virt; /* where msi.c mapped them (mmio_map); 0 from pci_msix_layout */
};

/*
 * pci_msix_layout - check what an MSI-X capability claims against @dev's
 * BARs: BIR names a memory BAR of this function that was sized and
 * assigned and holds the whole table (size x 16 bytes) and the whole
 * PBA (one bit per entry, in 64-bit words), and the two do not overlap.
 * @ctl, @table_reg, @pba_reg: the capability's registers as read.
 * CONTEXT: any (pure). RETURNS 0 and *@out; -EINVAL with the reason in
 * @why (NUL-terminated, at most @len bytes).
 */
int pci_msix_layout(const struct pci_dev *dev, uint16_t ctl, uint32_t table_reg, uint32_t pba_reg,
		    struct pci_msix_layout *out, char *why, size_t len);

/* ------------------------------------------------------------------------
 * Hooks for the faults of msi_fault.c (implemented in msi.c)
 */
struct msi_vec;   /* one message vector, private to msi.c */

/*
 * msi_fault_for_each - call @fn(@v, @ctx) on every message vector of every
 * function, or of the function whose "bb:dd.f" is @only, each call with
 * interrupts off. RETURNS how many vectors @fn was called on.
 */
unsigned int msi_fault_for_each(const char *only, void (*fn)(struct msi_vec *v, void *ctx), void *ctx);
/* msi_fault_device_mask - hold @v back at the device (@on) or restore what the core wants, without telling the core. */
void msi_fault_device_mask(struct msi_vec *v, bool on);
/* msi_fault_set_vector - make the device send CPU vector @vector for @v (0: its own again). */
void msi_fault_set_vector(struct msi_vec *v, unsigned int vector);
/* msi_fault_describe - "line 33 (PCI-MSI-X 00:04.0 entry 1, vector 0x51)" into @buf. */
void msi_fault_describe(const struct msi_vec *v, char *buf, size_t len);

#endif
