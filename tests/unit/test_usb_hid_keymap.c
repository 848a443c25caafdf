/*
 * test_usb_hid_keymap.c - host unit tests of the HID boot keyboard
 * translator (drivers/usb/usb_hid_keymap.c): every key of the US map plain
 * and shifted, caps lock, Ctrl codes, key-down detection across reports,
 * held keys, release, ErrorRollOver reports, six-key rollover order, the
 * repeat key, and short reports.
 *
 * The expected characters are written out here from the HID Usage Tables
 * 1.12 (chapter 10) and a US keyboard, not derived from the driver's table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../drivers/usb/usb_hid.h"
#include <kernel/errno.h>

enum { LSHIFT = 0x02, RSHIFT = 0x20, LCTRL = 0x01, RCTRL = 0x10, LALT = 0x04 };

/* Feed one report with modifiers @mods and up to six usages; return the characters as a string. */
static int feed(struct usb_hid_kbd *k, uint8_t mods, const uint8_t keys[6], char *s)
{
	uint8_t rep[8] = {mods, 0};
	uint8_t out[USB_HID_CHARS_MAX];
	int n;

	for (int i = 0; i < 6; i++)
		rep[2 + i] = keys ? keys[i] : 0;
	n = usb_hid_kbd_feed(k, rep, sizeof(rep), out, sizeof(out));
	if (s) {
		for (int i = 0; i < n; i++)
			s[i] = (char)out[i];
		s[n > 0 ? n : 0] = 0;
	}
	return n;
}

/* Press and release one key; RETURN its character or -1. */
static int tap(struct usb_hid_kbd *k, uint8_t mods, uint8_t usage)
{
	uint8_t keys[6] = {usage};
	char s[8];
	int n = feed(k, mods, keys, s);

	feed(k, 0, NULL, NULL);
	return n == 1 ? (unsigned char)s[0] : -1;
}

