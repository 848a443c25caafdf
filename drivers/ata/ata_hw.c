/*
 * ata_hw.c - the services drivers/ata asks of the kernel (ata_internal.h,
 * "Services"): port I/O (asm/io.h), the clock and delays (kernel/time),
 * interrupt masking on our CPU, idling until an interrupt or a deadline,
 * and the IRQ defences of kernel/irq. The host unit tests replace this
 * file with a simulated IDE device and a virtual clock.
 */
#include "ata_internal.h"
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/smp.h>
#include <asm/spinlock.h>
#include <time/time.h>
#include <irq/trace.h>

#define US_PER_MS 1000u

uint8_t ata_hw_inb(uint16_t port) { return inb(port); }
void ata_hw_outb(uint16_t port, uint8_t value) { outb(port, value); }
void ata_hw_insw(uint16_t port, void *buf, size_t words) { insw(port, buf, (uint32_t)words); }
void ata_hw_outsw(uint16_t port, const void *buf, size_t words) { outsw(port, buf, (uint32_t)words); }
uint64_t ata_hw_now_ns(void) { return ktime_get_ns(); }
void ata_hw_delay_us(unsigned int us) { udelay(us); }
/*
 * Several CPUs: "interrupts off" no longer keeps the handler out once the
 * channel's line may be delivered to another CPU (affinity). So the driver's
 * critical sections (ata_internal.h, "Concurrency") take ata_lock as well:
 * one recursive spin lock for all channels (the owner is the CPU number;
 * asm/spinlock.h for the ordering), taken by the thread side here and by the
 * handler in ata_hw_interrupt(), and given up whole while ata_hw_wait()
 * halts. `ata_owner`/`ata_depth` are written by the holder only (others
 * compare the owner with their own number, see irq_port.c). Lock order:
 * ata_lock, then a kernel/irq line's lock (expect/unexpect), then
 * kernel/time's; the handler runs with the line's lock dropped by the core.
 */
#define ATA_NO_OWNER 0xFFFFFFFFu
static spinlock_t ata_lock = SPINLOCK_INIT;
static volatile uint32_t ata_owner = ATA_NO_OWNER;
static uint32_t ata_depth;
static volatile uint32_t ata_waiter_cpu;   /* the CPU in ata_hw_wait() (0: the shell's) */

unsigned long ata_hw_irq_save(void)
{
	unsigned long flags = irq_save_flags();
	uint32_t me = smp_processor_id();

	if (ata_owner != me) {
		spin_lock(&ata_lock);
		ata_owner = me;
	}
	ata_depth++;
	return flags;
}

void ata_hw_irq_restore(unsigned long flags)
{
	if (--ata_depth == 0) {
		ata_owner = ATA_NO_OWNER;
		spin_unlock(&ata_lock);
	}
	irq_restore_flags(flags);
}

/* The handler kernel/irq runs (ata_probe.c requests it): ata_interrupt under
 * ata_lock; on a CPU other than the waiter's, wake the waiter, which would
 * otherwise halt until its next timer interrupt. */
irqreturn_t ata_hw_interrupt(unsigned int irq, void *dev_id)
{
	unsigned long flags = ata_hw_irq_save();
	irqreturn_t ret = ata_interrupt(irq, dev_id);
	uint32_t waiter = ata_waiter_cpu;

	ata_race_learn(dev_id, ret);
	ata_hw_irq_restore(flags);
	if (ret == IRQ_HANDLED && waiter != smp_processor_id())
		smp_send_wakeup(waiter);
	return ret;
}

void ata_hw_sleep_ms(unsigned int ms)
{
	/* Before the tick runs msleep cannot sleep; busy-wait on the clock source then. */
	if (msleep(ms))
		udelay(ms * US_PER_MS);
}

