/*
 * i8259.c - the two cascaded Intel 8259A programmable interrupt
 * controllers of the PC (8259A data sheet; PIIX3/PIIX4 data sheets for the
 * ELCR at 0x4D0/0x4D1). The master handles ISA IRQs 0-7, the slave 8-15
 * through master input 2. We remap them to vectors 0x20-0x2F, away from the
 * CPU exceptions, and give kernel/irq one irq_chip ("XT-PIC") for all 16.
 *
 * Spurious interrupts: when an IRQ line drops before the CPU acknowledges
 * it, the 8259 answers with its lowest-priority vector (IRQ 7, or IRQ 15 on
 * the slave) without setting the in-service bit. Such an interrupt must not
 * get an EOI (it would end some other, real interrupt); a spurious IRQ 15
 * still needs an EOI at the master, whose input 2 did see a real request.
 *
 * See also: traps.c/irq.c (how a vector gets here), ioapic.c (the
 * alternative), kernel/irq/chip.c (the flow handlers that call us).
 */
#include <stdint.h>
#include <stdbool.h>
#include <asm/io.h>
#include <asm/cpu.h>
#include <asm/i8259.h>
#include <asm/trap.h>
#include <asm/x86_irq.h>
#include <irq/irqchip.h>
#include <kernel/printk.h>
#include <kernel/format.h>
#include <kernel/errno.h>

#define PIC1_CMD  0x20    /* master command / status */
#define PIC1_DATA 0x21    /* master mask (OCW1) */
#define PIC2_CMD  0xA0    /* slave command / status */
#define PIC2_DATA 0xA1    /* slave mask (OCW1) */
#define ELCR1     0x4D0   /* edge/level control, IRQ 0-7 (PIIX/ICH) */
#define ELCR2     0x4D1   /* edge/level control, IRQ 8-15 */

#define ICW1_ICW4     0x01  /* ICW4 follows */
#define ICW1_INIT     0x10  /* start initialisation (edge mode, cascade) */
#define ICW4_8086     0x01  /* 8086/88 mode */
#define ICW3_MASTER_SLAVE_ON_IRQ2 0x04  /* master: a slave hangs on input 2 */
#define ICW3_SLAVE_ID 0x02  /* slave: its cascade identity is 2 */
#define OCW2_EOI      0x20  /* non-specific end of interrupt */
#define OCW3_READ_IRR 0x0A  /* next read of the command port returns IRR */
#define OCW3_READ_ISR 0x0B  /* next read of the command port returns ISR */
#define OCW3_POLL     0x0C  /* poll command: next read acknowledges and returns the IRQ */
#define POLL_VALID    0x80  /* bit 7 of the poll word: an interrupt was pending */
#define SPURIOUS_BIT  0x80  /* IRQ 7 / 15: input 7 of a chip */
/* ISA IRQs that must stay edge-triggered in the ELCR (timer, keyboard, cascade, RTC, FPU). */
#define ELCR_EDGE_ONLY ((1u << 0) | (1u << 1) | (1u << 2) | (1u << 8) | (1u << 13))

static uint16_t cached_imr = 0xFFFF;
static uint16_t forced_mask;   /* lines masked behind kernel/irq's back (fault injection) */
static uint16_t cached_elcr;
static struct i8259_stats stats;

static void write_imr(void)
{
	uint16_t imr = cached_imr | forced_mask;

	outb(PIC1_DATA, imr & 0xFF);
	outb(PIC2_DATA, imr >> 8);
}

void i8259_force_mask(unsigned int irq, bool masked)
{
	unsigned long flags = irq_save_flags();

	if (irq < PIC_NR_IRQS) {
		forced_mask = masked ? (forced_mask | (1u << irq)) : (forced_mask & ~(1u << irq));
		write_imr();
	}
	irq_restore_flags(flags);
}

void i8259_send_eoi(unsigned int irq)
{
	if (irq >= 8) {
		outb(PIC2_CMD, OCW2_EOI);
		stats.eoi_slave++;
	}
	outb(PIC1_CMD, OCW2_EOI);
	stats.eoi_master++;
}

