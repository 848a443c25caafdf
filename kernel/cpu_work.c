/*
 * cpu_work.c - thread-context work on another CPU (include/kernel/cpu_work.h)
 * and the `oncpu` shell command built on it.
 *
 * Each CPU but 0 has one slot, a pointer to the work it should run. The
 * protocol is lock-free:
 *   queue (any CPU): the work's fields are written, then its state QUEUED,
 *     then a compare-and-swap of the slot from NULL to the work
 *     (acquire-release: the target that loads the slot with acquire sees
 *     the fields); then the wake-up IPI.
 *   run (the target's idle loop, interrupts off): load the slot (acquire);
 *     state RUNNING (release); interrupts ON; fn(arg); interrupts off;
 *     result and done_ns, then the slot back to NULL (release: a new work
 *     may come), then state DONE (release, pairs with the waiter's acquire
 *     load of state: it reads a result that was written before); then the
 *     wake-up IPI to the waiter. After DONE the target touches the work no
 *     more: the waiter may reuse it at once.
 * A wake-up IPI sent while the target has interrupts off (between its look
 * at the slot and its `sti; hlt`) stays pending in its local APIC and ends
 * the halt at once, so a work queued at that moment is not slept over.
 *
 * CPU 0's idle loop is the shell, which is the caller of `oncpu`: work for
 * CPU 0 is simply called there. docs/smp.md, "Thread-context work on
 * another CPU", tells what the shell's commands assume and how that holds.
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/smp.h>
#include <kernel/cpu_work.h>
#include <kernel/errno.h>
#include <kernel/printk.h>
#include <kernel/shell.h>
#include <kernel/string.h>
#include <kernel/work.h>
#include <time/time.h>

#define NS_PER_MS 1000000ull
#define NS_PER_US 1000ull

static struct cpu_work *slot[SMP_MAX_CPUS];
static uint32_t runs[SMP_MAX_CPUS];    /* written by the slot's CPU only */

void cpu_work_init(struct cpu_work *w, int (*fn)(void *arg), void *arg)
{
	memset(w, 0, sizeof(*w));
	w->fn = fn;
	w->arg = arg;
	w->state = CPU_WORK_IDLE;
}

bool cpu_work_busy(unsigned int cpu)
{
	return cpu < SMP_MAX_CPUS && __atomic_load_n(&slot[cpu], __ATOMIC_ACQUIRE) != NULL;
}

uint32_t cpu_work_count(unsigned int cpu)
{
	return cpu < SMP_MAX_CPUS ? __atomic_load_n(&runs[cpu], __ATOMIC_RELAXED) : 0;
}

int cpu_work_queue(unsigned int cpu, struct cpu_work *w)
{
	struct cpu_work *none = NULL;
	uint32_t st;

	if (!w || !w->fn)
		return -EINVAL;
	if (cpu >= SMP_MAX_CPUS || !smp_cpu_online(cpu))
		return -ENODEV;
	if (cpu == 0 || cpu == smp_processor_id())
		return -EINVAL;
	st = __atomic_load_n(&w->state, __ATOMIC_ACQUIRE);
	if (st == CPU_WORK_QUEUED || st == CPU_WORK_RUNNING)
		return -EBUSY;
	w->cpu = cpu;
	w->waiter = smp_processor_id();
	w->result = 0;
	w->queued_ns = ktime_get_ns();
	w->started_ns = w->done_ns = 0;
	__atomic_store_n(&w->state, CPU_WORK_QUEUED, __ATOMIC_RELAXED);
	/* Publishes every field above (release); pairs with the target's acquire load of its slot. */
	if (!__atomic_compare_exchange_n(&slot[cpu], &none, w, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&w->state, CPU_WORK_IDLE, __ATOMIC_RELAXED);
		return -EBUSY;
	}
	smp_send_wakeup(cpu);
	return 0;
}

