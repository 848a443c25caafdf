/*
 * apic.h - the APIC interrupt architecture of the PC: the local APIC of the
 * boot CPU (arch/x86/lapic.c, Intel SDM vol. 3A chapter 11 "Advanced
 * Programmable Interrupt Controller"), the I/O APICs (arch/x86/ioapic.c,
 * Intel 82093AA I/O APIC data sheet, order 290566) and the choice between
 * them and the 8259 pair (arch/x86/apic_setup.c). docs/apic.md tells the
 * whole story; arch/x86/i8259.c is the alternative.
 *
 * Line numbers. A kernel/irq line number is a GSI (ACPI's "global system
 * interrupt": IOAPIC GSI base + pin) in IOAPIC mode and an ISA IRQ in PIC
 * mode. Drivers of ISA devices never hard-code a line: they ask
 * isa_irq_to_line(), which maps an ISA IRQ through the firmware's source
 * overrides (on QEMU the PIT's ISA IRQ 0 arrives at GSI 2) and is the
 * identity in PIC mode. PCI interrupt routing hands its result to
 * x86_setup_pci_line(), which returns the line to request.
 *
 * Vectors. Line n gets vector IOAPIC_VECTOR_BASE + n (asm/trap.h), so the
 * vector names the line in a trace; the LAPIC's own interrupts use the
 * system vectors LAPIC_TIMER_VECTOR, LAPIC_ERROR_VECTOR and
 * LAPIC_SPURIOUS_VECTOR.
 */
#ifndef ASM_APIC_H
#define ASM_APIC_H

#include <stdbool.h>
#include <stdint.h>
#include <asm/trap.h>

struct fw_platform;

/* ------------------------------------------------------------------------
 * Tunables of the APIC drivers, with the reason for each value.
 */
enum apic_tunables {
	/* LAPIC error interrupts reported in a burst before the rate limit applies. */
	APIC_ERROR_REPORT_BURST = 5,
	/* After the burst, at most one error report per this many ms (the rest are counted). */
	APIC_ERROR_REPORT_INTERVAL_MS = 1000,
	/* EOIs sent at most to drain in-service bits the firmware left (one per vector). */
	APIC_STALE_ISR_EOI_MAX = 256,
	/* Interrupts on the 8259's spurious vectors that get a warning in IOAPIC mode. */
	APIC_PIC_STRAY_REPORTS = 5,
};

/* Self-IPI target of the apic selftests (0xE1-0xEE: no hardware uses them). */
#define LAPIC_SELFTEST_VECTOR (SELFTEST_VECTOR + 1)

/* ------------------------------------------------------------------------
 * Local APIC (lapic.c)
 */

/* Register offsets from the LAPIC base (SDM 3A table 11-1); each is 32 bits on a 16-byte line. */
#define LAPIC_REG_ID            0x020  /* bits 31:24: APIC ID */
#define LAPIC_REG_VERSION       0x030  /* bits 7:0 version, 23:16 max LVT entry */
#define LAPIC_REG_TPR           0x080  /* task priority: vectors of classes <= TPR[7:4] wait */
#define LAPIC_REG_EOI           0x0B0  /* write 0: end of interrupt */
#define LAPIC_REG_SVR           0x0F0  /* spurious vector, software enable */
#define LAPIC_REG_ISR0          0x100  /* in-service bits 0-31; 8 registers 0x10 apart */
#define LAPIC_REG_TMR0          0x180  /* trigger mode bits (1 = level), 8 registers */
#define LAPIC_REG_IRR0          0x200  /* request bits, 8 registers */
#define LAPIC_REG_ESR           0x280  /* error status: write, then read */
#define LAPIC_REG_LVT_CMCI      0x2F0  /* corrected machine-check LVT (max LVT >= 6) */
#define LAPIC_REG_ICR_LOW       0x300  /* interrupt command: writing it sends the IPI */
#define LAPIC_REG_ICR_HIGH      0x310  /* bits 31:24: IPI destination */
#define LAPIC_REG_LVT_TIMER     0x320  /* timer LVT */
#define LAPIC_REG_LVT_THERMAL   0x330  /* thermal sensor LVT (max LVT >= 5) */
#define LAPIC_REG_LVT_PERF      0x340  /* performance counter LVT (max LVT >= 4) */
#define LAPIC_REG_LVT_LINT0     0x350  /* LINT0 pin LVT */
#define LAPIC_REG_LVT_LINT1     0x360  /* LINT1 pin LVT */
#define LAPIC_REG_LVT_ERROR     0x370  /* error LVT */
#define LAPIC_REG_TIMER_INITIAL 0x380  /* timer initial count; writing starts the count */
#define LAPIC_REG_TIMER_CURRENT 0x390  /* timer current count, read-only */
#define LAPIC_REG_TIMER_DIVIDE  0x3E0  /* timer divide configuration */
#define LAPIC_REG_STRIDE        0x010  /* distance between the 32-bit registers of one array */

