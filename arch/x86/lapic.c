/*
 * lapic.c - the local APIC of the boot CPU, which accepts every interrupt
 * the IOAPICs send, and has pins and sources of its own (LINT0, LINT1,
 * timer, error). Intel SDM vol. 3A chapter 11: 11.4 (IA32_APIC_BASE MSR,
 * enabling), table 11-1 (register map), 11.5 (LVT, ESR), 11.8.5 (EOI),
 * 11.9 (spurious interrupt). The MP spec 1.4 section 3.6.2.2 names the
 * virtual-wire mode the BIOS leaves: LINT0 = ExtINT from the 8259, LINT1 =
 * NMI.
 *
 * See also: ioapic.c (who sends us device interrupts), lapic_timer.c (the
 * timer as a clock event), apic_setup.c (when each is used), irq.c (where a
 * vector goes), docs/apic.md.
 */
#include <stdbool.h>
#include <stdint.h>
#include <asm/apic.h>
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/trap.h>
#include <asm/tsc.h>
#include <asm/x86_irq.h>
#include <firmware.h>
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/printk.h>

/* IA32_APIC_BASE (SDM 3A figure 11-5). */
#define MSR_IA32_APIC_BASE      0x1Bu
#define APIC_BASE_BSP           (1ull << 8)    /* this is the bootstrap processor */
#define APIC_BASE_X2APIC        (1ull << 10)   /* x2APIC mode (MSR access) is on */
#define APIC_BASE_ENABLE        (1ull << 11)   /* global enable; once cleared only a reset sets it */
#define APIC_BASE_ADDR_MASK     0xFFFFF000ull  /* bits 31:12 of the 4 KiB register page */
#define APIC_BASE_ADDR_HIGH     0xFFFFFFFF00000000ull /* address bits above 4 GiB */

#define CPUID_LEAF_FEATURES     1u
#define CPUID1_EDX_APIC         (1u << 9)      /* an on-chip local APIC exists */

/* Spurious-interrupt vector register (SDM 3A figure 11-23). */
#define SVR_VECTOR_MASK         0x000000FFu    /* vector delivered for a spurious interrupt */
#define SVR_APIC_ENABLE         0x00000100u    /* bit 8: software enable */

/* Version register fields. */
#define VERSION_MASK            0x000000FFu    /* bits 7:0: 0x1X integrated APIC, 0x0X 82489DX */
#define VERSION_MAX_LVT_SHIFT   16             /* bits 23:16: number of LVT entries - 1 */
#define VERSION_MAX_LVT_MASK    0xFFu
#define VERSION_INTEGRATED      0x10u          /* versions below: external 82489DX */
#define ID_SHIFT                24             /* ID register bits 31:24 */
#define ID_MASK                 0xFFu
#define TPR_MASK                0xFFu          /* bits 7:0: task priority (class:subclass) */
#define LVT_DM_SHIFT            8              /* LVT bits 10:8: delivery mode */

/* Max LVT entry values from which the optional LVTs exist (SDM 3A 11.5.1). */
#define MAX_LVT_HAS_PERF        4              /* P6 and later: performance counter LVT */
#define MAX_LVT_HAS_THERMAL     5              /* Pentium 4 and later: thermal LVT */
#define MAX_LVT_HAS_CMCI        6              /* CMCI-capable CPUs */

/* Interrupt command register (SDM 3A figure 11-12), for the selftests' self-IPI. */
#define ICR_LEVEL_ASSERT        0x00004000u    /* bit 14: assert (all but INIT de-assert) */
#define ICR_SHORTHAND_SELF      0x00040000u    /* bits 19:18 = 01: to this CPU only */
#define ICR_SEND_PENDING        0x00001000u    /* bit 12: the IPI is not yet accepted */
#define ICR_SEND_SPIN_MAX       100000u        /* polls of the send-pending bit before giving up */

#define ISR_REGS                8              /* 256 vectors / 32 bits per register */
#define LAPIC_VECTOR_MAX        255u           /* the highest vector (IRR/ISR bit 255) */
#define ESR_BITS                8              /* the defined bits 0-7 of the ESR */
#define NS_PER_MS               1000000ull
#define LINT_PINS               2              /* LINT0, LINT1 */

