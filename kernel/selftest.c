/*
 * selftest.c - runs the SELFTEST() cases the linker collected in the
 * `.selftests` section and prints KTAP version 1: a plan line "1..N", then
 * "ok N suite.case" or "not ok N suite.case" with "# " diagnostics before
 * it, "# SKIP reason" for skipped cases, and a closing "# totals" line.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <kernel/selftest.h>
#include <kernel/printk.h>
#include <kernel/format.h>
#include <kernel/string.h>
#include <kernel/cmdline.h>

extern const struct selftest __selftests_start[], __selftests_end[];

void selftest_fail(struct selftest_ctx *t, const char *file, int line, const char *cond,
		   const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	t->failures++;
	pr_info("    # %s:%d: expected %s: %s\n", file, line, cond, msg);
}

void selftest_skip(struct selftest_ctx *t, const char *reason)
{
	t->skipped = true;
	t->skip_reason = reason;
}

static bool suite_selected(const char *spec, const char *suite)
{
	const char *cursor = spec, *item;
	size_t len;

	if (strcmp(spec, "all") == 0)
		return true;
	while (cmdline_list_next(&cursor, &item, &len))
		if (len == strlen(suite) && strncmp(item, suite, len) == 0)
			return true;
	return false;
}

int selftest_run(const char *spec)
{
	const struct selftest *st;
	unsigned int planned = 0, n = 0, failed = 0, skipped = 0;

	if (strcmp(spec, "list") == 0) {
		for (st = __selftests_start; st < __selftests_end; st++)
			pr_info("selftest: %s.%s\n", st->suite, st->name);
		return 0;
	}
	for (st = __selftests_start; st < __selftests_end; st++)
		if (suite_selected(spec, st->suite))
			planned++;
	pr_info("KTAP version 1\n");
	pr_info("1..%u\n", planned);
	for (st = __selftests_start; st < __selftests_end; st++) {
		struct selftest_ctx t = { .suite = st->suite, .name = st->name };

		if (!suite_selected(spec, st->suite))
			continue;
		n++;
		st->fn(&t);
		if (t.skipped) {
			skipped++;
			pr_info("ok %u %s.%s # SKIP %s\n", n, st->suite, st->name, t.skip_reason);
		} else if (t.failures) {
			failed++;
			pr_info("not ok %u %s.%s\n", n, st->suite, st->name);
		} else {
			pr_info("ok %u %s.%s\n", n, st->suite, st->name);
		}
	}
	pr_info("# totals: pass:%u fail:%u skip:%u\n", n - failed - skipped, failed, skipped);
	if (planned == 0)
		pr_warn("selftest: '%s' selects no cases (try selftest=list)\n", spec);
	return (int)failed;
}
