/*
 * vcpuwatch.c - a QEMU TCG plugin that samples, every PERIOD microseconds of
 * host time, how many guest instructions each vCPU has executed, the guest
 * address it last ran, and its host thread's scheduler figures
 * (/proc/self/task/TID/schedstat: ns on a host CPU, ns runnable but waiting
 * for one). With it a guest stall can be told apart on the host's side:
 *
 *   - a vCPU that executes nothing while its thread waits on the run queue
 *     was descheduled by the host (starvation);
 *   - a vCPU that executes nothing and neither runs nor waits was blocked
 *     inside QEMU (halted in the guest, or waiting on a QEMU lock);
 *   - a vCPU that executes millions of instructions in the stall was busy in
 *     the guest (a livelock or a spin shows up as the addresses it ran);
 *   - while every vCPU is halted in the guest, waiting for a device, the
 *     device is QEMU's other threads (the main loop that raises its
 *     interrupt, the thread pool that does its I/O): their time waiting on
 *     the run queue says whether the host kept the device from completing.
 *
 *   qemu-system-i386 -accel tcg,thread=multi ... \
 *       -plugin build/host/vcpuwatch.so,out=FILE[,period=US][,mark=0xADDR[:0xADDR...]]
 *
 * FILE gets one line per sample,
 *   S T_NS  0 INSNS0 RUN0 WAIT0 PC0  1 INSNS1 RUN1 WAIT1 PC1 ...  O RUN WAIT N
 * (T_NS: host CLOCK_MONOTONIC; RUN/WAIT: the schedstat ns, -1 before the
 * vCPU first ran; O: QEMU's other threads, the sampler's own left out, their
 * ns on a CPU and waiting for one summed since the plugin started, over N
 * threads seen) and, each time a block starting at the Nth mark executes,
 *   M T_NS VCPU N
 * (tools/vcpuwatch/stalls.py reads it). The counting is one callback per
 * executed block, so the guest runs slower under the plugin.
 *
 * Built against the QEMU plugin ABI version 1 (QEMU 7.x) as its public
 * header documents it; only the few entry points used are declared here.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS = 0 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  void (*cb)(unsigned int vcpu, void *udata),
					  enum qemu_plugin_cb_flags flags, void *udata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t id, void *udata),
				    void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

EXPORT int qemu_plugin_version = 1;

/* The tunables of the plugin. */
enum {
	VW_MAX_VCPUS = 8,            /* vCPUs watched (irqkit's IRQ_NR_CPUS) */
	VW_DEFAULT_PERIOD_US = 1000, /* sampling period, host microseconds */
	VW_MIN_PERIOD_US = 100,      /* below this the sampler itself loads the host */
	VW_INSN_BITS = 12,           /* a block has at most 512 instructions (TCG_MAX_INSNS) */
	VW_MAX_MARKS = 4,            /* guest addresses whose execution is logged */
	VW_MAX_OTHERS = 64,          /* QEMU's other threads followed (main loop, RCU, thread pool) */
	VW_RESCAN_SAMPLES = 50,      /* /proc/self/task is read again every this many samples */
};

/*
 * Each vCPU's slot is written by its own vCPU thread only (relaxed atomic
 * stores of a value it alone changes) and read by the sampler thread with
 * relaxed loads: a sample may be a block behind, never torn.
 */
struct vcpu {
	uint64_t insns;
	uint64_t pc;
	int tid;   /* host thread id; 0 until the vCPU first runs */
	int fd;    /* its schedstat, opened by the sampler */
};
static struct vcpu vcpus[VW_MAX_VCPUS];
static uint64_t marks[VW_MAX_MARKS];
static unsigned int nr_marks;
static FILE *out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int period_us = VW_DEFAULT_PERIOD_US;
static volatile int stopping;
static pthread_t sampler;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_exec(unsigned int vcpu, void *udata)
{
	uintptr_t u = (uintptr_t)udata;
	struct vcpu *v;

	if (vcpu >= VW_MAX_VCPUS)
		return;
	v = &vcpus[vcpu];
	if (!__atomic_load_n(&v->tid, __ATOMIC_RELAXED))
		__atomic_store_n(&v->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	__atomic_store_n(&v->insns, v->insns + (u & ((1u << VW_INSN_BITS) - 1)), __ATOMIC_RELAXED);
	__atomic_store_n(&v->pc, (uint64_t)(u >> VW_INSN_BITS), __ATOMIC_RELAXED);
}

static void on_mark(unsigned int vcpu, void *udata)
{
	pthread_mutex_lock(&out_lock);
	fprintf(out, "M %" PRIu64 " %u %u\n", now_ns(), vcpu, (unsigned int)(uintptr_t)udata);
	pthread_mutex_unlock(&out_lock);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	uintptr_t u = ((uintptr_t)vaddr << VW_INSN_BITS) | (qemu_plugin_tb_n_insns(tb) & ((1u << VW_INSN_BITS) - 1));

	(void)id;
	for (unsigned int i = 0; i < nr_marks; i++)
		if (vaddr == marks[i])
			qemu_plugin_register_vcpu_tb_exec_cb(tb, on_mark, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)i);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS, (void *)u);
}