unsigned int cpu_work_run_pending(void)
{
	unsigned int me = smp_processor_id(), ran = 0;

	if (me == 0 || me >= SMP_MAX_CPUS)
		return 0;
	while (ran < CPU_WORK_RUN_MAX) {
		struct cpu_work *w = __atomic_load_n(&slot[me], __ATOMIC_ACQUIRE);  /* pairs with the queue's CAS */
		unsigned int waiter;
		int result;

		if (!w)
			break;
		w->started_ns = ktime_get_ns();
		__atomic_store_n(&w->state, CPU_WORK_RUNNING, __ATOMIC_RELEASE);
		cpu_sti();
		result = w->fn(w->arg);
		cpu_cli();
		waiter = w->waiter;
		w->result = result;
		w->done_ns = ktime_get_ns();
		__atomic_store_n(&slot[me], NULL, __ATOMIC_RELEASE);
		/* The result before DONE (release; pairs with cpu_work_wait's acquire). Last touch of w. */
		__atomic_store_n(&w->state, CPU_WORK_DONE, __ATOMIC_RELEASE);
		__atomic_store_n(&runs[me], runs[me] + 1, __ATOMIC_RELAXED);
		if (waiter != me)
			smp_send_wakeup(waiter);
		ran++;
	}
	return ran;
}

static void wait_wake(struct timer *t)
{
	(void)t;   /* the timer interrupt itself ends the halt */
}

int cpu_work_wait(struct cpu_work *w, uint32_t timeout_ms)
{
	uint64_t deadline = ktime_get_ns() + (uint64_t)timeout_ms * NS_PER_MS;
	bool on_cpu0 = smp_processor_id() == 0;
	struct timer t;
	int err = 0;

	if (!w || __atomic_load_n(&w->state, __ATOMIC_ACQUIRE) == CPU_WORK_IDLE)
		return -EINVAL;
	timer_setup(&t, wait_wake, NULL);
	if (on_cpu0)
		timer_add(&t, deadline, 0);   /* a tickless CPU 0 must still wake for the deadline */
	for (;;) {
		/* Acquire: pairs with the target's release of DONE; the result is then visible. */
		if (__atomic_load_n(&w->state, __ATOMIC_ACQUIRE) == CPU_WORK_DONE)
			break;
		if (ktime_get_ns() >= deadline) {
			err = -ETIMEDOUT;
			break;
		}
		if (on_cpu0 && work_run())
			continue;   /* CPU 0's deferred work goes on while it waits */
		cpu_cli();
		/* Checked again with interrupts off: the target's wake-up IPI after this
		 * stays pending and ends the halt at once. On another CPU its own
		 * periodic LAPIC timer bounds the halt. */
		if (__atomic_load_n(&w->state, __ATOMIC_ACQUIRE) != CPU_WORK_DONE && !(on_cpu0 && work_pending_any()))
			on_cpu0 ? time_idle() : smp_idle_halt();
		cpu_sti();
	}
	if (on_cpu0)
		timer_cancel(&t);
	return err;
}

/* ------------------------------------------------------------------------
 * `oncpu`: a shell command line run on another CPU
 */

/* Commands that must stay on CPU 0, and why. */
static const struct {
	const char *name;
	const char *why;
} cpu0_only[] = {
	{ "oncpu", "it waits from CPU 0's shell" },
	{ "selftest", "the selftests assume they run on CPU 0 (the shell's CPU)" },
	{ "crash", "it takes a CPU as its own argument" },
	{ "reboot", "it resets the machine from the shell's CPU" },
	{ "halt", "it stops the other CPUs from the shell's CPU" },
};

/* One job per CPU: the line, the capture of its output, the work. Static: a
 * job that outlives its wait keeps running and is collected later. */
struct oncpu_job {
	struct cpu_work w;
	char line[ONCPU_LINE_MAX];
	char out[ONCPU_OUTPUT_BYTES];
	struct cprintf_capture cap;
	bool started;                /* queued and not yet collected */
};
static struct oncpu_job jobs[SMP_MAX_CPUS];

