/*
 * irq_affinity.c - which CPU takes which line, for people: the
 * `irqaffinity=` boot parameter and the `affinity` shell command, both on
 * top of kernel/irq's irq_set_affinity() (kernel/irq/irqdesc.c), which the
 * IOAPIC chip implements in physical destination mode (ioapic.c says why).
 *
 * `affinity IRQ CPU[,CPU...] every MS` moves a line round the listed CPUs
 * every MS milliseconds from an hrtimer (on CPU 0, docs/time.md), so a test
 * can move a line while it fires - disk traffic on it - and check on the
 * host that nothing was lost or doubled. docs/smp.md, "Affinity".
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/smp.h>
#include <irq/interrupt.h>
#include <irq/irqchip.h>
#include <irq/stats.h>
#include <kernel/cmdline.h>
#include <kernel/errno.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <time/hrtimer.h>
#include <time/time.h>

#define NS_PER_MS 1000000ull

/* Tunables of the rotating mover. */
enum affinity_tunables {
	AFFINITY_EVERY_MIN_MS = 1,      /* fastest rotation: a move per tick at 1000 Hz */
	AFFINITY_EVERY_MAX_MS = 60000,  /* slowest worth a timer */
};

static irq_cpumask_t param_mask;   /* irqaffinity=; 0: not given */

/* The line being moved round its CPUs, one at a time. */
static struct {
	struct hrtimer timer;
	unsigned int irq;
	irq_cpumask_t cpus;      /* the CPUs to visit */
	unsigned int next_cpu;   /* the next one */
	uint64_t period_ns;
	volatile uint32_t moves; /* moves made */
	volatile uint32_t failed;
	uint64_t move_ns;        /* time spent in irq_set_affinity() for the moves made (bench-smp's cost of a move) */
	bool active;
} rotor;

/* "0,2,3" -> mask; RETURNS 0 or -EINVAL (empty, bad number, CPU past SMP_MAX_CPUS). */
static int parse_cpu_list(const char *s, irq_cpumask_t *mask)
{
	char num[8];
	irq_cpumask_t m = 0;

	while (*s) {
		size_t n = 0;
		unsigned long cpu;

		while (s[n] && s[n] != ',')
			n++;
		if (n == 0 || n >= sizeof(num))
			return -EINVAL;
		memcpy(num, s, n);
		num[n] = 0;
		if (cmdline_parse_uint(num, 0, SMP_MAX_CPUS - 1, &cpu))
			return -EINVAL;
		m |= 1u << cpu;
		s += n;
		if (*s == ',')
			s++;
	}
	if (!m)
		return -EINVAL;
	*mask = m;
	return 0;
}

int irq_affinity_param(const char *value, void *arg)
{
	(void)arg;
	return parse_cpu_list(value, &param_mask);
}

/* The tick's own line stays on CPU 0 (docs/time.md): the PIT's "timer", the HPET's "hpet". */
static bool line_is_the_tick(unsigned int irq)
{
	struct irq_action_stats a;

	for (unsigned int i = 0; irq_get_action_stats(irq, i, &a) == 0; i++)
		if (a.name && (strcmp(a.name, "timer") == 0 || strcmp(a.name, "hpet") == 0))
			return true;
	return false;
}

void irq_affinity_apply_boot(void)
{
	struct irq_line_stats s;
	unsigned int moved = 0, refused = 0;

	if (!param_mask)
		return;
	for (unsigned int irq = 0; irq_get_line_stats(irq, &s) == 0; irq++) {
		if (!s.nr_actions || line_is_the_tick(irq))
			continue;
		if (irq_set_affinity(irq, param_mask) == 0)
			moved++;
		else
			refused++;
	}
	pr_info("irqaffinity: mask %#x on %u device line%s (%u refused: no CPU of the mask online, or a chip "
		"that cannot move lines); the tick's line stays on CPU 0\n", param_mask, moved, moved == 1 ? "" : "s",
		refused);
}

