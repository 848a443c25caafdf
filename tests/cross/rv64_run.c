/*
 * rv64_run.c - the portable interrupt core on a 64-bit RISC-V hart of
 * QEMU's virt board, through the template port, with a real device: the
 * board's NS16550A UART, whose interrupt reaches the hart through the PLIC,
 * driven by the template's PLIC chip (kernel/irq/template/plic_template.c).
 * Built twice over (tests/cross/cross.mk):
 *
 *   machine mode (-DIRQ_TEMPLATE_RISCV_M_MODE, -bios none): the template's
 *   mstatus.MIE, the CLINT's mtime as the clock and this hart's mtimecmp as
 *   the alarm; the PLIC's machine-mode context; traps through mtvec.
 *
 *   supervisor mode (-DIRQ_TEMPLATE_RISCV_S_MODE, under QEMU's default
 *   OpenSBI 1.1): the template's sstatus.SIE, the time CSR as the clock and
 *   the SBI timer (or, with -DIRQ_TEMPLATE_RISCV_SSTC, Sstc's stimecmp) as
 *   the alarm; the hart id OpenSBI hands over in a0, kept in tp (S-mode
 *   cannot read mhartid) and given to the template; the PLIC's
 *   supervisor-mode context of that hart; traps through stvec, the
 *   supervisor timer interrupt (scause 5) to the template. Nothing of the
 *   CLINT: OpenSBI's PMP closes it to S-mode, and an S-mode kernel's page
 *   tables need not map it.
 *
 * The driver and the scenario are tests/cross/proof.c (the same for every
 * board); this file is the board: the PLIC's configuration (which context
 * is whose), the UART's registers, the console (polled, on the same UART),
 * time, the faults. tests/cross/proof_check.py boots it and judges what it
 * printed.
 *
 * The template PLIC masks by priority and routes by the enable bits, for
 * any number of harts (plic_template.h says why). QEMU 7.2's PLIC takes a
 * request when the device signals one and never looks at a level again
 * after the completion (hw/intc/sifive_plic.c: pending follows the
 * device's qemu_set_irq calls; the claim clears it; the completion only
 * clears the claim): a level still held after the completion is not a new
 * request. So the configuration says edge_only and the line is declared
 * edge-triggered: a request that came while the line could not run (the
 * fasteoi flow's "mask, pending, eoi": on another hart, or during a poll)
 * is replayed by the core in software, where a level line would wait for a
 * re-assertion QEMU never sends.
 *
 * Facts used: QEMU 7.2 hw/riscv/virt.c memory map (UART0 at 0x10000000 on
 * PLIC source 10, PLIC at 0x0c000000 with 96 sources, CLINT at 0x02000000
 * with mtime at 10 MHz, the SiFive test finisher at 0x100000) and its PLIC
 * contexts (hart h: machine mode 2h, supervisor mode 2h + 1, as the device
 * tree's interrupts-extended lists them); RISC-V PLIC Specification 1.0.0
 * (pending bits at 0x1000, enable bits per context at 0x2000 + 0x80 *
 * ctx); the NS16550A data sheet (IER, IIR, LSR, MCR bits; loopback sends
 * the transmitter's output to the receiver); RISC-V Privileged
 * Architecture 3.1.9 and 4.1.3 (mie/sie: MEIE 11, MTIE 7, SEIE 9, STIE 5),
 * 3.1.15 and 4.1.8 (mcause/scause); the SBI specification 2.0, chapter 3
 * (a0 = hart id at entry).
 */
#include <stdbool.h>
#include <stdint.h>

#include <irq/interrupt.h>
#include <irq/irqchip.h>
#include <irq_port_host.h>
#include <plic_template.h>

#include "cross_console.h"
#include "proof.h"

#if defined(IRQ_TEMPLATE_RISCV_M_MODE) == defined(IRQ_TEMPLATE_RISCV_S_MODE)
#error "rv64_run.c is built for one mode: -DIRQ_TEMPLATE_RISCV_M_MODE or -DIRQ_TEMPLATE_RISCV_S_MODE"
#endif

/* ---- Board: QEMU virt ----------------------------------------------------- */

