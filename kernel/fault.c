/*
 * fault.c - the registry of injectable faults (FAULT() in
 * include/kernel/fault.h, collected in the `.faults` linker section), the
 * `fault=` boot parameter and the `inject` shell command.
 */
#include <stdbool.h>
#include <stddef.h>
#include <kernel/fault.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <kernel/errno.h>
#include <kernel/cmdline.h>

#define FAULT_MAX        32     /* faults that can be active at once (bounded by the section) */
#define FAULT_SPEC_MAX   64     /* bytes of one NAME:ARG item */
#define FAULT_PARAM_MAX  256    /* bytes of the fault= value kept until the end of boot */

extern const struct fault __faults_start[], __faults_end[];

static bool active[FAULT_MAX];
static char boot_spec[FAULT_PARAM_MAX];

static int fault_index(const char *name, size_t len)
{
	int i = 0;

	for (const struct fault *f = __faults_start; f < __faults_end && i < FAULT_MAX; f++, i++)
		if (strlen(f->name) == len && strncmp(f->name, name, len) == 0)
			return i;
	return -ENOENT;
}

int fault_inject(const char *spec)
{
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	int i = fault_index(spec, len), err;
	const struct fault *f;

	if (i < 0) {
		pr_warn("fault: no fault named '%.*s' (`inject` lists them)\n", (int)len, spec);
		return i;
	}
	f = &__faults_start[i];
	if (colon && !f->arg_help) {
		pr_warn("fault: %s takes no argument\n", f->name);
		return -EINVAL;
	}
	err = f->on(colon ? colon + 1 : NULL);
	if (err) {
		pr_warn("fault: %s%s%s refused: %s\n", f->name, colon ? ":" : "", colon ? colon + 1 : "",
			errno_name(err));
		return err;
	}
	active[i] = true;
	pr_warn("fault: INJECTED %s%s%s: %s\n", f->name, colon ? ":" : "", colon ? colon + 1 : "", f->help);
	return 0;
}

int fault_clear(const char *name)
{
	int i = fault_index(name, strlen(name)), err;

	if (i < 0) {
		pr_warn("fault: no fault named '%s'\n", name);
		return i;
	}
	err = __faults_start[i].off();
	if (err) {
		pr_warn("fault: switching %s off failed: %s\n", name, errno_name(err));
		return err;
	}
	active[i] = false;
	pr_warn("fault: %s switched off\n", name);
	return 0;
}

bool fault_active(const char *name)
{
	int i = fault_index(name, strlen(name));

	return i >= 0 && active[i];
}

int fault_param(const char *value, void *arg)
{
	(void)arg;
	if (strlen(value) >= sizeof(boot_spec))
		return -E2BIG;
	strlcpy(boot_spec, value, sizeof(boot_spec));
	return 0;
}

void fault_apply_boot(void)
{
	const char *cursor = boot_spec, *item;
	size_t len;
	char one[FAULT_SPEC_MAX];

	while (cmdline_list_next(&cursor, &item, &len)) {
		if (len == 0)
			continue;
		if (len >= sizeof(one)) {
			pr_warn("fault: '%.*s' is too long; ignored\n", (int)len, item);
			continue;
		}
		memcpy(one, item, len);
		one[len] = 0;
		fault_inject(one);
	}
}

int fault_cmd_inject(int argc, char **argv)
{
	int i = 0;

	if (argc == 1) {
		for (const struct fault *f = __faults_start; f < __faults_end && i < FAULT_MAX; f++, i++)
			cprintf("  %-3s %s%s%-10s %s\n", active[i] ? "ON" : "off", f->name,
				f->arg_help ? ":" : "", f->arg_help ? f->arg_help : "", f->help);
		if (i == 0)
			cprintf("no faults are built into this kernel\n");
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "off") == 0)
		return fault_clear(argv[2]) == -ENOENT ? -ENOENT : 0;
	if (argc == 2)
		return fault_inject(argv[1]) == -ENOENT ? -ENOENT : 0;
	return -EINVAL;
}
