/*
 * test_i8042_decode.c - host tests of the PS/2 decoders (drivers/input/
 * i8042_decode.c): scan code set 2 to characters with shift, Ctrl, the lock
 * keys and the keypad; typematic repeat; and the byte streams that must
 * resynchronise: garbage, broken prefixes and Pause sequences, answers in
 * the middle of a code, a stuck scan code, mouse packets with bad first
 * bytes, overflow, unfinished packets and a mouse that sends 4-byte
 * packets unannounced. Each case feeds bytes with the time they came.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../drivers/input/i8042_decode.h"
#include "../../drivers/input/i8042_regs.h"

#define MS 1000000ull

/* ---- keyboard helpers ---- */

struct kbd_run {
	struct ps2_kbd k;
	char text[256];        /* characters given */
	size_t n;
	unsigned int leds_asks;
	unsigned int answers;
	uint8_t last_answer;
	uint8_t usages[64];    /* key-down events (first presses and repeats) */
	size_t nusages;
	uint64_t now;
};

static void kbd_start(struct kbd_run *r)
{
	memset(r, 0, sizeof(*r));
	ps2_kbd_init(&r->k, true);
	r->now = 1000 * MS;
}

/* Feed @len bytes, all at the current time. */
static void feed(struct kbd_run *r, const uint8_t *b, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		struct ps2_kbd_out o;
		int ret = ps2_kbd_feed(&r->k, b[i], r->now, &o);

		assert_true(ret == 0 || ret == 1);
		if (ret == 0) {
			assert_int_equal(o.ch, -1);
			continue;
		}
		if (o.ch >= 0) {
			assert_true(o.ch <= 0x7F);
			assert_true(r->n < sizeof(r->text) - 1);
			r->text[r->n++] = (char)o.ch;
		}
		if (o.leds_changed)
			r->leds_asks++;
		if (o.response >= 0) {
			r->answers++;
			r->last_answer = (uint8_t)o.response;
		}
		if (o.usage && o.down && r->nusages < sizeof(r->usages))
			r->usages[r->nusages++] = o.usage;
	}
}

#define FEED(r, ...) do { const uint8_t b_[] = { __VA_ARGS__ }; feed((r), b_, sizeof(b_)); } while (0)

static void assert_text(const struct kbd_run *r, const char *want)
{
	assert_int_equal(r->n, strlen(want));
	assert_memory_equal(r->text, want, r->n);
}

/* Set 2 make codes of the letters and digits (Microsoft's Keyboard Scan Code Specification,
 * appendix C), written out here independently of the driver's table. */
static const struct { char ch; uint8_t code; } spec_codes[] = {
	{'a', 0x1C}, {'b', 0x32}, {'c', 0x21}, {'d', 0x23}, {'e', 0x24}, {'f', 0x2B}, {'g', 0x34},
	{'h', 0x33}, {'i', 0x43}, {'j', 0x3B}, {'k', 0x42}, {'l', 0x4B}, {'m', 0x3A}, {'n', 0x31},
	{'o', 0x44}, {'p', 0x4D}, {'q', 0x15}, {'r', 0x2D}, {'s', 0x1B}, {'t', 0x2C}, {'u', 0x3C},
	{'v', 0x2A}, {'w', 0x1D}, {'x', 0x22}, {'y', 0x35}, {'z', 0x1A}, {'1', 0x16}, {'2', 0x1E},
	{'3', 0x26}, {'4', 0x25}, {'5', 0x2E}, {'6', 0x36}, {'7', 0x3D}, {'8', 0x3E}, {'9', 0x46},
	{'0', 0x45}, {'-', 0x4E}, {'=', 0x55}, {'[', 0x54}, {']', 0x5B}, {'\\', 0x5D}, {';', 0x4C},
	{'\'', 0x52}, {'`', 0x0E}, {',', 0x41}, {'.', 0x49}, {'/', 0x4A}, {' ', 0x29}, {'\t', 0x0D},
	{'\r', 0x5A}, {'\b', 0x66}, {0x1B, 0x76},
};

static void every_key_of_the_us_map_types_its_character(void **state)
{
	struct kbd_run r;
	char want[128];

	(void)state;
	kbd_start(&r);
	for (size_t i = 0; i < sizeof(spec_codes) / sizeof(spec_codes[0]); i++) {
		FEED(&r, spec_codes[i].code, PS2_SET2_BREAK, spec_codes[i].code);
		want[i] = spec_codes[i].ch;
	}
	want[sizeof(spec_codes) / sizeof(spec_codes[0])] = 0;
	assert_text(&r, want);
	assert_int_equal(r.k.keys_down, sizeof(spec_codes) / sizeof(spec_codes[0]));
	assert_int_equal(r.k.keys_up, r.k.keys_down);
	assert_int_equal(r.k.garbage + r.k.unknown + r.k.stuck, 0);
}

