/*
 * format.h - printf-style formatting into a bounded buffer, with the
 * semantics of ISO C11 7.21.6.1 (fprintf) and 7.21.6.5 (snprintf) for the
 * integer, character, string and pointer conversions. No floating point:
 * the kernel is built with -mgeneral-regs-only.
 *
 * Supported: conversions d i u x X o c s p %; flags - 0 + space #; width and
 * precision, also as '*'; length modifiers hh h l ll z t j (64-bit values
 * work on i686). Beyond C:
 *   - %s of NULL prints "(null)" (cut to the precision if one is given);
 *   - %p prints "0x" and lowercase hex digits, NULL prints "(nil)" (as glibc);
 *   - a conversion we do not know (%f, %n, %q, a lone % at the end, ...) is
 *     printed literally and consumes no argument (beyond its '*' fields);
 *     %n never writes anything. Floating-point arguments cannot be skipped,
 *     so a %f with an argument shifts the arguments after it;
 *   - length modifiers on %c and %s are ignored (no wide characters);
 *   - widths and precisions are clamped to FORMAT_FIELD_MAX (vsprintf.c).
 */
#ifndef KERNEL_FORMAT_H
#define KERNEL_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

/*
 * kvsnprintf - format @fmt with @ap into @buf, which holds @size bytes.
 * At most @size - 1 characters are stored, and the result is always
 * NUL-terminated when @size > 0; @buf may be NULL when @size is 0.
 * CONTEXT: any, including interrupt handlers; no locks, no allocation.
 * RETURNS the length the whole result would have (excluding the NUL), so a
 * value >= @size means it was truncated; -EOVERFLOW if that exceeds INT_MAX.
 */
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

/* ksnprintf - kvsnprintf with the arguments inline. CONTEXT, RETURNS: as kvsnprintf. */
int ksnprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
