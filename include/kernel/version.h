/* irqkit's version string. */
#ifndef KERNEL_VERSION_H
#define KERNEL_VERSION_H
#define IRQKIT_VERSION "0.1"
#endif
