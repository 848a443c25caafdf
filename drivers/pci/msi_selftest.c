/*
 * msi_selftest.c - in-kernel selftests (selftest=msi) of drivers/pci/msi.c
 * with a real device: q35's default NIC, the Intel 82574L QEMU emulates as
 * `e1000e` (8086:10d3), which has MSI (64-bit, no mask bits) and MSI-X.
 * irqkit has no driver for it, so the tests own it: enable one interrupt
 * cause (IMS), raise it (ICS) and see the message arrive on the line
 * pci_alloc_irq_vectors() gave; the handler reads ICR, which clears the
 * causes (Intel 82574 datasheet 10.2.4.1-10.2.4.4). Without the NIC (pc)
 * every case is skipped. tests/qemu/test_msi.py runs them on q35.
 *
 * A message is judged by evidence that the CPU it goes to ran, not by host
 * time (issue 28): the wait for it ends when it came, or when that CPU
 * demonstrably ran without it - another CPU has finished kernel/irq's
 * stall_ran_irqs interrupts since the raise (its tick makes it finish some
 * whenever it runs); the waiting CPU itself has run MSG_SELF_RAN_MS of its
 * own steps with interrupts on (its tick may be stopped, so its count is
 * no evidence; a pending message is taken at once there) - a message that
 * did not come then is missing; or after a liveness limit in which the CPU
 * did not run, a failure of its own kind ("did not run"). A vCPU its host
 * keeps off for a while only makes the wait longer.
 */
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/paging.h>
#include <asm/smp.h>
#include <asm/tsc.h>
#include <asm/vector.h>
#include <asm/x86_irq.h>
#include <drivers/pci.h>
#include <drivers/pci_msi.h>
#include <irq/interrupt.h>
#include <irq/irqchip.h>
#include <irq/policy.h>
#include <irq/port.h>
#include <irq/stats.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/selftest.h>
#include <kernel/string.h>
#include <time/time.h>

#define E1000E_VENDOR 0x8086
#define E1000E_DEVICE 0x10D3
#define E1000E_ICR 0x00C0        /* interrupt cause read: reading clears */
#define E1000E_ICS 0x00C8        /* interrupt cause set */
#define E1000E_IMS 0x00D0        /* interrupt mask set */
#define E1000E_IMC 0x00D8        /* interrupt mask clear */
#define E1000E_CAUSE 0x00000002u /* TXQE: nothing transmits, so only we raise it */
#define E1000E_ALL 0xFFFFFFFFu

/* The selftests' waits: evidence that the message's CPU ran, time only as a liveness limit. */
enum {
	/* Interrupts the message's CPU must finish since the raise before a message that did not
	 * come is judged missing, when the profile in force has no stall test (stall_ran_irqs 0,
	 * irqpolicy=mainline): the default profile's stall_ran_irqs (kernel/irq/stall.c says why 3). */
	MSG_RAN_IRQS_DEFAULT = 3,
	/* Liveness limit (host ms): a CPU that finished fewer than those interrupts in this long did
	 * not run - reported as that, never as a missing message. An idle AP ticks at hz=. */
	MSG_ALIVE_MS = 10000,
	/* An unwanted message is watched for at least this long (ms), and until its CPU ran as above. */
	MSG_QUIET_MS = 20,
	/* The waiting CPU's own evidence: it ran this long (ms) with interrupts on, counted in steps
	 * of its wait loop ... */
	MSG_SELF_RAN_MS = 20,
	/* ... of at most this (us): a longer step is time it was kept off, not counted. */
	MSG_SELF_STEP_US = 1000,
};

static volatile uint32_t hits;
static volatile uint32_t hit_cpu;   /* the CPU that ran the handler last */
static uintptr_t regs;

/* The handler may run on another CPU (affinity): hit_cpu is stored before hits, and x86 keeps
 * the two stores in order, so a reader that sees hits move reads this message's CPU. */
static irqreturn_t nic_handler(unsigned int irq, void *dev_id)
{
	(void)irq; (void)dev_id;
	if (!(mmio_read32(regs + E1000E_ICR) & E1000E_CAUSE))
		return IRQ_NONE;
	hit_cpu = smp_processor_id();
	__atomic_store_n(&hits, hits + 1, __ATOMIC_RELEASE);
	return IRQ_HANDLED;
}

