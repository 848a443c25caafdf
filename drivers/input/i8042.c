/*
 * i8042.c - the 8042 keyboard controller and the PS/2 keyboard and mouse
 * behind it: the first device interrupt of every PC kernel (IRQ 1, the
 * mouse IRQ 12). The controller is two ports and one byte of output
 * buffer at I/O 0x60, with a status register at 0x64 that says whether the
 * buffer is full and which port the byte came from (the AUX bit); it
 * raises its port's interrupt while the buffer holds that port's byte.
 * Follows the IBM PS/2 Hardware Interface Technical Reference (1988)
 * "Keyboard/Auxiliary Device Controller" and "Keyboard and Auxiliary
 * Device"; registers in i8042_regs.h, the byte streams in i8042_decode.c,
 * faults in i8042_fault.c, the shell in i8042_shell.c; docs/input.md.
 *
 * Finding it. An ACPI 2.0+ FADT whose IAPC_BOOT_ARCH lacks the 8042 flag
 * says the machine is legacy-free: not probed (i8042=force probes anyway).
 * Otherwise every step is a bounded wait: a status port that reads 0xFF,
 * a buffer that never empties, a self-test that does not answer 0x55 -
 * each says "no 8042" and the boot goes on.
 *
 * Translation off, scan code set 2. The controller can translate the
 * keyboard's set 2 into the XT's set 1, and the firmware leaves it on. We
 * switch it off and ask the keyboard for set 2, the one set every PS/2
 * keyboard implements (sets 1 and 3 are optional and often broken). Then
 * every answer a keyboard sends (ACK 0xFA, RESEND 0xFE, BAT 0xAA, ECHO,
 * overrun 0x00) is a byte no scan code uses, so the decoder resynchronises
 * on them in any state - in set 1, 0xAA is also "left shift released" -
 * and a break is an explicit F0 prefix the decoder sees, not one the
 * controller swallows.
 *
 * The handler is poll-safe, because kernel/irq polls it (IRQ watching):
 * it reads the status register and takes a byte only when the output
 * buffer is full, and only a byte of its own port (the AUX bit); a byte of
 * the other port is left for the other line's handler, so each line's
 * losses are counted and reported against its own line and device. One
 * byte per run: the controller loads the next byte into the buffer as soon
 * as this one is read and raises a new edge for it. Reading port 0x60 with
 * the buffer empty returns the last byte again - the duplicate keys of
 * handlers that are polled without checking.
 *
 * The stuck keyboard. The 8042's interrupt is an edge: it rises when a
 * byte enters the empty output buffer and stays high until the byte is
 * read. A byte whose interrupt is lost (a misrouted or masked line, a
 * handler that returned early, an EOI before the read) is never read, the
 * buffer stays full, no new edge ever comes: the keyboard is dead until
 * reboot. Both lines are watched for as long as the driver runs
 * (watch_irq_keep(), kernel/irq/watch.c): a watch poll reads the status
 * register within 3 s, finds the full buffer, the handler takes the byte,
 * the controller loads the next one with a new edge, and interrupts work
 * again. The faults i8042-stuck and i8042-misroute (i8042_fault.c) make it
 * happen on purpose.
 *
 * Run-time keyboard commands (LEDs when a lock key toggles, typematic after
 * the keyboard reset itself) go byte by byte: the next byte when the ACK
 * arrives, through the handler (or a watch poll), with a time-out longer
 * than the slowest watch poll. The mouse is set up again in process
 * context (kernel work) when it says it reset itself (AA 00).
 *
 * Several CPUs: the two lines may be delivered to different CPUs, and the
 * command time-out runs on CPU 0. One lock (i8042.lock, a ticket lock taken
 * with interrupts off) covers the controller's ports (a status read and
 * the data read after it, a two-byte command), the decoders, the command
 * queue and the statistics. Lock order: i8042.lock, then kernel/time's and
 * kernel/irq's (timer_mod, the trace), then printk and the console input
 * ring (console_input_char), innermost.
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/x86_irq.h>
#include <drivers/input.h>
#include <firmware.h>
#include <irq/interrupt.h>
#include <irq/policy.h>
#include <irq/trace.h>
#include <kernel/console.h>
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#include "i8042_internal.h"

struct i8042 i8042 = {
	.kbd = { .name = "i8042-kbd", .what = "keyboard", .aux = false, .isa_irq = I8042_KBD_ISA_IRQ, .line = -1 },
	.aux = { .name = "i8042-aux", .what = "mouse", .aux = true, .isa_irq = I8042_AUX_ISA_IRQ, .line = -1 },
};

/* The boot parameter i8042=. */
static enum { I8042_AUTO, I8042_OFF, I8042_FORCE } param_mode = I8042_AUTO;
static bool param_nomouse;

