# Host unit test of the MSI/MSI-X capability checks (drivers/pci/msi_layout.c):
# every kind of nonsense a device can claim about its MSI-X table and PBA.
UNIT_TESTS += pci_msi
UNIT_pci_msi_SRCS := tests/unit/test_pci_msi.c drivers/pci/msi_layout.c kernel/vsprintf.c
UNIT_pci_msi_CFLAGS := -Iarch/x86/include -Idrivers
