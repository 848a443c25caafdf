/*
 * crash.c - raising CPU exceptions on purpose, with real faulting
 * instructions (no software `int n` for the faults), so the trap path of
 * traps.c is exercised exactly as a bug would exercise it.
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

static const struct {
	const char *name;
	void (*raise)(void);
} crashes[] = {
	{ "de", raise_de }, { "ud", raise_ud }, { "gp", raise_gp },
	{ "pf", raise_pf }, { "bp", raise_bp }, { "nmi", raise_nmi },
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
