/*
 * usb_hid_keymap.c - HID boot keyboard reports to characters, US layout.
 *
 * Usage IDs are those of the Keyboard/Keypad page 0x07 (HID Usage Tables
 * 1.12, chapter 10, table 12); the report format is HID 1.11 appendix B.1.
 * Pure code: no hardware, no kernel state, tested on the host
 * (tests/unit/test_usb_hid_keymap.c). The driver is usb_kbd.c; the header
 * usb_hid.h explains key-down detection, rollover and repeat.
 */
#include "usb_hid.h"

#include <kernel/errno.h>

/* Control characters the map produces. */
enum hid_ascii {
	ASCII_BACKSPACE = 0x08,
	ASCII_TAB = 0x09,
	ASCII_CR = 0x0D,
	ASCII_ESCAPE = 0x1B,
	ASCII_DELETE = 0x7F,
	ASCII_CTRL_MASK = 0x1F,        /* Ctrl+key = key & 0x1F for '@'..'_' and letters */
};

/* Usage ranges of the page (HID Usage Tables 1.12 table 12). */
enum hid_usage {
	USAGE_A = 0x04,                /* a..z: 0x04..0x1D */
	USAGE_Z = 0x1D,
	USAGE_MAIN_FIRST = 0x04,       /* first entry of main_map[] */
	USAGE_MAIN_LAST = 0x38,        /* Keyboard / and ? */
	USAGE_DELETE_FORWARD = 0x4C,
	USAGE_KP_FIRST = 0x54,         /* Keypad / */
	USAGE_KP_LAST = 0x63,          /* Keypad . and Delete */
	USAGE_KP_EQUAL = 0x67,
};

/* Unshifted and shifted characters of usages 0x04..0x38 (0 = none). */
static const char main_map[USAGE_MAIN_LAST - USAGE_MAIN_FIRST + 1][2] = {
	{'a', 'A'}, {'b', 'B'}, {'c', 'C'}, {'d', 'D'}, {'e', 'E'}, {'f', 'F'},   /* 0x04 */
	{'g', 'G'}, {'h', 'H'}, {'i', 'I'}, {'j', 'J'}, {'k', 'K'}, {'l', 'L'},   /* 0x0A */
	{'m', 'M'}, {'n', 'N'}, {'o', 'O'}, {'p', 'P'}, {'q', 'Q'}, {'r', 'R'},   /* 0x10 */
	{'s', 'S'}, {'t', 'T'}, {'u', 'U'}, {'v', 'V'}, {'w', 'W'}, {'x', 'X'},   /* 0x16 */
	{'y', 'Y'}, {'z', 'Z'},                                                   /* 0x1C */
	{'1', '!'}, {'2', '@'}, {'3', '#'}, {'4', '$'}, {'5', '%'}, {'6', '^'},   /* 0x1E */
	{'7', '&'}, {'8', '*'}, {'9', '('}, {'0', ')'},                           /* 0x24 */
	{ASCII_CR, ASCII_CR},          /* 0x28 Return (ENTER) */
	{ASCII_ESCAPE, ASCII_ESCAPE},  /* 0x29 ESCAPE */
	{ASCII_BACKSPACE, ASCII_BACKSPACE}, /* 0x2A DELETE (Backspace) */
	{ASCII_TAB, ASCII_TAB},        /* 0x2B Tab */
	{' ', ' '},                    /* 0x2C Spacebar */
	{'-', '_'}, {'=', '+'}, {'[', '{'}, {']', '}'}, {'\\', '|'},             /* 0x2D-0x31 */
	{'\\', '|'},                   /* 0x32 Non-US # and ~: on a US board the same key as 0x31 */
	{';', ':'}, {'\'', '"'}, {'`', '~'}, {',', '<'}, {'.', '>'}, {'/', '?'}, /* 0x33-0x38 */
};

/* Keypad usages 0x54..0x63 (num lock assumed on; no shift meaning). */
static const char keypad_map[USAGE_KP_LAST - USAGE_KP_FIRST + 1] = {
	'/', '*', '-', '+', ASCII_CR,                      /* 0x54-0x58 */
	'1', '2', '3', '4', '5', '6', '7', '8', '9', '0',  /* 0x59-0x62 */
	'.',                                               /* 0x63 */
};

static bool is_letter_usage(uint8_t usage)
{
	return usage >= USAGE_A && usage <= USAGE_Z;
}