/* LVT entry bits (SDM 3A figure 11-8). */
#define LAPIC_LVT_VECTOR_MASK   0x000000FFu  /* bits 7:0: vector (fixed delivery) */
#define LAPIC_LVT_DM_FIXED      0x00000000u  /* delivery mode 000: the vector */
#define LAPIC_LVT_DM_SMI        0x00000200u  /* 010: system management interrupt */
#define LAPIC_LVT_DM_NMI        0x00000400u  /* 100: non-maskable interrupt */
#define LAPIC_LVT_DM_EXTINT     0x00000700u  /* 111: ask an external 8259 for the vector */
#define LAPIC_LVT_DM_MASK       0x00000700u  /* bits 10:8: delivery mode */
#define LAPIC_LVT_PENDING       0x00001000u  /* bit 12: delivery status (send pending), read-only */
#define LAPIC_LVT_ACTIVE_LOW    0x00002000u  /* bit 13: LINT pin active low (vs high) */
#define LAPIC_LVT_REMOTE_IRR    0x00004000u  /* bit 14: LINT level interrupt in service, read-only */
#define LAPIC_LVT_LEVEL         0x00008000u  /* bit 15: LINT pin level-triggered (fixed mode only) */
#define LAPIC_LVT_MASKED        0x00010000u  /* bit 16: masked */
#define LAPIC_LVT_TIMER_PERIODIC 0x00020000u /* bits 18:17 = 01: periodic timer (00: one-shot) */
#define LAPIC_LVT_TIMER_MODE_MASK 0x00060000u /* bits 18:17: timer mode */

/* What the local APIC driver counts. */
struct lapic_stats {
	uint32_t spurious;          /* interrupts on LAPIC_SPURIOUS_VECTOR (never EOIed) */
	uint32_t errors;            /* interrupts on LAPIC_ERROR_VECTOR */
	uint32_t error_bits[8];     /* per ESR bit 0-7: error interrupts that showed it */
	uint32_t last_esr;          /* ESR value read by the last error interrupt */
	uint32_t eois;              /* EOIs written by lapic_eoi() */
	uint32_t stale_isr_eois;    /* EOIs sent at init for vectors the firmware left in service */
};

/*
 * lapic_init - take over the boot CPU's local APIC: base address from the
 * IA32_APIC_BASE MSR (compared with @fw's, which may be NULL), global and
 * software enable with spurious vector 0xFF, error vector, TPR 0, every
 * LVT masked (LINT0/LINT1 too, until lapic_setup_lints). Prints one
 * "LAPIC:" line (ID, version, LVT count, address, whether the tables agree).
 * CONTEXT: boot, interrupts disabled, after paging_init().
 * RETURNS 0; -ENODEV (CPUID says no APIC, or it is disabled for good);
 * -ERANGE (the base is outside the uncached MMIO window); -EPERM (firmware
 * left x2APIC mode on, which this driver does not speak). On error the
 * LAPIC is left as the firmware left it.
 */
int lapic_init(const struct fw_platform *fw);

/*
 * lapic_setup_lints - program LINT0 and LINT1 as @fw says (NULL: the MP
 * virtual-wire default, LINT0 ExtINT and LINT1 NMI); LINT0's ExtINT is
 * masked when @ioapic_mode, so the 8259 reaches the CPU nowhere. Prints one
 * "LAPIC: LINT0 ..." line. Does nothing before lapic_init succeeded.
 * CONTEXT: boot, interrupts disabled.
 */
void lapic_setup_lints(const struct fw_platform *fw, bool ioapic_mode);

/* lapic_eoi - end the interrupt in service. CONTEXT: interrupt context (any). */
void lapic_eoi(void);

/*
 * lapic_irr_set - whether @vector is requested at the boot CPU's LAPIC and
 * not yet taken (its IRR bit; false before lapic_init or for a vector past
 * 255). CONTEXT: any; one register read.
 */
bool lapic_irr_set(unsigned int vector);

/* lapic_ready - lapic_init() succeeded. CONTEXT: any. */
bool lapic_ready(void);

/* lapic_id - the boot CPU's APIC ID (0 before lapic_init). CONTEXT: any. */
uint32_t lapic_id(void);

/* lapic_current_id - the APIC ID of the CPU this runs on, read from its LAPIC. CONTEXT: any. */
uint32_t lapic_current_id(void);

