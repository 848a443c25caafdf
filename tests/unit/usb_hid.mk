# Host unit test of the USB HID boot keyboard translator
# (drivers/usb/usb_hid_keymap.c): US map, shift, caps lock, Ctrl, key-down
# detection, rollover, repeat key.
UNIT_TESTS += usb_hid
UNIT_usb_hid_SRCS := tests/unit/test_usb_hid_keymap.c drivers/usb/usb_hid_keymap.c
