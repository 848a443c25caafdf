/*
 * ata_internal.h - what the files of drivers/ata share; private to it.
 * docs/ata.md explains the design; ata_regs.h has the register names.
 *
 *   ata_core.c      the command engine: issue, interrupt handler, waiting,
 *                   lost-interrupt recovery, timeouts, SRST and retry
 *   ata_identify.c  device detection on a channel: select, signature,
 *                   IDENTIFY (PACKET) DEVICE, SET MULTIPLE MODE
 *   ata_disk.c      ATA disks: READ/WRITE SECTORS/MULTIPLE (EXT), FLUSH, blk ops
 *   atapi.c         ATAPI: PACKET, READ(10), READ CAPACITY, sense, blk ops
 *   ata_decode.c    pure logic: status/error/sense decoding, IDENTIFY
 *                   parsing, signatures, channel layout, drop decisions
 *   ata_probe.c     (kernel) controllers, channels, interrupts, ata_init()
 *   ata_hw.c        (kernel) the ata_hw_* services below
 *   ata_fault.c     (kernel) ata-drop, ata-mask, ata-misvector
 *   ata_shell.c     (kernel) the `ata` command
 *
 * The files above "(kernel)" also build on the host, where the unit tests
 * supply ata_hw_* with a simulated IDE device and a virtual clock.
 *
 * Concurrency. Everything a command's completion
 * depends on (ata_channel::active, ata_cmd::state, the phase start time and
 * the expect bracket) changes only with interrupts disabled: in the
 * interrupt handler (called by the core for interrupts, replays and polls,
 * always with interrupts off), and in thread context inside
 * ata_hw_irq_save()/restore. So the handler and the timeout path can never
 * both complete a phase, and a command completes exactly once. With several
 * CPUs the kernel's ata_hw_irq_save() also takes a spin lock that the
 * handler takes too (ata_hw_interrupt), since the line may be delivered to
 * another CPU (drivers/ata/ata_hw.c).
 */
#ifndef DRIVERS_ATA_INTERNAL_H
#define DRIVERS_ATA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <kernel/blk.h>
#include <irq/interrupt.h>
#include "ata_regs.h"

/* ------------------------------------------------------------------------
 * Tunables, with the reason for each value.
 *
 * Timeouts. ATA allows a device 30 s for a normal command (spin-up and
 * internal retries included); a person at the shell takes 30 s of silence
 * for a hang. QEMU completes a command in microseconds, a spinning disk in
 * one seek plus one revolution (under 30 ms), so the driver waits
 * ATA_IRQ_WAIT_MS for an interrupt and then looks at the device itself:
 * if it is no longer busy the interrupt was lost and the driver completes
 * the phase (logged, and the core is told: unexpect_irq(timedout) and
 * watch_irq); if it is still busy it keeps waiting, up to ATA_BUSY_TIMEOUT_MS
 * in one phase, long enough for a disk to spin up from standby (5-10 s on
 * 3.5" drives), and then gives up with a reset and one retry. FLUSH CACHE
 * writes a whole cache back and gets the full 30 s the standard allows.
 */
