/*
 * m3_run.c - the portable interrupt core running on a Cortex-M3 (QEMU's
 * mps2-an385 board) through the template port, with real interrupts: the
 * NVIC is the irq_chip, SysTick at 1 kHz calls irq_template_timer_interrupt()
 * (the template's periodic-tick mode: no alarm), the CMSDK timer 0 counting
 * at 25 MHz, extended to 64 bits, is the clock, and a line is raised by
 * setting its NVIC pending bit. It proves that the template's CPU
 * section (PRIMASK save/restore, LDREX/STREX lock) and the core's flows and
 * polling work on a CPU that is not x86: an interrupt, a line disabled and
 * enabled, two lost completions, a flood nobody claims and a storm the
 * driver claims (the "device" raising its line again at every interrupt),
 * and the line by interrupt after both. `make cross` builds it and
 * tests/cross/m3_check.py boots it, then judges the lines it prints; the
 * program itself decides nothing.
 *
 * Facts used: ARMv7-M Architecture Reference Manual (vector table B1.5.3,
 * NVIC registers B3.4, SysTick B3.3); ARM semihosting SYS_EXIT (operation
 * 0x18 with "bkpt 0xab"); the CMSDK APB UART of the MPS2 AN385 at
 * 0x40004000 (DATA, STATE, CTRL, BAUDDIV registers) and its CMSDK APB
 * timer 0 at 0x40000000 (CTRL, VALUE, RELOAD: a 32-bit down-counter at the
 * 25 MHz peripheral clock; Arm CMSDK Technical Reference Manual, 4.4).
 */
#include <stdbool.h>
#include <stdint.h>

#include <irq/interrupt.h>
#include <irq/irqchip.h>
#include <irq/policy.h>
#include <irq/stats.h>
#include <irq/trace.h>
#include <irq_port_host.h>

#include "cross_console.h"

/* ---- Board and CPU registers ------------------------------------------- */

#define UART0_BASE     0x40004000u
#define UART_DATA      0x00u          /* write: byte to send */
#define UART_STATE     0x04u          /* bit 0: transmit buffer full */
#define UART_CTRL      0x08u          /* bit 0: transmitter enabled */
#define UART_BAUDDIV   0x10u          /* clock divider, at least 16 */
#define UART_STATE_TXFULL 0x1u
#define UART_CTRL_TXEN    0x1u

#define TIMER0_BASE    0x40000000u
#define TIMER_CTRL     0x00u          /* bit 0: enable */
#define TIMER_VALUE    0x04u          /* counts down at the peripheral clock */
#define TIMER_RELOAD   0x08u          /* loaded when VALUE reaches 0 */
#define TIMER_CTRL_EN  0x1u

#define NVIC_ISER0     0xE000E100u    /* write 1: enable (unmask) an external interrupt */
#define NVIC_ICER0     0xE000E180u    /* write 1: disable (mask) */
#define NVIC_ISPR0     0xE000E200u    /* write 1: set pending = raise the interrupt */
#define NVIC_ICPR0     0xE000E280u    /* write 1: clear pending */

#define SYST_CSR       0xE000E010u    /* SysTick control and status */
#define SYST_RVR       0xE000E014u    /* reload value */
#define SYST_CVR       0xE000E018u    /* current value (any write clears) */
#define SYST_CSR_ENABLE    0x1u
#define SYST_CSR_TICKINT   0x2u       /* exception on reaching 0 */
#define SYST_CSR_CLKSOURCE 0x4u       /* processor clock */

/* The AN385's processor clock (QEMU models 25 MHz) and the tick this program runs. */
#define M3_CPU_HZ        25000000u
#define M3_TICK_HZ       1000u
/* Nanoseconds per count of the 25 MHz timer 0. */
#define M3_NS_PER_COUNT  (1000000000u / M3_CPU_HZ)
/* The NVIC input this program raises (the AN385's devices use the low ones)... */
#define M3_LINE          30u
/* ... and the kernel/irq line it is attached to (its hwirq is M3_LINE): within the 16 lines of the minimal build. */
#define M3_IRQ           14u
/* Longest wait for one event, in ticks (ms): a bound on every loop below. */
#define M3_WAIT_TICKS    2000u
/* How long a disabled line is watched for a handler run that must not happen (ticks). */
#define M3_DISABLED_TICKS 20u
/*
 * How long a flood or a storm goes on with the line off (ticks): well inside
 * the back-off (100 ms of the clock), so the fault is still there when
 * the core would test the line again only if the back-off were broken.
 */
