/*
 * rv64_run.c - the portable interrupt core running on a 64-bit RISC-V hart
 * in machine mode (QEMU's virt board) through the template port
 * (kernel/irq/template/port_template.c, its RISC-V section: mstatus.MIE
 * save/restore, the amoswap lock, the CLINT's mtime as the clock and its
 * mtimecmp as the one-shot alarm), with a real device: the board's NS16550
 * UART, whose interrupt reaches the hart through the PLIC, the irq_chip
 * here (claim/complete, priorities, enables; irq_pending from the PLIC's
 * pending and enable bits). `make cross` builds it and
 * tests/cross/rv64_check.py boots it and judges the lines it prints; the
 * program decides nothing.
 *
 * The device's driver sends text by interrupt (the 16550's "transmitter
 * holding register empty" interrupt, THRE): up to 16 bytes per interrupt,
 * the completion is the last byte. The program takes it through an
 * interrupt, a line disabled and enabled, a lost interrupt (the PLIC
 * enable bit cleared behind the core's back: the core's expect poll must
 * find the completion) and a flood (the UART's receive interrupt, which the
 * driver does not handle, held asserted by a byte looped back into the
 * receiver: the core must disable the line, poll it, and give it back once
 * the flood is over).
 *
 * Facts used: QEMU 7.2 hw/riscv/virt.c memory map (UART0 at 0x10000000 on
 * PLIC source 10, PLIC at 0x0c000000, CLINT at 0x02000000 with mtime at
 * 10 MHz, the SiFive test finisher at 0x100000); SiFive PLIC specification
 * (RISC-V PLIC Specification 1.0.0: priority 4 bytes per source at 0,
 * pending bits at 0x1000, enable bits per context at 0x2000 + 0x80 * ctx,
 * threshold and claim/complete per context at 0x200000 + 0x1000 * ctx;
 * context 0 is hart 0's machine mode on virt); the NS16550A data sheet
 * (IER, IIR, LSR, MCR bits; loopback mode sends the transmitter's output to
 * the receiver); RISC-V Privileged Architecture 3.1.9 (mie/mip: MEIE bit 11,
 * MTIE bit 7) and 3.1.15 (mcause).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include <irq/interrupt.h>
#include <irq/irqchip.h>
#include <irq/policy.h>
#include <irq/stats.h>
#include <irq_port_host.h>
#include <kernel/format.h>

/* ---- Board: QEMU virt ----------------------------------------------------- */

#define UART0_BASE      0x10000000ul
#define UART0_IRQ       10u           /* its PLIC source, and the kernel/irq line here */
#define PLIC_BASE       0x0c000000ul
#define PLIC_SOURCES    96u           /* QEMU virt's VIRT_IRQCHIP_NUM_SOURCES */
#define PLIC_CONTEXT    0u            /* hart 0, machine mode */
#define TEST_BASE       0x00100000ul  /* the SiFive test finisher: a write ends QEMU */
#define TEST_PASS       0x5555u       /* exit status 0 */
#define TEST_FAIL       0x3333u       /* exit status (code << 16 | 0x3333) >> 16 ... 1 with code 1 */
#define MTIME_ADDR      0x0200bff8ul  /* the CLINT's mtime, read here only to wait */
#define MTIME_HZ        10000000ull

/* PLIC registers (RISC-V PLIC specification 1.0.0, chapter 3). */
#define PLIC_PRIORITY(src)   (PLIC_BASE + 4 * (src))                  /* 0 = never interrupts */
#define PLIC_PENDING(src)    (PLIC_BASE + 0x1000 + 4 * ((src) / 32))  /* one bit per source, read-only */
#define PLIC_ENABLE(ctx, src) (PLIC_BASE + 0x2000 + 0x80 * (ctx) + 4 * ((src) / 32))
#define PLIC_THRESHOLD(ctx)  (PLIC_BASE + 0x200000 + 0x1000 * (ctx))  /* priorities above it interrupt */
#define PLIC_CLAIM(ctx)      (PLIC_BASE + 0x200004 + 0x1000 * (ctx))  /* read: claim; write: complete */
/* The priority every source of this program gets (1..7 on virt; above threshold 0). */
#define PLIC_PRIO_DEVICE     1u

