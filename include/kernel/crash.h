/* Deliberate CPU exceptions for tests and teaching (arch/x86/crash.c). */
#ifndef KERNEL_CRASH_H
#define KERNEL_CRASH_H

#define CRASH_PF_ADDRESS 0x00000abcu   /* crash pf reads here: inside the unmapped page 0 */

/* crash_raise - raise the exception named de|ud|gp|pf|bp|nmi, or overflow the kernel stack (stack: a #DF). RETURNS 0 after a resumable one, -EINVAL for a bad name. */
int crash_raise(const char *name);
__attribute__((noreturn)) void crash_triple_fault(void);

#endif
