/*
 * nvme_decode.c - the pure parts of drivers/nvme (nvme_internal.h): what
 * a namespace's identify data says and whether to believe it, status
 * fields in words, and PRP entries for a buffer. No register access and
 * no logging, so tests/unit/test_nvme_decode.c feeds them absurd input.
 */
#include "nvme_internal.h"
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/string.h>

#define LBADS_MIN 9        /* 512-byte blocks */
#define LBADS_MAX 12       /* 4096: kernel/blk's largest block */
#define FLBAS_INDEX_MASK 0x0F
#define FLBAS_EXTENDED 0x10
#define NSATTR_WRITE_PROTECTED 0x01
#define LBAF_MS_MASK 0xFFFFu
#define LBAF_LBADS_SHIFT 16
#define LBAF_LBADS_MASK 0xFFu

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int nvme_ns_parse(const uint8_t *id, struct nvme_ns_info *out, char *why, size_t len)
{
	uint64_t nsze, ncap;
	unsigned int nlbaf, fmt, lbads, ms;
	uint32_t lbaf;

	if (!id || !out)
		return -EINVAL;
	nsze = get64(id + NVME_IDNS_NSZE);
	ncap = get64(id + NVME_IDNS_NCAP);
	nlbaf = id[NVME_IDNS_NLBAF];
	fmt = id[NVME_IDNS_FLBAS] & FLBAS_INDEX_MASK;
	if (nsze == 0) {
		ksnprintf(why, len, "namespace size is 0 blocks");
		return -EINVAL;
	}
	if (ncap > nsze) {
		ksnprintf(why, len, "capacity %llu blocks is above the size %llu", (unsigned long long)ncap,
			  (unsigned long long)nsze);
		return -EINVAL;
	}
	if (nlbaf >= NVME_LBAF_COUNT || fmt > nlbaf) {
		ksnprintf(why, len, "LBA format %u in use, but %u formats described (at most %u)", fmt, nlbaf + 1,
			  (unsigned int)NVME_LBAF_COUNT);
		return -EINVAL;
	}
	lbaf = get32(id + NVME_IDNS_LBAF + 4 * fmt);
	lbads = (lbaf >> LBAF_LBADS_SHIFT) & LBAF_LBADS_MASK;
	ms = lbaf & LBAF_MS_MASK;
	if (lbads < LBADS_MIN || lbads > LBADS_MAX) {
		ksnprintf(why, len, "block size 2^%u bytes is outside 512-4096", lbads);
		return -EINVAL;
	}
	if (ms) {
		ksnprintf(why, len, "format %u carries %u bytes of metadata per block (%s), which this driver does not handle",
			  fmt, ms, (id[NVME_IDNS_FLBAS] & FLBAS_EXTENDED) ? "extended LBA" : "separate buffer");
		return -EINVAL;
	}
	if (nsze > UINT64_MAX >> lbads) {
		ksnprintf(why, len, "size %llu blocks of %u bytes overflows 64 bits", (unsigned long long)nsze, 1u << lbads);
		return -EINVAL;
	}
	out->blocks = nsze;
	out->block_size = 1u << lbads;
	out->read_only = id[NVME_IDNS_NSATTR] & NSATTR_WRITE_PROTECTED;
	return 0;
}

struct status_name {
	uint8_t sct, sc;
	const char *name;
	int err;
};

static const struct status_name status_names[] = {
	{ 0, 0x01, "Invalid Command Opcode", -EINVAL },
	{ 0, 0x02, "Invalid Field in Command", -EINVAL },
	{ 0, 0x03, "Command ID Conflict", -EIO },
	{ 0, 0x04, "Data Transfer Error", -EIO },
	{ 0, 0x05, "Aborted due to Power Loss", -EIO },
	{ 0, 0x06, "Internal Error", -EIO },
	{ 0, 0x07, "Aborted by Request", -EIO },
	{ 0, 0x08, "Aborted: SQ Deleted", -EIO },
	{ 0, 0x0B, "Invalid Namespace or Format", -ENODEV },
	{ 0, 0x0C, "Command Sequence Error", -EIO },
	{ 0, 0x13, "PRP Offset Invalid", -EINVAL },
	{ 0, 0x80, "LBA Out of Range", -ERANGE },
	{ 0, 0x81, "Capacity Exceeded", -ENOSPC },
	{ 0, 0x82, "Namespace Not Ready", -EAGAIN },
	{ 1, 0x00, "Completion Queue Invalid", -EINVAL },
	{ 1, 0x01, "Invalid Queue Identifier", -EINVAL },
	{ 1, 0x02, "Invalid Queue Size", -EINVAL },
	{ 1, 0x08, "Invalid Interrupt Vector", -EINVAL },
	{ 1, 0x20, "Namespace is Write Protected", -EROFS },
	{ 2, 0x80, "Write Fault", -EIO },
	{ 2, 0x81, "Unrecovered Read Error", -EIO },
	{ 2, 0x86, "Access Denied", -EPERM },
	{ 2, 0x87, "Deallocated or Unwritten Logical Block", -EIO },
};

