/*
 * hpet.h - the High Precision Event Timer (IA-PC HPET specification 1.0a,
 * Intel, October 2004; section 2.3 "Register Descriptions") as a kernel/time
 * clock source (the main counter) and clock event device (one comparator),
 * arch/x86/hpet.c. The block is found through the ACPI "HPET" table
 * (arch/x86/acpi.c, struct fw_hpet in firmware.h); without ACPI there is no
 * HPET and the PIT serves. docs/time.md, section "HPET", tells the story.
 *
 * The first half of this header is pure logic (capability decoding, route
 * choice, counter arithmetic, arch/x86/hpet_caps.c) that the host unit tests
 * build; the second half is the driver.
 */
#ifndef HPET_H
#define HPET_H

#include <stdbool.h>
#include <stdint.h>

struct fw_hpet;

/* ------------------------------------------------------------------------
 * Registers (HPET 1.0a table 2-3). Offsets from the block's base; every
 * 64-bit register is accessed as two 32-bit halves (QEMU and some chipsets
 * do not take 64-bit accesses; the driver is 32-bit anyway).
 */
#define HPET_REG_GCAP_ID        0x000  /* general capabilities and ID */
#define HPET_REG_GCAP_PERIOD    0x004  /* its upper half: COUNTER_CLK_PERIOD, femtoseconds */
#define HPET_REG_GEN_CONF       0x010  /* general configuration */
#define HPET_REG_GINTR_STA      0x020  /* general interrupt status (level mode only) */
#define HPET_REG_MAIN_CNT_LO    0x0F0  /* main counter, bits 31:0 */
#define HPET_REG_MAIN_CNT_HI    0x0F4  /* main counter, bits 63:32 */
#define HPET_REG_TIMER_BASE     0x100  /* timer N's registers at 0x100 + 0x20 * N */
#define HPET_REG_TIMER_STRIDE   0x020
#define HPET_REG_TN_CONF        0x000  /* Tn_CONF_CAP bits 31:0: configuration and capabilities */
#define HPET_REG_TN_ROUTE_CAP   0x004  /* Tn_CONF_CAP bits 63:32: Tn_INT_ROUTE_CAP */
#define HPET_REG_TN_CMP_LO      0x008  /* Tn_COMPARATOR bits 31:0 */
#define HPET_REG_TN_CMP_HI      0x00C  /* Tn_COMPARATOR bits 63:32 */
#define HPET_BLOCK_BYTES        0x400  /* the register block is 1 KiB, 1 KiB aligned */

/* GCAP_ID bits 31:0 (HPET 1.0a 2.3.4). */
#define HPET_GCAP_REV_MASK        0x000000FFu /* REV_ID: must not be 0 */
#define HPET_GCAP_NUM_TIM_SHIFT   8           /* NUM_TIM_CAP: number of the last timer */
#define HPET_GCAP_NUM_TIM_MASK    0x1Fu
#define HPET_GCAP_COUNT_SIZE_CAP  (1u << 13)  /* main counter is 64 bits wide */
#define HPET_GCAP_LEG_RT_CAP      (1u << 15)  /* LegacyReplacement route capable */
#define HPET_GCAP_VENDOR_SHIFT    16          /* VENDOR_ID: PCI vendor ID */

/* GEN_CONF bits (2.3.5). */
#define HPET_CONF_ENABLE          (1u << 0)   /* ENABLE_CNF: main counter runs, timers may interrupt */
#define HPET_CONF_LEGACY          (1u << 1)   /* LEG_RT_CNF: timers 0/1 take IRQ 0/8; irqkit keeps it 0 */

/* Tn_CONF_CAP bits 31:0 (2.3.8). */
#define HPET_TN_LEVEL             (1u << 1)   /* Tn_INT_TYPE_CNF: level (vs edge) interrupt */
#define HPET_TN_INT_ENABLE        (1u << 2)   /* Tn_INT_ENB_CNF: interrupt on a match */
#define HPET_TN_PERIODIC          (1u << 3)   /* Tn_TYPE_CNF: periodic (vs one-shot) */
#define HPET_TN_PERIODIC_CAP      (1u << 4)   /* Tn_PER_INT_CAP: periodic mode exists, read-only */
#define HPET_TN_SIZE_CAP          (1u << 5)   /* Tn_SIZE_CAP: 64-bit comparator, read-only */
#define HPET_TN_VAL_SET           (1u << 6)   /* Tn_VAL_SET_CNF: next comparator write sets the value */
#define HPET_TN_32BIT             (1u << 8)   /* Tn_32MODE_CNF: 64-bit timer runs as 32-bit */
#define HPET_TN_ROUTE_SHIFT       9           /* Tn_INT_ROUTE_CNF: IOAPIC input, bits 13:9 */
#define HPET_TN_ROUTE_MASK        0x1Fu
#define HPET_TN_FSB_ENABLE        (1u << 14)  /* Tn_FSB_EN_CNF: deliver as an MSI write; irqkit keeps it 0 */
#define HPET_TN_FSB_CAP           (1u << 15)  /* Tn_FSB_INT_DEL_CAP: FSB (MSI) delivery exists */

