/*
 * test_irq_port.c - host unit tests of the host port itself
 * (tests/host/irq_port_host.c), which every other kernel/irq test relies
 * on: the virtual clock and one-shot timers keep the guarantees that
 * kernel/irq/port.h promises, the simulated interrupt state follows the
 * locks, and broken lock usage stops the program (checked in a child
 * process, which must die of SIGABRT).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <irq/port.h>
#include <irq_port_host.h>

/* Fire times recorded by the timer callbacks. */
#define FIRES_MAX 32

struct probe {
	const char *name;
	unsigned int fired;
	uint64_t at_ns[FIRES_MAX];
	bool irqs_off_inside;   /* interrupts were disabled in the callback */
	bool in_interrupt;      /* the callback ran in (simulated) timer context */
	uint64_t period_ns;     /* re-arm itself this much later; 0 = one shot */
	struct irq_port_timer *self;
};

static char order[64];
static size_t order_len;

static void probe_fn(void *arg)
{
	struct probe *p = arg;

	if (p->fired < FIRES_MAX)
		p->at_ns[p->fired] = irq_port_now_ns();
	p->fired++;
	p->irqs_off_inside = irq_host_irqs_disabled();
	p->in_interrupt = irq_host_in_interrupt();
	if (order_len + 1 < sizeof(order)) {
		order[order_len++] = p->name[0];
		order[order_len] = '\0';
	}
	if (p->period_ns)
		irq_port_timer_arm(p->self, irq_port_now_ns() + p->period_ns);
}

static int port_setup(void **state)
{
	(void)state;
	irq_host_reset();
	order_len = 0;
	order[0] = '\0';
	return 0;
}

static int port_teardown(void **state)
{
	(void)state;
	irq_host_reset();
	assert_int_equal(irq_host_locks_held(), 0);
	return 0;
}

static void timers_fire_in_expiry_order_at_their_own_virtual_time(void **state)
{
	struct irq_port_timer ta, tb, tc;
	struct probe a = { .name = "a" }, b = { .name = "b" }, c = { .name = "c" };

	(void)state;
	irq_port_timer_init(&ta, probe_fn, &a);
	irq_port_timer_init(&tb, probe_fn, &b);
	irq_port_timer_init(&tc, probe_fn, &c);
	irq_port_timer_arm(&ta, 3000);
	irq_port_timer_arm(&tb, 1000);
	irq_port_timer_arm(&tc, 2000);
	assert_int_equal(irq_host_timers_pending(), 3);
	assert_int_equal(irq_host_advance_ns(999), 0);
	assert_int_equal(irq_host_advance_ns(10000), 3);
	assert_string_equal(order, "bca");
	assert_int_equal(b.at_ns[0], 1000);
	assert_int_equal(c.at_ns[0], 2000);
	assert_int_equal(a.at_ns[0], 3000);
	assert_int_equal(irq_port_now_ns(), 10999);
	assert_true(a.irqs_off_inside && a.in_interrupt);
	assert_false(irq_host_irqs_disabled());
}

static void timers_due_at_the_same_time_fire_in_the_order_they_were_armed(void **state)
{
	struct irq_port_timer t[3];
	struct probe p[3] = { { .name = "x" }, { .name = "y" }, { .name = "z" } };
	unsigned int i;

	(void)state;
	for (i = 0; i < 3; i++)
		irq_port_timer_init(&t[i], probe_fn, &p[i]);
	irq_port_timer_arm(&t[1], 500);
	irq_port_timer_arm(&t[2], 500);
	irq_port_timer_arm(&t[0], 500);
	irq_host_advance_ns(500);
	assert_string_equal(order, "yzx");
}

static void rearming_moves_a_timer_and_cancel_stops_it(void **state)
{
	struct irq_port_timer t;
	struct probe p = { .name = "p" };

	(void)state;
	irq_port_timer_init(&t, probe_fn, &p);
	assert_false(irq_port_timer_pending(&t));
	irq_port_timer_arm(&t, 100);
	irq_port_timer_arm(&t, 300);
	assert_true(irq_port_timer_pending(&t));
	assert_int_equal(irq_host_timers_pending(), 1);
	irq_host_advance_ns(200);
	assert_int_equal(p.fired, 0);
	assert_true(irq_port_timer_cancel(&t));
	assert_false(irq_port_timer_cancel(&t));
	assert_false(irq_port_timer_pending(&t));
	irq_host_advance_ns(1000);
	assert_int_equal(p.fired, 0);
	/* Initialising a pending timer takes it off the list too. */
	irq_port_timer_arm(&t, 2000);
	irq_port_timer_init(&t, probe_fn, &p);
	assert_int_equal(irq_host_timers_pending(), 0);
}

static void a_timer_armed_in_the_past_fires_when_timers_next_run(void **state)
{
	struct irq_port_timer t;
	struct probe p = { .name = "p" };

	(void)state;
	irq_host_advance_ns(5000);
	irq_port_timer_init(&t, probe_fn, &p);
	irq_port_timer_arm(&t, 10);
	assert_int_equal(p.fired, 0);
	assert_int_equal(irq_host_run_timers(), 1);
	assert_int_equal(p.at_ns[0], 5000);  /* never early, and the clock did not go back */
	assert_false(irq_port_timer_pending(&t));
}