static void pic_mask(struct irq_data *d)
{
	cached_imr |= 1u << d->hwirq;
	write_imr();
}

static void pic_unmask(struct irq_data *d)
{
	cached_imr &= ~(1u << d->hwirq);
	/* A slave line needs the cascade input open on the master too. */
	if (d->hwirq >= 8)
		cached_imr &= ~(1u << PIC_CASCADE_IRQ);
	write_imr();
}

static void pic_ack(struct irq_data *d)
{
	i8259_send_eoi(d->hwirq);
}

static void pic_mask_ack(struct irq_data *d)
{
	pic_mask(d);
	i8259_send_eoi(d->hwirq);
}

/* set_type: program the ELCR bit; the 8259 senses only active-high levels / rising edges. */
static int pic_set_type(struct irq_data *d, unsigned int type)
{
	unsigned int bit = 1u << d->hwirq;
	bool level = type & (IRQ_TYPE_LEVEL_HIGH | IRQ_TYPE_LEVEL_LOW);

	if (type & (IRQ_TYPE_EDGE_FALLING | IRQ_TYPE_LEVEL_LOW))
		return -EINVAL;  /* the 8259 cannot invert an input */
	if (level && (bit & ELCR_EDGE_ONLY))
		return -EINVAL;
	cached_elcr = level ? (cached_elcr | bit) : (cached_elcr & ~bit);
	outb(ELCR1, cached_elcr & 0xFF);
	outb(ELCR2, cached_elcr >> 8);
	irq_set_handler(d->irq, level ? handle_level_irq : handle_edge_irq);
	return 0;
}

/*
 * irq_pending: the input's Interrupt Request Register bit, read with the
 * OCW3 read-register command (8259A datasheet: OCW3 with RR=1, RIS=0
 * selects the IRR for the next read of the command port; the selection
 * stays until another OCW3 changes it). Every reader in this file writes
 * its OCW3 right before its read (i8259_read_isr/irr, i8259_spurious, the
 * poll command), so leaving the IRR selected disturbs nobody.
 * A request behind a mask bit (ours, a fault's forced mask, or the
 * master's cascade input for a slave line) does not reach the CPU: 0.
 * What the IRR bit means (QEMU 7.2 hw/intc/i8259.c, and the datasheet):
 * edge mode latches the rising edge until the CPU's acknowledge, so the
 * bit stays while the device's line has dropped again; level mode (ELCR)
 * follows the input, so the request vanishes as soon as a handler clears
 * the device (the CPU then gets IRQ 7/15 spurious, or nothing) - hence the
 * core samples before and after the handlers.
 */
static int pic_irq_pending(struct irq_data *d)
{
	uint16_t masked = cached_imr | forced_mask;
	unsigned int hwirq = (unsigned int)d->hwirq;
	uint16_t port = hwirq < 8 ? PIC1_CMD : PIC2_CMD;

	if (hwirq >= PIC_NR_IRQS)
		return -EINVAL;
	if ((masked & (1u << hwirq)) || (hwirq >= 8 && (masked & (1u << PIC_CASCADE_IRQ))))
		return 0;
	outb(port, OCW3_READ_IRR);
	return (inb(port) >> (hwirq & 7)) & 1;
}

static const struct irq_chip i8259_chip = {
	.name = "XT-PIC",
	.mask = pic_mask,
	.unmask = pic_unmask,
	.ack = pic_ack,
	.mask_ack = pic_mask_ack,
	.eoi = pic_ack,
	.set_type = pic_set_type,
	.irq_pending = pic_irq_pending,
};

static uint16_t read_both(uint8_t ocw3)
{
	outb(PIC1_CMD, ocw3);
	outb(PIC2_CMD, ocw3);
	return (uint16_t)(inb(PIC1_CMD) | (inb(PIC2_CMD) << 8));
}

uint16_t i8259_read_isr(void) { return read_both(OCW3_READ_ISR); }
uint16_t i8259_read_irr(void) { return read_both(OCW3_READ_IRR); }

