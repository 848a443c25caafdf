/*
 * blk.h - block devices: a small interface a file system can use (read,
 * write and flush whole blocks of any registered device by name), a request
 * queue per device, and the `blk` shell command (kernel/blk.c). Drivers
 * (drivers/ata: ATA disks and ATAPI CD-ROMs) fill in a struct blk_dev and
 * register it; docs/ata.md describes the layer with the driver.
 *
 * Requests. A struct blk_request names a device, an operation, a range of
 * blocks and a buffer. blk_submit() checks it (range, direction, buffer)
 * and queues it; blk_run_queue() hands queued requests to the driver in
 * order, split into pieces of at most max_blocks; blk_wait() runs the queue
 * until the request is done. blk_read()/blk_write()/blk_flush() do the three
 * in one call. A request completes once: its status is set, done becomes
 * true, end_io (if any) is called, all in the thread that runs the queue.
 *
 * CONTEXT RULE. The layer is driven by threads (the shell, a file system):
 * every function here is for thread context with interrupts enabled, since
 * the drivers wait for their devices' interrupts. Interrupt handlers never
 * touch a queue, so a queue needs no lock on irqkit's single CPU.
 */
#ifndef KERNEL_BLK_H
#define KERNEL_BLK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits of the block layer. */
enum blk_limits {
	BLK_NAME_MAX = 8,               /* bytes of a device name with its NUL ("hda") */
	BLK_MAX_DEVICES = 16,           /* devices registered at once (4 IDE drives leave room) */
	BLK_QUEUE_MAX = 64,             /* requests queued per device before -EAGAIN */
	BLK_BLOCK_SIZE_MIN = 512,       /* smallest block size a driver may declare */
	BLK_BLOCK_SIZE_MAX = 4096,      /* largest block size a driver may declare */
	BLK_SHELL_BUFFER_BYTES = 131072,/* bounce buffer of the shell helpers: 256 disk sectors */
	BLK_VERIFY_REPORT_MAX = 8,      /* wrong blocks listed one by one by verify-pattern */
	BLK_DUMP_BYTES_PER_LINE = 16,   /* hex dump layout of `blk read` */
};

enum blk_op {
	BLK_OP_READ = 0,    /* device -> buffer */
	BLK_OP_WRITE = 1,   /* buffer -> device */
	BLK_OP_FLUSH = 2,   /* make earlier writes durable (the device's write cache) */
};

struct blk_dev;

/* One request. The caller owns the storage until done is true. */
struct blk_request {
	struct blk_dev *dev;        /* target */
	enum blk_op op;
	uint64_t lba;               /* first block (READ/WRITE) */
	uint32_t count;             /* blocks (READ/WRITE, > 0) */
	void *buf;                  /* count * block_size bytes (READ/WRITE) */
	void (*end_io)(struct blk_request *req);  /* optional, called once on completion */
	void *private;              /* for end_io */
	/* Set by the layer. */
	int status;                 /* 0, or the negative error of the first failed piece */
	uint32_t done_blocks;       /* blocks transferred before completion or failure */
	volatile bool done;         /* completed (status valid) */
	struct blk_request *next;   /* queue link */
};

/* What a driver provides. read/write move count <= max_blocks blocks, synchronously. */
struct blk_ops {
	int (*read)(struct blk_dev *dev, uint64_t lba, uint32_t count, void *buf);
	int (*write)(struct blk_dev *dev, uint64_t lba, uint32_t count, const void *buf);
	int (*flush)(struct blk_dev *dev);       /* NULL: nothing to flush */
	int (*revalidate)(struct blk_dev *dev);  /* NULL, or refresh nr_blocks (removable media) */
};

/* Counters of one device. */
struct blk_stats {
	uint64_t requests;          /* requests completed */
	uint64_t blocks_read;
	uint64_t blocks_written;
	uint64_t flushes;
	uint64_t errors;            /* requests completed with an error */
	uint64_t refused;           /* submissions refused by blk_submit's checks */
};

struct blk_dev {
	/* Filled by the driver before blk_register(). */
	char name[BLK_NAME_MAX];    /* "hda" */
	const char *kind;           /* "ATA disk", "ATAPI CD-ROM" */
	const char *model;          /* the device's own name, or NULL */
	uint32_t block_size;        /* bytes, BLK_BLOCK_SIZE_MIN..MAX, a power of two */
	uint64_t nr_blocks;         /* capacity; 0 = no medium (removable) */
	uint32_t max_blocks;        /* largest piece the driver takes in one call (> 0) */
	bool read_only;
	bool removable;             /* nr_blocks may change; revalidate before use */
	bool media_changed;         /* set by the driver: revalidate before the next request */
	bool concurrent;            /* the driver's ops may run on several CPUs at once (NVMe: a queue per
				       CPU): blk_read/blk_write/blk_flush call them directly, not through the
				       device's request queue, which is one CPU's */
	const struct blk_ops *ops;
	void *driver_data;
	/* Kept by the layer. */
	struct blk_request *queue_head, *queue_tail;
	unsigned int queued;
	bool running;               /* blk_run_queue is active on this device */
	bool registered;
	struct blk_stats stats;
};

