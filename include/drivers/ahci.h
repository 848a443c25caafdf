/*
 * ahci.h - the AHCI driver (drivers/ata/ahci*.c): Serial ATA host bus
 * adapters (q35's ICH9 at 00:1f.2), their disks as block devices "sda",
 * "sdb"... and ATAPI drives as "sr0"..., DMA commands bracketed by
 * kernel/irq's IRQ expecting, and the faults ahci-noirq and
 * ahci-misvector. docs/ahci.md describes the design and the commands.
 */
#ifndef DRIVERS_AHCI_H
#define DRIVERS_AHCI_H

#include <stdbool.h>

/*
 * ahci_init - find the AHCI HBAs (PCI class 01/06, prog-if 01), take them
 * from the BIOS, reset them, start every port with a device, take the
 * interrupt, identify the devices and register them as block devices.
 * CONTEXT: boot, thread context with interrupts and the tick running,
 * after PCI routing and x86_interrupt_setup(), before fault_apply_boot().
 * RETURNS the number of HBAs driven.
 */
int ahci_init(void);

/* ahci_is_device_word - @w names an AHCI device ("sda", "sr0") that exists. */
bool ahci_is_device_word(const char *w);

/* ahci_have_disk - an AHCI disk was found (the `ata` command's default device then). */
bool ahci_have_disk(void);

/*
 * ahci_ata_cmd - the `ata` command for AHCI devices (same subcommands and
 * output lines as for PIO devices, see include/drivers/ata.h); DEV defaults
 * to the first AHCI disk. ahci_show - the AHCI part of `ata` without
 * arguments. RETURNS 0 or the error.
 */
int ahci_ata_cmd(int argc, char **argv);
void ahci_show(void);

#endif /* DRIVERS_AHCI_H */
