/*
 * proof.c - the UART driver and the scenario every device run of `make
 * cross` goes through (proof.h says what and why; tests/cross/rv64_run.c
 * and tests/cross/a64_run.c are the boards; tests/cross/proof_check.py
 * judges the lines). Nothing here knows the CPU or the controller: it
 * reaches them through struct proof_board, and the core through its
 * driver API, as a driver of any kernel would.
 *
 * The driver is the driver-side example of docs/porting.md in code: one
 * request slot, so one expect token (init_irq_expect() once, after
 * request_irq()); expect_irq() before the command starts (the first burst
 * written and the transmit interrupt enabled); unexpect_irq(token, false)
 * in the handler that finds the text sent; a poll-safe handler that asks
 * the device first and returns IRQ_NONE when it has nothing.
 */
#include "proof.h"
#include "cross_console.h"

#include <irq/policy.h>
#include <irq/port.h>
#include <irq/stats.h>

/* Bounds of the scenario, in ms of guest time. */
#define PROOF_WAIT_MS      2000u  /* longest wait for anything */
#define PROOF_DISABLED_MS  20u    /* how long a disabled line is watched for a run that must not happen */
#define PROOF_GOES_ON_MS   50u    /* how long the program runs on while a flood or a storm goes on */
/* The bytes the claimed storm's handler sends per interrupt: one, so an interrupt is cheap. */
#define PROOF_STORM_BYTE   's'

static const struct proof_board *B;
static struct proof_tx tx;

static uint64_t now_ms(void)
{
	return B->now_us() / 1000;
}

/* Wait until @cond or @limit_ms; RETURNS the ms waited (busy: under -icount time is instructions). */
#define WAIT_MS(cond, limit_ms) ({                                    \
	uint64_t start_ = now_ms();                                   \
	while (!(cond) && now_ms() - start_ < (limit_ms))             \
		__asm__ volatile("" ::: "memory");                   \
	(unsigned int)(now_ms() - start_);                            \
})

/* ---- The driver ------------------------------------------------------------- */

/*
 * Poll-safe: it claims only work the UART really has (the transmitter asks
 * for bytes), so a poll of the line, or an interrupt the driver does not
 * handle, gets IRQ_NONE. In the claimed storm it sends one byte per
 * interrupt and claims each: a device that interrupts faster than useful.
 */
static irqreturn_t proof_uart_irq(unsigned int irq, void *dev_id)
{
	struct proof_tx *t = dev_id;
	const struct proof_uart *u = B->uart;
	unsigned int n;

	(void)irq;
	if (!u->tx_wants())
		return IRQ_NONE;
	if (t->storm) {
		u->tx_ack();
		u->tx_put(PROOF_STORM_BYTE);
		t->storm_bytes++;
		return IRQ_HANDLED;
	}
	if (!t->text)
		return IRQ_NONE;  /* nothing to send: not this driver's interrupt to clear */
	u->tx_ack();
	for (n = 0; n < u->burst && t->pos < t->len && u->tx_room(); n++)
		u->tx_put((uint8_t)t->text[t->pos++]);
	if (t->pos == t->len) {
		u->tx_irq(false);  /* nothing more to send */
		t->text = NULL;
		t->done_us = B->now_us();
		t->done++;
		/* The completion: the token's command is over, found by this interrupt (or poll). */
		unexpect_irq(t->token, false);
	}
	return IRQ_HANDLED;
}

/*
 * Start sending @text: expect the completion first (the device may finish
 * at once), then the transmit interrupt on; where the UART raises it only
 * after a write, the first burst from here, as Linux's serial drivers
 * start a transmission. With this CPU's interrupts off, as a driver holds
 * its lock: a poll of the line cannot run the handler half-way through.
 */
static void proof_send(const char *text)
{
	const struct proof_uart *u = B->uart;
	unsigned long on = B->irqs_off();
	unsigned int len = 0, n;

	while (text[len])
		len++;
	tx.pos = 0;
	tx.len = len;
	tx.text = text;
	expect_irq(tx.token);
	for (n = 0; u->first_burst_by_send && n < u->burst && tx.pos < tx.len && u->tx_room(); n++)
		u->tx_put((uint8_t)text[tx.pos++]);
	u->tx_irq(true);
	if (on)
		B->irqs_on();
}

/* ---- The scenario ------------------------------------------------------------ */

static void stats(struct irq_line_stats *st)
{
	if (irq_get_line_stats(B->irq, st) != 0)
		*st = (struct irq_line_stats){ 0 };
}

static void health(struct irq_line_health *h)
{
	if (irq_get_line_health(B->irq, h) != 0)
		*h = (struct irq_line_health){ 0 };
}

static void print_line_stats(const char *when)
{
	struct irq_line_stats st;

	stats(&st);
	cross_print("%s: %s: delivered=%llu handled=%llu unhandled=%llu polled=%llu\n", B->tag, when,
		    (unsigned long long)st.delivered, (unsigned long long)st.handled,
		    (unsigned long long)st.unhandled, (unsigned long long)st.polled);
}

