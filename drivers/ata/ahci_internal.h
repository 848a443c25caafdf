/*
 * ahci_internal.h - what the AHCI files of drivers/ata share; private.
 * docs/ahci.md explains the design; ahci_regs.h names the registers.
 *
 *   ahci_decode.c  pure logic (host unit tests): command FIS, PRD table,
 *                  PxIS/PxSERR names, error decoding, signatures
 *   ahci.c         (kernel) the HBA: find, BIOS/OS handoff, reset, ports,
 *                  interrupt, ahci_init(); port start/stop, COMRESET
 *   ahci_cmd.c     (kernel) the command engine: issue, interrupt handler,
 *                  waiting, lost completions, errors, recovery, retry
 *   ahci_disk.c    (kernel) IDENTIFY, READ/WRITE DMA EXT, FLUSH CACHE EXT,
 *                  ATAPI (IDENTIFY PACKET, READ CAPACITY, READ(10)), blk ops
 *   ahci_fault.c   (kernel) ahci-noirq, ahci-misvector, ahci-late
 *   ahci_shell.c   (kernel) `ata ... sdX`: the `ata` command on AHCI devices
 *
 * Shared with the PIO driver: struct ata_taskfile, struct ata_identity and
 * ata_parse_identify(), ata_decode_error(), ata_status_names(),
 * atapi_decode_sense(), ata_drop_decision() (ata_internal.h).
 *
 * Concurrency. As in the PIO driver: everything a command's completion
 * depends on (port->active, cmd->state, the expect bracket) changes only
 * with interrupts disabled and the host's lock held (ahci.c: the line may
 * be delivered to another CPU), in the interrupt handler (called by the
 * core for interrupts, replays and polls, always with interrupts off,
 * through ahci_hw_interrupt) or in thread context inside
 * ahci_lock()/ahci_unlock().
 * So the handler and the time-out path can never both complete a command:
 * whoever moves it out of ATA_CMD_WAITING first owns it, and a command
 * completes exactly once. One command per port is in flight (slot 0).
 */
#ifndef DRIVERS_AHCI_INTERNAL_H
#define DRIVERS_AHCI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ata_internal.h"
#include "ahci_regs.h"

/*
 * The PxIS bits of a FIS that ends a non-queued command (the driver issues no NCQ): a D2H
 * Register FIS or a Set Device Bits FIS; the HBA posts it, with any error bit, before it
 * clears the slot in PxCI. A look whose PxIS read holds one and whose PxCI read shows the
 * slot clear has seen the completion, and skips the second PxIS read (service_port).
 * PIO Setup (PSS) and DMA Setup (DSS) also come mid-command: they do not count.
 */
#define AHCI_PxIS_DONE_FIS (AHCI_PxIS_DHRS | AHCI_PxIS_SDBS)

struct pci_dev;

/* ------------------------------------------------------------------------
 * Tunables, with the reason for each value.
 *
 * The waits for the HBA's own state machines come from AHCI 1.3.1: PxCMD.CR
 * and FR must clear within 500 ms of ST/FRE being cleared (10.1.2), GHC.HR
 * within 1 s (10.4.3), BIOS/OS handoff takes 25 ms or, with BIOS Busy, up
 * to 2 s (10.6.3); COMRESET is held at least 1 ms (10.4.2). A command waits
 * AHCI_IRQ_WAIT_MS for its interrupt, then the driver reads PxCI itself
 * (the lost-interrupt path, same reasoning as ATA_IRQ_WAIT_MS); the busy
 * limits are the PIO driver's (ATA allows 30 s for FLUSH).
 */