enum ata_tunables {
	/* How long a phase waits for its interrupt before the driver checks the device (ms). */
	ATA_IRQ_WAIT_MS = 250,
	/*
	 * From this far into a phase's wait on, the waiter looks at the line's
	 * CPU at least this often (irq_expect_cpu_ran): a time-out calls the
	 * interrupt lost only if that CPU also ran lately (kernel/irq/stall.c) (ms).
	 */
	ATA_CPU_LOOK_MS = 10,
	/* How long a device may stay busy in one phase of a command before it is reset (ms). */
	ATA_BUSY_TIMEOUT_MS = 10000,
	/* The same for FLUSH CACHE (EXT), which may write back the whole cache (ms, ATA8-ACS). */
	ATA_FLUSH_TIMEOUT_MS = 30000,
	/* How long BSY may stay set after SRST or power-on before the device is given up (ms). */
	ATA_RESET_TIMEOUT_MS = 10000,
	/* SRST is held at least this long (us; ATA/ATAPI-6 9.2 asks for 5 us). */
	ATA_SRST_HOLD_US = 5,
	/* After SRST is released, the device needs 2 ms before BSY is valid (ATA/ATAPI-6 9.2). */
	ATA_RESET_SETTLE_MS = 2,
	/* Interval between status reads while the driver polls (BSY after reset, first DRQ) (us). */
	ATA_POLL_INTERVAL_US = 10,
	/* Retries after SRST of a command that timed out or broke the protocol. */
	ATA_RETRIES = 1,
	/* Largest READ/WRITE MULTIPLE block asked for with SET MULTIPLE MODE (sectors; QEMU: 16). */
	ATA_MULTIPLE_LIMIT = 16,
	/* Sectors per ATA command: 256 is the most a 28-bit command can carry; 128 KiB. */
	ATA_SECTORS_PER_COMMAND = 256,
	/* ATAPI blocks per READ(10): 32 x 2048 B = 64 KiB. */
	ATAPI_BLOCKS_PER_COMMAND = 32,
	/* Byte count limit of a PACKET command: 31 CD blocks (even, below 64 KiB as ATAPI asks). */
	ATAPI_BYTE_COUNT_LIMIT = 63488,
	/* PACKET commands repeated after UNIT ATTENTION (medium changed, reset) before giving up. */
	ATAPI_UNIT_ATTENTION_RETRIES = 3,
	/* TEST UNIT READYs while revalidating a disc: "not ready" then UNIT ATTENTION after a change. */
	ATAPI_READY_TRIES = 3,
	/* Lost interrupts reported one by one per channel before the reports are rate-limited. */
	ATA_LOST_REPORT_BURST = 3,
	/* After the burst, at most one lost-interrupt report per this many ms (with a count). */
	ATA_LOST_REPORT_INTERVAL_MS = 5000,
};

/* Structure sizes (not tunable). */
enum ata_limits {
	ATA_MAX_CHANNELS = 2,        /* one IDE controller: primary and secondary */
	ATA_DEVICES_PER_CHANNEL = 2, /* master and slave */
	ATA_SECTOR_BYTES = 512,      /* the only ATA logical sector size supported */
	ATAPI_BLOCK_BYTES = 2048,    /* CD-ROM block */
	ATA_MODEL_LEN = 40,          /* characters of IDENTIFY strings */
	ATA_SERIAL_LEN = 20,
	ATA_FIRMWARE_LEN = 8,
	ATA_NAME_LEN = 8,            /* "ata0", "hda" */
	ATA_DECODE_LEN = 160,        /* bytes of a decoded status/error message */
	ATA_PERCENT_MAX = 100,
};

#define ATA_LBA28_LIMIT (1ull << 28)   /* first LBA a 28-bit command cannot address */
#define ATA_LBA48_LIMIT (1ull << 48)
#define ATA_LBA28_COUNT_MAX 256u        /* sectors; count register 0 means 256 */
#define ATA_LBA48_COUNT_MAX 65536u      /* sectors; count register 0 means 65536 */
#define ATA_SLOT_NONE (-1)              /* no device selected / known */

/* ------------------------------------------------------------------------
 * Commands
 */
enum ata_proto {
	ATA_PROTO_NODATA,   /* one interrupt when done (SET MULTIPLE, FLUSH) */
	ATA_PROTO_PIO_IN,   /* an interrupt before each DRQ block, none after the last */
	ATA_PROTO_PIO_OUT,  /* the first block by polling DRQ, an interrupt after each block */
	ATA_PROTO_PACKET,   /* packet by polling DRQ, an interrupt per data block and at the end */
};

enum ata_cmd_state {
	ATA_CMD_IDLE = 0,   /* not issued */
	ATA_CMD_ISSUING,    /* issued; the thread polls for the first DRQ (PIO out, packet) */
	ATA_CMD_WAITING,    /* waiting for an interrupt (or a poll) to service the next phase */
	ATA_CMD_DONE,       /* completed successfully */
	ATA_CMD_FAILED,     /* completed with an error (result, status, error say which) */
};

/* The registers a command is issued with. */
struct ata_taskfile {
	uint8_t command;
	uint8_t features;
	uint16_t count;       /* sectors; 0 means 256 (28-bit) or 65536 (48-bit) */
	uint64_t lba;         /* PACKET: bits 15:0 are the byte count limit */
	bool lba48;           /* write the high-order bytes first (EXT commands) */
	bool lba_mode;        /* set the LBA bit of the device register */
};

