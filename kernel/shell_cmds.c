/*
 * shell_cmds.c - the one table of shell commands and the small ones that
 * belong to no driver. The README lists the same commands.
 */
#include <asm/smp.h>
#include <stdint.h>
#include <asm/cpu.h>
#include <asm/io.h>
#include <asm/i8259.h>
#include <asm/x86_irq.h>
#include <asm/tsc.h>
#include <irq/interrupt.h>
#include <irq/stats.h>
#include <kernel/console.h>
#include <time/time.h>
#include <kernel/shell_cmds.h>
#include <kernel/printk.h>
#include <kernel/log.h>
#include <kernel/panic.h>
#include <kernel/params.h>
#include <kernel/selftest.h>
#include <kernel/string.h>
#include <kernel/errno.h>
#include <kernel/heap.h>
#include <kernel/crash.h>
#include <kernel/fault.h>
#include <kernel/cmdline.h>
#include <kernel/cpuload.h>
#include <kernel/cpu_work.h>
#include <drivers/serial.h>
#include <drivers/pci.h>
#include <drivers/ata.h>
#include <drivers/nvme.h>
#include <drivers/usb.h>
#include <drivers/input.h>
#include <kernel/blk.h>
#include <kernel/trace_cmd.h>
#include <asm/apic.h>

#define KBC_STATUS      0x64   /* 8042 keyboard controller status/command */
#define KBC_IBF         0x02   /* input buffer full: controller busy */
#define KBC_PULSE_RESET 0xFE   /* pulse the CPU reset line */
#define KBC_WAIT_SPINS  100000
#define NS_PER_MS       1000000ull
#define DMESG_CHUNK     128

static int cmd_help(int argc, char **argv);

static int cmd_uptime(int argc, char **argv)
{
	uint64_t ns = ktime_get_ns();

	(void)argc; (void)argv;
	cprintf("up %u.%03u s, %llu ticks at %u Hz, TSC %llu kHz\n",
		(unsigned int)(ns / 1000000000ull), (unsigned int)((ns / NS_PER_MS) % 1000),
		(unsigned long long)jiffies_read(), tick_hz(), (unsigned long long)(tsc_hz() / 1000));
	return 0;
}

/* One row of the table; "polled" counts polls that found work (the health section has the rest). */
static void print_line(const struct irq_line_stats *s)
{
	char state[64];
	struct irq_action_stats a;
	struct irq_line_health h;
	uint64_t found = irq_get_line_health(s->irq, &h) == 0 ? h.poll_found : s->polled;

	cprintf("%3u %10llu %10llu %9llu %8llu %8llu  %-8s %-5s %-7s %-10s ", s->irq,
		(unsigned long long)s->delivered, (unsigned long long)s->handled,
		(unsigned long long)s->unhandled, (unsigned long long)s->spurious,
		(unsigned long long)found, s->chip_name ? s->chip_name : "-",
		s->trigger ? s->trigger : "-", s->flow ? s->flow : "-",
		irq_status_string(s->status, state, sizeof(state)));
	for (unsigned int i = 0; irq_get_action_stats(s->irq, i, &a) == 0; i++)
		cprintf("%s%s(%llu)", i ? ", " : "", a.name, (unsigned long long)a.handled);
	cprintf("\n");
}

