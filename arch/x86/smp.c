/*
 * smp.c - the other CPUs: finding them, starting them, per-CPU accounting,
 * and the inter-processor interrupts (IPIs) of vectors 0xF0-0xFD.
 *
 * Finding them (docs/smp.md). The MADT lists every CPU a machine has
 * (ACPI 6.5 5.2.12.2/12: enabled, or online-capable, or neither = ignore);
 * the MP table (MP spec 1.4 4.3.1) lists processors too, but SeaBIOS lists
 * one per package, so a QEMU `-smp 4 -no-acpi` (one socket, four cores)
 * shows only the boot CPU. Trust, in this order: the MADT; else the MP
 * table if it lists at least as many CPUs as CPUID says the boot CPU's
 * package has (CPUID.1:EBX[23:16] with EDX.HTT); else neither: a broadcast
 * INIT-SIPI-SIPI to "all but self" wakes whatever CPUs exist and the kernel
 * counts those that check in (bounded wait). Every entry is untrusted
 * input: the boot CPU's own APIC ID, the broadcast ID 0xFF and x2APIC IDs
 * above 254 (this kernel speaks xAPIC) are reported and skipped; the
 * parsers already dropped duplicates and entries past FW_MAX_CPUS.
 *
 * Starting them (Intel SDM 3A 8.4.4.1 "typical BSP initialization
 * sequence", MP spec B.4 "application processor startup"): INIT IPI,
 * 10 ms, start-up IPI (SIPI) with the trampoline's page, 200 us, a second
 * SIPI, 200 us; then wait for the AP to check in. APs are started one at a
 * time; each draws a slot in the trampoline (smp_trampoline.S), which picks
 * its stack; CPU number = slot + 1. An AP that does not check in within
 * SMP_CHECKIN_TIMEOUT_MS is reported and the boot goes on without it.
 *
 * What an AP does (smp_ap_entry): its own GDT with its own TSS, double-fault
 * TSS and per-CPU segment (gdt.c), the shared IDT, its local APIC (LINT pins
 * masked: the 8259 and NMI are wired to the boot CPU), its LAPIC timer
 * periodic at the tick rate (counted in cpu_data.ticks), then it halts in a
 * loop with interrupts on, taking IPIs and running the thread-context work
 * other CPUs queue for it (kernel/cpu_work.c, the `oncpu` command). Device interrupts go to CPU 0 (the
 * IOAPIC's destination), and so do all timers (docs/time.md).
 *
 * IPIs: CALL_FUNCTION_VECTOR (0xFB) runs a function another CPU left in
 * this CPU's mailbox; RESCHEDULE_VECTOR (0xFC) only wakes the CPU (and on
 * CPU 0 re-examines the timers: lapic_timer_kick).
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/paging.h>
#include <asm/smp.h>
#include <asm/spinlock.h>
#include <asm/trap.h>
#include <asm/tsc.h>
#include <asm/x86_irq.h>
#include <firmware.h>
#include <kernel/bootinfo.h>
#include <kernel/cmdline.h>
#include <kernel/cpu_work.h>
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/params.h>
#include <kernel/printk.h>
#include <kernel/panic.h>
#include <kernel/string.h>
#include <time/time.h>

#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull
#define APIC_ID_BROADCAST 0xFFu        /* xAPIC physical destination "all" */
#define APIC_ID_XAPIC_MAX 0xFEu        /* highest ID an xAPIC IPI can name */
#define CPUID1_EDX_HTT (1u << 28)      /* EBX[23:16] is valid */
#define CPUID1_EBX_LOGICAL_SHIFT 16
#define AP_STACK_BYTES (SMP_AP_STACK_PAGES * PAGE_SIZE)

/* ------------------------------------------------------------------------
 * State
 */

bool smp_param_nosmp;
unsigned int smp_param_maxcpus;        /* 0: not given */

/* Read by the trampoline (smp_trampoline.S): slot counter, slots allowed,
 * each slot's stack top, and the boot CPU's CR3/CR4. */
volatile uint32_t smp_ap_ticket;
uint32_t smp_ap_slots;
uint32_t smp_ap_stack_top[SMP_MAX_CPUS];
uint32_t smp_ap_cr3, smp_ap_cr4;
extern const char smp_trampoline_start[], smp_trampoline_end[];

/* AP stacks: a guard page (unmapped) below each, all in the first 4 MiB
 * (paging.c maps that part with 4 KiB pages). CPU 0 keeps boot.S's. */
