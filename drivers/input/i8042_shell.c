/*
 * i8042_shell.c - the shell commands of drivers/input:
 *
 *   i8042   the controller (how it was found, its configuration byte), and
 *           per port: the line, vector and kernel/irq's watch state of its
 *           action, bytes taken, handler runs that found nothing or the
 *           other port's byte, the decoder's counters, the keyboard's
 *           run-time commands, the faults' work.
 *   mouse   the mouse: kind, packets, the position summed from them
 *           (y grows upwards, PS/2's convention), the wheel, buttons, the
 *           last packet and the resynchronisation counters.
 *
 * docs/reference.md lists them; docs/input.md explains the numbers.
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/io.h>
#include <asm/x86_irq.h>
#include <drivers/input.h>
#include <irq/stats.h>
#include <kernel/console.h>
#include <kernel/errno.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#include "i8042_internal.h"

/* kernel/irq's view of @p's action on its line (@p the live port: its address is the dev_id). */
static void show_line(const struct i8042_port *p)
{
	struct irq_action_health h;
	struct irq_action_stats s;
	char why[48];

	for (unsigned int i = 0; irq_get_action_health((unsigned int)p->line, i, &h) == 0; i++) {
		if (h.dev_id != p)
			continue;
		if (irq_get_action_stats((unsigned int)p->line, i, &s) != 0)
			s.handled = s.polled_handled = 0;
		cprintf("    %s %d action \"%s\": %llu by interrupt, %llu by polling; watch %s%s%s (finds by its polls: "
			"%llu polled, %llu late)\n", i8042_line_kind(), p->line, h.name, (unsigned long long)s.handled,
			(unsigned long long)s.polled_handled, h.watch, h.causes ? ", ON POLLING: " : "",
			h.causes ? irq_health_cause_string(h.causes, why, sizeof(why)) : "",
			(unsigned long long)h.watch_polled, (unsigned long long)h.watch_late);
		return;
	}
	cprintf("    %s %d: no action of this port registered\n", i8042_line_kind(), p->line);
}

/* @p: a snapshot of the port's counters; @live: the port itself. */
static void show_port(const struct i8042_port *p, const struct i8042_port *live)
{
	if (!p->irq_ok) {
		cprintf("  %s: not used: %s\n", p->what, p->problem ? p->problem : "switched off");
		return;
	}
	cprintf("  %s: IRQ %u (%s %d, vector %#04x): %llu bytes; handler runs with nothing to take %llu, with the "
		"other port's byte %llu; bytes with parity/time-out errors %llu, dropped %llu\n", p->what, p->isa_irq,
		i8042_line_kind(), p->line, (unsigned int)x86_irq_to_vector((unsigned int)p->line),
		(unsigned long long)p->bytes, (unsigned long long)p->runs_empty, (unsigned long long)p->runs_other,
		(unsigned long long)p->parity_errors, (unsigned long long)p->discarded);
	show_line(live);
	if (p->stuck_armed || p->stuck_left)
		cprintf("    fault %s: %llu bytes left in the controller so far%s\n", p->aux ? "i8042-aux-stuck" : "i8042-stuck",
			(unsigned long long)p->stuck_left, p->stuck_armed ? " (armed)" : "");
}