#define UART0_BASE      0x10000000ul
#define UART0_IRQ       10u           /* its PLIC source, and the kernel/irq line here */
#define PLIC_BASE       0x0c000000ul
#define PLIC_SOURCES    96u           /* QEMU virt's VIRT_IRQCHIP_NUM_SOURCES */
#define TEST_BASE       0x00100000ul  /* the SiFive test finisher: a write ends QEMU */
#define TEST_PASS       0x5555u       /* exit status 0 */
#define TEST_FAIL       0x3333u       /* exit status (code << 16 | 0x3333) >> 16 ... 1 with code 1 */
#define MTIME_HZ        10000000ull   /* the device tree's timebase-frequency */

#if defined(IRQ_TEMPLATE_RISCV_M_MODE)
#define RV_TAG          "rv"
#define RV_MODE         "machine mode"
#define MTIME_ADDR      0x0200bff8ul  /* the CLINT's mtime, read here only to wait */
/* The PLIC context of @hart's machine mode on virt. */
#define PLIC_CONTEXT_OF(hart) (2u * (hart))
/* mie / mcause bits (Privileged Architecture 3.1.9, 3.1.15). */
#define IE_TIMER        (1ul << 7)    /* MTIE */
#define IE_EXTERNAL     (1ul << 11)   /* MEIE */
#define CAUSE_TIMER     7ul
#define CAUSE_EXTERNAL  11ul
#define CSR_STATUS      "mstatus"
#define CSR_IE          "mie"
#define STATUS_IE       8ul           /* mstatus.MIE */
#else
#define RV_TAG          "rvs"
#define RV_MODE         "supervisor mode"
#define PLIC_CONTEXT_OF(hart) (2u * (hart) + 1u)
/* sie / scause bits (Privileged Architecture 4.1.3, 4.1.8). */
#define IE_TIMER        (1ul << 5)    /* STIE */
#define IE_EXTERNAL     (1ul << 9)    /* SEIE */
#define CAUSE_TIMER     5ul
#define CAUSE_EXTERNAL  9ul
#define CSR_STATUS      "sstatus"
#define CSR_IE          "sie"
#define STATUS_IE       2ul           /* sstatus.SIE */
#endif
#define CAUSE_INTERRUPT (1ul << 63)
/* The highest hart id this program takes from the firmware (the template PLIC's CPUs). */
#define RV_MAX_HARTS    IRQ_TEMPLATE_PLIC_MAX_CPUS

/* The PLIC registers the program reads or faults itself (the chip is the template's). */
#define PLIC_PENDING(src)    (PLIC_BASE + 0x1000 + 4 * ((src) / 32))  /* one bit per source, read-only */
#define PLIC_ENABLE(ctx, src) (PLIC_BASE + 0x2000 + 0x80 * (ctx) + 4 * ((src) / 32))
/* The priority of an unmasked source (1..7 on virt; above threshold 0). */
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
#define UART_LSR_THRE   0x20u  /* THR can take a byte */
/* Bytes written per THRE interrupt: the transmit FIFO depth of a 16550A. */
#define UART_TX_BURST   16u

static inline void mmio_write32(unsigned long addr, uint32_t v) { *(volatile uint32_t *)addr = v; }
static inline uint32_t mmio_read32(unsigned long addr) { return *(volatile uint32_t *)addr; }
static inline void uart_write(unsigned int reg, uint8_t v) { *(volatile uint8_t *)(UART0_BASE + reg) = v; }
static inline uint8_t uart_read(unsigned int reg) { return *(volatile uint8_t *)(UART0_BASE + reg); }

/* The hart this program runs on (the SBI's a0, or mhartid) and its PLIC context. */
static unsigned int rv_hart;
static unsigned int rv_context;

/* ---- Time and CPU number ---------------------------------------------------- */

static uint64_t rv_mtime(void)
{
#if defined(IRQ_TEMPLATE_RISCV_M_MODE)
	return *(volatile uint64_t *)MTIME_ADDR;
#else
	uint64_t t;

	__asm__ volatile("csrr %0, time" : "=r"(t));
	return t;
#endif
}

static uint64_t rv_now_us(void)
{
	return rv_mtime() / (MTIME_HZ / 1000000);
}

/*
 * The CPU number for the template (irq_template_set_cpu_id): the hart id
 * rv_start keeps in tp, as xv6 does. Harts are numbered from 0 on virt.
 */
