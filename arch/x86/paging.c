/*
 * paging.c - the kernel's one address space, and the way drivers reach device
 * memory (mmio_map()).
 *
 * All 4 GiB are identity-mapped (virtual == physical): RAM, so that a kernel
 * pointer is the address a device's DMA needs, and MMIO below 4 GiB (PCI
 * BARs, IOAPIC, LAPIC, HPET, the framebuffer). A page is cached only where
 * the memory map has usable RAM below 0xC0000000; everything else is mapped
 * uncached (PCD|PWT), as device memory must be. The first 4 KiB page stays
 * unmapped, so a NULL pointer dereference faults, and so do the boot stack's
 * guard page (boot.S) and the other CPUs' (smp.c, paging_unmap_guard()): a
 * stack overflow faults there instead of overwriting what lies below.
 *
 * Two ways to build it (Intel SDM 3A chapter 4):
 *  - PAE (section 4.4), when the CPU has it (CPUID.1:EDX bit 6) and the
 *    `nopae` parameter is not given: 64-bit entries, a 4-entry page
 *    directory pointer table, 2 MiB pages (4 KiB in the first 4 MiB). A
 *    PAE entry holds a physical address up to the CPU's width (MAXPHYADDR,
 *    CPUID 0x80000008; 36 bits without that leaf), so device memory above
 *    4 GiB can be mapped: firmware on today's PCs (and OVMF) puts 64-bit
 *    BARs there, QEMU's NVMe at 0xe000000000.
 *  - 32-bit paging (section 4.3) with 4 MiB pages (PSE) otherwise: physical
 *    addresses stop at 4 GiB, and a BAR above is reported unreachable.
 *
 * Device memory that cannot be identity-mapped - above 4 GiB, or inside the
 * window itself - is mapped into the MMIO window: 64 MiB of virtual space
 * (32 large pages) that the memory map says holds nothing (no RAM, no
 * firmware range, not the framebuffer), chosen at boot above 16 MiB and below
 * the chipset's fixed MMIO at 0xFE000000 (mmio_window.c). Its page directory
 * entries start not present, so giving one a page later needs no TLB
 * shootdown on the other CPUs: no CPU caches a not-present entry.
 *
 * Why PAE and not moving such BARs below 4 GiB (Linux's pci=realloc): to
 * move a BAR the kernel must know which addresses the host bridge and every
 * bridge above the device forward, which on a PC is in the ACPI _CRS methods
 * of the DSDT (AML, which irqkit cannot run), and must reprogram the bridges'
 * windows too; firmware puts big BARs high because the 32-bit hole is too
 * small for them. Mapping them where they are needs neither.
 */
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/mmio_window.h>
#include <asm/paging.h>
#include <asm/spinlock.h>
#include <asm/trap.h>
#include <kernel/bootinfo.h>
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/panic.h>
#include <kernel/printk.h>

/* Page table entry bits (the same low bits in 32-bit and PAE entries). */
#define PTE_PRESENT  0x001u   /* entry maps something */
#define PTE_WRITE    0x002u   /* writable */
#define PTE_PWT      0x008u   /* write-through */
#define PTE_PCD      0x010u   /* cache disable: with PWT, PAT entry 3 = UC (the reset PAT) */
#define PTE_UC       (PTE_PCD | PTE_PWT)
#define PDE_PS       0x080u   /* this directory entry maps a large page */
#define CR0_PG       0x80000000u  /* enable paging */
#define CR0_WP       0x00010000u  /* honour read-only pages in ring 0 too */
#define CR4_PSE      0x00000010u  /* allow 4 MiB pages (32-bit paging) */
#define CR4_PAE      0x00000020u  /* 64-bit entries, 2 MiB large pages */
#define CPUID1_EDX_PSE (1u << 3)
#define CPUID1_EDX_PAE (1u << 6)
#define CPUID_EXT_MAX   0x80000000u  /* highest extended leaf */
#define CPUID_ADDR_SIZE 0x80000008u  /* EAX[7:0]: physical address bits */
#define PAE_DEFAULT_PHYS_BITS 36u    /* SDM 3A 4.1.4: MAXPHYADDR when leaf 0x80000008 is absent */
#define FOUR_GIB     0x100000000ull
#define MIB          0x100000u