static void shift_gives_upper_case_and_symbols_and_its_break_ends_it(void **state)
{
	struct kbd_run r;

	(void)state;
	kbd_start(&r);
	FEED(&r, 0x12, 0x1C, 0xF0, 0x1C, 0x16, 0xF0, 0x16, 0xF0, 0x12);   /* LShift: A ! */
	FEED(&r, 0x59, 0x4A, 0xF0, 0x4A, 0xF0, 0x59);                     /* RShift: ? */
	FEED(&r, 0x1C);                                                   /* released: a */
	assert_text(&r, "A!?a");
}

static void ctrl_gives_control_codes_with_either_ctrl(void **state)
{
	struct kbd_run r;

	(void)state;
	kbd_start(&r);
	FEED(&r, 0x14, 0x21, 0xF0, 0x21, 0xF0, 0x14);                      /* LCtrl+C */
	FEED(&r, 0xE0, 0x14, 0x3C, 0xF0, 0x3C, 0xE0, 0xF0, 0x14);          /* RCtrl+U */
	FEED(&r, 0x21);
	assert_text(&r, "\x03\x15" "c");
}

static void caps_lock_toggles_on_its_make_only_and_asks_for_the_leds(void **state)
{
	struct kbd_run r;

	(void)state;
	kbd_start(&r);
	assert_int_equal(ps2_kbd_leds(&r.k), PS2_LED_NUM);
	FEED(&r, 0x58);
	assert_int_equal(r.leds_asks, 1);
	assert_int_equal(ps2_kbd_leds(&r.k), PS2_LED_NUM | PS2_LED_CAPS);
	r.now += 600 * MS;
	FEED(&r, 0x58);                                 /* a typematic repeat: no second toggle */
	assert_int_equal(r.leds_asks, 1);
	FEED(&r, 0xF0, 0x58, 0x1C, 0xF0, 0x1C, 0x12, 0x1C, 0xF0, 0x1C, 0xF0, 0x12);
	assert_text(&r, "Aa");                          /* caps: upper; caps with shift: lower */
	FEED(&r, 0x7E, 0xF0, 0x7E);                     /* scroll lock */
	assert_int_equal(r.leds_asks, 2);
	assert_int_equal(ps2_kbd_leds(&r.k), PS2_LED_NUM | PS2_LED_CAPS | PS2_LED_SCROLL);
}

static void keypad_digits_need_num_lock_its_operators_do_not(void **state)
{
	struct kbd_run r;

	(void)state;
	kbd_start(&r);
	FEED(&r, 0x69, 0xF0, 0x69, 0x7C, 0xF0, 0x7C);          /* KP1 KP* with num lock */
	FEED(&r, 0x77, 0xF0, 0x77);                            /* num lock off */
	assert_int_equal(ps2_kbd_leds(&r.k), 0);
	FEED(&r, 0x69, 0xF0, 0x69, 0x7C, 0xF0, 0x7C);          /* KP1 is End now; KP* still * */
	FEED(&r, 0xE0, 0x4A, 0xE0, 0xF0, 0x4A);                /* KP/ */
	assert_text(&r, "1**/");
}

static void extended_keys_decode_and_fake_shifts_are_no_key(void **state)
{
	struct kbd_run r;

	(void)state;
	kbd_start(&r);
	FEED(&r, 0xE0, 0x71, 0xE0, 0xF0, 0x71);                /* Delete */
	FEED(&r, 0xE0, 0x5A, 0xE0, 0xF0, 0x5A);                /* KP Enter */
	FEED(&r, 0xE0, 0x75, 0xE0, 0xF0, 0x75);                /* Up: no character */
	/* Print Screen wrapped in a fake shift: E0 12 E0 7C ... E0 F0 7C E0 F0 12 */
	FEED(&r, 0xE0, 0x12, 0xE0, 0x7C, 0xE0, 0xF0, 0x7C, 0xE0, 0xF0, 0x12);
	FEED(&r, 0x1C);                                        /* no shift is held after it */
	assert_text(&r, "\x7f\ra");
	assert_int_equal(r.k.unknown + r.k.garbage, 0);
	assert_int_equal(ps2_kbd_mods(&r.k), 0);
}