/*
 * paging.c maps physical memory uncached from here up (its MMIO_START).
 * Registers below it would be cached: refuse them.
 */
#define APIC_UNCACHED_FLOOR     0xC0000000u

static uintptr_t lapic_base;
static uint32_t boot_apic_id;
static uint32_t max_lvt;
static struct lapic_stats stats;
static uint64_t last_error_report_ns;
static uint32_t errors_unreported;

/* What the ESR bits mean (SDM 3A figure 11-9). */
static const char *const esr_bit_names[ESR_BITS] = {
	"send checksum error",
	"receive checksum error",
	"send accept error",
	"receive accept error",
	"redirectable IPI",
	"send illegal vector",
	"received illegal vector",
	"illegal register address",
};

uint32_t lapic_read(uint32_t reg)
{
	return lapic_base ? mmio_read32(lapic_base + reg) : 0;
}

void lapic_write(uint32_t reg, uint32_t value)
{
	if (lapic_base)
		mmio_write32(lapic_base + reg, value);
}

void lapic_eoi(void)
{
	/* Any value ends the highest-priority in-service interrupt; 0 is what the SDM asks for. */
	lapic_write(LAPIC_REG_EOI, 0);
	/* Several CPUs count here: an atomic add, no ordering needed (a statistic). */
	__atomic_fetch_add(&stats.eois, 1, __ATOMIC_RELAXED);
}

bool lapic_irr_set(unsigned int vector)
{
	if (vector > LAPIC_VECTOR_MAX)
		return false;
	return (lapic_read(LAPIC_REG_IRR0 + (vector / 32) * LAPIC_REG_STRIDE) >> (vector % 32)) & 1;
}

bool lapic_ready(void)
{
	return lapic_base != 0;
}

uint32_t lapic_id(void)
{
	return boot_apic_id;
}

void lapic_get_stats(struct lapic_stats *out)
{
	unsigned long flags = irq_save_flags();

	*out = stats;
	irq_restore_flags(flags);
}

/* ------------------------------------------------------------------------
 * The LAPIC's own interrupts
 */

/*
 * A spurious interrupt is the LAPIC's answer when the interrupt it was
 * about to deliver vanished (masked by TPR, or the source withdrew) after
 * the CPU had committed to take one. No ISR bit was set for it, so it gets
 * no EOI: an EOI would end some other interrupt in service (SDM 3A 11.9).
 */
static void lapic_spurious_interrupt(struct trap_frame *f)
{
	(void)f;
	__atomic_fetch_add(&stats.spurious, 1, __ATOMIC_RELAXED);
}

/* Rate limit for error reports: a burst, then one per interval. */
static bool error_report_allowed(void)
{
	uint64_t now = tsc_ns();

	if (stats.errors <= APIC_ERROR_REPORT_BURST) {
		last_error_report_ns = now;
		return true;
	}
	if (now && now - last_error_report_ns >= APIC_ERROR_REPORT_INTERVAL_MS * NS_PER_MS) {
		last_error_report_ns = now;
		return true;
	}
	return false;
}

static void report_error(uint32_t esr)
{
	char names[160] = "";
	size_t n = 0;

	for (unsigned int bit = 0; bit < ESR_BITS; bit++) {
		if (!(esr & (1u << bit)) || n >= sizeof(names))
			continue;
		n += (size_t)ksnprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "", esr_bit_names[bit]);
	}
	pr_warn("LAPIC: error interrupt, ESR 0x%02x: %s (%u errors so far, %u not reported)\n",
		esr, n ? names : "no bit set", stats.errors, errors_unreported);
	errors_unreported = 0;
}

/*
 * The error interrupt: the ESR must be written before it is read (the
 * write latches the errors seen since the previous write into the readable
 * register and clears the internal copy). A fixed-delivery interrupt, so
 * it does get its EOI.
 */