static unsigned int rv_cpu_id(void)
{
	unsigned long tp;

	__asm__ volatile("mv %0, tp" : "=r"(tp));
	return (unsigned int)tp;
}

static unsigned long rv_irqs_off(void)
{
	unsigned long status;

	__asm__ volatile("csrrc %0, " CSR_STATUS ", %1" : "=r"(status) : "r"(STATUS_IE) : "memory");
	return status & STATUS_IE;
}

static void rv_irqs_on(void)
{
	__asm__ volatile("csrs " CSR_STATUS ", %0" : : "r"(STATUS_IE) : "memory");
}

/* ---- Console: polled output on the same UART ---------------------------- */

/*
 * One byte, polled. In loopback mode (the flood and the storm) the byte
 * would go to the receiver instead of the wire, so the console leaves
 * loopback for the byte and restores it: the fault stays in place.
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

/* The board's console (tests/cross/cross_console.h). */
void cross_console_write(const char *s, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		console_putc(s[i]);
}

/*
 * The core's log goes to the console with its level, as a printk would,
 * formatted by the template's own formatter (irq_template_set_console): the
 * path of a kernel whose printf lacks the core's conversions.
 */
static void rv_core_line(int level, const char *line)
{
	cross_print("<%d>%s", level, line);
}

static __attribute__((noreturn)) void rv_exit(bool pass)
{
	mmio_write32(TEST_BASE, pass ? TEST_PASS : (1u << 16 | TEST_FAIL));
	for (;;)
		__asm__ volatile("wfi");
}

/* ---- The PLIC: the template's chip (kernel/irq/template/plic_template.c) ------ */

/* The source's pending bit, read by the program (the chip's irq_pending is asked as the core asks it). */
static int rv_chip_pending(void)
{
	return (mmio_read32(PLIC_PENDING(UART0_IRQ)) >> (UART0_IRQ % 32)) & 1;
}

/*
 * The lost-interrupt fault: the source's enable bit in this hart's context
 * cleared behind the core's back (a read-modify-write the program may do:
 * nothing else changes the word meanwhile), and set again.
 */
static void rv_lose(bool on)
{
	unsigned long reg = PLIC_ENABLE(rv_context, UART0_IRQ);
	uint32_t bit = 1u << (UART0_IRQ % 32);

	mmio_write32(reg, on ? mmio_read32(reg) & ~bit : mmio_read32(reg) | bit);
}

/* The line is the UART's source, routed to this hart's context; QEMU's PLIC takes requests, not levels. */
static int rv_attach(void)
{
	return irq_template_plic_attach(UART0_IRQ, UART0_IRQ, rv_hart);
}

/* ---- The UART ---------------------------------------------------------------- */

/* IIR says THRE: reading it acknowledges that reason. */
static bool uart_tx_wants(void)
{
	uint8_t iir = uart_read(UART_IIR);

	return !(iir & UART_IIR_NO_INT) && (iir & UART_IIR_ID) == UART_IIR_THRI;
}

static void uart_tx_ack(void) { }
static bool uart_tx_room(void) { return uart_read(UART_LSR) & UART_LSR_THRE; }
static void uart_tx_put(uint8_t b) { uart_write(UART_THR, b); }
static void uart_tx_irq(bool on) { uart_write(UART_IER, on ? UART_IER_THRI : 0); }

/*
 * The flood: the receive interrupt, which the driver does not handle, on,
 * and bytes arriving without pause that nobody reads: a babbling peer,
 * played through the loopback (each byte sent arrives in the receiver).
 * QEMU's PLIC takes a request per signal, not from a level held after the
 * completion, so every looped-back byte raises it again.
 */
static void uart_flood_on(void)
{
	uart_write(UART_MCR, UART_MCR_OUT2 | UART_MCR_LOOP);
	uart_write(UART_IER, UART_IER_RDI);
}

static void uart_flood_step(void) { uart_write(UART_THR, 'x'); }

static void uart_flood_off(void)
{
	uart_write(UART_IER, 0);
	uart_write(UART_MCR, UART_MCR_OUT2);
	(void)uart_read(UART_RBR);
	(void)uart_read(UART_LSR);
}