struct ata_cmd {
	struct ata_taskfile tf;
	enum ata_proto proto;
	const char *name;            /* "READ MULTIPLE EXT", for messages */
	uint8_t *buf;                /* data, len bytes */
	uint32_t len;
	uint32_t block_bytes;        /* bytes per DRQ block (PIO in/out) */
	bool packet_to_device;       /* PACKET: the data phase goes host -> device */
	uint8_t packet[ATAPI_PACKET_BYTES];
	uint32_t busy_timeout_ms;    /* 0: ATA_BUSY_TIMEOUT_MS */
	bool no_retry;               /* fail without reset and retry (probing, the reset path) */
	/* Progress and result, changed with interrupts disabled. */
	volatile enum ata_cmd_state state;
	uint32_t done;               /* bytes moved */
	uint8_t status;              /* status register at completion */
	uint8_t error;               /* error register when status had ERR */
	int result;                  /* 0, -EIO (device error: decode status/error),
					-ETIMEDOUT, -EPROTO (the device broke the protocol) */
	bool dropped;                /* ata-drop set nIEN for this command */
};

/* ------------------------------------------------------------------------
 * Devices and channels
 */
enum ata_class {
	ATA_CLASS_NONE = 0,   /* nothing there */
	ATA_CLASS_ATA,        /* ATA (or SATA) disk */
	ATA_CLASS_ATAPI,      /* packet device (CD-ROM) */
	ATA_CLASS_UNKNOWN,    /* answers, but with a signature we do not know */
};

/* What IDENTIFY (PACKET) DEVICE said, parsed (ata_parse_identify). */
struct ata_identity {
	char model[ATA_MODEL_LEN + 1];
	char serial[ATA_SERIAL_LEN + 1];
	char firmware[ATA_FIRMWARE_LEN + 1];
	bool atapi;
	bool removable;
	uint8_t atapi_type;          /* SCSI peripheral device type (5 = CD/DVD) */
	bool packet16;               /* 16-byte command packets (unsupported; CD-ROMs use 12) */
	bool lba;                    /* LBA addressing (every disk since ATA-2; we need it) */
	bool lba48;
	uint64_t lba28_sectors;
	uint64_t lba48_sectors;
	uint8_t multiple_max;        /* 0 = READ/WRITE MULTIPLE not supported */
	bool flush, flush_ext;
	bool long_sectors;           /* logical sectors longer than 512 bytes (unsupported) */
	bool checksum_present, checksum_ok;
};

struct ata_channel;

struct ata_device {
	struct ata_channel *chan;
	unsigned int slot;           /* 0 master, 1 slave */
	char name[ATA_NAME_LEN];     /* "hda" */
	enum ata_class cls;
	struct ata_identity id;
	uint64_t sectors;            /* ATA: capacity; ATAPI: blocks (0 = no medium) */
	uint8_t multiple;            /* sectors per DRQ block in use (0 = single-sector commands) */
	bool force_lba48;            /* use EXT commands even where 28 bits would do */
	uint16_t sense_key, sense_asc, sense_ascq;  /* ATAPI: last sense */
	struct blk_dev blk;
	bool blk_registered;
};

/* Counters of one channel (the `ata` command prints them). */
struct ata_stats {
	uint64_t commands;           /* commands issued (retries included) */
	uint64_t handler_calls;      /* the handler ran (interrupt, replay or poll) */
	uint64_t not_ours_busy;      /* ... and found the device busy: IRQ_NONE */
	uint64_t not_ours_idle;      /* ... and found no phase waiting: IRQ_NONE */
	uint64_t strays;             /* ... idle, but the bus-master INTR bit said it was ours */
	uint64_t serviced;           /* phases completed by the handler */
	uint64_t lost_recovered;     /* phases the driver completed after ATA_IRQ_WAIT_MS, the line's CPU running */
	uint64_t late_recovered;     /* ... while the line's CPU did not run: late, not lost (irq_expect_cpu_ran) */
	uint64_t timeouts;           /* phases given up (device busy too long) */
	uint64_t resets;             /* SRSTs */
	uint64_t retries;            /* commands retried after a reset */
	uint64_t errors;             /* commands that failed in the end */
	uint64_t dropped;            /* commands issued with nIEN (ata-drop) */
	uint64_t brackets;           /* expect_irq brackets opened (one per interrupt waited for) */
	uint64_t brackets_timed_out; /* ... closed with timedout (lost interrupt or timeout) */
};

