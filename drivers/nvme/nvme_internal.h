/*
 * nvme_internal.h - private to drivers/nvme/: the controller's registers,
 * the command and completion formats, the driver's state, and the rules.
 * Follows NVM Express Base Specification 1.4 (section 3.1 controller
 * registers, 4.2 submission queue entry, 4.6 completion queue entry, 5
 * admin commands, 7.6.1 initialization) and the NVM Command Set (6.8
 * Flush, 6.9 Read, 6.15 Write). docs/nvme.md tells the story.
 *
 * The rules:
 *  - One I/O queue pair per CPU (as many as the controller grants, its
 *    MSI-X table allows and the BAR has doorbells for; CPUs share pairs
 *    when there are fewer). A command goes to the pair of the CPU it is
 *    issued on. Each pair has its own lock, command state, PRP list page,
 *    expect token and, with MSI-X, vector, whose affinity is its CPU.
 *  - A thread owns a queue for the whole of a command (queue_claim, under
 *    the queue's lock; another CPU that wants the same queue halts until
 *    it is released, bounded): one command in flight per queue, so two
 *    CPUs never share a queue entry, a command ID or a PRP list.
 *  - One command in flight per queue, started by a thread. Its state
 *    (IDLE -> WAITING -> DONE, or -> ABANDONED on a time-out) changes only
 *    under the queue's lock (its handler may run on any CPU: the line's
 *    affinity), so a completion is taken exactly once: by the
 *    interrupt handler, a kernel/irq poll of the line, or the waiting
 *    thread. A completion whose command ID is not the one WAITING (late
 *    after a time-out, duplicated, bogus) is counted and dropped: a
 *    command is never completed twice.
 *  - Every command is bracketed by expect_irq()/unexpect_irq() on its
 *    queue's line (the admin queue's and the I/O queue's actions each have
 *    a token), so a lost completion interrupt is found by the core's poll.
 *  - Every wait is bounded: controller enable/disable by CAP.TO, a command
 *    by NVME_IO_TIMEOUT_MS / NVME_ADMIN_TIMEOUT_MS. A controller that does
 *    not answer is reset once; if that fails it is marked dead and every
 *    later command fails at once with -EIO.
 *  - Everything the controller reports (CAP, identify data, completion
 *    fields) is checked before use.
 */
#ifndef DRIVERS_NVME_INTERNAL_H
#define DRIVERS_NVME_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <asm/spinlock.h>
#include <drivers/pci.h>
#include <irq/interrupt.h>
#include <kernel/blk.h>

/* ------------------------------------------------------------------------
 * Tunables, with why
 */
enum nvme_tunables {
	NVME_MAX_CONTROLLERS = 2,      /* nvme0, nvme1: more than a test machine carries */
	NVME_MAX_IO_QUEUES = 8,        /* I/O queue pairs: one per CPU, SMP_MAX_CPUS of them at most */
	NVME_CLAIM_TIMEOUT_MS = 6000,  /* a CPU waits this long for a queue another CPU holds (a command
					  holds it at most NVME_IO_TIMEOUT_MS, plus the reset's time) */
	NVME_QUEUE_DEPTH = 64,         /* entries per queue (fewer if CAP.MQES says so); one is used at a time */
	NVME_MAX_TRANSFER = 131072,    /* bytes per command: one PRP list page (per queue) covers it; the shell's buffer size */
	NVME_ADMIN_TIMEOUT_MS = 5000,  /* an admin command that takes longer: the controller stopped answering */
	NVME_IO_TIMEOUT_MS = 5000,     /* the same for I/O (Linux: 30 s; QEMU answers in microseconds) */
	NVME_IRQ_WAIT_MS = 100,        /* the waiting thread looks at the queue itself after this long */
	NVME_CPU_LOOK_MS = 10,         /* from this far into a wait on, the waiter looks at the vector's CPU at
					  least this often (irq_expect_cpu_ran): a time-out calls the interrupt
					  lost only if that CPU also ran lately (kernel/irq/stall.c) */
	NVME_READY_TIMEOUT_MAX_MS = 30000, /* cap on CAP.TO (up to 127.5 s) for enable/disable waits */
	NVME_READY_POLL_MS = 1,        /* CSTS.RDY polling interval */
	NVME_LOST_REPORT_BURST = 5,    /* lost completion interrupts logged one by one at first ... */
	NVME_LOST_REPORT_INTERVAL_MS = 1000, /* ... then at most one line per this interval */
	NVME_STRAY_REPORT_MAX = 10,    /* stray completions logged before going quiet */
	NVME_WAIT_PASSES_MAX = 30000000, /* wake-ups of one wait: only a stopped clock needs more */
	NVME_PERCENT_MAX = 100,        /* nvme-noirq:PERCENT */
};

