/*
 * errno.c - symbolic names for the kernel's error codes, so that log lines
 * say "EINVAL" instead of "-22". The codes are the ones listed in
 * include/kernel/errno.h (POSIX/Linux numbering); keep the two in step.
 */
#include <kernel/errno.h>

#include <stddef.h>

struct errno_entry {
	int code;          /* positive error code */
	const char *name;  /* its symbol, as spelled in errno.h */
};

/* Every code in errno.h, in the order it is declared there. */
static const struct errno_entry errno_table[] = {
	{ EPERM,     "EPERM" },
	{ ENOENT,    "ENOENT" },
	{ EIO,       "EIO" },
	{ ENXIO,     "ENXIO" },
	{ E2BIG,     "E2BIG" },
	{ EAGAIN,    "EAGAIN" },
	{ ENOMEM,    "ENOMEM" },
	{ EFAULT,    "EFAULT" },
	{ EBUSY,     "EBUSY" },
	{ EEXIST,    "EEXIST" },
	{ ENODEV,    "ENODEV" },
	{ EINVAL,    "EINVAL" },
	{ ENOSPC,    "ENOSPC" },
	{ EROFS,     "EROFS" },
	{ EPIPE,     "EPIPE" },
	{ ERANGE,    "ERANGE" },
	{ ENOSYS,    "ENOSYS" },
	{ ETIME,     "ETIME" },
	{ EPROTO,    "EPROTO" },
	{ EOVERFLOW, "EOVERFLOW" },
	{ EMSGSIZE,  "EMSGSIZE" },
	{ ENOMEDIUM, "ENOMEDIUM" },
	{ ETIMEDOUT, "ETIMEDOUT" },
	{ EINPROGRESS, "EINPROGRESS" },
};

/* Name returned for 0, which is success rather than an error. */
#define ERRNO_NAME_SUCCESS "OK"
/* Name returned for a code that is not in the table. */
#define ERRNO_NAME_UNKNOWN "EUNKNOWN"

/*
 * errno_name - short symbolic name of @err, which may be given positive
 * (EINVAL) or negated as functions return it (-EINVAL).
 * CONTEXT: any; no locks, no side effects.
 * RETURNS a static string: the symbol, "OK" for 0, "EUNKNOWN" otherwise.
 */
const char *errno_name(int err)
{
	size_t i;

	if (err == 0)
		return ERRNO_NAME_SUCCESS;
	/* Compare against both signs instead of negating: -INT_MIN overflows. */
	for (i = 0; i < sizeof(errno_table) / sizeof(errno_table[0]); i++) {
		if (err == errno_table[i].code || err == -errno_table[i].code)
			return errno_table[i].name;
	}
	return ERRNO_NAME_UNKNOWN;
}