/* What a wait for a message saw. */
struct msg_wait {
	unsigned int cpu;       /* the CPU the message goes to */
	bool self;              /* it is the waiting CPU: @need, @done are ms of its own running */
	bool came;              /* the handler counted it */
	bool ran;               /* else: the CPU demonstrably ran without it */
	uint32_t need, done;    /* interrupts needed / finished by that CPU since the raise (or ms) */
	uint32_t ms;            /* host ms the wait took */
};

/* ran_irqs_needed - kernel/irq's evidence that a CPU ran: its profile's stall_ran_irqs. */
static uint32_t ran_irqs_needed(void)
{
	uint32_t n = (uint32_t)irq_policy()->stall_ran_irqs;

	return n ? n : MSG_RAN_IRQS_DEFAULT;
}

/*
 * wait_msg - wait, just after a raise, for a message (hits above @above) to
 * CPU @cpu (0 for a line not moved: arch/x86 routes device interrupts
 * there): until it came, or (not before @min_ms) until @cpu ran without it
 * - another CPU finished ran_irqs_needed() interrupts since this call; the
 * waiting CPU itself ran MSG_SELF_RAN_MS (at least @min_ms) of its own
 * loop's steps with interrupts on - or until MSG_ALIVE_MS passed without
 * that (the CPU did not run). Ordering: the CPU's progress count is read
 * first (acquire, pairing with the release in smp_irq_exit() after the
 * handlers), then hits, so a wait that sees the count moved sees the
 * message if one of those interrupts took it; on the waiting CPU the
 * message's interrupt comes between two steps, before the next look at hits.
 * RETURNS @w->came.
 */
static bool wait_msg(uint32_t above, unsigned int cpu, uint32_t min_ms, struct msg_wait *w)
{
	uint32_t p0 = irq_port_cpu_progress(cpu);
	uint64_t t0 = tsc_ns(), el, prev = t0, run = 0, now;

	w->cpu = cpu;
	/* The waiting CPU with interrupts off is judged by its count, as another CPU is. */
	w->self = cpu == smp_processor_id() && (cpu_read_eflags() & X86_EFLAGS_IF);
	w->need = w->self ? (min_ms > MSG_SELF_RAN_MS ? min_ms : MSG_SELF_RAN_MS) : ran_irqs_needed();
	w->came = w->ran = false;
	for (;;) {
		uint32_t done = irq_port_cpu_progress(cpu) - p0;  /* a count that wraps: by difference */

		now = tsc_ns();
		el = now - t0;
		if (now - prev <= MSG_SELF_STEP_US * NSEC_PER_USEC)
			run += now - prev;   /* a step of its own: the waiting CPU ran (interrupts on) */
		prev = now;
		if (w->self)
			done = (uint32_t)(run / NSEC_PER_MSEC);
		w->done = done;
		w->ms = (uint32_t)(el / NSEC_PER_MSEC);
		if (__atomic_load_n(&hits, __ATOMIC_ACQUIRE) > above) {
			w->came = true;
			return true;
		}
		if (done >= w->need && el >= (uint64_t)min_ms * NSEC_PER_MSEC) {
			w->ran = true;
			return false;
		}
		if (el >= (uint64_t)MSG_ALIVE_MS * NSEC_PER_MSEC)
			return false;
		cpu_relax();
	}
}

/* ST_EXPECT_MSG / ST_EXPECT_QUIET - a message came (none came) while its CPU ran; each failure
 * says which it was: a CPU that ran without the message (with it), or one that did not run. */
#define MSG_FIGURES "(CPU %u %s %u %s in %u ms, %u needed; hits %u)"
#define MSG_FIGURE_ARGS(w) (w)->cpu, (w)->self ? "(the waiting one) ran" : "finished", (w)->done, \
	(w)->self ? "ms of its own steps" : "interrupts", (w)->ms, (w)->need, hits
#define ST_EXPECT_MSG(t, w, what)                                                                            \
	ST_EXPECT(t, (w)->came, "%s: %s " MSG_FIGURES, what,                                                   \
		  (w)->ran ? "no message while its CPU ran" : "CPU did not run: message not judged",              \
		  MSG_FIGURE_ARGS(w))