static void lapic_error_interrupt(struct trap_frame *f)
{
	uint32_t esr;

	(void)f;
	lapic_write(LAPIC_REG_ESR, 0);
	esr = lapic_read(LAPIC_REG_ESR);
	stats.errors++;
	stats.last_esr = esr;
	for (unsigned int bit = 0; bit < ESR_BITS; bit++)
		if (esr & (1u << bit))
			stats.error_bits[bit]++;
	lapic_eoi();
	if (error_report_allowed())
		report_error(esr);
	else
		errors_unreported++;
}

/* ------------------------------------------------------------------------
 * LINT0 / LINT1 from the firmware tables
 */

/* What one LINT pin is wired to. */
struct lint_wiring {
	uint8_t kind;        /* enum fw_int_kind */
	uint8_t polarity;    /* enum fw_polarity */
	bool from_tables;    /* false: the virtual-wire default */
};

/* The ACPI processor UID of the CPU with APIC ID @apic_id, or false if unlisted. */
static bool find_acpi_uid(const struct fw_platform *fw, uint32_t apic_id, uint32_t *uid)
{
	for (uint32_t i = 0; i < fw->cpus.count && i < FW_MAX_CPUS; i++) {
		if (fw->cpus.entry[i].apic_id == apic_id) {
			*uid = fw->cpus.entry[i].acpi_uid;
			return true;
		}
	}
	return false;
}

static bool lint_entry_is_ours(const struct fw_platform *fw, const struct fw_lint *li)
{
	uint32_t uid;

	if (li->all_cpus)
		return true;
	if (!li->cpu_is_uid)
		return li->cpu == boot_apic_id;
	return find_acpi_uid(fw, boot_apic_id, &uid) && li->cpu == uid;
}

/*
 * The wiring of LINT@pin: the tables' entry for this CPU, else the MP
 * virtual-wire default (LINT0 ExtINT, LINT1 NMI). ACPI lists only NMI pins,
 * so under ACPI LINT0 always takes the default.
 */
static struct lint_wiring lint_wiring(const struct fw_platform *fw, unsigned int pin)
{
	struct lint_wiring w = {
		.kind = pin == 0 ? FW_INT_EXTINT : FW_INT_NMI,
		.polarity = FW_POLARITY_CONFORMS,
		.from_tables = false,
	};

	if (!fw)
		return w;
	for (uint32_t i = 0; i < fw->lints.count && i < FW_MAX_LINTS; i++) {
		const struct fw_lint *li = &fw->lints.entry[i];

		if (li->lint != pin || !lint_entry_is_ours(fw, li))
			continue;
		w.kind = li->kind;
		w.polarity = li->polarity;
		w.from_tables = true;
		break;
	}
	return w;
}

/*
 * The LVT value for a LINT pin. NMI and ExtINT ignore the trigger bit (the
 * CPU treats NMI as edge and ExtINT as level, SDM 3A 11.5.1), so it stays
 * 0. A vectored or SMI wiring has no vector we could give it: masked.
 * ExtINT is masked in IOAPIC mode, where the 8259 is silenced.
 */
static uint32_t lint_lvt(const struct lint_wiring *w, bool ioapic_mode, const char **state)
{
	uint32_t pol = w->polarity == FW_POLARITY_LOW ? LAPIC_LVT_ACTIVE_LOW : 0;

	switch (w->kind) {
	case FW_INT_NMI:
		*state = "";
		return LAPIC_LVT_DM_NMI | pol;
	case FW_INT_EXTINT:
		*state = ioapic_mode ? ", masked: IO-APIC mode" : ", virtual wire to the 8259";
		return LAPIC_LVT_DM_EXTINT | pol | (ioapic_mode ? LAPIC_LVT_MASKED : 0);
	default:
		*state = ", masked: no vector is defined for it";
		return LAPIC_LVT_MASKED;
	}
}

