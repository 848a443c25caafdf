/*
 * a64_run.c - the portable interrupt core on an AArch64 CPU at EL1 (QEMU's
 * virt board, cortex-a57), through the template port (its AArch64 section:
 * DAIF.I save/restore, the LDAXR/STXR lock, the generic timer's virtual
 * count as the clock and this CPU's virtual timer as the one-shot alarm),
 * with the GIC as the irq_chip and a real device: the board's PL011 UART,
 * whose driver sends text by its transmit interrupt (tests/cross/proof.c,
 * the same driver and scenario as the RISC-V runs). Built twice
 * (tests/cross/cross.mk): -DA64_GIC_VERSION=3 (-machine gic-version=3: the
 * distributor, a redistributor per CPU, the system-register CPU interface)
 * and -DA64_GIC_VERSION=2 (gic-version=2: distributor and memory-mapped CPU
 * interface). tests/cross/proof_check.py boots both and judges them.
 *
 * The GIC, for either version: a shared peripheral interrupt (SPI) is
 * enabled and disabled by single writes to set-enable and clear-enable
 * registers (GICD_ISENABLER/ICENABLER: a 1 acts, a 0 does nothing), so
 * mask and unmask need no read-modify-write and no lock against other
 * CPUs; its pending, enable and active bits are global distributor state,
 * so irq_pending answers from any CPU. A level interrupt the CPU has
 * acknowledged and ended while the device still holds it becomes pending
 * again (GIC architecture specification 4.1, level-sensitive
 * interrupts): the fasteoi flow's "mask, pending, eoi" relies on that, and
 * the GIC gives it, unlike QEMU's PLIC (tests/cross/rv64_run.c).
 *
 * The timer's PPI is no kernel/irq line: it belongs to the template, whose
 * alarm it is (as Linux's arch timer is a per-CPU interrupt of its own);
 * the trap code calls irq_template_timer_interrupt() for it and ends it.
 *
 * The program's console is semihosting (SYS_WRITE0, QEMU's stderr), so the
 * PL011's output (QEMU's stdout) is the device's alone: the texts it sent
 * and the storm's bytes, which the check counts on the host.
 *
 * Facts used: QEMU 7.2 hw/arm/virt.c (GIC distributor at 0x08000000, GICv2
 * CPU interface at 0x08010000, GICv3 redistributors at 0x080A0000, 128 KiB
 * per CPU; PL011 at 0x09000000 on SPI 1 = INTID 33; the virtual timer on
 * PPI 11 = INTID 27; RAM from 0x40000000); hw/char/pl011.c (a write to DR
 * raises the transmit interrupt, TXRIS, which stays until ICR clears it);
 * Arm GIC Architecture Specification (IHI 0069: GICv3/v4, register maps
 * 12.9 distributor, 12.10 redistributor, 12.2 CPU interface; IHI 0048:
 * GICv2); PrimeCell UART PL011 TRM (DDI 0183: DR, FR, IMSC, MIS, ICR);
 * Arm ARM (A-profile) D8 (VMSAv8-64 translation, 4 KiB granule, level 1
 * blocks of 1 GiB), D11 (generic timer); Arm semihosting 2.0 (SYS_WRITE0
 * 0x04, SYS_EXIT 0x18 with an exit code on AArch64, "hlt #0xf000").
 */
#include <stdbool.h>
#include <stdint.h>

#include <irq/interrupt.h>
#include <irq/irqchip.h>
#include <irq_port_host.h>

#include "cross_console.h"
#include "proof.h"

#if !defined(A64_GIC_VERSION) || (A64_GIC_VERSION != 2 && A64_GIC_VERSION != 3)
#error "a64_run.c: build with -DA64_GIC_VERSION=2 or 3 (tests/cross/cross.mk)"
#endif

/* ---- Board: QEMU virt ----------------------------------------------------- */