int i8042_param(const char *v, void *arg)
{
	(void)arg;
	if (!v)
		return -EINVAL;
	if (strcmp(v, "off") == 0)
		param_mode = I8042_OFF;
	else if (strcmp(v, "force") == 0)
		param_mode = I8042_FORCE;
	else if (strcmp(v, "nomouse") == 0)
		param_nomouse = true;
	else
		return -EINVAL;
	return 0;
}

unsigned long i8042_lock(void)
{
	unsigned long flags = irq_save_flags();

	spin_lock(&i8042.lock);
	return flags;
}

void i8042_unlock(unsigned long flags)
{
	spin_unlock(&i8042.lock);
	irq_restore_flags(flags);
}

const char *i8042_line_kind(void)
{
	return x86_irq_mode() == X86_IRQ_MODE_IOAPIC ? "GSI" : "8259 input";
}

static struct i8042_port *other_port(const struct i8042_port *p)
{
	return p->aux ? &i8042.kbd : &i8042.aux;
}

/* ---- the controller's ports ---------------------------------------------------------------- */

static uint8_t read_status(void)
{
	return inb(I8042_STATUS_PORT);
}

/* wait_ibf_clear - the controller took our last byte. RETURNS 0, -ENODEV (no controller), -ETIMEDOUT. */
static int wait_ibf_clear(uint32_t max_us)
{
	for (uint32_t us = 0;; us++) {
		uint8_t st = read_status();

		if (st == I8042_STR_ABSENT)
			return -ENODEV;
		if (!(st & I8042_STR_IBF))
			return 0;
		if (us >= max_us)
			return -ETIMEDOUT;
		udelay(1);
	}
}

/* write_to - @b to port @port once the input buffer is empty. Lock held (or no handler live yet). */
static int write_to(uint16_t port, uint8_t b, uint32_t max_us)
{
	int err = wait_ibf_clear(max_us);

	if (!err)
		outb(port, b);
	return err;
}

static int write_cmd(uint8_t cmd)
{
	return write_to(I8042_COMMAND_PORT, cmd, I8042_IBF_WAIT_US);
}

static int write_data(uint8_t b)
{
	return write_to(I8042_DATA_PORT, b, I8042_IBF_WAIT_US);
}

/*
 * read_answer - wait up to @ms for a byte from @p (the AUX bit says whose)
 * and take it. A byte of the other port is left to its handler if it has a
 * live one, else read and dropped (counted). CONTEXT: process context,
 * lock not held; bounded by @ms and I8042_STRAY_MAX dropped bytes.
 * RETURNS 0; -ENODEV (no controller); -ETIMEDOUT; -EIO (only strays came).
 */
static int read_answer(struct i8042_port *p, uint32_t ms, uint8_t *out)
{
	uint64_t deadline = ktime_get_ns() + (uint64_t)ms * NSEC_PER_MSEC;
	unsigned int strays = 0;

	for (;;) {
		unsigned long flags = i8042_lock();
		uint8_t st = read_status();

		if (st == I8042_STR_ABSENT) {
			i8042_unlock(flags);
			return -ENODEV;
		}
		if (st & I8042_STR_OBF) {
			bool aux = (st & I8042_STR_AUXDATA) != 0;

			if (aux == p->aux) {
				*out = inb(I8042_DATA_PORT);
				i8042_unlock(flags);
				return 0;
			}
			if (!other_port(p)->irq_ok) {
				(void)inb(I8042_DATA_PORT);
				other_port(p)->discarded++;
				strays++;
			}
		}
		i8042_unlock(flags);
		if (strays > I8042_STRAY_MAX)
			return -EIO;
		if (ktime_get_ns() >= deadline)
			return -ETIMEDOUT;
		udelay(10);
	}
}

/* ctl_command - a controller command, with its answer in *@reply if @reply. Boot only (no handler live). */
static int ctl_command(uint8_t cmd, uint8_t *reply)
{
	int err = write_cmd(cmd);

	if (err || !reply)
		return err;
	return read_answer(&i8042.kbd, I8042_REPLY_WAIT_MS, reply);
}

