/*
 * lapic_flood.c - the fault `spurious-flood:LINE[/HZ]`: a flood of spurious
 * edges on an otherwise healthy line, delivered for real. An hrtimer (on
 * CPU 0, like every timer) sends an IPI (local APIC interrupt command
 * register, fixed delivery, physical destination; Intel SDM vol. 3A section
 * 11.6.1) on the vector of kernel/irq line LINE (IOAPIC_VECTOR_BASE + GSI)
 * HZ times a second, to the CPU the line's IOAPIC entry names: the first
 * online CPU of its affinity mask, looked up for every IPI, so the flood
 * follows the line when `affinity` moves it (a self-IPI when that is CPU 0).
 * A line on CPU 1 floods CPU 1 while CPU 0 runs the shell and the polls. To the CPU each IPI is indistinguishable from an edge the IOAPIC
 * delivered on that pin: it runs the line's flow handler and its drivers'
 * handlers, which find their device with nothing to say and return
 * IRQ_NONE. That is what kernel/irq's flood defence (spurious.c) is for.
 *
 * The IPIs do not pass through the IOAPIC, so masking the pin (what the
 * defence does to a flooding line) does not stop them reaching the CPU:
 * the defence contains them by no longer running the handlers (the flow
 * handler sees the line disabled and only notes the edge), and the
 * interrupt entries themselves keep costing what HZ of them cost. That
 * makes this fault the model of an edge flood from a device, not of a
 * level line stuck asserted (see e1000-storm in drivers/net/e1000_storm.c).
 *
 * PIC mode is refused: the 8259 delivers through LINT0 ExtINT, and the
 * kernel ends an 8259 interrupt with an EOI to the 8259; an IPI on an 8259
 * vector would have its "end" clear the in-service bit of whatever real
 * interrupt the 8259 has in service instead - a different fault. See also
 * lapic.c (the driver whose registers this writes) and docs/storms.md.
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/smp.h>
#include <asm/x86_irq.h>
#include <irq/irqchip.h>
#include <irq/stats.h>
#include <kernel/cmdline.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <time/time.h>

/* Interrupt command register bits used here (SDM 3A figure 11-12). */
#define FLOOD_ICR_DM_FIXED      0x00000000u  /* bits 10:8 = 000: fixed delivery of the vector */
#define FLOOD_ICR_LEVEL_ASSERT  0x00004000u  /* bit 14: assert (required for fixed delivery) */
#define FLOOD_ICR_SHORTHAND_SELF 0x00040000u /* bits 19:18 = 01: to this CPU only */
#define FLOOD_ICR_DEST_SHIFT    24           /* ICR high bits 31:24: the physical destination APIC ID */
#define FLOOD_ICR_SEND_PENDING  0x00001000u  /* bit 12: the previous IPI is not yet accepted */

/* The fault's tunables. */
enum lapic_flood_tunables {
	/* IPIs a second without /HZ: 20,000 is the rate from which the flood defence promises
	 * containment within 10 ms (and 200 interrupts at any rate; docs/defences.md), and TCG
	 * still runs the shell beside it. */
	FLOOD_DEFAULT_HZ = 20000,
	/* Slowest flood: below this it is no flood, just a stray interrupt now and then. */
	FLOOD_MIN_HZ = 100,
	/* Fastest: one IPI per 10 us; more would leave TCG no time for anything but the flood. */
	FLOOD_MAX_HZ = 100000,
	/* Longest line number accepted in the argument ("14/20000"). */
	FLOOD_ARG_MAX = 24,
};

#define FLOOD_NS_PER_S 1000000000ull

static struct {
	bool on;
	unsigned int line;
	unsigned int vector;
	uint64_t period_ns;
	uint64_t next_ns;       /* absolute time of the next IPI */
	uint64_t started_ns;
	uint64_t sent;          /* IPIs written to the ICR */
	uint64_t busy;          /* periods skipped because the previous IPI was still pending */
	uint64_t late;          /* periods skipped because the timer ran late (no catch-up bursts) */
	uint64_t per_cpu[SMP_MAX_CPUS]; /* IPIs sent to each CPU */
	struct hrtimer timer;
} flood;

/* The CPU the line's interrupts go to: the first online CPU of its mask (ioapic_set_affinity's rule). */
static unsigned int flood_target_cpu(void)
{
	irq_cpumask_t mask = irq_get_affinity(flood.line);

	for (unsigned int cpu = 0; cpu < SMP_MAX_CPUS; cpu++)
		if ((mask & ((irq_cpumask_t)1 << cpu)) && smp_cpu_online(cpu))
			return cpu;
	return 0;
}