/* Sizes of the two layouts. */
enum paging_layout {
	LEGACY_ENTRIES = 1024,       /* 32-bit page directory and table entries */
	LEGACY_LARGE = 4 * MIB,
	PAE_ENTRIES = 512,           /* PAE directory and table entries */
	PAE_DIRS = 4,                /* page directories, one per GiB */
	PAE_LARGE = 2 * MIB,
	LOW_BYTES = 4 * MIB,         /* mapped with 4 KiB pages (the guard pages live here) */
	PAE_LOW_TABLES = LOW_BYTES / PAE_LARGE,
};

/* Tunables of the MMIO window, with their reasons. */
enum mmio_tunables {
	MMIO_WINDOW_FLOOR = 16 * MIB,          /* not below: the kernel, the trampoline and the BIOS areas live there */
	MMIO_WINDOW_CEILING = 0xFE000000u,     /* not above: IOAPIC 0xFEC, HPET 0xFED, LAPIC 0xFEE, the flash */
};

extern char boot_stack_guard[];

static uint32_t page_dir[LEGACY_ENTRIES] __attribute__((aligned(PAGE_SIZE)));
static uint32_t low_table[LEGACY_ENTRIES] __attribute__((aligned(PAGE_SIZE)));
static uint64_t pdpt[PAE_DIRS] __attribute__((aligned(32)));
static uint64_t pae_dir[PAE_DIRS][PAE_ENTRIES] __attribute__((aligned(PAGE_SIZE)));
static uint64_t pae_low[PAE_LOW_TABLES][PAE_ENTRIES] __attribute__((aligned(PAGE_SIZE)));

static bool pae;                  /* paging_init chose PAE */
static bool pae_refused;          /* the CPU has PAE, `nopae` said not to use it */
static unsigned int phys_bits = 32;
static struct mmio_window window;
/* Serialises mmio_map()'s slot allocation; innermost, nothing is called under it. */
static spinlock_t window_lock = SPINLOCK_INIT;

int paging_param_nopae(const char *v, void *arg)
{
	(void)v;
	(void)arg;
	pae_refused = true;
	return 0;
}

/* An identity page at @base of @len bytes: cached only if it holds RAM below the MMIO area. */
static uint32_t cache_bits(uint64_t base, uint64_t len)
{
	return base < PAGING_UNCACHED_START && mmio_overlaps_ram(&boot_info, base, len) ? 0 : PTE_UC;
}

static bool in_window(uint64_t addr)
{
	return window.virt && addr >= window.virt && addr - window.virt < (uint64_t)window.slots * window.large;
}

/*
 * Some page of the identity map that covers [@phys, @phys + @len) is cached (it holds RAM):
 * device memory there would be cached too. Pages are 4 KiB in the first 4 MiB, large above.
 */
static bool identity_cached(uint64_t phys, uint64_t len)
{
	uint64_t large = pae ? PAE_LARGE : LEGACY_LARGE, end = phys + len;

	for (uint64_t at = phys; at < end;) {
		uint64_t size = at < LOW_BYTES ? PAGE_SIZE : large, page = at & ~(size - 1);

		if (!cache_bits(page, size))
			return true;
		at = page + size;
	}
	return false;
}

/* [@phys, @phys + @len) shares a byte with the window's virtual range (so it cannot be identity). */
static bool overlaps_window(uint64_t phys, uint64_t len)
{
	return window.virt && phys < window.virt + (uint64_t)window.slots * window.large && window.virt < phys + len;
}

static void pae_build(uint32_t guard)
{
	for (unsigned int d = 0; d < PAE_DIRS; d++)
		pdpt[d] = (uint32_t)(uintptr_t)pae_dir[d] | PTE_PRESENT;   /* PAE PDPTEs have no RW bit */
	for (unsigned int i = 0; i < PAE_DIRS * PAE_ENTRIES; i++) {
		uint64_t base = (uint64_t)i * PAE_LARGE;
		uint64_t *pde = &pae_dir[i / PAE_ENTRIES][i % PAE_ENTRIES];

		if (base < LOW_BYTES)
			*pde = (uint32_t)(uintptr_t)pae_low[i] | PTE_PRESENT | PTE_WRITE;
		else if (in_window(base))
			*pde = 0;   /* given a page by mmio_map() */
		else
			*pde = base | PTE_PRESENT | PTE_WRITE | PDE_PS | cache_bits(base, PAE_LARGE);
	}
	for (uint32_t p = 0; p < LOW_BYTES / PAGE_SIZE; p++)
		pae_low[p / PAE_ENTRIES][p % PAE_ENTRIES] = (uint64_t)p * PAGE_SIZE | PTE_PRESENT | PTE_WRITE |
			cache_bits((uint64_t)p * PAGE_SIZE, PAGE_SIZE);
	pae_low[0][0] = 0;                                                /* the NULL page */
	pae_low[guard / PAE_LARGE][(guard / PAGE_SIZE) % PAE_ENTRIES] = 0; /* the stack's guard page */
}