/* write_config - the configuration byte @cfg, remembered. Lock held (or no handler live yet). */
static int write_config(uint8_t cfg)
{
	int err = write_cmd(I8042_CMD_WRITE_CFG);

	if (!err)
		err = write_data(cfg);
	if (!err)
		i8042.cfg = cfg;
	return err;
}

/* ---- talking to a device in process context --------------------------------------------- */

/*
 * dev_send - send @b to @p's device and wait for its ACK, resending when
 * it asks (RESEND), up to I8042_RESEND_MAX times. Bytes that are not an
 * answer (a key pressed, a packet on its way) are skipped, up to
 * I8042_STRAY_MAX. CONTEXT: process context; the port's handler is not
 * live or leaves its bytes (setup_busy).
 * RETURNS 0; -ETIMEDOUT (no answer); -EIO (refused, or only strays); -ENODEV.
 */
static int dev_send(struct i8042_port *p, uint8_t b)
{
	for (unsigned int tries = 0; tries <= I8042_RESEND_MAX; tries++) {
		unsigned long flags = i8042_lock();
		int err = p->aux ? write_cmd(I8042_CMD_AUX_SEND) : 0;
		uint8_t r;

		if (!err)
			err = write_data(b);
		i8042_unlock(flags);
		if (err)
			return err;
		for (unsigned int skipped = 0;; skipped++) {
			err = read_answer(p, I8042_ACK_WAIT_MS, &r);
			if (err)
				return err;
			if (r == PS2_ACK)
				return 0;
			if (r == PS2_RESEND)
				break;
			if (skipped >= I8042_STRAY_MAX)
				return -EIO;
			p->discarded++;
		}
	}
	return -EIO;
}

/* dev_send2 - a command and its argument, each acknowledged. */
static int dev_send2(struct i8042_port *p, uint8_t cmd, uint8_t arg)
{
	int err = dev_send(p, cmd);

	return err ? err : dev_send(p, arg);
}

/* dev_reset - reset @p's device and wait for its self-test (BAT). RETURNS 0 or an error, with *@why. */
static int dev_reset(struct i8042_port *p, const char **why)
{
	uint8_t bat;
	int err = dev_send(p, PS2_CMD_RESET);

	if (err) {
		*why = err == -ETIMEDOUT ? "no device: its reset was not acknowledged" : "the device refused its reset";
		return err;
	}
	err = read_answer(p, I8042_BAT_WAIT_MS, &bat);
	if (err) {
		*why = "the device acknowledged its reset but sent no self-test result";
		return err;
	}
	if (bat != PS2_BAT_OK) {
		*why = "the device failed its self-test (BAT)";
		return -EIO;
	}
	return 0;
}

/* ---- keyboard and mouse set-up ------------------------------------------------------------- */

static uint8_t typematic_byte(void)
{
	return (uint8_t)(I8042_TYPEMATIC_DELAY << PS2_TYPEMATIC_DELAY_SHIFT | I8042_TYPEMATIC_RATE);
}

/* The typematic setting in words: delay (n + 1) * 250 ms; rate 1 / ((8 + A) * 2^B * 4.17 ms), A and B
 * the rate field's bits 2-0 and 4-3 (IBM PS/2 reference, "Set Typematic Rate/Delay"), in tenths a second. */
static void typematic_words(char *buf, size_t len)
{
	unsigned int a = I8042_TYPEMATIC_RATE & 7u, b = (I8042_TYPEMATIC_RATE >> 3) & 3u;
	unsigned int period = (8u + a) * (1u << b) * 417u;   /* in 10 us units */
	unsigned int tenths = (1000000u + period / 2u) / period;

	ksnprintf(buf, len, "typematic %u ms at %u.%u/s", (I8042_TYPEMATIC_DELAY + 1u) * 250u, tenths / 10u,
		  tenths % 10u);
}