/* NS16550A registers, one byte apart on virt. */
#define UART_RBR        0u     /* read: received byte */
#define UART_THR        0u     /* write: byte to send */
#define UART_IER        1u     /* interrupt enable */
#define UART_IIR        2u     /* read: interrupt identification */
#define UART_FCR        2u     /* write: FIFO control */
#define UART_LCR        3u     /* line control */
#define UART_MCR        4u     /* modem control */
#define UART_LSR        5u     /* line status */
#define UART_IER_RDI    0x01u  /* received data available */
#define UART_IER_THRI   0x02u  /* transmitter holding register empty */
#define UART_IIR_NO_INT 0x01u  /* bit 0 set: nothing pending */
#define UART_IIR_ID     0x0eu  /* the pending source of highest priority */
#define UART_IIR_THRI   0x02u  /* ... THR empty */
#define UART_LCR_8N1    0x03u
#define UART_MCR_OUT2   0x08u  /* gates the interrupt output on PC boards */
#define UART_MCR_LOOP   0x10u  /* loopback: the transmitter feeds the receiver */
#define UART_LSR_DR     0x01u  /* a received byte waits in RBR */
#define UART_LSR_THRE   0x20u  /* THR can take a byte */
/* Bytes written per THRE interrupt: the transmit FIFO depth of a 16550A. */
#define UART_TX_BURST   16u

/* mie / mcause (Privileged Architecture 3.1.9, 3.1.15). */
#define MIE_MTIE        (1ul << 7)
#define MIE_MEIE        (1ul << 11)
#define MCAUSE_IRQ      (1ul << 63)
#define MCAUSE_MTI      7ul
#define MCAUSE_MEI      11ul

/* Bounds of the scenario, in ms of mtime. */
#define RV_WAIT_MS      2000u  /* longest wait for anything */
#define RV_DISABLED_MS  20u    /* how long a disabled line is watched for a run that must not happen */
#define RV_FLOOD_MS     50u    /* how long the program runs on while the flood goes on */
/* Most interrupts one claim loop takes before returning to the interrupted code. */
#define RV_CLAIMS_PER_TRAP 8u

static inline void mmio_write32(unsigned long addr, uint32_t v) { *(volatile uint32_t *)addr = v; }
static inline uint32_t mmio_read32(unsigned long addr) { return *(volatile uint32_t *)addr; }
static inline void uart_write(unsigned int reg, uint8_t v) { *(volatile uint8_t *)(UART0_BASE + reg) = v; }
static inline uint8_t uart_read(unsigned int reg) { return *(volatile uint8_t *)(UART0_BASE + reg); }

static uint64_t mtime_ms(void)
{
	return *(volatile uint64_t *)MTIME_ADDR / (MTIME_HZ / 1000);
}

/* ---- Console: polled output on the same UART ---------------------------- */

/*
 * One byte, polled. In loopback mode (the flood below) the byte would go to
 * the receiver instead of the wire, so the console leaves loopback for the
 * byte and restores it: the fault stays in place.
 */
static void console_putc(char c)
{
	uint8_t mcr = uart_read(UART_MCR);
	unsigned int spins;

	if (mcr & UART_MCR_LOOP)
		uart_write(UART_MCR, mcr & ~UART_MCR_LOOP);
	for (spins = 0; spins < 100000 && !(uart_read(UART_LSR) & UART_LSR_THRE); spins++)
		;
	uart_write(UART_THR, (uint8_t)c);
	if (mcr & UART_MCR_LOOP)
		uart_write(UART_MCR, mcr);
}

static void rv_vprint(const char *fmt, va_list ap)
{
	char line[512];  /* the core's longest message is about 250 characters */
	int n = kvsnprintf(line, sizeof(line), fmt, ap);

	for (int i = 0; i < n && i < (int)sizeof(line) - 1; i++)
		console_putc(line[i]);
}

static void __attribute__((format(printf, 1, 2))) rv_print(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rv_vprint(fmt, ap);
	va_end(ap);
}