enum ahci_tunables {
	/* How long a command waits for its interrupt before the driver reads PxCI itself (ms). */
	AHCI_IRQ_WAIT_MS = 250,
	/*
	 * From this far into a command's wait on, the waiter looks at the line's
	 * CPU at least this often (irq_expect_cpu_ran): a time-out calls the
	 * interrupt lost only if that CPU also ran lately (kernel/irq/stall.c) (ms).
	 */
	AHCI_CPU_LOOK_MS = 10,
	/* How long a command may stay in PxCI before it is given up and the port reset (ms). */
	AHCI_CMD_TIMEOUT_MS = 10000,
	/* The same for FLUSH CACHE (EXT), which may write a whole cache back (ms, ATA8-ACS). */
	AHCI_FLUSH_TIMEOUT_MS = 30000,
	/* PxCMD.CR/FR clear after ST/FRE are cleared (ms, AHCI 1.3.1 10.1.2). */
	AHCI_ENGINE_STOP_MS = 500,
	/* GHC.HR clears after an HBA reset (ms, AHCI 1.3.1 10.4.3). */
	AHCI_HBA_RESET_MS = 1000,
	/* BIOS/OS handoff: BOS clears within 25 ms, or BB is set (ms, AHCI 1.3.1 10.6.3). */
	AHCI_HANDOFF_MS = 25,
	/* ... and with BIOS Busy set the BIOS gets 2 s more (ms). */
	AHCI_HANDOFF_BUSY_MS = 2000,
	/* COMRESET is held this long (ms; AHCI 1.3.1 10.4.2 asks for at least 1 ms). */
	AHCI_COMRESET_HOLD_MS = 1,
	/* PxSSTS.DET reaches 3 (PHY up) this long after COMRESET at most (ms; SATA: 10 ms + slack). */
	AHCI_LINK_UP_MS = 100,
	/* BSY/DRQ clear in PxTFD after a reset, or the device is given up (ms; a disk spins up). */
	AHCI_DEVICE_READY_MS = 10000,
	/* Interval between register reads while polling the HBA (us). */
	AHCI_POLL_INTERVAL_US = 10,
	/* Retries after a port reset of a command that timed out or hit an HBA error. */
	AHCI_RETRIES = 1,
	/* Sectors per READ/WRITE DMA EXT: 256 x 512 B = 128 KiB (the block layer's shell buffer). */
	AHCI_SECTORS_PER_COMMAND = 256,
	/* Bytes one PRD entry describes at most here (64 KiB: a 128 KiB command uses two). */
	AHCI_PRD_PIECE_BYTES = 65536,
	/* PRD entries per command table: 128 KiB in 64 KiB pieces, plus a buffer that is not page aligned. */
	AHCI_PRDT_ENTRIES = 4,
	/* CD blocks per READ(10): 32 x 2048 B = 64 KiB. */
	AHCI_ATAPI_BLOCKS_PER_COMMAND = 32,
	/* Lost completions reported one by one per port before the reports are rate-limited. */
	AHCI_LOST_REPORT_BURST = 3,
	/* After the burst, at most one lost-completion report per this many ms (with a count). */
	AHCI_LOST_REPORT_INTERVAL_MS = 5000,
	/* HBAs driven at once. */
	AHCI_MAX_HOSTS = 2,
	/* Block devices "sda".."sdz" (disks) and "sr0".."sr9" (ATAPI) named at most. */
	AHCI_MAX_DISKS = 26,
	/* ahci-late: how far before the driver's AHCI_IRQ_WAIT_MS the interrupt is given back, at most
	 * by default (us): an interrupt on another CPU takes tens of us to be handled under QEMU's
	 * multi-threaded TCG, a few ms when the host holds its vCPU back; the race with the driver's
	 * own recovery lies within this. */
	AHCI_LATE_DEFAULT_SPREAD_US = 4000,
	/* ... and at most by argument (us): a quarter of the driver's wait. */
	AHCI_LATE_MAX_SPREAD_US = AHCI_IRQ_WAIT_MS * 1000 / 4,
	/* ... where the aim starts (us before the wait ends): where the two met in our runs (50-90). */
	AHCI_LATE_START_US = 100,
	/* ... the step (us) by which it moves after each command at first: earlier when the driver's
	 * recovery won, later when the interrupt did; it halves at each turn ... */
	AHCI_LATE_FIRST_STEP_US = 32,
	/* ... down to this (us): the aims then stay where the two meet (2 us hit the race in 4 of 4
	 * runs without the lock, 5 us in 1 of 3). */
	AHCI_LATE_STEP_US = 2,
	/* ahci-isgap: how long a service that finds its command running waits for it to complete
	 * between its PxIS and PxCI reads, by default (us): longer than QEMU takes to read 128 KiB ... */
	AHCI_ISGAP_DEFAULT_US = 2000,
	/* ... and at most by argument (us): the handler runs with interrupts off. */
	AHCI_ISGAP_MAX_US = 5000,
};

/* Layout of the per-port DMA memory (one 4 KiB block, see ahci.c's port_memory). */
enum ahci_port_mem {
	AHCI_MEM_CLB = 0x000,     /* command list, 1 KiB aligned */
	AHCI_MEM_FB = 0x400,      /* received FIS area, 256 aligned */
	AHCI_MEM_CT = 0x500,      /* command table of slot 0, 128 aligned */
	AHCI_MEM_BYTES = 0x500 + AHCI_CT_PRDT + AHCI_PRDT_ENTRIES * 16,
	AHCI_MEM_ALIGN = 4096,
};

