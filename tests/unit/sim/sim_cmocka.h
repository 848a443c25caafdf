/*
 * sim_cmocka.h - what the cmocka tests of the defences share: per-case
 * setup/teardown around the simulator (sim.h), and running one scenario
 * once per profile (irqkit, tejun2010, mainline) as separately named cases,
 * "scenario/irqkit" and so on, each asserting that profile's own
 * documented behaviour read from the policy table (policy.h).
 * Include after <cmocka.h>.
 */
#ifndef IRQ_SIM_CMOCKA_H
#define IRQ_SIM_CMOCKA_H

#include <stdlib.h>

#include "sim.h"

/* The profile a case runs with: its state pointer points at one of these. */
static const enum irq_policy_id sim_profile_ids[IRQ_POLICY_COUNT] = {
	IRQ_POLICY_IRQKIT, IRQ_POLICY_TEJUN2010, IRQ_POLICY_MAINLINE,
};

/* The profile of the running case (irqkit for cases that are not per profile). */
static inline const struct irq_policy *sim_case_policy(void **state)
{
	const enum irq_policy_id *id = *state;

	return &irq_policies[id ? *id : IRQ_POLICY_IRQKIT];
}

/* Start the defences with the case's profile and @opt's switches (@opt may be NULL). */
static inline const struct irq_policy *sim_case_start(void **state, const struct sim_options *opt)
{
	struct sim_options o = opt ? *opt : (struct sim_options){ 0 };
	const struct irq_policy *p = sim_case_policy(state);

	o.policy = p->name;
	assert_int_equal(sim_start(&o), 0);
	return p;
}

static inline int sim_case_setup(void **state)
{
	(void)state;
	sim_reset();
	return 0;
}

static inline int sim_case_teardown(void **state)
{
	(void)state;
	if (sim_chip_errors())
		fail_msg("SIM chip: %u broken rule(s), first: %s", sim_chip_errors(), sim_chip_first_error());
	assert_int_equal(irq_host_locks_held(), 0);
	assert_false(irq_host_irqs_disabled());
	return 0;
}

/* One case per profile: "name/irqkit", "name/tejun2010", "name/mainline". */
#define SIM_CASE_PROFILE(fn, id, prof) \
	{ #fn "/" prof, fn, sim_case_setup, sim_case_teardown, (void *)&sim_profile_ids[id] }
#define SIM_CASES_PER_PROFILE(fn) \
	SIM_CASE_PROFILE(fn, IRQ_POLICY_IRQKIT, "irqkit"), \
	SIM_CASE_PROFILE(fn, IRQ_POLICY_TEJUN2010, "tejun2010"), \
	SIM_CASE_PROFILE(fn, IRQ_POLICY_MAINLINE, "mainline")
/* One case per profile that has IRQ expecting (mainline has none: nothing to run there). */
#define SIM_CASES_PER_EXPECTING_PROFILE(fn) \
	SIM_CASE_PROFILE(fn, IRQ_POLICY_IRQKIT, "irqkit"), \
	SIM_CASE_PROFILE(fn, IRQ_POLICY_TEJUN2010, "tejun2010")
/* A case that runs with the irqkit profile only. */
#define SIM_CASE(fn) { #fn, fn, sim_case_setup, sim_case_teardown, NULL }

/*
 * Cases that need a part of kernel/irq a reduced build leaves out
 * (irq_config.h's switches; tests/unit/irq_builds.mk builds the test files
 * once per reduced build): in such a build the case is not built into the
 * binary, rather than skipped at run time. Write NEEDS_X(case entries)
 * without a comma after it; it adds one when the part is built.
 * SIM_NEEDS_TEXT: the case reads the sentences of the health reports
 * (IRQ_HEALTH_TEXT); SIM_NEEDS_TICK: the tick's look (IRQ_TICK_LOOK);
 * SIM_NEEDS_FLOOD, SIM_NEEDS_STORM, SIM_NEEDS_WATCH: that defence.
 */
#if IRQ_HEALTH_TEXT
#define SIM_NEEDS_TEXT(...) __VA_ARGS__,
#else
#define SIM_NEEDS_TEXT(...)
#endif
#if IRQ_TICK_LOOK
#define SIM_NEEDS_TICK(...) __VA_ARGS__,
#else
#define SIM_NEEDS_TICK(...)
#endif
#if IRQ_FLOOD
#define SIM_NEEDS_FLOOD(...) __VA_ARGS__,
#else
#define SIM_NEEDS_FLOOD(...)
#endif
#if IRQ_STORM
#define SIM_NEEDS_STORM(...) __VA_ARGS__,
#else
#define SIM_NEEDS_STORM(...)
#endif

/*
 * SIM_TICK_FIELD(desc, field) - a field of the tick's look in the line's
 * defence state (tick_looks, tick_polls, tick_stall_waits): the descriptor
 * has them only where the tick's look is built (internals.h), so a case
 * body compiled into every build reads them through this; 0 elsewhere,
 * where no case that judges them is built (SIM_NEEDS_TICK) or the case
 * judges them only when the tick is on.
 */
#if IRQ_TICK_LOOK
#define SIM_TICK_FIELD(desc, field) ((desc)->def.field)
#else
#define SIM_TICK_FIELD(desc, field) ((void)(desc), (uint64_t)0)
#endif
#if IRQ_WATCH
#define SIM_NEEDS_WATCH(...) __VA_ARGS__,
#else
#define SIM_NEEDS_WATCH(...)
#endif
#if !IRQ_HEALTH_TEXT || !IRQ_TICK_LOOK || !IRQ_FLOOD || !IRQ_STORM || !IRQ_WATCH
/* The functions of the cases left out are defined and not used. */
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

/* Run only the cases matching $IRQ_TEST_FILTER (a cmocka glob), when set. */
static inline void sim_filter_from_env(void)
{
	const char *pattern = getenv("IRQ_TEST_FILTER");

	if (pattern && *pattern)
		cmocka_set_test_filter(pattern);
}

#endif /* IRQ_SIM_CMOCKA_H */
