/*
 * pci_msi.h - message-signalled interrupts (MSI, MSI-X) for PCI drivers
 * (drivers/pci/msi.c), with INTx as the fallback. The calls and their
 * meaning follow Linux's pci_alloc_irq_vectors() family so drivers port
 * both ways:
 *
 *     int n = pci_alloc_irq_vectors(pdev, 1, 2, PCI_IRQ_MSIX | PCI_IRQ_MSI | PCI_IRQ_INTX);
 *     if (n < 0) ...                                    // no interrupt at all
 *     request_irq(pci_irq_vector(pdev, 0), handler, pci_irq_is_msi(pdev) ? 0 : IRQF_SHARED, ...);
 *     ...
 *     free_irq(pci_irq_vector(pdev, 0), cookie);
 *     pci_free_irq_vectors(pdev);
 *
 * Each message vector becomes a kernel/irq line of its own (line numbers
 * from PCI_MSI_FIRST_LINE up), with a CPU vector from the one allocator of
 * arch/x86/vector.c, an irq_chip named "PCI-MSI 00:1f.2" or "PCI-MSI-X
 * 00:04.0" (what `irqs` shows), the edge flow, mask/unmask at the device
 * (MSI-X vector control; MSI mask bits, or where the device has none,
 * MSI enable cleared with INTx disabled - see msi.c), ack by local APIC
 * EOI, and irq_pending from the LAPIC's IRR and the MSI-X Pending Bit
 * Array. A message line belongs to its function: only that driver's
 * actions may share it (IRQF_SHARED on each, e.g. two queues on one MSI
 * vector). An INTx vector is the pin's routed line, shared with others.
 *
 * Specifications: PCI Local Bus 3.0 section 6.8 (MSI and MSI-X
 * capabilities), Intel SDM vol. 3A 11.11 (the message format),
 * docs/msi.md (how a message travels and how it is lost).
 *
 * `pci=nomsi` on the command line makes every call give INTx.
 * Locking: thread context, one driver per function; no call here may run
 * from an interrupt handler.
 */
#ifndef DRIVERS_PCI_MSI_H
#define DRIVERS_PCI_MSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pci_dev;

/* Flags of pci_alloc_irq_vectors(): which kinds the driver accepts, tried MSI-X, MSI, INTx. */
#define PCI_IRQ_INTX 0x1u   /* the legacy pin (one vector, possibly shared) */
#define PCI_IRQ_MSI  0x2u   /* an MSI capability (irqkit gives one message) */
#define PCI_IRQ_MSIX 0x4u   /* an MSI-X capability (up to PCI_MSI_MAX_VECTORS entries) */
#define PCI_IRQ_ALL_TYPES (PCI_IRQ_INTX | PCI_IRQ_MSI | PCI_IRQ_MSIX)

/* Limits of the MSI layer, with why. */
enum pci_msi_limits {
	/* kernel/irq line numbers of message lines start here (0-31: ISA IRQs and GSIs). */
	PCI_MSI_FIRST_LINE = 32,
	/* Functions with message vectors at once: the disk and network controllers of a PC. */
	PCI_MSI_MAX_DEVICES = 8,
	/* Vectors per function: NVMe needs an admin and one I/O queue per CPU; 8 covers that. */
	PCI_MSI_MAX_VECTORS = 8,
	/* MSI-X tables larger than the 2048 entries the 11-bit size field allows are impossible. */
	PCI_MSIX_TABLE_MAX = 2048,
	/* Bytes per MSI-X table entry (PCI 3.0 6.8.2.6). */
	PCI_MSIX_ENTRY_SIZE = 16,
};

/* How a function interrupts now (pci_irq_mode). */
enum pci_irq_mode {
	PCI_IRQ_MODE_NONE = 0,  /* no vectors allocated */
	PCI_IRQ_MODE_INTX,
	PCI_IRQ_MODE_MSI,
	PCI_IRQ_MODE_MSIX,
};

