# Host unit test of the UHCI transfer descriptors and completion scan
# (drivers/usb/uhci_td.c), with the test playing the controller.
UNIT_TESTS += uhci_td
UNIT_uhci_td_SRCS := tests/unit/test_uhci_td.c drivers/usb/uhci_td.c