/*
 * blk_register - make @dev known under its name. CONTEXT: thread context.
 * RETURNS 0; -EINVAL (NULL @dev or ops, no read op, empty or unterminated
 * name, block size not a power of two in range, max_blocks 0); -EEXIST
 * (the name or @dev is taken); -ENOSPC (BLK_MAX_DEVICES registered).
 */
int blk_register(struct blk_dev *dev);

/* blk_unregister - forget @dev (queued requests fail with -ENODEV). CONTEXT: thread context. */
void blk_unregister(struct blk_dev *dev);

/* blk_find - the device called @name. CONTEXT: any. RETURNS it or NULL. */
struct blk_dev *blk_find(const char *name);

/* blk_device_at - the @index-th registered device. RETURNS it or NULL past the end. */
struct blk_dev *blk_device_at(unsigned int index);

/*
 * blk_submit - check @req and queue it on req->dev (not started yet).
 * CONTEXT: thread context.
 * RETURNS 0; -EINVAL (NULL or unregistered device, unknown op, count 0,
 * NULL buffer); -ERANGE (the range goes past nr_blocks or wraps);
 * -EROFS (write to a read-only device); -ENOMEDIUM (removable device
 * without medium); -EAGAIN (BLK_QUEUE_MAX requests queued); -EBUSY (@req
 * is already queued). A refused request is not queued and not completed.
 */
int blk_submit(struct blk_request *req);

/*
 * blk_run_queue - give every request queued on @dev to the driver, in
 * order, and complete each. Does nothing when already running (a call
 * from an end_io callback). CONTEXT: thread context.
 * RETURNS the number of requests completed.
 */
unsigned int blk_run_queue(struct blk_dev *dev);

/*
 * blk_wait - run the queue of @req's device until @req is done.
 * CONTEXT: thread context. RETURNS req->status; -EINVAL for a request that
 * was never submitted.
 */
int blk_wait(struct blk_request *req);

/*
 * blk_read / blk_write / blk_flush - one request, submitted and waited for.
 * CONTEXT: thread context. RETURNS 0 or the error of blk_submit / the driver.
 */
int blk_read(struct blk_dev *dev, uint64_t lba, uint32_t count, void *buf);
int blk_write(struct blk_dev *dev, uint64_t lba, uint32_t count, const void *buf);
int blk_flush(struct blk_dev *dev);

/* ---- Shell helpers ----------------------------------------------------------
 * Each prints one result line (cprintf) in the format the QEMU tests parse,
 * documented in docs/ata.md, and RETURNS 0 or the error (already explained
 * on the console). CONTEXT: thread context.
 */

/* "crc32 hda 0+16 = 1a2b3c4d (8192 bytes in 812 us, 10.08 MB/s)" */
int blk_print_crc(struct blk_dev *dev, uint64_t lba, uint64_t count);
/* "write-pattern hda 100+64 seed 0x00001234: ok (32768 bytes in 900 us, 36.40 MB/s)" */
int blk_print_write_pattern(struct blk_dev *dev, uint32_t seed, uint64_t lba, uint64_t count);
/* "verify-pattern hda 100+64 seed 0x00001234: 64 right, 0 wrong", then one line per wrong block */
int blk_print_verify_pattern(struct blk_dev *dev, uint32_t seed, uint64_t lba, uint64_t count);
/* a hex dump of block @lba, BLK_DUMP_BYTES_PER_LINE bytes per line with offsets and ASCII */
int blk_print_block(struct blk_dev *dev, uint64_t lba);
/* one line per device: name, kind, capacity, block size, ro/rw, counters */
void blk_print_devices(void);

/*
 * blk_parse_number - parse a decimal or 0x-hex number in [0, @max] (64-bit,
 * for LBAs above 2^32). CONTEXT: any.
 * RETURNS 0 and *@out; -EINVAL (not a number); -ERANGE (above @max).
 */
int blk_parse_number(const char *s, uint64_t max, uint64_t *out);

/*
 * blk_cmd - the shell's `blk` command:
 *   blk                                  list the devices
 *   blk crc DEV LBA COUNT                CRC-32 (zlib) of the blocks
 *   blk write-pattern DEV SEED LBA COUNT write the seeded test pattern
 *   blk verify-pattern DEV SEED LBA COUNT compare the blocks with it
 *   blk read DEV LBA                     hex dump of one block
 *   blk flush DEV                        flush the device's write cache
 * RETURNS 0; -EINVAL (usage); the device's error.
 */
int blk_cmd(int argc, char **argv);

#endif