void lapic_setup_lints(const struct fw_platform *fw, bool ioapic_mode)
{
	static const uint32_t lint_reg[LINT_PINS] = { LAPIC_REG_LVT_LINT0, LAPIC_REG_LVT_LINT1 };
	struct lint_wiring w[LINT_PINS];
	const char *state[LINT_PINS];

	if (!lapic_base)
		return;
	for (unsigned int pin = 0; pin < LINT_PINS; pin++) {
		w[pin] = lint_wiring(fw, pin);
		lapic_write(lint_reg[pin], lint_lvt(&w[pin], ioapic_mode, &state[pin]));
	}
	pr_info("LAPIC: LINT0 %s active %s%s (%s), LINT1 %s active %s%s (%s)\n",
		fw_int_kind_name(w[0].kind), w[0].polarity == FW_POLARITY_LOW ? "low" : "high",
		state[0], w[0].from_tables ? "from the tables" : "virtual-wire default",
		fw_int_kind_name(w[1].kind), w[1].polarity == FW_POLARITY_LOW ? "low" : "high",
		state[1], w[1].from_tables ? "from the tables" : "virtual-wire default");
}

/* ------------------------------------------------------------------------
 * Bring-up
 */

/* Mask every LVT this LAPIC has, so nothing fires before it is set up. */
static void mask_all_lvts(void)
{
	lapic_write(LAPIC_REG_LVT_TIMER, LAPIC_LVT_MASKED);
	lapic_write(LAPIC_REG_LVT_LINT0, LAPIC_LVT_MASKED);
	lapic_write(LAPIC_REG_LVT_LINT1, LAPIC_LVT_MASKED);
	lapic_write(LAPIC_REG_LVT_ERROR, LAPIC_LVT_MASKED);
	if (max_lvt >= MAX_LVT_HAS_PERF)
		lapic_write(LAPIC_REG_LVT_PERF, LAPIC_LVT_MASKED);
	if (max_lvt >= MAX_LVT_HAS_THERMAL)
		lapic_write(LAPIC_REG_LVT_THERMAL, LAPIC_LVT_MASKED);
	if (max_lvt >= MAX_LVT_HAS_CMCI)
		lapic_write(LAPIC_REG_LVT_CMCI, LAPIC_LVT_MASKED);
}

static bool isr_any(void)
{
	for (unsigned int i = 0; i < ISR_REGS; i++)
		if (lapic_read(LAPIC_REG_ISR0 + i * LAPIC_REG_STRIDE))
			return true;
	return false;
}

/* End interrupts the firmware (or a kernel before us) left in service; bounded. */
static void drain_stale_isr(void)
{
	for (unsigned int i = 0; i < APIC_STALE_ISR_EOI_MAX && isr_any(); i++) {
		lapic_write(LAPIC_REG_EOI, 0);
		stats.stale_isr_eois++;
	}
	if (stats.stale_isr_eois)
		pr_warn("LAPIC: %u interrupts were left in service by the firmware; ended them\n",
			stats.stale_isr_eois);
}

static const char *table_name(const struct fw_platform *fw)
{
	return fw->source == FW_SOURCE_ACPI ? "MADT" : "MP table";
}

/*
 * Read and check IA32_APIC_BASE; make sure the APIC is globally enabled.
 * RETURNS the base, or 0 with *err set.
 */
