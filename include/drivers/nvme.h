/*
 * nvme.h - the NVMe driver (drivers/nvme/) for the rest of the kernel:
 * bring-up from kmain and the `nvme` shell command. Block devices
 * ("nvme0n1") are reached through kernel/blk.c. docs/nvme.md describes it.
 */
#ifndef DRIVERS_NVME_H
#define DRIVERS_NVME_H

/* PCI class of an NVMe controller: mass storage (0x01), non-volatile memory (0x08), NVMe (0x02). */
#define NVME_PCI_SUBCLASS 0x08
#define NVME_PCI_PROGIF   0x02

/*
 * nvme_init - find every NVMe controller on PCI, reset and enable it, set
 * up its admin queue, an I/O queue pair per online CPU (fewer if the
 * controller grants fewer) and interrupts (MSI-X, MSI or INTx), and
 * register namespace 1 as block device nvmeXn1. Prints what it found and
 * every refusal. CONTEXT: boot, after pci_routing, irq_defences_start and smp_init
 * (the CPUs online then get the pairs), interrupts on. RETURNS the number of controllers in use.
 */
int nvme_init(void);

/*
 * nvme_cmd - the shell's `nvme` command:
 *   nvme                              controllers, queues, interrupt mode and counters
 *   nvme raw-read DEV LBA COUNT       a READ passed to the controller unchecked (it must refuse a bad range)
 *   nvme clear-stats                  zero the queues' counters and latencies (benchmarks)
 * RETURNS 0; -EINVAL (usage); the command's error.
 */
int nvme_cmd(int argc, char **argv);

#endif
