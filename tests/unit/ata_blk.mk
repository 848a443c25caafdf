# Host unit test of the block layer (kernel/blk.c) that drivers/ata registers
# its disks and CD-ROMs with: a recording RAM disk, zlib for the CRC figures.
UNIT_TESTS += ata_blk
UNIT_ata_blk_SRCS := tests/unit/test_ata_blk.c kernel/blk.c kernel/pattern.c kernel/crc32.c kernel/errno.c
# Rename our crc32 so that zlib's keeps its name (as in crc32.mk).
UNIT_ata_blk_CFLAGS := -Dcrc32=kernel_crc32
UNIT_ata_blk_LDLIBS := -lz