static uint8_t ap_stacks[SMP_MAX_CPUS - 1][PAGE_SIZE + AP_STACK_BYTES] __attribute__((aligned(PAGE_SIZE)));

static unsigned int nr_online = 1;
static const char *cpu_source = "none (not started)";
static char source_reason[200];
static uint32_t dead_cpus;             /* started but never checked in */
static uint32_t parked_cpus;           /* woke but turned away by maxcpus / SMP_MAX_CPUS */

/* Call-function mailbox of each CPU. `req` and `done` count calls: the
 * sender publishes fn/arg, then req (store-release, pairs with the
 * load-acquire of req in the IPI handler); the target runs fn and then
 * publishes done = req (store-release, pairs with the sender's
 * load-acquire of done). Senders to one CPU are serialised by `lock`. */
struct call_mailbox {
	spinlock_t lock;
	void (*volatile fn)(void *);
	void *volatile arg;
	volatile uint32_t req, done;
	uint32_t timeouts;
};
static struct call_mailbox mailbox[SMP_MAX_CPUS];

void spin_lock_failed(spinlock_t *l)
{
	panic("spin_lock: lock %p not granted after %u spins on CPU %u (next %u, owner %u): its holder is dead or it is corrupt",
	      (void *)l, SPIN_LOCK_MAX_SPINS, smp_processor_id(), l->next, l->owner);
}

unsigned int smp_num_cpus(void)
{
	return nr_online;
}

bool smp_cpu_online(unsigned int cpu)
{
	return cpu < SMP_MAX_CPUS && __atomic_load_n(&cpu_data[cpu].online, __ATOMIC_ACQUIRE);
}

const char *smp_source_name(void)
{
	return cpu_source;
}

int smp_param_set_nosmp(const char *value, void *arg)
{
	(void)arg;
	if (value)
		return -EINVAL;
	smp_param_nosmp = true;
	return 0;
}

int smp_param_set_maxcpus(const char *value, void *arg)
{
	unsigned long n;
	int err = cmdline_parse_uint(value, 1, SMP_MAX_CPUS, &n);

	(void)arg;
	if (err)
		return err;
	smp_param_maxcpus = (unsigned int)n;
	return 0;
}

/* ------------------------------------------------------------------------
 * Per-CPU accounting
 */

/* Interrupts per CPU and vector. Each CPU writes only its own row, so the
 * hot path needs no atomic; the shell reads rows of other CPUs (a count
 * read while it changes is off by one, never torn: 32-bit stores). */
static uint32_t vector_counts[SMP_MAX_CPUS][X86_NR_VECTORS];

void smp_irq_enter(unsigned int vector)
{
	struct cpu_data *c = this_cpu();
	uint64_t since = c->idle_since;

	c->irq_depth++;
	if (vector < X86_NR_VECTORS)
		vector_counts[c->cpu][vector]++;
	if (since) {
		c->idle_since = 0;
		c->idle_ns += tsc_ns() - since;
	}
}

void smp_idle_halt(void)
{
	struct cpu_data *c = this_cpu();
	uint64_t since;

	c->idle_since = tsc_ns();
	cpu_sti_hlt();
	cpu_cli();
	/* Woken by something that did not come through x86_irq_vector (an NMI). */
	since = c->idle_since;
	if (since) {
		c->idle_since = 0;
		c->idle_ns += tsc_ns() - since;
	}
}

/* ------------------------------------------------------------------------
 * IPIs
 */

static void call_function_interrupt(struct trap_frame *f)
{
	struct call_mailbox *m = &mailbox[smp_processor_id()];
	uint32_t req = __atomic_load_n(&m->req, __ATOMIC_ACQUIRE);  /* pairs with the sender's release */

	(void)f;
	this_cpu()->ipis++;
	lapic_eoi();
	if (req != m->done) {
		m->fn(m->arg);
		__atomic_store_n(&m->done, req, __ATOMIC_RELEASE);  /* pairs with the sender's acquire */
	}
}

static void reschedule_interrupt(struct trap_frame *f)
{
	(void)f;
	this_cpu()->ipis++;
	lapic_eoi();
	if (smp_processor_id() == 0)
		lapic_timer_kick();
}

static void stop_interrupt(struct trap_frame *f)
{
	(void)f;
	__atomic_store_n(&this_cpu()->online, false, __ATOMIC_RELEASE);
	cpu_halt_forever();
}

