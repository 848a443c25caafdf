/*
 * Fault injection for tests and teaching. A driver declares the faults it
 * can cause for real (a device that stops raising its interrupt, a route
 * pointed elsewhere...) with FAULT(); the boot parameter
 * `fault=NAME[:ARG][,NAME[:ARG]...]` switches them on at the end of boot,
 * the shell's `inject NAME[:ARG]` / `inject off NAME` at any time, and
 * `inject` alone lists them with their state.
 *
 *   static int ata_drop_on(const char *arg);   // arg NULL or "30"
 *   static int ata_drop_off(void);
 *   FAULT(ata_drop, "ata-drop", "PERCENT", "the disk drops that share of its interrupts (nIEN)",
 *         ata_drop_on, ata_drop_off);
 *
 * on() returns 0 or a negative errno (-EINVAL for a bad ARG); it may be
 * called again while active to change ARG. Every switch is logged.
 */
#ifndef KERNEL_FAULT_H
#define KERNEL_FAULT_H

#include <stdbool.h>

struct fault {
	const char *name;        /* "ata-drop" */
	const char *arg_help;    /* "PERCENT", or NULL when it takes no argument */
	const char *help;        /* one line */
	int (*on)(const char *arg);
	int (*off)(void);
};

#define FAULT(id_, name_, arg_help_, help_, on_, off_)                               \
	static const struct fault fault_desc_##id_                                    \
		__attribute__((used, section(".faults"), aligned(4))) = {              \
		name_, arg_help_, help_, on_, off_ }

/* fault_inject - switch fault NAME[:ARG] on. RETURNS 0, -ENOENT (no such fault) or on()'s error. */
int fault_inject(const char *spec);
/* fault_clear - switch fault @name off. RETURNS 0, -ENOENT, or off()'s error. */
int fault_clear(const char *name);
bool fault_active(const char *name);
/* fault_param / fault_apply_boot - the `fault=` boot parameter (parsed early, applied late). */
int fault_param(const char *value, void *arg);
void fault_apply_boot(void);
int fault_cmd_inject(int argc, char **argv);

#endif
