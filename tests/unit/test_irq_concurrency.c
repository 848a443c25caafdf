/*
 * test_irq_concurrency.c - host unit tests of kernel/irq's exclusion rule
 * with real threads standing in for CPUs: free_irq, disable_irq and
 * synchronize_irq do not return while a handler (or a poll) of the line
 * still runs; polls and interrupts never run one line's handlers at once;
 * an interrupt that arrives during a poll is replayed; the poll timer
 * fires at its virtual time; a wait that can never end panics.
 *
 * No sleeps: each step waits for an observable fact (a flag the handler
 * sets, the host port's count of busy-wait steps), bounded by wall time.
 * cmocka asserts only on the main thread; other threads record.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <kernel/errno.h>
#include "test_irq_fake_chip.h"

#define LINE 11
/*
 * Wall-clock bound of every wait for another thread, seconds: a catch for a
 * hang, not a judgment of time (each hand-off between these threads may
 * wait a scheduler slice of a loaded host, many of them under TSan). What
 * a case judges in time, it judges on the virtual clock (XFIND_LIMIT_NS).
 */
#define WAIT_LIMIT_S 300
/* Interrupts each of two raising threads sends in the stress case. */
#define STRESS_RAISES 3000
/* Polls the polling thread makes in the stress case. */
#define STRESS_POLLS 3000
/* Virtual time at which the poll timer cases poll, ns. */
#define POLL_AT_NS 5000000ull

/* A handler that blocks until the test releases it. */
struct gate {
	int entered;        /* handler is inside */
	int release;        /* test lets it return */
	int finished_seq;   /* order in which it finished (seq counter) */
};

static int seq;           /* event order across threads */
static struct gate gate;

static int next_seq(void) { return __atomic_add_fetch(&seq, 1, __ATOMIC_SEQ_CST); }

static bool flag_set(const int *flag) { return __atomic_load_n(flag, __ATOMIC_SEQ_CST) != 0; }

static void set_flag(int *flag, int value) { __atomic_store_n(flag, value, __ATOMIC_SEQ_CST); }

static uint64_t wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

/* Wait (yielding) until @flag is set; false after WAIT_LIMIT_S. */
static bool wait_flag(const int *flag)
{
	uint64_t start = wall_s();

	while (!flag_set(flag))
		if (wall_s() - start > WAIT_LIMIT_S)
			return false;
		else
			sched_yield();
	return true;
}

/* Wait until the host port has seen more busy-wait steps than @before. */
static bool wait_for_spinning(uint64_t before)
{
	uint64_t start = wall_s();

	while (irq_host_relax_count() <= before)
		if (wall_s() - start > WAIT_LIMIT_S)
			return false;
		else
			sched_yield();
	return true;
}

static void block_in_handler(struct fake_dev *dev, unsigned int irq)
{
	(void)dev;
	(void)irq;
	set_flag(&gate.entered, 1);
	wait_flag(&gate.release);
	set_flag(&gate.finished_seq, next_seq());
}

static void *raise_thread(void *arg)
{
	fake_raise((unsigned int)(uintptr_t)arg);
	return NULL;
}

static void *poll_thread(void *arg)
{
	irq_host_irq_enter();
	irq_poll_line(irq_to_desc((unsigned int)(uintptr_t)arg));
	irq_host_irq_exit();
	return NULL;
}

/* A thread running one API call; records when it returned. */
struct api_call {
	void (*fn)(unsigned int irq, void *dev_id);
	unsigned int irq;
	void *dev_id;
	int returned_seq;
};

static void *api_thread(void *arg)
{
	struct api_call *call = arg;

	call->fn(call->irq, call->dev_id);
	set_flag(&call->returned_seq, next_seq());
	return NULL;
}

static void call_free_irq(unsigned int irq, void *dev_id) { free_irq(irq, dev_id); }
static void call_disable_irq(unsigned int irq, void *dev_id) { (void)dev_id; disable_irq(irq); }
static void call_synchronize_irq(unsigned int irq, void *dev_id) { (void)dev_id; synchronize_irq(irq); }

static int concurrency_setup(void **state)
{
	seq = 0;
	gate = (struct gate){ 0 };
	return fake_irq_setup(state);
}

/*
 * The story of every "waits for the running handler" case: a handler (or
 * poll) started by @runner blocks; @fn is called on another thread; it must
 * be seen spinning and must not return until the handler is let go.
 */
static void expect_call_waits_for_running_handler(void *(*runner)(void *), void (*fn)(unsigned int, void *),
						  void *dev_id)
{
	struct api_call call = { fn, LINE, dev_id, 0 };
	pthread_t cpu1, cpu2;
	uint64_t relax_before;

	assert_int_equal(pthread_create(&cpu1, NULL, runner, (void *)(uintptr_t)LINE), 0);
	assert_true(wait_flag(&gate.entered));
	relax_before = irq_host_relax_count();
	assert_int_equal(pthread_create(&cpu2, NULL, api_thread, &call), 0);
	assert_true(wait_for_spinning(relax_before));
	assert_false(flag_set(&call.returned_seq));
	set_flag(&gate.release, 1);
	assert_int_equal(pthread_join(cpu2, NULL), 0);
	assert_int_equal(pthread_join(cpu1, NULL), 0);
	assert_true(gate.finished_seq < call.returned_seq);
}

