/*
 * policy.c - the boot switches noirqdebug, irqfixup, irqpoll and
 * irqpolicy= with the meanings Linux gives them
 * (Documentation/admin-guide/kernel-parameters.txt), and the start of the
 * defences. The profiles themselves and the switches' state are
 * tunables.c's. See spurious.c for what the defences do.
 *
 * The assembly also gives the layers below what they call up through:
 * the dispatch core its hooks (struct irq_core_hooks), the scheduler its
 * table of the defences the build has (struct irq_defence), the tick's
 * look what it asks of expecting (struct irq_tick_hooks).
 *
 * Layer 5, the assembly: may use every layer (docs/irq-layers.md).
 */
#include "expect.h"
#include "irq_codes.h"
#include "irq_sched.h"
#include "stall.h"

/*
 * irq_core_init (irqchip.h) lives here, in the assembly, because it resets
 * the defences too: the dispatch core's part (__irq_descs_init, irqdesc.c)
 * names none of them, so the core does not call up into the layers above.
 */
static const struct irq_core_hooks irq_core_hooks_built = {
	.poll_timer_fn = irq_poll_timer_fn,
	.action_added = __irq_defences_action_added,
	.action_removed = __irq_defences_action_removed,
	.poll_claims_done = __irq_expect_poll_done,
};

/* What the tick's look asks of expecting (tick_look.c, irq_sched.h); none without the tick's look. */
#if IRQ_TICK_LOOK
static const struct irq_tick_hooks irq_tick_hooks_built = {
	.look = __irq_expect_tick_look,
	.keeps = __irq_expect_tick_keeps,
};
#define IRQ_TICK_HOOKS_BUILT (&irq_tick_hooks_built)
#else
#define IRQ_TICK_HOOKS_BUILT NULL
#endif

/*
 * The defences the build has (irq_config.h's switches), as the poll
 * scheduler walks them (struct irq_defence, irq_sched.h): the flood defence
 * first, so that a line it re-enables at a timer's expiry is on before
 * expecting looks at its tokens; expecting's tokens die before watching
 * stops when an action leaves. Read-only: nothing here is per line.
 */
static const struct irq_defence *const irq_defences_built_table[] = {
#if IRQ_FLOOD || IRQ_STORM
	&irq_defence_flood,
#endif
#if IRQ_EXPECT
	&irq_defence_expect,
#endif
#if IRQ_WATCH
	&irq_defence_watch,
#endif
	NULL,
};

void irq_core_init(void)
{
	__irq_descs_init(&irq_core_hooks_built);
	__irq_sched_init(irq_defences_built_table);
	/* The defences start later, with irq_defences_start (policy.h). */
	irq_defences_core_init();
	irq_expect_pool_init();
	irq_port_log(IRQ_LOG_INFO, "irq: core ready: %u lines, %u pooled actions, up to %u handlers per line\n",
		     (unsigned int)IRQ_NR_LINES, (unsigned int)IRQ_NR_ACTIONS, (unsigned int)IRQ_MAX_SHARED);
}

/* Longest switch value looked at; longer ones are refused. */
#define IRQ_SWITCH_VALUE_MAX 8

/* Parse a switch value: NULL (bare flag) is on. RETURNS 0 or -EINVAL. */
static int irq_parse_switch(const char *v, bool *on)
{
	static const char *const yes[] = { "1", "on", "yes", "y" };
	static const char *const no[] = { "0", "off", "no", "n" };
	unsigned int i;

	if (!v) {
		*on = true;
		return 0;
	}
	for (i = 0; i < IRQ_SWITCH_VALUE_MAX && v[i]; i++)
		;
	if (i == IRQ_SWITCH_VALUE_MAX)
		return -IRQ_EINVAL;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (irq_str_equal(v, yes[i])) {
			*on = true;
			return 0;
		}
		if (irq_str_equal(v, no[i])) {
			*on = false;
			return 0;
		}
	}
	return -IRQ_EINVAL;
}

/* Set one boot-time switch; one left out of the build (@built false) takes "off" only. */
static int irq_set_switch(bool *sw, const char *name, const char *v, const char *meaning, bool built)
{
	bool on;
	int err = irq_parse_switch(v, &on);

	if (err) {
		IRQ_SAY0(IRQ_E_SWITCH_VALUE, IRQ_LOG_ERR, "irq: %s=%.8s: not 0/1/on/off/yes/no\n", name, v);
		return err;
	}
	if (!built) {
		if (!on)
			return 0;  /* off is what it is */
		IRQ_SAY0(IRQ_E_SWITCH_NOT_BUILT, IRQ_LOG_ERR, "irq: %s: not in this build (IRQ_FIXUP 0)\n", name);
		return -IRQ_ENODEV;
	}
	if (__atomic_load_n(&__irq_switches.started, __ATOMIC_ACQUIRE)) {
		IRQ_SAY0(IRQ_E_SWITCH_LATE, IRQ_LOG_ERR, "irq: %s is a boot parameter: the defences run already\n", name);
		return -IRQ_EBUSY;
	}
	__atomic_store_n(sw, on, __ATOMIC_RELEASE);
	if (IRQ_HEALTH_TEXT)
		irq_port_log(IRQ_LOG_INFO, "irq: %s %s: %s\n", name, on ? "on" : "off", meaning);
	else
		irq_port_log(IRQ_LOG_INFO, "irq: %s %s\n", name, on ? "on" : "off");  /* terse: no meaning */
	return 0;
}