#define ST_EXPECT_QUIET(t, w, what)                                                                          \
	ST_EXPECT(t, !(w)->came && (w)->ran, "%s: %s " MSG_FIGURES, what,                                      \
		  (w)->came ? "a message came" : "CPU did not run: quiet not judged", MSG_FIGURE_ARGS(w))

/* setup - the NIC with one MSI vector requested. RETURNS its line, or -1 (skipped / failed). */
static int setup(struct selftest_ctx *t, struct pci_dev **out)
{
	struct pci_dev *d = pci_find_device(E1000E_VENDOR, E1000E_DEVICE, NULL);
	int n, line, err;

	if (!d) {
		selftest_skip(t, "no e1000e (8086:10d3): run on q35");
		return -1;
	}
	if (pci_msi_disabled()) {
		selftest_skip(t, "pci=nomsi");
		return -1;
	}
	if (d->bar[0].size < 0x1000 || (d->bar[0].flags & PCI_BAR_IO) || d->bar[0].base == 0 ||
	    mmio_map(d->bar[0].base, d->bar[0].size, &regs)) {
		selftest_skip(t, "e1000e BAR0 is not a memory BAR this kernel can map");
		return -1;
	}
	n = pci_alloc_irq_vectors(d, 1, 1, PCI_IRQ_MSI);
	ST_EXPECT(t, n == 1, "pci_alloc_irq_vectors(MSI): %d", n);
	if (n != 1)
		return -1;
	line = pci_irq_vector(d, 0);
	ST_EXPECT(t, line >= PCI_MSI_FIRST_LINE, "line %d", line);
	mmio_write32(regs + E1000E_IMC, E1000E_ALL);
	(void)mmio_read32(regs + E1000E_ICR);
	err = request_irq((unsigned int)line, nic_handler, 0, "selftest-e1000e", (void *)&hits);
	ST_EXPECT(t, err == 0, "request_irq(%d): %d", line, err);
	if (err) {
		pci_free_irq_vectors(d);
		return -1;
	}
	mmio_write32(regs + E1000E_IMS, E1000E_CAUSE);
	*out = d;
	return line;
}

static void teardown(struct pci_dev *d, int line)
{
	mmio_write32(regs + E1000E_IMC, E1000E_ALL);
	(void)mmio_read32(regs + E1000E_ICR);
	free_irq((unsigned int)line, (void *)&hits);
	pci_free_irq_vectors(d);
}

/* contains - @needle occurs in @hay (no strstr in this kernel's string.h). */
static bool contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay; hay++)
		if (strncmp(hay, needle, n) == 0)
			return true;
	return false;
}

static void raise_cause(void)
{
	mmio_write32(regs + E1000E_ICS, E1000E_CAUSE);
}

SELFTEST(msi, message_arrives_on_its_own_line_with_the_device_name)
{
	struct pci_dev *d = NULL;
	struct irq_line_stats st;
	char why[160];
	int line = setup(t, &d);
	uint32_t h0;
	struct msg_wait w;

	if (line < 0)
		return;
	ST_EXPECT(t, pci_irq_is_msi(d), "not MSI");
	ST_EXPECT(t, irq_get_line_stats((unsigned int)line, &st) == 0 && strncmp(st.chip_name, "PCI-MSI 00:", 11) == 0,
		  "chip %s", st.chip_name);
	h0 = hits;
	raise_cause();
	wait_msg(h0, 0, 0, &w);
	ST_EXPECT_MSG(t, &w, "the first message");
	ST_EXPECT(t, pci_msi_diagnose(d, 0, why, sizeof(why)) == 0, "diagnosis: %s", why);
	/* A second one: the first was acknowledged (EOI) and ICR cleared by the handler. */
	h0 = hits;
	raise_cause();
	wait_msg(h0, 0, 0, &w);
	ST_EXPECT_MSG(t, &w, "the second message");
	teardown(d, line);
}

SELFTEST(msi, disable_irq_holds_the_message_back)
{
	struct pci_dev *d = NULL;
	int line = setup(t, &d);
	uint32_t h0;
	struct msg_wait w;

	if (line < 0)
		return;
	disable_irq((unsigned int)line);
	h0 = hits;
	raise_cause();
	wait_msg(h0, 0, MSG_QUIET_MS, &w);
	ST_EXPECT_QUIET(t, &w, "disabled line");
	/* No mask bits: the message was dropped, not held (msi.c); clear the cause as a poll would. */
	(void)mmio_read32(regs + E1000E_ICR);
	enable_irq((unsigned int)line);
	h0 = hits;
	raise_cause();
	wait_msg(h0, 0, 0, &w);
	ST_EXPECT_MSG(t, &w, "after enable_irq");
	teardown(d, line);
}