static void free_irq_does_not_return_while_the_handler_runs_on_another_cpu(void **state)
{
	struct fake_dev dev = { .name = "slow", .answer = IRQ_HANDLED, .hook = block_in_handler };
	struct irq_line_stats st;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "slow", &dev), 0);
	expect_call_waits_for_running_handler(raise_thread, call_free_irq, &dev);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.nr_actions, 0);
	assert_true(fake_chip_masked(LINE));
	assert_int_equal(dev.calls, 1);
}

static void free_irq_does_not_return_while_a_poll_of_the_line_runs(void **state)
{
	struct fake_dev dev = { .name = "slow", .answer = IRQ_HANDLED, .hook = block_in_handler };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "slow", &dev), 0);
	expect_call_waits_for_running_handler(poll_thread, call_free_irq, &dev);
	assert_int_equal(dev.polled_calls, 1);
}

static void disable_irq_waits_for_the_running_handler(void **state)
{
	struct fake_dev dev = { .name = "slow", .answer = IRQ_HANDLED, .hook = block_in_handler };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_fasteoi_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "slow", &dev), 0);
	expect_call_waits_for_running_handler(raise_thread, call_disable_irq, NULL);
	assert_true(fake_chip_masked(LINE));
	enable_irq(LINE);
}

static void synchronize_irq_waits_for_the_running_handler(void **state)
{
	struct fake_dev dev = { .name = "slow", .answer = IRQ_HANDLED, .hook = block_in_handler };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "slow", &dev), 0);
	expect_call_waits_for_running_handler(raise_thread, call_synchronize_irq, NULL);
	assert_false(fake_chip_masked(LINE));
}

static void disable_irq_nosync_returns_at_once_while_the_handler_runs(void **state)
{
	struct fake_dev dev = { .name = "slow", .answer = IRQ_HANDLED, .hook = block_in_handler };
	pthread_t cpu1;
	uint64_t relax_before;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "slow", &dev), 0);
	assert_int_equal(pthread_create(&cpu1, NULL, raise_thread, (void *)(uintptr_t)LINE), 0);
	assert_true(wait_flag(&gate.entered));
	relax_before = irq_host_relax_count();
	disable_irq_nosync(LINE);
	assert_int_equal(irq_host_relax_count(), relax_before);
	set_flag(&gate.release, 1);
	assert_int_equal(pthread_join(cpu1, NULL), 0);
	/* The level flow must not reopen a line disabled while it ran. */
	assert_true(fake_chip_masked(LINE));
	enable_irq(LINE);
	assert_false(fake_chip_masked(LINE));
}

/* Hook: a poll of the line from inside its own interrupt handler. */
static int nested_poll_result;

static void poll_own_line(struct fake_dev *dev, unsigned int irq)
{
	(void)dev;
	nested_poll_result = irq_poll_line(irq_to_desc(irq));
}

static void a_poll_that_finds_the_handlers_running_skips(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED, .hook = poll_own_line };
	struct irq_line_stats st;
	struct irq_line_health h;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	fake_raise(LINE);
	assert_int_equal(nested_poll_result, -EBUSY);
	assert_int_equal(dev.calls, 1);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.polled, 0);
	/* The race the QEMU race test counts (tests/qemu/test_smp_race.py): a poll that lost it. */
	assert_int_equal(irq_get_line_health(LINE, &h), 0);
	assert_int_equal(h.poll_busy, 1);
	assert_int_equal(h.poll_raced, 0);
}

/* Hook: while a poll runs the handler, the device's real interrupt arrives. */
static void raise_during_poll(struct fake_dev *dev, unsigned int irq)
{
	if (dev->polled_calls == 1 && dev->calls == 1)
		fake_raise(irq);
}

static int poll_now(unsigned int irq)
{
	int ret;

	irq_host_irq_enter();
	ret = irq_poll_line(irq_to_desc(irq));
	irq_host_irq_exit();
	return ret;
}

static void an_edge_arriving_during_a_poll_is_replayed_after_it_as_an_interrupt(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED, .hook = raise_during_poll };
	struct irq_line_stats st;
	struct irq_action_stats as;
	struct irq_line_health h;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	fake_chip_trace_clear();
	assert_int_equal(poll_now(LINE), IRQ_HANDLED);
	assert_int_equal(dev.calls, 2);
	assert_int_equal(dev.polled_calls, 1);
	assert_string_equal(fake_chip_trace(LINE), "ack");
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.polled, 1);
	assert_int_equal(st.handled, 1);
	assert_int_equal(st.delivered, 1);
	assert_int_equal(irq_get_action_stats(LINE, 0, &as), 0);
	assert_int_equal(as.polled_handled, 1);
	assert_int_equal(as.handled, 1);
	/* ... and the other side of the race: the interrupt that came while the poll held the line. */
	assert_int_equal(irq_get_line_health(LINE, &h), 0);
	assert_int_equal(h.poll_raced, 1);
	assert_int_equal(h.poll_busy, 0);
	/* irq_poll() is the same poll by line number (an interrupt of its own does not come now). */
	irq_host_irq_enter();
	assert_int_equal(irq_poll(LINE), IRQ_HANDLED);
	assert_int_equal(irq_poll(IRQ_NR_LINES), -EINVAL);
	irq_host_irq_exit();
	assert_int_equal(irq_get_line_health(LINE, &h), 0);
	assert_int_equal(h.poll_raced, 1);
}

