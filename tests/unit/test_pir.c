/*
 * test_pir.c - host tests for arch/x86/pirtable.c: the $PIR table SeaBIOS
 * builds under QEMU 7.2 (tests/fixtures/) on every machine, checked against
 * /work/shared/QEMU-FACTS.md (device d's INTx goes to PIRQ (x + d - 1) & 3,
 * PIIX3 link values 0x60-0x63; on q35 the table still names a PIIX router
 * at 00:01.0), and corrupted copies: reported, skipped, never a crash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <kernel/errno.h>
#include <firmware.h>

#include "../fixtures/fixture.h"

enum pir_layout {
	PC_PIR = 0xF5C80,
	PC_PIR_SIZE = 128,
	PIR_VERSION = 4,
	PIR_SIZE = 6,
	PIR_CHECKSUM = 31,
	PIR_HEADER = 32,
	PIR_SLOT = 16,
	PIIX_LINK_A = 0x60,          /* PIIX3 PIRQA route control register */
	SEABIOS_IRQ_BITMAP = 0xDEF8, /* IRQs 3-7, 9-12, 14, 15 */
};

static struct fw_pir *parse(struct fw_fixture *fx, const char *config, int *err)
{
	struct fw_pir *pir = calloc(1, sizeof(*pir));

	assert_non_null(pir);
	fixture_load(fx, config);
	*err = pirtable_parse(&fx->window, pir);
	return pir;
}

static void done(struct fw_fixture *fx, struct fw_pir *pir)
{
	free(pir);
	fixture_free(fx);
}

static uint8_t *pc_pir(struct fw_fixture *fx) { return fixture_bytes(fx, PC_PIR, PC_PIR_SIZE); }

static void assert_seabios_pir(const struct fw_pir *pir)
{
	uint32_t i, pin;

	assert_true(pir->present);
	assert_int_equal(pir->addr, PC_PIR);
	assert_int_equal(pir->version, 0x0100);
	assert_int_equal(pir->router_bus, 0);
	assert_int_equal(pir->router_devfn, 1 << 3);
	assert_int_equal(pir->compat_vendor, 0x8086);
	assert_int_equal(pir->compat_device, 0x122E);   /* PIIX3 ISA bridge */
	assert_int_equal(pir->exclusive_irqs, 0);
	assert_int_equal(pir->miniport_data, 0);
	assert_int_equal(pir->slots.count, 6);
	assert_false(pir->slots.truncated);
	for (i = 0; i < pir->slots.count; i++) {
		const struct fw_pir_slot *s = &pir->slots.entry[i];
		uint32_t dev = i + 1;

		assert_int_equal(s->bus, 0);
		assert_int_equal(s->devfn, dev << 3);
		assert_int_equal(s->slot, i);
		for (pin = 0; pin < 4; pin++) {
			assert_int_equal(s->pin[pin].link, PIIX_LINK_A + ((pin + dev - 1) & 3));
			assert_int_equal(s->pin[pin].irq_bitmap, SEABIOS_IRQ_BITMAP);
		}
	}
	assert_int_equal(pir->problems.count, 0);
}

static void every_machine_has_the_same_six_slot_piix_table(void **state)
{
	static const char *const configs[] = { "pc", "pc-noacpi", "q35", "q35-noacpi", "pc-smp2" };
	uint32_t c;

	(void)state;
	for (c = 0; c < sizeof(configs) / sizeof(configs[0]); c++) {
		struct fw_fixture fx;
		int err;
		struct fw_pir *pir = parse(&fx, configs[c], &err);

		assert_int_equal(err, 0);
		assert_seabios_pir(pir);
		done(&fx, pir);
	}
}

static void e1000_at_slot_3_inta_and_uhci_intd_use_links_c_and_d(void **state)
{
	struct fw_fixture fx;
	int err;
	struct fw_pir *pir = parse(&fx, "pc", &err);

	(void)state;
	assert_int_equal(err, 0);
	/* QEMU-FACTS: 00:03.0 INTA -> PIRQC, 00:01.2 INTD -> PIRQD. */
	assert_int_equal(pir->slots.entry[2].devfn >> 3, 3);
	assert_int_equal(pir->slots.entry[2].pin[0].link, PIIX_LINK_A + 2);
	assert_int_equal(pir->slots.entry[0].devfn >> 3, 1);
	assert_int_equal(pir->slots.entry[0].pin[3].link, PIIX_LINK_A + 3);
	done(&fx, pir);
}