#define M3_GOES_ON_TICKS 20u
/* Semihosting: SYS_EXIT and its reasons (ADP_Stopped_*). */
#define SEMI_SYS_EXIT    0x18u
#define SEMI_EXIT_OK     0x20026u     /* ApplicationExit: QEMU exits with status 0 */
#define SEMI_EXIT_ERROR  0x20024u     /* RunTimeErrorUnknown: status 1 */

static inline void reg_write(uint32_t addr, uint32_t value)
{
	*(volatile uint32_t *)addr = value;
}

static inline uint32_t reg_read(uint32_t addr)
{
	return *(volatile uint32_t *)addr;
}

/* ---- Clock: timer 0, a free-running count extended to 64 bits ----------- */

static uint32_t clock_last;     /* the last count read (counting up) */
static uint64_t clock_high;     /* wraps seen, << 32 */

/*
 * The template's clock (irq_template_set_clock): runs with interrupts off, as
 * port.h asks. The 32-bit count wraps every 171 s; every read notices a wrap
 * since the last one, and SysTick reads it every millisecond. PRIMASK makes
 * the read and the update one step against the SysTick exception.
 */
static uint64_t m3_clock_ns(void)
{
	unsigned long primask;
	uint32_t now;
	uint64_t t;

	__asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask) : : "memory");
	now = ~reg_read(TIMER0_BASE + TIMER_VALUE);  /* the down-counter, turned into an up-counter */
	if (now < clock_last)
		clock_high += 1ull << 32;
	clock_last = now;
	t = clock_high | now;
	if (!(primask & 1))
		__asm__ volatile("cpsie i" : : : "memory");
	return t * M3_NS_PER_COUNT;
}

static void m3_clock_start(void)
{
	reg_write(TIMER0_BASE + TIMER_RELOAD, UINT32_MAX);
	reg_write(TIMER0_BASE + TIMER_VALUE, UINT32_MAX);
	reg_write(TIMER0_BASE + TIMER_CTRL, TIMER_CTRL_EN);
}

/* ---- Console ------------------------------------------------------------ */

static void uart_putc(char c)
{
	unsigned int spins;

	for (spins = 0; spins < 100000 && (reg_read(UART0_BASE + UART_STATE) & UART_STATE_TXFULL); spins++)
		;
	reg_write(UART0_BASE + UART_DATA, (uint8_t)c);
}

/* The board's console (tests/cross/cross_console.h): the UART, a CR before every LF. */
void cross_console_write(const char *s, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
	}
}

static __attribute__((noreturn)) void semihost_exit(uint32_t reason)
{
	register uint32_t r0 __asm__("r0") = SEMI_SYS_EXIT;
	register uint32_t r1 __asm__("r1") = reason;

	__asm__ volatile("bkpt 0xab" : : "r"(r0), "r"(r1) : "memory");
	for (;;)
		;
}

/* ---- The NVIC as an irq_chip ------------------------------------------- */

static void nvic_mask(struct irq_data *d) { reg_write(NVIC_ICER0 + 4 * (d->hwirq / 32), 1u << (d->hwirq % 32)); }
static void nvic_unmask(struct irq_data *d) { reg_write(NVIC_ISER0 + 4 * (d->hwirq / 32), 1u << (d->hwirq % 32)); }
/* The NVIC clears the pending bit itself when it takes the exception: nothing to acknowledge. */
static void nvic_ack(struct irq_data *d) { (void)d; }

static const struct irq_chip nvic_chip = {
	.name = "NVIC", .mask = nvic_mask, .unmask = nvic_unmask, .ack = nvic_ack,
};

static void nvic_raise(unsigned int hwirq)
{
	reg_write(NVIC_ISPR0 + 4 * (hwirq / 32), 1u << (hwirq % 32));
}

