# libFuzzer target for drivers/usb/usb_desc.c (configuration sets and device
# descriptors); seeds in tests/fuzz/corpus/usb_desc/ (QEMU usb-kbd, usb-storage).
FUZZERS += usb_desc
FUZZ_usb_desc_SRCS := tests/fuzz/fuzz_usb_desc.c drivers/usb/usb_desc.c
