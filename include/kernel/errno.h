/*
 * Error codes shared by the whole kernel. Functions return 0 on success and
 * the negated code on failure (return -EINVAL), in the manner of POSIX errno
 * values; the numbers match Linux/POSIX so that ported code reads the same.
 */
#ifndef KERNEL_ERRNO_H
#define KERNEL_ERRNO_H

#define EPERM      1   /* operation not permitted */
#define ENOENT     2   /* no such entry */
#define EIO        5   /* input/output error from a device */
#define ENXIO      6   /* no such device or address */
#define E2BIG      7   /* argument list too long */
#define EAGAIN    11   /* try again */
#define ENOMEM    12   /* out of memory */
#define EFAULT    14   /* bad address */
#define EBUSY     16   /* device or resource busy */
#define EEXIST    17   /* already exists */
#define ENODEV    19   /* no such device */
#define EINVAL    22   /* invalid argument */
#define ENOSPC    28   /* no space left */
#define EROFS     30   /* read-only medium */
#define EPIPE     32   /* broken pipe: a USB endpoint stalled */
#define ERANGE    34   /* value out of range */
#define ENOSYS    38   /* function not implemented by this device */
#define ETIME     62   /* timer expired: a deadline was already past when set */
#define EPROTO    71   /* protocol error (device spoke nonsense) */
#define EOVERFLOW 75   /* value too large for its type */
#define EMSGSIZE  90   /* message too long */
#define ENOMEDIUM 123  /* no medium in the drive */
#define ETIMEDOUT 110  /* the device did not answer in time */
#define EINPROGRESS 115 /* in progress elsewhere (kernel/irq: a poll left the work to a pending interrupt) */

/* errno_name - short symbolic name ("EINVAL") of a positive or negative code. */
const char *errno_name(int err);

#endif