/* ------------------------------------------------------------------------
 * Controller registers (NVMe 1.4 section 3.1), byte offsets in BAR0
 */
#define NVME_REG_CAP    0x00   /* 64 bits: capabilities */
#define NVME_REG_VS     0x08   /* version: major 31:16, minor 15:8 */
#define NVME_REG_INTMS  0x0C   /* interrupt mask set (pin and MSI only; write 1 to mask vector n) */
#define NVME_REG_INTMC  0x10   /* interrupt mask clear */
#define NVME_REG_CC     0x14   /* controller configuration */
#define NVME_REG_CSTS   0x1C   /* controller status */
#define NVME_REG_AQA    0x24   /* admin queue attributes: ACQS 27:16, ASQS 11:0 (0-based) */
#define NVME_REG_ASQ    0x28   /* 64 bits: admin submission queue base */
#define NVME_REG_ACQ    0x30   /* 64 bits: admin completion queue base */
#define NVME_REG_DOORBELL 0x1000 /* SQ y tail at 0x1000 + 2y * stride, CQ y head at + (2y + 1) * stride */
#define NVME_BAR_MIN    0x2000 /* registers + the doorbells of two queue pairs at the smallest stride */

/* CAP fields. */
#define NVME_CAP_MQES(c)   ((uint32_t)((c) & 0xFFFF))          /* max queue entries, 0-based */
#define NVME_CAP_CQR       (1ull << 16)                        /* queues must be physically contiguous */
#define NVME_CAP_TO(c)     ((uint32_t)(((c) >> 24) & 0xFF))    /* ready time-out, 500 ms units */
#define NVME_CAP_DSTRD(c)  ((uint32_t)(((c) >> 32) & 0xF))     /* doorbell stride 2^(2 + DSTRD) bytes */
#define NVME_CAP_CSS_NVM   (1ull << 37)                        /* NVM command set supported */
#define NVME_CAP_MPSMIN(c) ((uint32_t)(((c) >> 48) & 0xF))     /* min page size 2^(12 + MPSMIN) */
#define NVME_CAP_MPSMAX(c) ((uint32_t)(((c) >> 52) & 0xF))
#define NVME_CAP_TO_UNIT_MS 500u

/* CC fields. */
#define NVME_CC_EN          (1u << 0)    /* enable */
#define NVME_CC_CSS_NVM     (0u << 4)    /* I/O command set: NVM */
#define NVME_CC_MPS_SHIFT   7            /* memory page size 2^(12 + MPS) */
#define NVME_CC_AMS_RR      (0u << 11)   /* arbitration: round robin */
#define NVME_CC_SHN_NORMAL  (1u << 14)   /* shutdown notification: normal */
#define NVME_CC_IOSQES      (6u << 16)   /* I/O SQ entry 2^6 = 64 bytes */
#define NVME_CC_IOCQES      (4u << 20)   /* I/O CQ entry 2^4 = 16 bytes */

/* CSTS fields. */
#define NVME_CSTS_RDY       (1u << 0)    /* ready */
#define NVME_CSTS_CFS       (1u << 1)    /* controller fatal status */
#define NVME_CSTS_NEVER     0xFFFFFFFFu  /* a BAR that does not decode reads all ones */

#define NVME_PAGE_SIZE 4096u

/* ------------------------------------------------------------------------
 * Commands and completions
 */
struct nvme_sqe {                /* submission queue entry (4.2), 64 bytes */
	uint8_t opcode;
	uint8_t flags;               /* FUSE 1:0, PSDT 7:6 (0 = PRPs) */
	uint16_t cid;                /* command identifier, echoed in the completion */
	uint32_t nsid;
	uint32_t cdw2, cdw3;
	uint64_t mptr;
	uint64_t prp1, prp2;
	uint32_t cdw10, cdw11, cdw12, cdw13, cdw14, cdw15;
};