static uintptr_t take_base(const struct fw_platform *fw, int *err, const char **agree)
{
	uint64_t msr = rdmsr(MSR_IA32_APIC_BASE);
	uint32_t base = (uint32_t)(msr & APIC_BASE_ADDR_MASK);

	*agree = "no table gives one";
	if (msr & APIC_BASE_X2APIC) {
		/* Leaving x2APIC mode needs a detour through "disabled", which QEMU cannot undo. */
		pr_err("LAPIC: the firmware left x2APIC mode on; this driver speaks xAPIC only; not using the APIC\n");
		*err = -EPERM;
		return 0;
	}
	if ((msr & APIC_BASE_ADDR_HIGH) || base < APIC_UNCACHED_FLOOR) {
		pr_err("LAPIC: IA32_APIC_BASE 0x%llx puts the registers outside the uncached MMIO window "
		       "(0x%08x-0xffffffff); not using the APIC\n", (unsigned long long)msr, APIC_UNCACHED_FLOOR);
		*err = -ERANGE;
		return 0;
	}
	if (fw && fw->source != FW_SOURCE_NONE && fw->lapic_address) {
		if (fw->lapic_address != base) {
			pr_warn("LAPIC: IA32_APIC_BASE says 0x%08x but the %s says 0x%08x; using the MSR's "
				"(that is the address the CPU decodes)\n", base, table_name(fw), fw->lapic_address);
			*agree = "the tables disagree";
		} else {
			*agree = fw->source == FW_SOURCE_ACPI ? "MADT agrees" : "MP table agrees";
		}
	}
	if (!(msr & APIC_BASE_ENABLE)) {
		wrmsr(MSR_IA32_APIC_BASE, msr | APIC_BASE_ENABLE);
		if (!(rdmsr(MSR_IA32_APIC_BASE) & APIC_BASE_ENABLE)) {
			pr_err("LAPIC: globally disabled and will not enable (only a reset undoes that); not using the APIC\n");
			*err = -ENODEV;
			return 0;
		}
	}
	*err = 0;
	return base;
}

int lapic_init(const struct fw_platform *fw)
{
	uint32_t a, b, c, d, version;
	const char *agree;
	uintptr_t base;
	int err;

	cpuid(CPUID_LEAF_FEATURES, &a, &b, &c, &d);
	if (!(d & CPUID1_EDX_APIC)) {
		pr_info("LAPIC: none (CPUID.1:EDX bit 9 clear)\n");
		return -ENODEV;
	}
	base = take_base(fw, &err, &agree);
	if (!base)
		return err;
	lapic_base = base;
	boot_apic_id = (lapic_read(LAPIC_REG_ID) >> ID_SHIFT) & ID_MASK;
	version = lapic_read(LAPIC_REG_VERSION);
	max_lvt = (version >> VERSION_MAX_LVT_SHIFT) & VERSION_MAX_LVT_MASK;

	mask_all_lvts();
	x86_set_system_vector(LAPIC_SPURIOUS_VECTOR, lapic_spurious_interrupt, "lapic-spurious");
	x86_set_system_vector(LAPIC_ERROR_VECTOR, lapic_error_interrupt, "lapic-error");
	/* Software enable; the low nibble of the spurious vector must be 1111 on P6 and Pentium. */
	lapic_write(LAPIC_REG_SVR, SVR_APIC_ENABLE | LAPIC_SPURIOUS_VECTOR);
	/* Accept every priority class. */
	lapic_write(LAPIC_REG_TPR, 0);
	/* Two writes: the first latches what the firmware left, the second starts clean. */
	lapic_write(LAPIC_REG_ESR, 0);
	lapic_write(LAPIC_REG_ESR, 0);
	lapic_write(LAPIC_REG_LVT_ERROR, LAPIC_ERROR_VECTOR);
	drain_stale_isr();
	x86_set_unexpected_vector_eoi(lapic_eoi);

	pr_info("LAPIC: id %u, version 0x%02x%s, %u LVT entries, address 0x%08x (IA32_APIC_BASE; %s)\n",
		boot_apic_id, version & VERSION_MASK,
		(version & VERSION_MASK) < VERSION_INTEGRATED ? " (external 82489DX)" : "",
		max_lvt + 1, (unsigned int)base, agree);
	return 0;
}

/* ------------------------------------------------------------------------
 * Several CPUs: IPIs and the APs' local APICs
 */

uint32_t lapic_current_id(void)
{
	return (lapic_read(LAPIC_REG_ID) >> ID_SHIFT) & ID_MASK;
}

static bool icr_wait_idle(void)
{
	for (unsigned int spins = 0; spins < ICR_SEND_SPIN_MAX; spins++) {
		if (!(lapic_read(LAPIC_REG_ICR_LOW) & ICR_SEND_PENDING))
			return true;
		cpu_relax();
	}
	return false;
}