static void a_level_interrupt_arriving_during_a_poll_is_held_masked_until_it_ends(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED, .hook = raise_during_poll };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	fake_chip_trace_clear();
	assert_int_equal(poll_now(LINE), IRQ_HANDLED);
	/* No replay for a level line: unmasking lets it interrupt again if still asserted. */
	assert_string_equal(fake_chip_trace(LINE), "mask ack unmask");
	assert_int_equal(dev.calls, 1);
}

static void polls_of_a_disabled_line_or_a_line_without_action_are_refused(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED };

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(poll_now(LINE), -ENOENT);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	disable_irq(LINE);
	assert_int_equal(poll_now(LINE), -EAGAIN);
	enable_irq(LINE);
	assert_int_equal(poll_now(LINE), IRQ_HANDLED);
	dev.answer = IRQ_NONE;
	assert_int_equal(poll_now(LINE), IRQ_NONE);
	assert_int_equal(dev.calls, 2);
}

static uint64_t poll_seen_at_ns;

static void note_poll_time(struct fake_dev *dev, unsigned int irq)
{
	(void)dev;
	(void)irq;
	poll_seen_at_ns = irq_port_now_ns();
}

static void the_poll_timer_polls_the_line_at_its_virtual_time_and_can_be_cancelled(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED, .hook = note_poll_time };
	struct irq_desc *desc = irq_to_desc(LINE);

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	irq_poll_schedule(desc, POLL_AT_NS);
	irq_host_advance_ns(POLL_AT_NS - 1);
	assert_int_equal(dev.calls, 0);
	irq_host_advance_ns(1);
	assert_int_equal(dev.polled_calls, 1);
	assert_int_equal(poll_seen_at_ns, POLL_AT_NS);
	irq_poll_schedule(desc, 2 * POLL_AT_NS);
	assert_true(irq_poll_cancel(desc));
	assert_false(irq_poll_cancel(desc));
	irq_host_advance_ns(10 * POLL_AT_NS);
	assert_int_equal(dev.calls, 1);
}

/* Stress: a handler that checks it never runs twice at once. */
static int running, most_running;
static int polls_that_ran;
static pthread_barrier_t stress_start;  /* all three "CPUs" start together */

