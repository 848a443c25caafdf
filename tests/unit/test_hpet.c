/*
 * test_hpet.c - host unit tests for arch/x86/hpet_caps.c: GCAP_ID as QEMU's
 * HPET reports it and as broken or absent blocks would, the GSI choice on
 * QEMU's pc and q35 routing capabilities, delay conversion at its limits,
 * and the wrap-safe "counter passed the comparator" check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <kernel/errno.h>
#include <hpet.h>

/* QEMU 7.2's HPET (read off the guest): rev 1, 3 timers (NUM_TIM_CAP 2),
 * 64-bit counter, legacy capable, vendor 0x8086, period 10 ns. */
#define QEMU_GCAP_LO 0x8086A201u
#define QEMU_GCAP_HI 10000000u
/* Tn_INT_ROUTE_CAP of QEMU's comparators: pc, and q35 (2, 8, 16-23). */
#define PC_ROUTE_CAP  0x00000004u
#define Q35_ROUTE_CAP 0x00FF0104u
/* An ICH-style 14.31818 MHz block: period 69841279 fs. */
#define ICH_PERIOD_FS 69841279u

static void qemu_capabilities_decode_to_100_mhz_three_timers_64_bit(void **state)
{
	struct hpet_caps c;
	const char *why = NULL;

	(void)state;
	assert_int_equal(hpet_decode_gcap(QEMU_GCAP_LO, QEMU_GCAP_HI, &c, &why), 0);
	assert_string_equal(why, "");
	assert_int_equal(c.period_fs, 10000000u);
	assert_int_equal(c.freq_hz, 100000000u);
	assert_int_equal(c.timers, 3);
	assert_int_equal(c.revision, 1);
	assert_true(c.counter_64bit);
	assert_true(c.legacy_capable);
	assert_int_equal(c.vendor, 0x8086);
}

static void a_14_mhz_chipset_period_rounds_to_the_nearest_hz(void **state)
{
	struct hpet_caps c;

	(void)state;
	assert_int_equal(hpet_decode_gcap(0x80860001u, ICH_PERIOD_FS, &c, NULL), 0);
	assert_int_equal(c.freq_hz, 14318180u);
	assert_int_equal(c.timers, 1);
	assert_false(c.counter_64bit);
	assert_false(c.legacy_capable);
}

static void period_zero_or_above_100_ns_is_refused(void **state)
{
	struct hpet_caps c = { 0 };
	const char *why = NULL;

	(void)state;
	assert_int_equal(hpet_decode_gcap(QEMU_GCAP_LO, 0, &c, &why), -EINVAL);
	assert_non_null(why);
	assert_true(why[0] != 0);
	assert_int_equal(hpet_decode_gcap(QEMU_GCAP_LO, HPET_PERIOD_MAX_FS + 1, &c, &why), -EINVAL);
	/* Exactly 100 ns (10 MHz) is the slowest valid counter. */
	assert_int_equal(hpet_decode_gcap(QEMU_GCAP_LO, HPET_PERIOD_MAX_FS, &c, &why), 0);
	assert_int_equal(c.freq_hz, 10000000u);
}

static void revision_zero_is_refused(void **state)
{
	struct hpet_caps c;

	(void)state;
	assert_int_equal(hpet_decode_gcap(QEMU_GCAP_LO & ~HPET_GCAP_REV_MASK, QEMU_GCAP_HI, &c, NULL), -EINVAL);
}

static void all_ones_means_nothing_answers(void **state)
{
	struct hpet_caps c;
	const char *why = NULL;

	(void)state;
	assert_int_equal(hpet_decode_gcap(0xFFFFFFFFu, 0xFFFFFFFFu, &c, &why), -ENODEV);
	assert_non_null(why);
}

static void a_rate_beyond_32_bits_is_refused(void **state)
{
	struct hpet_caps c;

	(void)state;
	/* 232830 fs is 4.295 GHz, just over UINT32_MAX Hz; 232831 fs fits. */
	assert_int_equal(hpet_decode_gcap(QEMU_GCAP_LO, 232830u, &c, NULL), -ERANGE);
	assert_int_equal(hpet_decode_gcap(QEMU_GCAP_LO, 1u, &c, NULL), -ERANGE);
	assert_int_equal(hpet_decode_gcap(QEMU_GCAP_LO, 232831u, &c, NULL), 0);
}

static void on_pc_the_only_gsi_is_the_pits_so_there_is_none(void **state)
{
	/* The driver marks GSIs 0-15 (ISA) unusable: GSI 2 carries ISA IRQ 0. */
	uint32_t isa = 0xFFFFu;

	(void)state;
	assert_int_equal(hpet_choose_gsi(PC_ROUTE_CAP, isa), -ENOENT);
	assert_int_equal(hpet_choose_gsi(PC_ROUTE_CAP, 0), 2);
}

static void on_q35_the_highest_free_pci_gsi_is_chosen(void **state)
{
	uint32_t isa = 0xFFFFu;

	(void)state;
	assert_int_equal(hpet_choose_gsi(Q35_ROUTE_CAP, isa), 23);
	/* GSI 23 used by a PCI function or another handler: 22. */
	assert_int_equal(hpet_choose_gsi(Q35_ROUTE_CAP, isa | 1u << 23), 22);
	/* Every one of 16-23 taken: none, never 8 (RTC) or 2 (PIT). */
	assert_int_equal(hpet_choose_gsi(Q35_ROUTE_CAP, isa | 0x00FF0000u), -ENOENT);
	assert_int_equal(hpet_choose_gsi(0, 0), -ENOENT);
	assert_int_equal(hpet_choose_gsi(0x80000000u, 0), 31);
}