/* Interrupt command register values for lapic_send_ipi (SDM 3A figure 11-12). */
#define LAPIC_ICR_FIXED          0x00000000u  /* delivery mode 000: the vector */
#define LAPIC_ICR_INIT           0x00000500u  /* 101: INIT */
#define LAPIC_ICR_STARTUP        0x00000600u  /* 110: start-up (SIPI), vector = page number */
#define LAPIC_ICR_ASSERT         0x00004000u  /* bit 14: level assert (all but INIT de-assert) */
#define LAPIC_ICR_LEVEL_TRIGGER  0x00008000u  /* bit 15: level (only INIT de-assert uses it) */
#define LAPIC_ICR_ALL_BUT_SELF   0x000C0000u  /* bits 19:18 = 11: every CPU but this one */

/*
 * lapic_send_ipi - send an IPI: ICR high = @apic_id << 24 (ignored with a
 * shorthand), ICR low = @icr_low; waits (bounded) until the previous IPI
 * left and this one was accepted by the local APIC.
 * CONTEXT: any; interrupts are off around the two register writes.
 * RETURNS 0; -ENODEV (no LAPIC); -ETIMEDOUT (send-pending never cleared).
 */
int lapic_send_ipi(uint32_t apic_id, uint32_t icr_low);

/*
 * lapic_init_ap - set up the local APIC of the AP this runs on as
 * lapic_init() set up the boot CPU's (same base; every LVT masked, error
 * vector, spurious vector, TPR 0; LINT0/LINT1 stay masked: the 8259 and NMI
 * are wired to the boot CPU only). CONTEXT: the AP's bring-up, interrupts off.
 * RETURNS 0; -ENODEV (the boot CPU has no LAPIC in use, or this CPU's
 * IA32_APIC_BASE disagrees with the boot CPU's).
 */
int lapic_init_ap(void);

/*
 * lapic_timer_start_ap - run this AP's LAPIC timer periodically at @hz, with
 * the rate the boot CPU calibrated (same bus clock). Its interrupts count
 * in cpu_data.ticks. CONTEXT: the AP's bring-up, interrupts off.
 * RETURNS 0; -ENODEV (the LAPIC timer is not in use); -EINVAL (@hz is 0).
 */
int lapic_timer_start_ap(uint32_t hz);

/*
 * lapic_timer_kick - on CPU 0, run the clock event handler of the LAPIC
 * timer if it is in one-shot mode (a timer armed on another CPU may be
 * earlier than what CPU 0's timer is programmed for). Called by the
 * wake-up IPI's handler. CONTEXT: interrupt handler on CPU 0.
 */
void lapic_timer_kick(void);

/* lapic_read / lapic_write - raw register access by byte offset (0x20 = ID ...); 0 / nothing before lapic_init. */
uint32_t lapic_read(uint32_t reg);
void lapic_write(uint32_t reg, uint32_t value);

/* lapic_get_stats - copy the counters. CONTEXT: any. */
void lapic_get_stats(struct lapic_stats *out);

/*
 * lapic_print_state - the LAPIC's registers and counters for a person
 * (cprintf): ID, version, SVR, TPR, LVTs decoded, ESR, counters.
 * CONTEXT: thread context. RETURNS 0, or -ENODEV before lapic_init.
 */
int lapic_print_state(void);

/* ------------------------------------------------------------------------
 * LAPIC timer (lapic_timer.c)
 */

/*
 * lapic_timer_init - calibrate the LAPIC timer against PIT channel 2 and
 * register it as a clock event device of kernel/time (periodic and
 * one-shot, divide by 16, rated above the PIT only when the calibration
 * runs agree). Prints one "LAPIC timer:" line.
 * CONTEXT: boot, after x86_interrupt_setup() and x86_time_init() (time_init
 * must have run); interrupts may be on.
 * RETURNS 0; -ENODEV (no LAPIC in use, or `nolapic_timer`); -EIO (the
 * counter does not run); clockevent_register()'s error.
 */
int lapic_timer_init(void);

/* Set by the `nolapic_timer` boot parameter: keep the PIT (or HPET) as the tick device. */
extern bool lapic_timer_disabled;

/* apic_param_nolapic_timer - setter of that row (CMDLINE_FLAG). RETURNS 0, or -EINVAL if given a value. */
int apic_param_nolapic_timer(const char *value, void *arg);

/* lapic_timer_hz - the calibrated count rate after the divider (0 when not in use). CONTEXT: any. */
uint32_t lapic_timer_hz(void);

/* ------------------------------------------------------------------------
 * I/O APICs (ioapic.c)
 */

