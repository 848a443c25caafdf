/*
 * i8042_internal.h - what the files of drivers/input share: the driver's
 * state and its tunables. Private to drivers/input.
 *
 *   i8042.c          the controller and the two ports: probe, self-tests,
 *                    device set-up, the poll-safe handlers, IRQ watching,
 *                    the keyboard's run-time commands (LEDs, typematic)
 *   i8042_decode.c   pure: set 2 and mouse packets (i8042_decode.h)
 *   i8042_fault.c    i8042-stuck, i8042-misroute and their mouse twins
 *   i8042_shell.c    the `i8042` and `mouse` shell commands
 *   i8042_regs.h     ports, bits, commands
 *
 * docs/input.md explains the design.
 */
#ifndef DRIVERS_INPUT_I8042_INTERNAL_H
#define DRIVERS_INPUT_I8042_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <asm/spinlock.h>
#include <kernel/work.h>
#include <time/time.h>

#include "i8042_decode.h"
#include "i8042_regs.h"

/*
 * Tunables of the driver. The waits are in guest time (ktime); each is far
 * longer than what PS/2 hardware needs, so that a slow device is waited for
 * and only a missing one runs into them. QEMU answers at once.
 */
enum i8042_tunables {
	I8042_IBF_WAIT_US = 10000,      /* the controller takes our byte from its input buffer (microseconds on hardware) */
	I8042_IBF_WAIT_IRQ_US = 1000,   /* the same from the handler or a timer (interrupts are off there) */
	I8042_REPLY_WAIT_MS = 100,      /* the controller answers one of its own commands */
	I8042_ACK_WAIT_MS = 200,        /* a device acknowledges a command (PS/2 allows it 20 ms) */
	I8042_BAT_WAIT_MS = 1000,       /* a device finishes its reset self-test (500-750 ms on hardware) */
	I8042_FLUSH_MAX = 64,           /* bytes read to empty the output buffer before calling it stuck */
	I8042_STRAY_MAX = 32,           /* bytes of the other port (or unasked) skipped while waiting for an answer */
	I8042_RESEND_MAX = 3,           /* RESENDs of one byte before the command fails */
	I8042_RUNTIME_CMD_TIMEOUT_MS = 5000, /* a run-time keyboard command awaits its ACK this long: longer than
					 * the slowest watch poll (3 s), so an ACK whose interrupt was lost still counts */
	I8042_CMD_QUEUE = 4,            /* run-time keyboard commands waiting their turn */
	I8042_TYPEMATIC_DELAY = 1,      /* (n + 1) * 250 ms: 500 ms before a held key repeats, the USB keyboard's */
	I8042_TYPEMATIC_RATE = 0x00,    /* 30 repeats a second, the fastest (and the USB keyboard's rate) */
	I8042_MOUSE_RATE = PS2_MOUSE_RATE_STD, /* samples a second once set up */
	I8042_MOUSE_RESOLUTION = PS2_MOUSE_RES_4MM,
	I8042_REPORTS_MAX = 4,          /* rate-limit: messages of one kind at 1st, 2nd, 4th ... occurrence beyond these */
};

/* One of the controller's two ports. */
struct i8042_port {
	const char *name;               /* the action's name: "i8042-kbd", "i8042-aux" (irqs, health reports) */
	const char *what;               /* "keyboard", "mouse" */
	bool aux;                       /* the auxiliary (second) port */
	unsigned int isa_irq;           /* 1 or 12 */
	int line;                       /* kernel/irq line (GSI in IOAPIC mode), -1 before it is known */
	bool exists;                    /* the controller has the port and its line test passed */
	bool device;                    /* a device answered its reset and was set up */
	bool irq_ok;                    /* request_irq succeeded: the handler is live */
	bool setup_busy;                /* process context is talking to the device: the handler leaves its bytes */
	const char *problem;            /* why the port or its device is not used, NULL if it is */
	/* statistics (under the controller lock) */
	uint64_t bytes;                 /* bytes the handler took for this port */
	uint64_t runs_empty;            /* handler runs that found the output buffer empty */
	uint64_t runs_other;            /* runs that found the other port's byte and left it to its line */
	uint64_t parity_errors;         /* bytes with the status register's parity or time-out bit */
	uint64_t discarded;             /* bytes taken but not used (no device, or unasked during set-up) */
	/* the faults (i8042_fault.c) */
	uint32_t stuck_every;           /* i8042-stuck: leave every Nth byte; 0 with stuck_armed: the next one */
	bool stuck_armed;
	uint32_t stuck_count;           /* bytes seen since the fault was set (for every-Nth) */
	bool stuck_waiting;             /* the byte it left is still in the controller: the next find is that one */
	uint64_t stuck_left;            /* bytes left in the controller by the fault */
};

/* A keyboard command sent at run time, byte by byte, each acknowledged by an interrupt (or poll). */
struct i8042_kbd_cmd {
	uint8_t bytes[2];
	uint8_t len;
};

/* The controller and everything behind it. */
struct i8042 {
	spinlock_t lock;                /* the handlers (either line, any CPU), the timer and process context */
	bool probed;                    /* i8042_init ran */
	bool present;                   /* a working controller was found */
	const char *absent_why;         /* why not */
	bool acpi_said_absent;          /* the FADT's IAPC_BOOT_ARCH says no 8042 */
	uint8_t cfg;                    /* the configuration byte as written */
	uint8_t cfg_bios;               /* as the firmware left it */
	struct i8042_port kbd, aux;
	/* keyboard */
	struct ps2_kbd kdec;
	uint8_t kbd_id[2];
	unsigned int kbd_id_len;
	uint32_t kbd_chars;             /* characters put into the console */
	struct i8042_kbd_cmd cmdq[I8042_CMD_QUEUE];
	unsigned int cmdq_len;          /* commands queued; cmdq[0] runs while cmd_busy */
	bool cmd_busy;
	uint8_t cmd_sent;               /* bytes of cmdq[0] sent and acknowledged */
	uint8_t cmd_resends;
	struct timer cmd_timer;         /* the running command's time-out */
	uint32_t cmd_done, cmd_failed, cmd_unasked_acks;
	uint8_t leds;                   /* the LED byte last sent */
	/* mouse */
	struct ps2_mouse mdec;
	uint8_t mouse_id;
	int64_t mouse_x, mouse_y, mouse_z;  /* sums of the packets' movement (y up, z towards the user) */
	uint8_t mouse_buttons;
	struct ps2_mouse_packet mouse_last;
	uint32_t mouse_button_presses;
	struct work mouse_setup_work;   /* the mouse reset itself: set it up again in process context */
	uint32_t mouse_setups;
	/* trace (kernel/irq/trace.h driver events) */
	unsigned int trace_tag;
};

extern struct i8042 i8042;

/* i8042_lock / i8042_unlock - the controller lock with interrupts off. */
unsigned long i8042_lock(void);
void i8042_unlock(unsigned long flags);

/* i8042_fault_leave_byte - i8042-stuck: should the handler leave this byte? Lock held. */
bool i8042_fault_leave_byte(struct i8042_port *p);

/* i8042_line_kind - "GSI" in IOAPIC mode, "IRQ" in PIC mode: what a port's line number is. */
const char *i8042_line_kind(void);

#endif /* DRIVERS_INPUT_I8042_INTERNAL_H */