/* The chip's irq_pending for the line, asked as the core asks it in polls (interrupts off). */
static int line_irq_pending(void)
{
	struct irq_data d = { .irq = B->irq, .hwirq = B->hwirq };

	return B->chip->irq_pending ? B->chip->irq_pending(&d) : -1;
}

/* 1. A real interrupt; irq_pending seen at 1 while this CPU had interrupts off. */
static void case_interrupt(void)
{
	unsigned int waited;
	unsigned long on;
	int pending;

	on = B->irqs_off();
	proof_send("TX1 sent by the transmit interrupt\n");
	/* Let the UART's level reach the controller: a register read or two. */
	(void)B->chip_pending();
	pending = line_irq_pending();
	if (on)
		B->irqs_on();
	waited = WAIT_MS(tx.done >= 1, PROOF_WAIT_MS);
	cross_print("%s: interrupt: completions %u after %u ms, irq_pending with interrupts off %d\n", B->tag,
		    (unsigned int)tx.done, waited, pending);
	print_line_stats("interrupt");
}

/* 2. Disabled: nothing runs for PROOF_DISABLED_MS; enable_irq delivers the held request. */
static void case_disabled(void)
{
	unsigned int waited;

	disable_irq(B->irq);
	proof_send("TX2 held while disabled\n");
	waited = WAIT_MS(tx.done >= 2, PROOF_DISABLED_MS);
	cross_print("%s: disabled: completions %u after %u ms, controller pending %d, irq_pending %d\n", B->tag,
		    (unsigned int)tx.done, waited, B->chip_pending(), line_irq_pending());
	enable_irq(B->irq);
	waited = WAIT_MS(tx.done >= 2, PROOF_WAIT_MS);
	cross_print("%s: enabled: completions %u after %u ms\n", B->tag, (unsigned int)tx.done, waited);
	print_line_stats("enabled");
}

/*
 * 3. Lost: the source's enable at the controller cleared behind the core's
 * back; the expect poll finds each completion. Two in a row: the core
 * judges a completion found by polling at the next one (was the interrupt
 * only late?), and a second lost one makes the first a lost interrupt,
 * announced.
 */
static void case_lost(void)
{
	static const char *const texts[2] = { "TX3 found by polling\n", "TX4 found by polling too\n" };
	unsigned int i;

	B->lose(true);
	for (i = 0; i < 2; i++) {
		uint64_t start = B->now_us();
		unsigned long on;
		int pending;

		on = B->irqs_off();
		proof_send(texts[i]);
		(void)B->chip_pending();
		pending = line_irq_pending();
		if (on)
			B->irqs_on();
		(void)WAIT_MS(tx.done >= 3 + i, PROOF_WAIT_MS);
		cross_print("%s: lost: completions %u after %u ms, controller pending %d, irq_pending %d\n", B->tag,
			    (unsigned int)tx.done, (unsigned int)((tx.done_us - start) / 1000), B->chip_pending(), pending);
	}
	B->lose(false);  /* the fault undone: the core never knew */
	print_line_stats("lost");
}

/*
 * 4. A flood: an interrupt the driver does not handle, raised without end
 * (the board's device says how). The core must disable the line, poll it,
 * leave it off while the device goes on, and give it back after its
 * back-off once the device is quiet.
 */
static unsigned int flood_steps(unsigned int limit_ms, bool until_off)
{
	struct irq_line_health h;
	uint64_t start = now_ms();
	unsigned int steps = 0;

	while (now_ms() - start < limit_ms) {
		if (until_off) {
			health(&h);
			if (h.flood_off)
				break;
		}
		B->uart->flood_step();
		steps++;
	}
	return steps;
}

static void case_flood(void)
{
	struct irq_line_health h;
	struct irq_line_stats st0, st1;
	uint64_t start, t0;
	unsigned int steps, waited, cpu;
	uint32_t progress0, progress;

	cpu = irq_port_cpu_id();
	stats(&st0);
	progress0 = irq_port_cpu_progress(cpu);
	start = now_ms();
	B->uart->flood_on();
	steps = flood_steps(PROOF_WAIT_MS, true);
	stats(&st1);
	progress = irq_port_cpu_progress(cpu) - progress0;
	health(&h);
	cross_print("%s: flood: line off %d after %u ms, %u pushes, %llu interrupts, %llu unhandled\n", B->tag,
		    h.flood_off, (unsigned int)(now_ms() - start), steps,
		    (unsigned long long)(st1.delivered - st0.delivered), (unsigned long long)(st1.unhandled - st0.unhandled));
	/*
	 * The port's evidence that this CPU ran (port.h, irq_port_cpu_progress):
	 * every interrupt it finished, the flood's among them, moved the count.
	 */
	cross_print("%s: progress: CPU %u finished %u interrupts while the line took %llu\n", B->tag, cpu,
		    (unsigned int)progress, (unsigned long long)(st1.delivered - st0.delivered));
	/* The device floods on; the line is off and polled, the program runs. */
	st0 = st1;
	t0 = now_ms();
	steps = flood_steps(PROOF_GOES_ON_MS, false);
	stats(&st1);
	health(&h);
	cross_print("%s: flood: %u ms more, %u pushes, %llu interrupts, line off %d, controller pending %d\n", B->tag,
		    (unsigned int)(now_ms() - t0), steps, (unsigned long long)(st1.delivered - st0.delivered),
		    h.flood_off, B->chip_pending());
	B->uart->flood_off();
	waited = WAIT_MS((health(&h), !h.flood_off), PROOF_WAIT_MS);
	cross_print("%s: flood over: line back after %u ms, floods %u\n", B->tag, waited, (unsigned int)h.floods);
}

