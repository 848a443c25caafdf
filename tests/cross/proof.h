/*
 * proof.h - the proof every run of `make cross` on a QEMU board with a real
 * device gives (tests/cross/proof.c): the same cases, in the same order,
 * printing the same lines, so that one script (tests/cross/proof_check.py)
 * judges them all. A board file (tests/cross/rv64_run.c: RISC-V virt in
 * machine or supervisor mode with the PLIC and the NS16550A;
 * tests/cross/a64_run.c: Arm virt at EL1 with the GIC and the PL011) gives
 * the interrupt controller as an irq_chip, the device's registers, the
 * console, the time and the faults; proof.c is the device's driver and the
 * scenario, and decides nothing: it prints what happened.
 *
 * The device is a UART whose driver sends text by its transmit interrupt,
 * a burst of bytes per interrupt; a text sent whole is one completion,
 * bracketed by expect_irq() and unexpect_irq(). The cases: a text sent by
 * interrupt; a line disabled and enabled; completions whose interrupt the
 * controller never delivers (found by the expect poll); a flood of
 * interrupts nobody claims (contained: the line off and polled, back after
 * the back-off); a storm of interrupts the driver claims, one byte each
 * (throttled: masked and polled at a bounded rate, back once it is over);
 * a text by interrupt again.
 */
#ifndef CROSS_PROOF_H
#define CROSS_PROOF_H

#include <stdbool.h>
#include <stdint.h>

#include <irq/interrupt.h>
#include <irq/irqchip.h>

/* The UART as the driver sees it: a few register operations, no policy. */
struct proof_uart {
	/*
	 * tx_wants: whether the transmitter asks for bytes now (its interrupt
	 * is raised for that reason). It may acknowledge that reason as a side
	 * effect (the 16550's IIR read does); tx_ack acknowledges it where
	 * reading does not (the PL011's ICR), called only when the driver
	 * claims the interrupt, so an interrupt the driver does not claim
	 * stays raised.
	 */
	bool (*tx_wants)(void);
	void (*tx_ack)(void);
	bool (*tx_room)(void);            /* the transmitter takes a byte now */
	void (*tx_put)(uint8_t byte);     /* send one byte */
	void (*tx_irq)(bool on);          /* the transmit interrupt on or off at the device */
	/* The faults, at the device: a flood no handler claims, and the claimed storm's setting. */
	void (*flood_on)(void);           /* start raising an interrupt the driver does not handle */
	void (*flood_step)(void);         /* one more of it, where the device needs a push per interrupt */
	void (*flood_off)(void);          /* undo: the interrupt off and acknowledged */
	void (*storm_on)(void);           /* before a storm: where the storm's bytes go (loopback) */
	void (*storm_off)(void);          /* after it: the device back to normal */
	unsigned int burst;               /* bytes per transmit interrupt (the FIFO depth) */
	/*
	 * The send writes the first burst itself: the transmitter raises its
	 * interrupt only after a write (QEMU's PL011), not for being empty (the
	 * 16550's THRE, raised as soon as it is enabled with nothing to send).
	 */
	bool first_burst_by_send;
};

/* The board (its console is cross_console_write(), tests/cross/cross_console.h): time, the controller's view of the line, and the lost-interrupt fault. */
struct proof_board {
	const char *tag;                  /* the start of every line printed: "rv", "rvs", "a64" */
	unsigned int irq;                 /* the UART's kernel/irq line */
	unsigned int hwirq;               /* its input at the controller */
	const struct irq_chip *chip;      /* the controller */
	irq_flow_handler_t flow;          /* its flow */
	unsigned int trigger;             /* IRQ_TYPE_* to set on the line (0: the flow's default) */
	int (*attach)(void);              /* the controller code attaches the line itself (NULL: chip, flow, trigger above) */
	const struct proof_uart *uart;
	uint64_t (*now_us)(void);         /* the board's counter in microseconds (guest time) */
	unsigned long (*irqs_off)(void);  /* this CPU's interrupts off; RETURNS whether they were on */
	void (*irqs_on)(void);
	int (*chip_pending)(void);        /* the controller's raw pending state of the source */
	void (*lose)(bool on);            /* the fault: the source's enable at the controller cleared (on) behind the core's back, or put back */
};

/* The driver's state: one text at a time, or the storm's endless bytes. */
struct proof_tx {
	const char *text;                 /* what is being sent (NULL: nothing) */
	unsigned int len, pos;            /* its length, bytes sent */
	volatile uint32_t done;           /* completions: texts sent whole */
	volatile uint64_t done_us;        /* when the last one completed */
	volatile bool storm;              /* the claimed storm: one byte per interrupt, for ever */
	volatile uint32_t storm_bytes;    /* bytes sent by it */
	struct irq_expect *token;         /* one request slot: one token */
};

/* Run every case on @board, print the result lines; RETURNS when done (the board exits QEMU). */
void proof_run(const struct proof_board *board);

#endif /* CROSS_PROOF_H */