static void size_not_a_multiple_of_16_is_rejected(void **state)
{
	struct fw_fixture fx;
	struct fw_pir *pir = calloc(1, sizeof(*pir));
	const struct fw_problem *prob;
	char line[FW_LINE_MAX];

	(void)state;
	fixture_load(&fx, "pc");
	put16(pc_pir(&fx) + PIR_SIZE, PC_PIR_SIZE - 8);
	fix_checksum(pc_pir(&fx), PC_PIR_SIZE - 8, PIR_CHECKSUM);
	assert_int_equal(pirtable_parse(&fx.window, pir), -ENOENT);
	assert_false(pir->present);
	assert_int_equal(pir->slots.count, 0);
	prob = find_problem(&pir->problems, FW_TABLE_PIR, FW_PROBLEM_BAD_LENGTH);
	assert_non_null(prob);
	assert_int_equal(prob->addr, PC_PIR);
	assert_int_equal(prob->value, 120);
	fw_problem_format(prob, line, sizeof(line));
	assert_string_equal(line, "$PIR table at 0x000f5c80 +6: size not above 32 and a multiple of 16; "
	                          "skipped (value 0x78)");
	done(&fx, pir);
}

static void header_only_table_is_rejected(void **state)
{
	struct fw_fixture fx;
	struct fw_pir *pir = calloc(1, sizeof(*pir));

	(void)state;
	fixture_load(&fx, "pc");
	put16(pc_pir(&fx) + PIR_SIZE, PIR_HEADER);
	fix_checksum(pc_pir(&fx), PIR_HEADER, PIR_CHECKSUM);
	assert_int_equal(pirtable_parse(&fx.window, pir), -ENOENT);
	assert_non_null(find_problem(&pir->problems, FW_TABLE_PIR, FW_PROBLEM_BAD_LENGTH));
	done(&fx, pir);
}

static void bad_checksum_is_rejected(void **state)
{
	struct fw_fixture fx;
	struct fw_pir *pir = calloc(1, sizeof(*pir));

	(void)state;
	fixture_load(&fx, "pc");
	pc_pir(&fx)[PIR_HEADER + 2] = 0x61;
	assert_int_equal(pirtable_parse(&fx.window, pir), -ENOENT);
	assert_non_null(find_problem(&pir->problems, FW_TABLE_PIR, FW_PROBLEM_BAD_CHECKSUM));
	done(&fx, pir);
}

static void version_other_than_1_0_is_rejected(void **state)
{
	struct fw_fixture fx;
	struct fw_pir *pir = calloc(1, sizeof(*pir));

	(void)state;
	fixture_load(&fx, "pc");
	put16(pc_pir(&fx) + PIR_VERSION, 0x0200);
	fix_checksum(pc_pir(&fx), PC_PIR_SIZE, PIR_CHECKSUM);
	assert_int_equal(pirtable_parse(&fx.window, pir), -ENOENT);
	assert_non_null(find_problem(&pir->problems, FW_TABLE_PIR, FW_PROBLEM_BAD_REVISION));
	done(&fx, pir);
}

static void size_past_the_window_is_rejected(void **state)
{
	struct fw_fixture fx;
	struct fw_pir *pir = calloc(1, sizeof(*pir));

	(void)state;
	fixture_load(&fx, "pc");
	put16(pc_pir(&fx) + PIR_SIZE, 0xFFF0);   /* 0xF5C80 + 0xFFF0 passes 1 MiB */
	assert_int_equal(pirtable_parse(&fx.window, pir), -ENOENT);
	assert_non_null(find_problem(&pir->problems, FW_TABLE_PIR, FW_PROBLEM_NOT_IN_WINDOW));
	done(&fx, pir);
}

static void bad_candidate_before_the_real_table_is_reported_and_passed_over(void **state)
{
	struct fw_fixture fx;
	struct fw_pir *pir = calloc(1, sizeof(*pir));
	uint8_t *early;

	(void)state;
	fixture_load(&fx, "pc");
	early = fixture_bytes(&fx, 0xF0010, PC_PIR_SIZE);
	memcpy(early, pc_pir(&fx), PC_PIR_SIZE);
	early[PIR_CHECKSUM] ^= 1;
	assert_int_equal(pirtable_parse(&fx.window, pir), 0);
	assert_int_equal(pir->problems.count, 1);
	assert_int_equal(pir->problems.list[0].addr, 0xF0010);
	assert_int_equal(pir->problems.list[0].kind, FW_PROBLEM_BAD_CHECKSUM);
	pir->problems.count = 0;   /* the rest is the real table */
	assert_seabios_pir(pir);
	done(&fx, pir);
}