void smp_stop_other_cpus(void)
{
	if (nr_online > 1 && lapic_ready())
		lapic_send_ipi(0, LAPIC_ICR_FIXED | LAPIC_ICR_ASSERT | LAPIC_ICR_ALL_BUT_SELF | STOP_VECTOR);
}

void smp_send_wakeup(unsigned int cpu)
{
	if (smp_cpu_online(cpu))
		lapic_send_ipi(cpu_data[cpu].apic_id, LAPIC_ICR_FIXED | LAPIC_ICR_ASSERT | RESCHEDULE_VECTOR);
}

int smp_call_function_single(unsigned int cpu, void (*fn)(void *), void *arg, uint32_t timeout_ms)
{
	struct call_mailbox *m;
	unsigned long flags;
	uint64_t deadline;
	uint32_t seq;
	int err = 0;

	if (cpu == smp_processor_id()) {
		flags = irq_save_flags();
		fn(arg);
		irq_restore_flags(flags);
		return 0;
	}
	if (!smp_cpu_online(cpu))
		return -ENODEV;
	m = &mailbox[cpu];
	flags = spin_lock_irqsave(&m->lock);
	if (m->done != m->req) {
		/* A call that timed out earlier never ran: take it back. */
		m->done = m->req;
	}
	m->fn = fn;
	m->arg = arg;
	seq = m->req + 1;
	__atomic_store_n(&m->req, seq, __ATOMIC_RELEASE);  /* pairs with the handler's acquire */
	if (lapic_send_ipi(cpu_data[cpu].apic_id, LAPIC_ICR_FIXED | LAPIC_ICR_ASSERT | CALL_FUNCTION_VECTOR)) {
		err = -ETIMEDOUT;
	} else {
		/* Interrupts back as they were while waiting: the target may be waiting on us. */
		irq_restore_flags(flags);
		deadline = tsc_ns() + (uint64_t)(timeout_ms ? timeout_ms : SMP_CALL_TIMEOUT_MS) * NS_PER_MS;
		while (__atomic_load_n(&m->done, __ATOMIC_ACQUIRE) != seq) {
			if (tsc_ns() > deadline) {
				err = -ETIMEDOUT;
				break;
			}
			cpu_relax();
		}
		cpu_cli();
	}
	if (err)
		m->timeouts++;
	spin_unlock_irqrestore(&m->lock, flags);
	return err;
}

/* ------------------------------------------------------------------------
 * AP side
 */

__attribute__((noreturn)) void smp_ap_entry(uint32_t slot);

void smp_ap_entry(uint32_t slot)
{
	unsigned int cpu = slot + 1;
	struct cpu_data *c = &cpu_data[cpu];

	gdt_init_cpu(cpu);
	idt_load();
	c->stack_hi = smp_ap_stack_top[slot];
	c->stack_lo = c->stack_hi - AP_STACK_BYTES;
	c->guard = c->stack_lo - PAGE_SIZE;
	c->apic_id = lapic_current_id();
	if (lapic_init_ap()) {
		/* Not online: the boot CPU reports it as not checked in. */
		cpu_halt_forever();
	}
	lapic_timer_start_ap(param_hz);
	c->online_ns = tsc_ns();
	/* Everything above is visible before `online` (pairs with the boot CPU's acquire). */
	__atomic_store_n(&c->online, true, __ATOMIC_RELEASE);
	/* The idle loop: thread-context work queued for this CPU (kernel/cpu_work.c) runs
	 * with interrupts on; the look and the halt are with interrupts off, so a wake-up
	 * IPI that comes between them ends the halt at once. */
	for (;;) {
		cpu_work_run_pending();
		smp_idle_halt();
	}
}

/* ------------------------------------------------------------------------
 * Boot CPU side
 */

static void delay_us(uint64_t us)
{
	uint64_t end = tsc_ns() + us * NS_PER_US;

	while (tsc_ns() < end)
		cpu_relax();
}

/* The trampoline page must be usable RAM in the memory map. */
static bool trampoline_page_is_ram(void)
{
	for (unsigned int i = 0; i < boot_info.nr_regions; i++) {
		const struct mem_region *r = &boot_info.regions[i];

		if (r->type == 1 && r->base <= SMP_TRAMPOLINE_PHYS &&
		    r->base + r->len >= SMP_TRAMPOLINE_PHYS + SMP_TRAMPOLINE_PAGE)
			return true;
	}
	return false;
}

