/*
 * walk.c - the path of one disk command's expect token through kernel/irq,
 * function by function (tools/layers/layers.py --walk; docs/irq-layers.md,
 * "What is measured today").
 *
 * A driver like drivers/ata/ahci_cmd.c: one token from init_irq_expect(),
 * expect_irq() when a command is issued, the completion interrupt some
 * microseconds later, whose handler sees the command done and calls
 * unexpect_irq(). Built with the host port (tests/host/irq_port_host.c:
 * a virtual clock, timers fired as it advances) and the kernel's 1 kHz
 * tick; kernel/irq is compiled with -finstrument-functions, this file and
 * the port are not, so what is recorded is every entry into and exit from
 * a function of kernel/irq (static inline ones too: GCC records where an
 * inlined function is entered and left), in order.
 *
 * Three commands are recorded, each from its expect_irq() to its verdict
 * (the point where expect.c has judged the delivery):
 *   first     the token's first command: unverified, its interrupt comes;
 *             the verdict is unexpect_irq's, in the interrupt.
 *   verified  a command after 400 good ones: the token is verified (the
 *             lock-free path); the verdict is unexpect_irq's.
 *   lost      a verified token's command whose interrupt is lost: the tick
 *             and the poll timer find it (unexpect_irq from the poll's
 *             handler sets the claim), and its verdict is given when the
 *             next command is issued (expect_irq judges the claim: lost).
 *
 * Output, one line per event: "walk BEGIN name", "E address", "X address",
 * "walk END name"; the addresses are those of the functions entered and
 * left (a binary linked without PIE, so layers.py maps them with nm -l).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <irq/interrupt.h>
#include <irq/irqchip.h>
#include <irq/policy.h>
#include <irq/port.h>
#include <irq_port_host.h>

#define WALK_LINE 11                  /* the disk's line */
#define WALK_LATENCY_NS 40000ull      /* command to interrupt: 40 us, an AHCI read in QEMU */
#define WALK_TICK_NS 1000000ull       /* the kernel's tick: 1 kHz */
#define WALK_WARMUP 400u              /* good commands before "verified" (the goal is 64 at most) */
#define WALK_LOST_WAIT_NS 20000000ull /* how long the lost command may take to be found: 20 ms */
#define WALK_EVENTS_MAX 200000u       /* recorded events at most per walk */

static bool walk_on;
static unsigned long walk_events;

__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	if (walk_on && walk_events++ < WALK_EVENTS_MAX)
		printf("E %p\n", fn);
}

__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	if (walk_on && walk_events++ < WALK_EVENTS_MAX)
		printf("X %p\n", fn);
}

/* The chip: an edge line whose operations the device model needs nothing from. */
static void chip_nop(struct irq_data *d)
{
	(void)d;
}

static const struct irq_chip walk_chip = {
	.name = "WALK", .mask = chip_nop, .unmask = chip_nop, .ack = chip_nop,
};

/* The disk: one command at a time; done = the device finished it (its status says so). */
static struct {
	bool done;
	struct irq_expect *exp;
	unsigned int completions;
} disk;

static irqreturn_t disk_handler(unsigned int irq, void *dev_id)
{
	(void)irq;
	(void)dev_id;
	if (!disk.done)
		return IRQ_NONE;
	disk.done = false;
	disk.completions++;
	unexpect_irq(disk.exp, false);
	return IRQ_HANDLED;
}

/* The kernel's tick, lent to the defences (docs/porting.md, section 6a). */
static struct irq_port_timer tick_timer;

static void tick_fn(void *arg)
{
	(void)arg;
	irq_tick(irq_host_now_ns());
	irq_port_timer_arm(&tick_timer, tick_timer.expires_ns + WALK_TICK_NS);
}

/* The device raises its interrupt; the arch entry code delivers it. */
static void raise_irq(void)
{
	irq_host_irq_enter();
	generic_handle_irq(WALK_LINE);
	irq_host_irq_exit();
}

/* One command: issued, done after the latency, its interrupt delivered unless @lost. */
static void command(bool lost)
{
	unsigned int before = disk.completions;
	uint64_t waited = 0;

	expect_irq(disk.exp);
	irq_host_advance_ns(WALK_LATENCY_NS);
	disk.done = true;
	if (!lost) {
		raise_irq();
		return;
	}
	while (disk.completions == before && waited < WALK_LOST_WAIT_NS) {
		irq_host_advance_ns(10000);
		waited += 10000;
	}
	if (disk.completions == before) {
		fprintf(stderr, "walk: the lost command was not found by polling in %llu ms\n",
			(unsigned long long)(WALK_LOST_WAIT_NS / 1000000));
		exit(1);
	}
}

static void begin(const char *name)
{
	fflush(stdout);
	printf("walk BEGIN %s\n", name);
	walk_events = 0;
	walk_on = true;
}

static void end(const char *name)
{
	walk_on = false;
	if (walk_events > WALK_EVENTS_MAX) {
		fprintf(stderr, "walk: %s: more than %u events\n", name, WALK_EVENTS_MAX);
		exit(1);
	}
	printf("walk END %s\n", name);
}

int main(void)
{
	unsigned int i;

	irq_host_reset();
	irq_core_init();
	irq_defences_start();
	irq_port_timer_init(&tick_timer, tick_fn, NULL);
	irq_port_timer_arm(&tick_timer, irq_host_now_ns() + WALK_TICK_NS);
	irq_tick_start(WALK_TICK_NS);
	if (irq_set_chip_and_handler(WALK_LINE, &walk_chip, handle_edge_irq, NULL, WALK_LINE) ||
	    request_irq(WALK_LINE, disk_handler, 0, "disk", &disk)) {
		fprintf(stderr, "walk: could not set up line %d\n", WALK_LINE);
		return 1;
	}
	disk.exp = init_irq_expect(WALK_LINE, &disk);
	if (!disk.exp) {
		fprintf(stderr, "walk: no expect token\n");
		return 1;
	}

	begin("first");
	command(false);
	end("first");

	for (i = 0; i < WALK_WARMUP; i++) {
		command(false);
		irq_host_advance_ns(WALK_LATENCY_NS);
	}
	begin("verified");
	command(false);
	end("verified");

	irq_host_advance_ns(WALK_LATENCY_NS);
	begin("lost");
	command(true);
	irq_host_advance_ns(WALK_LATENCY_NS);
	expect_irq(disk.exp);  /* the next command: its expect_irq gives the lost one's verdict */
	end("lost");
	unexpect_irq(disk.exp, true);
	free_irq(WALK_LINE, &disk);
	return 0;
}
