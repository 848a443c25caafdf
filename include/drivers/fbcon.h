/* The framebuffer console (drivers/video/fbcon.c). */
#ifndef DRIVERS_FBCON_H
#define DRIVERS_FBCON_H

#include <kernel/bootinfo.h>

/*
 * fbcon_early_init - register the console sink and keep its output (up to
 * 16 KiB) until fbcon_init can draw it. CONTEXT: boot, once, as soon as the
 * loader's framebuffer is known (after multiboot_parse).
 */
void fbcon_early_init(void);

/*
 * fbcon_init - map the framebuffer described by @mode (kept by pointer),
 * draw @title on the top row and what the console has shown so far below,
 * and from then on draw every console write. CONTEXT: boot CPU, after
 * paging_init and heap_setup, before other CPUs and interrupts start.
 * RETURNS 0; -ENODEV (fbcon_early_init was not called), -EINVAL (a mode too
 * small or too large for cells), -ENOMEM, or mmio_map's error; then the
 * console has no screen.
 */
int fbcon_init(const struct boot_fb *mode, const char *title);

#endif