/* ------------------------------------------------------------------------
 * Commands
 */
struct ahci_cmd {
	struct ata_taskfile tf;
	const char *name;            /* "READ DMA EXT", for messages */
	uint8_t *buf;                /* data, len bytes (DMA target or source) */
	uint32_t len;
	bool write;                  /* host to device */
	bool atapi;                  /* PACKET: cdb goes in the ACMD area */
	uint8_t cdb[AHCI_ACMD_BYTES];
	uint32_t timeout_ms;         /* 0: AHCI_CMD_TIMEOUT_MS */
	bool no_retry;               /* fail without port reset and retry */
	/* Progress and result, changed with interrupts disabled. */
	volatile enum ata_cmd_state state;
	uint32_t is;                 /* PxIS bits seen with the completion */
	uint32_t serr;               /* PxSERR at an error */
	uint32_t tfd;                /* PxTFD at completion: status 7:0, error 15:8 */
	uint32_t done;               /* PRDBC: bytes moved */
	int result;                  /* 0, -EIO (device error: decode tfd), -ETIMEDOUT,
					-EPROTO (HBA/interface error: decode is/serr) */
	bool noirq;                  /* ahci-noirq or ahci-late cleared PxIE for this command */
};

/* Counters of one port (`ata` prints them). */
struct ahci_stats {
	uint64_t commands;           /* commands issued (retries included) */
	uint64_t serviced;           /* completed by the handler (interrupt or core poll) */
	uint64_t progress;           /* handler calls that found a FIS but the slot still busy */
	uint64_t lost_recovered;     /* completed by the driver after AHCI_IRQ_WAIT_MS, the line's CPU running */
	uint64_t late_recovered;     /* ... while the line's CPU did not run: late, not lost (irq_expect_cpu_ran) */
	uint64_t timeouts;           /* commands given up (slot busy too long) */
	uint64_t errors;             /* commands that failed in the end */
	uint64_t device_errors;      /* completions with TFES (the device said no) */
	uint64_t hba_errors;         /* completions with another PxIS error bit */
	uint64_t port_restarts;      /* ST cleared and set again after an error */
	uint64_t comresets;          /* COMRESETs sent */
	uint64_t retries;            /* commands retried after a port reset */
	uint64_t noirq;              /* commands issued with PxIE cleared (ahci-noirq) */
	uint64_t strays;             /* PxIS bits found with no command waiting (cleared) */
	uint64_t brackets;           /* expect_irq brackets opened */
	uint64_t brackets_timed_out; /* ... closed with timedout */
	/* ahci-noirq commands that completed: PxCI write to completion taken (the loss found), guest ns. */
	uint64_t noirq_done, noirq_lat_total_ns, noirq_lat_max_ns;
	/* ... and the most time one sat done unseen: taken minus the later of issue and the last empty look. */
	uint64_t noirq_unseen_max_ns;
};

struct ahci_host;

struct ahci_port {
	struct ahci_host *host;
	unsigned int index;          /* port number on the HBA */
	uintptr_t regs;              /* ABAR + 0x100 + index * 0x80 */
	bool implemented;            /* PI bit */
	bool started;                /* ST and FRE set, our memory programmed */
	enum ata_class cls;          /* from PxSIG */
	uint32_t sig;
	char name[ATA_NAME_LEN];     /* "sda", "sr0" */
	uint8_t *mem;                /* command list, FIS area, command table */
	volatile struct ahci_cmd_header *clb;
	volatile uint8_t *fis;
	volatile uint8_t *ct;
	struct ata_identity id;
	uint64_t sectors;            /* disk: capacity; ATAPI: blocks (0: no medium) */
	uint16_t sense_key, sense_asc, sense_ascq;
	struct blk_dev blk;
	bool blk_registered;
	/* The command in flight; changed with interrupts disabled. */
	struct ahci_cmd *volatile active;
	uint64_t issue_ns;
	uint64_t last_look_ns;       /* the latest handler run that found the command still running */
	bool expecting;              /* an expect_irq bracket is open */
	struct irq_expect *expect;   /* the core's token (NULL: no defence) */
	unsigned int noirq_percent;  /* ahci-noirq: share of commands issued with PxIE = 0 */
	uint32_t seq;                /* commands issued: the input of the noirq decision */
	uint64_t last_lost_report_ns;
	uint64_t last_late_report_ns;  /* report_late's rate limit */
	uint64_t lost_unreported;
	struct ahci_stats stats;
};