#define GICD_BASE       0x08000000ul
#define GICC_BASE       0x08010000ul  /* GICv2 CPU interface */
#define GICR_BASE       0x080A0000ul  /* GICv3 redistributors, one 128 KiB frame pair per CPU */
#define GICR_FRAME      0x20000ul
#define GICR_MAX_FRAMES 8u            /* the most frames looked at for this CPU's */
#define UART0_BASE      0x09000000ul
#define UART0_INTID     33u           /* SPI 1 */
#define TIMER_INTID     27u           /* the EL1 virtual timer: PPI 11 */
#define A64_RAM_BASE    0x40000000ul

/* The line numbers: kernel/irq line = GIC INTID (SPIs 32..63 fit the default 64 lines). */
#define UART0_IRQ       UART0_INTID
/* Priorities: lower is more urgent; everything below the priority mask (0xff) is signalled. */
#define GIC_PRIO_DEVICE 0xa0u
#define GIC_PRIO_TIMER  0xa0u
#define GIC_PMR_ALL     0xffu
/* INTIDs 1020-1023 are special (1023: nothing pending). */
#define GIC_INTID_SPECIAL 1020u
/* Most interrupts one exception takes before returning to the interrupted code. */
#define A64_ACKS_PER_IRQ  8u

/* Distributor registers (both versions). */
#define GICD_CTLR       0x0000u
#define GICD_IGROUPR    0x0080u  /* 1 bit per INTID: group 1 */
#define GICD_ISENABLER  0x0100u  /* write 1: enable */
#define GICD_ICENABLER  0x0180u  /* write 1: disable */
#define GICD_ISPENDR    0x0200u  /* read: pending */
#define GICD_ISACTIVER  0x0300u  /* read: active */
#define GICD_IPRIORITYR 0x0400u  /* 1 byte per INTID */
#define GICD_ITARGETSR  0x0800u  /* GICv2: 1 byte per INTID, a CPU-interface mask */
#define GICD_IROUTER    0x6000u  /* GICv3: 8 bytes per INTID, an affinity */
#define GICD_CTLR_EN_GRP0 0x1u   /* GICv2: forward interrupts; GICv3: group 0 */
#define GICD_CTLR_EN_GRP1 0x2u   /* GICv3, one security state: group 1 */
#define GICD_CTLR_ARE     0x10u  /* GICv3: affinity routing */
#define GICD_CTLR_RWP     (1u << 31)  /* GICv3: a register write is still taking effect */

/* GICv2 CPU interface registers. */
#define GICC_CTLR       0x0000u
#define GICC_PMR        0x0004u
#define GICC_IAR        0x000Cu
#define GICC_EOIR       0x0010u

/* GICv3 redistributor registers (RD_base frame, then the SGI_base frame 64 KiB above). */
#define GICR_TYPER      0x0008u  /* 64-bit: [63:32] affinity, bit 4 last frame */
#define GICR_WAKER      0x0014u
#define GICR_WAKER_SLEEP    0x2u  /* ProcessorSleep */
#define GICR_WAKER_ASLEEP   0x4u  /* ChildrenAsleep */
#define GICR_TYPER_LAST     0x10u
#define GICR_SGI        0x10000u
#define GICR_IGROUPR0   (GICR_SGI + 0x0080u)
#define GICR_ISENABLER0 (GICR_SGI + 0x0100u)
#define GICR_IPRIORITYR (GICR_SGI + 0x0400u)

/* PL011 registers and bits. */
#define PL011_DR        0x000u
#define PL011_FR        0x018u
#define PL011_IBRD      0x024u
#define PL011_FBRD      0x028u
#define PL011_LCR_H     0x02Cu
#define PL011_CR        0x030u
#define PL011_IMSC      0x038u
#define PL011_MIS       0x040u
#define PL011_ICR       0x044u
#define PL011_FR_TXFF   0x20u    /* transmit FIFO (or holding register) full */
#define PL011_INT_TX    0x20u    /* the transmit interrupt: in IMSC, MIS, ICR */
#define PL011_LCR_8N1   0x60u    /* WLEN 8 bits, FIFO off: one holding register */
#define PL011_CR_ENABLE 0x301u   /* UARTEN, TXE, RXE */
/* Bytes written per transmit interrupt (as the 16550's burst, the PL011's FIFO is 32 deep). */
#define PL011_TX_BURST  16u

