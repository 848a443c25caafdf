/* The 16550 serial console driver (drivers/serial/uart16550.c). */
#ifndef DRIVERS_SERIAL_H
#define DRIVERS_SERIAL_H

#include <stdint.h>
#include <stdbool.h>

struct uart_stats {
	uint32_t rx_bytes;     /* bytes received by interrupt */
	uint32_t overruns;     /* receive FIFO overruns seen in LSR */
	uint32_t tx_timeouts;  /* characters dropped by a stuck transmitter */
	bool present;
};

void uart_early_init(void);
#define UART_ISA_IRQ 4   /* COM1's ISA IRQ */
/* uart_irq_init - request @line (ISA IRQ 4 as kernel/irq numbers it) and enable receive interrupts. */
int uart_irq_init(unsigned int line);
unsigned int uart_irq_line(void);
/* For selftests: make the UART raise a real interrupt (THRE), and stop it. */
void uart_raise_thre_interrupt(void);
void uart_stop_thre_interrupt(void);
void uart_get_stats(struct uart_stats *st);

/* The VGA text screen mirror (drivers/video/vga_text.c). */
void vga_text_init(void);

#endif