struct nvme_cqe {                /* completion queue entry (4.6), 16 bytes */
	uint32_t result;             /* DW0: command specific */
	uint32_t reserved;
	uint16_t sq_head;            /* how far the controller consumed the SQ */
	uint16_t sq_id;
	uint16_t cid;
	uint16_t status;             /* bit 0 phase tag; 15:1 status field */
};

_Static_assert(sizeof(struct nvme_sqe) == 64, "NVMe SQ entries are 64 bytes");
_Static_assert(sizeof(struct nvme_cqe) == 16, "NVMe CQ entries are 16 bytes");

/* Admin opcodes (5). */
#define NVME_ADMIN_DELETE_SQ   0x00
#define NVME_ADMIN_CREATE_SQ   0x01
#define NVME_ADMIN_DELETE_CQ   0x04
#define NVME_ADMIN_CREATE_CQ   0x05
#define NVME_ADMIN_IDENTIFY    0x06
#define NVME_ADMIN_SET_FEATURES 0x09
/* NVM opcodes (NVM command set 6). */
#define NVME_CMD_FLUSH  0x00
#define NVME_CMD_WRITE  0x01
#define NVME_CMD_READ   0x02

#define NVME_IDENTIFY_NS    0x00     /* CNS values */
#define NVME_IDENTIFY_CTRL  0x01
#define NVME_FEAT_NUM_QUEUES 0x07
#define NVME_QUEUE_PHYS_CONTIG (1u << 0)  /* create CQ/SQ: PC */
#define NVME_CQ_IRQ_ENABLED    (1u << 1)  /* create CQ: IEN */

/* Status field (4.6.1): after the phase bit. */
#define NVME_STATUS_SC(s)   (((s) >> 1) & 0xFF)   /* status code */
#define NVME_STATUS_SCT(s)  (((s) >> 9) & 0x7)    /* status code type */
#define NVME_STATUS_DNR     0x8000u               /* do not retry */
#define NVME_STATUS_MORE    0x4000u
#define NVME_CQE_PHASE      0x0001u

/* Identify data offsets (5.15.2.1 controller, 5.15.2.2 namespace). */
#define NVME_IDC_SN     4      /* serial number, 20 ASCII bytes */
#define NVME_IDC_MN     24     /* model number, 40 */
#define NVME_IDC_FR     64     /* firmware revision, 8 */
#define NVME_IDC_MDTS   77     /* max data transfer 2^n min pages; 0 = no limit */
#define NVME_IDC_NN     516    /* 32 bits: number of namespaces */
#define NVME_IDC_VWC    525    /* bit 0: volatile write cache present */
#define NVME_IDNS_NSZE  0      /* 64 bits: namespace size in blocks */
#define NVME_IDNS_NCAP  8      /* 64 bits: capacity */
#define NVME_IDNS_NLBAF 25     /* number of LBA formats, 0-based */
#define NVME_IDNS_FLBAS 26     /* bits 3:0: format in use; bit 4: metadata at the end of the block */
#define NVME_IDNS_NSATTR 99    /* bit 0: write protected */
#define NVME_IDNS_LBAF  128    /* 16 formats, 32 bits each: MS 15:0, LBADS 23:16, RP 25:24 */
#define NVME_LBAF_COUNT 16
#define NVME_IDENTIFY_BYTES 4096

/* ------------------------------------------------------------------------
 * Pure decoding (nvme_decode.c, host-tested)
 */

/* What a namespace is, from its identify data. */
struct nvme_ns_info {
	uint64_t blocks;        /* NSZE */
	uint32_t block_size;    /* 2^LBADS bytes */
	bool read_only;         /* NSATTR write protected */
};

/*
 * nvme_ns_parse - check a namespace's identify data (@id, 4096 bytes):
 * a size above 0 whose byte count fits 64 bits, capacity not above size,
 * a format index within NLBAF, a block size 512-4096 (what kernel/blk
 * takes), no per-block metadata. RETURNS 0 and *@out; -EINVAL with the
 * reason in @why.
 */
int nvme_ns_parse(const uint8_t *id, struct nvme_ns_info *out, char *why, size_t len);