/* kbd_setup - reset the keyboard, set 2, typematic, LEDs, scanning on. Boot, no handler live. */
static int kbd_setup(void)
{
	struct i8042_port *p = &i8042.kbd;
	uint8_t set = 0, b;
	int err;

	err = dev_reset(p, &p->problem);
	if (err)
		return err;
	/* Quiet while it is set up (this also restores its defaults). */
	if (dev_send(p, PS2_CMD_DISABLE))
		pr_warn("i8042: the keyboard did not acknowledge 'scanning off'; going on\n");
	err = dev_send2(p, PS2_CMD_SCANSET, PS2_SCANSET_2);
	if (!err)
		err = dev_send2(p, PS2_CMD_SCANSET, PS2_SCANSET_GET);
	if (!err)
		err = read_answer(p, I8042_ACK_WAIT_MS, &set);
	if (err || set != PS2_SCANSET_2)
		pr_warn("i8042: the keyboard would not confirm scan code set 2 (%s, answer %#04x); set 2 is every "
			"keyboard's default, decoding it anyway\n", errno_name(err), set);
	i8042.kbd_id_len = 0;
	if (!dev_send(p, PS2_CMD_GET_ID))
		while (i8042.kbd_id_len < sizeof(i8042.kbd_id) &&
		       !read_answer(p, I8042_ACK_WAIT_MS, &b))
			i8042.kbd_id[i8042.kbd_id_len++] = b;
	if (dev_send2(p, PS2_CMD_SET_RATE, typematic_byte()))
		pr_warn("i8042: the keyboard refused its typematic rate; it keeps its own\n");
	ps2_kbd_init(&i8042.kdec, true);
	i8042.leds = ps2_kbd_leds(&i8042.kdec);
	if (dev_send2(p, PS2_CMD_SET_LEDS, i8042.leds))
		pr_warn("i8042: the keyboard refused its LEDs\n");
	err = dev_send(p, PS2_CMD_ENABLE);
	if (err)
		p->problem = "the keyboard would not start scanning";
	return err;
}

/* mouse_setup - reset the mouse, the IntelliMouse knock, rate, resolution, reporting on. */
static int mouse_setup(void)
{
	static const uint8_t knock[] = { PS2_MOUSE_KNOCK1, PS2_MOUSE_KNOCK2, PS2_MOUSE_KNOCK3 };
	struct i8042_port *p = &i8042.aux;
	uint8_t id = PS2_MOUSE_ID_STD;
	int err;

	err = dev_reset(p, &p->problem);
	if (err)
		return err;
	(void)read_answer(p, I8042_ACK_WAIT_MS, &id);    /* after the BAT a mouse sends its ID, 0 */
	/* Three sample rates in a row: a wheel mouse then calls itself ID 3 and sends 4-byte packets. */
	for (unsigned int i = 0; i < sizeof(knock) && !err; i++)
		err = dev_send2(p, PS2_CMD_SET_RATE, knock[i]);
	if (!err)
		err = dev_send(p, PS2_CMD_GET_ID);
	if (!err)
		err = read_answer(p, I8042_ACK_WAIT_MS, &id);
	if (err) {
		p->problem = "the mouse did not answer its identify command";
		return err;
	}
	i8042.mouse_id = id;
	err = dev_send2(p, PS2_CMD_SET_RATE, I8042_MOUSE_RATE);
	if (!err)
		err = dev_send2(p, PS2_CMD_SET_RES, I8042_MOUSE_RESOLUTION);
	if (!err)
		err = dev_send(p, PS2_CMD_SET_SCALE11);
	if (!err)
		err = dev_send(p, PS2_CMD_ENABLE);
	if (err) {
		p->problem = "the mouse refused its settings";
		return err;
	}
	ps2_mouse_init(&i8042.mdec, id == PS2_MOUSE_ID_WHEEL ? 4 : 3, id == PS2_MOUSE_ID_WHEEL);
	i8042.mouse_setups++;
	return 0;
}

static const char *mouse_kind(void)
{
	return i8042.mouse_id == PS2_MOUSE_ID_WHEEL ? "IntelliMouse (ID 3): 4-byte packets with the wheel"
						    : "standard PS/2 mouse (ID 0): 3-byte packets";
}

/* The mouse reset itself (AA 00 in its stream): set it up again, with its handler keeping off. */
static void mouse_setup_again(struct work *w)
{
	struct i8042_port *p = &i8042.aux;
	unsigned long flags;
	int err;

	(void)w;
	flags = i8042_lock();
	p->setup_busy = true;
	(void)write_config(i8042.cfg & (uint8_t)~I8042_CFG_AUX_INT);
	i8042_unlock(flags);
	err = mouse_setup();
	flags = i8042_lock();
	p->setup_busy = false;
	(void)write_config(err ? i8042.cfg : (uint8_t)(i8042.cfg | I8042_CFG_AUX_INT));
	i8042_unlock(flags);
	if (err)
		pr_warn("i8042: the mouse reset itself and could not be set up again (%s: %s)\n", p->problem,
			errno_name(err));
	else
		pr_info("i8042: the mouse reset itself; set up again: %s\n", mouse_kind());
}