static void legacy_build(uint32_t guard)
{
	for (uint32_t p = 0; p < LEGACY_ENTRIES; p++)
		low_table[p] = p * PAGE_SIZE | PTE_PRESENT | PTE_WRITE | cache_bits((uint64_t)p * PAGE_SIZE, PAGE_SIZE);
	low_table[0] = 0;
	low_table[guard / PAGE_SIZE] = 0;
	page_dir[0] = (uint32_t)(uintptr_t)low_table | PTE_PRESENT | PTE_WRITE;
	for (uint32_t i = 1; i < LEGACY_ENTRIES; i++) {
		uint32_t base = i * LEGACY_LARGE;

		page_dir[i] = base | PTE_PRESENT | PTE_WRITE | PDE_PS | cache_bits(base, LEGACY_LARGE);
	}
}

/* CPUID: PAE, and how wide a physical address may be. */
static void probe_cpu(void)
{
	uint32_t a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	if (!(d & CPUID1_EDX_PSE))
		panic("paging_init: this CPU has no 4 MiB pages (PSE); irqkit needs a Pentium Pro or later");
	pae = (d & CPUID1_EDX_PAE) && !pae_refused;
	if (!pae)
		return;
	phys_bits = PAE_DEFAULT_PHYS_BITS;
	cpuid(CPUID_EXT_MAX, &a, &b, &c, &d);
	if (a >= CPUID_ADDR_SIZE) {
		cpuid(CPUID_ADDR_SIZE, &a, &b, &c, &d);
		/* The architecture allows 36 to 52 bits; anything else is a broken CPUID. */
		if ((a & 0xFF) >= 36 && (a & 0xFF) <= 52)
			phys_bits = a & 0xFF;
	}
}

void paging_init(void)
{
	uint32_t guard = (uint32_t)(uintptr_t)boot_stack_guard;
	uint64_t at;

	probe_cpu();
	if ((guard & (PAGE_SIZE - 1)) || guard >= LOW_BYTES)
		panic("paging_init: boot stack guard %#x is not a 4 KiB page inside the first 4 MiB", guard);
	if (pae) {
		at = mmio_window_pick(&boot_info, (uint64_t)MMIO_WINDOW_MAX_SLOTS * PAE_LARGE, PAE_LARGE,
				      MMIO_WINDOW_FLOOR, MMIO_WINDOW_CEILING);
		if (at) {
			window.virt = (uint32_t)at;
			window.large = PAE_LARGE;
			window.slots = MMIO_WINDOW_MAX_SLOTS;
		}
		pae_build(guard);
		write_cr4(read_cr4() | CR4_PAE);
		write_cr3((uint32_t)(uintptr_t)pdpt);
		gdt_set_task_cr3((uint32_t)(uintptr_t)pdpt);
	} else {
		legacy_build(guard);
		write_cr4(read_cr4() | CR4_PSE);
		write_cr3((uint32_t)(uintptr_t)page_dir);
		gdt_set_task_cr3((uint32_t)(uintptr_t)page_dir);
	}
	write_cr0(read_cr0() | CR0_PG | CR0_WP);
	if (pae && window.virt)
		pr_info("paging: PAE, %u-bit physical addresses; identity map of 4 GiB in 2 MiB pages, cached where the "
			"memory map has RAM; device memory above 4 GiB goes to the MMIO window %#x-%#x\n", phys_bits,
			window.virt, window.virt + window.slots * window.large - 1);
	else if (pae)
		pr_warn("paging: PAE, %u-bit physical addresses; identity map of 4 GiB in 2 MiB pages; no room for an MMIO "
			"window (the memory map leaves no free %u MiB below 0xfe000000): device memory above 4 GiB "
			"is unreachable\n", phys_bits, MMIO_WINDOW_MAX_SLOTS * PAE_LARGE / MIB);
	else
		pr_info("paging: 32-bit paging (%s); identity map of 4 GiB in 4 MiB pages, cached where the memory map "
			"has RAM; device memory above 4 GiB is unreachable\n",
			pae_refused ? "nopae" : "this CPU has no PAE");
	pr_info("paging: page 0 and the boot stack's guard page %#x unmapped\n", guard);
}

