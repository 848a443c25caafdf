# Host unit test of the USB mass storage wrappers and SCSI parsers
# (drivers/usb/usb_scsi.c): CBW bytes, the BOT 6.3 CSW rules, CDBs, INQUIRY,
# READ CAPACITY(10) and sense data, truncated and corrupted.
UNIT_TESTS += usb_scsi
UNIT_usb_scsi_SRCS := tests/unit/test_usb_scsi.c drivers/usb/usb_scsi.c kernel/vsprintf.c kernel/errno.c
# Host unit test of the mass storage driver (drivers/usb/usb_storage.c) against
# a simulated Bulk-Only Transport device: set-up, data, and the BOT 5.3 error
# paths QEMU's usb-storage never takes (stalls, bad CSWs, reset recovery, sense).
UNIT_TESTS += usb_storage
UNIT_usb_storage_SRCS := tests/unit/test_usb_storage.c drivers/usb/usb_storage.c drivers/usb/usb_scsi.c \
	kernel/cmdline.c kernel/vsprintf.c kernel/errno.c
