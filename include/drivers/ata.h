/*
 * ata.h - the PIO ATA/ATAPI driver (drivers/ata/): legacy and PCI-native
 * IDE channels, ATA disks and ATAPI CD-ROMs as block devices "hda".."hdd"
 * (<kernel/blk.h>), interrupt-driven PIO bracketed by kernel/irq's IRQ
 * expecting, and the faults ata-drop, ata-mask and ata-misvector
 * (<kernel/fault.h>). docs/ata.md describes the design, the shell
 * commands and their output.
 */
#ifndef DRIVERS_ATA_H
#define DRIVERS_ATA_H

/*
 * ata_init - find the IDE controller (PCI class 01/01, or the legacy ports
 * when PCI has none), take each channel's interrupt (IRQF_SHARED), detect
 * and identify its devices and register them as block devices. Prints one
 * line per channel and per device.
 * CONTEXT: boot, thread context with interrupts enabled and the tick
 * running; after pci_init()/PCI routing and x86_interrupt_setup(), before
 * fault_apply_boot() (the ata-* faults act on the channels found here).
 * RETURNS the number of devices found (0 is no error: a machine without
 * IDE disks).
 */
int ata_init(void);

/*
 * ata_cmd - the shell's `ata` command (usage in docs/ata.md):
 *   ata                                   channels, devices, counters
 *   ata identify [DEV]                    what IDENTIFY said
 *   ata read [DEV] LBA                    hex dump of one block
 *   ata crc [DEV] LBA COUNT               CRC-32 (zlib) of the blocks
 *   ata write-pattern [DEV] SEED LBA COUNT / verify-pattern ...
 *   ata flush [DEV]                       FLUSH CACHE
 *   ata bench [DEV] LBA COUNT             write then read throughput (writes the pattern!)
 *   ata reset [DEV]                       software reset of the channel
 *   ata raw DEV read|write LBA COUNT      send to the device unchecked (it must refuse)
 *   ata set DEV multiple N | lba48 on|off
 * DEV defaults to the first ATA disk. RETURNS 0; -EINVAL (usage); the error.
 */
int ata_cmd(int argc, char **argv);

#endif /* DRIVERS_ATA_H */
