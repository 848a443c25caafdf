# Host unit test of drivers/ata's pure logic (ata_decode.c): status/error and
# sense decoding, IDENTIFY parsing, signatures, channel layout, drop decisions.
UNIT_TESTS += ata_decode
UNIT_ata_decode_SRCS := tests/unit/test_ata_decode.c drivers/ata/ata_decode.c kernel/vsprintf.c kernel/errno.c
