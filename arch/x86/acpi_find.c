/*
 * acpi_find.c - where the ACPI RSDP comes from, tried in this order:
 *
 *   1. the boot loader's copy: multiboot2's ACPI 2.0+ ("new") tag, then its
 *      ACPI 1.0 ("old") tag (GRUB gives them on BIOS and on UEFI);
 *   2. the EFI system table the loader names (multiboot2 tag 12 or 11): its
 *      configuration table's ACPI 2.0 entry, else its ACPI 1.0 entry
 *      (efi.c) - the only place firmware must put it on UEFI;
 *   3. the BIOS areas: the first KiB of the EBDA, then 0xE0000-0xFFFFF
 *      (acpi.c) - where it is on a BIOS PC and where multiboot 1 loaders,
 *      which pass no copy, leave the search.
 *
 * Each source is checked in full (RSDP checksums, a usable RSDT or XSDT);
 * one that fails has its problems printed and the next is tried. The boot
 * log names the source that was used. `rsdp_from=loader|efi|bios` (a boot
 * parameter) tries only that one, to see a source work on its own.
 * See also docs/boot.md, firmware.h.
 */
#include <firmware.h>
#include <kernel/bootinfo.h>
#include <kernel/errno.h>
#include <kernel/printk.h>
#include <kernel/string.h>

/* The sources, as bits of rsdp_from=. */
enum rsdp_source {
	RSDP_FROM_LOADER = 1u << 0,
	RSDP_FROM_EFI = 1u << 1,
	RSDP_FROM_BIOS = 1u << 2,
	RSDP_FROM_ALL = RSDP_FROM_LOADER | RSDP_FROM_EFI | RSDP_FROM_BIOS,
};

static unsigned int rsdp_from = RSDP_FROM_ALL;

int acpi_param_rsdp_from(const char *v, void *arg)
{
	(void)arg;
	if (strcmp(v, "auto") == 0)
		rsdp_from = RSDP_FROM_ALL;
	else if (strcmp(v, "loader") == 0)
		rsdp_from = RSDP_FROM_LOADER;
	else if (strcmp(v, "efi") == 0)
		rsdp_from = RSDP_FROM_EFI;
	else if (strcmp(v, "bios") == 0)
		rsdp_from = RSDP_FROM_BIOS;
	else
		return -EINVAL;
	return 0;
}

static void print_problems(const char *source, const struct fw_problems *probs)
{
	char buf[FW_LINE_MAX];

	for (uint32_t i = 0; i < probs->count && i < FW_MAX_PROBLEMS; i++)
		pr_warn("ACPI: %s: %s\n", source, fw_problem_format(&probs->list[i], buf, sizeof(buf)));
	if (probs->count > FW_MAX_PROBLEMS)
		pr_warn("ACPI: %s: %u more problems\n", source, probs->count - FW_MAX_PROBLEMS);
}

/* One of the loader's copies. RETURNS 0 (parsed) or an error (reported). */
static int try_copy(const struct fw_window *w, const uint8_t *rsdp, uint32_t len, const char *what,
                    struct fw_platform *out)
{
	int err;

	fw_platform_init(out, FW_SOURCE_NONE);
	err = acpi_parse_from_rsdp(w, rsdp, len, 0, out);
	if (err) {
		print_problems(what, &out->problems);
		pr_warn("ACPI: %s not usable; trying the next source\n", what);
		return err;
	}
	pr_info("ACPI: RSDP from %s\n", what);
	return 0;
}

static int try_efi(const struct fw_window *w, struct fw_platform *out)
{
	static const char what[] = "the EFI system table";
	struct fw_problems probs;
	struct fw_efi_rsdp e;
	int err;

	memset(&probs, 0, sizeof(probs));
	err = efi_find_rsdp(w, boot_info.efi_systab, boot_info.efi_bits, &e, &probs);
	if (err) {
		print_problems(what, &probs);
		pr_warn("ACPI: no RSDP from %s at %#llx; trying the next source\n", what,
			(unsigned long long)boot_info.efi_systab);
		return err;
	}
	err = acpi_parse_at(w, e.rsdp, out);
	if (err) {
		print_problems(what, &out->problems);
		pr_warn("ACPI: the RSDP %s names at %#x is not usable; trying the next source\n", what, e.rsdp);
		return err;
	}
	pr_info("ACPI: RSDP from %s at %#x (UEFI %u.%u, %u-bit): configuration table at %#x, %u entries, ACPI %s GUID\n",
		what, e.systab, e.major, e.minor, boot_info.efi_bits, e.config, e.entries, e.acpi20 ? "2.0" : "1.0");
	return 0;
}

int acpi_find(const struct fw_window *w, struct fw_platform *out)
{
	int err = -ENOENT;

	if (rsdp_from & RSDP_FROM_LOADER) {
		if (boot_info.rsdp_new_len &&
		    !try_copy(w, boot_info.rsdp_new, boot_info.rsdp_new_len, "the boot loader's ACPI 2.0 tag (multiboot2)", out))
			return 0;
		if (boot_info.rsdp_old_len &&
		    !try_copy(w, boot_info.rsdp_old, boot_info.rsdp_old_len, "the boot loader's ACPI 1.0 tag (multiboot2)", out))
			return 0;
	}
	if ((rsdp_from & RSDP_FROM_EFI) && boot_info.efi_bits && !try_efi(w, out))
		return 0;
	if (rsdp_from & RSDP_FROM_BIOS) {
		err = acpi_parse(w, out);
		if (!err) {
			pr_info("ACPI: RSDP from the BIOS areas (EBDA, 0xE0000-0xFFFFF) at %#x\n", out->acpi.rsdp_addr);
			return 0;
		}
	} else {
		fw_platform_init(out, FW_SOURCE_NONE);
	}
	if (rsdp_from != RSDP_FROM_ALL)
		pr_warn("ACPI: no RSDP from the one source rsdp_from= allows\n");
	return err;
}
