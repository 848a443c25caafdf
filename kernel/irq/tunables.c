/*
 * tunables.c - the profiles of kernel/irq's defences (the table in
 * policy.h, one column each), the switches' state (which profile is in
 * force, noirqdebug, irqfixup, irqpoll, started: policy.h's inline
 * functions read it everywhere), the lookup of a profile by name, and the
 * warning of a defence called before irq_defences_start(). Data and
 * lookups only; the boot switches that set them are policy.c's.
 *
 * Layer 0, the base: may use only the port and the public headers (docs/irq-layers.md).
 */
#include "internals.h"
#include "policy_table.h"

/* Instantiate each column of IRQ_POLICY_TUNABLES as one profile. */
#ifndef IRQ_POLICY_COL_IRQKIT
#define IRQ_POLICY_COL_IRQKIT(field, irqkit, tejun2010, mainline, what) .field = (irqkit),
#endif
#define IRQ_POLICY_COL_TEJUN(field, irqkit, tejun2010, mainline, what) .field = (tejun2010),
#define IRQ_POLICY_COL_MAINLINE(field, irqkit, tejun2010, mainline, what) .field = (mainline),
#define IRQ_POLICY_ROW(field, irqkit, tejun2010, mainline, what) \
	{ #field, what, offsetof(struct irq_policy, field) },

#if !IRQ_MINIMAL
const struct irq_policy irq_policies[IRQ_POLICY_COUNT] = {
	[IRQ_POLICY_IRQKIT] = { .name = "irqkit", IRQ_POLICY_TUNABLES(IRQ_POLICY_COL_IRQKIT) },
	[IRQ_POLICY_TEJUN2010] = { .name = "tejun2010", IRQ_POLICY_TUNABLES(IRQ_POLICY_COL_TEJUN) },
	[IRQ_POLICY_MAINLINE] = { .name = "mainline", IRQ_POLICY_TUNABLES(IRQ_POLICY_COL_MAINLINE) },
};

/* The table with its descriptions, for printing (bench, shell); the minimal build leaves the text out. */
const struct irq_policy_row irq_policy_rows[] = { IRQ_POLICY_TUNABLES(IRQ_POLICY_ROW) };
const size_t irq_policy_rows_count = sizeof(irq_policy_rows) / sizeof(irq_policy_rows[0]);

/* The switches: set by the boot parameters, read everywhere (policy.h's inline functions). */
struct irq_switches __irq_switches = { .policy = &irq_policies[IRQ_POLICY_IRQKIT] };

const struct irq_policy *irq_policy_by_name(const char *name)
{
	unsigned int i;

	if (!name)
		return NULL;
	for (i = 0; i < IRQ_POLICY_COUNT; i++)
		if (irq_str_equal(name, irq_policies[i].name))
			return &irq_policies[i];
	return NULL;
}
#else
/* The minimal build: one profile, a constant of policy_table.h (irq_policy() folds it); no table. */
struct irq_switches __irq_switches;
#endif

/* Calls of init_irq_expect/watch_irq before irq_defences_start() (rate-limits the warning). */
uint32_t irq_defences_unstarted_calls;

bool irq_defences_unstarted(unsigned int irq, const char *caller)
{
	uint32_t n;

	if (__atomic_load_n(&__irq_switches.started, __ATOMIC_ACQUIRE))
		return false;
	/*
	 * Loud, not INFO: a port that leaves the start out gets no token, and a
	 * broken line then hangs its driver with nothing else said (issue 21:
	 * the xv6 port's first boot). Not started by default, because the
	 * defences arm timers: only the host knows when its clock and timers
	 * run, and the boot switches (noirqdebug, irqpoll) must be set first.
	 */
	n = __atomic_add_fetch(&irq_defences_unstarted_calls, 1, __ATOMIC_RELAXED);
	if (irq_report_due(n))
		irq_port_log(IRQ_LOG_WARN, "irq %u: %s: the defences were never started, so this line is not "
			     "defended (a lost interrupt hangs its driver): call irq_defences_start() once the "
			     "clock and timers run, before interrupts are enabled (docs/porting.md, First boot)\n",
			     irq, caller);
	return true;
}