/*
 * nvme_status_text - "Generic / LBA Out of Range (sct 0 sc 0x80, DNR)"
 * for a completion's status field into @buf. RETURNS @buf.
 */
const char *nvme_status_text(uint16_t status, char *buf, size_t len);

/* nvme_status_errno - the kernel error a status means (-ERANGE, -EROFS, -EIO, ...); 0 for success. */
int nvme_status_errno(uint16_t status);

/*
 * nvme_prp_setup - the PRP entries for @len bytes at physical @addr
 * (dword aligned, @len > 0, at most NVME_MAX_TRANSFER): *@prp1, and
 * *@prp2 = 0, the second page, or @list_phys after filling @list with the
 * pages from the second on. RETURNS 0; -EINVAL (misaligned, too long).
 */
int nvme_prp_setup(uint64_t addr, uint32_t len, uint64_t *list, uint64_t list_phys, uint64_t *prp1,
		   uint64_t *prp2);

/*
 * nvme_lose_decision - nvme-noirq:PERCENT: whether I/O command number @seq
 * goes without an interrupt (a hash, so the same commands each run and the
 * share is exact over many). RETURNS true for about @percent % of them.
 */
bool nvme_lose_decision(uint32_t seq, unsigned int percent);

/* ------------------------------------------------------------------------
 * Driver state
 */

enum nvme_cmd_state {
	NVME_CMD_IDLE = 0,
	NVME_CMD_WAITING,     /* submitted, its completion not seen */
	NVME_CMD_DONE,        /* completion taken: status valid */
	NVME_CMD_ABANDONED,   /* timed out: a late completion with its ID is dropped */
};

struct nvme_ctrl;

struct nvme_queue {
	struct nvme_ctrl *ctrl;
	unsigned int qid;             /* 0 admin, 1.. I/O (one per CPU), then the nvme-noirq:PERCENT pair */
	char name[12];                /* "nvme0q1": the action's name in irqs */
	spinlock_t lock;              /* the CQ, the command state and the claim: thread vs handler on any CPU */
	volatile uint32_t owner;      /* CPU number + 1 of the thread that holds the queue (queue_claim), 0: free */
	uint32_t claim_waiters;       /* CPUs halted waiting for the claim (bit n = CPU n): woken at release */
	unsigned int waiter_cpu;      /* the CPU waiting for the command in flight (woken from a handler elsewhere) */
	uint32_t cpus;                /* CPUs that submit here (bit n = CPU n) */
	uint64_t *prp_list;           /* one page of PRP entries, for this queue's command in flight (I/O only) */
	uint64_t claim_waits;         /* claims that found the queue held by another CPU */
	volatile struct nvme_sqe *sq;
	volatile struct nvme_cqe *cq;
	uint16_t depth;               /* entries of each */
	uint16_t sq_tail, sq_head, cq_head;
	uint16_t phase;               /* the phase tag of new entries (starts 1) */
	uintptr_t sq_doorbell, cq_doorbell;
	unsigned int vector;          /* interrupt vector number of its CQ (pci_irq_vector nr) */
	int line;                     /* kernel/irq line, -1 none */
	bool irq_requested;
	bool cq_irq_enabled;          /* created with IEN (nvme-noirq recreates it without) */
	struct irq_expect *expect;
	/* The command in flight. */
	volatile uint32_t state;      /* enum nvme_cmd_state */
	uint16_t cid;                 /* its command identifier */
	uint16_t next_cid;
	uint16_t status;              /* its completion's status field (phase bit cleared) */
	uint32_t result;              /* its completion's DW0 */
	uint64_t submit_ns;
	bool taken_by_wait;           /* the waiting thread found it (no interrupt, no core poll) */
	/* Counters. */
	uint64_t commands, by_irq_or_poll, by_wait, timeouts, stray, errors;
	uint64_t lost_reported, lost_unreported, last_lost_report_ns;
	uint64_t lost_ns_max, lost_ns_total;   /* time from submission to a wait-found completion */
	uint64_t late, last_late_report_ns;    /* found by the wait while the vector's CPU did not run
						  (irq_expect_cpu_ran): late, not lost; not in by_wait */
	uint64_t done_ns;             /* when the completion was taken */
	uint64_t lat_count, lat_total_ns, lat_max_ns; /* submission to completion taken, I/O that succeeded */
	uint64_t last_look_ns;        /* the latest interrupt-handler run (interrupt or poll) that found the CQ empty */
	uint64_t unnoticed_max_ns;    /* most time a completion sat in the CQ unseen: taken minus the later of its
					 submission and the last empty look (the completion came after that look) */
	bool mask_next;               /* nvme-noirq:PERCENT: mask the vector in INTMS around the next command */
};

