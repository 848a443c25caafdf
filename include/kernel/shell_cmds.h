/* The table of shell commands (kernel/shell_cmds.c). */
#ifndef KERNEL_SHELL_CMDS_H
#define KERNEL_SHELL_CMDS_H

#include <kernel/shell.h>

const struct shell_command *shell_commands(unsigned int *count);

#endif
