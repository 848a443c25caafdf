# Host unit test of the AHCI driver's pure logic (ahci_decode.c): the command FIS, the PRD
# table, PxIS/PxSERR/PxTFD decoding and device signatures.
UNIT_TESTS += ahci_decode
UNIT_ahci_decode_SRCS := tests/unit/test_ahci_decode.c drivers/ata/ahci_decode.c drivers/ata/ata_decode.c \
	kernel/vsprintf.c kernel/errno.c