static int prepare_trampoline(void)
{
	size_t len = (size_t)(smp_trampoline_end - smp_trampoline_start);

	if (len > SMP_TRAMPOLINE_PAGE)
		panic("smp: trampoline is %u bytes, more than its page", (unsigned int)len);
	if (!trampoline_page_is_ram()) {
		pr_warn("smp: the memory map does not list 0x%05x-0x%05x as usable RAM; no AP can be started\n",
			SMP_TRAMPOLINE_PHYS, SMP_TRAMPOLINE_PHYS + SMP_TRAMPOLINE_PAGE - 1);
		return -ENOMEM;
	}
	memcpy((void *)(uintptr_t)SMP_TRAMPOLINE_PHYS, smp_trampoline_start, len);
	smp_ap_cr3 = read_cr3();
	smp_ap_cr4 = read_cr4();
	for (unsigned int s = 0; s < SMP_MAX_CPUS - 1; s++) {
		uint32_t guard = (uint32_t)(uintptr_t)ap_stacks[s];

		if (paging_unmap_guard(guard))
			panic("smp: AP stack guard %#x is not a 4 KiB page in the first 4 MiB", guard);
		smp_ap_stack_top[s] = guard + PAGE_SIZE + AP_STACK_BYTES;
	}
	return 0;
}

/* INIT, 10 ms, SIPI, 200 us, SIPI, 200 us (SDM 3A 8.4.4.1) to @apic_id or,
 * with @broadcast, to every CPU but this one. */
static int send_init_sipi_sipi(uint32_t apic_id, bool broadcast)
{
	uint32_t shorthand = broadcast ? LAPIC_ICR_ALL_BUT_SELF : 0;
	uint32_t sipi = LAPIC_ICR_STARTUP | LAPIC_ICR_ASSERT | shorthand | (SMP_TRAMPOLINE_PHYS >> 12);
	int err;

	err = lapic_send_ipi(apic_id, LAPIC_ICR_INIT | LAPIC_ICR_ASSERT | LAPIC_ICR_LEVEL_TRIGGER | shorthand);
	if (err)
		return err;
	delay_us(SMP_INIT_DELAY_US);
	for (int i = 0; i < 2; i++) {
		err = lapic_send_ipi(apic_id, sipi);
		if (err)
			return err;
		delay_us(SMP_SIPI_DELAY_US);
	}
	return 0;
}

/* Wait (bounded) until CPU @cpu checks in. RETURNS true if it did. */
static bool wait_checkin(unsigned int cpu, uint64_t timeout_ms)
{
	uint64_t end = tsc_ns() + timeout_ms * NS_PER_MS;

	while (!smp_cpu_online(cpu)) {
		if (tsc_ns() > end)
			return false;
		cpu_relax();
	}
	return true;
}

/* CPUID's count of logical processors in the boot CPU's package, 0 if unknown. */
static unsigned int cpuid_package_cpus(void)
{
	uint32_t a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	if (!(d & CPUID1_EDX_HTT))
		return 1;
	return (b >> CPUID1_EBX_LOGICAL_SHIFT) & 0xFFu;
}

