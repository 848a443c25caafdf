# The template port's formatter (kernel/irq/template/irq_format.c) against
# the C library's snprintf, for the conversions docs/porting.md documents.
UNIT_TESTS += irq_format
UNIT_irq_format_SRCS := tests/unit/test_irq_format.c kernel/irq/template/irq_format.c
UNIT_irq_format_CFLAGS := -Wno-format-nonliteral
