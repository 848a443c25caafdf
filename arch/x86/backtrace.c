/*
 * backtrace.c - a frame-pointer backtrace (the kernel is built with
 * -fno-omit-frame-pointer, so each frame starts with the caller's EBP and
 * the return address). Every frame is checked to lie inside the kernel
 * stack and to move upwards, so a corrupt chain ends the walk instead of
 * faulting. Resolve the addresses with `addr2line -e build/kernel.elf`.
 */
#include <stdint.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/format.h>

#define BACKTRACE_MAX_FRAMES 16   /* frames printed at most */

extern char boot_stack_bottom[], boot_stack_top[];

void print_backtrace(uint32_t ebp, uint32_t eip)
{
	uint32_t lo = (uint32_t)(uintptr_t)boot_stack_bottom;
	uint32_t hi = (uint32_t)(uintptr_t)boot_stack_top;
	char line[16 + BACKTRACE_MAX_FRAMES * 9];
	int n = ksnprintf(line, sizeof(line), "%08x", eip);

	for (int i = 0; i < BACKTRACE_MAX_FRAMES; i++) {
		if (ebp < lo || ebp > hi - 8 || (ebp & 3))
			break;
		const uint32_t *frame = (const uint32_t *)(uintptr_t)ebp;
		uint32_t next = frame[0], ret = frame[1];
		if (ret == 0 || n >= (int)sizeof(line))
			break;
		n += ksnprintf(line + n, sizeof(line) - n, " %08x", ret);
		if (next <= ebp)
			break;
		ebp = next;
	}
	pr_emerg("  backtrace: %s\n", line);
}
