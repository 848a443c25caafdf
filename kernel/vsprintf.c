/*
 * vsprintf.c - kvsnprintf()/ksnprintf(): printf-style formatting into a
 * bounded buffer, following ISO C11 7.21.6.1 for the integer, character,
 * string and pointer conversions. What is supported, and where we differ
 * from C, is listed in include/kernel/format.h.
 *
 * The formatter is a loop over the format string: literal text is copied,
 * each '%' is parsed into a struct conversion (flags, width, precision,
 * length, conversion character) and then printed by one small function per
 * kind. Output goes through struct sink, which stores what fits and counts
 * everything, giving C99's "length that would have been written".
 */
#include <kernel/format.h>
#include <kernel/errno.h>
#include <kernel/string.h>

#include <stdbool.h>
#include <stdint.h>

/* Limits of the formatter. */
enum format_limits {
	/*
	 * Widths and precisions above this are clamped. No kernel message
	 * needs a wider field, and it bounds the padding loops and keeps the
	 * width arithmetic far from int overflow.
	 */
	FORMAT_FIELD_MAX = 4096,
	/* Digits of the longest number: UINT64_MAX in octal has 22. */
	FORMAT_DIGITS_MAX = 24,
};

/* Conversion flags, one bit each. */
enum format_flag {
	FLAG_LEFT  = 1u << 0,  /* '-': pad on the right */
	FLAG_ZERO  = 1u << 1,  /* '0': pad numbers with leading zeros */
	FLAG_PLUS  = 1u << 2,  /* '+': always print a sign for signed numbers */
	FLAG_SPACE = 1u << 3,  /* ' ': a space where a '+' would go */
	FLAG_ALT   = 1u << 4,  /* '#': 0x prefix for x/X, a leading 0 for o */
};

/* Length modifiers: the type the argument was passed as. */
enum format_length {
	LENGTH_DEFAULT,  /* int / unsigned int */
	LENGTH_HH,       /* char */
	LENGTH_H,        /* short */
	LENGTH_L,        /* long */
	LENGTH_LL,       /* long long */
	LENGTH_Z,        /* size_t */
	LENGTH_T,        /* ptrdiff_t */
	LENGTH_J,        /* intmax_t */
};

/* No precision given (a given one is >= 0). */
#define PRECISION_NONE (-1)

/* Number bases of the integer conversions. */
#define BASE_OCTAL 8
#define BASE_DECIMAL 10
#define BASE_HEX 16
/* Bits per digit in the power-of-two bases. */
#define OCTAL_DIGIT_BITS 3
#define HEX_DIGIT_BITS 4

/* One parsed conversion specification. */
struct conversion {
	unsigned flags;               /* enum format_flag bits */
	int width;                    /* minimum field width, 0 for none */
	int precision;                /* PRECISION_NONE or >= 0 */
	enum format_length length;    /* length modifier */
	char kind;                    /* conversion character */
};

/* Where output goes: @buf holds @size bytes, @len counts all output. */
struct sink {
	char *buf;
	size_t size;
	size_t len;
};

static void sink_put(struct sink *out, char c)
{
	if (out->len + 1 < out->size)
		out->buf[out->len] = c;
	out->len++;
}

static void sink_repeat(struct sink *out, char c, int count)
{
	int i;

	for (i = 0; i < count; i++)
		sink_put(out, c);
}