/* Semihosting (Arm semihosting 2.0). */
#define SEMI_SYS_WRITE0 0x04u
#define SEMI_SYS_EXIT   0x18u
#define SEMI_EXIT_APP   0x20026u  /* ADP_Stopped_ApplicationExit: the code is QEMU's exit status */

static inline void mmio_write32(unsigned long addr, uint32_t v) { *(volatile uint32_t *)addr = v; }
static inline uint32_t mmio_read32(unsigned long addr) { return *(volatile uint32_t *)addr; }
static inline void mmio_write8(unsigned long addr, uint8_t v) { *(volatile uint8_t *)addr = v; }
static inline void mmio_write64(unsigned long addr, uint64_t v) { *(volatile uint64_t *)addr = v; }
static inline uint64_t mmio_read64(unsigned long addr) { return *(volatile uint64_t *)addr; }

/* ---- Semihosting: console and exit ------------------------------------------ */

static long semihost(unsigned long op, const void *arg)
{
	register unsigned long x0 __asm__("x0") = op;
	register const void *x1 __asm__("x1") = arg;

	__asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
	return (long)x0;
}

/* The board's console (tests/cross/cross_console.h): SYS_WRITE0 takes the string up to its '\0'. */
void cross_console_write(const char *s, unsigned int n)
{
	(void)n;
	semihost(SEMI_SYS_WRITE0, s);
}

static __attribute__((noreturn)) void a64_exit(bool pass)
{
	static uint64_t block[2];

	block[0] = SEMI_EXIT_APP;
	block[1] = pass ? 0 : 1;
	semihost(SEMI_SYS_EXIT, block);
	for (;;)
		__asm__ volatile("wfi");
}

/* ---- MMU: identity map, devices below 1 GiB, RAM above ----------------------- */

/*
 * With the MMU off every data access is Device-nGnRnE: unaligned accesses
 * fault and exclusive loads and stores (the lock's LDAXR/STXR) have no
 * architected meaning there. A kernel runs with its MMU on; so does this
 * program, with the smallest map: one level-1 table of 1 GiB blocks
 * (4 KiB granule, 39-bit addresses), 0-1 GiB Device (the GIC, the UART),
 * 1-2 GiB Normal write-back (the RAM).
 */
#define MAIR_DEVICE     0x00ul    /* attribute 0: Device-nGnRnE */
#define MAIR_NORMAL     0xfful    /* attribute 1: Normal, write-back, read/write-allocate */
#define PTE_BLOCK       0x1ul     /* a level-1 block */
#define PTE_ATTR(i)     ((unsigned long)(i) << 2)
#define PTE_SH_INNER    (3ul << 8)
#define PTE_AF          (1ul << 10)
#define PTE_XN          (3ul << 53)  /* PXN, UXN */
#define TCR_T0SZ_39     25ul
#define TCR_WBWA0       ((1ul << 8) | (1ul << 10))  /* IRGN0, ORGN0: write-back, write-allocate */
#define TCR_SH0_INNER   (3ul << 12)
#define TCR_EPD1        (1ul << 23)  /* no walks through TTBR1 */
#define TCR_IPS_40      (2ul << 32)
#define SCTLR_M         (1ul << 0)
#define SCTLR_C         (1ul << 2)
#define SCTLR_I         (1ul << 12)

static uint64_t a64_l1_table[512] __attribute__((aligned(4096)));