struct ahci_host {
	unsigned int index;
	char name[ATA_NAME_LEN];     /* "ahci0" */
	char action_name[24];        /* "ahci0 00:1f.2": the irq action, health reports */
	struct pci_dev *pci;
	uintptr_t abar;              /* the registers as mapped (mmio_map) */
	uint64_t abar_phys;          /* where BAR5 is, for messages */
	uint32_t cap, cap2, pi, vs;
	unsigned int slots;          /* command slots (CAP.NCS + 1) */
	int line;                    /* kernel/irq line, -1 = none */
	bool irq_requested;
	bool msi;                    /* the line is a message-signalled one */
	const char *irq_kind;        /* "INTx GSI 10", "MSI" ... for messages */
	unsigned int intx;           /* INTx: the GSI/ISA IRQ routed to */
	uint64_t handler_calls;
	uint64_t not_ours;           /* handler calls that found nothing for any port */
	struct ahci_port port[AHCI_MAX_PORTS];
};

extern struct ahci_host ahci_hosts[AHCI_MAX_HOSTS];
extern unsigned int ahci_nr_hosts;

/* ------------------------------------------------------------------------
 * ahci_decode.c (pure)
 */

/*
 * ahci_build_h2d_fis - the Register Host to Device FIS of @tf (command,
 * features, LBA, count; the device byte gets the LBA bit for LBA
 * commands and LBA 27:24 for 28-bit ones) into @fis[FIS_H2D_BYTES].
 */
void ahci_build_h2d_fis(uint8_t fis[FIS_H2D_BYTES], const struct ata_taskfile *tf);

/*
 * ahci_fill_prdt - describe @len bytes at physical address @addr in at
 * most @max entries of at most @piece bytes (even, <= 4 MiB) each.
 * RETURNS the number of entries; -EINVAL (@len 0 or odd, @addr odd, the
 * range crosses 4 GiB, bad @piece); -E2BIG (more than @max entries).
 */
int ahci_fill_prdt(struct ahci_prd *prdt, unsigned int max, uint64_t addr, uint32_t len,
		   uint32_t piece);

/*
 * ahci_decode_error - the error code and message of a failed command from
 * the PxIS bits with it, PxSERR and PxTFD: TFES is the device's decision
 * (ata_decode_error of status/error: -EIO, -ERANGE, ...); the HBA's own
 * errors (HBFS, HBDS, IFS, INFS, OFS, UFS, IPMS) are -EPROTO with their
 * names and those of SError's bits. RETURNS the code (never 0 for an
 * @is with an error bit, or a @tfd with ERR/DF).
 */
int ahci_decode_error(uint32_t is, uint32_t serr, uint32_t tfd, char *msg, size_t len);

/* ahci_is_names - "DHRS PSS TFES ..." of the PxIS bits @is into @buf. RETURNS @buf. */
const char *ahci_is_names(uint32_t is, char *buf, size_t len);

/* ahci_serr_names - "C(ERR) X(DIAG) ..." of the PxSERR bits @serr into @buf. RETURNS @buf. */
const char *ahci_serr_names(uint32_t serr, char *buf, size_t len);

/* ahci_classify_signature - what PxSIG says. RETURNS enum ata_class. */
enum ata_class ahci_classify_signature(uint32_t sig);

/* ------------------------------------------------------------------------
 * ahci.c (kernel): registers, port control
 */
uint32_t ahci_read(const struct ahci_host *h, unsigned int reg);
void ahci_write(const struct ahci_host *h, unsigned int reg, uint32_t value);
uint32_t ahci_port_read(const struct ahci_port *p, unsigned int reg);
void ahci_port_write(const struct ahci_port *p, unsigned int reg, uint32_t value);

/*
 * ahci_port_stop - clear ST, wait for CR (AHCI_ENGINE_STOP_MS). The FIS
 * receive engine stays on. CONTEXT: thread. RETURNS 0 or -ETIMEDOUT.
 */
int ahci_port_stop(struct ahci_port *p);

/*
 * ahci_port_recover - non-queued error recovery (AHCI 1.3.1 6.2.2.1): stop
 * the port, clear PxSERR and PxIS, COMRESET when @comreset or the device
 * is still BSY/DRQ, wait for it, start the port again.
 * CONTEXT: thread, no command in flight. RETURNS 0; -ETIMEDOUT; -ENODEV.
 */
int ahci_port_recover(struct ahci_port *p, bool comreset);