static void a_callback_may_rearm_its_own_timer(void **state)
{
	struct irq_port_timer t;
	struct probe p = { .name = "p", .period_ns = 1000 };
	unsigned int i;

	(void)state;
	p.self = &t;
	irq_port_timer_init(&t, probe_fn, &p);
	irq_port_timer_arm(&t, 1000);
	assert_int_equal(irq_host_advance_ns(10500), 10);
	for (i = 0; i < 10; i++)
		assert_int_equal(p.at_ns[i], 1000 * (i + 1));
	assert_true(irq_port_timer_pending(&t));
}

static void locks_disable_interrupts_and_restore_them_in_reverse_order(void **state)
{
	irq_port_lock_t outer, inner;
	unsigned long f_outer, f_inner;
	uint64_t locks_before = irq_host_lock_count();

	(void)state;
	irq_port_lock_init(&outer);
	irq_port_lock_init(&inner);
	assert_false(irq_host_irqs_disabled());
	f_outer = irq_port_lock_irqsave(&outer);
	assert_true(irq_host_irqs_disabled());
	f_inner = irq_port_lock_irqsave(&inner);
	assert_int_equal(irq_host_locks_held(), 2);
	irq_port_unlock_irqrestore(&inner, f_inner);
	assert_true(irq_host_irqs_disabled());  /* still inside the outer lock */
	irq_port_unlock_irqrestore(&outer, f_outer);
	assert_false(irq_host_irqs_disabled());
	assert_int_equal(irq_host_locks_held(), 0);
	assert_int_equal(irq_host_lock_count() - locks_before, 2);
	/* Inside a simulated interrupt, a lock's restore keeps interrupts off. */
	irq_host_irq_enter();
	f_outer = irq_port_lock_irqsave(&outer);
	irq_port_unlock_irqrestore(&outer, f_outer);
	assert_true(irq_host_irqs_disabled());
	irq_host_irq_exit();
	assert_false(irq_host_irqs_disabled());
}

/* Run @misuse in a child process; RETURNS whether the child died of SIGABRT. */
static bool child_aborts(void (*misuse)(void))
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0) {
		/* The port's message is expected; keep the test output clean. */
		if (!freopen("/dev/null", "w", stderr))
			_exit(1);
		misuse();
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return false;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static irq_port_lock_t lock_a, lock_b;

static void unlock_out_of_order(void)
{
	unsigned long fa = irq_port_lock_irqsave(&lock_a);
	unsigned long fb = irq_port_lock_irqsave(&lock_b);

	irq_port_unlock_irqrestore(&lock_a, fa);
	irq_port_unlock_irqrestore(&lock_b, fb);
}

static void unlock_without_lock(void) { irq_port_unlock_irqrestore(&lock_a, 0); }

static void lock_twice(void)
{
	irq_port_lock_irqsave(&lock_a);
	irq_port_lock_irqsave(&lock_a);
}

static void lock_before_init(void)
{
	static irq_port_lock_t never_initialised;

	irq_port_lock_irqsave(&never_initialised);
}

static void spin_holding_a_lock(void)
{
	irq_port_lock_irqsave(&lock_a);
	irq_port_cpu_relax();
}

static void broken_lock_usage_stops_the_program(void **state)
{
	(void)state;
	irq_port_lock_init(&lock_a);
	irq_port_lock_init(&lock_b);
	/* A correct sequence is not stopped (the check is not vacuous). */
	assert_false(child_aborts(irq_port_cpu_relax));
	assert_true(child_aborts(unlock_out_of_order));
	assert_true(child_aborts(unlock_without_lock));
	assert_true(child_aborts(lock_twice));
	assert_true(child_aborts(lock_before_init));
	assert_true(child_aborts(spin_holding_a_lock));
}

static void the_log_is_captured_with_its_levels(void **state)
{
	(void)state;
	irq_port_log(IRQ_LOG_WARN, "irq %u: something odd about \"%s\"\n", 3u, "uart");
	irq_port_log(IRQ_LOG_INFO, "irq: fine\n");
	irq_port_log(IRQ_LOG_WARN, "irq: second warning\n");
	assert_int_equal(irq_host_log_count(), 3);
	assert_int_equal(irq_host_log_count_level(IRQ_LOG_WARN), 2);
	assert_true(irq_host_log_contains("irq 3: something odd about \"uart\""));
	assert_true(irq_host_log_contains_all("irq 3", "uart"));
	assert_false(irq_host_log_contains_all("irq 3", "fine"));
	irq_host_log_clear();
	assert_int_equal(irq_host_log_count(), 0);
	assert_false(irq_host_log_contains("uart"));
}

#define CASE(fn) cmocka_unit_test_setup_teardown(fn, port_setup, port_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASE(timers_fire_in_expiry_order_at_their_own_virtual_time),
		CASE(timers_due_at_the_same_time_fire_in_the_order_they_were_armed),
		CASE(rearming_moves_a_timer_and_cancel_stops_it),
		CASE(a_timer_armed_in_the_past_fires_when_timers_next_run),
		CASE(a_callback_may_rearm_its_own_timer),
		CASE(locks_disable_interrupts_and_restore_them_in_reverse_order),
		CASE(broken_lock_usage_stops_the_program),
		CASE(the_log_is_captured_with_its_levels),
	};

	return cmocka_run_group_tests_name("irq_port", tests, NULL, NULL);
}