/* The defences' view: every line or action running on polling, with why and since when. */
static void print_health(void)
{
	struct irq_line_stats s;
	struct irq_line_health h;
	struct irq_action_health a;
	char why[64], diag[160];
	uint64_t now = ktime_get_ns();
	unsigned int unhealthy = 0;

	cprintf("IRQ health:\n");
	for (unsigned int irq = 0; irq_get_line_stats(irq, &s) == 0; irq++) {
		if (!s.nr_actions || irq_get_line_health(irq, &h) != 0)
			continue;
		if (h.causes) {
			unhealthy++;
			cprintf("  line %u: ON POLLING (%s) for %llu ms, %llu completions by polling%s",
				irq, irq_health_cause_string(h.causes, why, sizeof(why)),
				(unsigned long long)((now - h.since_ns) / NS_PER_MS),
				(unsigned long long)h.polled_completions,
				!h.flood_off ? "" : (h.causes & IRQ_HEALTH_CLAIMED_STORM) ? ", throttled (claimed storm)"
											   : ", disabled for flooding");
			if (h.flood_off && h.reenable_at_ns != UINT64_MAX)
				cprintf(", re-enable test in %llu ms",
					(unsigned long long)((h.reenable_at_ns > now ? h.reenable_at_ns - now : 0) / NS_PER_MS));
			cprintf(" (floods since boot: %u, failed re-enable tests: %u)\n", h.floods,
				h.failed_tests_total);
			if (irq_get_line_diagnosis(irq, diag, sizeof(diag)) == 1)
				cprintf("  line %u: its controller says: %s\n", irq, diag);
		}
		if (h.poll_runs || h.poll_deferred)
			cprintf("  line %u: polls %llu: %llu found work (%llu beat a pending interrupt), %llu found nothing; %llu more left the work to a pending interrupt\n", irq,
				(unsigned long long)h.poll_runs, (unsigned long long)h.poll_found,
				(unsigned long long)h.poll_beat, (unsigned long long)(h.poll_runs - h.poll_found),
				(unsigned long long)h.poll_deferred);
		if (h.tick_looks)
			cprintf("  line %u: the tick looked at its verified expects %llu times, %llu found one past its safety delay; poll-timer expiries %llu, %llu of them polled nothing\n",
				irq, (unsigned long long)h.tick_looks, (unsigned long long)h.tick_polls,
				(unsigned long long)(h.polls + h.poll_skips), (unsigned long long)h.poll_skips);
		if (h.tick_stall_waits || h.stalled)
			cprintf("  line %u: its CPU %u was found not running: %llu safety polls waited for it, %llu completions late while it did not run (not judged)\n",
				irq, h.cpu, (unsigned long long)h.tick_stall_waits, (unsigned long long)h.stalled);
		if (h.poll_busy || h.poll_raced)
			cprintf("  line %u: poll against interrupt: %llu polls found the handlers running, %llu interrupts came during a poll and were replayed\n",
				irq, (unsigned long long)h.poll_busy, (unsigned long long)h.poll_raced);
		if (h.fixup_claims)
			cprintf("  line %u: %sirqfixup claims since boot %llu, the latest %llu ms ago\n", irq,
				h.causes & IRQ_HEALTH_MISROUTED ? "" : "misrouted no more: ",
				(unsigned long long)h.fixup_claims, (unsigned long long)((now - h.fixup_last_ns) / NS_PER_MS));
		for (unsigned int i = 0; irq_get_action_health(irq, i, &a) == 0; i++) {
			if (!a.causes && !a.tokens && strcmp(a.watch, "off") == 0 && !a.watch_late && !a.watch_polled)
				continue;
			cprintf("  line %u %s: %s%s%swatch %s (finds by its polls: %llu late, %llu polled, %u awaiting, %llu beat a pending interrupt), expect tokens %u (%u verified), completions %llu by irq / %llu by polling (%llu late, %llu unsure, %llu beat a pending interrupt) / %llu timed out / %llu late while the CPU did not run\n",
				irq, a.name, a.causes ? "ON POLLING: " : "",
				a.causes ? irq_health_cause_string(a.causes, why, sizeof(why)) : "", a.causes ? ", " : "",
				a.watch, (unsigned long long)a.watch_late, (unsigned long long)a.watch_polled,
				(unsigned int)a.watch_pending, (unsigned long long)a.watch_beat, a.tokens, a.tokens_verified,
				(unsigned long long)a.completions_irq, (unsigned long long)a.completions_polled,
				(unsigned long long)a.completions_late, (unsigned long long)a.completions_unsure,
				(unsigned long long)a.completions_beat,
				(unsigned long long)a.timeouts,
				(unsigned long long)(a.completions_stalled + a.watch_stalled));
		}
	}
	if (!unhealthy)
		cprintf("  every line with handlers delivers by interrupt\n");
}

static int cmd_irqs(int argc, char **argv)
{
	struct irq_line_stats s;
	struct i8259_stats pic;

	(void)argc; (void)argv;
	cprintf("IRQ  delivered    handled unhandled spurious   polled  chip     trig  flow    state      actions\n");
	for (unsigned int irq = 0; irq_get_line_stats(irq, &s) == 0; irq++)
		if (s.nr_actions || s.delivered || s.spurious || s.unhandled)
			print_line(&s);
	print_health();
	smp_print_irq_columns();
	i8259_get_stats(&pic);
	cprintf("PIC: spurious IRQ7 %u, spurious IRQ15 %u, EOIs %u master / %u slave, mask %04x\n",
		pic.spurious7, pic.spurious15, pic.eoi_master, pic.eoi_slave, pic.imr);
	cprintf("vectors nobody owns: %u\n", x86_unexpected_vectors());
	return 0;
}