static void delays_round_up_to_whole_ticks_within_limits(void **state)
{
	(void)state;
	/* 100 MHz: 10 ns per tick. */
	assert_int_equal(hpet_ns_to_ticks(0, 100000000u, HPET_MAX_DELTA_TICKS), 1);
	assert_int_equal(hpet_ns_to_ticks(1, 100000000u, HPET_MAX_DELTA_TICKS), 1);
	assert_int_equal(hpet_ns_to_ticks(10, 100000000u, HPET_MAX_DELTA_TICKS), 1);
	assert_int_equal(hpet_ns_to_ticks(11, 100000000u, HPET_MAX_DELTA_TICKS), 2);
	assert_int_equal(hpet_ns_to_ticks(1000000, 100000000u, HPET_MAX_DELTA_TICKS), 100000);
	/* 14.31818 MHz: 1 ms is 14318.18 ticks, rounded up. */
	assert_int_equal(hpet_ns_to_ticks(1000000, 14318180u, HPET_MAX_DELTA_TICKS), 14319);
	/* Far delays are cut to the maximum, even absurd ones. */
	assert_int_equal(hpet_ns_to_ticks(30ull * 1000000000u, 100000000u, HPET_MAX_DELTA_TICKS),
			 HPET_MAX_DELTA_TICKS);
	assert_int_equal(hpet_ns_to_ticks(UINT64_MAX, 100000000u, HPET_MAX_DELTA_TICKS), HPET_MAX_DELTA_TICKS);
	assert_int_equal(hpet_ns_to_ticks(UINT64_MAX, 0xFFFFFFFFu, 0xFFFFFFFFu), 0xFFFFFFFFu);
	assert_int_equal(hpet_ns_to_ticks(5, 100000000u, 0), 1);
}

/* ICH9 wiring as QEMU's q35 has it: DnnIR reset value 0x3210 (INTA-D ->
 * PIRQA-D) for slots 25-31, slot s INTx onto PIRQ E-H by (s + x) mod 4. */
static void ich9_pirqs_follow_the_route_registers_and_the_slot_rule(void **state)
{
	(void)state;
	assert_int_equal(ich9_dir_offset(31), 0x3140);
	assert_int_equal(ich9_dir_offset(25), 0x3150);
	assert_int_equal(ich9_dir_offset(30), 0);
	assert_int_equal(ich9_dir_offset(3), 0);
	assert_int_equal(hpet_ich9_pirq(31, 1, 0x3210), 0);   /* AHCI, SMBus INTA: PIRQA, GSI 16 */
	assert_int_equal(hpet_ich9_pirq(29, 3, 0x3210), 2);   /* UHCI INTC: PIRQC */
	assert_int_equal(hpet_ich9_pirq(29, 4, 0x7654), 7);   /* a reprogrammed register is followed */
	assert_int_equal(hpet_ich9_pirq(2, 1, 0), 6);         /* e1000e at 00:02.0 INTA: PIRQG, GSI 22 */
	assert_int_equal(hpet_ich9_pirq(3, 1, 0), 7);         /* e1000 at 00:03.0 INTA: PIRQH, GSI 23 */
	assert_int_equal(hpet_ich9_pirq(3, 2, 0), 4);         /* INTB wraps round to PIRQE */
	assert_int_equal(hpet_ich9_pirq(3, 0, 0), -EINVAL);   /* no pin */
	assert_int_equal(hpet_ich9_pirq(3, 5, 0), -EINVAL);
	assert_int_equal(hpet_ich9_pirq(30, 1, 0), -EINVAL);  /* the DMI bridge has no INTx */
	assert_int_equal(hpet_ich9_pirq(32, 1, 0), -EINVAL);
}

/* The one-shot race check: a comparator is "passed" once the counter is at
 * or after it, across the 32-bit wrap. */
static void counter_passed_is_wrap_safe(void **state)
{
	(void)state;
	assert_true(hpet_passed(100, 100));
	assert_true(hpet_passed(101, 100));
	assert_false(hpet_passed(99, 100));
	assert_false(hpet_passed(0xFFFFFFF0u, 0x00000010u));  /* comparator just past the wrap */
	assert_true(hpet_passed(0x00000010u, 0xFFFFFFF0u));   /* counter wrapped past it */
	assert_false(hpet_passed(0, 0x7FFFFFFFu));            /* the longest delay: still ahead */
	assert_true(hpet_passed(0x80000000u, 0x7FFFFFFFu));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(qemu_capabilities_decode_to_100_mhz_three_timers_64_bit),
		cmocka_unit_test(a_14_mhz_chipset_period_rounds_to_the_nearest_hz),
		cmocka_unit_test(period_zero_or_above_100_ns_is_refused),
		cmocka_unit_test(revision_zero_is_refused),
		cmocka_unit_test(all_ones_means_nothing_answers),
		cmocka_unit_test(a_rate_beyond_32_bits_is_refused),
		cmocka_unit_test(on_pc_the_only_gsi_is_the_pits_so_there_is_none),
		cmocka_unit_test(on_q35_the_highest_free_pci_gsi_is_chosen),
		cmocka_unit_test(delays_round_up_to_whole_ticks_within_limits),
		cmocka_unit_test(ich9_pirqs_follow_the_route_registers_and_the_slot_rule),
		cmocka_unit_test(counter_passed_is_wrap_safe),
	};

	return cmocka_run_group_tests_name("hpet", tests, NULL, NULL);
}