/* oncpu_run - on the target CPU, interrupts on: the shell's own execution, its cprintf captured. */
static int oncpu_run(void *arg)
{
	struct oncpu_job *j = arg;
	char line[ONCPU_LINE_MAX];
	int rc;

	memcpy(line, j->line, sizeof(line));
	cprintf_capture(&j->cap);
	rc = shell_execute(line);
	cprintf_capture(NULL);
	return rc;
}

static void print_output(const struct oncpu_job *j)
{
	size_t off = 0;

	while (off < j->cap.len) {
		size_t n = j->cap.len - off;

		if (n > ONCPU_PRINT_CHUNK)
			n = ONCPU_PRINT_CHUNK;
		cprintf("%.*s", (int)n, j->out + off);
		off += n;
	}
	if (j->cap.len && j->out[j->cap.len - 1] != '\n')
		cprintf("\n");
	if (j->cap.dropped)
		cprintf("oncpu: %u bytes of output did not fit in %u\n", j->cap.dropped, (unsigned int)ONCPU_OUTPUT_BYTES);
}

static int collect(unsigned int cpu, uint32_t timeout_ms)
{
	struct oncpu_job *j = &jobs[cpu];
	int err;

	if (!j->started) {
		cprintf("oncpu: CPU %u: nothing started\n", cpu);
		return -ENOENT;
	}
	err = cpu_work_wait(&j->w, timeout_ms);
	if (err == -ETIMEDOUT) {
		cprintf("oncpu: CPU %u: `%s` %s after %u ms; `oncpu wait %u` collects it\n", cpu, j->line,
			j->w.state == CPU_WORK_QUEUED ? "not started" : "still running", timeout_ms, cpu);
		return err;
	}
	if (err)
		return err;
	print_output(j);
	cprintf("oncpu: CPU %u: `%s` returned %d (%s), ran %llu ms (from %llu us to %llu us since boot), started %llu us after queueing\n",
		cpu, j->line, j->w.result, j->w.result ? errno_name(j->w.result) : "ok",
		(unsigned long long)((j->w.done_ns - j->w.started_ns) / NS_PER_MS),
		(unsigned long long)(j->w.started_ns / NS_PER_US), (unsigned long long)(j->w.done_ns / NS_PER_US),
		(unsigned long long)((j->w.started_ns - j->w.queued_ns) / NS_PER_US));
	j->started = false;
	j->w.state = CPU_WORK_IDLE;
	return 0;   /* the command's own failure is in the line above, not oncpu's */
}

/* cpu0_only_check - RETURNS -EPERM (with the reason printed) for a command that stays on CPU 0, else 0. */
static int cpu0_only_check(const char *name)
{
	for (unsigned int i = 0; i < sizeof(cpu0_only) / sizeof(cpu0_only[0]); i++)
		if (strcmp(name, cpu0_only[i].name) == 0) {
			cprintf("oncpu: `%s` runs on CPU 0 only: %s\n", name, cpu0_only[i].why);
			return -EPERM;
		}
	return 0;
}

/* join - the words back into one line for shell_execute. RETURNS 0; -EINVAL (too long), -EPERM (CPU 0 only). */
static int join(int argc, char **argv, char *line, size_t size)
{
	size_t len = 0;
	int err = cpu0_only_check(argv[0]);

	if (err)
		return err;
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (len + n + 2 > size) {
			cprintf("oncpu: command line longer than %u characters\n", (unsigned int)size - 1);
			return -EINVAL;
		}
		if (i)
			line[len++] = ' ';
		memcpy(line + len, argv[i], n);
		len += n;
	}
	line[len] = '\0';
	return 0;
}