struct nvme_ctrl {
	unsigned int index;
	char name[8];                 /* "nvme0" */
	struct pci_dev *pci;
	uintptr_t regs;
	uint64_t cap;
	uint32_t dstrd_bytes;
	uint32_t ready_timeout_ms;
	uint32_t max_transfer;        /* bytes per command (MDTS and ours) */
	bool dead;                    /* stopped answering and could not be reset */
	bool vwc;                     /* volatile write cache: FLUSH matters */
	uint32_t nn;                  /* namespaces */
	char serial[21], model[41], firmware[9];
	int nvec;                     /* interrupt vectors given */
	struct nvme_queue admin;
	struct nvme_queue io[NVME_MAX_IO_QUEUES];  /* the I/O pairs, qid 1..nr_io */
	unsigned int nr_io;           /* I/O pairs in use (>= 1) */
	uint8_t cpu_queue[NVME_MAX_IO_QUEUES];     /* CPU n submits to io[cpu_queue[n]] */
	uint32_t queues_granted;      /* I/O queue pairs the controller granted (Set Features, FID 07h) */
	const char *fewer_why;        /* why fewer pairs than CPUs, or NULL */
	struct nvme_queue io2;        /* nvme-noirq:PERCENT with MSI-X: one more I/O pair whose CQ has IEN=0 */
	bool io2_possible;            /* the controller granted a pair for it and BAR0 has its doorbells */
	bool io2_live;                /* io2's queues exist and its action is requested */
	unsigned int noirq_percent;   /* share of I/O commands that raise no interrupt (0: fault off) */
	uint32_t io_seq;              /* I/O commands issued, for the fault's choice (atomic: any CPU) */
	uint8_t *identify;            /* 4 KiB buffer for identify data */
	uint32_t nsid;
	struct nvme_ns_info ns;
	struct blk_dev blk;           /* "nvme0n1" */
	bool blk_registered;
	uint32_t resets;
	volatile bool resetting;      /* a reset is recreating the queues: new commands fail with -EIO */
	unsigned int reset_cpu;       /* the CPU running it */
	bool noirq;                   /* nvme-noirq in force */
	bool intms_masked;            /* ... done through INTMS (pin/MSI) */
};

extern struct nvme_ctrl nvme_ctrls[NVME_MAX_CONTROLLERS];
extern unsigned int nvme_ctrl_count;

/* nvme_core.c */
int nvme_exec(struct nvme_queue *q, struct nvme_sqe *cmd, unsigned int timeout_ms);
int nvme_exec_claimed(struct nvme_queue *q, struct nvme_sqe *cmd, unsigned int timeout_ms);
int nvme_queue_claim(struct nvme_queue *q);
void nvme_queue_release(struct nvme_queue *q);
struct nvme_queue *nvme_cpu_queue(struct nvme_ctrl *c);
int nvme_rw(struct nvme_ctrl *c, bool write, uint64_t lba, uint32_t count, void *buf);
int nvme_flush(struct nvme_ctrl *c);
int nvme_create_io_queues(struct nvme_ctrl *c, bool cq_irq);
int nvme_recreate_io_queues(struct nvme_ctrl *c, bool cq_irq);
int nvme_create_queue_pair(struct nvme_ctrl *c, struct nvme_queue *q, bool cq_irq);
int nvme_delete_queue_pair(struct nvme_ctrl *c, struct nvme_queue *q);
int nvme_io2_start(struct nvme_ctrl *c);
void nvme_fault_cpustall(void);  /* nvme-cpustall: stop CPU 1 before a command's expect (nvme_fault.c) */
void nvme_io2_stop(struct nvme_ctrl *c);
void nvme_print_state(const struct nvme_ctrl *c);
void nvme_clear_stats(struct nvme_ctrl *c);
/* nvme_blk.c */
int nvme_blk_register(struct nvme_ctrl *c);

#endif