static void a64_mmu_on(void)
{
	unsigned long sctlr;

	a64_l1_table[0] = 0x00000000ul | PTE_BLOCK | PTE_ATTR(0) | PTE_AF | PTE_XN;
	a64_l1_table[1] = A64_RAM_BASE | PTE_BLOCK | PTE_ATTR(1) | PTE_AF | PTE_SH_INNER;
	__asm__ volatile("msr mair_el1, %0" : : "r"(MAIR_DEVICE | MAIR_NORMAL << 8));
	__asm__ volatile("msr tcr_el1, %0" : : "r"(TCR_T0SZ_39 | TCR_WBWA0 | TCR_SH0_INNER | TCR_EPD1 | TCR_IPS_40));
	__asm__ volatile("msr ttbr0_el1, %0" : : "r"(a64_l1_table));
	__asm__ volatile("dsb ish\n\ttlbi vmalle1\n\tdsb ish\n\tisb" : : : "memory");
	__asm__ volatile("mrs %0, sctlr_el1" : "=r"(sctlr));
	sctlr |= SCTLR_M | SCTLR_C | SCTLR_I;
	__asm__ volatile("msr sctlr_el1, %0\n\tisb" : : "r"(sctlr) : "memory");
}

/* ---- Time and CPU --------------------------------------------------------- */

static uint64_t a64_now_us(void)
{
	uint64_t cnt, hz;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(cnt) : : "memory");
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	return cnt / hz * 1000000 + cnt % hz * 1000000 / hz;
}

static unsigned long a64_irqs_off(void)
{
	unsigned long daif;

	__asm__ volatile("mrs %0, daif\n\tmsr daifset, #2" : "=r"(daif) : : "memory");
	return !(daif & 0x80);
}

static void a64_irqs_on(void)
{
	__asm__ volatile("msr daifclr, #2" : : : "memory");
}

/* ---- The GIC as an irq_chip --------------------------------------------------- */

#if A64_GIC_VERSION == 3
#define A64_GIC_NAME "GICv3"
/* This CPU's redistributor frame, found at set-up. */
static unsigned long gicr_base;

/* GICv3: a write to GICD_CTLR or ICENABLER takes effect once RWP reads 0 (bounded wait). */
static void gicd_wait_rwp(void)
{
	unsigned int spins;

	for (spins = 0; spins < 100000 && (mmio_read32(GICD_BASE + GICD_CTLR) & GICD_CTLR_RWP); spins++)
		;
}

static uint32_t gic_ack(void)
{
	uint64_t iar;

	__asm__ volatile("mrs %0, icc_iar1_el1" : "=r"(iar) : : "memory");
	return (uint32_t)iar & 0xffffffu;
}

static void gic_end(uint32_t intid)
{
	__asm__ volatile("msr icc_eoir1_el1, %0" : : "r"((uint64_t)intid) : "memory");
}
#else
#define A64_GIC_NAME "GICv2"
static void gicd_wait_rwp(void) { }

/* GICv2: the IAR holds the INTID (and, for SGIs, the sender); EOIR takes the same value back. */
static uint32_t gic_ack(void)
{
	return mmio_read32(GICC_BASE + GICC_IAR) & 0x1fffu;
}

static void gic_end(uint32_t iar)
{
	mmio_write32(GICC_BASE + GICC_EOIR, iar);
}
#endif

static inline unsigned long gicd_bit_reg(unsigned int reg, unsigned int intid)
{
	return GICD_BASE + reg + 4 * (intid / 32);
}

static bool gicd_bit(unsigned int reg, unsigned int intid)
{
	return mmio_read32(gicd_bit_reg(reg, intid)) & (1u << (intid % 32));
}

/* One write to a set/clear register: no read-modify-write, safe from any CPU without a lock. */
static void gic_mask(struct irq_data *d)
{
	mmio_write32(gicd_bit_reg(GICD_ICENABLER, d->hwirq), 1u << (d->hwirq % 32));
	gicd_wait_rwp();
}

static void gic_unmask(struct irq_data *d)
{
	mmio_write32(gicd_bit_reg(GICD_ISENABLER, d->hwirq), 1u << (d->hwirq % 32));
}

/* End of interrupt on the CPU that acknowledged it: the flow runs there. */
static void gic_eoi(struct irq_data *d)
{
	gic_end((uint32_t)d->hwirq);
}

/*
 * On its way to a CPU: pending at the distributor, enabled, and not active
 * (an active one is being handled, maybe on another CPU: whether it comes
 * again depends on the device, so "cannot tell"). The priority mask is
 * 0xff on every CPU here; a kernel that raises it must compare too.
 * Register reads only, from any CPU.
 */
