/*
 * params.c - the one table of boot parameters. Each row names the
 * parameter, whether it is a flag or takes a value, the function that
 * checks and stores the value, and the help line (also in the README).
 * Unknown parameters and bad values are reported at boot, never ignored
 * silently; the boot continues with the default.
 */
#include <asm/smp.h>
#include <stdint.h>
#include <kernel/params.h>
#include <kernel/cmdline.h>
#include <kernel/printk.h>
#include <kernel/panic.h>
#include <kernel/log.h>
#include <kernel/errno.h>
#include <kernel/string.h>
#include <kernel/fault.h>
#include <drivers/pci.h>
#include <drivers/pci_msi.h>
#include <drivers/input.h>
#include <asm/apic.h>
#include <asm/x86_time.h>
#include <irq/policy.h>
#include <irq/trace.h>
#include <firmware.h>
#include <asm/paging.h>

#define LOGLEVEL_MAX 8          /* loglevel=8 shows debug messages too */
#define DEBUGEXIT_DEFAULT_PORT 0xF4  /* our isa-debug-exit iobase in the Makefile and tests */

uint32_t param_hz = PARAM_HZ_DEFAULT;
char param_selftest[128];
char param_crash[16];

static int set_hz(const char *v, void *arg)
{
	unsigned long hz;
	int err = cmdline_parse_uint(v, PARAM_HZ_MIN, PARAM_HZ_MAX, &hz);

	(void)arg;
	if (err)
		return err;
	param_hz = (uint32_t)hz;
	return 0;
}

static int set_loglevel(const char *v, void *arg)
{
	unsigned long lv;
	int err = cmdline_parse_uint(v, 0, LOGLEVEL_MAX, &lv);

	(void)arg;
	if (err)
		return err;
	console_loglevel = (int)lv;
	return 0;
}

static int set_debugexit(const char *v, void *arg)
{
	unsigned long port = DEBUGEXIT_DEFAULT_PORT;

	(void)arg;
	if (v) {
		int err = cmdline_parse_uint(v, 1, 0xFFFF, &port);
		if (err)
			return err;
	}
	debugexit_port = (uint16_t)port;
	return 0;
}

static int set_string(const char *v, void *arg, char *dst, size_t cap)
{
	(void)arg;
	if (strlen(v) >= cap)
		return -E2BIG;
	strlcpy(dst, v, cap);
	return 0;
}

static int set_selftest(const char *v, void *arg)
{
	return set_string(v, arg, param_selftest, sizeof(param_selftest));
}

static int set_crash(const char *v, void *arg)
{
	return set_string(v, arg, param_crash, sizeof(param_crash));
}

