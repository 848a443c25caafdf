/*
 * irq_codes.h - the dispatch core's refusals as codes. Every refusal and
 * misuse warning of manage.c, irqdesc.c and policy.c carries a number; a
 * build with sentences (IRQ_HEALTH_TEXT 1) logs the sentence as always, a
 * terse build logs only "irq: E<code> line <irq>" (or "irq: E<code>" for a
 * boot switch), so the sentences are not in its image. The sentences stay
 * in the source, next to their codes (IRQ_SAY, IRQ_WHY); the table of
 * codes a reader of a terse log looks them up in is docs/porting.md's
 * ("Refusal codes"), and tests/docs/test_porting.py checks that it lists
 * every code with the sentence the source gives it, and no other.
 *
 * A code is never reused for another meaning: a removed refusal leaves a
 * hole. The defences' own messages (expect.c, watch.c, spurious.c) are not
 * here: their announcements are numbers already in a terse build (IRQ_TEXT).
 *
 * Layer 0, the base: a private header; uses irq_config.h and port.h
 * (docs/irq-layers.md).
 */
#ifndef IRQ_CODES_H
#define IRQ_CODES_H

#include "irq_config.h"
#include "port.h"

enum irq_code {
	/* request_irq(), request_irq_static(): "irq N: request by "NAME" refused (ERR): WHY" */
	IRQ_E_REQ_NO_LINE = 1,
	IRQ_E_REQ_NO_HANDLER = 2,
	IRQ_E_REQ_FLAGS = 3,
	IRQ_E_REQ_TRIGGERS = 4,
	IRQ_E_REQ_SHARED_NO_DEV_ID = 5,
	IRQ_E_REQ_HELD = 6,
	IRQ_E_REQ_NOT_SHARED = 7,
	IRQ_E_REQ_OTHER_TRIGGER = 8,
	IRQ_E_REQ_DEV_ID_TWICE = 9,
	IRQ_E_REQ_FULL = 10,
	IRQ_E_REQ_NO_CHIP = 11,
	IRQ_E_REQ_TRIGGER_REFUSED = 12,
	IRQ_E_REQ_POOL_EMPTY = 13,
	IRQ_E_REQ_NO_STORAGE = 14,
	IRQ_E_REQ_STORAGE_TWICE = 15,
	/* free_irq(), enable_irq(), disable_irq() */
	IRQ_E_API_NO_LINE = 16,
	IRQ_E_FREE_NO_ACTION = 17,
	IRQ_E_DISABLE_DEEP = 18,
	IRQ_E_ENABLE_UNBALANCED = 19,
	IRQ_E_ENABLE_NO_HANDLER = 20,
	/* irq_set_chip_and_handler(), irq_set_handler(), irq_set_trigger() */
	IRQ_E_CHIP_NO_LINE = 21,
	IRQ_E_CHIP_LACKS = 22,
	IRQ_E_CHIP_IN_USE = 23,
	IRQ_E_FLOW_NO_LINE = 24,
	IRQ_E_FLOW_LACKS = 25,
	IRQ_E_TRIGGER_NO_LINE = 26,
	IRQ_E_TRIGGER_KIND = 27,
	IRQ_E_TRIGGER_IN_USE = 28,
	IRQ_E_TRIGGER_REFUSED = 29,
	/* the boot switches (policy.c) */
	IRQ_E_SWITCH_VALUE = 30,
	IRQ_E_SWITCH_LATE = 31,
	IRQ_E_POLICY_UNKNOWN = 32,
	IRQ_E_SWITCH_NOT_BUILT = 33,
};

/*
 * IRQ_SAY - log a refusal of line @irq: with IRQ_HEALTH_TEXT its sentence
 * (the format and its arguments, as irq_port_log takes them), else
 * "irq: E<code> line <irq>". The sentence's branch is a constant condition:
 * a terse build compiles it out with its string.
 */
#define IRQ_SAY(code, level, irq, ...)                                                              \
	do {                                                                                        \
		if (IRQ_HEALTH_TEXT)                                                                \
			irq_port_log((level), __VA_ARGS__);                                         \
		else                                                                                \
			irq_port_log((level), "irq: E%u line %u\n", (unsigned int)(code), (unsigned int)(irq)); \
	} while (0)

/* IRQ_SAY0 - the same for a refusal of no line (a boot switch): "irq: E<code>". */
#define IRQ_SAY0(code, level, ...)                                                                  \
	do {                                                                                        \
		if (IRQ_HEALTH_TEXT)                                                                \
			irq_port_log((level), __VA_ARGS__);                                         \
		else                                                                                \
			irq_port_log((level), "irq: E%u\n", (unsigned int)(code));                  \
	} while (0)

/*
 * IRQ_WHY - a request refusal's reason: its code and, with IRQ_HEALTH_TEXT,
 * its words (manage.c's struct irq_refusal; "" in a terse build).
 */
#if IRQ_HEALTH_TEXT
#define IRQ_WHY(code, text) (code), (text)
#else
#define IRQ_WHY(code, text) (code), ("")
#endif

#endif /* IRQ_CODES_H */
