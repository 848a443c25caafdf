/*
 * string.h - the kernel's memory and string functions, with the standard C
 * semantics of ISO C11 7.24 (strlcpy as in OpenBSD's strlcpy(3)). gcc emits
 * calls to memcpy, memmove, memset and memcmp on its own (structure copies,
 * zeroing), so these four must exist in the kernel and be correct.
 *
 * Host unit tests compile kernel/string.c with -DKSTRING_PREFIX: every name
 * then gets a 'k' prefix (kmemcpy, kstrlen, ...) so that it does not clash
 * with the host C library it is tested against. Kernel code never sets it.
 */
#ifndef KERNEL_STRING_H
#define KERNEL_STRING_H

#include <stddef.h>

#ifdef KSTRING_PREFIX
#define KSTRING_SYM(name) k##name
#else
#define KSTRING_SYM(name) name
#endif

/* memcpy - copy @n bytes; the areas must not overlap. RETURNS @dst. */
void *KSTRING_SYM(memcpy)(void *restrict dst, const void *restrict src, size_t n);
/* memmove - copy @n bytes; the areas may overlap. RETURNS @dst. */
void *KSTRING_SYM(memmove)(void *dst, const void *src, size_t n);
/* memset - fill @n bytes with (unsigned char)@c. RETURNS @dst. */
void *KSTRING_SYM(memset)(void *dst, int c, size_t n);
/* memcmp - compare @n bytes as unsigned char. RETURNS <0, 0 or >0. */
int KSTRING_SYM(memcmp)(const void *a, const void *b, size_t n);

/* strlen - RETURNS the number of bytes before the terminating NUL. */
size_t KSTRING_SYM(strlen)(const char *s);
/* strnlen - like strlen but reads at most @max bytes. RETURNS min(strlen, @max). */
size_t KSTRING_SYM(strnlen)(const char *s, size_t max);
/* strcmp - compare as unsigned char. RETURNS <0, 0 or >0. */
int KSTRING_SYM(strcmp)(const char *a, const char *b);
/* strncmp - compare at most @n bytes. RETURNS <0, 0 or >0. */
int KSTRING_SYM(strncmp)(const char *a, const char *b, size_t n);
/* strchr - first (char)@c in @s; the NUL itself can be found. RETURNS it or NULL. */
char *KSTRING_SYM(strchr)(const char *s, int c);
/*
 * strlcpy - copy @src into @dst of @size bytes, truncating, and NUL-terminate
 * whenever @size > 0. RETURNS strlen(@src); a value >= @size means truncated.
 */
size_t KSTRING_SYM(strlcpy)(char *restrict dst, const char *restrict src, size_t size);

#endif
