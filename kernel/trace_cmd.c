/*
 * trace_cmd.c - the shell command `trace`: switch the event trace of
 * kernel/irq (kernel/irq/trace.h) on and off, print its state, and dump it
 * on the console in the text format of docs/trace.md, which
 * tools/trace/irqtrace.py turns into a timeline (JSON for Perfetto, an HTML
 * page, a summary).
 *
 *   trace start [FILTER]   FILTER: comma list of lines and classes
 *                          (irq, chip, poll, expect, state, drv); default all
 *   trace stop | dump | clear | status
 */
#include <stdint.h>
#include <irq/irq_errno.h>
#include <irq/trace.h>
#include <kernel/errno.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <kernel/trace_cmd.h>

static const char *const class_names[] = { "irq", "chip", "poll", "expect", "state", "drv" };

static void print_status(void)
{
	struct irq_trace_status st;
	unsigned int i;
	bool first = true;

	irq_trace_get_status(&st);
	cprintf("trace: %s, classes ", st.on ? "on" : "off");
	for (i = 0; i < sizeof(class_names) / sizeof(class_names[0]); i++) {
		if (!(st.classes & (1u << i)))
			continue;
		cprintf("%s%s", first ? "" : ",", class_names[i]);
		first = false;
	}
	cprintf(", %u lines; %llu events held, %llu dropped; %u CPUs with events; ring %u events per CPU (format v%u)\n",
		st.lines_selected, (unsigned long long)st.events, (unsigned long long)st.dropped, st.cpus_used,
		st.ring_entries, (unsigned int)IRQ_TRACE_FORMAT_VERSION);
}

/* One line of the dump; the console takes it whole (cprintf of one string). */
static void dump_line(void *ctx, const char *line)
{
	(void)ctx;
	cprintf("%s\n", line);
}

int trace_cmd(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "status";

	if (strcmp(sub, "start") == 0) {
		if (argc > 3) {
			cprintf("usage: trace start [FILTER]\n");
			return -EINVAL;
		}
		int err = irq_trace_start(argc > 2 ? argv[2] : "all");

		if (err == -IRQ_ENODEV) {
			cprintf("trace: compiled out of this kernel (IRQ_TRACE_BUILD 0, kernel/irq/irq_config.h)\n");
			return -ENODEV;
		}
		if (err) {
			cprintf("trace: bad filter \"%s\": a comma list of line numbers and irq,chip,poll,expect,state,drv\n",
				argv[2]);
			return -EINVAL;
		}
		print_status();
		return 0;
	}
	if (argc > 2) {
		cprintf("usage: trace start [FILTER] | stop | dump | clear | status\n");
		return -EINVAL;
	}
	if (strcmp(sub, "stop") == 0) {
		irq_trace_stop();
		print_status();
	} else if (strcmp(sub, "dump") == 0) {
		irq_trace_dump(dump_line, NULL);
	} else if (strcmp(sub, "clear") == 0) {
		irq_trace_clear();
		print_status();
	} else if (strcmp(sub, "status") == 0) {
		print_status();
	} else {
		cprintf("usage: trace start [FILTER] | stop | dump | clear | status\n");
		return -EINVAL;
	}
	return 0;
}
