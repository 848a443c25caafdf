/*
 * nvme_blk.c - NVMe namespaces as block devices of kernel/blk.c (READ,
 * WRITE and FLUSH of the NVM command set, sections 6.9, 6.15 and 6.8,
 * with PRP entries for the buffer) and the `nvme` shell command.
 */
#include "nvme_internal.h"
#include <drivers/nvme.h>
#include <kernel/blk.h>
#include <kernel/console.h>
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/heap.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#define LBA_LOW_BITS 32

/*
 * pick_queue - the I/O queue for the next command: the pair of the CPU it
 * is issued on (nvme_cpu_queue). nvme-noirq:PERCENT sends its share through
 * the extra pair (MSI-X: IEN=0), or (*@mask) runs it with its vector masked
 * in INTMS (pin/MSI).
 */
static struct nvme_queue *pick_queue(struct nvme_ctrl *c, bool *mask)
{
	unsigned int p = c->noirq_percent;

	*mask = false;
	/* Any CPU counts: the command number is taken atomically. */
	if (p == 0 || p >= NVME_PERCENT_MAX ||
	    !nvme_lose_decision(__atomic_fetch_add(&c->io_seq, 1, __ATOMIC_RELAXED), p))
		return nvme_cpu_queue(c);
	if (c->io2_live)
		return &c->io2;
	*mask = true;
	return nvme_cpu_queue(c);
}

/* io_exec - @cmd on the queue pick_queue chooses, owned for the command; @buf/@bytes: its data (PRPs). */
static int io_exec(struct nvme_ctrl *c, struct nvme_sqe *cmd, void *buf, uint32_t bytes)
{
	bool mask;
	struct nvme_queue *q = pick_queue(c, &mask);
	int err = nvme_queue_claim(q);

	if (!err && q == &c->io2 && !c->io2_live) {
		/* `inject off nvme-noirq` deleted the extra pair while this CPU waited for it. */
		nvme_queue_release(q);
		q = nvme_cpu_queue(c);
		err = nvme_queue_claim(q);
	}
	if (err)
		return err;
	if (buf) {
		/* Identity-mapped memory: the buffer's address is its physical address. The PRP
		 * list page is the queue's own, and this thread owns the queue. */
		err = nvme_prp_setup((uint64_t)(uintptr_t)buf, bytes, q->prp_list, (uint64_t)(uintptr_t)q->prp_list,
				     &cmd->prp1, &cmd->prp2);
		if (err)
			pr_err("%s: buffer %p (%u bytes) cannot be described by PRPs (not 4-byte aligned?)\n", c->name, buf,
			       bytes);
	}
	if (!err) {
		q->mask_next = mask;
		err = nvme_exec_claimed(q, cmd, NVME_IO_TIMEOUT_MS);
	}
	nvme_queue_release(q);
	return err;
}

int nvme_rw(struct nvme_ctrl *c, bool write, uint64_t lba, uint32_t count, void *buf)
{
	struct nvme_sqe cmd;
	uint64_t bytes = (uint64_t)count * c->ns.block_size;

	if (!buf || count == 0 || bytes > c->max_transfer)
		return -EINVAL;
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = write ? NVME_CMD_WRITE : NVME_CMD_READ;
	cmd.nsid = c->nsid;
	cmd.cdw10 = (uint32_t)lba;
	cmd.cdw11 = (uint32_t)(lba >> LBA_LOW_BITS);
	cmd.cdw12 = count - 1;     /* NLB is 0-based */
	return io_exec(c, &cmd, buf, (uint32_t)bytes);
}

int nvme_flush(struct nvme_ctrl *c)
{
	struct nvme_sqe cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = NVME_CMD_FLUSH;
	cmd.nsid = c->nsid;
	return io_exec(c, &cmd, NULL, 0);
}

static int blk_read_op(struct blk_dev *dev, uint64_t lba, uint32_t count, void *buf)
{
	return nvme_rw(dev->driver_data, false, lba, count, buf);
}

static int blk_write_op(struct blk_dev *dev, uint64_t lba, uint32_t count, const void *buf)
{
	return nvme_rw(dev->driver_data, true, lba, count, (void *)buf);
}