/* One redirection table entry (82093AA section 3.2.4), as a 64-bit value. */
#define IOAPIC_RTE_VECTOR_MASK    0x00000000000000FFull  /* bits 7:0: vector */
#define IOAPIC_RTE_DELIVERY_MASK  0x0000000000000700ull  /* bits 10:8: delivery mode */
#define IOAPIC_RTE_DELIVERY_SHIFT 8                      /* first bit of the delivery mode */
#define IOAPIC_RTE_DELIVERY_FIXED 0x0000000000000000ull  /* 000: fixed, to the destination */
#define IOAPIC_RTE_DELIVERY_EXTINT 0x0000000000000700ull /* 111: ExtINT, vector from an 8259 */
#define IOAPIC_RTE_DEST_LOGICAL   0x0000000000000800ull  /* bit 11: logical destination (vs physical) */
#define IOAPIC_RTE_PENDING        0x0000000000001000ull  /* bit 12: delivery status, read-only */
#define IOAPIC_RTE_ACTIVE_LOW     0x0000000000002000ull  /* bit 13: input active low (vs high) */
#define IOAPIC_RTE_REMOTE_IRR     0x0000000000004000ull  /* bit 14: level interrupt accepted, awaiting EOI; read-only */
#define IOAPIC_RTE_LEVEL          0x0000000000008000ull  /* bit 15: level-triggered (vs edge) */
#define IOAPIC_RTE_MASKED         0x0000000000010000ull  /* bit 16: input masked */
#define IOAPIC_RTE_DEST_SHIFT     56                     /* bits 63:56: destination APIC ID */
#define IOAPIC_RTE_DEST_MASK      0xFF00000000000000ull  /* the destination field */

/*
 * ioapic_init - find every IOAPIC @fw lists, read each one's ID, version
 * and redirection count from the chip, give it its GSI range (ACPI: the
 * table's base; MP table: consecutive from 0 in table order), and mask
 * every pin (edge, active high, fixed delivery to APIC ID @dest_apic_id,
 * vector IOAPIC_VECTOR_BASE + GSI for GSIs that are lines). Prints one
 * "IOAPIC[n]:" line per chip and one per problem (ID mismatch, absent
 * chip, overlapping GSI ranges).
 * CONTEXT: boot, interrupts disabled.
 * RETURNS the number of usable IOAPICs (0 = IOAPIC mode impossible).
 */
int ioapic_init(const struct fw_platform *fw, uint8_t dest_apic_id);

/* ioapic_count - usable IOAPICs after ioapic_init. CONTEXT: any. */
unsigned int ioapic_count(void);

/*
 * ioapic_gsi_of - the GSI of pin @pin of the IOAPIC the tables call
 * @table_id (the MP table names destinations that way; 0xFF = "all
 * IOAPICs" is accepted when there is only one). CONTEXT: any.
 * RETURNS the GSI (>= 0); -ENOENT (no such usable IOAPIC, or no such pin).
 */
int ioapic_gsi_of(unsigned int table_id, unsigned int pin);

/*
 * ioapic_resolve_gsi - ioapic_gsi_of() in the shape of drivers/pci's
 * resolver: pci_route_set_gsi_resolver(ioapic_resolve_gsi, NULL) lets the
 * PCI routing turn MP-table (IOAPIC ID, pin) pairs into GSIs. @ctx unused.
 * CONTEXT: any, after ioapic_init. RETURNS 0 and *@gsi; -ENOENT.
 */
int ioapic_resolve_gsi(void *ctx, uint8_t ioapic_id, uint8_t pin, uint32_t *gsi);

/* ioapic_gsi_valid - @gsi is a pin of a usable IOAPIC. CONTEXT: any. */
bool ioapic_gsi_valid(unsigned int gsi);

/*
 * ioapic_setup_line - make kernel/irq line @gsi the IOAPIC pin @gsi with
 * trigger @type (IRQ_TYPE_EDGE_RISING/FALLING, IRQ_TYPE_LEVEL_HIGH/LOW):
 * redirection entry written masked, chip "IO-APIC" with handle_edge_irq or
 * handle_fasteoi_irq, vector IOAPIC_VECTOR_BASE + @gsi mapped in arch/x86/irq.c.
 * CONTEXT: boot or thread context, the line without actions.
 * RETURNS 0; -EINVAL (bad type); -ENOENT (@gsi is no pin); -ERANGE (@gsi
 * is not below IRQ_NR_LINES); -EBUSY (the line has actions).
 */
int ioapic_setup_line(unsigned int gsi, unsigned int type);

