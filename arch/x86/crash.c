/*
 * crash.c - raising CPU exceptions on purpose, with real faulting
 * instructions (no software `int n` for the faults), so the trap path of
 * traps.c is exercised exactly as a bug would exercise it. "stack" is a
 * real kernel stack overflow: unbounded recursion into the unmapped guard
 * page under the boot stack (paging.c), which page-faults while the CPU
 * cannot push the page fault's frame, so it becomes a double fault that the
 * double-fault task reports (traps.c, gdt.c).
 */
#include <stdint.h>
#include <asm/cpu.h>
#include <kernel/crash.h>
#include <kernel/errno.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#define BAD_SELECTOR 0x1234   /* an LDT selector (TI=1), and we have no LDT: loading it raises #GP(0x1234) */

static void raise_de(void)
{
	uint32_t zero = 0;
	/* DIV by a register the compiler cannot prove zero. */
	__asm__ volatile("movl $1, %%eax; xorl %%edx, %%edx; divl %0" :: "r"(zero) : "eax", "edx");
}

static void raise_ud(void)
{
	__asm__ volatile("ud2");
}

static void raise_gp(void)
{
	__asm__ volatile("movw %0, %%ax; movw %%ax, %%fs" :: "i"(BAD_SELECTOR) : "eax");
}

static void raise_pf(void)
{
	uintptr_t addr = CRASH_PF_ADDRESS;
	uint32_t v;

	/* Through a register, so the compiler neither warns about nor drops the access. */
	__asm__ volatile("movl (%1), %0" : "=r"(v) : "r"(addr) : "memory");
	(void)v;
}

static void raise_bp(void)
{
	__asm__ volatile("int3");
}

static void raise_nmi(void)
{
	/* Software delivery of vector 2 runs the NMI path (a real NMI: QEMU's `nmi` monitor command). */
	__asm__ volatile("int $2");
}

/* Bytes of locals per recursion level of raise_stack: 16 KiB of stack fills in ~60 levels. */
#define STACK_FRAME_PAD 256
/* Recursion limit, volatile so the compiler cannot prove the recursion
 * infinite (and drop or warn about it); far more levels than any stack has. */
static volatile uint32_t stack_depth_limit = 0xFFFFFFFFu;
static volatile uint32_t stack_depth_reached;

/* Recurse with a real frame per level (the addition after the call keeps it
 * from becoming a loop) until the stack runs into the guard page under it. */
static __attribute__((noinline)) uint32_t recurse(uint32_t depth)
{
	volatile uint8_t pad[STACK_FRAME_PAD];

	pad[0] = (uint8_t)depth;
	pad[STACK_FRAME_PAD - 1] = (uint8_t)(depth >> 8);
	stack_depth_reached = depth;
	if (depth >= stack_depth_limit)
		return depth;
	return recurse(depth + 1) + pad[0] + pad[STACK_FRAME_PAD - 1];
}

static void raise_stack(void)
{
	(void)recurse(0);
}

static const struct {
	const char *name;
	void (*raise)(void);
} crashes[] = {
	{ "de", raise_de }, { "ud", raise_ud }, { "gp", raise_gp },
	{ "pf", raise_pf }, { "bp", raise_bp }, { "nmi", raise_nmi },
	{ "stack", raise_stack },
};

int crash_raise(const char *name)
{
	for (unsigned int i = 0; i < sizeof(crashes) / sizeof(crashes[0]); i++) {
		if (strcmp(name, crashes[i].name) == 0) {
			pr_info("crash: raising %s\n", name);
			crashes[i].raise();
			pr_info("crash: %s returned; execution resumed\n", name);
			return 0;
		}
	}
	return -EINVAL;
}

void crash_triple_fault(void)
{
	struct { uint16_t limit; uint32_t base; } __attribute__((packed)) empty = { 0, 0 };

	__asm__ volatile("lidt %0; int3" :: "m"(empty));
	cpu_halt_forever();
}