int irq_param_noirqdebug(const char *v, void *arg)
{
	(void)arg;
	return irq_set_switch(&__irq_switches.noirqdebug, "noirqdebug", v,
			      IRQ_TEXT("no IRQ expecting, watching or flood defence"), true);
}

int irq_param_irqfixup(const char *v, void *arg)
{
	(void)arg;
	return irq_set_switch(&__irq_switches.irqfixup, "irqfixup", v,
			      IRQ_TEXT("unclaimed interrupts also try the handlers of other shared lines"), IRQ_FIXUP);
}

int irq_param_irqpoll(const char *v, void *arg)
{
	(void)arg;
	return irq_set_switch(&__irq_switches.irqpoll, "irqpoll", v,
			      IRQ_TEXT("irqfixup, and every shared line is polled by its own timer; slows the system"), IRQ_FIXUP);
}

int irq_param_policy(const char *v, void *arg)
{
#if IRQ_MINIMAL
	/* One profile, a constant (policy_table.h): irqpolicy=irqkit is all there is to accept. */
	const struct irq_policy *p = v && irq_str_equal(v, irq_policy()->name) ? irq_policy() : NULL;
#else
	const struct irq_policy *p = irq_policy_by_name(v);
#endif

	(void)arg;
	if (!p) {
		IRQ_SAY0(IRQ_E_POLICY_UNKNOWN, IRQ_LOG_ERR, "irq: irqpolicy=%.16s: unknown; %s\n", v ? v : "",
			 IRQ_MINIMAL ? "this minimal build has irqkit only" : "use irqkit, tejun2010 or mainline");
		return -IRQ_EINVAL;
	}
#if !IRQ_MINIMAL
	__atomic_store_n(&__irq_switches.policy, p, __ATOMIC_RELEASE);
#endif
	__atomic_add_fetch(&__irq_switches.gen, 1, __ATOMIC_SEQ_CST);  /* every line's next poll time may move */
	irq_port_log(IRQ_LOG_INFO, "irq: defence profile %s\n", p->name);
	return 0;
}

void irq_defences_core_init(void)
{
	__atomic_store_n(&__irq_switches.started, false, __ATOMIC_RELEASE);
	__atomic_store_n(&irq_defences_unstarted_calls, 0, __ATOMIC_RELAXED);
	__irq_tick_reset(IRQ_TICK_HOOKS_BUILT);
	__irq_stall_tick(0);  /* no tick until the host says so (irq_tick_start) */
	__atomic_add_fetch(&__irq_switches.gen, 1, __ATOMIC_SEQ_CST);
}

void irq_defences_start(void)
{
	const struct irq_policy *p = irq_policy();
	uint64_t now = irq_port_now_ns();
	unsigned int irq;

	__atomic_store_n(&__irq_switches.started, true, __ATOMIC_RELEASE);
	__atomic_add_fetch(&__irq_switches.gen, 1, __ATOMIC_SEQ_CST);
	if (!irq_defences_active()) {
		irq_port_log(IRQ_LOG_WARN, "irq: defences off (noirqdebug): lost and flooding interrupts go unnoticed%s\n",
			     __irq_switches.irqfixup || __irq_switches.irqpoll ? "; irqfixup/irqpoll ignored" : "");
		return;
	}
	irq_port_log(IRQ_LOG_INFO, "irq: defences on, profile %s: expecting %s, watching %s, flood polling; irqfixup %s, irqpoll %s\n",
		     p->name, p->expect_on ? "on" : "off", p->watch_on ? "on" : "off",
		     irq_fixup_enabled() ? "on" : "off", irq_poll_all_enabled() ? "on" : "off");
	if (!irq_poll_all_enabled())
		return;
	for (irq = 0; irq < IRQ_NR_LINES; irq++) {
		struct irq_desc *desc = &irq_descs[irq];
		unsigned long flags = irq_port_lock_irqsave(&desc->lock);

		__irq_poll_reschedule(desc, now);
		irq_port_unlock_irqrestore(&desc->lock, flags);
	}
}