static void a_held_key_repeats_after_the_typematic_delay(void **state)
{
	struct kbd_run r;

	(void)state;
	kbd_start(&r);
	FEED(&r, 0x1C);
	r.now += 500 * MS;                      /* the delay irqkit programs */
	for (int i = 0; i < 5; i++) {
		FEED(&r, 0x1C);
		r.now += 33 * MS;                   /* 30 a second */
	}
	FEED(&r, 0xF0, 0x1C);
	assert_text(&r, "aaaaaa");
	assert_int_equal(r.k.repeats, 5);
	assert_int_equal(r.k.keys_down, 1);
	assert_int_equal(r.k.stuck, 0);
}

static void a_stuck_scan_code_gives_one_character_until_its_break(void **state)
{
	struct kbd_run r;

	(void)state;
	kbd_start(&r);
	/* The same make byte read over and over (port 0x60 read without the output buffer full). */
	for (int i = 0; i < 50; i++) {
		FEED(&r, 0x1C);
		r.now += 1 * MS;
	}
	assert_text(&r, "a");
	assert_int_equal(r.k.stuck, 49);
	/* and between real repeats: one 5 ms after a repeat is dropped too */
	r.now += 500 * MS;
	FEED(&r, 0x1C);
	r.now += 5 * MS;
	FEED(&r, 0x1C);
	assert_text(&r, "aa");
	assert_int_equal(r.k.stuck, 50);
	FEED(&r, 0xF0, 0x1C, 0x32);
	assert_text(&r, "aab");
}

static void only_the_last_key_repeats(void **state)
{
	struct kbd_run r;

	(void)state;
	kbd_start(&r);
	FEED(&r, 0x1C, 0x32);                   /* a down, b down: b is the one that repeats */
	r.now += 600 * MS;
	FEED(&r, 0x1C, 0x32);                   /* a make now is not a keyboard's repeat */
	assert_text(&r, "abb");
	assert_int_equal(r.k.stuck, 1);
}

static void garbage_between_keys_changes_nothing_after_it(void **state)
{
	struct kbd_run r;

	(void)state;
	kbd_start(&r);
	FEED(&r, 0x02, 0x5F, 0x80, 0x90, 0xC4);          /* codes that name no key */
	FEED(&r, 0xF0, 0xF0, 0x1C);                      /* a doubled break prefix: one break */
	FEED(&r, 0xF0, 0x32);                            /* a break of a key not down */
	FEED(&r, 0x1C, 0xF0, 0x1C);
	assert_text(&r, "a");
	assert_int_equal(r.k.unknown, 5);
	assert_int_equal(r.k.garbage, 3);                /* F0 F0, the 'a' break, the 'b' break */
	assert_int_equal(r.k.state, PS2_KBD_IDLE);
}

static void an_answer_cuts_a_code_short_and_is_handed_on(void **state)
{
	struct kbd_run r;

	(void)state;
	kbd_start(&r);
	FEED(&r, 0xE0, PS2_ACK);
	assert_int_equal(r.answers, 1);
	assert_int_equal(r.last_answer, PS2_ACK);
	assert_int_equal(r.k.garbage, 1);
	FEED(&r, 0xF0, PS2_RESEND, 0x1C);                /* the 0x1C is a make, not a break */
	assert_int_equal(r.last_answer, PS2_RESEND);
	assert_text(&r, "a");
	assert_int_equal(r.k.state, PS2_KBD_IDLE);
}

static void pause_is_one_key_and_a_broken_pause_resynchronises(void **state)
{
	struct kbd_run r;

	(void)state;
	kbd_start(&r);
	FEED(&r, 0xE1, 0x14, 0x77, 0xE1, 0xF0, 0x14, 0xF0, 0x77);
	assert_int_equal(r.nusages, 1);
	assert_int_equal(r.usages[0], 0x48);
	assert_int_equal(ps2_kbd_mods(&r.k), 0);         /* its 14 (Ctrl) bytes hold no Ctrl */
	FEED(&r, 0xE1, 0x14, 0x1C, 0xF0, 0x1C);          /* cut off: the 1C is decoded afresh */
	assert_text(&r, "a");
	assert_int_equal(r.k.garbage, 1);
}