/* One wake-up timer per channel: in tickless mode nothing else may end the idle in time. */
static struct timer wake_timer[ATA_MAX_CHANNELS];
static uint64_t wake_at_ns[ATA_MAX_CHANNELS];  /* the deadline wake_timer is armed for */

static void wake_up(struct timer *t)
{
	(void)t;   /* the timer interrupt itself ends time_idle() */
}

void ata_hw_wait(struct ata_channel *ch, uint64_t deadline_ns)
{
	unsigned int i = ch->index % ATA_MAX_CHANNELS;
	struct timer *t = &wake_timer[i];

	if (!t->fn)
		timer_setup(t, wake_up, ch);
	/*
	 * Every DRQ block moves the deadline on a little (it counts from the
	 * phase's start). A timer still armed for an earlier one is left: it
	 * only wakes the waiter early, which looks again and re-arms then,
	 * once per ATA_IRQ_WAIT_MS instead of a timer_mod per block.
	 */
	if (!timer_pending(t) || wake_at_ns[i] > deadline_ns) {
		timer_mod(t, deadline_ns, 0);
		wake_at_ns[i] = deadline_ns;
	}
	{
		uint32_t depth = 0, me = smp_processor_id();

		ata_waiter_cpu = me;
		if (ata_owner == me) {   /* let the handler in on another CPU while we halt */
			depth = ata_depth;
			ata_depth = 0;
			ata_owner = ATA_NO_OWNER;
			spin_unlock(&ata_lock);
		}
		time_idle();          /* sti; hlt; returns with interrupts disabled again */
		if (depth) {
			spin_lock(&ata_lock);
			ata_owner = me;
			ata_depth = depth;
		}
	}
}

/*
 * The defences of kernel/irq (<irq/interrupt.h>, design at the top of
 * kernel/irq/spurious.c): every interrupt a command waits for is bracketed
 * in ata_core.c's open_phase/close_phase and reaches the core only through
 * these functions. Without a token (the pool was empty, or the defences are
 * off with noirqdebug) the calls do nothing and a lost interrupt costs the
 * driver's own ATA_IRQ_WAIT_MS.
 */
bool ata_hw_expect_init(struct ata_channel *ch)
{
	if (ch->line < 0 || !ch->irq_requested)
		return false;
	ch->expect = init_irq_expect((unsigned int)ch->line, ch);
	return ch->expect != NULL;
}

void ata_hw_expect(struct ata_channel *ch)
{
	ata_fault_cpustall();
	expect_irq(ch->expect);
	ata_race_aim(ch);
}

void ata_hw_unexpect(struct ata_channel *ch, bool timedout)
{
	unexpect_irq(ch->expect, timedout);
}

bool ata_hw_cpu_ran(struct ata_channel *ch)
{
	return irq_expect_cpu_ran(ch->expect);
}

/*
 * A look of the wait, not a verdict: kept apart from ata_hw_cpu_ran, which
 * recover_lost alone calls, once per phase the driver completed itself
 * (tests/qemu/test_smp_race.py counts that function's runs as those
 * phases). noinline and its own return type, so the compiler neither folds
 * it into ata_hw_cpu_ran nor that one into this.
 */
__attribute__((noinline)) void ata_hw_cpu_look(struct ata_channel *ch)
{
	(void)irq_expect_cpu_ran(ch->expect);
}

/* "ata_cmd" events of the event trace (kernel/irq/trace.h), on the channel's line. */
void ata_hw_trace_cmd(struct ata_channel *ch, bool end, uint32_t value)
{
	static unsigned int tag;

	if (!irq_trace_enabled() || ch->line < 0)
		return;
	if (!tag)
		tag = irq_trace_tag("ata_cmd");
	irq_trace_drv(tag, (unsigned int)ch->line, end ? IRQ_TDRV_END : IRQ_TDRV_BEGIN, value);
}

void ata_hw_watch(struct ata_channel *ch)
{
	if (ch->irq_requested)
		watch_irq((unsigned int)ch->line, ch);
}
