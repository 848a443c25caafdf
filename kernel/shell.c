/*
 * shell.c - a line-oriented command shell on the console, so a person who
 * ran `make run` can look at the system: `help` lists the commands. Input
 * comes from the console ring (serial interrupt, later the USB keyboard);
 * between keystrokes the CPU halts until the next interrupt.
 */
#include <asm/smp.h>
#include <stdint.h>
#include <stdbool.h>
#include <asm/cpu.h>
#include <kernel/shell.h>
#include <kernel/console.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <kernel/errno.h>
#include <kernel/shell_cmds.h>
#include <kernel/work.h>

#define SHELL_LINE_MAX 160      /* characters per command line */
#define SHELL_PROMPT   "irqkit> "
#define CH_BACKSPACE   0x08
#define CH_DELETE      0x7F
#define CH_CTRL_U      0x15     /* erase the whole line */
#define CH_CTRL_C      0x03     /* abandon the line */

static int split(char *line, char **argv)
{
	int argc = 0;

	while (*line && argc < SHELL_MAX_ARGS) {
		while (*line == ' ' || *line == '\t')
			*line++ = 0;
		if (!*line)
			break;
		argv[argc++] = line;
		while (*line && *line != ' ' && *line != '\t')
			line++;
	}
	return argc;
}

int shell_execute(char *line)
{
	char *argv[SHELL_MAX_ARGS + 1];
	int argc = split(line, argv);
	unsigned int n;
	const struct shell_command *cmds = shell_commands(&n);

	if (argc == 0)
		return 0;
	argv[argc] = NULL;
	for (unsigned int i = 0; i < n; i++) {
		if (strcmp(argv[0], cmds[i].name) == 0) {
			int err = cmds[i].run(argc, argv);
			if (err == -EINVAL)
				cprintf("usage: %s\n", cmds[i].usage);
			else if (err)
				cprintf("%s: failed: %s\n", argv[0], errno_name(err));
			return err;
		}
	}
	cprintf("%s: unknown command; `help` lists the commands\n", argv[0]);
	return -ENOENT;
}

/* read_line - collect one line with simple editing. RETURNS its length. */
static size_t read_line(char *buf, size_t cap)
{
	size_t len = 0;

	for (;;) {
		uint8_t c;

		work_run();          /* deferred work (USB hot-plug...) runs while we wait */
		cpu_cli();
		if (!console_getc(&c)) {
			if (work_pending_any()) {
				cpu_sti();   /* queued by an interrupt since: run it first */
				continue;
			}
			printk_input_refresh();   /* a message hid the line: show it again */
			smp_idle_halt();   /* sti; hlt atomically, counted as this CPU's idle time */
			cpu_sti();
			continue;
		}
		cpu_sti();
		if (c == '\r' || c == '\n') {
			printk_input_end("\n", 1);
			buf[len] = 0;
			return len;
		} else if (c == CH_BACKSPACE || c == CH_DELETE) {
			if (len) {
				len--;
				printk_input_echo("\b \b", 3, len);
			}
		} else if (c == CH_CTRL_U || c == CH_CTRL_C) {
			while (len) {
				len--;
				printk_input_echo("\b \b", 3, len);
			}
			if (c == CH_CTRL_C) {
				printk_input_end("^C\n", 3);
				buf[0] = 0;
				return 0;
			}
		} else if (c >= ' ' && c < CH_DELETE && len + 1 < cap) {
			buf[len++] = (char)c;
			printk_input_echo((const char *)&c, 1, len);
		}
	}
}

void shell_run(void)
{
	char line[SHELL_LINE_MAX];

	pr_info("shell: ready; type `help` for the commands\n");
	for (;;) {
		printk_input_begin(SHELL_PROMPT, line);
		if (read_line(line, sizeof(line)))
			shell_execute(line);
	}
}