static void bat_and_overrun_release_every_key(void **state)
{
	struct kbd_run r;

	(void)state;
	kbd_start(&r);
	FEED(&r, 0x12, 0x14, PS2_BAT_OK, 0x1C, 0xF0, 0x1C);
	assert_text(&r, "a");
	assert_int_equal(r.k.resets, 1);
	FEED(&r, 0x12, PS2_OVERRUN_SET2, 0x1C);
	assert_text(&r, "aa");
	assert_int_equal(r.k.overruns, 1);
}

/* Every byte in every state: no crash, nothing out of range, and an answer always ends in IDLE. */
static void every_byte_in_every_state_is_taken_safely(void **state)
{
	static const uint8_t into[][3] = { {0}, {0xE0}, {0xF0}, {0xE0, 0xF0}, {0xE1, 0x14}, {0xE1, 0x14, 0x77} };
	static const size_t into_len[] = { 0, 1, 1, 2, 2, 3 };
	struct kbd_run r;

	(void)state;
	for (size_t s = 0; s < sizeof(into) / sizeof(into[0]); s++)
		for (unsigned int b = 0; b < 256; b++) {
			kbd_start(&r);
			feed(&r, into[s], into_len[s]);
			FEED(&r, (uint8_t)b);
			if (b == PS2_ACK || b == PS2_BAT_OK || b == PS2_OVERRUN_SET2 || b == PS2_OVERRUN_SET1)
				assert_int_equal(r.k.state, PS2_KBD_IDLE);
			assert_true(r.n <= 1);
		}
}

static void a_random_stream_then_an_overrun_leaves_a_working_decoder(void **state)
{
	struct kbd_run r;
	uint32_t x = 12345;

	(void)state;
	kbd_start(&r);
	for (int i = 0; i < 200000; i++) {
		uint8_t b;

		x = x * 1103515245u + 12345u;
		b = (uint8_t)(x >> 16);
		feed(&r, &b, 1);
		r.n = 0;                                    /* the characters of noise do not matter */
		r.now += (x >> 8) % (3 * MS);
	}
	r.now += 10000 * MS;
	FEED(&r, PS2_OVERRUN_SET2);                      /* all keys up, state IDLE */
	r.k.caps_lock = false;                           /* the lock keys are the host's choice */
	FEED(&r, 0x1C, 0xF0, 0x1C, 0x12, 0x32, 0xF0, 0x32, 0xF0, 0x12);
	assert_text(&r, "aB");
}

/* ---- mouse helpers ---- */

struct mouse_run {
	struct ps2_mouse m;
	struct ps2_mouse_packet p[64];
	size_t n;
	unsigned int bats;
	uint64_t now;
};

static void mouse_start(struct mouse_run *r, unsigned int len, bool wheel)
{
	memset(r, 0, sizeof(*r));
	ps2_mouse_init(&r->m, len, wheel);
	r->now = 1000 * MS;
}

static void mfeed(struct mouse_run *r, const uint8_t *b, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		struct ps2_mouse_packet p;
		int ret = ps2_mouse_feed(&r->m, b[i], r->now, &p);

		assert_true(ret >= 0 && ret <= 2);
		if (ret == 1 && r->n < sizeof(r->p) / sizeof(r->p[0]))
			r->p[r->n++] = p;
		if (ret == 2)
			r->bats++;
	}
}

#define MFEED(r, ...) do { const uint8_t b_[] = { __VA_ARGS__ }; mfeed((r), b_, sizeof(b_)); } while (0)

static void assert_packet(const struct ps2_mouse_packet *p, int dx, int dy, int dz, uint8_t buttons)
{
	assert_int_equal(p->dx, dx);
	assert_int_equal(p->dy, dy);
	assert_int_equal(p->dz, dz);
	assert_int_equal(p->buttons, buttons);
}

static void standard_packets_decode_with_signs_and_buttons(void **state)
{
	struct mouse_run r;

	(void)state;
	mouse_start(&r, 3, false);
	MFEED(&r, 0x29, 0x05, 0xFB);                     /* left, dx +5, dy -5 (Y sign) */
	MFEED(&r, 0x1A, 0x80, 0x7F);                     /* right, dx -128 (X sign), dy +127 */
	MFEED(&r, 0x0C, 0x00, 0x00);                     /* middle */
	assert_int_equal(r.n, 3);
	assert_packet(&r.p[0], 5, -5, 0, PS2_MOUSE_LEFT);
	assert_packet(&r.p[1], -128, 127, 0, PS2_MOUSE_RIGHT);
	assert_packet(&r.p[2], 0, 0, 0, PS2_MOUSE_MIDDLE);
}