static int blk_flush_op(struct blk_dev *dev)
{
	return nvme_flush(dev->driver_data);
}

static const struct blk_ops nvme_blk_ops = {
	.read = blk_read_op,
	.write = blk_write_op,
	.flush = blk_flush_op,
};

int nvme_blk_register(struct nvme_ctrl *c)
{
	struct blk_dev *b = &c->blk;
	int err;

	memset(b, 0, sizeof(*b));
	ksnprintf(b->name, sizeof(b->name), "%sn%u", c->name, c->nsid);
	b->kind = "NVMe namespace";
	b->model = c->model;
	b->block_size = c->ns.block_size;
	b->nr_blocks = c->ns.blocks;
	b->max_blocks = c->max_transfer / c->ns.block_size;
	b->read_only = c->ns.read_only;
	b->ops = &nvme_blk_ops;
	b->driver_data = c;
	b->concurrent = true;   /* each CPU submits to its own queue pair (or claims a shared one) */
	err = blk_register(b);
	if (err) {
		pr_err("%s: blk_register(%s) failed: %d\n", c->name, b->name, err);
		return err;
	}
	c->blk_registered = true;
	pr_info("%s: %llu blocks of %u bytes (%llu MiB)%s\n", b->name, (unsigned long long)b->nr_blocks, b->block_size,
		(unsigned long long)((b->nr_blocks * b->block_size) >> 20), b->read_only ? ", write protected" : "");
	return 0;
}

static struct nvme_ctrl *find_ctrl(const char *name)
{
	for (unsigned int i = 0; i < nvme_ctrl_count; i++)
		if (strcmp(nvme_ctrls[i].name, name) == 0 ||
		    (nvme_ctrls[i].blk_registered && strcmp(nvme_ctrls[i].blk.name, name) == 0))
			return &nvme_ctrls[i];
	return NULL;
}

/* raw_read - a READ the block layer did not check: the controller must refuse a bad range itself. */
static int raw_read(struct nvme_ctrl *c, uint64_t lba, uint64_t count)
{
	void *buf;
	int err;

	if (count == 0 || count * c->ns.block_size > c->max_transfer) {
		cprintf("nvme raw-read: COUNT must be 1-%u\n", c->max_transfer / c->ns.block_size);
		return -EINVAL;
	}
	buf = kmalloc_aligned(c->max_transfer, NVME_PAGE_SIZE);
	if (!buf)
		return -ENOMEM;
	err = nvme_rw(c, false, lba, (uint32_t)count, buf);
	kfree(buf);
	cprintf("raw-read %s %llu+%llu: %s (%d)\n", c->name, (unsigned long long)lba, (unsigned long long)count,
		err ? "failed" : "ok", err);
	return err;
}

int nvme_cmd(int argc, char **argv)
{
	struct nvme_ctrl *c;
	uint64_t lba, count;

	if (argc == 1) {
		if (!nvme_ctrl_count)
			cprintf("nvme: no controllers\n");
		for (unsigned int i = 0; i < nvme_ctrl_count; i++)
			nvme_print_state(&nvme_ctrls[i]);
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "raw-read") == 0) {
		c = find_ctrl(argv[2]);
		if (!c || !c->blk_registered) {
			cprintf("nvme: no namespace %s\n", argv[2]);
			return -ENODEV;
		}
		if (blk_parse_number(argv[3], UINT64_MAX, &lba) || blk_parse_number(argv[4], UINT32_MAX, &count)) {
			cprintf("nvme raw-read: bad number\n");
			return -EINVAL;
		}
		return raw_read(c, lba, count);
	}
	if (argc == 2 && strcmp(argv[1], "clear-stats") == 0) {
		for (unsigned int i = 0; i < nvme_ctrl_count; i++)
			nvme_clear_stats(&nvme_ctrls[i]);
		cprintf("nvme: counters cleared\n");
		return 0;
	}
	cprintf("usage: nvme [raw-read DEV LBA COUNT | clear-stats]\n");
	return -EINVAL;
}