struct ata_channel {
	unsigned int index;          /* 0 primary, 1 secondary */
	char name[ATA_NAME_LEN];     /* "ata0" */
	uint16_t cmd_base;           /* command block */
	uint16_t ctl_port;           /* alternate status / device control */
	uint16_t bm_base;            /* bus-master IDE registers, 0 = none */
	bool native;                 /* PCI native mode (else legacy ports and ISA IRQ) */
	unsigned int isa_irq;        /* legacy: ISA IRQ 14/15; native: the PCI line */
	int line;                    /* kernel/irq line, -1 = none */
	bool irq_requested;
	struct ata_device dev[ATA_DEVICES_PER_CHANNEL];
	int selected;                /* slot last selected, ATA_SLOT_NONE = unknown */
	uint8_t devctl;              /* device control as last written (without SRST) */
	unsigned int drop_percent;   /* ata-drop: share of commands issued with nIEN */
	uint32_t seq;                /* commands issued, the input of the drop decision */
	/* The command in flight; changed with interrupts disabled. */
	struct ata_cmd *volatile active;
	uint64_t phase_start_ns;
	bool expecting;              /* an expect_irq bracket is open */
	struct irq_expect *expect;   /* the core's token (NULL: no defence available) */
	uint64_t last_lost_report_ns;
	uint64_t last_late_report_ns;  /* report_late's rate limit */
	uint64_t lost_unreported;
	struct ata_stats stats;
};

/* ------------------------------------------------------------------------
 * Services of the host kernel (ata_hw.c) or of the unit tests' simulator.
 */
uint8_t ata_hw_inb(uint16_t port);
void ata_hw_outb(uint16_t port, uint8_t value);
void ata_hw_insw(uint16_t port, void *buf, size_t words);
void ata_hw_outsw(uint16_t port, const void *buf, size_t words);
uint64_t ata_hw_now_ns(void);
void ata_hw_delay_us(unsigned int us);       /* busy-wait */
void ata_hw_sleep_ms(unsigned int ms);       /* thread context, may idle */
unsigned long ata_hw_irq_save(void);         /* disable interrupts (kernel: and take ata_lock), return the old state */
/* ata_hw_interrupt - the kernel's handler for a channel's line: ata_interrupt under ata_lock. */
irqreturn_t ata_hw_interrupt(unsigned int irq, void *dev_id);
void ata_hw_irq_restore(unsigned long flags);
/* ata_hw_wait - interrupts disabled: idle until an interrupt or @deadline_ns; returns with them disabled. */
void ata_hw_wait(struct ata_channel *ch, uint64_t deadline_ns);
/* The defences of kernel/irq (expect_irq, unexpect_irq, watch_irq) for @ch's token and action. */
bool ata_hw_expect_init(struct ata_channel *ch);   /* get ch->expect; false: no defence */
void ata_hw_expect(struct ata_channel *ch);
void ata_hw_unexpect(struct ata_channel *ch, bool timedout);
bool ata_hw_cpu_ran(struct ata_channel *ch);      /* the line's CPU ran since the expect (irq_expect_cpu_ran) */
void ata_hw_cpu_look(struct ata_channel *ch);     /* a look at it during a long wait (irq_expect_cpu_ran's looks) */
/* The fault ata-race (ata_race.c): aim a poll at @ch's phase just opened; learn from a claim by interrupt; print. */
void ata_race_aim(struct ata_channel *ch);
void ata_fault_cpustall(void);  /* ata-cpustall: stop CPU 1 before an ATA phase or AHCI command (ata_fault.c) */
void ata_race_learn(struct ata_channel *ch, irqreturn_t ret);
void ata_race_print(void);
/* A command begins (@end false, @value: its opcode) or ends (@value: status, bit 8 set on failure): a trace event (docs/trace.md). */
void ata_hw_trace_cmd(struct ata_channel *ch, bool end, uint32_t value);
void ata_hw_watch(struct ata_channel *ch);

/* ------------------------------------------------------------------------
 * ata_core.c
 */

/*
 * ata_exec - run @cmd on @dev to completion: wait until the channel is
 * idle, select the device, issue, move the data phase by phase (interrupt
 * handler, or the driver after a lost interrupt), and on a timeout or a
 * protocol violation reset the channel (SRST) and try once more.
 * CONTEXT: thread context, interrupts enabled; one command per channel at
 * a time (the callers are serialised by the block queue and the shell).
 * RETURNS 0; -EIO (the device reported an error: cmd->status/error, see
 * ata_decode_error); -ETIMEDOUT; -EPROTO; -ENODEV (no such device).
 * Timeouts and resets are logged here; device errors by the caller, which
 * knows what the command was for.
 */
int ata_exec(struct ata_device *dev, struct ata_cmd *cmd);

