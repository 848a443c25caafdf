# Host unit test for the PCI INTx routing decision (drivers/pci/pci_route.c)
# on the firmware tables captured from QEMU (tests/fixtures/), parsed by the
# real parsers in arch/x86/. pci.c and pirq_router.c come along for the
# router tables and the device table; no configuration space is touched.
UNIT_TESTS += pci_route
UNIT_pci_route_SRCS := tests/unit/test_pci_route.c drivers/pci/pci_route.c drivers/pci/pirq_router.c \
	drivers/pci/pci.c drivers/pci/pci_names.c kernel/vsprintf.c tests/fixtures/fixture.c \
	arch/x86/fwmem.c arch/x86/mptable.c arch/x86/pirtable.c arch/x86/acpi.c
UNIT_pci_route_CFLAGS := -Iarch/x86/include -Itests/fixtures -Idrivers \
	-DFW_FIXTURE_DIR='"$(CURDIR)/tests/fixtures"'
