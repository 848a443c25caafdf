/*
 * blk.c - the block-device layer of include/kernel/blk.h: the registry of
 * devices, the per-device request queue, and the `blk` shell command with
 * the helpers the drivers' own commands (`ata crc ...`) reuse.
 *
 * The queue is a FIFO of caller-owned requests. blk_run_queue() takes the
 * head, calls the driver once per piece of at most max_blocks blocks, and
 * completes the request (status, done, end_io) before taking the next, so
 * the requests of one device reach the hardware in submission order and one
 * at a time, which is what a PIO driver needs. A future driver with tagged
 * queueing could take several at once; the interface does not change.
 */
#include <kernel/blk.h>
#include <kernel/crc32.h>
#include <kernel/errno.h>
#include <kernel/heap.h>
#include <kernel/pattern.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <time/time.h>

/* Figures for rates printed by the shell helpers. */
#define NS_PER_US 1000ull
#define RATE_HUNDREDTHS 100ull      /* MB/s printed with two decimals */
#define ASCII_FIRST_PRINTABLE 0x20
#define ASCII_LAST_PRINTABLE 0x7E
#define DECIMAL_BASE 10u
#define HEX_BASE 16u
#define HEX_LETTER_VALUE 10u        /* value of 'a' / 'A' as a hex digit */

static struct blk_dev *devices[BLK_MAX_DEVICES];

/* ---- Registry ------------------------------------------------------------------ */

static bool name_ok(const char *name)
{
	size_t len = strnlen(name, BLK_NAME_MAX);

	return len > 0 && len < BLK_NAME_MAX;
}

static bool block_size_ok(uint32_t size)
{
	return size >= BLK_BLOCK_SIZE_MIN && size <= BLK_BLOCK_SIZE_MAX && (size & (size - 1)) == 0;
}