static int gic_irq_pending(struct irq_data *d)
{
	if (d->hwirq < 32 || d->hwirq >= GIC_INTID_SPECIAL)
		return -1;  /* SGIs and PPIs are per CPU: not a line of this chip */
	if (!gicd_bit(GICD_ISPENDR, d->hwirq) || !gicd_bit(GICD_ISENABLER, d->hwirq))
		return 0;
	return gicd_bit(GICD_ISACTIVER, d->hwirq) ? -1 : 1;
}

static const struct irq_chip gic_chip = {
	.name = A64_GIC_NAME, .mask = gic_mask, .unmask = gic_unmask, .eoi = gic_eoi,
	.irq_pending = gic_irq_pending,
};

static int a64_chip_pending(void)
{
	return gicd_bit(GICD_ISPENDR, UART0_INTID);
}

/* The lost-interrupt fault: the SPI disabled at the distributor behind the core's back. */
static void a64_lose(bool on)
{
	struct irq_data d = { .irq = UART0_IRQ, .hwirq = UART0_INTID };

	if (on)
		gic_mask(&d);
	else
		gic_unmask(&d);
}

/*
 * An SPI: a priority, routed to this CPU, disabled until the core unmasks
 * it; on GICv3 in group 1. GICv2 without the security extensions (virt
 * without secure=on) signals group 0 as IRQs, and its CPU interface enable
 * (GICC_CTLR bit 0) covers only group 0: the SPI stays there.
 */
static void gic_setup_spi(unsigned int intid, uint8_t prio)
{
	mmio_write32(gicd_bit_reg(GICD_ICENABLER, intid), 1u << (intid % 32));
	gicd_wait_rwp();
	mmio_write8(GICD_BASE + GICD_IPRIORITYR + intid, prio);
#if A64_GIC_VERSION == 3
	/* Group 1: the group an EL1 kernel takes as IRQs (group 0 would come as FIQs). */
	mmio_write32(gicd_bit_reg(GICD_IGROUPR, intid), mmio_read32(gicd_bit_reg(GICD_IGROUPR, intid)) | 1u << (intid % 32));
	{
		uint64_t mpidr;

		__asm__ volatile("mrs %0, mpidr_el1" : "=r"(mpidr));
		/* Aff3 in bits 39:32, Aff2..Aff0 in 23:0, interrupt routing mode 0: this one CPU. */
		mmio_write64(GICD_BASE + GICD_IROUTER + 8 * intid, (mpidr & 0xffffffull) | (mpidr & 0xff00000000ull));
	}
#else
	/* GICD_ITARGETSR0-7 read as this CPU's own interface mask: route the SPI there. */
	mmio_write8(GICD_BASE + GICD_ITARGETSR + intid, (uint8_t)mmio_read32(GICD_BASE + GICD_ITARGETSR));
#endif
}