static int start(unsigned int cpu, int argc, char **argv)
{
	struct oncpu_job *j = &jobs[cpu];
	int err;

	err = cpu0_only_check(argv[0]);
	if (err)
		return err;
	/* Busy before j->line is touched: the running job's line is printed by `oncpu` and its wait. */
	if (j->started) {
		cprintf("oncpu: CPU %u: `%s` was started and not collected: `oncpu wait %u` first\n", cpu, j->line, cpu);
		return -EBUSY;
	}
	err = join(argc, argv, j->line, sizeof(j->line));
	if (err)
		return err;
	j->cap.buf = j->out;
	j->cap.size = sizeof(j->out);
	j->cap.len = 0;
	j->cap.dropped = 0;
	cpu_work_init(&j->w, oncpu_run, j);
	err = cpu_work_queue(cpu, &j->w);
	if (err) {
		cprintf("oncpu: CPU %u: %s\n", cpu,
			err == -EBUSY ? "busy with other work" : err == -ENODEV ? "not online" : "cannot take work");
		return err;
	}
	j->started = true;
	return 0;
}

static int parse_cpu(const char *s, unsigned int *cpu)
{
	unsigned int v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > SMP_MAX_CPUS)
			return -EINVAL;
		v = v * 10 + (unsigned int)(*s - '0');
	}
	*cpu = v;
	return 0;
}

static int parse_ms(const char *s, uint32_t *ms)
{
	uint32_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > ONCPU_WAIT_MAX_MS / 10)
			return -EINVAL;
		v = v * 10 + (uint32_t)(*s - '0');
	}
	if (v > ONCPU_WAIT_MAX_MS)
		return -EINVAL;
	*ms = v;
	return 0;
}

static int status(void)
{
	for (unsigned int c = 1; c < SMP_MAX_CPUS; c++) {
		if (!smp_cpu_online(c))
			continue;
		cprintf("CPU %u: %u works run, %s%s%s\n", c, cpu_work_count(c),
			!jobs[c].started ? "idle" : jobs[c].w.state == CPU_WORK_DONE ? "done, not collected: " :
			jobs[c].w.state == CPU_WORK_RUNNING ? "running: " : "queued: ",
			jobs[c].started ? jobs[c].line : "", "");
	}
	return 0;
}

int oncpu_cmd(int argc, char **argv)
{
	unsigned int cpu;
	uint32_t ms = ONCPU_WAIT_MS;
	bool only_start = false;
	int first = 1, err;

	if (argc == 1)
		return status();
	if (smp_processor_id() != 0) {
		cprintf("oncpu: runs from CPU 0's shell only\n");
		return -EPERM;
	}
	if (strcmp(argv[1], "wait") == 0) {
		if (argc < 3 || argc > 4 || parse_cpu(argv[2], &cpu) || (argc == 4 && parse_ms(argv[3], &ms)))
			return -EINVAL;
		if (cpu == 0 || cpu >= SMP_MAX_CPUS)
			return -EINVAL;
		return collect(cpu, ms);
	}
	if (strcmp(argv[1], "start") == 0) {
		only_start = true;
		first = 2;
	}
	if (argc < first + 2 || parse_cpu(argv[first], &cpu))
		return -EINVAL;
	if (cpu >= SMP_MAX_CPUS || !smp_cpu_online(cpu)) {
		cprintf("oncpu: CPU %u is not online (%u online)\n", cpu, smp_num_cpus());
		return -ENODEV;
	}
	if (cpu == 0) {
		if (only_start) {
			cprintf("oncpu: CPU 0 is the shell's own: run the command directly\n");
			return -EINVAL;
		}
		/* The shell's own CPU: nothing to hand over. */
		char line[ONCPU_LINE_MAX];

		err = join(argc - first - 1, argv + first + 1, line, sizeof(line));
		if (err)
			return err;
		shell_execute(line);   /* prints its own failure */
		return 0;
	}
	err = start(cpu, argc - first - 1, argv + first + 1);
	if (err)
		return err;
	if (only_start) {
		cprintf("oncpu: CPU %u: started `%s`\n", cpu, jobs[cpu].line);
		return 0;
	}
	return collect(cpu, ms);
}