/*
 * The core's log goes to the console with its level, as a printk would,
 * formatted by the template's own formatter (irq_template_set_console): the
 * path of a kernel whose printf lacks the core's conversions.
 */
static void rv_core_line(int level, const char *line)
{
	rv_print("<%d>%s", level, line);
}

static __attribute__((noreturn)) void rv_exit(bool pass)
{
	mmio_write32(TEST_BASE, pass ? TEST_PASS : (1u << 16 | TEST_FAIL));
	for (;;)
		__asm__ volatile("wfi");
}

/* ---- The PLIC as an irq_chip ----------------------------------------------- */

static void plic_enable_bit(unsigned int src, bool on)
{
	unsigned long reg = PLIC_ENABLE(PLIC_CONTEXT, src);
	uint32_t bit = 1u << (src % 32);

	mmio_write32(reg, on ? mmio_read32(reg) | bit : mmio_read32(reg) & ~bit);
}

static bool plic_enabled(unsigned int src)
{
	return mmio_read32(PLIC_ENABLE(PLIC_CONTEXT, src)) & (1u << (src % 32));
}

static bool plic_pending_bit(unsigned int src)
{
	return mmio_read32(PLIC_PENDING(src)) & (1u << (src % 32));
}

static void plic_mask(struct irq_data *d) { plic_enable_bit(d->hwirq, false); }
static void plic_unmask(struct irq_data *d)
{
	plic_enable_bit(d->hwirq, true);
	/*
	 * QEMU 7.2's PLIC re-evaluates its output to the hart on a change of a
	 * pending bit, a priority, the threshold or a claim, but not on an enable
	 * write: a request pending while masked would wait for the next such
	 * change. Writing the threshold back (unchanged: harmless on hardware)
	 * makes it look now.
	 */
	mmio_write32(PLIC_THRESHOLD(PLIC_CONTEXT), mmio_read32(PLIC_THRESHOLD(PLIC_CONTEXT)));
}

/*
 * Complete the claim. The specification ignores a completion for a source
 * that is not enabled for the context, and the fasteoi flow completes a line
 * it has just masked (an interrupt that came while disabled): enable the
 * source for the write, as Linux's PLIC driver does, or the gateway would
 * never forward the source again.
 */
static void plic_eoi(struct irq_data *d)
{
	if (!plic_enabled(d->hwirq)) {
		plic_enable_bit(d->hwirq, true);
		mmio_write32(PLIC_CLAIM(PLIC_CONTEXT), d->hwirq);
		plic_enable_bit(d->hwirq, false);
		return;
	}
	mmio_write32(PLIC_CLAIM(PLIC_CONTEXT), d->hwirq);
}

/*
 * The request is on its way to this hart when the gateway has it pending,
 * the source is enabled for the context (read from the PLIC, so an enable
 * bit cleared behind the core's back answers 0) and its priority is above
 * the threshold. A claimed source is not pending, so an interrupt being
 * handled answers 0. Three register reads, no side effect.
 */
static int plic_irq_pending(struct irq_data *d)
{
	if (d->hwirq >= PLIC_SOURCES)
		return -1;
	return plic_pending_bit(d->hwirq) && plic_enabled(d->hwirq) &&
	       mmio_read32(PLIC_PRIORITY(d->hwirq)) > mmio_read32(PLIC_THRESHOLD(PLIC_CONTEXT));
}

static const struct irq_chip plic_chip = {
	.name = "PLIC", .mask = plic_mask, .unmask = plic_unmask, .eoi = plic_eoi,
	.irq_pending = plic_irq_pending,
};

/* ---- The UART's driver: text sent by the THRE interrupt --------------------- */

struct uart_tx {
	const char *text;          /* what is being sent */
	unsigned int len, pos;     /* its length, bytes sent */
	volatile uint32_t done;    /* completions: texts sent whole */
	volatile uint64_t done_ms; /* when the last one completed */
	struct irq_expect *token;
};

static struct uart_tx tx;
/* The line as the chip sees it, to ask irq_pending from the program (the core asks it in polls). */
#define UART_IRQ_DATA { .irq = UART0_IRQ, .hwirq = UART0_IRQ }

