# libFuzzer target for drivers/usb/usb_scsi.c's parsers of device data (CSW,
# INQUIRY, READ CAPACITY(10), sense); seeds in tests/fuzz/corpus/usb_scsi/.
FUZZERS += usb_scsi
FUZZ_usb_scsi_SRCS := tests/fuzz/fuzz_usb_scsi.c drivers/usb/usb_scsi.c kernel/vsprintf.c kernel/errno.c