/* ---- The "device" and its driver ----------------------------------------- */

static volatile uint32_t ticks;          /* SysTick exceptions taken */
static volatile bool dev_ready;          /* the device has a completion */
/*
 * The device's two faults: a flood (it keeps asking with nothing for the
 * driver: every interrupt unclaimed) and a claimed storm (it keeps asking
 * and the driver claims each). Either way it raises its line again at every
 * interrupt, before the core runs (m3_line_irq): an NVIC pending bit set
 * while the core has the line masked waits there, as a held request does.
 */
static volatile bool dev_flood, dev_storm;
static volatile uint32_t dev_storm_claims;  /* interrupts and polls the driver claimed in the storm */
static volatile uint32_t dev_completions, dev_done_tick;
static struct irq_expect *dev_token;
static int dev_cookie;

static irqreturn_t dev_handler(unsigned int irq, void *dev_id)
{
	(void)irq;
	(void)dev_id;
	if (dev_storm) {
		dev_storm_claims++;
		return IRQ_HANDLED;
	}
	if (!dev_ready)
		return IRQ_NONE;
	dev_ready = false;
	dev_completions++;
	dev_done_tick = ticks;
	unexpect_irq(dev_token, false);
	return IRQ_HANDLED;
}

/* ---- Exception handlers ------------------------------------------------- */

void m3_systick(void);
void m3_systick(void)
{
	ticks++;
	irq_template_timer_interrupt();
}

void m3_line_irq(void);
void m3_line_irq(void)
{
	if (dev_flood || dev_storm)
		nvic_raise(M3_LINE);  /* the device asks again at once */
	generic_handle_irq(M3_IRQ);
	irq_template_interrupt_done();  /* this CPU ran: the defences' sign (port.h, irq_port_cpu_progress) */
}

void m3_fault(void);
void m3_fault(void)
{
	cross_print("m3: fault\n");
	semihost_exit(SEMI_EXIT_ERROR);
}

/* ---- The scenario ---------------------------------------------------------- */

/* Wait until @cond or M3_WAIT_TICKS ticks; RETURNS the ticks waited. */
#define WAIT_TICKS(cond) ({                                           \
	uint32_t start_ = ticks;                                      \
	while (!(cond) && ticks - start_ < M3_WAIT_TICKS)             \
		__asm__ volatile("wfi" ::: "memory");                \
	ticks - start_;                                               \
})

static void print_line_stats(const char *when)
{
	struct irq_line_stats st;

	if (irq_get_line_stats(M3_IRQ, &st) == 0)
		cross_print("m3: %s: delivered=%llu handled=%llu unhandled=%llu polled=%llu\n", when,
			 (unsigned long long)st.delivered, (unsigned long long)st.handled,
			 (unsigned long long)st.unhandled, (unsigned long long)st.polled);
}

/* One line of the event trace's dump (docs/trace.md), as the kernel's shell prints it. */
static void m3_trace_line(void *ctx, const char *line)
{
	(void)ctx;
	cross_print("%s\n", line);
}

/* Let @n ticks pass. */
static void m3_sleep_ticks(uint32_t n)
{
	uint32_t start = ticks;

	while (ticks - start < n)
		__asm__ volatile("wfi" ::: "memory");
}

/* Ticks until the line's flood/storm state is @off (and the claimed-storm cause @storm), at most M3_WAIT_TICKS. */
static uint32_t m3_wait_line(bool off, bool storm)
{
	struct irq_line_health h;

	return WAIT_TICKS(irq_get_line_health(M3_IRQ, &h) == 0 && h.flood_off == off &&
			  ((h.causes & IRQ_HEALTH_CLAIMED_STORM) != 0) == storm);
}

static uint64_t m3_delivered(void)
{
	struct irq_line_stats st;

	return irq_get_line_stats(M3_IRQ, &st) == 0 ? st.delivered : 0;
}

static bool m3_line_pending(void)
{
	return reg_read(NVIC_ISPR0 + 4 * (M3_LINE / 32)) & (1u << (M3_LINE % 32));
}

/*
 * The device starts asking without end, the driver claiming each
 * interrupt (@storm) or none (a flood); RETURNS the ticks until the core
 * has the line off for it, the line's counts before in @st0, after in @st1.
 */