/* Limits of the spec, and of irqkit's arithmetic. */
#define HPET_PERIOD_MAX_FS        100000000u  /* 100 ns: a longer period is invalid (2.3.4) */
#define HPET_FS_PER_SEC           1000000000000000ull
#define HPET_FREQ_MAX_HZ          0xFFFFFFFFu /* clocksource.freq_hz is 32 bits: period >= 232831 fs */
#define HPET_MAX_TIMERS           32          /* NUM_TIM_CAP is 5 bits */
#define HPET_ROUTE_GSIS           32          /* Tn_INT_ROUTE_CAP has 32 bits: GSIs 0-31 */

/* What GCAP_ID says about a timer block, decoded and checked. */
struct hpet_caps {
	uint32_t period_fs;     /* COUNTER_CLK_PERIOD */
	uint32_t freq_hz;       /* 1e15 / period_fs, rounded */
	uint8_t timers;         /* NUM_TIM_CAP + 1 */
	uint8_t revision;       /* REV_ID */
	bool counter_64bit;     /* COUNT_SIZE_CAP */
	bool legacy_capable;    /* LEG_RT_CAP */
	uint16_t vendor;        /* VENDOR_ID */
};

/*
 * hpet_decode_gcap - decode and validate GCAP_ID (@lo = bits 31:0, @hi =
 * bits 63:32, the period) into @out. On failure *@why names the problem.
 * CONTEXT: any (pure).
 * RETURNS 0; -ENODEV (all ones: nothing answers at that address); -EINVAL
 * (period 0 or above 100 ns, or REV_ID 0, both forbidden by the spec);
 * -ERANGE (period so short that the rate does not fit in 32 bits).
 */
int hpet_decode_gcap(uint32_t lo, uint32_t hi, struct hpet_caps *out, const char **why);

/*
 * hpet_choose_gsi - the GSI a comparator should interrupt on: the highest
 * one in its Tn_INT_ROUTE_CAP @route_cap that is not in @unusable (bit n =
 * GSI n). Highest first because on PCs low GSIs are ISA IRQs and PCI links
 * count up from 16. CONTEXT: any (pure).
 * RETURNS the GSI (0-31), or -ENOENT when every capable GSI is unusable.
 */
int hpet_choose_gsi(uint32_t route_cap, uint32_t unusable);

/*
 * ICH9's PCI interrupt wiring (ICH9 datasheet, chipset configuration
 * registers "Device nn Interrupt Route", DnnIR at RCBA + 0x3140-0x3150):
 * every PCI INTx reaches IOAPIC input 16 + PIRQ (A-H = 0-7) whatever the
 * PIRQ-to-ISA routes say, so a comparator must not sit on one of those.
 */
#define ICH9_LPC_SLOT          31          /* 00:1f.0 is the LPC bridge */
#define ICH9_LPC_DEVICE_FIRST  0x2910      /* LPC device IDs of the ICH9 family (QEMU's is 0x2918) */
#define ICH9_LPC_DEVICE_LAST   0x291F
#define ICH9_LPC_RCBA          0xF0        /* root complex base address: bits 31:14 base, bit 0 enable */
#define ICH9_RCBA_ENABLE       0x1u
#define ICH9_RCBA_BASE_MASK    0xFFFFC000u
#define ICH9_RCBA_SIZE         0x4000u     /* 16 KiB of chipset configuration */
#define ICH9_PIRQ_GSI_BASE     16          /* PIRQ n drives IOAPIC input 16 + n */
#define ICH9_PIRQS             8
#define ICH9_DIR_SHIFT         4           /* DnnIR: INTA in bits 2:0, INTB 6:4, INTC 10:8, INTD 14:12 */
#define ICH9_DIR_MASK          0x7u

/* ich9_dir_offset - RCBA offset of DnnIR for bus-0 @slot 25-31, or 0 (none; D30's reads 0). */
uint32_t ich9_dir_offset(unsigned int slot);

/*
 * hpet_ich9_pirq - the PIRQ (0-7 = A-H) that INTx @pin (1-4) of a function
 * at bus-0 @slot drives on ICH9: from @dir (that slot's DnnIR) for slots
 * 25-31, otherwise QEMU's fixed wiring of the other slots, (slot + pin - 1)
 * mod 4 onto PIRQ E-H (the same as its q35 DSDT's _PRT).
 * CONTEXT: any (pure). RETURNS the PIRQ, or -EINVAL (no such pin/slot).
 */
int hpet_ich9_pirq(unsigned int slot, unsigned int pin, uint16_t dir);

/*
 * hpet_ns_to_ticks - counter ticks in @ns at @freq_hz, rounded up, at least
 * 1 and at most @max_ticks. CONTEXT: any (pure; one 64-bit division).
 */
uint32_t hpet_ns_to_ticks(uint64_t ns, uint32_t freq_hz, uint32_t max_ticks);

/*
 * hpet_passed - whether a 32-bit counter reading @now is at or past
 * comparator value @cmp, for values less than 2^31 ticks apart (the one-shot
 * race check and the interrupt's "is this my match" check).
 * CONTEXT: any (pure).
 */
