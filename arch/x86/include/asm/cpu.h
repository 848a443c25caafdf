/*
 * Small CPU helpers: interrupt flag, halting, control registers, TSC, MSRs.
 * Intel SDM vol. 2 for the instructions, vol. 3A ch. 2 for the registers.
 */
#ifndef ASM_CPU_H
#define ASM_CPU_H

#include <stdint.h>
#include <stdbool.h>

#define X86_EFLAGS_IF (1u << 9)   /* interrupts enabled */

static inline void cpu_cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void cpu_sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void cpu_hlt(void) { __asm__ volatile("hlt" ::: "memory"); }
/* sti;hlt - STI's one-instruction shadow makes "enable and wait" atomic. */
static inline void cpu_sti_hlt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }
static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }

static inline unsigned long cpu_read_eflags(void)
{
	unsigned long f;
	__asm__ volatile("pushfl; popl %0" : "=r"(f) :: "memory");
	return f;
}

/* irq_save_flags - disable interrupts and return the previous EFLAGS. */
static inline unsigned long irq_save_flags(void)
{
	unsigned long f = cpu_read_eflags();
	cpu_cli();
	return f;
}

/* irq_restore_flags - re-enable interrupts only if they were on before. */
static inline void irq_restore_flags(unsigned long flags)
{
	if (flags & X86_EFLAGS_IF)
		cpu_sti();
}

static inline bool irqs_enabled(void) { return cpu_read_eflags() & X86_EFLAGS_IF; }

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((uint64_t)hi << 32) | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" :: "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static inline uint32_t read_cr0(void) { uint32_t v; __asm__ volatile("mov %%cr0, %0" : "=r"(v)); return v; }
static inline uint32_t read_cr2(void) { uint32_t v; __asm__ volatile("mov %%cr2, %0" : "=r"(v)); return v; }
static inline uint32_t read_cr3(void) { uint32_t v; __asm__ volatile("mov %%cr3, %0" : "=r"(v)); return v; }
static inline uint32_t read_cr4(void) { uint32_t v; __asm__ volatile("mov %%cr4, %0" : "=r"(v)); return v; }
static inline void write_cr0(uint32_t v) { __asm__ volatile("mov %0, %%cr0" :: "r"(v) : "memory"); }
static inline void write_cr3(uint32_t v) { __asm__ volatile("mov %0, %%cr3" :: "r"(v) : "memory"); }
static inline void write_cr4(uint32_t v) { __asm__ volatile("mov %0, %%cr4" :: "r"(v) : "memory"); }

static inline void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(0));
}

/* cpu_halt_forever - interrupts off, halt; NMIs wake hlt, so loop. */
__attribute__((noreturn)) static inline void cpu_halt_forever(void)
{
	for (;;) {
		cpu_cli();
		cpu_hlt();
	}
}

#endif