int paging_unmap_guard(uint32_t addr)
{
	if ((addr & (PAGE_SIZE - 1)) || addr >= LOW_BYTES || addr == 0)
		return -EINVAL;
	if (pae)
		pae_low[addr / PAE_LARGE][(addr / PAGE_SIZE) % PAE_ENTRIES] = 0;
	else
		low_table[addr / PAGE_SIZE] = 0;
	__asm__ volatile("invlpg (%0)" :: "r"(addr) : "memory");
	return 0;
}

bool paging_pae(void)
{
	return pae;
}

/*
 * Point window slot @slot at the physical large page @phys. The entry was not
 * present: write the high half first, then the low half that makes it
 * present, so no CPU ever walks a half-written entry (a compiler barrier
 * orders the two stores; x86 keeps stores in order).
 */
static void window_set(unsigned int slot, uint64_t phys)
{
	uint32_t virt = window.virt + slot * window.large;
	volatile uint32_t *pde = (volatile uint32_t *)&pae_dir[virt / (PAE_ENTRIES * PAE_LARGE)]
							     [(virt / PAE_LARGE) % PAE_ENTRIES];

	pde[1] = (uint32_t)(phys >> 32);
	__asm__ volatile("" ::: "memory");
	pde[0] = (uint32_t)phys | PTE_PRESENT | PTE_WRITE | PDE_PS | PTE_UC;
}

int mmio_map(uint64_t phys, uint64_t len, uintptr_t *virt)
{
	unsigned int first, count;
	unsigned long flags;
	uint32_t at;
	int err;

	if (len == 0 || len - 1 > UINT64_MAX - phys)
		return -EINVAL;
	if (phys + len <= FOUR_GIB && !overlaps_window(phys, len)) {
		/* Identity: the pages are uncached unless they hold RAM, which device memory must not share. */
		if (identity_cached(phys, len))
			return -EFAULT;
		*virt = (uintptr_t)phys;
		return 0;
	}
	if (!pae)
		return -ERANGE;
	if (phys_bits < 64 && (phys + len - 1) >> phys_bits)
		return -EOVERFLOW;
	flags = spin_lock_irqsave(&window_lock);
	err = mmio_window_alloc(&window, phys, len, &at, &first, &count);
	for (unsigned int i = 0; !err && i < count; i++)
		window_set(first + i, window.phys[first + i]);
	spin_unlock_irqrestore(&window_lock, flags);
	if (err)
		return err == -EINVAL ? -ENOSPC : err;   /* -EINVAL from the allocator: there is no window */
	*virt = at;
	return 0;
}

const char *mmio_map_error(int err)
{
	switch (err) {
	case -ERANGE:
		return pae_refused ? "it lies above 4 GiB and `nopae` keeps this kernel on 32-bit paging"
				   : "it lies above 4 GiB and this CPU has no PAE: a 32-bit kernel cannot reach it";
	case -EOVERFLOW:
		return "it lies beyond the physical address width this CPU reports (CPUID 0x80000008)";
	case -ENOSPC:
		return window.virt ? "the MMIO window for device memory above 4 GiB is full"
				   : "there is no MMIO window: the memory map left no free range for it";
	case -EFAULT:
		return "it shares a page with RAM, which is mapped cached";
	default:
		return "an empty or wrapping range";
	}
}

void mmio_describe(uint64_t phys, char *buf, size_t len)
{
	unsigned long flags = spin_lock_irqsave(&window_lock);

	for (unsigned int i = 0; i < window.slots && i < MMIO_WINDOW_MAX_SLOTS; i++) {
		if (window.used[i] && phys - window.phys[i] < window.large) {
			uint32_t virt = window.virt + i * window.large + (uint32_t)(phys - window.phys[i]);

			spin_unlock_irqrestore(&window_lock, flags);
			ksnprintf(buf, len, "mapped at %#x (PAE window), uncached", virt);
			return;
		}
	}
	spin_unlock_irqrestore(&window_lock, flags);
	if (phys >= FOUR_GIB)
		ksnprintf(buf, len, "not mapped (%s)", pae ? "above 4 GiB: mapped when a driver asks" :
			  "above 4 GiB, no PAE: unreachable");
	else if (in_window(phys))
		ksnprintf(buf, len, "not mapped (inside the MMIO window's range: mapped there when a driver asks)");
	else
		ksnprintf(buf, len, "identity-mapped, %s", identity_cached(phys, 1) ? "cached (RAM)" : "uncached");
}