static void a_wheel_mouse_sends_its_wheel_in_the_fourth_byte(void **state)
{
	struct mouse_run r;

	(void)state;
	mouse_start(&r, 4, true);
	MFEED(&r, 0x08, 0x01, 0x02, 0xFF, 0x08, 0x00, 0x00, 0x01);
	assert_int_equal(r.n, 2);
	assert_packet(&r.p[0], 1, 2, -1, 0);
	assert_packet(&r.p[1], 0, 0, 1, 0);
}

static void a_first_byte_without_bit_3_is_dropped_until_one_comes(void **state)
{
	struct mouse_run r;

	(void)state;
	mouse_start(&r, 3, false);
	MFEED(&r, 0x00, 0x05, 0x77, 0x08, 0x01, 0x02);
	assert_int_equal(r.n, 1);
	assert_packet(&r.p[0], 1, 2, 0, 0);
	assert_int_equal(r.m.dropped_bytes, 3);
}

static void a_packet_with_an_overflow_bit_is_dropped_whole(void **state)
{
	struct mouse_run r;

	(void)state;
	mouse_start(&r, 3, false);
	MFEED(&r, 0x48, 0xFF, 0x00, 0x08, 0x03, 0x04);
	assert_int_equal(r.n, 1);
	assert_packet(&r.p[0], 3, 4, 0, 0);
	assert_int_equal(r.m.overflows, 1);
}

static void an_unfinished_packet_is_dropped_after_the_resync_time(void **state)
{
	struct mouse_run r;

	(void)state;
	mouse_start(&r, 3, false);
	MFEED(&r, 0x08, 0x09);                           /* the rest never comes */
	r.now += (PS2_MOUSE_RESYNC_MS + 1) * MS;
	MFEED(&r, 0x09, 0x02, 0x03);
	assert_int_equal(r.n, 1);
	assert_packet(&r.p[0], 2, 3, 0, PS2_MOUSE_LEFT);
	assert_int_equal(r.m.timeouts, 1);
	/* A packet whose bytes are 3 s apart (a watch poll found the middle one) is kept. */
	MFEED(&r, 0x08, 0x04);
	r.now += 3000 * MS;
	MFEED(&r, 0x05);
	assert_int_equal(r.n, 2);
	assert_packet(&r.p[1], 4, 5, 0, 0);
}

static void unannounced_four_byte_packets_are_learned(void **state)
{
	struct mouse_run r;

	(void)state;
	mouse_start(&r, 3, false);
	for (int i = 0; i < 12; i++) {
		uint8_t z = (uint8_t)(i == 10 ? 0x01 : 0x00);

		MFEED(&r, 0x08, (uint8_t)(i + 1), 0x02, z);
		r.now += 10 * MS;
	}
	/* 3-byte decoding was right while learning (the 4th byte dropped); then 4-byte with the wheel */
	assert_int_equal(r.m.len, 4);
	assert_int_equal(r.m.relearned, 1);
	assert_int_equal(r.n, 12);
	for (int i = 0; i < 12; i++)
		assert_packet(&r.p[i], i + 1, 2, i == 10 ? 1 : 0, 0);
	assert_int_equal(r.m.dropped_bytes, PS2_MOUSE_LEARN);
}

static void a_learned_length_goes_back_when_three_byte_packets_return(void **state)
{
	struct mouse_run r;

	(void)state;
	mouse_start(&r, 3, false);
	for (int i = 0; i < PS2_MOUSE_LEARN + 1; i++)
		MFEED(&r, 0x08, 0x01, 0x01, 0x00);
	assert_int_equal(r.m.len, 4);
	r.n = 0;
	for (int i = 0; i < 10; i++)
		MFEED(&r, 0x09, (uint8_t)(i + 1), 0x03);
	assert_int_equal(r.m.len, 3);
	assert_int_equal(r.m.relearned, 2);
	assert_int_equal(r.n, 10);
	for (int i = 0; i < 10; i++)
		assert_packet(&r.p[i], i + 1, 3, 0, PS2_MOUSE_LEFT);
}

static void a_wheel_mouse_keeps_four_byte_packets(void **state)
{
	struct mouse_run r;

	(void)state;
	mouse_start(&r, 4, true);
	for (int i = 0; i < 10; i++)
		MFEED(&r, 0x08, 0x01, 0x01, 0x7F);          /* a big wheel value (QEMU sends up to 127) */
	assert_int_equal(r.m.len, 4);
	assert_int_equal(r.n, 10);
	assert_packet(&r.p[9], 1, 1, 127, 0);
}