int lapic_send_ipi(uint32_t apic_id, uint32_t icr_low)
{
	unsigned long flags;
	bool sent;

	if (!lapic_base)
		return -ENODEV;
	/* The two ICR writes must not be split by an interrupt whose handler
	 * sends an IPI of its own on this CPU. */
	flags = irq_save_flags();
	sent = icr_wait_idle();
	if (sent) {
		lapic_write(LAPIC_REG_ICR_HIGH, (apic_id & ID_MASK) << ID_SHIFT);
		lapic_write(LAPIC_REG_ICR_LOW, icr_low);
		sent = icr_wait_idle();
	}
	irq_restore_flags(flags);
	return sent ? 0 : -ETIMEDOUT;
}

int lapic_init_ap(void)
{
	uint64_t msr;

	if (!lapic_base)
		return -ENODEV;
	msr = rdmsr(MSR_IA32_APIC_BASE);
	if ((msr & APIC_BASE_X2APIC) || (uint32_t)(msr & APIC_BASE_ADDR_MASK) != lapic_base ||
	    (msr & APIC_BASE_ADDR_HIGH))
		return -ENODEV;
	if (!(msr & APIC_BASE_ENABLE))
		wrmsr(MSR_IA32_APIC_BASE, msr | APIC_BASE_ENABLE);
	mask_all_lvts();
	lapic_write(LAPIC_REG_SVR, SVR_APIC_ENABLE | LAPIC_SPURIOUS_VECTOR);
	lapic_write(LAPIC_REG_TPR, 0);
	lapic_write(LAPIC_REG_ESR, 0);
	lapic_write(LAPIC_REG_ESR, 0);
	lapic_write(LAPIC_REG_LVT_ERROR, LAPIC_ERROR_VECTOR);
	for (unsigned int i = 0; i < APIC_STALE_ISR_EOI_MAX && isr_any(); i++)
		lapic_write(LAPIC_REG_EOI, 0);
	return 0;
}

/* ------------------------------------------------------------------------
 * Print-out for the shell
 */

static void print_lvt(const char *name, uint32_t v)
{
	static const char *const modes[8] = { "fixed", "lowest", "SMI", "reserved", "NMI", "INIT",
					      "reserved", "ExtINT" };

	cprintf("  LVT %-7s 0x%08x: %s vector 0x%02x%s%s%s%s\n", name, v,
		modes[(v & LAPIC_LVT_DM_MASK) >> LVT_DM_SHIFT], v & LAPIC_LVT_VECTOR_MASK,
		v & LAPIC_LVT_MASKED ? ", masked" : "", v & LAPIC_LVT_LEVEL ? ", level" : "",
		v & LAPIC_LVT_ACTIVE_LOW ? ", active low" : "", v & LAPIC_LVT_PENDING ? ", pending" : "");
}

int lapic_print_state(void)
{
	struct lapic_stats s;

	if (!lapic_base) {
		cprintf("LAPIC: not in use\n");
		return -ENODEV;
	}
	lapic_get_stats(&s);
	cprintf("LAPIC: id %u at 0x%08x, version 0x%08x, SVR 0x%08x, TPR 0x%02x\n", boot_apic_id,
		(unsigned int)lapic_base, lapic_read(LAPIC_REG_VERSION), lapic_read(LAPIC_REG_SVR),
		lapic_read(LAPIC_REG_TPR) & TPR_MASK);
	print_lvt("timer", lapic_read(LAPIC_REG_LVT_TIMER));
	print_lvt("LINT0", lapic_read(LAPIC_REG_LVT_LINT0));
	print_lvt("LINT1", lapic_read(LAPIC_REG_LVT_LINT1));
	print_lvt("error", lapic_read(LAPIC_REG_LVT_ERROR));
	cprintf("LAPIC: spurious %u, errors %u (last ESR 0x%02x), EOIs %u, stale ISR EOIs at boot %u\n",
		s.spurious, s.errors, s.last_esr, s.eois, s.stale_isr_eois);
	return 0;
}

/* ------------------------------------------------------------------------
 * Selftests (selftest=apic)
 */
#include <kernel/selftest.h>

#define ST_TAKE_SPINS 1000000u   /* polls waiting for the self-IPI's handler to run */
#define ST_RESERVED_REG 0x040    /* a reserved LAPIC register offset: touching it is an ESR error */