/*
 * ata_interrupt - the channel's interrupt handler (dev_id = the channel).
 * CONTEXT: interrupt (or poll) context, interrupts disabled.
 * RETURNS IRQ_HANDLED when it serviced a phase of the command in flight;
 * IRQ_NONE when the device is busy or no phase is waiting.
 */
irqreturn_t ata_interrupt(unsigned int irq, void *dev_id);

/*
 * ata_channel_reset - software reset (SRST) of both devices of @ch, then
 * wait for each present device to drop BSY and restore its settings
 * (multiple mode). CONTEXT: thread context, no command in flight.
 * RETURNS 0; -ETIMEDOUT when a device stayed busy (logged).
 */
int ata_channel_reset(struct ata_channel *ch);

/*
 * ata_reset_raw - SRST pulse and BSY wait of every slot that answers,
 * without restoring settings (probing). RETURNS 0 or -ETIMEDOUT.
 */
int ata_reset_raw(struct ata_channel *ch);

/* ata_select - make @slot the selected device (400 ns settle). CONTEXT: thread, channel idle. */
void ata_select(struct ata_channel *ch, unsigned int slot);

/* ata_read_alt_status - the alternate status register (clears nothing). CONTEXT: any. */
uint8_t ata_read_alt_status(const struct ata_channel *ch);

/*
 * ata_wait_not_busy - poll until BSY is clear, up to @timeout_ms.
 * CONTEXT: thread context. RETURNS 0 and the status in *@status (may be
 * NULL); -ETIMEDOUT.
 */
int ata_wait_not_busy(struct ata_channel *ch, unsigned int timeout_ms, uint8_t *status);

/* ata_set_nien - write device control with nIEN set or clear (SRST clear). */
void ata_set_nien(struct ata_channel *ch, bool nien);

/* ------------------------------------------------------------------------
 * ata_decode.c (pure)
 */

/*
 * ata_decode_error - turn status/error of a failed ATA command into an
 * error code and a message ("status 0x51 (DRDY ERR), error 0x10 (IDNF:
 * address not found)") in @msg (@len bytes). RETURNS -EIO (UNC, ABRT,
 * ICRC, DF, unexplained ERR), -ERANGE (IDNF), -ENOMEDIUM (NM), -EAGAIN
 * (MC, MCR: medium changed, try again).
 */
int ata_decode_error(uint8_t status, uint8_t error, char *msg, size_t len);

/*
 * atapi_decode_sense - the error code and message of sense data
 * ("ILLEGAL REQUEST: invalid command operation code (sense 5/20/00)").
 * RETURNS 0 (NO SENSE, RECOVERED ERROR), -ENOMEDIUM (NOT READY, medium not
 * present), -EAGAIN (UNIT ATTENTION; NOT READY, becoming ready), -ENOSYS
 * (invalid opcode), -ERANGE (LBA out of range), -EINVAL (invalid field),
 * -EROFS (DATA PROTECT, write protected), -EIO (the rest).
 */
int atapi_decode_sense(uint8_t key, uint8_t asc, uint8_t ascq, char *msg, size_t len);

/* ata_status_names - "BSY DRDY DF DSC DRQ ERR" bits of @status into @buf. RETURNS @buf. */
const char *ata_status_names(uint8_t status, char *buf, size_t len);

/*
 * ata_parse_identify - parse 256 IDENTIFY (PACKET) DEVICE words (as read
 * from the data port, little-endian) into @out. RETURNS 0; -EPROTO when
 * the integrity word says the data is corrupt or the data is all zeros or
 * all ones.
 */
int ata_parse_identify(const uint16_t *words, struct ata_identity *out);

/* ata_classify_signature - what LBA mid/high after reset say. RETURNS enum ata_class. */
enum ata_class ata_classify_signature(uint8_t lba_mid, uint8_t lba_high);

/*
 * ata_channel_layout - ports and interrupt of channel @index (0/1) of an
 * IDE controller with programming interface @prog_if and I/O BAR bases
 * @bars[6] (0 = not an I/O BAR). Legacy mode: fixed ports, ISA IRQ 14/15;
 * native mode: BAR0/1 (primary) or BAR2/3 (secondary), *@native set.
 * The bus-master base is BAR4 (+8 for the secondary) when prog_if says
 * there is one. RETURNS 0; -EINVAL (bad index); -ENODEV (native mode but
 * the BARs are missing).
 */
int ata_channel_layout(unsigned int index, uint8_t prog_if, const uint32_t bars[6],
		       uint16_t *cmd_base, uint16_t *ctl_port, uint16_t *bm_base, bool *native);

