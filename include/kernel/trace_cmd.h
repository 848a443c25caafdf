/* The shell command `trace` (kernel/trace_cmd.c): the event trace of kernel/irq (docs/trace.md). */
#ifndef KERNEL_TRACE_CMD_H
#define KERNEL_TRACE_CMD_H

int trace_cmd(int argc, char **argv);

#endif