static void count_concurrency(struct fake_dev *dev, unsigned int irq)
{
	int now = __atomic_add_fetch(&running, 1, __ATOMIC_SEQ_CST);
	int seen = __atomic_load_n(&most_running, __ATOMIC_SEQ_CST);

	(void)dev;
	(void)irq;
	while (now > seen && !__atomic_compare_exchange_n(&most_running, &seen, now, false,
							  __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	sched_yield();  /* widen the window for a second runner */
	__atomic_sub_fetch(&running, 1, __ATOMIC_SEQ_CST);
}

static void *stress_raiser(void *arg)
{
	unsigned int i;

	irq_host_set_cpu((unsigned int)(uintptr_t)arg);
	pthread_barrier_wait(&stress_start);
	for (i = 0; i < STRESS_RAISES; i++) {
		fake_raise(LINE);
		if (i % 4 == 0)
			sched_yield();  /* give the poller gaps to run in */
	}
	return NULL;
}

static void *stress_poller(void *arg)
{
	unsigned int i;

	irq_host_set_cpu((unsigned int)(uintptr_t)arg);
	pthread_barrier_wait(&stress_start);
	for (i = 0; i < STRESS_POLLS; i++)
		if (poll_now(LINE) >= 0)
			__atomic_add_fetch(&polls_that_ran, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * The per-CPU counters: each "CPU" counted what it did in its own slot,
 * and the line's counts are their sums. CPUs 1 and 2 each took
 * STRESS_RAISES interrupts; only CPU @poller polled; CPU 0 counted nothing.
 */
static void expect_per_cpu_counts_sum_to_the_line(const struct irq_line_stats *st, unsigned int poller)
{
	struct irq_line_cpu_stats c, sum = { 0 };
	unsigned int cpu;

	for (cpu = 0; cpu < IRQ_NR_CPUS; cpu++) {
		assert_int_equal(irq_get_line_cpu_stats(LINE, cpu, &c), 0);
		assert_int_equal(c.delivered, cpu == 1 || cpu == 2 ? STRESS_RAISES : 0);
		if (cpu != poller)
			assert_int_equal(c.polled, 0);
		sum.delivered += c.delivered;
		sum.handled += c.handled;
		sum.unhandled += c.unhandled;
		sum.polled += c.polled;
	}
	assert_int_equal(irq_get_line_cpu_stats(LINE, IRQ_NR_CPUS, &c), -EINVAL);
	assert_int_equal(sum.delivered, st->delivered);
	assert_int_equal(sum.handled, st->handled);
	assert_int_equal(sum.unhandled, st->unhandled);
	assert_int_equal(sum.polled, st->polled);
}

static void a_lines_handler_never_runs_twice_at_once_under_interrupts_and_polls(void **state)
{
	struct fake_dev dev = { .name = "busy", .answer = IRQ_HANDLED, .hook = count_concurrency };
	struct irq_line_stats st;
	pthread_t cpus[3];
	unsigned int i;

	(void)state;
	running = most_running = polls_that_ran = 0;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "busy", &dev), 0);
	assert_int_equal(pthread_barrier_init(&stress_start, NULL, 3), 0);
	/* "CPUs" 1 and 2 take the interrupts, 3 polls. */
	assert_int_equal(pthread_create(&cpus[0], NULL, stress_raiser, (void *)(uintptr_t)1), 0);
	assert_int_equal(pthread_create(&cpus[1], NULL, stress_raiser, (void *)(uintptr_t)2), 0);
	assert_int_equal(pthread_create(&cpus[2], NULL, stress_poller, (void *)(uintptr_t)3), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(pthread_join(cpus[i], NULL), 0);
	pthread_barrier_destroy(&stress_start);
	irq_host_run_timers();  /* a replay round the storm handed to the resend timer */
	assert_int_equal(most_running, 1);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.delivered, 2 * STRESS_RAISES);
	assert_int_equal(st.polled, (uint64_t)polls_that_ran);
	/* Every run was accounted once: as an interrupt (or replay) or as a poll. */
	assert_int_equal(dev.calls, st.handled + st.polled);
	assert_int_equal(st.status & (IRQS_INPROGRESS | IRQS_PENDING | IRQS_REPLAY), 0);
	/* Edges that came during a run were merged, never dropped: at least one run per burst. */
	assert_true(st.handled >= 1 && st.handled <= st.delivered);
	expect_per_cpu_counts_sum_to_the_line(&st, 3);
}

/* ---- An interrupt on CPU 1 while a poll runs on CPU 0 ------------------------ */

/* A raise on "CPU 1" that records when it returned. */
static int cpu1_raise_returned;

static void *raise_on_cpu1(void *arg)
{
	irq_host_set_cpu(1);
	fake_raise((unsigned int)(uintptr_t)arg);
	set_flag(&cpu1_raise_returned, 1);
	return NULL;
}

static void *poll_on_cpu0(void *arg)
{
	irq_host_set_cpu(0);
	return poll_thread(arg);
}

/* Hook: the poll's run blocks; the replay after it does not. */
static void block_in_poll_only(struct fake_dev *dev, unsigned int irq)
{
	if (irq_to_desc(irq)->run_is_poll)
		block_in_handler(dev, irq);
}

/*
 * A poll blocks in the handler on CPU 0; the line's interrupt comes on
 * CPU 1. It must return without running the handler (never two runs at
 * once), leave the line marked, and the poll's owner must replay it.
 * RETURNS after the poll thread ended; @masked_meanwhile: whether the
 * line was masked at the chip while the poll still ran.
 */
static void irq_during_poll_on_other_cpu(bool *masked_meanwhile)
{
	pthread_t cpu0, cpu1;

	cpu1_raise_returned = 0;
	assert_int_equal(pthread_create(&cpu0, NULL, poll_on_cpu0, (void *)(uintptr_t)LINE), 0);
	assert_true(wait_flag(&gate.entered));
	assert_int_equal(pthread_create(&cpu1, NULL, raise_on_cpu1, (void *)(uintptr_t)LINE), 0);
	/* CPU 1's interrupt ends while CPU 0's poll is still inside the handler. */
	if (!wait_flag(&cpu1_raise_returned)) {
		set_flag(&gate.release, 1);  /* let both go before failing */
		pthread_join(cpu1, NULL);
		pthread_join(cpu0, NULL);
		fail_msg("the interrupt on CPU 1 did not return while CPU 0 polled: it ran the handler concurrently");
	}
	*masked_meanwhile = fake_chip_masked(LINE);
	assert_true(irq_to_desc(LINE)->status & IRQS_INPROGRESS);
	set_flag(&gate.release, 1);
	assert_int_equal(pthread_join(cpu1, NULL), 0);
	assert_int_equal(pthread_join(cpu0, NULL), 0);
}

static void an_edge_on_cpu1_during_a_poll_on_cpu0_is_replayed_after_it_never_alongside(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED, .hook = block_in_poll_only };
	struct irq_line_stats st;
	bool masked;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	irq_during_poll_on_other_cpu(&masked);
	assert_false(masked);           /* an edge line is only acked */
	/* The poll, then the edge replayed by CPU 0 as an interrupt run: never dropped. */
	assert_int_equal(dev.calls, 2);
	assert_int_equal(dev.polled_calls, 1);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.delivered, 1);
	assert_int_equal(st.polled, 1);
	assert_int_equal(st.handled, 1);
	assert_int_equal(st.status & (IRQS_INPROGRESS | IRQS_PENDING | IRQS_POLLING | IRQS_REPLAY), 0);
}

static void a_level_interrupt_on_cpu1_during_a_poll_on_cpu0_stays_masked_until_the_poll_ends(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED, .hook = block_in_poll_only };
	struct irq_line_stats st;
	bool masked;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_level_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	irq_during_poll_on_other_cpu(&masked);
	assert_true(masked);            /* held off while the poll ran, */
	assert_false(fake_chip_masked(LINE));  /* reopened by the poll's owner: a level line re-asserts by itself */
	assert_int_equal(dev.calls, 1);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.delivered, 1);
	assert_int_equal(st.status & (IRQS_INPROGRESS | IRQS_PENDING | IRQS_POLLING), 0);
}

/*
 * The replay limit across CPUs: while CPU 0 runs the line, CPU 1 keeps
 * sending edges; each run ends with one more pending, so CPU 0 replays up
 * to IRQ_EDGE_REPLAY_LIMIT times and then hands the rest to the resend
 * timer instead of looping for ever - and the timer's replay still comes.
 */
static int edge_storm_runs;