/* ---- run-time keyboard commands (lock held) ---------------------------------------------- */

static void cmd_send_current(void)
{
	const struct i8042_kbd_cmd *c = &i8042.cmdq[0];

	/* From the handler or a timer: a short bounded wait, never the boot-time one. */
	(void)write_to(I8042_DATA_PORT, c->bytes[i8042.cmd_sent], I8042_IBF_WAIT_IRQ_US);
	timer_mod(&i8042.cmd_timer, ktime_get_ns() + I8042_RUNTIME_CMD_TIMEOUT_MS * NSEC_PER_MSEC, 0);
}

static void cmd_start(void)
{
	if (i8042.cmd_busy || !i8042.cmdq_len || !i8042.kbd.irq_ok)
		return;
	i8042.cmd_busy = true;
	i8042.cmd_sent = 0;
	i8042.cmd_resends = 0;
	cmd_send_current();
}

/* The running command ended (@ok or not): the next one starts. */
static void cmd_finish(bool ok)
{
	if (ok)
		i8042.cmd_done++;
	else if (i8042.cmd_failed++ < I8042_REPORTS_MAX)
		pr_warn("i8042: the keyboard did not acknowledge command %#04x (byte %u); dropped\n",
			i8042.cmdq[0].bytes[0], i8042.cmd_sent);
	if (ok && i8042.cmdq[0].bytes[0] == PS2_CMD_SET_LEDS)
		i8042.leds = i8042.cmdq[0].bytes[1];
	i8042.cmd_busy = false;
	timer_cancel(&i8042.cmd_timer);
	for (unsigned int i = 1; i < i8042.cmdq_len; i++)
		i8042.cmdq[i - 1] = i8042.cmdq[i];
	i8042.cmdq_len--;
	cmd_start();
}

/* cmd_queue - queue @cmd @arg; a queued, not yet running command of the same kind takes the new argument. */
static void cmd_queue(uint8_t cmd, uint8_t arg)
{
	for (unsigned int i = i8042.cmd_busy ? 1 : 0; i < i8042.cmdq_len; i++)
		if (i8042.cmdq[i].bytes[0] == cmd) {
			i8042.cmdq[i].bytes[1] = arg;
			return;
		}
	if (i8042.cmdq_len >= I8042_CMD_QUEUE) {
		i8042.cmd_failed++;
		return;
	}
	i8042.cmdq[i8042.cmdq_len++] = (struct i8042_kbd_cmd){ { cmd, arg }, 2 };
	cmd_start();
}

/* An answer of the keyboard reached the handler: the next byte of the running command, or a retry. */
static void cmd_answer(uint8_t r)
{
	if (!i8042.cmd_busy) {
		if (r == PS2_ACK || r == PS2_RESEND)
			i8042.cmd_unasked_acks++;   /* late, after its command timed out */
		return;
	}
	if (r == PS2_ACK) {
		if (++i8042.cmd_sent < i8042.cmdq[0].len)
			cmd_send_current();
		else
			cmd_finish(true);
	} else if (r == PS2_RESEND) {
		if (++i8042.cmd_resends <= I8042_RESEND_MAX)
			cmd_send_current();
		else
			cmd_finish(false);
	}
}

/* The running command's time-out (the kernel/time timer, CPU 0). */
static void cmd_timeout(struct timer *t)
{
	unsigned long flags = i8042_lock();

	(void)t;
	/* A command that finished meanwhile cancelled us, or a newer one re-armed: check the time. */
	if (i8042.cmd_busy && ktime_get_ns() >= t->expires_ns)
		cmd_finish(false);
	i8042_unlock(flags);
}

/* ---- bytes to the decoders (lock held) ------------------------------------------------------ */

static void kbd_put(uint8_t c, bool repeat)
{
	console_input_char(c);
	i8042.kbd_chars++;
	/* For latency measurements (docs/input.md, tests/bench/i8042_bench.py): the raw TSC, which
	 * under QEMU -icount counts guest nanoseconds of the virtual clock. */
	pr_debug("i8042: char 0x%02x%s at tsc %llu\n", c, repeat ? " (repeat)" : "", (unsigned long long)rdtsc());
}

