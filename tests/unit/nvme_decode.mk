# Host unit test of drivers/nvme/nvme_decode.c: namespace identify data that lies
# (zero or absurd sizes, block sizes, formats), status decoding, PRP entries.
UNIT_TESTS += nvme_decode
UNIT_nvme_decode_SRCS := tests/unit/test_nvme_decode.c drivers/nvme/nvme_decode.c kernel/vsprintf.c
UNIT_nvme_decode_CFLAGS := -Iarch/x86/include -Idrivers