/*
 * Poll-safe: it claims only work the UART really has (IIR says THRE), so a
 * poll of the line, or an interrupt of the receiver it does not handle,
 * gets IRQ_NONE. Reading IIR when it says THRE clears that interrupt.
 */
static irqreturn_t uart_irq(unsigned int irq, void *dev_id)
{
	struct uart_tx *t = dev_id;
	uint8_t iir = uart_read(UART_IIR);
	unsigned int n;

	(void)irq;
	if ((iir & UART_IIR_NO_INT) || (iir & UART_IIR_ID) != UART_IIR_THRI || !t->text)
		return IRQ_NONE;
	for (n = 0; n < UART_TX_BURST && t->pos < t->len && (uart_read(UART_LSR) & UART_LSR_THRE); n++)
		uart_write(UART_THR, (uint8_t)t->text[t->pos++]);
	if (t->pos == t->len) {
		uart_write(UART_IER, 0);  /* nothing more to send */
		t->text = NULL;
		t->done_ms = mtime_ms();
		t->done++;
		unexpect_irq(t->token, false);
	}
	return IRQ_HANDLED;
}

/* Start sending @text by interrupt: expect the completion, then enable THRE. */
static void uart_send(const char *text)
{
	unsigned int len = 0;

	while (text[len])
		len++;
	tx.pos = 0;
	tx.len = len;
	tx.text = text;
	expect_irq(tx.token);
	uart_write(UART_IER, UART_IER_THRI);
}

/* ---- Traps ------------------------------------------------------------------ */

void rv_trap(unsigned long mcause, unsigned long mepc);
void rv_trap(unsigned long mcause, unsigned long mepc)
{
	unsigned int claims;

	if (mcause == (MCAUSE_IRQ | MCAUSE_MTI)) {
		irq_template_timer_interrupt();
		return;
	}
	if (mcause == (MCAUSE_IRQ | MCAUSE_MEI)) {
		/* Claim until the PLIC has nothing (claim 0), bounded. */
		for (claims = 0; claims < RV_CLAIMS_PER_TRAP; claims++) {
			uint32_t src = mmio_read32(PLIC_CLAIM(PLIC_CONTEXT));

			if (!src)
				break;
			/*
			 * -ENODEV (no chip on the line) or -EINVAL (no such line): the
			 * core ran no flow and sent no EOI, so complete the claim here.
			 */
			if (generic_handle_irq(src) != 0)
				mmio_write32(PLIC_CLAIM(PLIC_CONTEXT), src);
		}
		irq_template_interrupt_done();  /* this hart ran: the defences' sign (port.h, irq_port_cpu_progress) */
		return;
	}
	rv_print("rv: fault: mcause 0x%lx at 0x%lx\n", mcause, mepc);
	rv_exit(false);
}

/* ---- The scenario ------------------------------------------------------------- */

/* Wait until @cond or RV_WAIT_MS; RETURNS the ms waited (busy: under -icount time is instructions). */
#define WAIT_MS(cond, limit_ms) ({                                    \
	uint64_t start_ = mtime_ms();                                 \
	while (!(cond) && mtime_ms() - start_ < (limit_ms))           \
		__asm__ volatile("" ::: "memory");                   \
	(unsigned int)(mtime_ms() - start_);                          \
})

static void print_line_stats(const char *when)
{
	struct irq_line_stats st;

	if (irq_get_line_stats(UART0_IRQ, &st) == 0)
		rv_print("rv: %s: delivered=%llu handled=%llu unhandled=%llu polled=%llu\n", when,
			 (unsigned long long)st.delivered, (unsigned long long)st.handled,
			 (unsigned long long)st.unhandled, (unsigned long long)st.polled);
}

static unsigned long irqs_off(void)
{
	unsigned long mstatus;

	__asm__ volatile("csrrci %0, mstatus, 8" : "=r"(mstatus) : : "memory");
	return mstatus & 8;
}

static void irqs_on(void)
{
	__asm__ volatile("csrsi mstatus, 8" : : : "memory");
}

