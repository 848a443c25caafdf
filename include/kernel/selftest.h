/*
 * In-kernel selftests, printed in KTAP (the format of Linux's KUnit):
 *
 *   SELFTEST(pic, spurious_irq7_gets_no_eoi)
 *   {
 *       ...
 *       ST_EXPECT(t, stats.spurious7 == before + 1, "spurious7 %u", stats.spurious7);
 *   }
 *
 * Cases live beside the code they test and are collected through the
 * `.selftests` linker section; `selftest=all` (or a list of suites) runs
 * them after boot, `selftest=list` prints their names. The QEMU harness
 * (tests/qemu) turns each KTAP line into a pytest result.
 */
#ifndef KERNEL_SELFTEST_H
#define KERNEL_SELFTEST_H

#include <stdbool.h>

struct selftest_ctx {
	const char *suite, *name;
	unsigned int failures;
	bool skipped;
	const char *skip_reason;
};

struct selftest {
	const char *suite;
	const char *name;
	void (*fn)(struct selftest_ctx *t);
};

#define SELFTEST(suite_, name_)                                                       \
	static void selftest_##suite_##_##name_(struct selftest_ctx *t);                  \
	static const struct selftest selftest_desc_##suite_##_##name_                     \
		__attribute__((used, section(".selftests"), aligned(4))) = {               \
		#suite_, #name_, selftest_##suite_##_##name_ };                               \
	static void selftest_##suite_##_##name_(struct selftest_ctx *t)

/* ST_EXPECT - record a failure (with file:line and a message) when @cond is false. */
#define ST_EXPECT(t, cond, ...)                                                       \
	do {                                                                          \
		if (!(cond))                                                          \
			selftest_fail((t), __FILE__, __LINE__, #cond, __VA_ARGS__);   \
	} while (0)

void selftest_fail(struct selftest_ctx *t, const char *file, int line, const char *cond,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void selftest_skip(struct selftest_ctx *t, const char *reason);

/* selftest_run - run the cases @spec selects ("all", "list", "suite,suite"). RETURNS failures. */
int selftest_run(const char *spec);

#endif
