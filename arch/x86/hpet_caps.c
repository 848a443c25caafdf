/*
 * hpet_caps.c - the pure part of the HPET driver: decoding and checking the
 * capabilities register, choosing a comparator's GSI, converting delays to
 * ticks. No MMIO here, so tests/unit/test_hpet.c builds it on the host.
 * The register layout is in hpet.h; the driver is hpet.c.
 */
#include <stddef.h>
#include <kernel/errno.h>
#include <hpet.h>

#define NSEC_PER_SEC_U64 1000000000ull

int hpet_decode_gcap(uint32_t lo, uint32_t hi, struct hpet_caps *out, const char **why)
{
	const char *dummy;

	if (!why)
		why = &dummy;
	*why = "";
	if (lo == 0xFFFFFFFFu && hi == 0xFFFFFFFFu) {
		*why = "capabilities read all ones: nothing answers at that address";
		return -ENODEV;
	}
	if (hi == 0 || hi > HPET_PERIOD_MAX_FS) {
		*why = "counter period is 0 or longer than 100 ns, which the specification forbids";
		return -EINVAL;
	}
	if ((lo & HPET_GCAP_REV_MASK) == 0) {
		*why = "revision ID is 0, which the specification forbids";
		return -EINVAL;
	}
	/* freq = round(1e15 / period) must fit clocksource.freq_hz. */
	if ((HPET_FS_PER_SEC + hi / 2) / hi > HPET_FREQ_MAX_HZ) {
		*why = "counter period below 232831 fs (above 4.29 GHz): rate does not fit 32 bits";
		return -ERANGE;
	}
	out->period_fs = hi;
	out->freq_hz = (uint32_t)((HPET_FS_PER_SEC + hi / 2) / hi);
	out->timers = (uint8_t)(((lo >> HPET_GCAP_NUM_TIM_SHIFT) & HPET_GCAP_NUM_TIM_MASK) + 1);
	out->revision = (uint8_t)(lo & HPET_GCAP_REV_MASK);
	out->counter_64bit = (lo & HPET_GCAP_COUNT_SIZE_CAP) != 0;
	out->legacy_capable = (lo & HPET_GCAP_LEG_RT_CAP) != 0;
	out->vendor = (uint16_t)(lo >> HPET_GCAP_VENDOR_SHIFT);
	return 0;
}

int hpet_choose_gsi(uint32_t route_cap, uint32_t unusable)
{
	uint32_t usable = route_cap & ~unusable;

	for (int gsi = HPET_ROUTE_GSIS - 1; gsi >= 0; gsi--)
		if (usable & (1u << gsi))
			return gsi;
	return -ENOENT;
}

uint32_t hpet_ns_to_ticks(uint64_t ns, uint32_t freq_hz, uint32_t max_ticks)
{
	uint64_t sec = ns / NSEC_PER_SEC_U64, ticks;

	if (max_ticks == 0)
		max_ticks = 1;
	/* Whole seconds alone may be past the maximum: stop before sec * freq
	 * can overflow. Below that, everything fits in 64 bits. */
	if (freq_hz && sec > max_ticks / freq_hz)
		return max_ticks;
	ticks = sec * freq_hz +
		((ns % NSEC_PER_SEC_U64) * freq_hz + NSEC_PER_SEC_U64 - 1) / NSEC_PER_SEC_U64;
	if (ticks == 0)
		return 1;
	return ticks > max_ticks ? max_ticks : (uint32_t)ticks;
}

uint32_t ich9_dir_offset(unsigned int slot)
{
	switch (slot) {
	case 31: return 0x3140;  /* D31IR: LPC, SATA, SMBus */
	case 29: return 0x3144;  /* D29IR: UHCI/EHCI */
	case 28: return 0x3146;  /* D28IR: PCI Express root ports */
	case 27: return 0x3148;  /* D27IR: HD audio */
	case 26: return 0x314C;  /* D26IR: UHCI/EHCI #2 */
	case 25: return 0x3150;  /* D25IR: LAN */
	default: return 0;       /* D30 (DMI-to-PCI bridge) has no INTx; slots 0-24 have no register */
	}
}

int hpet_ich9_pirq(unsigned int slot, unsigned int pin, uint16_t dir)
{
	if (pin < 1 || pin > 4 || slot > 31 || slot == 30)
		return -EINVAL;
	if (slot >= 25)
		return (int)((dir >> ((pin - 1) * ICH9_DIR_SHIFT)) & ICH9_DIR_MASK);
	return (int)((slot + pin - 1) % 4 + 4);
}