static void raise_from_other_cpu_each_run(struct fake_dev *dev, unsigned int irq)
{
	pthread_t cpu1;

	(void)dev;
	if (__atomic_add_fetch(&edge_storm_runs, 1, __ATOMIC_SEQ_CST) > 3 * IRQ_EDGE_REPLAY_LIMIT)
		return;
	cpu1_raise_returned = 0;
	if (pthread_create(&cpu1, NULL, raise_on_cpu1, (void *)(uintptr_t)irq) == 0)
		pthread_join(cpu1, NULL);
}

static void edges_from_cpu1_during_every_run_on_cpu0_stop_at_the_replay_limit_and_go_on_from_the_timer(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED, .hook = raise_from_other_cpu_each_run };
	struct irq_line_stats st;

	(void)state;
	edge_storm_runs = 0;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	fake_raise(LINE);
	/* The first run and IRQ_EDGE_REPLAY_LIMIT replays; the rest is the resend timer's. */
	assert_int_equal(dev.calls, 1 + IRQ_EDGE_REPLAY_LIMIT);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_true(st.status & IRQS_REPLAY);
	assert_true(st.status & IRQS_PENDING);
	irq_host_run_timers();
	assert_true(dev.calls > 1 + IRQ_EDGE_REPLAY_LIMIT);
	while (irq_host_timers_pending())
		irq_host_run_timers();
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	/* Every edge ran the handler, merged or not; none is left. */
	assert_int_equal(st.delivered, 3 * IRQ_EDGE_REPLAY_LIMIT + 1);
	assert_int_equal(dev.calls, st.delivered);
	assert_int_equal(st.status & (IRQS_INPROGRESS | IRQS_PENDING | IRQS_REPLAY), 0);
}

/*
 * A poll on CPU 0 that found the line's interrupt pending at the chip left
 * the work to it (-IRQ_EINPROGRESS), once per delivery: the next poll runs
 * unless an interrupt was delivered since - on any CPU. The delivery count
 * it compares is the sum over the CPUs: the interrupt taken on CPU 1 is
 * seen, so the next poll defers again rather than taking a fresh pending
 * interrupt's work; with nothing delivered anywhere it runs (none dropped).
 */
static void a_poll_that_deferred_counts_deliveries_on_every_cpu(void **state)
{
	struct fake_dev dev = { .name = "a", .answer = IRQ_HANDLED };
	struct irq_desc *desc = irq_to_desc(LINE);

	(void)state;
	fake_setup_line(LINE, &fake_chip_pending, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "a", &dev), 0);
	fake_chip_set_pending(LINE, 1);
	irq_host_set_cpu(0);
	assert_int_equal(poll_now(LINE), -EINPROGRESS);
	/* The interrupt comes, on CPU 1; and the device raises the next one, pending again. */
	irq_host_set_cpu(1);
	fake_raise(LINE);
	irq_host_set_cpu(0);
	assert_int_equal(dev.calls, 1);
	assert_int_equal(poll_now(LINE), -EINPROGRESS);
	assert_int_equal(desc->def.poll_deferred, 2);
	/* Nothing delivered since, on any CPU: this poll runs the handler. */
	assert_int_equal(poll_now(LINE), IRQ_HANDLED);
	assert_int_equal(dev.calls, 2);
	assert_int_equal(dev.polled_calls, 1);
}

/* ---- free_irq while the poll timer's callback runs on another CPU ------------- */

/* "CPU 0": the timer interrupt that runs the line's poll timer. */
static void *poll_timer_on_cpu0(void *arg)
{
	(void)arg;
	irq_host_set_cpu(0);
	irq_host_advance_ns(POLL_AT_NS);
	return NULL;
}

static void free_irq_on_cpu1_waits_for_the_poll_timer_callback_running_on_cpu0(void **state)
{
	struct fake_dev dev = { .name = "slow", .answer = IRQ_HANDLED, .hook = block_in_handler };
	struct irq_line_stats st;

	(void)state;
	irq_host_set_cpu(1);
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "slow", &dev), 0);
	irq_poll_schedule(irq_to_desc(LINE), POLL_AT_NS);
	expect_call_waits_for_running_handler(poll_timer_on_cpu0, call_free_irq, &dev);
	assert_int_equal(dev.polled_calls, 1);
	assert_int_equal(irq_get_line_stats(LINE, &st), 0);
	assert_int_equal(st.nr_actions, 0);
	/* Nothing of the line is left to run: no timer armed, the action never called again. */
	irq_host_advance_ns(100 * POLL_AT_NS);
	assert_int_equal(dev.calls, 1);
	irq_host_set_cpu(0);
}

/* ---- expect_irq/unexpect_irq on one CPU while the handler runs on another ---- */

/* Commands the driver issues in the expect case. */
#define XCMDS 3000
/* Every this-many-th command's interrupt is lost (only a poll can find it). */
#define XLOST_EVERY 7
/* Virtual time one step of the timer CPU moves (ns). */
#define XSTEP_NS 20000ull
/* Virtual time between two ticks of the interrupt CPU (ns): an idle CPU's tick, as a kernel has. */
#define XTICK_NS 1000000ull
/*
 * Ticks of the interrupt CPU within which each command must complete, by
 * interrupt or by the poll that finds a lost one: judged by that CPU's own
 * running, so a host that starves these threads cannot fail it, and a core
 * that never polls the line does. The bound is the design's: this host has
 * no irq_tick, so a busy verified token's loss is found within
 * expect_verified_recheck_ns, its safety poll (at most
 * expect_first_poll_max_ns) and the stall rule's wait for the line's CPU to
 * finish stall_ran_irqs interrupts (its ticks), plus the tick in progress.
 */
