/* The in-memory kernel log behind printk (kernel/printk.c). */
#ifndef KERNEL_LOG_H
#define KERNEL_LOG_H

#include <stddef.h>
#include <stdint.h>

extern int console_loglevel;   /* boot parameter `loglevel=` */

/* printk_set_clock - the timestamp source (ns since boot), set by kernel/time. */
void printk_set_clock(uint64_t (*clock_ns)(void));

/*
 * log_read - copy log bytes from *@pos on into @out (at most @max), advance
 * *@pos. Start with *pos = 0; bytes overwritten since are skipped.
 * RETURNS bytes copied (0 at the end).
 */
size_t log_read(uint32_t *pos, char *out, size_t max);

#endif