static void the_mouse_bat_is_reported_and_resets_to_three_bytes(void **state)
{
	struct mouse_run r;

	(void)state;
	mouse_start(&r, 4, true);
	MFEED(&r, PS2_BAT_OK, PS2_MOUSE_ID_STD, 0x08, 0x01, 0x02);
	assert_int_equal(r.bats, 1);
	assert_int_equal(r.m.len, 3);
	assert_int_equal(r.n, 1);
	assert_packet(&r.p[0], 1, 2, 0, 0);
}

static void a_random_stream_then_a_pause_leaves_a_working_mouse_decoder(void **state)
{
	struct mouse_run r;
	uint32_t x = 777;

	(void)state;
	mouse_start(&r, 3, false);
	for (int i = 0; i < 200000; i++) {
		uint8_t b;

		x = x * 1103515245u + 12345u;
		b = (uint8_t)(x >> 16);
		mfeed(&r, &b, 1);
		r.n = 0;
		r.now += MS;
	}
	r.now += (PS2_MOUSE_RESYNC_MS + 1) * MS;
	ps2_mouse_init(&r.m, 3, false);                  /* the driver's answer to a learnt mess: set it up again */
	MFEED(&r, 0x08, 0x03, 0x04, 0x09, 0x05, 0x06);
	assert_int_equal(r.n, 2);
	assert_packet(&r.p[0], 3, 4, 0, 0);
	assert_packet(&r.p[1], 5, 6, 0, PS2_MOUSE_LEFT);
}

static void null_arguments_are_refused(void **state)
{
	struct ps2_kbd k;
	struct ps2_kbd_out o;
	struct ps2_mouse m;
	struct ps2_mouse_packet p;

	(void)state;
	memset(&k, 0, sizeof(k));
	memset(&m, 0, sizeof(m));
	assert_int_equal(ps2_kbd_feed(NULL, 0x1C, 0, &o), -1);
	assert_int_equal(ps2_kbd_feed(&k, 0x1C, 0, NULL), -1);
	assert_int_equal(ps2_mouse_feed(NULL, 0x08, 0, &p), -1);
	assert_int_equal(ps2_mouse_feed(&m, 0x08, 0, NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_key_of_the_us_map_types_its_character),
		cmocka_unit_test(shift_gives_upper_case_and_symbols_and_its_break_ends_it),
		cmocka_unit_test(ctrl_gives_control_codes_with_either_ctrl),
		cmocka_unit_test(caps_lock_toggles_on_its_make_only_and_asks_for_the_leds),
		cmocka_unit_test(keypad_digits_need_num_lock_its_operators_do_not),
		cmocka_unit_test(extended_keys_decode_and_fake_shifts_are_no_key),
		cmocka_unit_test(a_held_key_repeats_after_the_typematic_delay),
		cmocka_unit_test(a_stuck_scan_code_gives_one_character_until_its_break),
		cmocka_unit_test(only_the_last_key_repeats),
		cmocka_unit_test(garbage_between_keys_changes_nothing_after_it),
		cmocka_unit_test(an_answer_cuts_a_code_short_and_is_handed_on),
		cmocka_unit_test(pause_is_one_key_and_a_broken_pause_resynchronises),
		cmocka_unit_test(bat_and_overrun_release_every_key),
		cmocka_unit_test(every_byte_in_every_state_is_taken_safely),
		cmocka_unit_test(a_random_stream_then_an_overrun_leaves_a_working_decoder),
		cmocka_unit_test(standard_packets_decode_with_signs_and_buttons),
		cmocka_unit_test(a_wheel_mouse_sends_its_wheel_in_the_fourth_byte),
		cmocka_unit_test(a_first_byte_without_bit_3_is_dropped_until_one_comes),
		cmocka_unit_test(a_packet_with_an_overflow_bit_is_dropped_whole),
		cmocka_unit_test(an_unfinished_packet_is_dropped_after_the_resync_time),
		cmocka_unit_test(unannounced_four_byte_packets_are_learned),
		cmocka_unit_test(a_learned_length_goes_back_when_three_byte_packets_return),
		cmocka_unit_test(a_wheel_mouse_keeps_four_byte_packets),
		cmocka_unit_test(the_mouse_bat_is_reported_and_resets_to_three_bytes),
		cmocka_unit_test(a_random_stream_then_a_pause_leaves_a_working_mouse_decoder),
		cmocka_unit_test(null_arguments_are_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