/* The storm's bytes go round the loopback, not to the console. */
static void uart_storm_on(void) { uart_write(UART_MCR, UART_MCR_OUT2 | UART_MCR_LOOP); }
static void uart_storm_off(void) { uart_flood_off(); }

static const struct proof_uart rv_uart = {
	.tx_wants = uart_tx_wants, .tx_ack = uart_tx_ack, .tx_room = uart_tx_room, .tx_put = uart_tx_put,
	.tx_irq = uart_tx_irq, .flood_on = uart_flood_on, .flood_step = uart_flood_step,
	.flood_off = uart_flood_off, .storm_on = uart_storm_on, .storm_off = uart_storm_off,
	.burst = UART_TX_BURST,
};

static const struct proof_board rv_board = {
	.tag = RV_TAG, .irq = UART0_IRQ, .hwirq = UART0_IRQ, .chip = &irq_template_plic_chip, .attach = rv_attach,
	.uart = &rv_uart, .now_us = rv_now_us,
	.irqs_off = rv_irqs_off, .irqs_on = rv_irqs_on, .chip_pending = rv_chip_pending, .lose = rv_lose,
};

/* ---- Traps ------------------------------------------------------------------ */

void rv_trap(unsigned long cause, unsigned long epc, unsigned long tval);
void rv_trap(unsigned long cause, unsigned long epc, unsigned long tval)
{
	if (cause == (CAUSE_INTERRUPT | CAUSE_TIMER)) {
		irq_template_timer_interrupt();
		return;
	}
	if (cause == (CAUSE_INTERRUPT | CAUSE_EXTERNAL)) {
		irq_template_plic_interrupt();  /* claim, generic_handle_irq, complete what the core did not */
		return;
	}
	cross_print(RV_TAG ": fault: cause 0x%lx at 0x%lx, tval 0x%lx\n", cause, epc, tval);
	rv_exit(false);
}

/* ---- Start ------------------------------------------------------------------ */

void rv_main(unsigned long hart);
void rv_main(unsigned long hart)
{
	extern uint64_t rv_bss_start[], rv_bss_end[];
	uint64_t *p;

	for (p = rv_bss_start; p < rv_bss_end; p++)
		*p = 0;
	uart_write(UART_IER, 0);
	uart_write(UART_LCR, UART_LCR_8N1);
	uart_write(UART_FCR, 0);            /* no FIFO: one THR, as a 16450 */
	uart_write(UART_MCR, UART_MCR_OUT2);
	/* Untrusted from the firmware: a hart this program's PLIC map does not serve stops it. */
	if (hart >= RV_MAX_HARTS) {
		cross_print(RV_TAG ": hart id %lu from the firmware: out of range\n", hart);
		rv_exit(false);
	}
	rv_hart = (unsigned int)hart;
	rv_context = PLIC_CONTEXT_OF(rv_hart);

	/*
	 * docs/porting.md, "First boot": the log, the clock (the template's
	 * built-in one for this mode) and the CPU number before the core.
	 */
	irq_template_set_console(rv_core_line);
	irq_template_set_cpu_id(rv_cpu_id);
	cross_print(RV_TAG ": kernel/irq on RV64 %s, hart %u, PLIC context %u, template port, QEMU virt\n", RV_MODE,
		    rv_hart, rv_context);
	irq_core_init();
	/*
	 * The PLIC: the contexts of harts 0 .. this one in this mode (CPU n is
	 * hart n here), every source masked, thresholds 0; proof_run attaches
	 * the UART's line, routed to this hart (rv_attach).
	 */
	{
		struct irq_template_plic_config cfg = {
			.base = PLIC_BASE, .nr_sources = PLIC_SOURCES, .nr_cpus = rv_hart + 1,
			.priority = PLIC_PRIO_DEVICE, .edge_only = true,
		};
		unsigned int h;

		for (h = 0; h <= rv_hart; h++)
			cfg.context[h] = PLIC_CONTEXT_OF(h);
		if (irq_template_plic_init(&cfg) != 0)
			rv_exit(false);
	}
	__asm__ volatile("csrs " CSR_IE ", %0" : : "r"(IE_EXTERNAL | IE_TIMER) : "memory");

	proof_run(&rv_board);
	rv_exit(true);
}
