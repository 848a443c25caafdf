/* The serial shell (kernel/shell.c). */
#ifndef KERNEL_SHELL_H
#define KERNEL_SHELL_H

#define SHELL_MAX_ARGS 8        /* words per command line */

struct shell_command {
	const char *name;
	const char *usage;          /* "irqs" / "crash de|ud|gp|pf|bp" */
	const char *help;           /* one line */
	int (*run)(int argc, char **argv);   /* 0 or a negative errno */
};

/* shell_run - read commands from the console forever. CONTEXT: boot thread, interrupts on. */
__attribute__((noreturn)) void shell_run(void);
/* shell_execute - run one command line (also used by tests and boot scripts). */
int shell_execute(char *line);

#endif
