# Host unit test of drivers/ata's engine and device code against a simulated
# IDE channel with a virtual clock (tests/unit/test_ata_sim.c, included by the
# test file): protocols, expect brackets, lost interrupts, timeouts and SRST.
UNIT_TESTS += ata_core
UNIT_ata_core_SRCS := tests/unit/test_ata_core.c drivers/ata/ata_core.c drivers/ata/ata_identify.c \
	drivers/ata/ata_disk.c drivers/ata/atapi.c drivers/ata/ata_decode.c kernel/vsprintf.c kernel/errno.c
