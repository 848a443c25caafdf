/*
 * uart16550.c - the PC serial port (National Semiconductor PC16550D data
 * sheet; COM1 at I/O 0x3F8, ISA IRQ 4). Output is polled, so it works with
 * interrupts off and from any context, which printk needs. Input is
 * interrupt driven: "received data available" raises IRQ 4, the handler
 * drains the receive FIFO into the console input ring.
 *
 * The path of a received byte: UART -> IRQ 4 -> i8259.c or ioapic.c ->
 * kernel/irq (generic_handle_irq, flow handler) -> uart_interrupt() here ->
 * console_input_char() -> the shell (kernel/shell.c).
 */
#include <stdint.h>
#include <stdbool.h>
#include <asm/io.h>
#include <asm/cpu.h>
#include <irq/interrupt.h>
#include <kernel/console.h>
#include <kernel/printk.h>
#include <kernel/errno.h>
#include <drivers/serial.h>

#define COM1_BASE     0x3F8   /* I/O base of COM1 */
#define COM1_IRQ      4       /* ISA IRQ of COM1 */
#define UART_CLOCK_HZ 115200  /* the divisor latch counts in units of 1/115200 s */
#define UART_BAUD     115200  /* our line speed */

/* Register offsets from the base (DLAB = 0 unless noted). */
#define UART_RBR 0   /* receive buffer (read) */
#define UART_THR 0   /* transmit holding (write) */
#define UART_DLL 0   /* divisor latch low (DLAB = 1) */
#define UART_IER 1   /* interrupt enable */
#define UART_DLM 1   /* divisor latch high (DLAB = 1) */
#define UART_IIR 2   /* interrupt identification (read) */
#define UART_FCR 2   /* FIFO control (write) */
#define UART_LCR 3   /* line control */
#define UART_MCR 4   /* modem control */
#define UART_LSR 5   /* line status */
#define UART_SCR 7   /* scratch register */

#define IER_RDA      0x01  /* interrupt on received data available */
#define IER_THRE     0x02  /* interrupt when the transmit holding register is empty */
#define IIR_NO_INT   0x01  /* bit 0 set: no interrupt pending */
#define FCR_ENABLE   0x01  /* enable the FIFOs */
#define FCR_CLR_RX   0x02  /* clear the receive FIFO */
#define FCR_CLR_TX   0x04  /* clear the transmit FIFO */
#define FCR_TRIG_1   0x00  /* interrupt after every received byte */
#define LCR_8N1      0x03  /* 8 data bits, no parity, 1 stop bit */
#define LCR_DLAB     0x80  /* divisor latch access */
#define MCR_DTR      0x01
#define MCR_RTS      0x02
#define MCR_OUT2     0x08  /* on PCs, gates the UART's interrupt onto the ISA line */
#define LSR_DR       0x01  /* data ready */
#define LSR_OE       0x02  /* overrun error */
#define LSR_THRE     0x20  /* transmit holding register empty */
#define LSR_TEMT     0x40  /* transmitter completely idle */

#define UART_TX_SPINS   100000  /* polls of LSR before giving up on a stuck transmitter */
#define UART_RX_BURST   64      /* bytes drained per interrupt at most */

static bool uart_present;
static unsigned int uart_line;   /* the kernel/irq line we requested */
static uint32_t uart_overruns, uart_rx_bytes, uart_tx_timeouts;

static inline uint8_t uart_in(unsigned int reg) { return inb(COM1_BASE + reg); }
static inline void uart_out(unsigned int reg, uint8_t v) { outb(COM1_BASE + reg, v); }

static void uart_putc(char c)
{
	for (int i = 0; i < UART_TX_SPINS; i++) {
		if (uart_in(UART_LSR) & LSR_THRE) {
			uart_out(UART_THR, (uint8_t)c);
			return;
		}
	}
	uart_tx_timeouts++;
}

static void uart_write(const char *s, size_t len)
{
	if (!uart_present)
		return;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
	}
}

static void uart_flush(void)
{
	for (int i = 0; uart_present && i < UART_TX_SPINS; i++)
		if (uart_in(UART_LSR) & LSR_TEMT)
			return;
}

static struct console_sink uart_sink = {
	.name = "ttyS0",
	.write = uart_write,
	.flush = uart_flush,
};

extern void (*console_emergency_sink)(const char *s, size_t len);