static uint32_t m3_fault_start(bool storm, struct irq_line_stats *st0, struct irq_line_stats *st1)
{
	uint32_t waited;

	irq_get_line_stats(M3_IRQ, st0);
	if (storm)
		dev_storm = true;
	else
		dev_flood = true;
	nvic_raise(M3_LINE);
	waited = m3_wait_line(true, storm);
	irq_get_line_stats(M3_IRQ, st1);
	return waited;
}

/* The device quiet again, its held request withdrawn; RETURNS the ticks until the line is back on. */
static uint32_t m3_fault_end(void)
{
	dev_flood = false;
	dev_storm = false;
	reg_write(NVIC_ICPR0 + 4 * (M3_LINE / 32), 1u << (M3_LINE % 32));
	return m3_wait_line(false, false);
}

/*
 * 4. A flood: the device asks without end and the handler has nothing to
 * claim. The core must disable the line (the NVIC holds the request), poll
 * it, and give it back after its back-off once the device is quiet.
 */
static void m3_flood(void)
{
	struct irq_line_stats st0, st1;
	uint64_t d0;
	uint32_t waited;

	waited = m3_fault_start(false, &st0, &st1);
	cross_print("m3: flood: line off after %u ticks, %u interrupts, %u unhandled\n", (unsigned int)waited,
		    (unsigned int)(st1.delivered - st0.delivered), (unsigned int)(st1.unhandled - st0.unhandled));
	d0 = m3_delivered();
	m3_sleep_ticks(M3_GOES_ON_TICKS);  /* the line is off: the device goes on asking */
	cross_print("m3: flood: %u ticks more, %u interrupts, pending %d\n", (unsigned int)M3_GOES_ON_TICKS,
		    (unsigned int)(m3_delivered() - d0), m3_line_pending());
	cross_print("m3: flood over: line back after %u ticks\n", (unsigned int)m3_fault_end());
}

/*
 * 5. A claimed storm: the device asks without end and the driver claims
 * each. No flood (nothing unclaimed): the storm defence must throttle the
 * line (masked, polled every storm_poll_ns), and give it back once quiet.
 */
static void m3_storm(void)
{
	struct irq_line_stats st0, st1;
	uint32_t waited, c0;
	uint64_t d0, t0;

	waited = m3_fault_start(true, &st0, &st1);
	cross_print("m3: storm: throttled after %u ticks, %u interrupts, %u claimed\n", (unsigned int)waited,
		    (unsigned int)(st1.delivered - st0.delivered), (unsigned int)(st1.handled - st0.handled));
	d0 = m3_delivered();
	c0 = dev_storm_claims;
	t0 = m3_clock_ns();
	m3_sleep_ticks(M3_GOES_ON_TICKS);
	/* In ms of the clock the core reads: its storm polls are timed by it. */
	cross_print("m3: storm: %u ms more, %u interrupts, %u polls claimed\n", (unsigned int)((m3_clock_ns() - t0) / 1000000),
		    (unsigned int)(m3_delivered() - d0), (unsigned int)(dev_storm_claims - c0));
	cross_print("m3: storm over: line back after %u ticks\n", (unsigned int)m3_fault_end());
}

/* The device's next command: the driver expects its interrupt, the device completes and, unless @lost, raises its line. */
static void m3_command(bool lost)
{
	expect_irq(dev_token);
	dev_ready = true;
	if (!lost)
		nvic_raise(M3_LINE);
}

