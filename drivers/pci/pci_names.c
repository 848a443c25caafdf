/*
 * pci_names.c - names for PCI class codes, capability IDs and interrupt
 * pins, for the boot log and lspci. Codes from the PCI Code and ID
 * Assignment Specification 1.9 (appendix D: class codes; chapter 2:
 * capability IDs). Only the classes a PC kernel meets are named in full;
 * every other code still gets its base-class name.
 */
#include <stddef.h>
#include <stdint.h>

#include <drivers/pci.h>

/* prog_if value that matches any programming interface in the table below. */
#define ANY_PROG_IF (-1)

struct class_name {
	uint8_t class_code;
	uint8_t subclass;
	int16_t prog_if;      /* ANY_PROG_IF or one value */
	const char *name;
};

/* Most specific first: a row with a prog-if precedes the row for its subclass. */
static const struct class_name class_names[] = {
	{ 0x00, 0x00, ANY_PROG_IF, "Non-VGA unclassified device" },
	{ 0x00, 0x01, ANY_PROG_IF, "VGA compatible unclassified device" },
	{ 0x01, 0x00, ANY_PROG_IF, "SCSI storage controller" },
	{ 0x01, 0x01, ANY_PROG_IF, "IDE controller" },
	{ 0x01, 0x02, ANY_PROG_IF, "Floppy disk controller" },
	{ 0x01, 0x04, ANY_PROG_IF, "RAID bus controller" },
	{ 0x01, 0x05, ANY_PROG_IF, "ATA controller" },
	{ 0x01, 0x06, 0x01, "SATA controller (AHCI)" },
	{ 0x01, 0x06, ANY_PROG_IF, "SATA controller" },
	{ 0x01, 0x07, ANY_PROG_IF, "SAS controller" },
	{ 0x01, 0x08, 0x02, "NVMe controller" },
	{ 0x01, 0x08, ANY_PROG_IF, "Non-volatile memory controller" },
	{ 0x02, 0x00, ANY_PROG_IF, "Ethernet controller" },
	{ 0x03, 0x00, ANY_PROG_IF, "VGA compatible controller" },
	{ 0x03, 0x01, ANY_PROG_IF, "XGA controller" },
	{ 0x03, 0x02, ANY_PROG_IF, "3D controller" },
	{ 0x04, 0x00, ANY_PROG_IF, "Multimedia video controller" },
	{ 0x04, 0x01, ANY_PROG_IF, "Multimedia audio controller" },
	{ 0x04, 0x03, ANY_PROG_IF, "Audio device" },
	{ 0x05, 0x00, ANY_PROG_IF, "RAM memory" },
	{ 0x06, 0x00, ANY_PROG_IF, "Host bridge" },
	{ 0x06, 0x01, ANY_PROG_IF, "ISA bridge" },
	{ 0x06, 0x02, ANY_PROG_IF, "EISA bridge" },
	{ 0x06, 0x04, ANY_PROG_IF, "PCI bridge" },
	{ 0x06, 0x07, ANY_PROG_IF, "CardBus bridge" },
	{ 0x07, 0x00, ANY_PROG_IF, "Serial controller" },
	{ 0x07, 0x01, ANY_PROG_IF, "Parallel controller" },
	{ 0x08, 0x00, ANY_PROG_IF, "PIC" },
	{ 0x08, 0x05, ANY_PROG_IF, "SD host controller" },
	{ 0x09, 0x00, ANY_PROG_IF, "Keyboard controller" },
	{ 0x0C, 0x00, ANY_PROG_IF, "FireWire (IEEE 1394)" },
	{ 0x0C, 0x03, 0x00, "USB UHCI controller" },
	{ 0x0C, 0x03, 0x10, "USB OHCI controller" },
	{ 0x0C, 0x03, 0x20, "USB EHCI controller" },
	{ 0x0C, 0x03, 0x30, "USB xHCI controller" },
	{ 0x0C, 0x03, ANY_PROG_IF, "USB controller" },
	{ 0x0C, 0x05, ANY_PROG_IF, "SMBus" },
};

/* Base classes 0x00-0x13 (appendix D), for codes without a row above. */
static const char *const base_class_names[] = {
	"Unclassified device", "Mass storage controller", "Network controller",
	"Display controller", "Multimedia controller", "Memory controller", "Bridge",
	"Communication controller", "System peripheral", "Input device controller",
	"Docking station", "Processor", "Serial bus controller", "Wireless controller",
	"Intelligent controller", "Satellite communications controller", "Encryption controller",
	"Signal processing controller", "Processing accelerator", "Non-essential instrumentation",
};

/* Class code 0xFF: "device does not fit any defined class". */
#define CLASS_UNASSIGNED 0xFF

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const char *pci_class_name(uint8_t class_code, uint8_t subclass, uint8_t prog_if)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(class_names); i++) {
		const struct class_name *c = &class_names[i];

		if (c->class_code == class_code && c->subclass == subclass &&
		    (c->prog_if == ANY_PROG_IF || c->prog_if == prog_if))
			return c->name;
	}
	if (class_code < ARRAY_SIZE(base_class_names))
		return base_class_names[class_code];
	return class_code == CLASS_UNASSIGNED ? "Unassigned class" : "Unknown class";
}

/* Capability IDs 0x00-0x15 (PCI Code and ID Assignment 1.9, table 2-1). */
static const char *const cap_names[] = {
	"null", "PM", "AGP", "VPD", "slot ID", "MSI", "CompactPCI hot swap", "PCI-X",
	"HyperTransport", "vendor", "debug port", "CompactPCI control", "hot-plug",
	"bridge subsystem ID", "AGP 8x", "secure device", "PCIe", "MSI-X", "SATA",
	"advanced features", "enhanced allocation", "flattening portal bridge",
};

const char *pci_cap_name(uint8_t id)
{
	return id < ARRAY_SIZE(cap_names) ? cap_names[id] : "unknown";
}

const char *pci_pin_name(uint8_t pin)
{
	static const char *const pins[] = { "none", "INTA", "INTB", "INTC", "INTD" };

	return pin < ARRAY_SIZE(pins) ? pins[pin] : "bad";
}