/*
 * timecheck [MS] - count timer ticks over MS milliseconds of TSC time
 * (default 1000), busy-waiting with interrupts on. Prints the figures; the
 * QEMU tests judge them against the configured rate.
 */
static int cmd_timecheck(int argc, char **argv)
{
	unsigned long ms = 1000;
	uint64_t t0, j0, j1, elapsed_ns, goal;

	if (argc > 2 || (argc == 2 && cmdline_parse_uint(argv[1], 10, 60000, &ms)))
		return -EINVAL;
	if (!tsc_hz()) {
		cprintf("timecheck: the TSC is not calibrated\n");
		return -ENODEV;
	}
	goal = (uint64_t)ms * NS_PER_MS;
	j0 = jiffies_read();
	t0 = rdtsc();
	do {
		cpu_relax();
		elapsed_ns = tsc_cycles_to_ns(rdtsc() - t0);
	} while (elapsed_ns < goal);
	j1 = jiffies_read();
	cprintf("timecheck: %llu ticks in %llu us of TSC time (hz=%u, TSC %llu kHz)\n",
		(unsigned long long)(j1 - j0), (unsigned long long)(elapsed_ns / 1000),
		tick_hz(), (unsigned long long)(tsc_hz() / 1000));
	return 0;
}

static int cmd_dmesg(int argc, char **argv)
{
	char buf[DMESG_CHUNK];
	uint32_t pos = 0;
	size_t n;

	(void)argc; (void)argv;
	/* Through cprintf: the log's lines reach the console whole, whatever the chunk cut. */
	while ((n = log_read(&pos, buf, sizeof(buf))) > 0)
		cprintf("%.*s", (int)n, buf);
	return 0;
}

static int cmd_mem(int argc, char **argv)
{
	struct heap_stats st;

	(void)argc; (void)argv;
	kmalloc_get_stats(&st);
	cprintf("heap: %u KiB total, %u KiB used, %u KiB free (largest block %u KiB), %u allocations, %u frees, %u failures\n",
		(unsigned int)(st.total / 1024), (unsigned int)(st.used / 1024),
		(unsigned int)(st.free / 1024), (unsigned int)(st.largest_free / 1024),
		(unsigned int)st.allocs, (unsigned int)st.frees, (unsigned int)st.failures);
	return 0;
}

static int cmd_reboot(int argc, char **argv)
{
	(void)argc; (void)argv;
	pr_info("reboot: resetting through the keyboard controller\n");
	console_flush();
	cpu_cli();
	for (int i = 0; i < KBC_WAIT_SPINS && (inb(KBC_STATUS) & KBC_IBF); i++)
		;
	outb(KBC_STATUS, KBC_PULSE_RESET);
	/* Still here: force a triple fault with an empty IDT. */
	crash_triple_fault();
}

static int cmd_halt(int argc, char **argv)
{
	(void)argc; (void)argv;
	pr_info("halt: system halted\n");
	kernel_exit(KEXIT_HALT);
}

static void crash_on_this_cpu(void *name)
{
	crash_raise(name);
}

/* crash NAME [CPU]: on another CPU through the call-function IPI (the
 * exception is then taken in that CPU's IPI handler, on its own stack). */
static int cmd_crash(int argc, char **argv)
{
	static char name[16];
	unsigned long cpu;

	if (argc == 3) {
		if (cmdline_parse_uint(argv[2], 0, SMP_MAX_CPUS - 1, &cpu) || strlen(argv[1]) >= sizeof(name))
			return -EINVAL;
		memcpy(name, argv[1], strlen(argv[1]) + 1);
		return smp_call_function_single((unsigned int)cpu, crash_on_this_cpu, name, 0);
	}
	if (argc != 2)
		return -EINVAL;
	return crash_raise(argv[1]);
}

