# Host unit test of the USB HID boot keyboard translator
# (drivers/usb/usb_hid_keymap.c): US map, shift, caps lock, Ctrl, key-down
# detection, rollover, repeat key.
UNIT_TESTS += usb_hid
UNIT_usb_hid_SRCS := tests/unit/test_usb_hid_keymap.c drivers/usb/usb_hid_keymap.c
# Host unit test of the keyboard driver (drivers/usb/usb_kbd.c) with a fake USB
# core and clock: class requests, reports to console characters, the repeat
# timer, stall restart, error bounds, disconnect.
UNIT_TESTS += usb_kbd
UNIT_usb_kbd_SRCS := tests/unit/test_usb_kbd.c drivers/usb/usb_kbd.c drivers/usb/usb_hid_keymap.c kernel/errno.c
UNIT_usb_kbd_CFLAGS := -Iarch/x86/include