static void kbd_byte(uint8_t b, uint64_t now)
{
	struct ps2_kbd_out o;

	if (ps2_kbd_feed(&i8042.kdec, b, now, &o) != 1)
		return;
	if (o.response >= 0) {
		cmd_answer((uint8_t)o.response);
		if (o.response == PS2_BAT_OK) {
			/* Reset by itself or plugged in: its typematic rate and LEDs are the defaults now. */
			if (i8042.kdec.resets <= I8042_REPORTS_MAX)
				pr_info("i8042: the keyboard reset itself (BAT); setting its typematic rate and LEDs again\n");
			cmd_queue(PS2_CMD_SET_RATE, typematic_byte());
			cmd_queue(PS2_CMD_SET_LEDS, ps2_kbd_leds(&i8042.kdec));
		}
		return;
	}
	if (o.ch >= 0)
		kbd_put((uint8_t)o.ch, o.repeat);
	if (o.leds_changed)
		cmd_queue(PS2_CMD_SET_LEDS, ps2_kbd_leds(&i8042.kdec));
}

static void aux_byte(uint8_t b, uint64_t now)
{
	struct ps2_mouse_packet p;
	int r = ps2_mouse_feed(&i8042.mdec, b, now, &p);

	if (r == 1) {
		i8042.mouse_x += p.dx;
		i8042.mouse_y += p.dy;
		i8042.mouse_z += p.dz;
		i8042.mouse_button_presses += (unsigned int)__builtin_popcount(p.buttons & ~i8042.mouse_buttons);
		i8042.mouse_buttons = p.buttons;
		i8042.mouse_last = p;
		pr_debug("i8042: mouse packet dx %d dy %d dz %d buttons %#x\n", p.dx, p.dy, p.dz, p.buttons);
	} else if (r == 2) {
		if (i8042.mdec.resets <= I8042_REPORTS_MAX)
			pr_info("i8042: the mouse reset itself (AA 00 in its stream); setting it up again\n");
		work_queue(&i8042.mouse_setup_work);
	}
}

/* ---- the handler --------------------------------------------------------------------------- */

/*
 * i8042_interrupt - IRQ 1's or IRQ 12's handler (@dev_id: the port), also
 * run by kernel/irq's watch polls: takes at most one byte, and only when
 * the output buffer holds one of this port's. CONTEXT: interrupt, or a
 * poll of the line (interrupts off either way).
 * RETURNS IRQ_HANDLED when it took (or, under i8042-stuck, deliberately
 * left) a byte of its port; IRQ_NONE when there was none.
 */
static irqreturn_t i8042_interrupt(unsigned int irq, void *dev_id)
{
	struct i8042_port *p = dev_id;
	irqreturn_t ret = IRQ_NONE;
	unsigned long flags;
	uint8_t st, b;

	flags = i8042_lock();
	st = read_status();
	if (st == I8042_STR_ABSENT || !(st & I8042_STR_OBF) || p->setup_busy) {
		p->runs_empty++;               /* a poll with nothing to do, or a byte a poll took first */
		goto out;
	}
	if (((st & I8042_STR_AUXDATA) != 0) != p->aux && other_port(p)->irq_ok) {
		p->runs_other++;               /* the other port's byte: its own line's handler takes it */
		goto out;
	}
	ret = IRQ_HANDLED;
	if (i8042_fault_leave_byte(p)) {
		/* i8042-stuck: return as the classic buggy handler does, the byte still in the buffer. */
		irq_trace_drv(i8042.trace_tag, irq, IRQ_TDRV_MARK, 1u << 16 | (unsigned int)p->aux << 8);
		goto out;
	}
	b = inb(I8042_DATA_PORT);
	irq_trace_drv(i8042.trace_tag, irq, IRQ_TDRV_MARK, (unsigned int)p->aux << 8 | b);
	if (st & (I8042_STR_PARITY | I8042_STR_TIMEOUT))
		p->parity_errors++;        /* the decoder's resynchronisation copes with the byte */
	if (((st & I8042_STR_AUXDATA) != 0) != p->aux) {
		other_port(p)->discarded++;    /* a byte of a port nobody listens to */
		goto out;
	}
	p->bytes++;
	if (!p->aux)
		kbd_byte(b, ktime_get_ns());
	else
		aux_byte(b, ktime_get_ns());
out:
	i8042_unlock(flags);
	return ret;
}