static void more_slots_than_fit_set_truncated(void **state)
{
	struct fw_pir *pir = calloc(1, sizeof(*pir));
	enum { N = 70 };
	uint32_t size = PIR_HEADER + PIR_SLOT * N, i;
	uint8_t *t = calloc(1, size);

	(void)state;
	memcpy(t, "$PIR", 4);
	put16(t + PIR_VERSION, 0x0100);
	put16(t + PIR_SIZE, (uint16_t)size);
	for (i = 0; i < N; i++)
		t[PIR_HEADER + PIR_SLOT * i + 1] = (uint8_t)(i << 3);
	fix_checksum(t, size, PIR_CHECKSUM);
	assert_int_equal(pirtable_parse_table(t, size, 0x1000, pir), 0);
	assert_int_equal(pir->slots.count, FW_MAX_PIR_SLOTS);
	assert_true(pir->slots.truncated);
	assert_int_equal(pir->slots.entry[FW_MAX_PIR_SLOTS - 1].devfn, (uint8_t)((FW_MAX_PIR_SLOTS - 1) << 3));
	assert_int_equal(pir->problems.count, 1);
	assert_int_equal(pir->problems.list[0].kind, FW_PROBLEM_TOO_MANY);
	assert_int_equal(pir->problems.list[0].addr, 0x1000);
	free(t);
	free(pir);
}

static void short_or_missing_data_is_rejected(void **state)
{
	struct fw_fixture fx;
	struct fw_pir *pir = calloc(1, sizeof(*pir));

	(void)state;
	fixture_load(&fx, "pc");
	assert_int_equal(pirtable_parse_table(NULL, 0, 0, pir), -EINVAL);
	assert_int_equal(pirtable_parse_table(pc_pir(&fx), 31, PC_PIR, pir), -EINVAL);
	assert_int_equal(pirtable_parse_table(pc_pir(&fx), PC_PIR_SIZE - 1, PC_PIR, pir), -EINVAL);
	assert_false(pir->present);
	assert_int_equal(pirtable_parse_table(pc_pir(&fx), PC_PIR_SIZE, PC_PIR, pir), 0);
	assert_seabios_pir(pir);
	done(&fx, pir);
}

struct lines {
	char text[16][FW_LINE_MAX];
	int count;
};

static void collect(void *ctx, const char *line)
{
	struct lines *l = ctx;

	assert_true(strlen(line) < FW_LINE_MAX);
	if (l->count < 16)
		snprintf(l->text[l->count++], FW_LINE_MAX, "%s", line);
}

static void boot_log_names_the_router_and_each_slot(void **state)
{
	struct fw_fixture fx;
	struct lines l = { .count = 0 };
	int err;
	struct fw_pir *pir = parse(&fx, "pc", &err);

	(void)state;
	fw_pir_print(pir, collect, &l);
	assert_int_equal(l.count, 7);
	assert_string_equal(l.text[0], "$PIR: at 0x000f5c80, router 00:01.0 compatible with 0x8086:0x122e, "
	                               "exclusive IRQs 0x0000, 6 slots");
	assert_string_equal(l.text[3], "$PIR: 00:03 slot 2 INTA 0x62/0xdef8 INTB 0x63/0xdef8 "
	                               "INTC 0x60/0xdef8 INTD 0x61/0xdef8");
	done(&fx, pir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_machine_has_the_same_six_slot_piix_table),
		cmocka_unit_test(e1000_at_slot_3_inta_and_uhci_intd_use_links_c_and_d),
		cmocka_unit_test(size_not_a_multiple_of_16_is_rejected),
		cmocka_unit_test(header_only_table_is_rejected),
		cmocka_unit_test(bad_checksum_is_rejected),
		cmocka_unit_test(version_other_than_1_0_is_rejected),
		cmocka_unit_test(size_past_the_window_is_rejected),
		cmocka_unit_test(bad_candidate_before_the_real_table_is_reported_and_passed_over),
		cmocka_unit_test(more_slots_than_fit_set_truncated),
		cmocka_unit_test(short_or_missing_data_is_rejected),
		cmocka_unit_test(boot_log_names_the_router_and_each_slot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