static volatile bool st_ipi_ran;
static volatile bool st_isr_set_before, st_isr_set_after;
static volatile uint32_t st_eois_around_spurious;

static bool isr_bit(unsigned int vector)
{
	return lapic_read(LAPIC_REG_ISR0 + (vector / 32) * LAPIC_REG_STRIDE) & (1u << (vector % 32));
}

/* Sends a self-IPI on @vector and lets it be taken. RETURNS false if it was not accepted. */
static bool st_self_ipi(unsigned int vector)
{
	unsigned int spins = 0;

	lapic_write(LAPIC_REG_ICR_HIGH, 0);
	lapic_write(LAPIC_REG_ICR_LOW, ICR_SHORTHAND_SELF | ICR_LEVEL_ASSERT | LAPIC_LVT_DM_FIXED | vector);
	while ((lapic_read(LAPIC_REG_ICR_LOW) & ICR_SEND_PENDING) && spins++ < ICR_SEND_SPIN_MAX)
		cpu_relax();
	return spins < ICR_SEND_SPIN_MAX;
}

/* The self-IPI's handler: a spurious interrupt arrives while it is in service. */
static void st_spurious_inside(struct trap_frame *f)
{
	uint32_t eois;

	(void)f;
	st_isr_set_before = isr_bit(LAPIC_SELFTEST_VECTOR);
	eois = stats.eois;
	__asm__ volatile("int %0" :: "i"(LAPIC_SPURIOUS_VECTOR));
	st_eois_around_spurious = stats.eois - eois;
	st_isr_set_after = isr_bit(LAPIC_SELFTEST_VECTOR);
	st_ipi_ran = true;
	lapic_eoi();
}

/* Open interrupts in short windows until the self-IPI's handler has run (bounded). */
static void st_let_ipi_in(void)
{
	for (unsigned int i = 0; i < ST_TAKE_SPINS && !st_ipi_ran; i++) {
		cpu_sti();
		cpu_relax();
		cpu_cli();
	}
}

SELFTEST(apic, spurious_vector_counts_and_leaves_real_interrupt_in_service)
{
	uint32_t spurious0 = stats.spurious;
	unsigned long flags;
	bool sent;

	if (!lapic_base) {
		selftest_skip(t, "no local APIC in use");
		return;
	}
	st_ipi_ran = false;
	x86_set_system_vector(LAPIC_SELFTEST_VECTOR, st_spurious_inside, "apic-selftest");
	flags = irq_save_flags();
	sent = st_self_ipi(LAPIC_SELFTEST_VECTOR);
	st_let_ipi_in();
	irq_restore_flags(flags);
	x86_set_system_vector(LAPIC_SELFTEST_VECTOR, NULL, NULL);

	ST_EXPECT(t, sent && st_ipi_ran, "self-IPI on vector 0x%02x sent %d, handled %d",
		  LAPIC_SELFTEST_VECTOR, sent, st_ipi_ran);
	ST_EXPECT(t, st_isr_set_before, "ISR bit of the self-IPI not set inside its handler");
	ST_EXPECT(t, st_isr_set_after, "the spurious interrupt ended the self-IPI (an EOI was sent)");
	ST_EXPECT(t, st_eois_around_spurious == 0, "%u EOIs around the spurious interrupt",
		  st_eois_around_spurious);
	ST_EXPECT(t, stats.spurious == spurious0 + 1, "spurious count %u -> %u", spurious0, stats.spurious);
	ST_EXPECT(t, !isr_bit(LAPIC_SELFTEST_VECTOR), "self-IPI still in service after its EOI");
}

static volatile bool st_irr_in_handler;

static void st_irr_handler(struct trap_frame *f)
{
	(void)f;
	st_irr_in_handler = lapic_irr_set(LAPIC_SELFTEST_VECTOR);
	st_ipi_ran = true;
	lapic_eoi();
}