/*
 * ioapic_pin_read / ioapic_pin_write - the raw redirection entry of @gsi,
 * for the routes print-out and for fault injection (point a pin at a wrong
 * vector, mask it behind the core's back). The write is ordered so that
 * the pin never delivers with a half-written entry (masked low half, high
 * half, final low half); read-only bits are ignored by the chip.
 * CONTEXT: any (serialised with interrupts off).
 * RETURNS 0; -EINVAL (NULL @rte); -ENOENT (@gsi is no pin of a usable IOAPIC).
 */
int ioapic_pin_read(unsigned int gsi, uint64_t *rte);
int ioapic_pin_write(unsigned int gsi, uint64_t rte);

/*
 * ioapic_print_routes - every pin of every IOAPIC, decoded from the chip:
 * GSI, vector, delivery, trigger, polarity, mask, remote IRR, pending,
 * destination (cprintf). CONTEXT: thread context. RETURNS pins printed.
 */
int ioapic_print_routes(void);

/* ------------------------------------------------------------------------
 * Interrupt-mode selection and line layout (apic_setup.c)
 */

enum x86_irq_mode {
	X86_IRQ_MODE_PIC = 0,     /* the 8259 pair alone delivers device interrupts */
	X86_IRQ_MODE_IOAPIC = 1,  /* IOAPICs deliver; the 8259 is masked */
};

/* Set by the `noapic` boot parameter: never use an IOAPIC. */
extern bool apic_noapic;

/*
 * apic_param_noapic - setter of the `noapic` boot parameter row
 * (CMDLINE_FLAG): sets apic_noapic. RETURNS 0, or -EINVAL if given a value.
 */
int apic_param_noapic(const char *value, void *arg);

/*
 * x86_interrupt_setup - choose the interrupt mode and lay out the lines.
 * IOAPIC mode when @fw describes an IOAPIC that answers, the local APIC
 * works and @noapic is false; otherwise the 8259 lines registered by
 * i8259_register_lines() stay (the LAPIC still runs, LINT0 in virtual-wire
 * ExtINT mode, for its timer). In IOAPIC mode: the 8259 masked, its vectors
 * 0x20-0x2E unmapped except 0x27 (spurious IRQ 7 still counted, as is
 * 0x2F), the IMCR switched to APIC mode when the MP table has one, every
 * IOAPIC pin below IRQ_NR_LINES a masked "IO-APIC" line, ISA IRQs at their
 * GSIs with the overrides' trigger and polarity. Prints the mode and why.
 * CONTEXT: boot, after i8259_register_lines() and before any request_irq().
 * RETURNS the mode chosen (enum x86_irq_mode, >= 0); never fails: every
 * problem falls back to PIC mode with a message.
 */
int x86_interrupt_setup(const struct fw_platform *fw, bool noapic);

/* x86_irq_mode - the mode chosen (PIC before x86_interrupt_setup). CONTEXT: any. */
enum x86_irq_mode x86_irq_mode(void);

/*
 * isa_irq_to_line - the kernel/irq line that ISA IRQ @isa_irq arrives on:
 * @isa_irq in PIC mode, its GSI in IOAPIC mode.
 * CONTEXT: any. RETURNS the line (>= 0); -EINVAL (@isa_irq > 15);
 * -ENOENT (the IRQ reaches no line: the cascade IRQ 2, or a GSI past
 * IRQ_NR_LINES or on no IOAPIC).
 */
int isa_irq_to_line(unsigned int isa_irq);

/*
 * x86_setup_pci_line - a PCI interrupt arrives at @gsi (IOAPIC mode) or ISA
 * IRQ @gsi (PIC mode, from the PIRQ router): set the line's trigger and
 * polarity. PIC mode ignores @active_low (the router inverts PCI's active-
 * low INTx before the 8259) and makes a level line level-high in the ELCR.
 * CONTEXT: thread context (PCI enumeration), before the drivers request it.
 * RETURNS the line to request (>= 0); -ENOENT (no such GSI / IRQ);
 * -ERANGE (GSI past IRQ_NR_LINES); -EINVAL (IRQ 2, 0, 1, 8 or 13 made
 * level on the 8259); -EBUSY (the line already has users of another type).
 */
int x86_setup_pci_line(unsigned int gsi, bool level, bool active_low);

/*
 * apic_print_routes - for the shell's `routes`: the mode and why, each
 * ISA IRQ's line (GSI, trigger, polarity, source of the information),
 * then every IOAPIC pin (ioapic_print_routes) and the LAPIC's LINT pins.
 * CONTEXT: thread context. RETURNS 0.
 */
int apic_print_routes(void);

#endif /* ASM_APIC_H */
