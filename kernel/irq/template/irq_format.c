/*
 * irq_format.c (template port) - a small freestanding formatter for the
 * core's log messages, for kernels whose printf lacks what the core uses
 * (xv6's cprintf knows %d %x %p %s: no %u, no %llu, no precision, no
 * va_list form). It takes exactly the conversions docs/porting.md lists in
 * section 2 (tests/docs/test_porting.py checks that list against the
 * core's format strings, tests/unit/test_irq_format.c this file against the
 * C library's snprintf):
 *
 *   %%  %s  %.Ns  %.*s  %c  %d  %u  %x  %llu  %lld  %llx  %p
 *   with a field width and the 0 flag on the integers (%03llu)
 *
 * Anything else is copied literally and takes no argument. No floating
 * point, no 64-bit division (the decimal conversion divides by 10 with a
 * 64x64 multiply-high done in 32-bit pieces), no state: callable from
 * interrupt context. PORT: drop it if your printf has a va_list form with
 * these conversions (irq_template_set_log).
 */
#include "irq_port_host.h"  /* this directory's, whatever the include path says */

#include <stddef.h>

/* Largest field width honoured; wider ones are cut to it. */
#define IRQ_FORMAT_WIDTH_MAX 32

struct irq_format_out {
	char *buf;
	size_t size, len;  /* bytes in @buf, characters produced so far */
};

static void irq_format_put(struct irq_format_out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

/* @v / 10 and @v % 10 without a 64-bit division (no libgcc call on 32-bit CPUs). */
static uint64_t irq_format_div10(uint64_t v, unsigned int *rem)
{
	uint64_t q = (v >> 1) + (v >> 2);  /* q ~= v * 0.8, then refine: Hacker's Delight 10-4 */

	q += q >> 4;
	q += q >> 8;
	q += q >> 16;
	q += q >> 32;
	q >>= 3;
	*rem = (unsigned int)(v - q * 10);
	if (*rem > 9) {
		q++;
		*rem -= 10;
	}
	return q;
}

/* An unsigned number in base 10 or 16, at least @width characters, padded with @pad. */
static void irq_format_number(struct irq_format_out *o, uint64_t v, unsigned int base, bool neg,
			      unsigned int width, char pad)
{
	char digits[24];
	unsigned int n = 0, rem;

	do {
		if (base == 16) {
			rem = (unsigned int)(v & 15);
			v >>= 4;
		} else {
			v = irq_format_div10(v, &rem);
		}
		digits[n++] = (char)(rem < 10 ? '0' + rem : 'a' + rem - 10);
	} while (v && n < sizeof(digits));
	if (neg && pad == '0')
		irq_format_put(o, '-');
	for (; width > n + neg; width--)
		irq_format_put(o, pad);
	if (neg && pad != '0')
		irq_format_put(o, '-');
	while (n)
		irq_format_put(o, digits[--n]);
}

int irq_template_vformat(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct irq_format_out o = { .buf = buf, .size = size, .len = 0 };
	const char *p;

	for (p = fmt; *p; p++) {
		const char *start = p;
		unsigned int width = 0, longs = 0;
		int prec = -1;
		char pad = ' ';

		if (*p != '%') {
			irq_format_put(&o, *p);
			continue;
		}
		p++;
		if (*p == '0') {
			pad = '0';
			p++;
		}
		for (; *p >= '0' && *p <= '9'; p++)
			if (width < IRQ_FORMAT_WIDTH_MAX)
				width = width * 10 + (unsigned int)(*p - '0');
		if (width > IRQ_FORMAT_WIDTH_MAX)
			width = IRQ_FORMAT_WIDTH_MAX;
		if (*p == '.') {
			p++;
			if (*p == '*') {
				prec = va_arg(ap, int);
				p++;
			} else {
				for (prec = 0; *p >= '0' && *p <= '9'; p++)
					if (prec < 100000)
						prec = prec * 10 + (*p - '0');
			}
		}
		for (; *p == 'l' && longs < 2; p++)
			longs++;
		switch (*p) {
		case '%':
			irq_format_put(&o, '%');
			break;
		case 's': {
			const char *s = va_arg(ap, const char *);
			int i;

			if (!s)
				s = "(null)";
			for (i = 0; s[i] && (prec < 0 || i < prec); i++)
				irq_format_put(&o, s[i]);
			break;
		}
		case 'c':
			irq_format_put(&o, (char)va_arg(ap, int));
			break;
		case 'd': {
			long long v = longs == 2 ? va_arg(ap, long long) : longs ? va_arg(ap, long) : va_arg(ap, int);

			irq_format_number(&o, v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v, 10, v < 0,
					  width, pad);
			break;
		}
		case 'u':
		case 'x': {
			unsigned long long v = longs == 2 ? va_arg(ap, unsigned long long)
					     : longs ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int);

			irq_format_number(&o, v, *p == 'x' ? 16 : 10, false, width, pad);
			break;
		}
		case 'p':
			irq_format_put(&o, '0');
			irq_format_put(&o, 'x');
			irq_format_number(&o, (uintptr_t)va_arg(ap, void *), 16, false, 0, ' ');
			break;
		default:
			/* Not ours: copy it as it stands, take no argument. */
			for (; start <= p && *start; start++)
				irq_format_put(&o, *start);
			if (!*p)
				p--;
			break;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}