int usb_hid_key_char(uint8_t usage, uint8_t mods, bool caps)
{
	bool shift = (mods & USB_HID_MOD_SHIFT) != 0;
	int c;

	if (usage >= USAGE_MAIN_FIRST && usage <= USAGE_MAIN_LAST) {
		/* Caps lock shifts letters only; shift with caps lock gives lower case. */
		if (is_letter_usage(usage) && caps)
			shift = !shift;
		c = (unsigned char)main_map[usage - USAGE_MAIN_FIRST][shift ? 1 : 0];
	} else if (usage >= USAGE_KP_FIRST && usage <= USAGE_KP_LAST) {
		c = (unsigned char)keypad_map[usage - USAGE_KP_FIRST];
	} else if (usage == USAGE_KP_EQUAL) {
		c = '=';
	} else if (usage == USAGE_DELETE_FORWARD) {
		c = ASCII_DELETE;
	} else {
		return -1;
	}
	if (!c)
		return -1;
	/* Ctrl turns letters and @ [ \ ] ^ _ into control codes 0x00-0x1F, as a
	 * terminal does; other keys keep their character. */
	if (mods & USB_HID_MOD_CTRL) {
		int up = (c >= 'a' && c <= 'z') ? c - 'a' + 'A' : c;

		if (up >= '@' && up <= '_')
			return up & ASCII_CTRL_MASK;
	}
	return c;
}

static bool in_slots(const uint8_t *report, uint8_t usage)
{
	for (unsigned int i = 0; i < USB_HID_KEY_SLOTS; i++)
		if (report[USB_HID_REPORT_KEYS + i] == usage)
			return true;
	return false;
}

/* An error report: every slot says ErrorRollOver (or POSTFail/ErrorUndefined);
 * HID 1.11 B.1 fills them all. One such slot is enough for us to distrust
 * the report's key state. */
static bool is_phantom(const uint8_t *report)
{
	for (unsigned int i = 0; i < USB_HID_KEY_SLOTS; i++) {
		uint8_t u = report[USB_HID_REPORT_KEYS + i];

		if (u == USB_HID_USAGE_ROLLOVER || u == USB_HID_USAGE_POSTFAIL ||
		    u == USB_HID_USAGE_UNDEFINED)
			return true;
	}
	return false;
}

int usb_hid_kbd_feed(struct usb_hid_kbd *k, const uint8_t *report, size_t len, uint8_t *out,
		     size_t cap)
{
	uint8_t mods;
	size_t n = 0;

	if (!k || !report || (!out && cap))
		return -EINVAL;
	if (len < USB_HID_REPORT_LEN) {
		k->bad++;
		return -EINVAL;
	}
	if (is_phantom(report)) {
		k->rollover++;
		return 0;
	}
	k->reports++;
	mods = report[USB_HID_REPORT_MODS];

	/* The repeat key stops when it is released. */
	if (k->repeat_usage && !in_slots(report, k->repeat_usage))
		k->repeat_usage = 0;

	for (unsigned int i = 0; i < USB_HID_KEY_SLOTS; i++) {
		uint8_t u = report[USB_HID_REPORT_KEYS + i];
		int c;

		if (u == USB_HID_USAGE_NONE || in_slots(k->prev, u))
			continue;            /* empty, or held since the last report */
		/* A usage twice in one report is one key. */
		bool dup = false;
		for (unsigned int j = 0; j < i; j++)
			dup |= report[USB_HID_REPORT_KEYS + j] == u;
		if (dup)
			continue;
		if (u == USB_HID_USAGE_CAPS_LOCK) {
			k->caps_lock = !k->caps_lock;
			continue;
		}
		c = usb_hid_key_char(u, mods, k->caps_lock);
		if (c < 0)
			continue;
		if (n < cap)
			out[n++] = (uint8_t)c;
		k->repeat_usage = u;     /* the newest key repeats, as on a PC */
		k->repeat_gen++;
	}
	for (unsigned int i = 0; i < USB_HID_REPORT_LEN; i++)
		k->prev[i] = report[i];
	return (int)n;
}

int usb_hid_kbd_repeat_char(const struct usb_hid_kbd *k)
{
	if (!k || !k->repeat_usage)
		return -1;
	return usb_hid_key_char(k->repeat_usage, k->prev[USB_HID_REPORT_MODS], k->caps_lock);
}