static void m3_main(void)
{
	int traced;
	uint32_t waited, start;

	reg_write(UART0_BASE + UART_BAUDDIV, 16);
	reg_write(UART0_BASE + UART_CTRL, UART_CTRL_TXEN);
	/* docs/porting.md, "First boot": log and clock, core, chips, defences, drivers. */
	irq_template_set_log(cross_core_log);
	cross_print("m3: kernel/irq on Cortex-M3, template port\n");
	m3_clock_start();
	irq_template_set_clock(m3_clock_ns, NULL);

	irq_core_init();
	cross_print("m3: chip %d\n", irq_set_chip_and_handler(M3_IRQ, &nvic_chip, handle_edge_irq, NULL, M3_LINE));
	irq_defences_start();
	cross_print("m3: request %d\n", request_irq(M3_IRQ, dev_handler, 0, "m3dev", &dev_cookie));
	dev_token = init_irq_expect(M3_IRQ, &dev_cookie);
	cross_print("m3: token %s\n", dev_token ? "yes" : "no");
	traced = irq_trace_start(NULL);  /* -IRQ_ENODEV when the build leaves the trace out */
	cross_print("m3: trace %d\n", traced);

	reg_write(SYST_RVR, M3_CPU_HZ / M3_TICK_HZ - 1);
	reg_write(SYST_CVR, 0);
	reg_write(SYST_CSR, SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE);
	waited = WAIT_TICKS(ticks >= 5);
	cross_print("m3: ticks %u after %u\n", (unsigned int)ticks, (unsigned int)waited);

	/* 1. A real interrupt: the device completes and raises its line. */
	m3_command(false);
	waited = WAIT_TICKS(dev_completions >= 1);
	cross_print("m3: interrupt: completions %u\n", (unsigned int)dev_completions);
	print_line_stats("interrupt");

	/* 2. Raised while disabled: nothing runs until enable_irq(). */
	disable_irq(M3_IRQ);
	start = ticks;
	m3_command(false);
	waited = WAIT_TICKS(dev_completions >= 2 || ticks - start >= M3_DISABLED_TICKS);

	cross_print("m3: disabled: completions %u after %u ticks\n", (unsigned int)dev_completions, (unsigned int)waited);
	enable_irq(M3_IRQ);
	waited = WAIT_TICKS(dev_completions >= 2);
	cross_print("m3: enabled: completions %u\n", (unsigned int)dev_completions);

	/*
	 * 3. Lost interrupts: the device completes, the line is never raised;
	 * the core polls. Two in a row: the core judges a completion found by
	 * polling at the next one (was the interrupt only late?), and a second
	 * lost one makes the first a lost interrupt, announced.
	 */
	for (unsigned int i = 0; i < 2; i++) {
		m3_command(true);
		waited = WAIT_TICKS(dev_completions >= 3 + i);
		cross_print("m3: lost: completions %u after %u ticks\n", (unsigned int)dev_completions, (unsigned int)waited);
	}
	print_line_stats("lost");
	/* The trace of the cases so far (the flood and the storm would overrun its ring). */
	if (traced == 0) {
		irq_trace_stop();
		irq_trace_dump(m3_trace_line, NULL);
	}
	m3_flood();
	m3_storm();

	/* 6. After both: the line delivers by interrupt again. */
	m3_command(false);
	waited = WAIT_TICKS(dev_completions >= 5);
	cross_print("m3: after: completions %u\n", (unsigned int)dev_completions);
	print_line_stats("end");
	free_irq(M3_IRQ, &dev_cookie);
	cross_print("m3: done\n");
	semihost_exit(SEMI_EXIT_OK);
}

/* ---- Start-up: vector table, .data and .bss ------------------------------ */

extern uint32_t m3_stack_top[], m3_data_load[], m3_data_start[], m3_data_end[], m3_bss_start[], m3_bss_end[];

void m3_reset(void);
void m3_reset(void)
{
	uint32_t *src = m3_data_load, *dst;

	for (dst = m3_data_start; dst < m3_data_end; )
		*dst++ = *src++;
	for (dst = m3_bss_start; dst < m3_bss_end; )
		*dst++ = 0;
	m3_main();
}

/* 16 system exceptions, then the AN385's 32 external interrupts. */
#define M3_VECTORS (16 + 32)

__attribute__((section(".vectors"), used))
static void (*const m3_vectors[M3_VECTORS])(void) = {
	[0] = (void (*)(void))m3_stack_top,
	[1] = m3_reset,
	[2] = m3_fault,           /* NMI */
	[3] = m3_fault,           /* HardFault */
	[4] = m3_fault,           /* MemManage */
	[5] = m3_fault,           /* BusFault */
	[6] = m3_fault,           /* UsageFault */
	[15] = m3_systick,
	[16 + M3_LINE] = m3_line_irq,
};