static int xfind_ticks(void)
{
	const struct irq_policy *p = irq_policy();

	return (int)(p->expect_verified_recheck_ns / XTICK_NS + (p->expect_first_poll_max_ns + XTICK_NS - 1) / XTICK_NS +
		     p->stall_ran_irqs + 1);
}

/* A device whose commands complete once each, by interrupt or by poll, whichever comes first. */
static struct xdev {
	struct irq_expect *exp;
	int cmd;           /* 1 while a command is outstanding */
	int raise;         /* the driver asks the interrupt CPU for the command's interrupt */
	int done;          /* the completion has been reported (after unexpect_irq) */
	int stop;          /* the driver is finished */
	int completions;   /* commands the handler completed */
	int twice;         /* a completion for no outstanding command that unexpect_irq saw: never */
	int stuck;         /* a command the driver waited for in vain */
	uint64_t worst_ns; /* the longest virtual time a command took */
	int ticks;         /* ticks of the interrupt CPU */
	int worst_ticks;   /* the most of them a command took */
} xdev;

/*
 * Wait until the command started at virtual @t0 is done: false once the
 * interrupt CPU has ticked XFIND_TICKS times without it (the core did not
 * find it), or after WAIT_LIMIT_S of the host's time (a hang).
 */
static bool xwait_done(uint64_t t0)
{
	uint64_t start = wall_s(), took;
	int ticks0 = __atomic_load_n(&xdev.ticks, __ATOMIC_SEQ_CST), ticks;

	while (!flag_set(&xdev.done)) {
		if (__atomic_load_n(&xdev.ticks, __ATOMIC_SEQ_CST) - ticks0 > xfind_ticks() ||
		    wall_s() - start > WAIT_LIMIT_S)
			return false;
		sched_yield();
	}
	took = irq_host_now_ns() - t0;
	ticks = __atomic_load_n(&xdev.ticks, __ATOMIC_SEQ_CST) - ticks0;
	if (took > xdev.worst_ns)
		xdev.worst_ns = took;
	if (ticks > xdev.worst_ticks)
		xdev.worst_ticks = ticks;
	return true;
}

static irqreturn_t xdev_handler(unsigned int irq, void *dev_id)
{
	struct xdev *d = dev_id;
	int one = 1;

	(void)irq;
	/* The device's status register: read-and-clear, so one command completes once. */
	if (!__atomic_compare_exchange_n(&d->cmd, &one, 0, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return IRQ_NONE;
	__atomic_add_fetch(&d->completions, 1, __ATOMIC_SEQ_CST);
	unexpect_irq(d->exp, false);
	set_flag(&d->done, 1);
	return IRQ_HANDLED;
}

/* CPU 1: the driver. expect_irq, start the command, wait for its completion; again. */
static void *xdriver_cpu1(void *arg)
{
	unsigned int i;

	(void)arg;
	irq_host_set_cpu(1);
	for (i = 0; i < XCMDS; i++) {
		uint64_t t0 = irq_host_now_ns();

		set_flag(&xdev.done, 0);
		expect_irq(xdev.exp);
		set_flag(&xdev.cmd, 1);
		if (i % XLOST_EVERY)
			set_flag(&xdev.raise, 1);
		if (!xwait_done(t0)) {
			set_flag(&xdev.stuck, 1);
			break;
		}
	}
	set_flag(&xdev.stop, 1);
	return NULL;
}

/* CPU 0: takes the line's interrupts. */
static void *xirq_cpu0(void *arg)
{
	(void)arg;
	uint64_t next_tick = irq_host_now_ns() + XTICK_NS;

	irq_host_set_cpu(0);
	while (!flag_set(&xdev.stop)) {
		if (__atomic_exchange_n(&xdev.raise, 0, __ATOMIC_SEQ_CST)) {
			fake_raise(LINE);
		} else if (irq_host_now_ns() >= next_tick) {
			/* This CPU's tick: one interrupt finished. Ticks missed while
			 * the host kept this thread off are one, as on a stalled CPU. */
			irq_host_cpu_progress_add(0);
			__atomic_add_fetch(&xdev.ticks, 1, __ATOMIC_SEQ_CST);
			next_tick = irq_host_now_ns() + XTICK_NS;
		} else {
			sched_yield();
		}
	}
	return NULL;
}

/* CPU 2: the timer interrupt, running the poll timer as virtual time goes by. */
static void *xtimer_cpu2(void *arg)
{
	(void)arg;
	irq_host_set_cpu(2);
	while (!flag_set(&xdev.stop)) {
		irq_host_advance_ns(XSTEP_NS);
		sched_yield();
	}
	return NULL;
}

/* The xdev cases' line: edge, xdev's handler, the defences on, one expect token. */
static void xdev_setup(void)
{
	memset(&xdev, 0, sizeof(xdev));
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, xdev_handler, 0, "xdev", &xdev), 0);
	irq_defences_start();
	xdev.exp = init_irq_expect(LINE, &xdev);
	assert_non_null(xdev.exp);
}