static const char *const sct_names[8] = {
	"Generic", "Command Specific", "Media and Data Integrity", "Path Related",
	"reserved 4", "reserved 5", "reserved 6", "Vendor Specific",
};

static const struct status_name *find_status(uint16_t status)
{
	unsigned int sct = NVME_STATUS_SCT(status), sc = NVME_STATUS_SC(status);

	for (size_t i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++)
		if (status_names[i].sct == sct && status_names[i].sc == sc)
			return &status_names[i];
	return NULL;
}

const char *nvme_status_text(uint16_t status, char *buf, size_t len)
{
	const struct status_name *n = find_status(status);
	unsigned int sct = NVME_STATUS_SCT(status), sc = NVME_STATUS_SC(status);

	if (sct == 0 && sc == 0)
		ksnprintf(buf, len, "Success");
	else
		ksnprintf(buf, len, "%s / %s (sct %u sc 0x%02x%s)", sct_names[sct], n ? n->name : "unknown status",
			  sct, sc, (status & NVME_STATUS_DNR) ? ", do not retry" : "");
	return buf;
}

int nvme_status_errno(uint16_t status)
{
	const struct status_name *n;

	if (NVME_STATUS_SCT(status) == 0 && NVME_STATUS_SC(status) == 0)
		return 0;
	n = find_status(status);
	return n ? n->err : -EIO;
}

int nvme_prp_setup(uint64_t addr, uint32_t len, uint64_t *list, uint64_t list_phys, uint64_t *prp1,
		   uint64_t *prp2)
{
	uint64_t first_page_bytes, rest, page;
	unsigned int n = 0;

	if ((addr & 3) || len == 0 || len > NVME_MAX_TRANSFER || !prp1 || !prp2)
		return -EINVAL;
	*prp1 = addr;
	*prp2 = 0;
	first_page_bytes = NVME_PAGE_SIZE - (addr & (NVME_PAGE_SIZE - 1));
	if (len <= first_page_bytes)
		return 0;
	rest = len - first_page_bytes;
	page = (addr & ~(uint64_t)(NVME_PAGE_SIZE - 1)) + NVME_PAGE_SIZE;
	if (rest <= NVME_PAGE_SIZE) {
		*prp2 = page;
		return 0;
	}
	/* A list: every page after the first, in one list page (NVME_MAX_TRANSFER keeps it short). */
	if (!list || (list_phys & (NVME_PAGE_SIZE - 1)))
		return -EINVAL;
	for (; rest > 0 && n < NVME_PAGE_SIZE / sizeof(uint64_t); n++, page += NVME_PAGE_SIZE)
		list[n] = page, rest = rest > NVME_PAGE_SIZE ? rest - NVME_PAGE_SIZE : 0;
	if (rest)
		return -EINVAL;
	*prp2 = list_phys;
	return 0;
}

/* splitmix64's finaliser: neighbouring command numbers get unrelated decisions. */
#define LOSE_SEED 0x6E766D656E6F6972ull   /* "nvmenoir" */
#define LOSE_MIX_MULT_1 0xBF58476D1CE4E5B9ull
#define LOSE_MIX_MULT_2 0x94D049BB133111EBull

bool nvme_lose_decision(uint32_t seq, unsigned int percent)
{
	uint64_t z = (uint64_t)seq ^ LOSE_SEED;

	if (percent == 0)
		return false;
	if (percent >= NVME_PERCENT_MAX)
		return true;
	z = (z ^ (z >> 30)) * LOSE_MIX_MULT_1;
	z = (z ^ (z >> 27)) * LOSE_MIX_MULT_2;
	z ^= z >> 31;
	return (unsigned int)(z % NVME_PERCENT_MAX) < percent;
}