/*
 * ata_drop_decision - ata-drop: whether command number @seq of a channel
 * runs with nIEN when @percent of them should. Deterministic: a hash of
 * @seq (splitmix64's finaliser) modulo 100 below @percent, so 30 % drops
 * the same commands on every run and 100 % drops all.
 */
bool ata_drop_decision(uint32_t seq, unsigned int percent);

/* ------------------------------------------------------------------------
 * ata_identify.c, ata_disk.c, atapi.c
 */

/*
 * ata_identify_channel - detect what is attached to @ch (whose interrupt
 * handler must already be registered, or commands wait for timeouts):
 * reset, signatures, IDENTIFY (PACKET) DEVICE, SET MULTIPLE MODE, READ
 * CAPACITY; fills ch->dev[] and logs one line per device.
 * CONTEXT: thread context. RETURNS the number of devices found.
 */
int ata_identify_channel(struct ata_channel *ch);

/* ata_device_name - "hda".."hdd" for channel @index, slot @slot into @buf. */
void ata_device_name(unsigned int index, unsigned int slot, char *buf);

/*
 * ata_disk_rw - read (@write false) or write @count sectors at @lba of an
 * ATA disk, choosing the command (28/48-bit, single/multiple). @check_range
 * false sends LBAs past the end to the device (the `ata raw` test
 * command), which must refuse them itself.
 * CONTEXT: thread context. RETURNS 0 or the error (logged, decoded).
 */
int ata_disk_rw(struct ata_device *dev, uint64_t lba, uint32_t count, void *buf, bool write,
		bool check_range);

/* ata_disk_flush - FLUSH CACHE (EXT). RETURNS 0 or the error (logged). */
int ata_disk_flush(struct ata_device *dev);

/* ata_disk_set_multiple - SET MULTIPLE MODE @sectors (0: single-sector commands). RETURNS 0 or error. */
int ata_disk_set_multiple(struct ata_device *dev, unsigned int sectors);

/* ata_disk_init_blk - fill dev->blk for an identified ATA disk. */
void ata_disk_init_blk(struct ata_device *dev);

/*
 * atapi_packet - run the packet command @cdb with @len bytes of data to
 * (@to_device) or from @buf; on CHECK CONDITION fetch and decode the sense
 * data, repeat after UNIT ATTENTION (medium changed, reset) up to
 * ATAPI_UNIT_ATTENTION_RETRIES times. @quiet: do not log the failure.
 * CONTEXT: thread context. RETURNS the bytes moved (>= 0) or the error.
 */
int atapi_packet(struct ata_device *dev, const uint8_t *cdb, const char *name, void *buf,
		 uint32_t len, bool to_device, bool quiet);

/* atapi_read_capacity - READ CAPACITY into dev->sectors (0 if no medium). RETURNS 0 or error. */
int atapi_read_capacity(struct ata_device *dev);

/* atapi_rw - READ(10) / WRITE(10) of @count blocks, no range check. RETURNS 0 or error (logged). */
int atapi_rw(struct ata_device *dev, uint64_t lba, uint32_t count, void *buf, bool write);

/* atapi_init_blk - fill dev->blk for an identified ATAPI device. */
void atapi_init_blk(struct ata_device *dev);

/* ------------------------------------------------------------------------
 * ata_shell.c: what the `ata` command does alike for PIO/ATAPI devices and AHCI ports
 * (ahci_shell.c uses it too).
 */

/* ata_shell_numbers - parse @n number words from argv[@i...]; all of them, nothing left over. RETURNS 0 or -EINVAL. */
int ata_shell_numbers(int argc, char **argv, int i, unsigned int n, uint64_t *out);

/*
 * ata_shell_bench - `ata bench`: an ATA disk (@disk) gets [lba, lba+count) written with the bench
 * pattern, then every device reads it back (a disk's pattern checked), in pieces of the shell's
 * buffer, timing only the I/O; prints MB/s of each pass as "bench NAME LBA+COUNT write|read: ...".
 * RETURNS 0, -EIO (pattern wrong), -ERANGE, -ENOMEM or the I/O error (printed).
 */
int ata_shell_bench(struct blk_dev *blk, const char *name, bool disk, uint64_t lba, uint64_t count);

/* ------------------------------------------------------------------------
 * ata_probe.c (kernel): the channels of the controller ata_init() found.
 */
extern struct ata_channel ata_channels[ATA_MAX_CHANNELS];

#endif /* DRIVERS_ATA_INTERNAL_H */