static const struct cmdline_param table[] = {
	{ "hz", CMDLINE_VALUE, set_hz, NULL,
	  "hz=N: timer tick rate in Hz (19-10000, default 1000)" },
	{ "loglevel", CMDLINE_VALUE, set_loglevel, NULL,
	  "loglevel=N: console shows messages up to level N (0-8, default 6 = info; 8 adds debug)" },
	{ "debugexit", CMDLINE_FLAG_OR_VALUE, set_debugexit, NULL,
	  "debugexit[=PORT]: report halt/panic/selftest results to QEMU's isa-debug-exit at PORT (default 0xf4)" },
	{ "selftest", CMDLINE_VALUE, set_selftest, NULL,
	  "selftest=all|list|SUITE[,SUITE...]: run in-kernel selftests after boot, print KTAP" },
	{ "fault", CMDLINE_VALUE, fault_param, NULL,
	  "fault=NAME[:ARG][,NAME[:ARG]...]: inject these faults at the end of boot (`inject` lists them)" },
	{ "noapic", CMDLINE_FLAG, apic_param_noapic, NULL,
	  "noapic: do not use the IOAPIC; the 8259 PIC delivers device interrupts" },
	{ "nolapic_timer", CMDLINE_FLAG, apic_param_nolapic_timer, NULL,
	  "nolapic_timer: do not use the local APIC timer as the tick device" },
	{ "noirqdebug", CMDLINE_FLAG_OR_VALUE, irq_param_noirqdebug, NULL,
	  "noirqdebug: switch off all three interrupt defences (expecting, watching, flood polling)" },
	{ "irqfixup", CMDLINE_FLAG_OR_VALUE, irq_param_irqfixup, NULL,
	  "irqfixup: on an unhandled interrupt also try the handlers of every other line" },
	{ "irqpoll", CMDLINE_FLAG_OR_VALUE, irq_param_irqpoll, NULL,
	  "irqpoll: irqfixup, and also poll every shared line periodically through its poll timer" },
	{ "irqpolicy", CMDLINE_VALUE, irq_param_policy, NULL,
	  "irqpolicy=irqkit|tejun2010|mainline: tunables of the defences (default irqkit)" },
	{ "trace", CMDLINE_FLAG_OR_VALUE, irq_trace_param, NULL,
	  "trace[=FILTER]: record the interrupt core's event trace from boot (FILTER as `trace start`; docs/trace.md)" },
	{ "pci_route", CMDLINE_VALUE, pci_param_route, NULL,
	  "pci_route=auto|mptable|pir|line: PCI INTx routing source (default auto: MP table, $PIR, Interrupt Line)" },
	{ "pci", CMDLINE_VALUE, pci_param_pci, NULL,
	  "pci=nomsi: no message-signalled interrupts (MSI, MSI-X): every PCI driver gets its INTx pin" },
	{ "clocksource", CMDLINE_VALUE, x86_time_param_clocksource, NULL,
	  "clocksource=tsc|hpet|jiffies: read the time from this counter whatever the ratings (default: the best, the TSC)" },
	{ "clockevent", CMDLINE_VALUE, x86_time_param_clockevent, NULL,
	  "clockevent=lapic|hpet|pit: run the tick on this device whatever the ratings (default: the best, the LAPIC timer)" },
	{ "nosmp", CMDLINE_FLAG, smp_param_set_nosmp, NULL,
	  "nosmp: start no other CPU; irqkit runs on the boot CPU alone" },
	{ "maxcpus", CMDLINE_VALUE, smp_param_set_maxcpus, NULL,
	  "maxcpus=N: run at most N CPUs, the boot CPU included (1-8)" },
	{ "irqaffinity", CMDLINE_VALUE, irq_affinity_param, NULL,
	  "irqaffinity=CPU[,CPU...]: deliver device interrupts to (the first online of) these CPUs; the tick's line stays on CPU 0" },
	{ "i8042", CMDLINE_VALUE, i8042_param, NULL,
	  "i8042=off|force|nomouse: do not touch the 8042; probe it although the ACPI FADT says there is none; keyboard only" },
	{ "nopae", CMDLINE_FLAG, paging_param_nopae, NULL,
	  "nopae: 32-bit paging even on a CPU with PAE; device memory above 4 GiB is then unreachable" },
	{ "rsdp_from", CMDLINE_VALUE, acpi_param_rsdp_from, NULL,
	  "rsdp_from=auto|loader|efi|bios: where to take the ACPI RSDP from (default auto: the loader's copy, the EFI system table, the BIOS areas)" },
	{ "crash", CMDLINE_VALUE, set_crash, NULL,
	  "crash=de|ud|gp|pf|bp|nmi|stack: raise that CPU exception at the end of boot (stack: overflow the kernel stack into its guard page, a double fault)" },
};

const struct cmdline_param *params_table(unsigned int *count)
{
	*count = sizeof(table) / sizeof(table[0]);
	return table;
}

static void report(void *ctx, const char *msg)
{
	(void)ctx;
	pr_warn("cmdline: %s\n", msg);
}

int params_parse(const char *cmdline)
{
	const char *args = cmdline_skip_image(cmdline);

	pr_info("cmdline: %s\n", args[0] ? args : "(empty)");
	return cmdline_parse(args, table, sizeof(table) / sizeof(table[0]), report, NULL);
}
