/*
 * usb_hid.h - HID boot-protocol keyboard reports to characters (the pure
 * part of the USB keyboard driver: usb_hid_keymap.c, host-tested), and the
 * tunables of the driver that uses it (usb_kbd.c).
 *
 * A boot keyboard report (HID 1.11 appendix B.1) is 8 bytes: a modifier
 * bitmap, a reserved byte, and up to six usage IDs of keys held down, from
 * the Keyboard/Keypad page 0x07 (HID Usage Tables 1.12 chapter 10). The
 * report says which keys are down, not which went down: a key is pressed
 * when it appears in a report and was not in the previous one. A report
 * whose key slots all say ErrorRollOver (usage 0x01) means "too many keys"
 * and carries no key state; it is ignored.
 *
 * The map is a US layout: letters, digits and punctuation with shift,
 * caps lock for letters, Enter as '\r' (what a serial terminal sends; the
 * shell's read_line takes '\r' and '\n'), Backspace 0x08, Delete 0x7F, Tab,
 * Escape, Ctrl+letter as control codes 0x01-0x1A (Ctrl+C 0x03, Ctrl+U 0x15
 * are the shell's), keypad digits and operators.
 *
 * Typematic repeat: the state remembers the last key that went down and
 * gave a character (the "repeat key") until it is released; the driver arms
 * a kernel/time timer USB_KBD_REPEAT_DELAY_MS after each new repeat key and
 * then every 1000 / USB_KBD_REPEAT_RATE_HZ ms, and asks for the character
 * with usb_hid_kbd_repeat_char() each time.
 */
#ifndef DRIVERS_USB_HID_H
#define DRIVERS_USB_HID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Boot report layout (HID 1.11 B.1) and the usage IDs that are not keys. */
enum usb_hid_report {
	USB_HID_REPORT_LEN = 8,        /* bytes of a boot keyboard report */
	USB_HID_REPORT_MODS = 0,       /* offset of the modifier bitmap */
	USB_HID_REPORT_KEYS = 2,       /* offset of the first key slot */
	USB_HID_KEY_SLOTS = 6,         /* key slots in a report */
	USB_HID_USAGE_NONE = 0x00,     /* empty slot */
	USB_HID_USAGE_ROLLOVER = 0x01, /* ErrorRollOver: too many keys down (phantom state) */
	USB_HID_USAGE_POSTFAIL = 0x02, /* POSTFail */
	USB_HID_USAGE_UNDEFINED = 0x03,/* ErrorUndefined */
	USB_HID_USAGE_CAPS_LOCK = 0x39,/* toggles caps lock on key-down */
	USB_HID_CHARS_MAX = 6,         /* at most one character per key slot from one report */
};

/* Modifier bitmap bits (byte 0 of the report; usages 0xE0-0xE7). */
enum usb_hid_mod {
	USB_HID_MOD_LCTRL = 1 << 0,
	USB_HID_MOD_LSHIFT = 1 << 1,
	USB_HID_MOD_LALT = 1 << 2,
	USB_HID_MOD_LGUI = 1 << 3,
	USB_HID_MOD_RCTRL = 1 << 4,
	USB_HID_MOD_RSHIFT = 1 << 5,
	USB_HID_MOD_RALT = 1 << 6,
	USB_HID_MOD_RGUI = 1 << 7,
	USB_HID_MOD_CTRL = USB_HID_MOD_LCTRL | USB_HID_MOD_RCTRL,
	USB_HID_MOD_SHIFT = USB_HID_MOD_LSHIFT | USB_HID_MOD_RSHIFT,
};

/* Tunables of the keyboard driver (usb_kbd.c). */
enum usb_kbd_tunables {
	USB_KBD_REPEAT_DELAY_MS = 500, /* held key: first repeat this long after it went down (PC default) */
	USB_KBD_REPEAT_RATE_HZ = 30,   /* then this many repeats a second (the PC's fastest typematic rate) */
	USB_KBD_REPEAT_SLACK_MS = 2,   /* how late a repeat timer may run (batching with other timers) */
	USB_KBD_IDLE_RATE = 0,         /* SET_IDLE duration: 0 = report only on change; repeat is ours */
};

/* What the translator keeps between reports. Zero it to start. */
struct usb_hid_kbd {
	uint8_t prev[USB_HID_REPORT_LEN]; /* the last report with key state */
	bool caps_lock;
	uint8_t repeat_usage;          /* the key that repeats while held, 0 for none */
	uint32_t repeat_gen;           /* bumped whenever a new repeat key goes down */
	uint32_t reports;              /* reports translated */
	uint32_t rollover;             /* ErrorRollOver reports ignored */
	uint32_t bad;                  /* reports refused (too short) */
};

/*
 * usb_hid_key_char - the character of key @usage with modifiers @mods and
 * caps lock @caps, in the US layout. CONTEXT: any; pure.
 * RETURNS 0-0x7F, or -1 when the key gives no character (arrows, F-keys,
 * modifiers, usages outside the map).
 */
int usb_hid_key_char(uint8_t usage, uint8_t mods, bool caps);

/*
 * usb_hid_kbd_feed - translate one report of @len bytes: the characters of
 * the keys that went down since the previous report, in slot order, into
 * @out (room for @cap; USB_HID_CHARS_MAX is always enough). Updates caps
 * lock and the repeat key. Only the first USB_HID_REPORT_LEN bytes count.
 * CONTEXT: any; pure.
 * RETURNS the number of characters; 0 for an ErrorRollOver report (the
 * state is left as it was); -EINVAL for a report shorter than
 * USB_HID_REPORT_LEN bytes or NULL arguments (state unchanged).
 */
int usb_hid_kbd_feed(struct usb_hid_kbd *k, const uint8_t *report, size_t len, uint8_t *out,
		     size_t cap);

/*
 * usb_hid_kbd_repeat_char - the character the repeat key gives now (with
 * the modifiers of the last report). CONTEXT: any; pure.
 * RETURNS it, or -1 when no key repeats.
 */
int usb_hid_kbd_repeat_char(const struct usb_hid_kbd *k);

/* usb_hid_kbd_repeat_period_ms - the repeat period from USB_KBD_REPEAT_RATE_HZ, rounded. */
static inline uint32_t usb_hid_kbd_repeat_period_ms(void)
{
	return (1000u + USB_KBD_REPEAT_RATE_HZ / 2) / USB_KBD_REPEAT_RATE_HZ;
}

#endif /* DRIVERS_USB_HID_H */