/* read_schedstat - the thread's ns on a CPU and ns waiting for one; -1 when unreadable. */
static void read_schedstat(struct vcpu *v, long long *run, long long *wait)
{
	char buf[128], path[64];
	ssize_t n;
	int tid = __atomic_load_n(&v->tid, __ATOMIC_ACQUIRE);

	*run = *wait = -1;
	if (!tid)
		return;
	if (v->fd <= 0) {
		snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
		v->fd = open(path, O_RDONLY);
		if (v->fd < 0)
			return;
	}
	n = pread(v->fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return;
	buf[n] = 0;
	if (sscanf(buf, "%lld %lld", run, wait) != 2)
		*run = *wait = -1;
}

/*
 * QEMU's threads that are not vCPUs (nor the sampler): followed by the
 * sampler thread alone. Their schedstat figures are summed as deltas, so a
 * thread that exits (the thread pool's idle workers do) leaves its time in
 * the sums, which only grow.
 */
struct other {
	int tid, fd;
	long long run, wait;   /* the figures last read */
};
static struct other others[VW_MAX_OTHERS];
static unsigned int nr_others, others_seen;
static long long others_run, others_wait;
static int sampler_tid;

static bool is_vcpu(int tid)
{
	for (unsigned int i = 0; i < VW_MAX_VCPUS; i++)
		if (__atomic_load_n(&vcpus[i].tid, __ATOMIC_ACQUIRE) == tid)
			return true;
	return false;
}

/* Follow the threads of /proc/self/task not followed yet (bounded by VW_MAX_OTHERS). */
static void rescan_others(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && nr_others < VW_MAX_OTHERS) {
		char path[64];
		int tid = atoi(e->d_name);
		unsigned int k;

		if (tid <= 0 || tid == sampler_tid || is_vcpu(tid))
			continue;
		for (k = 0; k < nr_others && others[k].tid != tid; k++)
			;
		if (k < nr_others)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
		others[nr_others] = (struct other){ .tid = tid, .fd = open(path, O_RDONLY), .run = -1, .wait = -1 };
		if (others[nr_others].fd >= 0) {
			nr_others++;
			others_seen++;
		}
	}
	closedir(d);
}

/* Add what each followed thread ran and waited since the last read; drop the ones gone. */
static void read_others(void)
{
	for (unsigned int k = 0; k < nr_others;) {
		char buf[128];
		long long run, wait;
		ssize_t n = pread(others[k].fd, buf, sizeof(buf) - 1, 0);

		if (n > 0) {
			buf[n] = 0;
			if (sscanf(buf, "%lld %lld", &run, &wait) == 2) {
				if (others[k].run >= 0) {
					others_run += run - others[k].run;
					others_wait += wait - others[k].wait;
				}
				others[k].run = run;
				others[k].wait = wait;
				k++;
				continue;
			}
		}
		close(others[k].fd);
		others[k] = others[--nr_others];
	}
}

static void *sample_loop(void *arg)
{
	struct timespec next;
	unsigned int nsamples = 0;

	(void)arg;
	sampler_tid = (int)syscall(SYS_gettid);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!stopping) {
		char line[96 + VW_MAX_VCPUS * 80];
		int len = snprintf(line, sizeof(line), "S %" PRIu64, now_ns());

		for (unsigned int i = 0; i < VW_MAX_VCPUS; i++) {
			long long run, wait;

			if (!__atomic_load_n(&vcpus[i].tid, __ATOMIC_ACQUIRE))
				continue;
			read_schedstat(&vcpus[i], &run, &wait);
			len += snprintf(line + len, sizeof(line) - (size_t)len, "  %u %" PRIu64 " %lld %lld %" PRIx64, i,
					__atomic_load_n(&vcpus[i].insns, __ATOMIC_RELAXED), run, wait,
					__atomic_load_n(&vcpus[i].pc, __ATOMIC_RELAXED));
		}
		if (nsamples++ % VW_RESCAN_SAMPLES == 0)
			rescan_others();
		read_others();
		snprintf(line + len, sizeof(line) - (size_t)len, "  O %lld %lld %u", others_run, others_wait, others_seen);
		pthread_mutex_lock(&out_lock);
		fprintf(out, "%s\n", line);
		pthread_mutex_unlock(&out_lock);
		next.tv_nsec += (long)period_us * 1000;
		while (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return NULL;
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	stopping = 1;
	pthread_join(sampler, NULL);
	fclose(out);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *path = NULL;

	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "mark=", 5)) {
			char *p = argv[i] + 5;

			while (*p && nr_marks < VW_MAX_MARKS) {
				marks[nr_marks++] = strtoull(p, &p, 0);
				if (*p == ':')
					p++;
				else
					break;
			}
		} else if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else if (!strncmp(argv[i], "period=", 7)) {
			period_us = (unsigned int)strtoul(argv[i] + 7, NULL, 0);
			if (period_us < VW_MIN_PERIOD_US)
				period_us = VW_MIN_PERIOD_US;
		} else {
			fprintf(stderr, "vcpuwatch: unknown argument '%s' (out=FILE, period=US, mark=ADDR)\n", argv[i]);
			return -1;
		}
	}
	if (!path) {
		fprintf(stderr, "vcpuwatch: out=FILE is required\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	if (pthread_create(&sampler, NULL, sample_loop, NULL)) {
		fprintf(stderr, "vcpuwatch: cannot start the sampler thread\n");
		fclose(out);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