/* usages 0x04-0x38 on a US keyboard, unshifted and shifted (0x28-0x2C are control keys) */
static const char plain_0x04[] = "abcdefghijklmnopqrstuvwxyz1234567890";
static const char shift_0x04[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ!@#$%^&*()";
static const char plain_0x2d[] = "-=[]\\\\;'`,./";
static const char shift_0x2d[] = "_+{}||:\"~<>?";

static void every_letter_digit_and_punctuation_key_gives_its_us_character(void **state)
{
	struct usb_hid_kbd k = {0};

	(void)state;
	for (unsigned int i = 0; i < strlen(plain_0x04); i++) {
		assert_int_equal(tap(&k, 0, (uint8_t)(0x04 + i)), plain_0x04[i]);
		assert_int_equal(tap(&k, LSHIFT, (uint8_t)(0x04 + i)), shift_0x04[i]);
		assert_int_equal(tap(&k, RSHIFT, (uint8_t)(0x04 + i)), shift_0x04[i]);
	}
	for (unsigned int i = 0; i < strlen(plain_0x2d); i++) {
		assert_int_equal(tap(&k, 0, (uint8_t)(0x2D + i)), plain_0x2d[i]);
		assert_int_equal(tap(&k, LSHIFT, (uint8_t)(0x2D + i)), shift_0x2d[i]);
	}
}

static void control_keys_give_what_the_shell_reads(void **state)
{
	struct usb_hid_kbd k = {0};

	(void)state;
	assert_int_equal(tap(&k, 0, 0x28), '\r');    /* Enter */
	assert_int_equal(tap(&k, LSHIFT, 0x28), '\r');
	assert_int_equal(tap(&k, 0, 0x29), 0x1B);    /* Escape */
	assert_int_equal(tap(&k, 0, 0x2A), 0x08);    /* Backspace */
	assert_int_equal(tap(&k, 0, 0x2B), '\t');
	assert_int_equal(tap(&k, 0, 0x2C), ' ');
	assert_int_equal(tap(&k, LSHIFT, 0x2C), ' ');
	assert_int_equal(tap(&k, 0, 0x4C), 0x7F);    /* Delete Forward */
	assert_int_equal(tap(&k, 0, 0x58), '\r');    /* Keypad Enter */
}

static void keypad_keys_give_digits_and_operators(void **state)
{
	static const char kp[] = "/*-+\r1234567890.";
	struct usb_hid_kbd k = {0};

	(void)state;
	for (unsigned int i = 0; i < strlen(kp); i++)
		assert_int_equal(tap(&k, 0, (uint8_t)(0x54 + i)), kp[i]);
	assert_int_equal(tap(&k, 0, 0x67), '=');
}

static void keys_without_a_character_give_nothing(void **state)
{
	static const uint8_t silent[] = {0x3A, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x4B, 0x4D,
					 0x4E, 0x4F, 0x50, 0x51, 0x52, 0x53, 0x64, 0x65, 0x68,
					 0xE0, 0xE1, 0xE7, 0xFF};
	struct usb_hid_kbd k = {0};

	(void)state;
	for (unsigned int i = 0; i < sizeof(silent); i++) {
		assert_int_equal(usb_hid_key_char(silent[i], 0, false), -1);
		assert_int_equal(tap(&k, 0, silent[i]), -1);
	}
}

static void ctrl_letters_become_control_codes(void **state)
{
	struct usb_hid_kbd k = {0};

	(void)state;
	for (uint8_t u = 0x04; u <= 0x1D; u++) {
		assert_int_equal(tap(&k, LCTRL, u), u - 0x04 + 1);
		assert_int_equal(tap(&k, RCTRL | LSHIFT, u), u - 0x04 + 1);
	}
	assert_int_equal(tap(&k, LCTRL, 0x06), 0x03);  /* Ctrl+C abandons the line */
	assert_int_equal(tap(&k, LCTRL, 0x18), 0x15);  /* Ctrl+U erases it */
	assert_int_equal(tap(&k, LCTRL, 0x2F), 0x1B);  /* Ctrl+[ is Escape */
	assert_int_equal(tap(&k, LCTRL, 0x1E), '1');   /* digits keep their character */
	assert_int_equal(tap(&k, LALT, 0x04), 'a');    /* Alt does not change the character */
}

static void caps_lock_shifts_letters_only_and_toggles_on_key_down(void **state)
{
	struct usb_hid_kbd k = {0};
	uint8_t caps[6] = {0x39};

	(void)state;
	assert_int_equal(feed(&k, 0, caps, NULL), 0);
	assert_true(k.caps_lock);
	assert_int_equal(feed(&k, 0, caps, NULL), 0);   /* held: no second toggle */
	assert_true(k.caps_lock);
	feed(&k, 0, NULL, NULL);
	assert_int_equal(tap(&k, 0, 0x04), 'A');
	assert_int_equal(tap(&k, LSHIFT, 0x04), 'a');
	assert_int_equal(tap(&k, 0, 0x1E), '1');
	assert_int_equal(tap(&k, 0, 0x2D), '-');
	feed(&k, 0, caps, NULL);
	feed(&k, 0, NULL, NULL);
	assert_false(k.caps_lock);
	assert_int_equal(tap(&k, 0, 0x04), 'a');
}

static void a_key_held_across_reports_is_pressed_once(void **state)
{
	struct usb_hid_kbd k = {0};
	uint8_t a[6] = {0x04}, ab[6] = {0x04, 0x05}, b[6] = {0x05};
	char s[8];

	(void)state;
	assert_int_equal(feed(&k, 0, a, s), 1);
	assert_string_equal(s, "a");
	assert_int_equal(feed(&k, 0, a, s), 0);         /* same report again (idle repeat) */
	assert_int_equal(feed(&k, LSHIFT, a, s), 0);    /* a modifier change is no key press */
	assert_int_equal(feed(&k, 0, ab, s), 1);
	assert_string_equal(s, "b");
	assert_int_equal(feed(&k, 0, b, s), 0);         /* a released: nothing */
	assert_int_equal(feed(&k, 0, ab, s), 1);        /* a again: pressed again */
	assert_string_equal(s, "a");
	assert_int_equal(feed(&k, 0, NULL, s), 0);
	assert_int_equal(feed(&k, 0, b, s), 1);         /* b after a full release */
	assert_string_equal(s, "b");
	assert_int_equal(k.reports, 8);
}

static void a_key_moving_to_another_slot_is_not_a_new_press(void **state)
{
	struct usb_hid_kbd k = {0};
	uint8_t ab[6] = {0x04, 0x05}, b_first[6] = {0x05}, ba[6] = {0x05, 0x04};
	char s[8];

	(void)state;
	assert_int_equal(feed(&k, 0, ab, s), 2);
	assert_int_equal(feed(&k, 0, b_first, s), 0);
	assert_int_equal(feed(&k, 0, ba, s), 1);
	assert_string_equal(s, "a");
}

static void six_keys_pressed_together_come_out_in_slot_order(void **state)
{
	struct usb_hid_kbd k = {0};
	uint8_t six[6] = {0x0B, 0x08, 0x0F, 0x0F, 0x12, 0x2C}; /* h e l l o space */
	uint8_t six2[6] = {0x1A, 0x12, 0x15, 0x0F, 0x07, 0x1E}; /* w o r l d 1 */
	char s[8];

	(void)state;
	/* a usage twice in one report is one key */
	assert_int_equal(feed(&k, 0, six, s), 5);
	assert_string_equal(s, "helo ");
	feed(&k, 0, NULL, NULL);
	assert_int_equal(feed(&k, LSHIFT, six2, s), 6);
	assert_string_equal(s, "WORLD!");
}

static void an_error_rollover_report_is_ignored_and_keeps_the_key_state(void **state)
{
	struct usb_hid_kbd k = {0};
	uint8_t ab[6] = {0x04, 0x05};
	uint8_t phantom[6] = {1, 1, 1, 1, 1, 1};
	uint8_t postfail[6] = {2, 2, 2, 2, 2, 2};
	uint8_t abc[6] = {0x04, 0x05, 0x06};
	char s[8];

	(void)state;
	assert_int_equal(feed(&k, 0, ab, s), 2);
	assert_int_equal(feed(&k, 0, phantom, s), 0);
	assert_int_equal(feed(&k, 0, postfail, s), 0);
	assert_int_equal(k.rollover, 2);
	/* a and b were held through the phantom reports: only c is new */
	assert_int_equal(feed(&k, 0, abc, s), 1);
	assert_string_equal(s, "c");
	assert_int_equal(usb_hid_kbd_repeat_char(&k), 'c');
}

static void the_newest_key_repeats_until_it_is_released(void **state)
{
	struct usb_hid_kbd k = {0};
	uint8_t a[6] = {0x04}, ab[6] = {0x04, 0x05}, shift_key[6] = {0x39};
	uint32_t gen;

	(void)state;
	assert_int_equal(usb_hid_kbd_repeat_char(&k), -1);
	feed(&k, 0, a, NULL);
	assert_int_equal(usb_hid_kbd_repeat_char(&k), 'a');
	gen = k.repeat_gen;
	feed(&k, 0, a, NULL);                 /* held: same repeat, no restart */
	assert_int_equal(k.repeat_gen, gen);
	feed(&k, LSHIFT, a, NULL);            /* shift while held: repeats upper case */
	assert_int_equal(usb_hid_kbd_repeat_char(&k), 'A');
	assert_int_equal(k.repeat_gen, gen);
	feed(&k, 0, ab, NULL);                /* b goes down: b repeats, delay restarts */
	assert_int_equal(usb_hid_kbd_repeat_char(&k), 'b');
	assert_int_not_equal(k.repeat_gen, gen);
	feed(&k, 0, a, NULL);                 /* b released while a held: nothing repeats */
	assert_int_equal(usb_hid_kbd_repeat_char(&k), -1);
	feed(&k, 0, NULL, NULL);
	feed(&k, 0, shift_key, NULL);         /* caps lock gives no character and does not repeat */
	assert_int_equal(usb_hid_kbd_repeat_char(&k), -1);
	assert_int_equal(usb_hid_kbd_repeat_period_ms(), 33);
}

static void short_or_missing_reports_are_refused_without_changing_state(void **state)
{
	struct usb_hid_kbd k = {0};
	uint8_t rep[8] = {0, 0, 0x04};
	uint8_t out[USB_HID_CHARS_MAX];

	(void)state;
	assert_int_equal(usb_hid_kbd_feed(&k, rep, 7, out, sizeof(out)), -EINVAL);
	assert_int_equal(usb_hid_kbd_feed(&k, rep, 0, out, sizeof(out)), -EINVAL);
	assert_int_equal(usb_hid_kbd_feed(&k, NULL, 8, out, sizeof(out)), -EINVAL);
	assert_int_equal(usb_hid_kbd_feed(NULL, rep, 8, out, sizeof(out)), -EINVAL);
	assert_int_equal(k.bad, 2);
	assert_int_equal(k.reports, 0);
	/* a longer report counts its first 8 bytes; a small @cap bounds the output */
	uint8_t longer[12] = {0, 0, 0x04, 0x05, 0x06, 0, 0, 0, 0x07, 0x07, 0x07, 0x07};
	assert_int_equal(usb_hid_kbd_feed(&k, longer, sizeof(longer), out, 2), 2);
	assert_int_equal(out[0], 'a');
	assert_int_equal(out[1], 'b');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_letter_digit_and_punctuation_key_gives_its_us_character),
		cmocka_unit_test(control_keys_give_what_the_shell_reads),
		cmocka_unit_test(keypad_keys_give_digits_and_operators),
		cmocka_unit_test(keys_without_a_character_give_nothing),
		cmocka_unit_test(ctrl_letters_become_control_codes),
		cmocka_unit_test(caps_lock_shifts_letters_only_and_toggles_on_key_down),
		cmocka_unit_test(a_key_held_across_reports_is_pressed_once),
		cmocka_unit_test(a_key_moving_to_another_slot_is_not_a_new_press),
		cmocka_unit_test(six_keys_pressed_together_come_out_in_slot_order),
		cmocka_unit_test(an_error_rollover_report_is_ignored_and_keeps_the_key_state),
		cmocka_unit_test(the_newest_key_repeats_until_it_is_released),
		cmocka_unit_test(short_or_missing_reports_are_refused_without_changing_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
