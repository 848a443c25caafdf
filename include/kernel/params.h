/*
 * Boot parameters: every parameter the kernel understands is one row of
 * the table in kernel/params.c (name, kind, parser, help line); the README
 * lists the same rows. Values land in the variables below.
 */
#ifndef KERNEL_PARAMS_H
#define KERNEL_PARAMS_H

#include <stdint.h>
#include <stdbool.h>
#include <kernel/cmdline.h>

#define PARAM_HZ_DEFAULT 1000u   /* tick rate unless hz= says otherwise */
#define PARAM_HZ_MIN     19u     /* the PIT's 16-bit divisor cannot go slower */
#define PARAM_HZ_MAX     10000u  /* faster ticks cost more than they give */

extern uint32_t param_hz;             /* hz= */
extern char param_selftest[128];      /* selftest= (comma list, "all", "list") */
extern char param_crash[16];          /* crash= exception to raise at the end of boot */

/* params_parse - parse the command line against the table. RETURNS problems found. */
int params_parse(const char *cmdline);
/* params_table - the table, for `help params`. */
const struct cmdline_param *params_table(unsigned int *count);

#endif