int i8259_poll(void)
{
	uint8_t v;

	outb(PIC1_CMD, OCW3_POLL);
	v = inb(PIC1_CMD);
	if (!(v & POLL_VALID))
		return -1;
	if ((v & 7) == PIC_CASCADE_IRQ) {
		outb(PIC2_CMD, OCW3_POLL);
		uint8_t s = inb(PIC2_CMD);
		return (s & POLL_VALID) ? 8 + (s & 7) : -1;
	}
	return v & 7;
}

bool i8259_spurious(unsigned int irq)
{
	if (irq == 7) {
		outb(PIC1_CMD, OCW3_READ_ISR);
		if (inb(PIC1_CMD) & SPURIOUS_BIT)
			return false;
		stats.spurious7++;
		irq_account_spurious(7);
		return true;
	}
	if (irq == 15) {
		outb(PIC2_CMD, OCW3_READ_ISR);
		if (inb(PIC2_CMD) & SPURIOUS_BIT)
			return false;
		stats.spurious15++;
		/* The master saw a genuine request on its cascade input: end that one. */
		outb(PIC1_CMD, OCW2_EOI);
		stats.eoi_master++;
		irq_account_spurious(15);
		return true;
	}
	return false;
}

/*
 * i8259_init - reinitialise both chips: vectors 0x20-0x2F, every line masked
 * (kernel/irq unmasks a line when a driver requests it). Reads the ELCR the
 * firmware left (PCI lines are level-triggered there).
 * CONTEXT: boot, interrupts off.
 */
void i8259_init(void)
{
	outb(PIC1_CMD, ICW1_INIT | ICW1_ICW4);  io_wait();
	outb(PIC2_CMD, ICW1_INIT | ICW1_ICW4);  io_wait();
	outb(PIC1_DATA, PIC_VECTOR_BASE);       io_wait();
	outb(PIC2_DATA, PIC_VECTOR_BASE + 8);   io_wait();
	outb(PIC1_DATA, ICW3_MASTER_SLAVE_ON_IRQ2); io_wait();
	outb(PIC2_DATA, ICW3_SLAVE_ID);         io_wait();
	outb(PIC1_DATA, ICW4_8086);             io_wait();
	outb(PIC2_DATA, ICW4_8086);             io_wait();
	cached_imr = 0xFFFF;
	write_imr();
	cached_elcr = (uint16_t)((inb(ELCR1) | (inb(ELCR2) << 8)) & ~ELCR_EDGE_ONLY);
}

void i8259_register_lines(void)
{
	for (unsigned int irq = 0; irq < PIC_NR_IRQS; irq++) {
		bool level = cached_elcr & (1u << irq);
		if (irq == PIC_CASCADE_IRQ)
			continue;
		irq_set_chip_and_handler(irq, &i8259_chip, level ? handle_level_irq : handle_edge_irq,
					 NULL, irq);
		irq_set_trigger(irq, level ? IRQ_TYPE_LEVEL_HIGH : IRQ_TYPE_EDGE_RISING);
		x86_irq_set_vector(irq, PIC_VECTOR_BASE + irq, X86_IRQ_VIA_PIC);
	}
	char levels[64] = "";
	int n = 0;
	for (unsigned int irq = 0; irq < PIC_NR_IRQS; irq++)
		if (cached_elcr & (1u << irq))
			n += ksnprintf(levels + n, sizeof(levels) - n, " %u", irq);
	pr_info("PIC: 8259A pair at vectors 0x%02x-0x%02x, ELCR %04x (level-triggered:%s)\n",
		PIC_VECTOR_BASE, PIC_VECTOR_BASE + 15, cached_elcr, n ? levels : " none");
}

void i8259_disable(void)
{
	cached_imr = 0xFFFF;
	write_imr();
}

void i8259_get_stats(struct i8259_stats *st)
{
	*st = stats;
	st->imr = cached_imr | forced_mask;
	st->forced_mask = forced_mask;
	st->elcr = cached_elcr;
}

