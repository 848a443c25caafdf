# Host unit test of the USB descriptor checks (drivers/usb/usb_desc.c): QEMU's
# keyboard and mass-storage sets, truncation, length and count lies.
UNIT_TESTS += usb_desc
UNIT_usb_desc_SRCS := tests/unit/test_usb_desc.c drivers/usb/usb_desc.c