/* ---- probe ---------------------------------------------------------------------------------- */

/* controller_setup - find the controller, quiet it, self-test, find its ports. Boot, no handler live. */
static int controller_setup(void)
{
	uint8_t st = read_status(), cfg, r;
	unsigned int flushed = 0;
	int err;

	if (st == I8042_STR_ABSENT) {
		i8042.absent_why = "its status port reads 0xff: nothing answers at 0x60/0x64";
		return -ENODEV;
	}
	/* Both ports off, so no device byte lands in the buffer while we talk to the controller. */
	err = write_cmd(I8042_CMD_KBD_OFF);
	if (!err)
		err = write_cmd(I8042_CMD_AUX_OFF);
	if (err) {
		i8042.absent_why = "its input buffer never empties (IBF stays set)";
		return err;
	}
	while ((read_status() & I8042_STR_OBF) && flushed++ < I8042_FLUSH_MAX)
		(void)inb(I8042_DATA_PORT);
	if (read_status() & I8042_STR_OBF) {
		i8042.absent_why = "its output buffer never empties";
		return -EIO;
	}
	err = ctl_command(I8042_CMD_READ_CFG, &cfg);
	if (err) {
		i8042.absent_why = "it does not answer 'read configuration'";
		return err;
	}
	i8042.cfg_bios = cfg;
	/* Interrupts off until the devices are set up; translation off for good (top of file). */
	cfg &= (uint8_t)~(I8042_CFG_KBD_INT | I8042_CFG_AUX_INT | I8042_CFG_XLATE);
	err = write_config(cfg);
	if (!err)
		err = ctl_command(I8042_CMD_SELF_TEST, &r);
	if (err || r != I8042_SELF_TEST_OK) {
		i8042.absent_why = err ? "it does not answer its self-test" : "it failed its self-test (not 0x55)";
		return err ? err : -EIO;
	}
	/* Some controllers reset themselves on the self-test: the configuration again. */
	err = write_config(cfg);
	if (err) {
		i8042.absent_why = "it takes no configuration after its self-test";
		return err;
	}
	/* A second port exists if enabling it clears its clock-off bit. */
	err = ctl_command(I8042_CMD_AUX_ON, NULL);
	if (!err)
		err = ctl_command(I8042_CMD_READ_CFG, &r);
	i8042.aux.exists = !err && !(r & I8042_CFG_AUX_OFF);
	(void)ctl_command(I8042_CMD_AUX_OFF, NULL);
	/* The lines of each port (clock and data) must test clean. */
	err = ctl_command(I8042_CMD_KBD_TEST, &r);
	i8042.kbd.exists = !err && r == I8042_PORT_TEST_OK;
	if (!i8042.kbd.exists)
		i8042.kbd.problem = "its port failed the line test";
	if (i8042.aux.exists) {
		err = ctl_command(I8042_CMD_AUX_TEST, &r);
		i8042.aux.exists = !err && r == I8042_PORT_TEST_OK;
		if (!i8042.aux.exists)
			i8042.aux.problem = "its port failed the line test";
	} else {
		i8042.aux.problem = "the controller has one port";
	}
	return 0;
}

/* port_start - request @p's line and watch it. Boot. RETURNS 0 or an error (problem set). */
static int port_start(struct i8042_port *p)
{
	int line = isa_irq_to_line(p->isa_irq), err;

	if (line < 0) {
		p->problem = "its ISA IRQ has no interrupt line";
		return line;
	}
	p->line = line;
	err = request_irq((unsigned int)line, i8042_interrupt, IRQF_TRIGGER_RISING | IRQF_NEXT_ON_READ, p->name, p);
	if (err) {
		p->problem = "request_irq failed";
		return err;
	}
	p->irq_ok = true;
	/*
	 * For as long as the driver runs: a keyboard has no time-out to call watch_irq()
	 * from, and the byte of a lost interrupt stops every later one (top of file).
	 */
	watch_irq_keep((unsigned int)line, p);
	return 0;
}

static void report_port(const struct i8042_port *p, const char *detail)
{
	if (p->irq_ok)
		pr_info("i8042: %s on IRQ %u (%s %d, vector %#04x): %s; watched (watch_irq_keep)\n", p->what, p->isa_irq,
			i8042_line_kind(), p->line, (unsigned int)x86_irq_to_vector((unsigned int)p->line), detail);
	else
		pr_info("i8042: %s port not used: %s\n", p->what, p->problem ? p->problem : "switched off");
}

