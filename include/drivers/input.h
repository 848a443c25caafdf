/*
 * input.h - the PS/2 keyboard and mouse behind the 8042 keyboard controller
 * (drivers/input/, docs/input.md). Keys go to the kernel console like the
 * serial line's and the USB keyboard's; mouse packets are decoded and shown
 * by the `mouse` shell command.
 */
#ifndef DRIVERS_INPUT_H
#define DRIVERS_INPUT_H

struct fw_fadt;

/*
 * i8042_init - find the 8042 (unless the FADT @fadt says there is none, or
 * the boot parameter says otherwise), test it and its ports, set up the
 * keyboard and the mouse, request IRQ 1 and IRQ 12 and watch both lines
 * (watch_irq_keep). @fadt may be NULL (no ACPI). Every wait is bounded: a
 * missing controller or device is reported and the boot goes on.
 * CONTEXT: boot, process context, with interrupts on and the interrupt
 * core's defences started; after the USB host controllers took over from
 * the firmware (their legacy keyboard emulation is off).
 * RETURNS the number of ports in use (0-2).
 */
int i8042_init(const struct fw_fadt *fadt);

/* i8042_param - the boot parameter i8042=off|force|nomouse (kernel/params.c). */
int i8042_param(const char *value, void *arg);

/* The shell commands `i8042` (controller, ports, lines, counters) and `mouse` (pointer state). */
int i8042_cmd(int argc, char **argv);
int mouse_cmd(int argc, char **argv);

#endif /* DRIVERS_INPUT_H */