/* 1. A real interrupt; irq_pending seen at 1 while the hart had interrupts off. */
static void case_interrupt(void)
{
	struct irq_data d = UART_IRQ_DATA;
	int pending;
	unsigned int waited;

	irqs_off();
	uart_send("TX1 sent by the THRE interrupt\n");
	/* Let the UART's level reach the PLIC's gateway: a few register reads. */
	(void)uart_read(UART_LSR);
	pending = plic_chip.irq_pending(&d);
	irqs_on();
	waited = WAIT_MS(tx.done >= 1, RV_WAIT_MS);
	rv_print("rv: interrupt: completions %u after %u ms, irq_pending with interrupts off %d\n",
		 (unsigned int)tx.done, waited, pending);
	print_line_stats("interrupt");
}

/* 2. Disabled: nothing runs for RV_DISABLED_MS; enable_irq delivers the held request. */
static void case_disabled(void)
{
	struct irq_data d = UART_IRQ_DATA;
	unsigned int waited;

	disable_irq(UART0_IRQ);
	uart_send("TX2 held while disabled\n");
	waited = WAIT_MS(tx.done >= 2, RV_DISABLED_MS);
	rv_print("rv: disabled: completions %u after %u ms, PLIC pending %d, irq_pending %d\n",
		 (unsigned int)tx.done, waited, plic_pending_bit(UART0_IRQ), plic_chip.irq_pending(&d));
	enable_irq(UART0_IRQ);
	waited = WAIT_MS(tx.done >= 2, RV_WAIT_MS);
	rv_print("rv: enabled: completions %u after %u ms\n", (unsigned int)tx.done, waited);
	print_line_stats("enabled");
}

/*
 * 3. Lost: the PLIC enable bit cleared behind the core's back; the expect
 * poll finds each completion. Two in a row: the core judges a completion
 * found by polling at the next one (was the interrupt only late?), and a
 * second lost one makes the first a lost interrupt, announced.
 */
static void case_lost(void)
{
	static const char *const texts[2] = { "TX3 found by polling\n", "TX4 found by polling too\n" };
	struct irq_data d = UART_IRQ_DATA;
	unsigned int i;

	plic_enable_bit(UART0_IRQ, false);
	for (i = 0; i < 2; i++) {
		uint64_t start = mtime_ms();
		int pending;

		uart_send(texts[i]);
		(void)uart_read(UART_LSR);
		pending = plic_chip.irq_pending(&d);
		(void)WAIT_MS(tx.done >= 3 + i, RV_WAIT_MS);
		rv_print("rv: lost: completions %u after %u ms, PLIC pending %d, irq_pending %d\n",
			 (unsigned int)tx.done, (unsigned int)(tx.done_ms - start), plic_pending_bit(UART0_IRQ), pending);
	}
	plic_enable_bit(UART0_IRQ, true);  /* the fault undone: the core never knew */
	print_line_stats("lost");
}

/*
 * 4. A flood: the receive interrupt, which the driver does not handle, on,
 * and bytes arriving without pause that nobody reads: a babbling peer,
 * played by this program through the UART's loopback (each byte it sends
 * arrives in the receiver). QEMU 7.2's PLIC takes a request at each rise of
 * a source, not from a level held after the completion, so a held level
 * alone would interrupt once here; every looped-back byte raises it again.
 */
static unsigned int flood_bytes(unsigned int limit_ms, bool until_off)
{
	struct irq_line_health h;
	uint64_t start = mtime_ms();
	unsigned int bytes = 0;

	while (mtime_ms() - start < limit_ms) {
		if (until_off && irq_get_line_health(UART0_IRQ, &h) == 0 && h.flood_off)
			break;
		uart_write(UART_THR, 'x');
		bytes++;
	}
	return bytes;
}

