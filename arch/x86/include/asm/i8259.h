/* The two cascaded 8259A PICs (arch/x86/i8259.c). */
#ifndef ASM_I8259_H
#define ASM_I8259_H

#include <stdint.h>
#include <stdbool.h>

#define PIC_NR_IRQS   16   /* ISA IRQs 0-15: master 0-7, slave 8-15 */
#define PIC_CASCADE_IRQ 2  /* the slave's output feeds master input 2 */

struct i8259_stats {
	uint32_t spurious7;    /* IRQ 7 with master ISR bit 7 clear */
	uint32_t spurious15;   /* IRQ 15 with slave ISR bit 7 clear */
	uint32_t eoi_master;   /* EOI commands sent to the master */
	uint32_t eoi_slave;    /* EOI commands sent to the slave */
	uint16_t imr;          /* current mask (bit n = IRQ n masked) */
	uint16_t elcr;         /* edge/level control: bit n = IRQ n level-triggered */
	uint16_t forced_mask;  /* lines masked behind kernel/irq's back (fault injection) */
};

void i8259_init(void);
/* i8259_register_lines - make IRQs 0-15 XT-PIC lines of kernel/irq. */
void i8259_register_lines(void);
/* i8259_disable - mask every input (IOAPIC mode); spurious 7/15 still counted. */
void i8259_disable(void);
/* i8259_spurious - true if the interrupt on @irq (7 or 15) is spurious; accounts and EOIs as needed. */
bool i8259_spurious(unsigned int irq);
uint16_t i8259_read_isr(void);
uint16_t i8259_read_irr(void);
/* i8259_poll - OCW3 poll command: acknowledge the highest pending IRQ; -1 if none. */
int i8259_poll(void);
void i8259_send_eoi(unsigned int irq);
/* i8259_force_mask - mask @irq at the chip regardless of kernel/irq's view (fault injection). */
void i8259_force_mask(unsigned int irq, bool masked);
void i8259_get_stats(struct i8259_stats *st);

#endif
