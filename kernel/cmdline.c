/*
 * cmdline.c - the kernel command line parser; the syntax and the contract
 * are in include/kernel/cmdline.h. The command line arrives through the
 * Multiboot information structure (Multiboot 1 spec, section 3.3) and is
 * untrusted: every loop here is bounded by CMDLINE_MAX or CMDLINE_WORD_MAX,
 * and the input is only ever read.
 *
 * cmdline_parse() walks the string one word at a time: scan_word() copies
 * a word into a bounded buffer (removing quotes, finding the '='), then
 * apply_word() looks the key up in the caller's table and calls set().
 * Problems go through report_problem(), which formats, sanitises and counts.
 */
#include <kernel/cmdline.h>
#include <kernel/errno.h>
#include <kernel/format.h>
#include <kernel/string.h>

#include <stdint.h>

/* Limits of the parser, beyond CMDLINE_MAX and CMDLINE_WORD_MAX. */
enum cmdline_limits {
	/* Longest problem message passed to report(), NUL included. */
	CMDLINE_REPORT_MAX = 256,
	/* Bytes of a key or value quoted in a message before "..." cuts it. */
	CMDLINE_ECHO_MAX = 64,
};

/* Opens and closes a quoted part of a word (blanks inside are kept). */
#define CMDLINE_QUOTE '"'
/* Marks a word without '=' in cmdline_word.equals. */
#define NO_EQUALS ((size_t)-1)
/* Number bases cmdline_parse_uint() understands. */
#define DECIMAL_BASE 10u
#define HEX_BASE 16u
/* Value of the hex digit 'a' (and 'A'). */
#define HEX_LETTER_VALUE 10u
/* Printable ASCII range; bytes outside it are shown as '?' in messages. */
#define PRINTABLE_FIRST ' '
#define PRINTABLE_LAST '~'

/* One word of the command line, quotes removed, NUL-terminated. */
struct cmdline_word {
	char text[CMDLINE_WORD_MAX + 1];
	size_t len;          /* bytes in text */
	size_t equals;       /* index of the first '=' in text, or NO_EQUALS */
	bool overlong;       /* the word had more than CMDLINE_WORD_MAX bytes */
	bool unterminated;   /* a quote was opened and never closed */
};