static void sink_write(struct sink *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sink_put(out, s[i]);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Read a decimal field at *@fmt, clamped to FORMAT_FIELD_MAX. */
static int parse_field(const char **fmt)
{
	int value = 0;

	while (is_digit(**fmt)) {
		value = value * BASE_DECIMAL + (**fmt - '0');
		if (value > FORMAT_FIELD_MAX)
			value = FORMAT_FIELD_MAX;
		(*fmt)++;
	}
	return value;
}

static int clamp_field(int value)
{
	return value > FORMAT_FIELD_MAX ? FORMAT_FIELD_MAX : value;
}

static unsigned parse_flags(const char **fmt)
{
	unsigned flags = 0;

	for (;; (*fmt)++) {
		switch (**fmt) {
		case '-': flags |= FLAG_LEFT; break;
		case '0': flags |= FLAG_ZERO; break;
		case '+': flags |= FLAG_PLUS; break;
		case ' ': flags |= FLAG_SPACE; break;
		case '#': flags |= FLAG_ALT; break;
		default: return flags;
		}
	}
}

static void parse_width(const char **fmt, struct conversion *conv, va_list *ap)
{
	if (**fmt != '*') {
		conv->width = parse_field(fmt);
		return;
	}
	(*fmt)++;
	int width = va_arg(*ap, int);
	/* A negative '*' width is a '-' flag and a positive width (C11 7.21.6.1p5). */
	if (width < 0) {
		conv->flags |= FLAG_LEFT;
		width = width < -FORMAT_FIELD_MAX ? FORMAT_FIELD_MAX : -width;
	}
	conv->width = clamp_field(width);
}

static void parse_precision(const char **fmt, struct conversion *conv, va_list *ap)
{
	conv->precision = PRECISION_NONE;
	if (**fmt != '.')
		return;
	(*fmt)++;
	if (**fmt != '*') {
		conv->precision = parse_field(fmt);  /* "." alone means 0 */
		return;
	}
	(*fmt)++;
	int precision = va_arg(*ap, int);
	/* A negative '*' precision counts as none. */
	conv->precision = precision < 0 ? PRECISION_NONE : clamp_field(precision);
}

static enum format_length parse_length(const char **fmt)
{
	switch (**fmt) {
	case 'h':
		(*fmt)++;
		if (**fmt == 'h') {
			(*fmt)++;
			return LENGTH_HH;
		}
		return LENGTH_H;
	case 'l':
		(*fmt)++;
		if (**fmt == 'l') {
			(*fmt)++;
			return LENGTH_LL;
		}
		return LENGTH_L;
	case 'z': (*fmt)++; return LENGTH_Z;
	case 't': (*fmt)++; return LENGTH_T;
	case 'j': (*fmt)++; return LENGTH_J;
	default: return LENGTH_DEFAULT;
	}
}

/*
 * Parse the specification after a '%' at *@fmt, fetching '*' arguments.
 * Leaves *@fmt after the conversion character (or at the NUL if missing).
 */
static void parse_conversion(const char **fmt, struct conversion *conv, va_list *ap)
{
	conv->flags = parse_flags(fmt);
	parse_width(fmt, conv, ap);
	parse_precision(fmt, conv, ap);
	conv->length = parse_length(fmt);
	conv->kind = **fmt;
	if (conv->kind != '\0')
		(*fmt)++;
}

static int64_t fetch_signed(va_list *ap, enum format_length length)
{
	switch (length) {
	case LENGTH_HH: return (signed char)va_arg(*ap, int);
	case LENGTH_H:  return (short)va_arg(*ap, int);
	case LENGTH_L:  return va_arg(*ap, long);
	case LENGTH_LL: return va_arg(*ap, long long);
	case LENGTH_Z:  return (ptrdiff_t)va_arg(*ap, size_t);  /* signed size_t */
	case LENGTH_T:  return va_arg(*ap, ptrdiff_t);
	case LENGTH_J:  return va_arg(*ap, intmax_t);
	default:        return va_arg(*ap, int);
	}
}

static uint64_t fetch_unsigned(va_list *ap, enum format_length length)
{
	switch (length) {
	case LENGTH_HH: return (unsigned char)va_arg(*ap, unsigned int);
	case LENGTH_H:  return (unsigned short)va_arg(*ap, unsigned int);
	case LENGTH_L:  return va_arg(*ap, unsigned long);
	case LENGTH_LL: return va_arg(*ap, unsigned long long);
	case LENGTH_Z:  return va_arg(*ap, size_t);
	case LENGTH_T:  return (size_t)va_arg(*ap, ptrdiff_t);  /* unsigned ptrdiff_t */
	case LENGTH_J:  return va_arg(*ap, uintmax_t);
	default:        return va_arg(*ap, unsigned int);
	}
}

/*
 * Write the digits of @value in @base into the end of @digits (which holds
 * FORMAT_DIGITS_MAX bytes). RETURNS the number of digits; 0 has one digit.
 * Decimal values that fit in 32 bits avoid the 64-bit division helpers,
 * which are slow on i686.
 */
static int convert_digits(char *digits, uint64_t value, unsigned base, bool upper)
{
	const char *charset = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *p = digits + FORMAT_DIGITS_MAX;

	if (base != BASE_DECIMAL) {
		unsigned bits = base == BASE_HEX ? HEX_DIGIT_BITS : OCTAL_DIGIT_BITS;

		do {
			*--p = charset[value & (base - 1)];
			value >>= bits;
		} while (value != 0);
	} else if (value <= UINT32_MAX) {
		uint32_t small = (uint32_t)value;

		do {
			*--p = charset[small % BASE_DECIMAL];
			small /= BASE_DECIMAL;
		} while (small != 0);
	} else {
		do {
			*--p = charset[value % BASE_DECIMAL];
			value /= BASE_DECIMAL;
		} while (value != 0);
	}
	return (int)(digits + FORMAT_DIGITS_MAX - p);
}

/* The parts of a printed number, in output order after any left padding. */
struct number_layout {
	char sign;           /* '-', '+', ' ' or 0 for none */
	const char *prefix;  /* "0x", "0X" or "" */
	int zeros;           /* leading zeros from precision, '#' and '0' */
	int ndigits;         /* digits of the value itself */
	int padding;         /* spaces before (or after, with '-') */
};

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

static void layout_number(struct number_layout *lay, const struct conversion *conv,
			  const char *digits, unsigned base)
{
	int prefix_len = (int)strlen(lay->prefix);

	lay->zeros = 0;
	if (conv->precision != PRECISION_NONE)
		lay->zeros = max_int(conv->precision - lay->ndigits, 0);
	/* '#' with o: the first digit printed must be a zero (C11 7.21.6.1p6). */
	if ((conv->flags & FLAG_ALT) && base == BASE_OCTAL && lay->zeros == 0 &&
	    (lay->ndigits == 0 || digits[0] != '0'))
		lay->zeros = 1;

	int used = (lay->sign ? 1 : 0) + prefix_len + lay->zeros + lay->ndigits;
	int spare = max_int(conv->width - used, 0);

	/* '0' pads with zeros, unless '-' is given or a precision is (p6). */
	lay->padding = spare;
	if ((conv->flags & (FLAG_ZERO | FLAG_LEFT)) == FLAG_ZERO &&
	    conv->precision == PRECISION_NONE) {
		lay->zeros += spare;
		lay->padding = 0;
	}
}

static void print_number(struct sink *out, const struct conversion *conv,
			 uint64_t magnitude, char sign, const char *prefix)
{
	char digits[FORMAT_DIGITS_MAX];
	unsigned base = BASE_DECIMAL;
	struct number_layout lay = { .sign = sign, .prefix = prefix };

	if (conv->kind == 'o')
		base = BASE_OCTAL;
	else if (conv->kind == 'x' || conv->kind == 'X' || conv->kind == 'p')
		base = BASE_HEX;

	lay.ndigits = convert_digits(digits, magnitude, base, conv->kind == 'X');
	/* Precision 0 and value 0: no digits at all (C11 7.21.6.1p8). */
	if (magnitude == 0 && conv->precision == 0)
		lay.ndigits = 0;
	const char *first = digits + FORMAT_DIGITS_MAX - lay.ndigits;

	layout_number(&lay, conv, first, base);
	if (!(conv->flags & FLAG_LEFT))
		sink_repeat(out, ' ', lay.padding);
	if (lay.sign)
		sink_put(out, lay.sign);
	sink_write(out, lay.prefix, strlen(lay.prefix));
	sink_repeat(out, '0', lay.zeros);
	sink_write(out, first, (size_t)lay.ndigits);
	if (conv->flags & FLAG_LEFT)
		sink_repeat(out, ' ', lay.padding);
}

static void print_signed(struct sink *out, const struct conversion *conv, va_list *ap)
{
	int64_t value = fetch_signed(ap, conv->length);
	/* Negate in unsigned arithmetic: -INT64_MIN does not fit an int64_t. */
	uint64_t magnitude = value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value;
	char sign = 0;

	if (value < 0)
		sign = '-';
	else if (conv->flags & FLAG_PLUS)
		sign = '+';
	else if (conv->flags & FLAG_SPACE)
		sign = ' ';
	print_number(out, conv, magnitude, sign, "");
}

static void print_unsigned(struct sink *out, const struct conversion *conv, va_list *ap)
{
	uint64_t value = fetch_unsigned(ap, conv->length);
	const char *prefix = "";

	/* '#' with x/X: a 0x/0X prefix, but only for a non-zero value (p6). */
	if ((conv->flags & FLAG_ALT) && value != 0) {
		if (conv->kind == 'x')
			prefix = "0x";
		else if (conv->kind == 'X')
			prefix = "0X";
	}
	print_number(out, conv, value, 0, prefix);
}

/* Print @len bytes of @s padded to the width; used by %c, %s and NULL %p. */
static void print_padded(struct sink *out, const struct conversion *conv,
			 const char *s, size_t len)
{
	int spare = 0;

	if (len < (size_t)conv->width)
		spare = conv->width - (int)len;
	if (!(conv->flags & FLAG_LEFT))
		sink_repeat(out, ' ', spare);
	sink_write(out, s, len);
	if (conv->flags & FLAG_LEFT)
		sink_repeat(out, ' ', spare);
}

static void print_char(struct sink *out, const struct conversion *conv, va_list *ap)
{
	char c = (char)(unsigned char)va_arg(*ap, int);

	print_padded(out, conv, &c, 1);
}

static void print_string(struct sink *out, const struct conversion *conv, va_list *ap)
{
	const char *s = va_arg(*ap, const char *);
	/* With a precision, read no further than it: the array may lack a NUL. */
	size_t limit = conv->precision == PRECISION_NONE ? SIZE_MAX : (size_t)conv->precision;

	if (s == NULL)
		s = "(null)";
	print_padded(out, conv, s, strnlen(s, limit));
}

static void print_pointer(struct sink *out, const struct conversion *conv, va_list *ap)
{
	const void *p = va_arg(*ap, const void *);
	struct conversion hex = *conv;

	if (p == NULL) {
		print_padded(out, conv, "(nil)", strlen("(nil)"));
		return;
	}
	hex.flags &= ~(unsigned)(FLAG_PLUS | FLAG_SPACE);
	print_number(out, &hex, (uintptr_t)p, 0, "0x");
}

/* Print one conversion; RETURNS false if its character is not one we know. */
static bool print_conversion(struct sink *out, const struct conversion *conv, va_list *ap)
{
	switch (conv->kind) {
	case 'd':
	case 'i':
		print_signed(out, conv, ap);
		return true;
	case 'u':
	case 'o':
	case 'x':
	case 'X':
		print_unsigned(out, conv, ap);
		return true;
	case 'c':
		print_char(out, conv, ap);
		return true;
	case 's':
		print_string(out, conv, ap);
		return true;
	case 'p':
		print_pointer(out, conv, ap);
		return true;
	case '%':
		sink_put(out, '%');
		return true;
	default:
		return false;
	}
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct sink out = { .buf = buf, .size = buf ? size : 0, .len = 0 };
	va_list args;

	if (fmt == NULL)
		fmt = "(null)";
	va_copy(args, ap);
	while (*fmt != '\0') {
		if (*fmt != '%') {
			sink_put(&out, *fmt++);
			continue;
		}
		const char *start = fmt++;
		struct conversion conv;

		parse_conversion(&fmt, &conv, &args);
		/* Unknown: print the specification as written, take no argument. */
		if (!print_conversion(&out, &conv, &args))
			sink_write(&out, start, (size_t)(fmt - start));
	}
	va_end(args);

	if (out.size > 0)
		out.buf[out.len < out.size ? out.len : out.size - 1] = '\0';
	if (out.len > (size_t)__INT_MAX__)
		return -EOVERFLOW;
	return (int)out.len;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return ret;
}
