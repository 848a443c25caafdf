# Host unit tests of the HPET driver's pure logic (arch/x86/hpet_caps.c):
# capability decoding and validation, GSI choice, delay conversion, the
# counter-passed check behind the one-shot race.
UNIT_TESTS += hpet
UNIT_hpet_SRCS := tests/unit/test_hpet.c arch/x86/hpet_caps.c
UNIT_hpet_CFLAGS := -Iarch/x86/include