/* State of one cmdline_parse() call. */
struct cmdline_parser {
	const struct cmdline_param *table;
	size_t n;
	cmdline_report_fn report;
	void *ctx;
	int problems;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

__attribute__((format(printf, 2, 3)))
static void report_problem(struct cmdline_parser *ps, const char *fmt, ...)
{
	char msg[CMDLINE_REPORT_MAX];
	va_list ap;
	size_t i;

	ps->problems++;
	if (ps->report == NULL)
		return;
	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Input bytes end up in the log: keep control characters out of it. */
	for (i = 0; msg[i] != '\0'; i++) {
		if (msg[i] < PRINTABLE_FIRST || msg[i] > PRINTABLE_LAST)
			msg[i] = '?';
	}
	ps->report(ps->ctx, msg);
}

/* "..." when @s is longer than a message quotes (with "%.*s", ECHO_MAX). */
static const char *cut_mark(const char *s)
{
	return strnlen(s, CMDLINE_ECHO_MAX + 1) > CMDLINE_ECHO_MAX ? "..." : "";
}

/*
 * Copy the word at @p (which is not blank) into @w, stopping at an unquoted
 * blank or at @end. RETURNS the position after the word.
 */
static const char *scan_word(const char *p, const char *end, struct cmdline_word *w)
{
	bool quoted = false;

	w->len = 0;
	w->equals = NO_EQUALS;
	w->overlong = false;
	for (; p < end && (quoted || !is_blank(*p)); p++) {
		if (*p == CMDLINE_QUOTE) {
			quoted = !quoted;
			continue;
		}
		if (w->len == CMDLINE_WORD_MAX) {
			w->overlong = true;
			continue;
		}
		if (*p == '=' && w->equals == NO_EQUALS)
			w->equals = w->len;
		w->text[w->len++] = *p;
	}
	w->text[w->len] = '\0';
	w->unterminated = quoted;
	return p;
}

static const struct cmdline_param *find_param(const struct cmdline_parser *ps, const char *key)
{
	size_t i;

	for (i = 0; i < ps->n; i++) {
		if (ps->table[i].name != NULL && strcmp(ps->table[i].name, key) == 0)
			return &ps->table[i];
	}
	return NULL;
}

/* Check the value against the kind; RETURNS true if set() may be called. */
static bool kind_accepts(struct cmdline_parser *ps, const struct cmdline_param *param,
			 const char *value)
{
	const char *key = param->name;

	switch (param->kind) {
	case CMDLINE_FLAG:
		if (value == NULL)
			return true;
		report_problem(ps, "cmdline: '%s' is a flag and takes no value (got '%s=%.*s%s'); ignored",
			       key, key, CMDLINE_ECHO_MAX, value, cut_mark(value));
		return false;
	case CMDLINE_VALUE:
		if (value != NULL)
			return true;
		report_problem(ps, "cmdline: '%s' needs a value (%s=...); ignored", key, key);
		return false;
	case CMDLINE_FLAG_OR_VALUE:
		return true;
	default:
		report_problem(ps, "cmdline: parameter '%s' has an invalid kind %d in the table",
			       key, (int)param->kind);
		return false;
	}
}

static void apply_param(struct cmdline_parser *ps, const struct cmdline_param *param,
			const char *value)
{
	if (!kind_accepts(ps, param, value) || param->set == NULL)
		return;

	int err = param->set(value, param->arg);

	if (err == 0)
		return;
	if (value == NULL)
		report_problem(ps, "cmdline: '%s' rejected: %s", param->name, errno_name(err));
	else
		report_problem(ps, "cmdline: '%s=%.*s%s' rejected: %s", param->name,
			       CMDLINE_ECHO_MAX, value, cut_mark(value), errno_name(err));
}

static void apply_word(struct cmdline_parser *ps, struct cmdline_word *w)
{
	const char *value = NULL;

	if (w->unterminated) {
		report_problem(ps, "cmdline: unterminated quote in '%.*s%s'; ignored",
			       CMDLINE_ECHO_MAX, w->text, cut_mark(w->text));
		return;
	}
	if (w->overlong) {
		report_problem(ps, "cmdline: '%.*s...' is longer than %d bytes; ignored",
			       CMDLINE_ECHO_MAX, w->text, CMDLINE_WORD_MAX);
		return;
	}
	if (w->equals != NO_EQUALS) {
		w->text[w->equals] = '\0';
		value = &w->text[w->equals + 1];
	}
	if (w->text[0] == '\0' && value != NULL) {
		report_problem(ps, "cmdline: '=%.*s%s' has no parameter name; ignored",
			       CMDLINE_ECHO_MAX, value, cut_mark(value));
		return;
	}
	if (w->text[0] == '\0') {
		report_problem(ps, "cmdline: empty quoted word; ignored");
		return;
	}

	const struct cmdline_param *param = find_param(ps, w->text);

	if (param == NULL) {
		report_problem(ps, "cmdline: unknown parameter '%.*s%s'; ignored",
			       CMDLINE_ECHO_MAX, w->text, cut_mark(w->text));
		return;
	}
	apply_param(ps, param, value);
}

int cmdline_parse(const char *cmdline, const struct cmdline_param *table, size_t n,
		  cmdline_report_fn report, void *ctx)
{
	struct cmdline_parser ps = {
		.table = table, .n = table ? n : 0, .report = report, .ctx = ctx, .problems = 0,
	};
	struct cmdline_word word;

	if (cmdline == NULL)
		return 0;

	size_t len = strnlen(cmdline, CMDLINE_MAX + 1);

	if (len > CMDLINE_MAX) {
		report_problem(&ps, "cmdline: command line is longer than %d bytes; only the first %d are used",
			       CMDLINE_MAX, CMDLINE_MAX);
		len = CMDLINE_MAX;
	}

	const char *p = cmdline;
	const char *end = cmdline + len;

	/* Each pass consumes at least one byte, so this ends within len passes. */
	while (p < end) {
		if (is_blank(*p)) {
			p++;
			continue;
		}
		p = scan_word(p, end, &word);
		apply_word(&ps, &word);
	}
	return ps.problems;
}

const char *cmdline_skip_image(const char *cmdline)
{
	const char *p = cmdline;
	const char *word;
	bool has_slash = false, has_equals = false;
	size_t i;

	if (cmdline == NULL)
		return NULL;
	for (i = 0; i < CMDLINE_MAX && is_blank(*p); i++)
		p++;
	word = p;
	for (; i < CMDLINE_MAX && *p != '\0' && !is_blank(*p); i++, p++) {
		has_slash |= *p == '/';
		has_equals |= *p == '=';
	}
	if (!has_slash || has_equals)
		return word;
	for (; i < CMDLINE_MAX && is_blank(*p); i++)
		p++;
	return p;
}

/* RETURNS the value of digit @c in @base, or -1 if it is not one. */
static int digit_value(char c, unsigned base)
{
	unsigned v;

	if (c >= '0' && c <= '9')
		v = (unsigned)(c - '0');
	else if (c >= 'a' && c <= 'f')
		v = (unsigned)(c - 'a') + HEX_LETTER_VALUE;
	else if (c >= 'A' && c <= 'F')
		v = (unsigned)(c - 'A') + HEX_LETTER_VALUE;
	else
		return -1;
	return v < base ? (int)v : -1;
}

int cmdline_parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	const unsigned long limit = ~0UL;
	unsigned long value = 0;
	unsigned base = DECIMAL_BASE;
	bool overflow = false;
	size_t i;

	if (s == NULL || out == NULL || min > max)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = HEX_BASE;
		s += 2;
	}
	if (s[0] == '\0')
		return -EINVAL;
	/* Scan to the end even after an overflow: junk makes it -EINVAL. */
	for (i = 0; s[i] != '\0'; i++) {
		int digit = digit_value(s[i], base);

		if (digit < 0 || i >= CMDLINE_MAX)
			return -EINVAL;
		if (value > (limit - (unsigned)digit) / base)
			overflow = true;
		else
			value = value * base + (unsigned)digit;
	}
	if (overflow || value < min || value > max)
		return -ERANGE;
	*out = value;
	return 0;
}

bool cmdline_list_next(const char **cursor, const char **item, size_t *len)
{
	const char *p;
	size_t i;

	if (cursor == NULL || *cursor == NULL || item == NULL || len == NULL || **cursor == '\0')
		return false;
	p = *cursor;
	for (i = 0; i < CMDLINE_MAX && p[i] != '\0' && p[i] != ','; i++)
		;
	*item = p;
	*len = i;
	*cursor = p[i] == ',' ? p + i + 1 : p + i;
	return true;
}