static void rotor_step(struct hrtimer *t)
{
	unsigned int cpu = rotor.next_cpu;

	(void)t;
	for (unsigned int i = 0; i < SMP_MAX_CPUS; i++, cpu = (cpu + 1) % SMP_MAX_CPUS) {
		if (!(rotor.cpus & (1u << cpu)) || !smp_cpu_online(cpu))
			continue;
		uint64_t t0 = ktime_get_ns();

		if (irq_set_affinity(rotor.irq, 1u << cpu) == 0) {
			rotor.moves++;
			rotor.move_ns += ktime_get_ns() - t0;
		} else {
			rotor.failed++;
		}
		cpu = (cpu + 1) % SMP_MAX_CPUS;
		break;
	}
	rotor.next_cpu = cpu;
	if (rotor.active)
		hrtimer_start(&rotor.timer, ktime_get_ns() + rotor.period_ns);
}

static void rotor_stop(void)
{
	if (!rotor.active)
		return;
	rotor.active = false;
	hrtimer_cancel(&rotor.timer);
	cprintf("affinity: irq %u stopped moving after %u moves (%u refused), %llu ns per move\n", rotor.irq, rotor.moves,
		rotor.failed, (unsigned long long)(rotor.moves ? rotor.move_ns / rotor.moves : 0));
}

static void print_affinity(unsigned int irq)
{
	cprintf("irq %u: CPUs %#x%s\n", irq, irq_get_affinity(irq),
		rotor.active && rotor.irq == irq ? " (moving round them)" : "");
}

/* affinity                             list the lines with handlers and their CPU masks
 * affinity IRQ CPU[,CPU...]            deliver IRQ to (the first online of) these CPUs
 * affinity IRQ CPU[,CPU...] every MS   move IRQ round them every MS ms (until set again) */
int irq_affinity_cmd(int argc, char **argv)
{
	struct irq_line_stats s;
	unsigned long irq, ms;
	irq_cpumask_t mask;
	int err;

	if (argc == 1) {
		for (unsigned int i = 0; irq_get_line_stats(i, &s) == 0; i++)
			if (s.nr_actions)
				print_affinity(i);
		if (rotor.active)
			cprintf("irq %u: %u moves so far, every %llu ms\n", rotor.irq, rotor.moves,
				(unsigned long long)(rotor.period_ns / NS_PER_MS));
		return 0;
	}
	if ((argc != 3 && argc != 5) || cmdline_parse_uint(argv[1], 0, 0xFFFF, &irq) ||
	    parse_cpu_list(argv[2], &mask))
		return -EINVAL;
	if (argc == 5 && (strcmp(argv[3], "every") != 0 ||
			  cmdline_parse_uint(argv[4], AFFINITY_EVERY_MIN_MS, AFFINITY_EVERY_MAX_MS, &ms)))
		return -EINVAL;
	rotor_stop();
	if (argc == 5) {
		rotor.irq = (unsigned int)irq;
		rotor.cpus = mask;
		rotor.next_cpu = 0;
		rotor.period_ns = ms * NS_PER_MS;
		rotor.moves = rotor.failed = 0;
		rotor.move_ns = 0;
		rotor.active = true;
		hrtimer_setup(&rotor.timer, rotor_step, NULL);
		hrtimer_start(&rotor.timer, ktime_get_ns() + rotor.period_ns);
		cprintf("affinity: irq %u moves round CPUs %#x every %lu ms\n", (unsigned int)irq, mask, ms);
		return 0;
	}
	err = irq_set_affinity((unsigned int)irq, mask);
	if (err) {
		cprintf("affinity: irq %u: %s\n", (unsigned int)irq,
			err == -ENODEV ? "its chip cannot move it (or it has none)" : "no CPU of that mask can take it");
		return err;
	}
	print_affinity((unsigned int)irq);
	return 0;
}