/* The distributor, this CPU's interface, and the timer's PPI; RETURNS false if the GIC is not as expected. */
static bool gic_init(void)
{
#if A64_GIC_VERSION == 3
	uint64_t mpidr, aff, typer = 0;
	unsigned int frame, spins;

	mmio_write32(GICD_BASE + GICD_CTLR, 0);
	gicd_wait_rwp();
	mmio_write32(GICD_BASE + GICD_CTLR, GICD_CTLR_ARE);
	gicd_wait_rwp();
	mmio_write32(GICD_BASE + GICD_CTLR, GICD_CTLR_ARE | GICD_CTLR_EN_GRP1);
	gicd_wait_rwp();
	/* This CPU's redistributor: the frame whose GICR_TYPER names its affinity (bounded walk). */
	__asm__ volatile("mrs %0, mpidr_el1" : "=r"(mpidr));
	aff = (mpidr & 0xffffffull) | ((mpidr >> 8) & 0xff000000ull);
	for (frame = 0; frame < GICR_MAX_FRAMES; frame++) {
		typer = mmio_read64(GICR_BASE + frame * GICR_FRAME + GICR_TYPER);
		if ((typer >> 32) == aff) {
			gicr_base = GICR_BASE + frame * GICR_FRAME;
			break;
		}
		if (typer & GICR_TYPER_LAST)
			break;
	}
	if (!gicr_base)
		return false;
	mmio_write32(gicr_base + GICR_WAKER, mmio_read32(gicr_base + GICR_WAKER) & ~GICR_WAKER_SLEEP);
	for (spins = 0; spins < 100000 && (mmio_read32(gicr_base + GICR_WAKER) & GICR_WAKER_ASLEEP); spins++)
		;
	/* The timer's PPI: group 1, its priority, enabled in this CPU's redistributor. */
	mmio_write32(gicr_base + GICR_IGROUPR0, mmio_read32(gicr_base + GICR_IGROUPR0) | 1u << TIMER_INTID);
	mmio_write8(gicr_base + GICR_IPRIORITYR + TIMER_INTID, GIC_PRIO_TIMER);
	mmio_write32(gicr_base + GICR_ISENABLER0, 1u << TIMER_INTID);
	/* The CPU interface: system registers on, everything below 0xff signalled, group 1 on. */
	{
		uint64_t sre;

		__asm__ volatile("mrs %0, icc_sre_el1" : "=r"(sre));
		__asm__ volatile("msr icc_sre_el1, %0\n\tisb" : : "r"(sre | 1));
		__asm__ volatile("msr icc_pmr_el1, %0" : : "r"((uint64_t)GIC_PMR_ALL));
		__asm__ volatile("msr icc_bpr1_el1, %0" : : "r"(0ul));
		__asm__ volatile("msr icc_igrpen1_el1, %0\n\tisb" : : "r"(1ul) : "memory");
	}
#else
	mmio_write32(GICD_BASE + GICD_CTLR, GICD_CTLR_EN_GRP0);
	/* The timer's PPI: banked per CPU in the distributor's first registers. */
	mmio_write8(GICD_BASE + GICD_IPRIORITYR + TIMER_INTID, GIC_PRIO_TIMER);
	mmio_write32(GICD_BASE + GICD_ISENABLER, 1u << TIMER_INTID);
	mmio_write32(GICC_BASE + GICC_PMR, GIC_PMR_ALL);
	mmio_write32(GICC_BASE + GICC_CTLR, 1);
#endif
	gic_setup_spi(UART0_INTID, GIC_PRIO_DEVICE);
	return true;
}

/* ---- The PL011 --------------------------------------------------------------- */

static inline void pl011_write(unsigned int reg, uint32_t v) { mmio_write32(UART0_BASE + reg, v); }
static inline uint32_t pl011_read(unsigned int reg) { return mmio_read32(UART0_BASE + reg); }

/* The masked status says "transmit": no side effect (ICR acknowledges). */
static bool pl011_tx_wants(void) { return pl011_read(PL011_MIS) & PL011_INT_TX; }
static void pl011_tx_ack(void) { pl011_write(PL011_ICR, PL011_INT_TX); }
static bool pl011_tx_room(void) { return !(pl011_read(PL011_FR) & PL011_FR_TXFF); }
static void pl011_tx_put(uint8_t b) { pl011_write(PL011_DR, b); }
static void pl011_tx_irq(bool on) { pl011_write(PL011_IMSC, on ? PL011_INT_TX : 0); }

/*
 * The flood: the transmit interrupt enabled while the driver sends
 * nothing, raised by a byte someone else wrote: a level the driver never
 * clears (it does not claim what it did not ask for), so the GIC delivers
 * it again after every end of interrupt. The device "goes on" by holding
 * its level; nothing to push.
 */
static void pl011_flood_on(void)
{
	pl011_write(PL011_DR, '!');
	pl011_write(PL011_IMSC, PL011_INT_TX);
}

static void pl011_flood_step(void) { }

static void pl011_flood_off(void)
{
	pl011_write(PL011_IMSC, 0);
	pl011_write(PL011_ICR, PL011_INT_TX);
}