static void case_flood(void)
{
	struct irq_line_health h;
	struct irq_line_stats st0, st1;
	uint64_t start, t0;
	unsigned int bytes, waited;

	irq_get_line_stats(UART0_IRQ, &st0);
	start = mtime_ms();
	/* The fault: loopback on, the receive interrupt on, bytes without end. */
	uart_write(UART_MCR, UART_MCR_OUT2 | UART_MCR_LOOP);
	uart_write(UART_IER, UART_IER_RDI);
	bytes = flood_bytes(RV_WAIT_MS, true);
	irq_get_line_stats(UART0_IRQ, &st1);
	irq_get_line_health(UART0_IRQ, &h);
	rv_print("rv: flood: line off %d after %u ms, %u bytes, %llu interrupts, %llu unhandled\n", h.flood_off,
		 (unsigned int)(mtime_ms() - start), bytes, (unsigned long long)(st1.delivered - st0.delivered),
		 (unsigned long long)(st1.unhandled - st0.unhandled));
	/* The device floods on; the line is off and polled, the program runs. */
	st0 = st1;
	t0 = mtime_ms();
	bytes = flood_bytes(RV_FLOOD_MS, false);
	irq_get_line_stats(UART0_IRQ, &st1);
	irq_get_line_health(UART0_IRQ, &h);
	rv_print("rv: flood: %u ms more, %u bytes, %llu interrupts, line off %d\n", (unsigned int)(mtime_ms() - t0),
		 bytes, (unsigned long long)(st1.delivered - st0.delivered), h.flood_off);
	/* The fault undone: interrupt off, loopback off, the byte and the overrun read. */
	uart_write(UART_IER, 0);
	uart_write(UART_MCR, UART_MCR_OUT2);
	(void)uart_read(UART_RBR);
	(void)uart_read(UART_LSR);
	t0 = mtime_ms();
	waited = WAIT_MS(irq_get_line_health(UART0_IRQ, &h) == 0 && !h.flood_off, RV_WAIT_MS);
	rv_print("rv: flood over: line back after %u ms, floods %u\n", waited, (unsigned int)h.floods);
}

/* 5. After the flood the line delivers again. */
static void case_after(void)
{
	struct irq_line_stats st0, st1;
	unsigned int waited;

	irq_get_line_stats(UART0_IRQ, &st0);
	uart_send("TX5 after the flood\n");
	waited = WAIT_MS(tx.done >= 5, RV_WAIT_MS);
	irq_get_line_stats(UART0_IRQ, &st1);
	rv_print("rv: after: completions %u after %u ms, %llu handled by interrupt, %llu polled\n",
		 (unsigned int)tx.done, waited, (unsigned long long)(st1.handled - st0.handled),
		 (unsigned long long)(st1.polled - st0.polled));
}

void rv_main(void);
void rv_main(void)
{
	extern uint64_t rv_bss_start[], rv_bss_end[];
	uint64_t *p;

	for (p = rv_bss_start; p < rv_bss_end; p++)
		*p = 0;
	uart_write(UART_IER, 0);
	uart_write(UART_LCR, UART_LCR_8N1);
	uart_write(UART_FCR, 0);            /* no FIFO: one THR, as a 16450 */
	uart_write(UART_MCR, UART_MCR_OUT2);

	/* docs/porting.md, "First boot": log (and the clock: the template's CLINT), core, chips, defences, drivers. */
	irq_template_set_console(rv_core_line);
	rv_print("rv: kernel/irq on RV64 machine mode, template port, QEMU virt\n");
	irq_core_init();
	mmio_write32(PLIC_THRESHOLD(PLIC_CONTEXT), 0);
	mmio_write32(PLIC_PRIORITY(UART0_IRQ), PLIC_PRIO_DEVICE);
	rv_print("rv: chip %d\n", irq_set_chip_and_handler(UART0_IRQ, &plic_chip, handle_fasteoi_irq, NULL, UART0_IRQ));
	irq_defences_start();
	rv_print("rv: request %d\n", request_irq(UART0_IRQ, uart_irq, 0, "uart0", &tx));
	tx.token = init_irq_expect(UART0_IRQ, &tx);
	rv_print("rv: token %s\n", tx.token ? "yes" : "no");
	__asm__ volatile("csrs mie, %0" : : "r"(MIE_MEIE | MIE_MTIE) : "memory");
	irqs_on();

	case_interrupt();
	case_disabled();
	case_lost();
	case_flood();
	case_after();
	print_line_stats("end");
	irq_health_report();
	free_irq(UART0_IRQ, &tx);
	rv_print("rv: done\n");
	rv_exit(true);
}
