/*
 * spinlock.h - spin locks for several CPUs: a ticket lock (FIFO, so a CPU
 * that waits is served in turn and never starved by a faster one) taken
 * with local interrupts off, so an interrupt handler on the same CPU can
 * never spin on a lock its own CPU holds.
 *
 * Memory ordering (Intel SDM 3A 9.2.2, "memory ordering in P6 and more
 * recent processor families"; x86 is TSO):
 *   - acquire: `lock xadd` on the ticket counter is a full barrier: no load
 *     or store of the critical section moves above it; the waiter then
 *     reads `owner` until it is its ticket (a plain load; x86 loads are not
 *     reordered with older loads, so what the previous holder wrote before
 *     its release store is visible once `owner` says so). Pairs with the
 *     release store in spin_unlock().
 *   - release: a compiler barrier, then a plain store of owner + 1. x86
 *     never reorders a store with older loads or stores, so every access
 *     of the critical section is visible before the next holder sees the
 *     new owner. Pairs with the acquire load in spin_lock().
 * Without the compiler barriers GCC could move critical-section accesses
 * past the lock word; without `lock` two CPUs could draw the same ticket.
 *
 * Every wait is bounded (SPIN_LOCK_MAX_SPINS pause loops, seconds on any
 * CPU): a lock still not granted then means a CPU died holding it or the
 * lock is corrupt, and the kernel panics with the lock's address instead of
 * hanging silently.
 */
#ifndef ASM_SPINLOCK_H
#define ASM_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <asm/cpu.h>

/* Pause loops a CPU waits for one lock before it declares it dead (about
 * 10 s at QEMU TCG speeds of ~10^8 pauses/s; far beyond any critical
 * section of this kernel, which are microseconds). */
#define SPIN_LOCK_MAX_SPINS 1000000000u

typedef struct {
	volatile uint16_t next;   /* the ticket the next arriving CPU draws */
	volatile uint16_t owner;  /* the ticket being served */
} spinlock_t;

#define SPINLOCK_INIT { 0, 0 }

static inline void spin_lock_init(spinlock_t *l)
{
	l->next = 0;
	l->owner = 0;
}

/* spin_lock_failed - report a lock that was not granted (panics). smp.c. */
__attribute__((noreturn, cold)) void spin_lock_failed(spinlock_t *l);

/* spin_lock - take @l. CONTEXT: interrupts off on this CPU (else a handler
 * that takes @l too deadlocks against us); not recursive. */
static inline void spin_lock(spinlock_t *l)
{
	uint16_t ticket = 1;
	uint32_t spins = 0;

	/* Draw a ticket: the full barrier of the acquire (see the top). */
	__asm__ volatile("lock xaddw %0, %1" : "+r"(ticket), "+m"(l->next) :: "memory");
	while (l->owner != ticket) {
		if (++spins == SPIN_LOCK_MAX_SPINS)
			spin_lock_failed(l);
		cpu_relax();
	}
	__asm__ volatile("" ::: "memory");  /* acquire: nothing below moves above this load */
}

/* spin_trylock - take @l if nobody holds or waits for it. RETURNS true if taken. */
static inline bool spin_trylock(spinlock_t *l)
{
	uint32_t old = (uint32_t)l->next | (uint32_t)l->owner << 16;
	uint16_t t = (uint16_t)old;
	uint32_t want;

	if ((uint16_t)(old >> 16) != t)
		return false;
	want = (old & 0xFFFF0000u) | ((old + 1u) & 0xFFFFu);   /* next + 1, owner unchanged */
	/* One cmpxchg over both halves: succeeds only if nobody drew a ticket meanwhile. */
	return __atomic_compare_exchange_n((uint32_t *)(uintptr_t)l, &old, want, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* spin_unlock - release @l. Pairs with the acquire in spin_lock(). */
static inline void spin_unlock(spinlock_t *l)
{
	__asm__ volatile("" ::: "memory");  /* release: the critical section stays above */
	l->owner = (uint16_t)(l->owner + 1);
}

static inline bool spin_is_locked(const spinlock_t *l)
{
	return l->next != l->owner;
}

/* spin_lock_irqsave - interrupts off on this CPU, then take @l. RETURNS the old EFLAGS. */
static inline unsigned long spin_lock_irqsave(spinlock_t *l)
{
	unsigned long flags = irq_save_flags();

	spin_lock(l);
	return flags;
}

/* spin_unlock_irqrestore - release @l, then interrupts back as @flags says. */
static inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
	spin_unlock(l);
	irq_restore_flags(flags);
}

#endif
