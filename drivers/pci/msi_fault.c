/*
 * msi_fault.c - the faults of message-signalled interrupts, done to the
 * device for real (registry: include/kernel/fault.h; `fault=` and
 * `inject`). Each takes an optional ARG, a function "bb:dd.f", and
 * otherwise acts on every message vector allocated at that moment:
 *
 *   msi-mask       the vector is masked at the device behind kernel/irq's
 *                  back: MSI-X vector control bit, MSI mask bit, or, for
 *                  MSI without mask bits, MSI enable cleared (INTx stays
 *                  disabled). The device sends nothing; the core still
 *                  believes the line unmasked.
 *   msi-misvector  the message data carries a vector nobody owns (the top
 *                  free one of the dynamic range): the message arrives, at
 *                  the wrong place, and irq.c counts it as unowned.
 *
 * `inject off NAME` puts back what the core programmed. The line's
 * irq_chip reports both in the health report (irq_diagnose).
 */
#include "msi_internal.h"
#include <asm/vector.h>
#include <kernel/errno.h>
#include <kernel/fault.h>
#include <kernel/format.h>
#include <kernel/printk.h>
#include <kernel/string.h>

#define DESCRIBE_MAX 96

static bool mask_active, misvector_active;

static void log_vec(struct msi_vec *v, const char *what)
{
	char text[DESCRIBE_MAX];

	msi_fault_describe(v, text, sizeof(text));
	pr_warn("fault: %s: %s\n", text, what);
}

static void do_mask(struct msi_vec *v, void *ctx)
{
	msi_fault_device_mask(v, ctx != NULL);
	log_vec(v, ctx ? "masked at the device behind kernel/irq's back" : "device mask put back as kernel/irq has it");
}

static int check_arg(const char *arg)
{
	/* "bb:dd.f": 7 characters; anything else is refused before touching a device. */
	return !arg || (strlen(arg) == 7 && arg[2] == ':' && arg[5] == '.') ? 0 : -EINVAL;
}

static char mask_only[8], misvector_only[8];

static int mask_on(const char *arg)
{
	if (check_arg(arg))
		return -EINVAL;
	if (mask_active)
		return -EBUSY;
	strlcpy(mask_only, arg ? arg : "", sizeof(mask_only));
	if (!msi_fault_for_each(arg, do_mask, (void *)1)) {
		pr_warn("fault: msi-mask: no message vectors%s%s (pci=nomsi, or no driver uses MSI)\n",
			arg ? " of " : "", arg ? arg : "");
		return -ENODEV;
	}
	mask_active = true;
	return 0;
}

static int mask_off(void)
{
	if (!mask_active)
		return 0;
	msi_fault_for_each(mask_only[0] ? mask_only : NULL, do_mask, NULL);
	mask_active = false;
	return 0;
}

FAULT(msi_mask, "msi-mask", "BB:DD.F",
      "message vectors masked at the device (MSI-X vector control, MSI mask bit or MSI enable) behind the core's back",
      mask_on, mask_off);

static void do_misvector(struct msi_vec *v, void *ctx)
{
	unsigned int vector = *(unsigned int *)ctx;
	char what[DESCRIBE_MAX];

	msi_fault_set_vector(v, vector);
	if (vector) {
		ksnprintf(what, sizeof(what), "message data now carries vector 0x%02x, which nobody owns", vector);
		log_vec(v, what);
	} else {
		log_vec(v, "message data put back");
	}
}

static int misvector_on(const char *arg)
{
	int unused = x86_vector_unused();
	unsigned int vector;

	if (check_arg(arg))
		return -EINVAL;
	if (misvector_active)
		return -EBUSY;
	if (unused < 0)
		return -ENOSPC;
	vector = (unsigned int)unused;
	strlcpy(misvector_only, arg ? arg : "", sizeof(misvector_only));
	if (!msi_fault_for_each(arg, do_misvector, &vector)) {
		pr_warn("fault: msi-misvector: no message vectors%s%s (pci=nomsi, or no driver uses MSI)\n",
			arg ? " of " : "", arg ? arg : "");
		return -ENODEV;
	}
	misvector_active = true;
	return 0;
}

static int misvector_off(void)
{
	unsigned int own = 0;

	if (!misvector_active)
		return 0;
	msi_fault_for_each(misvector_only[0] ? misvector_only : NULL, do_misvector, &own);
	misvector_active = false;
	return 0;
}

FAULT(msi_misvector, "msi-misvector", "BB:DD.F",
      "message vectors' data pointed at a CPU vector nobody owns: the message lands nowhere",
      misvector_on, misvector_off);