static int cmd_selftest(int argc, char **argv)
{
	if (argc != 2)
		return -EINVAL;
	selftest_run(argv[1]);
	return 0;
}

static int cmd_apic(int argc, char **argv)
{
	(void)argc; (void)argv;
	return apic_print_routes();
}

static int cmd_cpus(int argc, char **argv)
{
	(void)argc; (void)argv;
	return smp_print_cpus();
}

static const struct shell_command commands[] = {
	{ "help", "help", "list the commands", cmd_help },
	{ "uptime", "uptime", "time since boot, timer ticks and their rate", cmd_uptime },
	{ "irqs", "irqs", "per-line interrupt counts, chip, trigger, state and handlers", cmd_irqs },
	{ "timecheck", "timecheck [MS]", "count timer ticks over MS ms of TSC time", cmd_timecheck },
	{ "cpuload", "cpuload [MS]", "share of the CPU interrupts take (busy loop, interrupts on vs off)", cpuload_cmd },
	{ "dmesg", "dmesg", "print the kernel log kept in memory", cmd_dmesg },
	{ "mem", "mem", "kernel heap usage", cmd_mem },
	{ "selftest", "selftest all|list|SUITE[,SUITE]", "run in-kernel selftests (KTAP output)", cmd_selftest },
	{ "lspci", "lspci [-v]", "PCI functions, BARs, capabilities, IRQ routes", pci_cmd_lspci },
	{ "routes", "routes", "PCI INTx routing table and PIRQ router registers", pci_cmd_routes },
	{ "apic", "apic", "interrupt mode, local APIC and IOAPIC redirection entries", cmd_apic },
	{ "affinity", "affinity [IRQ CPU[,CPU...] [every MS]]", "which CPUs take a line; move it (every MS ms round the CPUs)", irq_affinity_cmd },
	{ "oncpu", "oncpu [CPU CMD ARGS | start CPU CMD ARGS | wait CPU [MS]]", "run a shell command on CPU CPU with interrupts on (start: do not wait; wait: collect); its output is printed here", oncpu_cmd },
	{ "cpus", "cpus", "CPUs: APIC ID, online, timer ticks, interrupts taken, IPIs, idle share", cmd_cpus },
	{ "ata", "ata [identify|read|crc|write-pattern|verify-pattern|flush|bench|reset|raw|set] [DEV] ...",
	  "PIO ATA/ATAPI devices: state, data, tests", ata_cmd },
	{ "lsusb", "lsusb [-r N | -g ADDR TYPE INDEX LEN | -p ADDR N]", "USB controllers (irq watch state), ports, devices; -r/-g: read descriptors; -p: interrupt pipe", usb_cmd_lsusb },
	{ "i8042", "i8042", "the PS/2 controller: ports, lines, irq watch state, bytes, decoder and command counters", i8042_cmd },
	{ "mouse", "mouse", "the PS/2 mouse: kind, packets, position summed from them, wheel, buttons, resynchronisation counters", mouse_cmd },
	{ "blk", "blk [crc|write-pattern|verify-pattern|read|flush] DEV ...", "block devices by name", blk_cmd },
	{ "nvme", "nvme [raw-read DEV LBA COUNT | clear-stats]", "NVMe controllers, queues, interrupt mode, lost completions; raw-read: an unchecked READ", nvme_cmd },
	{ "inject", "inject [NAME[:ARG] | off NAME]", "list, inject or clear faults", fault_cmd_inject },
	{ "trace", "trace start [FILTER] | stop | dump | clear | status", "the interrupt core's event trace (docs/trace.md)", trace_cmd },
	{ "crash", "crash de|ud|gp|pf|bp|nmi|stack [CPU]", "raise a CPU exception (stack: a kernel stack overflow, a double fault) to see how it is reported; on CPU N if given", cmd_crash },
	{ "reboot", "reboot", "reset the machine", cmd_reboot },
	{ "halt", "halt", "stop the machine (QEMU exits when debugexit is set)", cmd_halt },
};

const struct shell_command *shell_commands(unsigned int *count)
{
	*count = sizeof(commands) / sizeof(commands[0]);
	return commands;
}

static int cmd_help(int argc, char **argv)
{
	(void)argc; (void)argv;
	for (unsigned int i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		cprintf("  %-34s %s\n", commands[i].usage, commands[i].help);
	return 0;
}
