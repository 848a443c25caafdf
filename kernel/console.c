/*
 * console.c - fan-out of kernel output to the registered sinks, and the
 * input ring between character sources (interrupt handlers) and the shell.
 */
#include <kernel/console.h>
#include <kernel/ring.h>
#include <asm/cpu.h>
#include <asm/spinlock.h>

#define CONSOLE_INPUT_RING_SIZE 1024   /* bytes of typed-ahead input kept */

static struct console_sink *sinks;
static uint8_t input_storage[CONSOLE_INPUT_RING_SIZE];
static struct ring input_ring;
static bool input_ready;
/*
 * The ring has one producer by contract (ring.h), but characters now come
 * from handlers that may run on different CPUs at once: the UART's on its
 * line's CPU, the USB keyboard's on the UHCI line's (affinity moves them),
 * its key repeat from a timer on CPU 0. They take turns under input_lock;
 * the consumer (the shell) needs none. Innermost: nothing is called under it.
 */
static spinlock_t input_lock = SPINLOCK_INIT;

/* Emergency output: the serial driver's polled path, set by uart16550.c. */
void (*console_emergency_sink)(const char *s, size_t len);

void console_register(struct console_sink *sink)
{
	unsigned long flags = irq_save_flags();

	sink->next = sinks;
	sinks = sink;
	irq_restore_flags(flags);
}

void console_write(const char *s, size_t len)
{
	for (struct console_sink *k = sinks; k; k = k->next)
		k->write(s, len);
}

void console_flush(void)
{
	for (struct console_sink *k = sinks; k; k = k->next)
		if (k->flush)
			k->flush();
}

void console_emergency_write(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	if (console_emergency_sink)
		console_emergency_sink(s, n);
}

void console_init(void)
{
	ring_init(&input_ring, input_storage, sizeof(input_storage));
	input_ready = true;
}

void console_input_char(uint8_t c)
{
	unsigned long flags;

	if (!input_ready)
		return;
	flags = spin_lock_irqsave(&input_lock);
	ring_put(&input_ring, c);
	spin_unlock_irqrestore(&input_lock, flags);
}

bool console_getc(uint8_t *c)
{
	return input_ready && ring_get(&input_ring, c);
}

uint32_t console_input_dropped(void)
{
	return input_ready ? (uint32_t)input_ring.dropped : 0;
}
