/*
 * guestprof.c - a QEMU TCG plugin that counts the guest instructions
 * executed per translation block, so that the kernel's cost can be read
 * function by function (tools/guestprof/report.py maps the blocks to the
 * symbols of build/kernel.elf). Under -icount every executed instruction
 * is 2^shift ns of guest time, so these counts ARE guest time, exactly,
 * apart from the time the vCPU spends halted.
 *
 *   qemu-system-i386 ... -plugin build/host/guestprof.so,mark=0xADDR,out=FILE
 *
 * mark: a guest address (a function's entry); every time a block starting
 * there executes, the counts since the previous mark are written to FILE as
 * one window ("window N" then "vaddr insns execs" lines) and reset. Without mark,
 * one window at exit. Blocks are counted per start address; a block ends
 * at every branch and call, so it lies in one function.
 *
 * Built against the QEMU plugin ABI version 1 (QEMU 7.x) as its public
 * header documents it; only the few entry points used are declared here,
 * so no QEMU headers are needed on the host.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS = 0 };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 = 0 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  void (*cb)(unsigned int vcpu, void *udata),
					  enum qemu_plugin_cb_flags flags, void *udata);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t id, void *udata),
				    void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

EXPORT int qemu_plugin_version = 1;

/* One counter per distinct block start; a kernel has a few thousand. */
#define MAX_BLOCKS 65536
struct block {
	uint64_t vaddr;
	uint64_t insns;  /* executed instructions of blocks starting at vaddr since the last window */
	uint64_t execs;  /* executions of those blocks (at a function's entry: its calls) */
};
static struct block blocks[MAX_BLOCKS];
static unsigned int nr_blocks;
static uint64_t mark_addr;
static bool have_mark;
static FILE *out;
static unsigned int window;

static struct block *block_for(uint64_t vaddr)
{
	/* Blocks are retranslated now and then; the same start shares one counter. */
	unsigned int h = (unsigned int)((vaddr * 0x9E3779B97F4A7C15ull) >> 48) % MAX_BLOCKS;

	for (unsigned int i = 0; i < MAX_BLOCKS; i++, h = (h + 1) % MAX_BLOCKS) {
		if (blocks[h].vaddr == vaddr)
			return &blocks[h];
		if (!blocks[h].vaddr) {
			blocks[h].vaddr = vaddr;
			nr_blocks++;
			return &blocks[h];
		}
	}
	return NULL;
}

static void dump(void)
{
	fprintf(out, "window %u\n", window++);
	for (unsigned int i = 0; i < MAX_BLOCKS; i++) {
		if (blocks[i].vaddr && blocks[i].insns) {
			fprintf(out, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n", blocks[i].vaddr, blocks[i].insns,
				blocks[i].execs);
			blocks[i].insns = 0;
			blocks[i].execs = 0;
		}
	}
	fflush(out);
}

static void on_mark(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	(void)udata;
	dump();
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b = block_for(vaddr);

	(void)id;
	/* The mark's callback runs before the block's own count is added: the block belongs to the new window. */
	if (have_mark && vaddr == mark_addr)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, on_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->insns,
							 qemu_plugin_tb_n_insns(tb));
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->execs, 1);
}

static void at_exit_dump(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	dump();
	fclose(out);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *path = NULL;

	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "mark=", 5)) {
			mark_addr = strtoull(argv[i] + 5, NULL, 0);
			have_mark = true;
		} else if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else {
			fprintf(stderr, "guestprof: unknown argument '%s' (mark=ADDR, out=FILE)\n", argv[i]);
			return -1;
		}
	}
	if (!path) {
		fprintf(stderr, "guestprof: out=FILE is required\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit_dump, NULL);
	return 0;
}
