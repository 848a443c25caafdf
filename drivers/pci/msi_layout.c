/*
 * msi_layout.c - the pure checks of drivers/pci/msi.c (msi_internal.h):
 * where an MSI capability keeps its registers, and whether an MSI-X table
 * and Pending Bit Array really fit the BARs they name. No configuration
 * space access and no logging, so the host tests feed them every kind of
 * nonsense a device can claim (tests/unit/test_pci_msi.c).
 */
#include "msi_internal.h"
#include <kernel/errno.h>
#include <kernel/format.h>

#define PCI_HEADER_BYTES 0x40     /* capabilities live after the 64-byte header */
#define MSI_LEN_32 0x0C           /* 32-bit layout without masking: up to the data word + pad */
#define MSI_LEN_64 0x10
#define MSI_LEN_32_PVM 0x14
#define MSI_LEN_64_PVM 0x18
#define PBA_QWORD_BYTES 8u

int pci_msi_cap_layout(unsigned int cap, uint16_t ctl, struct pci_msi_layout *out, char *why, size_t len)
{
	bool is64 = ctl & PCI_MSI_CTL_64BIT, pvm = ctl & PCI_MSI_CTL_PVM;
	unsigned int bytes = is64 ? (pvm ? MSI_LEN_64_PVM : MSI_LEN_64) : (pvm ? MSI_LEN_32_PVM : MSI_LEN_32);
	unsigned int mmc = (ctl & PCI_MSI_CTL_MMC_MASK) >> PCI_MSI_CTL_MMC_SHIFT;

	if (!out)
		return -EINVAL;
	if (cap < PCI_HEADER_BYTES || cap + bytes > PCI_CONFIG_SPACE_LEN || (cap & 3)) {
		ksnprintf(why, len, "MSI capability at 0x%02x (%u bytes) is not inside configuration space after the header",
			  cap, bytes);
		return -EINVAL;
	}
	*out = (struct pci_msi_layout){
		.is64 = is64,
		.pvm = pvm,
		/* 110 and 111 are reserved; read them as the largest legal value, 32. */
		.messages = (uint8_t)(1u << (mmc > 5 ? 5 : mmc)),
		.addr_lo = (uint8_t)(cap + PCI_MSI_ADDR_LO),
		.addr_hi = is64 ? (uint8_t)(cap + PCI_MSI_ADDR_HI) : 0,
		.data = (uint8_t)(cap + (is64 ? PCI_MSI_DATA_64 : PCI_MSI_DATA_32)),
		.mask = pvm ? (uint8_t)(cap + (is64 ? PCI_MSI_MASK_64 : PCI_MSI_MASK_32)) : 0,
		.pending = pvm ? (uint8_t)(cap + (is64 ? PCI_MSI_PENDING_64 : PCI_MSI_PENDING_32)) : 0,
	};
	return 0;
}

/* bar_window - check BAR @bir of @dev can hold [@off, @off + @bytes). RETURNS 0 or -EINVAL with @why. */
static int bar_window(const struct pci_dev *dev, unsigned int bir, uint32_t off, uint64_t bytes,
		      const char *what, uint64_t *addr, char *why, size_t len)
{
	const struct pci_bar *bar;

	if (bir >= PCI_MAX_BARS || bir >= dev->bar_count) {
		ksnprintf(why, len, "MSI-X %s names BAR%u, which this function does not have", what, bir);
		return -EINVAL;
	}
	bar = &dev->bar[bir];
	if (bar->flags & (PCI_BAR_IO | PCI_BAR_BAD | PCI_BAR_UPPER_HALF) || bar->size == 0) {
		ksnprintf(why, len, "MSI-X %s names BAR%u, which is not a usable memory BAR", what, bir);
		return -EINVAL;
	}
	/* Anywhere in the physical address space: msi.c maps it (paging.c's mmio_map, the PAE window above 4 GiB). */
	if (bar->base == 0 || bar->size - 1 > UINT64_MAX - bar->base) {
		ksnprintf(why, len, "MSI-X %s is in BAR%u at 0x%llx, unassigned or running past 2^64",
			  what, bir, (unsigned long long)bar->base);
		return -EINVAL;
	}
	if ((uint64_t)off > bar->size || bytes > bar->size - off) {
		ksnprintf(why, len, "MSI-X %s (0x%x + %llu bytes) does not fit in BAR%u (%llu bytes)", what, off,
			  (unsigned long long)bytes, bir, (unsigned long long)bar->size);
		return -EINVAL;
	}
	*addr = bar->base + off;
	return 0;
}

int pci_msix_layout(const struct pci_dev *dev, uint16_t ctl, uint32_t table_reg, uint32_t pba_reg,
		    struct pci_msix_layout *out, char *why, size_t len)
{
	struct pci_msix_layout l = { 0 };
	uint64_t table_bytes, pba_bytes;

	if (!dev || !out)
		return -EINVAL;
	l.size = (uint16_t)((ctl & PCI_MSIX_CTL_SIZE_MASK) + 1);
	l.table_bir = (uint8_t)(table_reg & PCI_MSIX_BIR_MASK);
	l.table_off = table_reg & PCI_MSIX_OFFSET_MASK;
	l.pba_bir = (uint8_t)(pba_reg & PCI_MSIX_BIR_MASK);
	l.pba_off = pba_reg & PCI_MSIX_OFFSET_MASK;
	table_bytes = (uint64_t)l.size * PCI_MSIX_ENTRY_SIZE;
	pba_bytes = (uint64_t)((l.size + PCI_MSIX_PBA_BITS_PER_QWORD - 1) / PCI_MSIX_PBA_BITS_PER_QWORD) * PBA_QWORD_BYTES;
	if (bar_window(dev, l.table_bir, l.table_off, table_bytes, "table", &l.table_addr, why, len) ||
	    bar_window(dev, l.pba_bir, l.pba_off, pba_bytes, "PBA", &l.pba_addr, why, len))
		return -EINVAL;
	if (l.table_addr < l.pba_addr + pba_bytes && l.pba_addr < l.table_addr + table_bytes) {
		ksnprintf(why, len, "MSI-X table (BAR%u+0x%x, %u entries) and PBA (BAR%u+0x%x) overlap",
			  l.table_bir, l.table_off, l.size, l.pba_bir, l.pba_off);
		return -EINVAL;
	}
	*out = l;
	return 0;
}