/*
 * 5. A claimed storm: the driver sends one byte per interrupt and claims
 * each, for ever; no flood (nothing is unclaimed), so only the storm
 * defence can see it. The core must throttle the line (masked, polled
 * every storm_poll_ns), keep it so while the storm goes on, and give it
 * back once a storm window passes without one.
 */
static void case_storm(void)
{
	struct irq_line_health h;
	struct irq_line_stats st0, st1;
	uint32_t bytes0;
	uint64_t start, t0;
	unsigned int waited;
	unsigned long on;

	stats(&st0);
	B->uart->storm_on();
	on = B->irqs_off();
	tx.storm = true;
	start = now_ms();
	if (B->uart->first_burst_by_send) {
		/* The UART raises its transmit interrupt after a write: the storm's first byte from here. */
		B->uart->tx_put(PROOF_STORM_BYTE);
		tx.storm_bytes++;
	}
	B->uart->tx_irq(true);
	if (on)
		B->irqs_on();
	waited = WAIT_MS((health(&h), h.flood_off && (h.causes & IRQ_HEALTH_CLAIMED_STORM)), PROOF_WAIT_MS);
	stats(&st1);
	cross_print("%s: storm: throttled %d after %u ms, %llu interrupts, %llu claimed\n", B->tag,
		    (h.causes & IRQ_HEALTH_CLAIMED_STORM) != 0, waited, (unsigned long long)(st1.delivered - st0.delivered),
		    (unsigned long long)(st1.handled - st0.handled));
	/* Throttled: the device storms on, the line is masked, each poll sends a byte. */
	st0 = st1;
	bytes0 = tx.storm_bytes;
	t0 = now_ms();
	(void)WAIT_MS(false, PROOF_GOES_ON_MS);
	stats(&st1);
	health(&h);
	cross_print("%s: storm: %u ms more, %llu interrupts, %llu polls claimed, %u bytes, line off %d\n", B->tag,
		    (unsigned int)(now_ms() - t0), (unsigned long long)(st1.delivered - st0.delivered),
		    (unsigned long long)(st1.polled - st0.polled), (unsigned int)(tx.storm_bytes - bytes0), h.flood_off);
	/* The device quiet: the transmit interrupt off, the storm's setting undone. */
	tx.storm = false;
	B->uart->tx_irq(false);
	B->uart->storm_off();
	t0 = now_ms();
	waited = WAIT_MS((health(&h), !h.flood_off && !(h.causes & IRQ_HEALTH_CLAIMED_STORM)), PROOF_WAIT_MS);
	cross_print("%s: storm over: line back after %u ms, throttled %d\n", B->tag, waited,
		    (h.causes & IRQ_HEALTH_CLAIMED_STORM) != 0);
	(void)start;
}

/* 6. After the flood and the storm the line delivers by interrupt again. */
static void case_after(void)
{
	struct irq_line_stats st0, st1;
	unsigned int waited;

	stats(&st0);
	proof_send("TX5 after the flood and the storm\n");
	waited = WAIT_MS(tx.done >= 5, PROOF_WAIT_MS);
	stats(&st1);
	cross_print("%s: after: completions %u after %u ms, %llu handled by interrupt, %llu polled\n", B->tag,
		    (unsigned int)tx.done, waited, (unsigned long long)(st1.handled - st0.handled),
		    (unsigned long long)(st1.polled - st0.polled));
}

void proof_run(const struct proof_board *board)
{
	int r;

	B = board;
	/*
	 * docs/porting.md, "First boot": the board has set the log, the clock
	 * and the CPU number and called irq_core_init(); here the chip (with the
	 * trigger the controller really has), the defences, the driver.
	 */
	if (B->attach) {
		r = B->attach();
	} else {
		r = irq_set_chip_and_handler(B->irq, B->chip, B->flow, NULL, B->hwirq);
		if (r == 0 && B->trigger)
			r = irq_set_trigger(B->irq, B->trigger);
	}
	cross_print("%s: chip %d\n", B->tag, r);
	irq_defences_start();
	cross_print("%s: request %d\n", B->tag, request_irq(B->irq, proof_uart_irq, 0, "uart0", &tx));
	tx.token = init_irq_expect(B->irq, &tx);
	cross_print("%s: token %s\n", B->tag, tx.token ? "yes" : "no");
	B->irqs_on();

	case_interrupt();
	case_disabled();
	case_lost();
	case_flood();
	case_storm();
	case_after();
	print_line_stats("end");
	irq_health_report();
	free_irq(B->irq, &tx);
	cross_print("%s: done\n", B->tag);
}