SELFTEST(msi, fault_msi_mask_silences_the_device_and_is_diagnosed)
{
	struct pci_dev *d = NULL;
	char why[160] = "";
	int line = setup(t, &d), err;
	uint32_t h0;
	struct msg_wait w;

	if (line < 0)
		return;
	err = fault_inject("msi-mask");
	ST_EXPECT(t, err == 0, "inject msi-mask: %d", err);
	h0 = hits;
	raise_cause();
	wait_msg(h0, 0, MSG_QUIET_MS, &w);
	ST_EXPECT_QUIET(t, &w, "through msi-mask");
	ST_EXPECT(t, pci_msi_diagnose(d, 0, why, sizeof(why)) == 1 && contains(why, "behind the core's back"),
		  "diagnosis: %s", why);
	ST_EXPECT(t, irq_get_line_diagnosis((unsigned int)line, why, sizeof(why)) == 1, "line diagnosis: %s", why);
	(void)mmio_read32(regs + E1000E_ICR);
	fault_clear("msi-mask");
	ST_EXPECT(t, pci_msi_diagnose(d, 0, why, sizeof(why)) == 0, "after clearing: %s", why);
	h0 = hits;
	raise_cause();
	wait_msg(h0, 0, 0, &w);
	ST_EXPECT_MSG(t, &w, "after inject off");
	teardown(d, line);
}

SELFTEST(msi, fault_msi_misvector_lands_on_a_vector_nobody_owns)
{
	struct pci_dev *d = NULL;
	char why[160] = "";
	int line = setup(t, &d), err;
	uint32_t h0, u0;
	struct msg_wait w;

	if (line < 0)
		return;
	err = fault_inject("msi-misvector");
	ST_EXPECT(t, err == 0, "inject msi-misvector: %d", err);
	h0 = hits;
	u0 = x86_unexpected_vectors();
	raise_cause();
	wait_msg(h0, 0, MSG_QUIET_MS, &w);
	ST_EXPECT_QUIET(t, &w, "misvectored (the handler must not run)");
	/*
	 * At least one: the handler does not run, so nobody reads ICR, and
	 * QEMU's e1000e may send the cause it still holds again while the
	 * quiet window lasts (seen beside busy loops: 0 -> 3, 0 -> 34). A
	 * fault that did not redirect the message has 0 here and the handler
	 * run above.
	 */
	ST_EXPECT(t, x86_unexpected_vectors() >= u0 + 1, "unowned vector count %u -> %u", u0, x86_unexpected_vectors());
	ST_EXPECT(t, pci_msi_diagnose(d, 0, why, sizeof(why)) == 1 && contains(why, "nobody owns"), "diagnosis: %s", why);
	(void)mmio_read32(regs + E1000E_ICR);
	fault_clear("msi-misvector");
	h0 = hits;
	raise_cause();
	wait_msg(h0, 0, 0, &w);
	ST_EXPECT_MSG(t, &w, "after inject off");
	teardown(d, line);
}

SELFTEST(msi, free_gives_lines_and_vectors_back)
{
	struct pci_dev *d = NULL;
	int line = setup(t, &d), line2, n;
	unsigned int used;

	if (line < 0)
		return;
	used = x86_vector_in_use();
	teardown(d, line);
	ST_EXPECT(t, x86_vector_in_use() == used - 1, "vectors in use %u -> %u", used, x86_vector_in_use());
	ST_EXPECT(t, pci_irq_mode(d) == PCI_IRQ_MODE_NONE, "mode %d", pci_irq_mode(d));
	n = pci_alloc_irq_vectors(d, 1, 1, PCI_IRQ_MSI);
	line2 = pci_irq_vector(d, 0);
	ST_EXPECT(t, n == 1 && line2 == line, "again: %d vectors, line %d (was %d)", n, line2, line);
	ST_EXPECT(t, pci_alloc_irq_vectors(d, 1, 1, PCI_IRQ_MSI) == -EBUSY, "double allocation not refused");
	pci_free_irq_vectors(d);
	ST_EXPECT(t, pci_alloc_irq_vectors(d, 2, 2, PCI_IRQ_MSI) < 0, "MSI gave 2 vectors");
	pci_free_irq_vectors(d);
}