int blk_register(struct blk_dev *dev)
{
	int free_slot = -1;

	if (!dev || !dev->ops || !dev->ops->read || !name_ok(dev->name) ||
	    !block_size_ok(dev->block_size) || dev->max_blocks == 0)
		return -EINVAL;
	for (int i = 0; i < BLK_MAX_DEVICES; i++) {
		if (devices[i] == dev || (devices[i] && strcmp(devices[i]->name, dev->name) == 0))
			return -EEXIST;
		if (!devices[i] && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0)
		return -ENOSPC;
	dev->queue_head = dev->queue_tail = NULL;
	dev->queued = 0;
	dev->running = false;
	dev->registered = true;
	memset(&dev->stats, 0, sizeof(dev->stats));
	devices[free_slot] = dev;
	return 0;
}

/*
 * Counters. On a concurrent device two CPUs may finish at the same instant and one count be
 * lost: this 32-bit kernel has no 8-byte atomic add (no libatomic, and the layer takes no lock
 * so that it stays host-testable). They are statistics; nothing is decided by them.
 */
static void stat_add(uint64_t *counter, uint64_t n)
{
	*counter += n;
}

static void complete(struct blk_request *req, int status)
{
	struct blk_dev *dev = req->dev;

	req->status = status;
	req->next = NULL;
	req->done = true;
	stat_add(&dev->stats.requests, 1);
	if (status)
		stat_add(&dev->stats.errors, 1);
	if (req->end_io)
		req->end_io(req);
}

void blk_unregister(struct blk_dev *dev)
{
	struct blk_request *req;
	unsigned int guard = 0;

	for (int i = 0; i < BLK_MAX_DEVICES; i++)
		if (devices[i] == dev)
			devices[i] = NULL;
	if (!dev || !dev->registered)
		return;
	dev->registered = false;
	while ((req = dev->queue_head) && guard++ <= BLK_QUEUE_MAX) {
		dev->queue_head = req->next;
		complete(req, -ENODEV);
	}
	dev->queue_head = dev->queue_tail = NULL;
	dev->queued = 0;
}

struct blk_dev *blk_find(const char *name)
{
	if (!name)
		return NULL;
	for (int i = 0; i < BLK_MAX_DEVICES; i++)
		if (devices[i] && strcmp(devices[i]->name, name) == 0)
			return devices[i];
	return NULL;
}

struct blk_dev *blk_device_at(unsigned int index)
{
	for (int i = 0; i < BLK_MAX_DEVICES; i++)
		if (devices[i] && index-- == 0)
			return devices[i];
	return NULL;
}

/* ---- Requests ------------------------------------------------------------------ */

/* refresh - let a removable device re-read its capacity when asked to. */
static void refresh(struct blk_dev *dev)
{
	if (!dev->ops->revalidate || !(dev->media_changed || (dev->removable && dev->nr_blocks == 0)))
		return;
	dev->media_changed = false;
	dev->ops->revalidate(dev);
}

static int check_request(const struct blk_request *req)
{
	const struct blk_dev *dev = req->dev;

	if (!dev || !dev->registered)
		return -EINVAL;
	if (req->op == BLK_OP_FLUSH)
		return 0;
	if ((req->op != BLK_OP_READ && req->op != BLK_OP_WRITE) || req->count == 0 || !req->buf)
		return -EINVAL;
	if (req->op == BLK_OP_WRITE && (dev->read_only || !dev->ops->write))
		return -EROFS;
	if (dev->removable && dev->nr_blocks == 0)
		return -ENOMEDIUM;
	if (req->lba >= dev->nr_blocks || req->count > dev->nr_blocks - req->lba)
		return -ERANGE;
	return 0;
}

int blk_submit(struct blk_request *req)
{
	struct blk_dev *dev;
	int err;

	if (!req || !req->dev)
		return -EINVAL;
	dev = req->dev;
	for (struct blk_request *q = dev->queue_head; q; q = q->next)
		if (q == req)
			return -EBUSY;
	if (dev->registered)
		refresh(dev);
	err = check_request(req);
	if (!err && dev->queued >= BLK_QUEUE_MAX)
		err = -EAGAIN;
	if (err) {
		stat_add(&dev->stats.refused, 1);
		return err;
	}
	req->status = 0;
	req->done_blocks = 0;
	req->done = false;
	req->next = NULL;
	if (dev->queue_tail)
		dev->queue_tail->next = req;
	else
		dev->queue_head = req;
	dev->queue_tail = req;
	dev->queued++;
	return 0;
}

/* execute - move @req through the driver piece by piece. RETURNS the status. */
static int execute(struct blk_dev *dev, struct blk_request *req)
{
	uint8_t *buf = req->buf;

	if (req->op == BLK_OP_FLUSH) {
		stat_add(&dev->stats.flushes, 1);
		return dev->ops->flush ? dev->ops->flush(dev) : 0;
	}
	while (req->done_blocks < req->count) {
		uint32_t left = req->count - req->done_blocks;
		uint32_t n = left < dev->max_blocks ? left : dev->max_blocks;
		uint64_t lba = req->lba + req->done_blocks;
		void *p = buf + (size_t)req->done_blocks * dev->block_size;
		int err = req->op == BLK_OP_READ ? dev->ops->read(dev, lba, n, p)
						 : dev->ops->write(dev, lba, n, p);

		if (err)
			return err;
		req->done_blocks += n;
		stat_add(req->op == BLK_OP_READ ? &dev->stats.blocks_read : &dev->stats.blocks_written, n);
	}
	return 0;
}

unsigned int blk_run_queue(struct blk_dev *dev)
{
	unsigned int completed = 0;
	struct blk_request *req;

	if (!dev || dev->running)
		return 0;
	dev->running = true;
	while ((req = dev->queue_head) && completed < BLK_QUEUE_MAX) {
		int status;

		dev->queue_head = req->next;
		if (!dev->queue_head)
			dev->queue_tail = NULL;
		dev->queued--;
		status = dev->registered ? execute(dev, req) : -ENODEV;
		complete(req, status);
		completed++;
	}
	dev->running = false;
	return completed;
}

int blk_wait(struct blk_request *req)
{
	if (!req || !req->dev)
		return -EINVAL;
	for (unsigned int rounds = 0; !req->done && rounds <= BLK_QUEUE_MAX; rounds++) {
		bool queued = false;

		for (struct blk_request *q = req->dev->queue_head; q; q = q->next)
			queued |= q == req;
		if (!queued)
			return -EINVAL;
		blk_run_queue(req->dev);
	}
	return req->done ? req->status : -EBUSY;
}

static int blk_do(struct blk_dev *dev, enum blk_op op, uint64_t lba, uint32_t count, void *buf)
{
	struct blk_request req = { .dev = dev, .op = op, .lba = lba, .count = count, .buf = buf };
	int err;

	if (dev && dev->concurrent && dev->registered) {
		/* The same checks and accounting, without the one-CPU request queue. */
		err = check_request(&req);
		if (err) {
			stat_add(&dev->stats.refused, 1);
			return err;
		}
		complete(&req, execute(dev, &req));
		return req.status;
	}
	err = blk_submit(&req);
	return err ? err : blk_wait(&req);
}

int blk_read(struct blk_dev *dev, uint64_t lba, uint32_t count, void *buf)
{
	return blk_do(dev, BLK_OP_READ, lba, count, buf);
}

int blk_write(struct blk_dev *dev, uint64_t lba, uint32_t count, const void *buf)
{
	/* The layer never writes through req->buf on a write. */
	return blk_do(dev, BLK_OP_WRITE, lba, count, (void *)buf);
}

int blk_flush(struct blk_dev *dev)
{
	return blk_do(dev, BLK_OP_FLUSH, 0, 0, NULL);
}

/* ---- Shell helpers ------------------------------------------------------------- */

int blk_parse_number(const char *s, uint64_t max, uint64_t *out)
{
	unsigned int base = DECIMAL_BASE;
	uint64_t v = 0;

	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = HEX_BASE;
		s += 2;
		if (!*s)
			return -EINVAL;
	}
	for (; *s; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (base == HEX_BASE && *s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a') + HEX_LETTER_VALUE;
		else if (base == HEX_BASE && *s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A') + HEX_LETTER_VALUE;
		else
			return -EINVAL;
		if (v > (max - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* print_rate - " (N bytes in N us, X.YY MB/s)" for a transfer of @bytes in @ns. */
static void print_rate(uint64_t bytes, uint64_t ns)
{
	uint64_t us = ns / NS_PER_US;

	if (us == 0) {
		cprintf(" (%llu bytes in <1 us)\n", (unsigned long long)bytes);
		return;
	}
	uint64_t hundredths = bytes * RATE_HUNDREDTHS / us;
	cprintf(" (%llu bytes in %llu us, %llu.%02llu MB/s)\n", (unsigned long long)bytes,
		(unsigned long long)us, (unsigned long long)(hundredths / RATE_HUNDREDTHS),
		(unsigned long long)(hundredths % RATE_HUNDREDTHS));
}

/* The state of one shell operation over a range of blocks, piece by piece. */
struct range_walk {
	struct blk_dev *dev;
	uint64_t lba, count;        /* the whole range */
	uint64_t done;              /* blocks finished */
	uint32_t piece;             /* blocks per buffer */
	uint8_t *buf;
	uint64_t io_ns;             /* time spent in the device */
};

/* walk_begin - check the range and get the bounce buffer. RETURNS 0 or an error (printed). */
static int walk_begin(struct range_walk *w, const char *what, struct blk_dev *dev, uint64_t lba,
		      uint64_t count)
{
	memset(w, 0, sizeof(*w));
	if (!dev)
		return -ENODEV;
	refresh(dev);
	if (count == 0 || lba >= dev->nr_blocks || count > dev->nr_blocks - lba) {
		cprintf("%s %s %llu+%llu: outside the device (%llu blocks)\n", what, dev->name,
			(unsigned long long)lba, (unsigned long long)count,
			(unsigned long long)dev->nr_blocks);
		return dev->removable && dev->nr_blocks == 0 ? -ENOMEDIUM : -ERANGE;
	}
	w->buf = kmalloc(BLK_SHELL_BUFFER_BYTES);
	if (!w->buf)
		return -ENOMEM;
	w->dev = dev;
	w->lba = lba;
	w->count = count;
	w->piece = BLK_SHELL_BUFFER_BYTES / dev->block_size;
	return 0;
}

/* walk_next - blocks in the next piece (0 when finished). */
static uint32_t walk_next(const struct range_walk *w)
{
	uint64_t left = w->count - w->done;

	return left < w->piece ? (uint32_t)left : w->piece;
}

/* walk_io - read or write the next @n blocks through the queue, timed. */
static int walk_io(struct range_walk *w, enum blk_op op, uint32_t n)
{
	uint64_t t0 = ktime_get_ns();
	int err = blk_do(w->dev, op, w->lba + w->done, n, w->buf);

	w->io_ns += ktime_get_ns() - t0;
	return err;
}

static void walk_failed(const struct range_walk *w, const char *what, int err)
{
	cprintf("%s %s %llu+%llu: failed at LBA %llu: %s\n", what, w->dev->name,
		(unsigned long long)w->lba, (unsigned long long)w->count,
		(unsigned long long)(w->lba + w->done), errno_name(err));
}

int blk_print_crc(struct blk_dev *dev, uint64_t lba, uint64_t count)
{
	struct range_walk w;
	uint32_t crc = 0, n;
	int err = walk_begin(&w, "crc32", dev, lba, count);

	if (err)
		return err;
	while ((n = walk_next(&w)) > 0) {
		err = walk_io(&w, BLK_OP_READ, n);
		if (err)
			break;
		crc = crc32(crc, w.buf, (size_t)n * dev->block_size);
		w.done += n;
	}
	if (err)
		walk_failed(&w, "crc32", err);
	else {
		cprintf("crc32 %s %llu+%llu = %08x", dev->name, (unsigned long long)lba,
			(unsigned long long)count, (unsigned int)crc);
		print_rate(count * dev->block_size, w.io_ns);
	}
	kfree(w.buf);
	return err;
}

int blk_print_write_pattern(struct blk_dev *dev, uint32_t seed, uint64_t lba, uint64_t count)
{
	struct range_walk w;
	uint32_t n;
	int err = walk_begin(&w, "write-pattern", dev, lba, count);

	if (err)
		return err;
	while ((n = walk_next(&w)) > 0) {
		for (uint32_t i = 0; i < n; i++)
			pattern_fill(seed, w.lba + w.done + i, w.buf + (size_t)i * dev->block_size,
				     dev->block_size);
		err = walk_io(&w, BLK_OP_WRITE, n);
		if (err)
			break;
		w.done += n;
	}
	if (err)
		walk_failed(&w, "write-pattern", err);
	else {
		cprintf("write-pattern %s %llu+%llu seed %#010x: ok", dev->name,
			(unsigned long long)lba, (unsigned long long)count, (unsigned int)seed);
		print_rate(count * dev->block_size, w.io_ns);
	}
	kfree(w.buf);
	return err;
}

/* verify_piece - check the @n blocks in the buffer; RETURNS how many were wrong. */
static uint64_t verify_piece(struct range_walk *w, uint32_t seed, uint32_t n, uint64_t *reported)
{
	uint64_t wrong = 0;

	for (uint32_t i = 0; i < n; i++) {
		size_t first = 0;
		uint64_t at = w->lba + w->done + i;
		long bad = pattern_check(seed, at, w->buf + (size_t)i * w->dev->block_size,
					 w->dev->block_size, &first);

		if (bad == 0)
			continue;
		wrong++;
		if ((*reported)++ < BLK_VERIFY_REPORT_MAX)
			cprintf("  LBA %llu: %ld bytes differ, the first at offset %u\n",
				(unsigned long long)at, bad, (unsigned int)first);
	}
	return wrong;
}

int blk_print_verify_pattern(struct blk_dev *dev, uint32_t seed, uint64_t lba, uint64_t count)
{
	struct range_walk w;
	uint64_t wrong = 0, reported = 0;
	uint32_t n;
	int err = walk_begin(&w, "verify-pattern", dev, lba, count);

	if (err)
		return err;
	while ((n = walk_next(&w)) > 0) {
		err = walk_io(&w, BLK_OP_READ, n);
		if (err)
			break;
		wrong += verify_piece(&w, seed, n, &reported);
		w.done += n;
	}
	if (err)
		walk_failed(&w, "verify-pattern", err);
	else
		cprintf("verify-pattern %s %llu+%llu seed %#010x: %llu right, %llu wrong\n", dev->name,
			(unsigned long long)lba, (unsigned long long)count, (unsigned int)seed,
			(unsigned long long)(count - wrong), (unsigned long long)wrong);
	kfree(w.buf);
	return err ? err : (wrong ? -EIO : 0);
}

static void dump_line(const uint8_t *p, unsigned int offset)
{
	cprintf("%04x:", offset);
	for (unsigned int i = 0; i < BLK_DUMP_BYTES_PER_LINE; i++)
		cprintf(" %02x", p[i]);
	cprintf("  |");
	for (unsigned int i = 0; i < BLK_DUMP_BYTES_PER_LINE; i++)
		cprintf("%c", p[i] >= ASCII_FIRST_PRINTABLE && p[i] <= ASCII_LAST_PRINTABLE ? p[i] : '.');
	cprintf("|\n");
}

int blk_print_block(struct blk_dev *dev, uint64_t lba)
{
	struct range_walk w;
	int err = walk_begin(&w, "read", dev, lba, 1);

	if (err)
		return err;
	err = walk_io(&w, BLK_OP_READ, 1);
	if (err)
		walk_failed(&w, "read", err);
	else {
		cprintf("%s LBA %llu (%u bytes):\n", dev->name, (unsigned long long)lba, dev->block_size);
		for (unsigned int off = 0; off < dev->block_size; off += BLK_DUMP_BYTES_PER_LINE)
			dump_line(w.buf + off, off);
	}
	kfree(w.buf);
	return err;
}

void blk_print_devices(void)
{
	unsigned int shown = 0;

	for (struct blk_dev *d; (d = blk_device_at(shown)) != NULL; shown++) {
		uint64_t mib = d->nr_blocks * d->block_size >> 20;

		cprintf("%-4s %-13s %12llu x %4u B (%6llu MiB) %s %-24s reads %llu, writes %llu, "
			"flushes %llu, errors %llu\n", d->name, d->kind ? d->kind : "-",
			(unsigned long long)d->nr_blocks, d->block_size, (unsigned long long)mib,
			d->read_only ? "ro" : "rw", d->model ? d->model : "-",
			(unsigned long long)d->stats.blocks_read,
			(unsigned long long)d->stats.blocks_written,
			(unsigned long long)d->stats.flushes, (unsigned long long)d->stats.errors);
	}
	if (shown == 0)
		cprintf("blk: no block devices\n");
}

/* device_arg - the device named @name, or a message. */
static struct blk_dev *device_arg(const char *name)
{
	struct blk_dev *dev = blk_find(name);

	if (!dev)
		cprintf("blk: no block device '%s' (`blk` lists them)\n", name);
	return dev;
}

/* parse_range - LBA and COUNT words into numbers. RETURNS 0 or -EINVAL. */
static int parse_range(const char *lba_s, const char *count_s, uint64_t *lba, uint64_t *count)
{
	if (blk_parse_number(lba_s, UINT64_MAX, lba) || blk_parse_number(count_s, UINT64_MAX, count))
		return -EINVAL;
	return 0;
}

static int parse_seed(const char *s, uint32_t *seed)
{
	uint64_t v;

	if (blk_parse_number(s, UINT32_MAX, &v))
		return -EINVAL;
	*seed = (uint32_t)v;
	return 0;
}

int blk_cmd(int argc, char **argv)
{
	struct blk_dev *dev;
	uint64_t lba, count;
	uint32_t seed;

	if (argc == 1 || (argc == 2 && strcmp(argv[1], "list") == 0)) {
		blk_print_devices();
		return 0;
	}
	if (argc < 3)
		return -EINVAL;
	dev = device_arg(argv[2]);
	if (!dev)
		return -ENODEV;
	if (strcmp(argv[1], "crc") == 0 && argc == 5)
		return parse_range(argv[3], argv[4], &lba, &count) ? -EINVAL
								      : blk_print_crc(dev, lba, count);
	if (strcmp(argv[1], "write-pattern") == 0 && argc == 6)
		return parse_seed(argv[3], &seed) || parse_range(argv[4], argv[5], &lba, &count)
			       ? -EINVAL : blk_print_write_pattern(dev, seed, lba, count);
	if (strcmp(argv[1], "verify-pattern") == 0 && argc == 6)
		return parse_seed(argv[3], &seed) || parse_range(argv[4], argv[5], &lba, &count)
			       ? -EINVAL : blk_print_verify_pattern(dev, seed, lba, count);
	if (strcmp(argv[1], "read") == 0 && argc == 4)
		return blk_parse_number(argv[3], UINT64_MAX, &lba) ? -EINVAL : blk_print_block(dev, lba);
	if (strcmp(argv[1], "flush") == 0 && argc == 3) {
		int err = blk_flush(dev);

		cprintf("flush %s: %s\n", dev->name, err ? errno_name(err) : "ok");
		return err;
	}
	return -EINVAL;
}