/* ahci_port_irq_enable - PxIE to the driver's mask (@on) or 0. */
void ahci_port_irq_enable(struct ahci_port *p, bool on);

/*
 * ahci_diagnose - what the driver can read about why the HBA's interrupts
 * would not come: GHC.IE off, a port whose PxIE is not what the driver
 * set, or ahci-noirq at work. Reads registers and driver state only (so
 * it may run with a line's lock held, interrupts off).
 * RETURNS 1 with the reason in @buf; 0 when all is as the driver set it.
 */
int ahci_diagnose(const struct ahci_host *h, char *buf, size_t len);

/* ahci_wait - under ahci_lock(): idle until an interrupt or @deadline_ns (the port's wake timer),
 * with the host's lock given up meanwhile. */
void ahci_wait(struct ahci_port *p, uint64_t deadline_ns);

/* ahci_lock - interrupts off and the host's lock (the handler's, on any CPU); RETURNS the old
 * interrupt state for ahci_unlock(). Not nested. */
unsigned long ahci_lock(struct ahci_host *h);
void ahci_unlock(struct ahci_host *h, unsigned long flags);

/* ahci_hw_interrupt - the handler request_irq() is given: ahci_interrupt under the host's lock,
 * then the wake-up IPI to a waiter on another CPU. */
irqreturn_t ahci_hw_interrupt(unsigned int irq, void *dev_id);

/* ------------------------------------------------------------------------
 * ahci_cmd.c (kernel)
 */

/*
 * ahci_exec - run @cmd on @p to completion: build the command FIS and PRD
 * table, issue slot 0 with an expect_irq bracket, wait (the handler, a
 * core poll, or the driver after AHCI_IRQ_WAIT_MS completes it), and on a
 * time-out or an HBA error recover the port and try once more.
 * CONTEXT: thread context, interrupts enabled; one command per port (the
 * block queue and the shell serialise the callers).
 * RETURNS 0; -EIO/-ERANGE/... (the device refused: decode cmd->tfd);
 * -EPROTO (an HBA or interface error); -ETIMEDOUT; -EINVAL (a buffer the
 * HBA cannot reach); -ENODEV.
 */
int ahci_exec(struct ahci_port *p, struct ahci_cmd *cmd);

/*
 * ahci-late (ahci_fault.c): ahci_late_on() says whether to issue the next command with PxIE
 * cleared; ahci_late_arm() (after the PxCI write) arms the port's timer that gives PxIE back,
 * status left set so the HBA interrupts at once, shortly before the driver's AHCI_IRQ_WAIT_MS
 * ends; ahci_late_done() (after the wait, before PxIE is restored) cancels it and moves the aim
 * by who completed the command (@recovered: the driver's own recovery).
 */
bool ahci_late_on(void);
void ahci_late_arm(struct ahci_port *p, uint64_t issue_ns);
void ahci_late_done(struct ahci_port *p, bool recovered);

/*
 * ahci-isgap (ahci_fault.c): ahci_isgap_on() says whether issue() looks at the port right
 * after its PxCI write; ahci_isgap(), called between a look's read of PxIS and its read of
 * PxCI, waits (at most the fault's us) while @p's command is still running, so its
 * completion lands between the two reads as it does when the host deschedules the vCPU
 * there. Both do nothing while the fault is off.
 */
bool ahci_isgap_on(void);
void ahci_isgap(struct ahci_port *p);

/* ahci_interrupt - the HBA's handler (dev_id = the host). CONTEXT: interrupt/poll, irqs off. */
irqreturn_t ahci_interrupt(unsigned int irq, void *dev_id);

/* ahci_log_failure - one line on what failed and why (decoded). */
void ahci_log_failure(const struct ahci_port *p, const struct ahci_cmd *cmd, uint64_t lba,
		      uint32_t count, int err);

/* ------------------------------------------------------------------------
 * ahci_disk.c (kernel)
 */
int ahci_identify(struct ahci_port *p);
int ahci_disk_rw(struct ahci_port *p, uint64_t lba, uint32_t count, void *buf, bool write,
		 bool check_range);
int ahci_disk_flush(struct ahci_port *p);
int ahci_atapi_rw(struct ahci_port *p, uint64_t lba, uint32_t count, void *buf);
void ahci_init_blk(struct ahci_port *p);

/* ahci_find_port - the port whose device is called @name ("sda"), or NULL. */
struct ahci_port *ahci_find_port(const char *name);

#endif /* DRIVERS_AHCI_INTERNAL_H */