/*
 * pci_alloc_irq_vectors - give @dev between @min and @max interrupt
 * vectors of the kinds @flags allows: MSI-X first (as many as the table,
 * the free lines and the free CPU vectors allow, up to @max), then MSI
 * (one message, so only when @min is 1), then INTx (one vector, the pin's
 * routed line). Message vectors start masked; request_irq() unmasks them.
 * Turns on memory decoding for the MSI-X table and sets INTx disable in
 * the command register while messages are in use. Every refusal of a
 * kind (a table outside its BAR, a bogus size, a BAR above 4 GiB) is
 * logged once and the next kind is tried.
 * CONTEXT: thread context. RETURNS the number of vectors (>= @min);
 * -EINVAL (NULL @dev, @min 0 or above @max, no known flag); -EBUSY
 * (vectors already allocated: free them first); -ENOSPC (no kind could
 * give @min vectors); -ENODEV (INTx was the only choice and the pin is
 * not routed, or the function has no pin).
 */
int pci_alloc_irq_vectors(struct pci_dev *dev, unsigned int min, unsigned int max, unsigned int flags);

/*
 * pci_irq_vector - the kernel/irq line of vector @nr of @dev, for
 * request_irq(). CONTEXT: any. RETURNS the line (>= 0); -EINVAL (NULL
 * @dev, nothing allocated, @nr past the vectors given).
 */
int pci_irq_vector(struct pci_dev *dev, unsigned int nr);

/*
 * pci_free_irq_vectors - undo pci_alloc_irq_vectors(): mask and switch
 * off the capability, give lines and CPU vectors back, let INTx through
 * again. Every line must be free_irq()'d first; a vector whose line still
 * has a handler is reported and kept (the device stays masked).
 * CONTEXT: thread context.
 */
void pci_free_irq_vectors(struct pci_dev *dev);

/* pci_irq_is_msi - @dev's vectors are messages (MSI or MSI-X), not INTx. CONTEXT: any. */
bool pci_irq_is_msi(struct pci_dev *dev);

/* pci_irq_mode - how @dev interrupts now (enum pci_irq_mode). CONTEXT: any. */
enum pci_irq_mode pci_irq_mode(struct pci_dev *dev);

/* pci_irq_mode_name - "MSI-X", "MSI", "INTx" or "none". RETURNS a static string. */
const char *pci_irq_mode_name(enum pci_irq_mode mode);

/*
 * pci_msi_diagnose - what, read from the device now, keeps vector @nr of
 * @dev from arriving (masked behind the core's back, capability switched
 * off, message data pointing at another vector); the same text the line's
 * irq_chip gives the health report. RETURNS 1 and the reason in @buf; 0
 * when the device is programmed as the core believes; -EINVAL (no such
 * message vector).
 */
int pci_msi_diagnose(struct pci_dev *dev, unsigned int nr, char *buf, size_t len);

/*
 * pci_msi_set_diagnose - let @dev's driver add what only it can read to
 * the diagnosis of its message lines (an NVMe completion queue created
 * without interrupts, say): @fn is asked after the device's MSI state
 * was found in order, with the line's lock held and interrupts off, so it
 * may only read registers and its own state. @fn returns like
 * pci_msi_diagnose(). NULL @fn removes it. CONTEXT: thread context.
 * RETURNS 0; -EINVAL (no message vectors allocated).
 */
typedef int (*pci_msi_diagnose_fn)(void *ctx, unsigned int nr, char *buf, size_t len);
int pci_msi_set_diagnose(struct pci_dev *dev, pci_msi_diagnose_fn fn, void *ctx);

/*
 * pci_msi_print - for `lspci -v`: @dev's MSI and MSI-X capabilities as
 * the device holds them now (enable, masks, each entry's vector and line).
 * CONTEXT: thread context.
 */
void pci_msi_print(const struct pci_dev *dev);

/* pci_msi_disabled - `pci=nomsi` was given. CONTEXT: any. */
bool pci_msi_disabled(void);

/* pci_param_pci - the `pci=` boot parameter: "nomsi". RETURNS 0; -EINVAL for another value. */
int pci_param_pci(const char *value, void *arg);

#endif
