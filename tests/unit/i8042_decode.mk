# Host unit test of the PS/2 decoders (drivers/input/i8042_decode.c): scan code
# set 2 to characters (through the USB keyboard's US map, usb_hid_keymap.c),
# typematic repeat, the lock keys, and byte streams that must resynchronise
# (garbage, broken prefixes, a stuck scan code, mouse packets with bad first
# bytes or overflow, unannounced 4-byte packets).
UNIT_TESTS += i8042_decode
UNIT_i8042_decode_SRCS := tests/unit/test_i8042_decode.c drivers/input/i8042_decode.c drivers/usb/usb_hid_keymap.c