/* The storm's bytes go out of the UART, to the host, which counts them. */
static void pl011_storm_on(void) { }
static void pl011_storm_off(void) { }

static const struct proof_uart a64_uart = {
	.tx_wants = pl011_tx_wants, .tx_ack = pl011_tx_ack, .tx_room = pl011_tx_room, .tx_put = pl011_tx_put,
	.tx_irq = pl011_tx_irq, .flood_on = pl011_flood_on, .flood_step = pl011_flood_step,
	.flood_off = pl011_flood_off, .storm_on = pl011_storm_on, .storm_off = pl011_storm_off,
	.burst = PL011_TX_BURST, .first_burst_by_send = true,
};

static const struct proof_board a64_board = {
	.tag = "a64", .irq = UART0_IRQ, .hwirq = UART0_INTID, .chip = &gic_chip, .flow = handle_fasteoi_irq,
	.trigger = IRQ_TYPE_LEVEL_HIGH, .uart = &a64_uart, .now_us = a64_now_us,
	.irqs_off = a64_irqs_off, .irqs_on = a64_irqs_on, .chip_pending = a64_chip_pending, .lose = a64_lose,
};

/* ---- Exceptions ---------------------------------------------------------------- */

void a64_irq(void);
void a64_irq(void)
{
	unsigned int acks;

	/* Acknowledge until the GIC has nothing (a special INTID), bounded. */
	for (acks = 0; acks < A64_ACKS_PER_IRQ; acks++) {
		uint32_t intid = gic_ack();

		if ((intid & 0x3ffu) >= GIC_INTID_SPECIAL)
			break;
		if (intid == TIMER_INTID) {
			/* The template's alarm: it reprograms (or stops) the timer, which drops the level. */
			irq_template_timer_interrupt();
			gic_end(intid);
			continue;
		}
		/* -ENODEV or -EINVAL: the core ran no flow and sent no EOI, so end it here. */
		if (generic_handle_irq(intid) != 0)
			gic_end(intid);
		/*
		 * That interrupt is finished, its handlers ran: this CPU's count of
		 * finished interrupts moves on, the defences' sign that it runs
		 * (port.h, irq_port_cpu_progress). Once per acknowledged INTID, as
		 * the timer's irq_template_timer_interrupt() counts its own.
		 */
		irq_template_interrupt_done();
	}
}

void a64_fault(unsigned long kind, unsigned long esr, unsigned long elr, unsigned long far);
void a64_fault(unsigned long kind, unsigned long esr, unsigned long elr, unsigned long far)
{
	cross_print("a64: fault: vector %lu, ESR 0x%lx at 0x%lx, FAR 0x%lx\n", kind, esr, elr, far);
	a64_exit(false);
}

/* ---- Start ------------------------------------------------------------------ */

void a64_main(void);
void a64_main(void)
{
	extern uint64_t a64_bss_start[], a64_bss_end[];
	uint64_t *p;

	/* Aligned 8-byte stores only, while the MMU is off. */
	for (p = a64_bss_start; p < a64_bss_end; p++)
		*p = 0;
	a64_mmu_on();
	pl011_write(PL011_CR, 0);
	pl011_write(PL011_IMSC, 0);
	pl011_write(PL011_ICR, 0x7ff);
	pl011_write(PL011_IBRD, 13);        /* 115200 baud from 24 MHz; QEMU ignores the rate */
	pl011_write(PL011_FBRD, 1);
	pl011_write(PL011_LCR_H, PL011_LCR_8N1);
	pl011_write(PL011_CR, PL011_CR_ENABLE);

	/* docs/porting.md, "First boot": the log (the clock, alarm and CPU number are the template's built-in ones). */
	irq_template_set_log(cross_core_log);
	cross_print("a64: kernel/irq on AArch64 EL1, %s, template port, QEMU virt\n", A64_GIC_NAME);
	irq_core_init();
	if (!gic_init()) {
		cross_print("a64: no GICv3 redistributor for this CPU\n");
		a64_exit(false);
	}
	proof_run(&a64_board);
	a64_exit(true);
}