/*
 * uart_early_init - program COM1 for 115200 8N1 with FIFOs, polled, and
 * register it as a console. Detects an absent UART through the scratch
 * register so a machine without COM1 does not spin on LSR forever.
 * CONTEXT: boot, interrupts off.
 */
void uart_early_init(void)
{
	uint16_t divisor = UART_CLOCK_HZ / UART_BAUD;

	uart_out(UART_SCR, 0x5A);
	if (uart_in(UART_SCR) != 0x5A)
		return;
	uart_out(UART_IER, 0);
	uart_out(UART_LCR, LCR_DLAB);
	uart_out(UART_DLL, divisor & 0xFF);
	uart_out(UART_DLM, divisor >> 8);
	uart_out(UART_LCR, LCR_8N1);
	uart_out(UART_FCR, FCR_ENABLE | FCR_CLR_RX | FCR_CLR_TX | FCR_TRIG_1);
	uart_out(UART_MCR, MCR_DTR | MCR_RTS);
	uart_present = true;
	console_emergency_sink = uart_write;
	console_register(&uart_sink);
}

/*
 * uart_interrupt - IRQ 4. Drains the receive FIFO into the console ring.
 * RETURNS IRQ_HANDLED when the UART had an interrupt pending (IIR bit 0
 * clear), IRQ_NONE otherwise, so a shared or stray IRQ 4 is accounted as such.
 */
static irqreturn_t uart_interrupt(unsigned int irq, void *dev_id)
{
	(void)irq;
	(void)dev_id;
	if (uart_in(UART_IIR) & IIR_NO_INT)
		return IRQ_NONE;
	for (int i = 0; i < UART_RX_BURST; i++) {
		uint8_t lsr = uart_in(UART_LSR);
		if (lsr & LSR_OE)
			uart_overruns++;
		if (!(lsr & LSR_DR))
			break;
		console_input_char(uart_in(UART_RBR));
		uart_rx_bytes++;
	}
	return IRQ_HANDLED;
}

/*
 * uart_irq_init - request IRQ 4 and enable the receive interrupt.
 * RETURNS 0, -ENODEV without a UART, or request_irq's error.
 * CONTEXT: boot, after the interrupt controller is up.
 */
int uart_irq_init(unsigned int line)
{
	int err;

	if (!uart_present)
		return -ENODEV;
	/* Shared: the handler tells its own interrupts apart (IIR), and the
	 * selftests hang extra handlers on this line. */
	uart_line = line;
	err = request_irq(line, uart_interrupt, IRQF_SHARED | IRQF_TRIGGER_RISING, "serial", &uart_sink);
	if (err) {
		pr_err("serial: cannot get IRQ %d (%s); console input disabled\n", COM1_IRQ, errno_name(err));
		return err;
	}
	/* Drain whatever came in before, then let data-ready raise IRQ 4. */
	while (uart_in(UART_LSR) & LSR_DR)
		console_input_char(uart_in(UART_RBR));
	uart_out(UART_MCR, MCR_DTR | MCR_RTS | MCR_OUT2);
	uart_out(UART_IER, IER_RDA);
	pr_info("serial: ttyS0 at I/O 0x%x, ISA IRQ %d (line %u), %d baud 8N1, interrupt-driven input\n",
		COM1_BASE, COM1_IRQ, line, UART_BAUD);
	return 0;
}

unsigned int uart_irq_line(void)
{
	return uart_line;
}

/*
 * uart_raise_thre_interrupt - make the UART raise a real IRQ 4: enabling the
 * "transmit holding register empty" interrupt while THR is empty asserts it
 * at once; our handler's IIR read clears it, and we switch it off again.
 * For selftests of the interrupt path.
 */
void uart_raise_thre_interrupt(void)
{
	unsigned long flags = irq_save_flags();

	uart_out(UART_IER, IER_RDA | IER_THRE);
	irq_restore_flags(flags);
}

void uart_stop_thre_interrupt(void)
{
	unsigned long flags = irq_save_flags();

	uart_out(UART_IER, IER_RDA);
	irq_restore_flags(flags);
}

void uart_get_stats(struct uart_stats *st)
{
	st->rx_bytes = uart_rx_bytes;
	st->overruns = uart_overruns;
	st->tx_timeouts = uart_tx_timeouts;
	st->present = uart_present;
}