static void expect_and_unexpect_on_other_cpus_than_the_handler_complete_every_command_once(void **state)
{
	struct irq_action_health ah;
	pthread_t cpus[3];
	unsigned int i;

	(void)state;
	xdev_setup();
	assert_int_equal(pthread_create(&cpus[0], NULL, xirq_cpu0, NULL), 0);
	assert_int_equal(pthread_create(&cpus[1], NULL, xdriver_cpu1, NULL), 0);
	assert_int_equal(pthread_create(&cpus[2], NULL, xtimer_cpu2, NULL), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(pthread_join(cpus[i], NULL), 0);
	print_message("%d commands, the longest %llu us of virtual time, %d ticks of the interrupt CPU\n",
		      xdev.completions, (unsigned long long)(xdev.worst_ns / 1000), xdev.worst_ticks);
	assert_false(xdev.stuck);
	/* Every command completed exactly once: none lost, none twice. */
	assert_int_equal(xdev.completions, XCMDS);
	assert_int_equal(irq_get_action_health(LINE, 0, &ah), 0);
	assert_int_equal(ah.completions_irq + ah.completions_polled, XCMDS);
	/* The lost ones (at least) were found by polls. */
	assert_true(ah.completions_polled >= XCMDS / XLOST_EVERY);
	assert_int_equal(ah.timeouts, 0);
	/* No misuse reported: every expect_irq had its unexpect_irq. */
	assert_false(irq_host_log_contains("misuses so far"));
	free_irq(LINE, &xdev);
}

/*
 * The lock-free paths read only what may be read without the lock: while
 * CPU 1 changes the line's state under its lock again and again
 * (disable_irq_nosync/enable_irq rewrite desc->status), CPU 0 runs
 * expect_irq/unexpect_irq, whose lock-free part looks at whether the
 * line's handlers run (desc->running, not desc->status). ThreadSanitizer
 * fails the run on a lock-free read of a field written under the lock.
 */
#define XTOGGLES 4000  /* two chip calls each; the fake chip records at most 16384 */

static void *toggle_line_on_cpu1(void *arg)
{
	unsigned int i;

	(void)arg;
	irq_host_set_cpu(1);
	for (i = 0; i < XTOGGLES && !flag_set(&xdev.stop); i++) {
		disable_irq_nosync(LINE);
		enable_irq(LINE);
	}
	set_flag(&xdev.stop, 1);
	return NULL;
}

static void expect_calls_on_cpu0_read_nothing_cpu1_writes_under_the_lock(void **state)
{
	struct irq_action_health ah;
	pthread_t cpu1;
	unsigned int n = 0;

	(void)state;
	xdev_setup();
	assert_int_equal(pthread_create(&cpu1, NULL, toggle_line_on_cpu1, NULL), 0);
	while (!flag_set(&xdev.stop)) {
		expect_irq(xdev.exp);
		unexpect_irq(xdev.exp, false);
		n++;
	}
	assert_int_equal(pthread_join(cpu1, NULL), 0);
	assert_int_equal(irq_get_action_health(LINE, 0, &ah), 0);
	assert_int_equal(ah.completions_irq + ah.completions_polled, n);
	assert_false(irq_host_log_contains("misuses so far"));
	free_irq(LINE, &xdev);
}

/*
 * The host's tick takes a line out of its set (tick_look.c) on one CPU
 * while expect_irq of a verified token on another puts it in: the line
 * must never end up out of the set with the token expecting (a lost
 * interrupt would then wait for the 3 s slow poll). Each round starts
 * with the line in the set and its token not used since the last tick,
 * so the tick on CPU 1 decides to take it out just as CPU 0 expects.
 * Removing the tick's second look after it clears the bit
 * (__irq_expect_tick_keeps) makes this fail.
 */
#define TICK_ROUNDS 50000

static struct irq_expect *tick_exp;
static int tick_go, tick_done;

static irqreturn_t tick_dev_handler(unsigned int irq, void *dev_id)
{
	(void)irq;
	(void)dev_id;
	unexpect_irq(tick_exp, false);
	return IRQ_HANDLED;
}

static void *tick_on_cpu1(void *arg)
{
	int r;

	(void)arg;
	irq_host_set_cpu(1);
	for (r = 1; r <= TICK_ROUNDS; r++) {
		uint64_t start = wall_s();

		while (__atomic_load_n(&tick_go, __ATOMIC_SEQ_CST) != r)
			if (wall_s() - start > WAIT_LIMIT_S)
				return NULL;
		irq_tick(irq_host_now_ns());
		__atomic_store_n(&tick_done, r, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void the_tick_never_drops_a_line_whose_verified_token_expects_on_another_cpu(void **state)
{
	unsigned int i, missed = 0;
	pthread_t cpu1;
	int r;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, tick_dev_handler, 0, "tickdev", &tick_exp), 0);
	irq_defences_start();
	irq_tick_start(1000000);
	tick_exp = init_irq_expect(LINE, &tick_exp);
	assert_non_null(tick_exp);
	for (i = 0; i < 2 * irq_policy()->expect_verify_goal; i++) {
		expect_irq(tick_exp);
		fake_raise(LINE);
	}
	assert_true(__atomic_load_n(&tick_exp->state, __ATOMIC_SEQ_CST) & IRQ_EXP_VERIFIED);
	__atomic_store_n(&tick_go, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&tick_done, 0, __ATOMIC_SEQ_CST);
	assert_int_equal(pthread_create(&cpu1, NULL, tick_on_cpu1, NULL), 0);
	for (r = 1; r <= TICK_ROUNDS; r++) {
		uint64_t start = wall_s();

		/* In the set, not used since this tick: the next tick takes it out unless it sees the expect. */
		expect_irq(tick_exp);
		unexpect_irq(tick_exp, false);
		irq_tick(irq_host_now_ns());
		assert_true(irq_tick_wanted());
		__atomic_store_n(&tick_go, r, __ATOMIC_SEQ_CST);
		/* A different head start each round, so the two CPUs meet at every point of the tick's look. */
		for (i = 0; i < (unsigned int)(r * 7) % 211; i++)
			__atomic_load_n(&tick_done, __ATOMIC_RELAXED);
		expect_irq(tick_exp);
		while (__atomic_load_n(&tick_done, __ATOMIC_SEQ_CST) != r)
			assert_true(wall_s() - start <= WAIT_LIMIT_S);
		if (!irq_tick_wanted())
			missed++;
		unexpect_irq(tick_exp, false);
	}
	assert_int_equal(pthread_join(cpu1, NULL), 0);
	print_message("%d rounds, line out of the tick's set with its token expecting: %u\n", TICK_ROUNDS, missed);
	assert_int_equal(missed, 0);
	irq_tick_start(0);
	free_irq(LINE, &tick_exp);
}

/* Panic case: the hook jumps back into the test. */
static jmp_buf panic_jump;
static const char *panic_message;

static void catch_panic(const char *msg)
{
	panic_message = msg;
	longjmp(panic_jump, 1);
}

static void *advance_past_sync_timeout(void *arg)
{
	uint64_t before = (uint64_t)(uintptr_t)arg;

	if (wait_for_spinning(before))
		irq_host_advance_ns(IRQ_SYNC_TIMEOUT_NS + 1);
	return NULL;
}

static void a_wait_for_a_handler_that_never_finishes_panics_instead_of_hanging(void **state)
{
	struct fake_dev dev = { .name = "stuck", .answer = IRQ_HANDLED, .hook = block_in_handler };
	pthread_t cpu1, clock;
	volatile bool panicked = false;

	(void)state;
	fake_setup_line(LINE, &fake_chip, handle_edge_irq);
	assert_int_equal(request_irq(LINE, fake_dev_handler, 0, "stuck", &dev), 0);
	assert_int_equal(pthread_create(&cpu1, NULL, raise_thread, (void *)(uintptr_t)LINE), 0);
	assert_true(wait_flag(&gate.entered));
	assert_int_equal(pthread_create(&clock, NULL, advance_past_sync_timeout,
					(void *)(uintptr_t)irq_host_relax_count()), 0);
	irq_host_set_panic_hook(catch_panic);
	if (setjmp(panic_jump) == 0)
		synchronize_irq(LINE);
	else
		panicked = true;
	irq_host_set_panic_hook(NULL);
	set_flag(&gate.release, 1);
	assert_int_equal(pthread_join(clock, NULL), 0);
	assert_int_equal(pthread_join(cpu1, NULL), 0);
	assert_true(panicked);
	assert_string_equal(panic_message, "irq_wait_idle: handler never finished");
	assert_true(irq_host_log_contains_all("synchronize_irq", "called from that handler?"));
}

#define CASE(fn) cmocka_unit_test_setup_teardown(fn, concurrency_setup, fake_irq_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		CASE(free_irq_does_not_return_while_the_handler_runs_on_another_cpu),
		CASE(free_irq_does_not_return_while_a_poll_of_the_line_runs),
		CASE(disable_irq_waits_for_the_running_handler),
		CASE(synchronize_irq_waits_for_the_running_handler),
		CASE(disable_irq_nosync_returns_at_once_while_the_handler_runs),
		CASE(a_poll_that_finds_the_handlers_running_skips),
		CASE(an_edge_arriving_during_a_poll_is_replayed_after_it_as_an_interrupt),
		CASE(a_level_interrupt_arriving_during_a_poll_is_held_masked_until_it_ends),
		CASE(polls_of_a_disabled_line_or_a_line_without_action_are_refused),
		CASE(the_poll_timer_polls_the_line_at_its_virtual_time_and_can_be_cancelled),
		CASE(a_lines_handler_never_runs_twice_at_once_under_interrupts_and_polls),
		CASE(a_wait_for_a_handler_that_never_finishes_panics_instead_of_hanging),
		CASE(an_edge_on_cpu1_during_a_poll_on_cpu0_is_replayed_after_it_never_alongside),
		CASE(a_level_interrupt_on_cpu1_during_a_poll_on_cpu0_stays_masked_until_the_poll_ends),
		CASE(edges_from_cpu1_during_every_run_on_cpu0_stop_at_the_replay_limit_and_go_on_from_the_timer),
		CASE(free_irq_on_cpu1_waits_for_the_poll_timer_callback_running_on_cpu0),
		CASE(a_poll_that_deferred_counts_deliveries_on_every_cpu),
		CASE(expect_calls_on_cpu0_read_nothing_cpu1_writes_under_the_lock),
		CASE(expect_and_unexpect_on_other_cpus_than_the_handler_complete_every_command_once),
		CASE(the_tick_never_drops_a_line_whose_verified_token_expects_on_another_cpu),
	};

	fake_irq_filter_from_env();
	return cmocka_run_group_tests_name("irq_concurrency", tests, NULL, NULL);
}