/* ------------------------------------------------------------------------
 * Selftests (selftest=pic)
 * ------------------------------------------------------------------------ */
#include <kernel/selftest.h>
#include <kernel/string.h>
#include <asm/tsc.h>
#include <asm/apic.h>
#include <time/clockevent.h>

#define ST_IRQ0_WAIT_NS 200000000ull  /* wait this long for a timer request to be pending */

SELFTEST(pic, spurious_irq7_gets_no_eoi)
{
	struct i8259_stats before, after;
	unsigned long flags = irq_save_flags();

	i8259_get_stats(&before);
	/* Vector 0x27 with master ISR bit 7 clear is exactly what a spurious IRQ 7 looks like. */
	__asm__ volatile("int $0x27");
	i8259_get_stats(&after);
	irq_restore_flags(flags);
	ST_EXPECT(t, after.spurious7 == before.spurious7 + 1, "spurious7 went %u -> %u",
		  before.spurious7, after.spurious7);
	ST_EXPECT(t, after.eoi_master == before.eoi_master && after.eoi_slave == before.eoi_slave,
		  "EOIs master %u -> %u, slave %u -> %u", before.eoi_master, after.eoi_master,
		  before.eoi_slave, after.eoi_slave);
}

SELFTEST(pic, spurious_irq7_leaves_real_irq_in_service)
{
	unsigned long flags;
	struct clock_event_device *tick = clockevent_current();

	/* Needs real timer requests at the 8259: PIC mode with the PIT as the tick device. */
	if (x86_irq_mode() != X86_IRQ_MODE_PIC || !tick || strcmp(tick->name, "pit") != 0) {
		selftest_skip(t, "needs the PIT ticking through the 8259 (boot with noapic nolapic_timer)");
		return;
	}
	flags = irq_save_flags();
	uint64_t t0 = tsc_ns();
	uint16_t isr_during, isr_after_spurious;
	int polled;

	/* Wait for a real timer request, then acknowledge it by the 8259's poll command:
	 * IRQ 0 is now in service exactly as if the CPU had taken it. */
	while (!(i8259_read_irr() & 1) && tsc_ns() - t0 < ST_IRQ0_WAIT_NS)
		cpu_relax();
	polled = i8259_poll();
	isr_during = i8259_read_isr();
	__asm__ volatile("int $0x27");   /* a spurious IRQ 7 arrives meanwhile */
	isr_after_spurious = i8259_read_isr();
	if (polled == 0)
		generic_handle_irq(0);    /* deliver the tick we took, ending it with its own EOI */
	irq_restore_flags(flags);

	ST_EXPECT(t, polled == 0, "poll returned %d, expected the timer's IRQ 0", polled);
	ST_EXPECT(t, isr_during & 1, "ISR %04x: IRQ 0 not in service after the poll", isr_during);
	ST_EXPECT(t, isr_after_spurious & 1,
		  "ISR %04x: the spurious IRQ 7 ended the timer's interrupt (an EOI was sent)",
		  isr_after_spurious);
	ST_EXPECT(t, !(i8259_read_isr() & 1), "ISR %04x: IRQ 0 still in service after its EOI",
		  i8259_read_isr());
}

SELFTEST(pic, spurious_irq15_gets_master_eoi_only)
{
	struct i8259_stats before, after;
	unsigned long flags = irq_save_flags();

	i8259_get_stats(&before);
	__asm__ volatile("int $0x2f");
	i8259_get_stats(&after);
	irq_restore_flags(flags);
	ST_EXPECT(t, after.spurious15 == before.spurious15 + 1, "spurious15 %u -> %u",
		  before.spurious15, after.spurious15);
	ST_EXPECT(t, after.eoi_master == before.eoi_master + 1, "master EOIs %u -> %u",
		  before.eoi_master, after.eoi_master);
	ST_EXPECT(t, after.eoi_slave == before.eoi_slave, "slave EOIs %u -> %u",
		  before.eoi_slave, after.eoi_slave);
}
