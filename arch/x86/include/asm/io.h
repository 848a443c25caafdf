/*
 * Port I/O (IN/OUT instructions) and MMIO accessors for x86.
 * MMIO accessors use volatile so the compiler neither merges nor reorders
 * device accesses; x86 keeps uncached accesses in program order.
 */
#ifndef ASM_IO_H
#define ASM_IO_H

#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v)  { __asm__ volatile("outb %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" :: "a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" :: "a"(v), "Nd"(port)); }

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint16_t inw(uint16_t port)
{
	uint16_t v;
	__asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

/* String forms for PIO data transfers (ATA moves 256 words per sector). */
static inline void insw(uint16_t port, void *buf, uint32_t count)
{
	__asm__ volatile("rep insw" : "+D"(buf), "+c"(count) : "d"(port) : "memory");
}

static inline void outsw(uint16_t port, const void *buf, uint32_t count)
{
	__asm__ volatile("rep outsw" : "+S"(buf), "+c"(count) : "d"(port) : "memory");
}

/*
 * io_wait - about 1 us of delay on ISA-era hardware: a write to port 0x80
 * (the POST diagnostic port, which nothing decodes meaningfully). Old 8259s
 * need it between initialisation words.
 */
static inline void io_wait(void) { outb(0x80, 0); }

static inline uint32_t mmio_read32(uintptr_t addr)  { return *(volatile uint32_t *)addr; }
static inline void mmio_write32(uintptr_t addr, uint32_t v) { *(volatile uint32_t *)addr = v; }

#endif
