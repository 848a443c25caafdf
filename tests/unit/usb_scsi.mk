# Host unit test of the USB mass storage wrappers and SCSI parsers
# (drivers/usb/usb_scsi.c): CBW bytes, the BOT 6.3 CSW rules, CDBs, INQUIRY,
# READ CAPACITY(10) and sense data, truncated and corrupted.
UNIT_TESTS += usb_scsi
UNIT_usb_scsi_SRCS := tests/unit/test_usb_scsi.c drivers/usb/usb_scsi.c kernel/vsprintf.c kernel/errno.c
