/*
 * irq_errno.h - the error numbers kernel/irq returns (negated: -IRQ_EINVAL).
 *
 * kernel/irq may include nothing of its host, so it cannot use the kernel's
 * <kernel/errno.h>; these values are the Linux/POSIX numbers, the same as
 * that header's, so a driver compares request_irq()'s result with -EBUSY
 * and it just works. tests/unit/test_irq_stats.c checks that they agree.
 *
 * Layer 0, the base: a public header; uses nothing (docs/irq-layers.md).
 */
#ifndef IRQ_ERRNO_H
#define IRQ_ERRNO_H

#define IRQ_ENOENT     2   /* no such action / index past the last one */
#define IRQ_EAGAIN    11   /* not now: the line is disabled */
#define IRQ_ENOMEM    12   /* the static action pool is exhausted */
#define IRQ_EBUSY     16   /* line in use in an incompatible way, or handler running */
#define IRQ_ENODEV    19   /* the line has no interrupt controller (irq_chip) */
#define IRQ_EINVAL    22   /* invalid argument */
#define IRQ_ENOSPC    28   /* the line already carries IRQ_MAX_SHARED actions */
#define IRQ_ETIMEDOUT 110  /* a wait took longer than allowed */
#define IRQ_EINPROGRESS 115 /* a poll left the work to the line's pending interrupt */

#endif /* IRQ_ERRNO_H */