/* lapic_irr_set (irq_chip::irq_pending of IOAPIC lines): requested and not taken while interrupts are off. */
SELFTEST(apic, irr_shows_a_request_until_the_cpu_takes_it)
{
	unsigned long flags;
	bool before, sent, pending;

	if (!lapic_base) {
		selftest_skip(t, "no local APIC in use");
		return;
	}
	st_ipi_ran = false;
	x86_set_system_vector(LAPIC_SELFTEST_VECTOR, st_irr_handler, "apic-selftest");
	flags = irq_save_flags();
	cpu_cli();
	before = lapic_irr_set(LAPIC_SELFTEST_VECTOR);
	sent = st_self_ipi(LAPIC_SELFTEST_VECTOR);
	pending = lapic_irr_set(LAPIC_SELFTEST_VECTOR);  /* interrupts off: it cannot have been taken */
	st_let_ipi_in();
	irq_restore_flags(flags);
	x86_set_system_vector(LAPIC_SELFTEST_VECTOR, NULL, NULL);

	ST_EXPECT(t, !before, "IRR bit of vector 0x%02x set before the self-IPI", LAPIC_SELFTEST_VECTOR);
	ST_EXPECT(t, sent && pending, "self-IPI sent %d, IRR bit set while interrupts were off %d", sent, pending);
	ST_EXPECT(t, st_ipi_ran && !st_irr_in_handler, "handled %d, IRR bit still set inside the handler %d",
		  st_ipi_ran, st_irr_in_handler);
	ST_EXPECT(t, !lapic_irr_set(LAPIC_SELFTEST_VECTOR), "IRR bit set after the interrupt was taken");
	ST_EXPECT(t, !lapic_irr_set(LAPIC_VECTOR_MAX + 1), "a vector past 255 reads as requested");
}

SELFTEST(apic, error_interrupt_reads_and_decodes_esr)
{
	struct lapic_stats before, after;
	unsigned long flags;
	/* Bit 7 of the ESR: illegal register address. */
	const unsigned int illegal_register = 7;

	if (!lapic_base) {
		selftest_skip(t, "no local APIC in use");
		return;
	}
	lapic_get_stats(&before);
	flags = irq_save_flags();
	(void)lapic_read(ST_RESERVED_REG);
	/* QEMU records the error but raises no interrupt for it: raise the vector by hand. */
	__asm__ volatile("int %0" :: "i"(LAPIC_ERROR_VECTOR));
	irq_restore_flags(flags);
	lapic_get_stats(&after);

	ST_EXPECT(t, after.errors >= before.errors + 1, "errors %u -> %u", before.errors, after.errors);
	ST_EXPECT(t, after.error_bits[illegal_register] == before.error_bits[illegal_register] + 1,
		  "illegal-register-address count %u -> %u (last ESR 0x%02x)",
		  before.error_bits[illegal_register], after.error_bits[illegal_register], after.last_esr);
}

SELFTEST(apic, registers_say_enabled_with_spurious_vector_0xff)
{
	uint32_t svr;

	if (!lapic_base) {
		selftest_skip(t, "no local APIC in use");
		return;
	}
	svr = lapic_read(LAPIC_REG_SVR);
	ST_EXPECT(t, svr & SVR_APIC_ENABLE, "SVR 0x%08x: software enable clear", svr);
	ST_EXPECT(t, (svr & SVR_VECTOR_MASK) == LAPIC_SPURIOUS_VECTOR, "SVR 0x%08x: spurious vector", svr);
	ST_EXPECT(t, (lapic_read(LAPIC_REG_TPR) & TPR_MASK) == 0, "TPR 0x%02x", lapic_read(LAPIC_REG_TPR));
	ST_EXPECT(t, (rdmsr(MSR_IA32_APIC_BASE) & APIC_BASE_ADDR_MASK) == lapic_base,
		  "MSR base moved");
	ST_EXPECT(t, (lapic_read(LAPIC_REG_LVT_ERROR) & (LAPIC_LVT_MASKED | LAPIC_LVT_VECTOR_MASK)) ==
		  LAPIC_ERROR_VECTOR, "LVT error 0x%08x", lapic_read(LAPIC_REG_LVT_ERROR));
}