/* second_cpu - an online CPU other than 0, or -1. */
static int second_cpu(void)
{
	for (unsigned int cpu = 1; cpu < SMP_MAX_CPUS; cpu++)
		if (smp_cpu_online(cpu))
			return (int)cpu;
	return -1;
}

/*
 * The message chip's irq_set_affinity (msi.c, retarget): after a move the
 * next message is taken by the new CPU, once. The e1000e's MSI has no mask
 * bits, so this is the live single-write case. (Messages raised back to
 * back are not tried here: after a burst of ICS writes QEMU's e1000e keeps
 * re-sending a cause nobody reads, which upsets the misvector case; the
 * disk tests of test_smp_moves.py count lost and doubled completions.)
 */
SELFTEST(msi, affinity_moves_the_message_to_another_cpu_and_back)
{
	struct pci_dev *d = NULL;
	char why[160] = "";
	int other = second_cpu(), line;
	uint32_t h0;
	struct msg_wait w;

	if (other < 0) {
		selftest_skip(t, "one CPU online: run with -smp 2 or more");
		return;
	}
	line = setup(t, &d);
	if (line < 0)
		return;
	for (unsigned int round = 0; round < 4; round++) {
		unsigned int cpu = round % 2 ? 0u : (unsigned int)other;

		ST_EXPECT(t, irq_set_affinity((unsigned int)line, 1u << cpu) == 0, "move to CPU %u refused", cpu);
		ST_EXPECT(t, pci_msi_diagnose(d, 0, why, sizeof(why)) == 0, "after the move: %s", why);
		h0 = hits;
		raise_cause();
		wait_msg(h0, cpu, 0, &w);
		ST_EXPECT_MSG(t, &w, cpu ? "after the move to the other CPU" : "after the move back to CPU 0");
		ST_EXPECT(t, !w.came || hit_cpu == cpu, "the message went to CPU %u, not CPU %u", hit_cpu, cpu);
		if (w.came) {
			wait_msg(h0 + 1, cpu, MSG_QUIET_MS, &w);
			ST_EXPECT_QUIET(t, &w, "one message taken twice");
		}
	}
	ST_EXPECT(t, irq_set_affinity((unsigned int)line, 1u) == 0, "back to CPU 0");
	teardown(d, line);
}

/* A mask set behind the core's back (msi-mask) survives a move, and the line works on the new
 * CPU once it is cleared: the move rewrites the address only. */
SELFTEST(msi, a_move_keeps_a_fault_mask_and_its_diagnosis)
{
	struct pci_dev *d = NULL;
	char why[160] = "";
	int other = second_cpu(), line, err;
	uint32_t h0;
	struct msg_wait w;

	if (other < 0) {
		selftest_skip(t, "one CPU online: run with -smp 2 or more");
		return;
	}
	line = setup(t, &d);
	if (line < 0)
		return;
	err = fault_inject("msi-mask");
	ST_EXPECT(t, err == 0, "inject msi-mask: %d", err);
	ST_EXPECT(t, irq_set_affinity((unsigned int)line, 1u << other) == 0, "move refused");
	h0 = hits;
	raise_cause();
	wait_msg(h0, (unsigned int)other, MSG_QUIET_MS, &w);
	ST_EXPECT_QUIET(t, &w, "msi-mask after the move");
	ST_EXPECT(t, pci_msi_diagnose(d, 0, why, sizeof(why)) == 1 && contains(why, "behind the core's back"),
		  "diagnosis after the move: %s", why);
	(void)mmio_read32(regs + E1000E_ICR);
	fault_clear("msi-mask");
	h0 = hits;
	raise_cause();
	wait_msg(h0, (unsigned int)other, 0, &w);
	ST_EXPECT_MSG(t, &w, "after inject off, on the other CPU");
	ST_EXPECT(t, !w.came || hit_cpu == (uint32_t)other, "after inject off: the message went to CPU %u, not CPU %d",
		  hit_cpu, other);
	ST_EXPECT(t, irq_set_affinity((unsigned int)line, 1u) == 0, "back to CPU 0");
	teardown(d, line);
}