/* Start one AP by its APIC ID; RETURNS true if it checked in. */
static bool start_one(uint32_t apic_id)
{
	unsigned int cpu = smp_ap_ticket + 1;
	int err = send_init_sipi_sipi(apic_id, false);

	if (err) {
		pr_warn("smp: APIC ID %u: the IPI was not accepted (%d); skipped\n", apic_id, err);
		return false;
	}
	if (!wait_checkin(cpu, SMP_CHECKIN_TIMEOUT_MS)) {
		dead_cpus++;
		pr_warn("smp: APIC ID %u did not check in within %u ms of its SIPIs; going on without it\n",
			apic_id, SMP_CHECKIN_TIMEOUT_MS);
		/* Burn its slot if it never drew one, so the next AP does not wait on
		 * this CPU number (a late arrival draws the next slot, and is then
		 * reported above as answering for another APIC ID). */
		uint32_t slot = cpu - 1;
		__atomic_compare_exchange_n(&smp_ap_ticket, &slot, slot + 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
		return false;
	}
	if (cpu_data[cpu].apic_id != apic_id)
		pr_warn("smp: CPU %u answered for APIC ID %u but reads APIC ID %u from its LAPIC\n", cpu,
			apic_id, cpu_data[cpu].apic_id);
	return true;
}

/* Is table entry @e one to start? Reports the ones skipped. */
static bool cpu_entry_usable(const struct fw_cpu *e, uint32_t bsp_id, const char *table)
{
	if (!e->enabled) {
		pr_info("smp: %s CPU APIC ID %u is online-capable but not enabled; not started\n", table, e->apic_id);
		return false;
	}
	if (e->apic_id == bsp_id)
		return false;
	if (e->apic_id > APIC_ID_XAPIC_MAX) {
		pr_warn("smp: %s lists APIC ID %u, which an xAPIC cannot address%s; skipped\n", table, e->apic_id,
			e->apic_id == APIC_ID_BROADCAST ? " (it is the broadcast ID)" : "");
		return false;
	}
	return true;
}

/* Start the CPUs a table lists (the limit on slots bounds how many). */
static void start_listed(const struct fw_platform *fw, uint32_t bsp_id, const char *table)
{
	bool bsp_listed = false;

	for (uint32_t i = 0; i < fw->cpus.count && i < FW_MAX_CPUS; i++) {
		const struct fw_cpu *e = &fw->cpus.entry[i];

		if (e->apic_id == bsp_id)
			bsp_listed = true;
		if (!cpu_entry_usable(e, bsp_id, table))
			continue;
		if (smp_ap_ticket >= smp_ap_slots) {
			pr_info("smp: %s CPU APIC ID %u not started: %u CPUs is the limit (%s)\n", table, e->apic_id,
				smp_ap_slots + 1, smp_param_maxcpus ? "maxcpus=" : "SMP_MAX_CPUS");
			continue;
		}
		if (start_one(e->apic_id))
			nr_online++;
	}
	if (!bsp_listed)
		pr_warn("smp: the %s does not list the boot CPU (APIC ID %u)\n", table, bsp_id);
}

/* Broadcast INIT-SIPI-SIPI and count who checks in. */
static void start_broadcast(unsigned int expect)
{
	uint64_t start, last_change;
	uint32_t seen = 0;
	int err = send_init_sipi_sipi(0, true);

	if (err) {
		pr_warn("smp: broadcast INIT-SIPI-SIPI not accepted (%d)\n", err);
		return;
	}
	start = last_change = tsc_ns();
	for (;;) {
		uint32_t t = smp_ap_ticket;
		uint64_t now = tsc_ns();

		if (t != seen) {
			seen = t;
			last_change = now;
		}
		if (now - start > (uint64_t)SMP_BROADCAST_WAIT_MS * NS_PER_MS)
			break;
		/* Everyone CPUID promised has arrived and nobody came for a while. */
		if (expect > 1 && seen + 1 >= expect && now - last_change > (uint64_t)SMP_BROADCAST_QUIET_MS * NS_PER_MS)
			break;
		cpu_relax();
	}
	for (uint32_t s = 0; s < seen && s < smp_ap_slots; s++) {
		if (wait_checkin(s + 1, SMP_CHECKIN_TIMEOUT_MS))
			nr_online++;
		else
			dead_cpus++;
	}
	if (seen > smp_ap_slots)
		parked_cpus = seen - smp_ap_slots;
}

/* Which source to trust, and why (into source_reason). */
static enum { SRC_NONE, SRC_MADT, SRC_MP, SRC_BROADCAST }
choose_source(const struct fw_platform *fw, const struct fw_platform *mp, unsigned int pkg)
{
	if (fw && fw->source == FW_SOURCE_ACPI && fw->acpi.madt_found && fw->cpus.count) {
		ksnprintf(source_reason, sizeof(source_reason), "the MADT lists %u CPU%s", fw->cpus.count,
			  fw->cpus.count == 1 ? "" : "s");
		return SRC_MADT;
	}
	if (mp && mp->source == FW_SOURCE_MP && mp->cpus.count) {
		if (mp->cpus.count >= pkg) {
			ksnprintf(source_reason, sizeof(source_reason),
				  "no MADT; the MP table lists %u CPU%s, CPUID says %u in the boot CPU's package",
				  mp->cpus.count, mp->cpus.count == 1 ? "" : "s", pkg);
			return SRC_MP;
		}
		ksnprintf(source_reason, sizeof(source_reason),
			  "no MADT; the MP table lists %u CPU%s but CPUID says the boot CPU's package has %u "
			  "(SeaBIOS lists one per package): not trusted", mp->cpus.count,
			  mp->cpus.count == 1 ? "" : "s", pkg);
		return SRC_BROADCAST;
	}
	ksnprintf(source_reason, sizeof(source_reason), "no MADT and no MP table lists a CPU");
	return SRC_BROADCAST;
}

unsigned int smp_init(const void *fw_v, const void *mp_v)
{
	const struct fw_platform *fw = fw_v, *mp = mp_v;
	unsigned int pkg = cpuid_package_cpus();
	uint32_t bsp_id;
	int src;

	cpu_data[0].apic_id = lapic_ready() ? lapic_current_id() : 0;
	cpu_data[0].online_ns = tsc_ns();
	cpu_data[0].stack_lo = 0;
	__atomic_store_n(&cpu_data[0].online, true, __ATOMIC_RELEASE);
	bsp_id = cpu_data[0].apic_id;
	x86_set_system_vector(CALL_FUNCTION_VECTOR, call_function_interrupt, "ipi-call-function");
	x86_set_system_vector(RESCHEDULE_VECTOR, reschedule_interrupt, "ipi-wakeup");
	x86_set_system_vector(STOP_VECTOR, stop_interrupt, "ipi-stop");

	if (smp_param_nosmp || smp_param_maxcpus == 1) {
		cpu_source = smp_param_nosmp ? "none (nosmp)" : "none (maxcpus=1)";
		pr_info("smp: 1 CPU online (APIC ID %u); other CPUs not looked for: %s\n", bsp_id,
			smp_param_nosmp ? "nosmp" : "maxcpus=1");
		return 1;
	}
	if (!lapic_ready() || !tsc_ns()) {
		cpu_source = "none (no LAPIC or TSC)";
		pr_info("smp: 1 CPU online; starting others needs the local APIC and a calibrated TSC\n");
		return 1;
	}
	if (prepare_trampoline()) {
		cpu_source = "none (no trampoline page)";
		return 1;
	}
	smp_ap_slots = (smp_param_maxcpus ? smp_param_maxcpus : SMP_MAX_CPUS) - 1;
	src = choose_source(fw, mp, pkg);
	switch (src) {
	case SRC_MADT:
		cpu_source = "MADT";
		pr_info("smp: CPUs from the MADT (%s)\n", source_reason);
		start_listed(fw, bsp_id, "MADT");
		break;
	case SRC_MP:
		cpu_source = "MP table";
		pr_info("smp: CPUs from the MP table (%s)\n", source_reason);
		start_listed(mp, bsp_id, "MP table");
		break;
	default:
		cpu_source = "broadcast INIT-SIPI-SIPI";
		pr_info("smp: CPUs by broadcast INIT-SIPI-SIPI (%s)\n", source_reason);
		start_broadcast(pkg);
		break;
	}
	/* Close the trampoline: a late AP (a dead one waking after all) parks. */
	__atomic_store_n(&smp_ap_slots, 0, __ATOMIC_RELEASE);
	for (unsigned int c = 1; c < SMP_MAX_CPUS; c++)
		if (smp_cpu_online(c))
			pr_info("smp: CPU %u online, APIC ID %u, stack %#x-%#x (guard page %#x)\n", c,
				cpu_data[c].apic_id, (unsigned int)cpu_data[c].stack_lo,
				(unsigned int)cpu_data[c].stack_hi - 1, (unsigned int)cpu_data[c].guard);
	if (parked_cpus)
		pr_info("smp: %u more CPU%s answered and %s parked (%s)\n", parked_cpus,
			parked_cpus == 1 ? "" : "s", parked_cpus == 1 ? "was" : "were",
			smp_param_maxcpus ? "maxcpus=" : "SMP_MAX_CPUS");
	pr_info("smp: %u CPU%s online from the %s%s%s\n", nr_online, nr_online == 1 ? "" : "s", cpu_source,
		dead_cpus ? "; did not check in: " : "", dead_cpus ? (dead_cpus == 1 ? "1 CPU" : "several CPUs") : "");
	return nr_online;
}

/* ------------------------------------------------------------------------
 * The `cpus` shell command
 */

int smp_print_cpus(void)
{
	uint64_t now = tsc_ns();

	cprintf("%u CPU%s online (from the %s)\n", nr_online, nr_online == 1 ? "" : "s", cpu_source);
	/* ticks: CPU 0 runs the kernel's tick (jiffies, whichever device drives
	 * it: LAPIC timer, PIT or HPET); every other CPU its own LAPIC timer. */
	cprintf("CPU  APIC ID  online  ticks       interrupts  IPIs     idle\n");
	for (unsigned int c = 0; c < SMP_MAX_CPUS; c++) {
		const struct cpu_data *d = &cpu_data[c];
		uint64_t up, idle, since;
		unsigned int permille = 0;

		if (!smp_cpu_online(c))
			continue;
		up = now - d->online_ns;
		idle = d->idle_ns;
		since = d->idle_since;
		if (since && now > since)
			idle += now - since;   /* halted right now */
		if (up)
			permille = (unsigned int)(idle * 1000 / up);
		if (permille > 1000)
			permille = 1000;
		cprintf("%-4u %-8u %-7s %-11llu %-11llu %-8u %u.%u%%\n", c, d->apic_id, "yes",
			(unsigned long long)(c == 0 ? jiffies_read() : d->ticks), (unsigned long long)d->interrupts, d->ipis,
			permille / 10, permille % 10);
	}
	return 0;
}

int smp_print_irq_columns(void)
{
	cprintf("per CPU: vector  line/name         ");
	for (unsigned int c = 0; c < SMP_MAX_CPUS; c++)
		if (smp_cpu_online(c))
			cprintf(" %10s%-2u", "CPU", c);
	cprintf("\n");
	for (unsigned int v = X86_NR_EXCEPTIONS; v < X86_NR_VECTORS; v++) {
		const char *name = x86_system_vector_name(v);
		int irq = x86_vector_to_irq(v);
		bool any = false;

		for (unsigned int c = 0; c < SMP_MAX_CPUS; c++)
			any |= smp_cpu_online(c) && vector_counts[c][v];
		if (!any)
			continue;
		if (irq >= 0)
			cprintf("         0x%02x    irq %-13d ", v, irq);
		else
			cprintf("         0x%02x    %-17s ", v, name ? name : "-");
		for (unsigned int c = 0; c < SMP_MAX_CPUS; c++)
			if (smp_cpu_online(c))
				cprintf(" %12u", vector_counts[c][v]);
		cprintf("\n");
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Selftests (selftest=smp)
 */
#include <kernel/selftest.h>

/*
 * The selftests' waits are liveness limits, not judgements (issue 28): a
 * vCPU its host keeps off for a while only makes them longer; only a CPU
 * that never runs (never ticks) fails.
 */
enum {
	/* A call on another CPU (smp_call_function_single's timeout for the test only; the default
	 * SMP_CALL_TIMEOUT_MS stays what its other callers expect). */
	ST_CALL_WAIT_MS = 10000,
	/* The work's wait for the test's go (set at once after the second queue). */
	ST_GO_WAIT_MS = 10000,
	/* The work halts until its CPU's own timer ticked this many times ... */
	ST_TICKS = 2,
	/* ... or this long passed (then the tick check fails: the timer did not tick). */
	ST_TICKS_WAIT_MS = 10000,
	/* The test's wait for the work: above the work's own two limits together. */
	ST_WORK_WAIT_MS = ST_GO_WAIT_MS + ST_TICKS_WAIT_MS + 5000,
};

static volatile unsigned int st_ran_on;
static volatile uint32_t st_calls;

static void st_record_cpu(void *arg)
{
	(void)arg;
	st_ran_on = smp_processor_id();
	st_calls++;
}

SELFTEST(smp, call_function_runs_on_each_cpu_and_waits)
{
	for (unsigned int c = 1; c < SMP_MAX_CPUS; c++) {
		uint32_t before = st_calls;
		int err;

		if (!smp_cpu_online(c))
			continue;
		st_ran_on = ~0u;
		err = smp_call_function_single(c, st_record_cpu, NULL, ST_CALL_WAIT_MS);
		ST_EXPECT(t, err == 0, "call on CPU %u: %d", c, err);
		ST_EXPECT(t, st_ran_on == c && st_calls == before + 1, "ran on CPU %u (wanted %u), calls %u -> %u",
			  st_ran_on, c, before, st_calls);
	}
	ST_EXPECT(t, smp_call_function_single(SMP_MAX_CPUS, st_record_cpu, NULL, 0) == -ENODEV,
		  "a CPU that is not online was called");
}

/*
 * A work that needs interrupts: it halts until its CPU's own timer has
 * ticked twice. It first waits for @go, so that the test's second queue
 * of the same work finds it still running whatever the host does to the
 * queuing vCPU meanwhile (a vCPU kept off its host CPU for longer than two
 * ticks saw the work already done, beside two busy loops).
 */
struct st_work_result {
	unsigned int cpu;
	bool irqs_on;
	uint32_t go;        /* set by the test (release) once it has queued the work twice */
	uint64_t ticks_before, ticks_after;
};

static int st_wait_for_ticks(void *arg)
{
	struct st_work_result *r = arg;
	uint64_t go_end = tsc_ns() + ST_GO_WAIT_MS * NS_PER_MS;  /* bounded: the test sets it at once */
	uint64_t end;

	/* Acquire: pairs with the test's release store of go (nothing else is read through it). */
	while (!__atomic_load_n(&r->go, __ATOMIC_ACQUIRE) && tsc_ns() < go_end)
		cpu_relax();
	end = tsc_ns() + ST_TICKS_WAIT_MS * NS_PER_MS;   /* a liveness limit: a CPU that ticks ends it */
	r->cpu = smp_processor_id();
	r->irqs_on = (cpu_read_eflags() & X86_EFLAGS_IF) != 0;
	r->ticks_before = this_cpu()->ticks;
	while (this_cpu()->ticks < r->ticks_before + ST_TICKS && tsc_ns() < end) {
		cpu_cli();
		smp_idle_halt();   /* woken by its LAPIC timer: only with interrupts on in between */
		cpu_sti();
	}
	r->ticks_after = this_cpu()->ticks;
	return 7;
}

SELFTEST(smp, cpu_work_runs_in_thread_context_on_its_cpu)
{
	static struct cpu_work w;
	static struct st_work_result r;

	cpu_work_init(&w, st_wait_for_ticks, &r);
	ST_EXPECT(t, cpu_work_queue(0, &w) == -EINVAL, "work for CPU 0 (the shell's own) was not refused");
	ST_EXPECT(t, cpu_work_queue(SMP_MAX_CPUS, &w) == -ENODEV, "work for a CPU that does not exist was not refused");
	for (unsigned int c = 1; c < SMP_MAX_CPUS; c++) {
		int err;

		if (!smp_cpu_online(c))
			continue;
		memset(&r, 0, sizeof(r));
		cpu_work_init(&w, st_wait_for_ticks, &r);
		err = cpu_work_queue(c, &w);
		ST_EXPECT(t, err == 0, "queue on CPU %u: %d", c, err);
		if (err)
			continue;
		ST_EXPECT(t, cpu_work_queue(c, &w) == -EBUSY, "the same work queued twice on CPU %u", c);
		__atomic_store_n(&r.go, 1, __ATOMIC_RELEASE);   /* the work may run on (st_wait_for_ticks) */
		err = cpu_work_wait(&w, ST_WORK_WAIT_MS);
		ST_EXPECT(t, err == 0 && w.result == 7, "CPU %u: wait %d, result %d", c, err, w.result);
		ST_EXPECT(t, r.cpu == c && r.irqs_on, "ran on CPU %u (wanted %u), interrupts %s", r.cpu, c,
			  r.irqs_on ? "on" : "OFF");
		ST_EXPECT(t, r.ticks_after >= r.ticks_before + ST_TICKS,
			  "CPU %u's timer ticked %llu times in the %u ms the work halted at most", c,
			  (unsigned long long)(r.ticks_after - r.ticks_before), (unsigned int)ST_TICKS_WAIT_MS);
		ST_EXPECT(t, !cpu_work_busy(c), "CPU %u's slot still busy after the work was done", c);
	}
}

SELFTEST(smp, every_cpu_has_its_own_stack_gdt_and_number)
{
	ST_EXPECT(t, smp_processor_id() == 0 && this_cpu() == &cpu_data[0], "the shell runs on CPU %u",
		  smp_processor_id());
	for (unsigned int c = 1; c < SMP_MAX_CPUS; c++) {
		if (!smp_cpu_online(c))
			continue;
		ST_EXPECT(t, cpu_data[c].cpu == c && cpu_data[c].self == &cpu_data[c], "CPU %u's data", c);
		ST_EXPECT(t, cpu_data[c].guard && cpu_data[c].stack_lo == cpu_data[c].guard + PAGE_SIZE,
			  "CPU %u: guard %#x under stack %#x", c, (unsigned int)cpu_data[c].guard,
			  (unsigned int)cpu_data[c].stack_lo);
		for (unsigned int o = c + 1; o < SMP_MAX_CPUS; o++)
			if (smp_cpu_online(o))
				ST_EXPECT(t, cpu_data[o].apic_id != cpu_data[c].apic_id && cpu_data[o].stack_lo != cpu_data[c].stack_lo,
					  "CPUs %u and %u share an APIC ID or a stack", c, o);
	}
}