int i8042_cmd(int argc, char **argv)
{
	const struct ps2_kbd *k = &i8042.kdec;
	unsigned long flags;
	struct i8042 snap;
	uint8_t st;

	(void)argv;
	if (argc != 1)
		return -EINVAL;
	if (!i8042.probed || !i8042.present) {
		cprintf("i8042: no controller: %s\n", i8042.absent_why ? i8042.absent_why : "not probed");
		return 0;
	}
	/* One consistent copy of the counters (the handlers change them on any CPU). Reading
	 * the status register changes nothing in the controller. */
	flags = i8042_lock();
	snap = i8042;
	st = inb(I8042_STATUS_PORT);
	i8042_unlock(flags);
	k = &snap.kdec;
	cprintf("i8042: controller at 0x60/0x64%s, configuration %#04x (the firmware left %#04x), translation off, "
		"scan code set 2\n", snap.acpi_said_absent ? " (the FADT said none: i8042=force)" : "", snap.cfg,
		snap.cfg_bios);
	cprintf("  status register %#04x: output buffer %s\n", st, !(st & I8042_STR_OBF) ? "empty"
		: (st & I8042_STR_AUXDATA) ? "full: a mouse byte waits" : "full: a keyboard byte waits");
	show_port(&snap.kbd, &i8042.kbd);
	if (snap.kbd.irq_ok) {
		cprintf("    keyboard ID %02x %02x, LEDs%s%s%s%s; %u characters typed\n",
			snap.kbd_id_len > 0 ? snap.kbd_id[0] : 0, snap.kbd_id_len > 1 ? snap.kbd_id[1] : 0,
			snap.leds & PS2_LED_CAPS ? " caps" : "", snap.leds & PS2_LED_NUM ? " num" : "",
			snap.leds & PS2_LED_SCROLL ? " scroll" : "", snap.leds ? "" : " off", snap.kbd_chars);
		cprintf("    decoder: %u bytes, keys %u down / %u up, %u repeats, %u stuck bytes dropped, %u garbage, "
			"%u unknown codes, %u answers, %u overruns, %u keyboard resets\n", k->bytes, k->keys_down,
			k->keys_up, k->repeats, k->stuck, k->garbage, k->unknown, k->responses, k->overruns, k->resets);
		cprintf("    commands at run time: %u done, %u failed, %u late answers%s\n", snap.cmd_done, snap.cmd_failed,
			snap.cmd_unasked_acks, snap.cmd_busy ? ", one running" : "");
	}
	show_port(&snap.aux, &i8042.aux);
	if (snap.aux.irq_ok)
		cprintf("    mouse ID %u, %u-byte packets, %u packets (`mouse` for the pointer)\n", snap.mouse_id,
			snap.mdec.len, snap.mdec.packets);
	return 0;
}

int mouse_cmd(int argc, char **argv)
{
	unsigned long flags;
	struct ps2_mouse m;
	struct ps2_mouse_packet last;
	int64_t x, y, z;
	uint8_t buttons, id;
	uint32_t presses, setups;

	(void)argv;
	if (argc != 1)
		return -EINVAL;
	if (!i8042.aux.irq_ok) {
		cprintf("mouse: none (%s)\n", !i8042.present ? "no 8042 controller"
				: i8042.aux.problem ? i8042.aux.problem : "not set up");
		return 0;
	}
	flags = i8042_lock();
	m = i8042.mdec;
	last = i8042.mouse_last;
	x = i8042.mouse_x;
	y = i8042.mouse_y;
	z = i8042.mouse_z;
	buttons = i8042.mouse_buttons;
	id = i8042.mouse_id;
	presses = i8042.mouse_button_presses;
	setups = i8042.mouse_setups;
	i8042_unlock(flags);
	cprintf("mouse: %s on IRQ %u, %u-byte packets%s, set up %u times\n",
		id == PS2_MOUSE_ID_WHEEL ? "IntelliMouse (ID 3)" : "PS/2 mouse", i8042.aux.isa_irq, m.len,
		m.wheel ? " with the wheel" : "", setups);
	cprintf("mouse: position x %lld y %lld (y up), wheel %lld, buttons %s%s%s%s, %u presses\n", (long long)x,
		(long long)y, (long long)z, buttons & PS2_MOUSE_LEFT ? "L" : "", buttons & PS2_MOUSE_MIDDLE ? "M" : "",
		buttons & PS2_MOUSE_RIGHT ? "R" : "", buttons ? "" : "none", presses);
	cprintf("mouse: %u packets, last dx %d dy %d dz %d buttons %#x; %u bytes, %u dropped to resynchronise, "
		"%u overflow packets, %u unfinished packets, %u packet-length changes, %u mouse resets\n", m.packets,
		last.dx, last.dy, last.dz, last.buttons, m.bytes, m.dropped_bytes, m.overflows, m.timeouts, m.relearned,
		m.resets);
	return 0;
}