static const char *fadt_words(const struct fw_fadt *f)
{
	if (!f || !f->present)
		return "no FADT";
	if (!f->boot_arch_valid)
		return "FADT revision 1 says nothing";
	return (f->boot_arch & FW_BOOT_ARCH_8042) ? "FADT: 8042 present" : "FADT: no 8042 (probed: i8042=force)";
}

int i8042_init(const struct fw_fadt *fadt)
{
	char kbd_detail[96], aux_detail[96], typematic[40];
	unsigned long flags;
	uint8_t cfg;
	int used = 0;

	spin_lock_init(&i8042.lock);
	timer_setup(&i8042.cmd_timer, cmd_timeout, NULL);
	work_init(&i8042.mouse_setup_work, mouse_setup_again, NULL);
	i8042.probed = true;
	if (param_mode == I8042_OFF) {
		i8042.absent_why = "switched off (i8042=off)";
		pr_info("i8042: not probed (i8042=off)\n");
		return 0;
	}
	if (fadt && fadt->present && fadt->boot_arch_valid && !(fadt->boot_arch & FW_BOOT_ARCH_8042)) {
		i8042.acpi_said_absent = true;
		if (param_mode != I8042_FORCE) {
			i8042.absent_why = "the FADT says this machine has none (legacy-free)";
			pr_info("i8042: none: the ACPI FADT (revision %u) IAPC_BOOT_ARCH is 0x%04x, without the 8042 flag: "
				"legacy-free, not probed (i8042=force probes anyway)\n", fadt->revision, fadt->boot_arch);
			return 0;
		}
	}
	if (controller_setup()) {
		pr_info("i8042: no controller: %s (%s); no PS/2 keyboard or mouse\n", i8042.absent_why, fadt_words(fadt));
		return 0;
	}
	i8042.present = true;
	i8042.trace_tag = irq_trace_tag("i8042_byte");
	pr_info("i8042: controller at 0x60/0x64 (%s), self-test passed, %s, translation off (scan code set 2)\n",
		fadt_words(fadt), i8042.aux.exists ? "two ports" : "one port");
	/* Keyboard first: its port on, the mouse's still off. */
	if (i8042.kbd.exists && !ctl_command(I8042_CMD_KBD_ON, NULL) && !kbd_setup())
		i8042.kbd.device = true;
	if (i8042.aux.exists && param_nomouse)
		i8042.aux.problem = "switched off (i8042=nomouse)";
	else if (i8042.aux.exists && !ctl_command(I8042_CMD_AUX_ON, NULL) && !mouse_setup())
		i8042.aux.device = true;
	if (i8042.kbd.device && !port_start(&i8042.kbd))
		used++;
	if (i8042.aux.device && !port_start(&i8042.aux))
		used++;
	/* Interrupts on for the ports in use; ports without a device stay off. */
	cfg = i8042.cfg & (uint8_t)~(I8042_CFG_KBD_INT | I8042_CFG_AUX_INT | I8042_CFG_KBD_OFF | I8042_CFG_AUX_OFF);
	cfg |= i8042.kbd.irq_ok ? I8042_CFG_KBD_INT : I8042_CFG_KBD_OFF;
	cfg |= i8042.aux.irq_ok ? I8042_CFG_AUX_INT : I8042_CFG_AUX_OFF;
	flags = i8042_lock();
	if (!i8042.kbd.irq_ok)
		(void)write_cmd(I8042_CMD_KBD_OFF);
	if (!i8042.aux.irq_ok)
		(void)write_cmd(I8042_CMD_AUX_OFF);
	if (write_config(cfg))
		pr_warn("i8042: the controller took no configuration with interrupts on; keys will come by polling only\n");
	i8042_unlock(flags);
	typematic_words(typematic, sizeof(typematic));
	ksnprintf(kbd_detail, sizeof(kbd_detail), "ID %02x %02x, set 2, %s, num lock on",
		  i8042.kbd_id_len > 0 ? i8042.kbd_id[0] : 0, i8042.kbd_id_len > 1 ? i8042.kbd_id[1] : 0, typematic);
	ksnprintf(aux_detail, sizeof(aux_detail), "%s, %u samples/s", mouse_kind(), (unsigned int)I8042_MOUSE_RATE);
	report_port(&i8042.kbd, kbd_detail);
	report_port(&i8042.aux, aux_detail);
	return used;
}