static inline bool hpet_passed(uint32_t now, uint32_t cmp)
{
	return (int32_t)(now - cmp) >= 0;
}

/* ------------------------------------------------------------------------
 * The driver (hpet.c)
 */

/* Tunables of the driver, with the reason for each value. */
enum hpet_tunables {
	/* Below the PIT's 100 (and the calibrated LAPIC timer's 150): opt-in
	 * with `clockevent=hpet`. The hardware is better than the PIT, but its
	 * line is chosen by irqkit, not described by firmware (that is in the
	 * DSDT's _PRT, which needs an AML interpreter), so a board could share
	 * it unseen; and `nolapic_timer` promises the PIT. Above an unreliable
	 * LAPIC timer's 50. */
	HPET_CE_RATING = 90,
	/* Below the TSC's 300: the main counter is an uncached MMIO read (a
	 * device exit under QEMU, ~1 us on old chipsets) where rdtsc is one
	 * instruction; above the ACPI PM timer's 200. `clocksource=hpet`. */
	HPET_CS_RATING = 250,
	/* Shortest one-shot delay programmed: a comparator write plus the
	 * read-back of the counter take well under this even under TCG, so
	 * -ETIME retries stay rare. */
	HPET_MIN_DELTA_NS = 2000,
	/* Longest one-shot delay, in ticks: half the 32-bit comparator range,
	 * so "counter passed the comparator" stays a signed comparison
	 * (21.4 s at 100 MHz). */
	HPET_MAX_DELTA_TICKS = 0x7FFFFFFF,
	/* How long the counter gets to show that it runs after enabling, in
	 * TSC microseconds (a 10 MHz counter moves 1000 ticks in that time). */
	HPET_RUN_CHECK_US = 100,
	/* The same check without a calibrated TSC, in counter reads: each
	 * uncached read takes far more than the 100 ns of the slowest valid
	 * counter tick, so a running counter moves within a few. */
	HPET_RUN_CHECK_READS = 1000,
	/* Attempts to start periodic mode before the first comparator value
	 * lands ahead of the counter; each attempt doubles the lead. */
	HPET_PERIODIC_TRIES = 3,
};

/* What the driver counts, for the selftests and the shell. */
struct hpet_stats {
	uint32_t base;              /* MMIO base in use, 0 if no HPET */
	struct hpet_caps caps;
	int ce_timer;               /* comparator used as clock event, -1 if none */
	int ce_gsi;                 /* its GSI, -1 if none */
	bool ce_periodic_capable;
	uint64_t interrupts;        /* interrupts taken on that line */
	uint64_t events;            /* of them, matches passed to kernel/time */
	uint64_t not_matched;       /* interrupts before the awaited match was reached (IRQ_NONE) */
	uint64_t passed_on_write;   /* set_next_event calls that found the counter past the comparator (-ETIME) */
};

/*
 * hpet_init - find the timer block @h describes (NULL or !present: no
 * ACPI HPET table), check that it is in the uncached MMIO window, decode
 * and validate GCAP_ID, stop the counter and every comparator, clear
 * legacy replacement, reset and start the main counter, and register it
 * as the "hpet" clock source. Then choose a comparator and a GSI it can
 * interrupt on that no ISA IRQ, PCI function or other handler uses; if
 * there is one (IOAPIC mode only), program it edge-triggered on that line
 * through kernel/irq and register it as the "hpet" clock event device.
 * Every decision is one boot-log line, including why no clock event.
 * CONTEXT: boot, after PCI routing (the lines PCI uses are known) and
 * after x86_time_init(); interrupts may be on.
 * RETURNS 0 (clock source registered, clock event or not); -ENODEV (no
 * HPET); -EINVAL / -ERANGE (the block failed validation; not used); -EIO
 * (the counter does not run).
 */
int hpet_init(const struct fw_hpet *h);

/* hpet_get_stats - copy the counters into @out. CONTEXT: any. */
void hpet_get_stats(struct hpet_stats *out);

/*
 * A spare comparator for the hpet-storm fault (hpet_storm.c), never the
 * clock event's. hpet_spare_pick: a periodic-capable comparator and a GSI
 * it can use that nothing else does (IOAPIC mode). RETURNS the comparator
 * and *@gsi_out; -ENODEV (no HPET), -EPERM (8259 mode), -ENOENT (none).
 * hpet_spare_periodic: run @timer periodically every @period_ticks, edge on
 * @gsi (the caller requested it), the first match at *@first_out. RETURNS
 * 0, -EINVAL, -EIO (route not taken). hpet_spare_stop: interrupts of @timer off. hpet_counter32 /
 * hpet_freq: the main counter's low half and its rate (0: no HPET).
 * CONTEXT: any (the caller serialises its own comparator).
 */
int hpet_spare_pick(int *gsi_out);
int hpet_spare_periodic(int timer, unsigned int gsi, uint32_t period_ticks, uint32_t *first_out);
void hpet_spare_stop(int timer);
uint32_t hpet_counter32(void);
uint32_t hpet_freq(void);

#endif