static void flood_tick(struct hrtimer *t)
{
	uint64_t now;

	if (!flood.on)
		return;
	if (lapic_read(LAPIC_REG_ICR_LOW) & FLOOD_ICR_SEND_PENDING) {
		flood.busy++;
	} else {
		unsigned int cpu = flood_target_cpu();

		if (cpu == smp_processor_id()) {
			lapic_write(LAPIC_REG_ICR_HIGH, 0);
			lapic_write(LAPIC_REG_ICR_LOW, FLOOD_ICR_SHORTHAND_SELF | FLOOD_ICR_LEVEL_ASSERT |
						       FLOOD_ICR_DM_FIXED | flood.vector);
		} else {
			lapic_write(LAPIC_REG_ICR_HIGH, cpu_data[cpu].apic_id << FLOOD_ICR_DEST_SHIFT);
			lapic_write(LAPIC_REG_ICR_LOW, FLOOD_ICR_LEVEL_ASSERT | FLOOD_ICR_DM_FIXED | flood.vector);
		}
		flood.per_cpu[cpu]++;
		flood.sent++;
	}
	now = ktime_get_ns();
	flood.next_ns += flood.period_ns;
	if (flood.next_ns <= now) {
		/* Behind (the CPU was busy): skip the missed periods instead of sending them in a burst. */
		flood.late += (now - flood.next_ns) / flood.period_ns + 1;
		flood.next_ns = now + flood.period_ns;
	}
	hrtimer_start(t, flood.next_ns);
}

/* parse_arg - "LINE" or "LINE/HZ" into @line and @hz. RETURNS 0 or -EINVAL. */
static int parse_arg(const char *arg, unsigned long *line, unsigned long *hz)
{
	char buf[FLOOD_ARG_MAX];
	char *slash;

	*hz = FLOOD_DEFAULT_HZ;
	if (!arg || strlen(arg) >= sizeof(buf)) {
		pr_warn("spurious-flood: give the line: spurious-flood:LINE[/HZ], e.g. spurious-flood:14\n");
		return -EINVAL;
	}
	strlcpy(buf, arg, sizeof(buf));
	slash = strchr(buf, '/');
	if (slash) {
		*slash = 0;
		if (cmdline_parse_uint(slash + 1, FLOOD_MIN_HZ, FLOOD_MAX_HZ, hz)) {
			pr_warn("spurious-flood: HZ must be %u-%u\n", FLOOD_MIN_HZ, FLOOD_MAX_HZ);
			return -EINVAL;
		}
	}
	return cmdline_parse_uint(buf, 0, UINT32_MAX, line);
}

static int flood_on(const char *arg)
{
	unsigned long line, hz, flags;
	struct irq_line_stats s;
	int vector, err;

	if (flood.on) {
		pr_warn("spurious-flood: already flooding line %u; `inject off spurious-flood` first\n", flood.line);
		return -EBUSY;
	}
	if (x86_irq_mode() != X86_IRQ_MODE_IOAPIC || !lapic_ready()) {
		pr_warn("spurious-flood: needs IOAPIC mode with the local APIC: in PIC mode (noapic) there is "
			"no self-IPI path that looks like an 8259 interrupt (its EOI goes to the 8259)\n");
		return -EPERM;
	}
	err = parse_arg(arg, &line, &hz);
	if (err)
		return err;
	vector = x86_irq_to_vector((unsigned int)line);
	if (irq_get_line_stats((unsigned int)line, &s) != 0 || vector < IOAPIC_VECTOR_BASE) {
		pr_warn("spurious-flood: line %lu has no IOAPIC vector\n", line);
		return -EINVAL;
	}
	flood.line = (unsigned int)line;
	flood.vector = (unsigned int)vector;
	flood.period_ns = FLOOD_NS_PER_S / hz;
	flood.sent = flood.busy = flood.late = 0;
	memset(flood.per_cpu, 0, sizeof(flood.per_cpu));
	hrtimer_setup(&flood.timer, flood_tick, NULL);
	flags = irq_save_flags();
	flood.on = true;
	flood.started_ns = ktime_get_ns();
	flood.next_ns = flood.started_ns + flood.period_ns;
	err = hrtimer_start(&flood.timer, flood.next_ns);
	if (err)
		flood.on = false;
	irq_restore_flags(flags);
	if (err)
		return err;
	pr_info("spurious-flood: IPIs on vector %#04x (line %u, %u handler(s): %s) at %lu/s to the line's CPU (now CPU %u)\n",
		flood.vector, flood.line, s.nr_actions, s.nr_actions ? "each finds nothing to do" : "none",
		hz, flood_target_cpu());
	return 0;
}

static int flood_off(void)
{
	unsigned long flags;
	uint64_t ms;

	if (!flood.on)
		return 0;
	flags = irq_save_flags();
	flood.on = false;
	hrtimer_cancel(&flood.timer);
	irq_restore_flags(flags);
	ms = (ktime_get_ns() - flood.started_ns) / 1000000u;
	pr_info("spurious-flood: stopped on line %u after %llu ms: %llu IPIs sent, %llu skipped (previous "
		"still pending), %llu periods missed (timer late)\n", flood.line, (unsigned long long)ms,
		(unsigned long long)flood.sent, (unsigned long long)flood.busy, (unsigned long long)flood.late);
	for (unsigned int cpu = 0; cpu < SMP_MAX_CPUS; cpu++)
		if (flood.per_cpu[cpu])
			pr_info("spurious-flood: %llu IPIs to CPU %u\n", (unsigned long long)flood.per_cpu[cpu], cpu);
	return 0;
}

FAULT(spurious_flood, "spurious-flood", "LINE[/HZ]",
      "IPIs on LINE's vector to the line's CPU HZ times a second (default 20000): spurious edges (IOAPIC mode)",
      flood_on, flood_off);
