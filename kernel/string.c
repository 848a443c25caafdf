/*
 * string.c - memory and string functions for the kernel, following ISO C11
 * 7.24 (strlcpy follows OpenBSD's strlcpy(3)). See include/kernel/string.h.
 *
 * memcpy and memset move whole machine words once both pointers share an
 * alignment, bytes otherwise; memmove copies backwards when the destination
 * overlaps the source from above. Everything else is a plain byte loop: the
 * kernel's strings are short and clarity wins.
 *
 * gcc turns recognisable copy and fill loops into calls to memcpy/memset
 * (-ftree-loop-distribute-patterns); inside memcpy itself that would be a
 * call to itself, so the mem* functions switch that transformation off.
 */
#include <kernel/string.h>

#include <stdint.h>

/* A machine word that may alias any object (we copy arbitrary bytes). */
typedef unsigned long __attribute__((may_alias)) kstring_word;

/* Bytes in one kstring_word. */
#define WORD_BYTES sizeof(kstring_word)
/* Mask of the address bits below word alignment. */
#define WORD_ALIGN_MASK (WORD_BYTES - 1)

/* Keep gcc from compiling a mem* function into a call to itself. */
#define NO_LIBCALL_LOOPS __attribute__((optimize("no-tree-loop-distribute-patterns")))

static inline uintptr_t misalignment(const void *p)
{
	return (uintptr_t)p & WORD_ALIGN_MASK;
}

NO_LIBCALL_LOOPS
void *KSTRING_SYM(memcpy)(void *restrict dst, const void *restrict src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (misalignment(d) == misalignment(s)) {
		while (n > 0 && misalignment(d) != 0) {
			*d++ = *s++;
			n--;
		}
		for (; n >= WORD_BYTES; n -= WORD_BYTES) {
			*(kstring_word *)d = *(const kstring_word *)s;
			d += WORD_BYTES;
			s += WORD_BYTES;
		}
	}
	while (n > 0) {
		*d++ = *s++;
		n--;
	}
	return dst;
}

NO_LIBCALL_LOOPS
void *KSTRING_SYM(memmove)(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	/*
	 * Compare as integers: relational operators on pointers into
	 * different objects are undefined in C. A forward copy is safe unless
	 * the destination starts inside the source.
	 */
	if ((uintptr_t)d - (uintptr_t)s >= n)
		return KSTRING_SYM(memcpy)(dst, src, n);

	d += n;
	s += n;
	while (n > 0) {
		*--d = *--s;
		n--;
	}
	return dst;
}

NO_LIBCALL_LOOPS
void *KSTRING_SYM(memset)(void *dst, int c, size_t n)
{
	unsigned char *d = dst;
	unsigned char byte = (unsigned char)c;
	/* The byte replicated into every byte of a word: 0x0101...01 * byte. */
	kstring_word pattern = ((kstring_word)-1 / UINT8_MAX) * byte;

	while (n > 0 && misalignment(d) != 0) {
		*d++ = byte;
		n--;
	}
	for (; n >= WORD_BYTES; n -= WORD_BYTES) {
		*(kstring_word *)d = pattern;
		d += WORD_BYTES;
	}
	while (n > 0) {
		*d++ = byte;
		n--;
	}
	return dst;
}

NO_LIBCALL_LOOPS
int KSTRING_SYM(memcmp)(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a;
	const unsigned char *y = b;

	/* Skip equal words quickly; the byte loop then finds the difference. */
	if (misalignment(x) == 0 && misalignment(y) == 0) {
		while (n >= WORD_BYTES &&
		       *(const kstring_word *)x == *(const kstring_word *)y) {
			x += WORD_BYTES;
			y += WORD_BYTES;
			n -= WORD_BYTES;
		}
	}
	for (; n > 0; n--, x++, y++) {
		if (*x != *y)
			return *x < *y ? -1 : 1;
	}
	return 0;
}

size_t KSTRING_SYM(strlen)(const char *s)
{
	const char *p = s;

	while (*p != '\0')
		p++;
	return (size_t)(p - s);
}

size_t KSTRING_SYM(strnlen)(const char *s, size_t max)
{
	size_t len = 0;

	while (len < max && s[len] != '\0')
		len++;
	return len;
}

int KSTRING_SYM(strcmp)(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	while (*x != '\0' && *x == *y) {
		x++;
		y++;
	}
	return (*x > *y) - (*x < *y);
}

int KSTRING_SYM(strncmp)(const char *a, const char *b, size_t n)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	for (; n > 0; n--, x++, y++) {
		if (*x != *y)
			return *x < *y ? -1 : 1;
		if (*x == '\0')
			break;
	}
	return 0;
}

char *KSTRING_SYM(strchr)(const char *s, int c)
{
	char want = (char)c;

	for (;; s++) {
		if (*s == want)
			return (char *)s;
		if (*s == '\0')
			return NULL;
	}
}

size_t KSTRING_SYM(strlcpy)(char *restrict dst, const char *restrict src, size_t size)
{
	size_t len = KSTRING_SYM(strlen)(src);

	if (size > 0) {
		size_t copy = len < size - 1 ? len : size - 1;

		KSTRING_SYM(memcpy)(dst, src, copy);
		dst[copy] = '\0';
	}
	return len;
}
