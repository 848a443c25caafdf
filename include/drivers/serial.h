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
int uart_irq_init(void);
void uart_get_stats(struct uart_stats *st);

/* The VGA text screen mirror (drivers/video/vga_text.c). */
void vga_text_init(void);

#endif
