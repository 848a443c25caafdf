# Host unit test for PCI enumeration (drivers/pci/pci.c: bus walk, BARs,
# capabilities, helpers), the PIRQ router control (pirq_router.c), the
# shell commands (pci_shell.c) and pci_route_all, on a fake configuration
# space that checks BAR sizing happens with decoding off.
UNIT_TESTS += pci_scan
UNIT_pci_scan_SRCS := tests/unit/test_pci_scan.c drivers/pci/pci.c drivers/pci/pirq_router.c \
	drivers/pci/pci_route.c drivers/pci/pci_names.c drivers/pci/pci_shell.c kernel/vsprintf.c
UNIT_pci_scan_CFLAGS := -Iarch/x86/include -Idrivers
