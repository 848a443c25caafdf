/*
 * cmdline.h - the kernel command line parser. The boot loader hands the
 * kernel one string (Multiboot 1 spec, section 3.3, "cmdline"); this module
 * splits it into parameters and feeds each to its table entry.
 *
 * Syntax: words separated by spaces or tabs; each word is `key`,
 * `key=value` or `key="value with spaces"` (double quotes may appear
 * anywhere in a word and are removed; the word splits at its first '=').
 * Parameters are applied in order, so for a repeated key every occurrence
 * calls set() and the last one wins. Every problem is reported through the
 * caller's report function and counted; nothing is silently ignored.
 *
 * The command line comes from outside the kernel and is untrusted: it is
 * never modified, never read past CMDLINE_MAX bytes, and parsing allocates
 * nothing (words are copied into a bounded buffer on the stack).
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#define CMDLINE_MAX 1024            /* longest command line accepted (bytes) */
#define CMDLINE_WORD_MAX 255        /* longest word (key=value, quotes removed) accepted (bytes) */

enum cmdline_kind {
	CMDLINE_FLAG,           /* bare `name` only; set() gets NULL */
	CMDLINE_VALUE,          /* `name=value` only; set() gets the value */
	CMDLINE_FLAG_OR_VALUE,  /* either; set() gets NULL for the bare form */
};

struct cmdline_param {
	const char *name;             /* "hz" */
	enum cmdline_kind kind;       /* FLAG: bare `name` only; VALUE: `name=value` only */
	int (*set)(const char *value, void *arg); /* value is NULL for a bare flag; returns 0 or -EINVAL/-ERANGE */
	void *arg;                    /* passed to set() unchanged */
	const char *help;             /* one line for the README / `help` */
};

/* report: called once per problem with a human-readable message (no newline). */
typedef void (*cmdline_report_fn)(void *ctx, const char *msg);

/*
 * cmdline_parse - parse @cmdline against the @n entries of @table, calling
 * each matching entry's set() in order. Each problem (unknown parameter, a
 * flag given a value, a value parameter without one, set() failing, an
 * unterminated quote, an overlong word, an overlong command line) is passed
 * to @report (may be NULL) with @ctx; messages start with "cmdline: " and
 * non-printable bytes from the input are shown as '?'. A command line longer
 * than CMDLINE_MAX is reported and its first CMDLINE_MAX bytes are parsed.
 * A NULL @cmdline is an empty one.
 * CONTEXT: any that set() and @report allow; no locks, no allocation. The
 * value string passed to set() lives only for the duration of the call.
 * RETURNS the number of problems found (0 when all went well).
 */
int cmdline_parse(const char *cmdline, const struct cmdline_param *table, size_t n,
		  cmdline_report_fn report, void *ctx);

/*
 * cmdline_skip_image - skip the boot image path that GRUB and QEMU put in
 * front of the parameters: a first word that contains '/' but no '='
 * ("/boot/irqkit.elf hz=100" -> "hz=100"). Leading blanks are skipped too.
 * CONTEXT: any.
 * RETURNS a pointer into @cmdline (NULL if @cmdline is NULL).
 */
const char *cmdline_skip_image(const char *cmdline);

/*
 * cmdline_parse_uint - parse @s as an unsigned decimal ("100") or hex
 * ("0x3f8") number in [@min, @max] and store it in *@out. No sign, no
 * blanks, no suffix; leading zeros are decimal, not octal. *@out is only
 * written on success.
 * CONTEXT: any.
 * RETURNS 0; -EINVAL if @s is not such a number (or @min > @max); -ERANGE if
 * it is one but does not fit unsigned long or lies outside [@min, @max].
 */
int cmdline_parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out);

/*
 * cmdline_list_next - iterate over the comma-separated items of a list
 * value ("a,b:c,d" gives "a", "b:c", "d"). Start with *@cursor at the
 * string; each call sets *@item and *@len to the next item (not
 * NUL-terminated; empty items between commas are returned with *@len 0) and
 * advances *@cursor. An empty string has no items, and a trailing comma
 * does not add one.
 * CONTEXT: any.
 * RETURNS true if an item was returned, false at the end (or NULL arguments).
 */
bool cmdline_list_next(const char **cursor, const char **item, size_t *len);

#endif
